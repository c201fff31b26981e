"""toolcat serve's check of a call's arguments against the upstream's input schema
(toolcat.features.serve.arguments): jsonschema's verdict, with regular expressions run by RE2 in
ECMA-262's meaning, refusing only what the schema certainly refuses; messages quote JSON;
arguments sent as JSON text repaired; the work of one check bounded."""

from __future__ import annotations

import pytest

from toolcat.features.serve.arguments import ArgumentCheck


def problem(schema, args):
    return ArgumentCheck(schema).problem("t", args)


def test_valid_arguments_pass_and_invalid_ones_name_keyword_and_pointers():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1},
                                               "a/b": {"type": "string"}},
              "required": ["n"], "additionalProperties": False}
    assert problem(schema, {"n": 2}) is None
    assert problem(schema, {"n": 0}) == ("Input validation error: 0 is less than the minimum "
                                         "of 1 (at /n of the arguments of t; keyword minimum "
                                         "at /properties/n/minimum of its inputSchema)")
    assert "at /a~1b of the arguments" in problem(schema, {"n": 1, "a/b": 3})
    assert "keyword required at /required" in problem(schema, {})


def test_a_catastrophic_pattern_is_run_by_re2():
    # Python's re takes minutes here (2**40 ways to split the a's); RE2 is linear
    schema = {"type": "object", "properties": {"s": {"pattern": "^(a+)+$"}}}
    assert "keyword pattern" in problem(schema, {"s": "a" * 40 + "!"})
    assert problem(schema, {"s": "a" * 40}) is None


def test_patterns_mean_what_ecma_262_says():
    # \d is ASCII in ECMA-262 (Python's re: any Unicode digit); $ is the end of the text
    digits = {"type": "object", "properties": {"d": {"pattern": "^\\d+$"}}}
    assert "keyword pattern" in problem(digits, {"d": "\u0661\u0662"})
    assert "keyword pattern" in problem(digits, {"d": "12\n"})
    assert problem(digits, {"d": "12"}) is None


@pytest.mark.parametrize("schema, args", [
    ({"properties": {"s": {"pattern": "(?=a)b"}}}, {"s": "zzz"}),          # lookahead
    ({"properties": {"s": {"pattern": "(a)\\1"}}}, {"s": "ab"}),           # back-reference
    ({"patternProperties": {"(?=y)": {"type": "string"}},
      "additionalProperties": False}, {"z": 1}),                          # unknown extra
    ({"$ref": "https://example.com/schema.json"}, {"x": 1}),               # nothing fetched
    ({"$ref": "#/$defs/missing"}, {"x": 1}),
])
def test_what_cannot_be_decided_is_left_to_the_upstream(schema, args):
    assert problem(schema, args) is None


def test_pattern_properties_and_additional_properties():
    schema = {"type": "object", "patternProperties": {"^x_[0-9]+$": {"type": "integer"}},
              "additionalProperties": False}
    assert problem(schema, {"x_1": 1}) is None
    assert "/patternProperties/^x_[0-9]+$/type" in problem(schema, {"x_1": "one"})
    assert '("y" was unexpected)' in problem(schema, {"y": 1})


def test_format_is_not_asserted_and_a_draft_7_schema_is_draft_7():
    assert problem({"properties": {"e": {"format": "email"}}}, {"e": "not an email"}) is None
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#",
          "properties": {"a": {"items": [{"type": "integer"}]}}}
    assert "keyword type" in problem(d7, {"a": ["x"]})          # draft 7's tuple items


_NESTED = [
    # a subschema with a `$schema` of its own: jsonschema's evolve gave it the stock class
    {"type": "object", "properties": {"s": {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "pattern": "^(a+)+$"}}},
    # a `$ref` to a root that names its dialect, through a draft-07 definition
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
     "properties": {"s": {"$ref": "#/definitions/d"}, "r": {"$ref": "#"}},
     "definitions": {"d": {"$schema": "http://json-schema.org/draft-07/schema#",
                           "pattern": "^(a+)+$"}}},
]


