"""Description quality: what the rules MR405-MR408 and MC110 measure, and the score.

Deterministic (no model): word lists, a TF-IDF cosine and a few patterns, in the spirit of
Glama's TDQS and mcptest's ``tool_quality``. The rules (:mod:`toolcat.features.lint.rules.quality`,
:mod:`toolcat.features.lint.rules.mcp`) report what these functions find; :func:`score` turns the
same checks into a number per tool and per catalog (``lint --statistics``, ``measure``,
``lint --min-score``).

**Similarity** (:class:`Siblings`). Each tool is a bag of words: its name's words (counted
twice: the name is what a model reads first) and its description's, lower case, function
words dropped, a plural ``s`` cut (``issues`` = ``issue``); weighted by TF-IDF within the
catalog (``idf = ln((N + 1) / (df + 1)) + 1``) and compared by cosine. The candidates of a
tool are the tools that share a word with it through an inverted index that leaves out the
words more than :data:`COMMON_CAP` tools hold (those weigh little, and a word that every tool
of a 10,000-tool catalog holds would make the pairs quadratic); the cosine of a candidate
pair is then computed on the full vectors. A catalog of N tools costs about N times the
candidates per tool, not N squared.

**Score** (:func:`score`). Each tool starts at 100 and loses:

===================================================  ======
what (rule)                                          points
===================================================  ======
no description (TC107), or one that does not say      40
what the tool does (MR405)
a sibling it cannot be told apart from (MR406)         20
no guidance on when to use it, with a close           10
sibling (MR407)
parameters without a description (MR401), as a        20 x share
share of its parameters
parameters whose meaning is nowhere (MR408), as a      10 x share
share of its parameters
a name that says it writes or deletes, without         10
``readOnlyHint``/``destructiveHint`` (MC110; MCP)
===================================================  ======

floored at 0 (on a compact view, which leaves schema prose to its handbook, the checks of
prose -- MR401, MR407, MR408 -- and MC110, whose hints a compact view leaves out when they
are the defaults, are not counted). A catalog's score is the mean of its
tools' scores (one decimal); several
catalogs together: the mean over all their tools. The score runs every check whatever
``--select``/``--ignore`` say, so two runs (and two projects) are compared on one scale.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from operator import mul
from typing import Any, Iterable, Iterator

from toolcat.search import STOPWORDS, iter_words, words

# ----------------------------------------------------------------------------- thresholds

#: cosine at or above which two tools of a catalog cannot be told apart (MR406). Chosen on
#: the MCP corpora (README, "Description quality"): at 0.80 the pairs read as the same tool
#: (a legacy copy, a per-product twin with the same text); at 0.70 most still differ in one
#: word a model can use (``get_issue_comments``/``get_pull_request_comments``).
SAME = 0.80
#: cosine at or above which a tool has a close sibling that its description should tell it
#: from (MR407)
CLOSE = 0.75
#: words held by more tools than this are left out of the candidate index (not the cosine)
COMMON_CAP = 64
#: a tool's candidates are looked up by its indexed words until the squared norm of the
#: rest (with the common words) is below this (:class:`Siblings`): a margin below CLOSE
#: squared for the rounding of the sums
_PREFIX_STOP = (CLOSE - 1e-6) ** 2
#: ... and on through the rest when their tools are at most this many times those of the
#: words looked up (earlier tools too: an estimate of the products to add): the products of
#: all bound a candidate's cosine better (fewer cosines computed: Kubernetes, whose tools
#: share most words)
_LOOKUP_REST = 2
#: a description shorter than this many words says too little (MR405)
MIN_WORDS = 3

#: words that say nothing about what a tool does (in a description that restates the name)
_FILLER = frozenset("""
tool tools function functions method endpoint api operation helper utility handler wrapper
allows allow lets let used use using uses can will via call calls calling invoke simply
given specified provided specific particular
""".split()) | STOPWORDS

#: a description that names a kind of tool, not an action: "Tool for Jira issues", "A
#: helper for files", "GitHub API wrapper"
_GENERIC = re.compile(
    r"^\s*(?:an?\s+|the\s+)?(?:tool|function|helper|utility|handler|wrapper|endpoint|method|"
    r"api|integration)\s+(?:for|to\s+handle|that\s+handles|of|about|related\s+to|on|with)"
    r"(?:\s+[\w./-]+){1,5}\s*[.!]?\s*$|"
    r"^\s*(?:an?\s+|the\s+)?(?:[\w./-]+\s+){1,3}(?:tool|helper|utility|handler|wrapper|"
    r"integration|api)\s*[.!]?\s*$", re.IGNORECASE)

#: phrases that say when to use a tool, or when to use another (MR407)
GUIDANCE = re.compile(
    r"\buse\s+(?:this|it|these)?\s*(?:tool\s+|function\s+)?(?:only\s+)?(?:when|if|for|to|"
    r"instead|before|after|with|in\s+place)\b|\binstead\s+of\b|\brather\s+than\b|"
    r"\bonly\s+(?:for|when|if|use|works?|applies|supports?|returns?|to)\b|\bdo\s+not\s+use\b|"
    r"\bdon'?t\s+use\b|\bnot\s+(?:for|to\s+be\s+used|intended|suitable|meant)\b|"
    r"\bprefer(?:red|able)?\b|\bunlike\b|\bwhereas\b|\bas\s+opposed\s+to\b|"
    r"\b(?:best|ideal|useful|suited|suitable|intended|designed|meant|recommended|good)\s+"
    r"(?:for|when|if|to)\b|\bwhen\s+(?:you|the\s+user|a\s+user|users?)\b|"
    r"\bif\s+(?:you|the\s+user)\b|\bfor\s+\w+(?:\s+\w+)?\s+only\b|\bdiffers?\s+from\b|"
    r"\bcompared\s+(?:to|with)\b|\b(?:see|try)\s+(?:also\s+)?`?\w+_\w+|\bfor\s+example\b|"
    r"\be\.g\.|\buse\s+case", re.IGNORECASE)

# ----------------------------------------------------------------------------- words


def stem(w: str) -> str:
    """A plural ``s`` cut (``issues`` -> ``issue``, ``entries`` -> ``entry``)."""
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


class _Memo(dict):
    """``fn`` of each word met, each computed once (bounded: a catalog's descriptions
    repeat their words)."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, w: str) -> str:
        s = self.fn(w)
        if len(self) < 100_000:
            self[w] = s
        return s


