"""The counter child's vocabularies (tokens._Vocab, tokens._serve): the ASCII tokens for ASCII
texts, the tokens found in the others for them. Their tokens must be tiktoken's own, exactly,
whatever the text: checked against the whole vocabulary on hostile Unicode, generated texts
and every corpus text the machine has."""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcat import tokens

NAMES = ["o200k_base", "cl100k_base"]
REPO = Path(__file__).resolve().parents[2]

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="the forked counter is Linux-only")

HOSTILE = [
    "a lone \ud800 surrogate", "x \udfff\ud83d y", "a pair \ud83d\ude00 made one", "\ud800",
    "e\u0301\u0301\u0301 combining marks \u0300x\u0308", "a\u00a0b\u00a0\u00a0 c\u202f",
    "\u4e2d\u6587\u3000\u30c6\u30ad\u30b9\u30c8\u3000 \u3000x", "\u2028\u2029\u0085 line seps",
    "\U0001f44d\U0001f3fd family \U0001f468\u200d\U0001f469\u200d\U0001f467 flags \U0001f1eb\U0001f1f7",
    "\u8fd9\u662f\u4e00\u4e2a\u5f88\u957f\u7684\u4e2d\u6587\u53e5\u5b50" * 40,
    " " * 3000 + "\u00e9", "\u00a0" * 500 + "x", "ab" * 3000 + "\u00e9" + "cd" * 3000,
    "'s 'LL \u00e9's \u00c9'VE x'd", "\u0661\u0662\u0663 123 \u0e51\u0e52 \u00b2\u00bd 4\u00bd",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u05e2\u05d1\u05e8\u05d9\u05ea "
    "\u0939\u093f\u0928\u094d\u0926\u0940",
    "\x00\x1c\x1f \u00e9 \x85\x0b\x0c\t\r\n/\u00e9/\n\n//", "\r\n\u0085\u2029 \t\u00e9\t\t",
    '{"description":"Caf\u00e9 \u2014 \u201cquoted\u201d \u2019s","type":"string"}',
    '{"a":"\u00e9","B":[{"c":"\u00fc"},"\u00df"],"d":{"e":"x\u00e9y"}}' * 30,
    "\ufeff\ufffd\uffff \U0010ffff \U000e0001", "\u0130\u0131\u017f\u212a 's \u017f",
    "<|endoftext|> \u00e9 <|endofprompt|>", "\u00e9" * 2000, "\u00e9 " * 2000,
    "----------\u00e9==========\u00e9__________" * 20, "https://\u00e9x.example/a/b?c=d&e=\u00e9",
]


def _mixed(seed: int, n: int) -> list[str]:
    """Texts of the characters each pre-tokenizer treats apart, ASCII and not, JSON places."""
    rnd = random.Random(seed)
    alpha = [chr(c) for c in range(128)] + list(
        "\u00e9\u00df\u4e2d\u0301\u00a0\u3000\u2019\u2014\u0661\u00bd\u0130\u017f\u212a"
        "\U0001f642\ud800") + ["'s", "'LL", '{"a', ',"B', ":", "  ", "\r\n", "\u00e9'", "\u0627"]
    out = []
    for _ in range(n):
        out.append("".join(rnd.choice(alpha) for _ in range(rnd.randint(1, 400))))
    return out


def _started(name: str, share: float = 0.0) -> tokens._Vocab:
    v = tokens._Vocab(name)
    v.start(share)
    return v


