"""The deferred-loading rules DF701-DF705, on Anthropic and Responses API tool arrays, and
their silence on what `toolcat project --defer` writes."""

from __future__ import annotations

import json

from support.common import corpus
from support.lint import codes, only, run, write
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.features.project.defer import DeferOptions
from toolcat.formats import LoadOptions, load_catalogs

SEARCH = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
OBJ = {"type": "object", "properties": {"a": {"type": "number", "description": "A number."}},
       "required": ["a"], "additionalProperties": False}


def _tool(name, description="Adds a number to the running total of the ledger.", **kw):
    t = {"name": name, "input_schema": OBJ, "defer_loading": True, **kw}
    if description is not None:
        t["description"] = description
    return t


def test_df701_unfindable_deferred_tools(tmp_path):
    p = write(tmp_path, [SEARCH, _tool("run", "Runs it."), _tool("get_weather", None),
                         _tool("tool_2", "Adds a number to the running total of the ledger."),
                         _tool("add_to_ledger"), {**_tool("x", None), "defer_loading": False}],
              "t.anthropic.json")
    hits = only(run(p), "DF701")
    assert sorted(f.tool for f in hits) == ["get_weather", "run"]


def test_df702_namespace_over_ten(tmp_path):
    fn = [{"type": "function", "name": f"f{i}", "description": "Adds two numbers together.",
           "parameters": OBJ, "strict": False, "defer_loading": True} for i in range(11)]
    arr = [{"type": "tool_search"},
           {"type": "namespace", "name": "big", "description": "Math.", "tools": fn},
           {"type": "namespace", "name": "small", "description": "Math.", "tools": fn[:10]}]
    found = run(write(tmp_path, arr, "t.openai.json"))
    hits = only(found, "DF702")
    assert len(hits) == 1 and "'big' holds 11" in hits[0].message
    assert hits[0].pointer == "/1"
    assert "DF703" not in codes(found)


def test_df703_deferred_without_a_search_tool(tmp_path):
    found = run(write(tmp_path, [_tool("add_to_ledger"), _tool("sub_from_ledger")],
                      "t.anthropic.json"))
    assert len(only(found, "DF703")) == 1
    found = run(write(tmp_path, [SEARCH, _tool("add_to_ledger")], "u.anthropic.json"))
    assert not only(found, "DF703")
    fn = {"type": "function", "name": "f", "description": "Adds two numbers together.",
          "parameters": OBJ, "strict": False, "defer_loading": True}
    assert len(only(run(write(tmp_path, [fn], "v.openai.json")), "DF703")) == 1
    assert not only(run(write(tmp_path, [{"type": "tool_search"}, fn], "w.openai.json")),
                    "DF703")


def test_df703_deferred_mcp_servers_need_a_search_tool_too(tmp_path):
    """A hosted MCP server of a Responses request with "defer_loading": true, and Anthropic's
    mcp_toolset that defers its server's tools (default_config, or one tool's entry of
    configs), put tools behind a tool search as deferred functions do: without a tool search
    tool, DF703 (before: not seen, the entries being server tools)."""
    hosted = {"type": "mcp", "server_label": "stripe", "server_url": "https://mcp.example.com",
              "defer_loading": True}
    fn = {"type": "function", "name": "f", "description": "Adds two numbers together.",
          "parameters": OBJ, "strict": False}
    assert len(only(run(write(tmp_path, [fn, hosted], "m.openai.json")), "DF703")) == 1
    assert not only(run(write(tmp_path, [{"type": "tool_search"}, hosted], "n.openai.json")),
                    "DF703")
    eager = {**hosted, "defer_loading": False}
    assert not only(run(write(tmp_path, [fn, eager], "o.openai.json")), "DF703")
    toolset = {"type": "mcp_toolset", "mcp_server_name": "drive"}
    for deferring in ({**toolset, "default_config": {"defer_loading": True}},
                      {**toolset, "configs": {"search_files": {"defer_loading": True}}}):
        assert len(only(run(write(tmp_path, [deferring], "p.anthropic.json")), "DF703")) == 1
        assert not only(run(write(tmp_path, [SEARCH, deferring], "q.anthropic.json")), "DF703")
    assert not only(run(write(tmp_path, [toolset], "r.anthropic.json")), "DF703")


def test_df704_the_search_tool_deferred(tmp_path):
    found = run(write(tmp_path, [{**SEARCH, "defer_loading": True}, _tool("add_to_ledger")],
                      "t.anthropic.json"))
    hits = only(found, "DF704")
    assert len(hits) == 1 and hits[0].tool == "tool_search_tool_bm25"


def test_df705_input_examples_the_schema_refuses(tmp_path):
    t = _tool("add_to_ledger", input_examples=[{"a": 1}, {"a": "x"}, {}, 5])
    hits = only(run(write(tmp_path, [SEARCH, t], "t.anthropic.json")), "DF705")
    assert [f.pointer for f in hits] == ["/input_examples/1", "/input_examples/2",
                                         "/input_examples/3"]


def test_what_project_defer_writes_is_clean(tmp_path):
    cats = load_catalogs([str(corpus("github-mcp-server"))], LoadOptions(strict=True))
    for to in ("anthropic", "openai-responses"):
        out = project_catalogs(cats, ProjectOptions(to=to, defer=DeferOptions("all")))
        p = write(tmp_path, json.loads(out.output_bytes()), f"gh.{to}.json")
        found = [f for f in run(p) if f.code.startswith("DF")]
        assert not found, [(f.code, f.tool, f.message) for f in found[:5]]
