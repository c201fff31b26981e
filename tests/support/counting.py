"""Token counters for tests."""

from __future__ import annotations

from toolcat import tokens


class RecordingCounter(tokens.Counter):
    """The in-process counter, keeping what it was given (each submitted text, as bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[bytes] = []

    def submit(self, data):
        self.texts.append(bytes(data))
        return super().submit(data)
