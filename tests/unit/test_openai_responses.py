"""`project --to openai-responses`: Responses API function tools, and with `--defer` a
`tool_search` tool, eager functions, and the deferred ones (`"defer_loading": true`) in
namespaces of at most 10 whose union is the tool set; every entry is taken by the `openai`
SDK's request types (`openai.types.responses.ToolParam`, a namespace's functions by its
`ToolFunction`), offline."""

from __future__ import annotations

import pytest

from support.common import SAMPLES, corpus
from support.sdk_types import openai_responses_refusal, refusal
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.features.project.defer import DeferOptions
from toolcat.formats import LoadOptions, load_catalogs


def _load(path):
    return load_catalogs([str(path)], LoadOptions(strict=True))


def _refusals(arr):
    from openai.types.responses.namespace_tool_param import ToolFunction

    bad = [(d.get("name"), openai_responses_refusal(d)) for d in arr
           if openai_responses_refusal(d)]
    for d in arr:
        if d.get("type") == "namespace":
            bad += [(f.get("name"), refusal(f, ToolFunction)) for f in d["tools"]
                    if refusal(f, ToolFunction)]
    return bad


def _paths():
    return [corpus("github-mcp-server"), corpus("neo") / "github-workflow.openapi.yaml",
            SAMPLES / "petstore.openapi.yaml", SAMPLES / "git.tools.json"]


@pytest.mark.parametrize("i", range(4))
def test_function_tools_without_deferral(i):
    pytest.importorskip("openai")
    cats = _load(_paths()[i])
    arr = project_catalogs(cats, ProjectOptions(to="openai-responses")).catalog()
    assert [d["name"] for d in arr] == [t.id for t in cats[0].tools]
    assert all(d["type"] == "function" and d["strict"] is False for d in arr)
    assert not _refusals(arr)
    # the judge refuses what the API refuses: Chat Completions' nested shape, no strict
    assert openai_responses_refusal({"type": "function", "function": arr[0]})
    assert openai_responses_refusal({k: v for k, v in arr[0].items() if k != "strict"})


@pytest.mark.parametrize("i", range(4))
def test_deferred_tools_in_namespaces(i):
    pytest.importorskip("openai")
    cats = _load(_paths()[i])
    arr = project_catalogs(cats, ProjectOptions(
        to="openai-responses", defer=DeferOptions("all"))).catalog()
    assert [d for d in arr if d["type"] == "tool_search"] == [{"type": "tool_search"}]
    spaces = [d for d in arr if d["type"] == "namespace"]
    assert spaces and all(1 <= len(d["tools"]) <= 10 for d in spaces)
    inside = [f["name"] for d in spaces for f in d["tools"]]
    assert sorted(inside) == sorted(t.id for t in cats[0].tools)   # each exactly once
    assert all(f["defer_loading"] is True for d in spaces for f in d["tools"])
    assert len({d["name"] for d in spaces}) == len(spaces)
    assert all(d["description"].strip() for d in spaces)
    assert not _refusals(arr)


def test_eager_functions_stay_outside_and_tags_name_the_namespaces():
    cats = _load(corpus("neo") / "github-workflow.openapi.yaml")
    ids = [t.id for t in cats[0].tools]
    arr = project_catalogs(cats, ProjectOptions(to="openai-responses", defer=DeferOptions(
        "all", eager=(ids[0],)))).catalog()
    assert arr[1]["name"] == ids[0] and "defer_loading" not in arr[1]
    doc = cats[0].document
    tag_text = {t["name"]: " ".join(t["description"].split()) for t in doc.get("tags", [])
                if "description" in t}
    for d in arr:
        if d["type"] != "namespace":
            continue
        tools = {t.id: t for t in cats[0].tools}
        tags = {tools[f["name"]].extra["tags"][0] for f in d["tools"]}
        assert len(tags) == 1      # one tag's operations per namespace
        tag = tags.pop()
        if tag in tag_text:
            assert d["description"].startswith(tag_text[tag])
        else:
            assert all(f["name"] in d["description"] for f in d["tools"])


