"""Line and column of a JSON pointer in a JSON or YAML text, computed lazily and fast.

The parsers toolcat uses (stdlib ``json``, ``yaml-rs``) report no positions, so this module
finds them in the text, only for the pointers that are asked about (lint findings):

* **JSON**: one C-speed pass masks string contents and records every bracket with its
  nesting depth (``list.index`` then finds a container's closing bracket in C). A container's
  members are enumerated the first time a pointer goes through it and cached, so a lookup
  costs about the size of the containers on its path, not of the file.
* **YAML, block style**: an indentation-driven scanner. A block mapping whose keys sit at
  column ``c`` ends at the first later line indented less than ``c``; its keys are the lines
  indented exactly ``c`` (found with one regular expression over that region), so block
  scalars, multi-line scalars and deeper nodes are skipped without being read. Sequences
  likewise (``- `` at column ``c``). Anchors/aliases are followed (an alias resolves to its
  anchored node, as a composing parser would), merge keys (``<<``) are searched.
* **YAML, flow style** (``{a: 1}``, ``[x, y]``, a JSON document saved as ``.yaml``): a small
  tokenizer parses just that collection.
* Anything the fast scanner cannot place (a complex ``?`` key, a tagged or aliased key...)
  falls back to ruamel.yaml's round-trip composer, which records marks (exact, slow: seconds
  on a multi-megabyte file; real specs never need it).

Positions are 1-based ``(line, column)`` of the *value* at the pointer, where a composing
YAML parser would put the node's start: a node's anchor or tag when it has one, the first key
of a block mapping, the ``-`` of a block sequence, the ``|``/``>`` of a block scalar. An empty
value (``key:`` with nothing after it) is placed just after its ``:`` (or ``-``). For a
pointer that does not exist in the text, the position of its nearest existing ancestor.
Columns count characters (code points), like the parsers' error messages.

Known limits (pathological YAML, never seen in catalogs): an empty implicit key (a line
``: value``) is not found (its ancestor is given); a byte order mark inside the text counts
as a column (ruamel does not count it).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import accumulate, chain, compress, repeat
from operator import not_
from typing import Any, Iterator, Protocol, cast

from toolcat.document.pointer import decode, unescape
from toolcat.document.scalars import CORE_NUMBER, LOOSE_NUMBER, js_key

__all__ = ["Index", "build_index", "find_duplicate_key"]


class _Matches(Protocol):
    """A compiled pattern whose ``match`` never returns None where it is called (it
    matches the empty string, or every call site stands on its first character)."""

    def match(self, string: str, pos: int = ...) -> re.Match[str]: ...


# Tests set this to see what the fast scanners cannot place instead of falling back.
STRICT = False
_BLOCK = 4096   # characters per block of Index.line_col's newline counts


def build_index(text: str, syntax: str) -> "Index":
    """An index answering ``locate(pointer)`` for ``text`` (``syntax``: "json" or "yaml")."""
    if syntax == "json":
        return _JsonIndex(text)
    return _YamlIndex(text)


class Index:
    """Answers ``locate(pointer) -> (line, column) | None`` (1-based)."""

    text: str

    def __init__(self, text: str) -> None:
        self.text = text
        self.empty = not text or text.isspace()
        self._blocks: tuple[list[int], list[int]] | None = None
        self._walked: dict[str, Any] = {}

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``. The text is cut into blocks of ``_BLOCK``
        characters whose newline counts (and last newline) are taken once, in C; a lookup
        then counts the newlines of one block only (no list of every line start is made)."""
        t = self.text
        blocks = self._blocks
        if blocks is None:
            ends = range(0, len(t), _BLOCK)
            counts = list(accumulate((t.count("\n", i, i + _BLOCK) for i in ends), initial=0))
            lasts = list(accumulate((t.rfind("\n", i, i + _BLOCK) for i in ends), max,
                                    initial=-1))
            blocks = self._blocks = (counts, lasts)
        counts, lasts = blocks
        b = min(offset // _BLOCK, len(counts) - 1)
        at = b * _BLOCK
        start = t.rfind("\n", at, offset)
        if start < 0:
            start = lasts[b]
        return counts[b] + t.count("\n", at, offset) + 1, offset - start

    def locate(self, pointer: str) -> tuple[int, int] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def walk(self, pointer: str, root: Any, child: Any) -> Any:
        """The node at ``pointer`` (or its nearest ancestor), starting from the longest
        pointer prefix already walked: findings cluster, so ancestors are shared."""
        if not pointer.startswith("/"):
            return root
        cache = self._walked
        got = cache.get(pointer)
        if got is not None:
            return got
        node, at = root, 0
        cut = len(pointer)
        while True:
            cut = pointer.rfind("/", 0, cut)
            if cut <= 0:
                break
            hit = cache.get(pointer[:cut])
            if hit is not None:
                node, at = hit, cut
                break
        for raw in pointer[at + 1:].split("/"):
            nxt = child(node, unescape(raw))
            if nxt is None:
                break
            at = pointer.find("/", at + 1)
            if at < 0:
                at = len(pointer)
            cache[pointer[:at]] = nxt
            node = nxt
        return node


def _tokens(pointer: str) -> list[str]:
    try:
        return decode(pointer)
    except ValueError:
        return []


def _array_index(tok: str, n: int) -> int | None:
    if tok.isdigit() and (tok == "0" or tok[0] != "0") and tok.isascii():
        i = int(tok)
        if i < n:
            return i
    return None


# =========================================================================== JSON

_BRACKETS = re.compile(r"[\[\]{}]")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_MATCH_START = re.Match.start
_WS = cast(_Matches, re.compile(r"[ \t\n\r]*"))
_JSON_SCALAR_END = cast(_Matches, re.compile(r"[^ \t\n\r,\]}]*"))
_SPARSE = 30    # at most one bracket per this many characters: str.find (_bracket_offsets)
# a member's key (group 1, quoted) and the whitespace up to its value, read in the masked
# text (_JsonIndex.m): the first after an object's '{', the next after a value and its ','
_JSON_FIRST_KEY = re.compile(r'[ \t\n\r]*("[^"]*")[ \t\n\r]*:[ \t\n\r]*')
_JSON_NEXT_KEY = re.compile(r'[ \t\n\r]*,[ \t\n\r]*("[^"]*")[ \t\n\r]*:[ \t\n\r]*')


class _Lazy:
    """The members of one container, read from the text as lookups need them: ``found``
    holds those read so far, ``scan`` (a generator that puts each new key in ``found``, then
    yields it) goes on where the last lookup stopped, and an error it raised is raised again
    to every later lookup (the same answer). Findings cluster on a few keys of each
    container: most containers on their paths are read only part way."""

    __slots__ = ("found", "scan", "error")

    def __init__(self, found: dict, scan: Iterator[str]) -> None:
        self.found = found
        self.scan: Iterator[str] | None = scan
        self.error: Exception | None = None

    def get(self, tok: str) -> Any:
        got = self.found.get(tok)
        if got is None and self.scan is not None:
            got = self._read_on(tok)
        return got

    def all(self) -> dict:
        if self.scan is not None:
            self._read_on(None)
        return self.found

    def _read_on(self, tok: str | None) -> Any:
        if self.error is not None:
            raise self.error
        try:
            for key in self.scan:   # type: ignore[union-attr]
                if key == tok:
                    return self.found[key]
        except Exception as e:  # _Unsupported, text the scanner misreads...
            self.error = e
            raise
        self.scan = None
        return None


class _JsonMembers:
    """The members of one JSON object read so far (``found``: key -> offset of its value)
    and where reading goes on (``at``: ``~`` the object's offset before the first key, the
    offset of the last value read, None at the end), or the error reading raised (raised
    again to every later lookup). :class:`_Lazy` for JSON without a generator: a few
    numbers per object walked, not two suspended frames."""

    __slots__ = ("found", "at", "error")

    def __init__(self, p: int) -> None:
        self.found: dict[str, int] = {}
        self.at: int | None = ~p
        self.error: Exception | None = None


def _bracket_offsets(u: str) -> list[int]:
    """The offsets of every bracket of ``u``, ascending. A pretty-printed spec has a bracket
    every 70 characters or so: each of the four found with ``str.find`` (C's fast search;
    the loop runs once per bracket) takes half the time of one regular expression that
    tries every character. Dense text (compact JSON, a bracket every few characters) keeps
    the expression, cheaper there; the first 64 KiB tell which."""
    head = u[:65536]
    if len(head) < 4096 or sum(map(head.count, "[]{}")) * _SPARSE > len(head):
        return list(map(_MATCH_START, _BRACKETS.finditer(u)))
    out: list[int] = []
    add, find = out.append, u.find
    for ch in "[]{}":
        i = find(ch)
        while i >= 0:
            add(i)
            i = find(ch, i + 1)
    out.sort()
    return out


class _JsonIndex(Index):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        # Escaped characters masked (same length): every '"' left opens or closes a string.
        u = text.replace("\\\\", "__").replace('\\"', "__") if '\\"' in text else text
        self.m = u   # string contents are never read through it but for that '"'
        # Every bracket, then those outside strings: an even number of '"' before them,
        # counted between consecutive brackets (C-speed: no Python code runs per bracket)
        pos = _bracket_offsets(u)
        if '"' in u:
            quotes = accumulate(map(u.count, repeat('"'), chain((0,), pos), pos))
            pos = list(compress(pos, map(not_, map((1).__and__, quotes))))
        # machine integers (8 bytes a bracket, not a list's pointer and int object: a
        # catalog of 100,000 tools has over a million brackets)
        self._pos = array("q", pos)
        del pos
        self._depth = array("q", accumulate(map(_BRACKET_STEP.__getitem__,
                                                map(u.__getitem__, self._pos))))
        self._members: dict[int, Any] = {}   # container -> its items, or its _JsonMembers
        self.root = _WS.match(text).end()

    def _close(self, p: int) -> int:
        """Offset of the bracket closing the one opened at ``p``."""
        k = bisect_right(self._pos, p) - 1
        return self._pos[self._depth.index(self._depth[k] - 1, k + 1)]

    def _skip_value(self, p: int) -> int:
        c = self.m[p]
        if c == "{" or c == "[":
            return self._close(p) + 1
        if c == '"':
            return self.m.index('"', p + 1) + 1
        return _JSON_SCALAR_END.match(self.m, p).end()

    def _items(self, p: int) -> list[int]:
        """Offsets of the values of the array opened at ``p``."""
        got = self._members.get(p)
        if got is None:
            got = self._members[p] = list(self._scan(p))
        return got

    def _member(self, p: int, tok: str) -> int | None:
        """Offset of the value of ``tok`` (its first) in the object opened at ``p``, the
        object read only as far as that key (:class:`_JsonMembers`)."""
        got = self._members.get(p)
        if got is None:
            got = self._members[p] = _JsonMembers(p)
        at = got.found.get(tok)
        if at is None and got.at is not None:
            at = self._read_on(got, tok)
        return at

    def _read_on(self, lz: "_JsonMembers", tok: str) -> int | None:
        """Read the members of ``lz``'s object on from where the last lookup stopped, up to
        the first new key ``tok`` (its value's offset; None at the end of the object): the
        steps of :meth:`object_keys`, resumed from ``lz.at``."""
        if lz.error is not None:
            raise lz.error
        t, m, found = self.text, self.m, lz.found
        first, then = _JSON_FIRST_KEY.match, _JSON_NEXT_KEY.match
        try:
            i = lz.at
            while i is not None:
                # the next key (its quotes: a '"' of the masked text opens or closes a
                # string) and its value's offset, in one match: after the '{', or after the
                # value at i and a ','; no match: the object's end (the text is JSON)
                km = first(m, ~i + 1) if i < 0 else then(m, self._skip_value(i))
                if km is None:
                    break
                a, b = km.span(1)
                key = t[a + 1:b - 1]
                if "\\" in key:
                    import json

                    key = json.loads(t[a:b])
                i = lz.at = km.end()
                if key not in found:
                    found[key] = i
                    if key == tok:
                        return i
        except Exception as e:  # _Unsupported, text the scanner misreads...
            lz.error = e
            raise
        lz.at = None
        return None

    def _key(self, i: int) -> tuple[str, int]:
        """The key whose '"' is at ``i`` (unescaped) and the offset of its value."""
        t, ws = self.text, _WS
        end = self.m.index('"', i + 1)
        key = t[i + 1:end]
        if "\\" in key:
            import json

            key = json.loads(t[i:end + 1])
        return key, ws.match(t, ws.match(t, end + 1).end() + 1).end()  # past ':'

    def _scan(self, p: int) -> Iterator[int]:
        """The offset of each item of the array opened at ``p``."""
        t, m, ws = self.text, self.m, _WS
        i = ws.match(t, p + 1).end()
        if m[i] in "]}":
            return
        while True:
            yield i
            i = ws.match(t, self._skip_value(i)).end()
            if m[i] != ",":
                return
            i = ws.match(t, i + 1).end()

    def object_keys(self, p: int) -> list[tuple[str, int]]:
        """(key, offset of the key) of every member of the object opened at ``p``, in order."""
        t, m, ws = self.text, self.m, _WS
        out: list[tuple[str, int]] = []
        i = ws.match(t, p + 1).end()
        if m[i] == "}":
            return out
        while True:
            key, value = self._key(i)
            out.append((key, i))
            i = ws.match(t, self._skip_value(value)).end()
            if m[i] != ",":
                return out
            i = ws.match(t, i + 1).end()

    def _child(self, node: int, tok: str) -> int | None:
        c = self.m[node]
        if c == "{":
            return self._member(node, tok)
        if c == "[":
            items = self._items(node)
            i = _array_index(tok, len(items))
            return None if i is None else items[i]
        return None

    def offset(self, pointer: str) -> int:
        if self.root >= len(self.text):
            return self.root
        return self.walk(pointer, self.root, self._child)

    def locate(self, pointer: str) -> tuple[int, int] | None:
        if self.empty:
            return None
        try:
            return self.line_col(self.offset(pointer))
        except (ValueError, IndexError):  # not JSON after all: be exact the slow way
            return _FallbackIndex(self.text).locate(pointer)


# =========================================================================== YAML

class _Unsupported(Exception):
    """The fast scanner cannot place this; use the exact (slow) fallback."""


MAP, SEQ, FLOW, SCALAR, NULL = "map", "seq", "flow", "scalar", "null"

_SP = cast(_Matches, re.compile(r"[ \t]*"))
# (matched only where the text has a & or !)
_PROPS = cast(_Matches, re.compile(r"[&!][^ \t\n,\[\]{}]*[ \t]*"))
_ANCHOR_NAME = re.compile(r"[^ \t\n,\[\]{}]+")
# blank and comment-only lines, then the indentation of the next content line
_NEXT_CONTENT = cast(_Matches, re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*( *)"))
_KEY_COLON = re.compile(r":(?=[ \t\n]|$)", re.M)
_COMMENT_IN_KEY = re.compile(r"[ \t]#")
_VALUE_START = re.compile(r"[ \t]*(?:[&!][^ \t\n]*[ \t]+)*([\[{\"'])")
_DQ_LINE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_SQ_LINE = re.compile(r"'(?:[^'\n]|'')*'")
_DOC_START = re.compile(r"---(?=[ \t\n]|$)")
_PREAMBLE = cast(_Matches, re.compile(r"(?:[ \t]*(?:[#%][^\n]*)?\n)*"))
_DQ_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.S)
_DQ_SIMPLE = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
              "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
              "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_MAYBE_NOT_STR = re.compile(r"[-+.~0-9]|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$")

_MAP_SCAN: dict[int, re.Pattern] = {}
_SEQ_SCAN: dict[int, re.Pattern] = {}
_DOC_MARK = r"(?:---|\.\.\.)(?=[ \t\n]|\Z)"


def _map_scan(c: int) -> re.Pattern:
    """One pass over a block mapping with keys at column ``c``: its key lines, then its end.

    Each match starts at a newline: ``end`` is the first line indented less than ``c`` (or a
    document marker); ``simple`` is a plain key that needs no further reading (the match
    ends just after its ``:``); ``other`` is any other key line (quoted, ``?``...).
    """
    r = _MAP_SCAN.get(c)
    if r is None:
        end = _DOC_MARK + (r"| {0,%d}+[^ \t\n#]" % (c - 1) if c > 0 else "")
        # every match has at most c spaces then a non-space: the lookahead right after the
        # newline rejects a deeper line in one step (most lines of a big mapping's region)
        r = _MAP_SCAN[c] = re.compile(
            r"\n(?= {0,%d}+[^ ])"
            r"(?:(?P<end>%s)| {%d}(?:(?P<simple>[^ \t\n\"'#&!*?\[\]{}|>@`%%,:-][^:\n#]*?)"
            r"[ \t]*:(?=[ \t\n]|\Z)(?:(?=[ \t]*(?:[&!][^ \t\n]*[ \t]+)*(?P<vs>[\[{\"'])))?"
            r"|(?P<other>(?=[^ \t\n#])(?![-:](?:[ \t\n]|\Z)))))"
            % (c, end, c))
    return r


def _seq_scan(c: int) -> re.Pattern:
    """One pass over a block sequence with ``-`` at column ``c``: its items, then its end."""
    r = _SEQ_SCAN.get(c)
    if r is None:
        end = _DOC_MARK + (r"| {0,%d}+[^ \t\n#]" % (c - 1) if c > 0 else "")
        end += r"| {%d}(?!-(?:[ \t\n]|\Z))[^ \t\n#]" % c
        r = _SEQ_SCAN[c] = re.compile(r"\n(?= {0,%d}+[^ ])(?:(?P<end>%s)| {%d}(?P<item>-)"
                                      r"(?=[ \t\n]|\Z))" % (c, end, c))
    return r


def _unescape_dq(body: str) -> str:
    if "\\" not in body and "\n" not in body:
        return body

    def rep(m: re.Match) -> str:
        e = m.group(1)
        if len(e) > 1:
            return chr(int(e[1:], 16))
        if e in _DQ_SIMPLE:
            return _DQ_SIMPLE[e]
        raise _Unsupported(f"escape \\{e}")

    if "\n" in body:
        raise _Unsupported("multi-line quoted key")
    return _DQ_ESCAPE.sub(rep, body)


def _plain_key(raw: str) -> str:
    """The JSON key a plain YAML key becomes (as parse.py's parser and normalizer make it)."""
    if not _MAYBE_NOT_STR.match(raw):
        return raw
    from toolcat.document.parse import yaml_module

    yaml_rs = yaml_module()

    if LOOSE_NUMBER.fullmatch(raw.replace("_", "")) and not CORE_NUMBER.fullmatch(raw):
        return raw  # 1_000, 0b1...: strings in YAML 1.2, and so in the parsed data
    try:
        (k,) = yaml_rs.loads("- " + raw, parse_datetime=False)  # resolved like any scalar
        return js_key(k)
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001
        raise _Unsupported(f"plain key {raw!r}") from None


class _YamlIndex(Index):
    def __init__(self, text: str) -> None:
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        super().__init__(text)
        self.n = len(text)
        self._maps: dict[int, _Lazy] = {}   # mapping start -> its entries
        self._seqs: dict[int, list] = {}
        self._flows: dict[int, Any] = {}
        self._values: dict[tuple, tuple] = {}
        self._root: tuple | None = None
        self._fallback: _FallbackIndex | None = None
        self._json: _JsonIndex | None = None
        self.dups: list[tuple[str, int]] = []   # (key, offset) of repeated mapping keys

    # ------------------------------------------------------------------ helpers
    def _col(self, i: int) -> int:
        return i - (self.text.rfind("\n", 0, i) + 1)

    def _next_line(self, i: int) -> int:
        j = self.text.find("\n", i)
        return self.n if j < 0 else j + 1

    def _char(self, i: int) -> str:
        return self.text[i] if i < self.n else ""

    def _is_blank_after(self, i: int) -> bool:
        """True when ``text[i]`` is a separator (space, tab, newline) or the end."""
        return i >= self.n or self.text[i] in " \t\n"

    # ------------------------------------------------------------------ nodes
    def root(self) -> tuple:
        if self._root is None:
            t = self.text
            i = _PREAMBLE.match(t).end()
            m = _DOC_START.match(t, i)
            if m:
                self._root = self._value(m.end(), -1, True, False)
            else:
                self._root = self._value(i, -1, True, False)
        return self._root

    def _value(self, q: int, parent: int, same_line_block: bool, indentless: bool) -> tuple:
        """The node whose text starts at or after offset ``q`` (just after an indicator)."""
        key = (q, parent, same_line_block, indentless)
        got = self._values.get(key)
        if got is not None:
            return got
        t = self.text
        i = _SP.match(t, q).end()
        report = None
        while i < self.n and t[i] in "&!":
            if report is None:
                report = i
            i = _PROPS.match(t, i).end()
        c = self._char(i)
        if c in ("", "\n", "#"):
            j = self._next_line(i) if c else i
            m = _NEXT_CONTENT.match(t, j)
            nxt = m.end()
            node = None
            if nxt < self.n:
                ind = len(m.group(1))
                if ind > parent:
                    if t[nxt] == "\t":
                        raise _Unsupported("tab indentation")
                    node = self._content(nxt, nxt if report is None else report, True)
                elif indentless and ind == parent and t[nxt] == "-" and self._is_blank_after(nxt + 1):
                    node = (SEQ, nxt if report is None else report, nxt)
            if node is None:
                node = (NULL, q if report is None else report, q)
        else:
            node = self._content(i, i if report is None else report, same_line_block)
        self._values[key] = node
        return node

    def _content(self, i: int, report: int, block: bool) -> tuple:
        t = self.text
        c = t[i]
        if c == "*":
            name = _ANCHOR_NAME.match(t, i + 1)
            if not name:
                raise _Unsupported("alias")
            return self._anchor(name.group(), i)
        if c in "[{":
            return (FLOW, report, i)
        if c in "|>":
            return (SCALAR, report, i)
        if block:
            if c in "-?" and self._is_blank_after(i + 1):
                return (SEQ if c == "-" else MAP, report, i)
            if self._key_colon(i) is not None:
                return (MAP, report, i)
        return (SCALAR, report, i)

    def _key_colon(self, i: int) -> int | None:
        """Offset of the ``:`` when an implicit key starts at ``i`` (same line), else None."""
        t = self.text
        c = t[i]
        if c in "\"'":
            m = (_DQ_LINE if c == '"' else _SQ_LINE).match(t, i)
            if not m:
                return None
            j = _SP.match(t, m.end()).end()
            if j < self.n and t[j] == ":" and self._is_blank_after(j + 1):
                return j
            return None
        eol = t.find("\n", i)
        if eol < 0:
            eol = self.n
        m = _KEY_COLON.search(t, i, eol)
        if not m:
            return None
        if _COMMENT_IN_KEY.search(t, i, m.start()):
            return None
        return m.start()

    def _anchor(self, name: str, before: int) -> tuple:
        t = self.text
        pat = re.compile("&" + re.escape(name) + r"(?=[ \t\n,\[\]{}]|$)")
        hits = [m.start() for m in pat.finditer(t, 0, before)]
        for a in reversed(hits):
            prev = t[a - 1] if a > 0 else "\n"
            if prev in " \t\n[{,":
                return self._value(a, self._line_indent(a), True, False)
        raise _Unsupported(f"anchor {name!r} not found")

    def _line_indent(self, i: int) -> int:
        s = self.text.rfind("\n", 0, i) + 1
        return _SP.match(self.text, s).end() - s

    # ------------------------------------------------------------------ collections
    def _map(self, s: int) -> dict:
        """Every entry of the block mapping whose first key starts at ``s``."""
        return self._lazy_map(s).all()

    def _map_get(self, s: int, tok: str) -> tuple | None:
        """The entry ``tok`` of the mapping at ``s``, read only as far as its first ``tok``
        (:class:`_Lazy`)."""
        return self._lazy_map(s).get(tok)

    def _lazy_map(self, s: int) -> _Lazy:
        lz = self._maps.get(s)
        if lz is None:
            entries: dict[str, tuple] = {}
            lz = self._maps[s] = _Lazy(entries, self._scan_map(s, entries))
        return lz

    def _scan_map(self, s: int, entries: dict) -> Iterator[str]:
        """Read the entries of the mapping at ``s`` into ``entries``, yielding each new key."""
        t = self.text
        c = self._col(s)
        key, ent = self._entry(s, c)
        entries[key] = ent
        yield key
        pos = self._resume(s, ent[1])
        pat = _map_scan(c)
        while pos >= 0:
            restart = -1
            for m in pat.finditer(t, pos):
                key = m.group("simple")
                if key is not None:
                    if _MAYBE_NOT_STR.match(key):
                        key = _plain_key(key)
                    ent = ("implicit", m.end())
                    koff = m.start("simple")
                    multi = m.start("vs") >= 0
                elif m.start("end") >= 0:
                    break
                else:
                    key, ent = self._entry(m.end(), c)
                    koff = m.end()
                    multi = True
                new = key not in entries
                if new:
                    entries[key] = ent
                else:
                    self.dups.append((key, koff))
                if multi:
                    nxt = self._resume(m.end(), ent[1])
                    if nxt != t.find("\n", m.end()):  # the value runs past its line
                        restart = nxt
                if new:
                    yield key    # (once its value is passed: a lookup stops, the next resumes)
                if restart >= 0:
                    break
            pos = restart

    def _resume(self, line_pos: int, vpos: int | None) -> int:
        """Where to look for the next entry: the newline ending the value at ``vpos``.

        A flow collection or quoted scalar may run over several lines, even onto lines no
        more indented than its key (``example: {`` ... ``}``): those lines are skipped.
        """
        t = self.text
        at = line_pos if vpos is None else vpos
        if vpos is not None:
            m = _VALUE_START.match(t, vpos)
            if m:
                i = m.start(1)
                eol = t.find("\n", i)
                if eol < 0:
                    return -1
                ch = t[i]
                if ch in "[{":
                    line = t[i:eol]
                    if "'" not in line and '"' not in line and "#" not in line and \
                            line.count("[") == line.count("]") and \
                            line.count("{") == line.count("}") and line.rstrip()[-1:] in "]}":
                        return eol  # a flow collection closed on its own line
                    end = _FlowParser(self).parse(i)
                else:
                    qm = (_DQ_ANY if ch == '"' else _SQ_ANY).match(t, i)
                    if qm is None:
                        raise _Unsupported("unterminated quoted scalar")
                    end = qm.end()
                if end > eol:
                    at = end
        return t.find("\n", at)

    def _entry(self, k: int, c: int) -> tuple[str, tuple]:
        """Read the mapping entry whose key starts at ``k``: (JSON key, (how, value offset))."""
        t = self.text
        ch = t[k]
        if ch in "&!*[{":
            raise _Unsupported("key with properties, alias or collection")
        if ch == "?" and self._is_blank_after(k + 1):
            kstart = _SP.match(t, k + 1).end()
            key, kend = self._scalar_key(kstart)
            j = _SP.match(t, kend).end()
            if j < self.n and t[j] not in "\n#":
                raise _Unsupported("complex explicit key")
            nxt = _NEXT_CONTENT.match(t, self._next_line(kstart))
            v = nxt.end()
            if len(nxt.group(1)) == c and t.startswith(":", v) and self._is_blank_after(v + 1):
                return key, ("explicit", v + 1)
            if len(nxt.group(1)) > c:
                raise _Unsupported("multi-line explicit key")
            return key, ("explicit", None)
        colon = self._key_colon(k)
        if colon is None:
            raise _Unsupported("no key on a mapping line")
        key, kend = self._scalar_key(k)
        if _SP.match(t, kend).end() != colon:
            raise _Unsupported("key syntax")
        return key, ("implicit", colon + 1)

    def _scalar_key(self, k: int) -> tuple[str, int]:
        """Decode the scalar key starting at ``k``: (JSON key, end offset)."""
        t = self.text
        c = t[k]
        if c == '"':
            m = _DQ_LINE.match(t, k)
            if not m:
                raise _Unsupported("multi-line key")
            return _unescape_dq(t[k + 1:m.end() - 1]), m.end()
        if c == "'":
            m = _SQ_LINE.match(t, k)
            if not m:
                raise _Unsupported("multi-line key")
            return t[k + 1:m.end() - 1].replace("''", "'"), m.end()
        eol = t.find("\n", k)
        if eol < 0:
            eol = self.n
        m = _KEY_COLON.search(t, k, eol)
        end = m.start() if m else eol
        raw = t[k:end].rstrip(" \t")
        if not m:  # explicit key: the rest of the line, minus a comment
            cm = _COMMENT_IN_KEY.search(t, k, eol)
            if cm:
                raw = t[k:cm.start()].rstrip(" \t")
        return _plain_key(raw), k + len(raw)

    def _seq(self, s: int) -> list:
        got = self._seqs.get(s)
        if got is not None:
            return got
        t = self.text
        pat = _seq_scan(self._col(s))
        items = [s]
        pos = self._resume(s, s + 1)
        while pos >= 0:
            m = pat.search(t, pos)
            if m is None or m.group("item") is None:
                break
            d = m.start("item")
            items.append(d)
            pos = self._resume(d, d + 1)
        self._seqs[s] = items
        return items

    def _child(self, node: tuple, tok: str, depth: int = 0) -> tuple | None:
        kind, _report, s = node
        if kind == MAP:
            ent = self._map_get(s, tok)
            c = self._col(s)
            if ent is None:
                return self._merged(node, tok, depth)
            how, q = ent
            if how == "explicit":
                if q is None:
                    return None
                return self._value(q, c, True, True)
            return self._value(q, c, False, True)
        if kind == SEQ:
            items = self._seq(s)
            i = _array_index(tok, len(items))
            if i is None:
                return None
            return self._value(items[i] + 1, self._col(s), True, False)
        if kind == FLOW:
            return self._flow_child(s, tok)
        return None

    def _merged(self, node: tuple, tok: str, depth: int) -> tuple | None:
        """Look ``tok`` up in the mappings merged into ``node`` with ``<<``."""
        if depth > 20 or "<<" == tok:
            return None
        if "<<" not in self._map(node[2]):
            return None
        src = self._child(node, "<<", depth + 1)
        if src is None:
            return None
        sources = [src]
        if src[0] in (SEQ, FLOW) and (src[0] == SEQ or self.text[src[2]] == "["):
            sources = []
            n = len(self._seq(src[2])) if src[0] == SEQ else len(self._flow(src[2]))
            for i in range(n):
                sub = self._child(src, str(i), depth + 1)
                if sub is not None:
                    sources.append(sub)
        for m in sources:
            got = self._child(m, tok, depth + 1)
            if got is not None:
                return got
        return None

    # ------------------------------------------------------------------ flow
    def _flow(self, s: int) -> Any:
        got = self._flows.get(s)
        if got is None:
            _FlowParser(self).parse(s)
            got = self._flows[s]
        return got

    def _flow_child(self, s: int, tok: str) -> tuple | None:
        coll = self._flow(s)
        if isinstance(coll, dict):
            ent = coll.get(tok)
        else:
            i = _array_index(tok, len(coll))
            ent = None if i is None else coll[i]
        if ent is None:
            return None
        if ent[0] == "alias":
            return self._anchor(ent[1], ent[2])
        return ent

    # ------------------------------------------------------------------ answer
    def _as_json(self) -> _JsonIndex | None:
        """A YAML file that is JSON (a flow document) is indexed as JSON (much faster)."""
        if self._json is None:
            import json

            try:
                json.loads(self.text)
            except (ValueError, RecursionError):
                self._json = False  # type: ignore[assignment]
            else:
                self._json = _JsonIndex(self.text)
        return self._json or None

    def offset(self, pointer: str) -> int:
        node = self.root()
        if node[0] == FLOW and node[2] == node[1]:
            j = self._as_json()
            if j is not None:
                return j.offset(pointer)
        return self.walk(pointer, node, self._child)[1]

    def locate(self, pointer: str) -> tuple[int, int] | None:
        if self.empty:
            return None
        try:
            return self.line_col(self.offset(pointer))
        except RecursionError:
            return None
        except MemoryError:   # never a best effort: one line, exit 2 (cli)
            raise
        except Exception:  # _Unsupported, or text the scanner misreads
            if STRICT:
                raise
            if self._fallback is None:
                self._fallback = _FallbackIndex(self.text)
            return self._fallback.locate(pointer)


# --------------------------------------------------------------------------- duplicate keys

def find_duplicate_key(text: str, syntax: str, key: str | None = None) -> tuple[int, int] | None:
    """1-based position of a repeated mapping key (named ``key``, when given), or None.

    For error messages: the parsers reject duplicate keys without saying where. Reads the
    whole text (a fraction of a second on a multi-megabyte file).
    """
    try:
        if syntax == "json":
            return _json_duplicate(text, key)
        return _yaml_duplicate(text, key)
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001 - best effort: the caller reports the key without a line
        if syntax != "json" and len(text) <= 512 * 1024:
            return _fallback_duplicate(text, key)
        return None


def _json_duplicate(text: str, key: str | None) -> tuple[int, int] | None:
    idx = _JsonIndex(text)
    for p in idx._pos:
        if idx.m[p] != "{":
            continue
        seen: set[str] = set()
        for k, off in idx.object_keys(p):
            if k in seen and (key is None or k == key):
                return idx.line_col(off)
            seen.add(k)
    return None


def _yaml_duplicate(text: str, key: str | None) -> tuple[int, int] | None:
    idx = _YamlIndex(text)

    def hit() -> tuple[int, int] | None:
        for k, off in idx.dups:
            if key is None or k == key:
                return idx.line_col(off)
        return None

    stack = [idx.root()]
    seen: set[tuple] = set()
    while stack:
        node = stack.pop()
        kind, _r, s = node
        if (kind, s) in seen or kind in (SCALAR, NULL):
            continue
        seen.add((kind, s))
        if kind == MAP:
            toks = list(idx._map(s))
        elif kind == SEQ:
            toks = [str(i) for i in range(len(idx._seq(s)))]
        else:
            coll = idx._flow(s)
            toks = list(coll) if isinstance(coll, dict) else [str(i) for i in range(len(coll))]
        found = hit()
        if found:
            return found
        for tok in reversed(toks):
            child = idx._child(node, tok)
            if child is not None and child[0] in (MAP, SEQ, FLOW):
                stack.append(child)
    return hit()


def _fallback_duplicate(text: str, key: str | None) -> tuple[int, int] | None:
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.nodes import MappingNode, SequenceNode

        node = YAML(typ="safe", pure=True).compose(text)
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001
        return None
    stack = [node]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, MappingNode):
            names: set[str] = set()
            for k, v in n.value:
                name = getattr(k, "value", None)
                if isinstance(name, str):
                    if name in names and (key is None or name == key):
                        return k.start_mark.line + 1, k.start_mark.column + 1
                    names.add(name)
                stack.append(v)
        elif isinstance(n, SequenceNode):
            stack.extend(n.value)
    return None


