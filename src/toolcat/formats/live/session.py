"""The MCP client layer: one live connection to a server, through the official MCP SDK.

:class:`LiveSession` (an async context manager) connects to a :class:`ServerSpec` over stdio
(a process toolcat started, see :mod:`~toolcat.formats.live.procs`) or Streamable HTTP, lets
the SDK's :class:`mcp.client.Client` negotiate the protocol (``mode="auto"``: ``server/discover``,
falling back to ``initialize``), and offers:

* :meth:`LiveSession.list_tools` -- every ``nextCursor`` page of ``tools/list``, the tools
  *exactly as the server sent them* (raw JSON objects: a tool the SDK's models would reject
  or trim is kept, so lint reports it instead of a crash);
* :meth:`LiveSession.request` -- any request, raw result (for a proxy: ``toolcat serve``);
* the negotiated protocol version, the server's name/version, the raw handshake result.

Raw results come from a tap on the transport's streams (:class:`_Wire`): the responses to
the handshake and ``tools/list`` are recorded before the SDK's session sees them (the last of
each method; other results go to their caller only, so a long run keeps none of them).

Every failure becomes one :class:`~toolcat.errors.InputError` naming the server: the first
cause recorded wins (a server that wrote garbage to stdout, exited, or answered HTTP 401),
else the SDK's exception translated; the ``--timeout`` deadline covers start-up to the last
page. This module imports the SDK at import time: import it only on the live path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import anyio
import mcp_types as types
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from toolcat.errors import InputError
from toolcat.formats.arrays import meta_view
from toolcat.formats.live.procs import ServerProcess
from toolcat.formats.live.spec import HTTP, ServerSpec, printable, redact_url
from toolcat.version import __version__

#: Most pages of one tools/list walk (a server whose cursors never end is an error).
MAX_PAGES = 1000
#: Seconds a server has at least once the client runs, whatever its --timeout has left.
MIN_BUDGET = 0.5


def message_limits() -> Any:
    """The limits of one message from a server, stdio line or HTTP body (SSE: one event): the
    run's file limits (:class:`toolcat.document.parse.Limits`: 64 MiB, 256 levels of nesting;
    ``TOOLCAT_MAX_FILE_SIZE``, ``TOOLCAT_MAX_DEPTH``), so a server's tools/list is read as
    the same list in a file is, with the same messages."""
    from toolcat.document.parse import Limits

    return Limits.from_env()


def too_large(what: str, cap: int) -> str:
    size = f"{cap / 2**20:.0f} MiB" if cap >= 2**20 else f"{cap / 1024:.0f} KiB" \
        if cap >= 1024 else f"{cap} bytes"
    return (f"{what} larger than {size} (the size limit of one message, as of a file: "
            "TOOLCAT_MAX_FILE_SIZE)")


def parse_message(line: bytes, limits: Any) -> Any:
    """One JSON-RPC message from ``line``, or :class:`ValueError` saying what is wrong with it
    (the file reader's message where the JSON itself is wrong: too deep, invalid). Messages
    the SDK's own JSON parser refuses only for its nesting limit (about 200 levels) are read
    as files are, up to the run's depth limit."""
    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as e:
        first = e
    import json

    from toolcat.document.parse import parse_json
    from toolcat.errors import InputError as _Input

    try:
        text = line.decode("utf-8")
        parse_json(text, "", limits)           # the file reader's verdict on the JSON
        return types.jsonrpc_message_adapter.validate_python(json.loads(text), by_name=False)
    except UnicodeDecodeError:
        raise first from None
    except _Input as e:     # too deep for files too: the file's message; else not JSON-RPC
        if e.kind == "too-deep":
            raise _BadJSON(e.message) from None
        raise first from None
    except (ValueError, RecursionError):
        raise first from None


class _BadJSON(ValueError):
    """The JSON of a message is wrong as a file's would be (the file reader's message)."""

CLIENT_INFO = types.Implementation(name="toolcat", version=__version__)


def sdk_version() -> str:
    from importlib.metadata import version

    try:
        return version("mcp")
    except Exception:  # noqa: BLE001 - only for messages
        return "?"


# --------------------------------------------------------------------------- wire tap


@dataclass
class Exchange:
    method: str
    params: Any
    result: dict | None = None
    error: dict | None = None


def _non_finite(value: Any) -> tuple[str, str] | None:
    """The JSON pointer of the first float in ``value`` that is NaN or infinite, and which
    (None: there is none). Iterative: the depth is what the parser allowed."""
    import math

    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        v, at = stack.pop()
        if isinstance(v, float):
            if math.isnan(v):
                return at, "NaN"
            if math.isinf(v):
                return at, "an infinite number (Infinity, or one beyond a double's range: 1e400)"
        elif isinstance(v, dict):
            stack.extend((x, f"{at}/{str(k).replace('~', '~0').replace('/', '~1')}")
                         for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((x, f"{at}/{i}") for i, x in reversed(list(enumerate(v))))
    return None


#: The methods whose raw answers are read back from the tap (:meth:`_Wire.last`): the
#: handshake and tools/list. Only the last answer of each is kept, and nothing of any other
#: method: a long ``toolcat serve`` run forwards calls without keeping their results.
TAPPED = frozenset({"initialize", "server/discover", "tools/list"})


class _Wire:
    """State shared by the transport tasks and the session of one server: the tap of the
    last request/response pair of each method in :data:`TAPPED`, the first failure seen, and
    the cancel scope failures cancel."""

    def __init__(self, spec: ServerSpec, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout
        self.error: InputError | None = None
        self.scope = anyio.CancelScope()
        self.pending: dict[Any, tuple[str, Any]] = {}     # id -> a TAPPED request
        self.exchanges: dict[str, Exchange] = {}          # a TAPPED method -> its last
        self.phase = "start-up"
        self.done = False              # the caller finished: EOF/exit is no failure now
        self.http_status: tuple[int, str, str] | None = None   # last (status, type, reason)
        self.transport_exc: BaseException | None = None
        self.log_path: str | None = None
        self.log_bytes = 0

    def fail(self, message: str) -> None:
        if self.error is None and not self.done:
            self.error = InputError(message + self.log_hint(), self.spec.label)
        self.scope.cancel()

    def log_hint(self) -> str:
        if self.log_path and self.log_bytes:
            return f"; its stderr is in {self.log_path}"
        return ""

    def record_out(self, msg: Any) -> None:
        if isinstance(msg, types.JSONRPCRequest) and msg.method in TAPPED:
            self.pending[msg.id] = (msg.method, msg.params)

    def record_in(self, msg: Any) -> None:
        if isinstance(msg, (types.JSONRPCResponse, types.JSONRPCError)) and \
                msg.id not in self.pending:
            return          # not a TAPPED request's answer: not kept
        if isinstance(msg, types.JSONRPCResponse):
            method, params = self.pending.pop(msg.id)
            if method == "tools/list":
                bad = _non_finite(msg.result)
                if bad is not None:
                    # the SDK's parser reads NaN, Infinity and 1e400 as floats JSON has no
                    # value for (written back they become null: a schema silently changed);
                    # a file holding them is invalid JSON, and so is this page
                    self.fail(f"its {self.phase} result holds {bad[1]} at {bad[0] or '/'}, "
                              "which is not a JSON number (invalid JSON)")
                    return
            self.exchanges[method] = Exchange(method, params, result=msg.result)
        elif isinstance(msg, types.JSONRPCError) and msg.id is not None:
            method, params = self.pending.pop(msg.id)
            self.exchanges[method] = Exchange(method, params,
                                              error=msg.error.model_dump(mode="json"))

    def last(self, method: str) -> Exchange | None:
        """The last answer of ``method`` (one of :data:`TAPPED`)."""
        return self.exchanges.get(method)


# --------------------------------------------------------------------------- stdio transport


@asynccontextmanager
async def _stdio(proc: ServerProcess, wire: _Wire, on_stderr: Callable[[bytes], None]
                 ) -> AsyncIterator[tuple[Any, Any]]:
    """Streams to and from a started server process (newline-delimited JSON-RPC)."""
    loop = asyncio.get_running_loop()
    popen = proc.popen
    limits = message_limits()
    out_reader = asyncio.StreamReader(limit=limits.max_file_size)
    err_reader = asyncio.StreamReader(limit=limits.max_file_size)
    out_t, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(out_reader),
                                            popen.stdout)
    err_t, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(err_reader),
                                            popen.stderr)
    in_t, in_p = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, popen.stdin)
    writer = asyncio.StreamWriter(in_t, in_p, None, loop)
    proc.loop_owned = True     # the pipes are closed through these transports only

    to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdout() -> None:
        lineno = 0
        async with to_session:
            while True:
                try:
                    line = await out_reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    wire.fail(too_large("wrote a line to stdout", limits.max_file_size))
                    return
                if not line:
                    # Judged before the session's stream closes: the session would otherwise
                    # see "connection closed" first and the exit status would be lost.
                    if not wire.done:
                        code = await _exit_code(popen, 0.5)
                        how = (f"exited with status {code}" if code is not None and code >= 0
                               else f"was killed by signal {-code}" if code is not None
                               else "closed its stdout")
                        wire.fail(f"{how} before answering {wire.phase}")
                    return
                lineno += 1
                if not line.strip():
                    continue
                try:
                    msg = parse_message(line, limits)
                except _BadJSON as e:
                    wire.fail(f"line {lineno} on stdout: {e}")
                    return
                except ValueError:
                    text = line.decode("utf-8", "replace").strip()
                    wire.fail(f"wrote something that is not JSON-RPC to stdout (line {lineno}: "
                              f"{printable(text, 80)!r}); an MCP server writes only JSON-RPC "
                              "messages on stdout (logs go to stderr)")
                    return
                wire.record_in(msg)
                try:
                    await to_session.send(SessionMessage(msg))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        try:
            while True:
                chunk = await err_reader.read(65536)
                if not chunk:
                    return
                on_stderr(chunk)
        finally:
            stderr_done.set()

    async def write_stdin() -> None:
        async with from_session:
            async for sm in from_session:
                wire.record_out(sm.message)
                data = sm.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                try:
                    writer.write(data.encode("utf-8"))
                    await writer.drain()
                except (BrokenPipeError, ConnectionResetError, RuntimeError):
                    return   # the server is gone: read_stdout reports how

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            tg.start_soon(write_stdin)
            try:
                yield session_reads, session_writes
            finally:
                with anyio.CancelScope(shield=True):
                    # stdin's EOF (the MCP shutdown) through its transport, which closes it
                    with contextlib.suppress(Exception):
                        in_t.close()
                    await anyio.sleep(0)
                    await proc.stop(graceful=wire.error is None and not wire.scope.cancel_called)
                    # what the server wrote on stderr until it ended: read_stderr reads it
                    # (a second reader here raced it: asyncio refuses two waiting reads)
                    with anyio.move_on_after(0.2):
                        await stderr_done.wait()
                tg.cancel_scope.cancel()
    finally:
        for t in (out_t, err_t, in_t):
            with contextlib.suppress(Exception):
                t.close()
        proc.loop_owned = False   # close() stopped the loop watching them: safe to close now


