"""The cue search of schema descriptions (project.describe.cues) is made once per distinct
sentence (issue 35: a catalog repeats its descriptions), and what depends on the node and
on the names is still judged on each call."""

from __future__ import annotations

from tests.support.common import corpus
from toolcat.api import load
from toolcat.features.project import describe


def test_the_same_sentence_is_judged_on_its_node_and_names():
    s = "The `parent` of the object, a date-time such as '2024-01-01T00:00:00Z'."
    assert describe.cues(s) == []
    assert describe.cues(s, {}, frozenset({"parent"})) == ["reference", "example"]
    assert describe.cues(s, {"properties": {"parent": {}}}, frozenset({"parent"})) == []
    assert describe.cues(s, {}, frozenset({"other"})) == []
    f = "Timestamp in RFC 3339 format."
    assert describe.cues(f) == ["format"]
    assert describe.cues(f, {"format": "date-time"}) == []
    v = "One of `a`, `b` or `c`."
    assert describe.cues(v) == ["values"]
    assert describe.cues(v, {"enum": ["a"]}) == []
    assert describe.cues("See the docs for more information, e.g. 'x-y'.") == []


def test_each_distinct_sentence_is_searched_once(monkeypatch):
    seen: list[str] = []
    real = describe._facts

    def facts(sentence):
        seen.append(sentence)
        return real(sentence)

    monkeypatch.setattr(describe, "_facts", facts)
    monkeypatch.setattr(describe, "_FACTS", {})
    monkeypatch.setattr(describe, "_CLAUSES", {})
    texts = []
    for t in load(corpus("openapi", "box.openapi.json")).tools:
        for node in (t.input_schema or {}).get("properties", {}).values():
            if isinstance(node, dict) and isinstance(node.get("description"), str):
                texts.append(node["description"])
    assert len(texts) > len(set(texts)) > 50
    first = [describe.clause(t, 120) for t in texts]
    assert [describe.clause(t, 120) for t in texts] == first
    assert len(seen) == len(set(seen)) > 50


def _descriptions(name: str) -> list[str]:
    texts = []
    for t in load(corpus("openapi", name)).tools:
        for node in (t.input_schema or {}).get("properties", {}).values():
            if isinstance(node, dict) and isinstance(node.get("description"), str):
                texts.append(node["description"])
    return texts


def test_a_remembered_clause_is_judged_again_on_its_node_and_names(monkeypatch):
    monkeypatch.setattr(describe, "_CLAUSES", {})
    s = "The `parent` of the object, a date-time such as '2024-01-01T00:00:00Z'."
    calls = [({}, frozenset({"parent"})), ({"properties": {"parent": {}}}, frozenset({"parent"})),
             ({}, frozenset({"other"})), ({}, frozenset()), ({"format": "date-time"}, frozenset()),
             ({"allOf": [{"properties": {"parent": {}}}]}, frozenset({"parent", "x"}))]
    for _ in range(2):
        for node, names in calls:
            assert describe.clause(s, 120, node, names) == \
                describe._clause(s, 120, node, names, set())
    assert describe.clause(s, 120, {}, frozenset({"parent"})) != \
        describe.clause(s, 120, {"properties": {"parent": {}}}, frozenset({"parent"}))


def test_every_description_of_a_spec_gets_its_own_clause_with_each_tools_names(monkeypatch):
    """On a real spec, each description judged on each tool's input schema nodes (their
    property names, the tools' names) gives what the uncached judgement gives."""
    monkeypatch.setattr(describe, "_CLAUSES", {})
    cat = load(corpus("openapi", "openai.openapi.yaml"))
    tools = frozenset(t.id for t in cat.tools)
    checked = 0
    for t in cat.tools:
        props = (t.input_schema or {}).get("properties", {})
        names = tools | frozenset(props)
        for node in props.values():
            if isinstance(node, dict) and isinstance(node.get("description"), str):
                for limit in (60, 20):
                    assert describe.clause(node["description"], limit, node, names) == \
                        describe._clause(node["description"], limit, node, names, set())
                    checked += 1
    assert checked > 100


def test_each_distinct_description_is_split_once(monkeypatch):
    monkeypatch.setattr(describe, "_CLAUSES", {})
    split: list[str] = []
    real = describe.sentences

    def sentences(text):
        split.append(text)
        return real(text)

    monkeypatch.setattr(describe, "sentences", sentences)
    texts = _descriptions("box.openapi.json")
    assert len(texts) > len(set(texts)) > 50
    first = [describe.clause(t, 120) for t in texts]
    assert [describe.clause(t, 120) for t in texts] == first
    assert len(split) == len(set(split)) > 50
