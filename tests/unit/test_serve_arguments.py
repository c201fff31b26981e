"""toolcat serve's check of a call's arguments against the upstream's input schema
(toolcat.serve.arguments): jsonschema's verdict, with regular expressions run by RE2 in
ECMA-262's meaning, refusing only what the schema certainly refuses."""

from __future__ import annotations

import pytest

from toolcat.serve.arguments import ArgumentCheck


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
    assert "('y' was unexpected)" in problem(schema, {"y": 1})


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

    code = ("import json, sys\nfrom toolcat.serve.arguments import ArgumentCheck\n"
            "s = json.loads(sys.argv[1])\n"
            "print(ArgumentCheck(s).problem('t', {'s': 'a' * 40 + '!', 'r': {'s': 'a' * 40}}))")

    def bound():
        resource.setrlimit(resource.RLIMIT_CPU, (20, 21))

    r = subprocess.run([sys.executable, "-c", code, json.dumps(schema)], capture_output=True,
                       timeout=120, preexec_fn=bound)
    assert r.returncode == 0, r.stderr[-500:]
    assert b"keyword pattern" in r.stdout, r.stdout
