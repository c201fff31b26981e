"""toolcat.stack.call_bounded: the same recursion bound whether the call is alone in the
process (the limit set around it) or other threads run (the limit never lowered: the call
made below frames of padding)."""

from __future__ import annotations

import sys
import threading

from toolcat import stack
from toolcat.stack import alone, call_bounded, frame_depth


def _recurse(n: int) -> int:
    return 0 if n == 0 else 1 + _recurse(n - 1)


def _deepest(frames: int) -> int:
    """The deepest recursion ``_recurse`` gets to under ``call_bounded(frames, ...)``."""
    lo, hi = 0, frames + 10
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            call_bounded(frames, _recurse, mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


def _deepest_both_ways(monkeypatch, frames: int) -> tuple[int, int]:
    """:func:`_deepest` with the limit set around the call (alone in the process), and with
    the call padded (other threads running)."""
    monkeypatch.setattr(stack, "alone", lambda: True)
    by_itself = _deepest(frames)
    monkeypatch.setattr(stack, "alone", lambda: False)
    beside = _deepest(frames)
    monkeypatch.undo()
    return by_itself, beside


def test_the_bound_is_the_same_alone_and_beside_other_threads(monkeypatch) -> None:
    limit = sys.getrecursionlimit()
    for frames in (50, 300):
        by_itself, beside = _deepest_both_ways(monkeypatch, frames)
        assert by_itself == beside
        assert frames - 10 <= by_itself < frames      # (fn's own frame, then its calls)
    assert sys.getrecursionlimit() == limit


def test_a_bound_above_the_limit_raises_it_beside_other_threads_never_lowers_it(
        monkeypatch) -> None:
    limit = sys.getrecursionlimit()
    frames = limit - frame_depth() + 200           # more than the limit leaves
    try:
        by_itself, beside = _deepest_both_ways(monkeypatch, frames)
        assert beside == by_itself
        assert sys.getrecursionlimit() > limit       # raised for every thread, kept
    finally:
        sys.setrecursionlimit(limit)


def test_other_threads_are_seen_and_shallow_ones_are_not() -> None:
    before = alone()
    stop = threading.Event()
    shallow = stack.start_shallow(stop.wait, "toolcat-test-shallow")
    try:
        assert alone() == before           # (a pipe's reader or writer: not counted)
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            assert not alone()
        finally:
            stop.set()
            other.join()
    finally:
        stop.set()
        shallow.join()
