"""`toolcat serve` (issue 18) with real clients over real stdio, in front of real servers.

The client is the MCP Python SDK's own (``mcp.client.Client`` over ``StdioServerParameters``:
it starts ``python -m toolcat serve ...`` as a host does), plus one hand-written JSON-RPC
exchange for what the SDK's parsed models cannot show (the bytes of ``tools/list``). The
upstreams: PyPI ``mcp-server-time`` and ``mcp-server-git`` (the test extra) and the SDK-built
``servers/catalog_server.py`` (7 tools over 3 pages; modes that fail).

What is checked: the listed names are the upstream's plus the handbook tool; every listed
tool is what ``toolcat project`` writes for a ``toolcat capture`` of the same upstream; the
handbook tool returns the upstream's descriptor exactly; forwarded calls (results, tool
errors, JSON-RPC errors) equal calling the upstream directly; fewer tokens (toolcat's own
``measure``); failures are errors, never a hang; no process is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import uuid

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import (  # noqa: E402
    PY,
    SERVERS,
    catalog_cmd,
    catalog_http,  # noqa: F401 - a fixture
    cli,  # noqa: F401 - a fixture
    end_marked,
    everything_cmd,
    everything_js,  # noqa: F401 - a fixture
    filesystem_cmd,
    filesystem_js,  # noqa: F401 - a fixture
    live_env,
    marked,
    raw_cmd,
    require_exe,
    wait_gone,
)

from toolcat.formats.live.capture import json_equal  # noqa: E402

SLACK = ("--timeout", "60")   # not about timeouts: a loaded machine is no failure
TIME = shlex.join([PY, "-m", "mcp_server_time", "--local-timezone", "UTC"])
HANDBOOK = "get_tool_handbook"
CONVERT = {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}


def ok(run, code: int = 0):
    assert run.rc == code, (run.rc, run.out, run.err)
    assert "Traceback" not in run.err
    assert wait_gone(run.marker) == []
    return run


# --------------------------------------------------------------------------- SDK clients


def _dump(model) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def _result(model) -> dict:
    """A CallToolResult as data, without the envelope of the session it came on: ``_meta``
    (names the answering server) and ``resultType`` (the 2026-07-28 wire's; a 2025-11-25
    session has none)."""
    d = _dump(model)
    d.pop("_meta", None)
    d.pop("resultType", None)
    return d


class Session:
    """One SDK client session; :meth:`run` runs ``fn(client)`` in it (a fresh event loop)."""

    def __init__(self, argv: list[str], tmp_path, marker: str | None = None) -> None:
        self.argv = argv
        self.tmp = tmp_path
        self.marker = marker or uuid.uuid4().hex

    def run(self, fn):
        import anyio
        from mcp.client import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=self.argv[0], args=self.argv[1:], cwd=str(self.tmp),
            env=live_env({"TOOLCAT_TEST_MARK": self.marker, "TMPDIR": str(self.tmp)}))
        log = open(self.tmp / f"client-{self.marker}.log", "a")  # noqa: SIM115

        async def main():
            # the server's stderr (toolcat serve's log) goes to the log file (stdio_client's
            # default is the sys.stderr of when the SDK was imported)
            async with Client(stdio_client(params, errlog=log)) as client:
                return await fn(client)

        try:
            with contextlib.redirect_stderr(log):
                return anyio.run(main)
        finally:
            log.close()

    def stderr(self) -> str:
        return (self.tmp / f"client-{self.marker}.log").read_text()


def served(tmp_path, *args: str, marker: str | None = None) -> Session:
    return Session([PY, "-m", "toolcat", "serve", *SLACK, *args], tmp_path, marker)


def direct(tmp_path, command: str) -> Session:
    return Session(shlex.split(command), tmp_path)


async def list_all(client) -> list[dict]:
    tools, cursor = [], None
    while True:
        res = await client.list_tools(cursor=cursor)
        tools += [_dump(t) for t in res.tools]
        cursor = res.next_cursor
        if cursor is None:
            return tools


def capture_and_project(cli, tmp_path, command: str, *project_args: str) -> tuple[list, list]:
    """The upstream's tools as ``toolcat capture`` writes them, and ``toolcat project`` of
    that capture (each as a tools array); ``cli`` runs in ``tmp_path``."""
    ok(cli("capture", *SLACK, command, "-o", "up.capture.json"))
    run = ok(cli("project", "up.capture.json", "--to", "mcp", *project_args))
    cap = json.loads((tmp_path / "up.capture.json").read_text())
    return cap["tools"], json.loads(run.out)["tools"]


# --------------------------------------------------------------------------- the view


def test_lists_the_projection_of_a_capture_and_the_handbook_tool(cli, tmp_path):
    upstream, projected = capture_and_project(cli, tmp_path, TIME)
    s = served(tmp_path, TIME)

    async def talk(client):
        first = await list_all(client)
        second = await list_all(client)
        books = {}
        for t in upstream:
            res = await client.call_tool(HANDBOOK, {"name": t["name"]})
            books[t["name"]] = _dump(res)
        unknown = _dump(await client.call_tool(HANDBOOK, {"name": "convert_tim"}))
        listed = _dump(await client.list_tools())
        return first, second, books, unknown, client.server_info, listed

    first, second, books, unknown, info, listed = s.run(talk)
    assert wait_gone(s.marker) == []
    # the result says it is a compact view, as `project --to mcp` writes it (issue 15)
    assert listed["_meta"]["toolcat/view"] == "compact"
    names = [t["name"] for t in first]
    assert names == [t["name"] for t in upstream] + [HANDBOOK]
    assert first == second
    # every upstream tool is listed as `toolcat project` writes it (schemas included)
    assert len(projected) == len(upstream) == 2
    for listed, want in zip(first, projected):
        assert json_equal(listed["inputSchema"], want["inputSchema"]), listed["name"]
        assert json_equal(listed, want), listed["name"]
    # ...and it is the compact view: the upstream's schemas carry prose it does not
    assert not json_equal(first[0]["inputSchema"], upstream[0]["inputSchema"])
    # the handbook tool returns each upstream descriptor exactly (as text, minified JSON)
    for t in upstream:
        res = books[t["name"]]
        assert res["isError"] is False
        (block,) = res["content"]
        assert block["type"] == "text"
        assert json_equal(json.loads(block["text"]), t), t["name"]
    assert unknown["isError"] is True
    assert "no tool named 'convert_tim'" in unknown["content"][0]["text"]
    assert "convert_time" in unknown["content"][0]["text"]      # the near match
    hb = first[-1]
    assert "call this" in hb["description"] and hb["inputSchema"]["required"] == ["name"]
    assert hb["annotations"]["readOnlyHint"] is True
    assert info.name == "mcp-time"      # the upstream's own name


def test_a_served_list_reads_as_the_compact_view_it_is(cli, tmp_path):
    """lint and capture of toolcat serve as a server: its tools/list result declares the
    compact view (`_meta`), so lint does not ask for the parameter descriptions the compact
    view moved to the handbook (MR401 on every parameter of the upstream's list as projected),
    and the capture file keeps the declaration."""
    server = shlex.join([PY, "-m", "toolcat", "serve", *SLACK, TIME])
    own = ok(cli("lint", *SLACK, "--format", "json", "--server", TIME), code=0)
    served_lint = cli("lint", *SLACK, "--format", "json", "--server", server)
    assert served_lint.rc == 0, served_lint.out
    found = {f["code"] for f in json.loads(served_lint.out)["findings"]}
    assert "MR401" not in found and json.loads(own.out)["findings"] == []
    ok(cli("capture", *SLACK, "--server", server, "-o", "served.capture.json"))
    doc = json.loads((tmp_path / "served.capture.json").read_text())
    assert doc["_meta"] == {"toolcat/view": "compact"}
    assert [t["name"] for t in doc["tools"]][-1] == HANDBOOK
    # a plain server's capture says nothing of a view
    ok(cli("capture", *SLACK, "--server", TIME, "-o", "time.capture.json"))
    assert "_meta" not in json.loads((tmp_path / "time.capture.json").read_text())


def test_options_of_project_apply(cli, tmp_path):
    cmd = catalog_cmd()
    opts = ("--description-max", "10", "--keep-titles", "--no-output-schema")
    _upstream, projected = capture_and_project(cli, tmp_path, cmd, *opts)
    s = served(tmp_path, "--server", cmd, *opts, "--handbook-tool", "describe_tool")
    listed = s.run(list_all)
    assert [t["name"] for t in listed][-1] == "describe_tool"
    assert len(listed) == 8      # every page of the upstream, then the handbook tool
    for got, want in zip(listed, projected):
        assert json_equal(got, want), got["name"]
    assert all("outputSchema" not in t for t in listed)
    assert listed[0]["title"] == "Echo"      # --keep-titles
    assert all(len(t.get("description", "")) <= 10 for t in listed[:-1])
    assert wait_gone(s.marker) == []


def test_tools_list_is_the_same_bytes_every_time(tmp_path):
    """A hand-written client (no SDK): the bytes of two tools/list answers are the same."""
    marker = uuid.uuid4().hex
    p = subprocess.Popen([PY, "-m", "toolcat", "serve", *SLACK, TIME], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path)}))
    try:
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]
        raw = []
        for m in msgs:                   # one at a time: each answer before the next request
            p.stdin.write((json.dumps(m) + "\n").encode())
            p.stdin.flush()
            if "id" in m:
                raw.append(p.stdout.readline().decode())
        out, err = p.communicate(b"", timeout=120)      # stdin closed: the client is gone
    finally:
        end_marked(marker)
    assert p.returncode == 0, err.decode()
    assert out == b""
    lines = [json.loads(x) for x in raw]
    assert [x.get("id") for x in lines] == [1, 2, 3]
    assert lines[0]["result"]["protocolVersion"] == "2025-11-25"
    a, b = (raw[i].split('"result":', 1)[1] for i in (1, 2))
    assert a == b and '"get_tool_handbook"' in a
    assert wait_gone(marker) == []
    # one line on stderr: what is served, with the token figures
    (line,) = err.decode().splitlines()
    assert line.startswith("toolcat: serving 2 tools of mcp_server_time in the compact view")


# --------------------------------------------------------------------------- calls


def test_forwarded_calls_equal_calling_the_upstream(tmp_path):
    """Valid calls, invalid arguments and unknown tools: by default (--validate log) and with
    --no-validate, what the upstream answers; --validate strict: toolcat's check against the
    upstream's schema answers invalid arguments."""
    async def calls(client):
        out = [_result(await client.call_tool("convert_time", CONVERT)),
               _result(await client.call_tool("convert_time", {}))]      # a tool error
        from mcp.shared.exceptions import MCPError

        try:
            await client.call_tool("no_such_tool", {})
        except MCPError as e:                                             # a JSON-RPC error
            out.append({"code": e.code, "message": e.message, "data": e.data})
        return out

    s = served(tmp_path, "--validate", "strict", TIME)
    via = s.run(calls)
    mine = direct(tmp_path, TIME).run(calls)
    as_came = served(tmp_path, "--no-validate", TIME).run(calls)
    assert as_came == mine                  # --no-validate: the upstream's own verdict
    assert served(tmp_path, TIME).run(calls) == mine         # the default: the same
    assert via[0] == mine[0] and via[2] == mine[2]
    assert via[0]["isError"] is False and via[0]["structuredContent"]["time_difference"] == "+8.0h"
    assert via[2]["code"] == -32602
    # --validate strict: arguments the upstream's schema refuses are answered before
    # forwarding, as a tool error naming the keyword and the pointer (mcp-server-time's own
    # differs in wording)
    assert mine[1]["isError"] is True
    assert via[1]["isError"] is True and len(via[1]["content"]) == 1
    text = via[1]["content"][0]["text"]
    assert text.startswith('Input validation error: "source_timezone" is a required property '
                           "(at the top level of the arguments of convert_time; keyword "
                           "required at /required of its inputSchema)"), text
    assert wait_gone(s.marker) == []


def test_git_log_of_a_fixture_repo_through_serve(tmp_path):
    require_exe("mcp-server-git")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = live_env({"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org",
                    "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org",
                    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "HOME": str(tmp_path)})
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"],
                 ["commit", "-q", "--allow-empty", "-m", "second"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    git = shlex.join([PY, "-m", "mcp_server_git", "--repository", str(repo)])

    async def calls(client):
        names = [t["name"] for t in await list_all(client)]
        res = _result(await client.call_tool("git_log", {"repo_path": str(repo),
                                                         "max_count": 5}))
        return names, res

    (names, via), (up_names, mine) = served(tmp_path, git).run(calls), \
        direct(tmp_path, git).run(calls)
    assert names == up_names + [HANDBOOK]
    assert via == mine
    text = via["content"][0]["text"]
    assert "second" in text and "first" in text


def test_a_streamable_http_upstream_with_a_header(tmp_path, catalog_http):
    """--url and --header: the upstream is reached over Streamable HTTP (3 pages), the header
    sent with every request (its /mcp answers 401 without it)."""
    url = catalog_http + "/mcp"

    async def calls(client):
        names = [t["name"] for t in await list_all(client)]
        return names, _result(await client.call_tool("add", {"a": 20, "b": 22}))

    names, res = served(tmp_path, "--url", url, "--header",
                        "Authorization: Bearer secret-token").run(calls)
    assert names == ["echo", "add", "get_time", "create_ticket", "delete_ticket", "search",
                     "noop", HANDBOOK]
    assert res["structuredContent"] == {"sum": 42} and res["isError"] is False


def test_a_legacy_upstream_server_everything(tmp_path, everything_js):
    """server-everything (the TypeScript SDK 1.x) negotiates 2025-11-25 through initialize;
    toolcat serve's client negotiates 2026-07-28 with toolcat: results still pass unchanged."""
    cmd = everything_cmd(everything_js)

    async def calls(client):
        names = [t["name"] for t in await list_all(client)]
        return names, [_result(await client.call_tool("echo", {"message": "hi ☃"})),
                       _result(await client.call_tool("get-sum", {"a": 2, "b": 40}))]

    (names, via), (up_names, mine) = served(tmp_path, cmd).run(calls), \
        direct(tmp_path, cmd).run(calls)
    assert names == up_names + [HANDBOOK] and len(up_names) > 10
    assert via == mine
    assert "hi ☃" in via[0]["content"][0]["text"] and "42" in via[1]["content"][0]["text"]


@pytest.fixture(scope="module")
def both_lists(tmp_path_factory, everything_js):
    """name -> (served tools/list, upstream tools/list) as the SDK client received them, for
    mcp-server-time, mcp-server-git, server-everything and catalog_server."""
    require_exe("mcp-server-git")
    tmp = tmp_path_factory.mktemp("lists")
    out = {}
    for name, cmd in (("time", TIME), ("git", shlex.join([PY, "-m", "mcp_server_git"])),
                      ("everything", everything_cmd(everything_js)),
                      ("catalog", catalog_cmd())):
        s = served(tmp, cmd)
        out[name] = (s.run(list_all), direct(tmp, cmd).run(list_all))
        assert wait_gone(s.marker) == []
    return out


def test_tokens_of_the_served_list_are_fewer(cli, tmp_path, both_lists):
    """toolcat's own measure: the served tools/list (handbook tool included) against the
    upstream's. (A server with little prose to move, such as the 7 one-line tools of
    catalog_server, costs more served: the handbook tool outweighs what the compact view
    saves; `toolcat serve` says so on start.)"""
    figures = {}
    for name, (listed, upstream) in both_lists.items():
        assert [t["name"] for t in listed] == [t["name"] for t in upstream] + [HANDBOOK]
        (tmp_path / f"{name}.served.json").write_text(json.dumps({"tools": listed}))
        (tmp_path / f"{name}.upstream.json").write_text(json.dumps({"tools": upstream}))
        run = ok(cli("measure", "-f", "json", f"{name}.served.json", f"{name}.upstream.json"))
        served_fig, up_fig = json.loads(run.out)["catalogs"]
        figures[name] = (up_fig["tokens_before"], served_fig["tokens_before"])
    for name in ("time", "git", "everything"):
        assert figures[name][1] < figures[name][0], figures
    assert figures["catalog"][1] > figures["catalog"][0], figures     # said in README


def test_served_schemas_validate_as_the_upstreams(both_lists, ajv_judge):
    """The differential guarantee on the wire: for every upstream tool, each generated
    instance (tests/support/instances.py, valid-looking ones and a mutant of each) gets the
    same verdict from the served input and output schemas as from the upstream's, under
    python-jsonschema and the MCP SDKs' Ajv (the mcp target rewrites exactly, no widening)."""
    from support.differential import Differential, Pair
    from support.instances import instances_for

    diff = Differential(ajv_judge)
    n = 0
    for name, (listed, upstream) in both_lists.items():
        by_name = {t["name"]: t for t in listed}
        for i, t in enumerate(upstream):
            for key in ("inputSchema", "outputSchema"):
                orig, new = t.get(key), by_name[t["name"]].get(key)
                if orig is None or new is None:
                    continue
                n += 1
                diff.add(Pair(f"{name}: {t['name']} /{key}", orig, "2020-12", new,
                              instances_for(orig, seed=1000 * len(name) + i, n=12),
                              objects_only=True))
    rep = diff.run()
    assert n > 30
    assert rep.failures == [], rep.failures[:5]
    assert rep.total("instances") > 300, rep.line()


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize("command, said", [
    (catalog_cmd("exit"), "exited with status 3 before answering"),
    ("no-such-mcp-server-x --stdio", "command not found: 'no-such-mcp-server-x'"),
    (catalog_cmd("tools-error"), "the tool registry is unavailable"),
])
def test_an_upstream_that_fails_is_an_error_not_a_hang(cli, tmp_path, command, said):
    run = ok(cli("serve", *SLACK, "--server", command), 2)
    (line,) = run.err_lines
    assert line.startswith("toolcat: error: ") and said in line, line
    assert run.out == ""
    # a host sees the connection close (the SDK client raises), never a hang
    s = served(tmp_path, "--server", command)
    with pytest.raises(BaseException) as got:
        s.run(list_all)
    assert "Connection closed" in repr(got.value) or "closed" in repr(got.value).lower()
    assert wait_gone(s.marker) == []


def test_an_upstream_that_never_answers_is_ended_after_the_timeout(cli):
    run = ok(cli("serve", "--timeout", "3", catalog_cmd("hang")), 2)
    (line,) = run.err_lines
    assert "did not answer the handshake" in line, line
    assert "within 3 s (--timeout); its process group was ended" in line, line


def test_an_upstream_gone_while_serving_gives_each_call_an_error(tmp_path):
    from mcp.shared.exceptions import MCPError

    s = served(tmp_path, catalog_cmd())

    async def talk(client):
        before = _result(await client.call_tool("echo", {"message": "hi"}))
        ups = [pid for pid, cmd in marked(s.marker)
               if "catalog_server.py" in cmd and "-m toolcat" not in cmd]
        assert len(ups) == 1, marked(s.marker)
        os.kill(ups[0], signal.SIGKILL)
        errors = []
        for _ in range(2):
            try:
                await client.call_tool("echo", {"message": "hi"})
            except MCPError as e:
                errors.append((e.code, e.message))
        listed = await list_all(client)       # still served: the view was made at start
        return before, errors, listed

    before, errors, listed = s.run(talk)
    assert before["structuredContent"] == {"message": "hi"}
    assert len(errors) == 2
    for code, message in errors:
        assert code == -32603
        assert "the upstream server catalog_server is gone" in message, message
        assert "killed by signal 9" in message, message
    assert len(listed) == 8
    assert wait_gone(s.marker) == []


def test_an_upstream_gone_while_serving_is_said_on_stderr_and_exit_2(tmp_path):
    """The same with a hand-written client: toolcat serve says it on stderr (the host's log
    of the server) when it happens, answers the call with an MCP error, and exits 2."""
    marker = uuid.uuid4().hex
    p = subprocess.Popen([PY, "-m", "toolcat", "serve", *SLACK, catalog_cmd()],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path,
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path)}))

    def ask(msg: dict) -> dict | None:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        return json.loads(p.stdout.readline()) if "id" in msg else None

    try:
        assert p.stderr.readline().startswith(b"toolcat: serving 7 tools")
        ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        (up,) = [pid for pid, cmd in marked(marker)
                 if "catalog_server.py" in cmd and "-m toolcat" not in cmd]
        os.kill(up, signal.SIGKILL)
        said = p.stderr.readline().decode()        # when it happens, before any call
        answer = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
        out, err = p.communicate(b"", timeout=120)
    finally:
        end_marked(marker)
    assert said.startswith("toolcat: error: catalog_server: was killed by signal 9"), said
    assert said.rstrip().endswith("(while serving: every call now gets an MCP error)"), said
    assert answer["id"] == 2 and answer["error"]["code"] == -32603, answer
    assert "is gone: was killed by signal 9" in answer["error"]["message"]
    assert p.returncode == 2 and out == b"" and err == b"", (p.returncode, out, err)
    assert wait_gone(marker) == []


