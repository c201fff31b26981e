"""The proxy of ``toolcat serve``: the upstream connection and the MCP server (imports the MCP
SDK: imported only by :func:`toolcat.features.serve.runner.serve`, after the upstream was started).

:class:`Upstream` holds one :class:`~toolcat.formats.live.session.LiveSession` for the whole
run (the client every live command uses: handshake, every ``tools/list`` page raw, any request
with its full result). :func:`build_server` is the SDK's low-level ``Server`` with two
handlers: ``tools/list`` answers the :class:`~toolcat.features.serve.view.View` made once, ``tools/call``
answers the handbook tool itself and forwards every other call to the upstream.

Failures never hang a client: a call waits for the upstream's answer, for the upstream's
end (crash, exit, a broken stream: the first cause recorded is the error every call gets from
then on), or for ``--call-timeout``, whichever comes first; each ends as an MCP error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from typing import Any, Callable

import anyio
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS as MODERN_VERSIONS

from toolcat.errors import InputError
from toolcat.features.serve.view import SEPARATOR
from toolcat.formats.live import session as live
from toolcat.formats.live.procs import ServerProcess
from toolcat.formats.live.spec import HTTP, ServerSpec, printable
from toolcat.formats.targets import get as get_target

#: What the served list's result says of itself: the mcp target's compact-view mark.
VIEW_META: dict = get_target("mcp").view_meta or {}

#: The ``_meta`` key of a 2026-era result that names the server answering (toolcat's own
#: server stamps its own; the upstream's is not passed on as if it were toolcat's answer).
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
#: What a 2026-07-28 result needs that a legacy one lacks (dropped again on a legacy session).
MODERN_DEFAULTS = {"resultType": "complete"}


class Upstream:
    """The upstream server for the whole run: started and listed by :meth:`run` (a task),
    called by :meth:`call` from the server's handlers."""

    def __init__(self, spec: ServerSpec, proc: ServerProcess | None, timeout: float,
                 call_timeout: float | None, started: float, log_dir: str | None,
                 verbose: bool, on_gone: Callable[[InputError], None] | None = None,
                 prefix: str | None = None) -> None:
        self.spec = spec
        self.prefix = prefix             # its tools' served names: <prefix>__<name>
        self.proc = proc
        self.timeout = timeout
        self.call_timeout = call_timeout
        self.started = started
        self.log_dir = log_dir
        self.verbose = verbose
        self.on_gone = on_gone           # told once when the upstream ends while serving
        self.wire: live.Wire
        self.sink: live.StderrSink
        self.session: live.LiveSession | None = None
        self.capture: live.Capture | None = None
        self.page_sizes: list[int] = []  # tools on each page of its last tools/list
        self.error: InputError | None = None
        self.on_change: Callable[["Upstream"], Any] | None = None   # awaited after a re-list
        self.warn: Callable[[str], None] | None = None   # a line for stderr
        self.changes = 0                 # notifications/tools/list_changed received
        self.relisted = 0                # re-lists done after one
        self.ready: anyio.Event      # listed (capture set) or failed (error set)
        self.dead: anyio.Event       # the connection is over
        self.stop: anyio.Event       # the client went away: end the upstream

    def in_loop(self) -> None:
        """What belongs to the event loop (anyio's events and cancel scopes): made in it."""
        self.ready, self.dead, self.stop = anyio.Event(), anyio.Event(), anyio.Event()
        self.dirty = anyio.Event()      # the upstream said its tools changed: re-list
        self.lock = anyio.Lock()        # one tools/list at a time (the wire tap keeps the last)
        self.wire = live.Wire(self.spec, self.timeout)
        self.sink = live.StderrSink(self.spec, self.wire,
                                     self.log_dir if self.proc is not None else None,
                                     self.verbose)

    async def run(self) -> None:
        # Start-up (the SDK import included) to the last tools/list page: within --timeout,
        # as every live command; at least MIN_BUDGET once the client runs.
        remaining = max(live.MIN_BUDGET, self.timeout - (time.perf_counter() - self.started))
        self.wire.scope.deadline = anyio.current_time() + remaining
        exc: BaseException | None = None
        try:
            with self.wire.scope:
                ls = live.LiveSession(self.spec, self.wire, self.proc, on_stderr=self.sink,
                                      message_handler=self._on_message)
                try:
                    async with ls:
                        tools = await ls.list_tools()
                        self.page_sizes = tools.sizes
                        self.wire.scope.deadline = math.inf      # serving: no deadline
                        assert ls.handshake is not None
                        self.capture = live.Capture(
                            spec=self.spec, tools=tools.tools, pages=tools.pages,
                            handshake=ls.handshake, captured_at=live.utc_now(),
                            log_path=self.wire.log_path)
                        self.session = ls
                        self.wire.phase = "a forwarded tools/call"
                        self.ready.set()
                        async with anyio.create_task_group() as tg:
                            tg.start_soon(self._relist_when_told)
                            if ls.handshake.protocol_version in MODERN_VERSIONS:
                                tg.start_soon(self._listen)
                            await self.stop.wait()
                            tg.cancel_scope.cancel()
                except InputError as e:
                    if self.wire.error is None:
                        self.wire.error = e
                        self.wire.scope.cancel()
        except Exception as e:  # noqa: BLE001 - translated below; never a traceback
            exc = e
            mine = [x for x in live.leaves(e) if isinstance(x, InputError)]
            if mine and self.wire.error is None:
                self.wire.error = mine[0]
        finally:
            self.sink.close()
            if self.wire.error is not None:
                self.error = self.wire.error
            elif not self.stop.is_set():
                if self.capture is None and self.wire.scope.cancel_called:
                    self.error = InputError(live.timeout_message(self.wire), self.spec.label)
                else:
                    self.error = InputError(
                        live.translate(exc, self.wire) if exc is not None
                        else "the connection ended", self.spec.label)
            self.session = None
            self.dead.set()
            self.ready.set()
            if self.capture is not None and self.error is not None and self.on_gone:
                self.on_gone(self.error)

    async def _on_message(self, message: Any) -> None:
        """A legacy session's notifications: ``tools/list_changed`` marks the list dirty."""
        if isinstance(message, types.ToolListChangedNotification):
            self.changes += 1
            self.dirty.set()
        await anyio.lowlevel.checkpoint()

    async def _listen(self) -> None:
        """The 2026-07-28 wire: change notifications come on a ``subscriptions/listen``
        stream (an upstream that does not serve one simply never says its tools changed)."""
        assert self.session is not None
        with contextlib.suppress(Exception):
            async with self.session.client.listen(tools_list_changed=True) as sub:
                async for event in sub:
                    if type(event).__name__ == "ToolsListChanged":
                        self.changes += 1
                        self.dirty.set()

    async def _relist_when_told(self) -> None:
        while True:
            await self.dirty.wait()
            self.dirty = anyio.Event()
            await self.relist()

    async def relist(self) -> None:
        """List every page again; the capture is replaced, then :attr:`on_change` awaited. A
        list that cannot be read keeps the tools of the last one (said on stderr)."""
        session = self.session
        if session is None or self.capture is None:
            return
        async with self.lock:
            try:
                tools = await session.list_tools()
            except Exception as e:  # noqa: BLE001 - the last good list stays served
                if self.warn is not None and not self.dead.is_set():
                    why = e.message if isinstance(e, InputError) else live.translate(e, self.wire)
                    self.warn(f"toolcat: warning: {printable(self.spec.label, 64)}: re-listing "
                              "its tools after notifications/tools/list_changed failed ("
                              f"{printable(why, 300)}); the last list stays served")
                return
            finally:
                self.wire.phase = "a forwarded tools/call"
            self.relisted += 1
            self.page_sizes = tools.sizes
            self.capture = dataclasses.replace(self.capture, tools=tools.tools,
                                               pages=tools.pages, captured_at=live.utc_now())
        if self.on_change is not None:
            await self.on_change(self)

    def catalog(self) -> Any:
        """Its tools as a catalog (what every live command reads from a server)."""
        from toolcat.formats.live.capture import to_catalog

        return to_catalog(self.capture)

    def gone(self) -> MCPError:
        """The MCP error of a call when the upstream is no longer there."""
        why = self.error.message if self.error is not None else "the connection ended"
        return MCPError(types.INTERNAL_ERROR,
                        f"toolcat serve: the upstream server {self.spec.label} is gone: "
                        + printable(why, 400))

    async def call(self, method: str, params: dict) -> dict:
        """Forward one request; its result as the upstream sent it, or its error unchanged."""
        session = self.session
        if session is None or self.dead.is_set():
            raise self.gone()
        result: dict | None = None
        failure: BaseException | None = None
        async with anyio.create_task_group() as tg:
            async def watch() -> None:
                await self.dead.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(watch)
            try:
                with (anyio.fail_after(self.call_timeout) if self.call_timeout
                      else contextlib.nullcontext()):
                    result = await session.request(method, params)
            except MCPError as e:
                failure = e
            except TimeoutError:
                failure = MCPError(types.REQUEST_TIMEOUT, (
                    f"toolcat serve: the upstream server {self.spec.label} did not answer "
                    f"{method} within {self.call_timeout:g} s (--call-timeout)"))
            except Exception as e:  # noqa: BLE001 - the transport's own failure, as one message
                failure = MCPError(types.INTERNAL_ERROR, (
                    f"toolcat serve: {method} to the upstream server {self.spec.label} failed: "
                    + live.translate(e, self.wire)))
            tg.cancel_scope.cancel()
        if isinstance(failure, MCPError) and failure.code == types.CONNECTION_CLOSED:
            with anyio.move_on_after(1.0):      # say why it closed, when the reader knows
                await self.dead.wait()
        if self.dead.is_set() and (result is None or failure is not None):
            raise self.gone()
        if failure is not None:
            raise failure
        if result is None:
            raise self.gone()
        return _without_server_stamp(result)


