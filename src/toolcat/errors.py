"""Errors that end a run with exit code 2 and one line on stderr.

Every problem with the *input* (a file that cannot be read, parsed or understood) is an
:class:`InputError`. The CLI prints it as ``toolcat: error: FILE[:LINE[:COL]]: message``
and exits 2. Nothing else may escape to the user as a traceback.
"""

from __future__ import annotations


class ToolcatError(Exception):
    """Base class of errors that toolcat reports as one line, exit code 2."""

    exit_code = 2
    #: what went wrong, for callers that decide by it (never by the message's text): "" or,
    #: from the file reader (toolcat.files), "missing", "not-regular", "too-large",
    #: "unreadable"; from the parser (toolcat.document.parse), "too-deep"
    kind = ""

    def __init__(self, message: str, file: str | None = None,
                 line: int | None = None, column: int | None = None, *,
                 kind: str = "") -> None:
        super().__init__(message)
        if kind:
            self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def where(self) -> str:
        if not self.file:
            return ""
        out = str(self.file)
        if self.line is not None:
            out += f":{self.line}"
            if self.column is not None:
                out += f":{self.column}"
        return out

    def render(self) -> str:
        from toolcat.terminal import shown

        where = shown(self.where())
        msg = " ".join(shown(self.message).split())  # always one line, no control character
        return f"toolcat: error: {where}: {msg}" if where else f"toolcat: error: {msg}"

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.render()


class InputError(ToolcatError):
    """The input file is unreadable, malformed, too large or not a catalog."""


class UsageError(ToolcatError):
    """Bad options or arguments."""


# The input being worked on, for errors that arise deep inside a computation and know no
# file (a RecursionError on a 3,000-deep $ref chain): ``toolcat.cli.run`` names it.
_current: list[str] = []
_inputs: list[str] = []


def reset() -> None:
    _current.clear()
    _inputs.clear()


def set_inputs(files: list[str]) -> None:
    """The catalogs a command loaded (when one, it is the file any later error is about)."""
    _inputs[:] = files


def current_file() -> str | None:
    if _current:
        return _current[-1]
    if len(set(_inputs)) == 1:
        return _inputs[0]
    return None


class about:
    """``with about(path):`` marks ``path`` as the input being processed."""

    __slots__ = ("path",)

    def __init__(self, path: str | None) -> None:
        self.path = path

    def __enter__(self) -> None:
        _current.append(self.path or "")

    def __exit__(self, et, ev, tb) -> None:
        if _current:
            _current.pop()
        if ev is not None and self.path and getattr(ev, "toolcat_file", None) is None:
            try:
                ev.toolcat_file = self.path   # the innermost input it arose in
            except AttributeError:
                pass


def file_of(e: BaseException) -> str | None:
    """The input ``e`` arose while processing (see :class:`about`), if known."""
    return getattr(e, "toolcat_file", None) or current_file()
