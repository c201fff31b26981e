"""Tool descriptions for the compact view: collapsed, cut short, never mid-word.

Lengths are counted in UTF-16 code units, as JavaScript's ``String.length`` counts them (the
hosts that cap descriptions are JavaScript programs), so a cut never lands inside a
surrogate pair and an emoji counts two.

:func:`truncate`: whitespace collapsed; if it fits, unchanged; else cut at the last sentence
end that fits (no ellipsis), else at the last word boundary with "…" (the ellipsis counts),
never inside a word. A first word longer than the limit leaves nothing that fits: the result
is empty (the full text stays in the handbook).
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"
_SENTENCE_END = ".!?。！？"
_CLOSERS = "\"'”’)]»"
_WS = re.compile(r"\s+")


def collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def units(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def length(text: str) -> int:
    """Length in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _wide(ch: str) -> bool:
    return ch >= "\u1100" and unicodedata.east_asian_width(ch) in ("W", "F")


def _boundaries(text: str, stop: int | None = None) -> list[tuple[int, bool]]:
    """Cut positions (index into ``text``, after-sentence-end flag), in order; only the
    positions of characters before index ``stop`` are examined (the lookahead still sees the
    whole text)."""
    out: list[tuple[int, bool]] = []
    n = len(text)
    end = n if stop is None else min(n, stop)
    for i in range(end):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == " ":
            out.append((i, False))
            continue
        if ch in _SENTENCE_END:
            # a sentence end: the punctuation (and closing quotes) then a space and a
            # capital, a digit or another non-letter -- not "e.g. the"
            j = i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            if ch in "。！？" or j == n:
                out.append((j, True))
            elif text[j] == " " and j + 1 < n and not text[j + 1].islower():
                out.append((j, True))
            continue
        if nxt and (_wide(ch) or _wide(nxt)) and not unicodedata.category(nxt).startswith("P") \
                and not unicodedata.category(nxt).startswith("M"):
            out.append((i + 1, False))  # between ideographs: a word boundary
    return out


def truncate(text: str, limit: int) -> str:
    """``text`` collapsed and cut to at most ``limit`` UTF-16 units (see the module doc)."""
    s = collapse(text)
    if length(s) <= limit:
        return s
    if limit <= 0:
        return ""
    # Only a prefix can fit: every character counts at least one unit and a cut never ends
    # in a space (the text is collapsed), so no cut at index > `limit` fits.
    stop = min(len(s), limit + 2)
    cum = [0]
    for c in s[:stop + 1]:
        cum.append(cum[-1] + units(c))
    best_sentence = None
    best_word = None
    ell = length(ELLIPSIS)
    tags = _tag_spans(s, stop) if "<" in s[:stop] else ()
    for pos, sentence in _boundaries(s, stop):
        if pos == 0:
            continue
        if tags and any(a < pos < b for a, b in tags):
            continue  # never inside an HTML tag (`<a href="...">`): a cut there breaks markup
        cut = s[:pos].rstrip()
        if len(cut) >= len(cum):
            continue  # longer than the examined prefix: cannot fit
        width = cum[len(cut)]
        if sentence and width <= limit:
            best_sentence = cut
        if width + ell <= limit:
            best_word = cut
    if best_sentence:
        return best_sentence
    if best_word:
        return best_word.rstrip(",;:-–—(/") + ELLIPSIS if best_word.rstrip(",;:-–—(/") else ""
    return ""


_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def _tag_spans(text: str, stop: int) -> list[tuple[int, int]]:
    """(start, end) of each HTML tag that starts before ``stop`` (a cut may not fall inside)."""
    out = []
    for m in _TAG.finditer(text):
        if m.start() >= stop:
            break
        out.append((m.start(), m.end()))
    return out


_NOT_ALNUM = re.compile(r"[\W_]+")   # exactly the characters for which str.isalnum() is False


def _norm(text: str) -> str:
    return _NOT_ALNUM.sub("", text.casefold())


def repeats(description: str, *titles: str | None) -> bool:
    """True when the description says nothing beyond one of the titles (case, spaces and
    punctuation aside)."""
    d = _norm(description)
    if not d:
        return True
    # a title that is no string (a malformed `annotations.title`) repeats nothing
    return any(isinstance(t, str) and t and _norm(t) == d for t in titles)
