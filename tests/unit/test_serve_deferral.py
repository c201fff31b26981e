"""toolcat.features.serve.defer (issue 32): what ``serve --defer`` lists, without the MCP SDK (the
view of a real catalog, a :class:`~toolcat.features.serve.defer.Deferral` over it). The live tests
(tests/live/test_serve_defer.py) drive the same through real clients."""

from __future__ import annotations

import json

import pytest

from support.common import corpus, run_toolcat
from toolcat.features.serve.defer import CALL_TOOL, SEARCH_TOOL, DeferOptions, Deferral

META = [SEARCH_TOOL, CALL_TOOL, "get_tool_handbook"]


def view_of(*paths, prefixes=None):
    from toolcat.features.project import options_from_cli
    from toolcat.features.serve.view import build_view
    from toolcat.formats import LoadOptions, load_catalogs

    cats = load_catalogs([str(p) for p in paths], LoadOptions(strict=False))
    return build_view(cats, options_from_cli(to="mcp"), "get_tool_handbook", prefixes)


def tools_file(tmp_path, names, name="tools.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"tools": [
        {"name": n, "description": f"Does {n.replace('_', ' ')}.",
         "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}
        for n in names]}))
    return p


def names(tools):
    return [t["name"] for t in tools]


@pytest.fixture(scope="module")
def github():
    return view_of(corpus("github-mcp-server"))


def test_the_list_is_the_eager_tools_the_loaded_ones_and_the_meta_tools(github):
    d = Deferral(DeferOptions(eager=["get_me", "list_*s"]))
    d.rebuild(github)
    assert d.active
    first = d.tools(github)
    assert names(first[-3:]) == META
    eager = names(first[:-3])
    assert "get_me" in eager and "list_branches" in eager and "list_label" not in eager
    compact = {t["name"]: t for t in github.tools}
    assert all(t == compact[t["name"]] for t in first[:-3])      # the compact view's tools
    result, changed = d.search(github, {"query": "merge a pull request"})
    assert changed and result["isError"] is False
    assert result["content"][0]["text"].startswith("merge_pull_request: ")
    second = names(d.tools(github))
    assert "merge_pull_request" in second
    assert second[:-3] == [n for n in names(github.tools[:-1]) if n in second]  # view order
    again, changed = d.search(github, {"query": "merge a pull request"})
    assert not changed and again == result


def test_max_loaded_evicts_the_least_recently_used(tmp_path, github):
    view = view_of(tools_file(tmp_path, ["alpha_one", "beta_two", "gamma_three"]))
    d = Deferral(DeferOptions(max_loaded=2))
    d.rebuild(view)
    assert d.search(view, {"query": "alpha"})[1] and d.search(view, {"query": "beta"})[1]
    assert list(d.loaded) == ["alpha_one", "beta_two"]
    d.used("alpha_one")                                # a call: now the most recent
    assert d.search(view, {"query": "gamma"})[1]
    assert list(d.loaded) == ["alpha_one", "gamma_three"]
    assert names(d.tools(view)) == ["alpha_one", "gamma_three", *META]
    # one search never lists more than --max-loaded, the best hit the most recent
    d = Deferral(DeferOptions(max_loaded=3))
    d.rebuild(github)
    d.search(github, {"query": "merge a pull request"})
    assert len(d.loaded) == 3 and list(d.loaded)[-1] == "merge_pull_request"


def test_eager_tools_are_not_loaded_twice_and_a_search_with_no_hit_changes_nothing(github):
    d = Deferral(DeferOptions(eager=["merge_pull_request"], max_loaded=5))
    d.rebuild(github)
    _r, _c = d.search(github, {"query": "merge a pull request"})
    assert "merge_pull_request" not in d.loaded
    assert names(d.tools(github)).count("merge_pull_request") == 1
    before = list(d.loaded)
    res, changed = d.search(github, {"query": "zzzqqq"})
    assert not changed and res["isError"] is False and "No tool matches" in \
        res["content"][0]["text"]
    assert list(d.loaded) == before
    for bad in (None, {}, {"query": 3}, {"query": "  "}):
        res, changed = d.search(github, bad)
        assert res["isError"] is True and not changed


def test_defer_auto_follows_the_threshold(github):
    d = Deferral(DeferOptions(mode="auto", threshold=10**9))
    d.rebuild(github)
    assert not d.active and d.tools(github) == github.tools
    d = Deferral(DeferOptions(mode="auto", threshold=d.full_tokens - 1))
    d.rebuild(github)
    assert d.active and names(d.tools(github)) == META


