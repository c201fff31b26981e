"""The fast paths of canonical.dumps that measure relies on give the exact encoder's bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcat.document import canonical

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e21, 1e-7, 1e16, 1.5e16, 123456789012345680.0, 0.000001, 2.0, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["TLS 1.0,", "v2.0}", "x 1e+16]", "1e-6", "0.0"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.text(max_size=6), inner, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_dumps_equals_the_exact_encoder(v):
    assert canonical.dumps(v) == canonical._slow(v, None)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40) | st.text("0123456789e+-.,]}x", max_size=40).map(str.encode))
def test_odd_float_search_is_the_regex(out):
    out = out + b" " * 256      # (past the length the one regex is used below)
    assert canonical._odd_float(out) == (canonical._ODD_FLOAT.search(out) is not None)


@pytest.mark.parametrize("out", [b"1e-6", b"[1e-6,2]", b"1e-60", b"e-6", b"-6", b"1e+16", b"1e+15}",
                                 b"1e+21", b"1e+20", b"1e+2", b"+16", b"1.0", b"1.0,", b"x1.0]",
                                 b".0}", b"10.05", b'"a":1.0}', b"9e+19]"])
def test_odd_float_search_on_the_edges(out):
    out = b"x" * 256 + out
    assert canonical._odd_float(out) == (canonical._ODD_FLOAT.search(out) is not None)


def test_strings_that_look_like_odd_floats_keep_the_fast_path():
    v = {"description": "Use TLS 1.0, 1.1 or 2.0}", "n": [1, 2.5]}
    assert canonical.dumps(v) == canonical._slow(v, None)
    assert canonical._floats_agree(v)


def test_big_integers_are_written_exactly():
    v = {"maximum": 2**80, "minimum": -(2**70), "x": [2**64, 2**64 - 1, -(2**63), 1.5e16]}
    out = canonical.dumps(v)
    assert out == canonical._slow(v, None)
    assert b'"maximum":1208925819614629174706176' in out
    assert b"15000000000000000" in out  # JavaScript's fixed notation below 1e21


def test_lone_surrogates_still_take_the_exact_encoder():
    v = ["\ud800", 2**70]
    assert canonical.dumps(v) == b'["\\ud800",1180591620717411303424]'
