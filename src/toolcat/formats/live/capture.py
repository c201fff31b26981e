"""Capture live MCP servers (the synchronous entry point) and the capture file.

:func:`capture` starts every stdio server first (``Popen``, before the MCP SDK is imported,
so servers boot while toolcat loads the SDK), then captures all of them concurrently, each
with its own ``--timeout``. One server that fails is one :class:`Outcome` with an error; the
others are still captured. Every server process is ended before :func:`capture` returns,
whatever happens (:func:`toolcat.formats.live.procs.guard`).

The capture file (:func:`document`, :func:`file_bytes`) is a ``tools/list`` result, every
page joined, with what the handshake said under ``capture``::

    {
      "capture": {"server": "time", "transport": "stdio", "protocolVersion": "2025-11-25",
                  "handshake": "initialize", "serverInfo": {"name": ..., "version": ...},
                  "capabilities": {...}, "instructions": "...", "pages": 1,
                  "capturedAt": "2026-01-01T00:00:00Z"},
      "tools": [ ...exactly as the server sent them... ]
    }

(plus the result's ``"_meta": {"toolcat/view": ...}`` when the server's tools/list result
declared its view, as ``toolcat serve`` does.)

Any MCP loader reads it as ``{"tools": [...]}`` (the ``capture`` key is ignored), so every
command lints, projects, measures and diffs it as the live server. ``capturedAt`` is the only
field that changes when nothing else did (:func:`compare` ignores it).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

from toolcat.errors import InputError
from toolcat.formats.live import procs
from toolcat.formats.live.spec import DEFAULT_TIMEOUT, STDIO, ServerSpec, printable

CAPTURE_KEY = "capture"
VOLATILE = ("capturedAt",)


@dataclass
class Outcome:
    spec: ServerSpec
    capture: Any = None            # session.Capture
    error: InputError | None = None


#: Seconds spent importing the MCP SDK in the last :func:`capture` (for bench and -v).
last_sdk_import_s: float | None = None


def default_log_dir() -> str:
    """The folder of the servers' logs: ``$TMPDIR/toolcat-UID/servers`` where it is private to
    this user, else a new private one (:func:`toolcat.formats.live.logs.default_dir`)."""
    from toolcat.formats.live import logs

    return logs.default_dir()


def import_sdk() -> Any:
    """The client layer (imports the MCP SDK); a clear error when it is not installed."""
    global last_sdk_import_s
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from toolcat.formats.live import session
    except ImportError as e:
        missing = (getattr(e, "name", None) or "mcp").split(".")[0]
        raise InputError(f"live servers need the MCP Python SDK ({missing} is not installed): "
                         "pip install 'toolcat[live]'") from None
    last_sdk_import_s = time.perf_counter() - t
    return session


def capture(specs: list[ServerSpec], timeout: float = DEFAULT_TIMEOUT, verbose: bool = False,
            log_dir: str | None = "") -> list[Outcome]:
    """Capture every spec; one :class:`Outcome` per spec, in order.

    ``log_dir``: where each stdio server's stderr goes (``<name>.log``); ``""`` for the
    default (:func:`default_log_dir`), ``None`` for nowhere. ``verbose`` also shows it on
    toolcat's stderr, each line prefixed with ``[name]``."""
    if timeout <= 0:
        from toolcat.errors import UsageError

        raise UsageError(f"--timeout must be more than 0 seconds (got {timeout:g})")
    if log_dir == "":
        log_dir = default_log_dir()
    outcomes: list[Outcome] = [Outcome(s) for s in specs]
    with procs.guard():
        started: dict[int, float] = {}
        started_procs: dict[int, procs.ServerProcess] = {}
        todo: list[int] = []
        for i, s in enumerate(specs):
            if s.problem:
                outcomes[i].error = InputError(s.problem, s.label)
                continue
            started[i] = time.perf_counter()
            if s.transport == STDIO:
                try:
                    started_procs[i] = procs.spawn(s)
                except InputError as e:
                    outcomes[i].error = e
                    continue
            todo.append(i)
        if not todo:
            return outcomes
        session = import_sdk()
        session.quiet_sdk_logging(verbose)
        if verbose:
            import sys

            sys.stderr.write(f"toolcat: MCP SDK (mcp {session.sdk_version()}) loaded in "
                             f"{last_sdk_import_s:.2f} s\n")
        import anyio

        async def one(i: int) -> None:
            try:
                outcomes[i].capture = await session.capture_one(
                    specs[i], started_procs.get(i), timeout, log_dir=log_dir, verbose=verbose,
                    started=started[i])
            except InputError as e:
                outcomes[i].error = e
            except Exception as e:  # noqa: BLE001 - one server's bug is that server's error
                outcomes[i].error = InputError(
                    f"internal error while capturing: {type(e).__name__}: "
                    f"{printable(str(e), 200)} (please report it)", specs[i].label)

        interrupted = False

        async def main() -> None:
            # Ctrl-C cancels the captures through anyio's own cancel scope: left to asyncio
            # (its runner cancels the main task natively), the cancellation was sometimes
            # taken by a session's cancel scope for its own, and toolcat waited out the whole
            # --timeout instead of stopping (about 1 run in 20 on a loaded machine)
            nonlocal interrupted
            import signal
            import threading

            async with anyio.create_task_group() as outer:
                async def on_ctrl_c() -> None:
                    nonlocal interrupted
                    try:
                        receiver = anyio.open_signal_receiver(signal.SIGINT)
                        with receiver as signals:
                            async for _sig in signals:
                                interrupted = True
                                outer.cancel_scope.cancel()
                                return
                    except (NotImplementedError, ValueError, RuntimeError):
                        return   # no signal handlers here (not the main thread, Windows)

                if threading.current_thread() is threading.main_thread():
                    outer.start_soon(on_ctrl_c)
                async with anyio.create_task_group() as tg:
                    for i in todo:
                        tg.start_soon(one, i)
                outer.cancel_scope.cancel()    # done: the Ctrl-C watcher ends too

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            anyio.run(main)
        if interrupted:
            raise KeyboardInterrupt
    return outcomes