def _vocab_tokens(v: tokens._Vocab, texts: list[str]) -> list[list[int]]:
    """Each text's tokens as the child makes them: an ASCII text with ``v.ascii``; another
    with ``v.ascii`` between its parts outside ASCII and ``v.encoder()`` for those."""
    cuts = []
    for t in texts:
        parts = None if t.isascii() else tokens._outside_ascii(t)
        for a, b in parts or []:
            v.add(t[a:b])
        cuts.append(parts)
    enc = v.encoder()
    out = []
    for t, parts in zip(texts, cuts):
        if parts is None:
            out.append(v.ascii.encode_ordinary(t))
            continue
        got: list[int] = []
        at = 0
        for a, b in parts:
            assert t[at:a].isascii() and a < b
            got += v.ascii.encode_ordinary(t[at:a]) + enc.encode_ordinary(t[a:b])
            at = b
        assert t[at:].isascii()
        out.append(got + v.ascii.encode_ordinary(t[at:]))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_vocabularies_give_tiktokens_tokens(name, monkeypatch):
    monkeypatch.setattr(tokens._Vocab, "WORK_MAX", 10**9)    # (never the whole vocabulary)
    full = tokens.encoding(name)
    texts = HOSTILE + _mixed(5, 400)
    for f in sorted((REPO / "samples").iterdir()):
        if f.suffix in (".json", ".yaml"):
            texts.append(f.read_text(encoding="utf-8"))
    v = _started(name)
    assert _vocab_tokens(v, texts) == [full.encode_ordinary(t) for t in texts]
    assert v.full is None          # (the parts' tokens were found: the whole was not loaded)
    # the ASCII vocabulary alone is not enough for them (so the check above can fail)
    assert any(v.ascii.encode_ordinary(t) != full.encode_ordinary(t)
               for t in HOSTILE if not t.isascii() and "\ud800" not in t)


def _corpus_files() -> list[Path]:
    out = []
    for env, globs in (("TOOLCAT_SHARED", ["corpus/openapi/*", "corpus/mcp-context-cost/*.json"]),
                       ("TOOLCAT_OUTSIDE", ["stripe-spec3-2023-09/openapi/spec3.yaml",
                                            "kubernetes-swagger/kubernetes/swagger.json.unprocessed",
                                            "github-rest-2020/descriptions/api.github.com/*.json"])):
        root = os.environ.get(env)
        for g in globs if root else []:
            out += sorted(p for p in Path(root).glob(g) if p.is_file())
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_corpus_text_is_counted_as_tiktoken_counts(name, monkeypatch):
    """Each line of each corpus file outside ASCII (OpenAPI specs, MCP captures: their
    descriptions), and the ASCII ones, whole: the child's tokens are the whole vocabulary's."""
    files = _corpus_files()
    if not files:
        pytest.skip("no corpus (TOOLCAT_SHARED / TOOLCAT_OUTSIDE)")
    monkeypatch.setattr(tokens._Vocab, "WORK_MAX", 10**9)
    full = tokens.encoding(name)
    v = _started(name)
    outside = 0
    for f in files:
        lines = f.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
        texts = [ln for ln in lines if not ln.isascii()]
        outside += len(texts)
        texts.append("".join(ln for ln in lines if ln.isascii()))
        assert _vocab_tokens(v, texts) == [full.encode_ordinary(t) for t in texts], f
    assert outside > 100


_ALPHABET = st.one_of(st.sampled_from(list(
    "aZ09 '/\t\r\n\x0b\x0c\x1c.,:{}[]\"-_\u00e9\u00df\u4e2d\u0301\u00a0\u3000\u2019\u0661\u0130"
    "\u017f\U0001f642\u200d\ud800\udc00")), st.characters())


@given(st.lists(st.text(_ALPHABET, max_size=60), min_size=1, max_size=6))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_texts_are_counted_as_tiktoken_counts(parts):
    text = '{"a":"' + '","b":"'.join(parts) + '"}'
    v = _VOCAB.get("o200k_base") or _VOCAB.setdefault("o200k_base", _started("o200k_base"))
    full = tokens.encoding("o200k_base")
    assert _vocab_tokens(v, [text, *parts]) == [full.encode_ordinary(t) for t in [text, *parts]]


_VOCAB: dict[str, tokens._Vocab] = {}


