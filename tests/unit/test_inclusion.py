"""Schema inclusion (toolcat.schema.inclusion): each rule on hand-derived pairs.

For every pair the expected verdict for a tool *input* is written by hand: "breaking" (NEW
rejects an input OLD accepts: a witness must be found and it must replay under jsonschema),
"non-breaking" (changes, none narrowing), "none" (no change at all: the schemas accept the
same instances) or "unknown" (a narrowing the rules cannot decide and no witness shows).
"""

from __future__ import annotations

import jsonschema
import pytest

from toolcat.features.diff.catalog import normalize
from toolcat.schema import inclusion as I
from toolcat.schema.examples import Sampler, regex_samples
from toolcat.schema.validate import Checker

S = {"type": "string"}
N = {"type": "integer"}


def OBJ(props, req=(), **kw):
    return {"type": "object", "properties": props, **({"required": list(req)} if req else {}), **kw}


def classify(old, new, dialect="2020-12", area="input"):
    a, b = normalize(old, dialect, area), normalize(new, dialect, area)
    changes, sa, sb = I.compare(a, b, dialect, dialect)
    raw_a, raw_b = Checker(old, dialect), Checker(new, dialect)
    witnesses = []
    verdict = "none" if not changes else "non-breaking"
    direction = "narrows" if area == "input" else "widens"
    for c in changes:
        if getattr(c, direction) is None:
            continue
        valid, invalid = ([raw_a], [raw_b]) if area == "input" else ([raw_b], [raw_a])
        w = I.witness(c, direction, sa, sb, valid=valid, invalid=invalid)
        if w is I.MISSING:
            if verdict != "breaking":
                verdict = "unknown"
        else:
            verdict = "breaking"
            witnesses.append(w)
    return verdict, changes, witnesses


def replay(old, new, w, dialect="2020-12", area="input"):
    cls = {"draft4": jsonschema.Draft4Validator, "draft7": jsonschema.Draft7Validator,
           "2019-09": jsonschema.Draft201909Validator}.get(dialect, jsonschema.Draft202012Validator)
    ok_old = cls(old).is_valid(w)
    ok_new = cls(new).is_valid(w)
    if area == "input":
        assert ok_old and not ok_new, (w, old, new)
    else:
        assert ok_new and not ok_old, (w, old, new)