@dataclasses.dataclass
class _Handshake:
    server_info: dict
    result: dict


@dataclasses.dataclass
class _Listed:
    handshake: _Handshake


class CatalogUpstream:
    """A catalog file as an upstream (``toolcat serve --catalog FILE``): its tools are served
    (the compact view of any catalog toolcat reads: an MCP capture, an OpenAPI spec...) with
    no server behind them, which is what testing a host needs; a ``tools/call`` of one of
    them gets a tool error that says so. It has what :class:`Upstream` gives the server
    (``capture.handshake``: only the tools capability; :meth:`catalog`; :meth:`call`)."""

    def __init__(self, catalog: Any, label: str, prefix: str | None = None) -> None:
        from toolcat.version import __version__

        self.spec = ServerSpec(name=label, transport="catalog", origin="--catalog")
        self.prefix = prefix
        self._catalog = catalog
        self.capture = _Listed(_Handshake({"name": label, "version": __version__},
                                          {"capabilities": {"tools": {}}}))
        self.page_sizes: list[int] = []          # one page
        self.error: InputError | None = None
        self.on_change: Callable[[Any], Any] | None = None
        self.warn: Callable[[str], None] | None = None

    def in_loop(self) -> None:
        self.ready, self.dead, self.stop = anyio.Event(), anyio.Event(), anyio.Event()

    async def run(self) -> None:
        self.ready.set()
        await self.stop.wait()
        self.dead.set()

    def catalog(self) -> Any:
        return self._catalog

    async def call(self, method: str, params: dict) -> dict:
        if method != "tools/call":
            raise MCPError(types.METHOD_NOT_FOUND, f"toolcat serve: {method}: the catalog "
                           f"{printable(self.spec.label, 200)} has no server behind it")
        name = printable(str(params.get("name")), 130)
        return {"content": [{"type": "text", "text": (
            f"toolcat serve: {name} is listed from the catalog file "
            f"{printable(self.spec.label, 200)}: no server runs behind it (--catalog serves "
            "a catalog's tools for testing hosts; run the real server with --server)")}],
            "isError": True}


