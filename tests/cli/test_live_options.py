"""The live-server options cost file-only runs nothing (the MCP SDK is never imported), and
without the SDK a live run is one clear error line (no SDK needed for these tests)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.common import REPO

HEAVY = ("mcp", "mcp_types", "pydantic", "anyio", "httpx2", "starlette", "uvicorn")


def _modules_after(args: list[str]) -> set[str]:
    code = ("import sys\nfrom toolcat.cli import run\nrun(%r)\n"
            "sys.stdout.flush()\nsys.__stderr__.write(' '.join(sorted(m for m in sys.modules "
            "if m.split('.')[0] in %r)))\n" % (args, HEAVY))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    return set(r.stderr.strip().splitlines()[-1].split()) if r.stderr.strip() else set()


@pytest.mark.parametrize("args", [
    ["lint", "samples/broken.tools.json"],
    ["measure", "samples/git.tools.json"],
    ["tools", "samples/petstore.openapi.yaml"],
    ["project", "samples/git.tools.json", "-q"],
])
def test_file_only_runs_import_no_part_of_the_sdk(args):
    assert _modules_after(args) == set()


def test_without_the_sdk_a_live_run_is_one_error_line_and_no_process_left():
    code = ("import sys\nsys.modules['mcp'] = None\nfrom toolcat.cli import run\n"
            "sys.exit(run(['tools', '--server', %r]))\n")
    marker = "toolcat-test-no-sdk-sleep"
    r = subprocess.run([sys.executable, "-c", code % f"sh -c 'exec -a {marker} sleep 60'"],
                       capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "toolcat: error: live servers need the MCP Python SDK (mcp is not installed): "
        "pip install 'toolcat[live]'"]
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert left.stdout.strip() == ""
