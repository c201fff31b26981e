"""Where a stdio server's stderr goes: one log file per server and run, in a folder only the
user can reach.

The default folder is ``$TMPDIR/toolcat-UID/servers``: a predictable path in a folder every
local user can write, so it is taken only when it is safe. Each part is created with mode
0700, and one that already exists must be a real folder (not a link), owned by the user, with
no access for group or others; otherwise a fresh ``mkdtemp`` folder is used for this run
(:func:`default_dir`). Each log is a new file, ``NAME.XXXXXXXX.log``, created with
``O_CREAT|O_EXCL|O_NOFOLLOW`` (``mkstemp``), so a link planted at a log's name is never
followed and concurrent runs never share a file; the run holds an ``flock`` on it while the
server runs. Opening one removes the earlier logs of the same server no run holds any more,
so the folder keeps one log per server (plus one per run still going), whatever the number
of runs (:func:`open_log`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import time
from typing import BinaryIO

from toolcat.files import remove_if_stale

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def _uid() -> int | str:
    return os.getuid() if hasattr(os, "getuid") else "user"


def private_dir(path: str) -> str:
    """``path`` as a folder only this user can use: created with mode 0700, or an existing
    one checked (a folder, not a link; owned by this user; no group/other access). Raises
    :class:`OSError` when it is not such a folder."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(errno.ENOTDIR, "not a folder (a link or a file)", path)
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
        raise OSError(errno.EPERM, "not a private folder of this user", path)
    return path


def default_dir() -> str:
    """``$TMPDIR/toolcat-UID/servers`` when it is (or can be made) private to this user;
    else a new private folder of this run (``$TMPDIR/toolcat-UID-servers-XXXXXXXX``)."""
    base = os.path.join(tempfile.gettempdir(), f"toolcat-{_uid()}")
    try:
        return private_dir(os.path.join(private_dir(base), "servers"))
    except OSError:
        return tempfile.mkdtemp(prefix=f"toolcat-{_uid()}-servers-")


def open_log(folder: str, label: str) -> tuple[BinaryIO, str]:
    """A new log file for server ``label`` in ``folder`` (created if absent, mode 0700) and
    its path; the caller closes it. Raises :class:`OSError`."""
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    started = time.time()
    fd, path = tempfile.mkstemp(prefix=f"{label}.", suffix=".log", dir=folder)
    f = os.fdopen(fd, "wb")
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _remove_stale(folder, label, os.path.basename(path), started)
    return f, path


def _remove_stale(folder: str, label: str, mine: str, started: float) -> None:
    """Remove the earlier logs of ``label`` that no run holds (their ``flock`` is free); a log
    made after this run began is left alone (its run may not hold it yet)."""
    pattern = re.compile(re.escape(label) + r"\.[a-z0-9_]{8}\.log")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name == mine or not pattern.fullmatch(name):
            continue
        remove_if_stale(os.path.join(folder, name), started)
