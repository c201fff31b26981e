"""Canonical wire bytes: what JavaScript's ``JSON.stringify`` would send.

No whitespace, keys in the order given, non-ASCII kept as UTF-8, numbers formatted as
JavaScript formats them (``1.0`` is ``1``, ``1e-7`` stays ``1e-7``, ``0.000001`` is not
``1e-06``). These are the bytes ``measure`` counts and hashes and ``project`` writes, so
the figures reproduce the mcp-context-cost methodology (UTF-8 of ``JSON.stringify``).

orjson does the work; a pure-Python encoder takes over for what orjson cannot format the
JavaScript way (integers beyond 64 bits, the few floats whose exponent forms differ) and for
indented output.
"""

from __future__ import annotations

import re
from typing import Any

from toolcat.document.scalars import INT64_MIN, UINT64_END

_ESC = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
}
for _i in range(0x20):
    _ESC.setdefault(chr(_i), f"\\u{_i:04x}")
_ESCAPE_RE = re.compile(r'["\\\x00-\x1f]|[\ud800-\udfff]')


def _esc(m: re.Match) -> str:
    c = m.group(0)
    e = _ESC.get(c)
    return e if e is not None else f"\\u{ord(c):04x}"  # lone surrogate, as well-formed JSON.stringify


def js_string(s: str) -> str:
    return '"' + _ESCAPE_RE.sub(_esc, s) + '"'


