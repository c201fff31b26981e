"""Safe reading and parsing (toolcat.document.parse): normalization, syntax choice, limits, and a
bounded fuzz of parse + positions on mutated real files (only InputError may come out)."""

from __future__ import annotations

import json
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.common import corpus
from toolcat.document.parse import (
    JSON,
    YAML,
    Limits,
    SourceText,
    load_file,
    normalize,
    parse_json,
    parse_text,
    parse_yaml,
)
from toolcat.errors import InputError

# --------------------------------------------------------------------------- normalization


def test_json_numbers_like_javascript():
    doc = parse_json('{"a": 1.0, "b": 1e2, "c": 2.5, "d": 9007199254740993, "e": -0.0, '
                     '"f": 12345678901234567890123}', "x.json")
    assert doc["a"] == 1 and type(doc["a"]) is int
    assert doc["b"] == 100 and type(doc["b"]) is int
    assert doc["c"] == 2.5
    assert doc["d"] == 9007199254740993 and type(doc["d"]) is int  # integers stay exact
    assert doc["f"] == 12345678901234567890123
    assert type(doc["e"]) is int  # -0.0 is integral: JSON.stringify writes 0


def test_yaml_normalization_keys_floats_merge():
    doc = parse_yaml("200: ok\n2.0: two\ntrue: t\nnull: n\nf: 3.0\nbase: &b {x: 1}\n"
                     "m:\n  <<: *b\n  y: 2\n", "x.yaml")
    assert list(doc) == ["200", "2", "true", "null", "f", "base", "m"]
    assert doc["f"] == 3 and type(doc["f"]) is int
    assert doc["m"] == {"x": 1, "y": 2}


def test_normalize_reports_where_without_text():
    with pytest.raises(InputError) as e:
        normalize({"a": [1, float("nan")]}, "x")
    assert "/a/1" in e.value.message


def test_yaml_is_1_2():
    doc = parse_yaml("a: yes\nb: 2024-10-01\nc: 0o17\nd: 012\ne: ~\nf: 1_000\n", "x.yaml")
    assert doc == {"a": "yes", "b": "2024-10-01", "c": 15, "d": 12, "e": None, "f": "1_000"}


def test_yaml_1_2_core_ints_only():
    """0x/0o are the core schema's ints; the forms yaml-rs also reads as numbers (signed hex
    or octal, 0X/0O/0b/0B, underscores) are strings, in any flow or block context."""
    doc = parse_yaml("a: +0x1F\nb: -0o7\nc: 0X1F\nd: 0B1\ne: 0x1F\nf: 0o17\ng: _1\nh: 0O7\n"
                     "i: [+0x1F, 0b11, -0x1]\nj: {k: -0O1, l: 0xA}\n", "x.yaml")
    assert doc == {"a": "+0x1F", "b": "-0o7", "c": "0X1F", "d": "0B1", "e": 31, "f": 15,
                   "g": "_1", "h": "0O7", "i": ["+0x1F", "0b11", "-0x1"],
                   "j": {"k": "-0O1", "l": 10}}


# --------------------------------------------------------------------------- syntax choice


def test_json_looking_file_without_json_name_may_be_yaml(tmp_path):
    f = tmp_path / "catalog"
    f.write_text("{tools: [{name: a}]}\n")  # flow YAML, not JSON
    doc, src = load_file(str(f))
    assert doc == {"tools": [{"name": "a"}]}
    assert src.syntax == YAML
    assert src.locate("/tools/0/name") == (1, 17)
    g = tmp_path / "catalog.json"
    g.write_text("{tools: [{name: a}]}\n")
    with pytest.raises(InputError, match="invalid JSON"):
        load_file(str(g))


