"""OpenWOP tool catalogs: ``{"tools": [ToolDescriptor]}`` (standard view) or
``CompactToolDescriptor``s (compact view), a bare array, or one descriptor."""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.model import COMPACT, OPENWOP, STANDARD, Catalog, Tool

_OPENWOP_FIELDS = ("toolId", "title", "description", "inputSchema", "outputSchema", "source",
                   "safetyTier")


def openwop_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    tid = item.get("toolId")
    return Tool(
        id=tid if isinstance(tid, str) else None,
        title=str_or_none(item.get("title")),
        description=str_or_none(item.get("description")),
        input_schema=item.get("inputSchema"),
        output_schema=item.get("outputSchema"),
        source=str_or_none(item.get("source")),
        safety_tier=str_or_none(item.get("safetyTier")),
        annotations=item.get("annotations") if isinstance(item.get("annotations"), dict) else None,
        extra={k: v for k, v in item.items() if k not in _OPENWOP_FIELDS and k != "annotations"},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer)],
    )


def load_openwop(doc: Any, path: str, view: str | None = None) -> Catalog:
    if isinstance(doc, dict) and "toolId" in doc:
        items, base = [doc], None
    else:
        items, base = tool_list(doc, path)
    declared = doc.get("view") if isinstance(doc, dict) else None
    if view is None:
        if declared in (STANDARD, COMPACT):
            view = declared
        else:
            view = view_from_name(path)
    cat = Catalog(file=path, format=OPENWOP, document=doc, view=view,
                  meta={"envelope": "tools" if base == "/tools" else ("array" if base == "" else "tool")})
    for i, item in enumerate(items):
        cat.tools.append(openwop_tool(item, path, "" if base is None else f"{base}/{i}"))
    return cat
