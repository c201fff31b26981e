"""What the compact view keeps of the prose (issue 34 section 1): the argument-critical
clauses of schema descriptions, the obligation sentences of tool descriptions, and nothing
that changes what a schema accepts. The six tools the issue names, on the real corpus files."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from support.common import corpus
from toolcat import api
from toolcat.features.project import ProjectOptions, describe, project_catalogs, prose
from toolcat.schema.keywords import DRAFT2020
from toolcat.schema.walker import iter_schemas


def _tool(path: str, name: str, **opts: object) -> dict:
    cat = api.load(str(corpus(path)))
    proj = project_catalogs([cat], ProjectOptions(to="mcp", **opts))
    (t,) = [t for t in proj.tools if t.id == name]
    return t.descriptor


def _prop(tool: dict, *path: str) -> dict:
    node = tool["inputSchema"]
    for k in path:
        node = node[k]
    return node


# ------------------------------------------------------------------ the six tools of the issue

def test_supabase_confirm_cost_dependency() -> None:
    t = _tool("mcp-context-cost/supabase.json", "create_project")
    d = _prop(t, "properties", "confirm_cost_id")["description"]
    assert "Call `confirm_cost` first" in d
    # what carries nothing stays out ("The name of the project")
    assert "description" not in _prop(t, "properties", "name")


def test_time_formats() -> None:
    t = _tool("mcp-context-cost/time.json", "convert_time")
    assert "24-hour format (HH:MM)" in _prop(t, "properties", "time")["description"]
    for tz in ("source_timezone", "target_timezone"):
        assert "IANA" in _prop(t, "properties", tz)["description"]
    assert "format" not in _prop(t, "properties", "time")   # the words, never a `format`


def test_kubernetes_log_times() -> None:
    t = _tool("mcp-context-cost/kubernetes.json", "kubectl_logs")
    since = _prop(t, "properties", "since")["description"]
    assert all(v in since for v in ("'5s'", "'2m'", "'3h'"))
    assert "RFC3339" in _prop(t, "properties", "sinceTime")["description"]
    assert "format" not in _prop(t, "properties", "sinceTime")


def test_github_since_and_cursor() -> None:
    t = _tool("github-mcp-server/list_issues.snap", "list_issues")
    assert "ISO 8601" in _prop(t, "properties", "since")["description"]
    assert "Cursor for pagination" in _prop(t, "properties", "after")["description"]
    # a dependency between two arguments
    assert "'orderBy' also needs to be provided" in _prop(t, "properties", "direction")[
        "description"]


def test_notion_prose_only_values() -> None:
    t = _tool("mcp-context-cost/notion.json", "API-post-search")
    sort = _prop(t, "properties", "sort", "properties")
    assert "`ascending` and `descending`" in sort["direction"]["description"]
    assert "`last_edited_time`" in sort["timestamp"]["description"]
    assert "enum" not in sort["direction"]          # prose stays prose


def test_neo_mandatory_final_step() -> None:
    t = _tool("neo/memory-core.openapi.yaml", "add_memory")
    d = t["description"]
    assert "MANDATORY FINAL STEP" in d and "MUST call this tool at the end of every turn" in d
    assert describe.length(d) <= 120


# ------------------------------------------------------------------ the rule's parts

def test_sentences_keep_abbreviations() -> None:
    assert describe.sentences("Show logs (e.g. '5s', '2m'). Use 'x' if unset.") == [
        "Show logs (e.g. '5s', '2m').", "Use 'x' if unset."]


@pytest.mark.parametrize("text,kept", [
    ("Name of the resource", ""),
    ("The cost confirmation ID. Call `confirm_cost` first.", "Call `confirm_cost` first."),
    ("Filter by date (ISO 8601 timestamp)", "Filter by date (ISO 8601 timestamp)"),
    ("The direction. Possible values include `asc` and `desc`.",
     "Possible values include `asc` and `desc`."),
    ("See https://example.com for more information on RFC 3339.", ""),
])
def test_clause(text: str, kept: str) -> None:
    assert describe.clause(text, 60) == kept
    assert describe.clause(kept, 60) == kept        # a fixed point
    assert describe.clause(text, 0) == ""


def test_clause_values_given_by_enum_say_nothing() -> None:
    text = "Possible values include `asc` and `desc`."
    assert describe.clause(text, 60, {"enum": ["asc", "desc"]}) == ""


def test_clause_cut_keeps_its_cue() -> None:
    text = ("Only show notifications updated before the given time (ISO 8601 format: "
            "YYYY-MM-DDTHH:MM:SSZ).")
    got = describe.clause(text, 60)
    assert "ISO 8601" in got and describe.length(got) <= 60
    assert describe.clause(got, 60) == got


def test_tool_description_obligation_within_limit() -> None:
    text = ("Lists the widgets of a shop, with their prices, stock levels and the warehouses "
            "that hold them, sorted by name. The list is paginated. You MUST call `login` "
            "first. Results are cached for a minute.")
    got = describe.tool_description(text, 120)
    assert "You MUST call `login` first." in got and describe.length(got) <= 120
    assert "cached" not in got
    assert describe.tool_description(got, 120) == got
    # nothing cut: unchanged; 0: nothing
    assert describe.tool_description("Short. Never mind.", 120) == "Short. Never mind."
    assert describe.tool_description(text, 0) == ""


# ------------------------------------------------------------------ the schema pass

_SCHEMA = {
    "type": "object",
    "properties": {
        "when": {"type": "string", "description": "The date. Use ISO 8601."},
        "note": {"type": ["string", "null"], "default": None, "description": "A note."},
        "must": {"type": ["string", "null"], "default": None},
    },
    "required": ["when", "must"],
}


def test_restore_keeps_clauses_and_drops_optional_null_defaults() -> None:
    from toolcat.schema.lower import lower_schema

    original = copy.deepcopy(_SCHEMA)
    lowered = lower_schema(original, DRAFT2020).schema
    frozen = json.dumps(lowered)
    out, changes = prose.restore(original, lowered, DRAFT2020,
                                 60)
    assert json.dumps(lowered) == frozen and original == _SCHEMA     # nothing changed in place
    assert out["properties"]["when"]["description"] == "Use ISO 8601."
    assert "description" not in out["properties"]["note"]
    assert "default" not in out["properties"]["note"]                 # optional: dropped
    assert out["properties"]["must"]["default"] is None               # required: kept
    assert [c.pointer for c in changes if "default" in c.pointer] == [
        "/inputSchema/properties/note/default"]
    # what is accepted is unchanged
    for inst in ({"when": "x", "must": None}, {"when": 1}, {"when": "x", "must": "y", "note": 3},
                 {"when": "x", "must": None, "note": None}):
        assert jsonschema.Draft202012Validator(out).is_valid(inst) == \
            jsonschema.Draft202012Validator(_SCHEMA).is_valid(inst)


class _Unlisted:
    """A catalog's tool names that may be asked about (``in``) but never listed or copied."""

    def __init__(self, names: frozenset) -> None:
        self.names = names

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __bool__(self) -> bool:
        return bool(self.names)

    def _copied(self, *_a):
        raise AssertionError("the catalog's tool names were copied for one tool")

    __iter__ = __len__ = __or__ = __ror__ = __and__ = __sub__ = _copied


