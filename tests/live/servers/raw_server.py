"""A hand-written MCP stdio server (no SDK): newline-delimited JSON-RPC, the 2025-06-18
``initialize`` handshake only (``server/discover`` is "method not found", as a server older
than the 2026 revision answers), and ``tools/list`` answered with the tools of a JSON file
*exactly as written* -- tools the protocol or JSON Schema reject included, extra fields kept.

    python raw_server.py TOOLS.json [--page-size N]

Without a file it serves a built-in set of invalid tools (lint findings, not a crash).
"""

from __future__ import annotations

import json
import sys

INVALID = [
    {"name": "missing schema", "description": "No inputSchema, and a space in the name."},
    {"name": "bad_type", "inputSchema": {"type": "object",
                                         "properties": {"x": {"type": "strnig"}}}},
    {"name": "not_object", "inputSchema": {"type": "string"}},
    {"name": "fine", "description": "Valid.", "inputSchema": {"type": "object"},
     "x-vendor": {"kept": True}},
]


def main() -> None:
    args = sys.argv[1:]
    page = 0
    if "--page-size" in args:
        i = args.index("--page-size")
        page = int(args[i + 1])
        del args[i:i + 2]
    if args:
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f)
        tools = doc["tools"] if isinstance(doc, dict) else doc
    else:
        tools = INVALID
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue          # a notification
        method, rid = msg.get("method"), msg["id"]
        if method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "raw-server", "version": "0.1"}}
        elif method == "tools/list":
            start = int((msg.get("params") or {}).get("cursor") or 0)
            end = start + page if page else len(tools)
            result = {"tools": tools[start:end]}
            if end < len(tools):
                result["nextCursor"] = str(end)
        elif method == "ping":
            result = {}
        else:
            out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32601, "message": f"Method not found: {method}"}}) + "\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result},
                             ensure_ascii=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
