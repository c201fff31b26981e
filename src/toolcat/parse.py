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
from typing import Any

from toolcat.errors import InputError

DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_DEPTH = 256
# Alias expansion budget: YAML events replayed through aliases (a billion-laughs file
# needs 10^9; real specs need none).
DEFAULT_MAX_ALIAS_EVENTS = 1_000_000

JSON = "json"
YAML = "yaml"


class Limits:
    """Resource limits; the CLI sets them from options and config."""

    max_file_size: int = int(os.environ.get("TOOLCAT_MAX_FILE_SIZE", DEFAULT_MAX_FILE_SIZE))
    max_depth: int = int(os.environ.get("TOOLCAT_MAX_DEPTH", DEFAULT_MAX_DEPTH))
    max_alias_events: int = DEFAULT_MAX_ALIAS_EVENTS


class SourceText:
    """The text of one parsed file, kept to answer "where is this pointer?" on demand."""

    __slots__ = ("path", "text", "syntax", "_index")

    def __init__(self, path: str, text: str, syntax: str) -> None:
        self.path = path
        self.text = text
        self.syntax = syntax
        self._index = None

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """1-based ``(line, column)`` of the node at ``pointer`` (nearest ancestor if absent)."""
        if self._index is None:
            from toolcat.positions import build_index

            self._index = build_index(self.text, self.syntax)
        return self._index.locate(pointer)


# --------------------------------------------------------------------------- reading

def read_bytes(path: str) -> bytes:
    if path == "-":
        data = sys.stdin.buffer.read(Limits.max_file_size + 1)
        if len(data) > Limits.max_file_size:
            raise InputError(f"input is larger than the {_size(Limits.max_file_size)} limit", "-")
        return data
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file or folder", path) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    if os.path.isdir(path):
        raise InputError("is a folder, not a file", path)
    if st.st_size > Limits.max_file_size:
        raise InputError(
            f"file is {_size(st.st_size)}, over the {_size(Limits.max_file_size)} limit "
            "(raise it with --max-file-size)", path)
    try:
        with open(path, "rb") as f:
            return f.read(Limits.max_file_size + 1)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.0f} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 bytes to text, or a clear error for binary and other encodings."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
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


def load_file(path: str, syntax: str | None = None) -> tuple[Any, SourceText]:
    """Read and parse ``path`` (``-`` for stdin) into normalized JSON data."""
    data = read_bytes(path)
    text = decode_text(data, path)
    syn = syntax or guess_syntax(path, text)
    doc = parse_text(text, path, syn)
    return doc, SourceText(path, text, syn)


def parse_text(text: str, path: str, syntax: str) -> Any:
    if syntax == JSON:
        try:
            return parse_json(text, path)
        except InputError:
            # A .json-less file that starts like JSON may still be YAML (flow style);
            # a file named *.json is JSON and nothing else.
            if path.lower().endswith((".json", ".snap")):
                raise
            try:
                return parse_yaml(text, path)
            except InputError:
                pass
            raise
    return parse_yaml(text, path)


# --------------------------------------------------------------------------- JSON

class _Duplicate(ValueError):
    pass


def _pairs_hook(pairs: list) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _v in pairs:
            if k in seen:
                raise _Duplicate(k)
            seen.add(k)
    return d


def _parse_float(s: str) -> Any:
    f = float(s)
    if f != f or f in (float("inf"), float("-inf")):
        raise _NotJSON(s)
    if f.is_integer() and abs(f) < 2**53:
        return int(f)
    return f


class _NotJSON(ValueError):
    pass


def _reject_constant(s: str) -> Any:
    raise _NotJSON(s)


