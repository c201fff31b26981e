"""The elements of a JSON file's one large array, read one at a time in bounded memory.

A catalog of a million tools is a 2 GB JSON text; parsed whole it would take some 20 GB.
:func:`open_array` reads such a file in chunks and hands out the elements of its tools
array (the file itself when it is an array, its ``tools`` member, or a JSON-RPC response's
``result.tools``) one by one, each parsed by the same decoder and hooks as
:func:`toolcat.document.parse.parse_json` (duplicate keys, NaN, the depth limit), with its
text, its position (line, column, character and byte offsets) and the text around it on its
first and last lines (for source excerpts). What surrounds the array (the envelope) is
parsed too and kept with the array left empty. Memory holds one chunk of the file and one
element at a time; the element offsets are kept so that :meth:`ArrayStream.element` can read
any element again later.

Everything that can go wrong is an :class:`~toolcat.errors.InputError` with the file, line
and column, as for a file read whole.
"""

from __future__ import annotations

import json
import os
from array import array
from typing import Any, Iterator

from toolcat.errors import InputError
from toolcat.stack import call_bounded

CHUNK = 1 << 22            # bytes read at a time
_CONTEXT = 1 << 16         # the most text kept around an element's first and last lines
_WS = " \t\n\r"
#: elements read ahead to tell the catalog's format (as detection reads the first 50)
SAMPLE = 50


class Element:
    """One element of the array: its value and where its text is."""

    __slots__ = ("index", "value", "text", "offset", "line", "column", "prefix", "suffix")

    def __init__(self, index: int, value: Any, text: str, offset: int, line: int, column: int,
                 prefix: str | None, suffix: str | None) -> None:
        self.index = index
        self.value = value
        self.text = text          # the element's JSON text
        self.offset = offset      # character offset of its first character in the file
        self.line = line          # 1-based line and column of its first character
        self.column = column
        # the text of its first line before it, and of its last line after it (None when
        # longer than the context kept)
        self.prefix = prefix
        self.suffix = suffix

    def line_text(self, line: int) -> str | None:
        """The whole text of file line ``line`` when the element spans it (None when the
        line is not all known: it goes on beyond the context kept)."""
        k = line - self.line
        parts = self.text.split("\n") if "\n" in self.text else [self.text]
        if not 0 <= k < len(parts):
            return None
        text = parts[k]
        if k == 0:
            if self.prefix is None:
                return None
            text = self.prefix + text
        if k == len(parts) - 1:
            if self.suffix is None:
                return None
            text = text + self.suffix
        return text


class _Decoder:
    """parse_json's decoder for one element (the same hooks and messages)."""

    def __init__(self) -> None:
        from toolcat.document import parse as p

        self._p = p
        self.checking = json.JSONDecoder(object_pairs_hook=p._pairs_hook,
                                         parse_float=p._parse_float, parse_int=p._parse_int,
                                         parse_constant=p._reject_constant)
        # for a file read before (unchanged since): the same values, no duplicate-key check
        self.fast = json.JSONDecoder(parse_float=p._parse_float, parse_int=p._parse_int,
                                     parse_constant=p._reject_constant)
        self.decoder = self.checking


