"""Validation no-ops: keywords that cannot change what a schema node accepts in its dialect
(``additionalProperties: true``, a ``type`` its ``enum`` implies, ``required: []``...), which
lowering removes and counts by kind (:data:`NOOP_LABELS`)."""

from __future__ import annotations

from toolcat.schema import merge as M

#: the kinds of validation no-op, in the order the report counts them
NOOP_LABELS = (
    "additionalProperties: true", "items: true", "additionalItems: true",
    "propertyNames: true", "type implied by enum/const", "required: []",
    "empty properties", "empty patternProperties", "empty dependencies", "minItems: 0",
    "minLength: 0", "minProperties: 0", "uniqueItems: false",
)
_TRUE_SCHEMA_KEYS = {"additionalProperties": NOOP_LABELS[0], "items": NOOP_LABELS[1],
                     "additionalItems": NOOP_LABELS[2], "propertyNames": NOOP_LABELS[3]}
# keywords whose `true`/`{}` value still produces annotations (seen by unevaluated*)
_ANNOTATING = ("additionalProperties", "items", "additionalItems")
_EMPTY_MAP_KEYS = {"properties": "empty properties", "patternProperties": "empty patternProperties",
                   "dependentRequired": "empty dependencies",
                   "dependentSchemas": "empty dependencies", "dependencies": "empty dependencies"}
_ZERO_KEYS = {"minItems": "minItems: 0", "minLength": "minLength: 0",
              "minProperties": "minProperties: 0"}
_NOOP_CANDIDATES = frozenset(("type", "required", "uniqueItems", *_TRUE_SCHEMA_KEYS,
                              *_EMPTY_MAP_KEYS, *_ZERO_KEYS))
_NOOP_BY_DIALECT = {d: frozenset(k for k in _NOOP_CANDIDATES if M.validates(k, d))
                    for d in M.KEYWORDS}


def noop_keywords(n: dict, d: str, *, root: bool = False,
                  annotations: bool = True) -> list[tuple[str, str]]:
    """``(keyword, label)`` for each keyword of ``n`` that cannot change what ``n`` accepts
    in dialect ``d``:

    * ``additionalProperties``, ``items`` (a schema, not a tuple), ``additionalItems`` or
      ``propertyNames`` that is ``true`` or ``{}``; the first three also produce annotations
      that ``unevaluated*`` reads, so they stay when ``annotations`` (an ``unevaluated*``
      keyword is in the schema);
    * ``type`` when every value the ``const`` (else the ``enum``) allows has one of its
      types (``1.0`` is an integer from draft-06 on, a boolean is no number);
    * ``required: []``, an empty ``properties``/``patternProperties``/``dependentRequired``/
      ``dependentSchemas``/``dependencies``, ``minItems``/``minLength``/``minProperties``
      of 0, ``uniqueItems: false``.

    At the ``root`` the ``type`` and ``properties`` always stay (a tool's inputSchema
    declares ``type: "object"`` with ``properties``; RFC 0112 and MCP want them).
    Only keywords of ``d`` count (an unknown keyword is never touched).
    """
    present = n.keys() & _NOOP_BY_DIALECT[d]
    if not present:
        return []
    out: list[tuple[str, str]] = []
    for k in present:
        v = n[k]
        if k in _TRUE_SCHEMA_KEYS:
            if (v is True or (isinstance(v, dict) and not v)) and \
                    not (annotations and k in _ANNOTATING):
                out.append((k, _TRUE_SCHEMA_KEYS[k]))
        elif k in _EMPTY_MAP_KEYS:
            if isinstance(v, dict) and not v and not (root and k == "properties"):
                out.append((k, _EMPTY_MAP_KEYS[k]))
        elif k in _ZERO_KEYS:
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
                out.append((k, _ZERO_KEYS[k]))
        elif k == "required":
            if isinstance(v, list) and not v:
                out.append((k, "required: []"))
        elif k == "uniqueItems":
            if v is False:
                out.append((k, "uniqueItems: false"))
        elif k == "type" and not root and ("enum" in n or "const" in n) and _type_implied(n, d):
            out.append((k, "type implied by enum/const"))
    return out


def _type_implied(n: dict, d: str) -> bool:
    atoms = M.type_atoms(n.get("type"))
    if atoms is None:
        return False
    if "const" in n and M.validates("const", d):
        values = [n["const"]]
    elif isinstance(n.get("enum"), list) and M.validates("enum", d):
        values = n["enum"]
    else:
        return False
    return all(M.value_atom(v, d) in atoms for v in values)