async def _exit_code(popen: Any, wait: float) -> int | None:
    deadline = time.monotonic() + wait
    while popen.poll() is None and time.monotonic() < deadline:
        await anyio.sleep(0.01)
    return popen.poll()


# --------------------------------------------------------------------------- HTTP transport


@asynccontextmanager
async def _http(spec: ServerSpec, wire: _Wire) -> AsyncIterator[tuple[Any, Any]]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def on_response(response: Any) -> None:
        wire.http_status = (response.status_code,
                            response.headers.get("content-type", "").split(";")[0].strip().lower(),
                            response.reason_phrase or "")

    timeout = httpx2.Timeout(wire.timeout)
    cap = message_limits().max_file_size
    # trust_env=False: no proxy or .netrc credentials from the environment (toolcat sends
    # only what the user gave it: the URL and the --header values).
    client = httpx2.AsyncClient(headers=spec.headers, timeout=timeout, trust_env=False,
                                event_hooks={"response": [on_response]},
                                transport=_capped_transport(httpx2, cap, wire))
    async with client:
        async with streamable_http_client(spec.url or "", http_client=client) as (read, write):
            async with _tap(read, write, wire) as streams:
                yield streams


def _capped_transport(httpx2: Any, cap: int, wire: _Wire) -> Any:
    """httpx's transport with the size limit of one message on every response body (an SSE
    stream: on each event, between blank lines), as stdio lines have: past it the server
    fails with one line and the body is not read further (a 300 MB answer took 1.9 GB)."""

    class Capped(httpx2.AsyncByteStream):
        def __init__(self, inner: Any, sse: bool) -> None:
            self.inner, self.sse = inner, sse

        async def __aiter__(self) -> AsyncIterator[bytes]:
            n, tail = 0, b""
            async for chunk in self.inner:
                if self.sse:
                    seen = tail + chunk
                    ends = [seen.rfind(b) for b in (b"\n\n", b"\r\n\r\n", b"\r\r")]
                    at = max(ends)
                    if at >= 0:
                        n = len(seen) - at
                    else:
                        n += len(chunk)
                    tail = seen[-3:]
                else:
                    n += len(chunk)
                if n > cap:
                    wire.fail(too_large("sent an HTTP body" if not self.sse
                                        else "sent an SSE event", cap))
                    raise httpx2.StreamError("the body is larger than toolcat's limit")
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Transport(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx2.AsyncHTTPTransport(trust_env=False)

        async def handle_async_request(self, request: Any) -> Any:
            resp = await self.inner.handle_async_request(request)
            sse = resp.headers.get("content-type", "").lower().startswith("text/event-stream")
            length = resp.headers.get("content-length", "")
            if not sse and length.isdigit() and int(length) > cap:
                await resp.aclose()
                wire.fail(too_large("sent an HTTP body", cap))
                raise httpx2.StreamError("the body is larger than toolcat's limit")
            return httpx2.Response(resp.status_code, headers=resp.headers,
                                   stream=Capped(resp.stream, sse),
                                   extensions=resp.extensions, request=request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    return Transport()


@asynccontextmanager
async def _tap(read: Any, write: Any, wire: _Wire) -> AsyncIterator[tuple[Any, Any]]:
    """Streams between a transport and the session that record the tapped exchanges."""
    to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](16)

    async def pump_in() -> None:
        async with to_session:
            async for item in read:
                if isinstance(item, Exception):
                    wire.transport_exc = item
                else:
                    wire.record_in(item.message)
                try:
                    await to_session.send(item)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async def pump_out() -> None:
        async with from_session:
            async for sm in from_session:
                wire.record_out(sm.message)
                try:
                    await write.send(sm)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_in)
        tg.start_soon(pump_out)
        try:
            yield session_reads, session_writes
        finally:
            tg.cancel_scope.cancel()