def js_number(v: int | float) -> str:
    """Format a number as ECMAScript Number::toString does."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if v != v or v in (float("inf"), float("-inf")):
        return "null"
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    r = repr(v)  # shortest round-trip digits, like ECMAScript
    sign = "-" if r.startswith("-") else ""
    r = r.lstrip("-")
    if "e" in r:
        mant, exp_s = r.split("e")
        exp = int(exp_s)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # n: position of the decimal point relative to the digit string (ECMAScript's n)
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) + exp - lead_zeros
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = ("+" if e >= 0 else "-") + str(abs(e))
        out = digits + "e" + es if k == 1 else digits[0] + "." + digits[1:] + "e" + es
    return sign + out


def _encode(v: Any, parts: list, indent: str | None, level: int) -> None:
    if isinstance(v, str):
        parts.append(js_string(v))
    elif v is None:
        parts.append("null")
    elif v is True:
        parts.append("true")
    elif v is False:
        parts.append("false")
    elif isinstance(v, (int, float)):
        parts.append(js_number(v))
    elif isinstance(v, dict):
        if not v:
            parts.append("{}")
            return
        parts.append("{")
        first = True
        for k, x in v.items():
            if not first:
                parts.append(",")
            first = False
            if indent is not None:
                parts.append("\n" + indent * (level + 1))
            parts.append(js_string(str(k)))
            parts.append(": " if indent is not None else ":")
            _encode(x, parts, indent, level + 1)
        if indent is not None:
            parts.append("\n" + indent * level)
        parts.append("}")
    elif isinstance(v, (list, tuple)):
        if not v:
            parts.append("[]")
            return
        parts.append("[")
        for i, x in enumerate(v):
            if i:
                parts.append(",")
            if indent is not None:
                parts.append("\n" + indent * (level + 1))
            _encode(x, parts, indent, level + 1)
        if indent is not None:
            parts.append("\n" + indent * level)
        parts.append("]")
    else:
        raise TypeError(f"cannot encode {type(v).__name__} as JSON")


def _slow(value: Any, indent: int | None) -> bytes:
    parts: list[str] = []
    _encode(value, parts, " " * indent if indent else None, 0)
    return "".join(parts).encode("utf-8")


# Where orjson and JavaScript format a float differently: exponents -6 and +16..+20
# (JavaScript writes fixed notation there) and integral floats ("9007199254740993.0").
# Loaded data never holds integral floats below 2**53 (parse.normalize makes them ints), so
# these patterns are rare; a match (even inside a string) only costs the exact slow path.
_ODD_FLOAT = re.compile(rb"[0-9]e(?:-6|\+1[5-9]|\+20)(?![0-9])|[0-9]\.0(?=[,\]}]|$)")
# The same search, about 2.5x faster on megabytes (it runs over every byte dumps writes):
# each alternative from a literal that is rare in JSON text ("-6", "+1x"/"+20", ".0"), which
# the regex engine skips to in C, what must come before it checked after
# (tests/unit/test_measure_canonical.py holds the two equal).
_ODD_PARTS = ((re.compile(rb"\.0(?=[,\]}]|$)"), b""), (re.compile(rb"-6(?![0-9])"), b"e"),
              (re.compile(rb"\+(?:1[5-9]|20)(?![0-9])"), b"e"))


def _odd_float(out: bytes) -> bool:
    """Whether :data:`_ODD_FLOAT` matches somewhere in ``out``."""
    if len(out) < 256:      # (the one regex is faster than setting up three)
        return _ODD_FLOAT.search(out) is not None
    for r, before in _ODD_PARTS:
        k = len(before)
        for m in r.finditer(out):
            j = m.start()
            i = j - k
            if i > 0 and out[i:j] == before and 48 <= out[i - 1] <= 57:
                return True
    return False


def _subclass_default(v: Any) -> Any:
    """orjson's ``default`` with ``OPT_PASSTHROUGH_SUBCLASS``: a :class:`BigInt` as its digits,
    any other subclass of a JSON type as that type (what orjson writes without the option)."""
    import orjson

    if isinstance(v, int) and not isinstance(v, bool):
        iv = int.__int__(v)
        return orjson.Fragment(str(iv).encode("ascii")) if not INT64_MIN <= iv < UINT64_END else iv
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, list):
        return list(v)
    raise TypeError(type(v).__name__)


def _floats_agree(value: Any) -> bool:
    """True when orjson writes every float in ``value`` as JavaScript does.

    Used when :data:`_ODD_FLOAT` matched, which it also does inside strings ("TLS 1.0,"):
    orjson and JavaScript differ only in how they format floats, so if each float agrees,
    orjson's bytes are the canonical ones.
    """
    import orjson

    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        v = pop()
        if isinstance(v, float):
            if orjson.dumps(v) != js_number(v).encode("ascii"):
                return False
        elif isinstance(v, dict):
            push(v.values())
        elif isinstance(v, (list, tuple)):
            push(v)
    return True


def _big_ints_as_fragments(value: Any) -> Any:
    """A copy of ``value`` with integers orjson cannot hold as pre-formatted fragments."""
    import orjson

    if isinstance(value, int) and not isinstance(value, bool):
        return orjson.Fragment(str(value).encode("ascii")) if not INT64_MIN <= value < UINT64_END else value
    if isinstance(value, dict):
        return {k: _big_ints_as_fragments(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_big_ints_as_fragments(v) for v in value]
    return value


def dumps(value: Any, indent: int | None = None) -> bytes:
    """Canonical JSON bytes of ``value`` (``indent`` > 0 pretty-prints, same number format)."""
    if indent:
        return _slow(value, indent)
    import orjson

    try:
        out = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        # integers beyond 64 bits (huge OpenAPI bounds): orjson writes them as fragments,
        # in one pass when the parser marked them (BigInt), else from a converted copy
        try:
            out = orjson.dumps(value, default=_subclass_default,
                               option=orjson.OPT_PASSTHROUGH_SUBCLASS)
        except (TypeError, orjson.JSONEncodeError):
            try:
                out = orjson.dumps(_big_ints_as_fragments(value))
            except (TypeError, orjson.JSONEncodeError, RecursionError, AttributeError):
                return _slow(value, None)
    if _odd_float(out) and not _floats_agree(value):
        return _slow(value, None)
    return out


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


_MEMO_BYTES = 1024   # a smaller container is sized again (memory: a Stripe view has millions)


def canonical_size(value: Any, memo: dict | None = None) -> int:
    """``len(dumps(value))`` without serializing shared parts again: each object or array met
    before (through ``memo``, kept by the caller across calls) adds its remembered size. An
    OpenAPI spec's tools bundle the same definitions: their sizes are computed once.

    Exact because the canonical bytes are compositional: a container's bytes are its
    members' canonical bytes joined by the punctuation, and ``dumps`` of a container with its
    container members replaced by ``0`` (one byte) counts the rest in one C-speed pass."""
    if memo is None:
        memo = {}
    try:
        return _size(value, memo)
    except RecursionError:   # nested too deeply for the recursion: the plain way
        return len(dumps(value))


def _size(v: Any, memo: dict) -> int:
    if isinstance(v, dict):
        got = memo.get(id(v))
        if got is not None and got[0] is v:
            return got[1]
        kids = [x for x in v.values() if isinstance(x, (dict, list, tuple))]
        if not kids:
            n = len(dumps(v))
        else:
            n = len(dumps({k: (0 if isinstance(x, (dict, list, tuple)) else x)
                           for k, x in v.items()}))
            for x in kids:
                n += _size(x, memo) - 1
    elif isinstance(v, (list, tuple)):
        got = memo.get(id(v))
        if got is not None and got[0] is v:
            return got[1]
        kids = [x for x in v if isinstance(x, (dict, list, tuple))]
        if not kids:
            n = len(dumps(v))
        else:
            n = len(dumps([0 if isinstance(x, (dict, list, tuple)) else x for x in v]))
            for x in kids:
                n += _size(x, memo) - 1
    else:
        return len(dumps(v))
    if n >= _MEMO_BYTES:
        memo[id(v)] = (v, n)   # the value is held: its id stays its own
    return n
