"""Helpers of the robustness tests (test_fuzz_cli.py, test_fuzz_schemas.py, test_limits.py).

* :func:`run_child`: toolcat in a fresh process with a wall-clock hang guard, the CPU time of
  *that* child (``os.wait4``) and its peak RSS (``VmHWM`` sampled while it runs: both
  ``RUSAGE_CHILDREN`` and the child's own ``ru_maxrss`` include the test process's size).
* :func:`run_inprocess`: ``toolcat.cli.run(args)`` in this process (fast), with stdin, stdout,
  stderr, the working folder and toolcat's process-wide settings saved and restored, a
  wall-clock guard (SIGALRM) and the CPU time of the run.
* :func:`check_outcome`: the robustness properties every run must have.
* :class:`Chooser` / :class:`SeededChooser`: the generators' choices, drawn by Hypothesis
  (shrinkable, reproducible) or by a seeded random generator (uniform sweeps).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

# hang guard (seconds of wall time). A hang that burns CPU is caught by CPU_LIMIT; this guard
# is for one that waits (a blocked read). 20 s was tripped by a run that had used 0.5 s of CPU
# on a machine with a load of 11 (several full suites at once): generous, overridable.
WALL_LIMIT = float(os.environ.get("TOOLCAT_TEST_WALL_LIMIT", "120"))
CPU_LIMIT = 10.0    # seconds of CPU for one run on a small mutated file


@dataclass
class Outcome:
    args: list
    code: int
    out: bytes
    err: bytes
    cpu: float
    wall: float
    maxrss_mb: float = 0.0
    timed_out: bool = False
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        return (f"toolcat {' '.join(map(str, self.args))}\n exit {self.code}, cpu {self.cpu:.2f}s, "
                f"wall {self.wall:.2f}s, rss {self.maxrss_mb:.0f} MB\n stderr: "
                f"{self.err[-2000:].decode('utf-8', 'replace')}\n stdout: "
                f"{self.out[:500].decode('utf-8', 'replace')}")


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env.pop("TOOLCAT_DEBUG", None)
    env["NO_COLOR"] = "1"
    if extra:
        env.update(extra)
    return env


def run_child(args: list, cwd: str | None = None, input: bytes | None = None,
              timeout: float = WALL_LIMIT, env: dict | None = None) -> Outcome:
    """``python -m toolcat ARGS`` in a fresh process; never raises on a hang (timed_out)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "toolcat", *map(str, args)],
                             stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                             stdout=fo, stderr=fe, cwd=cwd, env=child_env(env))
        if input is not None:
            try:
                p.stdin.write(input)
                p.stdin.close()
            except BrokenPipeError:
                pass
        timed_out = False
        deadline = t0 + timeout
        peak_kb = 0
        while True:
            peak_kb = max(peak_kb, _vm_hwm_kb(p.pid))
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                timed_out = True
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        return Outcome(list(args), p.returncode, fo.read(), fe.read(),
                       ru.ru_utime + ru.ru_stime, wall, peak_kb / 1024, timed_out)