CASES = [
    # --- breaking
    ("new required", OBJ({"q": S}), OBJ({"q": S, "n": N}, ["n"]), "breaking"),
    ("optional made required", OBJ({"q": S}), OBJ({"q": S}, ["q"]), "breaking"),
    ("removed where closed", OBJ({"q": S, "x": S}, additionalProperties=False),
     OBJ({"q": S}, additionalProperties=False), "breaking"),
    ("type narrowed", OBJ({"q": {"type": ["string", "integer"]}}), OBJ({"q": S}), "breaking"),
    ("number to integer", OBJ({"q": {"type": "number"}}), OBJ({"q": N}), "breaking"),
    ("enum value removed", OBJ({"c": {"enum": ["a", "b"]}}), OBJ({"c": {"enum": ["a"]}}), "breaking"),
    ("minLength raised", OBJ({"q": {"type": "string", "minLength": 1}}),
     OBJ({"q": {"type": "string", "minLength": 3}}), "breaking"),
    ("maxLength added", OBJ({"q": S}), OBJ({"q": {"type": "string", "maxLength": 4}}), "breaking"),
    ("maximum lowered", OBJ({"n": {"type": "integer", "maximum": 100}}),
     OBJ({"n": {"type": "integer", "maximum": 50}}), "breaking"),
    ("exclusive bound", OBJ({"n": {"type": "number", "minimum": 0}}),
     OBJ({"n": {"type": "number", "exclusiveMinimum": 0}}), "breaking"),
    ("pattern added", OBJ({"q": S}), OBJ({"q": {"type": "string", "pattern": "^[a-z]+$"}}), "breaking"),
    ("closed", OBJ({"q": S}), OBJ({"q": S}, additionalProperties=False), "breaking"),
    ("multipleOf added", OBJ({"n": N}), OBJ({"n": {"type": "integer", "multipleOf": 5}}), "breaking"),
    ("uniqueItems added", OBJ({"a": {"type": "array", "items": S}}),
     OBJ({"a": {"type": "array", "items": S, "uniqueItems": True}}), "breaking"),
    ("minItems raised", OBJ({"a": {"type": "array"}}), OBJ({"a": {"type": "array", "minItems": 1}}),
     "breaking"),
    ("item type narrowed", OBJ({"a": {"type": "array", "items": {"type": ["string", "null"]}}}),
     OBJ({"a": {"type": "array", "items": S}}), "breaking"),
    ("nested required", OBJ({"u": OBJ({"id": S})}), OBJ({"u": OBJ({"id": S}, ["id"])}), "breaking"),
    ("const changed", OBJ({"k": {"const": "a"}}), OBJ({"k": {"const": "b"}}), "breaking"),
    ("anyOf branch removed", OBJ({"v": {"anyOf": [S, N]}}), OBJ({"v": S}), "breaking"),
    ("dependentRequired added", OBJ({"a": S, "b": S}),
     OBJ({"a": S, "b": S}, dependentRequired={"a": ["b"]}), "breaking"),
    ("not widened", OBJ({"q": {"not": {"const": "x"}}}), OBJ({"q": {"not": {"enum": ["x", "y"]}}}),
     "breaking"),
    ("propertyNames added", OBJ({}, additionalProperties=S),
     OBJ({}, additionalProperties=S, propertyNames={"pattern": "^[a-z]+$"}), "breaking"),
    ("tool became strict on addl schema", OBJ({"q": S}, additionalProperties=S),
     OBJ({"q": S}, additionalProperties={"type": "string", "maxLength": 2}), "breaking"),
    # --- non-breaking
    ("new optional", OBJ({"q": S}), OBJ({"q": S, "n": N}), "non-breaking"),
    ("enum value added", OBJ({"c": {"enum": ["a"]}}), OBJ({"c": {"enum": ["a", "b"]}}), "non-breaking"),
    ("bound relaxed", OBJ({"q": {"type": "string", "maxLength": 10}}),
     OBJ({"q": {"type": "string", "maxLength": 20}}), "non-breaking"),
    ("required dropped", OBJ({"q": S}, ["q"]), OBJ({"q": S}), "non-breaking"),
    ("type widened", OBJ({"q": S}), OBJ({"q": {"type": ["string", "null"]}}), "non-breaking"),
    ("integer to number", OBJ({"q": N}), OBJ({"q": {"type": "number"}}), "non-breaking"),
    ("opened", OBJ({"q": S}, additionalProperties=False), OBJ({"q": S}), "non-breaking"),
    ("added where closed", OBJ({"q": S}, additionalProperties=False),
     OBJ({"q": S, "n": N}, additionalProperties=False), "non-breaking"),
    ("anyOf branch added", OBJ({"v": {"anyOf": [S, N]}}),
     OBJ({"v": {"anyOf": [S, N, {"type": "boolean"}]}}), "non-breaking"),
    ("multipleOf coarser to finer", OBJ({"n": {"type": "integer", "multipleOf": 10}}),
     OBJ({"n": {"type": "integer", "multipleOf": 5}}), "non-breaking"),
    ("pattern removed", OBJ({"q": {"type": "string", "pattern": "^a"}}), OBJ({"q": S}), "non-breaking"),
    ("format removed", OBJ({"q": {"type": "string", "format": "email"}}), OBJ({"q": S}), "non-breaking"),
    ("not narrowed", OBJ({"q": {"not": {"enum": ["x", "y"]}}}), OBJ({"q": {"not": {"const": "x"}}}),
     "non-breaking"),
    ("oneOf with a discriminator grows",
     OBJ({"p": {"oneOf": [OBJ({"k": {"const": "a"}, "x": S}, ["k"]), OBJ({"k": {"const": "b"}}, ["k"])]}}),
     OBJ({"p": {"oneOf": [OBJ({"k": {"const": "a"}, "x": S}, ["k"]), OBJ({"k": {"const": "b"}}, ["k"]),
                          OBJ({"k": {"const": "c"}}, ["k"])]}}), "non-breaking"),
    # --- no change by what is accepted
    ("enum to const", OBJ({"c": {"type": "string", "enum": ["a"]}}), OBJ({"c": {"const": "a"}}), "none"),
    ("moved into $ref", OBJ({"u": OBJ({"id": S}, ["id"])}),
     {**OBJ({"u": {"$ref": "#/$defs/U"}}), "$defs": {"U": OBJ({"id": S}, ["id"])}}, "none"),
    ("split into allOf", OBJ({"q": {"type": "string", "minLength": 2}}),
     OBJ({"q": {"allOf": [{"type": "string"}, {"minLength": 2}]}}), "none"),
    ("reordered", OBJ({"a": S, "b": S}, ["a", "b"]), OBJ({"b": S, "a": S}, ["b", "a"]), "none"),
    ("prose only", OBJ({"q": {"type": "string", "description": "x"}}),
     OBJ({"q": {"type": "string", "description": "y", "title": "Q"}}), "none"),
    ("anyOf of types to a type list", OBJ({"v": {"anyOf": [S, N]}}),
     OBJ({"v": {"type": ["string", "integer"]}}), "none"),
    ("exclusive integer bound respelled", OBJ({"n": {"type": "integer", "exclusiveMinimum": 0}}),
     OBJ({"n": {"type": "integer", "minimum": 1}}), "none"),
    ("no-ops", OBJ({"q": {"type": "string", "minLength": 0}}, additionalProperties=True),
     OBJ({"q": S}), "none"),
    ("oneOf of values", OBJ({"c": {"oneOf": [{"const": "a"}, {"const": "b"}]}}),
     OBJ({"c": {"enum": ["b", "a"]}}), "none"),
    # --- unknown: no sound check, no witness
    ("two patterns", OBJ({"q": {"type": "string", "pattern": "^[a-z]+$"}}),
     OBJ({"q": {"type": "string", "pattern": "^[a-z0-9]+$"}}), "unknown"),
    ("format added", OBJ({"q": S}), OBJ({"q": {"type": "string", "format": "email"}}), "unknown"),
    ("if/then changed", OBJ({"q": S}, **{"if": OBJ({"q": {"const": "a"}}, ["q"]), "then": {"required": ["r"]}}),
     OBJ({"q": S}, **{"if": OBJ({"q": {"const": "b"}}, ["q"]), "then": {"required": ["r"]}}), "breaking"),
    ("recursive refs differ",
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "v": S})}},
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "v": {"type": "string", "pattern": "^a"}})}},
     "breaking"),
    ("recursive refs widened",
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "v": {"type": "string", "pattern": "^a"}})}},
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "v": S})}},
     "non-breaking"),
    ("recursive refs renamed",
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/T"}}})}},
     {**OBJ({"t": {"$ref": "#/$defs/Node"}}), "$defs": {"Node": OBJ({"c": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})}},
     "none"),
    ("unguarded recursion", {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": {"anyOf": [S, {"$ref": "#/$defs/T"}]}}},
     {**OBJ({"t": {"$ref": "#/$defs/T"}}), "$defs": {"T": {"anyOf": [N, {"$ref": "#/$defs/T"}]}}},
     "unknown"),   # (jsonschema itself recurses without end on it: no witness can be checked)
]


