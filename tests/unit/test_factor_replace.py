"""`factor._replace` rebuilds a schema only along the paths to the nodes it replaces (issue
17: `_factor_once` and `_inline_unpaid` rebuilt every tool's whole bundled graph through
`transform` to change a few nodes): the result equals, as JSON, the bottom-up `transform`
whose hook changes exactly those paths (nested ones included: a hook sees the replacements
below it), the input is not changed, and every subtree off those paths is the input's own
object. `factor_schema` gives the same schemas and definitions with a `transform`-based
`_replace` on the samples and the OpenAPI corpus."""

from __future__ import annotations

import random

import pytest

from support.common import CORPUS as CORPUS_DIR
from support.common import SAMPLES, corpus, corpus_param, lowered_schemas
from toolcat.document.canonical import dumps
from toolcat.schema import factor
from toolcat.schema.keywords import DRAFT2020
from toolcat.schema.walker import iter_schemas, transform


def _by_transform(root, at, hook, dialect=DRAFT2020):
    return transform(root, lambda n, p, _d: hook(n, p) if p in at else n, dialect)


def _hook(node, path):
    # the replacement records what it saw below it (the nested replacements must be made)
    return {"seen": dumps(node).decode(), "at": list(map(str, path))}


SCHEMA = {"type": "object", "properties": {
    "a": {"type": "object", "properties": {"b": {"type": "string"}, "c": {"anyOf": [
        {"type": "integer"}, {"type": "object", "properties": {"d": {"type": "null"}}}]}}},
    "e": {"type": "array", "items": {"type": "string", "maxLength": 3}},
    "f": {"type": "boolean"}}, "$defs": {"g": {"type": "number"}}}


@pytest.mark.parametrize("paths", [
    [],
    [("properties", "a")],
    [("properties", "a"), ("properties", "a", "properties", "c", "anyOf", 1)],
    [("properties", "a", "properties", "c", "anyOf", 1, "properties", "d"),
     ("properties", "a", "properties", "c"), ("properties", "e", "items"), ("$defs", "g")],
    [()],
    [(), ("properties", "f")],
])
def test_against_transform(paths):
    before = dumps(SCHEMA)
    at = dict.fromkeys(paths)
    got = factor._replace(SCHEMA, at, _hook)
    assert dumps(got) == dumps(_by_transform(SCHEMA, at, _hook))
    assert dumps(SCHEMA) == before
    # untouched subtrees are shared; nodes on a path to a replacement are copies
    if ("properties", "e", "items") not in at and () not in at:
        assert got["properties"]["e"] is SCHEMA["properties"]["e"]
    if paths and () not in at:
        assert got is not SCHEMA and got["properties"] is not SCHEMA["properties"]


CORPUS = [SAMPLES / "petstore.openapi.yaml", SAMPLES / "petstore-v31.openapi.json",
          corpus_param("openapi", "oai-uspto.openapi.yaml"),
          corpus_param("openapi", "slack-web-api.swagger2.json"),
          corpus_param("openapi", "sendgrid-v3.swagger2.yaml")]
PATHS = [getattr(p, "values", (p,))[0] for p in CORPUS]


def _all_corpus() -> list:
    """Every path of CORPUS; the test is skipped with the reason where one is absent (its
    thresholds count the corpus specs' definitions)."""
    return [corpus(*p.parts[-2:]) if p.is_relative_to(CORPUS_DIR) else p for p in PATHS]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_random_paths_on_corpus(path):
    if not path.exists():
        pytest.skip("no corpus")
    rng = random.Random(17)
    n = 0
    for schema, dialect in lowered_schemas(path):
        paths = [p for p, node, _d in iter_schemas(schema, dialect) if isinstance(node, dict)]
        if len(paths) < 3:
            continue
        before = dumps(schema)
        at = dict.fromkeys(rng.sample(paths, min(len(paths), rng.randint(1, 6))))
        got = factor._replace(schema, at, _hook)
        assert dumps(got) == dumps(_by_transform(schema, at, _hook, dialect))
        assert dumps(schema) == before
        n += 1
    assert n


def test_factor_schema_same_as_with_transform(monkeypatch):
    schemas = [x for path in _all_corpus() for x in lowered_schemas(path)]
    fast = [factor.factor_schema(s, d) for s, d in schemas]
    monkeypatch.setattr(factor, "_replace",
                        lambda root, at, hook: _by_transform(root, at, hook))
    slow = [factor.factor_schema(s, d) for s, d in schemas]
    assert sum(len(f.defs) for f in slow) >= 10, "things are factored"
    for f, s in zip(fast, slow):
        assert f.defs == s.defs
        assert dumps(f.schema) == dumps(s.schema)


def test_definition_counts_from_the_last_walk():
    # factor_schema takes the reference counts it reports from the walk of its last round
    # (which changed nothing) instead of walking the result again: they are the result's
    schemas = [x for path in _all_corpus() for x in lowered_schemas(path)]
    n = 0
    for schema, dialect in schemas:
        f = factor.factor_schema(schema, dialect)
        for container, name, count, _first in f.defs:
            want = factor._ref_counts(f.schema, dialect, "#/" + container + "/").get(name, 0)
            assert count == want, name
            n += 1
    assert n >= 10