# --------------------------------------------------------------------------- the file


def document(cap: Any) -> dict:
    """The capture file's content for one :class:`~toolcat.formats.live.session.Capture`."""
    hs = cap.handshake
    meta: dict[str, Any] = {"server": cap.spec.label, "transport": cap.spec.transport,
                            "protocolVersion": hs.protocol_version, "handshake": hs.method}
    if hs.server_info is not None:
        meta["serverInfo"] = hs.server_info
    for key in ("capabilities", "instructions"):
        if key in hs.result:
            meta[key] = hs.result[key]
    meta["pages"] = cap.pages
    meta["capturedAt"] = cap.captured_at
    doc = {CAPTURE_KEY: meta, "tools": cap.tools}
    view = getattr(cap, "view", None)
    if view is not None:   # the result said which view it is (toolcat serve: compact)
        from toolcat.formats.arrays import VIEW_META_KEY

        doc["_meta"] = {VIEW_META_KEY: view}
    return doc


def file_bytes(doc: dict) -> bytes:
    """The capture file's bytes (JSON, 2-space indent, as JavaScript's JSON.stringify)."""
    from toolcat.document import canonical

    try:
        return canonical.dumps(doc, indent=2) + b"\n"
    except (ValueError, TypeError) as e:
        server = doc.get(CAPTURE_KEY, {}).get("server")
        raise InputError(f"the server's answer cannot be written as JSON: {printable(str(e))}",
                         server) from None


def to_catalog(cap: Any):  # noqa: ANN201 - toolcat.model.Catalog
    """The catalog of a capture: exactly what loading its capture file gives (the same
    bytes are parsed), named after the server (its ``file`` is the server's name, it has no
    source text, so findings carry no line); tool pointers are ``/tools/<index>``.
    ``meta["live"]`` holds the file's ``capture`` object plus ``origin`` (where the server
    was configured)."""
    from toolcat.document.parse import parse_json
    from toolcat.formats.arrays import meta_view
    from toolcat.formats.mcp import load_mcp
    from toolcat.model import STANDARD

    doc = document(cap)
    label = cap.spec.label
    parsed = parse_json(file_bytes(doc).decode("utf-8"), label)
    cat = load_mcp(parsed, label)
    # a server's list is a standard view unless its result says otherwise (toolcat serve
    # says compact); never guessed from the server's name, as load_mcp does for a file
    cat.view = meta_view(parsed) or STANDARD
    cat.meta["live"] = dict(parsed[CAPTURE_KEY], origin=cap.spec.origin,
                            key=cap.spec.key or cap.spec.name)
    return cat


#: The file name of the setup catalog (the union of a run's servers).
SETUP = "setup"