def test_bom_and_crlf(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_bytes(b"\xef\xbb\xbftools:\r\n  - name: a\r\n    inputSchema: {type: object}\r\n")
    doc, src = load_file(str(f))
    assert doc["tools"][0]["name"] == "a"
    assert src.locate("/tools/0/inputSchema/type") == (3, 25)
    g = tmp_path / "c.json"
    g.write_bytes(b'\xef\xbb\xbf{\r\n  "tools": [\r\n    {"name": "a"}\r\n  ]\r\n}\r\n')
    doc, src = load_file(str(g))
    assert src.syntax == JSON and src.locate("/tools/0/name") == (3, 14)


@pytest.mark.parametrize("text", [
    "%YAML 1.2\n---\na: 1\n",
    "---\na: 1\n...\n",
    "# c\n---\na: 1\n",
    "a: |\n  ---\n  text\n",
    "a: '---'\n",
])
def test_single_documents_accepted(text):
    assert parse_yaml(text, "x.yaml")["a"]


@pytest.mark.parametrize("text,line", [
    ("a: 1\n---\nb: 2\n", 2),
    ("---\na: 1\n---\nb: 2\n", 3),
    ("a: 1\n--- \nb: 2\n", 2),
])
def test_multiple_documents_rejected(text, line):
    with pytest.raises(InputError) as e:
        parse_yaml(text, "x.yaml")
    assert "more than one YAML document" in e.value.message and e.value.line == line


def test_yaml_error_has_position():
    with pytest.raises(InputError) as e:
        parse_yaml("a:\n  b: [1, 2\n  c: 3\n", "x.yaml")
    assert e.value.line is not None and e.value.column is not None


def test_depth_limit_is_configurable():
    nested = "[" * 40 + "]" * 40
    parse_json(nested, "x.json")
    lim = Limits(max_depth=20)
    with pytest.raises(InputError, match="nesting deeper than 20"):
        parse_json(nested, "x.json", lim)
    with pytest.raises(InputError, match="nesting deeper than 20"):
        parse_yaml(nested, "x.yaml", lim)
    parse_json(nested, "x.json")     # a run's limits are its own: nothing global changed


def test_alias_limit_is_configurable():
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\n"
    assert len(parse_yaml(text, "x.yaml")["b"]) == 8
    with pytest.raises(InputError, match="alias"):
        parse_yaml(text, "x.yaml", Limits(max_alias_events=20))


def test_file_size_limit(tmp_path, monkeypatch):
    f = tmp_path / "c.json"
    f.write_text('{"tools": []}' + " " * 200)
    with pytest.raises(InputError, match="over the 100 bytes limit"):
        load_file(str(f), limits=Limits(max_file_size=100))
    monkeypatch.setenv("TOOLCAT_MAX_FILE_SIZE", "100")   # the environment's, when not given
    with pytest.raises(InputError, match="over the 100 bytes limit"):
        load_file(str(f))


# --------------------------------------------------------------------------- fuzz

def _seed_files() -> list[tuple[str, str]]:
    names = [("openapi", "oai-petstore.openapi.yaml"), ("openapi", "oai-petstore.openapi.json"),
             ("openapi", "oai-uspto.openapi.yaml"), ("neo", "file-system.openapi.yaml"),
             ("github-mcp-server", "get_me.snap"), ("github-mcp-server", "issue_write.snap")]
    out = []
    for parts in names:
        p = corpus(*parts)
        out.append((p.name, p.read_text(encoding="utf-8")))
    return out


MUTATIONS = ["delete", "insert", "replace", "truncate", "duplicate-line", "swap-lines", "indent"]
NOISE = list(" \t\n:-?[]{},'\"&*!|>#%@`\\") + ["\x00", "é", "\ufeff", "---", "!!python/object:x ",
                                                   "*a ", "&a ", "<<: ", "~", "1e999", "NaN"]


def mutate(text: str, rng: random.Random, n: int) -> str:
    for _ in range(n):
        kind = rng.choice(MUTATIONS)
        i = rng.randrange(len(text) + 1)
        if kind == "delete":
            text = text[:i] + text[i + rng.randint(1, 20):]
        elif kind == "insert":
            text = text[:i] + rng.choice(NOISE) + text[i:]
        elif kind == "replace":
            text = text[:i] + rng.choice(NOISE) + text[i + 1:]
        elif kind == "truncate":
            text = text[:i]
        else:
            lines = text.split("\n")
            if len(lines) < 2:
                continue
            j = rng.randrange(len(lines))
            if kind == "duplicate-line":
                lines.insert(j, lines[j])
            elif kind == "swap-lines":
                k = rng.randrange(len(lines))
                lines[j], lines[k] = lines[k], lines[j]
            else:
                lines[j] = " " * rng.randint(1, 3) + lines[j]
            text = "\n".join(lines)
    return text


def _pointers(doc, rng: random.Random, limit: int = 30) -> list[str]:
    out = [""]
    stack = [(doc, "")]
    while stack and len(out) < 2000:
        node, p = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for k, v in items:
            q = p + "/" + str(k).replace("~", "~0").replace("/", "~1")
            out.append(q)
            stack.append((v, q))
    picked = rng.sample(out, min(limit, len(out)))
    return picked + [p + "/missing" for p in picked[:5]]


SEEDS: list[tuple[str, str]] = []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), which=st.integers(0, 5))
def test_fuzz_parse_and_locate(seed, n, which):
    if not SEEDS:
        SEEDS.extend(_seed_files())
    name, text = SEEDS[which % len(SEEDS)]
    rng = random.Random(seed)
    bad = mutate(text, rng, n)
    syntax = JSON if name.endswith((".json", ".snap")) else YAML
    c0 = time.process_time()
    try:
        doc = parse_text(bad, name, syntax)
    except InputError as e:
        assert e.render().startswith("toolcat: error: ") and "\n" not in e.render()
        doc = e
    # CPU time, not wall time (a loaded machine cannot fail it); outside a `finally`, where
    # it used to replace the real error of a parse that raised anything else
    assert time.process_time() - c0 < 2.0, "parse took over 2 s of CPU"
    if isinstance(doc, InputError):
        return
    json.dumps(doc)  # plain JSON data
    src = SourceText(name, bad, syntax)
    nlines = bad.count("\n") + 1
    for p in _pointers(doc, rng):
        pos = src.locate(p)
        assert pos is None or (1 <= pos[0] <= nlines and pos[1] >= 1), (p, pos)
