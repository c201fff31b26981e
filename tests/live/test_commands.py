"""Every command reads live servers (--server, --url, --client-config) as it reads files:
the acceptance of issue 14 (measure of a server = measure of its capture file; a capture's
tools = the SDK client's own list_tools()), `toolcat capture` and `--check`, findings located
by server and tool index in every lint format, baselines, and the setup rules on real runs."""

from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import (  # noqa: E402
    REPO,
    catalog_cmd,
    catalog_http,  # noqa: F401 - a fixture
    cli,  # noqa: F401 - a fixture
    everything_cmd,
    everything_http,  # noqa: F401 - a fixture
    everything_js,  # noqa: F401 - a fixture
    filesystem_cmd,
    filesystem_js,  # noqa: F401 - a fixture
    raw_cmd,
    require_exe,
    sdk_list_tools,
    wait_gone,
)

from toolcat.formats.live.capture import json_equal  # noqa: E402

SLACK = ("--timeout", "60")   # not about timeouts: a loaded machine is no failure


def ok(run, code: int = 0):
    assert run.rc == code, (run.rc, run.out, run.err)
    assert "Traceback" not in run.err
    assert wait_gone(run.marker) == []
    return run


def serve_file(tmp_path: Path, tools: list, name: str = "tools.json", **kw) -> str:
    """A raw_server command serving ``tools`` exactly as written."""
    f = tmp_path / name
    f.write_text(json.dumps({"tools": tools}))
    extra = [str(f)] + [x for k, v in kw.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    return raw_cmd(*extra)


# --------------------------------------------------------------------------- acceptance


def test_measure_of_a_server_equals_measure_of_its_capture_file(cli, tmp_path):
    require_exe("mcp-server-time")
    ok(cli("capture", *SLACK, "mcp-server-time", "-o", "time.capture.json"))
    live = json.loads(ok(cli("measure", *SLACK, "-f", "json", "--server", "mcp-server-time")).out)
    file = json.loads(ok(cli("measure", "-f", "json", "time.capture.json")).out)
    (a,), (b,) = live["catalogs"], file["catalogs"]
    assert a.pop("file") == "mcp-server-time" and b.pop("file") == "time.capture.json"
    assert a == b and a["tools"] == 2
    assert live["total"] == file["total"] and live["tokenizer"] == file["tokenizer"]
    # the table shows the same figures
    t_live = ok(cli("measure", *SLACK, "--server", "mcp-server-time")).out
    t_file = ok(cli("measure", "time.capture.json")).out
    assert t_live.splitlines()[3].split()[1:] == t_file.splitlines()[3].split()[1:]


def test_capture_tools_equal_the_sdk_clients_list_tools(cli, tmp_path):
    exe = require_exe("mcp-server-time")
    ok(cli("capture", *SLACK, "mcp-server-time", "-o", "time.json"))
    doc = json.loads((tmp_path / "time.json").read_text())
    sdk = sdk_list_tools([exe])
    assert [t["name"] for t in doc["tools"]] == [t["name"] for t in sdk["tools"]]
    for mine, theirs in zip(doc["tools"], sdk["tools"]):
        assert json_equal(mine, theirs), mine["name"]
    meta = doc["capture"]
    assert meta["server"] == "mcp-server-time" and meta["transport"] == "stdio"
    assert meta["protocolVersion"] == sdk["protocolVersion"]
    assert meta["serverInfo"] == sdk["serverInfo"]
    assert meta["pages"] == sdk["pages"] == 1
    assert list(doc) == ["capture", "tools"]


def test_capture_of_three_pages_over_streamable_http_with_a_header(cli, tmp_path, catalog_http):
    url = catalog_http + "/mcp"
    ok(cli("capture", *SLACK, url, "--header", "Authorization: Bearer secret-token",
           "-o", "http.json"))
    doc = json.loads((tmp_path / "http.json").read_text())
    sdk = sdk_list_tools(url, {"Authorization": "Bearer secret-token"})
    assert doc["capture"]["pages"] == sdk["pages"] == 3
    assert all(json_equal(a, b) for a, b in zip(doc["tools"], sdk["tools"]))
    assert len(doc["tools"]) == 7 and doc["capture"]["transport"] == "streamable-http"
    assert "secret-token" not in (tmp_path / "http.json").read_text()


# --------------------------------------------------------------------------- commands


def test_lint_of_a_server_is_lint_of_its_capture_located_by_index(cli, tmp_path):
    ok(cli("capture", *SLACK, catalog_cmd(), "-o", "cat.json"))
    live = json.loads(ok(cli("lint", *SLACK, "-f", "json", "--server", catalog_cmd()), 0).out)
    file = json.loads(ok(cli("lint", "-f", "json", "cat.json"), 0).out)

    def key(f: dict) -> tuple:
        return (f["code"], f["severity"], f["message"], f["tool"], f["pointer"])

    live_tools = [f for f in live["findings"] if not f["code"].startswith("SU")]
    assert sorted(map(key, live_tools)) == sorted(map(key, file["findings"]))
    assert live_tools and all(f["file"] == "catalog_server" and f["line"] is None
                              and f["server"] == "catalog_server" for f in live_tools)
    names = ["echo", "add", "get_time", "create_ticket", "delete_ticket", "search", "noop"]
    assert all(f["index"] == names.index(f["tool"]) for f in live_tools)
    assert all(f["line"] is not None for f in file["findings"])   # a file has lines
    assert live["summary"]["servers"] == 1 and live["summary"]["files"] == 0
    text = ok(cli("lint", *SLACK, "--server", catalog_cmd())).out
    assert "catalog_server  (MCP server, stdio)" in text
    assert "  tool create_ticket  (#3 in tools/list)" in text
    assert text.rstrip().endswith("in 1 server, 7 tools.")


def test_lint_formats_locate_live_findings_without_a_file(cli, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "tests/fixtures/sarif/sarif-schema-2.1.0.json").read_text())
    sarif = json.loads(ok(cli("lint", *SLACK, "-f", "sarif", "--server", catalog_cmd())).out)
    jsonschema.validate(sarif, schema)
    results = sarif["runs"][0]["results"]
    assert results
    for r in results:
        (loc,) = r["locations"]
        assert "physicalLocation" not in loc          # a server is no artifact
        assert loc["logicalLocations"][0] == {"name": "catalog_server", "kind": "module"}
    ticket = [r for r in results if r["properties"]["tool"] == "create_ticket"]
    assert ticket[0]["locations"][0]["logicalLocations"][1]["fullyQualifiedName"] \
        .startswith("catalog_server/tools/3/inputSchema")

    gh = ok(cli("lint", *SLACK, "-f", "github", "--server", catalog_cmd())).out.splitlines()
    assert gh and all(x.startswith(("::warning title=", "::notice title=")) for x in gh)
    assert not [x for x in gh if "file=" in x]                 # no file= for a server
    assert any(" catalog_server [create_ticket #3] /inputSchema/" in x for x in gh), gh

    junit = ET.fromstring(ok(cli("lint", *SLACK, "-f", "junit", "--server", catalog_cmd())).out)
    assert {s.get("name") for s in junit.iter("testsuite")} == {"catalog_server"}


