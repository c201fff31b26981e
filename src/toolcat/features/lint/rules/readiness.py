"""Model readiness: what a model needs to call a tool well (MR401-MR404)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Tool

_TYPE_HINTS = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not", "properties",
               "items", "format", "$dynamicRef")
# tokens that open one more level of nesting in the argument value
_NESTING = frozenset({"properties", "patternProperties", "additionalProperties", "items",
                      "prefixItems", "additionalItems", "unevaluatedProperties",
                      "unevaluatedItems", "contains", "dependentSchemas"})
_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "prefixItems"})


def _params(tool: Tool) -> Any:
    s = tool.input_schema
    if isinstance(s, dict) and isinstance(s.get("properties"), dict):
        return s["properties"]
    return {}


@rule("MR401", "parameter-without-description", "warning",
      "a top-level parameter has no description", prose=True)
def parameter_without_description(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a top-level parameter that has no description.

    ## Why
    The description of each argument is what a model reads to fill it in: its meaning, units,
    format and how it relates to the others. A parameter with only a name and a type invites
    guesses.

    ## Not reported
    Parameters that are only a `$ref` are skipped (the referenced schema may carry the
    description). Not checked on compact views, which leave schema prose out on purpose (it goes
    to the handbook): OpenWOP compact catalogs, MCP results that declare
    `"_meta": {"toolcat/view": "compact"}` (`toolcat project --to mcp` writes it), tool arrays
    whose file name contains "compact" (like `tools.compact.json`), and any catalog linted with
    `--view compact`.

    ## Example
    ```json
    {"tools": [{"name": "get_weather", "description": "Get the weather forecast for a city.",
                "inputSchema": {"type": "object", "properties": {
                  "city": {"type": "string"}, "days": {"type": "integer"}}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "get_weather", "description": "Get the weather forecast for a city.",
                "inputSchema": {"type": "object", "properties": {
                  "city": {"type": "string", "description": "City name, e.g. Paris."},
                  "days": {"type": "integer", "description": "Days ahead, 1 to 7."}}}}]}
    ```
    """
    for name, p in _params(tool).items():
        if not isinstance(p, dict) or "$ref" in p:
            continue
        d = p.get("description")
        if not isinstance(d, str) or not d.strip():
            yield Hit(f"parameter {name!r} has no description",
                      "/inputSchema/properties/" + jp.escape(name))


@rule("MR402", "single-value-enum", "info", "an `enum` with exactly one value", scope="node",
      keys=("enum",), pure=True)
def single_value_enum(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports an `enum` with exactly one value.

    ## Why
    An `enum` with one value is a constant: `const` is clearer to models and to strict-mode
    providers.

    ## Example
    ```json
    {"tools": [{"name": "export", "description": "Export the report.",
                "inputSchema": {"type": "object", "properties": {
                  "format": {"type": "string", "description": "File format.",
                             "enum": ["pdf"]}}}}]}
    ```

    ## Fix
    Write `const`, or drop the parameter and fill the value in server-side, which also saves the
    tokens of describing it:
    ```json
    {"tools": [{"name": "export", "description": "Export the report.",
                "inputSchema": {"type": "object", "properties": {
                  "format": {"type": "string", "description": "File format.",
                             "const": "pdf"}}}}]}
    ```
    """
    node = n.node
    if isinstance(node, dict):
        e = node.get("enum")
        if isinstance(e, list) and len(e) == 1:
            yield Hit("enum has a single value (use const, or drop the parameter)",
                      n.ptr("enum"))


def nesting_depth(path: tuple) -> int:
    """Object/array nesting levels of the value a node describes (from the last `$defs`)."""
    depth = 0
    i = 0
    while i < len(path):
        tok = path[i]
        if tok in ("$defs", "definitions"):
            depth = 0
            i += 2
            continue
        if tok in _NESTING:
            depth += 1
            i += 2 if tok in _MAPS else 1
            continue
        i += 1
    return depth


@rule("MR403", "deep-nesting", "info",
      "arguments nested deeper than the configured maximum (default 5 levels)", scope="node",
      keys=_NESTING)
def deep_nesting(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports arguments nested deeper than the configured maximum: a schema node `max-depth`
    object/array levels below the arguments that nests further is reported, once per such node.
    Depth restarts inside `$defs` (references are not followed).

    ## Why
    Models fill deeply nested arguments poorly, and providers limit nesting (OpenAI strict mode
    allows 10 levels).

    ## Example
    ```json max-depth=2
    {"tools": [{"name": "order", "description": "Place an order.",
                "inputSchema": {"type": "object", "properties": {
                  "items": {"type": "array", "items": {"type": "object", "properties": {
                    "options": {"type": "object", "properties": {
                      "color": {"type": "string"}}}}}}}}}]}
    ```

    ## Fix
    Flatten the arguments (`options.color` as a top-level `color`), or split the tool.

    ## Options
    `max-depth` in the configuration (default 5).
    """
    limit = ctx.config.max_depth
    node = n.node
    if len(n.path) < limit or not isinstance(node, dict):  # each level adds a path token
        return
    if nesting_depth(n.path) != limit:
        return
    if any(isinstance(node.get(k), (dict, list)) and node[k] for k in _NESTING):
        yield Hit(f"arguments nest more than {limit} levels deep here (max-depth {limit})",
                  n.ptr())


@rule("MR404", "parameter-without-type", "info",
      "a top-level parameter says nothing about its type")
def parameter_without_type(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a top-level parameter that says nothing about its type: a parameter schema without
    `type`, `enum`, `const`, a reference or a combinator.

    ## Why
    Such a parameter accepts any JSON value, so a model must guess between a string, a number
    and an object.

    ## Example
    ```json
    {"tools": [{"name": "set_limit", "description": "Set the rate limit of the account.",
                "inputSchema": {"type": "object", "properties": {
                  "limit": {"description": "Requests per minute."}}}}]}
    ```

    ## Fix
    Say what the argument is:
    ```json
    {"tools": [{"name": "set_limit", "description": "Set the rate limit of the account.",
                "inputSchema": {"type": "object", "properties": {
                  "limit": {"type": "integer", "description": "Requests per minute."}}}}]}
    ```
    """
    for name, p in _params(tool).items():
        if isinstance(p, dict) and not any(k in p for k in _TYPE_HINTS):
            yield Hit(f"parameter {name!r} has no type", "/inputSchema/properties/" + jp.escape(name))