@pytest.mark.parametrize("name", NAMES)
def test_no_pre_token_piece_crosses_a_region_end(name):
    """What the vocabularies rest on: each region end of a text (``_REGION_END``) is where a
    piece of the encoding's pattern ends (the ``regex`` module, as tiktoken's own pure-Python
    version splits), never within one."""
    import regex

    pat = regex.compile(tokens.PARAMS[name][0])
    ends = regex.compile(tokens._REGION_END.encode())
    found = 0
    for text in HOSTILE + _mixed(9, 300):
        text = tokens._without_surrogates(text)
        data = text.encode("utf-8")
        bounds = set()
        at = 0
        for piece in pat.findall(text):
            at += len(piece.encode("utf-8"))
            bounds.add(at)
        assert at == len(data)
        inside = {m.end() for m in ends.finditer(data.translate(tokens._CLASSES))}
        assert inside <= bounds, (text, sorted(inside - bounds))
        found += len(inside)
    assert found > 1000


@pytest.mark.parametrize("name", NAMES)
def test_the_split_ranks_are_the_ranks(name, monkeypatch, tmp_path):
    """load_split's parts hold every token once: the ASCII ones and the 256 single bytes
    first, then each other token in the part of its first byte outside ASCII; a corrupt cache
    file is rebuilt; no token is longer than _MAX_TOKEN (the regions' look-ups stop there)."""
    import marshal

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    ranks = tokens.load_ranks(name)
    for attempt in range(3):
        parts = tokens.load_split(name)
        assert len(parts) == 129
        base = marshal.loads(parts[0])
        assert all(len(t) == 1 or t.isascii() for t in base) and len(
            [t for t in base if len(t) == 1]) == 256
        union = dict(base)
        for i, p in enumerate(parts[1:]):
            shard = marshal.loads(p)
            assert all(next(c for c in t if c >= 128) == 128 + i for t in shard)
            union.update(shard)
        assert union == ranks and sum(len(marshal.loads(p)) for p in parts) == len(ranks)
        (cache,) = (tmp_path / "toolcat").glob(f"{name}-*.split")
        if attempt == 1:
            cache.write_bytes(cache.read_bytes()[:-10] + b"0123456789")
    assert max(map(len, ranks)) <= tokens._MAX_TOKEN


def test_the_shipped_rank_file_is_read_only_on_a_cache_miss(monkeypatch, tmp_path):
    """A run whose ranks are cached never reads the shipped rank file: ``import
    toolcat.tokens`` and loading the cached ranks leave importlib.resources, gzip and base64
    unimported (some 9 ms of every project and measure run); reading the file imports what
    it needs."""
    import subprocess

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tokens.load_split("o200k_base")          # (the cache, in this test's own folder)
    assert list((tmp_path / "toolcat").glob("o200k_base-*.split"))
    probe = ("import sys, toolcat.tokens as t\n"
             "mods = ('importlib.resources', 'gzip', 'base64')\n"
             "parts = t.load_split('o200k_base')\n"
             "print(len(parts), sorted(m for m in mods if m in sys.modules))\n"
             "t.rank_file_bytes('o200k_base')\n"
             "print(sorted(m for m in mods if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", probe], env=dict(os.environ),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["129 []", "['gzip', 'importlib.resources']"]


# ------------------------------------------------------------------ the child, forked


def _expected(texts, name="o200k_base"):
    full = tokens.encoding(name)
    return [len(full.encode_ordinary(t)) for t in texts]


@needs_fork
@pytest.mark.parametrize("name", NAMES)
def test_the_child_answers_in_order_with_texts_held_back(name, monkeypatch):
    """ASCII texts are answered at once, the others held back with all answers after them;
    a small hold bound makes the child count what it holds many times over."""
    texts = [t for pair in zip(_mixed(3, 150), HOSTILE * 6) for t in pair]
    texts += ['{"name":"t%d","description":"x y z"}' % i for i in range(200)]
    for hold in (tokens._HOLD_MAX, 200):
        monkeypatch.setattr(tokens, "_HOLD_MAX", hold)   # (the child is forked after this)
        c = tokens.ForkedCounter(name)
        for t in texts:
            c.submit(t)
        assert c.results() == _expected(texts, name)


