"""The lint engine's fast paths give the same answers as the plain algorithms they replace.

Each test holds a straightforward reference implementation (the definition) and compares it
with the optimized code on generated inputs: origin lookups (`Tool.source_pointer`), the
secret scan (`TC105`: values, pointers and order), the token-shape prefilter, and the node
rules' trigger keys (a rule skipped on a node without its keys would have reported nothing).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcat.document import pointer as jp
from toolcat.features.lint.engine import Node
from toolcat.features.lint.registry import all_rules
from toolcat.features.lint.rules import secrets
from toolcat.model import FILE_MARK, Tool

# ----------------------------------------------------------------- Tool.source_pointer


def reference_source_pointer(tool: Tool, tool_pointer: str) -> tuple[str, str]:
    """The definition: the longest origin prefix of the pointer (the last pair of equal
    prefixes), ``""`` matching everything; the rest appended to its source pointer."""
    best_prefix, best_src = "", tool.pointer
    for prefix, src in tool.origin:
        if (tool_pointer == prefix or tool_pointer.startswith(prefix + "/") or prefix == "") \
                and len(prefix) >= len(best_prefix):
            best_prefix, best_src = prefix, src
    rest = tool_pointer[len(best_prefix):]
    file = tool.file
    if best_src.startswith(FILE_MARK):
        _, file, best_src = best_src.split(FILE_MARK, 2)
    if best_src.startswith("\0"):
        return file, best_src[1:]
    return file, best_src + rest


TOKENS = st.sampled_from(["inputSchema", "properties", "a", "b", "a~1b", "", "0", "items", "x/y"])
POINTERS = st.lists(TOKENS, max_size=5).map(lambda ts: "".join("/" + t for t in ts))
SOURCES = st.one_of(
    POINTERS.map(lambda p: "/paths/~1x/get" + p),
    POINTERS.map(lambda p: "\0/components/schemas/S" + p),
    POINTERS.map(lambda p: f"{FILE_MARK}other.yaml{FILE_MARK}/defs" + p),
)


@given(st.lists(st.tuples(POINTERS | st.just(""), SOURCES), max_size=12),
       st.lists(POINTERS | st.sampled_from(["", "abc", "/"]), min_size=1, max_size=8),
       st.sampled_from(["", "/paths/~1x/get"]))
def test_source_pointer_matches_the_linear_definition(origin, pointers, own):
    tool = Tool(id="t", file="api.yaml", pointer=own, origin=list(origin))
    for p in pointers:
        assert tool.source_pointer(p) == reference_source_pointer(tool, p)
    # origins added after a lookup are seen by the next one
    tool.origin.append(("/inputSchema", "/late"))
    tool.origin.append(("/inputSchema", "/later"))
    for p in pointers:
        assert tool.source_pointer(p) == reference_source_pointer(tool, p)


# ----------------------------------------------------------------- secret scan


def reference_scan(value, base, seen, hints=None):
    """The definition of TC105's walk: every container once (``seen``), depth first with the
    last member first, pointers built on the way down."""
    def shape_of(v):
        if hints is None:
            return secrets.shape(v)
        return secrets.shape(v) if any(h in v for h in hints) else None

    stack = [(value, base, "", False)]
    while stack:
        v, ptr, key, holder = stack.pop()
        if isinstance(v, str):
            what = shape_of(v)
            if what:
                yield ptr, f"value looks like {what}"
            elif holder and not secrets.placeholder(v, key):
                yield ptr, f"{key!r} holds a literal secret value"
            continue
        if isinstance(v, dict):
            if id(v) in seen:
                continue
            seen.add(id(v))
            for k, sub in v.items():
                p = ptr + "/" + jp.escape(k)
                if isinstance(sub, str):
                    if secrets.secret_key(k):
                        what = shape_of(sub)
                        if what:
                            yield p, f"value looks like {what}"
                        elif not secrets.placeholder(sub, k):
                            yield p, f"{k!r} holds a literal secret value"
                    else:
                        stack.append((sub, p, k, holder and k in secrets._HOLDERS))
                elif isinstance(sub, dict) and secrets.secret_key(k):
                    if id(sub) in seen:
                        continue
                    seen.add(id(sub))
                    for hk, hv in sub.items():
                        stack.append((hv, p + "/" + jp.escape(hk), k, hk in secrets._HOLDERS))
                elif isinstance(sub, (dict, list)):
                    stack.append((sub, p, k, holder and k in secrets._HOLDERS))
        elif isinstance(v, list):
            if id(v) in seen:
                continue
            seen.add(id(v))
            for i, sub in enumerate(v):
                stack.append((sub, f"{ptr}/{i}", key, holder))


TOKEN_SAMPLES = [
    "AKIA" + "Q" * 16, "AIza" + "b" * 35, "ghp_" + "x1" * 18, "github_pat_" + "a1" * 30,
    "glpat-" + "x9" * 10, "xoxb-123456789012-abcdefghijkl",
    "https://hooks.slack.com/services/T0123456/B0123456/" + "a" * 24,
    "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIE" * 12,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0." + "s" * 20, "sk-" + "Ab1" * 16,
    "sk-ant-api03-" + "k" * 50, "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20,
    "sk-proj-" + "c" * 48, "sk_live_" + "d" * 24, "SG." + "e" * 22 + "." + "f" * 43,
    "npm_" + "g" * 36, "hf_" + "h" * 34, "AccountKey=" + "A" * 70,
]
KEYS = st.sampled_from(["apiKey", "api_key", "token", "password", "client_secret", "tokens",
                        "pageToken", "default", "examples", "example", "enum", "const", "name",
                        "description", "properties", "items", "a/b", "x~y", "credentials"])
STRINGS = st.one_of(st.sampled_from(TOKEN_SAMPLES),
                    st.sampled_from(["s3cr3t-Value9", "hunter22", "<your-token>", "${TOKEN}",
                                     "changeme", "string", "a b c d", "Zq8LmP0xRt"]),
                    st.text(max_size=12))
JSON = st.recursive(
    st.one_of(STRINGS, st.integers(), st.booleans(), st.none()),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(KEYS, kids, max_size=5)),
    max_leaves=40)


def _share(doc):
    """Reuse one container in two places (the walk must visit it once)."""
    if isinstance(doc, dict) and doc:
        k = next(iter(doc))
        if isinstance(doc[k], (dict, list)):
            return {"first": doc[k], "again": doc[k], "rest": doc}
    return doc


@given(JSON, st.sampled_from(["none", "empty", "text", "loose"]), st.booleans())
def test_scan_matches_the_plain_walk(doc, hint_mode, share):
    if share:
        doc = _share(doc)
    import json

    text = json.dumps(doc)
    hints = {"none": None, "empty": frozenset(), "text": secrets.shape_hints(text),
             "loose": frozenset({"a", "e", "_"})}[hint_mode]
    want = list(reference_scan(doc, "/base", set(), hints))
    got = list(secrets.scan(doc, "/base", set(), hints))
    assert got == want
    # a container already seen is skipped, and everything visited is marked seen
    seen: set[int] = set()
    list(secrets.scan(doc, "", seen, hints))
    assert list(secrets.scan(doc, "", seen, hints)) == [] or isinstance(doc, str)


def reference_hints(text: str) -> frozenset[str] | None:
    if secrets._HIDING_ESCAPES.search(text) is not None:
        return None
    found = set()
    for lit, rxs in secrets._BY_LITERAL.items():
        i = text.find(lit)
        while i != -1:
            for rx in rxs:
                m = re.compile(rx).search(text, max(0, i - 64), i + secrets._MAX_TOKEN)
                if m is not None and m.start() <= i < m.end():
                    found.add(secrets._CUT.split(m.group(0), 1)[0])
            i = text.find(lit, i + 1)
    return frozenset(found)


PIECES = st.one_of(st.sampled_from(TOKEN_SAMPLES), st.sampled_from(list(secrets._BY_LITERAL)),
                   st.text(alphabet="AKISghp_xoeyJsk-T3SG.nf ", max_size=30))


@given(st.lists(PIECES, max_size=8))
def test_shape_hints_find_every_literal(pieces):
    text = "".join(pieces)
    assert secrets.shape_hints(text) == reference_hints(text)


def test_shape_hints_literals_at_every_place():
    # each literal is found by its anchor's pass wherever it is written: at the very start
    # and end of the text (the look-behind and look-ahead reach the edges), glued to another
    # literal, and after a near miss of itself; the passes report every literal occurrence
    lits = list(secrets._BY_LITERAL)
    assert sorted(lit for _f, at in secrets._FINDERS for lit, _o in at) == sorted(lits)
    for sample in TOKEN_SAMPLES:
        for text in (sample, "x" + sample, sample + " " + sample[:-1] + "-" + sample,
                     sample[:2] + sample, "".join(TOKEN_SAMPLES) + sample):
            assert secrets.shape_hints(text) == reference_hints(text), text
    for lit in lits:
        text = lit + "".join(lits) + lit[:-1] + lit
        occ = {(i, x) for x in lits for i in range(len(text)) if text.startswith(x, i)}
        got = {(m.start() - off, x) for f, at in secrets._FINDERS for m in f.finditer(text)
               for x, off in at if m.start() >= off and text.startswith(x, m.start() - off)}
        assert got == occ


def test_shape_hints_overlapping_literals():
    # literals starting inside other literals' occurrences are all found
    text = "ACCAKIA" + "Q" * 13 + " ghp_" + "x1" * 18 + " AIzaIzaSyA" + "b" * 29
    want = reference_hints(text)
    assert secrets.shape_hints(text) == want
    assert want == {"ACCAKIA" + "Q" * 13, "ghp_" + "x1" * 18, "AIzaIzaSyA" + "b" * 29}


# ----------------------------------------------------------------- node rule triggers

NODE_KEYS = st.sampled_from(["type", "properties", "items", "enum", "const", "default",
                             "required", "description", "title", "$comment", "$ref", "oneOf",
                             "anyOf", "allOf", "not", "$defs", "if", "then", "dependencies",
                             "additionalProperties", "patternProperties", "nullable",
                             "format", "minimum", "examples", "x-foo", "descripton"])
NODE_VALUES = st.one_of(st.sampled_from(["object", "string", "integer", "#/$defs/a", "x" * 400]),
                        st.integers(), st.booleans(), st.just([]), st.just(["a"]),
                        st.just({"a": {"type": "string"}}), st.just([{"type": "string"}]))
NODES = st.dictionaries(NODE_KEYS, NODE_VALUES, max_size=6)
PATHS = st.sampled_from([(), ("properties", "a"), ("items",), ("allOf", 0),
                         ("properties", "a", "properties", "b", "items", "properties", "c",
                          "items", "properties", "d", "properties", "e")])


def _ctx(fmt: str):
    """The engine's own context for an empty catalog of format ``fmt`` under the default
    profile (a stand-in would miss what rules read: the catalog's format, its view...)."""
    from toolcat.config import Config
    from toolcat.features.lint.engine import Context
    from toolcat.features.lint.profiles import DEFAULT_PROFILE, PROFILES
    from toolcat.model import Catalog

    return Context(Catalog(file="t.json", format=fmt), Config(), PROFILES[DEFAULT_PROFILE], {})


@given(NODES, PATHS, st.sampled_from(["2020-12", "draft-07"]),
       st.sampled_from(["mcp", "openapi", "gemini"]))
def test_rules_with_trigger_keys_report_nothing_without_them(node, path, dialect, fmt):
    ctx = _ctx(fmt)
    for r in all_rules():
        if r.scope != "node" or r.keys is None:
            continue
        bare = {k: v for k, v in node.items() if k not in r.keys}
        root: dict = {}
        cur = root
        for tok in path[:-1]:
            cur = cur.setdefault(tok, {})
        tool = Tool(id="t", input_schema=root if path else bare, output_schema=None)
        n = Node(path, bare, dialect, "input", "/inputSchema")
        assert list(r.check(ctx, tool, n)) == [], r.code
        for other in (True, False, "x", 3, None, []):
            assert list(r.check(ctx, tool, Node(path, other, dialect, "input",
                                                "/inputSchema"))) == [], r.code


def test_every_trigger_key_is_a_keyword_or_documented():
    # a typo in a trigger set would silence a rule: every key must be a schema keyword
    from toolcat.schema.keywords import DIALECTS, KEYWORDS

    known = {k for d in DIALECTS for k in KEYWORDS[d]}
    for r in all_rules():
        if r.keys is not None:
            assert r.keys and r.keys <= known, (r.code, r.keys - known)
            assert all(re.fullmatch(r"\$?[A-Za-z]+", k) for k in r.keys)


# ----------------------------------------------------------------- YAML scanner patterns

_DOC_MARK = r"(?:---|\.\.\.)(?=[ \t\n]|\Z)"


def reference_map_scan(c: int) -> re.Pattern:
    """positions._map_scan as first written (no lookahead prefilter, no possessive run)."""
    end = _DOC_MARK + (r"| {0,%d}[^ \t\n#]" % (c - 1) if c > 0 else "")
    return re.compile(
        r"\n(?:(?P<end>%s)| {%d}(?:(?P<simple>[^ \t\n\"'#&!*?\[\]{}|>@`%%,:-][^:\n#]*?)"
        r"[ \t]*:(?=[ \t\n]|\Z)(?:(?=[ \t]*(?:[&!][^ \t\n]*[ \t]+)*(?P<vs>[\[{\"'])))?"
        r"|(?P<other>(?=[^ \t\n#])(?![-:](?:[ \t\n]|\Z)))))" % (end, c))


def reference_seq_scan(c: int) -> re.Pattern:
    end = _DOC_MARK + (r"| {0,%d}[^ \t\n#]" % (c - 1) if c > 0 else "")
    end += r"| {%d}(?!-(?:[ \t\n]|\Z))[^ \t\n#]" % c
    return re.compile(r"\n(?:(?P<end>%s)| {%d}(?P<item>-)(?=[ \t\n]|\Z))" % (end, c))


LINE_BODIES = st.sampled_from(["key: value", "key:", "- item", "-", "- k: v", "# note", "",
                               "\tx: 1", "'q k': 1", '"q": [1', "? k", ": v", "---", "...",
                               "a: {b: 1}", "k: &a x", "k: !t x", "-x", "::", "a:b", " "])
YAML_LINES = st.lists(st.tuples(st.integers(0, 9), LINE_BODIES), max_size=25)


@given(YAML_LINES, st.integers(0, 7), st.integers(0, 30))
def test_yaml_scan_patterns_match_the_originals(lines, c, start):
    from toolcat.document import positions

    text = "\n" + "\n".join(" " * n + body for n, body in lines) + "\n"
    start = min(start, len(text))
    for new, old in ((positions._map_scan(c), reference_map_scan(c)),
                     (positions._seq_scan(c), reference_seq_scan(c))):
        got = [(m.span(), m.groupdict(), [m.span(g) for g in m.groupdict()])
               for m in new.finditer(text, start)]
        want = [(m.span(), m.groupdict(), [m.span(g) for g in m.groupdict()])
                for m in old.finditer(text, start)]
        assert got == want


def reference_shape(value: str) -> str | None:
    if len(value) < secrets._MIN_SHAPE_LEN:
        return None
    m = re.compile(secrets._ANY_SOURCE).search(value)
    return None if m is None else secrets._SHAPES[int(m.lastgroup[1:])][0]


@given(st.lists(PIECES, max_size=6))
def test_shape_literal_prefilter_changes_nothing(pieces):
    text = "".join(pieces)
    assert secrets.shape(text) == reference_shape(text)


def test_every_token_shape_contains_a_literal():
    # the prefilters (whole text, and per string) rely on it
    for what, lits, rx in secrets._SHAPES:
        for sample in TOKEN_SAMPLES:
            m = re.search(rx, sample)
            if m:
                assert any(lit in m.group(0) for lit in lits), (what, sample)
    assert all(reference_shape(t) and secrets.shape(t) == reference_shape(t)
               for t in TOKEN_SAMPLES)


def _findings(cats):
    from toolcat.config import Config
    from toolcat.features.lint.engine import lint

    return [(f.file, f.tool, f.code, f.severity, f.message, f.pointer, f.source_pointer,
             f.line, f.column) for f in lint(cats, Config()).findings]


@pytest.mark.parametrize("name", ["openai.openapi.yaml", "twilio-api-v2010.openapi.yaml",
                                  "sendgrid-v3.swagger2.yaml", "slack-web-api.swagger2.json"])
def test_shared_definitions_lint_like_copies(name):
    """OpenAPI tools share their bundled definitions (the same ``$defs`` object for the same
    closure); the rules and the engine remember what they read per object. Linting the
    catalog gives the same findings as linting it with every tool's schemas deep-copied
    (nothing shared between tools)."""
    import copy

    from support.common import corpus
    from toolcat.api import load_all

    path = str(corpus("openapi", name))
    shared = load_all([path])
    by_defs: dict[int, list] = {}
    for t in shared[0].tools:
        for s in (t.input_schema, t.output_schema):
            if isinstance(s, dict) and isinstance(s.get("$defs"), dict):
                by_defs.setdefault(id(s["$defs"]), []).append(t.id)
    assert any(len(ids) > 1 for ids in by_defs.values())   # sharing happens
    copied = load_all([path])
    for t in copied[0].tools:
        t.input_schema = copy.deepcopy(t.input_schema)
        t.output_schema = copy.deepcopy(t.output_schema)
    assert _findings(shared) == _findings(copied)


def test_token_expressions_are_compiled_only_near_a_literal():
    # start-up: a catalog holding no token literal compiles none of the token expressions
    import subprocess
    import sys

    from support.common import REPO

    code = ("import sys\nfrom toolcat import api\nfrom toolcat.features.lint.rules import secrets\n"
            "api.lint(api.load(sys.argv[1]))\nprint(len(secrets._COMPILED))\n"
            "secrets.shape_hints('x ghp_' + 'a' * 36)\nprint(len(secrets._COMPILED))\n")
    r = subprocess.run([sys.executable, "-c", code, "samples/git.tools.json"], cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "1"]


@given(st.lists(st.one_of(st.sampled_from(["a", "b", "A", ""]), st.integers(0, 2),
                          st.booleans(), st.none(), st.floats(0, 2), st.lists(st.just("a"))),
                max_size=5))
def test_metaschema_unique_is_the_json_equality_one(items):
    # SC301's uniqueness: lists of strings are compared as strings, the rest by JSON value
    # (1 == 1.0, True != 1), as the plain rule does
    from toolcat.features.lint.rules import metaschema

    want = len({metaschema._ukey(x) for x in items}) == len(items)
    assert metaschema._unique(items) == want
    strings = [x for x in items if isinstance(x, str)]
    assert metaschema._unique(strings) == (len({metaschema._ukey(x) for x in strings})
                                           == len(strings))


class _Obj(dict):
    pass


@pytest.mark.parametrize("entries,dialect,bad", [
    ({"a": {}, "b": {"type": "string"}}, "2020-12", []),
    ({"a": {}, "b": True}, "2020-12", []),
    ({"a": {}, "b": True}, "draft4", ["b"]),
    ({"a": {}, "b": "string", "c": 3, "d": [{}]}, "2020-12", ["b", "c", "d"]),
    ({"a": _Obj(), "b": None}, "2020-12", ["b"]),
    ({}, "draft4", []),
])
def test_a_schema_map_reports_each_entry_that_is_no_schema(entries, dialect, bad) -> None:
    """SC301 on `properties`/`$defs` maps: the all-objects case is told in one pass over the
    value types (a spec's bundled $defs are hundreds of entries per tool); any other entry
    is still checked one by one, booleans allowed but in draft-04."""
    from toolcat.features.lint.rules.metaschema import node_problems

    for key in ("properties", "definitions" if dialect == "draft4" else "$defs"):
        got = [p for p, _m in node_problems({key: entries}, dialect)]
        assert got == [(key, name) for name in bad], (key, got)


def test_a_new_bundle_gives_the_walk_only_its_definitions_not_walked_before(monkeypatch):
    """The walk makes children of a ``$defs`` object it meets first (another tool's bundle)
    only of the definitions not walked with an earlier tool (engine._around_defs): in the
    openai spec, whose operations bundle overlapping sets of schemas, most entries of the
    later bundles are left out, and the findings are those of the catalog with nothing shared
    (deep copies)."""
    import copy

    from support.common import corpus
    from toolcat.api import load_all
    from toolcat.features.lint import engine

    seen: list[tuple[int, int]] = []
    around = engine._around_defs

    def counted(node, d, defs_children):
        seen.append((len(node["$defs"]), len(defs_children)))
        return around(node, d, defs_children)

    monkeypatch.setattr(engine, "_around_defs", counted)
    path = str(corpus("openapi", "openai.openapi.yaml"))
    shared = load_all([path])
    got = _findings(shared)
    assert seen and sum(n for _all, n in seen) < sum(a for a, _n in seen) // 2
    copied = load_all([path])
    for t in copied[0].tools:
        t.input_schema = copy.deepcopy(t.input_schema)
        t.output_schema = copy.deepcopy(t.output_schema)
    assert got == _findings(copied)


def test_a_wide_position_is_set_apart_from_the_severity() -> None:
    """A finding's place in a long one-line file (a million-tool tools list: column
    1,920,497,909) is followed by a space before its severity; a short one keeps the
    9-character column it had. Before: ``1:1920497909warning``."""
    from toolcat.features.lint.render.text import _line_of
    from toolcat.model import Finding

    def line(ln, col) -> str:
        f = Finding("MR401", "warning", "parameter 'x' has no description", "t.json",
                    tool="t", pointer="/inputSchema/properties/x", line=ln, column=col)
        return "".join(text for text, _style in _line_of(f, f.message))

    assert line(1, 1920497909).startswith("    1:1920497909 warning  MR401  ")
    assert line(12, 5).startswith("    12:5     warning  MR401  ")
    assert line(123, 45678).startswith("    123:45678 warning  ")
