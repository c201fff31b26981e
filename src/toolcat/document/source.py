"""The text of one parsed file, kept to answer "where is this pointer?" on demand, with its
lines and its suppression comments (``# toolcat: ignore[CODE]``), each computed once, when
first asked for, and held by the object (nothing outlives it)."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from toolcat.document.positions import Index

_IGNORE_COMMENT = re.compile(r"#\s*toolcat:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
_BLOCK_KEY = re.compile(r":\s*(#.*)?$")
_UNSET = object()


class SourceText:
    """The text of one parsed file, kept to answer "where is this pointer?" on demand."""

    __slots__ = ("path", "text", "syntax", "positions", "_index", "_lines", "_marks")

    def __init__(self, path: str, text: str, syntax: str, positions: bool = True) -> None:
        self.path = path
        self.text = text
        self.syntax = syntax
        # False for data that came from memory (its text is made up): no lines to point at
        self.positions = positions
        self._index: Index | None = None
        self._lines: list[str] | None = None
        self._marks: object = _UNSET

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """1-based ``(line, column)`` of the node at ``pointer`` (nearest ancestor if absent)."""
        if not self.positions:
            return None
        if self._index is None:
            from toolcat.document.positions import build_index

            self._index = build_index(self.text, self.syntax)
        return self._index.locate(pointer)

    def lines(self) -> list[str]:
        """The lines, numbered as positions count them (a line ends at "\\n"; YAML also ends
        one at a lone "\\r"), without their line break."""
        if self._lines is None:
            text = self.text
            if "\r" in text:
                if self.syntax == "yaml":
                    text = text.replace("\r\n", "\n").replace("\r", "\n")
                else:
                    text = text.replace("\r\n", "\n")
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            self._lines = lines
        return self._lines

    def line(self, n: int) -> str | None:
        """Line ``n`` (1-based), or None when there is none."""
        lines = self.lines()
        return lines[n - 1] if 1 <= n <= len(lines) else None

    def suppressions(self) -> dict[int, list[str] | None] | None:
        """``{line: codes}`` of the ``# toolcat: ignore[CODE, ...]`` comments of a YAML source
        (codes None: ``# toolcat: ignore``, every code). JSON has no comments: None."""
        if self._marks is _UNSET:
            self._marks = self._find_suppressions()
        return self._marks  # type: ignore[return-value]

    def _find_suppressions(self) -> dict[int, list[str] | None] | None:
        if self.syntax != "yaml" or "toolcat" not in self.text:   # one C-speed search
            return None
        out: dict[int, list[str] | None] = {}
        for i, line in enumerate(self.lines()):
            if "toolcat" not in line:
                continue
            start = comment_start(line)
            if start < 0:
                continue
            for m in _IGNORE_COMMENT.finditer(line, start):
                codes = None if m.group(1) is None else \
                    [c.strip().upper() for c in m.group(1).split(",") if c.strip()]
                if i + 1 in out and out[i + 1] is None or codes is None:
                    out[i + 1] = None
                else:
                    out[i + 1] = (out.get(i + 1) or []) + codes
        return out

    def comment_lines(self, line: int, column: int | None) -> list[int]:
        """The lines whose suppression comment covers a finding at ``line``:``column``: that
        line, and for a block value that starts on the line after its key, the key's line."""
        cands = [line]
        lines = self.lines()
        if 1 <= line <= len(lines):
            text = lines[line - 1]
            if column == len(text) - len(text.lstrip(" ")) + 1:   # the value starts its line
                j = line - 2
                while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
                    j -= 1
                if j >= 0 and _BLOCK_KEY.search(lines[j]):
                    cands.append(j + 1)
        return cands


def comment_start(line: str) -> int:
    """Offset of the ``#`` starting a YAML comment on ``line`` (-1 when there is none): at
    the start of the line or after a space or tab, and not inside a quoted scalar."""
    i, n, prev = 0, len(line), " "
    while i < n:
        c = line[i]
        if c == "#" and prev in " \t":
            return i
        if (c == '"' or c == "'") and prev in " \t[{,-:?":
            j = i + 1
            while j < n:             # the end of the quoted scalar on this line
                if line[j] == c:
                    if c == "'" and line[j + 1:j + 2] == "'":
                        j += 2
                        continue
                    break
                if c == '"' and line[j] == "\\":
                    j += 1
                j += 1
            else:
                return -1            # continues on the next line: no comment here
            i, prev = j + 1, c
            continue
        prev = c
        i += 1
    return -1
