"""MCP ``tools/list``: ``{"tools": [...]}``, a JSON-RPC response, a bare array of MCP tools,
or one tool per file (a folder of them is one catalog)."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.model import MCP, Catalog, Tool

_MCP_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def mcp_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    return Tool(
        id=name if isinstance(name, str) else None,
        title=str_or_none(item.get("title")),
        description=str_or_none(item.get("description")),
        input_schema=item.get("inputSchema"),
        output_schema=item.get("outputSchema"),
        annotations=item.get("annotations") if isinstance(item.get("annotations"), dict) else None,
        extra={k: v for k, v in item.items() if k not in _MCP_FIELDS},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer)],
    )


def load_mcp(doc: Any, path: str) -> Catalog:
    if isinstance(doc, dict) and "name" in doc and "tools" not in doc and "result" not in doc:
        # one tool per file (e.g. github-mcp-server's __toolsnaps__)
        cat = Catalog(file=path, format=MCP, document=doc, meta={"envelope": "tool"})
        cat.tools.append(mcp_tool(doc, path, ""))
        return cat
    tools, base = tool_list(doc, path)
    envelope = {"": "array", "/tools": "tools", "/result/tools": "jsonrpc"}[base]
    cat = Catalog(file=path, format=MCP, document=doc, view=view_from_name(path),
                  meta={"envelope": envelope})
    for i, item in enumerate(tools):
        cat.tools.append(mcp_tool(item, path, f"{base}/{i}"))
    return cat


def folder_catalog(path: str, parts: list[tuple[str, Any, Any]]) -> Catalog:
    """One catalog from a folder of one-tool MCP files: ``parts`` is (file, doc, source)."""
    cat = Catalog(file=path, format=MCP, meta={"envelope": "folder"})
    for file, doc, src in parts:
        cat.tools.append(mcp_tool(doc, file, ""))
        cat.sources[file] = src
    return cat
