"""``--format json``: ``{"findings": [...], "summary": {...}}`` (the shape issue 4 fixes)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from toolcat.document.canonical import dumps
from toolcat.features.lint.render import Report, server_index


def finding_data(report: Report, f) -> dict:
    """One finding; on a live server also ``server`` (its name, as in ``file``) and
    ``index`` (the tool's index in the server's tools/list, or null)."""
    out = {"code": f.code, "severity": f.severity, "message": f.message, "file": f.file,
           "line": f.line, "column": f.column, "tool": f.tool, "pointer": f.pointer}
    if f.file in report.servers:
        out["server"] = f.file
        out["index"] = server_index(report, f)
    return out


def report_data(report: Report) -> dict:
    """With several profiles each finding has ``"profiles"`` and the report a ``"matrix"``:
    ``{"profiles": [...], "tools": [{"file", "tool", "results": {profile: "ok" | "warnings" |
    "errors"}}], "totals": {profile: {"ok": n, "warnings": n, "errors": n}}}``."""
    c = report.counts()
    summary = {"errors": c["error"], "warnings": c["warning"], "infos": c["info"],
               "files": report.files, "tools": report.tools}
    servers = [k for k, v in report.servers.items() if not v.startswith("setup")]
    if servers:
        summary["servers"] = len(servers)
    findings = []
    for f in report.findings:
        d = finding_data(report, f)
        if report.many:
            d["profiles"] = list(f.profiles)
        findings.append(d)
    out = {
        "findings": findings,
        "summary": summary,
    }
    if report.many and report.matrix is not None:
        m = report.matrix
        out["matrix"] = {"profiles": m["profiles"],
                         "tools": [{"file": r["file"], "tool": r["tool"], "results": r["cells"]}
                                   for r in m["rows"]],
                         "totals": m["totals"]}
    return out


def render_json(report: Report) -> str:
    return "".join(json_chunks(report))


def json_chunks(report: Report) -> Iterator[str]:
    """:func:`render_json`'s text in parts: spilled findings (a streamed catalog's) are
    written one by one as they are read back, never held as one list."""
    many = report.many
    skeleton = report_data(Report(findings=[], files=report.files, tools=report.tools,
                                  profile=report.profile, sources=report.sources,
                                  profiles=report.profiles, matrix=report.matrix,
                                  servers=report.servers))
    skeleton["summary"].update(_summary_counts(report))

    def items() -> Iterator[dict]:
        for f in report.findings:
            d = finding_data(report, f)
            if many:
                d["profiles"] = list(f.profiles)
            yield d

    yield from list_in(skeleton, "findings", items(), bool(report.findings))
    yield "\n"


def _summary_counts(report: Report) -> dict:
    c = report.counts()
    return {"errors": c["error"], "warnings": c["warning"], "infos": c["info"]}


#: a string no report holds, standing for a list while the rest of a document is written
_MARK = "\x00toolcat:items\x00"


def list_in(doc: dict, key: str, items: Iterable[Any], any_items: bool,
            at: tuple = ()) -> Iterator[str]:
    """``dumps(doc, indent=2)`` (without the final newline) with ``items`` as the list at
    ``doc[at...][key]``, the items dumped one at a time (the same text as the whole list
    dumped at once). ``any_items``: whether ``items`` has any (an empty list is ``[]``)."""
    box = doc
    for k in at:
        box = box[k]
    box[key] = _MARK
    text = dumps(doc, indent=2).decode("utf-8")
    token = dumps(_MARK).decode("utf-8")
    head, tail = text.split(token)
    if not any_items:
        yield head + "[]" + tail
        return
    pad = head[head.rfind("\n") + 1:]
    pad = pad[:len(pad) - len(pad.lstrip(" "))] + "  "
    nl = "\n" + pad
    yield head + "["
    sep = nl
    for item in items:
        yield sep + dumps(item, indent=2).decode("utf-8").replace("\n", nl)
        sep = "," + nl
    yield "\n" + pad[:-2] + "]" + tail
