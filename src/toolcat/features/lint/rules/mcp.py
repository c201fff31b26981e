"""The MCP specification's rules for a tool (MC101-MC110), per revision (``--mcp-version``).

Sources, by revision (``docs/specification/<rev>/server/tools.mdx``, ``basic/index.mdx`` and
``schema/<rev>/schema.ts`` of github.com/modelcontextprotocol/modelcontextprotocol):

=====================================  ==========  ==========  ==========
rule                                    2025-06-18  2025-11-25  2026-07-28
=====================================  ==========  ==========  ==========
inputSchema is an object, type object   yes         yes         yes
outputSchema root ``type: "object"``    yes         yes         no (any)
no parameters: additionalProperties     -           yes         yes
annotations of the right types          yes         yes         yes
behaviour hints on write-named tools    yes         yes         yes
``icons`` well-formed                   -           yes         yes
``execution.taskSupport``               -           yes         -
``_meta`` key grammar, reserved names   labels      2nd label   2nd label
``x-mcp-header``                        -           -           yes
2020-12 when ``$schema`` is absent      -           yes         yes
tool names 1-128 ``[A-Za-z0-9_.-]``     -           yes         yes (TC102)
=====================================  ==========  ==========  ==========
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from toolcat.config import MCP_VERSIONS
from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule
from toolcat.model import DOCKER, MCP, MCP_CAPTURE

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Catalog, Tool

_MCP = (MCP, MCP_CAPTURE)

_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _rev(ctx: Context) -> str:
    return getattr(ctx.config, "mcp_version", None) or MCP_VERSIONS[-1]


def _raw(tool: Tool) -> dict:
    return tool.raw if isinstance(tool.raw, dict) else {}


@rule("MC101", "input-schema-object", "error",
      "inputSchema is present, an object schema and has top-level `type: \"object\"`")
def input_schema_object(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that every MCP tool has an `inputSchema` that is an object schema with
    `type: "object"` at its root.

    ## Why
    Every MCP tool has an `inputSchema`, "a valid JSON Schema object (not `null`)", and since tool
    arguments are always a JSON object the schema's root says `type: "object"` (the `Tool` type of
    every revision's schema.ts requires it). A client validating `tools/list` (the MCP SDKs do)
    refuses the whole list for one tool that breaks this.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "string"}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object",
                                "properties": {"q": {"type": "string"}}}}]}
    ```
    """
    s = tool.input_schema
    if s is None:
        if ctx.catalog.format in _MCP:
            yield Hit("tool has no inputSchema (required; use {\"type\": \"object\"} for no "
                      "parameters)", "")
        return
    if not isinstance(s, dict):
        yield Hit(f"inputSchema is a {type(s).__name__}, not a JSON Schema object",
                  "/inputSchema")
        return
    if "type" not in s:
        yield Hit("inputSchema has no top-level type (must be \"object\")", "/inputSchema")
    elif s["type"] != "object":
        yield Hit(f"inputSchema top-level type is {s['type']!r}, must be \"object\"",
                  "/inputSchema/type")


@rule("MC102", "output-schema-object", "error",
      "outputSchema has top-level `type: \"object\"` (MCP 2025-06-18 and 2025-11-25)")
