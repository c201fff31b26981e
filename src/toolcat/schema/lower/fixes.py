"""Exact rewrites of values that one real reader refuses and another takes (an identity
escape in a ``pattern`` that ECMA-262 refuses, a name repeated in ``required``): the same
schema, written so that every reader compiles it."""

from __future__ import annotations

from typing import Any

from toolcat.schema import merge as M
from toolcat.schema.patterns import without_identity_escapes

#: the keywords :func:`fix_data` may rewrite
FIXABLE_KEYS = frozenset(("pattern", "patternProperties", "required"))
_ESCAPES_WHY = ("an identity escape of a character that needs none means the character itself "
                "in Python and ECMA-262, and ECMA-262's u mode (Ajv, the MCP SDK) refuses it")


def fix_data(n: dict, d: str, renamable: Any = None,
             required: bool = True) -> tuple[dict, list[tuple[tuple, str]]]:
    """Exact rewrites of values of one node that one real reader refuses and another takes:
    a ``pattern`` (or ``patternProperties`` name) with an identity escape ECMA-262 refuses
    (:mod:`toolcat.schema.patterns`: Ajv, and so the MCP SDK, cannot compile the schema), a
    name repeated in ``required`` (invalid against every metaschema). Returns the node (a new
    one when changed) and ``(path suffix, what)`` for each rewrite; ``renamable(name)``: may
    that ``patternProperties`` entry be renamed (no reference points into it); ``required``:
    also deduplicate ``required``."""
    out = n
    done: list[tuple[tuple, str]] = []
    pat = n.get("pattern")
    if isinstance(pat, str) and "\\" in pat and M.validates("pattern", d):
        new = without_identity_escapes(pat)
        if new is not None:
            out = dict(out)
            out["pattern"] = new
            done.append((("pattern",), f"pattern {pat!r} written {new!r}: " + _ESCAPES_WHY))
    props = n.get("patternProperties")
    if isinstance(props, dict) and M.validates("patternProperties", d) and \
            any("\\" in k for k in props):
        renamed: dict = {}
        for k, v in props.items():
            new = without_identity_escapes(k) if "\\" in k else None
            if new is not None and new not in props and new not in renamed and \
                    (renamable is None or renamable(k)):
                done.append((("patternProperties", k),
                             f"patternProperties name {k!r} written {new!r}: " + _ESCAPES_WHY))
                renamed[new] = v
            else:
                renamed[k] = v
        if list(renamed) != list(props):
            if out is n:
                out = dict(out)
            out["patternProperties"] = renamed
    req = n.get("required") if required else None
    if isinstance(req, list) and len(req) > 1 and M.validates("required", d):
        once = M.dedupe(req)
        if len(once) != len(req):
            if out is n:
                out = dict(out)
            out["required"] = once
            done.append((("required",), "each required name once"))
    return out, done
