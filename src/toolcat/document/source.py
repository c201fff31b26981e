"""The text of one parsed file, kept to answer "where is this pointer?" on demand."""

from __future__ import annotations


class SourceText:
    """The text of one parsed file, kept to answer "where is this pointer?" on demand."""

    __slots__ = ("path", "text", "syntax", "_index")

    def __init__(self, path: str, text: str, syntax: str) -> None:
        self.path = path
        self.text = text
        self.syntax = syntax
        self._index = None

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """1-based ``(line, column)`` of the node at ``pointer`` (nearest ancestor if absent)."""
        if self._index is None:
            from toolcat.document.positions import build_index

            self._index = build_index(self.text, self.syntax)
        return self._index.locate(pointer)
