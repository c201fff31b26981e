"""``--format text`` (default): findings grouped by file and tool, with the source line and a
caret where the position is known, then a one-line summary.

Plain text when stdout is not a terminal (no Rich import, no escape codes); on a terminal the
same lines are coloured through Rich.
"""

from __future__ import annotations

from toolcat.lint.render import Report
from toolcat.model import Finding

_SEV_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MAX_SOURCE = 160


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _source_line(report: Report, file: str, line: int | None) -> str | None:
    if line is None:
        return None
    src = report.sources.get(file)
    return src.line(line) if src is not None else None


def grouped(findings: list[Finding]) -> list[Finding]:
    """Findings by file, then tool (each in order of first appearance), then position: one
    header per file and per tool, even when a tool's findings are not adjacent in the sorted
    list (a shared component reported between two of its operations)."""
    groups: dict[str, dict[str | None, list[Finding]]] = {}
    for f in findings:
        groups.setdefault(f.file, {}).setdefault(f.tool, []).append(f)
    out: list[Finding] = []
    for tools in groups.values():
        for fs in tools.values():
            fs.sort(key=lambda f: (f.line or 0, f.column or 0))  # stable: sorted input stays
            out.extend(fs)
    return out


def snippet(text: str, column: int) -> tuple[str, int]:
    """The part of a source line to show (at most ``_MAX_SOURCE`` characters around the
    1-based ``column``, "…" marking a cut start) and the 0-based caret offset in it.

    The window is cut before anything else touches the line: on a one-line JSON file the line
    is the whole file, and a per-finding pass over it would make lint quadratic. Tabs are shown
    as one space each, so columns (counted in characters) stay aligned."""
    col = max(column - 1, 0)
    if len(text) > _MAX_SOURCE:
        start = max(0, min(col - 40, len(text) - _MAX_SOURCE))
        text = ("…" if start else "") + text[start:start + _MAX_SOURCE]
        col = col - start + (1 if start else 0)
    return text.replace("\t", " "), col


def build(report: Report, quiet: bool = False) -> list[list[tuple[str, str]]]:
    """Lines of (text, style) segments."""
    out: list[list[tuple[str, str]]] = []
    cur_file = None
    cur_tool: object = object()
    for f in grouped(report.findings):
        if f.file != cur_file:
            if cur_file is not None:
                out.append([])
            out.append([(f.file, "bold")])
            cur_file, cur_tool = f.file, object()
        if f.tool != cur_tool:
            cur_tool = f.tool
            out.append([("  ", ""), (f"tool {f.tool}" if f.tool else "(no tool id)", "bold")])
        pos = f"{f.line}:{f.column}" if f.line is not None else "-"
        out.append([("    ", ""), (f"{pos:<9}", "dim"), (f"{f.severity:<9}", _SEV_STYLE[f.severity]),
                    (f"{f.code}  ", "bold"), (report.tagged(f), ""),
                    (f"  {f.pointer}" if f.pointer else "", "dim")])
        text = _source_line(report, f.file, f.line)
        if text is not None and f.column is not None:
            shown, col = snippet(text, f.column)
            gutter = str(f.line)
            out.append([("      ", ""), (gutter + " | ", "dim"), (shown, "")])
            out.append([("      ", ""), (" " * len(gutter) + " | ", "dim"),
                        (" " * col + "^", _SEV_STYLE[f.severity])])
    if not quiet:
        if out:
            out.append([])
        c = report.counts()
        where = f"{_plural(report.files, 'file')}, {_plural(report.tools, 'tool')}"
        hidden = f" ({report.hidden:,} hidden by the baseline)" if report.hidden else ""
        if report.findings:
            parts = [_plural(c["error"], "error"), _plural(c["warning"], "warning"),
                     _plural(c["info"], "info")]
            out.append([(f"Found {', '.join(parts)} in {where}.{hidden}", "bold")])
        else:
            out.append([(f"No problems found in {where}.{hidden}", "bold")])
    if report.many and report.matrix is not None:
        out.append([])
        out.extend(matrix_lines(report.matrix))
    return out


def printable(text: str) -> str:
    """``text`` with control and other unprintable characters escaped (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


_CELL_STYLE = {"ok": "green", "warnings": "yellow", "errors": "bold red"}


def matrix_lines(m: dict) -> list[list[tuple[str, str]]]:
    """The compatibility matrix as aligned text lines (tools x profiles)."""
    names = m["profiles"]
    files = {r["file"] for r in m["rows"]}
    label = (lambda r: printable(f"{r['file']}: {r['tool']}")) if len(files) > 1 else \
        (lambda r: printable(str(r["tool"])))
    labels = [label(r) for r in m["rows"]]
    w0 = max([len("tool")] + [len(x) for x in labels])
    widths = [max(len(n), len("warnings")) for n in names]
    out: list[list[tuple[str, str]]] = [[("Compatibility (tools x profiles)", "bold")]]
    out.append([("tool".ljust(w0), "bold")] + [("  " + (n.ljust(w) if i < len(names) - 1
                                                         else n), "bold")
                                                for i, (n, w) in enumerate(zip(names, widths))])
    for r, lab in zip(m["rows"], labels):
        segs = [(lab.ljust(w0), "")]
        for i, (n, w) in enumerate(zip(names, widths)):
            cell = r["cells"][n]
            segs.append(("  ", ""))
            segs.append((cell.ljust(w) if i < len(names) - 1 else cell, _CELL_STYLE[cell]))
        out.append(segs)
    tot = m["totals"]
    cells = [f"{tot[n]['ok']}/{len(m['rows'])}" for n in names]
    out.append([("tools ok".ljust(w0), "bold")] +
               [("  " + (c.ljust(w) if i < len(names) - 1 else c), "bold")
                for i, (c, w) in enumerate(zip(cells, widths))])
    return out


def render_text(report: Report, color: bool = False, quiet: bool = False) -> str:
    lines = build(report, quiet)
    if not color:
        return "".join("".join(t for t, _s in segs) + "\n" for segs in lines)
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    buf = StringIO()
    con = Console(file=buf, force_terminal=True, color_system="auto", highlight=False,
                  soft_wrap=True, emoji=False, markup=False, width=10_000)
    for segs in lines:
        con.print(Text.assemble(*[(t, s) if s else t for t, s in segs]))
    return buf.getvalue()
