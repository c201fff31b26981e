"""JSON Schema's regular expressions (``pattern``, ``patternProperties``, ``propertyNames``
patterns), checked and evaluated with a bound.

A schema's patterns come from the catalog, so from whoever wrote it: Python's backtracking
``re`` can run for minutes on ``^(a+)+$`` against 35 characters, and raises OverflowError on
``a{99999999999}``. Nothing in toolcat runs an input pattern with ``re``; this module is the
one place that reads them:

* :func:`syntax_error` says whether a pattern is a valid ECMA-262 regular expression (the
  dialect JSON Schema names). It only *compiles* (Python's ``re``, after translating the
  ECMA-262 spellings it lacks; compiling is linear in the pattern); repeat counts beyond what
  ``re`` can hold are valid ECMA-262 and are checked with a smaller count.
* :func:`search` runs a pattern with RE2 (``google-re2``: linear time in the subject, no
  backtracking), after translating ECMA-262 to RE2 syntax so that the answer is ECMA-262's
  (``\\d`` is ASCII, ``\\s`` is ECMA-262's white space and line terminators, ``.`` stops at
  every line terminator, ``$`` is the end of the text). What RE2 cannot run in linear time
  (lookahead, lookbehind, back-references) or that exceeds its limits (a repeat count over
  1,000, a program over its memory budget) gives :class:`Unchecked` with the reason, and the
  caller reports that the pattern could not be checked.

Known difference: ECMA-262 without the ``u`` flag matches UTF-16 code units, RE2 code points;
the two differ only for a ``.`` or a negated class against a character outside the BMP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ECMA-262 WhiteSpace and LineTerminator (what \s matches).
_ECMA_SPACE = ("\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
               "\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}")
_DOT = "[^\\n\\r\\x{2028}\\x{2029}]"
_RE2_MAX_REPEAT = 1000
_PY_MAX_REPEAT = 65535          # checking syntax only: any count this large says the same
_MAX_PATTERN = 100_000          # characters; longer patterns are not run
_MAX_NESTING = 1000             # group nesting RE2 accepts (its parser's own limit)
_CACHE_MAX = 10_000


@dataclass(frozen=True)
class Unchecked:
    """A pattern toolcat cannot evaluate with a bound, and why (a phrase: "uses lookahead")."""

    reason: str


class _Unsupported(Exception):
    pass


class _Syntax(Exception):
    pass


_QUANT = re.compile(r"\{(\d+)(,(\d*))?\}")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _class_escape(p: str, i: int, re2: bool) -> tuple[str, int]:
    """Translate the escape at ``p[i] == "\\"`` inside a character class; returns (text, next i)."""
    if i + 1 >= len(p):
        raise _Syntax("\\ at end of pattern")
    c = p[i + 1]
    if c == "d":
        return "0-9", i + 2
    if c == "s":
        return (_ECMA_SPACE if re2 else "\\s"), i + 2
    if c in "DSW":
        if re2 and c != "W":
            raise _Unsupported(f"uses \\{c} inside a character class")
        return "\\" + c, i + 2
    if c == "w":
        return "\\w" if re2 else "a-zA-Z0-9_", i + 2
    if c == "b":
        return "\\x08", i + 2
    if c == "-":
        return "\\-", i + 2
    return _common_escape(p, i, re2)


def _common_escape(p: str, i: int, re2: bool) -> tuple[str, int]:
    c = p[i + 1]
    if c == "u":
        m = re.match(r"[0-9A-Fa-f]{4}", p[i + 2:i + 6])
        if m:
            return _char(int(m.group(0), 16), re2), i + 6
        m = re.match(r"\{([0-9A-Fa-f]{1,6})\}", p[i + 2:])
        if m and int(m.group(1), 16) <= 0x10FFFF:
            return _char(int(m.group(1), 16), re2), i + 2 + m.end()
        return "u", i + 2                      # identity escape (no u flag)
    if c == "x":
        m = re.match(r"[0-9A-Fa-f]{2}", p[i + 2:i + 4])
        if m:
            return _char(int(m.group(0), 16), re2), i + 4
        return "x", i + 2
    if c == "c":
        if i + 2 < len(p) and p[i + 2].isascii() and p[i + 2].isalpha():
            return _char(ord(p[i + 2]) % 32, re2), i + 3
        return "\\\\c", i + 2
    if c == "0" and not (i + 2 < len(p) and p[i + 2].isdigit()):
        return _char(0, re2), i + 2
    if c in "tnrf":
        return "\\" + c, i + 2
    if c == "v":
        return _char(0x0B, re2), i + 2
    if c in "pP":
        m = re.match(r"\{([A-Za-z_]+)(=[A-Za-z_]+)?\}", p[i + 2:])
        if m is None:
            return re.escape(c), i + 2         # identity escape (no u flag)
        if not re2:
            return "a", i + 2 + m.end()        # a syntax check: any one character stands in
        if m.group(2) is None:                 # RE2 knows the general categories and scripts
            return f"\\{c}{{{m.group(1)}}}", i + 2 + m.end()
        raise _Unsupported(f"uses the Unicode property escape {m.group(0)}")
    if c.isdigit():
        raise _Unsupported("uses a back-reference")
    if c == "k":
        raise _Unsupported("uses a named back-reference")
    if c.isalnum() or c == "_":
        return re.escape(c), i + 2             # identity escape: the letter itself
    return _char(ord(c), re2), i + 2


def _char(cp: int, re2: bool) -> str:
    if re2:
        return f"\\x{{{cp:X}}}"
    if cp > 0xFFFF:
        return f"\\U{cp:08X}"
    return f"\\u{cp:04X}" if cp > 0x7F else f"\\x{cp:02X}"


def translate(pattern: str, re2: bool) -> str:
    """ECMA-262 ``pattern`` in RE2 syntax (``re2=True``) or Python ``re`` syntax. Raises
    _Unsupported (valid, but not evaluable) or _Syntax."""
    p = pattern
    out: list[str] = []
    i, n = 0, len(p)
    depth = 0
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise _Syntax("\\ at end of pattern")
            d = p[i + 1]
            if d == "d":
                out.append("[0-9]")
                i += 2
            elif d == "D":
                out.append("[^0-9]")
                i += 2
            elif d == "s":
                out.append(f"[{_ECMA_SPACE}]" if re2 else "\\s")
                i += 2
            elif d == "S":
                out.append(f"[^{_ECMA_SPACE}]" if re2 else "\\S")
                i += 2
            elif d in "wWbB":
                out.append("\\" + d)
                i += 2
            else:
                t, i = _common_escape(p, i, re2)
                out.append(t)
            continue
        if c == "[":
            j = i + 1
            neg = j < n and p[j] == "^"
            if neg:
                j += 1
            if j < n and p[j] == "]":          # [] matches nothing, [^] anything
                out.append("[\\x{0}-\\x{10FFFF}]" if neg else "[^\\x{0}-\\x{10FFFF}]")
                if not re2:
                    out[-1] = "[\\x00-\\U0010FFFF]" if neg else "[^\\x00-\\U0010FFFF]"
                i = j + 1
                continue
            body: list[str] = []
            while j < n and p[j] != "]":
                if p[j] == "\\":
                    t, j = _class_escape(p, j, re2)
                    body.append(t)
                elif p[j] in "[&~|":
                    body.append("\\" + p[j])
                    j += 1
                else:
                    body.append(p[j])
                    j += 1
            if j >= n:
                raise _Syntax("unterminated character class")
            out.append("[" + ("^" if neg else "") + "".join(body) + "]")
            i = j + 1
            continue
        if c == "(":
            if p.startswith("(?:", i):
                out.append("(?:")
                i += 3
            elif p.startswith(("(?=", "(?!"), i):
                if re2:
                    raise _Unsupported("uses lookahead")
                out.append(p[i:i + 3])
                i += 3
            elif p.startswith(("(?<=", "(?<!"), i):
                if re2:
                    raise _Unsupported("uses lookbehind")
                out.append(p[i:i + 4])
                i += 4
            elif p.startswith("(?<", i):
                m = _NAME.match(p, i + 3)
                if not m or p[m.end():m.end() + 1] != ">":
                    raise _Syntax("invalid group name")
                # RE2 only answers whether it matches: no group captures (a capture costs
                # memory per NFA thread: 30,000 nested groups took 22 GB)
                out.append("(?:" if re2 else f"(?P<{m.group(0).replace('$', '_S_')}>")
                i = m.end() + 1
            elif p.startswith("(?", i):
                raise _Syntax("invalid group")
            else:
                out.append("(?:" if re2 else "(")
                i += 1
            depth += 1
            if re2 and depth > _MAX_NESTING:
                raise _Unsupported(f"nests groups more than {_MAX_NESTING:,} deep")
            continue
        if c == ")":
            depth -= 1
            if depth < 0:
                raise _Syntax("unbalanced parenthesis")
            out.append(")")
            i += 1
            continue
        if c == "{":
            m = _QUANT.match(p, i)
            if m:
                lo = int(m.group(1))
                hi = None if m.group(2) is None else (int(m.group(3)) if m.group(3) else -1)
                if hi is not None and hi != -1 and hi < lo:
                    raise _Syntax("numbers out of order in {} quantifier")
                cap = _RE2_MAX_REPEAT if re2 else _PY_MAX_REPEAT
                if lo > cap or (hi is not None and hi > cap):
                    if re2:
                        raise _Unsupported(f"repeats more than {_RE2_MAX_REPEAT:,} times")
                    lo, hi = min(lo, cap), (min(hi, cap) if hi is not None and hi != -1 else hi)
                out.append("{%d%s}" % (lo, "" if hi is None else "," + ("" if hi == -1 else str(hi))))
                i = m.end()
                continue
            out.append("\\{")                  # a literal brace (no u flag)
            i += 1
            continue
        if c in "}]":
            out.append("\\" + c)
            i += 1
            continue
        if c == ".":
            out.append(_DOT if re2 else "[^\\n\\r\\u2028\\u2029]")
            i += 1
            continue
        if c in "^$|*+?":
            out.append(c)
            i += 1
            continue
        out.append(re.escape(c) if not c.isalnum() else c)
        i += 1
    if depth:
        raise _Syntax("missing )")
    return "".join(out)


_SYNTAX_CACHE: dict[str, str | None] = {}
_RE2_CACHE: dict[str, object] = {}


def syntax_error(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid ECMA-262 regular expression (None when it is)."""
    hit = _SYNTAX_CACHE.get(pattern, _SYNTAX_CACHE)
    if hit is not _SYNTAX_CACHE:
        return hit  # type: ignore[return-value]
    err: str | None = None
    if len(pattern) > _MAX_PATTERN:
        err = None                            # not checked: longer than toolcat compiles
    else:
        try:
            re.compile(translate(pattern, re2=False))
        except _Unsupported:
            err = None                         # valid ECMA-262 (Unicode property names unchecked)
        except _Syntax as e:
            err = str(e)
        except re.error as e:
            err = str(e)
        except (RecursionError, OverflowError, ValueError, MemoryError) as e:
            err = None if isinstance(e, (RecursionError, MemoryError)) else str(e)
    if len(_SYNTAX_CACHE) < _CACHE_MAX:
        _SYNTAX_CACHE[pattern] = err
    return err