def test_what_is_written_reads_back_and_projects_the_same(tmp_path):
    """The Responses array read back: its namespaces' functions are tools (each in its
    namespace), `tool_search` a hosted tool written as given; projected again with
    --defer all it is the same array (both ways: the namespaces are kept, no second search
    tool)."""
    from support.lint import write

    cats = _load(corpus("github-mcp-server"))
    opts = ProjectOptions(to="openai-responses", defer=DeferOptions("all"))
    first = project_catalogs(cats, opts).catalog()
    p = write(tmp_path, first, "tools.openai.json")
    back = _load(p)
    assert back[0].format == "openai" and len(back[0].tools) == len(cats[0].tools) + 1
    assert back[0].tools[0].server_tool
    assert project_catalogs(back, opts).catalog() == first
    # without --defer, the hosted tool stays as it is and the functions are flat
    flat = project_catalogs(back, ProjectOptions(to="openai-responses")).catalog()
    assert flat[0] == {"type": "tool_search"}
    assert all(d["type"] == "function" for d in flat[1:])


HOSTED = [{"type": "mcp", "server_label": "dmcp", "server_url": "https://dmcp.example/sse",
           "require_approval": "never"},
          {"type": "mcp", "server_label": "stripe", "server_url": "https://mcp.example.com",
           "defer_loading": True},
          {"type": "tool_search"}, {"type": "web_search"},
          {"type": "function", "name": "get_time", "description": "The time in a time zone.",
           "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
           "strict": False}]


def test_hosted_mcp_servers_are_told_apart_by_their_labels(tmp_path):
    """Several hosted MCP servers in one Responses array (``{"type": "mcp", "server_label"}``)
    are each named by their label: before, each was the tool ``mcp``, so lint reported a
    duplicate id (TC101) and project refused the array (exit 2). Their own target writes
    them as given and the SDK's request types take what is written."""
    pytest.importorskip("openai")
    import json

    from support.common import run_toolcat

    p = tmp_path / "tools.openai.json"
    p.write_text(json.dumps(HOSTED))
    cats = _load(p)
    assert [t.id for t in cats[0].tools][:2] == ["mcp:dmcp", "mcp:stripe"]
    out = project_catalogs(cats, ProjectOptions(to="openai-responses")).catalog()
    assert out == HOSTED and not _refusals(out)
    r = run_toolcat("lint", str(p), "--select", "TC101")
    assert r.returncode == 0, r.stdout
    r = run_toolcat("project", str(p), "--to", "openai-responses", "-o", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr


def test_measure_counts_a_responses_array_as_one(tmp_path):
    """measure counts a tools array as its own provider's request: a Responses API array
    (flat functions, hosted tools, namespaces) as ``openai-responses`` (before: as Chat
    Completions, whose request holds no hosted tool: each was counted as an empty function,
    and "before" was not the file's own bytes); a Chat Completions array as ``openai``."""
    import json

    from support.common import run_toolcat

    p = tmp_path / "responses.json"
    p.write_text(json.dumps(HOSTED))
    r = run_toolcat("measure", str(p), "--format", "json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["catalogs"][0]
    assert got["target"] == "openai-responses" and b"left out" not in r.stderr
    assert got["bytes_before"] == len(json.dumps(HOSTED, separators=(",", ":")).encode())
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"type": "function", "function": {
        "name": "get_time", "parameters": {"type": "object", "properties": {}}}}]))
    r = run_toolcat("measure", str(chat), "--format", "json")
    assert json.loads(r.stdout)["catalogs"][0]["target"] == "openai"


CHAT_CUSTOM = {"type": "custom", "custom": {"name": "run_sql", "description": "Runs a query.",
                                            "format": {"type": "text"}}}