def output_schema_object(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that an `outputSchema` has top-level `type: "object"`. The rule only runs for MCP
    2025-06-18 and 2025-11-25 (`--mcp-version`).

    ## Why
    MCP 2025-06-18 and 2025-11-25 type `outputSchema` as an object schema (`type: "object"` at its
    root: structured content is a JSON object). 2026-07-28 allows any JSON Schema there.

    ## Example
    ```json mcp-version=2025-11-25
    {"tools": [{"name": "count", "description": "Count the open issues.",
                "inputSchema": {"type": "object", "properties": {}},
                "outputSchema": {"type": "integer"}}]}
    ```

    ## Fix
    Wrap the result in an object:
    ```json
    {"tools": [{"name": "count", "description": "Count the open issues.",
                "inputSchema": {"type": "object", "properties": {}},
                "outputSchema": {"type": "object",
                                 "properties": {"count": {"type": "integer"}}}}]}
    ```
    """
    if _rev(ctx) == "2026-07-28":
        return
    s = tool.output_schema
    if s is None:
        return
    if not isinstance(s, dict):
        yield Hit(f"outputSchema is a {type(s).__name__}, not a JSON Schema object",
                  "/outputSchema")
    elif s.get("type") != "object":
        yield Hit(f"outputSchema top-level type is {s.get('type')!r}, must be \"object\" "
                  f"in MCP {_rev(ctx)}", "/outputSchema" + ("/type" if "type" in s else ""))


@rule("MC103", "no-parameters-open", "info",
      "a tool without parameters whose inputSchema does not say `additionalProperties: false`")
def no_parameters_open(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool with no parameters whose `inputSchema` does not say `additionalProperties:
    false`.

    ## Why
    For a tool with no parameters the specification (2025-11-25 and later) recommends
    `{"type": "object", "additionalProperties": false}`, which accepts only `{}`; a bare
    `{"type": "object"}` accepts any object, so a model may send arguments the tool ignores.

    ## Example
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object"}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object", "properties": {},
                                "additionalProperties": false}}]}
    ```
    """
    if _rev(ctx) == "2025-06-18":
        return
    s = tool.input_schema
    if not isinstance(s, dict) or s.get("type") != "object":
        return
    props = s.get("properties")
    if props not in (None, {}) or s.get("additionalProperties") is False:
        return
    if any(k in s for k in ("additionalProperties", "patternProperties", "$ref", "allOf",
                            "anyOf", "oneOf", "propertyNames", "unevaluatedProperties")):
        return
    yield Hit("no parameters: write \"additionalProperties\": false (recommended) so only {} "
              "is accepted", "/inputSchema")


@rule("MC104", "annotation-types", "error",
      "`annotations` is an object whose `title` is a string and whose hints are booleans",
      formats=_MCP)
def annotation_types(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that `annotations` is an object whose `title` is a string and whose hints are
    booleans: `ToolAnnotations` (every revision) has `title` a string, `readOnlyHint`,
    `destructiveHint`, `idempotentHint` and `openWorldHint` booleans.

    ## Why
    A client reading `"readOnlyHint": "false"` as truthy may skip the confirmation a destructive
    tool needs.

    ## Example
    ```json
    {"tools": [{"name": "delete_file", "description": "Delete a file.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": "false", "destructiveHint": true}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "delete_file", "description": "Delete a file.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": false, "destructiveHint": true}}]}
    ```
    """
    raw = _raw(tool)
    if "annotations" not in raw:
        return
    ann = raw["annotations"]
    if not isinstance(ann, dict):
        yield Hit(f"annotations is a {type(ann).__name__}, not an object", "/annotations")
        return
    if "title" in ann and not isinstance(ann["title"], str):
        yield Hit(f"annotations.title is {ann['title']!r}, not a string", "/annotations/title")
    for k in _HINTS:
        if k in ann and not isinstance(ann[k], bool):
            yield Hit(f"annotations.{k} is {ann[k]!r}, not a boolean", f"/annotations/{k}")


_SIZE = re.compile(r"^(any|[1-9][0-9]*x[1-9][0-9]*)$")


@rule("MC105", "icons-well-formed", "error",
      "`icons` is an array of `{src, mimeType?, sizes?, theme?}` with an https: or data: `src` "
      "(MCP 2025-11-25 and later)", formats=_MCP)
def icons_well_formed(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that `icons` is an array of `{src, mimeType?, sizes?, theme?}` with an `https:` or
    `data:` `src` (MCP 2025-11-25 and later). Tools carry `icons` since 2025-11-25: each an
    object with a `src` URI, an optional `mimeType` string, `sizes` (strings `WxH` or `any`) and
    `theme` (`light` or `dark`).

    ## Why
    Clients "MUST reject icon URIs that use unsafe schemes": only `https:` and `data:` URIs are
    safe, so an `http:`, `file:` or `javascript:` icon is never shown.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}},
                "icons": [{"src": "http://example.com/search.png", "sizes": ["48x48"]}]}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}},
                "icons": [{"src": "https://example.com/search.png", "sizes": ["48x48"]}]}]}
    ```
    """
    if _rev(ctx) == "2025-06-18":
        return
    raw = _raw(tool)
    if "icons" not in raw:
        return
    icons = raw["icons"]
    if not isinstance(icons, list):
        yield Hit(f"icons is a {type(icons).__name__}, not an array", "/icons")
        return
    for i, ic in enumerate(icons):
        base = f"/icons/{i}"
        if not isinstance(ic, dict):
            yield Hit(f"icon is a {type(ic).__name__}, not an object", base)
            continue
        src = ic.get("src")
        if not isinstance(src, str) or not src:
            yield Hit("icon has no src (a URI string is required)", base)
        else:
            scheme = src.split(":", 1)[0].lower() if ":" in src else ""
            if scheme not in ("https", "data"):
                yield Hit(f"icon src scheme {scheme or '(none)'!r} is not https: or data: "
                          "(clients must reject it)", base + "/src")
        if "mimeType" in ic and not isinstance(ic["mimeType"], str):
            yield Hit("icon mimeType is not a string", base + "/mimeType")
        if "sizes" in ic:
            sizes = ic["sizes"]
            if not isinstance(sizes, list) or not all(isinstance(x, str) for x in sizes):
                yield Hit("icon sizes is not an array of strings", base + "/sizes")
            else:
                for j, x in enumerate(sizes):
                    if not _SIZE.match(x):
                        yield Hit(f"icon size {x!r} is neither WxH nor \"any\"",
                                  f"{base}/sizes/{j}")
        if "theme" in ic and ic["theme"] not in ("light", "dark"):
            yield Hit(f"icon theme {ic['theme']!r} is not \"light\" or \"dark\"",
                      base + "/theme")


_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_META_KEY = re.compile(rf"^(?:(?P<prefix>{_LABEL}(?:\.{_LABEL})*)/)?"
                       r"(?P<name>(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?)$")
_RESERVED_LABELS = ("modelcontextprotocol", "mcp")


def meta_reserved(prefix: str, revision: str) -> bool:
    """Is the ``_meta`` key prefix reserved for MCP in ``revision``? 2025-06-18: any label but
    the last is ``modelcontextprotocol`` or ``mcp``; later: the second label is."""
    labels = prefix.split(".")
    if revision == "2025-06-18":
        return any(lab in _RESERVED_LABELS for lab in labels[:-1])
    return len(labels) >= 2 and labels[1] in _RESERVED_LABELS


@rule("MC106", "meta-key", "error",
      "`_meta` is an object whose keys follow the key grammar; reserved MCP prefixes are not "
      "used for a server's own keys", formats=_MCP)
def meta_key(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that `_meta` is an object whose keys follow the key grammar: an optional prefix
    (dot-separated labels that start with a letter and end with a letter or digit, then `/`)
    and a name (empty, or alphanumerics at both ends with `-`, `_`, `.` between).

    ## Why
    Clients and SDKs read `_meta` by key. Prefixes whose second label is `modelcontextprotocol`
    or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`; in 2025-06-18 any such label before the
    last) are reserved for MCP: a server's own key there is a warning.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}},
                "_meta": {"-acme/cost": 3}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}},
                "_meta": {"com.acme/cost": 3}}]}
    ```
    """
    raw = _raw(tool)
    if "_meta" not in raw:
        return
    meta = raw["_meta"]
    if not isinstance(meta, dict):
        yield Hit(f"_meta is a {type(meta).__name__}, not an object", "/_meta")
        return
    for k in meta:
        m = _META_KEY.match(k)
        ptr = "/_meta" + jp.encode((k,))
        if m is None:
            yield Hit(f"_meta key {k!r} does not follow the key grammar (prefix labels/, name)",
                      ptr)
        elif m.group("prefix") and meta_reserved(m.group("prefix"), _rev(ctx)):
            yield Hit(f"_meta key {k!r} uses a prefix reserved for MCP", ptr,
                      severity="warning")


_TCHAR = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def _header_nodes(schema: Any) -> Iterator[tuple[tuple, Any, bool]]:
    """Every schema node holding ``x-mcp-header``, in document order: (path, node,
    statically reachable: a chain of ``properties`` keys from the root)."""
    stack: list[tuple[tuple, Any, bool]] = [((), schema, True)]
    while stack:
        path, node, static = stack.pop()
        kids: list[tuple[tuple, Any, bool]] = []
        if isinstance(node, dict):
            if "x-mcp-header" in node and path:
                yield path, node, static
            for k, v in node.items():
                if k in ("enum", "const", "default", "examples", "example"):
                    continue
                if k == "properties" and isinstance(v, dict):
                    for name, sub in v.items():
                        kids.append((path + ("properties", name), sub, static))
                elif isinstance(v, (dict, list)):
                    kids.append((path + (k,), v, False))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                kids.append((path + (i,), v, False))
        stack.extend(reversed(kids))


# escapes that could spell a character of "x-mcp-header" in a JSON string or a YAML
# double-quoted scalar, and a YAML double-quoted line continuation (backslash, line break)
_HEADER_ESCAPES = re.compile(r"\\(?:u00|x|U000000)(?:78|2[dD]|6[dD]|63|70|68|65|61|64|72)")
_CONTINUATION = re.compile(r"\\[\r\n]")
_LINE_BREAKS = "\n\r\x85\u2028\u2029"
# what a piece of "x-mcp-header" in a double-quoted scalar is written with: its characters
# and the escapes that spell them (\x78, \u002d...)
_PIECE = frozenset("x-mcpheadr0123456789abcdefABCDEFuU\\")


def _continuation_may_split(text: str, at: int) -> bool:
    """Whether the backslash at ``at``, before a line break, may continue a double-quoted
    YAML scalar that spells ``x-mcp-header`` in pieces (True when unsure). Inside such a
    scalar everything before the backslash on its line is content, from the opening quote or
    from the line's leading white space (which folding drops). So it may not when a
    character that no piece of the key is written with comes first (the usual case: prose,
    a long ``$ref`` broken in two, a shell command's continuation in a block scalar), nor
    when white space does after something else (kept: that scalar holds a space). A piece
    that starts its line continues the key only when the line before ends with a
    backslash that may."""
    while True:
        q = at - 1
        while q >= 0 and text[q] in _PIECE:
            q -= 1
        if q < 0 or text[q] == '"':
            return True
        if text[q] in " \t":
            while q >= 0 and text[q] in " \t":
                q -= 1
            if q < 0:
                return True
        if text[q] not in _LINE_BREAKS:
            return False
        if text[q] == "\n" and q > 0 and text[q - 1] == "\r":
            q -= 1                      # \r\n is one line break
        if q == 0 or text[q - 1] != "\\":
            return False   # an unescaped line break folds into white space: no key
        at = q - 1


def _texts_may_hold_header(cat: Catalog) -> bool:
    """False when no source text of the catalog can hold an ``x-mcp-header`` key: every
    source is a file's real text, none has the word, an escape that could spell one of its
    characters, or a line continuation that could split it (keys are read from these texts;
    C-speed searches). True when unsure (no sources: a live server, data from memory)."""
    srcs = list(cat.sources.values())
    if not srcs or "live" in cat.meta:
        return True
    for src in srcs:
        text = getattr(src, "text", None)
        if not isinstance(text, str) or not getattr(src, "positions", False):
            return True
        if _text_may_hold_header(text):
            return True
    return False


def _text_may_hold_header(text: str) -> bool:
    """Whether a JSON or YAML text may have an ``x-mcp-header`` key: it has the word, an
    escape that could spell one of its characters, or a line continuation that could split
    it (:func:`_continuation_may_split`)."""
    if "x-mcp-header" in text or _HEADER_ESCAPES.search(text) is not None:
        return True
    return any(_continuation_may_split(text, m.start()) for m in _CONTINUATION.finditer(text))


def _may_hold_header(ctx: Context, schema: Any) -> bool:
    """Whether ``schema`` has an object with an ``x-mcp-header`` key anywhere in it (values
    included: a superset of what :func:`_header_nodes` yields). Remembered per container for
    the catalog run: OpenAPI tools share their bundled definitions, so each is read once per
    catalog instead of once per tool that bundles it."""
    memo = ctx.cache.get("mcp-header-in")
    if memo is None:
        memo = ctx.cache["mcp-header-in"] = {}
        ctx.cache["mcp-header-texts"] = _texts_may_hold_header(ctx.catalog)
    if not ctx.cache["mcp-header-texts"]:
        return False
    got = memo.get(id(schema))
    if got is not None:
        return got[1]
    stack: list[tuple[Any, bool]] = [(schema, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, done = pop()
        is_dict = isinstance(node, dict)
        vals = node.values() if is_dict else node
        if done:
            hit = is_dict and "x-mcp-header" in node
            if not hit:
                for v in vals:
                    if isinstance(v, (dict, list)) and memo[id(v)][1]:
                        hit = True
                        break
            memo[id(node)] = (node, hit)   # the node is held: its id stays its own
            continue
        if id(node) in memo:
            continue
        push((node, True))
        for v in vals:
            if isinstance(v, (dict, list)) and id(v) not in memo:
                push((v, False))
    return memo[id(schema)][1]


@rule("MC107", "x-mcp-header", "error",
      "`x-mcp-header` values are valid, unique header names on statically reachable "
      "primitive parameters (MCP 2026-07-28)")
def x_mcp_header(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks `x-mcp-header` values (MCP 2026-07-28), which let a parameter's schema carry
    `x-mcp-header: NAME` to mirror its value into an `Mcp-Param-NAME` HTTP header. The value
    must be a non-empty HTTP token (RFC 9110 `tchar`s, no control characters), case-insensitively
    unique in the inputSchema, and sit on a `string`, `integer` or `boolean` parameter (not
    `number`) reached from the root through `properties` only (no `items`, combinators,
    conditionals or `$ref`): valid, unique header names on statically reachable primitive
    parameters.

    ## Why
    Clients on the Streamable HTTP transport MUST drop a tool that breaks a rule from
    `tools/list`: a silent loss of the whole tool.

    ## Example
    ```json mcp-version=2026-07-28
    {"tools": [{"name": "query", "description": "Run a query in a workspace.",
                "inputSchema": {"type": "object", "properties": {
                  "workspace": {"type": "string", "x-mcp-header": "Work space"}}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "query", "description": "Run a query in a workspace.",
                "inputSchema": {"type": "object", "properties": {
                  "workspace": {"type": "string", "x-mcp-header": "Workspace"}}}}]}
    ```
    """
    if _rev(ctx) != "2026-07-28":
        return
    s = tool.input_schema
    if not isinstance(s, dict) or not _may_hold_header(ctx, s):
        return
    seen: dict[str, str] = {}
    for path, node, static in _header_nodes(s):
        ptr = "/inputSchema" + jp.encode(path + ("x-mcp-header",))
        v = node["x-mcp-header"]
        if not isinstance(v, str) or not v:
            yield Hit("x-mcp-header must be a non-empty string (clients drop the tool)", ptr)
            continue
        if not _TCHAR.match(v):
            yield Hit(f"x-mcp-header {v!r} is not an HTTP field-name token (clients drop the "
                      "tool)", ptr)
        low = v.lower()
        if low in seen:
            yield Hit(f"x-mcp-header {v!r} repeats {seen[low]!r} (case-insensitively; clients "
                      "drop the tool)", ptr)
        else:
            seen[low] = v
        if not static:
            yield Hit("x-mcp-header on a parameter not reached through properties alone "
                      "(clients drop the tool)", ptr)
        t = node.get("type")
        if t not in ("string", "integer", "boolean"):
            yield Hit(f"x-mcp-header on a parameter of type {t!r} (only string, integer, "
                      "boolean; clients drop the tool)", ptr)


@rule("MC108", "dialect-default", "warning",
      "a schema without `$schema` uses draft-07 forms that 2020-12 (the MCP default) reads "
      "differently", schemas=("input", "output"), scope="node",
      keys=("items", "additionalItems", "dependencies"))
def dialect_default(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a schema without `$schema` that uses draft-07 forms that 2020-12 (the MCP default)
    reads differently: an `items` array, `additionalItems` or `dependencies`.

    ## Why
    Since 2025-11-25 a tool schema without `$schema` is JSON Schema 2020-12. Under 2020-12 an
    `items` array is no tuple, and `additionalItems` and `dependencies` are no keywords at all:
    a schema written for draft-07 validates differently, or not at all.

    ## Example
    ```json
    {"tools": [{"name": "move", "description": "Move the cursor to a point.",
                "inputSchema": {"type": "object", "properties": {
                  "point": {"type": "array",
                            "items": [{"type": "number"}, {"type": "number"}]}}}}]}
    ```

    ## Fix
    Write `prefixItems` for a tuple, `items` for `additionalItems`, `dependentRequired` /
    `dependentSchemas` for `dependencies`:
    ```json
    {"tools": [{"name": "move", "description": "Move the cursor to a point.",
                "inputSchema": {"type": "object", "properties": {
                  "point": {"type": "array",
                            "prefixItems": [{"type": "number"}, {"type": "number"}]}}}}]}
    ```
    """
    if _rev(ctx) == "2025-06-18" or n.dialect != "2020-12":
        return
    node = n.node
    if not isinstance(node, dict):
        return
    root = tool.input_schema if n.role == "input" else tool.output_schema
    if isinstance(root, dict) and "$schema" in root:
        return
    if isinstance(node.get("items"), list):
        yield Hit("`items` is an array: draft-07's tuple form; 2020-12 (the MCP default) "
                  "spells it prefixItems", n.ptr("items"))
    for k, instead in (("additionalItems", "items"),
                       ("dependencies", "dependentRequired/dependentSchemas")):
        if k in node:
            yield Hit(f"`{k}` is draft-07; 2020-12 (the MCP default) ignores it (write "
                      f"{instead})", n.ptr(k))


@rule("MC109", "execution-task-support", "error",
      "`execution.taskSupport` is forbidden, optional or required (MCP 2025-11-25)",
      formats=_MCP)
def execution_task_support(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that `execution.taskSupport` is `"forbidden"`, `"optional"` or `"required"`.

    ## Why
    MCP 2025-11-25 gives tools `execution.taskSupport` (`"forbidden"`, the default, `"optional"`
    or `"required"`) for task-augmented calls; another value is invalid. Checked with
    `--mcp-version 2025-11-25`, the revision that defines it.

    ## Example
    ```json mcp-version=2025-11-25
    {"tools": [{"name": "build", "description": "Build the project.",
                "inputSchema": {"type": "object", "properties": {}},
                "execution": {"taskSupport": "yes"}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "build", "description": "Build the project.",
                "inputSchema": {"type": "object", "properties": {}},
                "execution": {"taskSupport": "optional"}}]}
    ```
    """
    if _rev(ctx) != "2025-11-25":
        return
    ex = _raw(tool).get("execution")
    if ex is None:
        return
    if not isinstance(ex, dict):
        yield Hit(f"execution is a {type(ex).__name__}, not an object", "/execution")
    elif "taskSupport" in ex and ex["taskSupport"] not in ("forbidden", "optional", "required"):
        yield Hit(f"execution.taskSupport {ex['taskSupport']!r} is not forbidden, optional "
                  "or required", "/execution/taskSupport")


@rule("MC110", "missing-behaviour-hints", "info",
      "a tool whose name says it writes or deletes has neither `readOnlyHint` nor "
      "`destructiveHint` (or says `readOnlyHint: true` and deletes)",
      formats=_MCP + (DOCKER,))
def missing_behaviour_hints(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool whose name says it writes or deletes and that has neither `readOnlyHint` nor
    `destructiveHint` (or says `readOnlyHint: true` and deletes): a tool whose name has a word
    that writes or deletes (`create`, `update`, `set`, `send`, `delete`, `remove`, `run`...) and
    whose `annotations` say neither hint; and one whose name deletes (`delete`, `remove`, `drop`,
    `purge`...) while it says `readOnlyHint: true`. MC104 checks the hints' types.

    ## Why
    MCP `ToolAnnotations` tell a client how careful to be: `readOnlyHint` (default false) and
    `destructiveHint` (default true, when not read-only). A tool without them is treated as
    destructive: clients ask for confirmation on every call, and cannot tell a
    `delete_repository` from a `create_issue`.

    ## Not reported
    A name that starts with a reading verb (`get_delete_status`). Not checked on compact views,
    which leave out hints equal to the defaults (`toolcat project`).

    ## Example
    ```json
    {"tools": [{"name": "create_issue", "description": "Open an issue in a repository.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Say `"annotations": {"readOnlyHint": false, "destructiveHint": false}` on a tool that only
    adds, `"destructiveHint": true` on one that deletes or overwrites:
    ```json
    {"tools": [{"name": "create_issue", "description": "Open an issue in a repository.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": false, "destructiveHint": false}}]}
    ```
    """
    from toolcat.features.lint.quality import missing_hints
    from toolcat.model import COMPACT

    if ctx.view == COMPACT:
        return
    msg = missing_hints(tool)
    if msg:
        yield Hit(msg, "/annotations" if isinstance(tool.annotations, dict) else "/name")
