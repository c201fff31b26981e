"""Schema prose the compact view gives back after the lowering stripped it, and annotations it drops.

The lowering (:mod:`.lower`) strips every prose key. :func:`restore` then walks the
*original* input schema and, at each schema node that has a string ``description`` and a
node at the same path in the lowered schema, writes back what :func:`.describe.clause` keeps
of it (the sentences carrying a format or unit, a reference to another tool or property,
allowed values or an example; README "What the compact view keeps of the prose"), or the
whole collapsed text (``full``: ``--lossless``). A path is followed only where the lowering
kept the structure: through ``properties``/``$defs``/``items``... by key, and through a
combinator's list only when it has as many branches as the original (a lowered
``allOf`` may have merged branches; its indices then mean other schemas). A node the
lowering reached through a ``$ref`` it inlined gets the description of the ``$ref``'s
target. Adding a description never changes what a schema accepts.

It also drops ``default: null`` from optional properties (an annotation: JSON Schema never
applies it) and reports each one.

The lowered schema's nodes may be shared with other tools (:class:`toolcat.schema.lower.LowerCache`):
nothing is changed in place, the nodes on a written path are copied.
"""

from __future__ import annotations

from typing import Any

from toolcat.document import pointer as jp
from toolcat.features.project import describe
from toolcat.schema.keywords import APPLICATORS, SCHEMA_MAP
from toolcat.schema.lower import EXACT, Change
from toolcat.schema.lower.plan import DEFINITIONS
from toolcat.schema.walker import iter_schemas, local_target, node_dialect

#: the longest kept clause of a schema description, in UTF-16 units (``--description-max``
#: lower: that)
CLAUSE_MAX = 60
#: keys whose value is a list of schemas: followed only when the branch counts agree
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")

def _at(node: Any, path: tuple) -> Any:
    for k in path:
        if isinstance(node, dict) and isinstance(k, str) and k in node:
            node = node[k]
        elif isinstance(node, list) and isinstance(k, int) and k < len(node):
            node = node[k]
        else:
            return None
    return node


def _aligned(original: Any, lowered: Any, path: tuple) -> tuple | None:
    """``path`` as it runs in the lowered schema, or None where it runs nowhere: every list
    on it has as many items in both schemas; a combinator the lowering merged into its
    parent node (``anyOf`` of an object and a string -> one node typed
    ``["object", "string"]``) is stepped over, its branch's keys read as the parent's."""
    a, b = original, lowered
    out: list = []
    i = 0
    while i < len(path):
        k = path[i]
        if k in _LISTS and i + 1 < len(path) and isinstance(b, dict) and k not in b \
                and isinstance(a, dict) and isinstance(a.get(k), list):
            a = _at(a, (k, path[i + 1]))
            i += 2
            if a is None:
                return None
            continue
        if isinstance(k, int):
            if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
                return None
        a = _at(a, (k,))
        b = _at(b, (k,))
        if a is None or b is None:
            return None
        out.append(k)
        i += 1
    return tuple(out)


def _description(node: dict, root: Any) -> str | None:
    d = node.get("description")
    if isinstance(d, str):
        return d
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        try:
            target = local_target(ref, root)
        except MemoryError:   # never a best effort: one line, exit 2 (cli)
            raise
        except Exception:   # noqa: BLE001 -- a reference that resolves to nothing: no prose
            return None
        if isinstance(target, dict) and isinstance(target.get("description"), str):
            return target["description"]
    return None


def _set(node: Any, path: tuple, edit: Any) -> Any:
    """A copy of ``node`` with ``edit(subnode)`` at ``path`` (copies along the path only)."""
    if not path:
        return edit(node)
    k = path[0]
    if isinstance(node, dict):
        return {**node, k: _set(node[k], path[1:], edit)}
    out = list(node)
    out[k] = _set(node[k], path[1:], edit)
    return out


def _properties(nodes: Any) -> set:
    """The property names of the object ``nodes`` (``(path, node)`` pairs)."""
    return {k for _p, n in nodes if isinstance(n.get("properties"), dict)
            for k in n["properties"]}


def _nodes(original: dict, lowered: dict, dialect: str,
           memo: dict | None) -> tuple[list[tuple[tuple, dict]], set]:
    """The object schema nodes of ``original`` that :func:`restore` looks at, ``(path,
    node)`` in the walker's pre-order, and the property names of all of its nodes (what a
    description may name). A definition of the root's definitions map (its last key, as an
    OpenAPI tool's bundled schema has it) that ``lowered`` has no entry of the same name for
    holds no path that runs in ``lowered`` (:func:`_aligned` stops at its name): its nodes
    are left out. Each entry's walk is kept in ``memo`` by object (``None``: none kept): the
    tools of an OpenAPI spec bundle the same definition objects."""
    d0 = node_dialect(original, dialect)
    key = next(reversed(original), "")
    defs = original.get(key) if key in DEFINITIONS else None
    if not isinstance(defs, dict) or APPLICATORS[d0].get(key) != SCHEMA_MAP:
        nodes = [(p, n) for p, n, _d in iter_schemas(original, dialect) if isinstance(n, dict)]
        return nodes, _properties(nodes)
    rest = {k: v for k, v in original.items() if k != key}
    walk = iter_schemas(rest, dialect)
    next(walk)
    nodes = [((), original)]
    nodes.extend((p, n) for p, n, _d in walk if isinstance(n, dict))
    names = _properties(nodes)
    there = lowered.get(key)
    if not isinstance(there, dict):
        there = {}
    for name, sub in defs.items():
        if not isinstance(sub, (dict, bool)):
            continue
        got = memo.get((id(sub), d0)) if memo is not None else None
        if got is None or got[0] is not sub:
            entries = [(p, n) for p, n, _d in iter_schemas(sub, d0) if isinstance(n, dict)]
            got = (sub, entries, _properties(entries))
            if memo is not None:
                memo[(id(sub), d0)] = got
        names |= got[2]
        if name in there:
            prefix = (key, name)
            nodes.extend((prefix + p, n) for p, n in got[1])
    return nodes, names


