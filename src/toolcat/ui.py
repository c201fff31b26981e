"""Terminal and file output shared by every command.

* Colour follows ``NO_COLOR``, ``--no-color`` and whether the stream is a terminal; output
  that is not a terminal never carries escape codes.
* ``--quiet`` silences summaries on stderr (results on stdout still print).
* :func:`write_atomic` writes through a temporary file and a rename, so a reader never sees a
  half-written output file, whatever happens during the run.

Rich is imported only when a console is first needed.
"""

from __future__ import annotations

import os
import sys
from typing import Any


class _State:
    no_color: bool = False
    quiet: bool = False
    _out: Any = None
    _err: Any = None


state = _State()


def reset() -> None:
    """Forget the options of a previous run (``cli.run`` may be called many times in-process)."""
    state.no_color = False
    state.quiet = False
    state._out = state._err = None


def configure(no_color: bool | None = None, quiet: bool | None = None) -> None:
    if no_color:
        state.no_color = True
        state._out = state._err = None
    if quiet:
        state.quiet = True


def color_enabled(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    if state.no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _console(stream: Any) -> Any:
    from rich.console import Console

    use_color = color_enabled(stream)
    return Console(
        file=stream,
        no_color=not use_color,
        color_system="auto" if use_color else None,
        force_terminal=use_color if use_color else None,
        highlight=False,
        soft_wrap=not stream.isatty() if hasattr(stream, "isatty") else True,
        emoji=False,
    )


def out() -> Any:
    """Rich console on stdout."""
    if state._out is None or state._out.file is not sys.stdout:
        state._out = _console(sys.stdout)
    return state._out


def err() -> Any:
    """Rich console on stderr."""
    if state._err is None or state._err.file is not sys.stderr:
        state._err = _console(sys.stderr)
    return state._err


def write_stdout(data: str | bytes) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8")
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def write_atomic(path: str, data: bytes | str) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and ``os.replace``.

    A path that cannot be written (missing folder, a folder, no permission, disk full) raises
    an ``OSError`` whose ``filename`` is ``path`` (not the temp file); the file is untouched
    and no temp file is left. ``toolcat.cli.run`` prints it as one ``toolcat: error:`` line.
    """
    if path == "-":
        write_stdout(data.encode("utf-8") if isinstance(data, str) else data)
        return
    write_atomic_many([(path, data)])


def write_atomic_many(files: list[tuple[str, bytes | str]]) -> None:
    """Write several files all or nothing (as far as a file system allows): every temp file
    is written first, then each is renamed over its target. A failure while writing leaves
    every target as it was and no temp file behind (errors as in :func:`write_atomic`; the
    same file given twice is a :class:`~toolcat.errors.UsageError`). A path ``-`` is stdout,
    written last."""
    import errno

    from toolcat.errors import UsageError

    to_stdout = [data for path, data in files if path == "-"]
    files = [(path, data) for path, data in files if path != "-"]
    seen: set[str] = set()
    for path, _ in files:
        real = os.path.realpath(path)
        if real in seen:
            raise UsageError("the same file is given for two outputs", path)
        seen.add(real)
        if os.path.isdir(path):
            raise _write_error(IsADirectoryError(errno.EISDIR, "is a folder"), path)
    temps: list[tuple[str, str]] = []
    current = ""
    try:
        for path, data in files:
            current = path
            temps.append((_write_temp(path, data), path))
        for tmp, path in temps:
            current = path
            os.replace(tmp, path)
    except OSError as e:
        raise _write_error(e, current) from None
    finally:
        for tmp, _path in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    for data in to_stdout:   # `-`: stdout, once every file is in place
        write_stdout(data.encode("utf-8") if isinstance(data, str) else data)


def _write_error(e: OSError, path: str) -> OSError:
    """``e`` about ``path`` (not the temp file), marked as a write (``cli.run`` says so)."""
    out = OSError(e.errno, e.strerror or str(e), path)
    out.toolcat_action = "cannot write"  # type: ignore[attr-defined]
    return out


def _write_temp(path: str, data: bytes | str) -> str:
    """A temp file next to ``path`` holding ``data``, with the mode ``path`` has (or would get)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path)) or "."
    import tempfile  # here: tempfile imports shutil, random, bz2, lzma (7 ms at startup)

    fd, tmp = tempfile.mkstemp(prefix=".toolcat-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp
