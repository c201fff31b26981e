"""Errors that end a run with exit code 2 and one line on stderr.

Every problem with the *input* (a file that cannot be read, parsed or understood) is an
:class:`InputError`. The CLI prints it as ``toolcat: error: FILE[:LINE[:COL]]: message``
and exits 2. Nothing else may escape to the user as a traceback.
"""

from __future__ import annotations

from contextvars import ContextVar, Token


class ToolcatError(Exception):
    """Base class of errors that toolcat reports as one line, exit code 2."""

    exit_code = 2
    #: what went wrong, for callers that decide by it (never by the message's text): "" or,
    #: from the file reader (toolcat.files), "missing", "not-regular", "too-large",
    #: "unreadable", "link" (a checked path reached through a link); from the parser (toolcat.document.parse), "too-deep"
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
# file (a RecursionError on a 3,000-deep $ref chain): ``toolcat.cli.run`` names it. Per
# call, not per process: context variables, so that the API's calls in several threads
# (each thread has its own context) never name one another's files.
_current: ContextVar[tuple[str, ...]] = ContextVar("toolcat_current_input", default=())
_inputs: ContextVar[tuple[str, ...]] = ContextVar("toolcat_loaded_inputs", default=())


def reset() -> None:
    _current.set(())
    _inputs.set(())


def set_inputs(files: list[str]) -> None:
    """The catalogs a command loaded (when one, it is the file any later error is about)."""
    _inputs.set(tuple(files))


def current_file() -> str | None:
    current = _current.get()
    if current:
        return current[-1]
    inputs = _inputs.get()
    if len(set(inputs)) == 1:
        return inputs[0]
    return None


class about:
    """``with about(path):`` marks ``path`` as the input being processed (in this context:
    this thread's, or this task's)."""

    __slots__ = ("path", "_token")

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._token: Token[tuple[str, ...]] | None = None

    def __enter__(self) -> None:
        self._token = _current.set((*_current.get(), self.path or ""))

    def __exit__(self, et: object, ev: BaseException | None, tb: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
            self._token = None
        if ev is not None and self.path and getattr(ev, "toolcat_file", None) is None:
            try:
                setattr(ev, "toolcat_file", self.path)   # the innermost input it arose in
            except AttributeError:
                pass


def file_of(e: BaseException) -> str | None:
    """The input ``e`` arose while processing (see :class:`about`), if known."""
    return getattr(e, "toolcat_file", None) or current_file()
