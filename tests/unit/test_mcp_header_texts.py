"""MC107's text gate (rules/mcp._text_may_hold_header): a text whose parsed data has an
`x-mcp-header` key is never ruled out, however the key is written in a YAML double-quoted
scalar (escapes, line continuations, leading white space, empty pieces, CRLF); and the line
continuations real specs have (shell commands in block scalars, prose and long `$ref`s broken
in double-quoted scalars) do not make every catalog's schemas be searched."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from toolcat.document.parse import parse_yaml
from toolcat.errors import InputError
from toolcat.features.lint.rules.mcp import _text_may_hold_header

KEY = "x-mcp-header"


def _has_key(data) -> bool:
    # a key, not a value: in JSON text a string value's own quotes would be escaped
    return '"x-mcp-header":' in json.dumps(data)


def _char(c: str, how: int) -> str:
    return (c, f"\\x{ord(c):02x}", f"\\u{ord(c):04x}", f"\\U{ord(c):08X}")[how]


@st.composite
def spelt_keys(draw) -> str:
    """The key as a double-quoted scalar, cut into pieces joined by escaped line breaks."""
    cuts = sorted(draw(st.sets(st.integers(0, len(KEY)), max_size=4)))
    escaped = draw(st.booleans())
    pieces, last = [], 0
    for cut in cuts + [len(KEY)]:
        pieces.append("".join(_char(c, draw(st.integers(0, 3)) if escaped else 0)
                              for c in KEY[last:cut]))
        last = cut
    out = '"' + pieces[0]
    for p in pieces[1:]:
        brk = draw(st.sampled_from(["\n", "\r\n"]))
        out += "\\" + brk + " " * draw(st.integers(0, 4))
        for _ in range(draw(st.integers(0, 2))):   # empty pieces
            out += "\\" + brk + draw(st.sampled_from(["", " ", "\t", "   "]))
        out += p
    return out + '"'


@given(spelt_keys(), st.sampled_from(["block", "flow", "nested", "explicit"]))
def test_a_key_however_spelt_is_never_ruled_out(key, shape):
    text = {"block": f"a: 1\n{key}: v\n",
            "flow": f"a: {{{key}: v, b: 2}}\n",
            "nested": f"paths:\n  /x:\n    get:\n      {key}: H\n",
            "explicit": f"? {key}\n: v\n"}[shape]   # (an implicit key is one line)
    try:
        data = parse_yaml(text, "t.yaml")
    except InputError:   # not YAML (a continuation line indented too little)
        return
    if _has_key(data):
        assert _text_may_hold_header(text)


def test_continuations_that_split_no_key():
    curl = ("x:\n  description: |\n    curl https://api.example.com/v1/files \\\n"
            "      -H \"Authorization: Bearer $KEY\" \\\n      \\\n      -d '{}'\n")
    prose = 'd: "For information\\\n  see the docs"\n'
    long_ref = 'r: {$ref: "#/components/schemas/FileCitationObjec\\\n  t"}\n'
    spaced = 'k: "x-mcp- \\\n  header"\n'
    for text in (curl, prose, long_ref, spaced):
        assert not _text_may_hold_header(text), text
    # ...but a piece of the key before the continuation, or an empty piece after one, may be
    for text in ('"x-mcp-\\\n  header": 1\n', '"\\\n  x-mcp-header": 1\n',
                 '"x-mcp\\\n  \\\n  -header": 1\n', '"x-mcp\\\r\n\t\\\r\n-header": 1\n'):
        assert _text_may_hold_header(text), text