RESPONSES_CUSTOM = {"type": "custom", "name": "run_sql", "description": "Runs a query.",
                    "format": {"type": "grammar", "syntax": "lark",
                               "definition": "start: /SELECT .+/"}}
FUNCTION = {"type": "function", "function": {"name": "get_time", "description": "The time.",
                                             "parameters": {"type": "object",
                                                            "properties": {}}}}


@pytest.mark.parametrize("form,own", [("chat", "openai"), ("responses", "openai-responses")])
def test_a_custom_tool_is_written_as_given_or_left_out(tmp_path, form, own):
    """An OpenAI custom tool takes free-form text (under an optional grammar), not JSON
    arguments: its own API's target writes it as given (the SDK's request types take it);
    every other target leaves it out with a warning and the report's ``left_out``
    (``custom_tool``). Before: Chat Completions' form was an entry with no name (lint TC102,
    left out as not a tool), the Responses form a function with empty parameters (the model
    would send JSON where the host reads text)."""
    pytest.importorskip("openai")
    import json

    from openai.types.chat import ChatCompletionToolUnionParam

    from support.common import run_toolcat

    custom = CHAT_CUSTOM if form == "chat" else RESPONSES_CUSTOM
    p = tmp_path / "tools.openai.json"
    p.write_text(json.dumps([FUNCTION, custom]))
    cats = _load(p)
    assert [t.id for t in cats[0].tools] == ["get_time", "run_sql"]
    out = project_catalogs(cats, ProjectOptions(to=own)).catalog()
    assert out[1] == custom
    judge = (lambda d: refusal(d, ChatCompletionToolUnionParam)) if form == "chat" \
        else openai_responses_refusal
    assert [judge(d) for d in out] == [None, None]
    for to in {"openai", "openai-responses", "anthropic", "mcp", "gemini"} - {own}:
        proj = project_catalogs(cats, ProjectOptions(to=to))
        assert [t.id for t in proj.tools] == ["get_time"], to
        assert proj.left_out[0]["custom_tool"] is True and "free-form" in \
            proj.left_out[0]["what"]
    r = run_toolcat("lint", str(p), "--select", "TC")
    assert r.returncode == 0, r.stdout


def test_a_custom_tool_is_deferred_as_a_function_is(tmp_path):
    """The Responses API defers a custom tool as it does a function (the SDK's
    ``CustomToolParam`` has ``defer_loading``, a namespace's ``tools`` take custom tools):
    ``--defer all`` puts it, as given with ``"defer_loading": true``, in a namespace, and
    ``--eager`` keeps it up front without the mark. Before: custom tools were never deferred
    (kept eager, as server tools are)."""
    pytest.importorskip("openai")
    import json

    responses_fn = {"type": "function", "name": "get_time", "description": "The time.",
                    "parameters": {"type": "object", "properties": {}}, "strict": False}
    marked = {**RESPONSES_CUSTOM, "defer_loading": True}
    p = tmp_path / "tools.openai.json"
    p.write_text(json.dumps([responses_fn, marked]))
    cats = _load(p)
    out = project_catalogs(cats, ProjectOptions(to="openai-responses",
                                                defer=DeferOptions("all"))).catalog()
    members = [f for d in out if d.get("type") == "namespace" for f in d["tools"]]
    assert {**RESPONSES_CUSTOM, "defer_loading": True} in members
    assert all(f["defer_loading"] is True for f in members) and len(members) == 2
    assert [openai_responses_refusal(d) for d in out] == [None] * len(out)
    eager = project_catalogs(cats, ProjectOptions(to="openai-responses", defer=DeferOptions(
        "all", eager=("run_sql",)))).catalog()
    assert RESPONSES_CUSTOM in eager and marked not in eager
    assert [openai_responses_refusal(d) for d in eager] == [None] * len(eager)


