"""Catalog and tool conformance: ids, descriptions and schemas (TC101, TC102, TC106-TC111,
TC115)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from toolcat.features.lint.registry import Hit, rule
from toolcat.formats import registry
from toolcat.model import ANTHROPIC, COMPACT, MCP, MCP_CAPTURE, OPENAI

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context
    from toolcat.model import Tool

_PATTERNS: dict[str, re.Pattern] = {}


def _pattern(p: str) -> re.Pattern:
    rx = _PATTERNS.get(p)
    if rx is None:
        rx = _PATTERNS[p] = re.compile(p)
    return rx


@rule("TC101", "unique-tool-id", "error",
      "toolId (MCP `name`, OpenAPI `operationId`) is unique in the catalog", scope="catalog")
def unique_tool_id(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Checks that every tool of a catalog has its own id (MCP `name`, OpenAPI `operationId`). The
    finding is reported on every repetition, naming the first tool that used the id.

    ## Why
    Clients call tools by id, and an OpenWOP `toolAllowlist`, an MCP client or a model picking a
    function cannot tell two tools with one name apart (usually one silently shadows the other).
    For OpenAPI the id is the `operationId`, which the OpenAPI specification also requires to be
    unique.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search issues.",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "search", "description": "Search pull requests.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search_issues", "description": "Search issues.",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "search_pull_requests", "description": "Search pull requests.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    first: dict[str, int] = {}
    ptr = ctx.cache["id_pointer"]
    for i, t in enumerate(ctx.catalog.tools):
        if not t.id or t.invalid is not None:
            continue
        if t.id in first:
            j = first[t.id]
            file, line, _col = ctx.catalog.tool_position(ctx.catalog.tools[j], ptr)
            at = f", {file}:{line}" if line and file != t.file else f", line {line}" if line \
                else ""
            yield Hit(f"duplicate toolId {t.id!r} (first used by tool #{j + 1}{at})", ptr, t)
        else:
            first[t.id] = i


@rule("TC102", "tool-id-format", "error",
      "toolId present and well-formed: non-empty; with the `mcp` profile an MCP tool name "
      "(`^[A-Za-z0-9_.-]{1,128}$`)")
def tool_id_format(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that a tool has a non-empty id; with the `mcp` profile the id must be an MCP tool
    name (`^[A-Za-z0-9_.-]{1,128}$`): 1 to 128 ASCII letters, digits, `_`, `-` and `.` (MCP
    2025-11-25 and later, "Tool Names"; `admin.tools.list` is the specification's own example;
    2025-06-18 had no name grammar). An OpenAPI operation without an `operationId` is reported
    too: toolcat then names the tool from method and path, a name that changes whenever the
    path does.

    ## Why
    A tool needs an id to be called by; a client that validates names refuses the others.

    ## Not reported
    OpenWOP catalogs only need a non-empty `toolId` (its `<scope>:<id>` form has a colon). The
    provider profiles check their own, stricter name rules (PV508: OpenAI and Anthropic allow at
    most 64 characters and no dot).

    ## Example
    ```json
    {"tools": [{"name": "search issues", "description": "Search issues by keyword.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search_issues", "description": "Search issues by keyword.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    ptr = ctx.cache["id_pointer"]
    cat = ctx.catalog
    fmt = registry.get(cat.format)
    if fmt.spec:
        raw = tool.raw if isinstance(tool.raw, dict) else {}
        oid = raw.get("operationId")
        if not isinstance(oid, str) or not oid:
            yield Hit(f"operation has no operationId (toolcat names it {tool.id!r}, a name "
                      "that changes with the path)", ptr)
            return
    tid = tool.id
    if tid is None:
        yield Hit("tool has no id (a non-empty string is required)", ptr)
        return
    if not tid.strip():
        yield Hit("toolId is empty", ptr)
        return
    pattern = ctx.profile.name_pattern
    if fmt.scoped_ids or (pattern and getattr(ctx.config, "mcp_version", None)
                                 == "2025-06-18"):
        pattern = None   # OpenWOP `<scope>:<id>`; MCP 2025-06-18 has no name grammar
    if pattern and not _pattern(pattern).match(tid):
        yield Hit(_id_mismatch(tid, pattern), ptr)


_LENGTH_BOUND = re.compile(r"\{(\d+),(\d+)\}\$?$")


def _id_mismatch(tid: str, pattern: str) -> str:
    """Why ``tid`` does not match ``pattern``, with the whole id: too long (when only its
    length is wrong), else the characters the pattern does not allow."""
    m = _LENGTH_BOUND.search(pattern)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        unbounded = _pattern(pattern[:m.start()] + "+" + ("$" if pattern.endswith("$") else ""))
        if unbounded.match(tid):
            n = len(tid)
            return (f"toolId {tid!r} is too long: {n:,} characters, at most {hi:,} allowed "
                    f"({pattern})" if n > hi else
                    f"toolId {tid!r} is too short: {n:,} characters, at least {lo:,} ({pattern})")
        cls = re.match(r"\^?(\[[^\]]+\])", pattern)
        if cls:
            one = _pattern(cls.group(1))
            bad = sorted({c for c in tid if not one.fullmatch(c)})
            if bad:
                chars = ", ".join(repr(c) for c in bad[:8]) + (" ..." if len(bad) > 8 else "")
                extra = f"; and it is {len(tid):,} characters, at most {hi:,}" \
                    if len(tid) > hi else ""
                return (f"toolId {tid!r} does not match {pattern}: {chars} not allowed{extra}")
    return f"toolId {tid!r} does not match {pattern}"


@rule("TC106", "description-too-long", "warning",
      "tool description longer than the configured maximum (default 1,024 characters)")
def description_too_long(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool description longer than `description-max` characters.

    ## Why
    Tool descriptions are sent to the model on every turn. A long description costs tokens on
    every request.

    ## Example
    ```json description-max=40
    {"tools": [{"name": "search",
                "description": "Search the web for a query; return the ten best results.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Move the detail to parameter descriptions or documentation and keep the description to what
    the model needs to choose the tool.

    ## Options
    `description-max` (default 1,024; set it in the config or with `--description-max`).
    """
    d = tool.description
    limit = ctx.config.description_max
    if isinstance(d, str) and len(d) > limit:
        yield Hit(f"description is {len(d):,} characters (max {limit:,})", "/description")


