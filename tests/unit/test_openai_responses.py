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
