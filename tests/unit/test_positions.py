"""Positions (line, column) of JSON pointers, checked against exact references.

References, written independently of ``toolcat.document.positions``:
* YAML: the start marks of ruamel.yaml's composer (what its round-trip ``.lc`` data holds),
  through ``yamlref`` (YAML 1.2 core schema, shared with ``test_yaml_reference.py``);
* JSON: the small recursive-descent parser below, which records where each value starts.
"""

from __future__ import annotations

import json
import random
import time

import pytest

import toolcat.document.positions as positions
from support import yamlref
from support.common import corpus
from toolcat.document.parse import load_file
from toolcat.document.pointer import escape
from toolcat.document.positions import build_index


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    # The fast scanners must place everything in these tests by themselves: no silent fallback.
    monkeypatch.setattr(positions, "STRICT", True)


# --------------------------------------------------------------------------- references

def json_reference(text: str) -> dict[str, tuple[int, int]]:
    """Every pointer of a JSON text -> (line, column) where its value starts (1-based)."""
    out: dict[str, tuple[int, int]] = {}
    line_starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            line_starts.append(i + 1)

    import bisect

    def pos(i: int) -> tuple[int, int]:
        ln = bisect.bisect_right(line_starts, i) - 1
        return ln + 1, i - line_starts[ln] + 1

    n = len(text)

    def ws(i: int) -> int:
        while i < n and text[i] in " \t\r\n":
            i += 1
        return i

    def string(i: int) -> tuple[str, int]:
        assert text[i] == '"'
        j = i + 1
        while text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return json.loads(text[i:j + 1]), j + 1

    def value(i: int, ptr: str) -> int:
        # (a key repeated with the same scalar, which the parser reads once: its first place,
        # as the index answers)
        out.setdefault(ptr, pos(i))
        c = text[i]
        if c == "{":
            i = ws(i + 1)
            if text[i] == "}":
                return i + 1
            while True:
                key, i = string(i)
                i = ws(i)
                assert text[i] == ":"
                i = value(ws(i + 1), ptr + "/" + escape(key))
                i = ws(i)
                if text[i] == "}":
                    return i + 1
                assert text[i] == ","
                i = ws(i + 1)
        if c == "[":
            i = ws(i + 1)
            k = 0
            if text[i] == "]":
                return i + 1
            while True:
                i = ws(value(i, f"{ptr}/{k}"))
                k += 1
                if text[i] == "]":
                    return i + 1
                assert text[i] == ","
                i = ws(i + 1)
        if c == '"':
            return string(i)[1]
        j = i
        while j < n and text[j] not in " \t\r\n,]}":
            j += 1
        return j

    value(ws(0), "")
    return out


def check_yaml(text: str, limit: int | None = None, seed: int = 0) -> int:
    ref, empty = yamlref.positions(text)
    idx = build_index(text, "yaml")
    ptrs = sorted(ref)
    if limit and len(ptrs) > limit:
        ptrs = random.Random(seed).sample(ptrs, limit)
    bad = []
    for p in ptrs:
        got = idx.locate(p)
        if p in empty:
            if got is None or got[0] != empty[p]:
                bad.append((p, got, ("key line", empty[p])))
        elif got != ref[p]:
            bad.append((p, got, ref[p]))
    assert not bad, f"{len(bad)} of {len(ptrs)} pointers misplaced, e.g. {bad[:5]}"
    return len(ptrs)


def check_json(text: str, limit: int | None = None, seed: int = 0) -> int:
    ref = json_reference(text)
    idx = build_index(text, "json")
    ptrs = sorted(ref)
    if limit and len(ptrs) > limit:
        ptrs = random.Random(seed).sample(ptrs, limit)
    bad = [(p, idx.locate(p), ref[p]) for p in ptrs if idx.locate(p) != ref[p]]
    assert not bad, f"{len(bad)} of {len(ptrs)} pointers misplaced, e.g. {bad[:5]}"
    return len(ptrs)


# --------------------------------------------------------------------------- hand-written cases

