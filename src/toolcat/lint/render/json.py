"""``--format json``: ``{"findings": [...], "summary": {...}}`` (the shape issue 4 fixes)."""

from __future__ import annotations

from toolcat.document.canonical import dumps
from toolcat.lint.render import Report


def report_data(report: Report) -> dict:
    c = report.counts()
    return {
        "findings": [
            {"code": f.code, "severity": f.severity, "message": f.message, "file": f.file,
             "line": f.line, "column": f.column, "tool": f.tool, "pointer": f.pointer}
            for f in report.findings
        ],
        "summary": {"errors": c["error"], "warnings": c["warning"], "infos": c["info"],
                    "files": report.files, "tools": report.tools},
    }


def render_json(report: Report) -> str:
    return dumps(report_data(report), indent=2).decode("utf-8") + "\n"