#: :func:`stem` of the words met so far
_STEMS = _Memo(stem)
#: the same, and ``""`` for a function word (:data:`toolcat.search.STOPWORDS`)
_CONTENT = _Memo(lambda w: "" if w in STOPWORDS else stem(w))


def _stems(ws: list[str]) -> list[str]:
    """:func:`stem` of each of ``ws``, each word's once (:data:`_STEMS`)."""
    return list(map(_STEMS.__getitem__, ws))


def content_words(text: str) -> list[str]:
    """``text``'s words (split as :func:`toolcat.search.words` splits names too), function
    words dropped, plurals cut."""
    # (a stem is never empty: the function words' "" are dropped)
    return list(filter(None, map(_CONTENT.__getitem__, words(text))))


def name_words(name: str) -> list[str]:
    return _stems(words(name))


# ----------------------------------------------------------------------------- MR405


def purpose_problem(name: str | None, description: Any) -> str | None:
    """Why ``description`` does not say what the tool ``name`` does (None: it does, or
    there is none: that is TC107's)."""
    if not isinstance(description, str) or not description.strip():
        return None
    # (the words of the text with its whitespace collapsed; of a long one, read as far as
    # needed)
    more = iter_words(description) if len(description) > 240 else iter(words(description))
    ws: list[str] = []
    own = set(name_words(name or ""))
    # its content words (stemmed, filler aside) all the name's? (read up to the first that
    # is not: the answer is then no)
    content = restates = False
    for w in more:
        ws.append(w)
        if w not in _FILLER:
            content = True
            if stem(w) not in own:
                restates = False
                break
            restates = True
    if not content or (own and restates):
        return f"the description {_quote(_collapsed(description))} only restates the name"
    # (the number of words matters up to 9: read that far)
    ws += islice(more, max(0, 9 - len(ws)))
    if len(ws) <= 8 and _GENERIC.match(_collapsed(description)):
        return f"the description {_quote(_collapsed(description))} names a tool, not what it does"
    if len(ws) < MIN_WORDS:
        return (f"the description {_quote(_collapsed(description))} is {len(ws)} "
                f"word{'s' if len(ws) != 1 else ''}")
    return None


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str, n: int = 60) -> str:
    return repr(text if len(text) <= n else text[:n - 1] + "\u2026")


