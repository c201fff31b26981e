"""The keyword table and the walker: what is a schema position, and what is data."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.common import corpus
from toolcat.document.pointer import decode, encode, resolve
from toolcat.schema import keywords as kw
from toolcat.schema.walker import iter_schemas, local_refs, subschemas, sum_schemas, transform


def paths(schema, dialect=kw.DRAFT2020):
    return [encode(p) for p, _n, _d in iter_schemas(schema, dialect)]


def test_property_names_are_data_not_keywords():
    schema = {
        "type": "object",
        "properties": {
            "oneOf": {"type": "string"},
            "description": {"type": "integer", "description": "a property named description"},
            "$ref": {"type": "boolean"},
        },
    }
    got = paths(schema)
    assert got == ["", "/properties/oneOf", "/properties/description", "/properties/$ref"]


def test_data_keywords_are_never_entered():
    schema = {
        "enum": [{"$ref": "#/x", "description": "data"}],
        "const": {"oneOf": [{"type": "string"}]},
        "default": {"properties": {"a": {}}},
        "examples": [{"anyOf": [{}]}],
        "x-vendor": {"properties": {"a": {"type": "string"}}},
    }
    assert paths(schema) == [""]
    assert list(local_refs(schema)) == []


def test_every_shape_is_walked_2020():
    schema = {
        "allOf": [{"type": "object"}],
        "anyOf": [True, False],
        "oneOf": [{}],
        "not": {"type": "null"},
        "if": {}, "then": {}, "else": {},
        "properties": {"a": {}},
        "patternProperties": {"^x": {}},
        "additionalProperties": {"type": "string"},
        "propertyNames": {"maxLength": 3},
        "dependentSchemas": {"a": {}},
        "prefixItems": [{}, {}],
        "items": {"type": "integer"},
        "contains": {},
        "unevaluatedItems": False,
        "unevaluatedProperties": False,
        "$defs": {"d": {"type": "string"}},
        "definitions": {"legacy": {}},
        "contentSchema": {},
    }
    got = set(paths(schema))
    expected = {"", "/allOf/0", "/anyOf/0", "/anyOf/1", "/oneOf/0", "/not", "/if", "/then",
                "/else", "/properties/a", "/patternProperties/^x", "/additionalProperties",
                "/propertyNames", "/dependentSchemas/a", "/prefixItems/0", "/prefixItems/1",
                "/items", "/contains", "/unevaluatedItems", "/unevaluatedProperties",
                "/$defs/d", "/definitions/legacy", "/contentSchema"}
    assert got == expected


def test_draft7_array_items_and_dependencies():
    schema = {
        "items": [{"type": "string"}, {"type": "integer"}],
        "additionalItems": {"type": "boolean"},
        "dependencies": {"a": ["b", "c"], "d": {"required": ["e"]}},
    }
    assert set(paths(schema, kw.DRAFT7)) == {"", "/items/0", "/items/1", "/additionalItems",
                                             "/dependencies/d"}
    # in 2020-12 `items` is one schema and an array there is not a schema position
    assert set(paths({"items": [{"type": "string"}]}, kw.DRAFT2020)) == {""}


def test_nested_schema_switches_dialect():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {
            "old": {"$schema": "http://json-schema.org/draft-07/schema#",
                    "items": [{"type": "string"}]},
        },
    }
    got = {encode(p): d for p, _n, d in iter_schemas(schema)}
    assert got["/properties/old"] == kw.DRAFT7
    assert "/properties/old/items/0" in got


def test_transform_rebuilds_without_mutating():
    schema = {"type": "object", "description": "top",
              "properties": {"description": {"type": "string", "description": "inner"}},
              "enum": [{"description": "kept"}]}
    before = json.dumps(schema)

    def strip(node, _path, _d):
        if isinstance(node, dict):
            return {k: v for k, v in node.items() if not kw.is_prose_key(k)}
        return node

    out = transform(schema, strip)
    assert json.dumps(schema) == before
    assert out == {"type": "object", "properties": {"description": {"type": "string"}},
                   "enum": [{"description": "kept"}]}


def test_dialect_from_uri():
    assert kw.dialect_from_uri("http://json-schema.org/draft-07/schema#") == kw.DRAFT7
    assert kw.dialect_from_uri("http://json-schema.org/draft-04/schema") == kw.DRAFT4
    assert kw.dialect_from_uri("https://json-schema.org/draft/2019-09/schema") == kw.DRAFT2019
    assert kw.dialect_from_uri(None) == kw.DRAFT2020
    assert kw.dialect_from_uri("https://example.com/custom", kw.DRAFT7) == kw.DRAFT7


def test_prose_and_validation_roles_do_not_overlap():
    for d in kw.DIALECTS:
        assert not (kw.validation_keywords(d) & kw.PROSE_KEYWORDS)
    assert kw.is_prose_key("x-anything") and kw.is_prose_key("description")
    assert not kw.is_prose_key("enum") and not kw.is_prose_key("default")


def test_pointer_roundtrip_with_special_characters():
    path = ("properties", "a/b", "c~d", 0, "")
    p = encode(path)
    assert p == "/properties/a~1b/c~0d/0/"
    assert decode(p) == ["properties", "a/b", "c~d", "0", ""]
    doc = {"properties": {"a/b": {"c~d": [{"": 42}]}}}
    assert resolve(doc, decode(p)) == 42


# An independent oracle: a walk written from the JSON Schema 2020-12 spec text, for comparison.
_SUB = {"not", "additionalProperties", "propertyNames", "contains", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"}
_MAP = {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
_LIST = {"allOf", "anyOf", "oneOf", "prefixItems"}


def oracle(node, path=""):
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _SUB and isinstance(v, (dict, bool)):
                out += oracle(v, f"{path}/{k}")
            elif k in _MAP and isinstance(v, dict):
                for name, s in v.items():
                    if isinstance(s, (dict, bool)):
                        n = name.replace("~", "~0").replace("/", "~1")
                        out += oracle(s, f"{path}/{k}/{n}")
            elif k in _LIST and isinstance(v, list):
                for i, s in enumerate(v):
                    if isinstance(s, (dict, bool)):
                        out += oracle(s, f"{path}/{k}/{i}")
    return out


def test_walker_matches_oracle_on_github_snapshots():
    folder = corpus("github-mcp-server")
    n = 0
    for f in sorted(folder.glob("*.snap")):
        tool = json.loads(f.read_text())
        s = tool["inputSchema"]
        assert paths(s) == oracle(s), f.name
        n += 1
    assert n == 117


def test_walker_matches_oracle_on_captures():
    folder = corpus("mcp-context-cost")
    checked = 0
    for f in sorted(folder.glob("*.json")):
        d = json.loads(f.read_text())
        for tool in d.get("rawToolsCapture") or []:
            for key in ("inputSchema", "outputSchema"):
                s = tool.get(key)
                if isinstance(s, dict) and "$schema" not in s:
                    assert paths(s) == oracle(s), (f.name, tool.get("name"), key)
                    checked += 1
    assert checked > 500


schemas = st.recursive(
    st.one_of(st.booleans(), st.just({}), st.builds(lambda t: {"type": t},
                                                    st.sampled_from(["string", "null"]))),
    lambda children: st.one_of(
        st.dictionaries(st.sampled_from(sorted(_SUB | {"description", "enum", "x-a"})), children,
                        max_size=3),
        st.builds(lambda k, m: {k: m}, st.sampled_from(sorted(_MAP)),
                  st.dictionaries(st.sampled_from(["a", "oneOf", "a/b", "~"]), children,
                                  max_size=3)),
        st.builds(lambda k, xs: {k: xs}, st.sampled_from(sorted(_LIST)),
                  st.lists(children, max_size=3)),
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(schemas)
def test_walker_matches_oracle_on_generated_schemas(schema):
    assert paths(schema) == oracle(schema)


@pytest.mark.parametrize("dialect", kw.DIALECTS)
def test_subschemas_of_non_schema_is_empty(dialect):
    assert list(subschemas("string", dialect)) == []
    assert list(subschemas([1, 2], dialect)) == []


def _via_subschemas(node, dialect, path=()):
    out = [(path, dialect)]
    if isinstance(node, dict):
        from toolcat.schema.walker import node_dialect

        d = node_dialect(node, dialect)
        out[0] = (path, d)
        for suffix, child in subschemas(node, d):
            out += _via_subschemas(child, d, path + suffix)
    return out


@settings(max_examples=300, deadline=None)
@given(schemas, st.sampled_from(kw.DIALECTS))
def test_iter_schemas_agrees_with_subschemas(schema, dialect):
    """iter_schemas inlines the subschema table lookup: both must list the same positions."""
    got = [(p, d) for p, _n, d in iter_schemas(schema, dialect)]
    assert got == _via_subschemas(schema, dialect)


def _keys(node):
    return len(node) + 1


@settings(max_examples=300, deadline=None)
@given(schemas, st.sampled_from(kw.DIALECTS))
def test_sum_schemas_is_the_walks_sum_with_shared_parts(schema, dialect):
    """Each shared subtree is added from the memo, kept across calls and dialects: the sums
    are still the plain walk's, where a subtree is visited once per occurrence."""
    def plain(v, d):
        return sum(_keys(n) for _p, n, _d in iter_schemas(v, d) if n.__class__ is dict)

    memo: dict = {}
    shared = {"type": "object", "properties": {"a": schema, "b": schema}}
    values = [schema, shared, {"anyOf": [shared, schema, shared]},
              {"$schema": "http://json-schema.org/draft-07/schema#", "items": shared}]
    for d in (dialect, kw.DRAFT2020):
        for v in values:
            assert sum_schemas(v, _keys, d, memo) == plain(v, d)


def test_sum_schemas_deeper_than_the_recursion():
    deep: object = {"type": "string"}
    for _ in range(5000):
        deep = {"items": deep}
    assert sum_schemas(deep, _keys) == 5000 * 2 + 2
