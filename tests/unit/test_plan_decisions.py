"""A reference plan decides once per distinct (target, reference text, dialect): the
bundled definitions of an OpenAPI tool point at the same targets from many places (issue
35). Each reference's decision is still the one :meth:`RefPlan.decide` gives it; where
readers dispute a reference, and in widen mode (which keeps a reason by path), each is
decided on its own."""

from __future__ import annotations

import pytest

from support.common import SAMPLES, corpus_param
from toolcat.api import load_all
from toolcat.schema.keywords import DRAFT7, DRAFT2020
from toolcat.schema.lower.plan import RefPlan

CORPUS = [SAMPLES / "petstore.openapi.yaml", SAMPLES / "petstore-v31.openapi.json",
          corpus_param("openapi", "slack-web-api.swagger2.json"),
          corpus_param("openapi", "box.openapi.json"),
          corpus_param("openapi", "openai.openapi.yaml")]

HANDMADE: list[tuple[dict, str]] = [
    # one target from many places, written two ways
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "#/$defs/n"},
                                       "c": {"items": {"$ref": "#/%24defs/n"}}},
      "$defs": {"n": {"type": "integer", "minimum": 0}}}, DRAFT2020),
    # a target in another dialect than some of its references
    ({"type": "object", "properties": {
        "a": {"$ref": "#/$defs/n"},
        "b": {"$schema": "http://json-schema.org/draft-07/schema#",
              "properties": {"c": {"$ref": "#/$defs/n"}}}},
      "$defs": {"n": {"type": "string", "maxLength": 9}}}, DRAFT2020),
    # draft-07 references with siblings (disputed) beside plain ones
    ({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {
        "a": {"$ref": "#/definitions/d", "maxLength": 3}, "b": {"$ref": "#/definitions/d"},
        "c": {"$ref": "#/definitions/d"}}, "definitions": {"d": {"type": "string"}}}, DRAFT7),
]


def _schemas() -> list[tuple[dict, str]]:
    out = list(HANDMADE)
    for p in CORPUS:
        p = getattr(p, "values", (p,))[0]
        if p.exists():
            for cat in load_all([str(p)]):
                out.extend((t.input_schema, t.dialect) for t in cat.tools
                           if isinstance(t.input_schema, dict))
    return out


#: the corpus' specs are here (../shared): the counts below hold for them; without them the
#: samples and the handmade schemas are checked alike, on fewer references
WHOLE = all(getattr(p, "values", (p,))[0].exists() for p in CORPUS)


@pytest.mark.parametrize("widen", [False, True])
def test_plan_decides_once_per_target_reference_and_dialect(monkeypatch, widen):
    calls = []
    real = RefPlan.decide
    monkeypatch.setattr(RefPlan, "decide", lambda self, info: calls.append(info) or
                        real(self, info))
    n = fewer = 0
    for schema, dialect in _schemas():
        if not isinstance(schema, dict):
            continue
        calls.clear()
        p = RefPlan(schema, dialect, widen=widen, inline="all" if widen else "smaller")
        idx = p.idx
        # each reference's own decision, as the plan took it
        for path, info in idx.refs.items():
            assert p.decisions[path] is real(p, info)
        distinct = {(i.target, i.ref, idx.dialect_at(path)) for path, i in idx.refs.items()
                    if i.target is not None and path not in p.disputed}
        loose = sum(1 for path, i in idx.refs.items()
                    if i.target is None or path in p.disputed)
        if widen:
            assert len(calls) == len(idx.refs)
        else:
            assert len(calls) == len(distinct) + loose
            fewer += len(idx.refs) - len(calls)
        n += len(idx.refs)
    assert n >= (100 if WHOLE else 10)
    assert widen or fewer >= (20 if WHOLE else 3)


def _live_long_way(plan: RefPlan) -> set[tuple]:
    """RefPlan.live_refs with the innermost definition found by trying every prefix."""
    idx = plan.idx
    entries = {q + (key, name) for q in idx.defs_at for key in ("$defs", "definitions")
               if isinstance(idx.node(q), dict) and isinstance(idx.node(q).get(key), dict)
               for name in idx.node(q)[key]}
    targets, extra = plan.ref_targets()
    if not entries:
        return set(targets)

    def region(p):
        return next((p[:i] for i in range(len(p), 1, -1) if p[:i] in entries), None)

    live: set = set()
    done: set = set()
    pending = [p for p in targets if region(p) is None]
    while pending:
        p = pending.pop()
        if p in live:
            continue
        live.add(p)
        for to in (targets[p], extra.get(p)):
            for i in range(len(to or ()), 1, -1):
                if to[:i] in entries and to[:i] not in done:
                    done.add(to[:i])
                    pending.extend(q for q in targets if region(q) == to[:i])
    return live


NESTED: list[tuple[dict, str]] = [
    # definitions inside a definition (entries four tokens long), one used only from there
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/o"}},
      "$defs": {"o": {"$defs": {"i": {"type": "string"}, "dead": {"$ref": "#/$defs/x"}},
                      "properties": {"v": {"$ref": "#/$defs/o/$defs/i"}}},
                "x": {"type": "integer"}, "y": {"$ref": "#/$defs/x"}}}, DRAFT2020),
]


def test_live_references_are_the_long_ways():
    n = 0
    for schema, dialect in _schemas() + NESTED:
        if not isinstance(schema, dict):
            continue
        p = RefPlan(schema, dialect, widen=False, inline="smaller")
        if p.may_drop_defs:
            assert p.live == _live_long_way(p)
            n += 1
    assert n >= (20 if WHOLE else 2)