# ----------------------------------------------------------------------------- siblings


#: ``1 + ln(c)`` of the small word counts a bag holds (a name's words count 2, a
#: description's 1), each computed once
_LOGS = {float(c): 1.0 + math.log(c) for c in range(1, 65)}


class _Idf(dict):
    """``idf`` of a document frequency in a catalog of ``n`` tools, each computed once."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def __missing__(self, c: int) -> float:
        got = self[c] = math.log((self.n + 1) / (c + 1)) + 1.0
        return got


class Siblings:
    """Name+description similarity of the tools of one catalog (see the module docstring).

    ``tools``: the tools (a list), or a function giving anew on each call ``(position,
    tool)`` for each of them (a streamed catalog, read twice: once for the words' document
    frequencies, once for the candidates), with ``fetch(position)`` giving a tool again and
    ``light`` what to keep of one (default: the tool).
    ``pairs``: ``(i, j, cosine)`` with ``i < j`` (indexes into the tools) for every pair at
    or above :data:`CLOSE`; ``best[i]``: ``(j, cosine)`` of tool ``i``'s closest sibling at
    or above :data:`CLOSE`; ``tools[i]``: tool ``i`` (a streamed catalog: a mapping of the
    tools in a pair, each read again from the file when asked).

    Memory: per tool only what can make a pair is kept, its weights for the words that at
    most :data:`COMMON_CAP` tools share, in flat arrays (16 bytes a word and tool, twice).
    The later tools that may pair with a tool are looked up by only enough of those words,
    the rarer first (prefix filtering, as in AllPairs): until the norm of its weights left
    (with those of its common words) is below :data:`CLOSE`, for a tool that shares none of
    the words looked up cannot reach it (Cauchy-Schwarz); by all of them when the rest
    holds few tools (:data:`_LOOKUP_REST`). A candidate's cosine is bounded from the
    products of the words looked up, the norm of the words left and the norms of its two
    tools' common words before the full vectors are compared, so the full vectors are
    computed for the few pairs that may reach :data:`CLOSE` (with the same sums as before:
    the same cosines and pairs); a streamed catalog's two tools are read again only when the
    exact product of their indexed words (kept) and the norms of their common words cannot
    rule the pair out. A
    streamed catalog of a million tools keeps some 32 bytes a tool besides those words.
    """

    def __init__(self, tools: Any, light: Any = None, fetch: Any = None) -> None:
        from array import array
        from bisect import bisect_left, bisect_right

        again = tools if callable(tools) else None
        held: list[Any] | None = None if again is not None else list(tools)
        bags: list[dict[str, float]] | None = [] if held is not None else None
        df: dict[str, int] = {}
        n = 0
        for t in (held if held is not None else (t for _k, t in again())):  # type: ignore[misc]
            bag = _bag(t)
            if bags is not None:
                bags.append(bag)
            for w in bag:
                df[w] = df.get(w, 0) + 1
            n += 1
        self._df, self._n = df, n
        self._idf: dict[str, float] | None = None
        self.tools: Any = None
        # per tool (dense, by index): its position in the stream, a hash of its name (equal
        # hashes: the names are compared), the norm of its weights of common words and of
        # its weights of the indexed words
        pos = array("q", bytes(8 * n)) if held is None else None
        hid = array("q", bytes(8 * n))
        common = array("d", bytes(8 * n))
        midn = array("d", bytes(8 * n))
        # the words that can make a pair (held by 2 to COMMON_CAP tools), by rank (from 1):
        # their tools (ascending) and weights; -1: a word more than COMMON_CAP tools hold
        rank = {w: -1 if c > COMMON_CAP else 0 for w, c in df.items() if c > 1}
        ranks = 0
        for w in sorted([w for w, c in rank.items() if c == 0], key=df.__getitem__):
            ranks += 1
            rank[w] = ranks       # (the rarer first)
        post_i = [array("q") for _r in range(ranks + 1)]
        post_x = [array("d") for _r in range(ranks + 1)]
        ranked = rank.get
        # the tools with such a word (ascending), and for each its words (ranks) and
        # weights: mw[mstart[p]:mstart[p + 1]] for order[p]
        order = array("q")
        mw, mx, mstart = array("q"), array("d"), array("q", [0])
        vecs: dict[int, dict[str, float]] = {}
        src = enumerate(held) if held is not None else again()  # type: ignore[misc]
        i = -1
        for k, t in src:
            i += 1
            bag = bags[i] if bags is not None else _bag(t)
            if not bag:
                continue
            v = self._vec(bag)
            mine: list[tuple[int, float]] = []
            c2 = m2 = 0.0
            for w, x in v.items():
                got = ranked(w)
                if got is None:
                    continue            # (a word of this tool only)
                r = got
                if r > 0:
                    post_i[r].append(i)
                    post_x[r].append(x)
                    mine.append((r, x))
                    m2 += x * x
                else:
                    c2 += x * x
            if not mine:
                continue
            mine.sort()
            order.append(i)
            for r, x in mine:
                mw.append(r)
                mx.append(x)
            mstart.append(len(mw))
            common[i] = math.sqrt(c2)
            midn[i] = math.sqrt(m2)
            hid[i] = hash(t.id)
            if pos is not None:
                pos[i] = k
            else:
                vecs[i] = v
        if bags is not None:
            del bags
        del rank, ranked

        def tool(i: int) -> Any:
            return held[i] if held is not None else fetch(pos[i])  # type: ignore[index]

        self.compared = 0        # cosines computed (the candidate pairs past the bound)
        self.pairs: list[tuple[int, int, float]] = []
        self.best: dict[int, tuple[int, float]] = {}
        cache: dict[int, dict[str, float]] = {}
        for p, i in enumerate(order):
            ci = common[i]
            # the words looked up (prefix filtering, the rarer first): a later tool that
            # shares none of them cannot reach CLOSE when the weights of the others (and of
            # the common words) have a norm below it (Cauchy-Schwarz)
            rest = midn[i] * midn[i]     # squared norm of the indexed words not looked up
            enough = _PREFIX_STOP - ci * ci
            acc: dict[int, float] = {}
            get = acc.get
            lo, hi = mstart[p], mstart[p + 1]
            for q in range(lo, hi):
                if rest < enough:
                    if sum(map(len, map(post_i.__getitem__, mw[q:hi]))) > \
                            _LOOKUP_REST * sum(map(len, map(post_i.__getitem__, mw[lo:q]))):
                        break
                    enough = -1.0    # (the others cost little: their products bound better)
                r = mw[q]
                x = mx[q]
                rest -= x * x
                js = post_i[r]
                k = bisect_right(js, i)
                # (array slices and zip run in C, the loop body is one addition)
                for j, y in zip(js[k:], post_x[r][k:]):
                    acc[j] = get(j, 0.0) + x * y
            if not acc:
                continue
            # the words not looked up add at most their norm times the other tool's norm of
            # its indexed words (Cauchy-Schwarz: a word is indexed for every tool or none;
            # that norm is 1 at most, which the bound took before: GitHub REST's 3,428
            # cosines computed are 1,689, Stripe's 1,504 are 975, the same pairs)
            least = CLOSE - 1e-9
            left = math.sqrt(max(rest, 0.0) + 1e-12)
            vi: dict[str, float] | None = None
            wi: dict[int, float] | None = None
            for j in sorted(acc):
                if acc[j] + ci * common[j] + left * (midn[j] + 1e-9) < least:
                    continue          # cannot reach CLOSE, whatever the other words add
                if held is None and j not in cache:
                    # before reading tool j again from the file: the exact product of the
                    # two tools' indexed words (kept) and the norms of their common words
                    # bound the cosine (a word shared is of one kind in both tools)
                    if wi is None:
                        wi = dict(zip(mw[lo:hi], mx[lo:hi]))
                    pj = bisect_left(order, j)
                    a, b = mstart[pj], mstart[pj + 1]
                    known = wi.get
                    if sum([x * known(r, 0.0) for r, x in zip(mw[a:b], mx[a:b])]) + \
                            ci * common[j] < CLOSE - 1e-9:
                        continue
                if hid[j] == hid[i] and tool(j).id == tool(i).id:
                    continue          # one name twice: TC101's
                if vi is None:
                    vi = vecs[i] if held is not None else self._vec(_bag(tool(i)))
                u = vecs.get(j) if held is not None else cache.get(j)
                if u is None:
                    if len(cache) >= 4096:
                        cache.clear()
                    u = cache[j] = self._vec(_bag(tool(j)))
                self.compared += 1
                small, big = (vi, u) if len(vi) <= len(u) else (u, vi)
                # (a list: summed as the generator's items were, in the same order)
                cos = sum([x * big[w] for w, x in small.items() if w in big])
                if cos >= CLOSE:
                    cos = round(cos, 4)
                    self.pairs.append((i, j, cos))
                    for a, b in ((i, j), (j, i)):
                        if a not in self.best or cos > self.best[a][1]:
                            self.best[a] = (b, cos)
        if held is None:
            # only the tools in a pair are asked for
            inpair = {i for i, j, _c in self.pairs} | {j for _i, j, _c in self.pairs}
            self.tools = _Fetched({i: pos[i] for i in sorted(inpair)},  # type: ignore[index]
                                  fetch, light)
        else:
            self.tools = held
        del self._df, self._idf

    def _vec(self, bag: dict[str, float]) -> dict[str, float]:
        """The TF-IDF vector of a bag of words, of norm 1."""
        idf = self._idf
        if idf is None:
            # each word's idf once (the same float as computed per tool and word; one float
            # per count)
            df, of = self._df, _Idf(self._n)
            idf = self._idf = {w: of[c] for w, c in df.items()}
        log = _LOGS.get
        v = {w: (log(c) or (1.0 + math.log(c))) * idf[w] for w, c in bag.items()}
        xs = list(v.values())
        norm = math.sqrt(sum(map(mul, xs, xs))) or 1.0
        return {w: x / norm for w, x in v.items()}


def _bag(t: Any) -> dict[str, float]:
    """The words and word pairs of a tool's name (weight 2) and description (weight 1)."""
    bag: dict[str, float] = {}
    nw = [w for w in words(t.id if isinstance(t.id, str) else "") if w not in STOPWORDS]
    d = t.description if isinstance(t.description, str) else ""
    dw = content_words(d[:4000])
    for seq, weight in ((nw, 2.0), (dw, 1.0)):
        for k, w in enumerate(seq):
            bag[w] = bag.get(w, 0.0) + weight
            if k:
                g = seq[k - 1] + " " + w
                bag[g] = bag.get(g, 0.0) + weight
    return bag


