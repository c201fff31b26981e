"""``--format text`` (default): findings grouped by file and tool, with the source line and a
caret where the position is known, then a one-line summary.

Plain text when stdout is not a terminal (no Rich import, no escape codes); on a terminal the
same lines are coloured through Rich.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from toolcat.features.lint.render import Report, server_index, where_counts
from toolcat.model import Finding
from toolcat.terminal import shown

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


def grouped_stream(findings: Any) -> Iterator[Finding]:
    """:func:`grouped` of sorted findings that are read again on each pass (spilled ones):
    the same order without holding them. Sorted, a file's findings are adjacent and a tool's
    are in order, so the stream is its own grouping but for a tool (or no tool) met again
    after another one: such groups are found in a first pass (every group is remembered in a
    fixed-size Bloom filter: a false hit only gathers a group that was adjacent anyway), their
    findings gathered in a second and written all at the first place of the group."""
    bloom = _Bloom()
    again: set[tuple] = set()
    cur: Any = None
    for f in findings:
        g = (f.file, f.tool)
        if g != cur:
            if bloom.add(g):
                again.add(g)
            cur = g
    if not again:
        yield from findings
        return
    gathered: dict[tuple, list[Finding]] = {g: [] for g in again}
    for f in findings:
        got = gathered.get((f.file, f.tool))
        if got is not None:
            got.append(f)
    for f in findings:
        g = (f.file, f.tool)
        if g in gathered:
            fs = gathered.get(g)
            if fs is None:
                continue              # written at the group's first place
            yield from fs
            gathered[g] = None        # type: ignore[assignment]
            continue
        yield f


class _Bloom:
    """A set of hashable values in 8 MiB that may answer "seen" for a value never added
    (rarely: under one in ten thousand for a million values), never the other way."""

    _BITS = 1 << 26

    def __init__(self) -> None:
        self._bits = bytearray(self._BITS >> 3)

    def add(self, value: Any) -> bool:
        """Add ``value``; whether it was (probably) there already."""
        h = hash(value) & 0xFFFFFFFFFFFFFFFF
        m = self._BITS - 1
        seen = True
        bits = self._bits
        for i in (h & m, (h >> 19) & m, (h >> 38) & m):
            byte, bit = i >> 3, 1 << (i & 7)
            if not bits[byte] & bit:
                seen = False
                bits[byte] |= bit
        return seen


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


def mask_secrets(text: str, cols) -> str:
    """``text`` (a source line) with the values TC105 found starting at the 0-based ``cols``
    masked (their first 4 characters kept, the rest ``*``), and every token-shaped string on
    the line too: lint must not print the secret it reports (CI logs keep what it prints),
    whichever finding shows the line. The length is kept, so carets stay in place."""
    from toolcat.features.lint.rules.secrets import token_spans

    spans = [(a, b) for a, b in token_spans(text)]
    spans += [(c + 1 if text[c:c + 1] in ("'", '"') else c, _scalar_end(text, c))
              for c in cols]
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        for i in range(min(a + 4, b), b):
            chars[i] = "*"
    return "".join(chars)


def _scalar_end(text: str, col: int) -> int:
    """End of the JSON/YAML scalar starting at ``col`` on this line (the line's end when it
    goes on)."""
    n = len(text)
    if col >= n:
        return n
    q = text[col]
    if q in "\"'":
        i = col + 1
        while i < n:
            if text[i] == "\\" and q == '"':
                i += 2
                continue
            if text[i] == q:
                if q == "'" and text[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return i          # the closing quote stays
            i += 1
        return n
    i = col
    while i < n and not (text[i] in ",]}" or text.startswith(" #", i)):
        i += 1
    return i


def _line_of(f: Finding, message: str) -> list[tuple[str, str]]:
    pos = f"{f.line}:{f.column}" if f.line is not None else "-"
    # (a column of a long one-line file is wide: at least one space before the severity)
    return [("    ", ""), (f"{pos:<8} ", "dim"), (f"{f.severity:<9}", _SEV_STYLE[f.severity]),
            (f"{f.code}  ", "bold"), (shown(message), ""),
            (f"  {shown(f.pointer)}" if f.pointer else "", "dim")]


def build(report: Report, quiet: bool = False) -> Iterator[list[tuple[str, str]]]:
    """Lines of (text, style) segments, made as they are written (a million findings are
    not held twice); every value from the input is shown escaped
    (:func:`toolcat.terminal.shown`): one finding's line stays one line, with no control
    character."""
    cur_file = None
    cur_tool: object = object()
    secrets: dict[tuple[str, int], list[int]] = {}
    for f in report.findings:
        if f.code == "TC105" and f.line is not None and f.column is not None:
            secrets.setdefault((f.file, f.line), []).append(f.column - 1)
    done: dict[tuple[str, int], str] = {}

    def masked(file: str, line: int, text: str) -> str:
        """The source line with every secret on it masked (once per line: a one-line JSON
        file's line is the whole file)."""
        key = (file, line)
        hit = done.get(key)
        if hit is None:
            hit = done[key] = mask_secrets(text, secrets.get(key, ()))
        return hit

    spilled = hasattr(report.findings, "counts")
    for f in grouped_stream(report.findings) if spilled else grouped(report.findings):
        if f.file != cur_file:
            if cur_file is not None:
                yield []
            kind = report.servers.get(f.file)
            yield [(shown(f.file), "bold"), (f"  ({kind})" if kind else "", "dim")]
            cur_file, cur_tool = f.file, object()
        if f.tool != cur_tool:
            cur_tool = f.tool
            idx = server_index(report, f)
            whole = f.tool is None and report.servers.get(f.file, "").startswith("setup")
            yield [("  ", ""), (f"tool {shown(f.tool)}" if f.tool else
                                "(all tools together)" if whole else "(no tool id)", "bold"),
                   (f"  (#{idx} in tools/list)" if idx is not None else "", "dim")]
        yield _line_of(f, report.tagged(f))
        text = _source_line(report, f.file, f.line)
        if text is not None and f.column is not None:
            assert f.line is not None       # (a source line has a number)
            text = masked(f.file, f.line, text)
            cut, col = snippet(text, f.column)
            safe = shown(cut)
            if safe is not cut:
                col = len(shown(cut[:col]))   # the caret under the same character
            gutter = str(f.line)
            yield [("      ", ""), (gutter + " | ", "dim"), (safe, "")]
            yield [("      ", ""), (" " * len(gutter) + " | ", "dim"),
                   (" " * col + "^", _SEV_STYLE[f.severity])]
    if not quiet:
        if report.findings:
            yield []
        yield summary_line(report)
    if report.many and report.matrix is not None:
        yield []
        yield from matrix_lines(report.matrix)


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


def summary_line(report: Report) -> list[tuple[str, str]]:
    c = report.counts()
    where = where_counts(report)
    hidden = f" ({report.hidden:,} hidden by the baseline)" if report.hidden else ""
    if report.findings:
        parts = [_plural(c["error"], "error"), _plural(c["warning"], "warning"),
                 _plural(c["info"], "info")]
        return [(f"Found {', '.join(parts)} in {where}.{hidden}", "bold")]
    return [(f"No problems found in {where}.{hidden}", "bold")]


def build_concise(report: Report, quiet: bool = False) -> Iterator[list[tuple[str, str]]]:
    """``--format concise``: one line per finding, ``FILE:LINE:COL: CODE message``."""
    spilled = hasattr(report.findings, "counts")        # kept sorted
    for f in report.findings if spilled else sorted(report.findings, key=Finding.sort_key):
        where = shown(f.file)
        if f.line is not None:
            where += f":{f.line}:{f.column}" if f.column is not None else f":{f.line}"
        extra = " ".join(x for x in (f.tool and f"[{shown(f.tool)}]",
                                     f.pointer and shown(f.pointer)) if x)
        yield [(where + ": ", "bold"), (f.code, _SEV_STYLE[f.severity]),
               (f" {shown(report.tagged(f))}", ""), (f"  {extra}" if extra else "", "dim")]
    if not quiet:
        if report.findings:
            yield []
        yield summary_line(report)


def build_statistics(report: Report, quiet: bool = False) -> list[list[tuple[str, str]]]:
    """``--statistics``: how many findings each rule has (most first), like ruff's."""
    out: list[list[tuple[str, str]]] = []
    for row in statistics(report):
        out.append([(f"{row['count']:>7,}  ", ""), (f"{row['code']:<6} ", "bold"),
                    (f"{row['severity']:<8} ", _SEV_STYLE[row["severity"]]), (row["name"], "")])
    if report.score is not None:
        out += score_lines(report.score)
    if not quiet:
        if out:
            out.append([])
        out.append(summary_line(report))
    return out


def score_lines(sc: Any) -> list[list[tuple[str, str]]]:
    """The description quality score (``--statistics``): the score, what each check takes
    off it, and each catalog's when there are several."""
    from toolcat.features.lint.quality import CHECK_RULES

    lost = ", ".join(f"{CHECK_RULES[k]} -{v:g}" for k, v in sc.lost().items() if v)
    out = [[], [("Description score ", "bold"), (f"{sc.score:.1f}/100", "bold"),
                (f" ({len(sc.tools):,} tools" + (f"; lost: {lost}" if lost else "") + ")", "")]]
    if len(sc.catalogs) > 1:
        for f, s, n in sc.catalogs:
            out.append([(f"  {s:5.1f}  ", ""), (shown(f), ""), (f"  ({n:,} tools)", "dim")])
    return out


def statistics(report: Report) -> list[dict]:
    """``[{code, name, severity, count}]``, most findings first, then by code (a rule whose
    findings have several severities gets one row per severity)."""
    from collections import Counter

    names = {r.code: r.name for r in report.rules}
    counts = Counter((f.code, f.severity) for f in report.findings)
    rows = [{"code": c, "name": names.get(c, ""), "severity": s, "count": n}
            for (c, s), n in counts.items()]
    rows.sort(key=lambda r: (-r["count"], r["code"], r["severity"]))
    return rows


def plain_chunks(lines: Iterable[list[tuple[str, str]]], size: int = 1 << 16) -> Iterator[str]:
    """The lines without colour, in parts of about ``size`` characters (what
    :func:`render_lines` joins)."""
    part: list[str] = []
    n = 0
    for segs in lines:
        line = "".join(t for t, _s in segs) + "\n"
        part.append(line)
        n += len(line)
        if n >= size:
            yield "".join(part)
            part, n = [], 0
    if part:
        yield "".join(part)


def render_lines(lines: Iterable[list[tuple[str, str]]], color: bool) -> str:
    if not color:
        return "".join(plain_chunks(lines))
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    buf = StringIO()
    con = Console(file=buf, force_terminal=True, color_system="auto", highlight=False,
                  soft_wrap=True, emoji=False, markup=False, width=10_000)
    for segs in lines:
        con.print(Text.assemble(*[(t, s) if s else t for t, s in segs]))
    return buf.getvalue()


def render_text(report: Report, color: bool = False, quiet: bool = False) -> str:
    return render_lines(build(report, quiet), color)


def render_concise(report: Report, color: bool = False, quiet: bool = False) -> str:
    return render_lines(build_concise(report, quiet), color)


def render_statistics(report: Report, color: bool = False, quiet: bool = False) -> str:
    return render_lines(build_statistics(report, quiet), color)
