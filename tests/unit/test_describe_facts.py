"""The cue search of schema descriptions (project.describe.cues) is made once per distinct
sentence (issue 35: a catalog repeats its descriptions), and what depends on the node and
on the names is still judged on each call."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.common import corpus
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


def _facts_whole(sentence: str) -> tuple:
    """:func:`describe._facts` as the case-blind searches of the sentence itself give it."""
    m = describe._EXAMPLE.search(sentence)
    return (describe._DOCS.search(sentence) is not None,
            describe._FORMAT.search(sentence) is not None,
            describe._DEPENDS.search(sentence) is not None,
            tuple(n.group(1) for n in describe._NAMED.finditer(sentence)),
            describe._VALUES.search(sentence) is not None,
            m is not None and any(len(w.group(0).strip("'\"`“”‘’.")) > 1
                                  for w in describe._SHAPED.finditer(sentence, m.end())))


def _sentences_whole(text: str) -> list[str]:
    """:func:`describe.sentences` with each abbreviation searched in the whole chunk."""
    s = describe.collapse(text)
    out, start = [], 0
    for m in describe._SENTENCE.finditer(s):
        if describe._ABBREV.search(s[start:m.start()]):
            continue
        out.append(s[start:m.end()].rstrip())
        start = m.end()
    if start < len(s):
        out.append(s[start:])
    return [p for p in out if p]


_WORDS = ["Use", "ISO 8601", "RFC3339", "UTC", "Time zones", "BASE64", "KiB", "MB", "5s",
          "10 ms", "e.g.", "E.g.", "For Example:", "such as 'a-1'", "One Of", "Possible Values",
          "returned BY", "Calling getUser", "call `x`", "Only When", "See", "For More Info",
          "approx.", "xapprox.", "No.", "cf.", "A.", "etc.", "Incl.", "vs.", "x.", "The end.",
          "k", "K", "ſ", "İ", "ı", "\u212a", "é", ",", "(", ")", "\"", "'", "-", "/", ":", ";",
          "2024-01-01", "YYYY-MM-DD", "hh:mm", "unix epoch", "Hex", "Percentage", "px", "!",
          "?", "。", " "]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14))
def test_the_folded_searches_and_the_abbreviation_window_change_nothing(words):
    """An ASCII sentence is searched lower-cased without case folding, and an abbreviation
    before a stop in the last characters of its chunk: the same facts and sentences as the
    case-blind searches of the text itself (Unicode folds included: ſ, K, İ)."""
    text = " ".join(words)
    for s in (text, text.replace(" ", ". ")):
        assert describe._facts(s) == _facts_whole(s)
        assert describe.sentences(s) == _sentences_whole(s)


def test_the_folded_searches_on_every_corpus_description():
    texts = _descriptions("openai.openapi.yaml") + _descriptions("box.openapi.json")
    assert len(texts) > 100
    for text in texts:
        assert describe.sentences(text) == _sentences_whole(text)
        for s in _sentences_whole(text):
            assert describe._facts(s) == _facts_whole(s)


def test_the_abbreviation_window_holds_the_longest_abbreviation():
    import re

    words = re.findall(r"[a-z]+", describe._ABBREV.pattern.split(")\\.")[0])
    assert max(len(w) for w in words) + 1 == describe._ABBREV_LEN      # "approx."