def test_a_call_that_never_ends_is_an_error_after_the_call_timeout(tmp_path):
    from mcp.shared.exceptions import MCPError

    s = served(tmp_path, "--call-timeout", "2", catalog_cmd())

    async def talk(client):
        try:
            await client.call_tool("hang", {})
        except MCPError as e:
            err = (e.code, e.message)
        return err, _result(await client.call_tool("add", {"a": 2, "b": 3}))

    (code, message), after = s.run(talk)
    assert "did not answer tools/call within 2 s (--call-timeout)" in message
    assert after["structuredContent"] == {"sum": 5}        # the upstream still serves
    assert wait_gone(s.marker) == []


def test_the_client_going_away_ends_the_upstream_group(tmp_path):
    """stdin closed (the host quit): toolcat serve exits 0 and the upstream's group is gone;
    SIGTERM (the host stopping it): the same, exit 143."""
    for how in ("eof", "sigterm"):
        marker = uuid.uuid4().hex
        p = subprocess.Popen([PY, "-m", "toolcat", "serve", *SLACK, catalog_cmd()],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=tmp_path,
                             env=live_env({"TOOLCAT_TEST_MARK": marker,
                                           "TMPDIR": str(tmp_path)}))
        try:
            line = p.stderr.readline()           # serving: the upstream is up
            assert line.startswith(b"toolcat: serving 7 tools"), line
            assert any("catalog_server.py" in c for _, c in marked(marker))
            if how == "eof":
                p.stdin.close()
            else:
                p.send_signal(signal.SIGTERM)
            code = p.wait(timeout=60)
        finally:
            end_marked(marker)
        assert code == (0 if how == "eof" else -signal.SIGTERM), (how, code)
        assert wait_gone(marker) == [], how


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize("args, said", [
    ((), "give the upstream server"),
    (("x", "--handbook-tool", "no spaces"), "--handbook-tool must be an MCP tool name"),
    (("x", "--call-timeout", "-1"), "--call-timeout must be 0"),
    (("x", "--description-max", "-1"), "--description-max must be"),
    (("x", "--http", "70000"), "--http must be a port number"),
])
def test_usage_errors(cli, args, said):
    run = ok(cli("serve", *args), 2)
    assert said in run.err_lines[0], run.err


