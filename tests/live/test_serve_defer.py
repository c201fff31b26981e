"""`toolcat serve --defer` (issue 32) with real clients over real stdio.

The clients: the MCP Python SDK's own (``mcp.client.Client``, on the 2026-07-28 wire: told
through its ``subscriptions/listen`` stream), a hand-written 2025-11-25 JSON-RPC client
(told by ``notifications/tools/list_changed``) and the MCP Inspector's CLI. The upstreams:
GitHub's MCP server catalog (``--catalog``, the shared corpus), PyPI ``mcp-server-time`` and
npm server-everything (a 2025-11-25 server); over --http, two clients share one list.

What is checked: the first ``tools/list`` holds the eager tools and the three meta tools
only; ``search_tools`` with a task phrase answers the right tool; the client is told the list
changed; the next ``tools/list`` holds the found tools exactly as ``toolcat serve`` without
``--defer`` lists them; calls of a found tool (by its name, or through ``call_tool``) return
what calling the upstream directly returns; a tool never found can still be called by name.
"""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import (  # noqa: E402
    PY,
    end_marked,
    everything_cmd,
    everything_js,  # noqa: F401 - a fixture
    live_env,
    wait_gone,
)
from test_serve import (  # noqa: E402
    CONVERT,
    HANDBOOK,
    SLACK,
    TIME,
    _dump,
    _result,
    direct,
    list_all,
    http_client_run,
    read_line,
    served,
    served_http,
)

from support.common import corpus  # noqa: E402
from toolcat.formats.live.capture import json_equal  # noqa: E402

META = ["search_tools", "call_tool", HANDBOOK]


def names(tools: list[dict]) -> list[str]:
    return [t["name"] for t in tools]


def hits(result: dict) -> list[str]:
    """The tool names a search_tools result answers (one ``name: what it does`` a line)."""
    text = result["content"][0]["text"]
    return [line.split(":", 1)[0] for line in text.split("\n\n")[0].splitlines()]


async def search_and_relist(client, query: str):
    """tools/list; search_tools(query) with the listen stream open; the event; tools/list."""
    import anyio

    first = await list_all(client)
    async with client.listen(tools_list_changed=True) as sub:
        found = _dump(await client.call_tool("search_tools", {"query": query}))
        with anyio.fail_after(60):          # not about time: a missing event fails
            event = await sub.__anext__()
    second = await list_all(client)
    return first, found, type(event).__name__, second


def test_a_catalog_served_deferred_lists_what_search_found(tmp_path):
    """GitHub's MCP server (117 tools) via --catalog, --eager get_me."""
    github = corpus("github-mcp-server")
    pr = {"owner": "octo", "repo": "hello", "pullNumber": 5, "merge_method": "squash"}

    async def talk(client):
        first, found, event, second = await search_and_relist(
            client, "merge pull request 5 with a squash commit")
        called = _dump(await client.call_tool("merge_pull_request", pr))
        fallback = _dump(await client.call_tool(
            "call_tool", {"name": "merge_pull_request", "arguments": pr}))
        return first, found, event, second, called, fallback

    async def plain(client):
        return await list_all(client), _dump(await client.call_tool("merge_pull_request", pr))

    s = served(tmp_path, "--defer", "--eager", "get_me", "--catalog", str(github))
    first, found, event, second, called, fallback = s.run(talk)
    assert wait_gone(s.marker) == []
    every, direct_call = served(tmp_path, "--catalog", str(github)).run(plain)

    assert names(first) == ["get_me", *META]
    assert json_equal(first[0], every[names(every).index("get_me")])
    assert found["isError"] is False
    assert hits(found)[0] == "merge_pull_request"
    assert event == "ToolsListChanged"
    assert "merge_pull_request" in names(second)
    assert set(names(second)) == {"get_me", *hits(found), *META}
    # in the order of the full list, each one as toolcat serve lists it without --defer
    order = names(every)
    assert names(second)[:-3] == sorted(names(second)[:-3], key=order.index)
    for tool in second[:-3]:
        assert json_equal(tool, every[order.index(tool["name"])]), tool["name"]
    # a catalog has no server behind it: both calls answer what serve without --defer does
    assert called == direct_call and fallback == direct_call
    assert direct_call["isError"] is True


