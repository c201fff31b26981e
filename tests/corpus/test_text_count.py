"""The keyword counts of a schema's JSON text worked out per definitions map and entry
(:func:`toolcat.schema.lower.subset.text_count` inside :func:`text_memo`), and
:func:`toolcat.schema.lower.content_key`'s memo of definitions maps: the tools of an
OpenAPI spec bundle the same maps (Stripe: 467 output schemas, 137 maps), which the standard
view's shortcuts (``fix_patterns``, ``root_referenced``...) serialized whole per tool. The
counts and digests must be the ones of the whole text."""

from __future__ import annotations

import pytest

from support.common import corpus
from support.outside import outside

NEEDLES = (b"\\\\", b"patternProperties", b'"$ref"', b'"$ref":', b'"$ref":"#/',
           b'"$dynamicRef"', b'"$recursiveRef"', b'"$schema"', b'"$id"', b'"$anchor"',
           b'"id"', b'"$defs":', b'"definitions":', b'"type":"string"',
           b'"description":"', b'":')


def _schemas(path):
    import toolcat

    cats = toolcat.load_all([str(path)])
    return [s for c in cats for t in c.tools for s in (t.input_schema, t.output_schema)
            if isinstance(s, dict)]


def _specs():
    return [("stripe", lambda: outside("stripe-spec3-2023-09")),
            ("kubernetes", lambda: outside("kubernetes-swagger")),
            ("box", lambda: corpus("openapi", "box.openapi.json")),
            ("openai", lambda: corpus("openapi", "openai.openapi.yaml"))]


@pytest.mark.parametrize("name,path", _specs(), ids=[n for n, _ in _specs()])
def test_text_count_is_the_whole_texts(name, path) -> None:
    """Every bundled schema of the spec: each needle's count from the parts is its count in
    the whole text, and the maps were counted from parts (remembered by object)."""
    from toolcat.schema.lower import schema_text, text_count, text_memo

    schemas = _schemas(path())
    memo: dict = {}
    split = 0
    with text_memo(memo):
        for s in schemas:
            count = text_count(s)
            whole = schema_text(s)
            assert (count is None) == (whole is None)
            if whole is None:
                continue
            for needle in NEEDLES:
                assert count(needle) == whole.count(needle), (name, needle)
            defs = s.get("$defs", s.get("definitions"))
            if isinstance(defs, dict) and defs and id(defs) in memo:
                split += 1
    assert split > 20, split
    with pytest.raises(ValueError):
        with text_memo(memo):
            next(text_count(s) for s in schemas if id(s.get("$defs")) in memo)(b"{")


def test_text_count_edges() -> None:
    """Names and strings holding the needles, braces in strings, an entry that is not an
    object (the whole text then), a map another schema holds too."""
    from toolcat.schema.lower import schema_text, text_count, text_memo

    defs = {"$ref": {"$ref": "#/$defs/x", "description": "a } and a \"$ref\": {"},
            "x": {"pattern": "\\d{2}", "enum": ["\"$schema\"", "}\"$id\""]},
            "$schema": {}}
    schemas = [{"$ref": "#/$defs/$ref", "$defs": defs},
               {"$defs": defs, "$schema": "https://json-schema.org/draft/2020-12/schema"},
               {"$defs": {"a": True, "b": {"$ref": "#/$defs/a"}}},
               {"definitions": {"$defs": {"$id": "x"}}, "$defs": {}}]
    memo: dict = {}
    with text_memo(memo):
        for s in schemas:
            count = text_count(s)
            whole = schema_text(s)
            for needle in NEEDLES:
                assert count(needle) == whole.count(needle), (s, needle)
    assert id(defs) in memo


def test_content_key_remembers_maps() -> None:
    """Stripe's output schemas: digested with a memo that already holds their maps, each
    has the digest a fresh memo gives, and a map met again is not digested again."""
    from toolcat.schema.lower import content_key

    schemas = [s for s in _schemas(outside("stripe-spec3-2023-09")) if "$defs" in s]
    warm: dict = {}
    for s in schemas:
        assert content_key(s, warm) == content_key(s, {})
    maps = {id(s["$defs"]) for s in schemas}
    assert len(maps) < len(schemas) // 2
    assert sum(1 for k in warm if isinstance(k, tuple) and k[0] == "map") == len(maps)