# --------------------------------------------------------------------------- session


@dataclass
class ToolList:
    tools: list
    pages: int
    sizes: list[int] = field(default_factory=list)    # tools on each page, in order
    view: str | None = None   # the view the first page's _meta declares (toolcat serve's)


@dataclass
class Handshake:
    method: str                     # "initialize" or "server/discover"
    protocol_version: str
    server_info: dict | None
    result: dict                    # the raw result


class LiveSession:
    """One connection to a live MCP server (see the module docstring)."""

    def __init__(self, spec: ServerSpec, wire: _Wire, proc: ServerProcess | None = None,
                 on_stderr: Callable[[bytes], None] | None = None,
                 message_handler: Callable | None = None) -> None:
        self.spec = spec
        self.wire = wire
        self.proc = proc
        self._on_stderr = on_stderr or (lambda b: None)
        self._message_handler = message_handler
        self._client: Client | None = None
        self.handshake: Handshake | None = None

    async def __aenter__(self) -> "LiveSession":
        if self.spec.transport == HTTP:
            transport = _http(self.spec, self.wire)
        else:
            assert self.proc is not None
            transport = _stdio(self.proc, self.wire, self._on_stderr)
        self._client = Client(transport, mode="auto", cache=None, client_info=CLIENT_INFO,
                              message_handler=self._message_handler)
        self.wire.phase = "the handshake (server/discover, initialize)"
        await self._client.__aenter__()
        session = self._client.session
        method = "initialize" if session.initialize_result is not None else "server/discover"
        ex = self.wire.last(method)
        info = self._client.server_info
        self.handshake = Handshake(
            method=method, protocol_version=self._client.protocol_version,
            server_info=info.model_dump(by_alias=True, mode="json", exclude_none=True)
            if info is not None else None,
            result=dict(ex.result) if ex is not None and ex.result is not None else {})
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.wire.done = True
        if self._client is not None:
            await self._client.__aexit__(*exc)

    @property
    def client(self) -> Client:
        assert self._client is not None
        return self._client

    async def request(self, method: str, params: dict | None = None) -> dict:
        """Send any request; its result as JSON data, every field the server sent (as JSON
        values; key order aside). Safe with several requests in flight (``toolcat serve``
        forwards calls concurrently): the result is this request's own, never read back from
        the wire tap. An MCP error is raised as ``MCPError`` (code, message and data as the
        server sent them); a result the negotiated protocol revision does not allow as
        ``MCPError`` ``-32603`` saying so."""
        req = types.Request[dict[str, Any] | None, str](method=method, params=params)
        try:
            got = await self.client.session.send_request(req, _AnyResult)
        except ValidationError as e:
            raise MCPError(types.INTERNAL_ERROR, f"{self.spec.label} answered {method} with a "
                           "result the MCP protocol does not allow (" + printable(
                               _first_error(e), 160) + ")") from None
        return got.model_dump(by_alias=True, mode="json", exclude_unset=True)

    async def list_tools(self) -> ToolList:
        """Every page of ``tools/list``, the tools as sent (raw), in order."""
        tools: list = []
        sizes: list[int] = []
        cursor: str | None = None
        seen: set[str] = set()
        pages = 0
        while True:
            pages += 1
            self.wire.phase = "tools/list" if pages == 1 else f"tools/list (page {pages})"
            try:
                await self.client.list_tools(cursor=cursor, cache_mode="bypass")
            except ValidationError:
                pass   # tools the SDK's models reject: kept raw, lint reports them
            ex = self.wire.last("tools/list")
            if ex is None or ex.result is None:
                raise InputError(f"no result recorded for {self.wire.phase}", self.spec.label)
            page = ex.result.get("tools")
            if not isinstance(page, list):
                raise InputError(f"the {self.wire.phase} result has no 'tools' array",
                                 self.spec.label)
            tools.extend(page)
            sizes.append(len(page))
            if pages == 1:
                view = meta_view(ex.result)
            nxt = ex.result.get("nextCursor")
            if nxt is None:
                return ToolList(tools, pages, sizes, view)
            if not isinstance(nxt, str):
                raise InputError(f"{self.wire.phase}: nextCursor is a {type(nxt).__name__}, "
                                 "not a string", self.spec.label)
            if nxt in seen:
                raise InputError(f"{self.wire.phase}: nextCursor {printable(nxt, 40)!r} was "
                                 "already given (the pages never end)", self.spec.label)
            if pages >= MAX_PAGES:
                raise InputError(f"tools/list has more than {MAX_PAGES} pages", self.spec.label)
            seen.add(nxt)
            cursor = nxt


