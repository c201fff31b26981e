"""Errors that end a run with exit code 2 and one line on stderr.

Every problem with the *input* (a file that cannot be read, parsed or understood) is an
:class:`InputError`. The CLI prints it as ``toolcat: error: FILE[:LINE[:COL]]: message``
and exits 2. Nothing else may escape to the user as a traceback.
"""

from __future__ import annotations


class ToolcatError(Exception):
    """Base class of errors that toolcat reports as one line, exit code 2."""

    exit_code = 2

    def __init__(self, message: str, file: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
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
        where = self.where()
        msg = " ".join(self.message.split())  # always one line
        return f"toolcat: error: {where}: {msg}" if where else f"toolcat: error: {msg}"

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.render()


class InputError(ToolcatError):
    """The input file is unreadable, malformed, too large or not a catalog."""


class UsageError(ToolcatError):
    """Bad options or arguments."""
