"""The deferral plan (`project --defer none|all|auto`, `--eager`, `--defer-threshold`,
`--search`) and what `--to anthropic` writes with it: `"defer_loading": true` on the deferred
tools, exactly one tool search tool, eager tools first, every entry taken by the `anthropic`
SDK's request types (offline)."""

from __future__ import annotations

import json

import pytest

from support.common import corpus
from support.lint import write
from support.sdk_types import anthropic_refusal
from toolcat.errors import UsageError
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.features.project.defer import DeferOptions
from toolcat.features.project.describe import collapse
from toolcat.formats import LoadOptions, load_catalogs


@pytest.fixture(scope="module")
def github():
    return load_catalogs([str(corpus("github-mcp-server"))], LoadOptions(strict=True))


def _out(cats, to="anthropic", **defer):
    return project_catalogs(cats, ProjectOptions(to=to, defer=DeferOptions(**defer)))


def _searches(arr):
    return [d for d in arr if str(d.get("type", "")).startswith("tool_search_tool_")]


@pytest.mark.parametrize("to", ["anthropic", "anthropic-strict"])
def test_defer_all_but_get_me(github, to):
    pytest.importorskip("anthropic")
    arr = _out(github, to, mode="all", eager=("get_me",)).catalog()
    names = [t.id for t in github[0].tools]
    tools = [d for d in arr if "input_schema" in d]
    assert sorted(d["name"] for d in tools) == sorted(names)
    assert [d["name"] for d in tools if not d.get("defer_loading")] == ["get_me"]
    assert all(d["defer_loading"] is True for d in tools if d["name"] != "get_me")
    assert _searches(arr) == [{"type": "tool_search_tool_bm25_20251119",
                               "name": "tool_search_tool_bm25"}]
    # what is read up front comes first: the search tool and get_me, then the deferred tools
    flags = [bool(d.get("defer_loading")) for d in arr]
    assert flags == sorted(flags)
    bad = [(d["name"], anthropic_refusal(d)) for d in arr if anthropic_refusal(d)]
    assert not bad, bad[:3]


def test_defer_none_is_todays_output(github):
    assert _out(github, mode="none").output_bytes() == \
        project_catalogs(github, ProjectOptions(to="anthropic")).output_bytes()


def test_eager_globs_and_regex_search(github):
    arr = _out(github, mode="all", eager=("get_*", "list_issue*"), search="regex").catalog()
    eager = {d["name"] for d in arr if "input_schema" in d and not d.get("defer_loading")}
    want = {t.id for t in github[0].tools if t.id.startswith("get_")
            or t.id.startswith("list_issue")}
    assert eager == want and len(want) > 3
    assert [d["type"] for d in _searches(arr)] == ["tool_search_tool_regex_20251119"]
    # globs match case-sensitively
    arr = _out(github, mode="all", eager=("GET_ME",)).catalog()
    assert all(d.get("defer_loading") for d in arr if "input_schema" in d)


def test_auto_holds_the_eager_catalog_against_the_threshold(github):
    from toolcat.tokens import count

    eager = project_catalogs(github, ProjectOptions(to="anthropic"))
    n = count(eager.array_bytes())
    above = _out(github, mode="auto", threshold=n)
    assert not above.plan.any and above.output_bytes() == eager.output_bytes()
    assert above.plan.eager_tokens == n
    below = _out(github, mode="auto", threshold=n - 1)
    assert all(t.deferred for t in below.tools)
    assert len(_searches(below.catalog())) == 1


def test_a_deferred_tool_keeps_its_prose(github):
    """Deferred: the full description and the schema's prose (search reads them; they are
    paid only when the tool loads); eager: the compact view."""
    std = {d["name"]: d for d in project_catalogs(
        github, ProjectOptions(to="anthropic", view="standard")).catalog()}
    compact = {d["name"]: d for d in project_catalogs(
        github, ProjectOptions(to="anthropic")).catalog()}
    arr = _out(github, mode="all", eager=("get_me",)).catalog()
    longer = 0
    for d in arr:
        if not d.get("defer_loading"):
            if d["name"] == "get_me":
                assert d == compact["get_me"]
            continue
        s = std[d["name"]]
        assert d["description"] == collapse(s["description"])
        for p, sub in s["input_schema"].get("properties", {}).items():
            if "description" in sub:
                assert d["input_schema"]["properties"][p]["description"] == sub["description"]
        longer += len(json.dumps(d)) > len(json.dumps(compact[d["name"]]))
    assert longer > 50