async def answer(client, name: str, arguments: dict):
    """A call's result, or its JSON-RPC error as (code, message)."""
    from mcp.shared.exceptions import MCPError

    try:
        return _result(await client.call_tool(name, arguments))
    except MCPError as e:
        return (e.error.code, e.error.message)


def test_a_pypi_server_deferred_calls_equal_calling_it_directly(tmp_path):
    """mcp-server-time: nothing eager; the tool found is called by name and through
    call_tool, both equal to calling the server itself; a tool never found is still
    callable by name; call_tool checks arguments as a direct call is checked."""

    async def talk(client):
        first, found, event, second = await search_and_relist(
            client, "convert 9am in Paris to Tokyo time")
        by_name = _result(await client.call_tool("convert_time", CONVERT))
        fallback = _result(await client.call_tool(
            "call_tool", {"name": "convert_time", "arguments": CONVERT}))
        other = _result(await client.call_tool("get_current_time", {"timezone": "UTC"}))
        bad = _result(await client.call_tool("convert_time", {"time": 5}))
        bad_fallback = _result(await client.call_tool(
            "call_tool", {"name": "convert_time", "arguments": {"time": 5}}))
        no_name = _result(await client.call_tool("call_tool", {"arguments": {}}))
        unknown = await answer(client, "nope", {"x": 1})
        unknown_fallback = await answer(client, "call_tool", {"name": "nope",
                                                              "arguments": {"x": 1}})
        assert unknown_fallback == unknown       # the upstream's own answer, both ways
        third = await list_all(client)
        return first, found, event, second, by_name, fallback, other, bad, bad_fallback, \
            no_name, third

    async def upstream(client):
        return (_result(await client.call_tool("convert_time", CONVERT)),
                await client.call_tool("get_current_time", {"timezone": "UTC"}))

    s = served(tmp_path, "--defer", TIME)
    (first, found, event, second, by_name, fallback, other, bad, bad_fallback, no_name,
     third) = s.run(talk)
    assert wait_gone(s.marker) == []
    want, want_other = direct(tmp_path, TIME).run(upstream)
    plain = served(tmp_path, TIME).run(list_all)

    assert names(first) == META
    assert hits(found)[0] == "convert_time"
    assert event == "ToolsListChanged"
    assert "convert_time" in names(second)
    assert json_equal(second[names(second).index("convert_time")],
                      plain[names(plain).index("convert_time")])
    assert by_name == want and fallback == want
    assert other.get("isError") is not True
    assert other["structuredContent"]["timezone"] == "UTC"
    assert not want_other.is_error
    assert bad["isError"] is True and bad_fallback == bad
    # serve forwards what the upstream may accept (--validate log): its own answer
    assert "validation" in bad["content"][0]["text"].lower()
    assert no_name["isError"] is True
    assert third == second          # calls change nothing in the list


def test_server_everything_deferred(tmp_path, everything_js):
    """A 2025-11-25 upstream (npm server-everything): found, listed, called as directly."""
    cmd = everything_cmd(everything_js)

    async def talk(client):
        first, found, event, second = await search_and_relist(client, "add two numbers")
        return first, found, event, second, _result(
            await client.call_tool("get-sum", {"a": 2, "b": 3}))

    async def upstream(client):
        return _result(await client.call_tool("get-sum", {"a": 2, "b": 3}))

    first, found, event, second, called = served(tmp_path, "--defer", cmd).run(talk)
    assert names(first) == META
    assert "get-sum" in hits(found)
    assert event == "ToolsListChanged"
    assert "get-sum" in names(second)
    assert called == direct(tmp_path, cmd).run(upstream)


def test_max_loaded_bounds_the_list_least_recently_used_first(tmp_path):
    github = corpus("github-mcp-server")

    async def talk(client):
        got = []
        for q in ("merge a pull request", "star a repository", "list my gists"):
            got.append(hits(_dump(await client.call_tool("search_tools", {"query": q}))))
            got.append(names(await list_all(client)))
        return got

    s = served(tmp_path, "--defer", "all", "--max-loaded", "2", "--catalog", str(github))
    h1, l1, h2, l2, h3, l3 = s.run(talk)
    for listed, found in ((l1, h1), (l2, h2), (l3, h3)):
        assert len(listed) == 2 + 3
        assert set(listed[:2]) == set(found[:2])       # the best two of the last search
    assert "merge_pull_request" not in l3