def compiled(pattern: str) -> object:
    """The RE2 program of ``pattern`` (ECMA-262), or :class:`Unchecked`."""
    hit = _RE2_CACHE.get(pattern)
    if hit is not None:
        return hit
    out: object
    if len(pattern) > _MAX_PATTERN:
        out = Unchecked(f"is longer than {_MAX_PATTERN:,} characters")
    else:
        try:
            text = translate(pattern, re2=True)
        except _Unsupported as e:
            out = Unchecked(str(e))
        except _Syntax as e:
            out = Unchecked(f"is not a valid regular expression ({e})")
        else:
            out = _re2_compile(text)
    if len(_RE2_CACHE) < _CACHE_MAX:
        _RE2_CACHE[pattern] = out
    return out


def _re2_compile(text: str) -> object:
    try:
        import re2
    except ImportError:  # pragma: no cover - a dependency; an install without it still bounds
        return Unchecked("needs the google-re2 module, which is not installed")
    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = 8 << 20
    try:
        return re2.compile(text, options=opts)
    except (re2.error, ValueError, TypeError, OverflowError) as e:
        msg = e.args[0] if e.args else str(e)
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        if "pattern too large" in str(msg):
            return Unchecked("is too large to evaluate in bounded memory")
        return Unchecked(f"is not one toolcat can evaluate ({msg})")


def search(pattern: str, text: str) -> bool | Unchecked:
    """Whether ``pattern`` (ECMA-262) matches somewhere in ``text``, in time linear in the
    text, or :class:`Unchecked` when it cannot be evaluated so."""
    prog = compiled(pattern)
    if isinstance(prog, Unchecked):
        return prog
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return Unchecked("cannot be run on a string holding a lone surrogate")
    return prog.search(text) is not None  # type: ignore[attr-defined]
