"""A tool's schema roots as its target needs them (both views; issue 12 items 3 and 7).

Every target: a tool's ``inputSchema`` and ``outputSchema`` root is an object schema, never
a boolean schema (``true`` -> ``{}``, ``false`` -> ``{"not": {}}``: the same instances; the MCP
SDK's validator throws on a boolean schema, ``'$id' in schema``, and its ``ToolSchema``
refuses one).

Targets whose ``ToolSchema`` requires ``type: "object"`` at both roots
(:attr:`~toolcat.formats.targets.Target.typed_object_roots`, MCP):

* **inputSchema**: tool arguments are always a JSON object, so for them ``type: "object"``
  changes nothing: it is added (or a type union is narrowed to it), and a schema that accepts
  no object at all accepts no arguments either, ``{"type": "object", "not": {}}``. Not where
  a reference inside the schema points at its top level (``#``, its ``$id``): that position
  would be restricted too; the schema is kept and the change says the SDK will refuse it.
* **outputSchema**: a tool's ``structuredContent`` is always a JSON object (MCP
  ``CallToolResult``), so the same holds for an output schema that accepts objects. One that
  accepts none (an array, a string, ``null``...), or whose top level is referenced from
  inside, is **wrapped** the way SEP-2106 and the MCP TypeScript SDK v2 project such a schema
  for 2025-11-25 clients: ``{"type": "object", "properties": {"result": S}, "required":
  ["result"]}``, the value under ``result`` (the SDK then sends ``structuredContent:
  {"result": value}``); local references inside ``S`` are re-pointed below
  ``#/properties/result``. Reported with kind ``wrapped``.

Targets whose ``ToolSchema`` wants an object as every root ``properties`` value
(:attr:`~toolcat.formats.targets.Target.boolean_property_schemas` false, MCP SDK 1.x): a
boolean property schema gets its object form.

Each function returns the new schema (the input is never mutated) and the changes made.
"""

from __future__ import annotations

from typing import Any

from toolcat.document import pointer as jp
from toolcat.schema import merge as M
from toolcat.schema.keywords import LEGACY_DIALECTS
from toolcat.schema.lower import (
    EXACT,
    KEPT,
    WRAPPED,
    Change,
    fix_data,
    root_referenced,
    text_count,
    with_object_type,
)
from toolcat.schema.lower.plan import DEFINITIONS
from toolcat.schema.walker import DESCEND, iter_schemas, node_dialect, transform

#: the property SEP-2106 (and the MCP TypeScript SDK v2) wraps a non-object result in
WRAP_PROPERTY = "result"

_OBJECT = frozenset(("object",))


def object_form(schema: Any) -> Any:
    """The object schema that accepts what a boolean schema accepts (other values as given)."""
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return schema


def fit_input(schema: Any, dialect: str, *, typed: bool, boolean_properties: bool,
              pointer: str = "/inputSchema") -> tuple[Any, list[Change]]:
    """``schema`` as a tool's inputSchema root in a target (see the module doc): ``typed``,
    the target requires ``type: "object"``; ``boolean_properties``, it takes a boolean as a
    root ``properties`` value."""
    changes: list[Change] = []
    out = _no_boolean_root(schema, pointer, changes)
    if not isinstance(out, dict):
        return out, changes
    if typed:
        out = _typed_input(out, dialect, pointer, changes)
    if not boolean_properties:
        out = _object_properties(out, pointer, changes)
    return out, changes


def fit_output(schema: Any, dialect: str, *, typed: bool, boolean_properties: bool,
               pointer: str = "/outputSchema", any_value: bool = False,
               memo: dict | None = None) -> tuple[Any, list[Change]]:
    """``schema`` as a tool's outputSchema root in a target (see the module doc).

    ``any_value``: the schema describes a value that may be any JSON (an OpenAPI response
    body), not MCP ``structuredContent`` (always an object): one that names a type other than
    object (an array, ``null``: GitHub's get-content, Intercom's nullable responses) is
    wrapped, exactly, rather than narrowed to its objects (one that names no type at all is
    read as an object, as before). ``memo``: :func:`wrap`'s, kept by the caller for a run."""
    changes: list[Change] = []
    if typed and isinstance(schema, bool):
        # structuredContent is always an object
        out: Any = {"type": "object"} if schema else {"type": "object", "not": {}}
        changes.append(Change(pointer, EXACT,
                              f"the boolean schema {str(schema).lower()} written as "
                              f"{'{type: object}' if schema else '{type: object, not: {}}'} "
                              "(structuredContent is always an object)"))
        return out, changes
    out = _no_boolean_root(schema, pointer, changes)
    if not isinstance(out, dict):
        return out, changes
    if typed:
        out = _typed_output(out, dialect, pointer, changes, any_value, memo)
    if not boolean_properties:
        out = _object_properties(out, pointer, changes)
    return out, changes


