"""Shortcuts of lowering and factoring that must give what the long way gives (issue 35):

* :class:`RefIndex` walks the root without looking up parents' base URIs when no ``$id`` (nor
  an ``id`` read as draft-04's) occurs in the schema's text (``_walk_flat``);
* :meth:`RefPlan.other_readers` skips the walk in the other dialect when every ``"$ref"`` key
  of the schema's text is an indexed reference (``RefIndex.ref_keys``);
* :meth:`RefPlan.smaller` takes a target's size from a memo by content (``content_sizes``);
* ``factor._factor_once`` marks the nodes inside a replaced copy by pre-order position, and
  works out a candidate's name only when the shortest name would let it pay; it tells when
  another round would find nothing (``last``), and ``factor_schema`` then stops;
* :meth:`Lowerer.unchanged` tells, without rebuilding the schema, that the re-lowering after
  factoring would give it back as it is (``pipeline._factor_rounds`` then stops); with a memo
  of the subtrees found clean by content (``LowerCache.clean``) it skips those met again;
* ``refs._scan`` looks for the markers in an order and leaves the ``"$...`` ones out when the
  text has no ``"$``; ``strip.strip_node`` returns a node whose keys are all known keywords
  as it is; ``pointer.encode`` joins the tokens and escapes only where one needs it;
* ``describe.collapse`` joins ``str.split()`` instead of a ``\\s+`` substitution.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

from support.common import SAMPLES, corpus_param, lowered_schemas
from toolcat.document import pointer
from toolcat.document.canonical import dumps
from toolcat.features.project import describe
from toolcat.schema import factor, refs, strip
from toolcat.schema.keywords import DRAFT7, DRAFT2020, is_prose_key
from toolcat.schema.lower import lower_schema
from toolcat.schema.lower.plan import RefPlan
from toolcat.schema.lower.rewrite import Lowerer
from toolcat.schema.walker import iter_schemas, transform

CORPUS = [SAMPLES / "petstore.openapi.yaml", SAMPLES / "petstore-v31.openapi.json",
          corpus_param("openapi", "oai-uspto.openapi.yaml"),
          corpus_param("openapi", "slack-web-api.swagger2.json"),
          corpus_param("openapi", "box.openapi.json")]

HANDMADE: list[tuple[dict, str]] = [
    # ids that change the base URI (no shortcut), relative refs against them
    ({"$id": "https://x.test/root.json", "type": "object", "properties": {
        "a": {"$id": "sub/a.json", "$defs": {"n": {"type": "integer"}},
              "properties": {"v": {"$ref": "#/$defs/n"}}},
        "b": {"$ref": "sub/a.json#/$defs/n"}}}, DRAFT2020),
    # draft-04 `id` below the root
    ({"$schema": "http://json-schema.org/draft-04/schema#", "properties": {
        "a": {"id": "http://y.test/a", "definitions": {"d": {"type": "string"}},
              "properties": {"x": {"$ref": "#/definitions/d"}}}}}, DRAFT7),
    # a property called "id" in 2020-12 (no base change: the shortcut applies)
    ({"type": "object", "properties": {"id": {"$ref": "#/$defs/i"}},
      "$defs": {"i": {"type": "string", "minLength": 1}}}, DRAFT2020),
    # a `$ref` only a draft-07 reader follows (`dependencies`), and a property named "$ref"
    ({"type": "object", "dependencies": {"a": {"$ref": "#/$defs/x"}},
      "properties": {"$ref": {"type": "string"}, "y": {"$ref": "#/$defs/x"}},
      "$defs": {"x": {"type": "object", "required": ["b"]}}}, DRAFT2020),
    # a 2020-12 `$ref` in `prefixItems` that a draft-07 reading of the same schema misses,
    # and a draft-07 schema whose tuple `items` a 2020-12 reader reads as one schema
    ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
      "items": [{"$ref": "#/definitions/p"}], "additionalItems": {"$ref": "#/definitions/p"},
      "definitions": {"p": {"type": "integer", "minimum": 0}}}, DRAFT7),
]


def _schemas(counted: bool = False) -> list[tuple[dict, str]]:
    """The handmade schemas and the lowered ones of :data:`CORPUS`; ``counted``: the test
    counts how often a shortcut is taken on them, which takes the corpus' (skipped, with the
    reason, where ../shared is absent)."""
    if counted:
        for p in CORPUS:
            for m in getattr(p, "marks", ()):
                if m.name == "skip":
                    pytest.skip(m.kwargs.get("reason", "the corpus is absent"))
    out = list(HANDMADE)
    for p in CORPUS:
        path = getattr(p, "values", (p,))[0]
        if path.exists():
            out.extend(lowered_schemas(path))
    return out


def _index_state(idx: refs.RefIndex) -> tuple:
    return (list(idx.nodes), [(p, id(n), d) for p, (n, d) in idx.nodes.items()], idx.base,
            idx.walk_of, idx.defs_at,
            {p: (i.ref, i.target, i.problem) for p, i in idx.refs.items()}, idx.cyclic,
            idx.reaches_cycle, idx.anchors, idx.resources, idx.identifiers_at,
            idx.embedded_ids)


def test_flat_walk_gives_the_index_of_the_full_walk(monkeypatch):
    schemas = _schemas(counted=True)
    fast = [_index_state(refs.RefIndex(s, d)) for s, d in schemas]
    flats = sum(1 for s, d in schemas if refs._scan(s, d)[2] and not refs._scan(s, d)[0])
    scan = refs._scan
    monkeypatch.setattr(refs, "_scan", lambda root, d: (*scan(root, d)[:2], False))
    slow = [_index_state(refs.RefIndex(s, d)) for s, d in schemas]
    assert flats >= 10, "the shortcut is taken"
    for (s, _d), a, b in zip(schemas, fast, slow):
        assert a == b, dumps(s)[:200]


def test_no_flat_walk_where_an_id_changes_the_base():
    for schema, dialect in HANDMADE[:2]:
        assert not refs._scan(schema, dialect)[2]
    assert refs._scan(*HANDMADE[2])[2]


def _readers(plan: RefPlan) -> tuple:
    foreign, disputed, lost = plan.other_readers()
    return foreign, disputed, lost


def test_other_readers_shortcut_agrees_with_the_walk():
    n_short = 0
    for schema, dialect in _schemas(counted=True):
        plan = RefPlan(schema, dialect, widen=False, inline="smaller")
        got = _readers(plan)
        short = plan.idx.ref_keys is not None and plan.idx.ref_keys == len(plan.idx.refs)
        n_short += short
        plan.idx.ref_keys = None           # the walk, always
        assert _readers(plan) == got, dumps(schema)[:200]
    assert n_short >= 10


def test_other_readers_walks_where_a_ref_is_not_indexed():
    schema, dialect = HANDMADE[3]
    plan = RefPlan(schema, dialect, widen=False, inline="smaller")
    # `dependencies` is no 2020-12 keyword: its $ref is not indexed, a draft-07 reader follows it
    assert plan.idx.ref_keys == 3 and len(plan.idx.refs) == 1
    assert plan.foreign == {("dependencies", "a"): ("$defs", "x")}


def _decisions(schema: dict, dialect: str, memo: dict | None) -> dict:
    plan = RefPlan(schema, dialect, widen=False, inline="smaller", content_sizes=memo)
    for info in plan.idx.refs.values():
        if info.target is not None:
            plan.smaller(info)
    return {"decisions": plan.decisions, "sizes": plan._sizes}


def test_sizes_by_content_are_the_sizes():
    schemas = _schemas(counted=True)
    memo: dict = {}
    # each schema twice, the second time a copy (new objects, the same contents): the memo
    # answers for it
    with_memo = [_decisions(s, d, memo) for s, d in schemas]
    again = [_decisions(_copy(s), d, memo) for s, d in schemas]
    without = [_decisions(s, d, None) for s, d in schemas]
    assert len(memo) >= 10
    assert with_memo == without
    assert again == without


def _copy(value):
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _expand(schema: dict, dialect: str, container: str, names: set[str]) -> dict:
    """``schema`` with every reference to one of ``names`` replaced by its body (recursively)
    and those definitions gone."""
    defs = schema.get(container, {})
    base = "#/" + container + "/"

    def hook(node, _path, _d):
        if isinstance(node, dict) and len(node) == 1 and isinstance(node.get("$ref"), str) \
                and node["$ref"].startswith(base) and node["$ref"][len(base):] in names:
            return transform(defs[node["$ref"][len(base):]], hook, dialect)
        return node

    out = transform(schema, hook, dialect)
    if container in out:
        out = dict(out)
        out[container] = {k: v for k, v in out[container].items() if k not in names}
    return out


def test_factoring_expands_back_to_its_input():
    n = 0
    for schema, dialect in _schemas(counted=True):
        f = factor.factor_schema(schema, dialect)
        if not f.defs:
            continue
        container = f.defs[0][0]
        names = {name for _c, name, _k, _first in f.defs}
        back = _expand(f.schema, dialect, container, names)
        if container not in schema and not back.get(container):
            back = {k: v for k, v in back.items() if k != container}
        assert dumps(back) == dumps(schema)
        # every new definition is used, and no copy of it is left inside another one
        counts = factor._ref_counts(f.schema, dialect, "#/" + container + "/")
        for _c, name, count, _first in f.defs:
            assert count == counts.get(name, 0) >= 1
        n += 1
    assert n >= 10


def test_factoring_nested_copies():
    # copies inside copies: the inner ones inside a replaced outer copy are gone with it, the
    # one inside the outer definition and the one outside it are factored together
    inner = {"type": "object", "properties": {"street": {"type": "string", "maxLength": 80},
                                              "city": {"type": "string", "maxLength": 80}}}
    outer = {"type": "object", "properties": {"home": inner, "work": inner,
                                              "note": {"type": "string", "maxLength": 500}}}
    schema = {"type": "object", "properties": {"a": outer, "b": outer, "c": outer,
                                               "d": inner, "e": {"items": inner}}}
    f = factor.factor_schema(schema, DRAFT2020)
    counts = {name: count for _c, name, count, _first in f.defs}
    # outer: 3 copies; inner: home and work of the first outer copy, d and e's items (the
    # ones in b's and c's copies went with them)
    assert counts == {"a": 3, "home": 4}
    back = _expand(f.schema, DRAFT2020, "$defs", set(counts))
    assert dumps({k: v for k, v in back.items() if k != "$defs"}) == dumps(schema)
    # the copies of `inner` left are the definitions' own: one in $defs/home, none elsewhere
    bodies = [p for p, node, _d in iter_schemas(f.schema) if node == inner]
    assert bodies == [("$defs", "home")]


# a definition that pays with the two references the lowering saw has one left once the
# repeated subtree that held both is factored: the re-lowering inlines it (not unchanged)
_SIDE = {"type": "object", "properties": {"p": {"$ref": "#/$defs/big"},
                                          "r": {"type": "string", "maxLength": 70}}}
_SHARED_TWICE = {"type": "object", "properties": {"x": _SIDE, "y": dict(_SIDE)},
                 "$defs": {"big": {"type": "object", "properties": {
                     "street": {"type": "string", "maxLength": 80},
                     "city": {"type": "string", "maxLength": 80}}}}}


def _relowered_cases() -> list[tuple]:
    """Each lowered schema as it is and factored (what _factor_rounds lowers again)."""
    cases = []
    for schema, dialect in _schemas() + [(_SHARED_TWICE, DRAFT2020)]:
        cases.append((schema, dialect))
        f = factor.factor_schema(schema, dialect)
        if f.defs:
            cases.append((f.schema, dialect))
    return cases


def test_unchanged_is_what_the_relowering_gives():
    # each lowered schema, factored (what _factor_rounds lowers again), and as it is: where
    # unchanged() says so, the lowering gives the schema back and reports nothing
    cases = _relowered_cases()
    said = {True: 0, False: 0}
    for schema, dialect in cases:
        low = Lowerer(schema, dialect, widen=False, inline="smaller", pointer="/inputSchema")
        same = low.unchanged()
        said[same] += 1
        got = lower_schema(schema, dialect, pointer="/inputSchema", drop_schema=False)
        # the plan it leaves lowers as a fresh one does
        reused = lower_schema(schema, dialect, pointer="/inputSchema", drop_schema=False,
                              lowerer=low)
        assert dumps(reused.schema) == dumps(got.schema) and reused.changes == got.changes
        if same:
            assert dumps(got.schema) == dumps(schema)
            assert got.changes == [] and got.prose_removed == 0
    assert said[True] >= 10 and said[False] >= 10


def test_unchanged_is_false_where_the_relowering_inlines():
    f = factor.factor_schema(_SHARED_TWICE, DRAFT2020)
    assert [name for _c, name, _n, _first in f.defs] == ["x"]
    low = Lowerer(f.schema, DRAFT2020, widen=False, inline="smaller", pointer="")
    assert not low.unchanged()
    again = lower_schema(f.schema, DRAFT2020, drop_schema=False)
    assert dumps(again.schema) != dumps(f.schema)
    assert any("inlined $ref '#/$defs/big'" in c.what for c in again.changes)
    # prose, a no-op, an allOf: the hook changes the node
    for schema in ({"type": "object", "description": "d"},
                   {"type": "object", "properties": {"a": {"type": "string", "minLength": 0}}},
                   {"type": "object", "allOf": [{"required": ["a"]}]}):
        assert not Lowerer(schema, DRAFT2020, widen=False, inline="smaller",
                           pointer="").unchanged()
        assert lower_schema(schema, DRAFT2020, drop_schema=False).changes


def test_unchanged_with_the_clean_memo_is_unchanged(monkeypatch):
    # one memo for all the cases, in order and then backwards: the same verdicts as without
    cases = _relowered_cases()
    clean: dict = {}

    def verdicts(memo: dict | None) -> list[bool]:
        return [Lowerer(s, d, widen=False, inline="smaller", pointer="",
                        clean=memo).unchanged() for s, d in cases]

    want = verdicts(None)
    assert verdicts(clean) == want and clean
    assert verdicts(clean)[::-1] == verdicts(None)[::-1]
    # and the lowering itself (run() puts an equal subtree in place as it is)
    for schema, dialect in cases:
        fresh = lower_schema(schema, dialect, pointer="/inputSchema", drop_schema=False)
        low = Lowerer(schema, dialect, widen=False, inline="smaller", pointer="/inputSchema",
                      clean=clean)
        got = lower_schema(schema, dialect, pointer="/inputSchema", drop_schema=False,
                           lowerer=low)
        assert dumps(got.schema) == dumps(fresh.schema) and got.changes == fresh.changes
    # met again, the subtrees found clean are not walked: fewer hook calls than without
    calls = {"n": 0}
    hook = Lowerer._hook

    def counted(self, n, path, d):
        calls["n"] += 1
        return hook(self, n, path, d)

    monkeypatch.setattr(Lowerer, "_hook", counted)
    assert verdicts(None) == want
    full, calls["n"] = calls["n"], 0
    assert verdicts(clean) == want
    assert calls["n"] < full / 2


def test_clean_memo_leaves_out_what_a_pin_kept():
    # a reference into `x-big` pins it: the hook keeps that prose key there, and the subtree
    # holding it is clean in A only because of the pin; B holds the same subtree unpinned
    sub = {"type": "object",
           "x-big": {"type": "integer", "minimum": 1, "maximum": 100000000, "multipleOf": 3}}
    a = {"type": "object", "properties": {"a": {"type": "array", "items": sub},
                                          "r": {"$ref": "#/properties/a/items/x-big"}}}
    b = {"type": "object", "properties": {"b": {"type": "array", "items": dict(sub)}}}
    clean: dict = {}
    for schema, want in ((a, True), (b, False)):
        low = Lowerer(schema, DRAFT2020, widen=False, inline="smaller", pointer="",
                      clean=clean)
        assert low.unchanged() is want
        assert (dumps(lower_schema(schema, DRAFT2020, drop_schema=False).schema)
                == dumps(schema)) is want


def test_clean_memo_is_not_taken_where_a_reference_inside_is_inlined():
    # `x` is clean in A (its reference kept: two of them pay for `big`); in B the same
    # subtree's only reference to `big` is inlined: run() must walk it
    big = {"type": "object", "properties": {"street": {"type": "string", "maxLength": 80},
                                            "city": {"type": "string", "maxLength": 80}}}
    x = {"type": "object", "properties": {"p": {"$ref": "#/$defs/big"}}}
    a = {"type": "object", "properties": {"x": x, "y": {"type": "array", "items": x}},
         "$defs": {"big": big}}
    b = {"type": "object", "properties": {"x": dict(x)}, "$defs": {"big": big}}
    clean: dict = {}
    assert Lowerer(a, DRAFT2020, widen=False, inline="smaller", pointer="",
                   clean=clean).unchanged()
    assert clean
    low = Lowerer(b, DRAFT2020, widen=False, inline="smaller", pointer="", clean=clean)
    assert not low.unchanged()
    got = lower_schema(b, DRAFT2020, drop_schema=False, lowerer=low)
    fresh = lower_schema(b, DRAFT2020, drop_schema=False)
    assert dumps(got.schema) == dumps(fresh.schema) and got.changes == fresh.changes
    assert got.schema["properties"]["x"]["properties"]["p"] == big


def test_clean_memo_only_where_the_bytes_tell_values_apart():
    # orjson writes a tuple like a list: `required: ()` is no `required: []` to the hook
    # (which removes the list as a no-op), so a schema holding one records nothing
    a = {"type": "object", "properties": {"x": {"type": "object", "required": ()}}}
    b = {"type": "object", "properties": {"x": {"type": "object", "required": []}}}
    clean: dict = {}
    assert Lowerer(a, DRAFT2020, widen=False, inline="smaller", pointer="",
                   clean=clean).unchanged()
    assert not clean
    assert not Lowerer(b, DRAFT2020, widen=False, inline="smaller", pointer="",
                       clean=clean).unchanged()
    assert lower_schema(b, DRAFT2020, drop_schema=False).changes


def _random_repeats(rng: random.Random) -> dict:
    # subtrees repeated under property names short and long, nested, some under a map that
    # comes first: what names and costs a second round could see differently
    leaves = [{"type": "string", "maxLength": rng.randint(1, 99)},
              {"type": "integer", "minimum": rng.randint(0, 9)},
              {"enum": ["a", "b", "c"][:rng.randint(1, 3)]}]
    names = ["a", "b", "x", "long_property_name_" * rng.randint(1, 2), "n", "value"]

    def node(depth: int) -> dict:
        if depth == 0 or rng.random() < 0.3:
            return dict(rng.choice(leaves))
        props = {rng.choice(names) + str(i): node(depth - 1) for i in range(rng.randint(1, 3))}
        return {"type": "object", "properties": props}

    pool = [node(rng.randint(1, 3)) for _ in range(3)]
    props = {}
    for i in range(rng.randint(2, 9)):
        sub = rng.choice(pool)
        props[rng.choice(names) + str(i)] = sub if rng.random() < 0.7 else {"items": sub}
    out: dict = {"type": "object", "properties": props}
    if rng.random() < 0.4:
        out = {"$defs": {"d": {"type": "object", "properties": {"p": rng.choice(pool)}}}, **out}
    return out


def test_factoring_stops_where_another_round_finds_nothing(monkeypatch):
    rng = random.Random(35)
    schemas = _schemas() + [(_random_repeats(rng), DRAFT2020) for _ in range(400)]
    stops = []
    real = factor._factor_once

    def seen(*args):
        got = real(*args)
        stops.append(bool(args[5]))
        return got

    monkeypatch.setattr(factor, "_factor_once", seen)
    fast = [factor.factor_schema(s, d) for s, d in schemas]
    monkeypatch.setattr(factor, "_factor_once",
                        lambda schema, dialect, d0, container, counts=None, last=None:
                        real(schema, dialect, d0, container, counts, None))
    slow = [factor.factor_schema(s, d) for s, d in schemas]
    for a, b in zip(fast, slow):
        assert dumps(a.schema) == dumps(b.schema) and a.defs == b.defs
    assert sum(stops) >= 20          # the shortcut is taken


def _scan_long_way(root, dialect):
    # refs._scan as it was: every marker looked for in the text
    import orjson

    if isinstance(root, bool):
        return True, None, True
    text = orjson.dumps(root)
    nested = text.count(b'"$schema"') > (1 if "$schema" in root else 0)
    skip_id = not nested and refs.node_dialect(root, dialect) != "draft4"
    flat = b'"$id"' not in text and (skip_id or b'"id"' not in text)
    return (flat and not any(m in text for k, m in refs._MARKERS.items()
                             if k not in ("$id", "id")), text, flat)


def test_scan_is_the_long_way():
    rng = random.Random(35)
    keys = sorted(refs._SPECIAL) + ["$schema", "type", "x", "$", "$x", "ids", "$refs"]
    made = []
    for _ in range(400):
        node: dict = {}
        for k in rng.sample(keys, rng.randint(0, 4)):
            node[k] = rng.choice(["a", "$ref", "#", 1, {"$x": 1}, {"id": "q"}])
        made.append(({"properties": {"p": node}, **({"$schema": "http://json-schema.org/"
                                                      "draft-04/schema#"}
                                                     if rng.random() < 0.2 else {})},
                     rng.choice([DRAFT2020, DRAFT7, "draft4"])))
    for schema, dialect in _schemas() + made:
        assert refs._scan(schema, dialect) == _scan_long_way(schema, dialect)


def test_strip_node_is_the_long_way():
    rng = random.Random(35)
    keys = ["type", "description", "title", "x-foo", "x-", "examples", "example", "$comment",
            "properties", "nullable", "xml", "format", "unknown", "enum", "readOnly"]
    for _ in range(2000):
        node = {k: 1 for k in rng.sample(keys, rng.randint(0, 6))}
        keep = rng.choice([None, lambda k: k == "title"])
        want = [k for k in node if is_prose_key(k) and not (keep is not None and keep(k))]
        got, removed = strip.strip_node(node, keep)
        assert removed == want
        assert got == {k: v for k, v in node.items() if k not in want}
        if not want:
            assert got is node


def test_encode_is_the_long_way():
    rng = random.Random(35)
    tokens = ["a", "~", "/", "a/b", "x~1", "", 0, 7, "properties", "~0/", True]
    for _ in range(3000):
        path = tuple(rng.choice(tokens) for _ in range(rng.randint(0, 5)))
        want = "".join("/" + pointer.escape(t) for t in path)
        assert pointer.encode(path) == want
        assert pointer.encode(iter(path)) == want
        assert pointer.decode(want) == [str(t) for t in path]


WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


def test_collapse_is_the_whitespace_substitution():
    ws = re.compile(r"\s+")
    assert all(ws.fullmatch(c) for c in WHITESPACE)
    assert not any(ws.fullmatch(chr(c)) for c in range(sys.maxunicode + 1)
                   if not chr(c).isspace())
    rng = random.Random(35)
    alphabet = WHITESPACE + ["a", "Z", "é", ".", "\u200b", "\ufeff", "語", "\U0001f600"]
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert describe.collapse(s) == ws.sub(" ", s).strip(), repr(s)


@pytest.mark.parametrize("text,want", [
    ("", ""), ("   ", ""), (" a  b\t\nc ", "a b c"), ("a\u00a0\u2003b", "a b"),
    ("x\u200by", "x\u200by"),            # a zero-width space is no whitespace
])
def test_collapse_examples(text, want):
    assert describe.collapse(text) == want