def _vm_hwm_kb(pid: int) -> int:
    """Peak RSS of the process so far (``VmHWM``; 0 when it cannot be read).

    Not ``ru_maxrss``: Linux carries the parent's high-water mark into the child through
    fork and exec, so a child of a big test process would report the test process's size."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class Hang(BaseException):
    """Raised by SIGALRM in an in-process run that exceeds the wall-clock guard (a
    BaseException, so that ``toolcat.cli.run``'s last line of defence does not swallow it)."""


def _alarm(_sig, _frame):
    raise Hang()


def run_inprocess(args: list, cwd: str | None = None, input: bytes | None = None,
                  timeout: float = WALL_LIMIT) -> Outcome:
    """``toolcat.cli.run(args)`` here, as ``main`` would run it, isolated from the next run."""
    from toolcat import ui
    from toolcat.cli import run

    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_ui = (ui.state.no_color, ui.state.quiet)
    saved_cwd = os.getcwd()
    saved_rec = sys.getrecursionlimit()
    saved_env = {k: os.environ.get(k) for k in ("NO_COLOR", "TOOLCAT_NO_FORK", "FORCE_COLOR",
                                               "TOOLCAT_DEBUG")}
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stdin = io.TextIOWrapper(io.BytesIO(input or b""), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    os.environ["NO_COLOR"] = "1"
    os.environ["TOOLCAT_NO_FORK"] = "1"   # no fork of the test process (subprocess tests fork)
    os.environ.pop("FORCE_COLOR", None)
    os.environ.pop("TOOLCAT_DEBUG", None)
    sys.setrecursionlimit(max(saved_rec, 20000))   # as toolcat.cli.main does
    old_handler = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    timed_out = False
    c0, t0 = time.process_time(), time.perf_counter()
    try:
        if cwd:
            os.chdir(cwd)
        try:
            code = run([str(a) for a in args])
        except Hang:
            code, timed_out = -1, True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        for s in (out, err):
            try:
                s.flush()
            except ValueError:
                pass
        o, e = out.buffer.getvalue(), err.buffer.getvalue()
    finally:
        signal.signal(signal.SIGALRM, old_handler)
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        sys.setrecursionlimit(saved_rec)
        ui.state.no_color, ui.state.quiet = saved_ui
        ui.state._out = ui.state._err = None
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return Outcome(list(args), code, o, e, cpu, wall, timed_out=timed_out)


def check_outcome(r: Outcome, cpu_limit: float = CPU_LIMIT, one_line: bool = True) -> None:
    """Exit code in {0, 1, 2}; no traceback, no internal error; exit 2 is exactly one line
    ``toolcat: error: ...`` (``one_line=False``: one or more such lines, nothing else, for
    ``lint`` over several inputs, which reports each unreadable one); no hang; bounded CPU
    time."""
    what = r.describe()
    assert not r.timed_out, "hang (wall-clock guard):\n" + what
    assert r.code in (0, 1, 2), "unexpected exit code (negative: killed by a signal):\n" + what
    assert b"Traceback" not in r.err, what
    assert b"internal error" not in r.err, what
    if r.code == 2:
        lines = r.err.decode("utf-8", "replace").splitlines()
        if one_line:
            assert len(lines) == 1 and lines[0].startswith("toolcat: error:"), \
                "exit 2 must be exactly one `toolcat: error:` line on stderr:\n" + what
        else:
            assert lines and all(x.startswith("toolcat: error:") for x in lines), \
                "exit 2 must be `toolcat: error:` lines on stderr:\n" + what
    assert r.cpu < cpu_limit, "too slow (CPU time):\n" + what


# --------------------------------------------------------------------------- output files

def snapshot(folder: str) -> dict[str, bytes]:
    """Every file of ``folder`` (recursively) and its bytes."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            try:
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, folder)] = fh.read()
            except OSError:
                pass
    return out


def check_outputs(folder: str, before: dict[str, bytes], r: Outcome,
                  outputs: dict[str, str], partial_inputs: bool = False) -> None:
    """After any run: no temp file is left. After exit 2: every output path has its previous
    content or does not exist (nothing half-written, nothing new). After exit 0/1: what was
    written is complete (``outputs`` maps a relative path to its kind: json, xml, text).

    ``partial_inputs``: ``lint`` over several inputs writes its report for the inputs it could
    read and exits 2 for the others; then a written report must be complete (never a
    baseline: that must cover every input)."""
    import json
    from xml.etree import ElementTree

    after = snapshot(folder)
    stray = [p for p in after if os.path.basename(p).startswith(".toolcat-")]
    assert not stray, f"temporary files left behind: {stray}\n" + r.describe()
    for rel, kind in outputs.items():
        if r.code == 2 and not (partial_inputs and "baseline" not in rel):
            assert after.get(rel) == before.get(rel), \
                f"{rel} changed by a run that failed (exit 2)\n" + r.describe()
            continue
        if rel not in after or after.get(rel) == before.get(rel):
            continue
        data = after[rel]
        if kind == "json":
            try:
                json.loads(data)
            except ValueError as e:
                raise AssertionError(f"{rel} is not complete JSON ({e})\n" + r.describe()) from None
        elif kind == "xml":
            try:
                ElementTree.fromstring(data)
            except ElementTree.ParseError as e:
                raise AssertionError(f"{rel} is not complete XML ({e})\n" + r.describe()) from None
    for rel in after:
        if rel not in before and rel not in outputs:
            raise AssertionError(f"unexpected new file {rel}\n" + r.describe())


# --------------------------------------------------------------------------- choices

class Chooser:
    """Choices drawn by Hypothesis from ``data`` (``st.data()``)."""

    def __init__(self, data) -> None:
        self.draw = data.draw

    def int(self, lo: int, hi: int) -> int:
        from hypothesis import strategies as st

        return self.draw(st.integers(lo, hi))

    def bool(self, p: float = 0.5) -> bool:
        # a biased coin; it shrinks towards False, and Hypothesis leans towards small values,
        # so True comes less often than ``p`` says (about 0.25 for 0.5)
        return self.int(0, 999) >= 1000 - int(p * 1000)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def sample(self, seq, lo: int, hi: int) -> list:
        """Up to ``hi`` (at least ``lo`` draws) distinct items of ``seq``."""
        seq = list(seq)
        n = self.int(lo, min(hi, len(seq)))
        out = []
        for _ in range(n):
            x = self.pick(seq)
            if x not in out:
                out.append(x)
        return out


class SeededChooser(Chooser):
    """The same choices from a seeded random generator (uniform, unlike Hypothesis' draws)."""

    def __init__(self, seed: int) -> None:
        import random

        self.r = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.r.randint(lo, hi)

    def bool(self, p: float = 0.5) -> bool:
        return self.r.random() < p
