"""Provider profiles (PV501-PV510): what OpenAI (strict and not), Anthropic (plain and strict
tool use) and Gemini accept.

Every fact comes from :data:`toolcat.formats.providers.PROVIDERS`; these rules run only when the
profile names a provider. A strict row's schema rules apply to the tools sent with
``strict: true``: a tool whose descriptor says ``"strict": false`` is not checked by them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule
from toolcat.formats.providers import (
    STRICT_TYPED_KEYS,
    is_object_schema,
    recursive_refs,
    size_violations,
    strict_budget,
)

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.formats.providers import Client, Provider
    from toolcat.model import Tool

_COMBINATORS = ("anyOf", "oneOf", "allOf")


def strict_applies(p: Provider, tool: Tool) -> bool:
    """Do ``p``'s schema rules apply to ``tool``? (A strict row: unless it says strict false.)"""
    return not p.strict or tool.extra.get("strict") is not False


def _provider(ctx: Context, tool: Tool) -> Provider | None:
    p = ctx.provider
    return p if p is not None and strict_applies(p, tool) else None


_PATTERNS: dict[str, re.Pattern] = {}


def _pattern(p: str) -> re.Pattern:
    rx = _PATTERNS.get(p)
    if rx is None:
        rx = _PATTERNS[p] = re.compile(p)
    return rx


def _short(s: str, n: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


@rule("PV501", "provider-unsupported-keyword", "error",
      "a keyword the target provider does not accept in a tool schema", scope="node")
def unsupported_keyword(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a keyword the target provider does not accept in a tool schema. OpenAI strict mode
    rejects e.g. `allOf`, `oneOf`, `not`, `if`/`then`/`else`, `patternProperties`, `minLength`,
    `uniqueItems` and `default`; Gemini's `parameters` Schema object is closed (only `type`,
    `format`, `description`, `nullable`, `enum`, `properties`, `required`, `items`, `anyOf`,
    bounds and a few more; `$ref`, `$schema` or `additionalProperties` are rejected). With the
    `anthropic` profile, keywords unsupported only in strict tool use are reported as info.

    ## Why
    Providers accept a subset of JSON Schema in tool parameters, and reject a request (often the
    whole tool list) that uses anything else.

    ## Example
    ```json profile=gemini
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                                "additionalProperties": false}}]}
    ```

    ## Fix
    Drop the keyword (say in the description what it said), or let `toolcat project --to` the
    provider's target rewrite the schema:
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
    ```

    ## Sources
    The keyword sets and their sources are in the provider table
    (`toolcat/formats/providers.py`).
    """
    p = _provider(ctx, tool)
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
def strict_additional_properties(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Strict mode: reports an object schema without `additionalProperties: false`, nested ones
    included.

    ## Why
    OpenAI strict mode requires `additionalProperties: false` on every object schema; the
    request is rejected otherwise.

    ## Example
    ```json profile=openai-strict
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                                "required": ["q"]}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                                "required": ["q"], "additionalProperties": false}}]}
    ```
    """
    p = _provider(ctx, tool)
    node = n.node
    if p is None or not p.strict_objects or not isinstance(node, dict):
        return
    if is_object_schema(node) and node.get("additionalProperties") is not False:
        yield Hit("object schema must set additionalProperties: false (strict mode)", n.ptr())


@rule("PV503", "strict-all-required", "error",
      "strict mode: a property that is not listed in `required`", scope="node")
def strict_all_required(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Strict mode: reports a property that is not listed in `required`.

    ## Why
    OpenAI strict mode requires every property of every object to be listed in `required`.

    ## Example
    ```json profile=openai-strict
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string"}, "limit": {"type": "integer"}},
                  "required": ["q"], "additionalProperties": false}}]}
    ```

    ## Fix
    An optional argument is written as a required one whose type admits null
    (`"type": ["string", "null"]`):
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
                  "required": ["q", "limit"], "additionalProperties": false}}]}
    ```
    """
    p = _provider(ctx, tool)
    node = n.node
    if p is None or not p.all_required or not isinstance(node, dict):
        return
    props = node.get("properties")
    if not isinstance(props, dict):
        return
    req = node.get("required")
    req = {x for x in req if isinstance(x, str)} if isinstance(req, list) else set()
    for name in props:
        if name not in req:
            yield Hit(f"property {name!r} must be listed in required (strict mode; make it "
                      "nullable to keep it optional)", n.ptr("properties", name))


@rule("PV504", "provider-size-limit", "error",
      "a tool schema exceeds the provider's size limits (properties, nesting, enum values, "
      "characters)")
def size_limits(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool schema that exceeds the provider's size limits (properties, nesting, enum
    values, characters). OpenAI strict mode: at most 5,000 object properties in all, 10 levels
    of nesting, 1,000 enum values in all, 120,000 characters of property names, definition names
    and enum/const values together, and 15,000 characters for a string enum of more than 250
    values.

    ## Why
    Providers cap how big one tool schema may be, and refuse a request with a larger one.

    ## Example
    Eleven levels of objects:
    ```json profile=openai-strict
    {"tools": [{"name": "deep", "description": "Store a deeply nested value.",
     "inputSchema":
    {"type": "object", "properties": {"a":
      {"type": "object", "properties": {"a":
        {"type": "object", "properties": {"a":
          {"type": "object", "properties": {"a":
            {"type": "object", "properties": {"a":
              {"type": "object", "properties": {"a":
                {"type": "object", "properties": {"a":
                  {"type": "object", "properties": {"a":
                    {"type": "object", "properties": {"a":
                      {"type": "object", "properties": {"a":
                        {"type": "object", "properties": {"a":
                          {"type": "string"}
    }}}}}}}}}}}}}}}}}}}}}}
    }]}
    ```

    ## Fix
    Flatten the schema, split the tool, or move long enums into the description.

    ## Sources
    Figures and sources: the provider table.
    """
    p = _provider(ctx, tool)
    s = tool.input_schema
    if p is None or not isinstance(s, (dict, bool)):
        return
    for message, ptr in size_violations(p, s, tool.dialect):
        yield Hit(message, ptr)


