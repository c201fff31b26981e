"""Exact, offline BPE token counts (tiktoken), never a download.

The rank files ship inside the package (``toolcat/data/*.tiktoken.gz``, byte-identical to
OpenAI's after gunzip; see ``data/TOKENIZERS.md``). Their SHA-256 is checked on every load
from text. Parsed ranks are cached with :mod:`marshal` in the user cache folder
(``$XDG_CACHE_HOME/toolcat`` or ``~/.cache/toolcat``), keyed by that hash, because parsing the
text costs most of a cold start (and so are the same ranks in parts, :func:`load_split`, for
the counter's child: the ASCII tokens apart from the others). A cache file is used only when
it and its folder are owned by the user and writable by no one else, it is a regular file
(never followed through a link), it records the shipped file's SHA-256, and the SHA-256 of
its payload matches the one it records (checked before the payload is unmarshalled);
anything else is ignored and rebuilt through a ``mkstemp`` temp file.
"""

from __future__ import annotations

import _thread
import hashlib
import marshal
import os
from collections.abc import Iterator
from typing import Any, Protocol

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
_LOADING = _thread.allocate_lock()


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "toolcat")


def _parse_ranks(text: bytes) -> dict[bytes, int]:
    import base64

    ranks: dict[bytes, int] = {}
    for line in text.splitlines():
        if not line:
            continue
        tok, rank = line.split()
        ranks[base64.b64decode(tok)] = int(rank)
    return ranks


_MAGIC = b"toolcat-ranks-1\n"