@needs_fork
def test_long_texts_with_repeated_pieces_outside_ascii(monkeypatch):
    """A text longer than _MEMO_MIN is cut in pieces as _encoded_length cuts it: its ASCII
    pieces are counted as memoized ASCII pieces, and each piece with other characters once
    (its parts held back), however often the views repeat it (a catalog's compact array)."""
    entries = ['{"name":"t%d","description":"Caf\u00e9 \u2014 r\u00e9sum\u00e9 %s %d",'
               '"inputSchema":{"type":"object","properties":{"q":{"type":"string",'
               '"description":"%s"}}}}' % (i, "word " * (i % 40), i % 7, "x y " * 150)
               for i in range(400)]
    long = "[" + ",".join(entries * 3) + "]"
    assert len(long) > 4 * tokens._MEMO_MIN and not long.isascii()
    texts = [long, long[1:], "plain", long.replace("\u00e9", "e")]
    mixed_calls = []
    real = tokens._mixed
    monkeypatch.setattr(tokens, "_mixed", lambda v, p: mixed_calls.append(p) or real(v, p))
    c = tokens.ForkedCounter("o200k_base")
    for t in texts:
        c.submit(t)
    assert c.results() == _expected(texts)
    # (in this process: the same function the child runs, counted as the child counts)
    r_req, w_req = os.pipe()
    r_ans, w_ans = os.pipe()

    def send() -> None:
        with os.fdopen(w_req, "wb") as f:
            for t in texts[:2]:
                b = t.encode()
                f.write(len(b).to_bytes(8, "little") + b)

    sender = threading.Thread(target=send)
    sender.start()
    monkeypatch.setattr(tokens, "_KEPT", [])     # (the child's vocabularies: freed after)
    tokens._serve(r_req, w_ans, "o200k_base")
    sender.join()
    os.close(r_req)
    got = os.read(r_ans, 64)
    os.close(r_ans)
    assert [int.from_bytes(got[i:i + 8], "little") for i in (0, 8)] == _expected(texts[:2])
    assert mixed_calls and len(mixed_calls) == len(set(mixed_calls))


@needs_fork
def test_text_in_another_script_loads_the_whole_vocabulary(monkeypatch):
    """Past WORK_MAX look-ups, or when the first texts are mostly outside ASCII, the child
    counts with the whole vocabulary (the same counts)."""
    texts = ["plain", *HOSTILE, "more plain"] * 3
    for work, share in ((50, 0.01), (400_000, 0.0)):
        monkeypatch.setattr(tokens._Vocab, "WORK_MAX", work)
        monkeypatch.setattr(tokens._Vocab, "FULL_SHARE", share)
        c = tokens.ForkedCounter("o200k_base")
        for t in texts:
            c.submit(t)
        assert c.results() == _expected(texts)
    framed = bytearray()
    for t in ["ab", "\u00e9\u00e9", "cd" * 10]:
        b = t.encode()
        framed += len(b).to_bytes(8, "little") + b
    # (a _FLUSH header, 8 x 0xff, and a text not whole yet count for nothing)
    assert tokens._outside_share(framed + b"\xff" * 12) == 4 / 26
    v = _started("o200k_base")
    _vocab_tokens(v, HOSTILE)
    assert v.full is not None and not v.need
    full = tokens.encoding("o200k_base")
    texts = HOSTILE + _mixed(2, 50)
    v = _started("o200k_base", 1.0)     # (the first texts mostly outside ASCII)
    assert v.ascii is v.full
    assert _vocab_tokens(v, texts) == [full.encode_ordinary(t) for t in texts]


@needs_fork
def test_a_parent_waiting_for_answers_gets_those_held_back():
    """The parent bounds the bytes in flight: when it waits, it asks the child for the
    answers it holds back (a child holding them and the parent waiting would wait for good)."""
    def stuck(*_a):
        raise TimeoutError("the parent and the child wait for each other")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try:
        c = tokens.ForkedCounter("o200k_base")
        c.IN_FLIGHT_MAX = 4000
        texts = [("caf\u00e9 " if i % 7 == 0 else "cafe ") * (i % 50) + str(i) for i in range(600)]
        most = 0
        for t in texts:
            c.submit(t)
            most = max(most, c._in_flight)
        got = c.results()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert got == _expected(texts)
    assert most <= 4000 + max(len(t.encode()) for t in texts)
