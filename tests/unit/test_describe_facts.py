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
    texts = []
    for t in load(corpus("openapi", "box.openapi.json")).tools:
        for node in (t.input_schema or {}).get("properties", {}).values():
            if isinstance(node, dict) and isinstance(node.get("description"), str):
                texts.append(node["description"])
    assert len(texts) > len(set(texts)) > 50
    first = [describe.clause(t, 120) for t in texts]
    assert [describe.clause(t, 120) for t in texts] == first
    assert len(seen) == len(set(seen)) > 50
