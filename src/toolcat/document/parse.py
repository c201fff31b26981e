"""Read a file into plain JSON data, safely.

Everything that can go wrong with bytes on disk ends here as an :class:`InputError` with
the file and, where known, the line and column: missing or oversized files, binary or
non-UTF-8 content, malformed JSON/YAML, duplicate keys, YAML tags that would build
objects, alias bombs, nesting deeper than the limit, multi-document YAML, values JSON
cannot hold (``.inf``, binary scalars).

Parsers: stdlib ``json`` (with a duplicate-key hook) for JSON; the Rust-backed ``yaml-rs``
for YAML (YAML 1.2: ``yes`` and ``2024-10-01`` stay strings, big integers stay exact).
Neither reports node positions; :class:`SourceText` computes them later, lazily, only when
a finding needs a line number.

The result is normalized to what JavaScript's ``JSON.parse`` would give: string keys,
integral floats below 2**53 become ints (``1.0`` -> ``1``), YAML merge keys (``<<``) applied.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from toolcat.document.scalars import (
    CORE_NUMBER,
    INT64_MIN,
    LOOSE_NUMBER,
    UINT64_END,
    BigInt,
    big_int,
    js_key,
)
from toolcat.document.source import SourceText
from toolcat.errors import InputError
from toolcat.stack import call_bounded

DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_DEPTH = 256
# Alias expansion budget: YAML events replayed through aliases (a billion-laughs file
# needs 10^9; real specs need none).
DEFAULT_MAX_ALIAS_EVENTS = 1_000_000

JSON = "json"
YAML = "yaml"


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one run, passed to every reader (nothing global): the largest
    file, the deepest nesting, the YAML alias expansion budget."""

    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_depth: int = DEFAULT_MAX_DEPTH
    max_alias_events: int = DEFAULT_MAX_ALIAS_EVENTS

    @classmethod
    def from_env(cls, max_file_size: int | None = None) -> Limits:
        """The defaults, with ``TOOLCAT_MAX_FILE_SIZE`` / ``TOOLCAT_MAX_DEPTH`` where set;
        ``max_file_size`` (``--max-file-size``) wins over the environment. A value that is
        not a positive integer (or is too large to be one) is a usage error."""
        size = max_file_size if max_file_size is not None else _env_int(
            "TOOLCAT_MAX_FILE_SIZE", DEFAULT_MAX_FILE_SIZE)
        return cls(max_file_size=size, max_depth=_env_int("TOOLCAT_MAX_DEPTH", DEFAULT_MAX_DEPTH))


#: The largest value a size or depth limit may take (a file of 8 EiB is not coming).
MAX_LIMIT = 2**63 - 1


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    from toolcat.errors import UsageError
    from toolcat.terminal import shown

    v = raw.strip().replace("_", "")
    if not v.isascii() or not v.isdigit() or int(v) < 1 or int(v) > MAX_LIMIT:
        raise UsageError(f"environment variable {name} must be a positive whole number of "
                         f"{'bytes' if 'SIZE' in name else 'levels'} (got {shown(raw)!r})")
    return int(v)


def _limits(limits: Limits | None) -> Limits:
    return limits if limits is not None else Limits.from_env()


# --------------------------------------------------------------------------- reading

def read_bytes(path: str, limits: Limits | None = None, exact: bool = False) -> bytes:
    """The bytes of ``path`` (``-``: stdin) through the one reader (regular files only, the
    run's size limit; ``exact``: a checked real path, never reached through a link):
    :func:`toolcat.files.read_regular`."""
    from toolcat.files import read_regular

    return read_regular(path, _limits(limits).max_file_size, exact=exact)


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 bytes to text, or a clear error for binary and other encodings."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        raise InputError("file is UTF-32 encoded (byte order mark); toolcat reads UTF-8", path)
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("file is UTF-16 encoded (byte order mark); toolcat reads UTF-8", path)
    if not data.strip():
        raise InputError("file is empty", path)
    nul = data.find(b"\x00")
    if nul != -1:
        line, col = _line_col_bytes(data, nul)
        raise InputError(f"binary content (NUL byte at offset {nul}); not a JSON or YAML catalog",
                         path, line, col)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col_bytes(data, e.start)
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}); "
            "save the file as UTF-8", path, line, col) from None


