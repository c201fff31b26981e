"""The standard view counted once per distinct piece (issue 35): :class:`toolcat.tokens.Tally`
counts a text given in parts (plain bytes, :class:`~toolcat.tokens.Shared` definitions
entries, :class:`~toolcat.tokens.Group` definitions maps) from the distinct pieces it cuts
where a count cannot change, and :mod:`toolcat.features.project.parts` writes descriptors in
those parts. The figures must be exactly those of the whole text: its plain BPE count, its
length and SHA-256, over every corpus catalog and over generated schemas that repeat their
definitions."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.common import CORPUS, SAMPLES, corpus
from support.counting import RecordingCounter
from toolcat import tokens
from toolcat.api import load_all, project
from toolcat.document.canonical import dumps
from toolcat.features.project.parts import DescriptorParts, size
from toolcat.features.project.prose import model_facing
from toolcat.features.project.report import summary_figures
from toolcat.formats import targets


def _plain(text: bytes) -> int:
    """The count of ``text`` as one whole, without any piece or memo."""
    return len(tokens.encoding().encode_ordinary(text.decode("utf-8", "surrogatepass")))


def _tally(counter, items: list, envelope) -> tokens.Tally:
    """The canonical array of ``items`` through a Tally (as the summary and measure add it)."""
    writer = DescriptorParts(envelope)
    tally = tokens.Tally(counter, hash=True)
    tally.add(b"[")
    for i, item in enumerate(items):
        if i:
            tally.add(b",")
        parts = writer.parts(item)
        assert writer.text(item) == dumps(item)
        assert size(parts) == len(dumps(item))
        tally.add_parts(parts)
    tally.add(b"]")
    tally.close()
    return tally


def _check(items: list, envelope) -> tuple[int, int]:
    """The Tally's figures of ``items`` are the whole text's: (bytes submitted, of the view)."""
    c = RecordingCounter()
    tally = _tally(c, items, envelope)
    whole = dumps(items)
    assert tally.size == len(whole)
    assert tally.hash.hexdigest() == hashlib.sha256(whole).hexdigest()
    assert tally.total(c.results()) == _plain(whole)
    assert len(c.texts) == len(set(c.texts))             # each distinct piece once
    return sum(map(len, c.texts)), len(whole)


def _catalogs() -> list:
    paths = []
    for sub, pattern in (("openapi", "*"), ("neo", "**/*.yaml"), ("mcp-context-cost", "*.json"),
                         ("openwop", "*.json")):
        paths += sorted(p for p in (CORPUS / sub).glob(pattern)
                        if p.is_file() and p.suffix in (".json", ".yaml", ".yml"))
    if (CORPUS / "github-mcp-server").is_dir():
        paths.append(CORPUS / "github-mcp-server")
    paths += sorted(p for p in SAMPLES.iterdir() if p.suffix in (".json", ".yaml")
                    and "broken" not in p.name)
    return paths


def test_every_corpus_catalog_counts_as_its_whole_standard_view():
    """Every catalog of the corpus and the samples, in the MCP envelope and OpenAI's (a body
    inside the item): the standard view and its model-facing part."""
    corpus("openapi")
    counted = shared = 0
    for path in _catalogs():
        try:
            cats = load_all([str(path)])
        except Exception:  # noqa: BLE001 - not a catalog (a capture without tools)
            continue
        for to in ("mcp", "openai"):
            proj = project(cats, to=to, duplicate_ids="keep")
            env = targets.get(proj.target)
            items = [t.standard for t in proj.tools]
            _check(items, env)
            _check([model_facing(env, i) for i in items], env)
            counted += 1
            shared += any(p.__class__ is tokens.Group for i in items
                          for p in DescriptorParts(env).parts(i))
    assert counted > 100 and shared > 10, (counted, shared)


@pytest.mark.parametrize("to", ["mcp", "openai", "anthropic"])
@pytest.mark.parametrize("view", ["compact", "standard"])
def test_the_summary_figures_are_the_whole_texts(to, view):
    proj = project(load_all([str(corpus("openapi", "box.openapi.json"))]), to=to, view=view)
    c = RecordingCounter()
    figs = summary_figures(proj, counter=c)
    env = proj.envelope
    before = dumps([t.standard for t in proj.tools])
    after = bytes(proj.array_view())
    assert figs["bytes_before"] == len(before)
    assert figs["tokens_before"] == _plain(before)
    assert figs["tokens_after"] == _plain(after)
    assert figs["model_tokens_before"] == _plain(dumps([model_facing(env, t.standard)
                                                         for t in proj.tools]))
    assert figs["model_tokens_after"] == _plain(dumps([model_facing(env, t.descriptor)
                                                        for t in proj.tools]))
    # the standard view is never handed over whole: its distinct pieces are (the compact
    # view and its model-facing part are, last), far less than it where its tools bundle
    # definitions (MCP: with their output schemas)
    same = view == "standard" and all(t.descriptor is t.standard for t in proj.tools)
    pieces = c.texts[:-1 if same else -2]
    assert c.texts[-1] == dumps([model_facing(env, t.descriptor) for t in proj.tools])
    assert same or c.texts[-2] == after
    assert before not in pieces
    assert sum(map(len, pieces)) < len(before) / (4 if to == "mcp" else 1)


def test_the_work_grows_with_what_is_distinct():
    """Tools that bundle the same definitions again add nothing to what is counted."""
    proj = project(load_all([str(corpus("openapi", "box.openapi.json"))]))
    env = proj.envelope
    items = [t.standard for t in proj.tools]
    once, whole = _check(items, env)
    thrice, whole3 = _check(items * 3, env)
    assert whole3 > 3 * whole - 10
    assert thrice < once + 1000          # (the joins between the copies)


# ----------------------------------------------------------------- generated schemas

_NAMES = st.one_of(st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,12}", fullmatch=True),
                   st.sampled_from(["$x", "_y", "1a", "é", "", "a\"b", "{\"c", " ", "A"]))
_STRINGS = st.one_of(st.text(max_size=20),
                     st.sampled_from(['{"a', ',"b', ':"c', '["d', '"', "\\", " " * 40, "\n",
                                      "é😀", "type", "description", "properties"]))
_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _STRINGS,
                  st.floats(allow_nan=False, allow_infinity=False))
_KEYS = st.one_of(st.sampled_from(["type", "description", "properties", "items", "enum",
                                   "$ref", "title", "x", "_k", "1"]), _STRINGS)
_JSON = st.recursive(_LEAF, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(_KEYS, kids, max_size=5)), max_leaves=12)
_ENTRY = st.dictionaries(_KEYS, _JSON, max_size=5)


@st.composite
def _tools(draw):
    """Descriptors whose schemas bundle definitions maps: the same entry objects and the
    same map objects again and again (as an OpenAPI spec's tools), and some maps of their
    own."""
    entries = draw(st.lists(_ENTRY, min_size=1, max_size=6))
    names = draw(st.lists(_NAMES, min_size=len(entries), max_size=len(entries), unique=True))

    def a_map():
        picked = draw(st.lists(st.integers(0, len(entries) - 1), min_size=1, max_size=6,
                               unique=True))
        return {names[i]: entries[i] for i in picked}

    maps = [a_map() for _ in range(draw(st.integers(1, 3)))]
    tools = []
    for i in range(draw(st.integers(1, 6))):
        tool = {"name": draw(_STRINGS), "description": draw(_STRINGS)}
        for field in ("inputSchema", "outputSchema"):
            if draw(st.booleans()):
                schema = {"type": "object", **draw(st.dictionaries(_KEYS, _JSON, max_size=3))}
                key = draw(st.sampled_from(["$defs", "definitions"]))
                schema[key] = draw(st.sampled_from(maps)) if draw(st.booleans()) else a_map()
                if draw(st.booleans()):
                    schema["after"] = draw(_JSON)
                tool[field] = schema
        if draw(st.booleans()):
            tool["annotations"] = draw(st.dictionaries(_KEYS, _LEAF, max_size=2))
        tools.append(tool)
    return tools


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tools())
def test_generated_tools_with_repeated_definitions_count_as_their_whole_text(tools):
    _check(tools, targets.get("mcp"))
    # the same bodies inside an envelope (OpenAI's function tools)
    env = targets.get("openai")
    wrapped = [{"type": "function", "function": {
        "name": t["name"], "description": t["description"],
        **({"parameters": t["inputSchema"]} if "inputSchema" in t else {})}} for t in tools]
    _check(wrapped, env)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_STRINGS.map(str.encode), _JSON.map(dumps).map(tokens.Shared),
                          st.lists(st.tuples(_NAMES, _ENTRY), min_size=1, max_size=4,
                                   unique_by=lambda t: t[0])),
                max_size=12))
def test_any_parts_count_as_their_text(parts):
    """Plain bytes, shared parts and groups in any order, even where the places to cut fall
    across the parts: the count is the joined text's."""
    given_parts = []
    for p in parts:
        if isinstance(p, list):
            shared = {n: tokens.Shared(dumps(e)) for n, e in p}
            given_parts.append(tokens.Group([json.dumps(n).encode() for n in shared],
                                            list(shared.values())))
        else:
            given_parts.append(p)
    text = b"".join(b"".join(q.text if isinstance(q, tokens.Shared) else q
                             for q in (p.parts() if isinstance(p, tokens.Group) else [p]))
                    for p in given_parts)
    for twice, tiny in ((1, False), (2, False), (1, True)):
        with pytest.MonkeyPatch.context() as mp:
            if tiny:     # plain text counted as it comes, pieces taken as plain text
                mp.setattr(tokens, "_RUN_MAX", 8)
                mp.setattr(tokens, "_TAIL_MAX", 8)
            c = RecordingCounter()
            seen = tokens.Seen()
            for _ in range(twice):      # the second time from what was seen
                tally = tokens.Tally(c, seen)
                tally.add_parts(given_parts)
                tally.close()
            assert tally.size == len(text)
            assert tally.total(c.results()) == _plain(text)


def test_a_counter_that_reads_json_is_given_the_whole_text():
    """``measure --as harmony``'s counter reads each text as JSON: it is given the whole."""
    class Json:
        name = "json"

        def __init__(self):
            self.texts = []

        def submit(self, data):
            self.texts.append(json.loads(data))
            return len(self.texts) - 1

    proj = project(load_all([str(corpus("openapi", "box.openapi.json"))]))
    c = Json()
    tally = _tally(c, [t.standard for t in proj.tools], proj.envelope)
    assert c.texts == [json.loads(dumps([t.standard for t in proj.tools]))]
    assert tally.total([7]) == 7


def test_a_tally_adds_up_what_was_counted_and_keeps_only_the_rest(monkeypatch):
    """Memory of a long text in many distinct pieces (a streamed catalog of a million tools):
    the pieces already counted are summed as they come (``Tally._fold``), the others kept;
    the total is that of the whole text, exactly, with a forked counter and an in-process
    one, and the pieces kept stay few."""
    monkeypatch.setattr(tokens, "_FOLD_MIN", 16)
    monkeypatch.setattr(tokens, "_RUN_MAX", 2048)
    items = [dumps({"name": f"tool_{i}", "description": f"Does thing number {i} " * (i % 7 + 1),
                    "inputSchema": {"type": "object", "properties": {
                        f"arg{i}": {"type": "string", "description": f"the {i}th argument"}}}})
             for i in range(600)]
    text = b"[" + b",".join(items) + b"]"
    for c in (tokens.Counter(), tokens.ForkedCounter()):
        tally = tokens.Tally(c)
        most = 0
        tally.add(b"[")
        for i, item in enumerate(items):
            tally.add((b"," if i else b"") + item)
            most = max(most, len(tally._uses))
        tally.add(b"]")
        tally.close()
        counts = c.results()
        assert tally.total(counts) == _plain(text)
        assert tally.size == len(text)
        if not isinstance(c, tokens.ForkedCounter):     # (its answers come when they come)
            assert tally._folded > 0
            assert most < len(counts) / 4  # (without the sums: one per distinct piece)
    # a forked counter drops each text once answered
    assert not c._pending


def test_a_tally_folds_the_groups_it_counted(monkeypatch):
    """Memory of a streamed catalog whose tools each bring their own definitions (a group
    each): the groups whose pieces were all counted are summed as they come, like the plain
    pieces (``Tally._fold``), not kept to the end; the total is the whole text's, exactly."""
    monkeypatch.setattr(tokens, "_FOLD_MIN", 16)
    items = [{"name": f"tool_{i}", "inputSchema": {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "description": f"the {i}th definition " * (i % 5 + 1)},
                  "B": {"enum": [i, i + 1]}}}} for i in range(400)]
    env = targets.get("mcp")
    c = tokens.Counter()
    tally = tokens.Tally(c)
    most = 0
    writer = DescriptorParts(env)
    tally.add(b"[")
    for i, item in enumerate(items):
        if i % 4 == 0:      # (a streamed catalog's batches, each with its own objects)
            writer = DescriptorParts(env)
        parts = writer.parts(item)
        assert any(isinstance(p, tokens.Group) for p in parts)
        if i:
            tally.add(b",")
        tally.add_parts(parts)
        most = max(most, len(tally._groups))
    tally.add(b"]")
    tally.close()
    text = dumps(items)
    assert tally.total(c.results()) == _plain(text)
    assert tally.size == len(text)
    assert most < len(items) / 4    # (without the folding: one per tool)
