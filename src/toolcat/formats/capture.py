"""mcp-context-cost captures: a ``measurement.json`` whose ``rawToolsCapture`` is a server's
``tools/list`` tools array (MCP tools)."""

from __future__ import annotations

from toolcat.errors import InputError
from toolcat.formats.mcp import mcp_tool
from toolcat.model import MCP_CAPTURE, Catalog


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
    cat = Catalog(file=path, format=MCP_CAPTURE, document=doc, meta=meta)
    for i, item in enumerate(raw):
        cat.tools.append(mcp_tool(item, path, f"/rawToolsCapture/{i}"))
    return cat