def _line_col_bytes(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def guess_syntax(path: str, text: str) -> str:
    low = path.lower()
    if low.endswith((".yaml", ".yml")):
        return YAML
    if low.endswith((".json", ".snap", ".jsonl")):
        return JSON
    first = text.lstrip()[:1]
    return JSON if first in ("{", "[") else YAML


def load_file(path: str, syntax: str | None = None, limits: Limits | None = None,
              exact: bool = False) -> tuple[Any, SourceText]:
    """Read and parse ``path`` (``-`` for stdin) into normalized JSON data (``limits``: the
    run's, default :meth:`Limits.from_env`; ``exact``: see :func:`read_bytes`)."""
    lim = _limits(limits)
    data = read_bytes(path, lim, exact)
    text = decode_text(data, path)
    doc, used = _parse(text, path, syntax or guess_syntax(path, text), lim)
    return doc, SourceText(path, text, used)


def parse_text(text: str, path: str, syntax: str, limits: Limits | None = None) -> Any:
    """Parse ``text`` as ``syntax`` (a JSON-looking file without a .json name may be YAML)."""
    return _parse(text, path, syntax, _limits(limits))[0]


def _parse(text: str, path: str, syntax: str, lim: Limits) -> tuple[Any, str]:
    if syntax == JSON:
        try:
            return parse_json(text, path, lim), JSON
        except InputError:
            # A file not named *.json that starts like JSON may still be YAML (flow style);
            # a file named *.json is JSON and nothing else.
            if path.lower().endswith((".json", ".snap", ".jsonl")):
                raise
            try:
                return parse_yaml(text, path, lim), YAML
            except InputError:
                pass
            raise
    return parse_yaml(text, path, lim), YAML


def yaml_module() -> Any:
    """The YAML parser's module (yaml_rs), imported once. Its allocator (mimalloc) would
    reserve 1 GiB of address space when it loads and keep what a parse used: under an
    address-space limit (``ulimit -v``) that left half of 2 GiB for the work, and a large
    file ran out of memory where CPython cannot recover (an abort, not one line). Loaded with
    no reservation up front (``MIMALLOC_ARENA_RESERVE=0``, read when it loads; the variable
    is not left for the servers toolcat starts): 100,000 operations in 38 MB of YAML parse
    with a peak of 0.76 GB of address space instead of 1.47 GB, at the same speed."""
    mod = sys.modules.get("yaml_rs")
    if mod is not None:
        return mod
    had = os.environ.get("MIMALLOC_ARENA_RESERVE")
    if had is None:
        os.environ["MIMALLOC_ARENA_RESERVE"] = "0"
    try:
        import yaml_rs
    finally:
        if had is None:
            os.environ.pop("MIMALLOC_ARENA_RESERVE", None)
    return yaml_rs


# --------------------------------------------------------------------------- JSON

# Deeper than this, the C JSON scanner could exhaust the C stack whatever the depth limit says.
_MAX_PARSER_DEPTH = 5000


class _Duplicate(ValueError):
    pass


def _pairs_hook(pairs: list) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        first: dict = {}
        for k, v in pairs:
            if k in first:
                if not same_scalar(first[k], v):
                    raise _Duplicate(k)
            else:
                first[k] = v
    return d


def same_scalar(a: Any, b: Any) -> bool:
    """Are ``a`` and ``b`` one JSON scalar (null, a boolean, a number, a string), of one type?
    A key repeated with such a value reads the same in every parser (the first value or the
    last), so it is read once (real files repeat ``"meta": null``); a key repeated with
    another value, or with an object or array, is refused: parsers disagree on which wins."""
    return type(a) is type(b) and (a is None or isinstance(a, (bool, int, float, str))) \
        and a == b


class _NotJSON(ValueError):
    pass


def _parse_float(s: str) -> Any:
    f = float(s)
    if f != f or f in (float("inf"), float("-inf")):
        raise _NotJSON(s)
    if f.is_integer() and abs(f) < 2**53:
        return int(f)
    return f


def _parse_int(s: str) -> Any:
    v = int(s)
    return v if len(s) < 19 else big_int(v)


def _reject_constant(s: str) -> Any:
    raise _NotJSON(s)


def parse_json(text: str, path: str, limits: Limits | None = None) -> Any:
    # The C scanner counts its nesting against the recursion limit: bound it to the depth
    # limit (toolcat.stack.call_bounded: the limit is the interpreter's, shared by threads)
    depth = min(_limits(limits).max_depth, _MAX_PARSER_DEPTH)
    return call_bounded(depth + 21, _parse_json, text, path, depth)


def _parse_json(text: str, path: str, depth: int) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook, parse_float=_parse_float,
                          parse_int=_parse_int, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", path, e.lineno, e.colno) from None
    except _Duplicate as e:
        key = e.args[0]
        pos = _duplicate_position(text, JSON, key)
        raise InputError(f"duplicate key {key!r} in an object", path, *pos) from None
    except _NotJSON as e:
        tok = e.args[0]
        what = "is not a JSON number" if tok in ("NaN", "Infinity", "-Infinity") else \
            "is out of the range of a JSON number (a double)"
        raise InputError(f"invalid JSON: {tok} {what}", path, *_token_position(text, tok)) \
            from None
    except RecursionError:
        raise InputError(f"nesting deeper than {depth} levels", path,
                         *_deep_position(text, depth), kind="too-deep") from None
    except ValueError as e:
        msg = _one_line(e)
        if "integer string conversion" in msg:
            msg = "a number with more than 4300 digits"
        raise InputError(f"invalid JSON: {msg}", path) from None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200]


