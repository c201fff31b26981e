"""Anthropic tool arrays: ``[{"name", "description", "input_schema"}]``.

Besides the model-facing fields a tool carries request fields (:data:`REQUEST_FIELDS`:
``defer_loading``, ``cache_control``, ``strict``, ``input_examples``...), which the compact
view writes as given; and the array may hold server tools (an entry with a versioned ``type``
and no ``input_schema``: ``web_search_20250305``, the tool search tools; the MCP connector's
``mcp_toolset``), which are the provider's to run and pass through every view unchanged."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import ANTHROPIC, Catalog, Tool

#: the ``type`` of an Anthropic server tool: a versioned name (``web_search_20250305``,
#: ``tool_search_tool_bm25_20251119``)
_SERVER_TOOL_TYPE = re.compile(r"[a-z][a-z0-9_]*_20[0-9]{6}")


#: the MCP connector's entry (``anthropic.types.beta.BetaMCPToolsetParam``): the tools of
#: an MCP server of the request's ``mcp_servers``, named by ``mcp_server_name``
MCP_TOOLSET = "mcp_toolset"


def is_mcp_toolset(item: Any) -> bool:
    """An ``mcp_toolset`` entry (the provider lists and calls the server's tools)."""
    return isinstance(item, dict) and item.get("type") == MCP_TOOLSET \
        and isinstance(item.get("mcp_server_name"), str) and "input_schema" not in item


def is_anthropic_server_tool(item: Any) -> bool:
    """An Anthropic server tool: a named entry whose ``type`` is a versioned tool type and
    that has no ``input_schema``, or an ``mcp_toolset`` (the provider runs it; the request
    only names it)."""
    t = item.get("type") if isinstance(item, dict) else None
    return (isinstance(t, str) and "input_schema" not in item
            and isinstance(item.get("name"), str) and _SERVER_TOOL_TYPE.fullmatch(t) is not None
            ) or is_mcp_toolset(item)


def anthropic_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    if is_mcp_toolset(item) and "name" not in item:
        name = f"{MCP_TOOLSET}:{item['mcp_server_name']}"   # (what names it in listings)
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(item.get("description")),
        input_schema=item.get("input_schema"),
        server_tool=is_anthropic_server_tool(item),
        extra={k: v for k, v in item.items() if k not in ("name", "description", "input_schema")},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", pointer + "/input_schema")],
    )


def load_anthropic(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    tools: list[Tool] = []
    cat = Catalog(file=path, format=ANTHROPIC, tools=tools, document=doc,
                  view=view_from_name(path), meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        tools.append(anthropic_tool(item, path, f"{base}/{i}"))
    return cat


#: the fields of a Messages API custom tool (``anthropic.types.ToolParam``) that are the
#: request's, not the model's to read: the compact view writes them as given, in their order
REQUEST_FIELDS = ("type", "cache_control", "defer_loading", "strict", "input_examples",
                  "allowed_callers", "eager_input_streaming")


#: the tool search server tools (``--search``): the model finds deferred tools with them
TOOL_SEARCH = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}


def is_tool_search(item: Any) -> bool:
    """Is ``item`` a tool search server tool (any version)?"""
    return isinstance(item, dict) and isinstance(item.get("type"), str) \
        and item["type"].startswith("tool_search_tool_") and "input_schema" not in item


class AnthropicTarget(Target):
    """``[{"name", "description", "input_schema"}]`` (Messages API tools)."""

    name = "anthropic"
    native_formats = (ANTHROPIC,)
    server_tool_formats = (ANTHROPIC,)
    schema_paths = (("input_schema",),)
    compact_fields: ClassVar[tuple[str, ...]] = ("name", "description", "input_schema")
    request_fields: ClassVar[tuple[str, ...]] = REQUEST_FIELDS
    requires_input_schema = True
    #: a native tool that says ``"strict": true`` keeps its compact schema within this row
    strict_provider = "anthropic-strict"

    provider = "anthropic"
    typed_object_roots = True
    profile = "anthropic"
    counted_as = True

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "name", f["id"])
        put(d, "description", f["description"])
        put(d, "input_schema", f["input_schema"])
        put(d, "strict", f.get("strict"))
        return d

    # deferral: Anthropic's tool search (`defer_loading`, one tool search tool)
    defers = True
    defer_key = "defer_loading"
    leading_fields = ("name", "description", "input_schema")

    def upfront(self, array: list) -> list:
        """A deferred tool is not shown at all until a search loads it."""
        return [d for d in array if not (isinstance(d, dict) and d.get("defer_loading") is True)]

    def deferred_array(self, tools: list, plan: Any) -> list:
        """The tool search tool (the catalog's own, else ``--search``'s; never deferred),
        the eager tools, then the deferred ones."""
        eager = [t.descriptor for t in tools if not t.deferred]
        searches = [i for i, d in enumerate(eager) if is_tool_search(d)]
        for i in searches:
            eager[i] = self.undefer(eager[i])
        search = [] if searches else [dict(TOOL_SEARCH[plan.options.search])]
        return search + eager + [t.descriptor for t in tools if t.deferred]


class AnthropicStrictTarget(AnthropicTarget):
    """The same tools with ``"strict": true`` (strict tool use), each schema rewritten into
    its subset, within the per-request totals; ``"strict": false`` on the others."""

    name = "anthropic-strict"
    compact_fields = ("name", "description", "input_schema", "strict")
    # the target decides `strict` itself
    request_fields = tuple(k for k in REQUEST_FIELDS if k != "strict")
    provider = "anthropic-strict"
    loose_provider = "anthropic"
    writes_strict = True
    profile = "anthropic-strict"


ANTHROPIC_TARGET = AnthropicTarget()
ANTHROPIC_STRICT_TARGET = AnthropicStrictTarget()


FORMATS = (Format(
    ANTHROPIC, "Anthropic", "Anthropic tools",
    lambda doc, src, path, opts: load_anthropic(doc, path),
    targets=(ANTHROPIC_TARGET, ANTHROPIC_STRICT_TARGET),
    item=lambda t: ("name" in t and ("input_schema" in t or is_anthropic_server_tool(t)))
    or is_mcp_toolset(t),
    schema_key="input_schema"),)