def test_baseline_of_a_server(cli, tmp_path):
    ok(cli("lint", *SLACK, "--server", catalog_cmd(), "--write-baseline", "base.json"))
    base = json.loads((tmp_path / "base.json").read_text())
    assert {e["file"] for e in base["findings"]} == {"catalog_server"}
    # the baseline works from another folder too (a server is no path)
    (tmp_path / "sub").mkdir()
    run = ok(cli("lint", *SLACK, "--server", catalog_cmd(), "--baseline", "../base.json",
                 cwd=tmp_path / "sub"))
    assert "No problems found" in run.out and "hidden by the baseline" in run.out


def test_tools_project_and_diff_toolids_of_servers(cli, tmp_path):
    run = ok(cli("tools", *SLACK, "-f", "json", "--server", catalog_cmd(), "--server",
                 "mcp-server-time"))
    cats = json.loads(run.out)["catalogs"]
    assert [c["file"] for c in cats] == ["catalog_server", "mcp-server-time"]
    assert cats[0]["server"]["transport"] == "stdio" and cats[0]["server"]["pages"] == 3
    assert cats[0]["server"]["serverInfo"]["name"] == "catalog-server"
    assert len(cats[0]["tools"]) == 7

    ok(cli("project", *SLACK, "--server", catalog_cmd(), "-o", "compact.json", "-q"))
    ok(cli("capture", *SLACK, catalog_cmd(), "-o", "cat.json"))
    ok(cli("project", "cat.json", "-o", "compact-file.json", "-q"))
    assert (tmp_path / "compact.json").read_bytes() == \
        (tmp_path / "compact-file.json").read_bytes()
    # --check against the server: current
    ok(cli("project", *SLACK, "--server", catalog_cmd(), "-o", "compact.json", "--check"))

    same = ok(cli("diff-toolids", "cat.json", *SLACK, "--server", catalog_cmd()))
    assert same.out.rstrip().endswith("equal")
    other = cli("diff-toolids", "cat.json", *SLACK, "--server", catalog_cmd("single"))
    assert other.rc == 0     # the same 7 ids on one page
    fewer = tmp_path / "fewer.json"
    doc = json.loads((tmp_path / "cat.json").read_text())
    doc["tools"] = doc["tools"][:5]
    fewer.write_text(json.dumps(doc))
    diff = cli("diff-toolids", "fewer.json", *SLACK, "--server", catalog_cmd())
    assert diff.rc == 1 and "search" in diff.out and "noop" in diff.out
    three = cli("diff-toolids", "cat.json", "fewer.json", "--server", catalog_cmd())
    assert three.rc == 2 and three.err.startswith("toolcat: error: diff-toolids compares two")


