"""Findings kept on disk while a large catalog is linted (README "Large catalogs").

A streamed catalog of a million tools has some 1.7 million findings; held as
:class:`~toolcat.model.Finding` objects until the report is written they alone take about
a gigabyte. :class:`SpilledFindings` takes them a run at a time (the findings of one batch of
tools, or of the catalog rules), sorts each run by :meth:`Finding.sort_key` and writes it
to an anonymous temporary file, keeping only its place and the counts by severity.
Iterating it merges the runs (:func:`heapq.merge`, which takes equal keys from the earlier
run first): the order is the one ``sorted(run1 + run2 + ..., key=Finding.sort_key)`` gives,
so the reports are the same bytes; memory holds one buffered reader per run and one
finding of each.

It is what the CLI's lint gets for a run with one profile (:func:`toolcat.features.lint.engine.lint`
with ``spill=True``): the API's :class:`~toolcat.features.lint.engine.LintResult` keeps a list.
"""

from __future__ import annotations

import heapq
import pickle
from typing import Any, Iterable, Iterator

from toolcat.model import Finding

#: findings in one pickled chunk of a run: what reading the run holds at a time (a million
#: tools make some 250 runs, read side by side)
_CHUNK = 256


def _row(f: Finding) -> tuple:
    return (f.code, f.severity, f.message, f.file, f.tool, f.pointer, f.line, f.column,
            f.source_pointer, f.profiles)


class SpilledFindings:
    """A sorted collection of findings kept in a temporary file: ``iter()`` (sorted; may be
    read any number of times), ``len()``, ``bool()`` and :meth:`counts` (by severity, without
    reading the file)."""

    def __init__(self) -> None:
        self._file: Any = None
        # runs: (offset, number of findings, pickled chunks); a run is written in chunks of
        # at most _CHUNK findings so that reading it holds no more than that
        self._runs: list[tuple[int, int, int]] = []
        self._n = 0
        self._counts = {"error": 0, "warning": 0, "info": 0}

    def _out(self) -> Any:
        if self._file is None:
            import tempfile

            # closed by close() or with the collection
            self._file = tempfile.TemporaryFile(prefix="toolcat-findings-")  # noqa: SIM115
        return self._file

    def add(self, findings: Iterable[Finding]) -> None:
        """One run: ``findings`` (any order; sorted here, stably)."""
        fs = sorted(findings, key=Finding.sort_key)
        if not fs:
            return
        out = self._out()
        out.seek(0, 2)
        start = out.tell()
        chunks = 0
        for i in range(0, len(fs), _CHUNK):
            pickle.dump([_row(f) for f in fs[i:i + _CHUNK]], out, pickle.HIGHEST_PROTOCOL)
            chunks += 1
        self._runs.append((start, len(fs), chunks))
        self._n += len(fs)
        c = self._counts
        for f in fs:
            c[f.severity] = c.get(f.severity, 0) + 1

    def mark(self) -> tuple[int, int, dict]:
        """Where the collection stands now (see :meth:`truncate`)."""
        return len(self._runs), self._n, dict(self._counts)

    def truncate(self, mark: tuple[int, int, dict]) -> None:
        """Drop the runs added since ``mark`` (a catalog linted again, or left out)."""
        runs, n, counts = mark
        if runs < len(self._runs):
            start = self._runs[runs][0]
            del self._runs[runs:]
            self._file.truncate(start)
        self._n, self._counts = n, dict(counts)

    def _run(self, start: int, chunks: int) -> Iterator[Finding]:
        f = self._file       # shared by the runs read side by side: seek, load, tell at once
        for _k in range(chunks):
            f.seek(start)
            rows = pickle.load(f)
            start = f.tell()
            for r in rows:
                yield Finding(*r)

    def __iter__(self) -> Iterator[Finding]:
        if not self._runs:
            return iter(())
        self._file.flush()
        runs = [self._run(start, chunks) for start, _n, chunks in self._runs]
        if len(runs) == 1:
            return runs[0]
        return heapq.merge(*runs, key=Finding.sort_key)

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def counts(self) -> dict[str, int]:
        """``{"error": n, "warning": n, "info": n}``."""
        return dict(self._counts)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


__all__ = ["SpilledFindings"]