def test_a_handbook_tool_name_the_upstream_has_is_an_error(cli):
    run = ok(cli("serve", *SLACK, "--handbook-tool", "echo", catalog_cmd()), 2)
    (line,) = run.err_lines
    assert "the server has a tool named 'echo': give the handbook tool another name" in line


# --------------------------------------------------------------------------- README


def test_readme_client_snippet_runs_as_a_client_configuration(cli, tmp_path):
    """README's Claude Desktop snippet, read by toolcat's own reader of client
    configurations (as Claude Desktop reads it), starts `toolcat serve`, which serves the
    upstream's tools and the handbook tool. (`uvx` fetches from PyPI: here the same server
    runs as installed by the test extra.)"""
    import re

    from live_support import REPO

    text = (REPO / "README.md").read_text()
    sec = text.split("\n## Serve a compact view of any MCP server\n", 1)[1].split("\n## ", 1)[0]
    (snippet,) = re.findall(r"```json\n(.*?)```", sec, re.S)
    cfg = json.loads(snippet)
    ((key, entry),) = cfg["mcpServers"].items()
    assert entry["command"] == "toolcat" and entry["args"][0] == "serve"
    assert entry["args"][1] == "uvx mcp-server-time"
    entry["args"][1:2] = [*SLACK, "mcp-server-time --local-timezone Etc/UTC"]
    (tmp_path / "claude_desktop_config.json").write_text(json.dumps(cfg))
    run = ok(cli("tools", *SLACK, "-f", "json", "--client-config",
                 "claude_desktop_config.json"))
    (cat,) = json.loads(run.out)["catalogs"]
    assert cat["file"] == key
    assert [t["id"] for t in cat["tools"]] == ["get_current_time", "convert_time", HANDBOOK]


# --------------------------------------------------------------------------- --http


@contextlib.contextmanager
def served_http(tmp_path, *args: str):
    """``toolcat serve --http 0 ...`` running; yields (process, URL from its start-up line,
    marker). The process is ended (SIGTERM) by the caller or on the way out."""
    import re

    marker = uuid.uuid4().hex
    p = subprocess.Popen([PY, "-m", "toolcat", "serve", "--http", "0", *SLACK, *args],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path,
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path)}))
    try:
        line = p.stderr.readline().decode()
        m = re.search(r", on (http://127\.0\.0\.1:\d+/mcp): tools/list ", line)
        assert m, (line, p.poll())
        yield p, m.group(1), marker
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=60)
        end_marked(marker)


def http_client_run(url: str, fn, headers: dict | None = None):
    import anyio
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        target = streamable_http_client(url, http_client=httpx2.AsyncClient(
            headers=headers or {}, trust_env=False))
        async with Client(target) as client:
            return await fn(client)

    return anyio.run(main)


def test_http_serves_the_same_view_and_forwards_calls(tmp_path):
    """--http 0: a Streamable HTTP endpoint on 127.0.0.1 (the URL on the start-up line); the
    SDK client over HTTP lists the same tools as over stdio and its calls are forwarded; a
    request naming another host is refused (DNS rebinding); SIGTERM ends toolcat and the
    upstream's group."""
    import httpx2

    async def talk(client):
        return await list_all(client), _result(await client.call_tool("convert_time", CONVERT))

    over_stdio = served(tmp_path, TIME).run(talk)
    with served_http(tmp_path, TIME) as (p, url, marker):
        over_http = http_client_run(url, talk)
        over_http_again = http_client_run(url, talk)      # a second client session
        foreign = httpx2.post(url, headers={"Host": "attacker.example",
                                            "Content-Type": "application/json",
                                            "Accept": "application/json, text/event-stream"},
                              content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                              trust_env=False)
        assert any("mcp_server_time" in c for _, c in marked(marker))
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=60) == -signal.SIGTERM
        assert wait_gone(marker) == []
    assert over_http == over_stdio == over_http_again
    assert over_http[1]["structuredContent"]["time_difference"] == "+8.0h"
    assert foreign.status_code in (403, 421), foreign.status_code


def test_http_port_in_use_is_an_input_error(cli):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        run = ok(cli("serve", *SLACK, "--http", str(port), catalog_cmd()), 2)
    (line,) = run.err_lines
    assert line.startswith(f"toolcat: error: toolcat serve: --http {port}: cannot listen on "
                           f"127.0.0.1:{port}"), line


