"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=F,line=L,col=C,title=CODE::message`` (``::warning`` / ``::notice`` for
warnings and infos). Values are escaped as the runner expects (``%``, CR, LF; and ``:`` and
``,`` inside properties).
"""

from __future__ import annotations

from toolcat.features.lint.render import Report, server_index
from toolcat.terminal import shown

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(s: str) -> str:
    # the runner shows these to people: control characters escaped visibly (a CR or LF
    # from the data is "\r"/"\n" text, not a line break of the annotation)
    return shown(s).replace("%", "%25")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    out = []
    for f in report.findings:
        live = f.file in report.servers
        # a live server is no file of the repository: the annotation names it in its text
        props = [] if live else [f"file={_prop(f.file)}"]
        if f.line is not None:
            props.append(f"line={f.line}")
            if f.column is not None:
                props.append(f"col={f.column}")
        props.append(f"title={_prop(f.code)}")
        idx = server_index(report, f) if live else None
        tool = f.tool and (f"[{f.tool} #{idx}]" if idx is not None else f"[{f.tool}]")
        where = " ".join(x for x in (f.file if live else None, tool, f.pointer) if x)
        msg = f"{report.tagged(f)} {where}".rstrip()
        out.append(f"::{_LEVEL[f.severity]} {','.join(props)}::{_data(msg)}")
    return "\n".join(out) + ("\n" if out else "")
