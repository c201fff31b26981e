"""`factor._inline_unpaid` works the sequence of inlinings out on reference counts (issue 17:
a walk and a rebuild per inlined name cost each tool's whole bundled graph again): it inlines
the same names, in the same order, into the same schema as inlining them one after another
(``_inline_unpaid_walks``), on hand-made cascades (inlining one definition leaves another
unpaid, or makes it pay again; a body that is a reference; a definition nobody uses) and on
every factored schema of the samples and the OpenAPI corpus."""

from __future__ import annotations

import pytest

from support.common import SAMPLES, corpus_param, lowered_schemas
from toolcat.document.canonical import dumps
from toolcat.schema import factor
from toolcat.schema.keywords import DRAFT2020

BIG = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[a-z]+$"}


def _same(schema, names, container="$defs"):
    got = factor._inline_unpaid(schema, DRAFT2020, container, names)
    want = factor._inline_unpaid_walks(schema, DRAFT2020, container, names)
    assert got[1] == want[1]
    assert dumps(got[0]) == dumps(want[0])
    return got


def test_cascade_drops_in_order():
    # a is used once (unpaid); inlining it leaves b's two refs inside a's single copy: b
    # stays at 2; c is used by nobody; d's body is a reference to b
    schema = {"type": "object", "properties": {
        "p": {"$ref": "#/$defs/a"}, "q": {"$ref": "#/$defs/d"}, "r": {"$ref": "#/$defs/d"}},
        "$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/b"},
                                                         "y": {"$ref": "#/$defs/b"}}},
                  "b": dict(BIG), "c": {"type": "integer", "minimum": 1, "maximum": 99},
                  "d": {"$ref": "#/$defs/b"}}}
    got = _same(schema, ["a", "b", "c", "d"])
    assert got[1], "something is inlined"


def test_inlining_one_makes_another_unpaid():
    # e holds the only two references to f; e itself is referenced once: inlining e keeps
    # f at two; with e referenced zero times, dropping e removes f's references
    body_f = {"type": "string", "enum": ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"]}
    schema = {"type": "object", "properties": {"k": {"type": "integer"}},
              "$defs": {"e": {"anyOf": [{"$ref": "#/$defs/f"}, {"$ref": "#/$defs/f"}]},
                        "f": body_f}}
    got = _same(schema, ["f", "e"])
    assert got[1] == ["e", "f"]        # e (unused) first: then f has no reference left
    schema2 = {"type": "object", "properties": {"k": {"$ref": "#/$defs/e"}},
               "$defs": schema["$defs"]}
    _same(schema2, ["f", "e"])
    schema3 = {"type": "array", "items": [{"$ref": "#/$defs/e"}, {"$ref": "#/$defs/e"}],
               "$defs": {"e": {"anyOf": [{"$ref": "#/$defs/f"}, {"$ref": "#/$defs/g"}]},
                         "f": body_f, "g": dict(BIG)}}
    _same(schema3, ["e", "f", "g"])


def test_a_body_that_is_a_reference_multiplies_its_target():
    # d's body is a $ref to b, d is used twice: inlining d leaves b with two references,
    # which pay for b (with one reference b would be inlined too)
    schema = {"type": "object", "properties": {"q": {"$ref": "#/$defs/d"},
                                               "r": {"$ref": "#/$defs/d"}},
              "$defs": {"d": {"$ref": "#/$defs/b"}, "b": dict(BIG)}}
    got = _same(schema, ["d", "b"])
    assert got[1] == ["d"]


def test_a_body_grows_by_what_is_inlined_into_it():
    # x (37 bytes, one reference, inside z) is inlined: z then has 28 - 20 + 37 = 45 bytes
    # and two references: 2 * 45 <= 2 * 20 + (3 + 2 + 45), so z no longer pays either
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/z"},
                                               "b": {"$ref": "#/$defs/z"}},
              "$defs": {"x": {"type": "string", "maxLength": 1234567},
                        "z": {"not": {"$ref": "#/$defs/x"}}}}
    got = _same(schema, ["x", "z"])
    assert got[1] == ["x", "z"]
    schema["$defs"]["x"]["maxLength"] = 12345678          # one byte more: z pays
    assert _same(schema, ["x", "z"])[1] == ["x"]


def test_reference_with_siblings_takes_the_walks():
    schema = {"properties": {"a": {"$ref": "#/$defs/a", "minLength": 2}},
              "$defs": {"a": dict(BIG)}}
    _same(schema, ["a"])


@pytest.mark.parametrize("path", [SAMPLES / "petstore.openapi.yaml",
                                  SAMPLES / "petstore-v31.openapi.json",
                                  corpus_param("openapi", "oai-uspto.openapi.yaml"),
                                  corpus_param("openapi", "slack-web-api.swagger2.json"),
                                  corpus_param("openapi", "sendgrid-v3.swagger2.yaml")],
                         ids=lambda p: p.name)
def test_corpus_schemas(path, monkeypatch):
    if not path.exists():
        pytest.skip("no corpus")
    calls = []
    real = factor._inline_unpaid

    def both(schema, dialect, container, names, ref_counts=None):
        got = real(schema, dialect, container, names, ref_counts)
        want = factor._inline_unpaid_walks(schema, dialect, container, names)
        calls.append(len(got[1]))
        assert got[1] == want[1]
        assert dumps(got[0]) == dumps(want[0])
        return got

    monkeypatch.setattr(factor, "_inline_unpaid", both)
    for schema, dialect in lowered_schemas(path):
        factor.factor_schema(schema, dialect)
