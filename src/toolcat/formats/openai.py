"""OpenAI tool arrays: Chat Completions ``[{"type": "function", "function": {...}}]``,
Responses-style flat function tools, and the older flat ``{name, description, parameters}``."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
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
    extra = {k: v for k, v in body.items() if k not in ("name", "description", "parameters")}
    if body is not item:
        extra.update({f"@{k}": v for k, v in item.items() if k not in ("function", "type")})
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