def test_defer_auto_defers_only_past_the_threshold(tmp_path):
    plain = served(tmp_path, TIME).run(list_all)
    below = served(tmp_path, "--defer", "auto", TIME).run(list_all)
    past = served(tmp_path, "--defer", "auto", "--defer-threshold", "10", TIME).run(list_all)
    assert below == plain
    assert names(past) == META


def test_a_legacy_client_is_told_after_a_search(tmp_path):
    """A hand-written 2025-11-25 client: the handshake says tools.listChanged; a search that
    loads tools sends one notifications/tools/list_changed, the next tools/list holds them;
    the same search again changes nothing and tells nobody."""
    marker = uuid.uuid4().hex
    p = subprocess.Popen([PY, "-m", "toolcat", "serve", *SLACK, "--defer", TIME],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path, bufsize=0,
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path)}))
    seen: list[str] = []

    def ask(msg: dict) -> dict | None:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        if "id" not in msg:
            return None
        while True:
            line = read_line(p)
            seen.append(line)
            if json.loads(line).get("id") == msg["id"]:
                return json.loads(line)

    search = {"name": "search_tools", "arguments": {"query": "the current time in Tokyo"}}
    try:
        hello = ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        found = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": search})
        told = len([x for x in seen if '"notifications/tools/list_changed"' in x])
        second = ask({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        ask({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": search})
        third = ask({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
        out, err = p.communicate(b"", timeout=120)
    finally:
        end_marked(marker)
    assert p.returncode == 0, err.decode()
    assert hello["result"]["capabilities"]["tools"]["listChanged"] is True
    assert names(first["result"]["tools"]) == META
    assert hits(found["result"])[0] == "get_current_time"
    assert told == 1
    assert "get_current_time" in names(second["result"]["tools"])
    assert third == {**second, "id": 6}
    assert len([x for x in seen if '"notifications/tools/list_changed"' in x]) == 1
    assert "deferred" in err.decode()               # the start-up line says so
    assert wait_gone(marker) == []


def test_the_inspector_cli_through_serve_defer(tmp_path):
    """The MCP Inspector's CLI (one session a run): the deferred list, a search, and a call
    of a tool by its name that equals the call through serve without --defer."""
    from test_serve_inspector import INSPECTOR, call_args, inspector

    import shutil

    npx = shutil.which("npx")
    if npx is None or not (INSPECTOR / "package.json").is_file():
        pytest.skip("node/npx or @modelcontextprotocol/inspector is not installed")
    deferred = [PY, "-m", "toolcat", "serve", *SLACK, "--defer", TIME]
    listed = inspector(npx, tmp_path, *deferred, "--method", "tools/list")["tools"]
    found = inspector(npx, tmp_path, *deferred, "--method", "tools/call", "--tool-name",
                      "search_tools", "--tool-arg", "query=convert a time between zones")
    called = inspector(npx, tmp_path, *deferred, *call_args())
    plain = inspector(npx, tmp_path, PY, "-m", "toolcat", "serve", *SLACK, TIME, *call_args())
    assert names(listed) == META
    assert hits(found)[0] == "convert_time"
    assert called["isError"] is False
    for r in (called, plain):
        r.pop("_meta", None)
    assert called == plain


def test_over_http_every_client_sees_one_list(tmp_path):
    """--http: what one client's search loads, another client's tools/list holds (the
    loaded tools are the server's), and its call of the tool reaches the upstream."""

    async def searcher(client):
        first = await list_all(client)
        found = _dump(await client.call_tool("search_tools", {"query": "convert a time"}))
        return first, found

    async def other(client):
        return await list_all(client), _result(await client.call_tool("convert_time", CONVERT))

    async def upstream(client):
        return _result(await client.call_tool("convert_time", CONVERT))

    with served_http(tmp_path, "--defer", TIME) as (_p, url, _marker):
        first, found = http_client_run(url, searcher)
        listed, called = http_client_run(url, other)
    assert names(first) == META
    assert hits(found)[0] == "convert_time"
    assert "convert_time" in names(listed) and names(listed)[-3:] == META
    assert called == direct(tmp_path, TIME).run(upstream)
