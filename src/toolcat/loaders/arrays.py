"""Loaders for catalogs that are lists of tool descriptors.

MCP ``tools/list`` (``{"tools": [...]}``, a JSON-RPC response, a bare array, one tool per
file), mcp-context-cost captures, OpenWOP ToolDescriptor catalogs, OpenAI and Anthropic tool
arrays. Each descriptor becomes a :class:`~toolcat.model.Tool` that keeps the original object
(``raw``) and every field it does not model (``extra``) verbatim.
"""

from __future__ import annotations

import os
from typing import Any

from toolcat.errors import InputError
from toolcat.model import (
    ANTHROPIC,
    COMPACT,
    MCP,
    MCP_CAPTURE,
    OPENAI,
    OPENWOP,
    STANDARD,
    Catalog,
    Tool,
)
from toolcat.pointer import escape

_MCP_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
_OPENWOP_FIELDS = ("toolId", "title", "description", "inputSchema", "outputSchema", "source",
                   "safetyTier")


def view_from_name(path: str) -> str:
    """The view a tools file holds when nothing inside says: `toolcat project` output is
    usually named like ``tools.compact.json``, so a file name containing "compact" is a
    compact view; anything else is a standard view."""
    return COMPACT if "compact" in os.path.basename(path).lower() else STANDARD


def tool_list(doc: Any, path: str) -> tuple[list, str]:
    """The tools array of an envelope and its pointer."""
    if isinstance(doc, list):
        return doc, ""
    if isinstance(doc, dict):
        if isinstance(doc.get("tools"), list):
            return doc["tools"], "/tools"
        res = doc.get("result")
        if isinstance(res, dict) and isinstance(res.get("tools"), list):
            return res["tools"], "/result/tools"
    raise InputError("no tools array found (expected {\"tools\": [...]} or a JSON array)", path)


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _not_an_object(item: Any, file: str, pointer: str) -> Tool:
    """A tools-array entry that is not an object: kept (lint TC110 reports it), never dropped."""
    return Tool(id=None, raw=item, file=file, pointer=pointer,
                extra={"_invalid": f"expected an object, found {type(item).__name__}"})


def mcp_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return _not_an_object(item, file, pointer)
    name = item.get("name")
    return Tool(
        id=name if isinstance(name, str) else None,
        title=_str_or_none(item.get("title")),
        description=_str_or_none(item.get("description")),
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


def load_capture(doc: dict, path: str) -> Catalog:
    raw = doc.get("rawToolsCapture")
    meta = {k: doc.get(k) for k in ("serverName", "serverVersion", "status", "toolCount",
                                   "totalTokens", "canonicalSha256", "encoding",
                                   "methodologyVersion") if k in doc}
    if not isinstance(raw, list):
        status = doc.get("status", "unknown")
        raise InputError(
            f"mcp-context-cost capture has no rawToolsCapture (status: {status}); nothing to read",
            path)
    meta["envelope"] = "capture"
    cat = Catalog(file=path, format=MCP_CAPTURE, document=doc, meta=meta)
    for i, item in enumerate(raw):
        cat.tools.append(mcp_tool(item, path, f"/rawToolsCapture/{i}"))
    return cat


def openwop_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return _not_an_object(item, file, pointer)
    tid = item.get("toolId")
    return Tool(
        id=tid if isinstance(tid, str) else None,
        title=_str_or_none(item.get("title")),
        description=_str_or_none(item.get("description")),
        input_schema=item.get("inputSchema"),
        output_schema=item.get("outputSchema"),
        source=_str_or_none(item.get("source")),
        safety_tier=_str_or_none(item.get("safetyTier")),
        annotations=item.get("annotations") if isinstance(item.get("annotations"), dict) else None,
        extra={k: v for k, v in item.items() if k not in _OPENWOP_FIELDS and k != "annotations"},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer)],
    )


def load_openwop(doc: Any, path: str, view: str | None = None) -> Catalog:
    if isinstance(doc, dict) and "toolId" in doc:
        items, base = [doc], None
    else:
        items, base = tool_list(doc, path)
    declared = doc.get("view") if isinstance(doc, dict) else None
    if view is None:
        if declared in (STANDARD, COMPACT):
            view = declared
        else:
            view = view_from_name(path)
    cat = Catalog(file=path, format=OPENWOP, document=doc, view=view,
                  meta={"envelope": "tools" if base == "/tools" else ("array" if base == "" else "tool")})
    for i, item in enumerate(items):
        cat.tools.append(openwop_tool(item, path, "" if base is None else f"{base}/{i}"))
    return cat


def openai_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return _not_an_object(item, file, pointer)
    fn = item.get("function")
    if isinstance(fn, dict):        # Chat Completions: {"type": "function", "function": {...}}
        body, fptr = fn, pointer + "/function"
    else:                           # Responses API / legacy functions: flat
        body, fptr = item, pointer
    name = body.get("name")
    extra = {k: v for k, v in body.items() if k not in ("name", "description", "parameters")}
    if body is not item:
        extra.update({f"@{k}": v for k, v in item.items() if k not in ("function", "type")})
    return Tool(
        id=name if isinstance(name, str) else None,
        description=_str_or_none(body.get("description")),
        input_schema=body.get("parameters"),
        extra=extra,
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", fptr + "/parameters"),
                ("/description", fptr + "/description"), ("/name", fptr + "/name")],
    )


def load_openai(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    cat = Catalog(file=path, format=OPENAI, document=doc, view=view_from_name(path),
                  meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        cat.tools.append(openai_tool(item, path, f"{base}/{i}"))
    return cat


def anthropic_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return _not_an_object(item, file, pointer)
    name = item.get("name")
    return Tool(
        id=name if isinstance(name, str) else None,
        description=_str_or_none(item.get("description")),
        input_schema=item.get("input_schema"),
        extra={k: v for k, v in item.items() if k not in ("name", "description", "input_schema")},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", pointer + "/input_schema")],
    )


def load_anthropic(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    cat = Catalog(file=path, format=ANTHROPIC, document=doc, view=view_from_name(path),
                  meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        cat.tools.append(anthropic_tool(item, path, f"{base}/{i}"))
    return cat


def folder_catalog(path: str, parts: list[tuple[str, Any, Any]]) -> Catalog:
    """One catalog from a folder of one-tool MCP files: ``parts`` is (file, doc, source)."""
    cat = Catalog(file=path, format=MCP, meta={"envelope": "folder"})
    for file, doc, src in parts:
        cat.tools.append(mcp_tool(doc, file, ""))
        cat.sources[file] = src
    return cat


__all__ = [
    "load_mcp", "load_capture", "load_openwop", "load_openai", "load_anthropic",
    "folder_catalog", "tool_list", "escape",
]
