"""OpenAI tool arrays: Chat Completions ``[{"type": "function", "function": {...}}]``,
Responses-style flat function tools, and the older flat ``{name, description, parameters}``."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import OPENAI, Catalog, Tool


def openai_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    fn = item.get("function")
    if isinstance(fn, dict):        # Chat Completions: {"type": "function", "function": {...}}
        body, fptr = fn, pointer + "/function"
    else:                           # Responses API / legacy functions: flat
        body, fptr = item, pointer
    name = body.get("name")
    # the function object's other fields (`strict`...); a Chat Completions wrapper's own
    # other fields stay in `raw`
    extra = {k: v for k, v in body.items() if k not in ("name", "description", "parameters")}
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(body.get("description")),
        input_schema=body.get("parameters"),
        extra=extra,
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", fptr + "/parameters"),
                ("/description", fptr + "/description"), ("/name", fptr + "/name")],
    )


def load_openai(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    cat = Catalog(file=path, format=OPENAI, document=doc, view=view_from_name(path),
                  meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        cat.tools.append(openai_tool(item, path, f"{base}/{i}"))
    return cat


class OpenAiTarget(Target):
    """``[{"type": "function", "function": {"name", "description", "parameters"}}]`` (Chat
    Completions function tools; no parameters when the tool has no input schema)."""

    name = "openai"
    native_formats = (OPENAI,)
    schema_keys = ("parameters",)
    compact_fields = ("type", "function", "name", "description", "parameters")
    compact_body_fields = ("name", "description", "parameters")

    profile = "openai"
    provider = "openai-nonstrict"
    typed_object_roots = True

    def _fields(self, **f: Any) -> dict:
        fn: dict = {}
        put(fn, "name", f["id"])
        put(fn, "description", f["description"])
        put(fn, "parameters", f["input_schema"])
        put(fn, "strict", f.get("strict"))
        return {"type": "function", "function": fn}

    def dropped_fields(self, raw: Any) -> list[tuple[str, ...]]:
        out = super().dropped_fields(raw)
        if isinstance(raw, dict) and isinstance(raw.get("function"), dict):
            out += [("function", k) for k in raw["function"] if k not in self.compact_body_fields]
        return out

    def body(self, item: Any) -> Any:
        if isinstance(item, dict) and isinstance(item.get("function"), dict):
            return item["function"]
        return item


class OpenAiStrictTarget(OpenAiTarget):
    """The same function tools with ``"strict": true`` (Structured Outputs), each schema
    rewritten into the strict subset; ``"strict": false`` on a tool the subset cannot
    express (see :mod:`toolcat.project.providers`)."""

    name = "openai-strict"
    compact_body_fields = ("name", "description", "parameters", "strict")
    provider = "openai"
    loose_provider = "openai-nonstrict"
    writes_strict = True
    profile = "openai-strict"
    factors = True


OPENAI_TARGET = OpenAiTarget()
OPENAI_STRICT_TARGET = OpenAiStrictTarget()


def _is_openai(t: dict) -> bool:
    if t.get("type") == "function" and (isinstance(t.get("function"), dict) or "name" in t):
        return True   # Chat Completions {type, function: {...}} or Responses {type, name, ...}
    # the older flat function list ({name, parameters}), with no field of another format's
    # descriptor (MCP's and Anthropic's schema keys, a description or annotations: MCP)
    return ("name" in t and "parameters" in t and "type" not in t
            and not any(k in t for k in ("input_schema", "inputSchema", "description",
                                         "annotations")))


FORMATS = (Format(
    OPENAI, "OpenAI", "OpenAI tools",
    lambda doc, src, path, opts: load_openai(doc, path),
    item=_is_openai),)