def _without_server_stamp(result: dict) -> dict:
    meta = result.get("_meta")
    if isinstance(meta, dict) and SERVER_INFO_META in meta:
        rest = {k: v for k, v in meta.items() if k != SERVER_INFO_META}
        result = {k: v for k, v in result.items() if k != "_meta"}
        if rest:
            result["_meta"] = rest
    return result


class Served:
    """What is served now: the view (replaced when an upstream's tools changed), and the
    clients to tell when it is (2026-07-28 sessions through their ``subscriptions/listen``
    streams, on the SDK's in-memory bus; legacy sessions by a notification on the session)."""

    def __init__(self, view: Any, upstreams: list[Upstream],
                 make_view: Callable[[list], Any], warn: Callable[[str], None]) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus

        self.view = view
        self.upstreams = upstreams
        self.make_view = make_view
        self.warn = warn
        self.bus = InMemorySubscriptionBus()
        self.sessions: list[Any] = []       # legacy client sessions seen (in order)
        self.generation = 0                 # views served so far, minus one
        self.notified = 0                   # list_changed notifications sent on
        self.defer: Any = None              # serve --defer: toolcat.features.serve.defer.Deferral

    def listed(self) -> list[dict]:
        """The tools ``tools/list`` serves now."""
        return self.defer.tools(self.view) if self.defer is not None else self.view.tools

    def seen(self, ctx: Any) -> None:
        """Keep a legacy client's connection (each request has its own session object; the
        connection is the client's, and can send a notification outside any request)."""
        if ctx.protocol_version in MODERN_VERSIONS or ctx.session is None:
            return
        conn = getattr(ctx.session, "_connection", None) or ctx.session
        if not any(s is conn for s in self.sessions):
            self.sessions.append(conn)

    async def changed(self, upstream: Upstream) -> None:
        """``upstream`` was listed again: make the view; when its tools/list differs from the
        one served, serve it and tell the clients (an unchanged list stays, byte for byte,
        and nobody is told)."""
        from toolcat.document.canonical import dumps

        try:
            view = self.make_view(self.upstreams)
            if self.defer is not None:
                before = dumps(self.listed())
                self.defer.rebuild(view)
                self.view = view
                if dumps(self.listed()) != before:
                    await self.tell()
                return
        except InputError as e:
            self.warn(f"toolcat: warning: {printable(upstream.spec.label, 64)}: its new tools "
                      f"cannot be served ({printable(e.render(), 300)}); the last list stays "
                      "served")
            return
        if dumps(view.tools) == dumps(self.view.tools):
            return
        self.view = view
        await self.tell()

    async def tell(self) -> None:
        """The served list changed: a new generation, and every client is told."""
        from mcp.server.subscriptions import ToolsListChanged

        self.generation += 1
        self.notified += 1
        await self.bus.publish(ToolsListChanged())
        for session in list(self.sessions):
            try:
                await session.send_tool_list_changed()
            except Exception:  # noqa: BLE001 - a session that is gone is not told
                self.sessions = [s for s in self.sessions if s is not session]