def parse_json(text: str, path: str) -> Any:
    old = sys.getrecursionlimit()
    # The C scanner counts its nesting against the recursion limit: bound it to the depth limit.
    depth_now = _frame_depth()
    sys.setrecursionlimit(depth_now + Limits.max_depth + 20)
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook, parse_float=_parse_float,
                          parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", path, e.lineno, e.colno) from None
    except _Duplicate as e:
        key = e.args[0]
        line = _find_duplicate_line(text, key, json_syntax=True)
        raise InputError(f"duplicate key {key!r} in an object", path, line) from None
    except _NotJSON as e:
        raise InputError(f"invalid JSON: {e.args[0]} is not a JSON number", path) from None
    except RecursionError:
        raise InputError(f"nesting deeper than {Limits.max_depth} levels", path) from None
    finally:
        sys.setrecursionlimit(old)


def _frame_depth() -> int:
    f = sys._getframe()
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


# --------------------------------------------------------------------------- YAML

# A tag can only start a node: at the start of a line (after indentation and "- " / "? "
# indicators), after ": ", or after a flow indicator.
_TAG_CANDIDATE = re.compile(r"(?m)(?:^[ \t]*(?:[-?][ \t]+)*|:[ \t]+|[\[{,][ \t]*)!")
_CORE_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq")
)
_YAML_POS = re.compile(r"line (\d+), column (\d+)")
_DOC_MARKER = re.compile(r"(?m)^---(?=[ \t\r\n]|$)")


def parse_yaml(text: str, path: str) -> Any:
    import yaml_rs

    if _TAG_CANDIDATE.search(text):
        _check_tags(text, path)
    markers = [m.start() for m in _DOC_MARKER.finditer(text)]
    if len(markers) > 1 or (markers and text[:markers[0]].strip() and not _only_directives(
            text[:markers[0]])):
        line = text.count("\n", 0, markers[-1]) + 1
        raise InputError("more than one YAML document in the file; a catalog is one document",
                         path, line, 1)
    try:
        doc = yaml_rs.loads(
            text,
            parse_datetime=False,
            alias_limits=yaml_rs.AliasLimits(max_total_replayed_events=Limits.max_alias_events),
            duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error,
        )
    except yaml_rs.YAMLDecodeError as e:
        raise _yaml_error(str(e), text, path) from None
    except RecursionError:
        raise InputError(f"nesting deeper than {Limits.max_depth} levels", path) from None
    except (ValueError, TypeError, OverflowError) as e:
        raise InputError(f"invalid YAML: {e}", path) from None
    if doc is None:
        raise InputError("file holds no data (empty YAML document)", path)
    return normalize(doc, path)


def _only_directives(prefix: str) -> bool:
    for line in prefix.splitlines():
        s = line.strip()
        if s and not s.startswith(("#", "%")):
            return False
    return True


def _yaml_error(msg: str, text: str, path: str) -> InputError:
    if msg.startswith("duplicate mapping key"):
        m = re.search(r"duplicate mapping key: (.*)$", msg)
        key = m.group(1) if m else "?"
        raw = key.strip("'\"")
        line = _find_duplicate_line(text, raw, json_syntax=False)
        return InputError(f"duplicate mapping key {key}", path, line)
    if "alias replay limit" in msg or "alias" in msg and "limit" in msg:
        return InputError(
            f"YAML aliases expand past the limit of {Limits.max_alias_events:,} nodes "
            "(an alias bomb?)", path)
    pos = _YAML_POS.search(msg)
    reason = msg.strip().splitlines()[-1].strip() if msg.strip() else "parse error"
    if reason.startswith("YAML parse error"):
        reason = "parse error"
    if "recursion limit" in reason:
        reason = f"nesting deeper than the parser's limit ({reason})"
    if pos:
        return InputError(f"invalid YAML: {reason}", path, int(pos.group(1)), int(pos.group(2)))
    return InputError(f"invalid YAML: {reason}", path)


def _find_duplicate_line(text: str, key: str, json_syntax: bool) -> int | None:
    """Best-effort line of the second of two sibling keys named ``key``."""
    if json_syntax:
        pat = re.compile(r'"' + re.escape(json.dumps(key)[1:-1]) + r'"\s*:')
        hits = [text.count("\n", 0, m.start()) + 1 for m in pat.finditer(text)]
        return hits[1] if len(hits) > 1 else None
    pat = re.compile(r"^([ \t]*)(?:- )?(['\"]?)" + re.escape(key) + r"\2[ \t]*:(?:[ \t]|$)")
    lines = text.splitlines()
    seen: dict[int, int] = {}
    for i, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        # a line less indented closes deeper mappings
        for ind in [k for k in seen if k > indent]:
            del seen[ind]
        m = pat.match(line)
        if m:
            ind = len(m.group(1))
            if ind in seen:
                return i
            seen[ind] = i
    return None