@pytest.mark.parametrize("schema", _NESTED, ids=["nested-$schema", "ref-to-draft7-root"])
def test_a_subschema_naming_its_dialect_is_still_run_by_re2(schema):
    """In a child process with a CPU bound: Python's re on this would take hours (a
    regression is a killed child, not a hung suite)."""
    import json
    import resource
    import subprocess
    import sys

    code = ("import json, sys\nfrom toolcat.features.serve.arguments import ArgumentCheck\n"
            "s = json.loads(sys.argv[1])\n"
            "print(ArgumentCheck(s).problem('t', {'s': 'a' * 40 + '!', 'r': {'s': 'a' * 40}}))")

    def bound():
        resource.setrlimit(resource.RLIMIT_CPU, (20, 21))

    r = subprocess.run([sys.executable, "-c", code, json.dumps(schema)], capture_output=True,
                       timeout=120, preexec_fn=bound)
    assert r.returncode == 0, r.stderr[-500:]
    assert b"keyword pattern" in r.stdout, r.stdout


def in_child(code: str, cpu: int = 20) -> str:
    """Run ``code`` in a child process with a CPU bound (a regression is a killed child, not
    a hung suite); its stdout."""
    import resource
    import subprocess
    import sys

    def bound():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                       preexec_fn=bound)
    assert r.returncode == 0, r.stderr[-500:]
    return r.stdout.decode()


# --------------------------------------------------------------------------- JSON in messages


