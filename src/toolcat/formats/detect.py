"""Tell a catalog's format from its content."""

from __future__ import annotations

import re
from typing import Any

from toolcat.model import (
    ANTHROPIC,
    DOCKER,
    GEMINI,
    MCP,
    MCP_CAPTURE,
    OPENAI,
    OPENAPI3,
    OPENWOP,
    SWAGGER2,
)

TRIED = "OpenAPI 3.x, Swagger 2.0, MCP tools/list, OpenWOP tool catalog, OpenAI tools, " \
        "Anthropic tools, docker/mcp-registry tools.json, Gemini function declarations, " \
        "mcp-context-cost capture"

#: what names each format in messages
FORMAT_NAMES = {OPENAPI3: "OpenAPI 3.x", SWAGGER2: "Swagger 2.0", MCP: "MCP",
                MCP_CAPTURE: "mcp-context-cost capture", OPENWOP: "OpenWOP", OPENAI: "OpenAI",
                ANTHROPIC: "Anthropic", DOCKER: "docker/mcp-registry", GEMINI: "Gemini"}
# fields of an MCP registry server record (server.json, the registry's seed files): a server
# with its packages, not a tool
_SERVER_RECORD_KEYS = frozenset({"packages", "remotes", "repository", "version_detail",
                                 "version", "websiteUrl", "website_url"})


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


#: the ``type`` of an Anthropic server tool: a versioned name (``web_search_20250305``,
#: ``tool_search_tool_bm25_20251119``)
_SERVER_TOOL_TYPE = re.compile(r"[a-z][a-z0-9_]*_20[0-9]{6}")


def is_anthropic_server_tool(item: Any) -> bool:
    """An Anthropic server tool: a named entry whose ``type`` is a versioned tool type and
    that has no ``input_schema`` (the provider runs it; the request only names it)."""
    t = item.get("type") if isinstance(item, dict) else None
    return (isinstance(t, str) and "input_schema" not in item
            and isinstance(item.get("name"), str) and _SERVER_TOOL_TYPE.fullmatch(t) is not None)


def item_format(item: Any) -> str | None:
    """The format of one tool descriptor object, or None."""
    if not isinstance(item, dict):
        return None
    if "toolId" in item:
        return OPENWOP
    if item.get("type") == "function" and (isinstance(item.get("function"), dict)
                                           or "name" in item):
        return OPENAI  # Chat Completions {type, function: {...}} or Responses {type, name, ...}
    if (item.get("type") == "namespace" and isinstance(item.get("tools"), list)) \
            or item.get("type") == "tool_search":
        return OPENAI  # the Responses API's namespaces and its tool search tool
    if "name" in item and ("input_schema" in item or is_anthropic_server_tool(item)):
        return ANTHROPIC
    if "name" in item and ("inputSchema" in item or "description" in item or "annotations" in item):
        return MCP
    if "name" in item and "parameters" in item and "type" not in item:
        # OpenAI's older flat function list ({name, description, parameters})
        return OPENAI
    return None


def server_records(doc: Any) -> bool:
    """An MCP registry ``server.json`` record, or a list of them (the registry's seed files):
    servers with their packages and remotes, which name no tools."""
    def record(d: Any) -> bool:
        return (isinstance(d, dict) and isinstance(d.get("name"), str)
                and "inputSchema" not in d and not _SERVER_RECORD_KEYS.isdisjoint(d)
                and ("packages" in d or "remotes" in d or "version_detail" in d
                     or "server.schema.json" in str(d.get("$schema", ""))))
    if isinstance(doc, list):
        return bool(doc) and all(record(d) for d in doc[:50])
    return record(doc)


def detect(doc: Any) -> str | None:
    """Return the format of a parsed document, or None when it is no known catalog."""
    from toolcat.formats.docker import is_docker_tools

    if isinstance(doc, list) and is_docker_tools(doc):
        return DOCKER
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
        if isinstance(doc.get("functionDeclarations"), list):
            return GEMINI   # a Gemini Tool object
    if isinstance(doc, list) and len(doc) == 1 and isinstance(doc[0], dict) \
            and isinstance(doc[0].get("functionDeclarations"), list):
        return GEMINI       # a Gemini tools array holding one Tool object
    tools = _tool_list(doc)
    if tools is None:
        return None
    if not tools:
        # An empty list: an MCP {"tools": []} is still a catalog, and so is a bare `[]` (the
        # envelope of MCP, OpenAI, Anthropic and docker tool arrays alike, which `project
        # --to openai|anthropic` writes for a catalog without tools; docker/mcp-registry
        # ships it for servers that list their tools at run time). With no tools, the
        # formats read the same: MCP, as for the envelope. (Folders skip a bare `[]`:
        # nothing says it is a catalog there.)
        return MCP
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


def misfit(doc: Any, fmt: str) -> str | None:
    """Why ``doc`` is not a catalog of format ``fmt`` (``--from``), or None when it can be."""
    name = FORMAT_NAMES.get(fmt, fmt)
    found = detect(doc)
    if fmt in (OPENAPI3, SWAGGER2):
        key = "openapi" if fmt == OPENAPI3 else "swagger"
        if not isinstance(doc, dict) or key not in doc:
            return f"the document has no {key!r} field" + (
                f" (it looks like {FORMAT_NAMES[found]})" if found else "")
        return None
    if fmt == MCP_CAPTURE:
        if not isinstance(doc, dict) or not ("rawToolsCapture" in doc or "canonicalSha256" in doc):
            return "the document is not an mcp-context-cost capture (no 'rawToolsCapture')"
        return None
    if fmt in (OPENWOP, MCP) and isinstance(doc, dict) and "tools" not in doc \
            and "result" not in doc and (("name" in doc) if fmt == MCP else ("toolId" in doc)):
        return None   # one tool per file
    tools = _tool_list(doc)
    if tools is None:
        return "the document holds no tools array ({\"tools\": [...]} or a JSON array)" + (
            f"; it looks like {FORMAT_NAMES[found]}" if found else "")
    if fmt == DOCKER and not isinstance(doc, list):
        return "a docker/mcp-registry tools.json is a JSON array of tools"
    from toolcat.formats.docker import TOOL_FIELDS

    base = "/tools" if isinstance(doc, dict) and tools is doc.get("tools") else (
        "/result/tools" if isinstance(doc, dict) else "")
    for i, item in enumerate(tools):
        if not isinstance(item, dict):
            continue   # not a tool in any format: lint TC110 reports it
        kind = item_format(item)
        if fmt == DOCKER:
            ok = isinstance(item.get("name"), str) and TOOL_FIELDS.issuperset(item)
        elif fmt == MCP:
            ok = kind in (None, MCP)
        else:
            ok = kind in (None, fmt)
        if not ok:
            what = FORMAT_NAMES.get(kind, "another format's") if kind else "another shape of"
            return (f"{base}/{i} is {'an' if what[0] in 'AEIOMaeio' else 'a'} {what} tool, "
                    f"not {'an' if name[0] in 'AEIOMaeio' else 'a'} {name} tool")
    return None
