"""Every file toolcat reads or writes goes through here: one reader, one writer.

Reading (:func:`read_regular`): only regular files are read, up to a size limit (inputs,
``$ref`` targets, ``--baseline`` and ``--check`` files, configuration). A FIFO, a device, a
socket, or a link to one, is refused with one clear error instead of blocking forever or
reading ``/dev/zero`` until memory runs out. ``-`` is stdin.

Writing (:func:`write_outputs`): all outputs of a command in one call.

* ``-`` is stdout (at most one output may be ``-``: :func:`check_outputs`).
* A regular file (or a new one) is replaced atomically: a temp file in the target's own
  folder, written, synced, given the owner and mode of the file it replaces, then renamed
  over it. A reader never sees half a file; a failure leaves every target as it was. The
  temp file has no name while it is written where the system allows (``O_TMPFILE``, then
  ``linkat`` just before the rename), else it is made with ``O_EXCL`` (``mkstemp``); the
  first write to a folder removes the ``.toolcat-*.tmp`` files of runs killed outright
  (SIGKILL), never one a running toolcat holds (:func:`_sweep`).
* A symbolic link to a file (or to nothing) is refused: no file is replaced, nor made,
  through a link (one planted where an output goes would name any file).
* A target that exists and is not a regular file (a character or block device such as
  ``/dev/null``, a FIFO, ``/dev/stdout`` and other links to an open descriptor) is written
  to directly, never replaced.

Temp files live in :data:`_TEMPS` until renamed or removed; :func:`remove_temps` (called on
SIGTERM/SIGINT by the CLI) removes what is left.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from typing import Callable, Iterable, Sequence

from toolcat.errors import InputError, ToolcatError, UsageError

_TEMPS: set[str] = set()


class ReaderGone(BaseException):
    """stdout's reader went away (EPIPE: ``toolcat tools x | head -1``). Not an OSError, so
    that no layer in between (Click turns EPIPE into exit 1) takes it for a failure:
    ``toolcat.cli.run`` ends the run with exit 0."""
_FD_LINK = re.compile(r"^/(?:proc/(?:self|thread-self|\d+)(?:/task/\d+)?|dev)/fd/(\d+)$")


# --------------------------------------------------------------------------- reading

def kind(mode: int) -> str:
    """What a file is, in words, from its ``st_mode``."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.0f} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


def stdin_closed() -> bool:
    return getattr(sys.stdin, "toolcat_closed", False) or sys.stdin is None


def _failed(error: Callable[..., Exception], kind: str, message: str, path: str) -> Exception:
    """``error(message, path)`` that says its ``kind`` (:attr:`toolcat.errors.ToolcatError.kind`):
    callers decide by the kind, never by the message's text."""
    e = error(message, path)
    if isinstance(e, ToolcatError):
        e.kind = kind
    return e