def build_server(served: Served, upstreams: list[Upstream], validate: str = "log",
                 repair: bool = True, note: Callable[[str], None] = lambda line: None
                 ) -> Server:
    """The SDK server that serves ``served.view`` and forwards calls to ``upstreams`` (a
    served name is routed to its upstream, under the name the upstream gave the tool).
    ``validate`` is ``--validate`` (:mod:`toolcat.features.serve.arguments`): ``log`` forwards a call
    its tool's schema refuses and says so with ``note`` (a line for the proxy's log),
    ``strict`` answers it with a tool error, ``off`` checks nothing; ``repair`` parses
    arguments sent as JSON text where the schema wants an object or an array."""
    from mcp.server.lowlevel.server import NotificationOptions
    from mcp.server.subscriptions import ListenHandler

    infos = []
    for up in upstreams:
        assert up.capture is not None
        infos.append(up.capture.handshake.server_info or {})
    if len(upstreams) == 1:
        info = infos[0]
        name = str(info.get("name") or upstreams[0].spec.label)
        version = str(info.get("version") or "")
        title = info.get("title") if isinstance(info.get("title"), str) else None
        hs = upstreams[0].capture.handshake.result  # type: ignore[union-attr]
        instructions = hs.get("instructions") if isinstance(hs.get("instructions"), str) \
            else None
        about = f"{name} through toolcat serve"
    else:
        from toolcat.version import __version__

        name, version, title = "toolcat-serve", __version__, None
        said = []
        for up in upstreams:
            hs = up.capture.handshake.result  # type: ignore[union-attr]
            text = hs.get("instructions")
            if isinstance(text, str) and text.strip():
                said.append(f"Tools {up.prefix}{SEPARATOR}*: {text.strip()}")
        instructions = "\n\n".join(said) or None
        about = ("the servers " + ", ".join(str(u.prefix) for u in upstreams)
                 + f" through toolcat serve (each tool named <server>{SEPARATOR}<tool>)")

    async def list_tools(ctx: Any, params: Any) -> dict:
        served.seen(ctx)
        view = served.view
        cursor = getattr(params, "cursor", None) if params is not None else None
        index = 0
        if served.defer is not None and served.defer.active:   # serve --defer: one page
            if cursor is not None:
                raise MCPError(types.INVALID_PARAMS, (
                    f"unknown cursor {printable(str(cursor), 60)!r} (the tool list is one "
                    "page: list again from the first page)"))
            return {"tools": served.listed(), "_meta": dict(VIEW_META["_meta"]),
                    **MODERN_LIST_DEFAULTS}
        if cursor is not None:
            index = view.page_of(str(cursor), served.generation)
            if index is None:
                raise MCPError(types.INVALID_PARAMS, (
                    f"unknown cursor {printable(str(cursor), 60)!r} (the tool list may have "
                    "changed since: list again from the first page)"))
        pages = view.pages()
        # the result's _meta says the list is a compact view, as `toolcat project --to mcp`
        # writes it (the mcp target's view_meta: a reader such as toolcat lint then knows the
        # prose went to the handbook)
        page: dict = {"tools": pages[index], "_meta": dict(VIEW_META["_meta"])}
        if index + 1 < len(pages):
            page["nextCursor"] = view.cursor(index + 1, served.generation)
        # resultType, ttlMs and cacheScope are the 2026-07-28 wire's (required there; a
        # legacy session's answer drops them): the SDK's own defaults
        return {**page, **MODERN_LIST_DEFAULTS}

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> dict:
        served.seen(ctx)
        view = served.view
        name = params.name
        raw = dict(ctx.params or {})
        raw.pop("_meta", None)        # the client's envelope is not the upstream's
        defer = served.defer
        if defer is not None and defer.active:
            if name == defer.search_name:
                result, changed = defer.search(view, params.arguments)
                if changed:
                    await served.tell()
                return {**result, **MODERN_DEFAULTS}
            if name == defer.call_name:   # a call by name: as if the tool were called
                target = defer.target(view, params.arguments)
                if isinstance(target, dict):
                    return {**target, **MODERN_DEFAULTS}
                name, args = target
                raw = {"name": name, "arguments": args}
            defer.used(name)
        if name == view.handbook_name:
            return {**view.handbook_result(raw.get("arguments")), **MODERN_DEFAULTS}
        if name in view.denied:       # --deny-poisoned
            from toolcat.features.serve.deny import refusal

            return {**refusal(name, view.denied[name]), **MODERN_DEFAULTS}
        route = view.routes.get(name)
        if route is None:
            if len(upstreams) == 1:   # the upstream's own answer to a name it does not have
                route = (0, name)
            else:
                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {printable(name, 130)}")
        if validate != "off" and name in view.routes:
            args = raw.get("arguments")
            # in a worker thread: a check (bounded) never holds up another request
            verdict = await anyio.to_thread.run_sync(
                view.check_arguments, name, {} if args is None else args, repair)
            tool = printable(name, 130)
            if verdict.repaired is not None:
                raw["arguments"] = verdict.repaired
                note(f"toolcat: {tool}: {', '.join(verdict.repairs)} came as JSON text where "
                     "its inputSchema wants an object or an array: forwarded parsed "
                     "(--no-repair-args: as sent)")
            if verdict.problem is not None:
                if validate == "strict":    # as the MCP SDKs' servers answer invalid arguments
                    return {"content": [{"type": "text", "text": verdict.problem}],
                            "isError": True, **MODERN_DEFAULTS}
                note(f"toolcat: {tool}: forwarded arguments its inputSchema refuses "
                     f"({verdict.where}): the server judges them (--validate strict: "
                     "refused)")
            elif verdict.unknown is not None:
                note(f"toolcat: {tool}: arguments not checked ({verdict.unknown}): forwarded")
        index, original = route
        raw["name"] = original
        # a legacy upstream's result has no resultType, which a 2026-07-28 client needs
        return {**MODERN_DEFAULTS, **await upstreams[index].call("tools/call", raw)}

    passing = pass_through(upstreams)
    # The handlers answer wire dicts (an upstream's result forwarded as it came, its extra
    # fields kept): the SDK's runner sends a dict as it is (mcp/server/runner.py,
    # _dump_result: "expected BaseModel, dict, or None"), but its handler types name only
    # the result models, so the two arguments are ignored for mypy's arg-type alone.
    server = Server(name, version=version, title=title,
                    description=f"{about} (the compact view of its tools; full descriptors "
                    f"from {served.view.handbook_name})",
                    instructions=instructions,
                    on_list_tools=list_tools,  # type: ignore[arg-type]  # (a dict: above)
                    on_call_tool=call_tool,  # type: ignore[arg-type]  # (a dict: above)
                    on_subscriptions_listen=ListenHandler(served.bus),
                    **passing)
    # a legacy session is told tools/list changed: say so in its handshake (every transport
    # asks the server for these options, the Streamable HTTP manager too)
    options = server.create_initialization_options
    server.create_initialization_options = (  # type: ignore[method-assign]
        lambda notification_options=None, *a, **k: options(
            notification_options or NotificationOptions(tools_changed=True), *a, **k))
    return server