@rule("TC107", "missing-description", "warning", "tool has no description")
def missing_description(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool that has no description. (For OpenAPI, toolcat uses the operation's
    `description`, else its `summary`.)

    ## Why
    Without a description a model has only the tool's name to decide when to call it.

    ## Not reported
    On a compact view a title is enough (MCP: `title`, else `annotations.title`): `toolcat
    project` drops a description that only repeats the title.

    ## Example
    ```json
    {"tools": [{"name": "search", "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Give every tool a one- or two-sentence description of what it does and when to use it:
    ```json
    {"tools": [{"name": "search", "description": "Search the web; use it for recent events.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    d = tool.description
    if isinstance(d, str) and d.strip():
        return
    title = tool.display_title
    if ctx.view == COMPACT and isinstance(title, str) and title.strip():
        return
    yield Hit("tool has no description", "")


@rule("TC108", "duplicate-description", "info",
      "two tools share the same description", scope="catalog")
def duplicate_description(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports two tools that share the same description.

    ## Why
    Two tools with the same description look interchangeable to a model, which then picks one
    at random. Usually a copy-paste slip.

    ## Example
    ```json
    {"tools": [{"name": "list_issues", "description": "List issues.",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "list_pulls", "description": "List issues.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Say what distinguishes each tool.
    """
    try:   # hashlib's blake2b itself, without hashlib's start-up (OpenSSL's: ~3 ms a run)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b

    # keyed by a digest of the text: a streamed catalog of a million tools holds 16 bytes
    # per description, not the description
    first: dict[bytes, str] = {}
    for t in ctx.catalog.tools:
        d = t.description
        if not isinstance(d, str) or not d.strip() or t.invalid is not None:
            continue
        key = blake2b(" ".join(d.split()).lower().encode("utf-8", "surrogatepass"),
                      digest_size=16).digest()
        if key in first and first[key] != t.id:
            yield Hit(f"same description as tool {first[key]!r}", "/description", t)
        else:
            first.setdefault(key, t.id or "?")


@rule("TC109", "tool-id-case-collision", "warning",
      "toolIds that differ only in letter case", scope="catalog")
def tool_id_case_collision(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports toolIds that differ only in letter case, such as `getUser` and `getuser`.

    ## Why
    The ids are distinct, but case-insensitive clients, file systems and humans confuse them,
    and a model may call the wrong one.

    ## Example
    ```json
    {"tools": [{"name": "getUser", "description": "Get a user by id.",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "getuser", "description": "Get the signed-in user.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Rename one.
    """
    seen: dict[str, str] = {}
    ptr = ctx.cache["id_pointer"]
    for t in ctx.catalog.tools:
        if not t.id or t.invalid is not None:
            continue
        k = t.id.casefold()
        if k in seen and seen[k] != t.id:
            yield Hit(f"toolId {t.id!r} differs from {seen[k]!r} only in letter case", ptr, t)
        else:
            seen.setdefault(k, t.id)


@rule("TC110", "invalid-tool-entry", "error",
      "an entry of the tools array is not a tool descriptor object")
def invalid_tool_entry(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports an entry of the tools array that is not a tool descriptor object (a string, number,
    array or null entry). toolcat reports the entry and skips the other rules for it.

    ## Why
    Every entry of a tools array must be an object describing one tool. Other entries are
    rejected by clients (often the whole catalog with it).

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {}}},
               "fetch"]}
    ```

    ## Fix
    Remove the entry, or write the tool it stands for as an object.
    """
    return iter(())  # the engine reports invalid entries itself (they reach no other rule)


@rule("TC111", "missing-input-schema", "error",
      "an MCP tool has an `inputSchema` (an Anthropic tool an `input_schema`)",
      formats=(MCP, MCP_CAPTURE, ANTHROPIC))
def missing_input_schema(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that an MCP tool has an `inputSchema` (an Anthropic tool an `input_schema`).

    ## Why
    The MCP specification requires every tool to have an `inputSchema` (a JSON Schema object),
    and the Anthropic API an `input_schema`: a client that validates the `tools/list` result
    (the MCP TypeScript SDK does) rejects the whole list when one tool lacks it. A catalog of
    tools without schemas is often another format read as MCP: a docker/mcp-registry
    `tools.json`, whose `arguments` toolcat reads itself, or a registry file that lists servers,
    not tools.

    ## Example
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers."}]}
    ```

    ## Fix
    Add the schema (`{"type": "object"}` for a tool that takes no arguments):
    ```json
    {"tools": [{"name": "ping", "description": "Check that the server answers.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    if tool.input_schema is None:
        key = registry.get(ctx.catalog.format).schema_key
        yield Hit(f"tool has no {key} (required; {{\"type\": \"object\"}} for a tool "
                  "without arguments)", "")


#: the tool formats whose descriptors TC115 reads: each one's schema key (the format's
#: ``schema_key``) may stand beside another's
_SCHEMA_KEY_FORMATS = (MCP, MCP_CAPTURE, ANTHROPIC, OPENAI)


@rule("TC115", "second-schema-key", "warning",
      "a tool carries one other format's input schema key beside its own, holding another schema",
      formats=_SCHEMA_KEY_FORMATS)
def second_schema_key(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool descriptor that holds, beside its own format's input schema (MCP
    `inputSchema`, Anthropic `input_schema`, OpenAI `parameters`), another format's key with a
    different schema. toolcat, like the format's clients, reads its own key and ignores the
    other.

    ## Why
    Which schema the tool takes depends on who reads it: a client of the other format reads
    the other key, and a converted or merged catalog often keeps a stale copy there. toolcat's
    projections write the schema it read and drop the other, so a model sees one set of
    arguments while another client offers the other.

    ## Example
    ```json
    {"tools": [{"name": "add", "description": "Add two numbers.",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}},
                "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}]}
    ```
    (read as an Anthropic tool: its `input_schema` is the schema, `inputSchema` ignored)

    ## Fix
    Keep one schema, under the format's own key.
    """
    raw = tool.raw
    if not isinstance(raw, dict):
        return
    fmt = registry.get(ctx.catalog.format)
    # (the object holding the name and schemas: Chat Completions' ``function``)
    body = fmt.targets[0].body(raw) if fmt.targets else raw
    own = fmt.schema_key
    if not isinstance(body, dict) or own not in body:
        return
    for key in dict.fromkeys(registry.get(f).schema_key for f in _SCHEMA_KEY_FORMATS):
        if key != own and key in body and body[key] != body[own]:
            yield Hit(f"the tool has {own!r} (the {ctx.catalog.format} format's: read) and "
                      f"{key!r} with another schema (ignored; a client of another format reads "
                      "it): keep one", "")
            return
