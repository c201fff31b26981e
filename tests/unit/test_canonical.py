"""Canonical wire bytes equal JavaScript's JSON.stringify, and tokens are counted offline."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.common import corpus
from toolcat import tokens
from toolcat.document import canonical, scalars
from toolcat.document.parse import load_file

node = shutil.which("node")


def test_basic_shapes():
    assert canonical.dumps({"a": [1, 2.5, None, True], "é": "\u2028\n"}) == \
        '{"a":[1,2.5,null,true],"é":"\u2028\\n"}'.encode()
    assert canonical.dumps({"b": 1, "a": 2}) == b'{"b":1,"a":2}'  # key order as given
    assert canonical.dumps(2**80) == str(2**80).encode()  # beyond orjson's range: exact


@pytest.mark.parametrize("value,expected", [
    (1e21, "1e+21"), (1e-7, "1e-7"), (1e-6, "0.000001"), (1.5e-6, "0.0000015"),
    (1e16, "10000000000000000"), (123.456, "123.456"), (-0.0, "0"), (5e-324, "5e-324"),
    (0.1, "0.1"), (1.5e300, "1.5e+300"), (2.0**60, "1152921504606847000"),
])
def test_js_number_known_values(value, expected):
    assert canonical.js_number(value) == expected
    assert canonical.dumps([value]) == f"[{expected}]".encode()


@pytest.mark.skipif(node is None, reason="node is not installed: no JavaScript reference")
@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=200))
def test_floats_match_javascript(values):
    out = subprocess.run([node, "-e",
                          "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
                          "process.stdout.write(JSON.stringify(v))"],
                         input=json.dumps(values), capture_output=True, text=True, check=True)
    assert canonical.dumps(values).decode() == out.stdout


@pytest.mark.skipif(node is None, reason="node is not installed: no JavaScript reference")
def test_strings_match_javascript():
    s = "".join(chr(c) for c in range(0, 0x250)) + "\u2028\u2029\ufeff😀"
    out = subprocess.run([node, "-e",
                          "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
                          "process.stdout.write(JSON.stringify(v))"],
                         input=json.dumps([s, {"k\u0001": s}]), capture_output=True,
                         encoding="utf-8", check=True)
    assert canonical.dumps([s, {"k\u0001": s}]).decode() == out.stdout


def test_lone_surrogate_is_escaped_like_well_formed_stringify():
    assert canonical.dumps(["\ud800x"]) == b'["\\ud800x"]'


def test_indent_keeps_number_format():
    assert canonical.dumps({"a": [1e-6, 2]}, indent=2) == b'{\n  "a": [\n    0.000001,\n    2\n  ]\n}'


def _captures():
    folder = corpus("mcp-context-cost")
    out = []
    for f in sorted(folder.glob("*.json")):
        d = json.loads(f.read_text())
        if isinstance(d.get("rawToolsCapture"), list):
            out.append(f)
    return out


def test_canonical_bytes_reproduce_published_sha256_and_tokens():
    files = _captures()
    assert len(files) == 69
    total = 0
    for f in files:
        doc, _src = load_file(str(f))
        data = canonical.dumps(doc["rawToolsCapture"])
        assert hashlib.sha256(data).hexdigest() == doc["canonicalSha256"], f.name
        n = tokens.count(data, "o200k_base")
        assert n == doc["totalTokens"], f.name
        total += n
    assert total == 343_536  # the sum the baselines note gives for all 69 captures


def test_cl100k_differs_from_o200k():
    data = canonical.dumps({"q": "Tokenizers disagree about ünïcödé and whitespace   runs."})
    assert tokens.count(data, "cl100k_base") != tokens.count(data, "o200k_base")


def test_unknown_tokenizer_is_a_clear_error():
    from toolcat.errors import ToolcatError

    with pytest.raises(ToolcatError, match="unknown tokenizer"):
        tokens.count(b"x", "p50k_base")


def test_tokenizer_never_downloads(monkeypatch, tmp_path):
    # A cold cache in an empty folder and a poisoned network layer: still counts.
    import socket

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_cache", {})

    def no_network(*a, **k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    assert tokens.count(b'{"a":"hello world"}') > 0
    assert list(tmp_path.glob("toolcat/*.ranks"))  # the cache was written


def test_corrupt_cache_is_rebuilt(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens, "_cache", {})
    (tmp_path / "toolcat").mkdir()
    name, expected = "cl100k_base", tokens.ENCODINGS["cl100k_base"][1]
    (tmp_path / "toolcat" / f"{name}-{expected[:16]}.marshal").write_bytes(b"garbage")
    assert tokens.count(b"hello", name) == 1


@pytest.mark.parametrize("suffix,text", [
    (".json", '{"maximum": 340282366920938463463374607431768211456, "minimum": -9223372036854775809,'
              ' "small": 18446744073709551615, "x": [1.5, "9223372036854775808"]}'),
    (".yaml", "maximum: 340282366920938463463374607431768211456\nminimum: -9223372036854775809\n"
              "small: 18446744073709551615\nx: [1.5, '9223372036854775808']\n"),
])
def test_integers_beyond_64_bits_from_files(tmp_path, suffix, text):
    """Integers orjson cannot hold, parsed from JSON and YAML, come out digit for digit (and
    compare equal to plain ints); a string of digits stays a string."""
    p = tmp_path / ("big" + suffix)
    p.write_text(text)
    doc, _src = load_file(str(p))
    assert doc["maximum"] == 2**128 and doc["minimum"] == -(2**63) - 1
    # marked by the parser, so that serializing is one orjson pass (no copy of the document)
    assert type(doc["maximum"]) is scalars.BigInt and type(doc["small"]) is int
    assert canonical.dumps(doc) == (
        b'{"maximum":340282366920938463463374607431768211456,"minimum":-9223372036854775809,'
        b'"small":18446744073709551615,"x":[1.5,"9223372036854775808"]}')
    # the same bytes when the big integers are plain ints made by code, not by the parser
    plain = {k: (int(v) if isinstance(v, int) else v) for k, v in doc.items()}
    assert canonical.dumps(plain) == canonical.dumps(doc)
    assert canonical.dumps({"nested": [doc]}) == b'{"nested":[' + canonical.dumps(doc) + b"]}"


def test_subclasses_of_json_types_serialize_as_their_base():
    import enum

    class Level(str, enum.Enum):
        ERROR = "error"

    class Count(int):
        pass

    value = {"level": Level.ERROR, "n": Count(3), "big": scalars.BigInt(2**70)}
    assert canonical.dumps(value) == b'{"level":"error","n":3,"big":1180591620717411303424}'


# canonical_size: len(dumps(...)) computed from shared parts (`toolcat tools` on big specs)

_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e21, 1e-7, 1e-6, 1.5e16, 1e20, -0.0, 9007199254740993.0, 1.0e15, 5e-324]),
    st.text(), st.sampled_from(["\ud800", "TLS 1.0,", "é\u2028", "\x00\x1f\"\\"]))
_JSON = st.recursive(_SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=5), kids, max_size=4)),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(_JSON, min_size=1, max_size=3), st.data())
def test_canonical_size_is_len_of_dumps(parts, data):
    """Exact for any JSON value, with parts shared between values and a memo kept across
    them (what `tools` does with the bundled definitions of OpenAPI tools)."""
    memo: dict = {}
    shared = {"$defs": {f"d{i}": p for i, p in enumerate(parts)}}
    big = {"pad": "x" * 1100, "parts": parts}    # big enough to be remembered
    values = [shared, [shared, parts], {"a": parts[0], "b": (shared, 1)}, parts[-1],
              big, [big, {"b": big}]]
    for v in data.draw(st.permutations(values)):
        assert canonical.canonical_size(v, memo) == len(canonical.dumps(v))
        assert canonical.canonical_size(v) == len(canonical.dumps(v))


def test_canonical_size_deep_and_big():
    deep: object = "x"
    for _ in range(200):   # 400 levels, deeper than orjson's limit: dumps takes its slow path
        deep = {"a": [deep, 1e-7]}
    assert canonical.canonical_size(deep) == len(canonical.dumps(deep))
    value = {"big": scalars.BigInt(2**70), "n": 2**80, "f": [-0.0, 1.5e16], "s": "\ud800"}
    assert canonical.canonical_size([value, value]) == len(canonical.dumps([value, value]))


def test_canonical_size_of_corpus_tools():
    from toolcat.api import load_all

    memo: dict = {}
    for name in ("box.openapi.json", "openai.openapi.yaml"):
        for cat in load_all([str(corpus("openapi", name))]):
            for t in cat.tools:
                for s in (t.input_schema, t.output_schema):
                    if s is not None:
                        assert canonical.canonical_size(s, memo) == len(canonical.dumps(s))