YAML_CASES = {
    "plain": "a: 1\nb:\n  c: x\n  d: [1, 2]\n",
    "special keys": (
        "paths:\n  /pets/{id}:\n    get: {}\n  'a~b/c': 1\n  \"quoted key\": 2\n"
        "  \"esc\\u00e9\\\"x\": 3\n  'it''s': 4\n  key with spaces  : 5\n  x:y: 6\n"
        "  a#b: 7\n  200: ok\n  '200x': 8\n  -dash: 9\n"),
    "sequences": (
        "s:\n- a\n- b: 1\n  c: 2\n-\n- - x\n  - y\n-   deep: 1\n    deeper: 2\nt:\n  - 1\n"
        "  -   2\n  - [3, 4]\n  - {k: v}\nu: []\n"),
    "block scalars": (
        "a: |\n  line one\n  b: not a key\n\n  - not an item\nb: >-\n  folded\n  text\nc: |2\n"
        "    indented\nd:\n  e: |\n    x: y\n  f: 1\n"),
    "comments": (
        "# head\na: 1 # trailing\n# between\nb:\n  # inside\n  c: 2\n\n   # odd indent\n"
        "  d: 3\n"),
    "flow": (
        "a: {x: 1, 'y': [1, 2, {z: 3}], \"w\": {}}\nb: [a, b c, 'd', \"e\", {f: g}]\n"
        "c: {\n  multi: line,\n  list: [\n    1,\n    2\n  ]\n}\n"
        "d: [http://x.y/z, a:b, -1, {k: }]\n"),
    "anchors and aliases": (
        "base: &b\n  x: 1\n  y: [1, 2]\nuse: *b\nlist:\n- &item\n  name: n\n- *item\n"
        "scalar: &s text\nagain: *s\nflow: [*s, &f {q: 1}, *f]\n"),
    "merge keys": "base: &b\n  x: 1\n  y: 2\nderived:\n  <<: *b\n  z: 3\n",
    "explicit keys": "? simple\n: value\n? /a/very/long/key\n: type: object\n  properties: {}\nafter: 1\n",
    "document markers": "%YAML 1.2\n---\na: 1\nb:\n  - 2\n...\n",
    "doc start inline": "--- \n# c\n\nroot:\n  k: v\n",
    "tags": "a: !!str 12\nb: !!int '3'\nc: !!map\n  k: v\nd: !!seq\n- 1\n",
    "empty values": "a:\nb:\n  c:\n  d: 1\ne:\n-\n- x\nf: ~\ng: null\n",
    "indentless in seq": "- a:\n  - 1\n  - 2\n  b: 3\n- c\n",
    "crlf": "a: 1\r\nb:\r\n  c: [1, 2]\r\n  d: |\r\n    text\r\n",
    "json in yaml": '{"a": {"b": [1, 2, {"c": "d"}]}, "e": "f"}\n',
    "quoted values and colons": (
        "a: \"x: y\"\nb: 'p: q'\nc: \"multi\n  line\"\nd: plain\n  continued not a key\n"
        "e: url://with:colons\n"),
    "multi-line flow closed at the key's indent": (
        'ex: {\n  "a": 1,\n  "b": [1,\n    2]\n}\nz: {k: v}\nl:\n  - {\n    a: 1\n  }\n  - x\n'
        "q: 'quoted\n  on two lines'\nw: [\n  1\n]\n"),
    "top-level sequence": "- name: a\n  v: 1\n- name: b\n",
    "indented root": "  a: 1\n  b:\n    c: 2\n",
    "numbers as keys": "2: two\n1.5: x\n0x1F: hex\ntrue: t\nnull: n\n'str': s\n1_000: u\n"
                       "0b11: b\n---x: dashes\n",
    "unicode": "ключ: значение\nemoji 😀: {inner: 1}\nlist:\n- é\n",
}


@pytest.mark.parametrize("name", sorted(YAML_CASES))
def test_yaml_cases_match_ruamel(name):
    assert check_yaml(YAML_CASES[name]) > 1