def setup_catalog(servers: list, client: str | None = None):  # noqa: ANN201 - Catalog
    """The tools of every server in ``servers`` (live catalogs) as one catalog: what a client
    configured with them sends in one request. Its ``file`` is ``setup`` (or ``<client>
    setup``); each tool keeps its server as ``tool.file`` and its ``/tools/<index>``
    pointer, so findings on a tool still name the server and the index.
    ``meta["setup"]``: ``client`` and ``servers`` (``{"name", "key", "tools"}`` each, ``key``
    being the server's name in the client's configuration)."""
    from toolcat.model import MCP, STANDARD, Catalog, Tool

    name = f"{client} {SETUP}" if client else SETUP
    tools: list[Tool] = []
    cat = Catalog(file=name, format=MCP, tools=tools, view=STANDARD)
    listed = []
    for c in servers:
        live = c.meta.get("live", {})
        listed.append({"name": c.file, "key": live.get("key", c.file), "tools": len(c.tools)})
        tools.extend(c.tools)
    cat.meta["setup"] = {"client": client, "servers": listed}
    return cat


def say_captured(cap: Any) -> None:
    """``-v``: one line on stderr saying what a server answered."""
    import sys

    hs = cap.handshake
    info = hs.server_info or {}
    who = " ".join(printable(str(info[k]), 60) for k in ("name", "version") if info.get(k))
    n = len(cap.tools)
    t = cap.timings.get("total")
    sys.stderr.write(
        f"toolcat: {cap.spec.label}: {n} tool{'s' if n != 1 else ''} in {cap.pages} "
        f"page{'s' if cap.pages != 1 else ''} from {who or 'a server without serverInfo'} "
        f"(protocol {printable(str(hs.protocol_version), 20)}, {hs.method}"
        + (f", {t:.2f} s" if isinstance(t, float) else "") + ")\n")


def compare(old: Any, new: dict) -> list[str]:
    """What differs between a capture file's content and a new capture (``capturedAt``
    ignored): one line per difference, empty when the file is current."""
    from toolcat.document import canonical

    def same(a: Any, b: Any) -> bool:   # JSON equality (Python's == has 1 == 1.0 == True)
        return json_equal(a, b)

    out: list[str] = []
    if not isinstance(old, dict) or not isinstance(old.get("tools"), list):
        return ["the file is not a capture (no tools array)"]
    om = cm if isinstance(cm := old.get(CAPTURE_KEY), dict) else {}
    nm = new[CAPTURE_KEY]
    for key in sorted(set(om) | set(nm)):
        if key in VOLATILE:
            continue
        if key not in om or key not in nm or not same(om[key], nm[key]):
            out.append(f"capture.{key} changed")
    if "_meta" in old or "_meta" in new:
        if not same(old.get("_meta"), new.get("_meta")):
            out.append("_meta changed")
    otools = old["tools"]
    ntools = new["tools"]

    def name(t: Any, i: int) -> str:
        return t["name"] if isinstance(t, dict) and isinstance(t.get("name"), str) else f"#{i}"

    onames = {name(t, i): t for i, t in enumerate(otools)}
    nnames = {name(t, i): t for i, t in enumerate(ntools)}
    for n in nnames:
        if n not in onames:
            out.append(f"tool {printable(n, 80)} added")
    for n in onames:
        if n not in nnames:
            out.append(f"tool {printable(n, 80)} removed")
    for n, t in nnames.items():
        if n in onames and not same(onames[n], t):
            fields = sorted(set(t) | set(onames[n])) if isinstance(t, dict) and \
                isinstance(onames[n], dict) else []
            changed = [f for f in fields if f not in t or f not in onames[n]
                       or not same(t[f], onames[n][f])]
            out.append(f"tool {printable(n, 80)} changed"
                       + (f" ({', '.join(changed)})" if changed else ""))
    if not out and [name(t, i) for i, t in enumerate(otools)] != \
            [name(t, i) for i, t in enumerate(ntools)]:
        out.append("tools are in another order")
    if not out and canonical.dumps(otools) != canonical.dumps(ntools):
        out.append("the same tools with their keys in another order")
    return out


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: object key order ignored; ``true``, ``1`` and ``1.0`` differ."""
    import json

    def key(v: Any) -> str:
        return json.dumps(v, sort_keys=True, ensure_ascii=False, allow_nan=True)

    return key(a) == key(b)