def test_diff_toolids_of_two_servers_compares_them(cli, tmp_path):
    def tool(name: str) -> dict:
        return {"name": name, "description": f"{name} it", "inputSchema": {"type": "object"}}

    a = serve_file(tmp_path, [tool("get_time"), tool("convert_time")], "a.json")
    b = serve_file(tmp_path, [tool("get_time"), tool("list_zones")], "b.json")
    diff = cli("diff-toolids", *SLACK, "-f", "json", "--server", a, "--server", b)
    assert diff.rc == 1, (diff.rc, diff.err)
    got = json.loads(diff.out)
    assert got["only_in_a"] == ["convert_time"] and got["only_in_b"] == ["list_zones"]
    assert got["common"] == 1
    same = ok(cli("diff-toolids", *SLACK, "--server", a, "--server", a))
    assert same.out.rstrip().endswith("equal")
    # one server alone: its standard view against its compact view, as for one file
    one = ok(cli("diff-toolids", *SLACK, "--server", a))
    assert "standard view" in one.out and one.out.rstrip().endswith("equal")


def test_merge_joins_servers_and_files(cli, tmp_path):
    ok(cli("capture", *SLACK, "mcp-server-time", "-o", "time.json"))
    run = ok(cli("tools", *SLACK, "-f", "json", "--merge", "time.json", "--server",
                 catalog_cmd()))
    (cat,) = json.loads(run.out)["catalogs"]
    assert len(cat["tools"]) == 9


def test_diff_a_capture_against_the_running_server(cli, tmp_path):
    """`toolcat diff OLD --server CMD`: the running server is NEW (issue 16: a capture file
    against a running server); two --server compare with each other."""
    old = [{"name": "a", "inputSchema": {"type": "object",
                                         "properties": {"x": {"type": "string"}}}}]
    (tmp_path / "old.json").write_text(json.dumps({"tools": old}))
    same = serve_file(tmp_path, old, name="same.json")
    run = ok(cli("diff", *SLACK, "old.json", "--server", same))
    assert "0 breaking" in run.out and "1 unchanged" in run.out, run.out
    new = [{"name": "a", "inputSchema": {"type": "object", "required": ["x"],
                                         "properties": {"x": {"type": "string"}}}}]
    changed = serve_file(tmp_path, new, name="new.json")
    run = cli("diff", *SLACK, "-f", "json", "old.json", "--server", changed)
    assert run.rc == 1, run.err
    rep = json.loads(run.out)
    assert rep["old"]["label"] == "old.json" and rep["new"]["tools"] == 1
    (tool,) = rep["tools"]
    assert [(f["kind"], f["pointer"]) for f in tool["findings"]] == \
        [("breaking", "/inputSchema/required")]
    run = cli("diff", *SLACK, "-f", "json", "--server", same, "--server", changed)
    assert run.rc == 1 and json.loads(run.out)["summary"]["breaking"] == 1, run.err
    bad = cli("diff", *SLACK, "old.json")
    assert bad.rc == 2 and bad.err_lines[0].startswith("toolcat: error: diff compares two")


# --------------------------------------------------------------------------- capture