JSON_CASES = {
    "pretty": json.dumps({"a": {"b": [1, 2, {"c": None}], "d": "x"}, "e": []}, indent=2),
    "minified": json.dumps({"a": {"b": [1, 2, {"c": True}]}, "e": [[], {}], "f": -1.5e3}),
    "escapes": (
        '{"q\\"uote": {"in": 1}, "back\\\\slash": [1], "a~b/c": 2, "\\u00e9t\\u00e9": 3,'
        ' "brackets [{": "}] in a string", "s": "\\"[{"}'),
    "odd whitespace": '\r\n \t{ "a" :\r\n[ 1 ,2 , { "b" : { } } ] ,"c":\t"d" }\r\n',
    "top array": '[{"name": "x"}, [], "s", 0, null]',
    "unicode": json.dumps({"ключ": {"😀": ["é", {"z": 1}]}}, ensure_ascii=False, indent=1),
}


@pytest.mark.parametrize("name", sorted(JSON_CASES))
def test_json_cases_match_reference(name):
    assert check_json(JSON_CASES[name]) > 1


def test_alias_resolves_to_anchor_and_merge_keys_are_searched():
    text = YAML_CASES["merge keys"]
    idx = build_index(text, "yaml")
    # /derived/x comes from the merged mapping: placed where it is written (under base)
    assert idx.locate("/derived/x") == (2, 6)
    assert idx.locate("/derived/z") == (6, 6)
    text = YAML_CASES["anchors and aliases"]
    idx = build_index(text, "yaml")
    assert idx.locate("/use/y/1") == idx.locate("/base/y/1") == (3, 10)


def test_missing_pointer_gives_nearest_ancestor():
    y = build_index("a:\n  b:\n    c: 1\n  l: [1, 2]\n", "yaml")
    assert y.locate("/a/b/zz/q") == y.locate("/a/b") == (3, 5)
    assert y.locate("/a/l/7") == y.locate("/a/l") == (4, 6)
    assert y.locate("/a/l/01") == (4, 6)       # not an array index
    assert y.locate("/a/b/c/deeper") == (3, 8)  # into a scalar
    assert y.locate("/nope") == (1, 1)
    assert y.locate("") == (1, 1)
    assert y.locate("not-a-pointer") == (1, 1)
    j = build_index('{\n  "a": {"b": [10, 20]}\n}', "json")
    assert j.locate("/a/b/5") == j.locate("/a/b") == (2, 14)
    assert j.locate("/a/b/1/x") == (2, 19)
    assert j.locate("/zz") == (1, 1)


def test_empty_text_has_no_positions():
    assert build_index("", "yaml").locate("/a") is None
    assert build_index("  \n", "json").locate("") is None


def test_fallback_places_what_the_scanner_cannot(monkeypatch):
    # a complex (multi-line) explicit key: the fast scanner refuses, ruamel's composer answers
    monkeypatch.setattr(positions, "STRICT", False)
    text = "? |\n  block key\n: v\nb:\n  c: 1\n"
    idx = build_index(text, "yaml")
    assert idx.locate("/b/c") == (5, 6)


def test_sourcetext_locate_through_load_file(tmp_path):
    f = tmp_path / "cat.yaml"
    f.write_text("tools:\n  - name: a\n    inputSchema:\n      type: object\n")
    doc, src = load_file(str(f))
    assert doc["tools"][0]["name"] == "a"
    assert src.locate("/tools/0/inputSchema/type") == (4, 13)
    # a .json-less file holding JSON is located as what it was parsed as
    g = tmp_path / "cat"
    g.write_text('{"tools": [{"name": "a"}]}')
    _doc, src = load_file(str(g))
    assert src.locate("/tools/0/name") == (1, 21)


# --------------------------------------------------------------------------- the corpora

