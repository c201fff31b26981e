"""What ``toolcat serve`` costs and saves (issue 18): the latency a proxied ``tools/call``
adds, and the tokens of the served ``tools/list`` against the upstream's.

    python bench/serve_bench.py [--calls 100] [--json FILE] [NAME...]

NAME is one of ``time`` (PyPI ``mcp-server-time``), ``everything``
(``@modelcontextprotocol/server-everything`` from tests/support/node, where ``node`` is
installed) and ``catalog`` (tests/live/servers/catalog_server.py); default: all there are.
For each server, one MCP SDK client session (stdio) to the server itself and one to
``toolcat serve`` in front of it (and one to ``toolcat serve --no-validate``): after a few
warm-up calls, ``--calls`` calls of one deterministic tool, one at a time; per call the wall
time from the request to its result. Reported: the median of each, and the added latency
(the proxied median minus the direct one). Tokens: ``toolcat.tokens.count`` (o200k_base) of
each ``tools/list`` (every page, the tools as the SDK client received them, as toolcat's
canonical JSON), the served one with its handbook tool.

Start-up is not in the call figures (each session is open before the first timed call).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
NODE_JS = REPO / "tests/support/node/node_modules/@modelcontextprotocol/server-everything" / \
    "dist/index.js"
WARM = 5
DEVNULL = open(os.devnull, "w")  # noqa: SIM115 - for the whole run (the SDK keeps it as default)


def servers() -> dict[str, tuple[str, str, dict]]:
    """name -> (command line, tool, arguments)."""
    out = {"time": (shlex.join([PY, "-m", "mcp_server_time", "--local-timezone", "UTC"]),
                    "convert_time", {"source_timezone": "Europe/Paris", "time": "12:00",
                                     "target_timezone": "Asia/Tokyo"})}
    if shutil.which("node") and NODE_JS.is_file():
        out["everything"] = (shlex.join(["node", str(NODE_JS), "stdio"]), "get-sum",
                             {"a": 2, "b": 40})
    out["catalog"] = (shlex.join([PY, str(REPO / "tests/live/servers/catalog_server.py")]),
                      "add", {"a": 20, "b": 22})
    return out


async def session_figures(argv: list[str], tool: str, args: dict, calls: int) -> dict:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with Client(params) as client:
        tools, cursor = [], None
        while True:
            res = await client.list_tools(cursor=cursor)
            tools += [t.model_dump(by_alias=True, mode="json", exclude_unset=True)
                      for t in res.tools]
            cursor = res.next_cursor
            if cursor is None:
                break
        for _ in range(WARM):
            await client.call_tool(tool, args)
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            res = await client.call_tool(tool, args)
            times.append(time.perf_counter() - t0)
            if res.is_error:
                raise SystemExit(f"{argv}: {tool} answered an error: {res.content}")
    return {"tools": tools, "median_ms": statistics.median(times) * 1000,
            "p90_ms": sorted(times)[int(0.9 * (len(times) - 1))] * 1000}


def bench(name: str, command: str, tool: str, args: dict, calls: int) -> dict:
    import anyio

    from toolcat import tokens
    from toolcat.document.canonical import dumps

    serve = [PY, "-m", "toolcat", "serve", "--timeout", "120", "-q"]
    runs = {}
    with contextlib.redirect_stderr(DEVNULL):      # the servers' stderr
        runs["direct"] = anyio.run(session_figures, shlex.split(command), tool, args, calls)
        runs["serve"] = anyio.run(session_figures, [*serve, command], tool, args, calls)
        runs["serve --no-validate"] = anyio.run(
            session_figures, [*serve, "--no-validate", command], tool, args, calls)
    tok = {k: tokens.count(dumps(v["tools"])) for k, v in runs.items()}
    return {
        "server": name, "tool": tool, "calls": calls,
        "tools_upstream": len(runs["direct"]["tools"]),
        "tokens_upstream": tok["direct"], "tokens_served": tok["serve"],
        "direct_ms": runs["direct"]["median_ms"], "serve_ms": runs["serve"]["median_ms"],
        "serve_no_validate_ms": runs["serve --no-validate"]["median_ms"],
        "added_ms": runs["serve"]["median_ms"] - runs["direct"]["median_ms"],
        "added_no_validate_ms": (runs["serve --no-validate"]["median_ms"]
                                 - runs["direct"]["median_ms"]),
        "p90_ms": {k: v["p90_ms"] for k, v in runs.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    known = servers()
    names = a.names or list(known)
    rows = []
    print(f"{'server':<12} {'tool':<13} {'tokens up -> served':>21} {'direct':>9} "
          f"{'serve':>9} {'added':>9} {'no-validate':>12}")
    for n in names:
        if n not in known:
            raise SystemExit(f"unknown server {n!r} (one of {', '.join(known)})")
        r = bench(n, *known[n], a.calls)
        rows.append(r)
        print(f"{n:<12} {r['tool']:<13} {r['tokens_upstream']:>10,} -> {r['tokens_served']:>7,} "
              f"{r['direct_ms']:>7.2f}ms {r['serve_ms']:>7.2f}ms {r['added_ms']:>+7.2f}ms "
              f"{r['added_no_validate_ms']:>+10.2f}ms")
    if a.json:
        Path(a.json).write_text(json.dumps({"calls": a.calls, "python": sys.version.split()[0],
                                            "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