#: What a list, read or get result needs on the 2026-07-28 wire that a legacy upstream's
#: lacks (the SDK's defaults; a legacy session's answer drops them again). Without them the
#: SDK server would take the result for another kind and drop its fields.
MODERN_LIST_DEFAULTS = {**MODERN_DEFAULTS, "ttlMs": 0, "cacheScope": "private"}


def capability(up: Upstream, name: str) -> bool:
    """Whether the upstream's handshake declares the capability ``name``."""
    assert up.capture is not None
    caps = up.capture.handshake.result.get("capabilities")
    return isinstance(caps, dict) and isinstance(caps.get(name), dict)


def pass_through(upstreams: list[Upstream]) -> dict[str, Any]:
    """The SDK server's handlers for resources and prompts, when an upstream has them: the
    requests are forwarded and the answers returned unchanged. One upstream: as they are
    (its cursors too). Several: each list is the upstreams' pages one after the other
    (toolcat's cursor names the upstream and its own cursor); prompts are named
    ``<server>__<prompt>`` as tools are; ``resources/read`` asks each upstream with resources
    in turn (URIs are not namespaced) and returns the first answer that is no error."""
    import json

    with_res = [u for u in upstreams if capability(u, "resources")]
    with_prompts = [u for u in upstreams if capability(u, "prompts")]
    single = len(upstreams) == 1
    handlers: dict[str, Any] = {}

    def raw_params(ctx: Any) -> dict:
        raw = dict(ctx.params or {})
        raw.pop("_meta", None)        # the client's envelope is not the upstream's
        return raw

    def lister(method: str, key: str, ups: list[Upstream], rename: bool) -> Any:
        async def handler(ctx: Any, params: Any) -> dict:
            raw = raw_params(ctx)
            if single:
                return {**MODERN_LIST_DEFAULTS, **await ups[0].call(method, raw)}
            index, cursor = 0, None
            if raw.get("cursor") is not None:
                try:
                    index, cursor = json.loads(str(raw["cursor"]))
                    assert isinstance(index, int) and 0 <= index < len(ups)
                except Exception:  # noqa: BLE001 - not one of toolcat's cursors
                    raise MCPError(types.INVALID_PARAMS, "unknown cursor "
                                   f"{printable(str(raw['cursor']), 60)!r}") from None
            up = ups[index]
            got = await up.call(method, {"cursor": cursor} if cursor is not None else {})
            items = list(got.get(key) or [])
            if rename:
                items = [{**it, "name": f"{up.prefix}{SEPARATOR}{it.get('name')}"}
                         if isinstance(it, dict) else it for it in items]
            page: dict = {key: items, **MODERN_LIST_DEFAULTS}
            nxt = got.get("nextCursor")
            if nxt is not None:
                page["nextCursor"] = json.dumps([index, nxt])
            elif index + 1 < len(ups):
                page["nextCursor"] = json.dumps([index + 1, None])
            return page
        return handler

    if with_res:
        handlers["on_list_resources"] = lister("resources/list", "resources", with_res, False)
        handlers["on_list_resource_templates"] = lister(
            "resources/templates/list", "resourceTemplates", with_res, False)

        async def read_resource(ctx: Any, params: Any) -> dict:
            raw = raw_params(ctx)
            first: MCPError | None = None
            for up in with_res:
                try:
                    return {**MODERN_LIST_DEFAULTS, **await up.call("resources/read", raw)}
                except MCPError as e:
                    first = first or e
                    if single:
                        raise
            assert first is not None
            raise first

        handlers["on_read_resource"] = read_resource
    if with_prompts:
        handlers["on_list_prompts"] = lister("prompts/list", "prompts", with_prompts,
                                             not single)

        async def get_prompt(ctx: Any, params: Any) -> dict:
            raw = raw_params(ctx)
            up = with_prompts[0]
            if not single:
                name = str(raw.get("name"))
                mine = [u for u in with_prompts
                        if name.startswith(f"{u.prefix}{SEPARATOR}")]
                if not mine:
                    raise MCPError(types.INVALID_PARAMS,
                                   f"Unknown prompt: {printable(name, 130)}")
                up = max(mine, key=lambda u: len(str(u.prefix)))
                raw["name"] = name[len(f"{up.prefix}{SEPARATOR}"):]
            return {**MODERN_LIST_DEFAULTS, **await up.call("prompts/get", raw)}

        handlers["on_get_prompt"] = get_prompt
    return handlers


