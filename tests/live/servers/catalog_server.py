"""A test MCP server built on the MCP Python SDK's server API (``mcp.server.Server``).

Serves 7 tools over 3 ``tools/list`` pages (3 + 3 + 1, opaque cursors), with titles, output
schemas, annotations and a ``$defs``/``$ref`` schema; ``tools/call`` answers ``echo``/``add``
(and never answers a call of ``hang``, a tool it does not list).
Over stdio by default, or Streamable HTTP on 127.0.0.1 (``--http``, port 0 = any free port,
written to ``--port-file`` or ``$TOOLCAT_PORT_FILE``).

``--mode`` makes it misbehave in each way toolcat must survive:

``ok``           behave
``exit``         exit (status 3) before answering anything
``garbage``      write a line that is not JSON (a log line) to stdout, then serve
``not-jsonrpc``  write a JSON object that is not JSON-RPC to stdout, then serve
``hang``         never answer; ignore SIGTERM; leave a child process in its group
``tools-error``  answer the handshake, fail tools/list with a JSON-RPC error
``hang-page2``   answer page 1 of tools/list, never page 2
``loop``         nextCursor never ends (always the same cursor)
``single``       every tool on one page

HTTP only: ``--token T`` answers 401 unless ``Authorization: Bearer T``; the app also serves
``/html`` (an HTML page) and ``/slow`` (accepts, never answers).
"""

from __future__ import annotations

import os
import time

if os.environ.get("CATALOG_SERVER_STARTED"):
    # when the process started (before the SDK's imports), for tests that bound a run's time
    with open(os.environ["CATALOG_SERVER_STARTED"], "a") as _f:
        _f.write(f"{time.time()}\n")

import argparse  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

SCHEMA_TIME = {"type": "object", "properties": {
    "timezone": {"type": "string", "description": "IANA time zone name, e.g. Europe/Paris"}},
    "required": ["timezone"], "additionalProperties": False}


def _tools() -> list[types.Tool]:
    ro = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return [
        types.Tool(name="echo", title="Echo", description="Return the message unchanged.",
                   input_schema={"type": "object", "properties": {
                       "message": {"type": "string", "description": "Text to return"}},
                       "required": ["message"]},
                   output_schema={"type": "object", "properties": {"message": {"type": "string"}},
                                  "required": ["message"]},
                   annotations=ro),
        types.Tool(name="add", description="Add two integers.",
                   input_schema={"type": "object", "properties": {
                       "a": {"type": "integer"}, "b": {"type": "integer"}},
                       "required": ["a", "b"]},
                   output_schema={"type": "object", "properties": {"sum": {"type": "integer"}}},
                   annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True)),
        types.Tool(name="get_time", title="Current time", description="The time in a zone.",
                   input_schema=SCHEMA_TIME,
                   output_schema={"type": "object", "properties": {
                       "iso": {"type": "string", "format": "date-time"}}},
                   annotations=ro),
        types.Tool(name="create_ticket", description="Open a ticket in the tracker.",
                   input_schema={"type": "object", "$defs": {"label": {
                       "type": "string", "enum": ["bug", "feature", "question"]}},
                       "properties": {"title": {"type": "string", "minLength": 1},
                                      "labels": {"type": "array",
                                                 "items": {"$ref": "#/$defs/label"}},
                                      "priority": {"type": "integer", "minimum": 1,
                                                   "maximum": 5, "default": 3}},
                       "required": ["title"]},
                   annotations=types.ToolAnnotations(destructive_hint=False,
                                                     open_world_hint=True)),
        types.Tool(name="delete_ticket", description="Delete a ticket for good.",
                   input_schema={"type": "object", "properties": {"id": {"type": "integer"}},
                                 "required": ["id"]},
                   annotations=types.ToolAnnotations(destructive_hint=True)),
        types.Tool(name="search", description="Search tickets. Ünïcödé ☃ in a description.",
                   input_schema={"type": "object", "properties": {
                       "q": {"type": "string"}, "limit": {"type": "number", "default": 2.5}}},
                   output_schema={"type": "object", "properties": {
                       "hits": {"type": "array", "items": {"type": "object"}}}},
                   annotations=ro),
        types.Tool(name="noop", input_schema={"type": "object"}),
    ]


