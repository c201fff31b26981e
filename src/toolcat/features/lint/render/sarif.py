"""``--format sarif``: SARIF 2.1.0 (valid against the OASIS schema; tested).

Each finding is a ``result`` with its rule, level (error/warning/note), message, physical
location (file, line, column) and a logical location (the tool), plus the JSON pointer in
``properties`` and a stable ``partialFingerprints`` entry (file, rule, tool, pointer: the
same identity a baseline uses) so code-scanning services track findings across edits.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Iterator
from urllib.parse import quote

from toolcat.features.lint.render import Report, server_index
from toolcat.version import __version__

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(file: str) -> str:
    if file == "-":
        return "stdin"
    if os.path.isabs(file):
        from pathlib import Path

        return Path(file).as_uri()
    return quote(file.replace(os.sep, "/"), safe="/._-~")


def render_sarif(report: Report) -> str:
    return "".join(sarif_chunks(report))


def sarif_chunks(report: Report) -> Iterator[str]:
    """:func:`render_sarif`'s text in parts: the results are written one at a time as the
    findings are read (spilled findings are never held as one list, nor are the results:
    100,000 results held at once took over a gigabyte)."""
    from toolcat.features.lint.render.json import list_in

    rules = sorted(report.rules, key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rules)}
    descriptors = [
        {"id": r.code, "name": r.name,
         "shortDescription": {"text": r.summary},
         "fullDescription": {"text": r.doc},
         "defaultConfiguration": {"level": _LEVEL[r.severity]},
         "properties": {"category": r.category}}
        for r in rules
    ]
    log: dict[str, Any] = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "toolcat", "version": __version__,
                                "semanticVersion": __version__,
                                "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "results": None,
            "properties": {"profile": report.profile, "baselineHidden": report.hidden},
        }],
    }
    yield from list_in(log, "results", (_result(report, f, index) for f in report.findings),
                       bool(report.findings), at=("runs", 0))
    yield "\n"


def _result(report: Report, f: Any, index: dict) -> dict:
    """One finding as a SARIF result."""
    loc: dict
    if f.file in report.servers:
        # a live server is no artifact: logical locations only (the server, the tool and
        # its index in the server's tools/list)
        idx = server_index(report, f)
        logical = [{"name": f.file, "kind": "module"}]
        if f.tool:
            at = f"/tools/{idx}" if idx is not None else ""
            logical.append({"name": f.tool, "kind": "function",
                            "fullyQualifiedName": f"{f.file}{at}{f.pointer}"})
        loc = {"logicalLocations": logical}
    else:
        loc = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}}}
        if f.line is not None:
            region = {"startLine": f.line}
            if f.column is not None:
                region["startColumn"] = f.column
            loc["physicalLocation"]["region"] = region
        if f.tool:
            loc["logicalLocations"] = [{"name": f.tool, "kind": "function",
                                        "fullyQualifiedName": f"{f.tool}{f.pointer}"}]
    ident = "\x00".join((f.file, f.code, f.tool or "", f.pointer or ""))
    res: dict = {"ruleId": f.code, "level": _LEVEL[f.severity],
                 "message": {"text": report.tagged(f)}, "locations": [loc],
                 "partialFingerprints": {
                     "toolcatFinding/v1": hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]},
                 "properties": {"pointer": f.pointer, "tool": f.tool}}
    if f.code in index:
        res["ruleIndex"] = index[f.code]
    return res
