"""OpenWOP tool catalogs: ``{"tools": [ToolDescriptor]}`` (standard view) or
``CompactToolDescriptor``s (compact view), a bare array, or one descriptor."""

from __future__ import annotations

from typing import Any

from toolcat.formats import registry
from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import (
    COMPACT,
    OPENWOP,
    STANDARD,
    Catalog,
    Tool,
)

_OPENWOP_FIELDS = ("toolId", "title", "description", "inputSchema", "outputSchema", "source",
                   "safetyTier")


def openwop_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    tid = item.get("toolId")
    return Tool(
        id=tid if isinstance(tid, str) else None,
        title=str_or_none(item.get("title")),
        description=str_or_none(item.get("description")),
        input_schema=item.get("inputSchema"),
        output_schema=item.get("outputSchema"),
        source=str_or_none(item.get("source")),
        safety_tier=str_or_none(item.get("safetyTier")),
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
    tools: list[Tool] = []
    cat = Catalog(file=path, format=OPENWOP, tools=tools, document=doc, view=view,
                  meta={"envelope": "tools" if base == "/tools" else ("array" if base == "" else "tool")})
    for i, item in enumerate(items):
        tools.append(openwop_tool(item, path, "" if base is None else f"{base}/{i}"))
    return cat


# ----------------------------------------------------------------------------- the target

_READ_METHODS = ("get", "head", "options", "trace", "query")   # QUERY: OpenAPI 3.2, safe
_SCOPE = {"mcp": "mcp:", "connector": "connector:"}


def derive_source(tool: Tool, fmt: str, override: str | None = None) -> str:
    """A tool's OpenWOP ``source`` (``--source`` overrides): its own, else ``mcp`` for MCP
    input, else ``connector`` (an HTTP or application action, RFC 0045's connector surface)."""
    if override:
        return override
    if tool.source:
        return tool.source
    if registry.get(fmt).mcp_server:
        return "mcp"
    return "connector"


def derive_safety_tier(tool: Tool, fmt: str, override: str | None = None) -> str:
    """A tool's OpenWOP ``safetyTier`` (``--safety-tier`` overrides): its own, else an MCP
    ``readOnlyHint: true`` (also OpenAPI ``x-annotations``) -> ``read``, any other annotations
    -> ``write``; OpenAPI without annotations: GET/HEAD/OPTIONS/TRACE -> ``read``, other
    methods -> ``write``; nothing known -> ``write`` (never under-state effects)."""
    if override:
        return override
    if tool.safety_tier:
        return tool.safety_tier
    ann = tool.annotations if isinstance(tool.annotations, dict) else None
    if ann is not None and "readOnlyHint" in ann:
        return "read" if ann.get("readOnlyHint") is True else "write"
    if registry.get(fmt).spec and tool.http_method:
        return "read" if tool.http_method.lower() in _READ_METHODS else "write"
    if ann is not None and ann:
        return "write"
    return "write"


class OpenWopTarget(Target):
    """``{"tools": [ToolDescriptor]}``; the compact view is ``CompactToolDescriptor``s in the
    RFC 0112 subset (no outputSchema, no $ref: nothing is factored). ``toolId`` follows RFC
    0078's ``<scope>:<tool-id>``: ``mcp:<name>`` for MCP-sourced tools, ``connector:<id>`` for
    connector tools, unchanged when the id already has that scope or the tool came from
    OpenWOP."""

    name = "openwop"
    profile = "openwop-compact"
    id_key = "toolId"
    enveloped = True
    native_formats = (OPENWOP,)
    schema_paths = (("inputSchema",), ("outputSchema",))
    compact_fields = ("toolId", "source", "safetyTier", "title", "description", "inputSchema",
                      "outputSchema")
    standard_output_schema = True
    title = "display"
    drops_repeated_description = True
    openwop_fields = True
    subset_by_default = True
    factors = False

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "toolId", f["id"])
        put(d, "source", f["source"])
        put(d, "safetyTier", f["safety_tier"])
        put(d, "title", f["title"])
        put(d, "description", f["description"])
        put(d, "inputSchema", f["input_schema"])
        put(d, "outputSchema", f["output_schema"])
        return d

    def tool_id(self, tool: Tool, fmt: str, source: str) -> str:
        tid = tool.id or ""
        if fmt == OPENWOP:
            return tid
        scope = _SCOPE.get(source)
        if scope and not tid.startswith(scope):
            return scope + tid
        return tid

    def item_id(self, item: Any) -> str | None:
        body = self.body(item)
        v = body.get("toolId") if isinstance(body, dict) else None
        return v if isinstance(v, str) else None


OPENWOP_TARGET = OpenWopTarget()


FORMATS = (Format(
    OPENWOP, "OpenWOP", "OpenWOP tool catalog",
    lambda doc, src, path, opts: load_openwop(doc, path, opts.view),
    targets=(OPENWOP_TARGET,),
    claims=lambda d: isinstance(d, dict) and "toolId" in d and "source" in d,
    item=lambda t: "toolId" in t,
    one_tool=lambda d: "toolId" in d,
    id_pointer="/toolId", canonical_descriptors=True, scoped_ids=True,
    compact_descriptors=True),)