def _duplicate_position(text: str, syntax: str, key: Any) -> tuple[int | None, int | None]:
    from toolcat.document.positions import find_duplicate_key

    try:
        k = js_key(key)
    except TypeError:
        k = None
    pos = find_duplicate_key(text, syntax, k)
    return pos if pos else (None, None)


def _token_position(text: str, tok: str) -> tuple[int | None, int | None]:
    """Where a number token first appears outside strings (for NaN / 1e999 errors)."""
    masked = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    m = re.search(r"(?<![\w.+-])" + re.escape(tok) + r"(?![\w.])", masked)
    if not m:
        return None, None
    line = text.count("\n", 0, m.start()) + 1
    return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1


def _deep_position(text: str, depth: int) -> tuple[int | None, int | None]:
    """Where JSON nesting first passes ``depth`` (strings ignored)."""
    level = 0
    in_str = esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            level += 1
            if level > depth:
                line = text.count("\n", 0, i) + 1
                return line, i - (text.rfind("\n", 0, i) + 1) + 1
        elif ch in "]}":
            level -= 1
    return None, None


# --------------------------------------------------------------------------- YAML

_TAG_TOKEN = re.compile(r"![^ \t\r\n,\[\]{}]*")
_CORE_TAGS = frozenset(["!", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq"] + [
    f"!<tag:yaml.org,2002:{t}>" for t in ("str", "int", "float", "bool", "null", "map", "seq")])
_YAML_POS = re.compile(r"line (\d+), column (\d+)")
# Block nesting needs indentation (or "- " / "? " / ": " indicators, anchors, tags) on a
# line: this many leading structural characters means nesting too deep to parse safely
# (yaml-rs has no depth limit for block collections and overflows the C stack near 15,000).
_MAX_BLOCK_PREFIX = 1000
_BLOCK_PREFIX = re.compile(r"(?:[ \t]|[-?:](?=[ \t])){%d}" % _MAX_BLOCK_PREFIX)


_PREFIX_CHARS = bytes(ord("a") if c in b" \t-?:" else ord("b") for c in range(256))


