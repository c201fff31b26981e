"""The compact outputSchema is lowered once per distinct content in a run (issue 17: Stripe's
468 operations return 230 distinct output schemas, each bundling most components): each tool
comes out exactly as projecting it alone (no shared cache, no memo) would, on the samples and
OpenAPI corpus specs, and on hand-made specs whose operations return the same schema or
schemas that differ only where a memo keyed carelessly would not see it (a key order, 1 and
1.0, draft-04 and 2020-12 readings). ``content_key`` refuses what it cannot vouch for."""

from __future__ import annotations

import math

import orjson
import pytest

from support.common import SAMPLES, corpus
from toolcat.api import load_all, load_data
from toolcat.features.project import options_from_cli, project_catalogs, project_tool
from toolcat.formats import targets as tg
from toolcat.schema.lower import LowerCache, content_key


def _schema_changes(projected):
    # (the names are fixed across the catalog after projection: providers.fix_names)
    return [c for c in projected.changes if c.pointer.startswith(("/inputSchema", "/outputSchema"))]


def _alone_and_together(cats, to="mcp", view="compact"):
    opts = options_from_cli(to=to, view=view)
    proj = project_catalogs(cats, opts)
    target = tg.get(proj.target) if isinstance(proj.target, str) else proj.target
    subset = opts.subset if opts.subset is not None else target.subset_by_default
    tools = [(t, c) for c in cats for t in c.tools]
    assert len(tools) == len(proj.tools)
    for got, (tool, cat) in zip(proj.tools, tools):
        alone = project_tool(tool, cat.format, target, opts, subset, cat, None)
        for key in ("inputSchema", "outputSchema", "parameters", "input_schema"):
            assert orjson.dumps(got.descriptor.get(key)) == \
                orjson.dumps(alone.descriptor.get(key)), tool.id
        assert _schema_changes(got) == _schema_changes(alone), tool.id
        # the standard view too (its output schema's rewrites are memoized by content)
        sb, ab = target.body(got.standard), target.body(alone.standard)
        for key in ("inputSchema", "outputSchema", "parameters", "input_schema"):
            assert orjson.dumps(sb.get(key)) == orjson.dumps(ab.get(key)), tool.id
    return proj


SPECS = [SAMPLES / "petstore.openapi.yaml", SAMPLES / "petstore-v31.openapi.json",
         SAMPLES / "petstore.swagger2.yaml", SAMPLES / "git.tools.json"]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
@pytest.mark.parametrize("to", ["mcp", "openwop"])
def test_samples_same_as_alone(path, to):
    _alone_and_together(load_all([str(path)]), to)


@pytest.mark.parametrize("name", ["oai-petstore-expanded.openapi.yaml", "oai-uspto.openapi.yaml",
                                  "swagger-petstore-v3.openapi.yaml", "box.openapi.json"])
def test_corpus_same_as_alone(name):
    path = corpus("openapi", name)
    if not path.exists():
        pytest.skip("no corpus")
    _alone_and_together(load_all([str(path)]))


def _spec(responses: dict, version: str = "3.1.0") -> dict:
    paths = {}
    for i, (name, schema) in enumerate(responses.items()):
        paths[f"/r{i}"] = {"get": {"operationId": name, "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": schema}}}}}}
    return {"openapi": version, "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": {
                "Item": {"type": "object", "properties": {
                    "id": {"type": "string", "maxLength": 10},
                    "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                    "alt": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}}}},
                "Tag": {"type": "object", "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 99},
                    "value": {"type": "string", "minLength": 1, "maxLength": 99}}}}}}


def test_same_responses_lowered_once_and_as_alone():
    item = {"$ref": "#/components/schemas/Item"}
    spec = _spec({"a": item, "b": dict(item), "c": {"type": "array", "items": item},
                  "d": {"type": "object", "properties": {"x": {"maximum": 1}}},
                  "e": {"type": "object", "properties": {"x": {"maximum": 1.0}}},
                  "f": {"type": "object", "properties": {"x": {"maximum": 1, "minimum": 0}}},
                  "g": {"type": "object", "properties": {"x": {"minimum": 0, "maximum": 1}}}})
    cats = [load_data(spec, name="spec.json")]
    proj = _alone_and_together(cats)
    outs = {t.id: t.descriptor["outputSchema"] for t in proj.tools}
    assert outs["a"] == outs["b"]
    # the key order is told apart (each as written)
    assert list(outs["f"]["properties"]["x"]) != list(outs["g"]["properties"]["x"])

    cache = LowerCache()
    opts = options_from_cli(to="mcp")
    for tool in cats[0].tools:
        project_tool(tool, cats[0].format, tg.get("mcp"), opts, False, cats[0], cache)
    distinct = {content_key(t.output_schema) for t in cats[0].tools}
    assert len(distinct) < len(cats[0].tools)        # a and b (at least) share one entry
    assert len(cache.outputs) == len(distinct)


@pytest.mark.parametrize("to", ["mcp", "openwop"])
def test_standard_view_same_as_alone(to):
    path = corpus("openapi", "box.openapi.json")
    paths = [SAMPLES / "petstore.openapi.yaml"] + ([path] if path.exists() else [])
    for p in paths:
        _alone_and_together(load_all([str(p)]), to, view="standard")


def test_content_key_memo_tells_apart_what_the_plain_key_does():
    tag = {"type": "string"}
    other = {"type": "string", "maxLength": 1}
    values = [
        {"$defs": {"T": tag}, "$ref": "#/$defs/T"},
        {"$defs": {"T": dict(tag)}, "$ref": "#/$defs/T"},          # equal, another object
        {"$ref": "#/$defs/T", "$defs": {"T": tag}},                # another key order
        {"$defs": {"U": tag}, "$ref": "#/$defs/T"},                # another name
        {"$defs": {"T": other}, "$ref": "#/$defs/T"},
        {"$defs": {"T": tag, "U": other}, "$ref": "#/$defs/T"},
        {"$defs": {"U": other, "T": tag}, "$ref": "#/$defs/T"},
        {"$defs": {"T": {"maximum": 1}}}, {"$defs": {"T": {"maximum": 1.0}}},
        {"$defs": {"T": tag}, "$ref": "#/$defs/T", "x": None},
        {"$defs": {"T": tag, "x": None}, "$ref": "#/$defs/T"},
        {"$defs": {}}, {"$defs": None}, {"$defs": {"T": True}}, {"$defs": {"T": 1}},
    ]
    memo: dict = {}
    for _ in range(2):                         # (the second time from the memo)
        for a in values:
            for b in values:
                same = orjson.dumps(a) == orjson.dumps(b)
                assert (content_key(a, memo) == content_key(b, memo)) is same, (a, b)
    assert content_key({"$defs": {"T": {"a": math.nan}}}, memo) is None
    assert content_key({"$defs": {"T": tag}, "a": 2 ** 70}, memo) is None


def test_content_key():
    assert content_key({"a": 1}) == content_key({"a": 1})
    assert content_key({"a": 1}) != content_key({"a": 1.0})
    assert content_key({"a": 1, "b": 2}) != content_key({"b": 2, "a": 1})
    assert content_key({"a": True}) != content_key({"a": 1})
    assert content_key([None]) != content_key([])
    for odd in ({"a": math.nan}, {"a": [math.inf]}, {"a": (1, 2)}, {"a": 2 ** 70},
                [{"x": {"y": -math.inf}}], {"a": {1, 2}}, math.nan):
        assert content_key(odd) is None, odd

    class S(str):
        pass

    assert content_key({"a": S("x")}) is None
    assert content_key({"a": "x"}) is not None
