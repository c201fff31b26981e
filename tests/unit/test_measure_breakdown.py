"""The byte breakdown and schema sizes that measure sums, a chunk of tools at a time, with
memos that make each shared object (an OpenAPI spec's bundled definitions) cost its size
once: the same numbers as serializing and walking every tool's schemas in full."""

from __future__ import annotations

import pytest

from support.common import corpus
from toolcat.api import load_all
from toolcat.document.canonical import dumps
from toolcat.features.measure import _Breakdown
from toolcat.features.project import options_from_cli, project_catalogs
from toolcat.formats import targets as tg
from toolcat.schema.keywords import is_prose_key
from toolcat.schema.walker import iter_schemas


def _entry(node, key):
    n = len(dumps(key)) + 1 + len(dumps(node[key]))
    return n + 1 if len(node) > 1 else n


def _plain(items, envelope, dialects):
    """The breakdown's figures with every schema serialized and walked whole."""
    desc = prose = schema = 0
    sizes = {"input": 0, "output": 0}
    for item, d in zip(items, dialects):
        body = envelope.body(item)
        if "description" in body:
            desc += _entry(body, "description")
        for side, k in zip(("input", "output"), envelope.schema_fields):
            if k in body:
                schema += len(dumps(body[k]))
                sizes[side] += len(dumps(body[k]))
                prose += sum(_entry(n, key) for _p, n, _d in iter_schemas(body[k], d)
                             if n.__class__ is dict for key in n if is_prose_key(key))
    total = len(dumps(items))
    return {"descriptions": desc, "schema_prose": prose, "schema_shape": schema - prose,
            "other": total - desc - schema}, sizes


@pytest.mark.parametrize("name", ["box.openapi.json", "openai.openapi.yaml"])
def test_breakdown_in_chunks_is_the_plain_one(name):
    cats = load_all([str(corpus("openapi", name))])
    proj = project_catalogs(cats, options_from_cli(to="mcp"))
    envelope = tg.get(proj.target) if isinstance(proj.target, str) else proj.target
    dialects = [t.dialect for c in cats for t in c.tools]
    parts = _Breakdown()       # one for the catalog: its memos are kept across the chunks
    for view in ("standard", "descriptor"):
        items = [getattr(t, view) for t in proj.tools]
        assert any(envelope.output_field in envelope.body(i) for i in items)
        half = len(items) // 2
        for lo, hi in ((0, half), (half, len(items)), (0, len(items))):
            chunk, ds = items[lo:hi], dialects[lo:hi]
            want, sizes = _plain(chunk, envelope, ds)
            assert parts.split(chunk, envelope.name, ds, len(dumps(chunk))) == want
            assert parts.schema_sizes(envelope, chunk) == sizes


def _plain_prose(schema, dialect):
    return sum(_entry(n, key) for _p, n, _d in iter_schemas(schema, dialect)
               if n.__class__ is dict for key in n if is_prose_key(key))


def test_prose_of_shared_definitions_maps_is_the_plain_walk():
    """A definitions map the tools share is added up once per map and each entry once: the
    same bytes as the plain walk, whether the map is a subschema position in the dialect
    (``$defs`` is not in draft-07: its prose is not schema prose there), whatever else the
    root holds (its own prose and the comma before its definitions), an entry in two maps,
    one map under two dialects."""
    from toolcat.features.measure import schema_prose_bytes
    from toolcat.schema.keywords import DRAFT7, DRAFT2020

    one = {"description": "an entry", "properties": {"a": {"title": "A", "type": "string"}}}
    two = {"type": "object", "properties": {"b": {"$ref": "#/$defs/one",
                                                  "description": "b"}}}
    shared = {"one": one, "two": two}
    other = {"two": two, "three": {"examples": [1], "x-note": "é"}}
    roots = [
        {"description": "root", "$defs": shared},
        {"$defs": shared},
        {"type": "object", "$defs": shared, "definitions": other},
        {"$defs": other, "title": "t", "properties": {"p": {"description": "p"}}},
        {"definitions": shared, "$comment": "c"},
        {"$schema": "http://json-schema.org/draft-07/schema#", "$defs": shared,
         "definitions": other},
        {"$defs": {"bad": True, "one": one}},
    ]
    for dialect in (DRAFT2020, DRAFT7):
        memo: dict = {}
        for _round in range(2):     # (the second time from the memo)
            for root in roots:
                assert schema_prose_bytes(root, dialect, memo=memo) == \
                    _plain_prose(root, dialect), (root, dialect)
