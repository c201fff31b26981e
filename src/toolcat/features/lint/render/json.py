"""``--format json``: ``{"findings": [...], "summary": {...}}`` (the shape issue 4 fixes)."""

from __future__ import annotations

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
    return dumps(report_data(report), indent=2).decode("utf-8") + "\n"