def test_capture_check_keeps_a_capture_current(cli, tmp_path):
    tools = [{"name": "a", "description": "one", "inputSchema": {"type": "object"}},
             {"name": "b", "inputSchema": {"type": "object"}}]
    cmd = serve_file(tmp_path, tools)
    missing = cli("capture", *SLACK, cmd, "-o", "cap.json", "--check")
    assert missing.rc == 1 and "cap.json: out of date (the file does not exist)" in missing.err
    assert not (tmp_path / "cap.json").exists()
    ok(cli("capture", *SLACK, cmd, "-o", "cap.json"))
    first = (tmp_path / "cap.json").read_bytes()
    assert json.loads(first)["tools"] == tools
    current = ok(cli("capture", *SLACK, cmd, "-o", "cap.json", "--check"))
    assert "cap.json: up to date" in current.err
    # an unchanged capture is not rewritten (capturedAt stays)
    again = ok(cli("capture", *SLACK, cmd, "-o", "cap.json"))
    assert "up to date" in again.err and (tmp_path / "cap.json").read_bytes() == first
    # the server changes: --check fails naming what changed, and writes nothing
    tools[0]["description"] = "two"
    tools.append({"name": "c", "inputSchema": {"type": "object"}})
    cmd = serve_file(tmp_path, tools)
    stale = cli("capture", *SLACK, cmd, "-o", "cap.json", "--check")
    assert stale.rc == 1, stale.err
    assert "tool c added" in stale.err and "tool a changed (description)" in stale.err
    assert (tmp_path / "cap.json").read_bytes() == first
    ok(cli("capture", *SLACK, cmd, "-o", "cap.json"))
    assert json.loads((tmp_path / "cap.json").read_text())["tools"] == tools
    ok(cli("capture", *SLACK, cmd, "-o", "cap.json", "--check"))


def test_capture_to_stdout_and_usage_errors(cli, tmp_path):
    run = ok(cli("capture", *SLACK, catalog_cmd("single")))
    doc = json.loads(run.out)
    assert doc["capture"]["pages"] == 1 and len(doc["tools"]) == 7
    for args, says in [((), "give a server"),
                       ((catalog_cmd(), catalog_cmd()), "-o must name a folder"),
                       ((catalog_cmd(), "--check"), "--check needs -o"),
                       (("--header", "A: b", catalog_cmd()), "--header applies to --url"),
                       (("--timeout", "0", catalog_cmd()), "--timeout must be more than 0"),
                       (("--client", "zed"), "--client must be one of")]:
        r = cli("capture", *args)
        assert r.rc == 2 and len(r.err_lines) == 1 and says in r.err, (args, r.err)
        assert r.out == ""


@pytest.mark.parametrize("command", ["tools", "lint", "project", "measure", "diff-toolids"])
def test_no_input_at_all_is_a_usage_error(cli, command):
    r = cli(command)
    assert r.rc == 2 and len(r.err_lines) == 1, r.err
    assert r.err_lines[0].startswith("toolcat: error: missing argument: give a catalog file or folder")
    assert "--server CMD" in r.err


# --------------------------------------------------------------------------- setup rules


