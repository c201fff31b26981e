"""Terminal and file output shared by every command.

* Colour follows ``NO_COLOR``, ``--no-color`` and whether the stream is a terminal; output
  that is not a terminal never carries escape codes.
* ``--quiet`` silences summaries on stderr (results on stdout still print).
* Every output file goes through :mod:`toolcat.files` (atomic replacement of regular files,
  direct writes to devices and FIFOs); everything printed for people through
  :mod:`toolcat.terminal` (control characters escaped, no Rich markup).

Rich is imported only when a console is first needed.
"""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from typing import Any, Sequence


class _Run:
    """The output options of one run (one CLI invocation) and its consoles."""

    __slots__ = ("no_color", "quiet", "out", "err")

    def __init__(self) -> None:
        self.no_color = False
        self.quiet = False
        self.out: Any = None
        self.err: Any = None


#: the run's options, per context (a thread has its own: runs in several threads, e.g. the
#: CLI's in-process runner, never see one another's --quiet or consoles)
_RUN: ContextVar[_Run | None] = ContextVar("toolcat_ui_run", default=None)


def _run() -> _Run:
    run = _RUN.get()
    if run is None:
        run = _Run()
        _RUN.set(run)
    return run


class _State:
    """``ui.state``: the options of the run in this context (:data:`_RUN`)."""

    __slots__ = ()

    @property
    def no_color(self) -> bool:
        return _run().no_color

    @no_color.setter
    def no_color(self, value: bool) -> None:
        _run().no_color = value

    @property
    def quiet(self) -> bool:
        return _run().quiet

    @quiet.setter
    def quiet(self, value: bool) -> None:
        _run().quiet = value

    # the run's consoles (None: made again when next asked, by out() and err())
    @property
    def _out(self) -> Any:
        return _run().out

    @_out.setter
    def _out(self, value: Any) -> None:
        _run().out = value

    @property
    def _err(self) -> Any:
        return _run().err

    @_err.setter
    def _err(self, value: Any) -> None:
        _run().err = value


state = _State()


def reset() -> None:
    """Forget the options of a previous run (``cli.run`` may be called many times in-process)."""
    _RUN.set(_Run())


def configure(no_color: bool | None = None, quiet: bool | None = None) -> None:
    run = _run()
    if no_color:
        run.no_color = True
        run.out = run.err = None
    if quiet:
        run.quiet = True


