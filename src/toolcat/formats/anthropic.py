"""Anthropic tool arrays: ``[{"name", "description", "input_schema"}]``."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import ANTHROPIC, Catalog, Tool


def anthropic_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(item.get("description")),
        input_schema=item.get("input_schema"),
        extra={k: v for k, v in item.items() if k not in ("name", "description", "input_schema")},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", pointer + "/input_schema")],
    )


def load_anthropic(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    cat = Catalog(file=path, format=ANTHROPIC, document=doc, view=view_from_name(path),
                  meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        cat.tools.append(anthropic_tool(item, path, f"{base}/{i}"))
    return cat


class AnthropicTarget(Target):
    """``[{"name", "description", "input_schema"}]`` (Messages API tools)."""

    name = "anthropic"
    native_formats = (ANTHROPIC,)
    schema_keys = ("input_schema",)
    compact_fields = ("name", "description", "input_schema")
    requires_input_schema = True

    provider = "anthropic"
    typed_object_roots = True
    profile = "anthropic"

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "name", f["id"])
        put(d, "description", f["description"])
        put(d, "input_schema", f["input_schema"])
        put(d, "strict", f.get("strict"))
        return d


class AnthropicStrictTarget(AnthropicTarget):
    """The same tools with ``"strict": true`` (strict tool use), each schema rewritten into
    its subset, within the per-request totals; ``"strict": false`` on the others."""

    name = "anthropic-strict"
    compact_fields = ("name", "description", "input_schema", "strict")
    provider = "anthropic-strict"
    loose_provider = "anthropic"
    writes_strict = True
    profile = "anthropic-strict"


ANTHROPIC_TARGET = AnthropicTarget()
ANTHROPIC_STRICT_TARGET = AnthropicStrictTarget()


FORMATS = (Format(
    ANTHROPIC, "Anthropic", "Anthropic tools",
    lambda doc, src, path, opts: load_anthropic(doc, path),
    item=lambda t: "name" in t and "input_schema" in t,
    schema_key="input_schema"),)
