"""Provider profiles (PV501-PV507): what OpenAI strict mode, Anthropic and Gemini accept.

Every fact comes from :data:`toolcat.lint.profiles.PROVIDERS`; these rules run only when the
profile names a provider (``openai-strict``, ``anthropic``, ``gemini``).
"""

from __future__ import annotations

from typing import Any, Iterator

from toolcat.document import pointer as jp
from toolcat.lint.registry import Hit, rule
from toolcat.schema.walker import iter_schemas

_COMBINATORS = ("anyOf", "oneOf", "allOf")


def _is_object_schema(node: dict) -> bool:
    t = node.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or \
        (t is None and "properties" in node)


@rule("PV501", "provider-unsupported-keyword", "error",
      "a keyword the target provider does not accept in a tool schema", scope="node")
def unsupported_keyword(ctx, tool, n) -> Iterator[Hit]:
    """Providers accept a subset of JSON Schema in tool parameters, and reject a request
    (often the whole tool list) that uses anything else. OpenAI strict mode rejects e.g.
    `allOf`, `oneOf`, `not`, `if`/`then`/`else`, `patternProperties`, `minLength`,
    `uniqueItems` and `default`; Gemini's `parameters` Schema object is closed (only `type`,
    `format`, `description`, `nullable`, `enum`, `properties`, `required`, `items`, `anyOf`,
    bounds and a few more; `$ref`, `$schema` or `additionalProperties` are rejected).
    With the `anthropic` profile, keywords unsupported only in strict tool use are reported
    as info. The keyword sets and their sources are in the provider table
    (`toolcat/lint/profiles.py`)."""
    p = ctx.provider
    node = n.node
    if p is None or not isinstance(node, dict):
        return
    if p.allowed is not None:
        for key in node:
            if key not in p.allowed:
                yield Hit(f"`{key}` is not accepted by {p.title}", n.ptr(key))
    else:
        for key in node:
            if key in p.unsupported:
                yield Hit(f"`{key}` is not supported by {p.title}", n.ptr(key))
    for key in p.strict_subset_unsupported:
        if key in node:
            yield Hit(f"`{key}` is not supported with strict: true ({p.title})", n.ptr(key),
                      severity="info")


@rule("PV502", "strict-additional-properties", "error",
      "strict mode: an object schema without `additionalProperties: false`", scope="node")
def strict_additional_properties(ctx, tool, n) -> Iterator[Hit]:
    """OpenAI strict mode requires `additionalProperties: false` on every object schema,
    nested ones included; the request is rejected otherwise."""
    p = ctx.provider
    node = n.node
    if p is None or not p.strict_objects or not isinstance(node, dict):
        return
    if _is_object_schema(node) and node.get("additionalProperties") is not False:
        yield Hit("object schema must set additionalProperties: false (strict mode)", n.ptr())


@rule("PV503", "strict-all-required", "error",
      "strict mode: a property that is not listed in `required`", scope="node")
def strict_all_required(ctx, tool, n) -> Iterator[Hit]:
    """OpenAI strict mode requires every property of every object to be listed in
    `required`. An optional argument is written as a required one whose type admits null
    (`"type": ["string", "null"]`)."""
    p = ctx.provider
    node = n.node
    if p is None or not p.strict_objects or not isinstance(node, dict):
        return
    props = node.get("properties")
    if not isinstance(props, dict):
        return
    req = node.get("required")
    req = set(req) if isinstance(req, list) else set()
    for name in props:
        if name not in req:
            yield Hit(f"property {name!r} must be listed in required (strict mode; make it "
                      "nullable to keep it optional)", n.ptr("properties", name))


def _nesting(path: tuple) -> int:
    return sum(1 for t in path if t == "properties") + \
        sum(1 for t in path if t in ("items", "additionalProperties"))


@rule("PV504", "provider-size-limit", "error",
      "a tool schema exceeds the provider's size limits (properties, nesting, enum values, "
      "characters)")