def color_enabled(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    if state.no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _GuardedText:
    """A text stream that escapes every control character written to it
    (:func:`toolcat.terminal.guard`), keeping colour sequences (SGR) where :meth:`_color`
    says colour is on; written as UTF-8 bytes (``safe_bytes``) where the stream has a buffer.
    Catalog text is never Rich markup either (consoles are made with markup off)."""

    errors = "backslashreplace"

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def _color(self) -> bool:
        raise NotImplementedError

    def _write(self, text: str, flush_buffer: bool) -> int:
        from toolcat.terminal import guard

        if "\x1b[" in text and self._color():
            import re

            parts = re.split("(\x1b\\[[0-9;]*m)", text)
            text = "".join(p if i % 2 else guard(p) for i, p in enumerate(parts))
        else:
            text = guard(text)
        buf = getattr(self._stream, "buffer", None)
        if buf is not None:
            from toolcat.terminal import safe_bytes

            self._stream.flush()
            buf.write(safe_bytes(text))
            if flush_buffer:
                buf.flush()
        else:
            self._stream.write(text)
        return len(text)

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return "utf-8"


class _Guarded(_GuardedText):
    """The stream of toolcat's Rich consoles: colour as the console was made; a reader that
    went away (a closed pipe) ends the run quietly (:class:`~toolcat.files.ReaderGone`)."""

    def __init__(self, stream: Any, color: bool) -> None:
        super().__init__(stream)
        self._use_color = color

    def _color(self) -> bool:
        return self._use_color

    def write(self, text: str) -> int:
        try:
            return self._write(text, flush_buffer=False)
        except BrokenPipeError:
            from toolcat.files import ReaderGone

            raise ReaderGone() from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            from toolcat.files import ReaderGone

            raise ReaderGone() from None


class GuardedStderr(_GuardedText):
    """``sys.stderr`` for a run of the CLI: every line toolcat writes there is for people,
    so every control character that reaches it is escaped, whoever wrote it; on a colour
    terminal the colour sequences pass."""

    def _color(self) -> bool:
        return color_enabled(self._stream)

    def write(self, text: str) -> int:
        return self._write(text, flush_buffer=True)

    def flush(self) -> None:
        self._stream.flush()


_CONSOLE_CLASS = None


def _console_class() -> Any:
    global _CONSOLE_CLASS
    if _CONSOLE_CLASS is None:
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                # Rich exits 1 here; a reader gone away is exit 0 (``toolcat.cli.run``)
                from toolcat.files import ReaderGone

                self.quiet = True
                raise ReaderGone()

        _CONSOLE_CLASS = _Console
    return _CONSOLE_CLASS


def _console(stream: Any) -> Any:
    use_color = color_enabled(stream)
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = terminal_width(stream) or 10_000
    return _console_class()(
        file=_Guarded(stream, use_color),
        no_color=not use_color,
        color_system="auto" if use_color else None,
        force_terminal=use_color if use_color else None,
        highlight=False,
        markup=False,
        soft_wrap=not tty,
        emoji=False,
        width=width,
    )


def plain_err() -> Any:
    """The stream :func:`err`'s console writes to, where that console prints text as it is
    (stderr no terminal: no width, nothing wrapped; no colour): a line of printable ASCII
    written there is what the console prints for it, without loading Rich. None elsewhere."""
    stream = sys.stderr
    if color_enabled(stream) or terminal_width(stream) is not None:
        return None
    run = _run()
    if run.err is not None and run.err.file._stream is stream:
        return run.err.file
    return _Guarded(stream, False)


def out() -> Any:
    """Rich console on stdout."""
    run = _run()
    if run.out is None or run.out.file._stream is not sys.stdout:
        run.out = _console(sys.stdout)
    return run.out


def err() -> Any:
    """Rich console on stderr."""
    run = _run()
    if run.err is None or run.err.file._stream is not sys.stderr:
        run.err = _console(sys.stderr)
    return run.err


def terminal_width(stream: Any = None) -> int | None:
    """The width output for people must fit on the terminal ``stream`` is: ``COLUMNS`` when
    set, else the terminal's own; None when ``stream`` is no terminal (piped output has no
    width: nothing is cut, folded or laid out for a screen)."""
    stream = stream or sys.stdout
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and 0 < int(cols) < 100_000:
        return max(int(cols), 20)
    try:
        return max(os.get_terminal_size(stream.fileno()).columns, 20)
    except (OSError, ValueError, AttributeError):
        return 80


def print_table(table: Any, con: Any = None) -> None:
    """Print a Rich table whole: as a table when it fits the width (``terminal_width``; any
    width when piped), else one record per block (the first column's value on a line of its
    own, then ``header value`` pairs packed into lines that fit). A cell is never cut,
    folded or broken inside a word."""
    from rich.measure import Measurement

    con = con or out()
    width = terminal_width(con.file._stream)
    plain = plain_table(table) if con.color_system is None else None
    if plain is not None:
        lines, natural = plain
        if width is None or natural <= width:
            # what Rich prints for this table, without Rich's per-cell layout (most of the
            # time of `toolcat tools` on 20,000 files: issue 13 item 21)
            con.file.write("".join(line + "\n" for line in lines))
            con.file.flush()
            return
    natural = Measurement.get(con, con.options.update_width(100_000), table).maximum
    if width is None or natural <= width:
        old = con.width
        con.width = max(old, natural)
        try:
            con.print(table)
        finally:
            con.width = old
        return
    for line in table_blocks(table, width):
        con.print(line, soft_wrap=True)   # laid out to fit: Rich must not fold it again


def print_wrapped(text: Any, con: Any = None) -> None:
    """Print a line of prose (a Rich ``Text`` or str) wrapped between words to the width of
    the terminal, never inside a word (a word longer than the screen has a line of its own;
    the terminal shows it as it can); one line when piped."""
    from rich.text import Text

    con = con or out()
    if not isinstance(text, Text):
        text = Text(str(text))
    width = terminal_width(con.file._stream)
    plain = text.plain
    if width is None or len(plain) <= width:
        con.print(text, soft_wrap=True)
        return
    import re

    start = end = None
    for m in re.finditer(r"\S+", plain):
        if start is None:
            start, end = m.start(), m.end()
        elif m.end() - start <= width:
            end = m.end()
        else:
            con.print(text[start:end], soft_wrap=True)
            start, end = m.start(), m.end()
    if start is not None:
        con.print(text[start:end], soft_wrap=True)


def plain_table(table: Any) -> tuple[list[str], int] | None:
    """The lines Rich prints for ``table`` without colour at its natural width, and that
    width; None when the table uses anything this does not lay out the same way (borders,
    edges, titles, footers, multi-line cells, cell-level justification...): then Rich
    does it. The shape every toolcat table has: no box, no edge padding, padding (0, 1),
    a header row (its cells aligned to the bottom, as Rich does), cells on one line."""
    from rich.cells import cell_len
    from rich.control import strip_control_codes
    from rich.text import Text

    if (table.box is not None or table.show_edge or table.pad_edge or table.expand
            or table.title or table.caption or table.show_footer or not table.show_header
            or tuple(table.padding) != (0, 1, 0, 1) or table.collapse_padding
            or table.width is not None or table.min_width is not None
            or table.row_styles or not table.columns):
        return None
    cols = table.columns
    grid: list[list[list[str]]] = []      # per column: header lines, then one line per row
    for c in cols:
        if (c.justify not in ("left", "right") or c.max_width is not None or c.ratio
                or c.width is not None or c.vertical != "top"):
            return None
        cells = [c.header, *c.cells]
        out: list[list[str]] = []
        for i, cell in enumerate(cells):
            if isinstance(cell, Text):
                if cell.justify is not None or cell.overflow is not None or cell.end != "\n":
                    return None
                text = cell.plain
            elif isinstance(cell, str):
                text = strip_control_codes(cell)
            else:
                return None
            lines = text.split("\n")
            if len(lines) > 1 and i > 0:
                return None
            if not text.isascii() and any(cell_len(ch) == 0 for ch in text if ch != "\n"):
                return None                    # zero-width characters: Rich crops them
            out.append(lines)
        grid.append(out)
    widths = []
    for c, cells in zip(cols, grid):
        w = max(cell_len(line) for lines in cells for line in lines)
        widths.append(max(w, c.min_width or 0))
    total = sum(widths) + 2 * (len(widths) - 1)
    if total == 0:
        return None                            # Rich prints a blank for an empty table
    head = max(len(cells[0]) for cells in grid)
    rows = len(grid[0]) - 1
    result: list[str] = []

    def fit(text: str, w: int, justify: str) -> str:
        pad = w - cell_len(text)
        if justify == "right":
            text = text.rstrip()
            pad = w - cell_len(text)
            return " " * pad + text
        return text + " " * pad

    for ln in range(head):
        parts = []
        for c, cells, w in zip(cols, grid, widths):
            lines = cells[0]
            k = ln - (head - len(lines))       # bottom-aligned
            parts.append(fit(lines[k] if k >= 0 else "", w, c.justify))
        result.append("  ".join(parts))
    for r in range(1, rows + 1):
        result.append("  ".join(fit(cells[r][0], w, c.justify)
                                for c, cells, w in zip(cols, grid, widths)))
    return result, total


def _plain(cell: Any) -> Any:
    from rich.text import Text

    if isinstance(cell, Text):
        return cell
    return Text(str(cell))


def table_blocks(table: Any, width: int) -> list[Any]:
    """The rows of a Rich ``table`` as blocks of lines (Rich ``Text``) at most ``width``
    wide: the first column's value on a line of its own, then ``header value`` items packed
    into lines; an item too long for a line is wrapped at spaces (never inside a word), so
    only a single word longer than the screen makes a line wider than ``width``."""
    import textwrap

    from rich.text import Text

    cols = table.columns
    heads = [" ".join(str(c.header).split()) for c in cols]
    cells = [list(c.cells) for c in cols]
    lines: list[Any] = []
    for r in range(table.row_count):
        first = _plain(cells[0][r]).copy()
        first.stylize("bold")
        if lines:
            lines.append(Text(""))
        lines.append(first)
        cur = Text("  ")
        for h, col in zip(heads[1:], cells[1:]):
            v = _plain(col[r])
            if not v.plain.strip():
                continue
            item = Text.assemble((h, "dim"), " ", v)
            if len(cur) > 2 and len(cur) + 3 + len(item) > width:
                lines.append(cur)
                cur = Text("  ")
            if len(cur) == 2 and 2 + len(item) > width:
                for i, part in enumerate(textwrap.wrap(item.plain, width - 2,
                                                       break_long_words=False,
                                                       break_on_hyphens=False)):
                    lines.append(Text(("  " if i == 0 else "    ") + part))
                continue
            if len(cur) > 2:
                cur.append("   ")
            cur.append_text(item)
        if len(cur) > 2:
            lines.append(cur)
    return lines


def write_stdout(data: str | bytes) -> None:
    from toolcat.files import write_stdout as write

    write(data)


def write_text(data: str) -> None:
    """A report for people to stdout: control characters from the data escaped."""
    from toolcat.terminal import guard

    write_stdout(guard(data))


def write_atomic(path: str, data: bytes | str) -> None:
    """Write ``data`` to ``path`` (``-``: stdout) through :func:`toolcat.files.write_outputs`."""
    write_atomic_many([(path, data)])


def write_atomic_many(files: Sequence[tuple[str, bytes | str]]) -> None:
    """Write several outputs all or nothing (:func:`toolcat.files.write_outputs`)."""
    from toolcat.files import write_outputs

    write_outputs(files)

