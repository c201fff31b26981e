"""JSON Pointer (RFC 6901) helpers."""

from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import unquote

Path = tuple  # tuple[str | int, ...]

_MISSING = object()


def escape(token: object) -> str:
    s = str(token)
    if "~" in s or "/" in s:
        s = s.replace("~", "~0").replace("/", "~1")
    return s


def unescape(token: str) -> str:
    if "~" in token:
        token = token.replace("~1", "/").replace("~0", "~")
    return token


def encode(path: Iterable[object]) -> str:
    """``("properties", "a/b", 0)`` -> ``"/properties/a~1b/0"``."""
    tokens = [t if t.__class__ is str else str(t) for t in path]
    if not tokens:
        return ""
    s = "/".join(tokens)
    # (escapes only where a token holds "~" or "/": the joined text has no other "/")
    if "~" in s or s.count("/") != len(tokens) - 1:
        s = "/".join(escape(t) for t in tokens)
    return "/" + s


def join(base: str, path: Iterable[object]) -> str:
    return base + encode(path)


def decode(pointer: str) -> list[str]:
    """``"/a/b~1c"`` -> ``["a", "b/c"]``. The empty pointer is the root."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


_FRAGMENTS: dict[str, tuple[str, ...]] = {}


def decode_fragment(fragment: str) -> list[str]:
    """Decode the fragment of a URI reference (``#/a/b%20c``) into pointer tokens (a fresh
    list; the decodings of the fragments met are remembered: a spec's schemas repeat the
    same few thousand ``$ref`` values)."""
    got = _FRAGMENTS.get(fragment)
    if got is None:
        got = tuple(decode(unquote(fragment)))    # raises ValueError as before
        if len(_FRAGMENTS) >= 50_000:
            _FRAGMENTS.clear()
        _FRAGMENTS[fragment] = got
    return list(got)


def _index(tok: str, n: int) -> int | None:
    """The array index a token names in an array of ``n`` items (RFC 6901: digits, no
    leading zero), or None."""
    if tok.isascii() and tok.isdigit() and (tok == "0" or tok[0] != "0"):
        i = int(tok)
        if i < n:
            return i
    return None


def walk(doc: Any, tokens: Iterable[str]) -> tuple[tuple, Any] | None:
    """Follow pointer tokens: ``(path, node)`` with array indices as ints, or None when the
    pointer leads nowhere."""
    node = doc
    path: list = []
    for tok in tokens:
        if isinstance(node, dict):
            if tok not in node:
                return None
            node = node[tok]
            path.append(tok)
        elif isinstance(node, list):
            i = _index(tok, len(node))
            if i is None:
                return None
            node = node[i]
            path.append(i)
        else:
            return None
    return tuple(path), node


def resolve(doc: Any, tokens: Iterable[str], default: Any = _MISSING) -> Any:
    """Follow pointer tokens in ``doc``; raise KeyError (or return ``default``) when absent."""
    node = doc
    for tok in tokens:
        if isinstance(node, dict):
            if tok in node:
                node = node[tok]
                continue
        elif isinstance(node, list):
            i = _index(tok, len(node))
            if i is not None:
                node = node[i]
                continue
        if default is _MISSING:
            raise KeyError(tok)
        return default
    return node


def parent(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0] if pointer else ""
