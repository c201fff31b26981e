"""What the formats that are lists of tool descriptors share.

MCP ``tools/list`` (:mod:`.mcp`), mcp-context-cost captures (:mod:`.capture`), OpenWOP
ToolDescriptor catalogs (:mod:`.openwop`), OpenAI (:mod:`.openai`) and Anthropic
(:mod:`.anthropic`) tool arrays. Each descriptor becomes a :class:`~toolcat.model.Tool` that
keeps the original object (``raw``) and every field it does not model (``extra``) verbatim.
"""

from __future__ import annotations

import os
from typing import Any

from toolcat.errors import InputError
from toolcat.model import COMPACT, STANDARD, Tool

#: the ``_meta`` key of an MCP ``tools/list`` result that says which view it holds:
#: ``toolcat project`` writes ``{"tools": [...], "_meta": {"toolcat/view": "compact"}}`` so
#: that ``toolcat lint`` of its own output knows the prose went to the handbook on purpose
#: (the result's ``_meta`` is never shown to a model, and measure counts the tools array)
VIEW_META_KEY = "toolcat/view"


def view_from_name(path: str) -> str:
    """The view a tools file holds when nothing inside says: `toolcat project` output is
    usually named like ``tools.compact.json``, so a file name containing "compact" is a
    compact view; anything else is a standard view."""
    return COMPACT if "compact" in os.path.basename(path).lower() else STANDARD


def meta_view(result: Any) -> str | None:
    """The view an MCP result declares in its ``_meta`` (:data:`VIEW_META_KEY`), or None."""
    meta = result.get("_meta") if isinstance(result, dict) else None
    if isinstance(meta, dict) and meta.get(VIEW_META_KEY) in (COMPACT, STANDARD):
        return meta[VIEW_META_KEY]
    return None


def declared_view(doc: Any, path: str) -> str:
    """The view an MCP result declares in its ``_meta`` (:func:`meta_view`), else
    :func:`view_from_name`."""
    return meta_view(doc) or view_from_name(path)


def tool_list(doc: Any, path: str) -> tuple[list, str]:
    """The tools array of an envelope and its pointer."""
    if isinstance(doc, list):
        return doc, ""
    if isinstance(doc, dict):
        if isinstance(doc.get("tools"), list):
            return doc["tools"], "/tools"
        res = doc.get("result")
        if isinstance(res, dict) and isinstance(res.get("tools"), list):
            return res["tools"], "/result/tools"
    raise InputError("no tools array found (expected {\"tools\": [...]} or a JSON array)", path)


def str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def not_an_object(item: Any, file: str, pointer: str) -> Tool:
    """A tools-array entry that is not an object: kept (lint TC110 reports it), never dropped."""
    return Tool(id=None, raw=item, file=file, pointer=pointer,
                invalid=f"expected an object, found {type(item).__name__}")