@pytest.mark.parametrize("name,old,new,expect", CASES, ids=[c[0] for c in CASES])
def test_verdicts(name, old, new, expect):
    verdict, changes, witnesses = classify(old, new)
    assert verdict == expect, [(c.what, c.narrows) for c in changes]
    for w in witnesses:
        replay(old, new, w)


@pytest.mark.parametrize("name,old,new,expect", CASES, ids=[c[0] for c in CASES])
def test_reverse_as_output(name, old, new, expect):
    """The same pair read as an output schema the other way round (NEW -> OLD): a narrowed
    input is a widened output, so the verdict is the same and the witnesses replay."""
    verdict, _changes, witnesses = classify(new, old, area="output")
    if expect == "breaking" or expect == "none":
        assert verdict == expect
    for w in witnesses:
        replay(new, old, w, area="output")


@pytest.mark.parametrize("dialect,old,new,expect", [
    ("draft4", OBJ({"n": {"type": "number", "minimum": 0}}),
     OBJ({"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}), "breaking"),
    ("draft7", OBJ({"t": {"type": "array", "items": [S, N]}}),
     OBJ({"t": {"type": "array", "items": [S, S]}}), "breaking"),
    ("draft7", OBJ({"t": {"type": "array", "items": [S], "additionalItems": False}}),
     OBJ({"t": {"type": "array", "items": [S]}}), "non-breaking"),
    ("draft7", OBJ({"a": S, "b": S}), OBJ({"a": S, "b": S}, dependencies={"a": ["b"]}), "breaking"),
    ("draft7", OBJ({"u": {"$ref": "#/definitions/U", "maxLength": 1}}, definitions={"U": S}),
     OBJ({"u": {"$ref": "#/definitions/U"}}, definitions={"U": S}), "none"),
    ("2019-09", OBJ({"t": {"type": "array", "items": [S]}}),
     OBJ({"t": {"type": "array", "items": [S], "additionalItems": False}}), "breaking"),
])
def test_dialects(dialect, old, new, expect):
    verdict, changes, witnesses = classify(old, new, dialect)
    assert verdict == expect, [(c.what, c.narrows) for c in changes]
    for w in witnesses:
        replay(old, new, w, dialect)


def test_unevaluated_is_unknown_unless_equal():
    old = OBJ({"a": S}, unevaluatedProperties=False)
    new = OBJ({"a": S, "b": S}, unevaluatedProperties=False)
    _v, changes, _w = classify(old, new)
    assert any(c.tag == "unknown" and c.narrows is not None and c.narrows.reason for c in changes)
    assert classify(old, dict(old))[0] == "none"


def test_change_places():
    old = {**OBJ({"u": {"$ref": "#/$defs/U"}}), "$defs": {"U": OBJ({"id": {"type": "string", "minLength": 1}})}}
    new = OBJ({"u": OBJ({"id": {"type": "string", "minLength": 2}})})
    _v, changes, _w = classify(old, new)
    [c] = changes
    assert c.keyword == "minLength" and c.data == ("u", "id")
    assert I.written_path(old, c.old_route, ("minLength",)) == (("$defs", "U", "properties", "id", "minLength"), True)
    assert I.written_path(new, c.new_route, ("minLength",)) == (("properties", "u", "properties", "id", "minLength"), True)


def test_finite_values_decided_exactly():
    # every OLD value is enumerated against NEW: no candidate generation involved
    old = OBJ({"c": {"enum": ["a", "bb", "ccc"]}})
    new = OBJ({"c": {"type": "string", "maxLength": 2}})
    verdict, changes, witnesses = classify(old, new)
    assert verdict == "breaking" and witnesses == [{"c": "ccc"}]
    assert classify(old, OBJ({"c": {"type": "string", "maxLength": 3}}))[0] == "non-breaking"


def test_checker_never_fetches():
    c = Checker({"$ref": "http://127.0.0.1:9/x.json"})
    assert c.accepts(1) is None


def _at_every_depth(call):
    """``call()`` at every stack depth from here down to the interpreter's recursion limit
    (so that one of them meets the limit inside jsonschema, wherever that is): the answers,
    and the exceptions that are no ``Exception`` (type names)."""
    answers, escaped = [], []

    def down():
        try:
            answers.append(call())
        except RecursionError:
            pass
        except BaseException as e:  # what the test is about
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            escaped.append(f"{type(e).__module__}.{type(e).__name__}")
        down()

    try:
        down()
    except RecursionError:
        pass
    return answers, escaped


def test_checker_survives_a_panic_in_rpds():
    # A RecursionError inside one of rpds's comparisons (jsonschema's type checkers are rpds
    # maps) is a Rust panic: pyo3_runtime.PanicException, a BaseException. Found by
    # `toolcat diff` on a recursive `$ref: "#"` pair (/work/notes/diff-repro/slow-*.json).
    schema = {"type": "array", "items": {"$ref": "#"}}
    raw = jsonschema.Draft202012Validator(schema)
    _, escaped = _at_every_depth(lambda: raw.is_valid([[]]))
    if "pyo3_runtime.PanicException" not in escaped:
        pytest.skip("jsonschema does not panic at the recursion limit here")
    c = Checker(schema)
    answers, escaped = _at_every_depth(lambda: c.accepts([[]]))
    assert escaped == [] and set(answers) <= {True, None} and True in answers
    assert c.trouble and "panicked" in c.trouble
    c = Checker(schema)
    answers, escaped = _at_every_depth(lambda: c.why_not([[1]]))
    assert escaped == [] and c.trouble


@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError])
def test_checker_lets_interrupts_and_memory_errors_through(error):
    # the panic is caught by its class name; Ctrl-C (and any other BaseException) is not; nor
    # is out of memory, which is no "cannot tell" (None): an answer made with memory failing
    # could be a wrong finding (issue 36's hostile battery: a lint under `ulimit -v` exited
    # 1); it reaches the command's one error line instead
    class Boom:
        def __eq__(self, other):
            raise error

        __hash__ = None

    with pytest.raises(error):
        Checker({"enum": [1]}).accepts(Boom())


def test_sampler_values_are_valid():
    schema = OBJ({"a": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]+$"},
                  "b": {"type": "integer", "minimum": 3, "multipleOf": 4},
                  "c": {"type": "array", "items": S, "minItems": 2, "uniqueItems": True}},
                 ["a", "b", "c"])
    got = Sampler(schema).samples(schema, 2)
    assert got and all(jsonschema.Draft202012Validator(schema).is_valid(v) for v in got)


@pytest.mark.parametrize("pattern", ["^[a-z]+$", "^\\d{3}-\\d{4}$", "^(foo|bar)+baz?$", "^[^/]+/[^/]+$",
                                     "^\\w+@\\w+\\.com$"])
def test_regex_samples_match(pattern):
    import re

    got = regex_samples(pattern, 4)
    assert got and all(re.search(pattern, s) for s in got)