class _AnyResult(types.Result):
    model_config = {"extra": "allow"}


# --------------------------------------------------------------------------- capture


@dataclass
class Capture:
    """What one server answered."""

    spec: ServerSpec
    tools: list
    pages: int
    handshake: Handshake
    captured_at: str
    timings: dict = field(default_factory=dict)   # seconds: ready, tools, total, stop
    log_path: str | None = None
    view: str | None = None   # the view the tools/list result declares (ToolList.view)


def _utc_now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class _StderrSink:
    """The server's stderr: to its log file, and to toolcat's stderr with ``-v``."""

    def __init__(self, spec: ServerSpec, wire: _Wire, log_dir: str | None, verbose: bool) -> None:
        self.spec = spec
        self.wire = wire
        self.verbose = verbose
        self.file = None
        self.partial = b""
        if log_dir:
            from toolcat.formats.live import logs

            try:   # a new file of this run, never through a link (closed in close())
                self.file, wire.log_path = logs.open_log(log_dir, spec.label)
            except OSError:
                self.file = None

    def __call__(self, chunk: bytes) -> None:
        self.wire.log_bytes += len(chunk)
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.write(chunk)
                self.file.flush()
        if self.verbose:
            data = self.partial + chunk
            *lines, self.partial = data.split(b"\n")
            for line in lines:
                self._show(line)

    def _show(self, line: bytes) -> None:
        text = printable(line.decode("utf-8", "replace").rstrip("\r"), 2000)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"[{self.spec.label}] {text}\n")
            sys.stderr.flush()

    def close(self) -> None:
        if self.verbose and self.partial:
            self._show(self.partial)
            self.partial = b""
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.close()


