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
