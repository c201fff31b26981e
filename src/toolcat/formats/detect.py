"""Tell a catalog's format from its content."""

from __future__ import annotations

from typing import Any

from toolcat.model import ANTHROPIC, MCP, MCP_CAPTURE, OPENAI, OPENAPI3, OPENWOP, SWAGGER2

TRIED = "OpenAPI 3.x, Swagger 2.0, MCP tools/list, OpenWOP tool catalog, OpenAI tools, " \
        "Anthropic tools, mcp-context-cost capture"


def _tool_list(doc: Any) -> list | None:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        if isinstance(doc.get("tools"), list):
            return doc["tools"]
        res = doc.get("result")
        if isinstance(res, dict) and isinstance(res.get("tools"), list):
            return res["tools"]
    return None


def item_format(item: Any) -> str | None:
    """The format of one tool descriptor object, or None."""
    if not isinstance(item, dict):
        return None
    if "toolId" in item:
        return OPENWOP
    if item.get("type") == "function" and (isinstance(item.get("function"), dict)
                                           or "name" in item):
        return OPENAI  # Chat Completions {type, function: {...}} or Responses {type, name, ...}
    if "name" in item and "input_schema" in item:
        return ANTHROPIC
    if "name" in item and ("inputSchema" in item or "description" in item or "annotations" in item):
        return MCP
    if "name" in item and "parameters" in item and "type" not in item:
        # OpenAI's older flat function list ({name, description, parameters})
        return OPENAI
    return None


def detect(doc: Any) -> str | None:
    """Return the format of a parsed document, or None when it is no known catalog."""
    if isinstance(doc, dict):
        if "openapi" in doc and ("paths" in doc or "webhooks" in doc or "components" in doc):
            return OPENAPI3
        if "swagger" in doc and "paths" in doc:
            return SWAGGER2
        if "rawToolsCapture" in doc or ("methodologyVersion" in doc and "canonicalSha256" in doc):
            return MCP_CAPTURE
        if "name" in doc and "inputSchema" in doc:
            return MCP  # a single MCP tool (one-tool snapshot file)
        if "toolId" in doc and "source" in doc:
            return OPENWOP  # a single descriptor (GET /v1/tools/{toolId})
    tools = _tool_list(doc)
    if tools is None:
        return None
    if not tools:
        # An empty list: an MCP {"tools": []} is still a catalog.
        return MCP if isinstance(doc, dict) else None
    kinds = {item_format(t) for t in tools[:50]}
    kinds.discard(None)
    if len(kinds) == 1:
        return kinds.pop()
    if not kinds:
        return None
    # mixed: pick the majority (lint reports the odd ones)
    counts: dict[str, int] = {}
    for t in tools:
        k = item_format(t)
        if k:
            counts[k] = counts.get(k, 0) + 1
    return max(counts, key=counts.__getitem__)
