"""mcp-context-cost captures: a ``measurement.json`` whose ``rawToolsCapture`` is a server's
``tools/list`` tools array (MCP tools)."""

from __future__ import annotations

from typing import Any

from toolcat.errors import InputError
from toolcat.formats.mcp import mcp_tool
from toolcat.formats.registry import Format
from toolcat.model import MCP_CAPTURE, Catalog, Tool


def load_capture(doc: dict, path: str) -> Catalog:
    raw = doc.get("rawToolsCapture")
    meta = {k: doc.get(k) for k in ("serverName", "serverVersion", "status", "toolCount",
                                   "totalTokens", "canonicalSha256", "encoding",
                                   "methodologyVersion") if k in doc}
    if not isinstance(raw, list):
        status = doc.get("status", "unknown")
        raise InputError(
            f"mcp-context-cost capture has no rawToolsCapture (status: {status}); nothing to read",
            path)
    meta["envelope"] = "capture"
    tools: list[Tool] = []
    cat = Catalog(file=path, format=MCP_CAPTURE, tools=tools, document=doc, meta=meta)
    for i, item in enumerate(raw):
        tools.append(mcp_tool(item, path, f"/rawToolsCapture/{i}"))
    return cat


def _read(doc: Any, src: Any, path: str, opts: Any) -> Catalog:
    if not isinstance(doc, dict):
        raise InputError("--from mcp-capture: expected a JSON object", path)
    return load_capture(doc, path)


def _misfit(doc: Any) -> str | None:
    if not isinstance(doc, dict) or not ("rawToolsCapture" in doc or "canonicalSha256" in doc):
        return "the document is not an mcp-context-cost capture (no 'rawToolsCapture')"
    return None


FORMATS = (Format(
    MCP_CAPTURE, "mcp-context-cost capture", "mcp-context-cost capture", _read,
    claims=lambda d: isinstance(d, dict) and (
        "rawToolsCapture" in d or ("methodologyVersion" in d and "canonicalSha256" in d)),
    misfit=_misfit, mcp_server=True, canonical_descriptors=True),)
