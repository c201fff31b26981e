"""What toolcat prints for people is text it controls: the one terminal sanitizer.

Catalogs come from third parties, and so do their ids, titles, descriptions, YAML tags and
file names. Printed raw, an ESC starts a terminal control sequence (a title change, a
hyperlink, a cleared screen), a newline splits a promised one-line error in two, a lone
surrogate or an undecodable file name makes the encoder fail. Everything toolcat prints for
people goes through here:

* :func:`shown` for one value inside a line (an id, a file name, a message): every control
  character (C0, DEL, C1), line and paragraph separator, bidirectional override or isolate,
  and lone surrogate is written as a visible escape (``\\x1b``, ``\\n``, ``\\u2028``,
  ``\\ud800``; a byte of a file name that is not UTF-8 as ``\\xff``). One value stays on one line.
* :func:`guard` for whole lines of a report: the same, except the line breaks (and tabs)
  that separate the report's own lines.

Machine formats (json, sarif, junit, csv) do not come here: they are exact, and escape as
their own syntax says.
"""

from __future__ import annotations

import re

# C0 and DEL, C1, line/paragraph separators, bidi embeddings/overrides/isolates, marks,
# surrogates (lone ones, and the surrogateescape bytes of undecodable file names)
_UNSAFE = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_IN_LINES_RE = re.compile(f"[{_UNSAFE.replace(chr(0) + '-' + chr(0x1f), '')}"
                                 "\x00-\x08\x0b-\x1f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b", "\x00": "\\x00"}


def _escape(m: re.Match) -> str:
    c = m.group(0)
    named = _NAMED.get(c)
    if named is not None:
        return named
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:          # a byte os.fsdecode could not decode (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    if o <= 0xFF:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}"


def shown(value: object) -> str:
    """``value`` as text safe to print inside one line for people."""
    s = value if isinstance(value, str) else str(value)
    if _UNSAFE_RE.search(s) is None:
        return s
    return _UNSAFE_RE.sub(_escape, s)


def guard(text: str) -> str:
    """``text`` (lines of a report) with every unsafe character escaped but ``\\n`` and ``\\t``."""
    if _UNSAFE_IN_LINES_RE.search(text) is None:
        return text
    return _UNSAFE_IN_LINES_RE.sub(_escape, text)


def safe_bytes(text: str) -> bytes:
    """UTF-8 of ``text`` that never fails: a lone surrogate becomes its ``\\uXXXX`` escape
    (which is also what JSON would write for it)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


# --------------------------------------------------------------------------- Markdown
# The Markdown reports (lint, measure, diff: pull request comments, the job summary of
# action.yml) carry catalog text too; GitHub renders the HTML, links and images in it. One
# escaper for all three, so that no id, file name or message turns into markup.

_MD_ESCAPES = (("\\", "\\\\"), ("|", "\\|"), ("`", "\\`"), ("<", "&lt;"), (">", "&gt;"),
               ("[", "\\["), ("]", "\\]"))
_MD_EMPHASIS = (("*", "\\*"), ("_", "\\_"))


def md_inline(value: object, emphasis: bool = False) -> str:
    """``value`` (already :func:`shown`) as literal Markdown text inside one table cell:
    backslashes, pipes, backticks, HTML, link and image brackets escaped (``emphasis``:
    ``*`` and ``_`` too)."""
    s = value if isinstance(value, str) else str(value)
    for a, b in _MD_ESCAPES + (_MD_EMPHASIS if emphasis else ()):
        s = s.replace(a, b)
    return s


def md_code(value: object) -> str:
    """``value`` as one code span (inert: no HTML, no links), its fence longer than any
    backtick run inside; pipes escaped for a table cell."""
    s = (value if isinstance(value, str) else str(value)).replace("|", "\\|")
    run = max((len(m) for m in re.findall("`+", s)), default=0)
    fence = "`" * (run + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_text(value: object, emphasis: bool = False) -> str:
    """A message whose `names` (toolcat quotes them so) become code spans and the rest
    :func:`md_inline` text: an odd backtick (a name that holds one) leaves the tail as
    plain text, so nothing from the input turns into markup either way."""
    parts = (value if isinstance(value, str) else str(value)).split("`")
    if len(parts) % 2 == 0:       # unbalanced: the last backtick opens nothing
        parts[-2:] = ["`".join(parts[-2:])]
    return "".join((md_code(p) if p else "\\`\\`") if i % 2 else md_inline(p, emphasis)
                   for i, p in enumerate(parts))