class _Fetched(Mapping):
    """The tools of a streamed catalog that are in a pair (:class:`Siblings`), by index:
    each read again from the file when asked (the last few kept), ``light`` of it."""

    def __init__(self, positions: dict[int, int], fetch: Any, light: Any) -> None:
        self._pos, self._fetch, self._light = positions, fetch, light
        self._last: dict[int, Any] = {}

    def __getitem__(self, i: int) -> Any:
        t = self._last.get(i)
        if t is None:
            t = self._fetch(self._pos[i])
            if self._light is not None:
                t = self._light(t)
            if len(self._last) >= 64:
                self._last.clear()
            self._last[i] = t
        return t

    def __iter__(self) -> Iterator[int]:
        return iter(self._pos)

    def __len__(self) -> int:
        return len(self._pos)


def siblings_of(ctx: Any) -> Siblings:
    """The catalog's :class:`Siblings`, computed once per lint context."""
    got = ctx.cache.get("siblings")
    if got is None:
        tools = ctx.catalog.tools
        if isinstance(tools, list):
            got = Siblings(linted_tools(tools))
        else:
            # a streamed catalog (read a batch at a time): read twice, never held; of the
            # tools that may be in a pair, what the comparison and its findings read, not
            # their schemas (they made lint's memory grow with the catalog)
            got = _streamed_siblings(tools)
        ctx.cache["siblings"] = got
    return got


