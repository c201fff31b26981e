"""Token counting in bulk: the forked counter gives the in-process numbers, whatever happens."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from toolcat import tokens

TEXTS = ["", "hello world", "\u00e9t\u00e9 \u2603 " * 50, '{"a":[1,2,3]}' * 2000,
         "x" * 70_000, "<|endoftext|> is ordinary text here"]

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="the forked counter is Linux-only")


def expected(name="o200k_base"):
    return [tokens.count(t, name) for t in TEXTS]


@needs_fork
@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_forked_counter_matches_in_process(name):
    c = tokens.ForkedCounter(name)
    for t in TEXTS:
        c.submit(t)
    assert c.results() == expected(name)
    c.close(kill=True)  # harmless after results()


@needs_fork
def test_a_dead_child_falls_back_to_counting_here():
    c = tokens.ForkedCounter("o200k_base")
    os.kill(c._pid, signal.SIGKILL)
    for t in TEXTS:
        c.submit(t.encode("utf-8"))
    assert c.results() == expected()


@needs_fork
def test_kill_releases_the_child():
    c = tokens.ForkedCounter("o200k_base")
    pid = c._pid
    c.submit("abc")
    c.close(kill=True)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_in_process_counter_and_opt_out(monkeypatch):
    monkeypatch.setenv("TOOLCAT_NO_FORK", "1")
    c = tokens.counter("o200k_base")
    assert type(c) is tokens.Counter
    for t in TEXTS:
        c.submit(t)
    assert c.results() == expected()


# --------------------------------------------------------------------------- long texts in pieces

def _mixed_texts(seed: int, n: int) -> list[str]:
    """Short texts full of the places a piece may end (`{"a`, `,"B`), next to every kind of
    character the pre-tokenizers treat apart (punctuation, digits, white space, marks,
    contractions, non-ASCII letters, special-token text)."""
    import random

    rnd = random.Random(seed)
    alpha = list('{}[],:"\'') + list("abcXYZ019 \n\t\r/xy") + [
        "\u00e9", "\u00df", "\u4e2d", "\u0301", "'s", "'LL", "<|endoftext|>", "  ", "\u00a0",
        "\U0001f642"]
    out = []
    for _ in range(n):
        t = "".join(rnd.choice(alpha) for _ in range(rnd.randint(50, 300)))
        out.append(t.replace("x", '{"a').replace("y", ',"B'))
    return out


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_a_long_text_counted_in_pieces_gives_the_whole_count(name, monkeypatch):
    """Texts over 2 x CHUNK characters are encoded in pieces (memory: tiktoken returns every
    token as an int); the pieces end only where the whole text's pre-tokenization has a split,
    so the sum is the exact count. With tiny pieces, every split point is used."""
    enc = tokens.encoding(name)
    texts = _mixed_texts(7, 600)
    corpus = os.path.join(os.path.dirname(__file__), "..", "..", "samples")
    for f in sorted(os.listdir(corpus)):
        if f.endswith(".json"):
            with open(os.path.join(corpus, f), encoding="utf-8") as fh:
                texts.append(fh.read())
    # long texts with the `"properties"` keys pieces end before, repeating (counted once)
    rnd_texts = _mixed_texts(11, 200)
    texts += ["".join(rnd_texts[i:i + 12]).replace("B", 'properties"') * 3 for i in range(0, 200, 12)]
    texts += [t.replace("a", 'properties":{"a') for t in rnd_texts[:100]]
    whole = [len(enc.encode_ordinary(t)) for t in texts]
    for chunk in (3, 8, 50):
        monkeypatch.setattr(tokens, "CHUNK", chunk)
        monkeypatch.setattr(tokens, "_PIECE_MIN", chunk // 2)
        tokens._PIECES.clear()
        assert [tokens._encoded_length(enc, t) for t in texts] == whole
        assert [tokens.count(t, name) for t in texts] == whole


def test_pieces_cut_anywhere_else_would_count_differently():
    """The split rule matters: cutting the same texts one character earlier (before the `"`)
    or at fixed offsets changes some counts (so the test above can fail)."""
    enc = tokens.encoding("o200k_base")
    texts = _mixed_texts(7, 600)
    import re

    differs = 0
    for t in texts:
        whole = len(enc.encode_ordinary(t))
        cuts = [m.start() + 1 for m in re.finditer(r'[{,:\[]"[A-Za-z]', t)]
        pieces = [t[a:b] for a, b in zip([0] + cuts, cuts + [len(t)])]
        differs += sum(len(enc.encode_ordinary(p)) for p in pieces) != whole
    assert differs > 0


@needs_fork
def test_the_forked_counter_counts_long_texts_exactly(monkeypatch):
    monkeypatch.setattr(tokens, "CHUNK", 16)   # the child is forked after this: it counts in pieces
    texts = ['{"tools":[' + ",".join('{"name":"t%d","description":"x y z","inputSchema":'
                                     '{"type":"object"}}' % i for i in range(300)) + "]}"]
    texts += _mixed_texts(3, 50)
    c = tokens.ForkedCounter("o200k_base")
    for t in texts:
        c.submit(t)
    enc = tokens.encoding("o200k_base")
    assert c.results() == [len(enc.encode_ordinary(t)) for t in texts]
    c.close(kill=True)


def test_the_piece_memo_is_per_encoding(monkeypatch):
    """One process may count the same long text with two encodings (the API, the tests):
    a piece counted under one must not answer for the other."""
    monkeypatch.setattr(tokens, "_MEMO_MIN", 64)
    monkeypatch.setattr(tokens, "_PIECE_MIN", 16)
    text = "".join(_mixed_texts(5, 40)).replace("B", 'properties"') * 2
    for name in ("o200k_base", "cl100k_base", "o200k_base"):
        assert tokens.count(text, name) == len(tokens.encoding(name).encode_ordinary(text))


def test_the_anchors_are_the_places_the_regex_finds():
    """:func:`tokens._anchors` (a ``str.find`` loop, ten times faster on a Stripe view) gives
    the places the regex ``[{,]"properties"`` gives: after the ``{"`` or ``,"`` of each
    ``"properties"`` key, never after another character (``:``, ``[``, a letter) or at 0."""
    import re

    rnd_texts = _mixed_texts(13, 300)
    texts = ['"properties":1', '{"properties":{"properties":2},"properties":3}',
             '["properties",:"properties",a"properties"']
    for i, t in enumerate(rnd_texts):
        sep = "{,:[a "[i % 6]
        texts.append(t.replace("B", sep + '"properties"').replace("y", '"properties"'))
    want = [[m.start() + 2 for m in re.finditer(r'[{,]"properties"', t)] for t in texts]
    assert [tokens._anchors(t) for t in texts] == want
    assert sum(map(len, want)) > 100


def test_a_long_white_space_run_is_refused_where_it_lies(monkeypatch):
    """The run check is made on the pieces tiktoken encodes (a run never holds a cut): a run
    in the third piece of a long text is still refused in one line, with its length, and a
    text whose runs are all shorter is counted."""
    monkeypatch.setattr(tokens, "_MAX_SPACE_RUN", 1000)
    monkeypatch.setattr(tokens, "_MEMO_MIN", 64)
    monkeypatch.setattr(tokens, "_PIECE_MIN", 16)
    tokens._PIECES.clear()
    head = '{"a":{"properties":{"x":1}},"b":{"properties":{"y":2}},"c":{"properties":{"z":"'
    ok = head + " " * 999 + '"}}}'
    assert tokens.count(ok) == len(tokens.encoding().encode_ordinary(ok))
    bad = head + " " * 1500 + '"}}}'
    with pytest.raises(tokens.TokenizerLimit, match="a run of 1,500 white-space"):
        tokens.count(bad)
    with pytest.raises(tokens.TokenizerLimit, match="a run of 1,500 white-space"):
        tokens.count(bad * 2)   # its pieces were met before: the run's is not


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_encoder_is_tiktokens_encoding(name):
    """Counting loads tiktoken's compiled core only, with the pattern and special tokens
    tiktoken_ext defines (written in tokens.PARAMS): the same encoding, the same tokens."""
    import tiktoken
    import tiktoken_ext.openai_public as pub

    ranks = tokens.load_ranks(name)
    orig = pub.load_tiktoken_bpe
    pub.load_tiktoken_bpe = lambda *a, **k: ranks
    try:
        params = getattr(pub, name)()
    finally:
        pub.load_tiktoken_bpe = orig
    assert tokens.PARAMS[name] == (params["pat_str"], params["special_tokens"])
    theirs = tiktoken.Encoding(**params)
    ours = tokens.encoding(name)
    assert ours.name == name
    for text in TEXTS + ["a lone \ud800 surrogate", "x \udfff\ud83d y", "  \n\n\t  end"]:
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


@needs_fork
def test_the_forked_counter_sends_texts_in_batches():
    """Many short texts go to the child in a few batches (not a thread woken and a write for
    each), texts longer than the child reads at once among them; the counts are the same."""
    c = tokens.ForkedCounter("o200k_base")
    puts = []
    real = c._queue

    class Counted:
        def put(self, item):
            puts.append(item)
            real.put(item)

        def get(self):
            return real.get()

        def empty(self):
            return real.empty()

    c._queue = Counted()
    texts = ['{"name":"tool_%d","description":"Does thing %d."}' % (i, i) for i in range(3000)]
    texts[1500] = '{"a":"' + "word " * 500_000 + '"}'     # 2.5 MB: several reads
    for t in texts:
        c.submit(t)
    assert c.results() == [tokens.count(t) for t in texts]
    assert len(puts) < 20