def _too_deep_line(text: str) -> int | None:
    """Line number of a line whose block-structure prefix is too long to parse safely."""
    if len(text) < _MAX_BLOCK_PREFIX:
        return None
    # fast: is there any run of that many indentation/indicator characters at all?
    flags = text.encode("utf-8", "surrogatepass").translate(_PREFIX_CHARS)
    if flags.find(b"a" * _MAX_BLOCK_PREFIX) == -1:
        return None
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if len(line) >= _MAX_BLOCK_PREFIX and _BLOCK_PREFIX.match(line):
            return n
    return None


def _second_document(text: str) -> int | None:
    """Offset of a document marker that starts a second YAML document, or None."""
    markers = []
    i = 0 if text.startswith("---") else text.find("\n---")
    while i != -1:
        at = i if (i == 0 and text.startswith("---")) else i + 1
        nxt = text[at + 3:at + 4]
        if nxt in ("", " ", "\t", "\r", "\n"):
            markers.append(at)
            if len(markers) > 1:
                return markers[-1]
        i = text.find("\n---", at + 3)
    if markers and text[:markers[0]].strip() and not _only_directives(text[:markers[0]]):
        return markers[0]
    return None


def _tag_candidates(text: str) -> dict[int, str]:
    """Offsets of the ``!`` of every place where a non-core tag may start a node.

    Generous (a ``!`` inside a string after ``: `` counts too): _check_tags sorts them out.
    """
    out: dict[int, str] = {}
    i = text.find("!")
    while i != -1:
        prev = text[i - 1] if i else "\n"
        if prev in " \t\n[{,":
            j = i - 1
            while j >= 0 and text[j] in " \t":
                j -= 1
            before = text[j] if j >= 0 else "\n"
            ok = before in "\n\r-?:[{,"
            if not ok and j >= 2 and text[j - 2:j + 1] == "---":
                ok = True
            if not ok and j >= 0:  # after an anchor: "&name !tag"
                k = j
                while k >= 0 and text[k] not in " \t\n":
                    k -= 1
                ok = text[k + 1:k + 2] == "&"
            if ok:
                m = _TAG_TOKEN.match(text, i)
                assert m is not None        # (at a "!")
                tag = m.group()
                if tag not in _CORE_TAGS:
                    out[i] = tag
        i = text.find("!", i + 1)
    return out


def parse_yaml(text: str, path: str, limits: Limits | None = None) -> Any:
    yaml_rs = yaml_module()

    lim = _limits(limits)
    if "\r" in text:
        # YAML's line breaks are LF, CRLF and a lone CR, and a parser reads each as LF
        # (YAML 1.2, 5.4); yaml-rs does not see a lone CR as one (two documents would pass
        # as one). Positions count lines the same way (SourceText.lines).
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    deep = _too_deep_line(text)
    if deep:
        raise InputError(f"nesting too deep (more than {_MAX_BLOCK_PREFIX} columns of "
                         "indentation and block indicators on one line)", path, deep, 1)
    second = _second_document(text)
    if second is not None:
        raise InputError("more than one YAML document in the file; a catalog is one document",
                         path, text.count("\n", 0, second) + 1, 1)
    tags = _tag_candidates(text) if "!" in text else None
    try:
        doc = _yaml_rs_loads(text, lim)
    except yaml_rs.YAMLDecodeError as e:
        if tags:
            _check_tags(text, path, tags, lim, parsed=False)
        raise _yaml_error(str(e), text, path, lim) from None
    except RecursionError:
        raise InputError(f"nesting deeper than {lim.max_depth} levels", path,
                         kind="too-deep") from None
    except (ValueError, TypeError, OverflowError) as e:
        raise InputError(f"invalid YAML: {_one_line(e)}", path) from None
    if tags:
        _check_tags(text, path, tags, lim)
    if doc is None:
        raise InputError("file holds no data (empty YAML document)", path)
    doc = _fix_loose_numbers(doc, text, lim)
    return normalize(doc, path, text, lim)