def test_setup_rules_on_real_servers(cli, tmp_path):
    tools = [{"name": f"tool_{i}", "inputSchema": {"type": "object"}} for i in range(100)]
    tools.append({"name": "a_tool_whose_name_is_long_already_x", "description": "d" * 2049,
                  "inputSchema": {"type": "object", "properties": {
                      "x": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}})
    a, b = serve_file(tmp_path, tools, "a.json"), serve_file(tmp_path, tools[:40], "b.json")
    config = tmp_path / "claude.json"
    config.write_text(json.dumps({"mcpServers": {
        "a-server-named-at-length": {"command": shlex.split(a)[0], "args": shlex.split(a)[1:]},
        "b": {"command": shlex.split(b)[0], "args": shlex.split(b)[1:]}}}))
    # any client, any provider: 141 tools break OpenAI's 128 (not Gemini's 512); Claude Code
    # sends mcp__a-server-named-at-length__a_tool_whose_name_is_long_already_x (66 characters)
    # and cuts its description
    run = cli("lint", *SLACK, "-f", "json", "--select", "SU", "--client-config", str(config))
    assert run.rc == 1, run.err
    found = json.loads(run.out)["findings"]
    codes = sorted((f["code"], f["file"], f["tool"], f["index"]) for f in found
                   if f["code"] not in ("SU604", "SU605"))
    assert codes == [
        ("SU601", "setup", None, None),
        ("SU602", "a-server-named-at-length", "a_tool_whose_name_is_long_already_x", 100),
        ("SU603", "a-server-named-at-length", "a_tool_whose_name_is_long_already_x", 100)]
    msg = {f["code"]: f["message"] for f in found}
    assert msg["SU601"] == ("the setup sends 141 tools from 2 servers: more than OpenAI "
                            "accepts in one request (128)")
    assert msg["SU602"] == ("Claude Code sends this tool as 'mcp__a-server-named-at-length__"
                            "a_tool_whose_name_is_long_already_x': 66 characters, more than 64")
    assert msg["SU603"] == ("Claude Code passes on only the first 2,048 of this "
                            "description's 2,049 characters")
    # b's 40 tools have the names of a's first 40: sent unprefixed, one name twice
    dup = [(f["file"], f["index"]) for f in found if f["code"] == "SU605"]
    assert dup == [("b", i) for i in range(40)]
    assert {f["message"] for f in found if f["code"] == "SU604"} == {
        "sent with strict: true, the setup's 141 tools exceed Anthropic's 20 per request"}
    # Claude Code talks to Anthropic only: OpenAI's tool count is no limit of that setup
    cc = cli("lint", *SLACK, "-f", "json", "--select", "SU", "--client", "claude-code",
             "--client-config", str(config))
    assert sorted(f["code"] for f in json.loads(cc.out)["findings"]) == \
        ["SU602", "SU603", "SU604"]
    assert {f["file"] for f in json.loads(cc.out)["findings"]} == {
        "claude-code setup", "a-server-named-at-length"}
    # measure reports the same limits under its table
    m = cli("measure", *SLACK, "--client-config", str(config))
    assert m.rc == 0, m.err
    assert "Limits the setup breaks (2 servers together" in m.out
    assert "SU601  the setup sends 141 tools" in m.out
    assert wait_gone(m.marker) == []


def test_measure_says_which_servers_failed_and_that_totals_are_partial(cli):
    """measure with a server that fails: the JSON lists it under "missing" with
    "partial": true (before: left out, totals that looked complete), the text and Markdown
    say the totals are partial; exit 2 as before."""
    good, bad = catalog_cmd(), catalog_cmd("exit")
    run = cli("measure", *SLACK, "-f", "json", "--server", good, "--server", bad)
    assert run.rc == 2, run.err
    data = json.loads(run.out)
    assert data["partial"] is True
    (miss,) = data["missing"]
    assert miss["server"] in run.err and "exited with status 3" in miss["error"]
    assert data["total"]["tools"] == sum(c["tools"] for c in data["catalogs"]) > 0
    text = cli("measure", *SLACK, "--server", good, "--server", bad)
    assert text.rc == 2 and "Partial: the totals are partial: 1 server failed" in text.out
    md = cli("measure", *SLACK, "-f", "markdown", "--server", good, "--server", bad)
    assert md.rc == 2 and "**Partial**: the totals are partial" in md.out
    whole = cli("measure", *SLACK, "-f", "json", "--server", good)
    assert whole.rc == 0 and "partial" not in json.loads(whole.out)


def test_a_stdio_server_and_an_http_server_read_together(cli, everything_http):
    """measure --server A --url B, as Cursor, VS Code and Claude Code setups mix them: both
    read, every run. Before, 4 runs in 6 failed ('All connection attempts failed',
    ClosedResourceError): the stdio server's pipes were closed under the event loop, and a
    descriptor number the loop still watched was reused by the HTTP client's socket."""
    for _ in range(4):
        run = cli("measure", *SLACK, "-f", "json", "--server", catalog_cmd(),
                  "--url", everything_http)
        assert run.rc == 0, run.err
        assert len(json.loads(run.out)["catalogs"]) == 2


def test_openai_strict_on_live_servers(cli, tmp_path, everything_js, filesystem_js):
    """Issue 33's acceptance line on the real servers the tests install (PyPI mcp-server-time
    and mcp-server-git, npm server-everything and server-filesystem), read live: ``--to
    openai-strict`` marks strict every tool openai-python's strict transform makes strict
    (tests/support/openai_strict.py; the captures of 69 more servers:
    tests/corpus/test_provider_sdks.py::test_openai_strict_marks_strict_every_tool_the_sdk_makes_strict)."""
    pytest.importorskip("openai")
    from support.openai_strict import judge

    (tmp_path / "root").mkdir()
    servers = {"time": require_exe("mcp-server-time"), "git": require_exe("mcp-server-git"),
               "everything": everything_cmd(everything_js),
               "filesystem": filesystem_cmd(filesystem_js, tmp_path / "root")}
    paths = []
    for name, cmd in servers.items():
        ok(cli("capture", *SLACK, cmd, "-o", f"{name}.json"))
        paths.append(str(tmp_path / f"{name}.json"))
    checked, total, bad = judge(paths, tmp_path)
    assert not bad, "\n".join(bad)
    assert total > 30 and checked > 15, (checked, total)


def test_lint_client_applies_the_clients_schema_rules(cli, tmp_path):
    """Issue 33: ``lint --client claude-desktop`` reads Claude Desktop's configuration (its
    Linux place under $XDG_CONFIG_HOME) for its servers and now checks them with Claude
    Desktop's schema rules too (the claude-desktop profile beside the default mcp one, a
    matrix): brave-search's real tools declare draft-07 (PV513: Claude Desktop takes 2020-12
    only), notion's use $ref/$defs, which it strips (PV512). Before, only the mcp profile
    ran: no PV finding at all. With --profile given, the client's profile is added to it."""
    from support.common import CORPUS

    def capture(name, n):
        p = CORPUS / "mcp-context-cost" / f"{name}.json"
        if not p.is_file():
            pytest.skip(f"{p} absent (TOOLCAT_SHARED)")
        return json.loads(p.read_text())["rawToolsCapture"][:n]

    brave, notion = capture("brave-search", 3), capture("notion", 5)
    a, b = serve_file(tmp_path, brave, "brave.json"), serve_file(tmp_path, notion, "notion.json")
    conf = tmp_path / "xdg" / "Claude"
    conf.mkdir(parents=True)
    (conf / "claude_desktop_config.json").write_text(json.dumps({"mcpServers": {
        "brave": {"command": shlex.split(a)[0], "args": shlex.split(a)[1:]},
        "notion": {"command": shlex.split(b)[0], "args": shlex.split(b)[1:]}}}))
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    run = cli("lint", *SLACK, "-f", "json", "--client", "claude-desktop", env=env)
    assert run.rc == 1, run.err
    doc = json.loads(run.out)
    pv = {(f["code"], f["file"], f["pointer"]) for f in doc["findings"]
          if f["code"] in ("PV512", "PV513")}
    assert {("PV513", "brave", "/inputSchema/$schema")} == {x for x in pv if x[0] == "PV513"}
    assert len([x for x in pv if x[0] == "PV513"]) == 1 and \
        len({f["tool"] for f in doc["findings"] if f["code"] == "PV513"}) == 3
    assert {x[1] for x in pv if x[0] == "PV512"} == {"notion"}
    assert all(f["profiles"] == ["claude-desktop"] for f in doc["findings"]
               if f["code"].startswith("PV"))
    assert list(doc["matrix"]["profiles"]) == ["mcp", "claude-desktop"]
    # an explicit profile: the client's rules are added to it
    run = cli("lint", *SLACK, "-f", "json", "--client", "claude-desktop", "--profile",
              "openai", "--select", "PV", env=env)
    codes = {(f["code"], tuple(f["profiles"])) for f in json.loads(run.out)["findings"]}
    assert ("PV513", ("claude-desktop",)) in codes, run.err
    assert all(p in ("openai", "claude-desktop") for _c, ps in codes for p in ps)
    assert wait_gone(run.marker) == []


def test_measure_setup_rules_with_a_list_of_profiles_in_the_config(cli, tmp_path):
    """``profile = [...]`` in toolcat.toml: measure's setup rules run every profile, as
    lint's do (it was an internal error: TypeError, unhashable list)."""
    (tmp_path / "toolcat.toml").write_text('profile = ["mcp", "openai"]\n')
    git = raw_cmd(str(REPO / "samples" / "git.tools.json"))
    servers = ("--server", git, "--server", git)     # one name twice: SU605
    m = cli("measure", *SLACK, "-f", "json", *servers)
    assert m.rc == 0 and "Traceback" not in m.err and "internal error" not in m.err, m.err
    lint = cli("lint", *SLACK, "-f", "json", "--select", "SU", *servers)
    want = [(f["code"], f["file"], f["index"]) for f in json.loads(lint.out)["findings"]]
    got = [(f["code"], f["file"], f["index"]) for f in json.loads(m.out)["setup"]["findings"]]
    assert got == want and ("SU605", "raw_server-2", 0) in got
    assert wait_gone(m.marker) == []
