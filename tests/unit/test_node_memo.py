"""The engine checks equal schema nodes once (issue 17, lint CPU): the pure node rules'
hits of a node are remembered by its content and given to every equal node at its own
pointer. These tests lint the same catalogs with the memo and without it (every rule's
``pure`` flag off) and require the same findings, on nodes that are equal, nearly equal
(1 and True, 0.0 and -0.0, the same keys in another order, equal but distinct containers)
and on real specs."""

from __future__ import annotations

import collections
import copy
from contextlib import contextmanager

import pytest

from support.common import SAMPLES, corpus_param
from toolcat import api
from toolcat.errors import ToolcatError
from toolcat.features.lint.registry import all_rules


@contextmanager
def _without_memo():
    pure = [r for r in all_rules() if r.pure]
    for r in pure:
        r.pure = False
    try:
        yield
    finally:
        for r in pure:
            r.pure = True


def _findings(cat, **kw) -> list[tuple]:
    return [(f.file, f.tool, f.code, f.severity, f.message, f.pointer, f.source_pointer,
             f.line, f.column, f.profiles) for f in api.lint(cat, **kw).findings]


def _same(cat, **kw) -> list[tuple]:
    got = _findings(cat, **kw)
    with _without_memo():
        want = _findings(cat, **kw)
    assert got == want
    return got


# schema nodes that differ only where a check can tell: each appears in several tools,
# at several depths, so that every one is met again after its look-alike
_NODES = [
    {"type": "string", "minLength": 1},
    {"type": "string", "minLength": True},
    {"type": "string", "minLength": 1.0},
    {"type": "number", "multipleOf": 0.0},
    {"type": "number", "multipleOf": -0.0},
    {"minLength": 1, "type": "string"},
    {"type": "strnig", "descripton": "x"},
    {"type": "string", "nullable": True},
    {"type": "string", "nullable": False},
    {"type": "string", "description": "d" * 400},
    {"type": "string", "description": "d" * 401},
    {"type": "string", "enum": ["one"]},
    {"type": "string", "enum": ["one", "one"]},
    {"type": "object", "properties": {"a": {"type": "string"}}},
    {"type": "object", "properties": {"a": 3}},
    {"allOf": []},
    {"anyOf": [{"type": "string"}, 5]},
    {"pattern": "("},
    {"$ref": "#/$defs/x", "type": "string"},
    {"type": ["string", "string"]},
]


def _catalog() -> dict:
    tools = []
    for i in range(4):
        props: dict = {}
        for j, node in enumerate(_NODES):
            n = copy.deepcopy(node) if i % 2 else node    # equal copies and the same objects
            props[f"p{j}"] = n
            props[f"deep{j}"] = {"type": "object", "properties": {"q": copy.deepcopy(node)}}
        schema: dict = {"type": "object", "properties": props,
                        "$defs": {"x": {"type": "string"}}}
        if i == 3:
            schema["$schema"] = "http://json-schema.org/draft-07/schema#"
        tools.append({"name": f"tool_{i}", "description": "Does a thing.",
                      "inputSchema": schema,
                      "outputSchema": {"type": "object", "properties": dict(props)}})
    return {"tools": tools}


def test_equal_and_nearly_equal_nodes_lint_as_without_the_memo():
    cat = api.load_data(_catalog(), name="memo.json")
    got = _same(cat)
    codes = collections.Counter(f[2] for f in got)
    # the look-alikes are told apart: each of these is reported on every tool
    assert codes["SC301"] >= 4 * 10 and codes["SC306"] >= 4 * 4 and codes["SC304"] >= 4 * 4
    msgs = collections.Counter(f[4] for f in got)
    assert msgs["`minLength` must be a non-negative integer, not True"] == 2 * 4 * 2


def test_content_keys_tell_apart_what_a_check_can():
    from toolcat.features.lint.engine import _content_key

    d = "https://json-schema.org/draft/2020-12/schema"
    same = [({"a": 1, "b": "x"}, {"a": 1, "b": "x"}), ({"a": None}, {"a": None})]
    for x, y in same:
        assert _content_key(x, d) == _content_key(y, d)
    inner = {"t": 1}
    assert _content_key({"p": inner}, d) == _content_key({"p": inner}, d)
    apart = [({"a": 1}, {"a": True}), ({"a": 1}, {"a": 1.0}), ({"a": 0.0}, {"a": -0.0}),
             ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ({"p": {"t": 1}}, {"p": {"t": 1}}),
             ({"a": "1"}, {"a": 1}), ({"a": None}, {"a": False})]
    for x, y in apart:
        assert _content_key(x, d) != _content_key(y, d), (x, y)
    assert _content_key({"a": 1}, d) != _content_key({"a": 1}, "http://json-schema.org/draft-07/schema#")


@pytest.mark.parametrize("profile", [None, "openwop-compact", "openai-strict", "gemini"])
def test_profiles_lint_as_without_the_memo(profile):
    cat = api.load_data(_catalog(), name="memo.json")
    _same(cat, profile=profile, prose_max=100)


def test_the_memo_saves_checks():
    # the same catalog checks fewer nodes with the memo (else these tests prove nothing)
    from toolcat.features.lint.rules import metaschema

    calls = collections.Counter()
    rule = next(r for r in all_rules() if r.code == "SC301")
    check = rule.check

    def counted(ctx, tool, n):
        calls[rule.pure] += 1
        return check(ctx, tool, n)

    rule.check = counted
    try:
        cat = api.load_data(_catalog(), name="memo.json")
        _same(cat)
    finally:
        rule.check = check
    assert metaschema.invalid_schema is check
    assert 0 < calls[True] < calls[False] * 0.75


@pytest.mark.parametrize("path", [
    *sorted(p for p in SAMPLES.iterdir() if p.suffix in (".json", ".yaml")),
    corpus_param("openapi", "twilio-api-v2010.openapi.yaml"),
    corpus_param("openapi", "sendgrid-v3.swagger2.yaml"),
    corpus_param("openapi", "slack-web-api.swagger2.json"),
], ids=lambda p: p.name)
def test_files_lint_as_without_the_memo(path):
    if not path.exists():
        pytest.skip(f"{path} not available")
    try:
        cat = api.load(str(path))
    except ToolcatError as e:  # a sample that is meant not to load
        pytest.skip(f"does not load: {e}")
    _same(cat)