def _check_tags(text: str, path: str) -> None:
    """Reject YAML tags other than the core schema's (they would build objects)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    y = YAML(typ="safe", pure=True)
    try:
        for event in y.parse(text):
            tag = getattr(event, "tag", None)
            if tag is None:
                continue
            t = tag if isinstance(tag, str) else getattr(tag, "value", None) or str(tag)
            if t in ("!",) or t in _CORE_TAGS:
                continue
            mark = event.start_mark
            shown = t.replace("tag:yaml.org,2002:", "!!")
            raise InputError(
                f"YAML tag {shown} is not allowed (only plain JSON data is read; tags could build objects)",
                path, mark.line + 1, mark.column + 1)
    except YAMLError:
        return  # the real parser reports syntax errors with better messages


# --------------------------------------------------------------------------- normalize

def js_key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, float):
        if k.is_integer() and abs(k) < 1e21:
            return str(int(k))
        return repr(k)
    if isinstance(k, int):
        return str(k)
    raise TypeError(type(k).__name__)


def normalize(doc: Any, path: str) -> Any:
    """Make YAML data JSON data (in place where possible); enforce the depth limit."""
    max_depth = Limits.max_depth
    # iterative: (container, depth, pointer-parts-for-errors)
    root = [doc]
    stack: list[tuple[Any, int, tuple]] = [(root, 0, ())]
    while stack:
        cont, depth, where = stack.pop()
        if depth > max_depth:
            raise InputError(f"nesting deeper than {max_depth} levels", path)
        if isinstance(cont, dict):
            if "<<" in cont:
                _apply_merge(cont, path)
            items = list(cont.items())
            if any(not isinstance(k, str) for k, _ in items):
                try:
                    new = {js_key(k): v for k, v in items}
                except TypeError as e:
                    raise InputError(f"a mapping key of type {e} cannot be a JSON object key", path) from None
                if len(new) != len(items):
                    raise InputError("two mapping keys become the same JSON key", path)
                cont.clear()
                cont.update(new)
                items = list(new.items())
            for k, v in items:
                if isinstance(v, (dict, list)):
                    stack.append((v, depth + 1, where))
                elif not _scalar_ok(v):
                    cont[k] = _fix_scalar(v, path)
        else:
            for i, v in enumerate(cont):
                if isinstance(v, (dict, list)):
                    stack.append((v, depth + 1, where))
                elif not _scalar_ok(v):
                    cont[i] = _fix_scalar(v, path)
    return root[0]


def _scalar_ok(v: Any) -> bool:
    t = type(v)
    return t is str or t is int or t is bool or v is None


def _fix_scalar(v: Any, path: str) -> Any:
    if type(v) is float:
        if v != v or v in (float("inf"), float("-inf")):
            raise InputError(f"the value {v} cannot be represented in JSON", path)
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
        return v
    if isinstance(v, (bytes, bytearray)):
        raise InputError("a binary (!!binary) scalar cannot be represented in JSON", path)
    if isinstance(v, int):  # int subclasses
        return int(v)
    if isinstance(v, str):
        return str(v)
    raise InputError(f"a YAML value of type {type(v).__name__} cannot be represented in JSON", path)


def _apply_merge(d: dict, path: str) -> None:
    src = d.pop("<<")
    sources = src if isinstance(src, list) else [src]
    merged: dict = {}
    for s in reversed(sources):  # earlier sources win
        if not isinstance(s, dict):
            raise InputError("a YAML merge key (<<) must hold a mapping or a list of mappings", path)
        merged.update(s)
    for k, v in merged.items():
        if k not in d:
            d[k] = v