SMALL_YAML = [
    "openapi/oai-api-with-examples.openapi.yaml", "openapi/oai-callback-example.openapi.yaml",
    "openapi/oai-link-example.openapi.yaml", "openapi/oai-non-oauth-scopes.openapi.yaml",
    "openapi/oai-petstore-expanded.openapi.yaml", "openapi/oai-petstore.openapi.yaml",
    "openapi/oai-petstore.swagger2.yaml", "openapi/oai-uspto.openapi.yaml",
    "openapi/oai-webhook-example.openapi.yaml", "openapi/swagger-petstore-v3.openapi.yaml",
    "openapi/swagger-petstore-v31.openapi.yaml", "neo/file-system.openapi.yaml",
    "neo/github-workflow.openapi.yaml", "neo/gitlab-workflow.openapi.yaml",
    "neo/knowledge-base.openapi.yaml", "neo/memory-core.openapi.yaml",
    "neo/neural-link.openapi.yaml",
]
BIG_YAML = ["openapi/twilio-api-v2010.openapi.yaml", "openapi/sendgrid-v3.swagger2.yaml",
            "openapi/openai.openapi.yaml"]
JSON_FILES = ["openapi/oai-petstore.openapi.json",
              "openapi/swagger-petstore-v31-code-first.openapi.json",
              "openapi/box.openapi.json", "openapi/slack-web-api.swagger2.json"]


@pytest.mark.parametrize("rel", SMALL_YAML)
def test_corpus_yaml_every_pointer(rel):
    text = corpus(*rel.split("/")).read_text(encoding="utf-8")
    assert check_yaml(text) > 10


@pytest.mark.slow
@pytest.mark.parametrize("rel", BIG_YAML)
def test_corpus_big_yaml_sampled_pointers(rel):
    """Positions of 3000 sampled pointers, and (``test_yaml_reference``'s check, made here so
    that ruamel's pure-Python parse of each big file, ~10 s of CPU, runs once) toolcat's data
    of the whole file against the YAML 1.2 core-schema reference."""
    from test_yaml_reference import assert_same, reference

    from toolcat.document.parse import parse_yaml

    path = corpus(*rel.split("/"))
    text = path.read_text(encoding="utf-8")
    assert check_yaml(text, limit=3000, seed=len(rel)) == 3000
    assert_same(parse_yaml(text, str(path)), reference(text))


@pytest.mark.parametrize("rel", JSON_FILES)
def test_corpus_json_pointers(rel):
    text = corpus(*rel.split("/")).read_text(encoding="utf-8")
    assert check_json(text, limit=5000, seed=7) > 10


def test_corpus_snapshots_and_captures():
    snaps = sorted(corpus("github-mcp-server").glob("*.snap"))
    caps = sorted(corpus("mcp-context-cost").glob("*.json"))
    rng = random.Random(3)
    files = rng.sample(snaps, min(25, len(snaps))) + rng.sample(caps, min(25, len(caps)))
    total = 0
    for f in files:
        total += check_json(f.read_text(encoding="utf-8"), limit=800, seed=1)
    assert total > 1000


# --------------------------------------------------------------------------- speed

def _pointers(doc, limit: int, seed: int) -> list[str]:
    out: list[str] = []

    def walk(n, p):
        out.append(p)
        if isinstance(n, dict):
            for k, v in n.items():
                walk(v, p + "/" + escape(k))
        elif isinstance(n, list):
            for i, v in enumerate(n):
                walk(v, f"{p}/{i}")

    walk(doc, "")
    return random.Random(seed).sample(out, min(limit, len(out)))


@pytest.mark.parametrize("rel,budget", [("openapi/openai.openapi.yaml", 0.1),
                                        ("openapi/box.openapi.json", 0.05)])
def test_hundreds_of_positions_are_fast(rel, budget):
    doc, src = load_file(str(corpus(*rel.split("/"))))
    ptrs = _pointers(doc, 300, 11)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()  # CPU time: a busy machine does not fail the test
        idx = build_index(src.text, src.syntax)
        for p in ptrs:
            assert idx.locate(p) is not None
        best = min(best, time.process_time() - t0)
    # generous margin over the budget for slow CI machines; a quadratic step blows it anyway
    assert best < budget * 4, f"{len(ptrs)} positions took {best * 1000:.0f} ms"