def _streamed_siblings(tools: Any) -> Siblings:
    """The :class:`Siblings` of a streamed catalog's linted tools (read twice, never held;
    those in a pair read again by position when asked)."""
    return Siblings(lambda: _linted_positions(tools), light=_light, fetch=tools.__getitem__)


def _linted_positions(tools: Any) -> Iterator[tuple[int, Any]]:
    """``(position, tool)`` of the tools of ``tools`` that :func:`linted_tools` keeps."""
    return ((k, t) for k, t in enumerate(tools) if t.invalid is None and not t.server_tool)


def _light(t: Any) -> Any:
    """``t`` without its schemas and raw descriptor (names, descriptions and where it is)."""
    from toolcat.model import Tool

    return Tool(id=t.id, title=t.title, description=t.description, annotations=t.annotations,
                source=t.source, safety_tier=t.safety_tier, invalid=t.invalid,
                server_tool=t.server_tool, file=t.file, pointer=t.pointer, origin=t.origin,
                http_method=t.http_method, http_path=t.http_path, dialect=t.dialect)


def linted_tools(tools: Iterable[Any]) -> list[Any]:
    """The tools the quality checks read: valid client tools (not a provider's own)."""
    return [t for t in tools if t.invalid is None and not t.server_tool]


def guided(description: Any) -> bool:
    """Does ``description`` say when to use the tool (or when to use another)?"""
    return isinstance(description, str) and bool(GUIDANCE.search(description))