def test_hosted_types_are_the_sdks_and_an_array_of_them_alone_is_openai(tmp_path):
    """The hosted tools' types are the SDK's (``openai.types.responses.ToolParam``'s members
    but function, custom and namespace), and an array of them alone (hosted MCP servers, web
    search) is an OpenAI tools array: before, "not a tool catalog" (exit 2)."""
    pytest.importorskip("openai")
    import json
    import re
    import typing

    from openai.types.responses import ToolParam

    from toolcat.formats.openai import HOSTED_TYPES

    sdk = set()
    for member in typing.get_args(ToolParam):
        ann = typing.get_type_hints(member, include_extras=False).get("type")
        sdk |= set(re.findall(r"'([a-z0-9_]+)'", repr(ann)))
    assert HOSTED_TYPES == sdk - {"function", "custom", "namespace"}
    p = tmp_path / "hosted.json"
    p.write_text(json.dumps(HOSTED[:2] + [{"type": "web_search"}]))
    cats = _load(p)
    assert cats[0].format == "openai" and all(t.server_tool for t in cats[0].tools)


#: what the Responses API echoes in a response's ``tools`` for a server-run tool search, and
#: a client-executed tool search (the application runs the search; the model calls it with
#: these parameters): the shapes of vercel/ai's recorded responses (openai-tool-search.1.json,
#: openai-client-tool-search.2.json)
ECHOED_SEARCH = {"type": "tool_search", "description": None, "parameters": None}
CLIENT_SEARCH = {"type": "tool_search", "description": "Search for available tools.",
                 "execution": "client",
                 "parameters": {"type": "object", "properties": {"goal": {"type": "string"}},
                                "required": ["goal"], "additionalProperties": False}}
DEFERRED_FN = {"type": "function", "name": "get_weather", "description": "The weather.",
               "defer_loading": True, "strict": True,
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                              "required": ["city"], "additionalProperties": False}}


@pytest.mark.parametrize("search", [ECHOED_SEARCH, CLIENT_SEARCH])
def test_a_tool_search_with_parameters_is_the_hosted_tool(tmp_path, search):
    """A ``tool_search`` entry is the platform's tool search whatever else it holds: the API
    echoes ``"parameters": null`` in a response's tools, a client-executed search gives its
    parameters. Its own target writes it as given (the SDK takes it), and with ``--defer`` it
    is the one tool search (none added); other targets leave it out. Before: a function
    without a name ('(no id)', lint TC102), written as ``{"type": "function", "parameters":
    ...}`` with no name, which the SDK refuses."""
    pytest.importorskip("openai")
    import json

    p = tmp_path / "response.json"
    p.write_text(json.dumps({"object": "response", "tools": [DEFERRED_FN, search]}))
    cats = _load(p)
    assert [(t.id, t.server_tool) for t in cats[0].tools] == [
        ("get_weather", False), ("tool_search", True)]
    out = project_catalogs(cats, ProjectOptions(to="openai-responses")).catalog()
    assert out[1] == search and not _refusals(out)
    deferred = project_catalogs(cats, ProjectOptions(
        to="openai-responses", defer=DeferOptions("all"))).catalog()
    assert [d for d in deferred if d["type"] == "tool_search"] == [search]
    assert not _refusals(deferred)
    proj = project_catalogs(cats, ProjectOptions(to="anthropic"))
    assert [t.id for t in proj.tools] == ["get_weather"]
    assert len(proj.left_out) == 1 and proj.left_out[0]["server_tool"] is True


@pytest.mark.parametrize("custom", [CHAT_CUSTOM, RESPONSES_CUSTOM,
                                    {"type": "custom", "name": "run_sql"}])
def test_an_array_of_custom_tools_alone_is_openai(tmp_path, custom):
    """An array of OpenAI custom tools alone (vercel/ai's recorded openai-custom-tool.1.json
    holds one) is an OpenAI tools array, read as custom tools. Before: with a description the
    Responses form was an MCP tool (a tool with no input schema, written as a function by
    every target), and without one, or in Chat Completions' form, "not a tool catalog"
    (exit 2)."""
    import json

    p = tmp_path / "tools.json"
    p.write_text(json.dumps([custom]))
    cats = _load(p)
    assert cats[0].format == "openai"
    assert [(t.id, t.extra.get("custom")) for t in cats[0].tools] == [
        ("run_sql", "chat" if "custom" in custom else "responses")]