# --------------------------------------------------------------------------- several upstreams


def test_several_upstreams_are_served_namespaced_and_routed(tmp_path):
    """--server twice: each tool is served as <server>__<tool> (the server's name as every
    report gives it), in the upstreams' order; a call of a served name reaches its upstream
    under the upstream's own name and returns what calling it directly returns; the handbook
    tool takes the served name (the descriptor as the upstream sent it, named as served)."""
    from mcp.shared.exceptions import MCPError

    cat = catalog_cmd()

    async def talk(client):
        listed = await list_all(client)
        res = [_result(await client.call_tool("mcp_server_time__convert_time", CONVERT)),
               _result(await client.call_tool("catalog_server__add", {"a": 20, "b": 22}))]
        book = _dump(await client.call_tool(HANDBOOK, {"name": "catalog_server__echo"}))
        try:
            await client.call_tool("echo", {"message": "x"})      # an unprefixed name
        except MCPError as e:
            res.append((e.code, e.message))
        return listed, res, book

    s = served(tmp_path, "--server", TIME, "--server", cat)
    listed, res, book = s.run(talk)
    assert wait_gone(s.marker) == []

    async def time_up(client):
        return await list_all(client), _result(await client.call_tool("convert_time", CONVERT))

    async def cat_up(client):
        return (await list_all(client),
                _result(await client.call_tool("add", {"a": 20, "b": 22})))

    (t_tools, t_res), (c_tools, c_res) = direct(tmp_path, TIME).run(time_up), \
        direct(tmp_path, cat).run(cat_up)
    names = [t["name"] for t in listed]
    assert names == ([f"mcp_server_time__{t['name']}" for t in t_tools]
                     + [f"catalog_server__{t['name']}" for t in c_tools] + [HANDBOOK])
    assert res[0] == t_res and res[1] == c_res
    assert res[2][0] == -32602 and "echo" in res[2][1]
    # each served tool is the single-upstream view's tool, renamed
    alone = served(tmp_path, cat).run(list_all)
    for got, want in zip(listed[2:-1], alone[:-1]):
        assert json_equal(got, {**want, "name": f"catalog_server__{want['name']}"})
    (echo,) = [t for t in c_tools if t["name"] == "echo"]
    assert json.loads(book["content"][0]["text"]) == {**echo, "name": "catalog_server__echo"}


