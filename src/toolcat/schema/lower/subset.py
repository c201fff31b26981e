"""The RFC 0112 compact subset: its violations (:func:`subset_violations`), the top-level
floor of an input schema (:func:`object_floor`: ``type: "object"`` with ``properties``), and
the ``--unlowerable`` policy for a schema that still violates it (:func:`apply_policy`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from toolcat.document.pointer import encode
from toolcat.schema import merge as M
from toolcat.schema.keywords import COMPACT_FORBIDDEN, DRAFT2019, DRAFT2020
from toolcat.schema.lower.changes import EXACT, KEPT, OMITTED, WIDENED, Change, SchemaResult
from toolcat.schema.refs import RefIndex
from toolcat.schema.walker import iter_schemas, node_dialect


def subset_violations(schema: Any, dialect: str = DRAFT2020, *, floor: bool = True) -> list[tuple[str, str]]:
    """RFC 0112 compact-subset violations as (pointer, what); empty when conformant."""
    out: list[tuple[str, str]] = []
    if floor:
        if not isinstance(schema, dict):
            out.append(("", "top level is not an object schema"))
        else:
            if schema.get("type") != "object":
                out.append(("/type", 'top-level type is not "object"'))
            if not isinstance(schema.get("properties"), dict):
                out.append(("/properties", "no top-level properties"))
    for path, node, _d in iter_schemas(schema, dialect):
        if isinstance(node, dict):
            for k in COMPACT_FORBIDDEN:
                if k in node:
                    out.append((encode(path + (k,)), f"{k} is outside the compact subset"))
    return out


def with_object_type(base: dict) -> dict:
    """``base`` with ``type: "object"`` (after its ``$schema`` and ``$id``)."""
    out: dict = {}
    for k in ("$schema", "$id"):
        if k in base:
            out[k] = base[k]
    out["type"] = "object"
    out.update((k, v) for k, v in base.items() if k not in out)
    return out


def root_referenced(schema: Any, dialect: str, idx: RefIndex | None = None) -> bool:
    """Whether a reference inside ``schema`` may resolve to its root (a dynamic one may).
    ``idx``: a :class:`RefIndex` of ``schema`` built before (with ``dialect``)."""
    if idx is None:
        if no_root_refs_by_text(schema, dialect):
            return False
        idx = RefIndex(schema, dialect)
    return idx.dynamic or any(i.target == () for i in idx.refs.values())


def schema_text(schema: Any) -> bytes | None:
    """The JSON text of an object schema for the keyword searches that decide a question
    from the text (None: not an object, or not serializable: decide another way)."""
    import orjson

    if not isinstance(schema, dict):
        return None
    try:
        return orjson.dumps(schema)
    except (TypeError, orjson.JSONEncodeError):
        return None


#: the memo of :func:`text_count` for the call under way (:func:`text_memo`): an OpenAPI
#: spec's tools bundle the same definitions maps (Stripe: 467 output schemas, 137 maps)
_TEXT_MEMO: ContextVar[dict | None] = ContextVar("toolcat_text_memo", default=None)


@contextmanager
def text_memo(memo: dict) -> Iterator[None]:
    """:func:`text_count` keeps what it learns of definitions maps and their entries in
    ``memo`` inside this block (by object: they must stay alive and unchanged meanwhile, as
    the catalogs of one projection do)."""
    token = _TEXT_MEMO.set(memo)
    try:
        yield
    finally:
        _TEXT_MEMO.reset(token)


def text_count(schema: Any) -> Callable[[bytes], int] | None:
    """``schema_text(schema).count`` for the keyword searches (None where
    :func:`schema_text` is None), for needles (not empty) without ``{`` or ``}``.

    Inside :func:`text_memo`, a schema with a definitions map (``$defs`` or ``definitions``)
    of object entries is not serialized whole: its text is the rest's (the map written
    ``{}``) with the map's put in, and the map's is its names' (each entry written ``{}``)
    with each entry's put in. A needle without braces never spans a part's edge (each
    entry's text starts with ``{`` and ends with ``}``, as do the placeholders), so its
    count is the sum of the parts' counts: each map's and each entry's counted once per
    object and needle."""
    memo = _TEXT_MEMO.get()
    if memo is not None and schema.__class__ is dict:
        got = _split_count(schema, memo)
        if got is not None:
            return got
    text = schema_text(schema)
    return None if text is None else text.count


def _split_count(schema: dict, memo: dict) -> Callable[[bytes], int] | None:
    import orjson

    key = None
    for k in ("$defs", "definitions"):
        d = schema.get(k)
        if d.__class__ is dict and d:
            key = k
            break
    if key is None:
        return None
    defs = schema[key]
    rec = memo.get(id(defs))
    if rec is None or rec[0] is not defs:
        if not all(e.__class__ is dict for e in defs.values()):
            return None
        try:
            names = orjson.dumps({name: {} for name in defs})
            for e in defs.values():
                er = memo.get(id(e))
                if er is None or er[0] is not e:
                    memo[id(e)] = (e, orjson.dumps(e), {})
        except (TypeError, orjson.JSONEncodeError):
            return None      # (the whole text cannot be written either)
        empty: dict[bytes, int] = {}
        rec = memo[id(defs)] = (defs, names, empty)
    try:
        rest = orjson.dumps({k: ({} if k == key else v) for k, v in schema.items()})
    except (TypeError, orjson.JSONEncodeError):
        return None
    names, counts = rec[1], rec[2]

    def count(needle: bytes) -> int:
        if not needle or b"{" in needle or b"}" in needle:
            raise ValueError("an empty needle, or one with a brace")
        n = counts.get(needle)
        if n is None:
            n = names.count(needle)
            for e in defs.values():
                er = memo[id(e)]
                c = er[2].get(needle)
                if c is None:
                    c = er[2][needle] = er[1].count(needle)
                n += c
            counts[needle] = n
        return rest.count(needle) + n

    return count


def no_root_refs_by_text(schema: Any, dialect: str | None = None) -> bool:
    """A shortcut of :func:`root_referenced`: True when no reference in ``schema`` can lead to
    its root, because its JSON text has no dynamic reference key and every ``"$ref"`` key
    (anywhere, data included) holds a string that starts with ``#/``: such a pointer names a
    member below a resource's root, never a root (a resource's root is the document's or
    an embedded one's, and ``#/...`` adds at least one token). False: index to decide.

    ``dialect`` (the one :func:`root_referenced` is given): where no ``$schema`` below the
    root can change it, only the dynamic key of the root's dialect is one (``$dynamicRef``
    in 2020-12, ``$recursiveRef`` in 2019-09, as :class:`RefIndex` reads them): openai's
    2020-12 responses write ``$recursiveRef``, an unknown keyword there."""
    count = text_count(schema)
    if count is None:
        return False
    keys: tuple[bytes, ...] = (b'"$dynamicRef"', b'"$recursiveRef"')
    if dialect is not None and isinstance(schema, dict) and \
            count(b'"$schema"') <= (1 if "$schema" in schema else 0):
        d = node_dialect(schema, dialect)
        keys = (b'"$dynamicRef"',) if d == DRAFT2020 else \
            (b'"$recursiveRef"',) if d == DRAFT2019 else ()
    if any(count(k) for k in keys):
        return False
    return count(b'"$ref":') == count(b'"$ref":"#/')


def object_floor(schema: Any, dialect: str, pointer: str, widen: bool) -> tuple[Any, list[Change], bool]:
    """Give an inputSchema the top-level floor: ``type: "object"`` with ``properties``.

    Tool arguments are always a JSON object, so restricting the top level to objects changes
    nothing a tool can receive (``exact``). A top level that accepts no object at all can only
    be replaced (``widened``). Returns (schema, changes, ok).
    """
    changes: list[Change] = []
    if schema is True or (isinstance(schema, dict) and not schema):
        return {"type": "object", "properties": {}}, [
            Change(pointer, EXACT, "accepts anything; written as an empty object schema "
                   "(tool arguments are always an object)")], True
    if not isinstance(schema, dict):
        if not widen:
            return schema, [], False
        changes.append(Change(pointer, WIDENED, "not an object schema; replaced by an empty object schema"))
        return {"type": "object", "properties": {}}, changes, True
    if schema.get("type") != "object" and root_referenced(schema, dialect):
        # a $ref to the top level (`#`, its $id or $anchor) sees the same node: giving it
        # type "object" would restrict those positions too, which is not exact
        if not widen:
            return schema, [], False
        changes.append(Change(pointer, WIDENED, "the top level is referenced from inside the "
                              "schema; replaced by an empty object schema"))
        return {"type": "object", "properties": {},
                **({"$schema": schema["$schema"]} if "$schema" in schema else {})}, changes, True
    if "type" not in schema:
        if "object" not in M.schema_atoms(schema, dialect):
            if not widen:
                return schema, [], False
            changes.append(Change(pointer, WIDENED, "accepts no object; replaced by an empty object schema"))
            return {"type": "object", "properties": {}}, changes, True
        schema = with_object_type(schema)
        changes.append(Change(pointer + "/type", EXACT,
                              'added type "object" (tool arguments are always an object)'))
    out = dict(schema)
    t = M.type_atoms(out.get("type"))
    if out.get("type") != "object":
        if t is not None and "object" in t:
            out["type"] = "object"
            changes.append(Change(pointer + "/type", EXACT,
                                  'type narrowed to "object" (tool arguments are always an object)'))
        else:
            if not widen:
                return schema, [], False
            changes.append(Change(pointer, WIDENED, "accepts no object; replaced by an empty object schema"))
            keep = {k: v for k, v in out.items() if not M.validates(k, dialect) and k != "type"}
            out = {"type": "object", "properties": {}, **{k: v for k, v in keep.items()
                                                          if k in ("$schema", "$id")}}
            return out, changes, True
    if not isinstance(out.get("properties"), dict):
        if "properties" in out:
            if not widen:
                return out, changes, False
            changes.append(Change(pointer + "/properties", WIDENED, "malformed properties replaced"))
        else:
            changes.append(Change(pointer + "/properties", EXACT, "added empty properties"))
        # keep key order: properties right after type
        new: dict = {}
        for k, v in out.items():
            if k == "properties":
                continue
            new[k] = v
            if k == "type":
                new["properties"] = {}
        out = new
    return out, changes, True


def apply_policy(res: SchemaResult, dialect: str, pointer: str, unlowerable: str,
                 floor: bool) -> SchemaResult:
    """``res`` judged against the compact subset: conformant, or what ``unlowerable`` says
    (``omit``: the schema is dropped; otherwise each violation is reported ``kept``)."""
    v = subset_violations(res.schema, dialect, floor=floor)
    if not v:
        res.conformant = True
        return res
    res.conformant = False
    res.unlowerable = True
    if unlowerable == "omit":
        res.changes.append(Change(pointer, OMITTED, "dropped: " + "; ".join(
            f"{pointer}{p} {w}" for p, w in v[:5]) + ("; ..." if len(v) > 5 else "")))
        res.schema = None
        res.omitted = True
        res.conformant = True
        return res
    for p, w in v:
        res.changes.append(Change(pointer + p, KEPT, w))
    return res
