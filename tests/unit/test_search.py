"""toolcat.search (issue 32): the ranked tool search of ``serve --defer``.

The recall test runs the task phrases of tests/fixtures/search/tasks.toml (what a user asks,
in their words) against three real catalogs of the shared corpus (GitHub's MCP server, the
filesystem server, Notion's) and holds top-5 recall above the floor measured when the
engine was chosen (README: "Deferred tools: serve --defer" gives the figures)."""

from __future__ import annotations

import tomllib

import pytest

from support.common import FIXTURES, corpus
from toolcat import search

TASKS = tomllib.loads((FIXTURES / "search" / "tasks.toml").read_text())

#: Top-5 recall measured per catalog (found / tasks) when the engine was chosen, each floor
#: one task below it: github 37/40, filesystem 20/20, notion 22/25.
FLOORS = {"github": 36 / 40, "filesystem": 19 / 20, "notion": 21 / 25}


def standard_tools(rel: str) -> list[dict]:
    from toolcat.features.project import standard_array
    from toolcat.formats import LoadOptions, load_catalogs

    cats = load_catalogs([str(corpus(*rel.split("/")))], LoadOptions(strict=False))
    return standard_array(cats, "mcp")


def recall(tools: list[dict], tasks: list, k: int = 5) -> tuple[float, list]:
    index = search.ToolIndex(tools)
    missed = []
    for task, want in tasks:
        got = [h.name for h in index.search(task, k)]
        if not any(w in got for w in want):
            missed.append((task, want, got))
    return 1 - len(missed) / len(tasks), missed


@pytest.mark.parametrize("key", sorted(FLOORS))
def test_top5_recall_of_task_phrases_is_above_the_measured_floor(key):
    entry = TASKS[key]
    tools = standard_tools(entry["catalog"])
    names = {t["name"] for t in tools}
    assert len(entry["tasks"]) >= 20
    for _task, want in entry["tasks"]:        # every expected tool is a tool of the catalog
        assert set(want) <= names, want
    got, missed = recall(tools, entry["tasks"])
    assert got >= FLOORS[key], missed
    # a ranking, not a lookup: the first hit alone finds fewer than the first five
    first, _ = recall(tools, entry["tasks"], k=1)
    assert first < got


def test_words_split_names_as_people_read_them():
    assert search.words("listPullRequests") == ["list", "pull", "requests"]
    assert search.words("API-get-block-children") == ["api", "get", "block", "children"]
    assert search.words("getHTTPResponse_v2") == ["get", "http", "response", "v", "2"]
    assert search.words("files.read") == ["files", "read"]
    assert search.words("Crème brûlée") == ["crème", "brûlée"]


def test_words_of_a_text_are_those_of_each_run():
    """An ASCII text is split in one search (its runs of letters and digits are never
    crossed); a text with other letters run by run: the same words either way."""
    import random

    def by_runs(text: str) -> list[str]:
        out: list[str] = []
        for run in search._WORD.findall(text):
            parts = search._CAMEL.findall(run) if run.isascii() else [run]
            out += [p.lower() for p in (parts or [run])]
        return out

    assert search.words("x__yHTTPServer2go.ABC-aBC 99a\tb") == [
        "x", "y", "http", "server", "2", "go", "abc", "a", "bc", "99", "a", "b"]
    assert search.words("") == [] and search.words(" _-. ") == []
    rnd = random.Random(35)
    chars = "aAbBzZ09_-. \t\n/:'\"xXyY!\u00e9\u0130"
    for _ in range(20_000):
        t = "".join(rnd.choice(chars) for _ in range(rnd.randint(0, 16)))
        assert search.words(t) == by_runs(t), t


def test_every_part_of_the_standard_view_is_searched():
    tools = [
        {"name": "alpha", "description": "Nothing to see."},
        {"name": "beta", "description": "Send a postcard to someone."},
        {"name": "gamma", "inputSchema": {"type": "object", "properties": {
            "zipcode": {"type": "string"},
            "mode": {"enum": ["overnight_courier"], "description": "How it travels."}}}},
        {"name": "fetchWeatherReport", "description": "x"},
    ]
    index = search.ToolIndex(tools)
    assert [h.name for h in index.search("postcards")] == ["beta"]      # description, stemmed
    assert [h.name for h in index.search("zipcode")] == ["gamma"]       # parameter name
    assert [h.name for h in index.search("courier")] == ["gamma"]       # enum value
    assert [h.name for h in index.search("travels")] == ["gamma"]       # parameter description
    assert [h.name for h in index.search("weather report")] == ["fetchWeatherReport"]
    assert index.search("zebra") == []
    assert index.search("the of and") == []          # stopwords alone: nothing
    assert index.search("gamma")[0].name == "gamma"  # a name finds its tool first
    assert index.search("beta", limit=0) == []