def read_regular(path: str, limit: int, error: Callable[..., Exception] = InputError,
                 what: str = "file", exact: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (``-``: stdin), at most ``limit`` of them.

    Anything else is ``error(message, path)``: missing, a folder, a FIFO/device/socket (or a
    link to one; checked on the open descriptor too, so a swap after the check is caught),
    over the limit, unreadable. ``exact``: ``path`` is a real path (no link in it) and the file
    opened must be the one it names, not one reached through a link put in its way after
    the caller checked it (see :func:`open_regular`)."""
    if path == "-":
        if stdin_closed():
            raise _failed(error, "unreadable", "standard input is closed", "-")
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise _failed(error, "too-large", f"input is larger than the {_size(limit)} limit", "-")
        return data
    fd, _size_now = open_regular(path, limit, error, what, exact)
    try:
        chunks = []
        left = limit + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 22))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
    except OSError as e:
        raise _failed(error, "unreadable", f"cannot read: {e.strerror or e}", path) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise _failed(error, "too-large",
                      f"{what} is over the {_size(limit)} limit (it grew while read)", path)
    return data


def open_regular(path: str, limit: int, error: Callable[..., Exception] = InputError,
                 what: str = "file", exact: bool = False) -> tuple[int, int]:
    """An open read-only descriptor of the regular file ``path`` and its size, with the
    checks of :func:`read_regular` (the caller closes it and reads at most ``limit``).

    ``exact``: ``path`` is a real path the caller has checked (inside the folder it may
    reach, no link on the way). It is opened with ``O_NOFOLLOW`` (its last part may not be a
    link), and where the system names an open file (``/proc/self/fd``) the descriptor must
    name ``path`` itself: a folder on the way swapped for a link between the check and the
    open is refused, not followed."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _failed(error, "missing", "no such file or folder", path) from None
    except ValueError:                        # an embedded NUL byte
        raise _failed(error, "missing", "the name holds a NUL byte", path) from None
    except OSError as e:
        raise _failed(error, "unreadable", f"cannot read: {e.strerror or e}", path) from None
    if stat.S_ISDIR(st.st_mode):
        raise _failed(error, "not-regular", "is a folder, not a file", path)
    if not stat.S_ISREG(st.st_mode):
        raise _failed(error, "not-regular", f"is {kind(st.st_mode)}, not a regular {what}; "
                      "toolcat reads regular files only (use - for stdin)", path)
    if st.st_size > limit:
        raise _failed(error, "too-large", f"{what} is {_size(st.st_size)}, over the "
                      f"{_size(limit)} limit (raise it with --max-file-size)", path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if exact:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if exact and e.errno == errno.ELOOP:
            raise _failed(error, "link", "is a symbolic link (it was not when checked); not "
                          "read", path) from None
        raise _failed(error, "unreadable", f"cannot read: {e.strerror or e}", path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _failed(error, "not-regular", f"is {kind(st.st_mode)}, not a regular {what}", path)
        if exact:
            try:
                where: str | None = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:              # no /proc: O_NOFOLLOW is what is left
                where = None
            if where is not None and where != path:
                raise _failed(error, "link", "was reached through a symbolic link put on its "
                              "way after it was checked; not read", path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def read_if_exists(path: str, limit: int, error: Callable[..., Exception] = InputError,
                   what: str = "file") -> bytes | None:
    """Like :func:`read_regular`, but None when ``path`` does not exist."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pass
    if not os.path.exists(path) and os.path.islink(path):
        return None                           # a dangling link: a file to be created
    return read_regular(path, limit, error, what)


# --------------------------------------------------------------------------- writing

def check_inputs(inputs: Sequence[tuple[str, str | None]]) -> None:
    """Usage errors in the file options a command reads (``[(option, path or None)]``): an
    empty file name or one holding a NUL byte names the option, as for outputs."""
    for opt, p in inputs:
        if p is None or p == "-":
            continue
        if p == "":
            raise UsageError(f"{opt}: the file name is empty")
        if "\x00" in p:
            raise UsageError(f"{opt}: the file name holds a NUL byte")


def check_outputs(outputs: list[tuple[str, str | None]], inputs: Iterable[str] = ()) -> None:
    """Usage errors in the output options of one command, before any work: ``outputs`` is
    ``[(option, path or None)]``. Two outputs to stdout, the same file twice, or an output
    that is one of the ``inputs`` (the catalog files the command reads: writing there would
    replace the source with what was made of it) are errors."""
    given = [(opt, p) for opt, p in outputs if p is not None]
    dash = [opt for opt, p in given if p == "-"]
    if len(dash) > 1:
        raise UsageError(f"{' and '.join(dash)} both write to stdout (-); give a file to all "
                         "but one")
    files = [(opt, p) for opt, p in given if p != "-"]
    check_inputs(files)
    # the inputs (a lazy list: a folder is walked) are looked at only when a file is written
    read = _input_identities(inputs) if files else {}
    seen: dict[object, str] = {}
    for opt, p in files:
        key = _identity(p)
        if key is None:
            continue
        if key in seen:
            raise UsageError(f"{seen[key]} and {opt} name the same file (one file for two "
                             "outputs)", p)
        if key in read:
            raise UsageError(f"{opt} names a file this command reads ({read[key]}): toolcat "
                             "does not write over its input; give another file", p)
        seen[key] = opt


def _input_identities(inputs: Iterable[str]) -> dict[object, str]:
    """The files read, by identity (device and inode), each with the name it was read by."""
    out: dict[object, str] = {}
    for p in inputs:
        if p == "-" or not p or "\x00" in p:
            continue
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            continue                          # the reader says what is wrong with it
        if stat.S_ISREG(st.st_mode):
            out.setdefault((st.st_dev, st.st_ino), p)
    return out


def _identity(path: str) -> object | None:
    """What makes two output paths the same file (None: writing it twice is harmless)."""
    try:
        st = os.stat(path)
    except OSError:
        return ("new", os.path.realpath(path))
    if stat.S_ISCHR(st.st_mode):
        return None                           # /dev/null given twice is fine
    return (st.st_dev, st.st_ino)


def _fd_target(path: str) -> int | None:
    """The descriptor number when ``path`` is (a link to) one of this process's open
    descriptors (``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/1``)."""
    p = os.path.abspath(path)
    for _ in range(40):
        # the folders resolved (``/dev/fd`` -> ``/proc/self/fd`` -> ``/proc/PID/fd``), the
        # last name not (``/proc/self/fd/1`` itself links to what fd 1 is open on)
        p = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        m = _FD_LINK.match(p)
        if m:
            head = p.split("/")[2]
            if head in ("self", "thread-self", "fd") or head == str(os.getpid()):
                return int(m.group(1))
            return None
        try:
            link = os.readlink(p)
        except OSError:
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), link))
    return None


def _write_error(e: OSError, path: str) -> OSError:
    """``e`` about ``path`` (the name the user gave, not a temp file), marked as a write."""
    out = OSError(e.errno, e.strerror or str(e), path)
    out.toolcat_action = "cannot write"  # type: ignore[attr-defined]
    return out


def _as_bytes(data: bytes | str) -> bytes:
    if isinstance(data, bytes):
        return data
    from toolcat.terminal import safe_bytes

    return safe_bytes(data)


def write_stdout(data: bytes | str) -> None:
    """``data`` to stdout (text is flushed first, so the order of everything printed holds)."""
    data = _as_bytes(data)
    out = sys.stdout
    if out is None:                            # pragma: no cover - the CLI reopens fd 1
        return
    try:
        out.flush()
        buf = getattr(out, "buffer", None)
        if buf is None:
            out.write(data.decode("utf-8", "replace"))
            out.flush()
            return
        buf.write(data)
        buf.flush()
    except BrokenPipeError:
        raise ReaderGone() from None


def _write_fd(fd: int, data: bytes) -> None:
    if fd in (1, 2):
        stream = sys.stdout if fd == 1 else sys.stderr
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    view = memoryview(data)
    try:
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except BrokenPipeError:
        if fd in (1, 2):
            raise ReaderGone() from None
        raise


#: seconds a FIFO output may go without a reader before it is an error (shells block forever;
#: toolcat promises never to hang, and a reader started beside it opens well within this)
FIFO_WAIT = 10.0


def _open_fifo(path: str) -> int:
    """``path`` (a FIFO) opened for writing once a reader has it open, waiting at most
    :data:`FIFO_WAIT` seconds (an open without ``O_NONBLOCK`` would block forever)."""
    import fcntl
    import time

    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            break
        except OSError as e:
            if e.errno != errno.ENXIO:      # ENXIO: no reader yet
                raise
            if time.monotonic() > deadline:
                raise OSError(errno.ENXIO, f"a FIFO that no process reads (waited "
                              f"{FIFO_WAIT:.0f} s for a reader)") from None
            time.sleep(0.02)
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)   # then write as usual
    return fd


def _write_direct(path: str, data: bytes) -> None:
    """Write into an existing special file (a device, a FIFO) without replacing it."""
    if stat.S_ISFIFO(os.stat(path).st_mode):
        fd = _open_fifo(path)
    else:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        _write_fd(fd, data)
    finally:
        os.close(fd)


def _new_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class _Temp:
    """A temp file being written next to its target: ``fd`` (open, with an ``flock`` held
    until it is closed) and ``name``, None while the file has no name (``O_TMPFILE``)."""

    __slots__ = ("data", "fd", "folder", "name")

    def __init__(self, fd: int, folder: str, name: str | None) -> None:
        self.fd, self.folder, self.name = fd, folder, name
        self.data = b""

    def close(self) -> None:
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = -1
        if self.name is not None and self.name in _TEMPS:
            _discard(self.name)


def _write_temp(target: str, data: bytes, named: bool = False) -> _Temp:
    """A temp file in ``target``'s folder holding ``data``, with the owner and mode ``target``
    has (or, for a new file, the mode the umask gives). Unnamed where the system allows
    (``O_TMPFILE``): it gets a name only when it is renamed over ``target``
    (:func:`_replace`), so a SIGKILL meanwhile leaves nothing behind."""
    folder = os.path.dirname(os.path.abspath(target)) or "."
    temp = _registered_temp(folder, named or folder in _NO_LINK)
    temp.data = data
    fd = temp.fd
    try:
        try:
            st = os.stat(target)
        except FileNotFoundError:
            st = None
        if st is not None:
            if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    try:                           # the group at least, where allowed
                        os.fchown(fd, -1, st.st_gid)
                    except OSError:
                        pass
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        else:
            os.fchmod(fd, _new_mode())
        _write_fd(fd, data)
        os.fsync(fd)
    except BaseException:
        temp.close()
        raise
    return temp


_TEMP_NAME = re.compile(r"\.toolcat-[a-z0-9_]{8}\.tmp")
_SWEPT: set[str] = set()
_NO_LINK: set[str] = set()    # folders where an O_TMPFILE file could not be linked (EXDEV...)


def _hold_signals():
    """SIGINT and SIGTERM held back (where the platform allows) until the returned restore is
    called: a temp file is registered in :data:`_TEMPS` in the same step it gets a name."""
    import signal

    block = getattr(signal, "pthread_sigmask", None)
    if block is None:  # pragma: no cover - Windows
        return lambda: None
    old = block(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    return lambda: block(signal.SIG_SETMASK, old)


def _registered_temp(folder: str, named: bool = False) -> _Temp:
    """A new temp file in ``folder``, with an ``flock`` held: an unnamed one (``O_TMPFILE``,
    Linux with /proc), else ``mkstemp`` registered in :data:`_TEMPS` before a SIGTERM or
    Ctrl-C can be handled. First, once per folder and run, toolcat's own temp files that a
    run killed outright (SIGKILL) left there are removed (:func:`_sweep`)."""
    import tempfile  # here: tempfile imports shutil, random... (7 ms at startup)

    _sweep(folder)
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed and not named and os.path.isdir("/proc/self/fd"):
        try:
            fd = os.open(folder, unnamed | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError:        # a file system without O_TMPFILE: a named temp file
            pass
        else:
            _lock(fd)
            return _Temp(fd, folder, None)
    restore = _hold_signals()
    try:
        fd, tmp = tempfile.mkstemp(prefix=".toolcat-", suffix=".tmp", dir=folder)
        _TEMPS.add(tmp)
        _lock(fd)
    finally:
        restore()
    return _Temp(fd, folder, tmp)


def _lock(fd: int) -> None:
    """An ``flock`` on a temp file while its run writes it: :func:`_sweep` of another run
    leaves it alone."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass


def _sweep(folder: str) -> None:
    """Remove from ``folder`` toolcat's own stale temp files (``.toolcat-XXXXXXXX.tmp``):
    regular files of this user, older than this sweep, whose ``flock`` no run holds (a
    killed run's locks are gone with it). Never follows a link; errors are ignored."""
    if folder in _SWEPT:
        return
    _SWEPT.add(folder)
    try:
        import time

        names = [n for n in os.listdir(folder) if _TEMP_NAME.fullmatch(n)]
    except OSError:
        return
    now = time.time()
    for name in names:
        remove_if_stale(os.path.join(folder, name), now, mine_only=True)


def remove_if_stale(path: str, before: float, mine_only: bool = False) -> None:
    """Remove ``path`` if it is a regular file (never through a link) last written before
    ``before`` (and, ``mine_only``, owned by this user) whose ``flock`` no run holds (a
    killed run's locks are gone with it); any error, or a system without ``flock``, leaves
    it."""
    try:
        import fcntl
    except ImportError:
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_mtime < before \
                and (not mine_only or st.st_uid == os.geteuid()):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(path)
    except OSError:
        pass
    finally:
        os.close(fd)


def _replace(temp: _Temp, target: str) -> None:
    """Rename ``temp`` over ``target``; an unnamed temp is first linked at a name of its own
    (``linkat`` through /proc/self/fd), registered in :data:`_TEMPS` in the same step. Where
    the file system refuses that link (overlayfs: EXDEV), the data is written again to a
    named temp file (and that folder gets named ones from then on)."""
    if temp.name is None and not _link(temp):
        _NO_LINK.add(temp.folder)
        again = _write_temp(target, temp.data, named=True)
        temp.close()
        temp.fd, temp.name, again.fd = again.fd, again.name, -1
    assert temp.name is not None     # (named by _link, or the named temp)
    os.replace(temp.name, target)
    _TEMPS.discard(temp.name)


def _link(temp: _Temp) -> bool:
    import secrets

    restore = _hold_signals()
    try:
        while True:
            name = os.path.join(temp.folder, f".toolcat-{secrets.token_hex(4)}.tmp")
            try:
                _linkat(temp.fd, name)
            except FileExistsError:
                continue
            except OSError:
                return False
            temp.name = name
            _TEMPS.add(name)
            return True
    finally:
        restore()


def _linkat(fd: int, name: str) -> None:
    """Give the unnamed file open at ``fd`` the name ``name``: ``linkat(fd, "", ...,
    AT_EMPTY_PATH)`` (Linux >= 6.10, or with CAP_DAC_READ_SEARCH), else ``linkat`` of
    ``/proc/self/fd/N`` with AT_SYMLINK_FOLLOW. Raises :class:`OSError`."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.linkat(fd, b"", -100, os.fsencode(name), 0x1000) == 0:   # AT_FDCWD, AT_EMPTY_PATH
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), name)
    except (AttributeError, TypeError):
        pass
    os.link(f"/proc/self/fd/{fd}", name, follow_symlinks=True)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
    _TEMPS.discard(tmp)


def remove_temps() -> None:
    """Remove every temp file not yet renamed (a signal ends the run)."""
    for tmp in list(_TEMPS):
        _discard(tmp)


def _plan(path: str) -> tuple[str, str | int | None]:
    """How to write ``path``: ("stdout", None), ("fd", n), ("direct", path), ("replace", target)."""
    if path == "-":
        return "stdout", None
    fd = _fd_target(path)
    if fd is not None:
        return "fd", fd
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except ValueError:
        raise _write_error(OSError(errno.EINVAL, "the name holds a NUL byte"), path) from None
    except OSError as e:
        raise _write_error(e, path) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _write_error(IsADirectoryError(errno.EISDIR, "is a folder"), path)
        if stat.S_ISSOCK(st.st_mode):
            raise _write_error(OSError(errno.ENXIO, "is a socket; toolcat writes files, "
                                       "devices and FIFOs"), path)
        if not stat.S_ISREG(st.st_mode):
            return "direct", path
    if os.path.islink(path):
        # a link planted where an output goes (out.json -> ~/.bashrc) would have toolcat
        # replace, or make, the file it names: never written through
        raise _write_error(OSError(errno.ELOOP, "is a symbolic link to a file; toolcat replaces "
                                   "no file through a link (name the file itself)"), path)
    return "replace", path


def write_outputs(files: Sequence[tuple[str, bytes | str]]) -> None:
    """Write every ``(path, data)``, all or nothing as far as a file system allows: each
    replaced file's temp is written first, then each is renamed over its target; then
    devices, FIFOs and descriptors are written; stdout (``-``) last. An ``OSError`` names the
    path as given (``toolcat.cli.run`` prints it as one ``toolcat: error:`` line)."""
    if not files:
        return
    check_outputs([(p, p) for p, _ in files])
    plans = []
    for path, data in files:
        plans.append((path, _plan(path), _as_bytes(data)))
    temps: list[tuple[_Temp, str, str]] = []
    current = ""
    try:
        for path, (how, where), data in plans:
            if how == "replace":
                current = path
                temps.append((_write_temp(str(where), data), str(where), path))
        for temp, target, path in temps:
            current = path
            _replace(temp, target)
        for path, (how, where), data in plans:
            current = path
            if how == "direct":
                _write_direct(str(where), data)
            elif how == "fd":
                _write_fd(int(where), data)  # type: ignore[arg-type]
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _write_error(e, current) from None
    finally:
        for temp, _t, _p in temps:
            temp.close()
    for path, (how, _w), data in plans:
        if how == "stdout":
            write_stdout(data)
