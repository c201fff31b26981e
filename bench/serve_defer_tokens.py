"""What ``toolcat serve --defer`` saves (issue 32): tokens of ``tools/list`` from the server
itself, through ``toolcat serve``, through ``toolcat serve --defer`` (the first list, and the
list after one ``search_tools`` call that loads its hits), and through ``mcp-compressor``
where its command is given.

    python bench/serve_defer_tokens.py [--compressor PATH] [NAME...]

NAME is one of ``github`` (GitHub's MCP server catalog from the shared corpus, served
exactly as captured by tests/live/servers/raw_server.py: no token needed), ``everything``
(npm server-everything from tests/support/node), ``time`` and ``git`` (PyPI
``mcp-server-time``, ``mcp-server-git``, in the test extra); default: all there are. Each
list is read by a hand-written 2025-11-25 JSON-RPC client over stdio (every page), and
counted as ``toolcat.tokens.count`` (o200k_base) of the ``tools`` array as JSON without
spaces (mcp-context-cost's rule: JSON.stringify of the array as received). The query of
each search is a task written for that server (below).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
NODE_JS = REPO / "tests/support/node/node_modules/@modelcontextprotocol/server-everything" / \
    "dist/index.js"
SHARED = Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared"))

QUERIES = {
    "github": "merge pull request 5 with a squash commit",
    "everything": "add two numbers",
    "time": "convert 9am in Paris to Tokyo time",
    "git": "show the diff of my staged changes",
}


def servers(tmp: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    gh = SHARED / "corpus" / "github-mcp-server"
    if gh.is_dir():
        from toolcat.features.project import standard_array
        from toolcat.formats import LoadOptions, load_catalogs

        tools = standard_array(load_catalogs([str(gh)], LoadOptions(strict=False)), "mcp")
        f = tmp / "github.json"
        f.write_text(json.dumps({"tools": tools}))
        out["github"] = [PY, str(REPO / "tests/live/servers/raw_server.py"), str(f)]
    if NODE_JS.is_file() and shutil.which("node"):
        out["everything"] = ["node", str(NODE_JS), "stdio"]
    out["time"] = [PY, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    repo = tmp / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    out["git"] = [PY, "-m", "mcp_server_git", "--repository", str(repo)]
    return out


class Client:
    """A 2025-11-25 JSON-RPC client over a process's stdio."""

    def __init__(self, argv: list[str]) -> None:
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.n = 0
        self.ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def ask(self, method: str, params: dict | None = None) -> dict:
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params or {}})
        assert self.p.stdout is not None
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def tools(self) -> list:
        out, cursor = [], None
        while True:
            res = self.ask("tools/list", {"cursor": cursor} if cursor else {})
            out += res["tools"]
            cursor = res.get("nextCursor")
            if not cursor:
                return out

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        try:
            self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()


def tokens(tools: list) -> int:
    from toolcat import tokens as tk

    return tk.count(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


def measure(name: str, argv: list[str], compressor: str | None) -> dict:
    serve = [PY, "-m", "toolcat", "serve", "-q", "--timeout", "60"]
    row: dict = {"server": name}
    c = Client(argv)
    row["tools"] = len(c.tools())
    row["direct"] = tokens(c.tools())
    c.close()
    c = Client([*serve, shlex.join(argv)])
    row["serve"] = tokens(c.tools())
    c.close()
    c = Client([*serve, "--defer", shlex.join(argv)])
    first = c.tools()
    row["defer_first"] = tokens(first)
    found = c.ask("tools/call", {"name": "search_tools",
                                 "arguments": {"query": QUERIES[name]}})
    row["search_result"] = tokens([found])
    after = c.tools()
    row["defer_after_search"] = tokens(after)
    row["loaded"] = len(after) - len(first)
    c.close()
    if compressor:
        c = Client([compressor, "--", *argv])
        row["compressor"] = tokens(c.tools())
        c.close()
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compressor", help="the mcp-compressor command (its default: medium)")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        every = servers(Path(tmp))
        rows = [measure(n, every[n], a.compressor) for n in (a.names or list(every))]
    cols = ["server", "tools", "direct", "serve", "defer_first", "search_result",
            "defer_after_search", "loaded"] + (["compressor"] if a.compressor else [])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:,}" if isinstance(r[c], int) else str(r[c])
                                for c in cols) + " |")


if __name__ == "__main__":
    main()