# yaml-rs reads some plain scalars as numbers that YAML 1.2's core schema keeps as strings:
# underscores (1_000, _1), 0b101, 0X1F / 0O7, signed +0x1F. Where such a token appears,
# the file is parsed a second time with an "x" put before each one: a value that was a
# number and comes back as "x<token>" was that token, a string.
# (hints: a token holding one is checked whole, so a hint may find more than the loose
# forms, e.g. a plain 0x1F; each search starts from a literal, which the regex engine skips
# to fast: 0b, 0B, 0X, 0O and a signed +0x/-0o all hold one of the second's)
_LOOSE_HINTS = (re.compile(r"_(?:[0-9]|(?=[\s,\]}#]|$))", re.M), re.compile(r"0[bBXOxo]"))
_TOKEN_CHARS = frozenset("0123456789abcdefABCDEFxXoO_.+-")
def _loose_number_tokens(text: str) -> list[int]:
    """Start offsets of plain-scalar-like tokens yaml-rs may read as numbers (core: strings)."""
    starts: set[int] = set()
    for pat in _LOOSE_HINTS:
        for m in pat.finditer(text):
            i = m.start()
            a = i
            while a > 0 and text[a - 1] in _TOKEN_CHARS:
                a -= 1
            b = i
            while b < len(text) and text[b] in _TOKEN_CHARS:
                b += 1
            if (a and text[a - 1] not in " \t\n[{,") or (b < len(text) and text[b] not in
                                                           " \t\r\n,]}:"):
                continue  # part of a longer word: not a scalar of its own
            tok = text[a:b]
            if LOOSE_NUMBER.fullmatch(tok.replace("_", "")) and not CORE_NUMBER.fullmatch(tok):
                starts.add(a)
    return sorted(starts)


def _fix_loose_numbers(doc: Any, text: str, lim: Limits) -> Any:
    starts = _loose_number_tokens(text)
    if not starts:
        return doc
    parts, prev = [], 0
    for at in starts:
        parts.append(text[prev:at])
        parts.append("x")
        prev = at
    parts.append(text[prev:])
    try:
        marked = _yaml_rs_loads("".join(parts), lim)
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001 - cannot tell: keep what the parser gave
        return doc

    def fixed(a: Any, b: Any) -> Any:
        if isinstance(b, str) and b.startswith("x") and isinstance(a, (int, float)) \
                and not isinstance(a, bool):
            return b[1:]
        return a

    root = [doc]
    stack: list[tuple[Any, Any]] = [(root, [marked])]
    while stack:
        a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict) and len(a) == len(b):
            pairs = list(zip(a.items(), b.items()))
            if any(fixed(ka, kb) is not ka for (ka, _), (kb, _) in pairs):
                a.clear()
                a.update((fixed(ka, kb), va) for (ka, va), (kb, _) in pairs)
            for (ka, va), vb in zip(list(a.items()), list(b.values())):
                new = fixed(va, vb)
                if new is not va:
                    a[ka] = new
                elif isinstance(va, (dict, list)):
                    stack.append((va, vb))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (va, vb) in enumerate(zip(a, b)):
                new = fixed(va, vb)
                if new is not va:
                    a[i] = new
                elif isinstance(va, (dict, list)):
                    stack.append((va, vb))
    return root[0]


def _yaml_rs_loads(text: str, lim: Limits) -> Any:
    yaml_rs = yaml_module()

    return yaml_rs.loads(
        text,
        parse_datetime=False,
        alias_limits=yaml_rs.AliasLimits(max_total_replayed_events=lim.max_alias_events),
        duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error,
    )


def _only_directives(prefix: str) -> bool:
    for line in prefix.splitlines():
        s = line.strip()
        if s and not s.startswith(("#", "%")):
            return False
    return True