# ----------------------------------------------------------------------------- the rules

def _no_boolean_root(schema: Any, pointer: str, changes: list[Change]) -> Any:
    if isinstance(schema, bool):
        changes.append(Change(pointer, EXACT, f"the boolean schema {str(schema).lower()} "
                              "written as an object schema (a tool's schema is an object)"))
        return object_form(schema)
    return schema


def _object_properties(schema: dict, pointer: str, changes: list[Change]) -> dict:
    props = schema.get("properties")
    if not isinstance(props, dict) or not any(isinstance(v, bool) for v in props.values()):
        return schema
    new = {}
    for name, v in props.items():
        if isinstance(v, bool):
            from toolcat.document.pointer import encode

            changes.append(Change(pointer + encode(("properties", name)), EXACT,
                                  f"the boolean schema {str(v).lower()} written as an object "
                                  "schema (the MCP SDK's ToolSchema wants objects here)"))
            v = object_form(v)
        new[name] = v
    return {**schema, "properties": new}


def _typed_input(schema: dict, dialect: str, pointer: str, changes: list[Change]) -> dict:
    if schema.get("type") == "object":
        return schema
    d = node_dialect(schema, dialect)
    made: list = []
    atoms = root_atoms(schema, d, made)
    if atoms is None:
        return schema   # an invalid `type`: the schema is broken as written; left as it is
    if root_referenced(schema, d, made[0] if made else None):
        changes.append(Change(pointer + "/type", KEPT,
                              'no type "object": a reference inside the schema points at its '
                              "top level, which would be restricted too (the MCP SDK's "
                              "ToolSchema refuses this tool)"))
        return schema
    if "object" not in atoms:
        head = {k: schema[k] for k in ("$schema",) if k in schema}
        changes.append(Change(pointer, EXACT,
                              "accepts no object, so no tool arguments: written as "
                              '{type: object, not: {}} (tool arguments are always an object)'))
        return {**head, "type": "object", "not": {}}
    return _set_object_type(schema, pointer, changes, "tool arguments are always an object")


def _typed_output(schema: dict, dialect: str, pointer: str, changes: list[Change],
                  any_value: bool = False, memo: dict | None = None) -> dict:
    if schema.get("type") == "object":
        return schema
    d = node_dialect(schema, dialect)
    made: list = []
    atoms = root_atoms(schema, d, made)
    if atoms is None:
        return schema
    untyped = atoms == _EVERY_TYPE
    if "object" in atoms and not root_referenced(schema, d, made[0] if made else None) \
            and (not any_value or untyped or atoms == {"object"}):
        return _set_object_type(schema, pointer, changes,
                                "structuredContent is always an object")
    wrapped = wrap(schema, d, memo)
    if wrapped is None:
        changes.append(Change(pointer + "/type", KEPT,
                              'not an object schema and not wrapped ($recursiveRef inside); '
                              "the MCP SDK's ToolSchema refuses this tool"))
        return schema
    names = {"int": "integer", "frac": "number"}
    why = ("accepts no object" if "object" not in atoms else
           "the response may also be " + ", ".join(sorted(names.get(a, a) for a in atoms
                                                          if a != "object"))
           if any_value and not untyped else "its top level is referenced from inside")
    changes.append(Change(pointer, WRAPPED,
                          f"{why}: wrapped as {{type: object, properties: {{{WRAP_PROPERTY}: "
                          f"...}}, required: [{WRAP_PROPERTY}]}}, the value under "
                          f"{WRAP_PROPERTY!r} (MCP structuredContent is an object; SEP-2106, "
                          "as the MCP SDK v2 writes it for 2025-11-25 clients)"))
    return wrapped


def _set_object_type(schema: dict, pointer: str, changes: list[Change], why: str) -> dict:
    if "type" not in schema:
        changes.append(Change(pointer + "/type", EXACT, f'added type "object" ({why})'))
        return with_object_type(schema)
    out = dict(schema)
    out["type"] = "object"
    changes.append(Change(pointer + "/type", EXACT, f'type narrowed to "object" ({why})'))
    return out


