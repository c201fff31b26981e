"""A test MCP server built on the MCP Python SDK's server API (``mcp.server.Server``) that
lists the tools of a catalog file as they are (a tools array, ``{"tools": [...]}``, or a
capture: real servers' schemas, ``$ref``, draft-07 ``$schema``, root unions, long names)
and answers every ``tools/call`` with what it was called with: a text content holding
``{"name": ..., "arguments": ...}`` as JSON (so a test sees the name and the arguments a
proxy forwarded). Over stdio.

Usage: ``echo_server.py FILE [--only NAME ...]`` (``--only``: list just these tools).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server


def tools_of(path: str, only: list[str] | None) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, dict):
        doc = doc.get("rawToolsCapture") or doc.get("tools") or []
    out = [t for t in doc if isinstance(t, dict) and isinstance(t.get("name"), str)]
    return [t for t in out if not only or t["name"] in only]


def build(tools: list[dict]) -> Server:
    listed = [types.Tool.model_validate(
        {k: v for k, v in t.items() if k in ("name", "title", "description", "inputSchema",
                                             "outputSchema", "annotations")})
        for t in tools]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        said = json.dumps({"name": params.name, "arguments": params.arguments},
                          sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=said)])

    return Server("echo-server", version="1.0.0", on_list_tools=list_tools,
                  on_call_tool=call_tool)


async def main(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    anyio.run(main, build(tools_of(a.file, a.only)))
