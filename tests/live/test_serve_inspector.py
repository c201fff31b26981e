"""`toolcat serve` with a client nobody here wrote: the MCP Inspector's CLI mode
(npm ``@modelcontextprotocol/inspector``, pinned in tests/support/node's lock), as a user
runs it: ``npx @modelcontextprotocol/inspector --cli CMD... --method tools/list`` and
``--method tools/call``; over stdio (it starts toolcat serve) and over Streamable HTTP
(``--cli URL --transport http``). Skips where node/npx or the package is missing."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import NODE_DIR, PY, catalog_cmd, live_env, wait_gone  # noqa: E402
from test_serve import (  # noqa: E402
    CONVERT,
    HANDBOOK,
    SLACK,
    TIME,
    direct,
    list_all,
    served,
    served_http,
)

from toolcat.formats.live.capture import json_equal  # noqa: E402

INSPECTOR = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "inspector"


@pytest.fixture(scope="module")
def npx() -> str:
    exe = shutil.which("npx")
    if exe is None or shutil.which("node") is None:
        pytest.skip("node/npx is not installed")
    if not (INSPECTOR / "package.json").is_file():
        pytest.skip("@modelcontextprotocol/inspector is not installed "
                    "(npm ci --prefix tests/support/node)")
    return exe


def inspector(npx: str, tmp_path, *args: str) -> dict:
    run = subprocess.run([npx, "--no-install", "@modelcontextprotocol/inspector", "--cli",
                          *args], cwd=NODE_DIR, capture_output=True, timeout=300,
                         stdin=subprocess.DEVNULL,
                         env=live_env({"TMPDIR": str(tmp_path)}))
    assert run.returncode == 0, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    return json.loads(run.stdout)


def call_args() -> list[str]:
    out = ["--method", "tools/call", "--tool-name", "convert_time"]
    for k, v in CONVERT.items():
        out += ["--tool-arg", f"{k}={v}"]
    return out


def test_the_inspector_lists_and_calls_through_serve_over_stdio(npx, tmp_path):
    serve = [PY, "-m", "toolcat", "serve", *SLACK, TIME]
    listed = inspector(npx, tmp_path, *serve, "--method", "tools/list")["tools"]
    called = inspector(npx, tmp_path, *serve, *call_args())
    book = inspector(npx, tmp_path, *serve, "--method", "tools/call", "--tool-name", HANDBOOK,
                     "--tool-arg", "name=convert_time")
    mine = served(tmp_path, TIME).run(list_all)          # what the SDK client lists
    assert [t["name"] for t in listed] == ["get_current_time", "convert_time", HANDBOOK]
    for a, b in zip(listed, mine):
        assert json_equal(a, b), a["name"]
    assert called["isError"] is False
    assert called["structuredContent"]["time_difference"] == "+8.0h"
    assert book["isError"] is False
    assert json.loads(book["content"][0]["text"])["name"] == "convert_time"


def test_the_inspector_over_http(npx, tmp_path):
    with served_http(tmp_path, TIME) as (p, url, marker):
        http = [url, "--transport", "http"]
        listed = inspector(npx, tmp_path, *http, "--method", "tools/list")["tools"]
        called = inspector(npx, tmp_path, *http, *call_args())
    assert wait_gone(marker) == []
    assert [t["name"] for t in listed] == ["get_current_time", "convert_time", HANDBOOK]
    assert called["structuredContent"]["time_difference"] == "+8.0h"



def test_the_inspector_lists_every_tool_of_several_upstreams(npx, tmp_path):
    """The Inspector's --method tools/list reads one page (issue 33 item 5: it showed the
    first upstream's tools only): every served tool of two upstreams, one of them paged
    (catalog_server: 3 pages), and the handbook tool, as the SDK client lists them. The
    Inspector reads toolcat serve from a client configuration (its own --server option
    would take toolcat's)."""
    cat = catalog_cmd()
    args = [*SLACK, "--server", TIME, "--server", cat]
    config = tmp_path / "inspector.json"
    config.write_text(json.dumps({"mcpServers": {"toolcat": {
        "command": PY, "args": ["-m", "toolcat", "serve", *args]}}}))
    listed = inspector(npx, tmp_path, "--config", str(config), "--server", "toolcat",
                       "--method", "tools/list")
    mine = served(tmp_path, *args).run(list_all)
    upstream = direct(tmp_path, cat).run(list_all)
    assert "nextCursor" not in listed
    assert [t["name"] for t in listed["tools"]] == [t["name"] for t in mine]
    assert len(mine) == 2 + len(upstream) + 1 and mine[-1]["name"] == HANDBOOK
    for a, b in zip(listed["tools"], mine):
        assert json_equal(a, b), a["name"]