def size_limits(ctx, tool) -> Iterator[Hit]:
    """Providers cap how big one tool schema may be. OpenAI strict mode: at most 5,000 object
    properties in all, 10 levels of nesting, 1,000 enum values in all, 120,000 characters of
    property names, definition names and enum/const values together, and 15,000 characters
    for a string enum of more than 250 values. Figures and sources: the provider table."""
    p = ctx.provider
    s = tool.input_schema
    if p is None or not isinstance(s, (dict, bool)):
        return
    if not any((p.max_properties, p.max_depth, p.max_enum_values, p.max_string_chars,
                p.large_enum_values)):
        return
    props = enums = chars = depth = 0
    deepest = ""
    for path, node, _d in iter_schemas(s, tool.dialect):
        if not isinstance(node, dict):
            continue
        pr = node.get("properties")
        if isinstance(pr, dict):
            props += len(pr)
            chars += sum(len(k) for k in pr)
        for dk in ("$defs", "definitions"):
            dv = node.get(dk)
            if isinstance(dv, dict):
                chars += sum(len(k) for k in dv)
        lvl = _nesting(path) + (1 if _is_object_schema(node) else 0)
        if lvl > depth:
            depth, deepest = lvl, jp.encode(path)
        e = node.get("enum")
        if isinstance(e, list):
            enums += len(e)
            echars = sum(len(v) for v in e if isinstance(v, str))
            chars += echars
            if p.large_enum_values and len(e) > p.large_enum_values and p.large_enum_chars \
                    and echars > p.large_enum_chars:
                yield Hit(f"string enum of {len(e)} values holds {echars:,} characters (max "
                          f"{p.large_enum_chars:,} above {p.large_enum_values} values)",
                          "/inputSchema" + jp.encode(path + ("enum",)))
        c = node.get("const")
        if isinstance(c, str):
            chars += len(c)
    checks = ((p.max_properties, props, "object properties"),
              (p.max_enum_values, enums, "enum values"),
              (p.max_string_chars, chars, "characters of names and enum/const values"))
    for limit, value, what in checks:
        if limit is not None and value > limit:
            yield Hit(f"{value:,} {what} (max {limit:,} for {p.title})", "/inputSchema")
    if p.max_depth is not None and depth > p.max_depth:
        yield Hit(f"objects nest {depth} levels deep (max {p.max_depth})",
                  "/inputSchema" + deepest)


@rule("PV505", "provider-root-schema", "error",
      "the provider's rules for the top of a tool schema (an object; no top-level "
      "combinators)")
def root_schema(ctx, tool) -> Iterator[Hit]:
    """Providers want the parameters schema to be an object schema. OpenAI strict mode
    rejects a root `anyOf`; Anthropic rejects `oneOf`, `allOf` or `anyOf` at the top level of
    `input_schema` ("input_schema does not support oneOf, allOf, or anyOf at the top level"),
    failing every request that lists the tool."""
    p = ctx.provider
    if p is None:
        return
    s = tool.input_schema
    if not isinstance(s, dict):
        if s is not None or p.root_must_be_object:
            yield Hit(f"the parameters schema must be an object schema for {p.title}",
                      "/inputSchema")
        return
    if p.root_must_be_object and s.get("type") != "object":
        yield Hit(f"top-level type must be \"object\" for {p.title}", "/inputSchema")
    for key in _COMBINATORS:
        if key in s and key in p.root_forbidden:
            yield Hit(f"`{key}` at the top level is rejected by {p.title}",
                      "/inputSchema/" + key)


@rule("PV506", "provider-tool-count", "error",
      "more tools than the provider accepts in one request", scope="catalog")
def tool_count(ctx) -> Iterator[Hit]:
    """OpenAI accepts at most 128 functions in one request's `tools`. A larger catalog has
    to be split or filtered before it is sent."""
    p = ctx.provider
    if p is None or p.max_tools is None:
        return
    n = len(ctx.catalog.tools)
    if n > p.max_tools:
        yield Hit(f"{n} tools (max {p.max_tools} for {p.title})", "", None,
                  file=ctx.catalog.file)


def _non_string(values: list) -> Any:
    for v in values:
        if not isinstance(v, str):
            return v
    return None


@rule("PV507", "provider-value-form", "error",
      "a keyword value in a form the provider does not accept (type arrays, non-string "
      "enums)", scope="node")
def value_form(ctx, tool, n) -> Iterator[Hit]:
    """Some providers accept a keyword but not every JSON Schema spelling of it. Gemini's
    Schema takes one `type` (write `nullable: true` instead of `["string", "null"]`) and
    `enum` values that are strings."""
    p = ctx.provider
    node = n.node
    if p is None or not isinstance(node, dict):
        return
    if not p.type_arrays and isinstance(node.get("type"), list):
        yield Hit(f"`type` must be a single type for {p.title} (use nullable for null)",
                  n.ptr("type"))
    e = node.get("enum")
    if p.enum_strings_only and isinstance(e, list):
        bad = _non_string(e)
        if bad is not None:
            yield Hit(f"enum values must be strings for {p.title} (found {bad!r})", n.ptr("enum"))