# --------------------------------------------------------------------------- flow parser

_FLOW_SKIP = cast(_Matches, re.compile(r"(?:[ \t\n]+|(?<=[ \t\n])#[^\n]*)*"))
_FLOW_PLAIN = re.compile(
    r"(?:[^ \t\n,\[\]{}#:'\"]|[:?-](?![ \t\n,\[\]{}]))"
    r"(?:[^ \t\n,\[\]{}:]|:(?![ \t\n,\[\]{}])|[ \t\n]+(?=[^ \t\n,\[\]{}#:]|:(?![ \t\n,\[\]{}])))*")
_DQ_ANY = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SQ_ANY = re.compile(r"'(?:[^']|'')*'")


class _FlowParser:
    """Parse one YAML flow collection, recording its (and its children's) entries."""

    def __init__(self, idx: _YamlIndex) -> None:
        self.idx = idx
        self.t = idx.text

    def skip(self, i: int) -> int:
        return _FLOW_SKIP.match(self.t, i).end()

    def parse(self, s: int) -> int:
        """Parse the collection opened at ``s``; return the offset after its closer."""
        t = self.t
        is_map = t[s] == "{"
        closer = "}" if is_map else "]"
        out: Any = {} if is_map else []
        i = self.skip(s + 1)
        while t[i] != closer:
            if is_map:
                if t[i] == "?" and t[i + 1] in " \t\n":
                    i = self.skip(i + 1)
                kstart = i
                knode, i = self.node(i)
                if knode[0] != SCALAR or knode[1] != knode[2]:
                    raise _Unsupported("flow key that is not a scalar")
                key = self.key_text(kstart, i)
                i = self.skip(i)
                if t[i] == ":":
                    i = self.skip(i + 1)
                    if t[i] in ",}":
                        val = (NULL, i, i)
                    else:
                        val, i = self.node(i)
                        i = self.skip(i)
                else:
                    val = (NULL, i, i)
                if key in out:
                    self.idx.dups.append((key, kstart))
                else:
                    out[key] = val
            else:
                val, i = self.node(i)
                i = self.skip(i)
                if t[i] == ":":
                    raise _Unsupported("single-pair mapping in a flow sequence")
                out.append(val)
            if t[i] == ",":
                i = self.skip(i + 1)
            elif t[i] != closer:
                raise _Unsupported(f"unexpected {t[i]!r} in a flow collection")
        self.idx._flows[s] = out
        return i + 1

    def node(self, i: int) -> tuple[tuple, int]:
        t = self.t
        report = None
        while t[i] in "&!":
            if report is None:
                report = i
            m = _ANCHOR_NAME.match(t, i + 1)
            i = self.skip(m.end() if m else i + 1)
        c = t[i]
        r = i if report is None else report
        if c in "[{":
            return (FLOW, r, i), self.parse(i)
        if c == "*":
            m = _ANCHOR_NAME.match(t, i + 1)
            if m is None:
                raise _Unsupported("alias without a name")
            return ("alias", m.group(), i), m.end()
        if c in "\"'":
            m = (_DQ_ANY if c == '"' else _SQ_ANY).match(t, i)
            if m is None:
                raise _Unsupported("quoted scalar without its closing quote")
            return (SCALAR, r, i), m.end()
        if c in ",]}:":
            return (NULL, r, i), i
        m = _FLOW_PLAIN.match(t, i)
        if not m or m.end() == i:
            raise _Unsupported(f"flow scalar at {i}")
        return (SCALAR, r, i), m.end()

    def key_text(self, start: int, end: int) -> str:
        t = self.t
        raw = t[start:end]
        if raw.startswith('"'):
            return _unescape_dq(raw[1:-1])
        if raw.startswith("'"):
            return raw[1:-1].replace("''", "'")
        return _plain_key(" ".join(raw.split()))