def test_the_call_tool_target(github):
    d = Deferral(DeferOptions())
    d.rebuild(github)
    assert d.target(github, {"name": "get_me"}) == ("get_me", {})
    assert d.target(github, {"name": "x", "arguments": {"a": 1}}) == ("x", {"a": 1})
    for bad in (None, {}, {"name": 1}, {"name": "get_me", "arguments": [1]},
                {"name": SEARCH_TOOL}, {"name": CALL_TOOL}):
        got = d.target(github, bad)
        assert isinstance(got, dict) and got["isError"] is True, bad


def test_a_relisted_view_keeps_loaded_tools_it_still_has(tmp_path):
    a = view_of(tools_file(tmp_path, ["alpha_one", "beta_two", "gamma_three"]))
    d = Deferral(DeferOptions())
    d.rebuild(a)
    d.search(a, {"query": "alpha"})
    d.search(a, {"query": "beta"})
    assert set(d.loaded) == {"alpha_one", "beta_two"}
    b = view_of(tools_file(tmp_path, ["alpha_one", "gamma_three"], "b.json"))
    d.rebuild(b)
    assert list(d.loaded) == ["alpha_one"]
    assert names(d.tools(b)) == ["alpha_one", *META]


def test_eager_globs_match_served_or_upstream_names(tmp_path):
    one = tools_file(tmp_path, ["get_me", "other"], "one.json")
    two = tools_file(tmp_path, ["get_me", "more"], "two.json")
    view = view_of(one, two, prefixes=["one", "two"])
    d = Deferral(DeferOptions(eager=["get_me", "two__more"]))
    d.rebuild(view)
    assert names(d.tools(view))[:-3] == ["one__get_me", "two__get_me", "two__more"]


def test_a_tool_named_as_a_meta_tool_is_an_input_error(tmp_path):
    from toolcat.errors import InputError

    view = view_of(tools_file(tmp_path, ["search_tools", "x"]))
    with pytest.raises(InputError, match="without --defer"):
        Deferral(DeferOptions()).rebuild(view)


def test_a_bare_defer_is_all():
    from toolcat.commands.serve import bare_defer

    assert bare_defer(["serve", "--defer", "--catalog", "f"]) == \
        ["serve", "--defer=all", "--catalog", "f"]
    assert bare_defer(["serve", "--defer"]) == ["serve", "--defer=all"]
    assert bare_defer(["serve", "--defer", "auto", "x"]) == ["serve", "--defer", "auto", "x"]
    assert bare_defer(["serve", "--defer", "uvx mcp-server-time"]) == \
        ["serve", "--defer=all", "uvx mcp-server-time"]
    assert bare_defer(["serve", "--", "--defer"]) == ["serve", "--", "--defer"]


@pytest.mark.parametrize("args,said", [
    (["--eager", "x"], "--eager needs --defer"),
    (["--defer", "none", "--eager", "x"], "--eager needs --defer"),
    (["--defer", "--max-loaded", "0"], "--max-loaded must be 1 or more"),
    (["--defer", "auto", "--defer-threshold", "-1"], "--defer-threshold must be 0 or more"),
    (["--defer", "--handbook-tool", "call_tool"], "meta tool of --defer"),
])
def test_usage_errors(tmp_path, args, said):
    f = tools_file(tmp_path, ["a"])
    run = run_toolcat("serve", *args, "--catalog", str(f))
    assert run.returncode == 2
    err = run.stderr.decode() if isinstance(run.stderr, bytes) else run.stderr
    assert err.startswith("toolcat: error: ") and said in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["--defer", "auto", "--defer-threshold", "-1"],
                                  ["--defer=sometimes"]])
def test_serve_project_and_measure_check_defer_alike(tmp_path, args):
    """One check of --defer and --defer-threshold (project.defer.DeferOptions.check): the
    same message from serve, project and measure."""
    f = tools_file(tmp_path, ["a"])
    said = set()
    for cmd in (["serve", "--catalog", str(f)], ["project", str(f), "--to", "anthropic"],
                ["measure", str(f), "--to", "anthropic"]):
        run = run_toolcat(*cmd, *args)
        err = run.stderr.decode() if isinstance(run.stderr, bytes) else run.stderr
        assert run.returncode == 2 and len(err.splitlines()) == 1, (cmd, err)
        said.add(err)
    assert len(said) == 1, said
