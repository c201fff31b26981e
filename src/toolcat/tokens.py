"""Exact, offline BPE token counts (tiktoken), never a download.

The rank files ship inside the package (``toolcat/data/*.tiktoken.gz``, byte-identical to
OpenAI's after gunzip; see ``data/TOKENIZERS.md``). Their SHA-256 is checked on every load
from text. Parsed ranks are cached with :mod:`marshal` in the user cache folder
(``$XDG_CACHE_HOME/toolcat`` or ``~/.cache/toolcat``), keyed by that hash, because parsing the
text costs most of a cold start; a cache that is unreadable or stale is rebuilt silently.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import marshal
import os
from importlib import resources
from typing import Any

from toolcat.errors import ToolcatError

ENCODINGS = {
    # name: (file, sha256 of the gunzipped rank text; tiktoken's own expected_hash)
    "o200k_base": ("o200k_base.tiktoken.gz",
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "cl100k_base": ("cl100k_base.tiktoken.gz",
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
}
DEFAULT_ENCODING = "o200k_base"

_cache: dict[str, Any] = {}


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "toolcat")


def _parse_ranks(text: bytes) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in text.splitlines():
        if not line:
            continue
        tok, rank = line.split()
        ranks[base64.b64decode(tok)] = int(rank)
    return ranks


def load_ranks(name: str) -> dict[bytes, int]:
    if name not in ENCODINGS:
        raise ToolcatError(f"unknown tokenizer {name!r} (known: {', '.join(ENCODINGS)})")
    fname, expected = ENCODINGS[name]
    cache_file = os.path.join(_cache_dir(), f"{name}-{expected[:16]}.marshal")
    try:
        with open(cache_file, "rb") as f:
            blob = f.read()
        tag, ranks = marshal.loads(blob)
        if tag == expected and isinstance(ranks, dict) and len(ranks) > 1000:
            return ranks
    except (OSError, ValueError, EOFError, TypeError):
        pass
    raw = resources.files("toolcat").joinpath("data", fname).read_bytes()
    text = gzip.decompress(raw)
    digest = hashlib.sha256(text).hexdigest()
    if digest != expected:
        raise ToolcatError(
            f"tokenizer file {fname} is corrupt (sha256 {digest[:12]}..., expected {expected[:12]}...)")
    ranks = _parse_ranks(text)
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        tmp = cache_file + f".{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(marshal.dumps((expected, ranks)))
        os.replace(tmp, cache_file)
    except OSError:
        pass  # a read-only home: no cache, still correct
    return ranks


def encoding(name: str = DEFAULT_ENCODING) -> Any:
    """A ``tiktoken.Encoding`` built from the shipped ranks (no network)."""
    enc = _cache.get(name)
    if enc is not None:
        return enc
    import tiktoken
    import tiktoken_ext.openai_public as pub

    ranks = load_ranks(name)
    # Take pat_str and special tokens from tiktoken's own definitions, feeding it our ranks.
    orig = pub.load_tiktoken_bpe
    pub.load_tiktoken_bpe = lambda *a, **k: ranks  # type: ignore[assignment]
    try:
        params = getattr(pub, name)()
    finally:
        pub.load_tiktoken_bpe = orig
    enc = tiktoken.Encoding(**params)
    _cache[name] = enc
    return enc


def count(data: bytes | str, name: str = DEFAULT_ENCODING) -> int:
    """Number of tokens of ``data`` (UTF-8 text); special-token text counts as ordinary text."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="surrogatepass")
    enc = encoding(name)
    return len(enc.encode_ordinary(data))
