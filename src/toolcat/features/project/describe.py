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
from collections.abc import Set as AbstractSet
from typing import Any

ELLIPSIS = "…"
_SENTENCE_END = ".!?。！？"
_CLOSERS = "\"'”’)]»"


def collapse(text: str) -> str:
    """``text`` with each run of whitespace one space, none at the ends: what
    ``re.sub(r"\\s+", " ", text).strip()`` gives (``\\s`` of a str pattern, ``str.split()`` and
    ``str.strip()`` all take the characters ``str.isspace()`` does), in one C pass."""
    return " ".join(text.split())


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
    if text[:end + 1].isascii():
        # no wide character among those examined and their next ones: only the spaces
        # and the sentence ends cut (the loop below, at C speed to them)
        for m in _ASCII_CUTS.finditer(text, 0, end):
            i = m.start()
            if text[i] == " ":
                out.append((i, False))
            else:
                _sentence_cut(text, i, out)
        return out
    for i in range(end):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == " ":
            out.append((i, False))
            continue
        if ch in _SENTENCE_END:
            _sentence_cut(text, i, out)
            continue
        if nxt and (_wide(ch) or _wide(nxt)) and not unicodedata.category(nxt).startswith("P") \
                and not unicodedata.category(nxt).startswith("M"):
            out.append((i + 1, False))  # between ideographs: a word boundary
    return out


#: the characters of :data:`_SENTENCE_END` and the space, in ASCII
_ASCII_CUTS = re.compile(r"[ .!?]")


def _sentence_cut(text: str, i: int, out: list[tuple[int, bool]]) -> None:
    """At the sentence-end punctuation ``text[i]``: a sentence end is the punctuation (and
    closing quotes) then a space and a capital, a digit or another non-letter -- not "e.g.
    the" -- or the end of the text; appended to ``out``."""
    n = len(text)
    j = i + 1
    while j < n and text[j] in _CLOSERS:
        j += 1
    if text[i] in "。！？" or j == n:
        out.append((j, True))
    elif text[j] == " " and j + 1 < n and not text[j + 1].islower():
        out.append((j, True))


def truncate(text: str, limit: int) -> str:
    """``text`` collapsed and cut to at most ``limit`` UTF-16 units (see the module doc)."""
    return _truncate(collapse(text), limit)


def _truncate(s: str, limit: int) -> str:
    """:func:`truncate` of a collapsed text."""
    if length(s) <= limit:
        return s
    if limit <= 0:
        return ""
    # Only a prefix can fit: every character counts at least one unit and a cut never ends
    # in a space (the text is collapsed), so no cut at index > `limit` fits.
    stop = min(len(s), limit + 2)
    head = s[:stop + 1]
    if head.isascii():          # one unit a character
        cum: Any = range(len(head) + 1)
    else:
        cum = [0]
        for c in head:
            cum.append(cum[-1] + units(c))
    best_word = None
    ell = length(ELLIPSIS)
    tags = _tag_spans(s, stop) if "<" in s[:stop] else ()
    # the last cut that fits after a sentence end, else the last one that fits with "…":
    # from the last cut back (the width of a cut grows with its position)
    for pos, sentence in reversed(_boundaries(s, stop)):
        if pos == 0 or (best_word is not None and not sentence):
            continue
        if tags and any(a < pos < b for a, b in tags):
            continue  # never inside an HTML tag (`<a href="...">`): a cut there breaks markup
        cut = s[:pos].rstrip()
        if len(cut) >= len(cum):
            continue  # longer than the examined prefix: cannot fit
        width = cum[len(cut)]
        if sentence and width <= limit:
            return cut
        if best_word is None and width + ell <= limit:
            best_word = cut
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


# ----------------------------------------------------------------------------- what to keep
#
# The compact view decides what prose a model keeps by content (README "What the compact view
# keeps of the prose"): a schema node's description stays, cut to the sentences that carry one
# of these cues, when it has any; a tool description cut short keeps, after the cut, the
# sentences that state an obligation or an order. Words only: a known format is never turned
# into a JSON Schema ``format`` (under format assertion that would change what is accepted).

#: a format or a unit the value must be written in
_FORMAT = re.compile(
    r"\b(?:ISO[ -]?8601|RFC[ -]?\d{3,4}|HH:MM(?::SS)?|YYYY[-/]?MM(?:[-/]?DD)?|MM/DD|IANA|UTC|"
    r"time ?zones?|epoch|unix|24-hour|cursor|base64|cron|glob|regexp?|regular expression|"
    r"semver|hex(?:adecimal)?|UUID|E\.164|CSV|milliseconds?|ms|seconds?|minutes?|hours?|"
    r"days?|bytes?|[KMG]i?B|kilobytes?|megabytes?|percent(?:age)?|cents?|pixels?|px)\b|"
    r"\b\d+ ?[smhd]\b", re.IGNORECASE)
