"""Regular expressions as two readers read them: Python's ``re`` (python-jsonschema) and
ECMA-262 with the ``u`` flag (Ajv, and so the MCP TypeScript SDK, compiles every ``pattern``
and ``patternProperties`` name as ``new RegExp(source, "u")``).

An *identity escape* (a backslash before a character that needs none) is where they part
most often in real catalogs: Python reads ``\\_``, ``\\-`` (outside a class), ``\\'``,
``\\"`` or ``\\ `` as the character itself; ECMA-262's ``u`` mode allows an identity escape only
of a syntax character (``^$\\.*+?()[]{}|``), ``/``, and ``-`` inside a class, and refuses
the pattern ("Invalid escape"), so Ajv does not compile the schema and the SDK's
``Client.listTools()`` throws for the whole server. Writing the character without the
backslash means the same to both readers: :func:`without_identity_escapes`.
"""

from __future__ import annotations

import re

# characters an escape keeps its meaning for in both readers (u-mode identity escapes)
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
# inside a class, Python warns about (and may one day read) doubled &, ~, | as set operations
_CLASS_KEEP = frozenset("-&~|[")


def without_identity_escapes(pattern: str) -> str | None:
    """``pattern`` with every identity escape of a character that needs none written as the
    character itself (see the module doc), or None when there is none to drop, the pattern
    does not compile in Python, or its character classes could be delimited differently by
    the two readers (``[]...]``, ``[^]...]``)."""
    if "\\" not in pattern:
        return None
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    changed = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            x = pattern[i + 1]
            if _droppable(x, in_class):
                out.append(x)
                changed = True
            else:
                out.append(c + x)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            nxt = pattern[i + 1:i + 3]
            if nxt.startswith("]") or nxt == "^]":
                return None   # Python: a literal ]; ECMA-262: an empty class
        out.append(c)
        i += 1
    if not changed:
        return None
    new = "".join(out)
    try:
        if re.compile(pattern).flags & re.VERBOSE:
            return None   # (?x): an escaped space or # means something there
        re.compile(new)
    except (re.error, ValueError, OverflowError, RecursionError):
        return None
    return new


def _droppable(x: str, in_class: bool) -> bool:
    if x in _SYNTAX or x.isdigit():
        return False
    if x.isascii() and x.isalpha():
        return False      # \d \w \s \b \n \u... : escapes with a meaning
    if in_class and x in _CLASS_KEEP:
        return False
    return x.isprintable() or x == " "


def unicode_mode_error(pattern: str) -> str | None:
    """Why ECMA-262's ``u`` mode refuses ``pattern`` where its Annex B (no ``u``: browsers,
    Python's reading aside) takes it, for the forms real catalogs hold: a lone ``]``, ``{`` or
    ``}`` outside a class that no quantifier explains (Annex B reads each as the character
    itself; ``u`` mode: "Lone quantifier brackets"). None when there is none of these (other
    syntax errors are :func:`toolcat.schema.regex.syntax_error`'s)."""
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1:i + 3] in ("p{", "P{", "u{"):    # \p{Letter}, \u{1F600}
                end = pattern.find("}", i + 3)
                i = n if end < 0 else end + 1
            else:
                i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1       # ECMA-262: [] (or [^]) is a whole class
                in_class = False
        elif c == "]":
            return f"a lone ']' at {i}"
        elif c == "}":
            return f"a lone '}}' at {i}"
        elif c == "{":
            m = _QUANTIFIER.match(pattern, i)
            if m is None or i == 0 or pattern[i - 1] in "(|":
                return f"a lone '{{' at {i}"
            i = m.end()
            continue
        i += 1
    return None


_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
