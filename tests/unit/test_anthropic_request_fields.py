"""Anthropic request fields and server tools survive ``project --to anthropic``: a tools array
with ``defer_loading``, ``cache_control``, ``strict``, ``input_examples``,
``allowed_callers`` and server tools (the tool search tools, web search) is written as given,
the ``anthropic`` SDK's request types accept what is written, lint does not take a server
tool for a broken client tool, and measure counts nothing saved by dropping them."""

from __future__ import annotations

import json

import pytest

from support.lint import write
from support.sdk_types import anthropic_refusal
from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs

WEATHER = {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                     "required": ["city"], "additionalProperties": False},
    "defer_loading": True, "cache_control": {"type": "ephemeral"}, "strict": True,
    "input_examples": [{"city": "Paris"}], "allowed_callers": ["code_execution_20250825"],
}
TIME = {"type": "custom", "name": "get_time", "description": "The time in a time zone.",
        "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}},
        "eager_input_streaming": True}
SERVER = [
    {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
    {"type": "code_execution_20250825", "name": "code_execution"},
]
ARRAY = [WEATHER, TIME, *SERVER]


def _project(tmp_path, tools, to="anthropic", **kw):
    p = write(tmp_path, tools, "tools.anthropic.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    return cats, project_catalogs(cats, ProjectOptions(to=to, **kw))


def test_request_fields_and_server_tools_round_trip(tmp_path):
    _cats, proj = _project(tmp_path, ARRAY)
    assert proj.catalog() == ARRAY
    assert all(not t.changes for t in proj.tools)


@pytest.mark.parametrize("to", ["anthropic", "anthropic-strict"])
def test_the_sdk_request_types_take_what_is_written(tmp_path, to):
    pytest.importorskip("anthropic")
    _cats, proj = _project(tmp_path, ARRAY, to=to)
    out = proj.catalog()
    assert [t["name"] for t in out] == [t["name"] for t in ARRAY]
    bad = [(t["name"], anthropic_refusal(t)) for t in out if anthropic_refusal(t)]
    assert not bad, bad
    # the judge refuses what the API refuses: a misspelt request field, a wrong value
    assert anthropic_refusal({**WEATHER, "defer_loadin": True})
    assert anthropic_refusal({**WEATHER, "defer_loading": "yes"})
    assert anthropic_refusal({"name": "web_search", "max_uses": 5})


def test_strict_target_keeps_the_request_fields(tmp_path):
    _cats, proj = _project(tmp_path, ARRAY, to="anthropic-strict")
    w = proj.catalog()[0]
    for k in ("defer_loading", "cache_control", "input_examples", "allowed_callers"):
        assert w[k] == WEATHER[k]
    assert w["strict"] is True
    assert proj.catalog()[2:] == SERVER


def test_compact_view_still_compacts_the_model_facing_part(tmp_path):
    long = {**WEATHER, "description": "Get the weather. " * 30,
            "input_schema": {**WEATHER["input_schema"], "properties": {
                "city": {"type": "string", "description": "A city", "examples": ["Paris"]}}}}
    _cats, proj = _project(tmp_path, [long, *SERVER])
    w = proj.catalog()[0]
    assert len(w["description"]) <= 120
    assert "examples" not in w["input_schema"]["properties"]["city"]
    assert w["input_examples"] == [{"city": "Paris"}] and w["defer_loading"] is True


def test_lint_does_not_take_server_tools_for_client_tools(tmp_path):
    p = write(tmp_path, ARRAY, "tools.anthropic.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    server_names = {t["name"] for t in SERVER}
    found = lint(cats, Config()).findings
    assert not [f for f in found if f.tool in server_names], \
        [(f.code, f.tool) for f in found if f.tool in server_names]
    # a client tool without input_schema is still one
    p2 = write(tmp_path, [{"name": "broken", "description": "x"}, *SERVER], "b.anthropic.json")
    found = lint(load_catalogs([str(p2)], LoadOptions(strict=True)), Config()).findings
    # (MR405 also says its one-word description says nothing: a client tool's rule)
    assert "TC111" in [f.code for f in found if f.tool == "broken"]


def test_an_array_of_server_tools_alone_is_anthropic(tmp_path):
    from toolcat.formats.detect import detect
    from toolcat.model import ANTHROPIC

    assert detect(SERVER) == ANTHROPIC
    assert detect([{"type": "function", "name": "f"}]) != ANTHROPIC


def test_measure_counts_no_saving_from_dropping_them(tmp_path):
    _cats, proj = _project(tmp_path, ARRAY)
    assert proj.array_bytes() == proj.standard_bytes()
    assert json.loads(proj.array_bytes()) == ARRAY


@pytest.mark.parametrize("to", ["openai", "openai-strict", "openai-responses", "mcp", "gemini",
                                "bedrock", "openwop"])
def test_a_target_that_cannot_send_a_server_tool_leaves_it_out(tmp_path, to):
    """A server tool is the provider's to run: written for another target it would be a
    function no one runs, offered with no parameters (before: ``web_search``,
    ``code_execution`` and the search tools as four empty functions). It is left out, said
    once on stderr and listed in the report (``left_out``, ``server_tool``); the client
    tools are written as usual."""
    from support.common import run_toolcat

    p = write(tmp_path, ARRAY, "tools.anthropic.json")
    out, rep = tmp_path / "out.json", tmp_path / "rep.json"
    r = run_toolcat("project", str(p), "--to", to, "-o", str(out), "--report", str(rep))
    assert r.returncode in (0, 1), r.stderr
    text = out.read_text()
    for s in SERVER:
        assert s["name"] not in text and s["type"] not in text, (to, text[:300])
    assert "get_weather" in text and "get_time" in text
    gone = json.loads(rep.read_text())["left_out"]
    assert [e["where"] for e in gone] == [f"/{i}" for i in range(2, 2 + len(SERVER))]
    assert all(e["server_tool"] is True and f"the {to} target has none" in e["what"]
               for e in gone), gone
    assert r.stderr.count(b"left out") == 1 and b"4 entries left out (4 server or custom tools" in \
        r.stderr, r.stderr


def test_an_openai_hosted_tool_is_left_out_of_an_anthropic_array(tmp_path):
    """The other way round: the Responses API's hosted tools (``web_search``,
    ``file_search``) are OpenAI's; ``--to anthropic`` leaves them out, ``--to
    openai-responses`` writes them as given."""
    arr = [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]},
           {"type": "function", "name": "get_time", "description": "The time.",
            "parameters": {"type": "object", "properties": {}}, "strict": False}]
    p = write(tmp_path, arr, "tools.openai.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    to_anthropic = project_catalogs(cats, ProjectOptions(to="anthropic"))
    assert [t["name"] for t in to_anthropic.catalog()] == ["get_time"]
    assert [e["where"] for e in to_anthropic.left_out] == ["/0", "/1"]
    same = project_catalogs(cats, ProjectOptions(to="openai-responses")).catalog()
    assert same[:2] == arr[:2] and not project_catalogs(
        cats, ProjectOptions(to="openai-responses")).left_out


TOOLSET = {"type": "mcp_toolset", "mcp_server_name": "google-drive",
           "default_config": {"defer_loading": True},
           "configs": {"search_files": {"defer_loading": False}}}


def test_an_mcp_toolset_is_the_providers_to_run(tmp_path):
    """The MCP connector's ``mcp_toolset`` entry (no ``name``: the server's tools, named by
    ``mcp_server_name``) is a server tool: listed as ``mcp_toolset:<server>``, written as
    given by ``--to anthropic``, not linted as a broken client tool. Before, it was a tool
    with no name: lint errors TC102 and TC111, and project left it out of the request. The
    SDK's beta request types take it."""
    pytest.importorskip("anthropic")
    from anthropic.types.beta import BetaToolUnionParam

    from support.common import run_toolcat
    from support.sdk_types import refusal

    arr = [TOOLSET, *ARRAY]
    cats, proj = _project(tmp_path, arr)
    assert cats[0].tools[0].id == "mcp_toolset:google-drive" and cats[0].tools[0].server_tool
    assert proj.catalog() == arr and not proj.left_out
    assert refusal(TOOLSET, BetaToolUnionParam) is None
    p = write(tmp_path, [TOOLSET], "toolset.json")     # alone: still an Anthropic array
    assert load_catalogs([str(p)], LoadOptions(strict=True))[0].format == "anthropic"
    r = run_toolcat("lint", str(p), "--select", "TC")
    assert r.returncode == 0, r.stdout