class ArrayStream:
    """The elements of the tools array of one JSON file (see :func:`open_array`)."""

    def __init__(self, path: str, max_size: int, max_depth: int) -> None:
        self.path = path
        self.max_size = max_size
        self.max_depth = max_depth
        self.base = ""                 # pointer of the array: "", "/tools", "/result/tools"
        self.envelope: Any = None      # the document with the array emptied
        self.count: int | None = None  # elements, once all are read
        self.complete = False
        self._offsets = array("q")     # per element: byte offset, byte length, line, column
        self._first: list[Element] | None = []
        self._stat: tuple | None = None
        self._decoder = _Decoder()
        self._gen: Iterator[Element] | None = None
        self._fd: int | None = None

    # ------------------------------------------------------------------ reading the text

    def _open(self) -> None:
        from toolcat.files import open_regular

        self._fd, _size = open_regular(self.path, self.max_size)
        st = os.fstat(self._fd)
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        if self._stat is not None and stamp != self._stat:
            os.close(self._fd)
            raise InputError("file changed while read", self.path)
        self._stat = stamp
        self._buf = ""             # decoded text from absolute character offset _abs0
        self._abs0 = 0
        self._pending = b""        # bytes of a character cut by a chunk's end
        self._bytes_read = 0
        self._eof = False
        self._first_chunk = True
        # where the text before _tpos has been counted: its line, the absolute offset of the
        # last newline before it, its absolute byte offset
        self._tpos = 0
        self._tline = 1
        self._tnl = -1
        self._tbyte = 0
        # byte bookkeeping of the raw bytes read (for UTF-8 and NUL errors)
        self._raw_lines = 0
        self._raw_nl = -1
        self._next_nl = -1         # absolute offset of a newline found ahead
        self._nl_searched = 0      # no newline between the last element's end and this

    def _close(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
            self._fd = None

    def _read_more(self) -> bool:
        """Append the next chunk's text to the buffer; False at the end of the file."""
        if self._eof:
            return False
        assert self._fd is not None       # (open)
        try:
            data = os.read(self._fd, max(CHUNK, 4) if self._first_chunk else CHUNK)
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", self.path) from None
        if self._bytes_read + len(data) > self.max_size:
            raise InputError("file is over the size limit (it grew while read)", self.path)
        if self._first_chunk:
            self._first_chunk = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
                self._bom = 3
            else:
                self._bom = 0
        start = self._bytes_read
        self._bytes_read += len(data)
        if not data:
            self._eof = True
            if self._pending:
                self._utf8_error(self._pending, start - len(self._pending), 0)
            return False
        data = self._pending + data
        base = start - len(self._pending)
        nul = data.find(b"\x00")
        if nul != -1:
            line, col = self._raw_line_col(data, nul, base)
            raise InputError(f"binary content (NUL byte at offset {base + nul}); not a JSON or "
                             "YAML catalog", self.path, line, col)
        cut = len(data)
        # keep the bytes of a character the chunk cuts for the next one
        i = cut - 1
        while i >= 0 and cut - i <= 4 and (data[i] & 0xC0) == 0x80:
            i -= 1
        if i >= 0 and data[i] >= 0xC0:
            need = 2 if data[i] < 0xE0 else 3 if data[i] < 0xF0 else 4
            if cut - i < need:
                cut = i
        self._pending = data[cut:]
        try:
            text = data[:cut].decode("utf-8")
        except UnicodeDecodeError as e:
            self._utf8_error(data, base, e.start)
        self._raw_lines += data.count(b"\n", 0, cut)
        nl = data.rfind(b"\n", 0, cut)
        if nl != -1:
            self._raw_nl = base + nl
        self._buf += text
        return True

    def _raw_line_col(self, data: bytes, i: int, base: int) -> tuple[int, int]:
        n = data.count(b"\n", 0, i)
        nl = data.rfind(b"\n", 0, i)
        last = base + nl if nl != -1 else self._raw_nl
        return self._raw_lines + n + 1, base + i - last

    def _utf8_error(self, data: bytes, base: int, i: int) -> None:
        line, col = self._raw_line_col(data, i, base)
        raise InputError(f"not valid UTF-8 (byte 0x{data[i]:02x} at offset {base + i}); "
                         "save the file as UTF-8", self.path, line, col)

    def _fill(self, need: int) -> bool:
        """Make the buffer hold position ``need`` (buffer-relative); False at the end."""
        while len(self._buf) <= need:
            if not self._read_more():
                return False
        return True

    def _skip_ws(self, p: int) -> int:
        while True:
            buf = self._buf
            n = len(buf)
            while p < n and buf[p] in _WS:
                p += 1
            if p < n or not self._read_more():
                return p

    def _compact(self, p: int) -> int:
        """Drop the text well before ``p`` (keeping the context of its line); returns the
        new buffer-relative position."""
        keep = max(0, min(p, self._tpos) - _CONTEXT)
        if keep < CHUNK:
            return p
        self._buf = self._buf[keep:]
        self._abs0 += keep
        self._tpos -= keep
        return p - keep

    def _advance(self, p: int) -> None:
        """Count lines and bytes up to buffer position ``p``."""
        t = self._tpos
        if p <= t:
            return
        seg = self._buf[t:p]
        n = seg.count("\n")
        if n:
            self._tline += n
            self._tnl = self._abs0 + t + seg.rfind("\n")
        self._tbyte += len(seg) if seg.isascii() else len(seg.encode("utf-8", "surrogatepass"))
        self._tpos = p

    def _where(self, p: int) -> tuple[int, int]:
        """1-based line and column of buffer position ``p`` (at or after the counted one)."""
        self._advance(p)
        return self._tline, self._abs0 + p - self._tnl

    def _error(self, msg: str, p: int) -> InputError:
        line, col = self._where(p)
        return InputError(msg, self.path, line, col)

    def _expect_more(self, p: int, what: str) -> None:
        if not self._fill(p):
            raise self._error(f"invalid JSON: {what}", min(p, len(self._buf)))

    # ------------------------------------------------------------------ values

    def _value(self, p: int, depth: int) -> tuple[Any, int]:
        """Decode the JSON value at buffer position ``p`` (``depth``: its nesting level)."""
        p_ = self._decoder._p
        limit = max(self.max_depth - depth, 0)
        depth_cap = min(limit, p_._MAX_PARSER_DEPTH)
        while True:
            # the C scanner counts its nesting against the recursion limit: bounded by
            # toolcat.stack.call_bounded (the limit is the interpreter's, shared by threads)
            got = call_bounded(depth_cap + 21, self._decode, p, depth_cap)
            if got is not None:
                return got

    def _decode(self, p: int, depth_cap: int) -> tuple[Any, int] | None:
        """The value at ``p`` and its end; None when the buffer was too short and a chunk
        more was read (decode again)."""
        p_ = self._decoder._p
        dec = self._decoder.decoder
        try:
            value, end = dec.raw_decode(self._buf, p)
            if end >= len(self._buf) and self._read_more():
                return None       # a number may go on in the next chunk
            return value, end
        except json.JSONDecodeError as e:
            # a value cut by the chunk's end fails at the end, or as an unterminated
            # string (which only the end of the file can leave so)
            if (e.pos >= len(self._buf) - 16 or e.msg.startswith("Unterminated string")) \
                    and self._read_more():
                return None
            raise self._error(f"invalid JSON: {e.msg}", e.pos) from None
        except p_._Duplicate as e:
            end = self._value_end(p)
            text = self._buf[p:end]
            pos = p_._duplicate_position(text, "json", e.args[0])
            raise self._relative_error(f"duplicate key {e.args[0]!r} in an object", p,
                                       text, pos) from None
        except p_._NotJSON as e:
            tok = e.args[0]
            what = "is not a JSON number" if tok in ("NaN", "Infinity", "-Infinity") else \
                "is out of the range of a JSON number (a double)"
            end = self._value_end(p)
            text = self._buf[p:end]
            raise self._relative_error(f"invalid JSON: {tok} {what}", p, text,
                                       p_._token_position(text, tok)) from None
        except RecursionError:
            end = self._value_end(p)
            text = self._buf[p:end]
            raise self._relative_error(
                f"nesting deeper than {min(self.max_depth, p_._MAX_PARSER_DEPTH)} levels", p,
                text, p_._deep_position(text, depth_cap)) from None
        except ValueError as e:
            msg = p_._one_line(e)
            if "integer string conversion" in msg:
                msg = "a number with more than 4300 digits"
            raise InputError(f"invalid JSON: {msg}", self.path) from None

    def _value_end(self, p: int) -> int:
        """End of the value at ``p`` found without decoding it (for error positions)."""
        depth = 0
        i = p
        in_str = esc = False
        while True:
            buf = self._buf
            n = len(buf)
            while i < n:
                c = buf[i]
                if in_str:
                    if esc:
                        esc = False
                    elif c == "\\":
                        esc = True
                    elif c == '"':
                        in_str = False
                        if depth == 0:
                            return i + 1
                elif c == '"':
                    in_str = True
                elif c in "[{":
                    depth += 1
                elif c in "]}":
                    depth -= 1
                    if depth <= 0:
                        return i + 1
                elif depth == 0 and c in ",\n":
                    return i
                i += 1
            if not self._read_more():
                return len(self._buf)

    def _relative_error(self, msg: str, p: int, text: str,
                        pos: tuple[int | None, int | None] | None) -> InputError:
        line, col = self._where(p)
        if pos and pos[0] is not None:
            rl, rc = pos
            assert rl is not None and rc is not None    # (a line comes with its column)
            return InputError(msg, self.path, line + rl - 1, (col + rc - 1) if rl == 1 else rc)
        return InputError(msg, self.path, line, col)

    def _string(self, p: int) -> tuple[str, int]:
        self._expect_more(p, "Expecting property name enclosed in double quotes")
        if self._buf[p] != '"':
            raise self._error("invalid JSON: Expecting property name enclosed in double quotes",
                              p)
        return self._value(p, 0)

    # ------------------------------------------------------------------ the envelope

    def _separator(self, p: int) -> tuple[bool, int]:
        """After an object member: ``(True, past the "}")`` or ``(False, past the ",")``."""
        p = self._skip_ws(p)
        self._expect_more(p, "Expecting ',' delimiter")
        c = self._buf[p]
        if c == "}":
            return True, p + 1
        if c != ",":
            raise self._error("invalid JSON: Expecting ',' delimiter", p)
        return False, p + 1

    def _members(self, p: int, obj: dict, depth: int, path: str, first: bool = True) -> int:
        """Read the members of the object whose ``{`` is at ``p - 1`` into ``obj`` up to its
        ``}``, descending into the tools array (or ``result``) when it is met; returns the
        position after the ``}``."""
        p = self._skip_ws(p)
        self._expect_more(p, "Expecting property name enclosed in double quotes")
        if first and self._buf[p] == "}":
            return p + 1
        while True:
            key_at = p
            key, p = self._string(p)
            p = self._skip_ws(p)
            self._expect_more(p, "Expecting ':' delimiter")
            if self._buf[p] != ":":
                raise self._error("invalid JSON: Expecting ':' delimiter", p)
            p = self._skip_ws(p + 1)
            self._expect_more(p, "Expecting value")
            c = self._buf[p]
            if key in obj:
                # (read once when repeated with the same scalar value, as parse_json does)
                again = None
                if c not in "[{":
                    again, p = self._value(p, depth + 1)
                if not self._decoder._p.same_scalar(obj[key], again):
                    raise self._error(f"duplicate key {key!r} in an object", key_at)
                done, p = self._separator(p)
                if done:
                    return p
                p = self._skip_ws(p)
                continue
            if self._gen is None and c == "[" and key == "tools" and path in ("", "/result"):
                obj[key] = []
                self.base = path + "/tools"
                self._gen = self._elements(p + 1, depth + 1)
                self._resume = (obj, depth, path)
                return -1           # the array is next: the caller iterates it
            if self._gen is None and c == "{" and key == "result" and path == "":
                sub: dict = {}
                obj[key] = sub
                p = self._members(p + 1, sub, depth + 1, "/result")
                if p == -1:
                    self._outer = (obj, depth, path)
                    return -1
            else:
                obj[key], p = self._value(p, depth + 1)
            done, p = self._separator(p)
            if done:
                return p
            p = self._skip_ws(p)

    def _tail(self, p: int) -> None:
        """After the array: the rest of the envelope, then nothing but white space."""
        obj, depth, path = self._resume
        p = self._after_member(p, obj, depth, path)
        if path == "/result":
            outer, odepth, opath = self._outer
            p = self._skip_ws(p)
            p = self._after_member(p, outer, odepth, opath)
        p = self._skip_ws(p)
        if p < len(self._buf):
            raise self._error("invalid JSON: Extra data", p)

    def _after_member(self, p: int, obj: dict, depth: int, path: str) -> int:
        done, p = self._separator(p)
        # no second array is streamed (_gen is set); after a comma a member must follow
        return p if done else self._members(p, obj, depth, path, first=False)

    # ------------------------------------------------------------------ the elements

    def _elements(self, p: int, depth: int) -> Iterator[Element]:
        index = 0
        offsets = self._offsets
        record = not self.complete
        p = self._skip_ws(p)
        self._expect_more(p, "Expecting value")
        if self._buf[p] == "]":
            self._end(p + 1, index)
            return
        while True:
            p = self._compact(p)
            start_line, start_col = self._where(p)
            start_abs = self._abs0 + p
            start_byte = self._tbyte
            line_start = self._tnl + 1
            prefix = self._buf[line_start - self._abs0:p] \
                if line_start >= self._abs0 and start_abs - line_start <= _CONTEXT else None
            value, end = self._value(p, depth)
            text = self._buf[p:end]
            nbytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
            suffix = self._suffix(end)
            if record:
                offsets.extend((start_byte + getattr(self, "_bom", 0), nbytes, start_line,
                                start_col))
            yield Element(index, value, text, start_abs, start_line, start_col, prefix, suffix)
            index += 1
            p = self._skip_ws(end)
            self._expect_more(p, "Expecting ',' delimiter")
            c = self._buf[p]
            if c == "]":
                self._end(p + 1, index)
                return
            if c != ",":
                raise self._error("invalid JSON: Expecting ',' delimiter", p)
            p = self._skip_ws(p + 1)
            self._expect_more(p, "Expecting value")
            if self._buf[p] == "]":
                raise self._error("invalid JSON: Expecting value", p)

    def _suffix(self, end: int) -> str | None:
        """The text from buffer position ``end`` to the end of its line (None: longer than
        the context kept). The next newline is remembered: a one-line file is not searched
        again for each element."""
        end_abs = self._abs0 + end
        nl = self._next_nl
        if nl < end_abs:
            if self._nl_searched >= end_abs + _CONTEXT:
                return None
            self._fill(end + _CONTEXT)
            lo = max(end_abs, self._nl_searched) - self._abs0
            hi = end + _CONTEXT
            i = self._buf.find("\n", lo, hi)
            if i == -1:
                self._nl_searched = self._abs0 + min(hi, len(self._buf))
                if self._eof and len(self._buf) <= hi:
                    return self._buf[end:]      # the last line ends with the file
                return None
            nl = self._next_nl = self._abs0 + i
        if nl - end_abs > _CONTEXT:
            return None
        return self._buf[end:nl - self._abs0]

    def _end(self, p: int, count: int) -> None:
        if self.base:
            self._tail(p)
        else:
            p = self._skip_ws(p)
            if p < len(self._buf):
                raise self._error("invalid JSON: Extra data", p)
        self.count = count
        self.complete = True

    # ------------------------------------------------------------------ public

    def start(self) -> bool:
        """Read up to the array and the first elements (:data:`SAMPLE`); False when the file
        has no tools array where one is expected, or its start is not well-formed (read it
        whole instead: that reader says what is wrong, as for any file)."""
        self._open()
        try:
            p = self._skip_ws(0)
            if p >= len(self._buf):
                return False
            c = self._buf[p]
            if c == "[":
                self.envelope = []
                self._gen = self._elements(p + 1, 1)
            elif c == "{":
                doc: dict = {}
                self.envelope = doc
                if self._members(p + 1, doc, 1, "") != -1:
                    return False      # an object without a tools array: not for streaming
            else:
                return False
            assert self._gen is not None and self._first is not None  # (set by _members)
            for el in self._gen:
                self._first.append(el)
                if len(self._first) >= SAMPLE:
                    break
            return True
        except InputError:
            self._close()
            return False
        except BaseException:
            self._close()
            raise

    @property
    def sample(self) -> list[Any]:
        """The values of the first elements (at most :data:`SAMPLE`)."""
        assert self._first is not None     # (before elements() took them)
        return [el.value for el in self._first]

    def elements(self) -> Iterator[Element]:
        """Every element in order. The first call goes on from :meth:`start`; a later one
        reads the file again (it must not have changed)."""
        if self._gen is not None and not self.complete and self._first is not None:
            first, self._first = self._first, None
            gen = self._gen
            try:
                yield from first
                yield from gen
            finally:
                self._close()
            return
        if not self.complete:
            raise RuntimeError("elements() again before the first pass ended")
        yield from self._again()

    def _again(self) -> Iterator[Element]:
        self._open()
        self._decoder.decoder = self._decoder.fast
        try:
            self._gen = None
            p = self._skip_ws(0)
            c = self._buf[p]
            if c == "[":
                self._gen = self._elements(p + 1, 1)
            else:
                self._members(p + 1, {}, 1, "")
            assert self._gen is not None      # (set by _members)
            yield from self._gen
        finally:
            self._decoder.decoder = self._decoder.checking
            self._close()

    def element(self, index: int) -> Element:
        """Element ``index`` (read again from the file; it must have been read before)."""
        k = 4 * index
        if index < 0 or k + 3 >= len(self._offsets):
            raise IndexError(index)
        off, n, line, col = self._offsets[k:k + 4]
        from toolcat.files import open_regular

        fd, _size = open_regular(self.path, self.max_size)
        try:
            st = os.fstat(fd)
            if (st.st_size, st.st_mtime_ns, st.st_ino) != self._stat:
                raise InputError("file changed while read", self.path)
            data = os.pread(fd, n, off)
        finally:
            os.close(fd)
        text = data.decode("utf-8")
        value = self._decoder.fast.decode(text)
        return Element(index, value, text, -1, line, col, None, None)

    def close(self) -> None:
        """Stop reading (the first pass is then not complete)."""
        self._close()

    def __len__(self) -> int:
        if self.count is None:
            raise RuntimeError("the array is not read to its end yet")
        return self.count


#: files larger than this are streamed where a command can (``TOOLCAT_STREAM_THRESHOLD``)
DEFAULT_THRESHOLD = 32 << 20


def threshold() -> int:
    """The size above which lint and measure stream an MCP tools list (bytes)."""
    from toolcat.document.parse import _env_int

    return _env_int("TOOLCAT_STREAM_THRESHOLD", DEFAULT_THRESHOLD)


# ---------------------------------------------------------------------- positions


def _split_pointer(base: str, pointer: str) -> tuple[int, str] | None:
    """``(element index, pointer inside it)`` of a pointer under the array at ``base``."""
    if not pointer.startswith(base + "/"):
        return None
    rest = pointer[len(base) + 1:]
    head, sep, tail = rest.partition("/")
    if not head.isdigit() or not head.isascii() or (head[0] == "0" and head != "0"):
        return None
    return int(head), sep + tail


def _element_position(el: Element, index: Any, inner: str) -> tuple[int, int] | None:
    pos = index.locate(inner)
    if pos is None:
        return None
    line, col = pos
    if line == 1:
        return el.line, el.column + col - 1
    return el.line + line - 1, col


class StreamSource:
    """The source of a streamed file (what :class:`~toolcat.document.source.SourceText` is
    for a file read whole): positions of pointers into any element (read again from the
    file), and the lines the batches of elements kept for excerpts (:meth:`line`; a line is
    known when an element on it had a finding and the line was not longer than the context
    kept, up to :data:`LINES_MAX_CHARS` of them in all)."""

    syntax = "json"
    positions = True
    text = None                 # never held whole

    def __init__(self, stream: ArrayStream) -> None:
        self.path = stream.path
        self.stream = stream
        self._lines: dict[int, str] = {}
        self._chars = 0

    def keep_line(self, n: int, text: str | None) -> None:
        if text is None or n in self._lines or self._chars > LINES_MAX_CHARS:
            return
        self._lines[n] = text
        self._chars += len(text)

    def line(self, n: int) -> str | None:
        return self._lines.get(n)

    def locate(self, pointer: str) -> tuple[int, int] | None:
        got = _split_pointer(self.stream.base, pointer)
        if got is None:
            return None       # the envelope around the array: no position kept
        try:
            el = self.stream.element(got[0])
        except IndexError:
            return None
        from toolcat.document.positions import build_index

        pos = _element_position(el, build_index(el.text, "json"), got[1])
        if pos is not None:
            self.keep_line(pos[0], el.line_text(pos[0]))
        return pos

    def suppressions(self) -> None:
        return None           # JSON has no comments


class ElementsSource:
    """The source of one batch of elements while they are in memory: positions in their
    texts, and the lines they stand on kept in the file's :class:`StreamSource`."""

    syntax = "json"
    positions = True

    def __init__(self, whole: StreamSource, elements: list[Element]) -> None:
        self.path = whole.path
        self.whole = whole
        self.elements = {el.index: el for el in elements}
        self._indexes: dict[int, Any] = {}
        self._text: str | None = None

    @property
    def text(self) -> str:
        """The elements' texts (one per line): what rules search for words in."""
        if self._text is None:
            self._text = "\n".join(el.text for el in self.elements.values())
        return self._text

    def locate(self, pointer: str) -> tuple[int, int] | None:
        got = _split_pointer(self.whole.stream.base, pointer)
        el = self.elements.get(got[0]) if got is not None else None
        if el is None:
            return self.whole.locate(pointer)
        assert got is not None
        idx = self._indexes.get(el.index)
        if idx is None:
            from toolcat.document.positions import build_index

            idx = self._indexes[el.index] = build_index(el.text, "json")
        pos = _element_position(el, idx, got[1])
        if pos is not None:
            self.whole.keep_line(pos[0], el.line_text(pos[0]))
        return pos

    def line(self, n: int) -> str | None:
        return self.whole.line(n)

    def suppressions(self) -> None:
        return None


#: the most text of lines a :class:`StreamSource` keeps for excerpts
LINES_MAX_CHARS = 64 << 20


def open_array(path: str, max_size: int, max_depth: int) -> ArrayStream | None:
    """An :class:`ArrayStream` over ``path``'s tools array after reading its start, or None
    when the file is no JSON array or object with a ``tools`` (or ``result.tools``) array."""
    s = ArrayStream(path, max_size, max_depth)
    return s if s.start() else None


__all__ = ["ArrayStream", "Element", "ElementsSource", "SAMPLE", "StreamSource", "open_array"]
