"""toolcat's YAML reading (yaml-rs + normalization) gives the data a YAML 1.2-correct parser gives.

Reference: ruamel.yaml's pure-Python parser with exactly the YAML 1.2.2 core schema (no
timestamps, no 1.1 integers; ``tests/support/yamlref.py``), normalized the way toolcat normalizes
(string keys, ``1.0`` -> ``1``, merge keys). Compared strictly: same types, same values,
same key order (key order is part of the wire bytes).
"""

from __future__ import annotations

import math

import pytest

from support import yamlref
from support.common import CORPUS, corpus
from toolcat.document.parse import normalize, parse_yaml


def assert_same(got, want, where: str = "") -> None:
    stack = [(got, want, where or "/")]
    while stack:
        a, b, at = stack.pop()
        assert type(a) is type(b), f"{at}: {type(a).__name__} {a!r:.80} != {type(b).__name__} {b!r:.80}"
        if isinstance(a, dict):
            assert list(a) == list(b), f"{at}: keys {list(a)[:10]} != {list(b)[:10]}"
            stack.extend((a[k], b[k], f"{at.rstrip('/')}/{k}") for k in a)
        elif isinstance(a, list):
            assert len(a) == len(b), f"{at}: {len(a)} items != {len(b)}"
            stack.extend((x, y, f"{at.rstrip('/')}/{i}") for i, (x, y) in enumerate(zip(a, b)))
        elif isinstance(a, float) and math.isnan(a):
            assert math.isnan(b), at
        else:
            assert a == b, f"{at}: {a!r:.80} != {b!r:.80}"


def reference(text: str):
    return normalize(yamlref.data(text), "reference")


def _yaml_files(big: bool) -> list[str]:
    if not CORPUS.exists():
        return ["openapi/openai.openapi.yaml"] if big else ["openapi/oai-petstore.openapi.yaml"]
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.y*ml"))
    return [f for f in files if ((CORPUS / f).stat().st_size > 500_000) == big]


@pytest.mark.parametrize("rel", _yaml_files(big=False))
def test_corpus_yaml_matches_core_schema_reference(rel):
    path = corpus(*rel.split("/"))
    text = path.read_text(encoding="utf-8")
    assert_same(parse_yaml(text, str(path)), reference(text))


def test_big_corpus_yaml_is_checked_with_positions():
    """The big files' data (over 500 kB: ruamel's pure-Python parse takes ~10 s each) is
    compared by ``test_positions.py::test_corpus_big_yaml_sampled_pointers``, which parses
    each once for both references: here, that it covers every one of them."""
    from test_positions import BIG_YAML

    assert set(_yaml_files(big=True)) <= set(BIG_YAML)


TRICKY = """\
dates: [2024-10-01, 2024-10-01T12:00:00Z, 2001-12-14 21:59:43.10 -5]
quoted_date: "2024-10-01"
yaml11_bools: [yes, No, on, OFF, y, n]
core_bools: [true, True, TRUE, false, False, FALSE]
nulls: [~, null, Null, NULL, ]
not_null: [nUll, "null", '~']
ints: [0, -0, +1, 12, 012, 0o17, 0x1F, 12345678901234567890123456789, -98765432109876543210]
not_core_ints: [1_000, 0b101, 0X1F, +0x1F, -0o7, _1, 1__0, 1_, 0O7]
floats: [1.0, -1.5, .5, +.5, 1., 1e3, 1E3, 1.5e-3, 6.02e+23, 0.1e2, 100.0]
not_floats: [1e, e1, ., 1.2.3, 1,5]
sexagesimal: [1:20, 190:20:30]
octal_like: [08, 09, 007]
specials: [.inf, -.Inf, +.INF]
strings: [inf, nan, .infinity, "123", '1.0', 1 2, --, =, <<x]
keys:
  200: ok
  1.5: x
  true: t
  null: n
  0x10: hex
  1_000: underscore
  2024-10-01: date
block: |
  1_000
  2024-10-01
folded: >-
  a
  b
merge_base: &base {a: 1, b: 2}
merged:
  <<: *base
  b: 3
"""


def test_tricky_scalars_match_reference():
    text = TRICKY.replace("specials: [.inf, -.Inf, +.INF]\n", "")  # JSON has no infinity
    got = parse_yaml(text, "tricky.yaml")
    assert_same(got, reference(text))
    # and independently of the reference, what YAML 1.2 core says:
    assert got["dates"] == ["2024-10-01", "2024-10-01T12:00:00Z", "2001-12-14 21:59:43.10 -5"]
    assert got["yaml11_bools"] == ["yes", "No", "on", "OFF", "y", "n"]
    assert got["ints"][-2:] == [12345678901234567890123456789, -98765432109876543210]
    assert got["ints"][4:7] == [12, 15, 31]
    assert got["not_core_ints"] == ["1_000", "0b101", "0X1F", "+0x1F", "-0o7", "_1", "1__0", "1_",
                                    "0O7"]
    assert got["floats"][0] == 1 and type(got["floats"][0]) is int
    assert list(got["keys"]) == ["200", "1.5", "true", "null", "16", "1_000", "2024-10-01"]


def test_reference_is_core_schema_not_ruamels_default():
    from ruamel.yaml import YAML

    src = "d: 2024-10-01\nn: 1_000\no: 012\n"
    default = YAML(typ="safe", pure=True).load(src)
    assert not isinstance(default["d"], str)  # ruamel's default makes a date...
    assert yamlref.data(src) == {"d": "2024-10-01", "n": "1_000", "o": 12}  # ...core does not


def test_values_json_cannot_hold_are_rejected():
    from toolcat.errors import InputError

    with pytest.raises(InputError, match="cannot be represented"):
        parse_yaml("a: .inf\n", "x.yaml")
