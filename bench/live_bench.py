"""Time the capture of real MCP servers (issue 14): start-up included and excluded.

    python bench/live_bench.py [--repeat 5] [--lists 20] [--json FILE] [SERVER...]

SERVER is a command line (default: ``mcp-server-time``, the test server
``tests/live/servers/catalog_server.py`` and, where ``node`` and ``tests/support/node`` are
installed (``npm ci --prefix tests/support/node``), ``server-everything``). For each server:

* **toolcat capture**: the wall time of the command a user runs, ``toolcat capture SERVER``
  (to /dev/null): Python start, toolcat's CLI, the MCP SDK import, the server's start,
  handshake, every tools/list page, shutdown; median of ``--repeat`` runs;
* **process**: the same through the capture API in a fresh interpreter (no CLI), median of
  ``--repeat`` runs;
* **start-up included**: from the server's spawn to the last tools/list page (inside that
  process; the server boots while toolcat imports the SDK);
* **handshake**: spawn to the end of the handshake;
* **start-up excluded**: one ``tools/list`` walk (every page) over a session already open,
  median of ``--lists`` walks;
* **SDK import**: seconds importing the MCP SDK in that process.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NODE_JS = REPO / "tests/support/node/node_modules/@modelcontextprotocol/server-everything" / \
    "dist/index.js"

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from toolcat.formats.live import capture, spec
s = spec.from_command(sys.argv[1])
(o,) = capture.capture([s], timeout=60, log_dir=None)
if o.error:
    print(json.dumps({"error": o.error.render()})); sys.exit(0)
print(json.dumps({"timings": o.capture.timings, "tools": len(o.capture.tools),
                  "pages": o.capture.pages, "sdk_import": capture.last_sdk_import_s,
                  "in_process": time.perf_counter() - t0}))
"""

_WARM = r"""
import json, sys, time
import anyio
from toolcat.formats.live import capture, procs, spec
session = capture.import_sdk()
s = spec.from_command(sys.argv[1])
n = int(sys.argv[2])

async def main():
    proc = procs.spawn(s)
    wire = session._Wire(s, 60.0)
    times = []
    with wire.scope:
        async with session.LiveSession(s, wire, proc) as live:
            for _ in range(n):
                t = time.perf_counter()
                await live.list_tools()
                times.append(time.perf_counter() - t)
    return times

with procs.guard():
    print(json.dumps(anyio.run(main)))
"""


def default_servers() -> list[str]:
    out = []
    exe = shutil.which("mcp-server-time", path=os.path.dirname(sys.executable) + os.pathsep
                       + os.environ.get("PATH", ""))
    if exe:
        out.append(shlex.join([exe]))
    out.append(shlex.join([sys.executable, str(REPO / "tests/live/servers/catalog_server.py")]))
    if shutil.which("node") and NODE_JS.is_file():
        out.append(shlex.join(["node", str(NODE_JS), "stdio"]))
    return out


def run_json(code: str, *args: str) -> object:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep
               + os.environ.get("PATH", ""))
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       env=env, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"bench child failed: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("servers", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lists", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    servers = a.servers or default_servers()
    rows = []
    for cmd in servers:
        walls, totals, ready, imports = [], [], [], []
        info: dict = {}
        for _ in range(a.repeat):
            t = time.perf_counter()
            r = run_json(_CHILD, cmd)
            walls.append(time.perf_counter() - t)
            if "error" in r:
                raise SystemExit(f"{cmd}: {r['error']}")
            totals.append(r["timings"]["total"])
            ready.append(r["timings"]["ready"])
            imports.append(r["sdk_import"])
            info = r
        clis = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "toolcat", "capture", "--timeout", "60",
                                cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, PATH=os.path.dirname(sys.executable)
                                        + os.pathsep + os.environ.get("PATH", "")),
                               timeout=300)
            clis.append(time.perf_counter() - t)
            if p.returncode != 0:
                raise SystemExit(f"{cmd}: {p.stderr.decode(errors='replace')[-500:]}")
        warm = run_json(_WARM, cmd, str(a.lists))
        row = {"server": cmd, "tools": info["tools"], "pages": info["pages"],
               "cli_s": statistics.median(clis),
               "process_s": statistics.median(walls),
               "startup_included_s": statistics.median(totals),
               "handshake_s": statistics.median(ready),
               "startup_excluded_s": statistics.median(warm),
               "sdk_import_s": statistics.median(imports)}
        rows.append(row)
    hdr = f"{'server':24} {'tools':>5} {'pages':>5} {'capture':>8} {'process':>8} " \
          f"{'incl.':>7} {'handsh.':>7} {'excl.':>8} {'SDK imp':>7}"
    print(hdr)
    for r in rows:
        from toolcat.formats.live.spec import derive_name

        name = derive_name(shlex.split(r["server"]))
        print(f"{name[:24]:24} {r['tools']:>5} {r['pages']:>5} {r['cli_s']:>7.3f}s "
              f"{r['process_s']:>7.3f}s "
              f"{r['startup_included_s']:>6.3f}s {r['handshake_s']:>6.3f}s "
              f"{r['startup_excluded_s'] * 1000:>6.1f}ms {r['sdk_import_s']:>6.3f}s")
    print(f"(median of {a.repeat} processes; start-up excluded: median of {a.lists} "
          "tools/list walks on one open session)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
