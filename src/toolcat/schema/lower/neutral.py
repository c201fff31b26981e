"""Dialect neutrality: whether a schema declared draft-07 or 2020-12 accepts the same instances
under either (:func:`dialect_neutral`), so that lowering may leave its ``$schema`` out."""

from __future__ import annotations

from typing import Any

from toolcat.schema.keywords import DRAFT2020
from toolcat.schema.walker import iter_schemas

# keywords whose meaning differs between draft-07 and 2020-12 (or that only one defines)
_DIALECT_SENSITIVE = frozenset((
    "prefixItems", "additionalItems", "dependentRequired", "dependentSchemas", "dependencies",
    "unevaluatedProperties", "unevaluatedItems", "minContains", "maxContains", "$anchor",
    "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary",
    "$schema", "id",
    # draft-07 lets a validator assert these (its validation vocabulary, section 8); from
    # 2019-09 on they are annotations only
    "contentMediaType", "contentEncoding", "contentSchema",
))
_NEW_FORMATS = ("uuid", "duration")


_NEUTRAL_MARKERS = tuple(b'"' + k.encode() + b'"' for k in _DIALECT_SENSITIVE
                         if k != "$schema") + (b'"$ref"', b'"items":[') + tuple(
    b'"format":"' + f.encode() + b'"' for f in _NEW_FORMATS)


def _neutral_by_text(schema: dict) -> bool:
    """A shortcut of :func:`dialect_neutral`: True when nothing it looks for can be in the
    schema, because its JSON text has no such key (quoted), no array ``items``, no nested
    ``$schema`` or ``$id`` and no format only 2019-09+ defines. False: walk to decide."""
    import orjson

    try:
        text = orjson.dumps(schema)
    except (TypeError, orjson.JSONEncodeError):
        return False
    if text.count(b'"$schema"') > 1 or text.count(b'"$id"') > (1 if "$id" in schema else 0):
        return False
    return not any(m in text for m in _NEUTRAL_MARKERS)


def dialect_neutral(schema: Any) -> bool:
    """True when ``schema`` (declared draft-07 or 2020-12) accepts the same instances under
    either dialect: no keyword only one of them defines, no tuple ``items``, no ``$ref`` with
    keywords beside it, no nested ``$id``, no format that only 2019-09+ defines."""
    if not isinstance(schema, dict):
        return False
    from toolcat.schema.keywords import CANONICAL_URIS, dialect_from_uri

    uri = schema.get("$schema")
    # only a URI every reader takes for draft-07 or 2020-12 (a custom metaschema, or a
    # spelling python-jsonschema does not know, may mean anything to some reader)
    if not isinstance(uri, str) or uri not in CANONICAL_URIS \
            or dialect_from_uri(uri, "") not in ("draft7", DRAFT2020):
        return False
    rid = schema.get("$id")
    if rid is not None and (not isinstance(rid, str) or "#" in rid):
        return False
    if _neutral_by_text(schema):
        return True
    for d in ("draft7", DRAFT2020):
        for path, node in _reachable_nodes(schema, d):
            for k in node:
                if k in _DIALECT_SENSITIVE and not (k == "$schema" and path == ()):
                    return False
            if path != () and "$id" in node:
                return False
            if isinstance(node.get("items"), list):
                return False
            if "$ref" in node:
                ref = node["$ref"]
                if not isinstance(ref, str) or not ref.startswith("#"):
                    return False  # what a remote target means may depend on the default
                if any(k not in ("$ref", "$defs", "definitions") for k in node
                       if not (path == () and k == "$schema")):
                    return False
            if node.get("format") in _NEW_FORMATS:
                return False
    return True


def _reachable_nodes(schema: dict, dialect: str) -> Any:
    """``(path, node)`` of every object a reader of ``dialect`` evaluates as a schema: the
    schema positions, and the targets of local ``$ref``s wherever they sit (a draft-07 reader
    follows ``#/$defs/x`` although ``$defs`` is no draft-07 keyword), to a fixpoint."""
    from toolcat.document import pointer as jp

    todo: list[tuple[tuple, Any]] = [((), schema)]
    seen: set[int] = {id(schema)}
    while todo:
        start, root = todo.pop()
        for path, node, _d in iter_schemas(root, dialect, start):
            if not isinstance(node, dict):
                continue
            yield path, node
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                try:
                    tokens = jp.decode_fragment(ref[1:])
                    target = jp.resolve(schema, tokens)
                except (KeyError, ValueError):
                    continue
                if isinstance(target, dict) and id(target) not in seen:
                    seen.add(id(target))
                    todo.append((tuple(tokens), target))


def neutral_without_schema(schema: Any) -> bool:
    """:func:`dialect_neutral` for a schema whose ``$schema`` was dropped."""
    if not isinstance(schema, dict):
        return True
    return dialect_neutral({"$schema": "http://json-schema.org/draft-07/schema#", **schema})