async def capture_one(spec: ServerSpec, proc: ServerProcess | None, timeout: float,
                      log_dir: str | None = None, verbose: bool = False,
                      started: float | None = None) -> Capture:
    """Connect, handshake, every tools/list page, disconnect; raises :class:`InputError`."""
    t0 = started if started is not None else time.perf_counter()
    wire = _Wire(spec, timeout)
    sink = _StderrSink(spec, wire, log_dir if proc is not None else None, verbose)
    # The deadline counts from the server's start (toolcat's own SDK import included), and
    # leaves at least MIN_BUDGET once the client runs (an already slow import is not the
    # server's fault; a server that exited meanwhile is still reported as having exited).
    remaining = max(MIN_BUDGET, timeout - (time.perf_counter() - t0))
    wire.scope.deadline = anyio.current_time() + remaining
    result: tuple[ToolList, Handshake, float, float] | None = None
    exc: BaseException | None = None
    t_stop = None
    try:
        with wire.scope:
            session = LiveSession(spec, wire, proc, on_stderr=sink)
            try:
                async with session:
                    t_ready = time.perf_counter()
                    tools = await session.list_tools()
                    t_tools = time.perf_counter()
                    assert session.handshake is not None
                    result = (tools, session.handshake, t_ready, t_tools)
                    t_stop = time.perf_counter()
            except InputError as e:
                if wire.error is None:
                    wire.error = e
                    wire.scope.cancel()
    except Exception as e:  # noqa: BLE001 - translated below; never a traceback
        exc = e
        mine = [x for x in _leaves(e) if isinstance(x, InputError)]
        if mine and wire.error is None:
            wire.error = mine[0]     # raised by list_tools, wrapped by a task group
    finally:
        sink.close()
    if wire.error is not None:
        raise wire.error
    if result is None:
        if wire.scope.cancel_called:      # only the deadline cancels without an error
            raise InputError(_timeout_message(wire), spec.label)
        raise InputError(_translate(exc, wire), spec.label)
    tools, hs, t_ready, t_tools = result
    t_end = time.perf_counter()
    timings = {"ready": t_ready - t0, "tools": t_tools - t_ready, "total": t_tools - t0,
               "stop": t_end - (t_stop or t_tools)}
    return Capture(spec=spec, tools=tools.tools, pages=tools.pages, handshake=hs,
                   captured_at=_utc_now(), timings=timings, log_path=wire.log_path,
                   view=tools.view)