def _yaml_error(msg: str, text: str, path: str, lim: Limits) -> InputError:
    if msg.startswith("duplicate mapping key"):
        m = re.search(r"duplicate mapping key: (.*)$", msg)
        shown = m.group(1) if m else "?"
        try:
            import ast

            key: Any = ast.literal_eval(shown)
        except (ValueError, SyntaxError):
            key = shown.strip("'\"")
        return InputError(f"duplicate mapping key {shown}", path,
                          *_duplicate_position(text, YAML, key))
    if "alias" in msg and "limit" in msg:
        return InputError(
            f"YAML aliases expand past the limit of {lim.max_alias_events:,} nodes "
            "(an alias bomb?)", path)
    pos = _YAML_POS.search(msg)
    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]
    reason = lines[-1] if lines else "parse error"
    if reason.startswith("YAML parse error"):
        reason = "parse error"
    if "recursion limit" in reason:
        reason = "nesting deeper than the YAML parser's limit"
    if pos:
        return InputError(f"invalid YAML: {reason}", path, int(pos.group(1)), int(pos.group(2)))
    return InputError(f"invalid YAML: {reason}", path)


def _check_tags(text: str, path: str, tags: dict[int, str], lim: Limits,
                parsed: bool = True) -> None:
    """Reject YAML tags other than the core schema's (they would build objects).

    Every place a tag could start (``tags``) gets its ``!`` replaced by ``@``, which no YAML
    node may start with: if that text fails to parse right at one of those places, a real
    tag stood there; inside a string, a block scalar or a comment the ``@`` is harmless.
    One more parse of the file: linear time, whatever the file holds. When the file itself
    parsed (``parsed``), any failure of the changed text comes from a tag.
    """
    yaml_rs = yaml_module()

    parts, prev = [], 0
    for off in sorted(tags):
        parts.append(text[prev:off])
        parts.append("@")
        prev = off + 1
    parts.append(text[prev:])
    try:
        _yaml_rs_loads("".join(parts), lim)
    except yaml_rs.YAMLDecodeError as e:
        pos = _YAML_POS.search(str(e))
        found = None
        if pos:
            line, col = int(pos.group(1)), int(pos.group(2))
            lines = text.split("\n", line)
            if line <= len(lines):
                err_off = sum(len(x) + 1 for x in lines[:line - 1]) + col - 1
                if err_off in tags:
                    found = err_off
                elif parsed:  # the nearest tag before the failure
                    before = [o for o in tags if o <= err_off]
                    found = max(before) if before else min(tags)
        elif parsed:
            found = min(tags)
        if found is not None:
            line = text.count("\n", 0, found) + 1
            col = found - (text.rfind("\n", 0, found) + 1) + 1
            shown = tags[found].replace("tag:yaml.org,2002:", "!!")
            raise InputError(
                f"YAML tag {shown} is not allowed (only plain JSON data is read; "
                "tags could build objects)", path, line, col) from None
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001 - the real parse reports anything else
        return


# --------------------------------------------------------------------------- normalize