def told_apart(a: Any, b: Any) -> bool:
    """Do tools ``a`` and ``b`` tell themselves apart without their words: one's description
    names the other (``Prefer this tool over assign_copilot_to_issue``), or their names
    differ only in the first word, a namespace (``zia_list_groups``, ``ztw_list_groups``:
    two products a request names), in their verb (``create_rule``, ``update_rule``: a
    request says which), or by words put in each other's place (``get_error_page``,
    ``get_sign_in_page``: two objects of a family)? Left: one name that extends the other
    (``list_directory``, ``list_directory_with_sizes``), a variant of the same tool."""
    if not _described(a) or not _described(b):
        return True           # nothing to compare (TC107 reports a missing description)
    for x, y in ((a, b), (b, a)):
        if isinstance(y.id, str) and isinstance(x.description, str) and y.id in x.description:
            return True
    wa, wb = words(a.id or ""), words(b.id or "")
    va, vb = verb(wa), verb(wb)
    if va is not None and vb is not None and va != vb:
        return True
    # one word (or a few) put in another's place: two objects of one family
    # (get_error_page, get_sign_in_page), not a variant of one tool (list_dir_with_sizes)
    k = 0
    while k < min(len(wa), len(wb)) and wa[k] == wb[k]:
        k += 1
    m = 0
    while m < min(len(wa), len(wb)) - k and wa[-1 - m] == wb[-1 - m]:
        m += 1
    return len(wa) - k - m > 0 and len(wb) - k - m > 0


def _described(t: Any) -> bool:
    return isinstance(t.description, str) and bool(t.description.strip())


def verb(ws: list[str]) -> str | None:
    """The first word of a name's words that is a verb toolcat knows (reading or writing)."""
    return next((w for w in ws if w in READ_WORDS or w in WRITE_WORDS), None)


def same_text(a: Any, b: Any) -> bool:
    """The same description, whitespace and case aside (TC108 reports those)."""
    return isinstance(a, str) and isinstance(b, str) and \
        " ".join(a.split()).lower() == " ".join(b.split()).lower()


# ----------------------------------------------------------------------------- MR408

#: parameter names that say nothing of what the argument is
OPAQUE_NAMES = frozenset("""
value val values data inputs p x y z s n k v t arg args argument arguments param params
parameter parameters opts options obj object item payload str string thing stuff info misc
extra other raw blob json field fields val1 val2 input1 input2 a b c d e f
""".split())
#: names that the tool's name gives a meaning to (``id`` of ``get_issue`` is the issue's,
#: ``body`` of ``create_issue`` the issue's, ``q`` of ``search_code`` the search's)
CONTEXT_NAMES = frozenset("""
id ids key keys name names ref uid uuid body content contents text input in q query message
""".split())
_MEANING = ("enum", "const", "format", "pattern", "$ref", "properties", "oneOf", "anyOf",
            "allOf", "title", "examples", "contentMediaType")


#: words a tool name may be made of and still say nothing a search could match
_VAGUE = frozenset({"tool", "tools", "run", "call", "do", "execute", "exec", "invoke", "action",
                    "function", "fn", "func", "handler", "main", "api", "request", "query",
                    "helper", "util", "utils", "misc", "generic", "default", "test", "new",
                    "op", "operation", "cmd", "command", "task", "process", "x", "a", "b"})
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def vague_name(name: str) -> bool:
    """Is every word of ``name`` one that says nothing (``run``, ``tool_1``, ``execute``)?
    (DF701, and MR408 of a generic parameter name.)"""
    words = [w.lower() for w in _NAME_WORD.findall(name)]
    return not words or all(w in _VAGUE or w.isdigit() for w in words)