def test_the_catalogs_own_search_tool_is_the_one(tmp_path):
    tools = [{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex",
              "defer_loading": True},
             {"name": "a", "description": "Adds.", "input_schema": {"type": "object"}},
             {"name": "b", "description": "Bakes.", "input_schema": {"type": "object"},
              "defer_loading": True}]
    cats = load_catalogs([str(write(tmp_path, tools, "t.anthropic.json"))],
                         LoadOptions(strict=True))
    arr = _out(cats, mode="all", eager=("b",)).catalog()
    assert arr == [{"type": "tool_search_tool_regex_20251119",
                    "name": "tool_search_tool_regex"},
                   {"name": "b", "description": "Bakes.", "input_schema": {"type": "object"}},
                   {"name": "a", "description": "Adds.", "input_schema": {"type": "object"},
                    "defer_loading": True}]


def test_targets_that_cannot_defer_say_so(github):
    with pytest.raises(UsageError, match="--defer all needs a target that defers"):
        _out(github, "openai", mode="all")
    with pytest.raises(UsageError, match="--defer must be one of"):
        _out(github, mode="some")
    with pytest.raises(UsageError, match="--search must be one of"):
        _out(github, mode="all", search="grep")


def test_cli_acceptance_and_usage_errors(tmp_path):
    from support.common import run_toolcat

    gh = str(corpus("github-mcp-server"))
    r = run_toolcat("project", gh, "--to", "anthropic", "--defer", "all", "--eager", "get_me")
    assert r.returncode == 0, r.stderr
    arr = json.loads(r.stdout)
    assert [d["name"] for d in arr if "input_schema" in d and not d.get("defer_loading")] \
        == ["get_me"]
    assert len(_searches(arr)) == 1
    assert b"deferred: 116 of 117 tools deferred" in r.stderr
    for args, msg in [(["--to", "mcp", "--defer", "all"], b"needs a target that defers"),
                      (["--to", "anthropic", "--eager", "get_me"], b"needs --defer all"),
                      (["--to", "anthropic", "--defer", "x"], b"--defer must be one of")]:
        r = run_toolcat("project", gh, *args)
        assert r.returncode == 2 and r.stderr.startswith(b"toolcat: error: ") and msg in r.stderr, \
            r.stderr


def test_project_summary_says_what_every_request_carries(tmp_path):
    """With tools deferred, the written array holds each deferred tool in full (read only
    when a search loads it), so it is larger than the standard view by design: the summary
    gives the up-front figure (measure --defer's, the same count) and warns only when that
    is larger than the standard view (before: "the compact view is larger than the standard
    view" on every --defer all of GitHub's MCP server)."""
    import re

    from support.common import run_toolcat

    gh = str(corpus("github-mcp-server"))
    for extra in ([], ["--eager", "get_me", "--eager", "list_*"]):
        m = run_toolcat("measure", gh, "--as", "anthropic", "--defer", "all", "--format",
                        "json", *extra)
        assert m.returncode == 0, m.stderr
        want = json.loads(m.stdout)["catalogs"][0]
        r = run_toolcat("project", gh, "--to", "anthropic", "--defer", "all", *extra,
                        "-o", str(tmp_path / "out.json"))
        assert r.returncode == 0, r.stderr
        got = re.search(rb"; up front ([\d,]+) tokens \([\d.]+% of the standard view's\), "
                        rb"([\d,]+) bytes", r.stderr)
        assert got, r.stderr
        assert int(got[1].replace(b",", b"")) == want["upfront_tokens"]
        assert int(got[2].replace(b",", b"")) == want["upfront_bytes"]
        assert want["upfront_tokens"] < want["tokens_before"]
        if not extra:   # every tool deferred: the array is the larger one
            assert want["tokens_before"] < want["tokens_after"]
        assert b"is larger than the standard view" not in r.stderr, r.stderr


def test_what_is_written_reads_back_and_projects_the_same(github, tmp_path):
    opts = ProjectOptions(to="anthropic", defer=DeferOptions("all", eager=("get_me",)))
    first = project_catalogs(github, opts).catalog()
    back = load_catalogs([str(write(tmp_path, first, "tools.anthropic.json"))],
                         LoadOptions(strict=True))
    assert back[0].format == "anthropic" and back[0].tools[0].server_tool
    assert project_catalogs(back, opts).catalog() == first


def test_the_api_takes_the_same_options(github):
    import toolcat

    by_api = toolcat.project(github, to="anthropic", defer="all", eager=["get_me"])
    assert by_api.output_bytes() == _out(github, mode="all", eager=("get_me",)).output_bytes()
    with pytest.raises(UsageError):
        toolcat.project(github, to="anthropic", defer="sometimes")