class _BadValue(Exception):
    """A value JSON cannot hold, with where it is (container and key) for the message."""

    def __init__(self, message: str, container: Any = None, key: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.container = container
        self.key = key


def normalize(doc: Any, path: str, text: str | None = None,
              limits: Limits | None = None) -> Any:
    """Make YAML data JSON data (in place where possible); enforce the depth limit.

    With the YAML ``text``, an error says where the offending value is (line and column).
    """
    try:
        return _normalize(doc, _limits(limits).max_depth)
    except _BadValue as e:
        ptr = _pointer_to(doc, e.container, e.key)
        line = col = None
        if text is not None and ptr is not None:
            from toolcat.document.positions import build_index

            pos = build_index(text, YAML).locate(ptr)
            if pos:
                line, col = pos
        where = f" (at {ptr or '/'})" if ptr is not None and line is None else ""
        raise InputError(e.message + where, path, line, col) from None


_IS_STR = str.__instancecheck__   # isinstance(k, str) without a Python frame per key


def _normalize(doc: Any, max_depth: int) -> Any:
    root = [doc]
    stack: list[tuple[Any, int]] = [(root, 0)]
    push = stack.append
    while stack:
        cont, depth = stack.pop()
        if depth > max_depth:
            raise _BadValue(f"nesting deeper than {max_depth} levels", cont)
        if isinstance(cont, dict):
            if "<<" in cont:
                _apply_merge(cont)
            if not all(map(_IS_STR, cont)):
                items = list(cont.items())
                new = {}
                for k, v in items:
                    try:
                        new[js_key(k)] = v
                    except TypeError as e:
                        raise _BadValue(f"a mapping key of type {e} cannot be a JSON object key",
                                        cont) from None
                    except ValueError:
                        raise _BadValue(f"a mapping key that is a number with more than "
                                        f"{_MAX_DIGITS} digits", cont) from None
                if len(new) != len(items):
                    raise _BadValue("two mapping keys become the same JSON key "
                                    "(e.g. 1 and '1')", cont)
                cont.clear()
                cont.update(new)
            pairs: Any = cont.items()    # (a value replaced in place: the keys stay)
        else:
            pairs = enumerate(cont)
        for k, v in pairs:
            # JSON as it is: a string, boolean, null, 64-bit integer (most values), or a
            # container to look into; anything else is fixed or refused
            c = v.__class__
            if c is str or c is bool or v is None:
                continue
            if c is dict or c is list:
                push((v, depth + 1))
            elif c is int:
                if not INT64_MIN <= v < UINT64_END:
                    cont[k] = _fix_scalar(v, cont, k)
            elif isinstance(v, (dict, list)):
                push((v, depth + 1))
            else:
                cont[k] = _fix_scalar(v, cont, k)
    return root[0]


def _pointer_to(doc: Any, target: Any, key: Any) -> str | None:
    """JSON pointer of ``target[key]`` (or of ``target``) in ``doc``, by identity."""
    from toolcat.document.pointer import escape

    if target is None:
        return None
    stack: list[tuple[Any, str]] = [(doc, "")]
    seen: set[int] = set()
    while stack:
        node, ptr = stack.pop()
        if node is target:
            if key is None:
                return ptr
            return ptr + "/" + escape(key if isinstance(key, (str, int)) else js_key(key))
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    try:
                        stack.append((v, ptr + "/" + escape(js_key(k))))
                    except TypeError:
                        continue
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((v, f"{ptr}/{i}"))
    return None


_MAX_DIGITS = 4300      # what Python converts between int and str (and JSON reading refuses)


def _too_many_digits(v: int) -> bool:
    try:
        str(v)
    except ValueError:
        return True
    return False


def _fix_scalar(v: Any, cont: Any, key: Any) -> Any:
    if type(v) is float:
        if v != v or v in (float("inf"), float("-inf")):
            shown = ".nan" if v != v else (".inf" if v > 0 else "-.inf")
            raise _BadValue(f"the value {shown} cannot be represented in JSON", cont, key)
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
        return v
    if isinstance(v, (bytes, bytearray)):
        raise _BadValue("a binary (!!binary) scalar cannot be represented in JSON", cont, key)
    if isinstance(v, bool):
        return bool(v)
    if type(v) is BigInt:
        return v
    if isinstance(v, int):  # int subclasses; beyond 64 bits marked for the serializer
        if v.bit_length() > 14_000 and _too_many_digits(v):
            raise _BadValue(f"a number with more than {_MAX_DIGITS} digits", cont, key)
        return big_int(int(v))
    if isinstance(v, float):
        return _fix_scalar(float(v), cont, key)
    if isinstance(v, str):
        return str(v)
    raise _BadValue(f"a YAML value of type {type(v).__name__} cannot be represented in JSON",
                    cont, key)


def _apply_merge(d: dict) -> None:
    """Apply a YAML merge key: ``{<<: *base, own: 1}``."""
    src = d.pop("<<")
    sources = src if isinstance(src, list) else [src]
    merged: dict = {}
    for s in reversed(sources):  # earlier sources win
        if not isinstance(s, dict):
            raise _BadValue("a YAML merge key (<<) must hold a mapping or a list of mappings", d)
        merged.update(s)
    # merged keys first (as if written where "<<" is, the way PyYAML and ruamel order them),
    # the mapping's own keys override their values and follow
    merged.update(d)
    d.clear()
    d.update(merged)