#: a dependency between arguments or tools, said in words
_DEPENDS = re.compile(
    r"\bcall(?:ing)? (?:the )?(?:[`'\"][\w.$/-]+[`'\"]|\w+[_-][\w-]+|[a-z]+[A-Z]\w*)|"
    r"\b(?:returned (?:by|from)|obtained (?:by|from)|"
    r"from (?:the |a )?(?:previous|last|earlier) (?:response|call|result|page)|"
    r"(?:also )?needs? to be provided|required (?:when|if)|only (?:valid |used )?(?:if|when)|"
    r"mutually exclusive|together with|ignored (?:if|when|unless))\b",
    re.IGNORECASE)
#: a name written as code or quoted: a reference when it names a tool or a property
_NAMED = re.compile(r"""[`'"]([A-Za-z_$][\w.$-]*)[`'"]""")
#: a list of allowed values, written as prose
_VALUES = re.compile(
    r"\b(?:possible values?|allowed values?|valid values?|supported values?|accepted values?|"
    r"(?:following|known) values|values include|one of|options? (?:are|include)|"
    r"only supported)\b",
    re.IGNORECASE)
#: an example value: the words that introduce one, then (:data:`_SHAPED`) a value whose
#: shape says how to write it (a digit or a separator in it: 'PROJ-123', '5s', 'a/b'), not
#: a plain word ('person')
_EXAMPLE = re.compile(r"\b(?:e\.g\.|for example|for instance|examples?:|such as)",
                      re.IGNORECASE)
_SHAPED = re.compile(r"""[`'"“‘]?[^\s'"`“”‘’(),]*[\d/:@.\\_*^$#{}\[\]-][^\s'"`“”‘’(),]*""")


def _ascii_folded(rx: re.Pattern) -> re.Pattern:
    """``rx`` (``re.IGNORECASE``, its letters all plain, no upper-case escape such as
    ``\\S``) for a text of ASCII characters lower-cased: it matches there where ``rx``
    matches the text itself, the same spans (an ASCII character folds to ASCII ones only,
    and ``lower`` keeps its place), without folding each character it compares (:func:`_facts`:
    3x faster on openai's schema descriptions)."""
    assert rx.flags & re.IGNORECASE and not re.search(r"\\[A-Z]", rx.pattern)
    return re.compile(rx.pattern.lower(), rx.flags & ~re.IGNORECASE)



#: an obligation or an order in a tool description
_OBLIGATION = re.compile(
    r"\b(?:MUST|MANDATORY|NEVER|ALWAYS|must|never|always|"
    r"do not|don't|should not|shouldn't|only after|only before|before (?:calling|using)|"
    r"after (?:calling|using)|at the end of|first call|call \S+ first)\b|"
    r"\bcall\b[^.!?]{0,80}\b(?:first|before|after|at the end)\b")

#: abbreviations whose full stop ends no sentence
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|approx|min|max|no|incl|esp|cf|resp)\.|"
                     r"\b[A-Z]\.)$", re.IGNORECASE)
#: the longest text :data:`_ABBREV` matches ("approx.")
_ABBREV_LEN = 7
_SENTENCE = re.compile(r"(?<=[.!?。！？])[\"'”’)\]»*_]*\s+")


def sentences(text: str) -> list[str]:
    """``text`` (collapsed) split into sentences: after ``.!?`` and a space, unless the full
    stop ends an abbreviation ("e.g.", "i.e.", "etc."); the pieces joined by one space are
    the text."""
    s = collapse(text)
    out: list[str] = []
    start = 0
    for m in _SENTENCE.finditer(s):
        head = s[start:m.end()].rstrip()
        # (an abbreviation is at most _ABBREV_LEN characters before the stop, and its \b
        # reads the one before: the chunk's last ones say what the whole chunk says)
        if _ABBREV.search(s[max(start, m.start() - _ABBREV_LEN - 1):m.start()]):
            continue
        out.append(head)
        start = m.end()
    if start < len(s):
        out.append(s[start:])
    return [p for p in out if p]


#: a sentence that points to documentation elsewhere
_DOCS = re.compile(r"^(?:see|refer to|for more)\b|\bfor more (?:information|details|info)\b",
                   re.IGNORECASE)

#: :data:`_DOCS`, :data:`_FORMAT`, :data:`_DEPENDS`, :data:`_VALUES`, :data:`_EXAMPLE` for
#: an ASCII text lower-cased (:func:`_ascii_folded`)
_DOCS_A, _FORMAT_A, _DEPENDS_A, _VALUES_A, _EXAMPLE_A = (
    _ascii_folded(rx) for rx in (_DOCS, _FORMAT, _DEPENDS, _VALUES, _EXAMPLE))

