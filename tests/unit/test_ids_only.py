"""`diff-toolids` compares ids without projecting schemas (issue 17): the ids-only views
(``project_catalogs(..., ids_only=True)``, ``standard_array(..., ids_only=True)``) name the
same tools, with the same OpenWOP ``source``/``safetyTier``, duplicates and renames, as the
full projection, on every sample and target; and fail on the same inputs with the same error."""

from __future__ import annotations

import pytest

from support.common import SAMPLES, corpus
from toolcat.api import load_all, load_data
from toolcat.errors import InputError, UsageError
from toolcat.features.diff.toolids import side_from_items
from toolcat.features.project import options_from_cli, project_catalogs, standard_array
from toolcat.formats.targets import names

SAMPLE_FILES = sorted(p.name for p in SAMPLES.glob("*.json")
                      if p.name != "broken.tools.json") + \
    sorted(p.name for p in SAMPLES.glob("*.yaml"))


def _sides(cats, to, source=None, safety_tier=None, ids_only=False):
    opts = options_from_cli(to=to, source=source, safety_tier=safety_tier)
    proj = project_catalogs(cats, opts, ids_only=ids_only)
    std = standard_array(cats, proj.target, ids_only=ids_only)
    out = []
    for items in (std, proj.array()):
        s = side_from_items(items, proj.target, "x")
        out.append((s.ids, s.fields, s.duplicates, s.missing_ids, s.has_fields))
    return proj.target, out


def _same(cats, to, **kw):
    target, full = _sides(cats, to, **kw)
    target2, ids = _sides(cats, to, ids_only=True, **kw)
    assert target2 == target
    assert ids == full
    return full


@pytest.mark.parametrize("name", SAMPLE_FILES)
@pytest.mark.parametrize("to", [None, *names()])
def test_samples_ids_only_match_projection(name, to):
    cats = load_all([str(SAMPLES / name)])
    full = _same(cats, to)
    assert full[0][0], "the sample has tools"


@pytest.mark.parametrize("to", [None, "openwop"])
def test_overrides(to):
    cats = load_all([str(SAMPLES / "petstore.openapi.yaml")])
    full = _same(cats, to, source="workflow", safety_tier="write")
    if to == "openwop":   # the compact side carries the overrides, the standard side does not
        assert {f["source"] for f in full[1][1].values()} == {"workflow"}
        assert {f["source"] for f in full[0][1].values()} != {"workflow"}


def test_corpus_folder():
    cats = load_all([str(corpus("github-mcp-server"))])
    for to in (None, "openwop", "openai", "openai-strict", "anthropic"):
        _same(cats, to)


def _openapi(op_ids):
    paths = {f"/p{i}": {"get": {"operationId": op, "responses": {"200": {"description": "ok"}}}}
             for i, op in enumerate(op_ids)}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}


def test_renamed_names_match():
    # names the target refuses (`#`, too long) and names a provider sees twice are renamed
    cats = [load_data(_openapi(["a#b", "a_b", "x" * 70, "ok"]), name="spec.json")]
    for to in (None, *names()):
        _same(cats, to)


def test_same_errors():
    dup = [load_data({"tools": [{"name": "a", "inputSchema": {"type": "object"}},
                                {"name": "a", "inputSchema": {"type": "object"}}]},
                     name="dup.json")]
    for ids_only in (False, True):
        with pytest.raises(InputError) as e:
            project_catalogs(dup, options_from_cli(), ids_only=ids_only)
        assert "duplicate tool id 'a'" in str(e.value)
    wop = load_all([str(SAMPLES / "file-system.openwop.json")])
    for ids_only in (False, True):
        with pytest.raises(UsageError) as e:
            project_catalogs(wop, options_from_cli(safety_tier="exec"), ids_only=ids_only)
        assert "safetyTier exec needs source host-extension" in str(e.value)


#: a Responses API request's tools: a function, a hosted tool, a custom tool (the shapes of
#: vercel/ai's recorded responses openai-tool-search.1.json and openai-custom-tool.1.json)
RESPONSES_TOOLS = [
    {"type": "function", "name": "get_weather", "description": "The weather.", "strict": True,
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"], "additionalProperties": False}},
    {"type": "tool_search", "description": None, "parameters": None},
    {"type": "custom", "name": "write_sql", "format": {"type": "text"}},
]


@pytest.mark.parametrize("to", [None, "openai", "anthropic", "openwop"])
def test_server_and_custom_tools_are_in_neither_view(tmp_path, to):
    """The standard view leaves out the server and custom tools its target cannot write, as
    the compact projection does (and as ``project --view standard`` writes it), so
    ``diff-toolids`` of a Responses API array compares equal (exit 0). Before: the standard
    side kept them (an MCP tool ``tool_search`` with no schema), exit 1 "different"."""
    import json

    from support.common import run_toolcat

    p = tmp_path / "request.json"
    p.write_text(json.dumps({"model": "gpt-5.4", "tools": RESPONSES_TOOLS}))
    cats = load_all([str(p)])
    full = _same(cats, to)
    assert [i.split(":")[-1] for i in full[0][0]] == ["get_weather"]
    assert full[1][0] == full[0][0]
    r = run_toolcat("diff-toolids", str(p), *(["--to", to] if to else []))
    assert r.returncode == 0, r.stdout
