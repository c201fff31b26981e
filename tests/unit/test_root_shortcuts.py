"""The text shortcuts of the root checks (issue 17: they skip a RefIndex per tool) answer as
the RefIndex does: `root_referenced` and `root_atoms` on hand-made schemas that reach the
root in each way a reference can, and on every schema of the samples and a corpus folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolcat.features.project import roots
from toolcat.schema.lower import subset
from toolcat.schema.refs import RefIndex

D7 = "http://json-schema.org/draft-07/schema#"
D4 = "http://json-schema.org/draft-04/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"
D2019 = "https://json-schema.org/draft/2019-09/schema"

HAND = [
    {"$ref": "#"},
    {"properties": {"a": {"$ref": "#"}}},
    {"properties": {"a": {"$ref": ""}}},
    {"properties": {"a": {"$ref": "#/"}}, "": {"type": "string"}},
    {"$id": "https://x.example/s", "properties": {"a": {"$ref": "https://x.example/s"}}},
    {"$id": "https://x.example/s", "properties": {"a": {"$ref": "s"}}},
    {"$anchor": "top", "properties": {"a": {"$ref": "#top"}}},
    {"$schema": D7, "$id": "#top", "properties": {"a": {"$ref": "#top"}}},
    {"$schema": D4, "id": "#top", "properties": {"a": {"$ref": "#top"}}},
    {"$schema": D2020, "$dynamicAnchor": "n", "properties": {"a": {"$dynamicRef": "#n"}}},
    {"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#"}}},
    {"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}},
    {"properties": {"a": {"$ref": "#/%24defs/x"}}, "$defs": {"x": {"type": "string"}}},
    {"$ref": "#/$defs/x", "$defs": {"x": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/y"}]},
                                    "y": {"type": "integer"}}},
    {"$ref": "#/$defs/x", "$defs": {"x": {"$schema": D7, "type": "array"}}},
    {"$ref": "#/$defs/x", "$defs": {"x": {"$id": "https://y.example/", "$ref": "#/$defs/z",
                                          "$defs": {"z": {"type": "boolean"}}},
                                    "z": {"type": "object"}}},
    {"$ref": "#/x-data/0", "x-data": [{"type": "null"}]},
    {"$ref": "#/$defs/missing"},
    {"allOf": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"enum": [1, "x"]}}},
    {"properties": {"$ref": {"type": "string"}}},
    {"properties": {"a": {"const": {"$ref": "#"}}}},
    # anchors name nodes for "#name", $dynamicRef and $recursiveRef, never a base: the
    # "#/..." references beside them resolve from the root (openai's CompoundFilter); a
    # dynamic key is one in its own dialect only
    {"$schema": D2020, "$recursiveAnchor": True, "type": ["object", "array"], "properties": {
        "f": {"items": {"anyOf": [{"$ref": "#/$defs/c"}, {"$recursiveRef": "#"}]}}},
     "$defs": {"c": {"type": "string"}}},
    {"$schema": D2019, "$recursiveAnchor": True, "type": ["object", "array"], "properties": {
        "f": {"items": {"anyOf": [{"$ref": "#/$defs/c"}, {"$recursiveRef": "#"}]}}},
     "$defs": {"c": {"type": "string"}}},
    {"$schema": D2019, "$dynamicAnchor": "n", "properties": {"a": {"$dynamicRef": "#n"}}},
    {"$schema": D2020, "properties": {"a": {"$schema": D2019, "$recursiveAnchor": True,
                                            "items": {"$recursiveRef": "#"}}}},
    {"$ref": "#/$defs/x", "$defs": {"x": {"$anchor": "xa", "anyOf": [
        {"type": "string"}, {"$ref": "#/$defs/y"}]}, "y": {"$dynamicAnchor": "d", "type": "integer"}}},
    {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#xa"}],
     "$defs": {"a": {"$recursiveAnchor": True, "enum": [1, "x", None]},
               "b": {"$anchor": "xa", "type": ["integer", "null"]}}},
    {"$schema": D4, "properties": {"id": {"$ref": "#/definitions/a"}},
     "definitions": {"a": {"id": "https://z.example/", "type": "string"}}},
]


def _full_referenced(schema, d):
    idx = RefIndex(schema, d)
    return idx.dynamic or any(i.target == () for i in idx.refs.values())


def _schemas():
    out = list(HAND)
    from toolcat.api import load

    samples = Path(__file__).resolve().parents[2] / "samples"
    files = sorted(samples.glob("*.json")) + sorted(samples.glob("*.yaml"))
    shared = Path(os.environ.get("TOOLCAT_SHARED", samples.parents[1] / "shared")) / "corpus"
    if (shared / "openapi").is_dir():
        files += [p for p in sorted((shared / "openapi").glob("*.yaml"))
                  if p.stat().st_size < 400_000][:6]
    for f in files:
        try:
            cat = load(f)
        except Exception:   # noqa: BLE001 - the broken samples
            continue
        for t in cat.tools:
            for s in (t.input_schema, t.output_schema):
                if isinstance(s, dict):
                    out.append(s)
    return out


@pytest.mark.parametrize("dialect", ["draft7", "2020-12", "draft4"])
def test_shortcuts_agree_with_the_index(dialect):
    schemas = _schemas()
    assert len(schemas) > 40
    took_shortcut = 0
    for s in schemas:
        d = roots.node_dialect(s, dialect)
        assert subset.root_referenced(s, d) == _full_referenced(s, d), s
        took_shortcut += subset.no_root_refs_by_text(s)
        full: list = []
        # root_atoms through the index (the shortcut disabled) and through the shortcut
        orig = roots._plain_pointers
        roots._plain_pointers = lambda *_a: None
        try:
            want = roots.root_atoms(s, d, full)
        finally:
            roots._plain_pointers = orig
        assert roots.root_atoms(s, d) == want, s
    assert took_shortcut > 10


def test_the_shortcut_declines_where_a_reference_reaches_the_root():
    reached = [s for s in HAND if _full_referenced(s, roots.node_dialect(s, "2020-12"))]
    assert len(reached) >= 8      # "#", "", the root's $id, anchors, a dynamic reference...
    for s in reached:
        assert not subset.no_root_refs_by_text(s), s
    assert subset.no_root_refs_by_text(HAND[3])       # "#/" names the member "", not the root
    assert roots._plain_pointers(HAND[14], "2020-12") is None     # a nested $schema
    assert roots._plain_pointers(HAND[15], "2020-12") is None     # an embedded $id
    assert roots._plain_pointers(HAND[-1], "draft4") is None      # draft-04 `id`
    assert roots._plain_pointers(HAND[13], "2020-12") == "2020-12"
    assert roots._plain_pointers(HAND[-7], "2020-12") == "2020-12"   # anchors beside "#/..."
    assert roots._plain_pointers(HAND[-3], "2020-12") == "2020-12"
    # a $recursiveRef in a 2020-12 schema is no reference, one in 2019-09 is (dynamic)
    assert subset.no_root_refs_by_text(HAND[-7], "2020-12")
    assert not subset.no_root_refs_by_text(HAND[-7])
    assert not subset.no_root_refs_by_text(HAND[-6], "2020-12")
    assert subset.root_referenced(HAND[-6], "2020-12")
    assert subset.no_root_refs_by_text(HAND[-5], "2020-12")           # $dynamicRef in 2019-09
    assert not subset.no_root_refs_by_text(HAND[-4], "2020-12")       # a nested $schema