def restore(original: Any, lowered: Any, dialect: str, limit: int | None,
            pointer: str = "/inputSchema",
            tools: frozenset = frozenset(), memo: dict | None = None,
            ) -> tuple[Any, list[Change]]:
    """``lowered`` with the kept schema descriptions written back (``limit``: the longest
    kept clause in UTF-16 units; None: every description whole, collapsed; 0: none; ``tools``:
    the catalog's tool names, which a description may refer to) and
    ``default: null`` dropped from optional properties; the changes made, for the report.
    ``memo``: the walks of definitions entries, by object, kept by the caller for a run
    (:attr:`toolcat.schema.lower.LowerCache.prose`)."""
    if not isinstance(original, dict) or not isinstance(lowered, dict):
        return lowered, []
    writes: list[tuple[tuple, str]] = []
    nulls: list[tuple] = []
    nodes, prop_names = _nodes(original, lowered, dialect, memo)
    names: Any = tools
    if limit:
        names = describe.Names(tools, prop_names)
    for path, node in nodes:
        if path and limit != 0:
            text = _description(node, original)
            if text is not None:
                writes.append((path, text))
        props = node.get("properties")
        if isinstance(props, dict):
            req = node.get("required")
            req = set(req) if isinstance(req, list) else set()
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub and sub["default"] is None \
                        and name not in req:
                    nulls.append(path + ("properties", name))
    changes: list[Change] = []
    out = lowered
    dropped = 0
    for path in nulls:
        there = _aligned(original, out, path)
        got = _at(out, there) if there is not None else None
        if isinstance(got, dict) and "default" in got and got["default"] is None:
            assert there is not None
            out = _set(out, there, lambda n: {k: v for k, v in n.items() if k != "default"})
            dropped += 1
            changes.append(Change(pointer + jp.encode(path + ("default",)), EXACT,
                                  "default: null on an optional property dropped (an "
                                  "annotation; in the handbook)"))
    kept = 0
    for path, text in writes:
        there = _aligned(original, out, path)
        got = _at(out, there) if there else None
        if not isinstance(got, dict) or "description" in got:
            continue
        assert there is not None
        # what the node says already (an enum, a format) is judged on the lowered node: the
        # same one a second compaction sees
        text = describe.collapse(text) if limit is None else \
            describe.clause(text, min(limit, CLAUSE_MAX), got, names)
        if not text:
            continue
        out = _set(out, there, lambda n, t=text: {**n, "description": t})
        kept += 1
    if kept:
        what = "whole (--lossless)" if limit is None else "cut to the sentences that carry a " \
            "format or unit, a reference, allowed values or an example"
        changes.append(Change(pointer, EXACT, f"{kept} schema description"
                              f"{'' if kept == 1 else 's'} kept, {what} (full text in the "
                              "handbook)"))
    return out, changes


def model_facing(target: Any, item: Any) -> Any:
    """What a model reads of a descriptor written for ``target``: its name (``toolId``),
    ``description`` and input schema, in the descriptor's envelope; output schemas, titles,
    annotations, icons and ``_meta`` apart (clients show or use them, models are not sent
    them)."""
    body = target.body(item)
    if not isinstance(body, dict):
        return item
    keep = {"toolId" if target.openwop_fields else "name", "description",
            target.schema_fields[0]}
    new = {k: v for k, v in body.items() if k in keep}
    if body is item:
        return new
    return {k: (new if v is body else v) for k, v in item.items()}


#: id of a catalog -> (a weak reference to it, id of its tools, their number, the names):
#: a few catalogs' (the API's calls in threads each ask for their own), checked against the
#: catalog itself (an id is reused once its catalog is gone)
_NAMES: dict[int, tuple[Any, int, int, frozenset]] = {}
_NAMES_MAX = 16


def tool_names(cat: Any) -> frozenset:
    """The names of ``cat``'s tools (what a description may refer to), made once per
    catalog of a run."""
    if cat is None:
        return frozenset()
    got = _NAMES.get(id(cat))
    if got is not None and got[0]() is cat and got[1] == id(cat.tools) \
            and got[2] == len(cat.tools):
        return got[3]
    # an OpenWOP toolId is "source:name": descriptions say the name
    names = frozenset(n for t in cat.tools if isinstance(t.id, str)
                      for n in (t.id, t.id.split(":", 1)[-1]))
    import weakref

    try:
        ref = weakref.ref(cat)
    except TypeError:       # (not a model.Catalog: not kept)
        return names
    if len(_NAMES) >= _NAMES_MAX:
        _NAMES.clear()
    _NAMES[id(cat)] = (ref, id(cat.tools), len(cat.tools), names)
    return names
