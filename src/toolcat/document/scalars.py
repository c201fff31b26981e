"""Facts about JSON and YAML scalars that the parser, the position scanners and the serializer
share: how a YAML key becomes a JSON key, which plain YAML scalars are numbers, and the
integers a 64-bit serializer (orjson) cannot hold."""

from __future__ import annotations

import re
from typing import Any

# yaml-rs reads some plain scalars as numbers that YAML 1.2's core schema keeps as strings
# (see toolcat.document.parse): a token is such a "loose" number when it matches the first
# pattern (underscores removed) and not the core schema's number pattern.
LOOSE_NUMBER = re.compile(
    r"[-+]?(?:0[bB][01]+|0[xX][0-9a-fA-F]+|0[oO][0-7]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|[0-9]+\.)")
CORE_NUMBER = re.compile(
    r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def js_key(k: Any) -> str:
    """The JSON object key a parsed YAML key becomes, as JavaScript would write it (``1`` ->
    ``"1"``, ``true`` -> ``"true"``, ``1.0`` -> ``"1"``); TypeError for keys JSON cannot have."""
    if isinstance(k, str):
        return k
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, float):
        if k.is_integer() and abs(k) < 1e21:
            return str(int(k))
        return repr(k)
    if isinstance(k, int):
        return str(k)
    raise TypeError(type(k).__name__)


UINT64_END = 2**64
INT64_MIN = -(2**63)


class BigInt(int):
    """An integer beyond 64 bits (e.g. a huge OpenAPI bound), marked so when parsed.

    orjson cannot hold such integers; marked ones go through its ``default`` hook as
    pre-formatted fragments in a single pass instead of a copy of the whole document.
    It is an ``int`` in every other way."""

    __slots__ = ()


def big_int(v: int) -> int:
    """``v``, marked as :class:`BigInt` when orjson cannot hold it."""
    return v if INT64_MIN <= v < UINT64_END else BigInt(v)


def json_key_pattern(key: str) -> str:
    """A regular expression (its source) for the JSON string ``key`` as a JSON text may write
    it: in quotes, each character itself or a ``\\u`` escape of it (hex digits in either
    case). What the OpenAPI loader's gates look for in a text before reading the data."""
    return '"%s"' % "".join(r"(?:%s|\\u(?i:%04x))" % (re.escape(c), ord(c)) for c in key)
