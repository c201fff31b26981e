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
    return "".join("/" + escape(t) for t in path)


def join(base: str, path: Iterable[object]) -> str:
    return base + encode(path)


def decode(pointer: str) -> list[str]:
    """``"/a/b~1c"`` -> ``["a", "b/c"]``. The empty pointer is the root."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def decode_fragment(fragment: str) -> list[str]:
    """Decode the fragment of a URI reference (``#/a/b%20c``) into pointer tokens."""
    return decode(unquote(fragment))


def resolve(doc: Any, tokens: Iterable[str], default: Any = _MISSING) -> Any:
    """Follow pointer tokens in ``doc``; raise KeyError (or return ``default``) when absent."""
    node = doc
    for tok in tokens:
        if isinstance(node, dict):
            if tok in node:
                node = node[tok]
                continue
        elif isinstance(node, list):
            if tok.isdigit() and (tok == "0" or not tok.startswith("0")) and int(tok) < len(node):
                node = node[int(tok)]
                continue
        if default is _MISSING:
            raise KeyError(tok)
        return default
    return node


def parent(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0] if pointer else ""