# ----------------------------------------------------------------------------- atoms

_EVERY_TYPE = frozenset({"null", "object", "int", "frac", "boolean", "string", "array"})

def root_atoms(schema: Any, dialect: str, made: list | None = None) -> frozenset | None:
    """The instance types ``schema`` may accept (an over-approximation: its own ``type``,
    ``enum``, ``const``, what its local ``$ref``, ``allOf``, ``anyOf`` and ``oneOf`` lead to);
    None when its ``type`` is no valid type. ``made``: a list that receives the
    :class:`~toolcat.schema.refs.RefIndex` of ``schema`` when one was built (to reuse)."""
    from toolcat.schema.refs import RefIndex

    idx: list = made if made is not None else []
    plain: list = []

    def index() -> Any:
        if not idx:
            idx.append(RefIndex(schema, dialect))
        return idx[0]

    def target(ref: str, path: tuple) -> tuple | None:
        """(path, node, dialect) of the target of the ``$ref`` at ``path``, or None."""
        if not plain:
            plain.append(_plain_pointers(schema, dialect))
        if plain[0] is not None and ref.startswith("#/") and "%" not in ref:
            # what RefIndex.resolve does for this case, without indexing the schema
            found = jp.walk(schema, [jp.unescape(t) for t in ref[2:].split("/")])
            return None if found is None else (found[0], found[1], plain[0])
        info = index().refs.get(path)
        if info is None or info.target is None:
            return None
        t = info.target
        return t, index().node(t), index().dialect_at(t)

    def atoms(node: Any, path: tuple, d: str, seen: frozenset) -> frozenset:
        if node is True:
            return M.ALL_ATOMS
        if node is False or not isinstance(node, dict):
            return frozenset() if node is False else M.ALL_ATOMS
        out = M.schema_atoms(node, d)
        ref = node.get("$ref")
        if isinstance(ref, str) and path not in seen:
            found = target(ref, path)
            if found is not None:
                t, tnode, td = found
                target_atoms = atoms(tnode, t, td, seen | {path})
                # draft-07 and older: a $ref *is* its target (the keywords beside it are
                # ignored by the letter, applied by Ajv): the wider of the two readings
                out = target_atoms if d in LEGACY_DIALECTS else out & target_atoms
        for key in ("allOf", "anyOf", "oneOf"):
            branches = node.get(key)
            if not isinstance(branches, list) or not M.validates(key, d) or not branches:
                continue
            got = [atoms(b, path + (key, i), d, seen) for i, b in enumerate(branches)]
            if key == "allOf":
                for g in got:
                    out &= g
            else:
                out &= frozenset().union(*got)
        return out

    if isinstance(schema, dict) and "type" in schema and M.type_atoms(schema["type"]) is None:
        return None
    return atoms(schema, (), dialect, frozenset())


def _plain_pointers(schema: Any, dialect: str) -> str | None:
    """The dialect of every node of ``schema`` when nothing in it can change a base URI or
    a dialect below the root (its JSON text has no ``$id``, no draft-04 ``id`` in a draft-04
    schema, no ``$schema`` but the root's): there a ``#/...`` reference without ``%``
    resolves as a JSON pointer from the root, as :class:`RefIndex` resolves it. None when
    something could (then :class:`RefIndex` resolves). An anchor (``$anchor``,
    ``$dynamicAnchor``, ``$recursiveAnchor``) names a node for ``#name``, ``$dynamicRef``
    and ``$recursiveRef``, never a base: no ``#/...`` changes (openai's CompoundFilter
    responses, ``$recursiveAnchor``)."""
    count = text_count(schema)
    if count is None:
        return None
    d = node_dialect(schema, dialect)
    if count(b'"$schema"') > (1 if "$schema" in schema else 0):
        return None
    marks = (b'"$id"',) + ((b'"id"',) if d == "draft4" else ())
    if any(count(m) for m in marks):
        return None
    return d


# ----------------------------------------------------------------------------- wrapping

