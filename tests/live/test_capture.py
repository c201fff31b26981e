"""Captures of real servers equal the MCP SDK client's own ``list_tools()`` (every page), and
a capture file loads as the same catalog as the live capture."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import (  # noqa: E402
    PY,
    SERVERS,
    catalog_cmd,
    catalog_http,  # noqa: F401 - a fixture
    everything_cmd,
    everything_http,  # noqa: F401 - a fixture
    everything_js,  # noqa: F401 - a fixture
    live_env,
    raw_cmd,
    require_exe,
    sdk_list_tools,
)

from toolcat.document import canonical  # noqa: E402
from toolcat.formats.live import capture as live  # noqa: E402
from toolcat.formats.live import spec as specs  # noqa: E402


@pytest.fixture(autouse=True)
def _path(monkeypatch):
    env = live_env()
    monkeypatch.setenv("PATH", env["PATH"])


def capture_one(s: specs.ServerSpec, timeout: float = 30):
    (o,) = live.capture([s], timeout=timeout)
    assert o.error is None, o.error.render()
    return o.capture


def same_json(a, b) -> bool:
    """JSON equality (key order aside; true, 1 and 1.0 differ)."""
    return live.json_equal(a, b)


def assert_equals_sdk(cap, sdk: dict) -> None:
    names = [t.get("name") for t in cap.tools]
    assert names == [t["name"] for t in sdk["tools"]]
    for mine, theirs in zip(cap.tools, sdk["tools"]):
        assert same_json(mine, theirs), mine["name"]
    assert cap.pages == sdk["pages"]
    assert cap.handshake.protocol_version == sdk["protocolVersion"]
    assert cap.handshake.server_info == sdk["serverInfo"]


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    run = dict(cwd=repo, check=True, capture_output=True)
    subprocess.run(["git", "init", "-q"], **run)
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "add",
                    "a.txt"], **run)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-qm", "a"], **run)
    return repo


def test_mcp_server_time_equals_sdk_list_tools():
    exe = require_exe("mcp-server-time")
    cap = capture_one(specs.from_command("mcp-server-time"))
    assert cap.spec.label == "mcp-server-time"
    assert {t["name"] for t in cap.tools} == {"get_current_time", "convert_time"}
    assert_equals_sdk(cap, sdk_list_tools([exe]))
    doc = live.document(cap)
    assert doc["capture"]["serverInfo"]["name"] == cap.handshake.server_info["name"]
    assert doc["capture"]["transport"] == "stdio"


def test_mcp_server_git_equals_sdk_list_tools(git_repo):
    exe = require_exe("mcp-server-git")
    cap = capture_one(specs.from_command(shlex.join(["mcp-server-git", "--repository",
                                                      str(git_repo)])))
    assert cap.spec.label == "mcp-server-git"
    assert "git_status" in {t["name"] for t in cap.tools}
    assert_equals_sdk(cap, sdk_list_tools([exe, "--repository", str(git_repo)]))


def test_server_everything_stdio_equals_sdk_list_tools(everything_js):
    cap = capture_one(specs.from_command(everything_cmd(everything_js)))
    assert cap.spec.label == "server-everything"
    assert "echo" in {t["name"] for t in cap.tools}
    assert_equals_sdk(cap, sdk_list_tools(["node", str(everything_js), "stdio"]))


def test_server_everything_streamable_http_equals_sdk_list_tools(everything_http):
    cap = capture_one(specs.from_url(everything_http))
    assert cap.spec.transport == specs.HTTP
    assert "echo" in {t["name"] for t in cap.tools}
    assert_equals_sdk(cap, sdk_list_tools(everything_http))


def test_own_server_three_pages_stdio():
    cap = capture_one(specs.from_command(catalog_cmd()))
    assert cap.pages == 3
    assert [t["name"] for t in cap.tools] == ["echo", "add", "get_time", "create_ticket",
                                              "delete_ticket", "search", "noop"]
    assert cap.tools[0]["outputSchema"]["required"] == ["message"]
    assert cap.tools[0]["annotations"]["readOnlyHint"] is True
    assert cap.handshake.server_info["name"] == "catalog-server"
    assert cap.handshake.result.get("instructions") == "A test server for toolcat."
    assert_equals_sdk(cap, sdk_list_tools([PY, str(SERVERS / "catalog_server.py")]))


def test_own_server_three_pages_streamable_http_with_a_token(catalog_http):
    s = specs.from_url(catalog_http + "/mcp", ["Authorization: Bearer secret-token"])
    cap = capture_one(s)
    assert cap.pages == 3 and len(cap.tools) == 7
    assert_equals_sdk(cap, sdk_list_tools(catalog_http + "/mcp",
                                          {"Authorization": "Bearer secret-token"}))
    # the header value is in no report or file
    assert "secret-token" not in json.dumps(live.document(cap))
    assert "secret-token" not in s.describe() and "secret-token" not in s.label


def test_tools_are_kept_raw_when_the_sdk_would_reject_them():
    # raw_server serves tools without inputSchema, with a non-object schema and an
    # unknown field: the SDK's models reject or trim them; the capture keeps them as sent.
    cap = capture_one(specs.from_command(raw_cmd()))
    expected = __import__("runpy").run_path(str(SERVERS / "raw_server.py"))["INVALID"]
    assert same_json(cap.tools, expected)
    assert cap.handshake.method == "initialize"
    assert cap.handshake.protocol_version == "2025-06-18"


def test_pages_from_a_hand_written_server(tmp_path):
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}, "n": i / 2} for i in range(5)]
    f = tmp_path / "tools.json"
    f.write_text(json.dumps({"tools": tools}))
    cap = capture_one(specs.from_command(raw_cmd(str(f), "--page-size", "2")))
    assert cap.pages == 3
    assert same_json(cap.tools, tools)


def test_capture_file_loads_as_the_live_catalog(tmp_path):
    from toolcat.formats import LoadOptions, load_catalogs

    cap = capture_one(specs.from_command(catalog_cmd()))
    path = tmp_path / "catalog.capture.json"
    path.write_bytes(live.file_bytes(live.document(cap)))
    (from_file,) = load_catalogs([str(path)], LoadOptions())
    live_cat = live.to_catalog(cap)
    assert from_file.format == live_cat.format == "mcp"
    assert from_file.view == live_cat.view == "standard"
    assert canonical.dumps([t.raw for t in from_file.tools]) == \
        canonical.dumps([t.raw for t in live_cat.tools])
    assert [t.pointer for t in live_cat.tools] == [f"/tools/{i}" for i in range(7)]
    assert live_cat.file == cap.spec.label
    # the file holds the handshake, and capturedAt is all that changes on a second capture
    doc = json.loads(path.read_text())
    assert doc["capture"]["pages"] == 3 and doc["capture"]["handshake"] in (
        "initialize", "server/discover")
    again = capture_one(specs.from_command(catalog_cmd()))
    assert live.compare(doc, live.document(again)) == []


def test_compare_names_what_changed():
    cap_doc = {"capture": {"server": "s", "capturedAt": "x", "pages": 1},
               "tools": [{"name": "a", "description": "one"}, {"name": "b"}]}
    new = {"capture": {"server": "s", "capturedAt": "y", "pages": 2},
           "tools": [{"name": "a", "description": "two"}, {"name": "c"}]}
    assert live.compare(cap_doc, new) == ["capture.pages changed", "tool c added",
                                          "tool b removed", "tool a changed (description)"]
    # JSON equality, not Python's: 1 and true differ
    assert live.compare({"capture": {}, "tools": [{"name": "a", "x": 1}]},
                        {"capture": {}, "tools": [{"name": "a", "x": True}]}) == \
        ["tool a changed (x)"]


def test_several_servers_at_once_one_failing():
    out = live.capture([specs.from_command(catalog_cmd(), name="good"),
                        specs.from_command("toolcat-no-such-server --x", name="missing"),
                        specs.from_command(catalog_cmd("single"), name="single")], timeout=30)
    assert [o.spec.label for o in out] == ["good", "missing", "single"]
    assert out[0].error is None and len(out[0].capture.tools) == 7
    assert out[1].error is not None and "command not found" in out[1].error.render()
    assert out[2].error is None and out[2].capture.pages == 1


def test_capture_file_is_json_of_the_tools_as_sent(tmp_path):
    cap = capture_one(specs.from_command(catalog_cmd()))
    data = live.file_bytes(live.document(cap))
    assert data.endswith(b"\n")
    doc = json.loads(data)
    assert list(doc) == ["capture", "tools"]
    assert "Ünïcödé ☃" in data.decode("utf-8")      # not \u-escaped, as JSON.stringify
    assert doc["tools"][5]["inputSchema"]["properties"]["limit"]["default"] == 2.5
