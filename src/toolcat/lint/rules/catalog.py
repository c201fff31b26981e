"""Catalog and tool conformance: ids, descriptions and schemas (TC101, TC102, TC106-TC111)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from toolcat.formats import registry
from toolcat.lint.registry import Hit, rule
from toolcat.model import ANTHROPIC, COMPACT, MCP, MCP_CAPTURE

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.lint.engine import Context
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
    """Every tool of a catalog needs its own id: clients call tools by id, and an OpenWOP
    `toolAllowlist`, an MCP client or a model picking a function cannot tell two tools with one
    name apart (usually one silently shadows the other). For OpenAPI the id is the
    `operationId`, which the OpenAPI specification also requires to be unique. The finding is
    reported on every repetition, naming the first tool that used the id."""
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
    """A tool needs a non-empty id. With the `mcp` profile the id must be an MCP tool name:
    1 to 128 ASCII letters, digits, `_`, `-` and `.` (MCP 2025-11-25 and later, "Tool
    Names"; `admin.tools.list` is the specification's own example; 2025-06-18 had no name
    grammar). The provider profiles check their own, stricter name rules (PV508: OpenAI and
    Anthropic allow at most 64 characters and no dot). OpenWOP catalogs only need a
    non-empty `toolId` (its `<scope>:<id>` form has a colon). An OpenAPI operation without an
    `operationId` is reported too: toolcat then names the tool from method and path, a name
    that changes whenever the path does."""
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
    """Tool descriptions are sent to the model on every turn. A description longer than
    `description-max` characters (default 1,024; set it in the config or with
    `--description-max`) costs tokens on every request; move the detail to parameter
    descriptions or documentation and keep the description to what the model needs to choose
    the tool."""
    d = tool.description
    limit = ctx.config.description_max
    if isinstance(d, str) and len(d) > limit:
        yield Hit(f"description is {len(d):,} characters (max {limit:,})", "/description")


@rule("TC107", "missing-description", "warning", "tool has no description")
def missing_description(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """Without a description a model has only the tool's name to decide when to call it.
    Give every tool a one- or two-sentence description of what it does and when to use it.
    (For OpenAPI, toolcat uses the operation's `description`, else its `summary`.) On a
    compact view a title is enough (MCP: `title`, else `annotations.title`): `toolcat
    project` drops a description that only repeats the title."""
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
    """Two tools with the same description look interchangeable to a model, which then picks
    one at random. Usually a copy-paste slip: say what distinguishes each tool."""
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
    """Ids such as `getUser` and `getuser` are distinct, but case-insensitive clients,
    file systems and humans confuse them, and a model may call the wrong one. Rename one."""
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
    """Every entry of a tools array must be an object describing one tool. A string, number,
    array or null entry is rejected by clients (often the whole catalog with it). toolcat
    reports the entry and skips the other rules for it."""
    return iter(())  # the engine reports invalid entries itself (they reach no other rule)


@rule("TC111", "missing-input-schema", "error",
      "an MCP tool has an `inputSchema` (an Anthropic tool an `input_schema`)",
      formats=(MCP, MCP_CAPTURE, ANTHROPIC))
def missing_input_schema(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """The MCP specification requires every tool to have an `inputSchema` (a JSON Schema
    object; `{"type": "object"}` for a tool that takes no arguments), and the Anthropic API
    an `input_schema`: a client that validates the `tools/list` result (the MCP TypeScript
    SDK does) rejects the whole list when one tool lacks it. A catalog of tools without
    schemas is often another format read as MCP: a docker/mcp-registry `tools.json`, whose
    `arguments` toolcat reads itself, or a registry file that lists servers, not tools."""
    if tool.input_schema is None:
        key = registry.get(ctx.catalog.format).schema_key
        yield Hit(f"tool has no {key} (required; {{\"type\": \"object\"}} for a tool "
                  "without arguments)", "")