@rule("PV505", "provider-root-schema", "error",
      "the provider's rules for the top of a tool schema (an object; no top-level "
      "combinators)")
def root_schema(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks the provider's rules for the top of a tool schema: an object schema, no top-level
    combinators. OpenAI strict mode rejects a root `anyOf`, and (strict or not) an object schema
    without `properties` at the top ("object schema missing properties": a tool without
    arguments needs `"properties": {}`); Anthropic rejects `oneOf`, `allOf` or `anyOf` at the
    top level of `input_schema` ("input_schema does not support oneOf, allOf, or anyOf at the top
    level").

    ## Why
    Providers want the parameters schema to be an object schema; a refused one fails every
    request that lists the tool.

    ## Example
    ```json profile=anthropic
    {"tools": [{"name": "find", "description": "Find a user by id or by e-mail.",
                "inputSchema": {"type": "object", "properties": {
                                  "id": {"type": "string"}, "email": {"type": "string"}},
                                "oneOf": [{"required": ["id"]}, {"required": ["email"]}]}}]}
    ```

    ## Fix
    Move the alternatives into the properties (and the description), or let `toolcat project
    --for claude-code` merge them where that is exact.
    """
    p = ctx.provider
    if p is None:
        return
    s = tool.input_schema
    if s is None and not p.strict:
        return   # no parameters: the function takes none (OpenAI, Gemini, Anthropic alike)
    if not isinstance(s, dict):
        if s is not None or p.root_must_be_object:
            yield Hit(f"the parameters schema must be an object schema for {p.title}",
                      "/inputSchema")
        return
    if p.root_must_be_object and s.get("type") != "object":
        yield Hit(f"top-level type must be \"object\" for {p.title}", "/inputSchema")
    elif p.root_properties and "properties" not in s:
        yield Hit(f"top-level object schema without properties is refused by {p.title} "
                  "(\"object schema missing properties\"; write \"properties\": {})",
                  "/inputSchema")
    for key in _COMBINATORS:
        if key in s and key in p.root_forbidden:
            yield Hit(f"`{key}` at the top level is rejected by {p.title}",
                      "/inputSchema/" + key)


@rule("PV506", "provider-tool-count", "error",
      "more tools than the provider accepts in one request", scope="catalog")
def tool_count(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports more tools than the provider accepts in one request: OpenAI accepts at most 128
    functions in one request's `tools`; Anthropic at most 20 strict tools.

    With a client's profile (`--profile vscode`), also more tools than that client sends in
    one request: VS Code Copilot at most 128, Windsurf 100, Cursor 40 (the sources are in the
    client table, `toolcat rule SU601`).

    ## Why
    A larger catalog fails the request: it has to be split or filtered before it is sent. A
    client over its own limit fails the request (VS Code: "Cannot have more than 128 tools per
    request") or leaves tools out.

    ## Example
    ```json profile=openai repeat=129
    {"tools": [{"name": "get_record", "description": "Get a record of the table by id.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Split or filter the catalog, or defer tools behind a tool search (`toolcat project
    --defer`).
    """
    p = ctx.provider
    n = len(ctx.catalog.tools)
    c = ctx.client
    if c is not None and c.max_tools is not None and n > c.max_tools:
        yield Hit(f"{n} tools (max {c.max_tools} for {c.title} in one request: "
                  + " ".join(c.cites.get("max_tools", c.sources)) + ")", "", None,
                  file=ctx.catalog.file)
    if p is None:
        return
    if p.max_tools is not None and n > p.max_tools:
        yield Hit(f"{n} tools (max {p.max_tools} for {p.title})", "", None,
                  file=ctx.catalog.file)
    if p.max_strict_tools is not None:
        strict = sum(1 for t in ctx.catalog.tools if t.invalid is None and strict_applies(p, t))
        if strict > p.max_strict_tools:
            yield Hit(f"{strict} strict tools (max {p.max_strict_tools} for {p.title}; set "
                      "\"strict\": false on the others)", "", None, file=ctx.catalog.file)


def _non_string(values: list) -> Any:
    for v in values:
        if not isinstance(v, str):
            return v
    return None


@rule("PV507", "provider-value-form", "error",
      "a keyword value in a form the provider does not accept (type arrays, non-string "
      "enums, unsupported formats, minItems values)", scope="node")
def value_form(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a keyword value in a form the provider does not accept (type arrays, non-string
    enums, unsupported formats, `minItems` values): Gemini's Schema takes one `type` and `enum`
    values that are strings; OpenAI strict mode and Anthropic strict tool use accept a fixed list
    of string `format`s; Anthropic strict tool use accepts `minItems` 0 or 1 only.

    ## Why
    Some providers accept a keyword but not every JSON Schema spelling of it, and refuse the
    request.

    ## Example
    ```json profile=gemini
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "lang": {"type": ["string", "null"]}}}}]}
    ```

    ## Fix
    For Gemini, write `nullable: true` instead of `["string", "null"]`:
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "lang": {"type": "string", "nullable": true}}}}]}
    ```
    """
    p = _provider(ctx, tool)
    node = n.node
    if p is None or not isinstance(node, dict):
        return
    if p.formats is not None and isinstance(node.get("format"), str) \
            and node["format"] not in p.formats:
        yield Hit(f"format {node['format']!r} is not supported by {p.title} (supported: "
                  f"{', '.join(sorted(p.formats))})", n.ptr("format"))
    mi = node.get("minItems")
    if p.min_items_values is not None and "minItems" in node \
            and not (isinstance(mi, int) and not isinstance(mi, bool)
                     and mi in p.min_items_values):
        yield Hit(f"minItems {mi!r} is not supported by {p.title} (only "
                  f"{' or '.join(str(v) for v in sorted(p.min_items_values))})",
                  n.ptr("minItems"))
    if not p.type_arrays and isinstance(node.get("type"), list) \
            and not _written_nullable(tool, n):
        how = "use nullable for null" if p.openapi_schema else "use anyOf of single types"
        yield Hit(f"`type` must be a single type for {p.title} ({how})", n.ptr("type"))
    e = node.get("enum")
    if p.enum_strings_only and isinstance(e, list):
        bad = _non_string(e)
        if bad is not None:
            yield Hit(f"enum values must be strings for {p.title} (found {bad!r})", n.ptr("enum"))


def _written_nullable(tool: Tool, n: Any) -> bool:
    """Is ``n``'s ``[type, "null"]`` a Gemini declaration's ``nullable: true`` as read
    (:func:`toolcat.formats.gemini.json_schema`): the file says it as Gemini takes it. The
    tool's origin maps the node to the declaration's own (the reader records each wrap)."""
    params = tool.raw.get("parameters") if isinstance(tool.raw, dict) else None
    if not isinstance(params, dict) or n.role != "input" or n.base != "/inputSchema":
        return False
    file, src = tool.source_pointer(jp.join(n.base, n.path))
    if file != tool.file or not src.startswith(tool.pointer + "/"):
        return False
    written = jp.resolve(tool.raw, jp.decode(src[len(tool.pointer):]), None)
    return isinstance(written, dict) and written.get("nullable") is True \
        and isinstance(written.get("type"), str)


@rule("PV508", "provider-tool-name", "error",
      "the tool name does not match the provider's name rule (OpenAI and Anthropic: "
      "`^[a-zA-Z0-9_-]{1,64}$`)")
def provider_tool_name(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool name that does not match the provider's name rule: OpenAI and Anthropic
    accept `^[a-zA-Z0-9_-]{1,64}$`, Gemini names start with a letter or `_` and may hold `.`,
    `:` and `-` (64 characters at most).

    ## Why
    Each provider has its own rule for function names, stricter than MCP's (which allows 128
    characters and dots, e.g. `admin.tools.list`). A request listing a tool with another name is
    rejected, so an MCP catalog that is fine for MCP clients is not portable to that provider.

    ## Example
    ```json profile=openai
    {"tools": [{"name": "admin.tools.list", "description": "List the admin tools.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "admin_tools_list", "description": "List the admin tools.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    p = ctx.provider
    tid = tool.id
    if p is None or not isinstance(tid, str) or not tid.strip():
        return
    if not _pattern(p.name_pattern).match(tid):
        yield Hit(f"tool name {_short(tid)!r} does not match {p.name_pattern} ({p.title})",
                  ctx.cache["id_pointer"])


@rule("PV509", "provider-recursive-schema", "error",
      "a recursive `$ref` where the provider accepts none (Anthropic strict tool use)")
def recursive_schema(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a recursive `$ref` (a `$ref` that leads back to itself) where the provider accepts
    none (Anthropic strict tool use).

    ## Why
    Anthropic strict tool use compiles the schema into a grammar and does not support recursive
    schemas. OpenAI strict mode supports them (`"$ref": "#"` or through `$defs`).

    ## Example
    ```json profile=anthropic-strict
    {"tools": [{"name": "make_tree", "description": "Create a tree of folders.",
                "inputSchema": {"type": "object", "properties": {
                  "root": {"$ref": "#/$defs/Node"}},
                  "$defs": {"Node": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}]}
    ```

    ## Fix
    Bound the depth (write out the levels the tool takes), or send the tool without `strict`.
    """
    p = _provider(ctx, tool)
    s = tool.input_schema
    if p is None or p.recursion or not isinstance(s, dict):
        return
    for path in recursive_refs(s, tool.dialect):
        yield Hit(f"recursive $ref is not supported by {p.title}",
                  "/inputSchema" + jp.encode(path + ("$ref",)))


@rule("PV511", "strict-untyped-schema", "error",
      "strict mode: a schema of any value (no `type`, `enum`, `const`, `anyOf`, `$ref`...)",
      scope="node")
def strict_untyped_schema(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Strict mode: reports a schema of any value (no `type`, `enum`, `const`, `anyOf`, `$ref`...):
    a parameter of any value (`{}`, or only a description).

    ## Why
    Strict modes compile the schema into a grammar and need a type for every schema: such a
    parameter is refused by OpenAI strict mode, and both providers' SDKs stop their strict
    transform on it.

    ## Example
    ```json profile=openai-strict
    {"tools": [{"name": "store", "description": "Store a value under a key.",
                "inputSchema": {"type": "object", "properties": {
                  "value": {"description": "Any JSON value."}},
                  "required": ["value"], "additionalProperties": false}}]}
    ```

    ## Fix
    Give it a type (or an `anyOf` of the types it takes), or send the tool with
    `"strict": false`, as `toolcat project --to openai-strict` does.
    """
    p = _provider(ctx, tool)
    node = n.node
    if p is None or not p.strict:
        return
    if node is True or (isinstance(node, dict) and not any(k in node for k in
                                                             STRICT_TYPED_KEYS)):
        yield Hit("a schema of any value: strict mode needs a type, an enum, a const or "
                  "anyOf here", n.ptr())


@rule("PV510", "strict-request-budget", "error",
      "the strict tools of one request exceed the provider's totals (Anthropic: 24 optional "
      "and 16 union-typed parameters)", scope="catalog")
def strict_request_budget(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports the strict tools of one request that exceed the provider's totals: Anthropic strict
    tool use caps them at 24 optional parameters and 16 parameters whose type is a union
    (`["string", "null"]` counts, as does `anyOf`) over all strict tools together.

    ## Why
    Anthropic strict tool use compiles every strict tool of a request into one grammar and caps
    its size. A request beyond them fails.

    ## Example
    Thirteen tools of two optional parameters each:
    ```json profile=anthropic-strict repeat=13
    {"tools": [{"name": "search", "description": "Search a table of the database.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string"}, "limit": {"type": "integer"}},
                  "additionalProperties": false}}]}
    ```

    ## Fix
    Send the other tools without `strict`.
    """
    p = ctx.provider
    if p is None or (p.max_optional is None and p.max_unions is None):
        return
    optional = unions = 0
    for t in ctx.catalog.tools:
        if t.invalid is None and strict_applies(p, t) and isinstance(t.input_schema, dict):
            o, u = strict_budget(t.input_schema, t.dialect)
            optional += o
            unions += u
    if p.max_optional is not None and optional > p.max_optional:
        yield Hit(f"{optional} optional parameters in strict tools (max {p.max_optional} per "
                  f"request for {p.title})", "", None, file=ctx.catalog.file)
    if p.max_unions is not None and unions > p.max_unions:
        yield Hit(f"{unions} union-typed parameters in strict tools (max {p.max_unions} per "
                  f"request for {p.title})", "", None, file=ctx.catalog.file)


# --------------------------------------------------------------------------- MCP clients
# (issue 33: the rows of toolcat.formats.providers.CLIENTS, with `lint --profile CLIENT`)

_REF_KEYS = ("$ref", "$defs", "definitions")


def _cite(c: Client, fact: str) -> str:
    urls = c.cites.get(fact) or c.sources
    return f" ({urls[0]})" if urls else ""


@rule("PV512", "client-ref", "error",
      "a `$ref`/`$defs` in a tool schema for an MCP client that strips or refuses them",
      scope="node")
def client_ref(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a `$ref`/`$defs` in a tool schema for an MCP client that strips or refuses them.

    ## Why
    Several MCP clients do not take JSON Schema references in a tool schema: VS Code Copilot and
    Claude Desktop strip `$defs` and send the dangling `$ref` on (the model's provider then
    refuses the request, or the parameter loses its type); Copilot CLI, Gemini CLI, Kiro,
    opencode and Bedrock AgentCore fail on the tool (or the whole server).

    ## Example
    ```json profile=copilot-cli
    {"tools": [{"name": "ship", "description": "Ship an order to an address.",
                "inputSchema": {"type": "object", "properties": {
                  "to": {"$ref": "#/$defs/Address"}},
                  "$defs": {"Address": {"type": "string"}}}}]}
    ```

    ## Fix
    Inline them: `toolcat project --to mcp` never adds one to a schema that had none.
    ```json
    {"tools": [{"name": "ship", "description": "Ship an order to an address.",
                "inputSchema": {"type": "object", "properties": {
                  "to": {"type": "string"}}}}]}
    ```

    ## Sources
    Facts and sources: the client table (`toolcat/formats/providers.py`).
    """
    c = getattr(ctx, "client", None)
    node = n.node
    if c is None or not c.refs or not isinstance(node, dict):
        return
    for key in _REF_KEYS:
        if key in node:
            verb = "strips `$defs` (and sends `$ref` dangling)" if c.refs == "stripped" \
                else "refuses `$ref`/`$defs`"
            yield Hit(f"`{key}`: {c.title} {verb}{_cite(c, 'refs')}",
                      n.ptr(key))


@rule("PV513", "client-dialect", "error",
      "a tool schema declares a `$schema` dialect the MCP client does not take")
def client_dialect(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool schema that declares a `$schema` dialect the MCP client does not take.

    ## Why
    Claude Desktop (and Cowork) and Claude Code validate tool schemas with the MCP TypeScript
    SDK's 2020-12-only validator and refuse every tool whose `inputSchema` or `outputSchema`
    declares another dialect ("JSON Schema declares an unsupported dialect (...draft-07...). The
    default validator supports JSON Schema 2020-12 only").

    ## Example
    ```json profile=claude-desktop
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                                "type": "object", "properties": {"q": {"type": "string"}}}}]}
    ```

    ## Fix
    Declare 2020-12 (after rewriting draft-07-only forms: tuple `items`, `additionalItems`,
    `definitions`) or leave `$schema` out:
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
    ```
    """
    from toolcat.schema.keywords import dialect_from_uri

    c = getattr(ctx, "client", None)
    if c is None or not c.dialects:
        return
    for key, s in (("/inputSchema", tool.input_schema), ("/outputSchema", tool.output_schema)):
        if not isinstance(s, dict) or not isinstance(s.get("$schema"), str):
            continue
        d = dialect_from_uri(s["$schema"], "")
        if d not in c.dialects:
            yield Hit(f"$schema {s['$schema']!r} declares {d or 'an unknown dialect'}: "
                      f"{c.title} takes JSON Schema {', '.join(c.dialects)} only"
                      f"{_cite(c, 'dialects')}", key + "/$schema")


@rule("PV514", "client-root-properties", "error",
      "a top-level object schema without `properties` for an MCP client that refuses it")
def client_root_properties(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a top-level object schema without `properties` for an MCP client that refuses it.

    ## Why
    GitHub Copilot CLI sends a tool without parameters, `{"type": "object"}`, on to models that
    refuse it ("object schema missing properties") and every prompt fails while the server is
    connected.

    ## Example
    ```json profile=copilot-cli
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object"}}]}
    ```

    ## Fix
    Write `"properties": {}`:
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    c = getattr(ctx, "client", None)
    s = tool.input_schema
    if c is None or not c.root_properties or not isinstance(s, dict):
        return
    if "properties" not in s:
        yield Hit(f"top-level object schema without properties: {c.title} refuses it"
                  f"{_cite(c, 'root_properties')}", "/inputSchema")


@rule("PV515", "client-tool-name-length", "error",
      "a tool's name, with the MCP client's prefix, is longer than its provider accepts")
def client_tool_name_length(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool whose name, with the MCP client's prefix, is longer than its provider accepts.
    Claude Code sends a server's tool as `mcp__<server>__<tool>` (a plugin's server:
    `mcp__plugin_<plugin>_<server>__<tool>`). The server's name is the catalog's (a live server's
    configured name, else the file's name up to its first dot); a live setup reports the same as
    SU602.

    ## Why
    Anthropic's API refuses a request with a tool name over 64 characters ("tool_name: String
    should have at most 64 characters"): every request of the session fails while the server is
    connected.

    ## Example
    ```json profile=claude-code file=github.json
    {"tools": [{"name": "list_repository_security_advisories_for_organization",
                "description": "List the security advisories of an organization's repositories.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Shorten the tool's name or the server's, or serve it through `toolcat serve --for
    claude-code`, which shortens the names that are too long (reported) and routes calls to the
    server's own names.
    """
    from toolcat.formats.providers import server_name

    c = getattr(ctx, "client", None)
    if c is None or c.tool_name is None or c.name_max is None or not isinstance(tool.id, str):
        return
    meta = getattr(ctx.catalog, "meta", None) or {}
    if meta.get("live") is not None or meta.get("setup") is not None:
        return              # SU602 (the setup rules) says it for live servers
    sent = c.sent_name(server_name(ctx.catalog), tool.id)
    if len(sent) > c.name_max:
        yield Hit(f"{c.title} sends this tool as {sent!r}: {len(sent)} characters, more than "
                  f"{c.name_max}{_cite(c, 'plugin_tool_name')}", "/name")


@rule("PV516", "provider-empty-description", "error",
      "an empty tool description where the provider refuses one (Bedrock: at least 1 "
      "character)")
def provider_empty_description(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool description shorter than the provider accepts: Amazon Bedrock's Converse API
    takes no `description` at all, or one of at least one character (the `bedrock` profile).

    ## Why
    Bedrock refuses the whole request (ValidationException: "Invalid length for parameter
    toolConfig.tools[N].toolSpec.description") when one tool says `"description": ""`, so
    every call of the session fails. An empty description is no help to the model either
    (TC107).

    ## Not reported
    A tool without a `description` field (optional in Bedrock; TC107 reports it), and providers
    that take an empty string.

    ## Example
    ```json profile=bedrock
    {"tools": [{"name": "ping", "description": "",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Describe the tool (or leave the field out: `toolcat project --to bedrock` does):
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    p = ctx.provider
    d = tool.description
    if p is None or not isinstance(d, str) or len(d) >= p.description_min:
        return
    yield Hit(f"description of {len(d)} characters: {p.title} refuses one shorter than "
              f"{p.description_min}", "/description")
