"""Ranked search over a catalog's tools (issue 32): what ``toolcat serve --defer``'s
``search_tools`` answers with, and what a deferred tool must keep to be found.

The engine is BM25F over three fields of each tool, with SQLite's FTS5 from the standard
library (``sqlite3``) as its tokenizer:

* ``name``: the tool's name split into words (``listPullRequests``, ``list_pull_requests``,
  ``API-get-block-children`` and ``files.read`` all become their words);
* ``description``: the tool's title and description;
* ``params``: every parameter's name (split the same way), description and string ``enum``
  values, nested ones too (``properties``, ``items``, ``anyOf``/``oneOf``/``allOf``,
  ``$defs``), so that ``method: get_comments`` of a consolidated ``issue_read`` is found.

Text is tokenized by FTS5's ``porter unicode61`` tokenizer (case and diacritics folded,
English stems: ``issues`` finds ``issue``), read back through an ``fts5vocab`` table. A
query is the words of a phrase as a person writes it; common function words are dropped,
and each remaining word adds its BM25F score (fields weighted by :data:`WEIGHTS`: a word in
the name counts twice one in the description), so a tool that has more of the words, and
rarer ones, ranks higher. A few words are widened to their usual synonyms
(:data:`SYNONYMS`: ``remove`` also matches ``delete``) at half weight, because tool names
use one verb where people use another. FTS5's own ``bm25()`` was measured first and ranks
a little worse (77 of 85 task phrases found in the top 5, against 79): its IDF is clamped
to nothing for a word in more than half the tools, which leaves a small catalog with no
ranking at all. The weights and synonyms were chosen on the task phrases in
``tests/fixtures/search/tasks.toml`` (GitHub's MCP server, the filesystem server, Notion's);
README ("Deferred tools: serve --defer") gives the measured recall.

No MCP SDK and nothing from toolcat's other layers: a tool is a mapping with ``name``,
``description``, ``title`` and ``inputSchema`` (the MCP standard view) or the model's
field names (``id``, ``input_schema``); :func:`tool_text` reads both.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

#: BM25F weights of the fields: name, description, params.
WEIGHTS = (2.0, 1.0, 0.5)

#: Words of a query that say nothing about which tool (dropped before the search).
STOPWORDS = frozenset("""
a an the of to in on for from by at with and or is are be been was were it its this that
these those my me i we our you your us some any please can could would should will do does
did i'd i'm want need let lets let's into about there their them they what which who whom
how when where why as if so than then just also one
""".split())

#: A query word -> the words it also matches (verbs people and tool names spell apart).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "remove": ("delete",), "delete": ("remove",), "erase": ("delete", "remove"),
    "show": ("get", "list", "read"), "fetch": ("get", "read", "retrieve"),
    "see": ("get", "list", "read"), "view": ("get", "read"),
    "retrieve": ("get",), "get": ("retrieve",), "look": ("search", "find", "get"),
    "find": ("search",), "search": ("find",), "lookup": ("search", "get"),
    "make": ("create",), "new": ("create",), "add": ("create",), "create": ("add",),
    "edit": ("update",), "change": ("update",), "modify": ("update",), "rename": ("move",),
    "update": ("edit",), "set": ("update",), "write": ("create", "update"),
    "save": ("write", "create"), "enumerate": ("list",), "all": ("list",),
    "folder": ("directory",), "folders": ("directory",), "dir": ("directory",),
    "repo": ("repository",), "repos": ("repository",), "pr": ("pull", "request"),
    "prs": ("pull", "request"), "mkdir": ("create", "directory"), "ls": ("list",),
    "who": ("user",), "myself": ("me",),
}

#: What a synonym's score counts for, against the word's own.
SYNONYM_WEIGHT = 0.5

#: Characters of a description kept in a hit's one-line summary.
SUMMARY_CHARS = 120

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text: str) -> list[str]:
    """``text``'s words, lower case: runs of letters and digits, a name split at ``_``,
    ``-``, ``.`` and camelCase humps (``getHTTPResponse`` -> get, http, response)."""
    if text.isascii():
        # the runs hold ASCII letters and digits only, which _CAMEL's matches never cross:
        # its matches in the whole text are those in each run, in order (one search)
        return list(map(str.lower, _CAMEL.findall(text)))
    out: list[str] = []
    for run in _WORD.findall(text):
        parts = _CAMEL.findall(run) if run.isascii() else [run]
        out += [p.lower() for p in (parts or [run])]
    return out


def iter_words(text: str) -> Iterator[str]:
    """:func:`words` of ``text``, one at a time (a reader of the first few words does not
    split the rest of a long text)."""
    if text.isascii():
        return (m.group().lower() for m in _CAMEL.finditer(text))
    return _iter_runs(text)


def _iter_runs(text: str) -> Iterator[str]:
    for m in _WORD.finditer(text):
        run = m.group()
        parts = _CAMEL.findall(run) if run.isascii() else [run]
        for p in parts or [run]:
            yield p.lower()


def _params(schema: Any, out: list[str], budget: list[int], depth: int = 0) -> None:
    """Parameter names, descriptions and string enum values under ``schema`` (bounded: a
    hostile schema cannot make the index large or the walk deep)."""
    if not isinstance(schema, dict) or depth > 12 or budget[0] <= 0:
        return
    budget[0] -= 1
    desc = schema.get("description")
    if isinstance(desc, str) and depth:
        out.append(desc[:2000])
    enum = schema.get("enum")
    if isinstance(enum, list):
        out += [" ".join(words(e)) for e in enum[:50] if isinstance(e, str)]
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in list(props.items())[:200]:
            out.append(" ".join(words(str(name))))
            _params(sub, out, budget, depth + 1)
    for key in ("items", "additionalProperties"):
        _params(schema.get(key), out, budget, depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        subs = schema.get(key)
        if isinstance(subs, list):
            for sub in subs[:50]:
                _params(sub, out, budget, depth + 1)
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            for sub in list(defs.values())[:100]:
                _params(sub, out, budget, depth + 1)


def tool_text(tool: Any) -> tuple[str, str, str, str]:
    """(name, name words, description, parameter text) of a tool mapping."""
    name = tool.get("name", tool.get("id"))
    name = name if isinstance(name, str) else ""
    parts = []
    for key in ("title", "description"):
        v = tool.get(key)
        if isinstance(v, str):
            parts.append(v)
    ann = tool.get("annotations")
    if isinstance(ann, dict) and isinstance(ann.get("title"), str):
        parts.append(ann["title"])
    schema = tool.get("inputSchema", tool.get("input_schema"))
    params: list[str] = []
    _params(schema, params, [2000])
    return name, " ".join(words(name)), "\n".join(parts), "\n".join(params)


def summary(description: Any, limit: int = SUMMARY_CHARS) -> str:
    """A description's first sentence (or line) on one line, at most ``limit`` characters
    (cut at a word, with an ellipsis)."""
    if not isinstance(description, str):
        return ""
    text = " ".join(description.split())
    m = re.search(r"(?<=[A-Za-z0-9)\]`'\"][.!?])\s+(?=[A-Z(`'\"])", text)
    if m:
        text = text[:m.start()]
    if len(text) > limit:
        text = text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "\u2026"
    return text


@dataclass(frozen=True)
class Hit:
    name: str
    score: float          # BM25: the higher, the better
    summary: str          # the description's first sentence


def _fts5(con: Any) -> bool:
    import sqlite3

    try:
        con.execute(f"CREATE VIRTUAL TABLE probe USING fts5(a, tokenize = '{TOKENIZER}')")
        con.execute("DROP TABLE probe")
        return True
    except sqlite3.Error:
        return False


#: FTS5's tokenizer: Unicode words, case and diacritics folded, Porter's English stems.
TOKENIZER = "porter unicode61 remove_diacritics 2"
#: BM25's term-frequency saturation and length normalization (the usual values).
K1, B = 1.2, 0.75
COLUMNS = ("name", "description", "params")


class ToolIndex:
    """The search index of a list of tools (made once; :meth:`search` any number of times).
    Tools with the same name are indexed once (the first).

    SQLite FTS5 tokenizes and stems (its ``porter unicode61`` tokenizer, read back through
    an ``fts5vocab`` table); the ranking is BM25 over the three columns, each column's
    term-frequency part weighted by :data:`WEIGHTS`, with Lucene's IDF ``ln(1 + (N - n +
    0.5) / (n + 0.5))``. That IDF is never negative: FTS5's own ``bm25()`` clamps a word in
    more than half the tools to nothing, which leaves the small catalogs (a two-tool server:
    every word) with no ranking at all. Where this Python's SQLite has no FTS5 the words are
    matched unstemmed (lower case), and :attr:`stemmed` is False."""

    def __init__(self, tools: Iterable[Any], weights: tuple[float, float, float] = WEIGHTS,
                 synonyms: dict[str, tuple[str, ...]] | None = None,
                 synonym_weight: float = SYNONYM_WEIGHT) -> None:
        import sqlite3

        self.weights = weights
        self.synonyms = SYNONYMS if synonyms is None else synonyms
        self.synonym_weight = synonym_weight
        self.names: list[str] = []
        self.summaries: dict[str, str] = {}
        rows: list[tuple[str, ...]] = []
        for tool in tools:
            if not isinstance(tool, dict):
                continue
            name, name_words, desc, params = tool_text(tool)
            if not name or name in self.summaries:
                continue
            self.summaries[name] = summary(tool.get("description"))
            self.names.append(name)
            rows.append((name_words, desc, params))
        self.con = sqlite3.connect(":memory:", check_same_thread=False)
        self.stemmed = _fts5(self.con)
        if self.stemmed:
            self.con.execute(f"CREATE VIRTUAL TABLE scratch USING fts5(name, description, "
                             f"params, tokenize = '{TOKENIZER}')")
            self.con.execute("CREATE VIRTUAL TABLE scratch_terms "
                             "USING fts5vocab(scratch, instance)")
        # term -> {tool index: [its frequency in name, description, params]}
        self.tf: dict[str, dict[int, list[int]]] = {}
        self.lengths: list[list[int]] = [[0, 0, 0] for _ in rows]
        for doc, col, term in self._tokens(rows):
            self.tf.setdefault(term, {}).setdefault(doc, [0, 0, 0])[col] += 1
            self.lengths[doc][col] += 1
        n = max(len(rows), 1)
        self.average = [max(sum(ln[c] for ln in self.lengths) / n, 1e-9) for c in range(3)]
        self._stems: dict[str, list[str]] = {}

    def _tokens(self, rows: list[tuple[str, ...]]) -> list[tuple[int, int, str]]:
        """(row, column, term) of every token of ``rows`` (FTS5's terms, else lower-case
        words)."""
        out: list[tuple[int, int, str]] = []
        if not self.stemmed:
            for doc, row in enumerate(rows):
                for col, text in enumerate(row):
                    out += [(doc, col, w) for w in words(text)]
            return out
        con = self.con
        try:
            con.executemany("INSERT INTO scratch(rowid, name, description, params) "
                            "VALUES (?, ?, ?, ?)",
                            [(i + 1, *row, *[""] * (3 - len(row))) for i, row in enumerate(rows)])
            for term, doc, col in con.execute(
                    "SELECT term, doc, col FROM scratch_terms ORDER BY doc, col, offset"):
                out.append((doc - 1, COLUMNS.index(col), term))
        finally:
            con.execute("DELETE FROM scratch")
        return out

    def __len__(self) -> int:
        return len(self.names)

    def terms_of(self, word: str) -> list[str]:
        """The index terms a query word is (its stem; a word FTS5 splits: each part)."""
        got = self._stems.get(word)
        if got is None:
            got = [t for _d, _c, t in self._tokens([(word,)])] if self.stemmed else [word]
            if len(self._stems) > 4096:
                self._stems.clear()
            self._stems[word] = got = got or [word]
        return got

    def query_terms(self, query: str) -> list[list[str]]:
        """What is searched for: each word of the query (stopwords dropped, each once) with
        the :attr:`synonyms` it also matches after it."""
        out: list[list[str]] = []
        seen: set[str] = set()
        for w in words(query):
            if w in STOPWORDS or w in seen:
                continue
            seen.add(w)
            out.append([w, *(t for t in self.synonyms.get(w, ()) if t != w)])
            if len(out) == 32:
                break
        return out

    def _scores(self, term: str) -> dict[int, float]:
        """BM25 of one index term in each tool that has it."""
        hits = self.tf.get(term)
        if not hits:
            return {}
        n_all = len(self.names)
        idf = math.log(1 + (n_all - len(hits) + 0.5) / (len(hits) + 0.5))
        out = {}
        for doc, freqs in hits.items():
            tf = sum(self.weights[c] * f / (1 - B + B * self.lengths[doc][c] / self.average[c])
                     for c, f in enumerate(freqs) if f)
            out[doc] = idf * tf * (K1 + 1) / (tf + K1)
        return out

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """The ``limit`` tools that best match ``query``, best first (none when no word of
        the query is in any tool). A query that is a tool's name finds that tool first.

        A tool's score is the sum over the query's words of the word's BM25 score in the
        tool, or, where a synonym of the word scores more, :data:`SYNONYM_WEIGHT` times the
        synonym's (a synonym widens a word; it never counts as much as the word)."""
        exact = query.strip()
        hits: list[Hit] = []
        if limit <= 0:
            return hits
        if exact in self.summaries:
            hits.append(Hit(exact, math.inf, self.summaries[exact]))
        total: dict[int, float] = {}
        for group in self.query_terms(query):
            best: dict[int, float] = {}
            for i, word in enumerate(group):
                factor = 1.0 if i == 0 else self.synonym_weight
                for term in self.terms_of(word):
                    for doc, score in self._scores(term).items():
                        if score * factor > best.get(doc, 0.0):
                            best[doc] = score * factor
            for doc, s in best.items():
                total[doc] = total.get(doc, 0.0) + s
        for doc, s in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
            if len(hits) >= limit:
                break
            name = self.names[doc]
            if name != exact:
                hits.append(Hit(name, s, self.summaries[name]))
        return hits