def opaque_parameter(tool_name: str | None, name: str, schema: Any) -> bool:
    """True when nothing tells what the parameter ``name`` of tool ``tool_name`` is: no
    description, no title, enum, const, format, pattern, examples or sub-schema, and a name
    that says nothing (``value``, ``data``, ``q``), or only a generic name (``id``, ``key``)
    on a tool whose name says nothing either."""
    if not isinstance(schema, dict):
        return False
    d = schema.get("description")
    if isinstance(d, str) and d.strip():
        return False
    if any(k in schema for k in _MEANING):
        return False
    items = schema.get("items")
    if isinstance(items, dict) and any(k in items for k in _MEANING + ("description",)):
        return False
    parts = [w.lower() for w in words(name)] or [name.lower()]
    if all(p in OPAQUE_NAMES for p in parts):
        return True
    if all(p in OPAQUE_NAMES or p in CONTEXT_NAMES for p in parts):
        # the tool's name says what it is about, unless it says nothing either, or the
        # argument is an object or array of a shape nothing gives
        return vague_name(tool_name or "") or schema.get("type") in ("object", "array")
    return False


# ----------------------------------------------------------------------------- MC110

#: words of a tool name that say it changes something
WRITE_WORDS = frozenset("""
create add insert new post put patch update edit modify set change rename move write save
upload append replace merge push commit publish send post submit delete remove destroy drop
purge erase clear reset revoke cancel close archive unarchive kill terminate stop restart
start run execute exec deploy install uninstall apply approve reject assign unassign invite
enable disable lock unlock mark transfer pay refund charge import restore sync trigger
""".split())
#: words that say it deletes (destructiveHint matters most)
DELETE_WORDS = frozenset("""
delete remove destroy drop purge erase clear reset revoke kill terminate uninstall truncate
wipe
""".split())
#: words that make a name read-only whatever else it says (``get_delete_status``)
READ_WORDS = frozenset("get list search find read fetch query describe show view count "
                       "check validate preview dry lookup inspect retrieve download export"
                       .split())


def write_word(name: str | None) -> str | None:
    """The word of ``name`` that says the tool writes or deletes, else None: the name's
    first verb (a word of :data:`WRITE_WORDS` or :data:`READ_WORDS`), when it is not a
    reading one (``event_get_trigger`` reads; ``zpa_delete_rule`` deletes)."""
    for w in (w.lower() for w in words(name or "")):
        if w in READ_WORDS:
            return None
        if w in WRITE_WORDS:
            return w
    return None


def missing_hints(tool: Any) -> str | None:
    """What MC110 reports of an MCP tool (None: nothing)."""
    w = write_word(tool.id if isinstance(tool.id, str) else None)
    if w is None:
        return None
    ann = tool.annotations if isinstance(tool.annotations, dict) else {}
    if ann.get("readOnlyHint") is True:
        if w in DELETE_WORDS:
            return (f"its name says it deletes ({w!r}) but annotations say readOnlyHint: true "
                    "(a client may run it without asking)")
        return None
    if "readOnlyHint" in ann or "destructiveHint" in ann:
        return None
    return (f"its name says it writes ({w!r}) and its annotations say neither readOnlyHint "
            "nor destructiveHint (a client assumes destructive and asks every time, or "
            "cannot tell a delete from an update)")


# ----------------------------------------------------------------------------- score

#: points a tool loses, per check (the module docstring's table)
WEIGHTS = {"purpose": 40, "ambiguous": 20, "unguided": 10, "undocumented": 20, "opaque": 10,
           "hints": 10}
#: the rules each check stands for (what ``lint --statistics`` names)
CHECK_RULES = {"purpose": "TC107/MR405", "ambiguous": "TC108/MR406", "unguided": "MR407",
               "undocumented": "MR401", "opaque": "MR408", "hints": "MC110"}


@dataclass
class ToolScore:
    file: str
    tool: str | None
    score: float
    lost: dict[str, float] = field(default_factory=dict)   # check -> points lost


