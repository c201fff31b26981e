"""OpenAPI 3.0 / Swagger 2.0 Schema Objects to JSON Schema 2020-12, one node at a time.

:func:`convert_node` rewrites the OpenAPI-only keywords of ONE schema node; the caller
(:mod:`toolcat.formats.openapi.refs`) applies it to every schema node through
:func:`toolcat.schema.walker.transform`, which hands it fresh dicts, so nothing here ever touches
the parsed document.

* ``nullable: true`` (3.0; also met in 3.1 files) and ``x-nullable: true`` (2.0): ``"null"``
  joins ``type`` (and ``enum`` when there is one); a node without ``type`` that constrains
  anything becomes ``{<prose>, "anyOf": [<the constraints>, {"type": "null"}]}``.
* boolean ``exclusiveMinimum``/``exclusiveMaximum`` with ``minimum``/``maximum`` become the
  numeric 2020-12 bound (``false`` and a bound-less ``true`` are dropped: they constrain nothing).
* ``example`` becomes ``examples: [example]`` (an existing ``examples`` wins).
* Swagger 2.0 ``type: file`` becomes ``type: string, format: binary``.
* ``$id``/``$anchor`` are stripped at every schema node: references through them are rewritten
  to ``#/$defs/...`` pointers, and a leftover ``$id`` would change what those pointers mean.

Every other keyword is kept, in place and in order.
"""

from __future__ import annotations

from typing import Any

from toolcat.schema.keywords import ANNOTATION, DRAFT2020, KEYWORDS, PROSE

#: keys that make a node need :func:`convert_node` (``type: file`` is checked separately)
TRIGGERS = frozenset({"nullable", "x-nullable", "example", "exclusiveMinimum",
                      "exclusiveMaximum", "$id", "$anchor"})

_KW = KEYWORDS[DRAFT2020]
# OpenAPI-only keywords that never constrain a value
_OAS_NOTES = frozenset({"xml", "externalDocs"})


def outer_key(key: str) -> bool:
    """Keys that describe rather than constrain (stay outside an ``anyOf`` null wrapper)."""
    if key.startswith("x-") or key in _OAS_NOTES:
        return True
    kw = _KW.get(key)
    return kw is not None and kw.role in (PROSE, ANNOTATION)


def needs_conversion(node: dict, swagger: bool) -> bool:
    if not TRIGGERS.isdisjoint(node.keys()):
        return True
    return swagger and node.get("type") == "file"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def convert_node(node: dict, swagger: bool) -> dict:
    """Return the 2020-12 form of one (already child-converted) schema node."""
    out: dict = {}
    nullable = False
    drop: set[str] = set()
    for k, v in node.items():
        if k == "nullable":
            nullable = nullable or v is True
            continue
        if k == "x-nullable" and swagger:
            nullable = nullable or v is True
            continue
        if k in ("$id", "$anchor"):
            continue
        if k == "example":
            if "examples" not in node:
                out["examples"] = [v]
            continue
        if k in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(v, bool):
            bound = "minimum" if k == "exclusiveMinimum" else "maximum"
            if v and _is_number(node.get(bound)):
                out[k] = node[bound]
                drop.add(bound)
            continue
        if k == "type" and v == "file" and swagger:
            out["type"] = "string"
            if "format" not in node:
                out["format"] = "binary"
            continue
        out[k] = v
    for k in drop:
        out.pop(k, None)
    if nullable:
        out = add_null(out)
    return out


def add_null(schema: dict) -> dict:
    """Make ``schema`` (a fresh dict, may be changed) also accept ``null``."""
    t = schema.get("type")
    if t is not None and "const" not in schema:
        if isinstance(t, str):
            if t != "null":
                schema["type"] = [t, "null"]
        elif isinstance(t, list):
            if "null" not in t:
                schema["type"] = [*t, "null"]
        else:  # not a valid type: keep it, accept null beside it
            return _wrap(schema)
        enum = schema.get("enum")
        if isinstance(enum, list) and None not in enum:
            schema["enum"] = [*enum, None]
        return schema
    inner_keys = [k for k in schema if not outer_key(k)]
    if not inner_keys:
        return schema  # constrains nothing: null is already accepted
    if inner_keys == ["enum"] and isinstance(schema["enum"], list):
        if None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    return _wrap(schema)


def _wrap(schema: dict) -> dict:
    out: dict = {}
    inner: dict = {}
    placed = False
    for k, v in schema.items():
        if outer_key(k):
            out[k] = v
        else:
            inner[k] = v
            if not placed:
                out["anyOf"] = None  # keep the position of the first constraint
                placed = True
    out["anyOf"] = [inner, {"type": "null"}]
    return out