def test_a_namespace_member_named_like_another_tool_is_qualified(tmp_path):
    """A namespace's function is called by namespace and name, so the API takes one named like
    a top-level function or one of another namespace (vercel/ai's recorded
    openai-client-tool-search.2.json: namespace ``get_weather`` holds ``get_weather`` beside a
    top-level ``get_weather``). Such a member's id is ``<namespace>__<name>`` (a name every
    provider takes: written as is, no lint finding on it); the others keep their names.
    Before: a duplicate tool id, and every ``project`` stopped (exit 2)."""
    pytest.importorskip("openai")
    import json

    fn = {k: v for k, v in DEFERRED_FN.items() if k != "defer_loading"}
    other = {**fn, "name": "get_time"}
    p = tmp_path / "request.json"
    p.write_text(json.dumps({"tools": [
        fn, {"type": "namespace", "name": "get_weather", "description": "Weather.",
             "tools": [fn, other]},
        {"type": "namespace", "name": "city", "description": "Cities.", "tools": [other]}]}))
    cats = _load(p)
    assert [t.id for t in cats[0].tools] == [
        "get_weather", "get_weather__get_weather", "get_weather__get_time", "city__get_time"]
    for to in ("openai-responses", "anthropic", "mcp"):
        proj = project_catalogs(cats, ProjectOptions(to=to))
        assert len(proj.tools) == 4, to
    out = project_catalogs(cats, ProjectOptions(to="openai-responses")).catalog()
    assert not _refusals(out) and out[1]["name"] == "get_weather__get_weather"


def test_a_responses_array_in_the_chat_target_standard_view_is_chat_shaped(tmp_path):
    """``--to openai --view standard`` of a Responses API array (flat functions, vercel/ai's
    recorded openai-tool-search.1.json) writes Chat Completions function tools, with the
    fields Chat's function object has; a Chat Completions array stays as written. Before: the
    flat functions as written, which Chat Completions' request types refuse (no ``function``)."""
    pytest.importorskip("openai")
    import json

    from openai.types.chat import ChatCompletionToolUnionParam

    flat = {**DEFERRED_FN, "allowed_callers": ["direct"]}
    p = tmp_path / "request.json"
    p.write_text(json.dumps({"tools": [flat, ECHOED_SEARCH, FUNCTION]}))
    cats = _load(p)
    for to in ("openai", "openai-strict"):
        out = project_catalogs(cats, ProjectOptions(to=to, view="standard")).catalog()
        assert [refusal(d, ChatCompletionToolUnionParam) for d in out] == [None, None], to
        assert out[0]["function"] == {k: DEFERRED_FN[k] for k in (
            "name", "description", "parameters", "strict")}
        assert out[1] == FUNCTION


def test_a_namespace_without_a_tools_array_is_an_invalid_entry(tmp_path):
    """A namespace whose ``tools`` is not an array (a hostile variant of a Responses array) is
    an invalid entry (lint TC110, left out of every projection with a warning); the rest of
    the array loads. Before: a function named after the namespace, with no parameters, which
    every target wrote as a tool no one provides."""
    import json

    bad = {"type": "namespace", "name": "crm", "description": "CRM.", "tools": "oops"}
    p = tmp_path / "request.json"
    p.write_text(json.dumps({"tools": [DEFERRED_FN, bad]}))
    cats = _load(p)
    assert [(t.id, t.invalid is not None) for t in cats[0].tools] == [
        ("get_weather", False), (None, True)]
    proj = project_catalogs(cats, ProjectOptions(to="anthropic"))
    assert [t.id for t in proj.tools] == ["get_weather"] and len(proj.left_out) == 1