# --------------------------------------------------------------------------- exact fallback

class _FallbackIndex(Index):
    """ruamel.yaml's round-trip composer: exact marks, slow. For what the scanners can't place."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._doc: Any = None
        self._failed = False

    def _load(self) -> Any:
        if self._doc is None and not self._failed:
            try:
                from ruamel.yaml import YAML

                y = YAML(typ="rt", pure=True)
                y.allow_duplicate_keys = True
                self._doc = y.load(self.text)
            except MemoryError:   # never a best effort: one line, exit 2 (cli)
                raise
            except Exception:  # noqa: BLE001
                self._failed = True
        return self._doc

    def locate(self, pointer: str) -> tuple[int, int] | None:
        doc = self._load()
        if doc is None:
            return None
        lc = getattr(doc, "lc", None)
        pos = (lc.line, lc.col) if lc is not None else (0, 0)
        node = doc
        for tok in _tokens(pointer):
            if isinstance(node, dict):
                found = None
                for k in node:
                    try:
                        if js_key(k) == tok:
                            found = k
                            break
                    except TypeError:
                        continue
                if found is None:
                    break
                lcd = getattr(node, "lc", None)
                data = lcd.data.get(found) if lcd is not None else None
                if data is None:
                    break
                pos = (data[2], data[3])
                node = node[found]
            elif isinstance(node, list):
                i = _array_index(tok, len(node))
                lcd = getattr(node, "lc", None)
                data = lcd.data.get(i) if (lcd is not None and i is not None) else None
                if data is None or i is None:
                    break
                pos = (data[0], data[1])
                node = node[i]
            else:
                break
        return pos[0] + 1, pos[1] + 1