def wrap(schema: dict, dialect: str, memo: dict | None = None) -> dict | None:
    """``schema`` as the value of property ``result`` of an object (SEP-2106's legacy wrap, as
    the MCP TypeScript SDK v2's ``wrapOutputSchemaForLegacy`` writes it): same-document
    pointers (``#``, ``#/...``) in ``$ref``/``$dynamicRef`` are moved below
    ``#/properties/result``, except inside a subtree whose own ``$id`` sets another base (and
    none at all when the root has one). The root's ``$schema`` moves to the wrapper. None for
    a schema with a ``$recursiveRef`` (2019-09), which the SDK converts; toolcat does not.

    ``memo`` (kept by the caller for a run, whose schemas stay alive and unchanged): where
    the schema's text has no ``$id`` (no base but the document's) and no ``$recursiveRef``,
    each entry of its root's definitions maps is rewritten once per object and dialect (the
    rewrite of a node is then a function of the node alone), shared by the schemas that
    bundle it (an OpenAPI spec's array responses: GitHub REST's 158 bundle the same
    components). The result is never changed in place."""
    count = text_count(schema) if memo is not None else None
    plain = count is not None and not count(b'"$id"') and not count(b'"$recursiveRef"')
    if not plain and any(isinstance(n, dict) and "$recursiveRef" in n for _p, n, _d in
                         iter_schemas(schema, dialect)):
        return None
    head = {"$schema": schema["$schema"]} if "$schema" in schema else {}
    if _new_base(schema.get("$id")):
        inner: Any = schema
    else:
        bases = set() if plain else {p for p, n, _d in iter_schemas(schema, dialect)
                                     if p and isinstance(n, dict) and _new_base(n.get("$id"))}
        prefix = "#/properties/" + WRAP_PROPERTY
        entered: dict[tuple, Any] = {}

        def hook(n: Any, path: tuple, d: str) -> Any:
            if not isinstance(n, dict) or (bases and any(path[:i] in bases
                                                         for i in range(1, len(path) + 1))):
                return n
            out = n
            for k in ("$ref", "$dynamicRef"):
                v = n.get(k)
                if isinstance(v, str) and (v == "#" or v.startswith("#/")):
                    if out is n:
                        out = dict(n)
                    out[k] = prefix + v[1:]
            if entered and path in entered:     # a definitions entry: kept for the run
                key = entered.pop(path)
                if memo is not None:
                    memo[key[1:]] = (key[0], out)   # (held: its id stays its own)
            return out

        def enter(n: Any, path: tuple, d: str) -> Any:
            if len(path) == 2 and path[0] in DEFINITIONS and n.__class__ is dict \
                    and memo is not None:
                got = memo.get((id(n), d))
                if got is not None and got[0] is n:
                    return got[1]
                entered[path] = (n, id(n), d)
            return DESCEND

        inner = transform(schema, hook, dialect, enter=enter if plain else None)
        inner = {k: v for k, v in inner.items() if k != "$schema"}
    return {**head, "type": "object", "properties": {WRAP_PROPERTY: inner},
            "required": [WRAP_PROPERTY]}


def fix_patterns(schema: Any, dialect: str, pointer: str) -> tuple[Any, list[Change]]:
    """``schema`` with the pattern rewrites of :func:`toolcat.schema.lower.fix_data` at
    every node (patterns that ECMA-262's ``u`` mode refuses: Ajv cannot compile the schema
    and the MCP SDK's ``Client.listTools()`` throws), for a standard view; the compact view's
    lowering makes them anyway."""
    count = text_count(schema) if isinstance(schema, dict) else None
    if count is None:
        import orjson

        try:
            count = orjson.dumps(schema).count
        except (TypeError, orjson.JSONEncodeError):
            count = b"\\\\".count
    if not count(b"\\\\"):
        return schema, []
    from toolcat.document.pointer import encode

    renamable = (lambda _k: False) if count(b"patternProperties") and count(b'"$ref"') \
        else None
    changes: list[Change] = []

    def hook(n: Any, path: tuple, d: str) -> Any:
        if not isinstance(n, dict) or not ("pattern" in n or "patternProperties" in n):
            return n
        out, done = fix_data(n, d, renamable, required=False)
        for suffix, what in done:
            changes.append(Change(pointer + encode(path + suffix), EXACT, what))
        return out

    out = transform(schema, hook, dialect)
    return (out, changes) if changes else (schema, [])


def wrap_instance(value: Any) -> Any:
    """The structuredContent a wrapped output schema describes for a tool result ``value``."""
    return {WRAP_PROPERTY: value}


def _new_base(v: Any) -> bool:
    return isinstance(v, str) and not v.startswith("#")
