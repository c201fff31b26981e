"""Every file toolcat reads or writes goes through here: one reader, one writer.

Reading (:func:`read_regular`): only regular files are read, up to a size limit (inputs,
``$ref`` targets, ``--baseline`` and ``--check`` files, configuration). A FIFO, a device, a
socket, or a link to one, is refused with one clear error instead of blocking forever or
reading ``/dev/zero`` until memory runs out. ``-`` is stdin.

Writing (:func:`write_outputs`): all outputs of a command in one call.

* ``-`` is stdout (at most one output may be ``-``: :func:`check_outputs`).
* A regular file (or a new one) is replaced atomically: a temp file created with
  ``O_EXCL`` (``mkstemp``) in the target's own folder, written, synced, given the owner and
  mode of the file it replaces, then renamed over it. A reader never sees half a file; a
  failure leaves every target as it was.
* A symbolic link is written through: the file it names is replaced, the link stays a link.
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
from typing import Callable, Iterable

from toolcat.errors import InputError, UsageError

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


def read_regular(path: str, limit: int, error: Callable[..., Exception] = InputError,
                 what: str = "file") -> bytes:
    """The bytes of the regular file ``path`` (``-``: stdin), at most ``limit`` of them.

    Anything else is ``error(message, path)``: missing, a folder, a FIFO/device/socket (or a
    link to one; checked on the open descriptor too, so a swap after the check is caught),
    over the limit, unreadable."""
    if path == "-":
        if stdin_closed():
            raise error("standard input is closed", "-")
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise error(f"input is larger than the {_size(limit)} limit", "-")
        return data
    fd, _size_now = open_regular(path, limit, error, what)
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
        raise error(f"cannot read: {e.strerror or e}", path) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise error(f"{what} is over the {_size(limit)} limit (it grew while read)", path)
    return data


def open_regular(path: str, limit: int, error: Callable[..., Exception] = InputError,
                 what: str = "file") -> tuple[int, int]:
    """An open read-only descriptor of the regular file ``path`` and its size, with the
    checks of :func:`read_regular` (the caller closes it and reads at most ``limit``)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error("no such file or folder", path) from None
    except ValueError:                        # an embedded NUL byte
        raise error("the name holds a NUL byte", path) from None
    except OSError as e:
        raise error(f"cannot read: {e.strerror or e}", path) from None
    if stat.S_ISDIR(st.st_mode):
        raise error("is a folder, not a file", path)
    if not stat.S_ISREG(st.st_mode):
        raise error(f"is {kind(st.st_mode)}, not a regular {what}; toolcat reads regular "
                    "files only (use - for stdin)", path)
    if st.st_size > limit:
        raise error(f"{what} is {_size(st.st_size)}, over the {_size(limit)} limit "
                    "(raise it with --max-file-size)", path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise error(f"cannot read: {e.strerror or e}", path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"is {kind(st.st_mode)}, not a regular {what}", path)
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

def check_inputs(inputs: list[tuple[str, str | None]]) -> None:
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


def _write_temp(target: str, data: bytes) -> str:
    """A temp file next to ``target`` holding ``data``, with the owner and mode ``target``
    has (or, for a new file, the mode the umask gives). Registered in :data:`_TEMPS`."""
    folder = os.path.dirname(os.path.abspath(target)) or "."
    fd, tmp = _registered_temp(folder)
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
        os.close(fd)
        _discard(tmp)
        raise
    os.close(fd)
    return tmp


def _registered_temp(folder: str) -> tuple[int, str]:
    """``mkstemp`` in ``folder``, registered in :data:`_TEMPS` before a SIGTERM or Ctrl-C can
    be handled (both are held back between the two steps, where the platform allows): a
    signal that lands in between would leave a temp file nobody removes."""
    import signal
    import tempfile  # here: tempfile imports shutil, random... (7 ms at startup)

    held = {signal.SIGINT, signal.SIGTERM}
    block = getattr(signal, "pthread_sigmask", None)
    old = block(signal.SIG_BLOCK, held) if block is not None else None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".toolcat-", suffix=".tmp", dir=folder)
        _TEMPS.add(tmp)
    finally:
        if block is not None:
            block(signal.SIG_SETMASK, old)
    return fd, tmp


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


def _plan(path: str) -> tuple[str, object]:
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
    target = os.path.realpath(path) if os.path.islink(path) else path
    return "replace", target


def write_outputs(files: list[tuple[str, bytes | str]]) -> None:
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
    temps: list[tuple[str, str, str]] = []
    current = ""
    try:
        for path, (how, where), data in plans:
            if how == "replace":
                current = path
                temps.append((_write_temp(str(where), data), str(where), path))
        for tmp, target, path in temps:
            current = path
            os.replace(tmp, target)
            _TEMPS.discard(tmp)
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
        for tmp, _t, _p in temps:
            if tmp in _TEMPS:
                _discard(tmp)
    for path, (how, _w), data in plans:
        if how == "stdout":
            write_stdout(data)