PAGES = {None: (0, 3, "page-2"), "page-2": (3, 6, "page-3"), "page-3": (6, 7, None)}


def build(mode: str) -> Server:
    tools = _tools()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        cursor = params.cursor if params else None
        if mode == "tools-error":
            raise MCPError(-32603, "the tool registry is unavailable")
        if mode == "single":
            return types.ListToolsResult(tools=tools)
        if mode == "loop":
            return types.ListToolsResult(tools=tools[:1], next_cursor="again")
        if cursor not in PAGES:
            raise MCPError(-32602, f"unknown cursor {cursor!r}")
        if mode == "hang-page2" and cursor == "page-2":
            await anyio.sleep_forever()
        lo, hi, nxt = PAGES[cursor]
        return types.ListToolsResult(tools=tools[lo:hi], next_cursor=nxt)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        if params.name == "echo":
            out = {"message": args.get("message", "")}
        elif params.name == "add":
            out = {"sum": int(args.get("a", 0)) + int(args.get("b", 0))}
        elif params.name == "hang":       # not listed: a call that never ends (toolcat serve)
            await anyio.sleep_forever()
        else:
            return types.CallToolResult(content=[types.TextContent(type="text", text="no")],
                                        is_error=True)
        import json

        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(out))],
                                    structured_content=out)

    return Server("catalog-server", version="1.0.0", instructions="A test server for toolcat.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_http(server: Server, port: int, port_file: str | None, token: str | None) -> None:
    import uvicorn
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    async def html(request: Any) -> HTMLResponse:
        return HTMLResponse("<!doctype html><html><body><h1>Welcome</h1></body></html>")

    async def slow(request: Any) -> HTMLResponse:
        await anyio.sleep_forever()
        return HTMLResponse("")  # pragma: no cover

    app = server.streamable_http_app(custom_starlette_routes=[
        Route("/html", html, methods=["GET", "POST"]),
        Route("/slow", slow, methods=["GET", "POST"])])

    if token:
        inner = app

        async def app(scope: Any, receive: Any, send: Any) -> None:  # type: ignore[no-redef]
            if scope["type"] == "http" and scope["path"].startswith("/mcp"):
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization") != f"Bearer {token}".encode():
                    resp = JSONResponse({"error": "unauthorized"}, status_code=401,
                                        headers={"WWW-Authenticate": "Bearer"})
                    await resp(scope, receive, send)
                    return
            await inner(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    port_file = port_file or os.environ.get("TOOLCAT_PORT_FILE")
    if port_file:
        tmp = port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(sock.getsockname()[1]))
        os.replace(tmp, port_file)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="ok")
    ap.add_argument("--http", type=int, default=None, metavar="PORT")
    ap.add_argument("--port-file")
    ap.add_argument("--token")
    a = ap.parse_args()
    mode = a.mode
    sys.stderr.write(f"catalog_server: mode {mode}\n")
    sys.stderr.flush()
    if mode == "slow-start":   # a cold start: uvx downloading and installing first
        time.sleep(12.5)
    if mode == "daemon":   # a daemonised grandchild (fork, setsid, fork), as some servers start
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    os.close(fd)
                time.sleep(600)
            os._exit(0)
        os.wait()
    if mode == "exit":
        sys.stderr.write("catalog_server: exiting before answering, on purpose\n")
        sys.exit(3)
    if mode == "garbage":
        sys.stdout.write("catalog_server starting up (a log line on stdout)\n")
        sys.stdout.flush()
    if mode == "not-jsonrpc":
        sys.stdout.write('{"hello": "world"}\n')
        sys.stdout.flush()
    if mode == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # a child in the same process group, as npx leaves node behind
        subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(1)"])
        while True:
            if not sys.stdin.buffer.readline():
                signal.pause()   # stdin closed: still never exits on its own
    server = build(mode)
    if a.http is not None:
        serve_http(server, a.http, a.port_file, a.token)
    else:
        anyio.run(serve_stdio, server)


if __name__ == "__main__":
    main()