def test_restore_does_not_copy_the_catalogs_tool_names() -> None:
    """Each tool's restore asks the catalog's tool names about the names its text quotes; a
    copy of them per tool (a union with the tool's property names) made project and measure
    quadratic in the number of tools (generated 20,000 tools: 15.5 s CPU, 2.1 s without)."""
    from toolcat.schema.lower import lower_schema

    schema = {"type": "object", "properties": {
        "mode": {"type": "string", "description": "How to list. Same as `list_files`."},
        "when": {"type": "string", "description": "The date. Use ISO 8601."}}}
    lowered = lower_schema(copy.deepcopy(schema), DRAFT2020).schema
    names = frozenset({"list_files", "other"})
    out, _ = prose.restore(schema, lowered, DRAFT2020, 60, tools=_Unlisted(names))  # type: ignore[arg-type]
    plain, _ = prose.restore(schema, lowered, DRAFT2020, 60, tools=names)
    assert out == plain and out["properties"]["mode"]["description"] == "Same as `list_files`."


def test_lossless_keeps_every_description_whole() -> None:
    t = _tool("mcp-context-cost/kubernetes.json", "kubectl_logs", lossless=True)
    cat = api.load(str(corpus("mcp-context-cost/kubernetes.json")))
    (raw,) = [x for x in cat.tools if x.id == "kubectl_logs"]
    assert t["description"] == describe.collapse(raw.description)
    want = {p: describe.collapse(n["description"]) for p, n, _ in iter_schemas(raw.input_schema)
            if p and isinstance(n, dict) and "description" in n}
    got = {p: n.get("description") for p, n, _ in iter_schemas(t["inputSchema"]) if p}
    assert want and all(got.get(p) == d for p, d in want.items())


def test_description_max_zero_drops_all_prose() -> None:
    t = _tool("mcp-context-cost/kubernetes.json", "kubectl_logs", description_max=0)
    assert "description" not in t
    assert not any(isinstance(n, dict) and "description" in n
                   for _p, n, _d in iter_schemas(t["inputSchema"]))


def test_empty_title_dropped() -> None:
    cat = api.load_data({"tools": [{"name": "a", "title": "", "inputSchema": {
        "type": "object"}, "annotations": {"title": ""}}]}, name="t.json")
    proj = project_catalogs([cat], ProjectOptions(to="mcp"))
    d = proj.tools[0].descriptor
    assert "title" not in d and "title" not in (d.get("annotations") or {})
    assert {"/title", "/annotations/title"} <= {c.pointer for c in proj.tools[0].changes}


def test_model_facing_leaves_out_what_models_are_not_sent() -> None:
    from toolcat.formats import targets

    item = {"name": "a", "title": "A", "description": "d", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "icons": [{"src": "data:x"}], "_meta": {}}
    assert prose.model_facing(targets.get("mcp"), item) == {
        "name": "a", "description": "d", "inputSchema": {"type": "object"}}


def test_measure_model_facing_figures_are_counts_of_the_model_facing_views() -> None:
    from toolcat import tokens
    from toolcat.document.canonical import dumps
    from toolcat.formats import targets

    cat = api.load(str(corpus("mcp-context-cost/github.json")))
    fig = api.measure([cat]).catalogs[0]
    proj = project_catalogs([cat], ProjectOptions(to="mcp"))
    env = targets.get("mcp")
    before = dumps([prose.model_facing(env, t.standard) for t in proj.tools])
    after = dumps([prose.model_facing(env, t.descriptor) for t in proj.tools])
    assert fig.model_facing == {"bytes_before": len(before), "bytes_after": len(after),
                                "tokens_before": tokens.count(before),
                                "tokens_after": tokens.count(after)}
    # the icons are not model-facing: the all-in standard view is several times larger
    assert fig.tokens_before > 4 * fig.model_facing["tokens_before"]