#: what a description's kept sentence carries (README): the cue names, in order
CUES = ("format", "reference", "values", "example")


class Names:
    """Name sets read as one (``in`` and truth only): a tool's property names beside the
    catalog's tool names, which are not copied for each tool (a union per tool is quadratic
    in the catalog: 10,000 tools spent 5 s copying names)."""

    __slots__ = ("_sets",)

    def __init__(self, *sets: AbstractSet[str]) -> None:
        self._sets = tuple(s for s in sets if s)

    def __contains__(self, name: object) -> bool:
        return any(name in s for s in self._sets)

    def __bool__(self) -> bool:
        return bool(self._sets)


def cues(sentence: str, node: dict | None = None, names: AbstractSet[str] | Names = frozenset(),
         probed: set | None = None) -> list[str]:
    """The cues a sentence of a schema description carries (:data:`CUES`). ``node``: the
    schema node it describes (a format already given by ``format``, values already given by
    ``enum``/``const``, say nothing new); ``names``: the catalog's tool names and the
    schema's property names (a quoted or code name that is one of them, and not one of the
    node's own properties, is a reference). ``probed``: gets the names looked up in
    ``names`` and the node's own properties (what the answer depends on beside the
    sentence, ``format``, ``enum``/``const`` and whether ``names`` is empty)."""
    node = node if isinstance(node, dict) else {}
    facts = _FACTS.get(sentence)
    if facts is None:
        facts = _facts(sentence)
    docs, fmt, depends, named, values, example = facts
    if docs:
        return []        # a pointer to documentation, not the value's meaning
    if probed is not None:
        probed.update(named)
    got = []
    if "format" not in node and fmt:
        got.append("format")
    if depends or (names and named and any(n in names for n in named) and any(
            n in names and n not in own for own in (_own_properties(node),) for n in named)):
        got.append("reference")
    if "enum" not in node and "const" not in node and values:
        got.append("values")
    if got and example:   # an example alone: not enough
        got.append("example")
    return got


#: what :func:`cues` finds in a sentence whatever the node and names (its regex searches):
#: a catalog's schemas repeat their descriptions (Kubernetes: ObjectMeta's in every tool),
#: each distinct sentence is searched once. Bounded: cleared past _FACTS_MAX sentences.
_FACTS: dict[str, tuple] = {}
_FACTS_MAX = 1 << 16


def _facts(sentence: str) -> tuple:
    """(a pointer to docs, a format cue, a dependency cue, the quoted or code names, a
    values cue, an example with a shaped value after it) of ``sentence``."""
    text = sentence
    docs, fmt, depends, values, example = _DOCS, _FORMAT, _DEPENDS, _VALUES, _EXAMPLE
    if sentence.isascii():      # (the same answers, the example at the same place)
        text = sentence.lower()
        docs, fmt, depends, values, example = \
            _DOCS_A, _FORMAT_A, _DEPENDS_A, _VALUES_A, _EXAMPLE_A
    m = example.search(text)
    facts = (docs.search(text) is not None, fmt.search(text) is not None,
             depends.search(text) is not None,
             tuple(m.group(1) for m in _NAMED.finditer(sentence)),
             values.search(text) is not None,
             m is not None and any(len(w.group(0).strip("'\"`“”‘’.")) > 1
                                   for w in _SHAPED.finditer(sentence, m.end())))
    if len(_FACTS) >= _FACTS_MAX:
        _FACTS.clear()
    _FACTS[sentence] = facts
    return facts


#: a sentence this long or shorter is kept whole; a longer one, by its clauses
SHORT = 60
#: the parts tried when a sentence is too long: split after , ; : and before a parenthesis
_PARTS = re.compile(r"(?<=[;,:])\s+|\s+(?=\()")
#: where a sentence splits into clauses: after a semicolon, around a dash
_CLAUSE = re.compile(r"(?<=;)\s+|\s+[-–—]\s+")


def _own_properties(node: dict) -> set:
    """The property names ``node`` declares, itself or in its combinators' branches (the
    lowering may merge those into it: the set is the same before and after)."""
    out = set(node["properties"]) if isinstance(node.get("properties"), dict) else set()
    for k in ("allOf", "anyOf", "oneOf"):
        for b in node.get(k) or () if isinstance(node.get(k), list) else ():
            if isinstance(b, dict) and isinstance(b.get("properties"), dict):
                out.update(b["properties"])
    return out