def _timeout_message(wire: _Wire) -> str:
    what = "start up or answer" if wire.phase.startswith("start") else f"answer {wire.phase}"
    ended = "; its process group was ended" if wire.spec.transport != HTTP else ""
    return (f"did not {what} within {wire.timeout:g} s (--timeout){ended}{wire.log_hint()}")


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for e in exc.exceptions:
            out.extend(_leaves(e))
        return out
    return [exc]


def _translate(exc: BaseException | None, wire: _Wire) -> str:
    """One line for an exception out of the SDK (no failure was recorded first)."""
    if exc is None:
        return f"no answer to {wire.phase}"
    leaves = _leaves(exc)
    http = wire.spec.transport == HTTP
    url = redact_url(wire.spec.url or "") if http else ""
    if http:
        import httpx2

        for e in leaves:
            if isinstance(e, httpx2.TimeoutException):
                return _timeout_message(wire)
            if isinstance(e, httpx2.ConnectError):
                why = printable(str(e) or type(e).__name__, 160)
                if "refused" in why.lower() or _caused_by(e, ConnectionRefusedError):
                    why = "connection refused (is the server running?)"
                return f"cannot connect to {url}: {why}"
            if isinstance(e, httpx2.TransportError):
                return f"{url}: {printable(str(e) or type(e).__name__, 160)}"
        status = wire.http_status
        if status is not None:
            code, ctype, reason = status
            if code in (401, 403):
                return (f"{url} answered HTTP {code} {reason} to {wire.phase}: the server wants "
                        "credentials (give them with --header 'Authorization: ...')")
            if code >= 400:
                return f"{url} answered HTTP {code} {reason} to {wire.phase}"
            if ctype and ctype not in ("application/json", "text/event-stream"):
                what = "an HTML page" if ctype == "text/html" else f"{ctype}"
                return (f"{url} answered {wire.phase} with {what}, not MCP (is this the server's "
                        "MCP endpoint? it is often .../mcp)")
    for e in leaves:
        if isinstance(e, MCPError):
            if e.code == types.CONNECTION_CLOSED:
                return f"closed the connection before answering {wire.phase}"
            return (f"answered {wire.phase} with error {e.code}: "
                    f"{printable(e.message or '', 200)}")
        if isinstance(e, RuntimeError) and "protocol version" in str(e):
            return (f"{printable(str(e), 200)} (the MCP SDK here is mcp {sdk_version()})")
        if isinstance(e, ValidationError):
            return (f"answered {wire.phase} with a result the MCP protocol does not allow "
                    f"({e.error_count()} problem(s), first: "
                    f"{printable(_first_error(e), 160)})")
    first = leaves[0] if leaves else exc
    return f"{wire.phase} failed: {type(first).__name__}: {printable(str(first), 200)}"


