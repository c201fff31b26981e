"""Target shapes: the descriptor fields each target carries, in a fixed key order, and what
toolcat derives where the input does not say (OpenWOP ``source``, ``safetyTier``, ``toolId``).

Targets: ``mcp`` (``{"tools": [Tool]}``), ``openwop`` (``{"tools": [ToolDescriptor]}``, the
compact view as ``CompactToolDescriptor``), ``openai`` (``[{"type": "function", "function":
{...}}]``) and ``anthropic`` (``[{"name", "description", "input_schema"}]``).

The standard view of a tool in its own format is its descriptor verbatim (``Tool.raw``: for
an MCP catalog these are the bytes the server sent). Across formats, the fields both formats
know are mapped; the rest has no place in the target and is left out.

Derivations (``--source``/``--safety-tier`` override them):

* ``source``: MCP -> ``mcp``; OpenAPI/Swagger, OpenAI, Anthropic -> ``connector`` (an HTTP or
  application action, RFC 0045's connector surface).
* ``safetyTier``: an MCP ``readOnlyHint: true`` (also OpenAPI ``x-annotations``) -> ``read``,
  any other annotations -> ``write``; OpenAPI without annotations: GET/HEAD/OPTIONS/TRACE ->
  ``read``, other methods -> ``write``; nothing known -> ``write`` (never under-state effects).
* ``toolId`` (RFC 0078 ``<scope>:<tool-id>``): ``mcp:<name>`` for MCP-sourced tools,
  ``connector:<id>`` for connector tools, unchanged when the id already has that scope or
  the tool came from OpenWOP. Back to MCP, OpenAI or Anthropic, an ``mcp:`` scope is removed.
"""

from __future__ import annotations

from typing import Any

from toolcat.model import (
    ANTHROPIC,
    MCP,
    MCP_CAPTURE,
    OPENAI,
    OPENAPI3,
    OPENWOP,
    SWAGGER2,
    Tool,
)

TARGETS = ("mcp", "openwop", "openai", "anthropic")
ENVELOPED = ("mcp", "openwop")          # written as {"tools": [...]}

#: the input formats whose descriptors *are* a target's shape
NATIVE = {MCP: "mcp", MCP_CAPTURE: "mcp", OPENWOP: "openwop", OPENAI: "openai",
          ANTHROPIC: "anthropic"}

_READ_METHODS = ("get", "head", "options", "trace")
_SCOPE = {"mcp": "mcp:", "connector": "connector:"}
MCP_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                     "openWorldHint": True}


def default_target(formats: list[str]) -> str:
    """``openwop`` when every input is OpenWOP, else ``mcp``."""
    return "openwop" if formats and all(f == OPENWOP for f in formats) else "mcp"


def derive_source(tool: Tool, fmt: str, override: str | None = None) -> str:
    if override:
        return override
    if tool.source:
        return tool.source
    if fmt in (MCP, MCP_CAPTURE):
        return "mcp"
    return "connector"


def derive_safety_tier(tool: Tool, fmt: str, override: str | None = None) -> str:
    if override:
        return override
    if tool.safety_tier:
        return tool.safety_tier
    ann = tool.annotations if isinstance(tool.annotations, dict) else None
    if ann is not None and "readOnlyHint" in ann:
        return "read" if ann.get("readOnlyHint") is True else "write"
    if fmt in (OPENAPI3, SWAGGER2) and tool.http_method:
        return "read" if tool.http_method.lower() in _READ_METHODS else "write"
    if ann is not None and ann:
        return "write"
    return "write"


def tool_id(tool: Tool, fmt: str, target: str, source: str) -> str:
    """The tool's id in ``target`` (RFC 0078 scopes for OpenWOP, plain names elsewhere)."""
    tid = tool.id or ""
    if target == "openwop":
        if fmt == OPENWOP:
            return tid
        scope = _SCOPE.get(source)
        if scope and not tid.startswith(scope):
            return scope + tid
        return tid
    if fmt == OPENWOP and (tool.source == "mcp" or source == "mcp") and tid.startswith("mcp:"):
        return tid[4:]
    return tid


def display_title(tool: Tool) -> str | None:
    if tool.title:
        return tool.title
    ann = tool.annotations
    if isinstance(ann, dict) and isinstance(ann.get("title"), str) and ann["title"]:
        return ann["title"]
    return None


def _put(d: dict, key: str, value: Any) -> None:
    if value is not None:
        d[key] = value


def shape(target: str, *, id: str, title: str | None = None, description: str | None = None,
          input_schema: Any = None, output_schema: Any = None, annotations: dict | None = None,
          source: str | None = None, safety_tier: str | None = None,
          input_required: bool = False, extra: dict | None = None) -> dict:
    """One descriptor in ``target``'s shape, keys in the target's fixed order.

    ``None`` fields are left out. ``input_required``: a target that needs an input schema
    (Anthropic; MCP) gets ``{"type": "object", "properties": {}}`` when there is none.
    """
    if input_schema is None and input_required and target in ("mcp", "anthropic"):
        input_schema = {"type": "object", "properties": {}}
    d: dict = {}
    if target == "mcp":
        _put(d, "name", id)
        _put(d, "title", title)
        _put(d, "description", description)
        _put(d, "inputSchema", input_schema)
        _put(d, "outputSchema", output_schema)
        _put(d, "annotations", annotations)
    elif target == "openwop":
        _put(d, "toolId", id)
        _put(d, "source", source)
        _put(d, "safetyTier", safety_tier)
        _put(d, "title", title)
        _put(d, "description", description)
        _put(d, "inputSchema", input_schema)
        _put(d, "outputSchema", output_schema)
    elif target == "openai":
        fn: dict = {}
        _put(fn, "name", id)
        _put(fn, "description", description)
        _put(fn, "parameters", input_schema)
        d = {"type": "function", "function": fn}
    elif target == "anthropic":
        _put(d, "name", id)
        _put(d, "description", description)
        _put(d, "input_schema", input_schema)
    else:  # pragma: no cover - guarded by callers
        raise ValueError(f"unknown target {target!r}")
    if extra:
        d.update(extra)
    return d


def standard_descriptor(tool: Tool, fmt: str, target: str, source: str | None = None,
                        safety_tier: str | None = None) -> Any:
    """The lossless standard view of one tool in ``target``'s shape."""
    if NATIVE.get(fmt) == target and tool.raw is not None:
        return tool.raw
    src = derive_source(tool, fmt, source)
    tier = derive_safety_tier(tool, fmt, safety_tier)
    ann = tool.annotations if target == "mcp" and isinstance(tool.annotations, dict) else None
    return shape(
        target,
        id=tool_id(tool, fmt, target, src),
        title=(display_title(tool) if target == "openwop"
               else tool.title if target == "mcp" else None),
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema if target in ("mcp", "openwop") else None,
        annotations=ann,
        source=src if target == "openwop" else None,
        safety_tier=tier if target == "openwop" else None,
        input_required=True,
    )