@pytest.mark.parametrize("value, said", [
    (None, 'null is not of type "integer"'),
    (True, 'true is not of type "integer"'),
    ("7", '"7" is not of type "integer"'),
    ({"a": [1, None]}, '{"a":[1,null]} is not of type "integer"'),
])
def test_messages_quote_json_not_python(value, said):
    """Issue 33 item 6: the client sent JSON; jsonschema's messages said None, True, '7'."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert problem(schema, {"n": value}).startswith(f"Input validation error: {said} (at /n ")


def test_every_common_keyword_says_its_values_as_json():
    cases = [
        ({"required": ["n"]}, {}, '"n" is a required property'),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b'": 2, "c": 3},
         'Additional properties are not allowed ("b\'", "c" were unexpected)'),
        ({"properties": {"e": {"enum": ["x", None]}}}, {"e": False},
         'false is not one of ["x",null]'),
        ({"properties": {"e": {"const": None}}}, {"e": 0}, "null was expected"),
        ({"properties": {"s": {"pattern": "^a"}}}, {"s": "b"}, '"b" does not match "^a"'),
        ({"properties": {"s": {"minLength": 2}}}, {"s": "b"}, '"b" is shorter than 2'),
        ({"properties": {"s": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}},
         {"s": "b"}, '"b" is not valid under any of the given schemas'),
        ({"properties": {"s": False}}, {"s": True}, "true is not allowed (the schema is false)"),
        ({"properties": {"a": {"uniqueItems": True}}}, {"a": [1, 1.0]},
         "[1,1.0] has non-unique elements"),
    ]
    for schema, args, said in cases:
        got = problem(schema, args)
        assert got is not None and said in got, (schema, got)
        assert "None" not in got and "True" not in got and "False" not in got and "'" not in \
            got.replace("b'", ""), got


# --------------------------------------------------------------------------- repair


def check(schema, args, repair=True):
    return ArgumentCheck(schema).check("t", args, repair)


LIST = {"type": "object", "properties": {
    "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "point": {"anyOf": [{"type": "object", "properties": {"x": {"type": "number"}},
                         "required": ["x"]}, {"type": "null"}]},
    "text": {"type": ["string", "object"]}}}


def test_json_text_where_an_array_or_object_is_wanted_is_parsed():
    """Issue 33 item 7: clients send object and array arguments as JSON text."""
    args = {"paths": '["a", "b"]', "point": ' {"x": 1.5}', "text": '{"k": 1}'}
    v = check(LIST, args)
    assert v.problem is None and v.unknown is None
    assert v.repaired == {"paths": ["a", "b"], "point": {"x": 1.5}, "text": '{"k": 1}'}
    assert sorted(v.repairs) == ["/paths", "/point"]
    assert args["paths"] == '["a", "b"]'          # the caller's data is not changed


@pytest.mark.parametrize("args", [
    {"paths": "[]"},                 # parses, but minItems refuses it
    {"paths": "[1]"},                # parses, but items must be strings
    {"paths": "a,b"},                # no JSON
    {"paths": '{"a": 1}'},           # an object where an array is wanted
    {"point": '{"y": 1}'},           # the object lacks x
])
def test_json_text_the_schema_would_still_refuse_is_left_as_it_came(args):
    v = check(LIST, args)
    assert v.repaired is None and v.repairs == []
    assert v.problem is not None


def test_repair_off_and_repairs_beside_another_problem():
    assert check(LIST, {"paths": '["a"]'}, repair=False).repaired is None
    schema = {**LIST, "additionalProperties": False}
    v = check(schema, {"paths": '["a"]', "extra": 1})
    assert v.repaired == {"paths": ["a"], "extra": 1}
    assert "keyword additionalProperties" in v.problem


# --------------------------------------------------------------------------- bounded


def test_unique_items_is_linear_and_means_json_equality():
    """Issue 36 item 14: jsonschema compares every pair of objects under uniqueItems (3,000
    took 77 s, and serve answered nothing else meanwhile). In a child with 20 s of CPU."""
    code = ("from toolcat.features.serve.arguments import ArgumentCheck\n"
            "s = {'properties': {'a': {'uniqueItems': True}}}\n"
            "items = [{'id': i, 'name': f'n{i}', 'tags': ['x', i]} for i in range(3000)]\n"
            "print(ArgumentCheck(s).check('t', {'a': items}))\n"
            "print(ArgumentCheck(s).problem('t', {'a': items + [{'id': 7, 'tags': ['x', 7.0], "
            "'name': 'n7'}]}))")
    out = in_child(code).splitlines()
    assert out[0] == "Verdict(problem=None, where=None, unknown=None, repaired=None, repairs=[])"
    assert "has non-unique elements" in out[1] and "keyword uniqueItems" in out[1]
    unique = {"properties": {"a": {"uniqueItems": True}}}
    assert problem(unique, {"a": [1, True]}) is None          # true is no number
    assert problem(unique, {"a": [[1], [True]]}) is None
    assert problem(unique, {"a": [0, False, None, "", [], {}]}) is None
    assert "non-unique" in problem(unique, {"a": [{"a": 1, "b": 2}, {"b": 2, "a": 1.0}]})


def test_a_check_past_its_bound_decides_nothing(monkeypatch):
    from toolcat.features.serve import arguments

    monkeypatch.setattr(arguments, "MAX_SECONDS", 3600.0)   # the steps decide, not the clock
    schema = {"type": "object", "properties": {"a": {"items": {"type": "integer"}}}}
    big = {"a": [1] * (arguments.MAX_STEPS + 10) + ["x"]}
    v = check(schema, big)
    assert v.problem is None and f"more than {arguments.MAX_STEPS:,} steps" in v.unknown
    assert "keyword type" in check(schema, {"a": [1] * 1000 + ["x"]}).problem
    # a deep instance under a recursive schema: nesting, not the interpreter's limit
    deep: dict = {}
    node = deep
    for _ in range(arguments.MAX_DEPTH * 2):
        node["n"] = {}
        node = node["n"]
    node["n"] = 1
    rec = {"type": "object", "properties": {"n": {"$ref": "#"}}}
    v = check(rec, {"n": deep})
    assert v.problem is None and "nested more than" in v.unknown