def test_a_client_configuration_names_the_prefixes(cli, tmp_path):
    """--client-config FILE: every server of it, each tool prefixed with the server's key (as
    Claude Code names tools mcp__<key>__<tool>)."""
    cfg = {"mcpServers": {
        "clock": {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "cat": {"command": PY, "args": [str(SERVERS / "catalog_server.py")]}}}
    (tmp_path / "mcp.json").write_text(json.dumps(cfg))

    async def talk(client):
        return ([t["name"] for t in await list_all(client)],
                _result(await client.call_tool("cat__echo", {"message": "hi"})))

    s = served(tmp_path, "--client-config", str(tmp_path / "mcp.json"))
    names, res = s.run(talk)
    assert names[:3] == ["clock__get_current_time", "clock__convert_time", "cat__echo"]
    assert len(names) == 10 and names[-1] == HANDBOOK
    assert res["structuredContent"] == {"message": "hi"}
    assert wait_gone(s.marker) == []


def test_two_tools_served_under_one_name_end_start_up(cli, tmp_path):
    """Server "a" has a tool b__c, server "a__b" a tool c: both would be a__b__c. One error
    line naming both, exit 2, nothing left running; a served name longer than MCP allows
    and the handbook tool's name taken by a served name are errors too."""
    (tmp_path / "one.json").write_text(json.dumps({"tools": [
        {"name": "b__c", "inputSchema": {"type": "object"}}]}))
    (tmp_path / "two.json").write_text(json.dumps({"tools": [
        {"name": "c", "inputSchema": {"type": "object"}}]}))
    long = "x" * 126
    (tmp_path / "long.json").write_text(json.dumps({"tools": [
        {"name": long, "inputSchema": {"type": "object"}}]}))
    raw = [PY, str(SERVERS / "raw_server.py")]
    cfg = {"mcpServers": {"a": {"command": raw[0], "args": [raw[1], "one.json"]},
                          "a__b": {"command": raw[0], "args": [raw[1], "two.json"]}}}
    (tmp_path / "clash.json").write_text(json.dumps(cfg))
    run = ok(cli("serve", *SLACK, "--client-config", "clash.json"), 2)
    (line,) = run.err_lines
    assert line == ("toolcat: error: toolcat serve: two tools would be served as 'a__b__c': "
                    "tool 'b__c' of a and tool 'c' of a__b (rename a server: its name in the "
                    "client configuration is the prefix)"), line
    cfg = {"mcpServers": {"srv": {"command": raw[0], "args": [raw[1], "long.json"]},
                          "a": {"command": raw[0], "args": [raw[1], "two.json"]}}}
    (tmp_path / "long-cfg.json").write_text(json.dumps(cfg))
    run = ok(cli("serve", *SLACK, "--client-config", "long-cfg.json"), 2)
    (line,) = run.err_lines
    assert line.startswith(f"toolcat: error: srv: tool '{long}' would be served as "
                           f"'srv__{long}', which is no MCP tool name"), line
    cfg = {"mcpServers": {"a": {"command": raw[0], "args": [raw[1], "two.json"]},
                          "z": {"command": raw[0], "args": [raw[1], "one.json"]}}}
    (tmp_path / "fine.json").write_text(json.dumps(cfg))
    run = ok(cli("serve", *SLACK, "--client-config", "fine.json", "--handbook-tool", "a__c"), 2)
    (line,) = run.err_lines
    assert line == ("toolcat: error: a: tool 'c' of a would be served as 'a__c', the "
                    "handbook tool's name: give the handbook tool another name with "
                    "--handbook-tool NAME"), line


# --------------------------------------------------------------------------- list_changed


def changing_cmd(*extra: str) -> str:
    return shlex.join([PY, str(SERVERS / "changing_server.py"), *extra])


def test_tools_list_changed_upstream_is_relisted_and_forwarded(tmp_path):
    """servers/changing_server.py adds a tool on each call of grow and says so (on the
    2026-07-28 wire through subscriptions/listen): toolcat serve lists it again, serves the
    new view, and tells its own client (the SDK client's listen stream); the new tool is
    served compact, its handbook entry is the upstream's descriptor, and calls reach it."""
    import anyio

    async def talk(client):
        before = await list_all(client)
        async with client.listen(tools_list_changed=True) as sub:
            grown = _result(await client.call_tool("grow", {}))
            with anyio.fail_after(60):          # not about time: a missing event fails
                event = await sub.__anext__()
        after = await list_all(client)
        book = _dump(await client.call_tool(HANDBOOK, {"name": "tool_1"}))
        called = _result(await client.call_tool("tool_1", {"x": 1}))
        return before, grown, type(event).__name__, after, book, called

    async def upstream_after(client):
        await client.call_tool("grow", {})
        return await list_all(client)

    s = served(tmp_path, changing_cmd())
    before, grown, event, after, book, called = s.run(talk)
    assert wait_gone(s.marker) == []
    up = direct(tmp_path, changing_cmd()).run(upstream_after)
    assert [t["name"] for t in before] == ["grow", "touch", HANDBOOK]
    assert grown["content"][0]["text"] == "added tool_1"
    assert event == "ToolsListChanged"
    assert [t["name"] for t in after] == ["grow", "touch", "tool_1", HANDBOOK]
    assert after[:2] == before[:2]
    (mine,) = [t for t in up if t["name"] == "tool_1"]
    new = after[2]
    assert len(new["description"]) < len(mine["description"])          # the compact view
    assert "description" not in new["inputSchema"]["properties"]["x"]
    assert json.loads(book["content"][0]["text"]) == mine
    assert called["content"][0]["text"] == "tool_1"


def read_line(p, limit: float = 120.0) -> str:
    """The next line of ``p``'s stdout; a failure, not a hang, when none comes (a guard,
    not a measurement: nothing here depends on how fast it comes)."""
    import select

    ready, _, _ = select.select([p.stdout], [], [], limit)
    assert ready, f"no line from toolcat serve within {limit:g} s"
    return p.stdout.readline().decode()


def test_a_legacy_client_is_told_and_an_unchanged_list_stays_the_same_bytes(tmp_path):
    """A hand-written 2025-11-25 client: the handshake says tools.listChanged; touch (the
    upstream says its list changed but it did not) changes nothing and tells nobody; grow
    sends one notifications/tools/list_changed; the list after it is the list before plus
    the new tool, the other tools' bytes unchanged."""
    marker = uuid.uuid4().hex
    p = subprocess.Popen([PY, "-m", "toolcat", "serve", *SLACK, changing_cmd()],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path, bufsize=0,      # unbuffered: select() sees every line
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path)}))
    seen: list[str] = []

    def ask(msg: dict) -> str | None:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        if "id" not in msg:
            return None
        while True:                    # notifications first, then this request's answer
            line = read_line(p)
            seen.append(line)
            if json.loads(line).get("id") == msg["id"]:
                return line

    try:
        hello = json.loads(ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}))
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "touch", "arguments": {}}})
        ask({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
             "params": {"name": "grow", "arguments": {}}})
        while True:                    # the notification of grow's change
            line = read_line(p)
            seen.append(line)
            if json.loads(line).get("method") == "notifications/tools/list_changed":
                break
        second = ask({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        out, err = p.communicate(b"", timeout=120)
    finally:
        end_marked(marker)
    assert p.returncode == 0, err.decode()
    assert hello["result"]["capabilities"]["tools"]["listChanged"] is True
    notes = [x for x in seen if '"notifications/tools/list_changed"' in x]
    assert len(notes) == 1, seen
    a, b = json.loads(first)["result"]["tools"], json.loads(second)["result"]["tools"]
    assert [t["name"] for t in b] == ["grow", "touch", "tool_1", HANDBOOK]
    assert [t for t in b if t["name"] != "tool_1"] == a
    # byte for byte: the tools served before are the same bytes in the new answer
    for t in a:
        piece = json.dumps(t, separators=(",", ":"), ensure_ascii=False)
        assert piece in first and piece in second, t["name"]
    assert wait_gone(marker) == []


# --------------------------------------------------------------------------- pages


def test_the_served_list_is_one_page(cli, tmp_path):
    """catalog_server lists 7 tools on 3 pages (3 + 3 + 1): toolcat serve serves them on one
    page with the handbook tool (a client that reads one page, as the SDK's list_tools()
    does, sees every tool; issue 33 item 5), in the upstream's order; that page is the
    compact view (what `toolcat project` writes for a capture); a cursor is an
    invalid-params error. With every tool on one page upstream (--mode single): the same."""
    from mcp.shared.exceptions import MCPError

    _upstream, projected = capture_and_project(cli, tmp_path, catalog_cmd())

    async def pages(client):
        out, cursor = [], None
        while True:
            res = await client.list_tools(cursor=cursor)
            out.append([_dump(t) for t in res.tools])
            cursor = res.next_cursor
            if cursor is None:
                break
        try:
            await client.list_tools(cursor="no-such-cursor")
        except MCPError as e:
            out.append((e.code, e.message))
        return out

    *got, bad = served(tmp_path, catalog_cmd()).run(pages)
    assert [len(p) for p in got] == [8]
    union = got[0]
    assert [t["name"] for t in union][-1] == HANDBOOK
    assert len(union[:-1]) == len(projected) == 7
    for a, b in zip(union, projected):
        assert json_equal(a, b), a["name"]
    assert bad[0] == -32602 and "unknown cursor 'no-such-cursor'" in bad[1]
    *single, _bad = served(tmp_path, catalog_cmd("single")).run(pages)
    assert single == got


def test_several_upstreams_are_listed_on_one_page(tmp_path):
    """Two upstreams, one of them paged (catalog_server: 3 pages): one tools/list request (the
    SDK's list_tools() reads one page) gets every served tool and the handbook tool, with no
    nextCursor (issue 33 item 5: the first page had only the first upstream's tools)."""
    cat = catalog_cmd()

    async def once(client):
        res = await client.list_tools()
        return [t.name for t in res.tools], res.next_cursor

    async def names(client):
        return [t["name"] for t in await list_all(client)]

    s = served(tmp_path, "--server", TIME, "--server", cat)
    listed, cursor = s.run(once)
    assert wait_gone(s.marker) == []
    want = ([f"mcp_server_time__{n}" for n in direct(tmp_path, TIME).run(names)]
            + [f"catalog_server__{n}" for n in direct(tmp_path, cat).run(names)] + [HANDBOOK])
    assert len(want) == 2 + 7 + 1
    assert (listed, cursor) == (want, None)


# --------------------------------------------------------------------------- resources, prompts


async def _all(client, method: str, key: str) -> list:
    out, cursor = [], None
    while True:
        res = await getattr(client, method)(cursor=cursor)
        out += [_dump(x) for x in getattr(res, key)]
        cursor = res.next_cursor
        if cursor is None:
            return out


def _answer(model) -> dict:
    """A read or get result without the envelope: :func:`_result`'s, and the 2026-07-28
    wire's caching fields (``ttlMs``, ``cacheScope``: a legacy session has none)."""
    d = _result(model)
    d.pop("ttlMs", None)
    d.pop("cacheScope", None)
    return d


async def resources_and_prompts(client, read: list[str], prompt: tuple[str, dict]):
    return {
        "resources": await _all(client, "list_resources", "resources"),
        "templates": await _all(client, "list_resource_templates", "resource_templates"),
        "read": [_answer(await client.read_resource(uri)) for uri in read],
        "prompts": await _all(client, "list_prompts", "prompts"),
        "prompt": _answer(await client.get_prompt(*prompt)),
    }


def test_resources_and_prompts_pass_through_unchanged(tmp_path, everything_js):
    """server-everything (a legacy upstream) and changing_server (2026-07-28) have resources,
    resource templates and prompts: through toolcat serve each list, read and get equals
    asking the upstream directly."""
    ev = everything_cmd(everything_js)
    cases = [(ev, ["demo://resource/static/document/architecture.md"], ("simple-prompt", {})),
             (changing_cmd(), ["test://static/hello", "test://dynamic/7"],
              ("greet", {"who": "Ada"}))]
    for cmd, read, prompt in cases:
        async def talk(client, read=read, prompt=prompt):
            return await resources_and_prompts(client, read, prompt)

        s = served(tmp_path, cmd)
        via, mine = s.run(talk), direct(tmp_path, cmd).run(talk)
        assert via == mine, cmd
        assert via["resources"] and via["templates"] and via["prompts"], cmd
        assert wait_gone(s.marker) == []
    assert mine["read"][1]["contents"][0]["text"] == "dynamic 7"


def test_resources_and_prompts_of_several_upstreams(tmp_path, everything_js):
    """Two upstreams: the lists are the upstreams' one after the other (toolcat's cursors),
    prompts named <server>__<prompt> and got from their server; a read reaches the server
    that has the resource."""
    ev = everything_cmd(everything_js)
    hello = "test://static/hello"

    async def both(client):
        return await resources_and_prompts(client, [hello, "demo://resource/static/document/"
                                                    "architecture.md"],
                                           ("changing_server__greet", {"who": "Ada"}))

    async def one(client, read, prompt):
        return await resources_and_prompts(client, read, prompt)

    s = served(tmp_path, "--server", ev, "--server", changing_cmd())
    via = s.run(both)
    assert wait_gone(s.marker) == []
    e = direct(tmp_path, ev).run(
        lambda c: one(c, ["demo://resource/static/document/architecture.md"],
                      ("simple-prompt", {})))
    c = direct(tmp_path, changing_cmd()).run(lambda c: one(c, [hello], ("greet", {"who": "Ada"})))
    assert via["resources"] == e["resources"] + c["resources"]
    assert via["templates"] == e["templates"] + c["templates"]
    assert via["read"] == [c["read"][0], e["read"][0]]
    assert via["prompts"] == ([{**p, "name": f"server-everything__{p['name']}"}
                               for p in e["prompts"]]
                              + [{**p, "name": f"changing_server__{p['name']}"}
                                 for p in c["prompts"]])
    assert via["prompt"] == c["prompt"]


# --------------------------------------------------------------------------- argument check


def test_arguments_are_checked_with_re2_before_forwarding(tmp_path):
    """raw_server lists tools with a catastrophic-backtracking pattern (^(a+)+$, minutes with
    Python's re on 40 a's and a !), a lookahead RE2 cannot run, and patternProperties with
    additionalProperties false; it answers no tools/call (-32601), so a forwarded call is
    one that comes back with that error. --validate strict: refused with a tool error naming
    keyword and pointer (values quoted as JSON). By default every call is forwarded (the
    server judges) and what the schema refuses is said on stderr."""
    import anyio
    from mcp.shared.exceptions import MCPError

    tools = [
        {"name": "evil", "inputSchema": {"type": "object", "properties": {
            "s": {"type": "string", "pattern": "^(a+)+$"},
            "t": {"type": "string", "pattern": "(?=a)b"}}, "required": ["s"]}},
        {"name": "keyed", "inputSchema": {"type": "object", "patternProperties": {
            "^x_[0-9]+$": {"type": "integer"}}, "additionalProperties": False}},
    ]
    (tmp_path / "tools.json").write_text(json.dumps({"tools": tools}))
    cmd = raw_cmd(str(tmp_path / "tools.json"))

    async def talk(client):
        out = []
        for name, args in (("evil", {"s": "a" * 40 + "!"}),        # refused, by RE2
                           ("evil", {"s": "aaaa"}),                # valid: forwarded
                           ("evil", {"s": "aaaa", "t": "zzz"}),    # lookahead: forwarded
                           ("evil", {}),                           # refused: required
                           ("keyed", {"x_1": 2}),                  # valid: forwarded
                           ("keyed", {"x_1": "two"}),              # refused: type
                           ("keyed", {"y": 1})):                   # refused: additional
            try:
                with anyio.fail_after(120):     # a guard against a hang, not a measurement
                    res = _result(await client.call_tool(name, args))
                out.append(("result", res["isError"], res["content"][0]["text"]))
            except MCPError as e:
                out.append(("error", e.code, e.message))
        return out

    s = served(tmp_path, "--validate", "strict", cmd)
    got = s.run(talk)
    assert wait_gone(s.marker) == []
    forwarded = ("error", -32601, "Method not found: tools/call")
    assert got[1] == got[2] == got[4] == forwarded, got
    refused = [got[i] for i in (0, 3, 5, 6)]
    assert all(kind == "result" and is_error is True for kind, is_error, _ in refused), refused
    assert refused[0][2] == ('Input validation error: "' + "a" * 40 + '!" does not match '
                             '"^(a+)+$" (at /s of the arguments of evil; keyword pattern at '
                             "/properties/s/pattern of its inputSchema)")
    assert '"s" is a required property' in refused[1][2]
    assert "keyword type at /patternProperties/^x_[0-9]+$/type" in refused[2][2]
    assert "at /x_1 of the arguments of keyed" in refused[2][2]
    assert 'Additional properties are not allowed ("y" was unexpected)' in refused[3][2]
    assert "keyword additionalProperties" in refused[3][2]
    # --no-validate (--validate off): every call goes to the upstream
    assert served(tmp_path, "--no-validate", cmd).run(talk) == [forwarded] * 7
    # the default: every call goes to the upstream, what the schema refuses is logged
    s = served(tmp_path, cmd)
    assert s.run(talk) == [forwarded] * 7
    logged = [line for line in s.stderr().splitlines() if "inputSchema refuses" in line]
    assert len(logged) == 4, s.stderr()
    assert logged[0] == ("toolcat: evil: forwarded arguments its inputSchema refuses (keyword "
                         "pattern at /properties/s/pattern of its inputSchema, at /s of the "
                         "arguments): the server judges them (--validate strict: refused)")
    assert "a" * 40 not in s.stderr()          # no argument value in the log


LAX = shlex.join([PY, str(SERVERS / "lax_server.py")])


def test_serve_never_refuses_what_the_upstream_accepts(tmp_path):
    """Issue 33 item 6. lax_server (the SDK's MCPServer: pydantic) takes "3" and true for an
    integer, and ignores a key its schema does not declare although the schema says
    additionalProperties false (as zod's objects strip them: server-filesystem's write_file
    with an extra key). Each call works directly; through toolcat serve it returns what
    calling directly returns (refused before), and the proxy's log says what the schema
    refuses; --validate strict refuses them, quoting JSON."""
    async def lax(client):
        return [_result(await client.call_tool("repeat", {"text": "ab", "times": t}))
                for t in ("3", True, 2)] + [_result(await client.call_tool(
                    "note", {"note": {"title": "t", "body": "b", "tags": ["x"]}}))]

    mine = direct(tmp_path, LAX).run(lax)
    assert [r["content"][0]["text"] for r in mine] == ["ababab", "ab", "abab", "t: b"]
    assert not any(r.get("isError") for r in mine)
    s = served(tmp_path, LAX)
    assert s.run(lax) == mine
    said = [line for line in s.stderr().splitlines() if "inputSchema refuses" in line]
    assert len(said) == 3, s.stderr()
    assert all("keyword type at /properties/times/type" in x for x in said[:2])
    assert "keyword additionalProperties" in said[2] and "at /note of the arguments" in said[2]
    strict = served(tmp_path, "--validate", "strict", LAX).run(lax)
    assert [r.get("isError") for r in strict] == [True, True, mine[2].get("isError"), True]
    assert strict[0]["content"][0]["text"].startswith(
        'Input validation error: "3" is not of type "integer" (at /times ')
    assert strict[1]["content"][0]["text"].startswith(
        'Input validation error: true is not of type "integer" (at /times ')
    assert '("tags" was unexpected)' in strict[3]["content"][0]["text"]


def test_serve_never_refuses_what_real_servers_accept(tmp_path, filesystem_js):
    """Issue 33 item 6 and its acceptance line on the real servers of the issue, with the
    official SDK client: npm server-filesystem's write_file and PyPI mcp-server-git's git_log
    with a key their schemas do not declare (zod strips it, pydantic ignores it), git_log with
    max_count sent as "1" (pydantic's lax integer; its schema says integer). Each call works
    directly; through toolcat serve it gets what calling directly gets (the file written,
    the one commit listed), the proxy's log says what the schema refuses; --validate strict
    (the old default) refuses that one. (An extra key where the schema says
    additionalProperties false: lax_server, test_serve_never_refuses_what_the_upstream_accepts;
    these servers' schemas do not say it.)"""
    require_exe("mcp-server-git")
    root = tmp_path / "files"
    root.mkdir()
    fs = filesystem_cmd(filesystem_js, root)
    repo = tmp_path / "repo"
    repo.mkdir()
    env = live_env({"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org",
                    "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org",
                    "HOME": str(tmp_path)})
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"],
                 ["commit", "-q", "--allow-empty", "-m", "second"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    git = shlex.join([PY, "-m", "mcp_server_git", "--repository", str(repo)])

    def write(name):
        async def call(client):
            return _result(await client.call_tool("write_file", {
                "path": str(root / name), "content": "alpha", "mode": "fast"}))
        return call

    async def log(client):
        return [_result(await client.call_tool("git_log", {"repo_path": str(repo),
                                                           "max_count": "1"})),
                _result(await client.call_tool("git_log", {"repo_path": str(repo),
                                                           "max_count": 1, "verbose": True}))]

    mine = direct(tmp_path, fs).run(write("direct.txt"))
    assert not mine.get("isError") and (root / "direct.txt").read_text() == "alpha"
    s = served(tmp_path, fs)
    via = s.run(write("via.txt"))
    assert not via.get("isError"), via
    assert (root / "via.txt").read_text() == "alpha"
    assert via["content"][0]["text"] == mine["content"][0]["text"].replace("direct", "via")
    mine, s = direct(tmp_path, git).run(log), served(tmp_path, git)
    via = s.run(log)
    assert not any(r.get("isError") for r in mine) and via == mine
    for r in via:
        assert "second" in r["content"][0]["text"] and "first" not in r["content"][0]["text"]
    said = [x for x in s.stderr().splitlines() if "inputSchema refuses" in x]
    assert len(said) == 1 and "keyword type at /properties/max_count/type" in said[0], said
    strict = served(tmp_path, "--validate", "strict", git).run(log)
    assert strict[0].get("isError") is True and strict[1] == mine[1]
    assert strict[0]["content"][0]["text"].startswith(
        'Input validation error: "1" is not of type "integer"')


def test_arguments_sent_as_json_text_are_forwarded_parsed(tmp_path, filesystem_js):
    """Issue 33 item 7: read_multiple_files' paths (an array) sent as JSON text, as Claude
    Desktop and Claude Code send some arguments: the server refuses it directly; through
    toolcat serve it is parsed and the files are read (said on stderr); --no-repair-args
    forwards it as it came (the server's own answer)."""
    root = tmp_path / "files"
    root.mkdir()
    (root / "a.txt").write_text("alpha")
    (root / "b.txt").write_text("beta")
    fs = filesystem_cmd(filesystem_js, root)
    paths = [str(root / "a.txt"), str(root / "b.txt")]

    async def read(client, value):
        try:
            return _result(await client.call_tool("read_multiple_files", {"paths": value}))
        except Exception as e:  # noqa: BLE001 - the server's own refusal, as it comes
            return ("error", type(e).__name__, str(e))

    as_text = json.dumps(paths)
    wanted = direct(tmp_path, fs).run(lambda c: read(c, paths))
    assert not wanted.get("isError") and "alpha" in wanted["content"][0]["text"]
    refused = direct(tmp_path, fs).run(lambda c: read(c, as_text))
    assert refused != wanted
    s = served(tmp_path, fs)
    assert s.run(lambda c: read(c, as_text)) == wanted
    assert ("toolcat: read_multiple_files: /paths came as JSON text where its inputSchema "
            "wants an object or an array: forwarded parsed") in s.stderr()
    assert served(tmp_path, "--no-repair-args", fs).run(lambda c: read(c, as_text)) == refused


def test_a_long_argument_check_holds_up_nothing_else(tmp_path):
    """Issue 36 item 14: uniqueItems over 3,000 objects kept jsonschema busy for more than a
    minute on the event loop, and a tools/list sent meanwhile waited as long. Now the check
    is bounded and runs off the loop: the call is answered by the server (all items
    distinct) and the tools/list sent while it is checked is answered too."""
    import anyio

    items = [{"id": i, "name": f"item {i}", "tags": ["x", i]} for i in range(3000)]

    async def talk(client):
        out = {}

        async def call():
            out["call"] = _result(await client.call_tool("distinct", {"items": items}))

        async def listing():
            await anyio.sleep(0.2)
            out["list"] = [t.name for t in (await client.list_tools()).tools]

        with anyio.fail_after(60):      # a guard against a hang, not a measurement
            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                tg.start_soon(listing)
        return out

    s = served(tmp_path, LAX)
    out = s.run(talk)
    assert wait_gone(s.marker) == []
    assert out["call"]["isError"] is False and out["call"]["content"][0]["text"] == "3000"
    assert out["list"] == ["repeat", "note", "blob", "distinct", HANDBOOK]


def test_a_configuration_that_serves_itself_does_not_start_without_end(cli, tmp_path):
    """A client configuration whose entry is `toolcat serve --client-config` of that same
    configuration: the nested toolcat serve refuses to read it (usage error, exit 2), so the
    outer one ends at start-up with the upstream's error, instead of a chain of processes."""
    cfg_path = tmp_path / "self.json"
    cfg = {"mcpServers": {
        "me": {"command": PY, "args": ["-m", "toolcat", "serve", *SLACK, "--client-config",
                                       str(cfg_path)]},
        "clock": {"command": PY, "args": ["-m", "mcp_server_time"]}}}
    cfg_path.write_text(json.dumps(cfg))
    run = ok(cli("serve", *SLACK, "--client-config", str(cfg_path)), 2)
    (line,) = run.err_lines
    assert line.startswith("toolcat: error: me: "), line
    assert "exited with status 2" in line, line      # the nested one's usage error


# --------------------------------------------------------------------------- --catalog


def test_a_catalog_file_is_served_with_no_server_behind_it(cli, tmp_path):
    """--catalog FILE (an OpenAPI spec here): tools/list is `toolcat project` of the file
    plus the handbook tool, the handbook returns the file's standard descriptor, and a call
    gets a tool error that says no server runs behind it; with a server beside it, both are
    served namespaced and the server's calls still reach it."""
    from support.common import SAMPLES

    spec = SAMPLES / "petstore.openapi.yaml"
    ok(cli("project", str(spec), "--to", "mcp", "--handbook", "book.json", "-o", "out.json"))
    want = json.loads((tmp_path / "out.json").read_text())["tools"]
    book_want = json.loads((tmp_path / "book.json").read_text())["tools"]

    async def talk(client):
        listed = await list_all(client)
        call = _dump(await client.call_tool("listPets", {"limit": 3}))
        book = _dump(await client.call_tool(HANDBOOK, {"name": "listPets"}))
        return listed, call, book

    s = served(tmp_path, "--catalog", str(spec))
    listed, call, book = s.run(talk)
    assert wait_gone(s.marker) == []
    assert [t["name"] for t in listed] == [t["name"] for t in want] + [HANDBOOK]
    for got, w in zip(listed, want):
        assert json_equal(got, w)
    assert call["isError"] is True and "no server runs behind it" in call["content"][0]["text"]
    assert json.loads(book["content"][0]["text"]) == book_want["listPets"]

    async def both(client):
        listed = await list_all(client)
        res = _result(await client.call_tool("mcp_server_time__convert_time", CONVERT))
        pet = _dump(await client.call_tool("petstore__listPets", {}))
        return [t["name"] for t in listed], res, pet

    names, res, pet = served(tmp_path, "--server", TIME, "--catalog", str(spec)).run(both)
    assert [n for n in names if n.startswith("petstore__")] == [
        f"petstore__{t['name']}" for t in want]
    assert "isError" not in res or res["isError"] is False
    assert pet["isError"] is True
    bad = cli("serve", "--catalog", str(tmp_path / "missing.json"))
    assert bad.rc == 2 and bad.err.startswith("toolcat: error: ") and "Traceback" not in bad.err


# --------------------------------------------------------------------------- memory


def _held(obj, seen=None) -> int:
    """Characters of text and bytes reachable from ``obj`` through containers, dataclasses
    and plain objects' attributes (what a long run keeps of what went through it)."""
    import dataclasses

    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, (str, bytes)):
        return len(obj)
    if isinstance(obj, dict):
        return sum(_held(k, seen) + _held(v, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return sum(_held(x, seen) for x in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(_held(getattr(obj, f.name), seen) for f in dataclasses.fields(obj))
    return 0


def test_forwarded_results_are_not_kept(tmp_path, monkeypatch):
    """Issue 36 item 11: every forwarded response stayed on the upstream connection's wire
    tap for the whole run (150 calls of 1 MB: +300 MB). The upstream as toolcat serve holds
    it (proxy.Upstream, in this process) forwards 40 calls of a 256 KiB result (lax_server's
    blob); what the wire keeps is the same after the 40th as after the first, and less than
    one result."""
    import time

    import anyio

    from toolcat.formats.live import procs
    from toolcat.formats.live import spec as specs
    from toolcat.features.serve import proxy

    monkeypatch.setenv("PATH", live_env()["PATH"])
    monkeypatch.setenv("TOOLCAT_TEST_MARK", marker := uuid.uuid4().hex)
    spec = specs.from_command(LAX)
    kb = 256

    async def run(proc):
        up = proxy.Upstream(spec, proc, 60.0, None, time.perf_counter(), None, False)
        up.in_loop()
        held = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(up.run)
            await up.ready.wait()
            assert up.error is None, up.error
            for _ in range(40):
                res = await up.call("tools/call", {"name": "blob", "arguments": {"kb": kb}})
                assert len(res["content"][0]["text"]) == kb * 1024
                held.append(_held(up.wire.__dict__))
            up.stop.set()
        return held

    with procs.guard():
        held = anyio.run(run, procs.spawn(spec))
    assert wait_gone(marker) == []
    assert held[-1] == held[0] < kb * 1024, held[:3] + held[-3:]


POISONED = shlex.join([PY, str(SERVERS / "poisoned_server.py")])


def test_deny_poisoned_neither_lists_nor_calls_a_poisoned_tool(tmp_path):
    """Issue 34 section 3: an SDK server lists a poisoned tool (add: an <IMPORTANT> block
    with "do not tell the user" and ~/.ssh/id_rsa, and Unicode tag characters) and a clean one
    (multiply). Without --deny-poisoned both are listed and add is forwarded; with it add is
    not listed, a call of it is refused (a tool error naming the rules, the upstream not
    called) and stderr names it and the rules; multiply works as before."""
    async def session(client):
        tools = await list_all(client)
        add = _result(await client.call_tool("add", {"a": 2, "b": 3}))
        mul = _result(await client.call_tool("multiply", {"a": 2, "b": 3}))
        return [t["name"] for t in tools], add, mul

    names, add, mul = served(tmp_path, POISONED).run(session)
    assert "add" in names and "multiply" in names
    assert add["content"][0]["text"] == "poisoned add: 5" and not add.get("isError")
    s = served(tmp_path, "--deny-poisoned", POISONED)
    names, add, mul = s.run(session)
    assert "add" not in names and "multiply" in names
    assert add["isError"] is True
    assert "poisoned add" not in add["content"][0]["text"]
    assert "TP101" in add["content"][0]["text"] and "TP102" in add["content"][0]["text"]
    assert mul["content"][0]["text"] == "6" and not mul.get("isError")
    said = [x for x in s.stderr().splitlines() if "--deny-poisoned" in x]
    assert len(said) == 1 and "add (TP101, TP102, TP103)" in said[0], s.stderr()
    assert "multiply" not in said[0]


def test_deny_poisoned_says_when_an_upstream_adds_a_poisoned_tool(tmp_path):
    """--deny-poisoned on a list that changes (changing_server --poison: its first added tool
    is poisoned, the second clean): the clean one is served when the upstream adds it, the
    poisoned one is not, and stderr says so once the list changed (nothing at start-up: no
    tool was poisoned then)."""
    import anyio

    async def talk(client):
        async with client.listen(tools_list_changed=True) as sub:
            await client.call_tool("grow", {})        # tool_1: poisoned
            await client.call_tool("grow", {})        # tool_2: clean
            with anyio.fail_after(60):          # not about time: a missing event fails
                await sub.__anext__()
        names = [t["name"] for t in await list_all(client)]
        refused = _result(await client.call_tool("tool_1", {"x": 1}))
        return names, refused

    s = served(tmp_path, "--deny-poisoned", changing_cmd("--poison"))
    names, refused = s.run(talk)
    assert names == ["grow", "touch", "tool_2", HANDBOOK]
    assert refused["isError"] is True and "TP102" in refused["content"][0]["text"]
    said = [x for x in s.stderr().splitlines() if "--deny-poisoned" in x]
    assert said == ["toolcat: --deny-poisoned: not serving 1 poisoned tools: tool_1 (TP102)"], \
        s.stderr()


# --------------------------------------------------------------------------- serve --for

ECHO = SERVERS / "echo_server.py"


def echo_cmd(path, *only: str) -> str:
    """servers/echo_server.py listing the tools of catalog ``path`` (``only``: these) and
    answering each call with the name and arguments it got."""
    return shlex.join([PY, str(ECHO), str(path), *(a for o in only for a in ("--only", o))])


def _corpus(name: str):
    from support.common import CORPUS

    p = CORPUS / "mcp-context-cost" / f"{name}.json"
    if not p.exists():
        pytest.skip(f"corpus file {p} absent (TOOLCAT_SHARED)")
    return p


def test_serve_for_claude_desktop_inlines_refs_and_forwards_calls(tmp_path, filesystem_js,
                                                                  ajv_judge):
    """Issue 33: serve --for CLIENT (several allowed) serves what project --for writes.
    Upstreams: lax_server (the SDK's MCPServer: note's argument is a pydantic model, a $ref
    into $defs), server-filesystem (npm: draft-07 $schema on every tool) and the echo server
    listing notion's tools (the mcp-context-cost capture: $ref into $defs). With --for
    claude-desktop --for copilot-cli no served schema has a $ref or a draft-07 $schema, every
    one compiles under Claude Desktop's validator (Ajv2020, 2020-12 only), and a call is
    forwarded under the upstream's own name with the arguments as sent; before, --for was
    no serve option (usage error, exit 2)."""
    root = tmp_path / "files"
    root.mkdir()
    (root / "a.txt").write_text("alpha")
    fs = filesystem_cmd(filesystem_js, root)
    notion = echo_cmd(_corpus("notion"))
    args = {"parent": {"page_id": "p1"}, "properties": {"title": [{"text": {"content": "T"}}]}}

    async def talk(client):
        listed = await list_all(client)
        got = [_result(await client.call_tool("lax_server__note",
                                              {"note": {"title": "t", "body": "b"}})),
               _result(await client.call_tool("echo_server__API-post-page", args))]
        return listed, got

    s = served(tmp_path, "--for", "claude-desktop,copilot-cli", "--server", LAX,
               "--server", fs, "--server", notion)
    listed, got = s.run(talk)
    assert wait_gone(s.marker) == []
    by = {t["name"]: t for t in listed}
    note = by["lax_server__note"]["inputSchema"]
    assert note["properties"]["note"]["required"] == ["title", "body"]
    assert sum('"$ref"' in json.dumps(t) or "draft-07" in json.dumps(t) for t in listed) == 0
    assert len([n for n in by if n.startswith("echo_server__")]) == 24
    assert len(listed) > 24 + 4 + 10
    for t in listed:
        for key in ("inputSchema", "outputSchema"):
            if key in t:
                assert ajv_judge.compile(t[key], engine="2020-12") is None, (t["name"], key)
    assert got[0]["content"][0]["text"] == "t: b" and not got[0].get("isError")
    assert json.loads(got[1]["content"][0]["text"]) == {"name": "API-post-page",
                                                        "arguments": args}
    # the upstreams' own schemas had both (what --for rewrote)
    up = direct(tmp_path, notion).run(list_all) + direct(tmp_path, fs).run(list_all)
    assert any('"$ref"' in json.dumps(t) for t in up)
    assert any("draft-07" in json.dumps(t) for t in up)


# the captures whose tools have no $ref but repeated subschemas (the factoring of --factor-all
# would add one to 19 of their tools)
NO_REF = ("apify", "basic-memory", "brave-search", "excel", "firecrawl", "hubspot",
          "huggingface", "kubernetes", "n8n-mcp", "sequential-thinking", "supabase")
POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                          "z": {"type": "number"}}, "required": ["x", "y", "z"]}


def test_serve_adds_no_ref_to_a_catalog_without_one(tmp_path):
    """Issue 33 item 1 and its acceptance line "toolcat serve on a catalog without $ref writes
    none": the issue's reproducer (move: three identical {x, y, z} objects) and the tools of 11
    real servers (mcp-context-cost captures without a $ref, with repeated subschemas) served
    through one echo server: no served tool has a $ref or $defs (the projection factors them
    only with --factor-all, which would add 19 here), whatever --for says; calls still reach
    the upstream as sent."""
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats import LoadOptions, load_catalogs

    tools = [{"name": "move", "description": "Move.", "inputSchema": {
        "type": "object", "properties": {"from": POINT, "to": POINT, "via": POINT},
        "required": ["from", "to"]}}]
    for name in NO_REF:
        doc = json.loads(_corpus(name).read_text())
        tools += [{**t, "name": f"{name}_{t['name']}"[:64]} for t in doc["rawToolsCapture"]]
    assert "$ref" not in json.dumps(tools)
    f = tmp_path / "noref.json"
    f.write_text(json.dumps({"tools": tools}))
    factored = project_catalogs(load_catalogs([str(f)], LoadOptions(strict=False)),
                                ProjectOptions(to="mcp", factor_all=True))
    assert sum('"$ref"' in json.dumps(t.descriptor) for t in factored.tools) == 1 + 19
    arg = {"from": {"x": 1, "y": 2, "z": 3}, "to": {"x": 4, "y": 5, "z": 6}}

    async def talk(client):
        return await list_all(client), _result(await client.call_tool("move", arg))

    for extra in ((), ("--for", "cursor")):
        s = served(tmp_path, *extra, echo_cmd(f))
        listed, got = s.run(talk)
        assert wait_gone(s.marker) == []
        assert len(listed) == len(tools) + 1
        assert [t["name"] for t in listed if '"$ref"' in json.dumps(t)
                or '"$defs"' in json.dumps(t)] == [], extra
        assert json.loads(got["content"][0]["text"]) == {"name": "move", "arguments": arg}


TREE = {"name": "tree", "description": "Plant a tree.", "inputSchema": {
    "type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
    "$defs": {"node": {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}}


def test_serve_for_says_what_it_cannot_rewrite_exactly(tmp_path):
    """serve --for claude-desktop: a recursive $ref cannot be inlined; it is served as it
    is and the proxy's log (stderr) names the tool, the pointer and why (a line each)."""
    (tmp_path / "tree.json").write_text(json.dumps({"tools": [TREE]}))
    s = served(tmp_path, "--for", "claude-desktop", echo_cmd(tmp_path / "tree.json"))
    listed = s.run(list_all)
    assert '"$ref"' in json.dumps(listed[0]["inputSchema"])
    said = [x for x in s.stderr().splitlines() if x.startswith("toolcat: tree: ")]
    why = ("kept: $ref kept (recursive: no finite inlining); $ref stripped or refused by: "
           "Claude Desktop")
    assert said == [f"toolcat: tree: /inputSchema/properties/root/$ref {why}",
                    f"toolcat: tree: /inputSchema/$defs/node/properties/kids/items/$ref {why}"
                    ], s.stderr()


SIBLING = {"name": "pick", "description": "Pick a word.", "inputSchema": {
    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
    "properties": {"q": {"$ref": "#/definitions/word", "maxLength": 2}},
    "definitions": {"word": {"type": "string"}}}}


def test_serve_for_claude_code_keeps_and_says_ref_siblings(tmp_path):
    """serve --for claude-code takes project's path (portable.fit): a draft-07 keyword beside
    a $ref, which python-jsonschema's draft-07 ignores and the MCP SDK's Ajv applies, is
    served kept in the 2020-12 schema (no $schema) and said on stderr as ``changed`` at its
    pointer. Before: dropped and said nowhere (reported exact)."""
    (tmp_path / "pick.json").write_text(json.dumps({"tools": [SIBLING]}))
    s = served(tmp_path, "--for", "claude-code", echo_cmd(tmp_path / "pick.json"))
    listed = s.run(list_all)
    schema = listed[0]["inputSchema"]
    assert "$schema" not in schema and schema["properties"]["q"] == {
        "$ref": "#/$defs/word", "maxLength": 2}
    said = [x for x in s.stderr().splitlines() if x.startswith("toolcat: pick: ")]
    assert [x.split(" beside ")[0] for x in said] == [
        "toolcat: pick: /inputSchema/properties/q/maxLength changed: maxLength"], s.stderr()


def test_serve_for_claude_code_shortens_names_and_calls_the_originals(tmp_path):
    """serve --for claude-code: zscaler's server (the outside corpus, docker-tools entry:
    its real tool names) served under --server-name zscaler-mcp-server: the names Claude
    Code would send over 64 characters (mcp__zscaler-mcp-server__<tool>) are served
    shortened, said on stderr (old and new); a call of a shortened name reaches the server
    under its own name, arguments as sent. Before: no --for on serve."""
    from support.outside import outside

    from toolcat.formats import LoadOptions, load_catalogs

    cat, = load_catalogs([str(outside("docker-zscaler-mcp-server"))], LoadOptions(strict=False))
    tools = [t.raw if isinstance(t.raw, dict) and "inputSchema" in t.raw else
             {"name": t.id, "description": t.description or "",
              "inputSchema": t.input_schema or {"type": "object"}} for t in cat.tools]
    (tmp_path / "z.json").write_text(json.dumps({"tools": tools}))
    long = [t["name"] for t in tools if len(f"mcp__zscaler-mcp-server__{t['name']}") > 64]
    assert long, "the entry has names too long for Claude Code"

    async def talk(client):
        listed = await list_all(client)
        new = [t["name"] for t in listed if t["name"] not in {x["name"] for x in tools}
               and t["name"] != HANDBOOK]
        said = _result(await client.call_tool(new[0], {"q": 1}))
        return listed, new, said

    s = served(tmp_path, "--for", "claude-code", "--server-name", "zscaler-mcp-server",
               echo_cmd(tmp_path / "z.json"))
    listed, new, said = s.run(talk)
    assert len(new) == len(long) and len(listed) == len(tools) + 1
    assert all(len(f"mcp__zscaler-mcp-server__{n}") <= 64 for n in new)
    assert json.loads(said["content"][0]["text"]) == {"name": long[0], "arguments": {"q": 1}}
    assert (f"toolcat: {new[0]}: /name changed: name {long[0]!r}: Claude Code would send it "
            f"as 'mcp__zscaler-mcp-server__{long[0]}'") in s.stderr()
    assert f"written as {new[0]!r}" in s.stderr()
