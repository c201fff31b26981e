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
from collections.abc import Iterator

# characters an escape keeps its meaning for in both readers (u-mode identity escapes)
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
# inside a class, Python warns about (and may one day read) doubled &, ~, | as set operations
_CLASS_KEEP = frozenset("-&~|[")


def _tokens(pattern: str) -> Iterator[tuple[int, str, bool]]:
    """``(start, token, in_class)`` for each token of ``pattern``, as both readers delimit
    character classes: an escape (``\\x``; ``\\p{...}``, ``\\P{...}``, ``\\u{...}`` whole, to their
    ``}``; a lone trailing backslash is the token ``\\``), a class opener (``[`` or ``[^``, outside
    the class), an empty class (``[]`` or ``[^]``: ECMA-262 reads each as a whole class, outside),
    or one character (a class's closing ``]`` is inside it). ``in_class``: whether the token
    lies inside a character class."""
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1:i + 3] in ("p{", "P{", "u{"):    # \p{Letter}, \u{1F600}
                end = pattern.find("}", i + 3)
                j = n if end < 0 else end + 1
            else:
                j = i + 2
            yield i, pattern[i:j], in_class
            i = j
        elif in_class:
            yield i, c, True
            in_class = c != "]"
            i += 1
        elif c == "[":
            j = i + 2 if pattern[i + 1:i + 2] == "^" else i + 1
            if pattern[j:j + 1] == "]":
                j += 1                      # [] or [^]: a whole class
            else:
                in_class = True
            yield i, pattern[i:j], False
            i = j
        else:
            yield i, c, False
            i += 1


def without_identity_escapes(pattern: str) -> str | None:
    """``pattern`` with every identity escape of a character that needs none written as the
    character itself (see the module doc), or None when there is none to drop, the pattern
    does not compile in Python, or its character classes could be delimited differently by
    the two readers (``[]...]``, ``[^]...]``)."""
    if "\\" not in pattern:
        return None
    out: list[str] = []
    changed = False
    for _, token, in_class in _tokens(pattern):
        if token in ("[]", "[^]"):
            return None   # Python: a literal ]; ECMA-262: an empty class
        if token == "\\":
            return None   # a lone trailing backslash
        if len(token) == 2 and token[0] == "\\" and _droppable(token[1], in_class):
            out.append(token[1])
            changed = True
        else:
            out.append(token)
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
    after = 0    # the end of the last quantifier read
    for i, token, in_class in _tokens(pattern):
        if in_class or i < after:
            continue
        if token == "]":
            return f"a lone ']' at {i}"
        if token == "}":
            return f"a lone '}}' at {i}"
        if token == "{":
            m = _QUANTIFIER.match(pattern, i)
            if m is None or i == 0 or pattern[i - 1] in "(|":
                return f"a lone '{{' at {i}"
            after = m.end()
    return None


_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