def _caused_by(exc: BaseException, kind: type) -> bool:
    seen = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, kind):
            return True
        if isinstance(cur, BaseExceptionGroup) and any(_caused_by(x, kind)
                                                       for x in cur.exceptions):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _first_error(e: ValidationError) -> str:
    errs = e.errors()
    if not errs:
        return str(e)
    err = errs[0]
    loc = "/".join(str(x) for x in err.get("loc", ()))
    return f"{loc}: {err.get('msg', '')}" if loc else str(err.get("msg", ""))


def quiet_sdk_logging(verbose: bool) -> None:
    """The SDK and httpx log through ``logging``; never onto toolcat's output unasked."""
    # asyncio too: "Fatal read error on pipe transport" when a server's pipe closes while
    # its reader is being torn down is noise, not an outcome (the server's error is reported)
    for name in ("mcp", "httpx2", "httpx", "httpcore", "mcp_types", "asyncio", "anyio"):
        lg = logging.getLogger(name)
        lg.propagate = False
        if not any(isinstance(h, logging.NullHandler) for h in lg.handlers):
            lg.addHandler(logging.NullHandler())
        lg.setLevel(logging.CRITICAL + 1 if not verbose else logging.WARNING)


# The pieces a long-lived connection builds on (toolcat serve keeps one open for its whole run:
# toolcat.features.serve.proxy.Upstream), under public names.
Wire = _Wire
StderrSink = _StderrSink
leaves = _leaves
timeout_message = _timeout_message
translate = _translate
utc_now = _utc_now