def clause(text: str, limit: int, node: dict | None = None,
           names: AbstractSet[str] | Names = frozenset()) -> str:
    """What the compact view keeps of a schema node's description: the sentences that carry a
    cue (:func:`cues`), in order, joined, cut to ``limit`` UTF-16 units (:func:`truncate`);
    "" when none does (or ``limit`` is 0).

    Memoized (:data:`_CLAUSES`): a catalog's schemas repeat their descriptions (Kubernetes:
    ObjectMeta's in every tool). The answer is a function of the text, ``limit``, whether
    the node has ``format``, ``enum`` or ``const``, whether ``names`` is empty, and, for each
    name the text's pieces quote (:func:`cues`' ``probed``), whether it is in ``names`` and
    among the node's own properties: an entry is reused when all of those agree (the same
    answers take the same steps)."""
    if limit <= 0 or not isinstance(text, str):
        return ""
    n = node if isinstance(node, dict) else {}
    key = (text, limit, "format" in n, "enum" in n or "const" in n, bool(names))
    entries = _CLAUSES.get(key)
    own = None
    if entries is not None:
        own = _own_properties(n)
        for answers, out in entries:
            if all((m in names, m in own) == a for m, a in answers):
                return out
    probed: set = set()
    out = _clause(text, limit, node, names, probed)
    if own is None:
        own = _own_properties(n)
    if len(_CLAUSES) >= _CLAUSES_MAX:
        _CLAUSES.clear()
    _CLAUSES.setdefault(key, []).append(
        (tuple((m, (m in names, m in own)) for m in probed), out))
    return out


#: :func:`clause`'s memo: (text, limit, facts of the node and names) -> [(the answers it
#: looked up, the clause)]; bounded (cleared past _CLAUSES_MAX keys)
_CLAUSES: dict[tuple, list[tuple[tuple, str]]] = {}
_CLAUSES_MAX = 1 << 14


def _clause(text: str, limit: int, node: dict | None, names: AbstractSet[str] | Names,
            probed: set) -> str:
    kept = []
    for s in sentences(text):
        if not cues(s, node, names, probed):
            continue
        if length(s) > SHORT:       # a long sentence: only its clauses that carry a cue
            parts = [c for c in _CLAUSE.split(s) if c and cues(c, node, names, probed)]
            s = " … ".join(parts) if parts else s
        kept.append(s)
    if not kept:
        return ""
    out = ""
    for s in kept:      # whole sentences while they fit
        more = f"{out} {s}" if out else s
        if length(more) > limit:
            break
        out = more
    if out:
        return out
    # the first one alone is too long: it, or else one of its parts, cut at a word, that
    # still carries a cue (a cut that lost it would say nothing, and would not be kept
    # by a second compaction)
    first = kept[0]
    for cand in [first, *(p for p in _PARTS.split(first) if p)]:
        cut = _word_cut(cand, limit)
        if cut and cues(cut, node, names, probed):
            return cut
    return ""


def _word_cut(text: str, limit: int) -> str:
    """``text`` cut at the last space that leaves it, with "…", within ``limit`` units (a
    full stop is no sentence end here: "(e.g. 'x')" stays whole or goes)."""
    if length(text) <= limit:
        return text
    room = limit - length(ELLIPSIS)
    cut = ""
    for m in re.finditer(" ", text):
        head = text[:m.start()].rstrip(",;:-–—(/")
        if length(head) > room:
            break
        cut = head
    return cut + ELLIPSIS if cut else ""


def obliges(sentence: str) -> bool:
    """True when a sentence of a tool description states an obligation or an order."""
    return bool(_OBLIGATION.search(sentence))


def tool_description(text: str, limit: int) -> str:
    """A tool description for the compact view, at most ``limit`` UTF-16 units: when
    :func:`truncate` to ``limit`` cuts something, the sentences after the cut that state an
    obligation or an order (:func:`obliges`) are kept, in order, while they fit in two thirds
    of ``limit`` (the first one cut at a word, with "…", when it alone does not and the cut
    still obliges), and the lead is :func:`truncate` d to the rest. A text within ``limit``
    is unchanged, so the compact view of a compact view is itself. ``limit`` 0: ""."""
    full = collapse(text)
    cut = _truncate(full, limit)
    if limit <= 0 or cut == full:
        return cut
    lead = len(cut[:-1] if cut.endswith(ELLIPSIS) else cut)
    if not _OBLIGATION.search(full[lead:]):
        # (no sentence from the cut on can oblige: each is a piece of this text, set off
        # by spaces, where the same search finds what it finds in the sentence alone)
        return cut
    room = limit * 2 // 3
    added: list[str] = []
    at = 0
    for s in sentences(full):
        start = full.find(s, at)
        at = start + len(s)
        if start < lead or not obliges(s):
            continue       # (a sentence the cut kept, or began)
        n = length(s)
        if n > room:
            if not added:
                s = _word_cut(s, room)
                if s and obliges(s):      # a cut that lost the obligation says nothing
                    added.append(s)
            break
        added.append(s)
        room -= n + 1
    if not added:
        return cut
    tail = " ".join(added)
    head = _truncate(full, limit - length(tail) - 1)
    return f"{head} {tail}" if head else tail
