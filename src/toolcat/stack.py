"""How deep a call may recurse, bounded without harm to the other threads.

The JSON parser (its C scanner counts nesting against the interpreter's recursion limit)
and jsonschema's validation bound how deep they recurse by that limit. The limit is one for
the whole interpreter: lowering it while another thread runs cuts that thread's stack short
(a RecursionError in the middle of its work), and two threads that each restore the limit
they saw can leave it lowered for good. :func:`call_bounded` gives a call the same bound
either way:

* alone in the process (the command line; threads of :func:`start_shallow` aside), the limit
  is set around the call, as it always was;
* with other threads running, the limit is never lowered: the call is made at the depth where
  the limit leaves it the same frames, below frames of padding (one small frame each; about
  a millisecond for 20,000), and the limit is raised (never lowered again) when it leaves too
  few.

Either way, while ``fn`` runs the limit is ``fn``'s frame depth + ``frames``: the same bound,
the same errors at the same nesting.
"""

from __future__ import annotations

import sys
import threading
import weakref
from types import FrameType
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: threads that only move bytes and never recurse beyond a few frames
#: (:func:`start_shallow`): a limit lowered around a call cannot reach them
_SHALLOW: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_RAISE = threading.Lock()


def frame_depth() -> int:
    """Frames on the stack now, this function's own included (a recursion limit above it
    bounds what a call may use)."""
    f: FrameType | None = sys._getframe()
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


def start_shallow(target: Callable[[], None], name: str) -> threading.Thread:
    """Start a daemon thread running ``target``, which must only move bytes (a pipe's
    writer or reader: a few frames deep at most). Such threads do not keep
    :func:`call_bounded` from setting the limit around a call."""
    t = threading.Thread(target=target, name=name, daemon=True)
    _SHALLOW.add(t)
    t.start()
    return t


def alone() -> bool:
    """No other thread runs Python code (threads of :func:`start_shallow` aside): a limit
    lowered around a call cannot cut another's stack short, and a forked child
    (``tokens.ForkedCounter``) holds no lock or pipe of another's call."""
    if threading.active_count() == 1:
        return True
    me = threading.current_thread()
    return all(t is me or t in _SHALLOW for t in threading.enumerate())


def call_bounded(frames: int, fn: Callable[..., T], *args: Any,
                 caller_depth: int | None = None) -> T:
    """``fn(*args)`` with the recursion limit at ``fn``'s frame depth + ``frames`` while it
    runs (see the module's docstring); the limit is as before when it returns.
    ``caller_depth``: :func:`frame_depth` as the caller just measured it (saves walking
    the stack again where a call is made often)."""
    # the depth of fn's frame: this frame's + 1
    here = caller_depth + 1 if caller_depth is not None else frame_depth()
    want = here + frames
    limit = sys.getrecursionlimit()
    if alone():
        sys.setrecursionlimit(want)
        try:
            return fn(*args)
        finally:
            sys.setrecursionlimit(limit)
    if want + 1 > limit:
        # raised for every thread, which only lets them go deeper; never lowered again
        # here (another thread may be running under it)
        with _RAISE:
            if sys.getrecursionlimit() < want + 1:
                sys.setrecursionlimit(want + 1)
        limit = sys.getrecursionlimit()
    # fn's frame at depth limit - frames: n frames of padding below this one
    return _pad(limit - want - 1, fn, args)


def _pad(n: int, fn: Callable[..., T], args: tuple) -> T:
    if n:
        return _pad(n - 1, fn, args)
    return fn(*args)
