"""OpenWOP descriptors: schema validation (TC103), the exec rule (TC104), the compact field
set (CS204). jsonschema is imported only here, only for OpenWOP catalogs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule
from toolcat.model import OPENWOP, OPENWOP_COMPACT_FIELDS, OPENWOP_HEAVY_FIELDS

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context
    from toolcat.model import Tool

_FORMATS = (OPENWOP,)


def _validator(ctx: Context) -> Any:
    key = "openwop_validator"
    v = ctx.cache.get(key)
    if v is None:
        from jsonschema import Draft202012Validator

        from toolcat.features.lint import openwop_schemas

        schema = (openwop_schemas.compact_tool_descriptor() if ctx.is_compact
                  else openwop_schemas.tool_descriptor())
        v = ctx.cache[key] = Draft202012Validator(schema)
    return v


def _covered(ctx: Context, err: Any) -> bool:
    """Errors a dedicated rule reports better (only while that rule is on)."""
    sp = list(err.schema_path)
    if sp[:3] == ["allOf", 0, "then"] and ctx.enabled("TC104"):
        return True
    if not ctx.is_compact:
        return False
    path = list(err.absolute_path)
    if not path and sp[:1] == ["additionalProperties"] and ctx.enabled("CS204"):
        return True
    if path[:1] == ["inputSchema"]:
        if "propertyNames" in sp and ctx.enabled("CS203"):
            return True
        if len(path) <= 2 and sp[-1:] in (["required"], ["const"]) and \
                (ctx.enabled("CS201") or ctx.enabled("CS202")):
            return True
    return False


@rule("TC103", "openwop-descriptor-schema", "error",
      "OpenWOP descriptor validates against `tool-descriptor.schema.json` (or the compact "
      "schema for a compact catalog)", formats=_FORMATS)
def descriptor_schema(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Validates each OpenWOP descriptor against the published v1 schema:
    `tool-descriptor.schema.json` (RFC 0078) for a standard catalog,
    `compact-tool-descriptor.schema.json` (RFC 0112) for a compact one (`"view": "compact"` in
    the envelope, a file name containing `compact`, or `--from openwop` with the compact view).

    ## Why
    Required fields are `toolId`, `source` and `safetyTier`; both schemas are closed
    (`additionalProperties: false`), so hosts refuse a descriptor that breaks them.

    ## Not reported
    Errors that TC104 and the CS rules report more precisely are left to them.

    ## Example
    ```json
    {"tools": [{"toolId": "x-host-acme-tool", "source": "host-extension",
                "description": "Does a thing.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Add the required fields and drop unknown ones:
    ```json
    {"tools": [{"toolId": "x-host-acme-tool", "source": "host-extension", "safetyTier": "read",
                "description": "Does a thing.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    v = _validator(ctx)
    errors = sorted(v.iter_errors(tool.raw), key=lambda e: (list(e.absolute_path),
                                                             list(e.schema_path)))
    name = "compact-tool-descriptor" if ctx.is_compact else "tool-descriptor"
    for err in errors:
        if _covered(ctx, err):
            continue
        msg = " ".join(str(err.message).split())
        if len(msg) > 200:
            msg = msg[:199] + "…"
        yield Hit(f"{msg} ({name}.schema.json)", jp.encode(err.absolute_path))


@rule("TC104", "exec-needs-host-extension", "error",
      "`safetyTier: \"exec\"` only with `source: \"host-extension\"`", formats=_FORMATS)
def exec_tier(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that `safetyTier: "exec"` comes only with `source: "host-extension"`.

    ## Why
    RFC 0069 and tool-catalog.md §C-1: an `exec`-tier tool (arbitrary command execution) is
    never protocol-tier; it must be backed by a host extension. Both descriptor schemas encode
    the rule.

    ## Example
    ```json
    {"tools": [{"toolId": "shell", "source": "node-pack", "safetyTier": "exec",
                "description": "Run a shell command.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"toolId": "shell", "source": "host-extension", "safetyTier": "exec",
                "description": "Run a shell command.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    if tool.safety_tier == "exec" and tool.source != "host-extension":
        shown = tool.source if tool.source is not None else "(missing)"
        yield Hit(f"safetyTier \"exec\" requires source \"host-extension\" (source is {shown})",
                  "/source" if tool.source is not None else "/safetyTier")


@rule("CS204", "compact-field-set", "error",
      "compact descriptor carries only the compact field set (no outputSchema, auth, egress, "
      "approval, replayPolicy, costHint, latencyHint, or unknown fields)", formats=_FORMATS)
def compact_fields(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Checks that a `CompactToolDescriptor` (RFC 0112) holds exactly `toolId`, `source`,
    `safetyTier`, `title`, `description` and `inputSchema`. Checked on OpenWOP catalogs in the
    compact view.

    ## Why
    The heavy descriptive fields (`outputSchema`, `auth`, `egress`, `approval`, `replayPolicy`,
    `costHint`, `latencyHint`) are dropped from the compact view and any other field is
    rejected by its closed schema.

    ## Example
    ```json file=tools.compact.json
    {"view": "compact",
     "tools": [{"toolId": "mcp:fs.read", "source": "mcp", "safetyTier": "read",
                "description": "Read a file.", "costHint": "low",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Drop the fields from the compact descriptor (`toolcat project` writes the compact view);
    they stay in the standard view.
    """
    if not ctx.is_compact or not isinstance(tool.raw, dict):
        return
    for key in tool.raw:
        if key in OPENWOP_COMPACT_FIELDS:
            continue
        if key in OPENWOP_HEAVY_FIELDS:
            yield Hit(f"heavy field {key!r} is not part of the compact view", jp.encode((key,)))
        else:
            yield Hit(f"unknown field {key!r} is not part of CompactToolDescriptor",
                      jp.encode((key,)))