async def serve_wire(upstreams: list[Upstream], make_view: Callable[[list], Any],
                     announce: Callable[[Any, str | None], None],
                     http: int | None = None,
                     warn: Callable[[str], None] = lambda line: None,
                     validate: str = "log", repair: bool = True,
                     note: Callable[[str], None] = lambda line: None,
                     defer: Any = None) -> Any:
    """Start the upstreams (at the same time), make the view, serve it until the client goes
    away (stdio: stdin closed; ``--http``: SIGTERM or Ctrl-C); the upstreams are ended on the
    way out. ``http`` is the port of the Streamable HTTP endpoint on 127.0.0.1 (0: any free
    port; the URL is announced). Returns the view (None when an upstream failed at start-up:
    its :attr:`Upstream.error` says why). When an upstream says its tools changed, it is
    listed again and the view made again (:class:`Served`). ``defer``: a
    :class:`toolcat.features.serve.defer.Deferral` (``serve --defer``) that says what is listed."""
    view = None
    for up in upstreams:
        up.in_loop()
    async with anyio.create_task_group() as tg:
        for up in upstreams:
            tg.start_soon(up.run)
        for up in upstreams:
            await up.ready.wait()
        try:
            if any(up.capture is None for up in upstreams):
                return None
            view = make_view(upstreams)
            served = Served(view, upstreams, make_view, warn)
            for up in upstreams:
                up.on_change = served.changed
                up.warn = warn
            server = build_server(served, upstreams, validate, repair, note)
            if defer is not None:
                served.defer = defer
                defer.rebuild(view)
            if http is None:
                from mcp.server.stdio import stdio_server

                announce(view, None)
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            else:
                await _serve_http(server, http, lambda url: announce(view, url))
        finally:
            for up in upstreams:
                up.stop.set()
    return view