# --------------------------------------------------------------------------- fuzz against the reference

def test_mutated_files_place_like_the_reference(monkeypatch):
    """Random mutations of real files that still parse: every pointer where the reference
    puts it (or the scanner declines and the exact fallback answers)."""
    import test_parse

    from toolcat.document.parse import parse_text
    from toolcat.errors import InputError

    seeds = test_parse._seed_files()
    rng = random.Random(20260101)
    checked = 0
    for i in range(400):
        name, text = seeds[i % len(seeds)]
        bad = test_parse.mutate(text, rng, rng.randint(1, 5))
        if "\ufeff" in bad:  # ruamel does not count BOM characters in columns
            continue
        syntax = "json" if name.endswith((".json", ".snap")) else "yaml"
        monkeypatch.setattr(positions, "STRICT", False)
        try:
            parse_text(bad, name, syntax)
        except InputError:
            continue
        if syntax == "json":
            ref, empty = json_reference(bad), {}
        else:
            try:
                ref, empty = yamlref.positions(bad)
            except Exception:  # noqa: BLE001 - the reference refuses what yaml-rs accepts
                continue
            yamlref.compose.cache_clear()
        if any(p.endswith("/null") or "/null/" in p for p in ref):
            continue  # an empty key (": v"): not placed by the scanner (documented)
        idx = build_index(bad, syntax)
        for p in sorted(ref)[:300]:
            got = idx.locate(p)
            if p in empty:
                assert got is not None and got[0] == empty[p], (i, p, got)
            else:
                assert got == ref[p], (i, name, p, got, ref[p])
        checked += 1
    assert checked > 50


def test_a_container_read_part_way_answers_every_order_of_lookups_alike():
    """A mapping (object) is read only as far as a lookup needs: keys before, at and after a
    construct the fast scanner cannot read (a complex key: the exact fallback places what
    lies past it), asked in any order and again, get the fallback's answers; in JSON the
    first of two equal keys."""
    text = "a: 1\n? [x, y]\n: 2\nb: 3\nc:\n  d: 4\ne: {f: 5}\n"
    ptrs = ["/a", "/b", "/c/d", "/e/f", "/a", "/b", "/zz"]
    want = [positions._FallbackIndex(text).locate(p) for p in ptrs]
    for order in (ptrs, ptrs[::-1], ptrs[2:] + ptrs[:2]):
        idx = build_index(text, "yaml")
        got = {p: idx.locate(p) for p in order}
        assert [got[p] for p in ptrs] == want
    doc = '{"a": 1, "b": {"c": [1, 2]}, "a": 3, "d": {"e": 4}}'
    for order in (["/d/e", "/a", "/b/c/1"], ["/a", "/b/c/1", "/d/e"]):
        idx = build_index(doc, "json")
        assert {p: idx.locate(p) for p in order} == {"/a": (1, 7), "/b/c/1": (1, 25),
                                                      "/d/e": (1, 49)}


def test_json_bracket_offsets_sparse_and_dense():
    # _bracket_offsets finds the brackets with str.find in sparse text (a pretty-printed
    # spec) and with one expression in dense text: every bracket, ascending, either way
    import random

    from toolcat.document.positions import _BRACKETS, _bracket_offsets

    rnd = random.Random(36)
    for n in range(60):
        alphabet = 'abc "\n' * rnd.choice((1, 20, 200)) + "[]{}"
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.choice((100, 5000, 90000))))
        assert _bracket_offsets(text) == [m.start() for m in _BRACKETS.finditer(text)]
    spec = json.dumps({"paths": {f"/p{i}": {"get": {"parameters": [{"name": "a"}]}}
                                 for i in range(3000)}}, indent=2)
    idx = build_index(spec, "json")
    lines = spec.split("\n")
    line = next(i for i, s in enumerate(lines, 1) if '"/p2999"' in s) + 4
    assert idx.locate("/paths/~1p2999/get/parameters/0/name") == \
        (line, lines[line - 1].index('"a"') + 1)