def test_the_name_outranks_the_description_and_synonyms_widen_a_word():
    tools = [{"name": "delete_file", "description": "Gone for good."},
             {"name": "note", "description": "Say which file to delete later."},
             {"name": "remove_label", "description": "Take a label off."}]
    index = search.ToolIndex(tools)
    assert [h.name for h in index.search("delete a file")][:2] == ["delete_file", "note"]
    # remove -> delete: found through the synonym, and only through it
    assert "delete_file" in [h.name for h in index.search("remove the file")]
    assert "delete_file" not in [h.name for h in search.ToolIndex(
        tools, synonyms={}).search("remove")]


@pytest.mark.parametrize("query", ['"', 'a" OR "b', "NEAR(x y)", "x*", "col:x", "^x",
                                   "AND OR NOT", "(", "\x00", "é" * 5000, "x " * 5000])
def test_any_text_is_a_query_never_an_fts5_syntax_error(query):
    index = search.ToolIndex([{"name": "x_tool", "description": "x marks it"}])
    hits = index.search(query)
    assert all(h.name == "x_tool" for h in hits)


def test_odd_and_hostile_tools_are_indexed_or_skipped():
    deep: dict = {"type": "object"}
    node = deep
    for i in range(3000):              # deeper than any walk goes
        key = {1: "shallow", 2999: "needle"}.get(i, "p")
        node["properties"] = {key: {"type": "object"}}
        node = node["properties"][key]
    tools = [None, 3, {"name": 5}, {"description": "no name"}, {"name": "deep",
             "inputSchema": deep}, {"name": "deep", "description": "a second one"},
             {"name": "odd", "inputSchema": {"properties": [1, 2]}, "description": 7}]
    index = search.ToolIndex(tools)
    assert index.names == ["deep", "odd"]
    assert [h.name for h in index.search("shallow")] == ["deep"]
    assert index.search("needle") == []         # past the walk's bound: not indexed
    assert index.search("second") == []         # the first tool of a name is the one
    assert index.search("odd")[0].summary == ""


def test_a_summary_is_the_first_sentence_on_one_line():
    assert search.summary("Get a user.\nUse it when...") == "Get a user."
    assert search.summary("List  files\n in a dir. More text.") == "List files in a dir."
    assert search.summary("Version 1.2 of the API. Then") == "Version 1.2 of the API."
    long = search.summary("word " * 100)
    assert len(long) <= search.SUMMARY_CHARS and long.endswith("\u2026")
    assert search.summary(None) == ""


def test_a_two_tool_catalog_is_ranked_too():
    """Every word of a two-tool catalog is in at least half its tools, where FTS5's own
    bm25() gives it no weight: the ranking must still put the tool that says it first."""
    tools = [{"name": "get_current_time", "description": "Get the current time in a time "
              "zone.", "inputSchema": {"properties": {"timezone": {"type": "string"}}}},
             {"name": "convert_time", "description": "Convert a time between time zones.",
              "inputSchema": {"properties": {"source_timezone": {}, "time": {},
                                             "target_timezone": {}}}}]
    index = search.ToolIndex(tools)
    assert [h.name for h in index.search("convert 3pm Paris to Tokyo")] == ["convert_time"]
    assert index.search("the current time")[0].name == "get_current_time"
    assert index.search("current time")[0].score > index.search("current time")[1].score


def test_without_fts5_words_match_unstemmed(monkeypatch):
    monkeypatch.setattr(search, "_fts5", lambda con: False)
    index = search.ToolIndex([{"name": "list_issues"}, {"name": "get_issue"}])
    assert not index.stemmed
    assert [h.name for h in index.search("issues")] == ["list_issues"]
    monkeypatch.undo()
    assert [h.name for h in search.ToolIndex([{"name": "list_issues"}, {"name": "get_issue"}])
            .search("issues")] == ["list_issues", "get_issue"]      # stemmed: both