#: Where ``--http`` serves (the SDK's default path of a Streamable HTTP endpoint).
HTTP_PATH = "/mcp"


def listen_socket(port: int) -> Any:
    """A listening TCP socket on 127.0.0.1:``port`` (0: any free port); an
    :class:`InputError` when the port cannot be had (in use, not allowed)."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except OSError as e:
        sock.close()
        raise InputError(f"--http {port}: cannot listen on 127.0.0.1:{port}: "
                         f"{e.strerror or e}", "toolcat serve") from None
    return sock


async def _serve_http(server: Server, port: int, announce: Callable[[str], None]) -> None:
    """Serve ``server`` over Streamable HTTP on 127.0.0.1 only (the SDK's app: its DNS
    rebinding protection admits only 127.0.0.1/localhost hosts and origins), until SIGTERM
    or Ctrl-C (uvicorn's handlers; re-raised after its graceful stop)."""
    import uvicorn

    sock = listen_socket(port)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host="127.0.0.1")
    config = uvicorn.Config(app, log_level="critical", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=2)
    web = uvicorn.Server(config)
    announce(f"http://127.0.0.1:{sock.getsockname()[1]}{HTTP_PATH}")
    try:
        await web.serve(sockets=[sock])
    finally:
        sock.close()


def transport_of(spec: ServerSpec) -> str:
    return "Streamable HTTP" if spec.transport == HTTP else "stdio"