def _trusted(st: os.stat_result) -> bool:
    """A cache entry (file or folder) toolcat may trust: owned by this user and writable by
    nobody else (as ssh treats its files); never a symbolic link (checked by the caller)."""
    import stat

    return st.st_uid == os.geteuid() and not (st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _read_cache(cache_file: str, expected: str, magic: bytes = b"") -> Any:
    """The ranks in the cache, or None when it is missing, not trusted or fails its check.

    The file is ``_MAGIC``, the SHA-256 of the rank text it was built from (the shipped
    file's, hex), the SHA-256 of the marshal payload (hex), a newline, the payload. The
    payload is unmarshalled only when its hash matches, and used only when its text hash is
    the expected one and it holds a rank table. ``magic``: another kind of file
    (:data:`_SPLIT_MAGIC`: the parts of :func:`load_split`), checked the same way and
    returned as unmarshalled."""
    import hashlib
    import stat

    magic = magic or _MAGIC
    folder = os.path.dirname(cache_file)
    try:
        dst = os.lstat(folder)
        if stat.S_ISLNK(dst.st_mode) or not _trusted(dst):
            return None
        fd = os.open(cache_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _trusted(st) or st.st_size > 64 << 20:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            blob = f.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    head = len(magic) + 64 + 64 + 1
    if len(blob) < head or not blob.startswith(magic):
        return None
    text_sha = blob[len(magic):len(magic) + 64].decode("ascii", "replace")
    payload_sha = blob[len(magic) + 64:head - 1].decode("ascii", "replace")
    payload = memoryview(blob)[head:]
    if text_sha != expected or hashlib.sha256(payload).hexdigest() != payload_sha:
        return None
    try:
        ranks = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if magic != _MAGIC:
        return ranks
    if not isinstance(ranks, dict) or len(ranks) < 1000:
        return None
    return ranks


def _write_cache(cache_file: str, expected: str, ranks: Any, magic: bytes = b"") -> None:
    """Write the cache through a temp file made with ``mkstemp`` (``O_EXCL``: a planted
    link is never followed) in a folder only this user can write, then rename it."""
    import hashlib
    import stat
    import tempfile

    folder = os.path.dirname(cache_file)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        dst = os.lstat(folder)
        if stat.S_ISLNK(dst.st_mode) or not _trusted(dst):
            return
        payload = marshal.dumps(ranks)
        blob = (magic or _MAGIC) + expected.encode() \
            + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        fd, tmp = tempfile.mkstemp(prefix=".ranks-", suffix=".tmp", dir=folder)
    except OSError:
        return  # a read-only home: no cache, still correct
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, cache_file)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def rank_file_bytes(name: str) -> bytes:
    """The shipped rank file of ``name``, gunzipped and checked against its SHA-256 (the
    bytes of OpenAI's own ``NAME.tiktoken``)."""
    if name not in ENCODINGS:
        raise ToolcatError(f"unknown tokenizer {name!r} (known: {', '.join(ENCODINGS)})")
    # (imported here: a run with the ranks cached never reads the shipped file, and
    # importlib.resources, gzip and base64 cost ~9 ms of each project and measure run)
    import gzip
    from importlib import resources

    fname, expected = ENCODINGS[name]
    raw = resources.files("toolcat").joinpath("data", fname).read_bytes()
    text = gzip.decompress(raw)
    digest = hashlib.sha256(text).hexdigest()
    if digest != expected:
        raise ToolcatError(
            f"tokenizer file {fname} is corrupt (sha256 {digest[:12]}..., expected {expected[:12]}...)")
    return text


def load_ranks(name: str) -> dict[bytes, int]:
    if name not in ENCODINGS:
        raise ToolcatError(f"unknown tokenizer {name!r} (known: {', '.join(ENCODINGS)})")
    fname, expected = ENCODINGS[name]
    cache_file = os.path.join(_cache_dir(), f"{name}-{expected[:16]}.ranks")
    ranks = _read_cache(cache_file, expected)
    if ranks is not None:
        return ranks
    ranks = _parse_ranks(rank_file_bytes(name))
    _write_cache(cache_file, expected, ranks)
    return ranks


_SPLIT_MAGIC = b"toolcat-split-1\n"


def load_split(name: str) -> tuple[bytes, ...]:
    """The ranks of ``name`` in parts, each marshalled apart (the counter's child unmarshals
    only those it needs, :class:`_Vocab`): first the tokens made of ASCII bytes only, with
    the 256 single bytes; then, for each byte ``0x80 + i``, the other tokens whose first byte
    outside ASCII it is. Cached as :func:`load_ranks` caches the ranks (the same checks)."""
    if name not in ENCODINGS:
        raise ToolcatError(f"unknown tokenizer {name!r} (known: {', '.join(ENCODINGS)})")
    expected = ENCODINGS[name][1]
    cache_file = os.path.join(_cache_dir(), f"{name}-{expected[:16]}.split")
    parts = _read_cache(cache_file, expected, _SPLIT_MAGIC)
    if (isinstance(parts, tuple) and len(parts) == 129
            and all(p.__class__ is bytes for p in parts)):
        return parts
    ranks = load_ranks(name)
    base = {}
    shards: list[dict[bytes, int]] = [{} for _ in range(128)]
    for tok, rank in ranks.items():
        if len(tok) == 1 or tok.isascii():
            base[tok] = rank
        else:
            shards[next(c for c in tok if c >= 128) - 128][tok] = rank
    parts = tuple(marshal.dumps(d) for d in [base, *shards])
    _write_cache(cache_file, expected, parts, _SPLIT_MAGIC)
    return parts


def encoding(name: str = DEFAULT_ENCODING) -> Any:
    """An :class:`Encoder` built from the shipped ranks (no network)."""
    enc = _cache.get(name)
    if enc is not None:
        return enc
    # one thread at a time: an encoding is built once
    with _LOADING:
        return _load_encoding(name)


#: each encoding's pre-tokenizer pattern and special tokens, as
#: ``tiktoken_ext.openai_public`` defines them (tests/unit/test_measure_tokens.py holds them
#: equal): written here so that counting needs tiktoken's compiled core only, not the
#: ``tiktoken`` package (whose import pulls in concurrent.futures and logging: some 15 ms of
#: every ``project`` and ``measure`` run)
_O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
PARAMS = {
    "o200k_base": (_O200K_PAT, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
         "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
}


def _core_module() -> Any:
    """tiktoken's compiled core (``tiktoken._tiktoken``), loaded from its file without
    importing the ``tiktoken`` package; registered under its own name, so that a later
    ``import tiktoken`` uses this one (an extension module initializes once a process)."""
    import sys

    got = sys.modules.get("tiktoken._tiktoken")
    if got is not None:
        return got
    try:
        import importlib.machinery
        import importlib.util

        spec = importlib.util.find_spec("tiktoken")
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        for folder in folders:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "_tiktoken" + suffix)
                if os.path.isfile(path):
                    core = importlib.util.spec_from_file_location("tiktoken._tiktoken", path)
                    if core is None or core.loader is None:
                        continue
                    mod = importlib.util.module_from_spec(core)
                    core.loader.exec_module(mod)
                    sys.modules["tiktoken._tiktoken"] = mod
                    return mod
    except (ImportError, OSError, ValueError):
        pass
    import tiktoken._tiktoken

    return tiktoken._tiktoken


class Encoder:
    """An encoding's ``name`` and ``encode_ordinary``, as ``tiktoken.Encoding`` has them
    (the same ``CoreBPE`` from the same ranks, pattern and special tokens)."""

    def __init__(self, name: str, ranks: dict[bytes, int] | None = None) -> None:
        """``ranks``: a part of the encoding's ranks that holds every token of every
        pre-token piece of the texts it will encode (:class:`_Vocab`): their tokens are the
        same (tiktoken looks up only pieces and byte strings within one)."""
        if ranks is None:
            ranks = load_ranks(name)       # (an unknown name is refused there)
        pat_str, special = PARAMS[name]
        self.name = name
        self._core = _core_module().CoreBPE(ranks, special, pat_str)

    def encode_ordinary(self, text: str) -> list[int]:
        try:
            return self._core.encode_ordinary(text)
        except UnicodeEncodeError:
            return self._core.encode_ordinary(_without_surrogates(text))


def _without_surrogates(text: str) -> str:
    """``text`` with its lone surrogates replaced: what tiktoken.Encoding.encode_ordinary
    encodes when a text has any (a pair of surrogates becomes its character)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _load_encoding(name: str) -> Any:
    enc = _cache.get(name)
    if enc is not None:
        return enc
    enc = Encoder(name)
    _cache[name] = enc
    return enc


# tiktoken's pattern overflows its regex engine's stack on a long run of white space (o200k:
# between 800,000 and 1,000,000 spaces; a Rust panic, not an exception). Counts are exact or
# not given: such a text is refused in one line before tiktoken sees it.
_MAX_SPACE_RUN = 500_000
_SPACE_RUN = None


class TokenizerLimit(ToolcatError):
    """A text tiktoken cannot encode (an input error: exit 2, one line)."""


def _check_encodable(data: str) -> None:
    global _SPACE_RUN
    if len(data) <= _MAX_SPACE_RUN:
        return
    if _SPACE_RUN is None:
        import re

        _SPACE_RUN = re.compile(r"\s{%d,}" % _MAX_SPACE_RUN)
    m = _SPACE_RUN.search(data)
    if m is not None:
        from toolcat.errors import current_file

        raise TokenizerLimit(
            f"cannot count tokens: a run of {m.end() - m.start():,} white-space characters "
            f"(tiktoken fails on runs this long; at most {_MAX_SPACE_RUN:,})", current_file())


#: texts longer than this are encoded in pieces of at most about this many characters (see
#: :func:`_encoded_length`): tiktoken returns every token as a Python int, so a 200 MB
#: catalog would take gigabytes to count at once
CHUNK = 1 << 20
# where a piece may end: after `{"`, `,"`, `:"` or `["` and before an ASCII letter (a JSON
# key or string starting with one). Every encoding here pre-tokenizes such a text with a
# split right there: the punctuation run that holds the `"` ends at the letter (a run is
# greedy and a letter ends it; no match can start at the `"`, as the character before it is
# punctuation the same run takes), and the patterns look behind nothing and ahead only at
# white space, so both pieces pre-tokenize as they do within the whole text, and BPE never
# merges across pre-tokens: the counts add up exactly. (A match's start + 2 is the place.)
_SPLIT_PATTERN = r'[{,:\[]"[A-Za-z]'
_SPLIT = None                    # compiled for str (_split_count)
_SPLIT_BYTES = None              # compiled for bytes (Tally)
# the pieces of a long text end before each `"properties"` key (one of those places), so
# that they depend on the content only: the same schema text met again (an OpenAPI spec's
# tools bundle the same components) gives the same pieces, counted once (_PIECES)
_ANCHOR = '"properties"'
_PIECE_MIN = 512                 # shorter pieces are joined to the next one
_MEMO_MIN = 64 << 10             # shorter texts are counted whole
_PIECES: dict[str, dict[str, int]] = {}   # encoding -> piece -> its count (bounded below)
_PIECES_MAX_CHARS = 64 << 20
_pieces_chars = 0


def cuts_after_brace(item: bytes | memoryview) -> bool:
    """Whether the canonical JSON ``item`` of an array opens with ``{"`` and a key starting
    with an ASCII letter: the text ``,{"`` before it is then a place (:data:`_SPLIT`) where
    the array's text may be cut without changing its count."""
    c = item[2] if len(item) > 2 else 0
    return item[:2] == b'{"' and (65 <= c <= 90 or 97 <= c <= 122)


def _anchors(text: str) -> list[int]:
    """The places in ``text`` just after the ``{"`` or ``,"`` that opens a ``"properties"``
    key (:data:`_ANCHOR`; ``str.find`` is ten times faster than a regex search here, and this
    runs over every character measure counts: 254 MB for a Stripe spec)."""
    out = []
    find = text.find
    i = find(_ANCHOR, 1)
    while i >= 0:
        if text[i - 1] in "{,":
            out.append(i + 1)
        i = find(_ANCHOR, i + len(_ANCHOR))
    return out


def pieces(data: bytes) -> list[bytes]:
    """``data`` (UTF-8 text) cut where :func:`_encoded_length` cuts a long text (after the
    ``{"`` or ``,"`` of each ``"properties"`` key, pieces under :data:`_PIECE_MIN` joined
    to the next): the pieces' counts add up to the text's, and the same schema text met
    again gives the same pieces, which a caller submits once (``measure``: a Stripe
    standard view is 206 MB of 3 MB of distinct pieces)."""
    key = _ANCHOR.encode()
    out = []
    find = data.find
    pos = 0
    i = find(key, 1)
    while i >= 0:
        if data[i - 1] in b"{," and i + 1 - pos >= _PIECE_MIN:
            out.append(data[pos:i + 1])
            pos = i + 1
        i = find(key, i + len(key))
    out.append(data[pos:])
    return out


#: the keys :func:`fine_pieces` cuts before (each opens most schema nodes' entries: a piece
#: then holds one node's own text, which the nodes of a spec's views repeat most)
_FINE_KEYS = (b'"type"', b'"description"')
_FINE_MIN = 64                   # shorter fine pieces are joined to the next one


def fine_pieces(data: bytes) -> list[bytes]:
    """``data`` (UTF-8 text) cut finer than :func:`pieces`: after the ``{"`` or ``,"`` of
    each ``"type"`` and ``"description"`` key (places of :data:`_SPLIT`, where the count
    cannot change), pieces under :data:`_FINE_MIN` joined to the next. ``measure`` cuts each
    distinct piece of :func:`pieces` again so: the same schema node met in another context
    (a Kubernetes view's 14 MB of distinct pieces hold 1.8 MB of distinct fine ones) is
    counted once."""
    cuts = []
    for key in _FINE_KEYS:
        find = data.find
        i = find(key, 1)
        while i >= 0:
            if data[i - 1] in b"{,":
                cuts.append(i + 1)
            i = find(key, i + len(key))
    if not cuts:
        return [data]
    cuts.sort()
    out = []
    pos = 0
    for c in cuts:
        if c - pos >= _FINE_MIN:
            out.append(data[pos:c])
            pos = c
    out.append(data[pos:])
    return out


def _split_str() -> Any:
    global _SPLIT
    if _SPLIT is None:
        import re

        _SPLIT = re.compile(_SPLIT_PATTERN)
    return _SPLIT


_NON_ASCII_RX = None


def _outside_ascii(text: str) -> list[list[int]]:
    """The parts ``[start, end]`` of ``text`` that hold its characters outside ASCII, each
    from a place of :data:`_SPLIT_PATTERN` before them (or the start) to the first one after
    them (or the end), in order, apart: the text between them is ASCII, and the counts of
    the parts and of the text between them add up to the text's."""
    global _NON_ASCII_RX
    if _NON_ASCII_RX is None:
        import re

        _NON_ASCII_RX = re.compile(r"[^\x00-\x7f]+")
    split = _split_str()
    out: list[list[int]] = []
    for m in _NON_ASCII_RX.finditer(text):
        start, end = m.span()
        if out and start < out[-1][1]:
            a = out.pop()[0]
        else:
            width = 256                   # a place before: the last one in a window that widens
            while True:
                lo = max(0, start - width)
                last = None
                for last in split.finditer(text, lo, start):
                    pass
                if last is not None or lo == 0:
                    a = last.start() + 2 if last is not None else 0
                    break
                width *= 16
            if out and a <= out[-1][1]:
                a = out.pop()[0]
        after = split.search(text, end)
        out.append([a, after.start() + 2 if after is not None else len(text)])
    return out


def _split_count(enc: Any, text: str) -> int:
    """The count of ``text`` in pieces of about :data:`CHUNK` cut at :data:`_SPLIT`.

    Every text that reaches tiktoken passes here (or is shorter than :data:`_MEMO_MIN`), so
    the white-space check (:func:`_check_encodable`) is made here, on the distinct pieces
    only: a run of white space never holds a cut, it lies whole in one piece, which is
    checked before it is first counted (a piece counted before was checked then)."""
    _check_encodable(text)
    n = len(text)
    if n <= 2 * CHUNK:
        return len(enc.encode_ordinary(text))
    split = _split_str()
    total = 0
    pos = 0
    while pos < n:
        m = split.search(text, pos + CHUNK) if n - pos > 2 * CHUNK else None
        end = m.start() + 2 if m is not None else n
        total += len(enc.encode_ordinary(text[pos:end]))
        pos = end
    return total


def _memo_pieces(text: str) -> list[str]:
    """The pieces of a text longer than :data:`_MEMO_MIN` that :func:`_encoded_length`
    counts apart (cut where the count cannot change, :data:`_SPLIT`; under
    :data:`_PIECE_MIN` joined to the next)."""
    n = len(text)
    out = []
    pos = 0
    ends = _anchors(text)
    ends.append(n)
    for end in ends:
        if end - pos < _PIECE_MIN and end != n:
            continue
        out.append(text[pos:end])
        pos = end
    return out


def _piece_count(enc: Any, piece: str) -> int:
    """The count of one of :func:`_memo_pieces`, counted once per process (memoized)."""
    global _pieces_chars
    memo = _PIECES.setdefault(enc.name, {})
    got = memo.get(piece)
    if got is None:
        got = _split_count(enc, piece)
        if _pieces_chars > _PIECES_MAX_CHARS:
            _PIECES.clear()
            memo = _PIECES[enc.name] = {}
            _pieces_chars = 0
        memo[piece] = got
        _pieces_chars += len(piece)
    return got


def _encoded_length(enc: Any, text: str) -> int:
    """``len(enc.encode_ordinary(text))``, for a long text the sum of its pieces' counts (cut
    where the count cannot change, :data:`_SPLIT`), each piece counted once per process, so
    memory stays bounded by a piece and repeated schema text costs nothing more."""
    if len(text) <= _MEMO_MIN:
        return len(enc.encode_ordinary(text))
    return sum([_piece_count(enc, piece) for piece in _memo_pieces(text)])


def count(data: bytes | memoryview | str, name: str = DEFAULT_ENCODING) -> int:
    """Number of tokens of ``data`` (UTF-8 text); special-token text counts as ordinary text."""
    if not isinstance(data, str):      # bytes, or a memoryview of them
        data = str(data, "utf-8", "surrogatepass")
    enc = encoding(name)   # (_split_count checks the pieces it encodes: _check_encodable)
    try:
        return _encoded_length(enc, data)
    except BaseException as e:   # pyo3's PanicException is a BaseException
        if type(e).__name__ != "PanicException":
            raise
        from toolcat.errors import current_file

        raise TokenizerLimit(f"cannot count tokens: tiktoken failed ({' '.join(str(e).split())[:120]})",
                             current_file()) from None


# --------------------------------------------------------------------------- counting in bulk


class TokenCounter(Protocol):
    """What ``measure`` counts with: a :class:`Counter`, or another counter of the same
    form (``measure --as harmony``'s :class:`toolcat.features.measure.harmony.HarmonyCounter`)."""

    name: str

    def submit(self, data: bytes | str) -> int: ...

    def results(self) -> list[int]: ...

    def close(self, kill: bool = False) -> None: ...


class Counter:
    """Count tokens of many texts; results come back in submission order.

    This one counts in this process. :func:`counter` may return a :class:`ForkedCounter`
    instead, which does the same work in a child process so that loading the tokenizer
    (about 0.2 s) and encoding run on the second core while this process loads and
    projects catalogs. Both give the same numbers.
    """

    def __init__(self, name: str = DEFAULT_ENCODING) -> None:
        self.name = name
        self._results: list[int] = []

    def submit(self, data: bytes | str) -> int:
        self._results.append(count(data, self.name))
        return len(self._results) - 1

    def results(self) -> list[int]:
        return self._results

    def answered(self) -> list[int]:
        """The counts known so far (of the first texts submitted, in order): what
        :meth:`results` will begin with."""
        return self._results

    def close(self, kill: bool = False) -> None:
        """Release resources; ``kill``: the results are not wanted (an error path)."""


class ForkedCounter(Counter):
    """A :class:`Counter` whose encoding runs in a forked child (POSIX only).

    Protocol over two pipes: the parent writes ``<8-byte length><UTF-8 bytes>`` per text and
    closes; the child loads the tokenizer, answers each text with an 8-byte count and exits.
    Anything going wrong on the child's side (it cannot load the tokenizer, it dies) makes
    :meth:`results` count the texts in this process instead, which raises the real error.

    Texts go over in batches of about :data:`BATCH` bytes and answers come back in bulk: a
    measure of Kubernetes submits 11,000 pieces, and a thread woken, a write and a read for
    each cost as much as counting them.
    """

    #: bytes submitted and not counted yet beyond which :meth:`submit` waits for the child
    #: (a catalog's views are submitted faster than they are counted: without a bound the
    #: parent would hold all of them, 206 MB for Stripe's standard view)
    IN_FLIGHT_MAX = 32 << 20
    #: bytes of texts :meth:`submit` gathers before handing them to the writer thread
    BATCH = 64 << 10

    def __init__(self, name: str = DEFAULT_ENCODING) -> None:
        import threading

        super().__init__(name)
        import collections

        #: the texts submitted and not answered yet, in order (an answered text is dropped:
        #: memory stays that of the texts in flight, not of all the texts submitted)
        self._pending: collections.deque[bytes | memoryview] = collections.deque()
        self._submitted = 0
        self._answers: list[int] = []
        self._in_flight = 0
        self._done = False          # the reader is finished (the child answered all or died)
        self._cond = threading.Condition()
        #: the texts submitted and not handed to the writer yet (with their lengths), and
        #: the texts alone
        self._batch: list[bytes | memoryview] = []
        self._batch_len = 0
        self._texts: list[bytes | memoryview] = []
        r_req, w_req = os.pipe()
        r_ans, w_ans = os.pipe()
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 0
            try:
                os.close(w_req)
                os.close(r_ans)
                # nothing from the child reaches the user: on any failure the parent counts
                # again and reports it in one line
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)
                _serve(r_req, w_ans, name)
            except BaseException:  # noqa: BLE001 - the parent notices the missing answers
                code = 1
            finally:
                os._exit(code)
        os.close(r_req)
        os.close(w_ans)
        import queue

        self._pid: int | None = pid
        self._w = os.fdopen(w_req, "wb")
        self._r = r_ans
        self._queue: Any = queue.SimpleQueue()
        # Writing happens on a thread: the pipe fills up while the child still loads the
        # tokenizer, and submit() must not wait for that.
        from toolcat.stack import start_shallow

        self._writer = start_shallow(self._write, "toolcat-tokens-writer")
        self._reader = start_shallow(self._read, "toolcat-tokens-reader")

    def _write(self) -> None:
        broken = False
        while True:
            batch = self._queue.get()
            if batch is None:
                break
            if broken:
                continue
            try:
                self._w.write(b"".join(batch))
                if self._queue.empty():
                    # nothing more to send now: what the buffer holds must reach the child
                    # (submit may be waiting for its answers)
                    self._w.flush()
            except (OSError, ValueError):  # the child is gone: results() counts here
                broken = True
        try:
            self._w.close()
        except OSError:
            pass

    def _read(self) -> None:
        rest = b""
        try:
            while True:
                got = os.read(self._r, 1 << 16)
                if not got:
                    return
                data = rest + got if rest else got
                end = len(data) - len(data) % 8
                rest = data[end:]
                if not end:
                    continue
                counts = [int.from_bytes(data[i:i + 8], "little") for i in range(0, end, 8)]
                with self._cond:
                    self._answers.extend(counts)
                    # counted: the texts are not needed again (memory: a catalog's views)
                    pop = self._pending.popleft
                    self._in_flight -= sum([len(pop()) for _ in counts])
                    self._cond.notify_all()
        except (OSError, ValueError, IndexError):
            return
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def submit(self, data: bytes | memoryview | str) -> int:
        if isinstance(data, str):
            data = data.encode("utf-8", errors="surrogatepass")
        n = len(data)
        # (the reader learns of the texts when they are handed to the writer, in _flush: one
        # lock a batch, not one a text; a catalog's views are thousands of small pieces).
        # The texts gathered go first where this one would take the texts in flight past the
        # bound (which only answers lower meanwhile): it waits for room alone, as before
        if self._batch and self._in_flight + self._batch_len + n > self.IN_FLIGHT_MAX:
            self._flush()
        self._texts.append(data)
        self._batch.append(n.to_bytes(8, "little"))
        self._batch.append(data)
        self._batch_len += n + 8
        i = self._submitted
        self._submitted += 1
        if self._batch_len >= self.BATCH:
            self._flush()
        return i

    def _flush(self) -> None:
        """Hand the texts gathered to the writer thread, once there is room for them (the
        texts in flight beyond :data:`IN_FLIGHT_MAX`: wait for answers)."""
        if not self._batch:
            return
        texts = self._texts
        with self._cond:
            if self._in_flight > self.IN_FLIGHT_MAX and not self._done:
                # the child holds back the answers after a text outside ASCII (_serve): ask
                self._queue.put([_FLUSH.to_bytes(8, "little")])
                while self._in_flight > self.IN_FLIGHT_MAX and not self._done:
                    self._cond.wait()
            self._pending.extend(texts)
            self._in_flight += sum([len(t) for t in texts])
        self._queue.put(self._batch)
        self._batch = []
        self._batch_len = 0
        self._texts = []

    def answered(self) -> list[int]:
        return self._answers

    def results(self) -> list[int]:
        self.close()
        if len(self._answers) == self._submitted:
            return self._answers
        # (the texts not answered are all pending, in order)
        return self._answers[:self._submitted] + [count(t, self.name) for t in self._pending]

    def close(self, kill: bool = False) -> None:
        if self._pid is None:
            return
        if kill:
            import signal

            try:
                os.kill(self._pid, signal.SIGKILL)
            except OSError:
                pass
        self._flush()
        self._queue.put(None)
        self._writer.join()
        self._reader.join()
        try:
            os.close(self._r)
        except OSError:
            pass
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:
            pass
        self._pid = None


#: the 8-byte length that asks the child for the answers it holds back (no text is this long)
_FLUSH = (1 << 64) - 1
#: characters of texts whose answers the child holds back at most (then it counts the parts
#: held and answers: the parent keeps each text until it is answered)
_HOLD_MAX = 4 << 20
_KEPT: list[Any] = []


def _serve(r_fd: int, w_fd: int, name: str) -> None:
    """The child of a :class:`ForkedCounter`: read what has come, count each text it holds
    whole, answer their counts in one write, and again until the input ends.

    A text made of ASCII characters only is counted with the ASCII tokens (:class:`_Vocab`),
    at once. A text with others is held back, and so are the answers after it (answers go
    in order), until the input ends, the parent asks for them (:data:`_FLUSH`: it waits for
    answers) or the answers held are of :data:`_HOLD_MAX` characters of texts: then the
    parts outside ASCII held are counted with a vocabulary built for them (their ASCII text
    between places where counts add up is counted at once). When the first texts read are
    mostly outside ASCII (:meth:`_Vocab.start`), the whole vocabulary counts them all."""
    vocab = _Vocab(name)
    _KEPT.append(vocab)       # (never freed: the child ends in os._exit, freeing takes ~50 ms)
    started = False
    wf = os.fdopen(w_fd, "wb")
    buf = bytearray()
    out: list[int] = []                   # the answers not written yet
    held: list[tuple[int, str]] = []      # the parts held back (their texts' places in out)
    held_chars = 0                        # characters of the texts after the first held
    #: each piece with characters outside ASCII met: its ASCII text's count and the parts
    #: held (:func:`_mixed`; a catalog's views repeat them)
    mixed: dict[str, tuple[int, list[str]]] = {}
    mixed_chars = 0
    while True:
        got = os.read(r_fd, 1 << 20)
        flush = not got
        buf += got
        if not started and got:
            vocab.start(_outside_share(buf))
            started = True
        pos = 0
        view = memoryview(buf)
        for start, pos in _frames(buf):
            if start < 0:
                flush = True
                continue
            text = str(view[start:pos], "utf-8", "surrogatepass")
            if held:
                held_chars += len(text)
            if text.isascii():            # (O(1): CPython knows)
                out.append(_encoded_length(vocab.ascii, text))
            elif vocab.full is not None and not held:
                out.append(_encoded_length(vocab.full, text))
            else:
                # the pieces of ASCII text are counted now (as _encoded_length cuts them:
                # a long text's repeated pieces are counted once), and so is the ASCII text
                # between the parts that hold the others in a piece
                total = 0
                for piece in [text] if len(text) <= _MEMO_MIN else _memo_pieces(text):
                    if piece.isascii():
                        total += _piece_count(vocab.ascii, piece)
                        continue
                    known = mixed.get(piece)
                    if known is None:
                        known = mixed[piece] = _mixed(vocab, piece)
                        mixed_chars += len(piece)
                    total += known[0]
                    held.extend([(len(out), part) for part in known[1]])
                out.append(total)
        if mixed_chars > _PIECES_MAX_CHARS // 4:
            mixed.clear()
            mixed_chars = 0
        view.release()
        del buf[:pos]
        if held and (flush or held_chars > _HOLD_MAX or vocab.full is not None):
            enc = vocab.encoder()
            counted: dict[str, int] = {}
            for i, part in held:
                c = counted.get(part)
                if c is None:
                    c = counted[part] = _encoded_length(enc, part)
                out[i] += c
            held.clear()
            held_chars = 0
        if out and not held:
            wf.write(b"".join([c.to_bytes(8, "little") for c in out]))
            wf.flush()
            out.clear()
        if not got:
            return


def _mixed(vocab: "_Vocab", piece: str) -> tuple[int, list[str]]:
    """A piece with characters outside ASCII: the count of its ASCII text between the parts
    that hold the others (:func:`_outside_ascii`), counted now, and those parts, which
    ``vocab`` is told of (:meth:`_Vocab.add`) to be counted later."""
    total = 0
    parts = []
    at = 0
    for a, b in _outside_ascii(piece):
        if a > at:
            total += _encoded_length(vocab.ascii, piece[at:a])
        part = piece[a:b]
        vocab.add(part)
        parts.append(part)
        at = b
    if at < len(piece):
        total += _encoded_length(vocab.ascii, piece[at:])
    return total, parts


def _outside_share(buf: bytearray) -> float:
    """The share of the bytes of the texts whole in ``buf`` (``_serve``'s input) that are
    bytes of characters outside ASCII."""
    size = high = 0
    for start, end in _frames(buf):
        if start >= 0:
            size += end - start
            high += end - start - len(buf[start:end].translate(None, _HIGH_BYTES))
    return high / size if size else 0.0


def _frames(buf: bytearray) -> Iterator[tuple[int, int]]:
    """The frames whole in ``buf`` (what a :class:`ForkedCounter` sends its child: each text
    after its length in 8 bytes, little-endian; a :data:`_FLUSH` header alone), in order:
    ``(start, end)`` of a text's bytes, ``(-1, end)`` for a flush header (``end``: where the
    next frame starts)."""
    pos = 0
    while len(buf) - pos >= 8:
        n = int.from_bytes(buf[pos:pos + 8], "little")
        if n == _FLUSH:
            pos += 8
            yield -1, pos
            continue
        if len(buf) - pos - 8 < n:
            return
        pos += 8 + n
        yield pos - n, pos


def _byte_classes() -> bytes:
    """Each byte's class (a table for ``bytes.translate``): ``L`` an ASCII letter, ``N`` a
    digit, ``A`` the apostrophe, ``S`` the slash, ``W`` the space, ``T`` tab, vertical tab
    or form feed, ``R`` CR or LF, ``P`` another ASCII character, ``X`` a byte >= 0x80."""
    table = bytearray(b"P" * 256)
    for b in range(256):
        c = chr(b)
        table[b] = ord("X" if b >= 128 else "L" if c.isalpha() else "N" if c.isdigit()
                       else "A" if c == "'" else "S" if c == "/" else "W" if c == " "
                       else "T" if c in "\t\v\f" else "R" if c in "\r\n" else "P")
    return bytes(table)


_CLASSES = _byte_classes()
_ASCII_BYTES = bytes(range(128))
_HIGH_BYTES = bytes(range(128, 256))
#: the last byte of a region (:class:`_Vocab`), by class: one followed by a byte no pre-token
#: piece ever holds right after it, in either encoding's pattern. Their pieces are: letters
#: after at most one character that is no letter, digit, CR or LF, with a contraction
#: (``'s``: apostrophe and letters) after (pairs ``[APSWTX]L``, ``LL``, ``LA``, ``AL``);
#: up to three digits (``NN``); a space, punctuation (``[APSX]``), CRs, LFs and slashes
#: (``W[APSX]``, ``[APS][APSRX]``, ``RR``, ``RS``, ``SR``, ``SS``); white space (``[WTRX]``
#: pairs). ``X`` (the bytes of a non-ASCII character: letters, digits, white space,
#: punctuation) is taken to join anything; every other pair is a region's end.
_REGION_END = r"L(?=[NPSWTR])|N(?=[LAPSWTR])|[APS](?=[NWT])|W(?=N)|T(?=[NAPS])|R(?=[LNAP])"
_REGION_END_RX = None
#: the longest token of every encoding here, in bytes (a test holds it)
_MAX_TOKEN = 128


class _Vocab:
    """The vocabularies a :class:`ForkedCounter`'s child counts with: ``ascii``, an
    :class:`Encoder` of the tokens made of ASCII bytes (and the 256 single bytes), exact for
    a text of ASCII characters only (each byte string it looks up is ASCII); for the other
    texts, given to :meth:`add`, the :meth:`encoder` of the tokens found in them.

    Tiktoken encodes a text piece by piece (its pattern's matches) and looks up only byte
    strings within a piece; a piece never crosses the end of a region (``_REGION_END``), so
    an encoder holding every token that occurs in a region of the text, at most
    ``_MAX_TOKEN`` bytes long, gives the tokens the whole vocabulary gives. Building a
    ``CoreBPE`` costs about half a microsecond a token (o200k: 200,000 tokens, 129,000
    ASCII ones; the tokens of a catalog's non-ASCII texts: some thousands). When the regions
    would take more than :data:`WORK_MAX` look-ups (text in another script: a whole sentence
    is one region), the whole vocabulary is loaded instead (``full``)."""

    #: byte strings looked up at most (about 0.1 s) before the whole vocabulary is loaded instead
    WORK_MAX = 400_000
    #: the share of the first texts' bytes outside ASCII past which the whole vocabulary is
    #: loaded from the start (API specs in English: under 0.0002; in another script: most)
    FULL_SHARE = 0.01

    ascii: Encoder

    def __init__(self, name: str) -> None:
        self.name = name
        self.parts: tuple[bytes, ...] = load_split(name)
        self.ranks: dict[bytes, int] = marshal.loads(self.parts[0])
        self.full: Encoder | None = None
        self.need = {t: self.ranks[t] for t in map(bytes, zip(range(256)))}
        self.loaded = bytearray(256)      # the shards of ``parts`` added to ``ranks``
        self.regions: set[bytes] = set()  # the regions given (their tokens: ``need``)
        self.pending: set[bytes] = set()  # those whose tokens ``need`` does not hold yet
        self.work = 0
        self._built: Encoder | None = None
        self._built_size = 0

    def start(self, share: float) -> None:
        """Build ``ascii``; ``share``: that of the first texts' bytes outside ASCII (past
        :data:`FULL_SHARE`, the whole vocabulary is built instead, and counts them all)."""
        if share > self.FULL_SHARE:
            self._whole()
            assert self.full is not None
            self.ascii = self.full
        else:
            self.ascii = Encoder(self.name, self.ranks)

    def _whole(self) -> None:
        """Load the other parts of the ranks and build ``full`` from all of them."""
        for b in range(128, 256):
            self._load(b)
        self.full = Encoder(self.name, self.ranks)
        self.regions.clear()
        self.pending.clear()
        self.need.clear()

    def add(self, text: str) -> None:
        """Make :meth:`encoder` exact for ``text`` too."""
        global _REGION_END_RX
        if self.full is not None:
            return
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = _without_surrogates(text).encode("utf-8")
        if _REGION_END_RX is None:
            import re

            _REGION_END_RX = re.compile(_REGION_END.encode())
        ends = [m.end() for m in _REGION_END_RX.finditer(data.translate(_CLASSES))]
        ends.append(len(data))
        new = set(map(data.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        new -= self.regions
        if not new:
            return
        top = _MAX_TOKEN
        self.work += sum([n * (n - 1) // 2 if n <= top else (top - 1) * n - top * (top - 1) // 2
                          for n in map(len, new)])
        if self.work > self.WORK_MAX:
            self._whole()
            return
        self.regions |= new
        self.pending |= new
        for b in set(data.translate(None, _ASCII_BYTES)):
            self._load(b)

    def _load(self, b: int) -> None:
        """Add to ``ranks`` the tokens whose first byte outside ASCII is ``b`` (once)."""
        if not self.loaded[b]:
            self.ranks.update(marshal.loads(self.parts[b - 127]))
            self.loaded[b] = 1

    def encoder(self) -> Encoder:
        """An encoder exact for the texts given to :meth:`add` (and ASCII ones)."""
        if self.full is not None:
            return self.full
        if self.pending:
            top = _MAX_TOKEN
            # (a set of the byte strings, looked up in one go: half the time of a loop)
            found = self.ranks.keys() & {r[i:k] for r in self.pending for i in range(len(r) - 1)
                                         for k in range(i + 2, min(len(r), i + top) + 1)}
            ranks = self.ranks
            self.need.update({tok: ranks[tok] for tok in found})
            self.pending.clear()
        if self._built is None or self._built_size != len(self.need):
            self._built = Encoder(self.name, self.need)
            self._built_size = len(self.need)
        return self._built


def counter(name: str = DEFAULT_ENCODING, parallel: bool = True) -> Counter:
    """A :class:`ForkedCounter` where that helps and is safe, else a :class:`Counter`.

    Forking needs POSIX ``fork`` (Linux; not macOS, where forking a process with system
    frameworks loaded is unsafe), a second CPU, a tokenizer not loaded yet in this process
    (else there is nothing to overlap), no ``TOOLCAT_NO_FORK`` in the environment, and no
    other thread (:func:`toolcat.stack.alone`): a child forked while other threads run (the
    API's calls in a thread pool) could inherit a lock one of them holds, or the pipes of
    another call's child, which then never sees its input end (both wait for good).
    """
    import sys

    from toolcat.stack import alone

    if (parallel and name not in _cache and sys.platform.startswith("linux")
            and hasattr(os, "fork") and not os.environ.get("TOOLCAT_NO_FORK")
            and (os.cpu_count() or 1) > 1 and alone()):
        try:
            return ForkedCounter(name)
        except OSError:
            pass
    return Counter(name)


# --------------------------------------------------------------------------- distinct pieces


class Shared:
    """A part of a text that recurs in it as the same object (the tools of an OpenAPI spec
    bundle the same definition objects: a Kubernetes standard view is 54 MB of 1.2 MB of
    distinct definitions): its bytes, made once. A :class:`Tally` keys the pieces that hold
    one by the object, without reading its bytes again."""

    __slots__ = ("text",)

    def __init__(self, text: bytes) -> None:
        self.text = text


def _letter(c: int) -> bool:
    return 65 <= c <= 90 or 97 <= c <= 122


def parts_length(parts: list[Any]) -> int:
    """Bytes of the text of ``parts`` (bytes, :class:`Shared` parts and :class:`Group` s)."""
    return sum([p.size if p.__class__ is Group else len(p.text) if p.__class__ is Shared
                else len(p) for p in parts])


def parts_text(parts: list[Any]) -> bytes:
    """The text of ``parts`` (bytes, :class:`Shared` parts and :class:`Group` s)."""
    return b"".join([parts_text(p.parts()) if p.__class__ is Group
                     else p.text if p.__class__ is Shared else p for p in parts])


class Group:
    """The parts of an object that recurs as the same object (a definitions map that the
    tools of an OpenAPI spec bundle: Stripe's 467 output schemas hold 137 maps of 150,955
    entries in all), made from its names (JSON strings) and values (:class:`Shared`):
    ``head``, the parts up to the first place of :data:`_SPLIT_PATTERN` in it (the ``{"``
    or ``,"`` before a name that starts with an ASCII letter; ``cut``: there is one),
    ``inner``, from there to the last such place (``inner_pieces``: cut at each such
    place, each piece as its parts), ``rest``, from there to its end. A :class:`Tally`
    counts ``inner`` once and adds that count each time the group recurs."""

    __slots__ = ("head", "inner", "inner_pieces", "rest", "cut", "inner_size", "size")

    def __init__(self, names: list[bytes], values: list[Shared]) -> None:
        flat: list[bytes | Shared] = []
        places = []              # the bytes parts `{"Name":` / `,"Name":` with a place at 2
        for i, (name, value) in enumerate(zip(names, values)):
            if len(name) > 2 and _letter(name[1]):
                places.append(len(flat))
            flat.append((b"{" if i == 0 else b",") + name + b":")
            flat.append(value)
        flat.append(b"}" if flat else b"{}")
        self.size = parts_length(flat)
        self.cut = bool(places)
        self.inner_pieces: list[tuple] = []
        if not places:
            self.head, self.inner, self.rest = flat, [], []
        else:
            for a, b in zip(places, places[1:]):
                first, last = flat[a], flat[b]
                assert isinstance(first, bytes) and isinstance(last, bytes)
                self.inner_pieces.append((first[2:], *flat[a + 1:b], last[:2]))
            a, b = places[0], places[-1]
            first, last = flat[a], flat[b]
            assert isinstance(first, bytes) and isinstance(last, bytes)
            self.head = [*flat[:a], first[:2]]
            self.inner = [] if a == b else [first[2:], *flat[a + 1:b], last[:2]]
            self.rest = [last[2:], *flat[b + 1:]]
        self.inner_size = parts_length(self.inner)

    def parts(self) -> list[bytes | Shared]:
        """All its parts, in order."""
        return self.head + self.inner + self.rest


#: bytes of distinct pieces a :class:`Seen` remembers (past it, it starts over)
SEEN_BYTES = 64 << 20


class Seen:
    """The pieces :class:`Tally` s submitted, shared by them (the views of a catalog repeat
    each other): each piece of :func:`pieces` met -> the counter indices of its fine pieces
    (:func:`fine_pieces`), each piece with :class:`Shared` parts (by its parts) -> the same,
    each fine piece submitted -> its index, each :class:`Group` -> the :class:`Tally` of
    its ``inner`` parts; and the bytes they may still take (past :data:`SEEN_BYTES` they
    start over: the dedup is forgotten, never a count)."""

    __slots__ = ("pieces", "shared", "fine", "groups", "left")

    def __init__(self) -> None:
        self.pieces: dict[bytes, tuple[int, ...]] = {}
        self.shared: dict[tuple, tuple[int, ...]] = {}
        self.fine: dict[bytes, int] = {}
        self.groups: dict[int, tuple[Group, Tally]] = {}
        self.left = SEEN_BYTES

    def forget(self) -> None:
        self.pieces.clear()
        self.shared.clear()
        self.fine.clear()
        self.groups.clear()
        self.left = SEEN_BYTES


def _split_bytes() -> Any:
    global _SPLIT_BYTES
    if _SPLIT_BYTES is None:
        import re

        _SPLIT_BYTES = re.compile(_SPLIT_PATTERN.encode())
    return _SPLIT_BYTES


def _last_cut(data: bytes) -> int:
    """The last place of :data:`_SPLIT_PATTERN` in ``data`` (0: none), searched from the end
    (a window that widens: the place before a shared part is a few bytes back)."""
    rx = _split_bytes()
    n = len(data)
    width = 256
    while True:
        start = max(0, n - width)
        last = None
        for last in rx.finditer(data, start):
            pass
        if last is not None:          # (the matches never overlap: the last one is last)
            return last.start() + 2
        if start == 0:
            return 0
        width *= 16


#: distinct pieces a :class:`Tally` keeps before it adds up those already counted
#: (:meth:`Tally._fold`)
_FOLD_MIN = 4096
#: plain text a :class:`Tally` holds before it counts what lies before its last cut
_RUN_MAX = 1 << 20
#: plain text after a shared part without a place to cut, past which the piece under way
#: is taken as plain text
_TAIL_MAX = 64 << 10


class Tally:
    """The token count of a long text given in parts, each distinct piece submitted to
    ``counter`` once: the work grows with what is distinct, not with how often it repeats
    (a Kubernetes standard view, 54 MB and 12 M tokens, is 1.2 MB of distinct definitions
    that the tools bundle again and again, and 5 MB of the tools' own text).

    The text is cut at places of :data:`_SPLIT_PATTERN` only, where counts add up: plain
    text by :func:`pieces` and then :func:`fine_pieces`, each distinct piece by its bytes;
    around each :class:`Shared` part (:meth:`add_shared`) at the last place before it and
    the first after it, the piece between (a definitions entry ``,"Name":{...},"`` gives
    ``Name":{...},"``) keyed by its parts: its bytes are put together the first time only.
    ``seen``: shared by the tallies of the views of a catalog. ``hash``: the SHA-256 of the
    text too. A counter that is not a :class:`Counter` (``measure --as harmony``, which reads
    each text as JSON) is given the whole text, once (:meth:`close`)."""

    def __init__(self, counter: Any, seen: Seen | None = None, hash: bool = False) -> None:
        self.counter = counter
        self.seen = seen if seen is not None else Seen()
        self.size = 0
        self.hash: Any = hashlib.sha256() if hash else None
        #: the text, for a counter that is given it whole (None: counted in pieces)
        self._whole: list[bytes | memoryview] | None = \
            None if isinstance(counter, Counter) else []
        self._whole_index = -1
        self._run: list[bytes | memoryview] = []   # plain text since the last cut
        self._run_len = 0
        self._run_max = _RUN_MAX
        #: the piece under way from the last cut, which holds a shared part (None: none)
        self._open: list[Any] | None = None
        self._tail = b""          # its plain text after its last shared part (no cut in it)
        #: id of the counter indices of a piece -> [them, how many times the piece occurs]
        self._uses: dict[int, list[Any]] = {}
        #: the count of the pieces taken out of ``_uses`` once all of theirs were answered
        #: (:meth:`_fold`: memory stays that of the pieces not counted yet, not of the text)
        self._folded = 0
        self._fold_at = _FOLD_MIN
        #: id of the Tally of a group's inner parts -> [it, how many times the group occurs]
        self._groups: dict[int, list[Any]] = {}

    # ------------------------------------------------------------------ adding text

    def add(self, data: bytes | memoryview) -> None:
        """Plain text (what follows what was added)."""
        n = len(data)
        if not n:
            return
        self.size += n
        if self.hash is not None:
            self.hash.update(data)
        if self._whole is not None:
            self._whole.append(data)
            return
        if self._open is not None:
            tail = self._tail + data
            m = _split_bytes().search(tail, max(0, len(self._tail) - 2))
            if m is None:
                if len(tail) > _TAIL_MAX:     # no place to cut: all of it plain text
                    self._run = [parts_text(self._open), tail]
                    self._run_len = sum(map(len, self._run))
                    self._open = None
                    self._tail = b""
                else:
                    self._tail = tail
                return
            cut = m.start() + 2
            self._open.append(tail[:cut])
            self._piece(tuple(self._open))
            self._open = None
            self._tail = b""
            data = tail[cut:]
            if not data:
                return
        self._run.append(data)
        self._run_len += len(data)
        if self._run_len > self._run_max:
            run = self._take_run()
            cut = _last_cut(run)
            if cut:
                self._plain(run[:cut])
                run = run[cut:]
                self._run_max = _RUN_MAX
            else:                       # (no place to cut yet: look again later)
                self._run_max *= 2
            self._run = [run]
            self._run_len = len(run)

    def add_shared(self, part: Shared) -> None:
        """A shared part (what follows what was added)."""
        text = part.text
        self.size += len(text)
        if self.hash is not None:
            self.hash.update(text)
        if self._whole is not None:
            self._whole.append(text)
            return
        if self._open is not None:        # no place to cut since the last shared part
            if self._tail:
                self._open.append(self._tail)
                self._tail = b""
            self._open.append(part)
            return
        run = self._take_run()
        cut = _last_cut(run)
        if cut:
            self._plain(run[:cut])
            run = run[cut:]
        self._open = [run, part]

    def add_group(self, group: Group) -> None:
        """A group of parts (what follows what was added)."""
        if self._whole is not None or not group.cut:
            self.add_parts(group.parts())
            return
        self.add_parts(group.head)
        self._cut()
        if group.inner:
            self.size += group.inner_size
            if self.hash is not None:
                update = self.hash.update
                for p in group.inner:
                    update(p.text if p.__class__ is Shared else p)
            seen = self.seen
            got = seen.groups.get(id(group))
            if got is None or got[0] is not group:
                inner = Tally(self.counter, seen)
                for key in group.inner_pieces:     # (what add_parts(group.inner) cuts)
                    inner._piece(key)
                got = seen.groups[id(group)] = (group, inner)    # (held: its id stays its own)
            use = self._groups.get(id(got[1]))
            if use is None:
                self._groups[id(got[1])] = [got[1], 1]
                if len(self._groups) > self._fold_at:
                    self._fold()
            else:
                use[1] += 1
        self.add_parts(group.rest)

    def add_parts(self, parts: list[Any]) -> None:
        """Plain texts (bytes), shared parts and groups, in order."""
        for p in parts:
            cls = p.__class__
            if cls is Shared:
                self.add_shared(p)
            elif cls is Group:
                self.add_group(p)
            else:
                self.add(p)

    def _cut(self) -> None:
        """End the piece under way here: the caller knows this is a place of
        :data:`_SPLIT_PATTERN` (what follows starts with an ASCII letter)."""
        if self._open is not None:
            self._open.append(self._tail)
            self._piece(tuple(self._open))
            self._open = None
            self._tail = b""
        elif self._run:
            self._plain(self._take_run())

    def close(self) -> None:
        """The text is complete: submit what is left."""
        if self._whole is not None:
            if self._whole_index < 0:
                self._whole_index = self.counter.submit(b"".join(self._whole))
                self._whole = []
            return
        self._cut()

    def total(self, counts: list[int]) -> int:
        """The text's token count, from the counter's results (after :meth:`close`)."""
        if self._whole is not None:
            return counts[self._whole_index] if self._whole_index >= 0 else 0
        return self._folded + \
            sum(n * sum([counts[i] for i in idx]) for idx, n in self._uses.values()) + \
            sum(n * inner.total(counts) for inner, n in self._groups.values())

    # ------------------------------------------------------------------ counting pieces

    def _take_run(self) -> bytes:
        run = self._run
        out = run[0] if len(run) == 1 and run[0].__class__ is bytes else b"".join(run)
        self._run = []
        self._run_len = 0
        return out      # type: ignore[return-value]

    def _use(self, idx: tuple[int, ...]) -> None:
        got = self._uses.get(id(idx))
        if got is None:
            self._uses[id(idx)] = [idx, 1]      # (held: its id stays its own)
            if len(self._uses) > self._fold_at:
                self._fold()
        else:
            got[1] += 1

    def _fold(self) -> None:
        """Add up the pieces of ``_uses`` whose counts are all known already (the counter
        answers in order: index ``i`` is known when ``i < len(answered)``) into ``_folded``
        and drop them, and the same of the groups of ``_groups`` whose inner pieces are all
        known: the sum is the one :meth:`total` would make of them, exactly; a piece or group
        met again after is a new entry (memory stays that of what is not counted yet, not of
        the text: a streamed catalog's tools each bring their own definitions groups)."""
        done = self.counter.answered()
        known = len(done)
        folded = self._folded
        keep: dict[int, list[Any]] = {}
        for key, use in self._uses.items():
            idx = use[0]
            if not idx or max(idx) < known:
                folded += use[1] * sum([done[i] for i in idx])
            else:
                keep[key] = use
        groups: dict[int, list[Any]] = {}
        for key, use in self._groups.items():
            inner = use[0]
            if inner._known_by(known):
                folded += use[1] * inner.total(done)
            else:
                groups[key] = use
        self._folded = folded
        self._uses = keep
        self._groups = groups
        self._fold_at = max(_FOLD_MIN, 2 * len(keep), 2 * len(groups))

    def _known_by(self, known: int) -> bool:
        """Are the counts of all this (inner) tally's pieces among the first ``known``?"""
        return not self._groups and all(not idx or max(idx) < known
                                        for idx, _n in self._uses.values())

    def _plain(self, data: bytes) -> None:
        """A piece of plain text from one place to another: its :func:`pieces`."""
        for p in pieces(data):
            self._use(self._known(p))
        if self.seen.left < 0:
            self.seen.forget()

    def _piece(self, key: tuple) -> None:
        """A piece from one place to another that holds shared parts (``key``: its parts)."""
        seen = self.seen
        got = seen.shared.get(key)
        if got is None:
            idx: list[int] = []
            for p in pieces(parts_text(list(key))):
                idx.extend(self._known(p))
            got = seen.shared[key] = tuple(idx)
            seen.left -= 64
        self._use(got)
        if seen.left < 0:
            seen.forget()

    def _known(self, piece: bytes) -> tuple[int, ...]:
        """The counter indices of a piece of :func:`pieces`, submitted the first time it is
        met (:meth:`_fine`)."""
        seen = self.seen
        got = seen.pieces.get(piece)
        if got is None:
            got = seen.pieces[piece] = self._fine(piece)
            seen.left -= len(piece)
        return got

    def _fine(self, piece: bytes) -> tuple[int, ...]:
        """A piece met for the first time, submitted in its :func:`fine_pieces`, each
        distinct one once: their indices."""
        seen = self.seen
        fine = seen.fine
        out = []
        for p in fine_pieces(piece):
            i = fine.get(p)
            if i is None:
                i = fine[p] = self.counter.submit(p)
                seen.left -= len(p)
            out.append(i)
        return tuple(out)