@dataclass
class Score:
    """A catalog's (or several catalogs') description quality score, 0-100."""

    score: float
    tools: list[ToolScore]
    catalogs: list[tuple[str, float, int]]   # (file, score, tools)

    def lost(self) -> dict[str, float]:
        """Points lost per check, summed over the tools and divided by their number: what
        each check takes off the catalog's score."""
        n = max(len(self.tools), 1)
        out = dict.fromkeys(WEIGHTS, 0.0)
        for t in self.tools:
            for k, v in t.lost.items():
                out[k] += v
        return {k: round(v / n, 1) for k, v in out.items()}

    def to_json(self) -> dict:
        return {"score": self.score, "tools": len(self.tools), "lost": self.lost(),
                "catalogs": [{"file": f, "score": s, "tools": n} for f, s, n in self.catalogs]}


def tool_checks(tool: Any, sib: Siblings, i: int, mcp: bool,
                prose: bool = True) -> dict[str, float]:
    """Points ``tool`` (index ``i`` of ``sib``) loses, per check; ``prose`` False (a
    compact view, which leaves the prose to its handbook): not the checks of prose."""
    lost: dict[str, float] = {}
    d = tool.description
    if not isinstance(d, str) or not d.strip() or purpose_problem(tool.id, d):
        lost["purpose"] = WEIGHTS["purpose"]
    best = sib.best.get(i)
    if best is not None:
        j, cos = best
        apart = told_apart(tool, sib.tools[j])
        if cos >= SAME and not apart:     # MR406, or TC108 (the same description)
            lost["ambiguous"] = WEIGHTS["ambiguous"]
        if prose and not apart and not guided(d):
            lost["unguided"] = WEIGHTS["unguided"]
    s = tool.input_schema
    props = s.get("properties") if isinstance(s, dict) else None
    if prose and isinstance(props, dict) and props:
        undoc = opaque = 0
        for name, p in props.items():
            if not isinstance(p, dict) or "$ref" in p:
                continue
            pd = p.get("description")
            if not isinstance(pd, str) or not pd.strip():
                undoc += 1
            if opaque_parameter(tool.id, str(name), p):
                opaque += 1
        if undoc:
            lost["undocumented"] = round(WEIGHTS["undocumented"] * undoc / len(props), 2)
        if opaque:
            lost["opaque"] = round(WEIGHTS["opaque"] * opaque / len(props), 2)
    if mcp and prose and missing_hints(tool):
        lost["hints"] = WEIGHTS["hints"]
    return lost


def score(catalogs: Iterable[Any]) -> Score:
    """The description quality score of ``catalogs`` (see the module docstring)."""
    per: list[ToolScore] = []
    cats: list[tuple[str, float, int]] = []
    for cat in catalogs:
        mine = list(tool_scores(cat))
        per += mine
        cats.append((cat.file, _mean(mine), len(mine)))
    return Score(_mean(per), per, cats)


def tool_scores(cat: Any) -> Iterator[ToolScore]:
    """The score of each of ``cat``'s linted tools, in order. A streamed catalog's tools are
    read from the file as they are scored (and twice before, by :class:`Siblings`), never
    held all at once."""
    from toolcat.model import COMPACT, DOCKER, MCP, MCP_CAPTURE

    mcp = cat.format in (MCP, MCP_CAPTURE, DOCKER)
    prose = cat.view != COMPACT
    if isinstance(cat.tools, list):
        tools: Iterable[Any] = linted_tools(cat.tools)
        sib = Siblings(tools)
    else:
        sib = _streamed_siblings(cat.tools)
        tools = (t for _k, t in _linted_positions(cat.tools))
    for i, t in enumerate(tools):
        lost = tool_checks(t, sib, i, mcp, prose)
        yield ToolScore(t.file or cat.file, t.id, max(0.0, 100.0 - sum(lost.values())), lost)


def catalog_score(cat: Any) -> float | None:
    """``score([cat]).score`` (None for a catalog without linted tools), keeping each tool's
    score only as a number."""
    from array import array

    got = array("d", (t.score for t in tool_scores(cat)))
    return round(sum(got) / len(got), 1) if got else None


def _mean(scores: list[ToolScore]) -> float:
    return round(sum(t.score for t in scores) / len(scores), 1) if scores else 100.0
