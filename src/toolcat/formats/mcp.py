"""MCP ``tools/list``: ``{"tools": [...]}``, a JSON-RPC response, a bare array of MCP tools,
or one tool per file (a folder of them is one catalog)."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import (
    VIEW_META_KEY,
    declared_view,
    not_an_object,
    str_or_none,
    tool_list,
)
from toolcat.formats.targets import Target, put
from toolcat.model import MCP, MCP_CAPTURE, Catalog, Tool

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
    result = doc.get("result") if base == "/result/tools" else doc
    cat = Catalog(file=path, format=MCP, document=doc, view=declared_view(result, path),
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


#: the MCP annotation hints whose value here is the specification's default
MCP_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                     "openWorldHint": True}


class McpTarget(Target):
    """``{"tools": [Tool]}``: name, title, description, inputSchema, outputSchema, annotations.
    Titles are UI labels (the model reads name and description)."""

    name = "mcp"
    enveloped = True
    native_formats = (MCP, MCP_CAPTURE)
    schema_keys = ("inputSchema", "outputSchema")
    compact_fields = ("name", "title", "description", "inputSchema", "outputSchema",
                      "annotations")
    standard_output_schema = True
    compact_output_schema = True
    annotations = True
    title = "own"
    ui_titles = True
    drops_repeated_description = True
    requires_input_schema = True
    # the MCP TypeScript SDK's ToolSchema (1.x): inputSchema and outputSchema are objects with
    # type "object", every root `properties` value an object
    typed_object_roots = True
    boolean_property_schemas = False
    ajv_clients = True
    # MCP 2025-11-25 and later, server/tools "Tool Names": 1-128 characters of ASCII letters,
    # digits, `_`, `-` and `.` (lint TC102 checks the same: lint.profiles.MCP_NAME_PATTERN)
    name_pattern = r"^[A-Za-z0-9_.-]{1,128}$"
    # the result's `_meta` says a compact view is one (formats.arrays.VIEW_META_KEY)
    view_meta = {"_meta": {VIEW_META_KEY: "compact"}}

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "name", f["id"])
        put(d, "title", f["title"])
        put(d, "description", f["description"])
        put(d, "inputSchema", f["input_schema"])
        put(d, "outputSchema", f["output_schema"])
        put(d, "annotations", f["annotations"])
        return d


MCP_TARGET = McpTarget()
