"""Tell a catalog's format from its content."""

from __future__ import annotations

from typing import Any, Callable

from toolcat.formats import registry
from toolcat.model import MCP

# fields of an MCP registry server record (server.json, the registry's seed files): a server
# with its packages, not a tool
_SERVER_RECORD_KEYS = frozenset({"packages", "remotes", "repository", "version_detail",
                                 "version", "websiteUrl", "website_url"})


def _tool_list(doc: Any) -> list | None:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        if isinstance(doc.get("tools"), list):
            return doc["tools"]
        res = doc.get("result")
        if isinstance(res, dict) and isinstance(res.get("tools"), list):
            return res["tools"]
    return None


def item_format(item: Any) -> str | None:
    """The format of one tool descriptor object, or None."""
    if not isinstance(item, dict):
        return None
    last = None
    for f in registry.formats():
        if f.item is not None and f.item(item):
            if not f.fallback:
                return f.key
            last = last or f.key
    return last


def server_records(doc: Any) -> bool:
    """An MCP registry ``server.json`` record, or a list of them (the registry's seed files):
    servers with their packages and remotes, which name no tools."""
    def record(d: Any) -> bool:
        return (isinstance(d, dict) and isinstance(d.get("name"), str)
                and "inputSchema" not in d and not _SERVER_RECORD_KEYS.isdisjoint(d)
                and ("packages" in d or "remotes" in d or "version_detail" in d
                     or "server.schema.json" in str(d.get("$schema", ""))))
    if isinstance(doc, list):
        return bool(doc) and all(record(d) for d in doc[:50])
    return record(doc)


#: what names a server in an MCP client configuration (Claude Desktop/Code, Cursor, Windsurf:
#: ``mcpServers``; VS Code: ``servers``): how to start it or where it is
_SERVER_ENTRY_KEYS = frozenset({"command", "url", "httpUrl", "serverUrl"})


def client_config(doc: Any) -> bool:
    """An MCP client configuration (``{"mcpServers": {name: {"command", "args"...}}}``, VS
    Code's ``{"servers": {...}}``): servers to start, which name no tools."""
    if not isinstance(doc, dict):
        return False
    for key in ("mcpServers", "servers"):
        servers = doc.get(key)
        if isinstance(servers, dict) and servers and all(
                isinstance(v, dict) and not _SERVER_ENTRY_KEYS.isdisjoint(v)
                for v in servers.values()):
            return True
    return False


def detect(doc: Any) -> str | None:
    """Return the format of a parsed document, or None when it is no known catalog."""
    for f in registry.formats():
        if f.claims is not None and f.claims(doc):
            return f.key
    tools = _tool_list(doc)
    if tools is None:
        return None
    if not tools:
        # An empty list: an MCP {"tools": []} is still a catalog, and so is a bare `[]` (the
        # envelope of MCP, OpenAI, Anthropic and docker tool arrays alike, which `project
        # --to openai|anthropic` writes for a catalog without tools; docker/mcp-registry
        # ships it for servers that list their tools at run time). With no tools, the
        # formats read the same: MCP, as for the envelope. (Folders skip a bare `[]`:
        # nothing says it is a catalog there.)
        return MCP
    kinds = {item_format(t) for t in tools[:50]}
    kinds.discard(None)
    if len(kinds) == 1:
        return kinds.pop()
    if not kinds:
        return None
    # mixed: pick the majority (lint reports the odd ones)
    counts: dict[str, int] = {}
    for t in tools:
        k = item_format(t)
        if k:
            counts[k] = counts.get(k, 0) + 1
    return max(counts, key=counts.__getitem__)


def misfit(doc: Any, fmt: str) -> str | None:
    """Why ``doc`` is not a catalog of format ``fmt`` (``--from``), or None when it can be."""
    f = registry.get(fmt)
    if f.misfit is not None:
        return f.misfit(doc)
    if f.one_tool is not None and isinstance(doc, dict) and "tools" not in doc \
            and "result" not in doc and f.one_tool(doc):
        return None   # one tool per file
    return misfit_items(doc, fmt)


def _a(what: str) -> str:
    return f"{'an' if what[0] in 'AEIOMaeio' else 'a'} {what}"


def misfit_items(doc: Any, fmt: str, accepts: Callable[[dict], bool] | None = None,
                 array_only: bool = False) -> str | None:
    """Why ``doc`` is no tools array of format ``fmt``: it holds none (or, ``array_only``,
    is no bare array), or an entry is another format's descriptor (``accepts``: the test an
    entry must pass instead)."""
    name = registry.get(fmt).title
    tools = _tool_list(doc)
    if tools is None:
        found = detect(doc)
        return "the document holds no tools array ({\"tools\": [...]} or a JSON array)" + (
            f"; it looks like {registry.get(found).title}" if found else "")
    if array_only and not isinstance(doc, list):
        return f"{_a(registry.get(fmt).described)} is a JSON array of tools"
    base = "/tools" if isinstance(doc, dict) and tools is doc.get("tools") else (
        "/result/tools" if isinstance(doc, dict) else "")
    for i, item in enumerate(tools):
        if not isinstance(item, dict):
            continue   # not a tool in any format: lint TC110 reports it
        kind = item_format(item)
        if accepts is not None:
            ok = accepts(item)
        else:
            ok = kind in (None, fmt)
        if not ok:
            what = registry.get(kind).title if kind else "another shape of"
            return f"{base}/{i} is {_a(what)} tool, not {_a(name)} tool"
    return None
