"""Server processes: started in their own process group, ended on every path.

Every stdio server toolcat starts is a :class:`ServerProcess`: a ``subprocess.Popen`` in a new
session (so its process group holds the server and whatever it starts: ``npx`` -> ``node``,
``uvx`` -> ``python``), registered in :data:`LIVE` until its group is gone. Three layers end
them:

1. the normal path: stdin closed, a short grace, then SIGTERM and SIGKILL to the group
   (:meth:`ServerProcess.stop`, asynchronous, bounded);
2. a failure or ``--timeout``: SIGTERM at once, SIGKILL after a short grace;
3. whatever escapes (Ctrl-C, an exception, SIGTERM to toolcat): :func:`kill_all`, run from a
   ``finally`` and from the SIGTERM handler of :func:`guard`, sends SIGKILL to every group
   still registered, synchronously.

Nothing here imports the MCP SDK: processes are started before it is imported, so a server
boots while toolcat loads the SDK (about a second of imports).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Iterator

from toolcat.errors import InputError
from toolcat.formats.live.spec import ServerSpec, printable

#: Processes whose group may still be alive.
LIVE: set["ServerProcess"] = set()
#: Every server process started (its pid): toolcat's own children, never taken for adopted.
SPAWNED: set[int] = set()
_lock = threading.Lock()

# Grace after closing stdin on the normal path, and after SIGTERM on any path (seconds).
STDIN_GRACE = 1.0
TERM_GRACE = 0.5


class ServerProcess:
    """A started stdio server (its pipes are read by the transport)."""

    def __init__(self, spec: ServerSpec, popen: subprocess.Popen, started: float) -> None:
        self.spec = spec
        self.popen = popen
        self.pid = popen.pid
        self.pgid = popen.pid if os.name != "nt" else None   # leader of its own session
        self.started = started
        #: The event loop's pipe transports hold the pipes (session._stdio): their file
        #: descriptors are closed by those transports only. Closed here under them, a number
        #: the loop still watched was reused by another server's socket (an HTTP server read
        #: beside it failed at random: epoll_ctl ENOENT, 'All connection attempts failed').
        self.loop_owned = False

    # ------------------------------------------------------------------ signals
    def signal_group(self, sig: int) -> None:
        if self.pgid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, sig)
        else:  # pragma: no cover - Windows
            with contextlib.suppress(OSError):
                self.popen.kill()

    def group_alive(self) -> bool:
        if self.pgid is None:  # pragma: no cover - Windows
            return self.popen.poll() is None
        self.popen.poll()                       # reap the leader if it has exited
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # pragma: no cover - a reused id of another user
            return False
        return True

    def kill_now(self) -> None:
        """SIGKILL to the group, then reap the leader (synchronous, does not wait long)."""
        self.signal_group(signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.popen.wait(timeout=0.5)
        self._close_pipes()
        if not self.group_alive():
            _forget(self)

    def _close_pipes(self) -> None:
        if self.loop_owned:
            return
        for f in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if f is not None:
                with contextlib.suppress(OSError, ValueError):
                    f.close()

    async def stop(self, graceful: bool) -> None:
        """End the group: ``graceful`` closes stdin first and waits :data:`STDIN_GRACE` for
        the server to exit (the MCP shutdown sequence); then SIGTERM, :data:`TERM_GRACE`,
        SIGKILL. Bounded: at most about 1.6 s."""
        import anyio

        if graceful:
            with contextlib.suppress(OSError, ValueError):
                if self.popen.stdin is not None and not self.loop_owned:
                    self.popen.stdin.close()     # (else the caller closed it: session._stdio)
            if await _wait(self, STDIN_GRACE):
                self.kill_now()        # the leader exited: end what it left in the group
                return
        self.signal_group(signal.SIGTERM)
        await _wait(self, TERM_GRACE)
        self.kill_now()
        await anyio.sleep(0)


async def _wait(proc: ServerProcess, seconds: float) -> bool:
    import anyio

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.popen.poll() is not None:
            return True
        await anyio.sleep(0.01)
    return proc.popen.poll() is not None


def _forget(proc: ServerProcess) -> None:
    with _lock:
        LIVE.discard(proc)


def spawn(spec: ServerSpec) -> ServerProcess:
    """Start ``spec``'s command in a new process group, pipes for stdin/stdout/stderr.

    A command that cannot be started is an :class:`InputError` naming the command."""
    env = dict(os.environ) if spec.inherit_env else _default_env()
    env.update(spec.env)
    kwargs: dict = {}
    if os.name == "nt":  # pragma: no cover
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    else:
        kwargs["start_new_session"] = True
    cmd = printable(spec.argv[0], 120)
    started = time.perf_counter()
    try:
        popen = subprocess.Popen(spec.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, cwd=spec.cwd, bufsize=0,
                                 close_fds=True, **kwargs)
    except FileNotFoundError:
        if spec.cwd and not os.path.isdir(spec.cwd):
            raise InputError(f"working directory {printable(spec.cwd, 120)!r} does not exist",
                             spec.label) from None
        raise InputError(f"command not found: {cmd!r} (is it installed and on PATH?)",
                         spec.label) from None
    except PermissionError:
        raise InputError(f"cannot run {cmd!r}: permission denied", spec.label) from None
    except OSError as e:
        raise InputError(f"cannot run {cmd!r}: {printable(e.strerror or str(e), 120)}",
                         spec.label) from None
    except ValueError as e:   # embedded NUL byte
        raise InputError(f"cannot run {cmd!r}: {printable(str(e), 120)}", spec.label) from None
    proc = ServerProcess(spec, popen, started)
    with _lock:
        LIVE.add(proc)
        SPAWNED.add(popen.pid)
    return proc


def _default_env() -> dict[str, str]:
    keys = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG") \
        if os.name != "nt" else ("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH",
                                 "PATHEXT", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE")
    return {k: os.environ[k] for k in keys if k in os.environ}


def kill_all() -> None:
    """SIGKILL every group still registered (synchronous; safe to call more than once)."""
    with _lock:
        procs = list(LIVE)
    for p in procs:
        p.kill_now()
    with _lock:
        for p in procs:
            if not p.group_alive():
                LIVE.discard(p)


def _children() -> set[int]:
    """The processes whose parent is toolcat (Linux: /proc/self/task/*/children)."""
    out: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return out
    for t in tasks:
        try:
            with open(f"/proc/self/task/{t}/children") as f:
                out.update(int(x) for x in f.read().split())
        except (OSError, ValueError):
            pass
    return out


def _subreaper() -> bool:
    """Make toolcat the reaper of its orphaned descendants (Linux ``prctl
    PR_SET_CHILD_SUBREAPER``): a server's daemonised grandchild (fork + setsid, the parent
    gone) becomes toolcat's child instead of init's, so :func:`_end_adopted` can end it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0        # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _end_adopted(before: set[int]) -> None:
    """SIGKILL and reap the orphans toolcat adopted as subreaper: its children now that were
    neither there before the servers started (``before``) nor a server it started."""
    mine = SPAWNED | {p.pid for p in LIVE}
    for pid in _children() - before - mine:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        left = _children() - before - mine
        for pid in list(left):
            with contextlib.suppress(ChildProcessError, OSError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    left.discard(pid)
        if not left:
            return
        time.sleep(0.01)


@contextlib.contextmanager
def guard() -> Iterator[None]:
    """Around a capture: on exit (normal, exception, Ctrl-C) every server group is killed,
    and (Linux, toolcat as subreaper) every descendant that left its group and was orphaned
    (a daemonised grandchild); SIGTERM to toolcat kills them too, then ends toolcat as
    SIGTERM would (exit 143)."""
    reaper = _subreaper()
    before = _children() if reaper else set()
    previous = None
    installed = False
    if threading.current_thread() is threading.main_thread() and os.name != "nt":
        def _on_term(signum, frame):  # noqa: ANN001
            kill_all()
            if reaper:
                _end_adopted(before)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGTERM)

        previous = signal.signal(signal.SIGTERM, _on_term)
        installed = True
    try:
        yield
    finally:
        kill_all()
        if reaper:
            _end_adopted(before)
        if installed:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
