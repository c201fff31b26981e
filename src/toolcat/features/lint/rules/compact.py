"""Compact-view readiness (RFC 0112): CS201, CS202, CS203, CS205 (CS204 is in openwop.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from toolcat.features.lint.registry import Hit, rule
from toolcat.model import OPENWOP
from toolcat.schema.keywords import COMPACT_FORBIDDEN, COMPACT_LOWERED

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Tool


@rule("CS201", "input-type-object", "error",
      "inputSchema top-level `type` is exactly `\"object\"`")
def input_type_object(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that the input schema is an object schema with top-level `type: "object"`, spelled
    exactly so: not a type array, not left out. A tool without an `inputSchema` is reported too,
    except in OpenWOP catalogs where it is optional ("opaque arguments").

    ## Why
    RFC 0112's compact structural subset (and MCP's `tools/list`) require it. The
    `openwop-compact` profile reports it as an error, and so does every profile on an OpenWOP
    compact catalog; with the `mcp` profile MC101 reports the same shapes.

    ## Example
    ```json profile=openwop-compact
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": ["object", "null"], "properties": {}}}]}
    ```

    ## Fix
    Write `"type": "object"` at the top of the input schema:
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    s = tool.input_schema
    if s is None:
        if ctx.catalog.format != OPENWOP:
            yield Hit("tool has no inputSchema", "")
        return
    if not isinstance(s, dict):
        yield Hit(f"inputSchema is a {type(s).__name__}, not an object schema", "/inputSchema")
        return
    if "type" not in s:
        yield Hit("inputSchema has no top-level type (must be \"object\")", "/inputSchema")
    elif s["type"] != "object":
        yield Hit(f"inputSchema top-level type is {s['type']!r}, must be exactly \"object\"",
                  "/inputSchema/type")


@rule("CS202", "input-properties", "error", "inputSchema has a `properties` object")
def input_properties(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that the input schema has an explicit `properties` map at its top, even when it is
    empty (`"properties": {}`).

    ## Why
    The compact subset requires it: clients and providers build the argument form from it. An
    object schema without it says nothing about its arguments.

    ## Example
    ```json profile=openwop-compact
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object"}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    s = tool.input_schema
    if not isinstance(s, dict):
        return
    p = s.get("properties")
    if p is None:
        yield Hit("inputSchema has no properties (use \"properties\": {} for no arguments)",
                  "/inputSchema")
    elif not isinstance(p, dict):
        yield Hit(f"inputSchema properties is a {type(p).__name__}, not an object",
                  "/inputSchema/properties")


@rule("CS203", "compact-forbidden-keyword", "error",
      "no `$ref`, `oneOf`, `allOf`, `anyOf`, `not`, `patternProperties`, `dependentSchemas` in "
      "any schema position at any depth (properties named so are data; `enum`/`const`/"
      "`default`/`examples` values are data)", scope="node", keys=COMPACT_FORBIDDEN, pure=True)
def forbidden_keyword(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports `$ref`, `oneOf`, `allOf`, `anyOf`, `not`, `patternProperties` or `dependentSchemas`
    at any nesting depth of an `inputSchema`.

    ## Why
    RFC 0112: a compact `inputSchema` must not use these keywords at any nesting depth.

    ## Not reported
    Only schema positions count: a property *named* `oneOf`, or `$ref` keys inside `enum`,
    `const`, `default` or `examples` values, are data and never reported.

    ## Example
    ```json profile=openwop-compact
    {"tools": [{"name": "find", "description": "Find a record by id or by name.",
                "inputSchema": {"type": "object", "properties": {
                  "key": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}}]}
    ```

    ## Fix
    `toolcat project` lowers these keywords (inlining references, merging `allOf`, ...) where it
    can do so without changing what the schema accepts.
    """
    node = n.node
    if not isinstance(node, dict):
        return
    for kw in COMPACT_FORBIDDEN:
        if kw in node:
            yield Hit(f"`{kw}` is not allowed in a compact inputSchema (RFC 0112)", n.ptr(kw))


@rule("CS205", "compact-lowering-needed", "warning",
      "a `$defs`/`definitions`, `if`/`then`/`else` or `dependencies` that a compact view will "
      "have to lower", scope="node", keys=COMPACT_LOWERED, pure=True)
def lowered_keyword(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a `$defs`/`definitions`, an `if`/`then`/`else` or a draft-07 `dependencies` that a
    compact view will have to lower.

    ## Why
    `$defs`/`definitions` only serve `$ref` (which the compact subset forbids), and
    `if`/`then`/`else` and draft-07 `dependencies` are conditional constructs few models follow.
    RFC 0112 does not forbid them, so this is a warning.

    ## Example
    ```json profile=openwop-compact
    {"tools": [{"name": "ship", "description": "Ship an order to an address.",
                "inputSchema": {"type": "object", "properties": {"express": {"type": "boolean"}},
                                "if": {"required": ["express"]},
                                "then": {"required": ["phone"]}}}]}
    ```

    ## Fix
    A compact projection (`toolcat project`) has to inline, lower or drop them, and may have to
    report that it widened the schema; write the schema without them where you can.
    """
    node = n.node
    if not isinstance(node, dict):
        return
    for kw in COMPACT_LOWERED:
        if kw in node:
            yield Hit(f"`{kw}` will have to be lowered for a compact view", n.ptr(kw))
