"""`toolcat capture`: write what live MCP servers list, for CI to lint, measure and diff."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from toolcat.commands.common import LIVE, UI, Shared
from toolcat.commands.options import shared
from toolcat.commands.sources import report_errors

HELP = ("Capture the tools/list of live MCP servers (every page) with what their handshake "
        "said, into a file that every toolcat command reads.")
SHORT = "Capture live MCP servers' tools into a file."

EPILOG = """SERVER is a command line (run over stdio, split as a shell splits words) or an
http:// or https:// URL (Streamable HTTP); --server, --url, --client and --client-config add
more. The file is the tools/list result with every page joined, as the server sent it, plus
"capture": the server's name and version, the protocol version, capabilities, instructions,
pages and the time. With one server -o names the file (default: stdout); with several, -o
names a folder that gets one <server>.tools.json each. A file whose capture is unchanged
(capturedAt aside) is left as it is.

--check writes nothing: exit 1 when a file is missing or differs from a new capture
(everything but capturedAt is compared; each difference is listed), 0 when current.
Exit codes: 0 written or current, 1 out of date (--check), 2 usage error or a server
that failed (the others are still written).

Examples:

  toolcat capture 'python my_server.py' -o tools.capture.json

  toolcat capture 'python my_server.py' -o tools.capture.json --check

  toolcat capture --client claude-desktop -o captures/
"""


def register(app: typer.Typer) -> None:
    app.command("capture", epilog=EPILOG, help=HELP, short_help=SHORT)(capture)


@shared(*LIVE, *UI)
def capture(
    servers: Annotated[Optional[list[str]], typer.Argument(
        help="Servers: a command line, or an http(s):// URL.", show_default=False)] = None,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="File to write (one server; `-`: stdout) or folder (several) "
        "[default: stdout].", show_default=False)] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 when the file (or a file in the folder) "
        "differs from a new capture, capturedAt aside.")] = False,
    *,
    opts: Shared,
) -> None:
    import re

    from toolcat.errors import UsageError
    from toolcat.formats.live import capture as cap

    opts.apply_ui()
    cmds, urls = list(opts.server or []), list(opts.url or [])
    for s in servers or []:
        (urls if re.match(r"(?i)https?://", s) else cmds).append(s)
    live = opts.live(cmds, urls)
    if not live.any:
        raise UsageError("give a server: a command line or URL, --server CMD, --url URL, "
                         "--client NAME or --client-config FILE")
    many = len(live.specs) > 1
    _check_output(output, check, len(live.specs), opts.client_config)
    outcomes = cap.capture(live.specs, timeout=live.timeout, verbose=live.verbose)
    errors = [o.error for o in outcomes if o.error is not None]
    done = [o.capture for o in outcomes if o.error is None]
    stale = _write(done, output, check, many, opts.verbose)
    if errors:
        report_errors(errors)
        sys.stderr.flush()
        raise typer.Exit(2)
    raise typer.Exit(1 if stale else 0)


def _check_output(output: str | None, check: bool, n: int, client_config: str | None) -> None:
    """-o for ``n`` servers: a file (one server; stdout without -o) or a folder."""
    import os

    from toolcat.errors import UsageError

    to_stdout = output is None or output == "-"
    if check and to_stdout:
        raise UsageError("--check needs -o/--output (the file to compare)")
    if n > 1 and to_stdout:
        raise UsageError(f"{n} servers: -o must name a folder (each server "
                         "gets <name>.tools.json)")
    if n > 1 and output is not None and os.path.exists(output) and not os.path.isdir(output):
        raise UsageError(f"{n} servers: -o must name a folder, not a file", output)
    if n == 1 and not check:
        from toolcat.commands.sources import input_files
        from toolcat.files import check_outputs

        check_outputs([("-o", output)], input_files(None, client_config))


def _write(done: list, output: str | None, check: bool, many: bool, verbose: bool) -> int:
    """Each capture to stdout, its file, or compared with it (--check); the number of files
    out of date."""
    import os

    from toolcat import ui
    from toolcat.formats.live import capture as cap

    to_stdout = output is None or output == "-"
    stale = 0
    writes: list[tuple[str, bytes]] = []
    for c in done:
        if verbose:
            cap.say_captured(c)
        doc = cap.document(c)
        if to_stdout:
            ui.write_stdout(cap.file_bytes(doc))
            continue
        assert output is not None       # (not to stdout)
        path = os.path.join(output, f"{c.spec.label}.tools.json") if many else output
        old = _read_capture(path, check)
        diffs = ["the file does not exist"] if old is None else cap.compare(old, doc)
        if check:
            if diffs:
                stale += 1
                _say(f"{path}: out of date ({'; '.join(diffs)}); run toolcat capture "
                     "without --check to update it", always=True)
            else:
                _say(f"{path}: up to date")
            continue
        if not diffs:
            _say(f"{path}: up to date ({len(c.tools)} tools)")
            continue
        writes.append((path, cap.file_bytes(doc)))
        _say(f"{path}: {len(c.tools)} tool{'s' if len(c.tools) != 1 else ''} of "
             f"{c.spec.label} ({c.pages} page{'s' if c.pages != 1 else ''}, protocol "
             f"{c.handshake.protocol_version})")
    if writes:
        assert output is not None       # (written to files)
        if many:
            os.makedirs(output, exist_ok=True)
        ui.write_atomic_many(writes)
    return stale


def _read_capture(path: str, check: bool):
    """The capture now at ``path`` (None: there is none), read by the one reader: a FIFO
    or a device there (a link to /dev/zero) is never read, so never a blocked or endless
    read. Without --check such a target, or one over the size limit or unreadable, differs
    from the new capture (which is written to it); with --check only the last two do, and a
    FIFO, device or folder is an input error, as for ``project --check``."""
    import json

    from toolcat.document.parse import Limits
    from toolcat.errors import InputError
    from toolcat.files import read_if_exists

    try:
        data = read_if_exists(path, Limits.from_env().max_file_size, what="capture file")
    except InputError as e:
        if check and e.kind not in ("too-large", "unreadable"):
            raise
        return {"_unreadable": e.message}
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        # not a capture (any more): a difference, not an error; the new capture replaces it
        return {"_unreadable": str(e)}


def _say(text: str, always: bool = False) -> None:
    import sys

    from toolcat import ui

    if always or not ui.state.quiet:
        sys.stderr.write(f"toolcat: {text}\n")
