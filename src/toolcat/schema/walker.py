"""The one schema walker, driven by :mod:`toolcat.schema.keywords`.

* :func:`subschemas` lists the direct subschema positions of a schema node.
* :func:`iter_schemas` visits every schema node of a schema, pre-order, with its path.
* :func:`transform` rebuilds a schema bottom-up through a hook (never mutates its input).
* :func:`sum_schemas` adds up a figure of every schema node, each shared subtree once.

A *path* is a tuple of pointer tokens relative to the schema root, e.g.
``("properties", "owner", "anyOf", 0)``. Property names and other map keys are data:
a property called ``description`` or ``oneOf`` is walked as a subschema *named* so, never
treated as a keyword. Values of data keywords (``enum``, ``const``, ``default``,
``examples``...) are never entered.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from toolcat.schema.keywords import (
    APPLICATORS,
    DRAFT2020,
    SCHEMA,
    SCHEMA_LIST,
    SCHEMA_MAP,
    SCHEMA_OR_LIST,
    SCHEMA_OR_NAMES,
    dialect_from_uri,
)

Path = tuple


def node_dialect(node: dict, inherited: str) -> str:
    """The dialect in force at ``node`` (a nested ``$schema`` switches it)."""
    uri = node.get("$schema")
    return dialect_from_uri(uri, inherited) if uri is not None else inherited


def subschemas(node: Any, dialect: str = DRAFT2020) -> Iterator[tuple[tuple, Any]]:
    """Yield ``(path_suffix, child)`` for each direct subschema of ``node``, in key order."""
    if not isinstance(node, dict):
        return
    app = APPLICATORS[dialect]
    for key, value in node.items():
        shape = app.get(key)
        if shape is None:
            continue
        if shape == SCHEMA:
            if isinstance(value, (dict, bool)):
                yield (key,), value
        elif shape == SCHEMA_MAP:
            if isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, (dict, bool)):
                        yield (key, name), sub
        elif shape == SCHEMA_LIST:
            if isinstance(value, list):
                for i, sub in enumerate(value):
                    if isinstance(sub, (dict, bool)):
                        yield (key, i), sub
        elif shape == SCHEMA_OR_LIST:
            if isinstance(value, (dict, bool)):
                yield (key,), value
            elif isinstance(value, list):
                for i, sub in enumerate(value):
                    if isinstance(sub, (dict, bool)):
                        yield (key, i), sub
        elif shape == SCHEMA_OR_NAMES:
            if isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, (dict, bool)):
                        yield (key, name), sub


def iter_schemas(schema: Any, dialect: str = DRAFT2020,
                 path: Path = ()) -> Iterator[tuple[Path, Any, str]]:
    """Yield ``(path, node, dialect)`` for every schema node, pre-order, document order.

    Iterative (no recursion limit). Shared subtrees are visited once per occurrence. This is
    the hot loop of lint and measure: the subschema table lookup is inlined here (it is the
    same logic as :func:`subschemas`, which a test keeps in step).
    """
    stack: list[tuple[Path, Any, str]] = [(path, schema, dialect)]
    pop = stack.pop
    extend = stack.extend
    applicators = APPLICATORS
    while stack:
        p, node, d = pop()
        if node.__class__ is not dict:
            if node is True or node is False:
                yield p, node, d
            continue
        if "$schema" in node:
            d = node_dialect(node, d)
        yield p, node, d
        app = applicators[d]
        kids: list[tuple[Path, Any, str]] = []
        add = kids.append
        for key, value in node.items():
            shape = app.get(key)
            if shape is None:
                continue
            vcls = value.__class__
            if shape == SCHEMA:
                if vcls is dict or vcls is bool:
                    add((p + (key,), value, d))
            elif shape == SCHEMA_MAP or shape == SCHEMA_OR_NAMES:
                if vcls is dict:
                    for name, sub in value.items():
                        c = sub.__class__
                        if c is dict or c is bool:
                            add((p + (key, name), sub, d))
            elif shape == SCHEMA_LIST:
                if vcls is list:
                    for i, sub in enumerate(value):
                        c = sub.__class__
                        if c is dict or c is bool:
                            add((p + (key, i), sub, d))
            else:  # SCHEMA_OR_LIST
                if vcls is dict or vcls is bool:
                    add((p + (key,), value, d))
                elif vcls is list:
                    for i, sub in enumerate(value):
                        c = sub.__class__
                        if c is dict or c is bool:
                            add((p + (key, i), sub, d))
        if kids:
            kids.reverse()
            extend(kids)


Hook = Callable[[Any, Path, str], Any]


#: what an ``enter`` callback of :func:`transform` returns to have a node walked as usual
DESCEND: Any = object()


def transform(schema: Any, hook: Hook, dialect: str = DRAFT2020, path: Path = (),
              enter: Hook | None = None) -> Any:
    """Rebuild ``schema`` bottom-up: children first, then ``hook(new_node, path, dialect)``.

    ``hook`` returns the node to put in place (it may return its argument). The input is
    never mutated; every object in a schema position is a fresh dict in the result, data
    values (``enum``, ``default``...) are shared.

    ``enter(node, path, dialect)``, when given, is asked first at every schema node, the top
    one included: anything but :data:`DESCEND` is put in place as it is (that subtree is
    not walked and ``hook`` is not called for it), e.g. a result computed before.
    """
    if enter is not None:
        done = enter(schema, path, dialect)
        if done is not DESCEND:
            return done
    if isinstance(schema, bool):
        return hook(schema, path, dialect)
    if not isinstance(schema, dict):
        return schema
    d = node_dialect(schema, dialect) if "$schema" in schema else dialect
    app = APPLICATORS[d]
    new: dict = {}
    for key, value in schema.items():
        shape = app.get(key)
        if shape is None:
            new[key] = value
        elif shape == SCHEMA:
            new[key] = transform(value, hook, d, path + (key,), enter) if isinstance(value, (dict, bool)) else value
        elif shape in (SCHEMA_MAP, SCHEMA_OR_NAMES):
            if isinstance(value, dict):
                new[key] = {
                    name: (transform(sub, hook, d, path + (key, name), enter)
                           if isinstance(sub, (dict, bool)) else sub)
                    for name, sub in value.items()
                }
            else:
                new[key] = value
        elif shape == SCHEMA_LIST or (shape == SCHEMA_OR_LIST and isinstance(value, list)):
            if isinstance(value, list):
                new[key] = [
                    transform(sub, hook, d, path + (key, i), enter) if isinstance(sub, (dict, bool)) else sub
                    for i, sub in enumerate(value)
                ]
            else:
                new[key] = value
        else:  # SCHEMA_OR_LIST holding one schema
            new[key] = transform(value, hook, d, path + (key,), enter) if isinstance(value, (dict, bool)) else value
    return hook(new, path, d)


def count_values(value: Any) -> int:
    """Number of JSON values in ``value`` (for budgets and benchmarks)."""
    n = 0
    stack = [value]
    while stack:
        v = stack.pop()
        n += 1
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return n


def sum_schemas(schema: Any, own: Callable[[dict], int], dialect: str = DRAFT2020,
                memo: dict | None = None) -> int:
    """``sum(own(node))`` over the object nodes :func:`iter_schemas` visits, where a subtree
    met before (the same object, in the same dialect; through ``memo``, kept by the caller
    across calls) adds its remembered sum: the tools of an OpenAPI spec bundle the same
    definitions objects, walked once. ``own`` must depend on the node's content only. The
    plain walk when the schema nests too deeply for the recursion."""
    if memo is None:
        memo = {}
    try:
        return _sum(schema, own, dialect, memo)
    except RecursionError:
        return sum(own(n) for _p, n, _d in iter_schemas(schema, dialect) if n.__class__ is dict)


def _sum(node: Any, own: Callable[[dict], int], dialect: str, memo: dict) -> int:
    if node.__class__ is not dict:
        return 0
    key = (id(node), dialect)
    got = memo.get(key)
    if got is not None and got[0] is node:
        return got[1]
    d = node_dialect(node, dialect) if "$schema" in node else dialect
    n = own(node)
    kids = False
    for _suffix, sub in subschemas(node, d):
        n += _sum(sub, own, d, memo)
        kids = True
    if kids:     # (a leaf is summed again: memory)
        memo[key] = (node, n)   # the node is held: its id stays its own
    return n


def local_refs(schema: Any, dialect: str = DRAFT2020) -> Iterator[tuple[Path, str]]:
    """Yield ``(path, ref)`` of every string ``$ref`` in a schema position."""
    for p, node, _d in iter_schemas(schema, dialect):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                yield p, ref


def local_target(ref: str, root: Any) -> Any:
    """The node a local ``$ref`` (``#``, ``#/a/b%20c``) points at in ``root``; None when the
    reference is not local or leads nowhere."""
    if not ref.startswith("#"):
        return None
    from toolcat.document import pointer as jp

    try:
        return jp.resolve(root, jp.decode_fragment(ref[1:]))
    except (KeyError, ValueError):
        return None


def flagged(node: Any, keyword: str, root: Any, composed: bool = False) -> bool:
    """``node``, or a node its chain of local ``$ref``s in ``root`` leads to, has
    ``keyword: true`` (e.g. ``readOnly`` on a property whose schema is a reference).

    With ``composed``, also through the applicators, as a validator's annotations are
    collected: any `allOf` branch that has it, or every branch of a non-empty `anyOf` /
    `oneOf` (whichever branch validates then carries it), up to 32 schema objects deep
    (each node read once: a shared graph costs its size, not its paths)."""
    if not composed:
        seen: set[int] = set()
        while isinstance(node, dict) and id(node) not in seen:
            if node.get(keyword) is True:
                return True
            seen.add(id(node))
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return False
            node = local_target(ref, root)
        return False
    return _flagged_composed(node, keyword, root, 32, {})


def conjoined_properties(node: Any, root: Any, depth: int = 32) -> list[dict]:
    """The ``properties`` maps that apply to an instance of ``node``: its own and those of
    every schema its `allOf` branches and local ``$ref``s lead to (an instance of the node
    is one of each of them), each node read once, up to ``depth`` links."""
    if isinstance(node, dict) and "allOf" not in node and "$ref" not in node:
        props = node.get("properties")        # the usual case: the node's own, if any
        return [props] if isinstance(props, dict) else []
    out: list[dict] = []
    seen: set[int] = set()
    stack = [(node, depth)]
    while stack:
        n, d = stack.pop()
        if not isinstance(n, dict) or id(n) in seen or d < 0:
            continue
        seen.add(id(n))
        props = n.get("properties")
        if isinstance(props, dict):
            out.append(props)
        ref = n.get("$ref")
        if isinstance(ref, str):
            stack.append((local_target(ref, root), d - 1))
        branches = n.get("allOf")
        if isinstance(branches, list):
            stack.extend((b, d - 1) for b in reversed(branches))
    return out


def flagged_property(name: Any, maps: list[dict], keyword: str, root: Any) -> bool:
    """Property ``name`` is marked ``keyword: true`` (through composition, see
    :func:`flagged`) in one of the ``properties`` maps that apply to it
    (:func:`conjoined_properties`)."""
    return isinstance(name, str) and any(
        name in m and flagged(m[name], keyword, root, composed=True) for m in maps)


def _flagged_composed(node: Any, keyword: str, root: Any, depth: int, memo: dict) -> bool:
    """(memo: id -> result, False while a node is being looked at: each node once, so a
    shared or cyclic graph costs its size, not its paths)"""
    if not isinstance(node, dict) or depth < 0:
        return False
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = False
    got = node.get(keyword) is True
    ref = node.get("$ref")
    if not got and isinstance(ref, str):
        got = _flagged_composed(local_target(ref, root), keyword, root, depth - 1, memo)
    branches = node.get("allOf")
    if not got and isinstance(branches, list):
        got = any(_flagged_composed(b, keyword, root, depth - 1, memo) for b in branches)
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not got and isinstance(branches, list) and branches:
            got = all(_flagged_composed(b, keyword, root, depth - 1, memo) for b in branches)
    memo[id(node)] = got
    return got
