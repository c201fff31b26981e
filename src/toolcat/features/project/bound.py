"""Bound a compact view's output schema (``--output-schema bounded``, the compact default).

An output schema tells a client what ``structuredContent`` holds; an OpenAPI operation's
response bundles every component it reaches (a Stripe tool's is ~700 KB, 512 definitions),
nothing a host shows a model or needs to check a result. :func:`bound_output` keeps the
structure near the root of the value and widens what lies deeper to ``{}`` (any value):

* *depth* is the depth of the JSON value a subschema describes: the root schema is at 0;
  ``properties``, ``patternProperties``, ``additionalProperties``, ``items``,
  ``prefixItems``, ``additionalItems``, ``contains``, ``propertyNames``,
  ``unevaluated*`` and ``contentSchema`` go one level down; ``allOf``/``anyOf``/``oneOf``/
  ``not``/``if``/``then``/``else``/``dependentSchemas``/``dependencies`` and ``$ref`` stay
  at the same level (a definition is at the least depth any kept ``$ref`` reaches it);
* the bound is the deepest level ``D`` whose schema (subschemas at depth <= ``D``, each
  deeper one ``{}``) weighs at most ``budget`` bytes (canonical JSON without prose and
  ``x-*`` keys, i.e. what the compact view keeps of it, before factoring); the root level
  is always kept. A schema that fits whole is returned as it is (the same object), so
  ``bounded`` is ``full`` for every output schema within the budget;
* each cut is a ``widened`` :class:`~toolcat.schema.lower.Change` with its pointer.

Sound (every instance the schema accepts, the bounded one accepts): a subschema replaced by
``{}`` accepts more; where "more" is not monotone the keyword above it is widened too, and
reported: a ``not`` over a widened subschema is dropped, a ``oneOf`` with a widened branch
becomes ``anyOf``, ``if``/``then``/``else`` whose ``if`` was widened are dropped, a
``maxContains`` whose ``contains`` was widened is dropped. Property names stay (a widened
property stays allowed under ``additionalProperties: false``), ``required`` stays; a
definition no kept ``$ref`` reaches is left out. One version of each definition is kept
(bounded at the least depth it is used at; used deeper, it reaches a little further), so the
result is never larger than the input.

What this cannot bound soundly is returned unchanged (``full``): a schema with ``$id``,
anchors, ``$dynamicRef``/``$recursiveRef``, a nested ``$schema``, a ``$ref`` other than
``#`` or ``#/$defs/NAME`` / ``#/definitions/NAME``, or ``if`` dropped where
``unevaluated*`` may read its annotations.
"""

from __future__ import annotations

import heapq
from typing import Any, Iterator
from urllib.parse import unquote

from toolcat.document.pointer import encode, unescape
from toolcat.schema.keywords import (
    ANCHOR_KEYWORDS,
    ANNOTATION,
    APPLICATORS,
    KEYWORDS,
    PROSE,
    SCHEMA_LIST,
    SCHEMA_MAP,
    SCHEMA_OR_LIST,
    SCHEMA_OR_NAMES,
)
from toolcat.schema.lower import WIDENED, Change

#: the default budget of one output schema, in bytes of canonical JSON without prose (about
#: 1,000 o200k tokens); chosen and measured in README "Output schemas"
OUTPUT_BUDGET = 4096

POLICIES = ("full", "bounded", "none")

#: the least bound of an input schema written in the RFC 0112 subset (:func:`bound_inlined`),
#: in the same bytes: a small schema whose few shared definitions are copied stays whole
SUBSET_FLOOR = 4096

#: keywords whose subschemas describe a value one level down
_DOWN = frozenset(("properties", "patternProperties", "additionalProperties", "items",
                   "prefixItems", "additionalItems", "contains", "propertyNames",
                   "unevaluatedItems", "unevaluatedProperties", "contentSchema"))
_DEFS = ("$defs", "definitions")
_UNSUPPORTED = frozenset(("$id", "$dynamicRef", "$recursiveRef", "$schema") + ANCHOR_KEYWORDS)
_UNEVALUATED = ("unevaluatedItems", "unevaluatedProperties")
_ROOT = None    # the root's id among the definitions


class _Unsupported(Exception):
    pass


#: the keywords of each dialect that say nothing about what is accepted: prose and other
#: annotations (what :func:`_plain_key` and :func:`_trivial` are given)
_PLAIN: dict[str, frozenset] = {
    d: frozenset(k for k, kw in table.items() if kw.role in (PROSE, ANNOTATION))
    for d, table in KEYWORDS.items()}


def _plain_key(key: str, plain: frozenset) -> bool:
    """A key that says nothing about what is accepted: prose, ``x-*``, other annotations
    (``plain``: the dialect's :data:`_PLAIN`)."""
    return key.startswith("x-") or key in plain


def _trivial(sub: Any, plain: frozenset) -> bool:
    """Does ``sub`` accept every value already (nothing to widen)?"""
    if sub is True:
        return True
    if sub.__class__ is not dict:
        return False
    for k in sub:
        if k not in plain and not k.startswith("x-"):
            return False
    return True


class _Info:
    """One definition's body walked once, by relative depth: the weight of its subschemas
    (``weights``) and of its leaves (``leaves``, :func:`_leaf`), how many are not leaves
    (``stubs``: each is ``{}`` when cut there); the deepest one that is not a leaf; its
    ``$ref`` s."""

    __slots__ = ("weights", "leaves", "stubs", "deepest", "refs", "uneval")

    def __init__(self) -> None:
        self.weights: list[int] = []
        self.leaves: list[int] = []
        self.stubs: list[int] = []
        self.deepest = -1
        self.refs: list[tuple[int, Any]] = []
        self.uneval = False


def _ref_target(ref: Any, root: dict) -> Any:
    """The definition id a ``$ref`` names: ``_ROOT`` for ``#``, ``(key, name)`` for
    ``#/$defs/NAME`` or ``#/definitions/NAME``; else :class:`_Unsupported`."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise _Unsupported(ref)
    frag = unquote(ref[1:])
    if frag == "":
        return _ROOT
    parts = frag.split("/")
    if len(parts) != 3 or parts[0] != "" or parts[1] not in _DEFS:
        raise _Unsupported(ref)
    name = unescape(parts[2])
    defs = root.get(parts[1])
    if not isinstance(defs, dict) or not isinstance(defs.get(name), (dict, bool)):
        raise _Unsupported(ref)
    return (parts[1], name)


def _leaf_chain(sub: Any, root: dict, app: dict, table: frozenset) -> list | None:
    """The definitions a leaf reaches (``[]`` for most; a ``$ref`` alone to a leaf: its
    target and on), or None when ``sub`` is not a leaf. A leaf is a subschema with no
    subschema and no ``$ref`` but to a leaf: kept whole one level below the bound (a scalar
    field costs about what its ``{}`` would; factoring may have moved it into ``$defs``,
    which must not change what is kept)."""
    chain: list = []
    while True:
        if sub.__class__ is not dict or _trivial(sub, table):
            return chain
        ref = None
        for k in sub:
            if k in app or k in _DEFS:
                return None
            if k == "$ref":
                ref = sub[k]
        if ref is None:
            return chain
        tgt = _ref_target(ref, root)
        if tgt is _ROOT or tgt in chain:
            return None
        chain.append(tgt)
        sub = _body(root, tgt)


def _data_weight(key: str, value: Any) -> int:
    """The weight of ``"key": value`` for a keyword whose value holds no subschema."""
    import orjson

    try:
        return len(key) + 3 + len(orjson.dumps(value))
    except TypeError:       # an integer beyond 64 bits (DigitalOcean's)
        from toolcat.document.canonical import dumps

        return len(key) + 3 + len(dumps(value))


def _members(node: dict, app: dict, table: frozenset) -> Iterator[tuple[str, int, Any, bool]]:
    """The one dispatch on keyword shapes that both accountings (:func:`_walk`, by level;
    :func:`inlined_weight`, with each ``$ref`` replaced) read: each member of the schema
    object ``node`` (its ``$defs``/``definitions`` apart) as ``(key, weight, None, down)``,
    the weight of ``"key": value`` in canonical JSON without prose and ``x-*`` keys apart
    from its subschemas (0 for such a key; a ``$ref`` weighs as data here), then each
    subschema (a dict or a bool) as ``(key, weight, sub, down)`` (the weight of its name in
    a map); ``down``: it describes a value one level down."""
    for k, v in node.items():
        if k in _DEFS:
            continue
        shape = app.get(k)
        if shape is None:
            yield k, (0 if _plain_key(k, table) else _data_weight(k, v)), None, False
            continue
        down = k in _DOWN
        yield k, len(k) + 5, None, down
        if shape == SCHEMA_MAP or shape == SCHEMA_OR_NAMES:
            if v.__class__ is dict:
                for name, sub in v.items():
                    if sub.__class__ is dict or sub.__class__ is bool:
                        yield k, len(name) + 4, sub, down
                    else:
                        yield k, len(name) + 4, None, down
        elif shape == SCHEMA_LIST or (shape == SCHEMA_OR_LIST and v.__class__ is list):
            if v.__class__ is list:
                for sub in v:
                    if sub.__class__ is dict or sub.__class__ is bool:
                        yield k, 0, sub, down
        elif v.__class__ is dict or v.__class__ is bool:
            yield k, 0, v, down


def _walk(body: Any, root: dict, dialect: str, top: bool) -> _Info:
    """Walk one definition's body (the root's without its ``$defs``): the accounting by
    level (:class:`_Info`)."""
    app = APPLICATORS[dialect]
    table = _PLAIN[dialect]
    info = _Info()
    weights, leaves, stubs = info.weights, info.leaves, info.stubs
    stack = [(body, 0)]
    while stack:
        node, rel = stack.pop()
        while len(weights) <= rel + 1:
            weights.append(0)
            leaves.append(0)
            stubs.append(0)
        if node.__class__ is not dict:
            weights[rel] += 5
            leaves[rel] += 5
            continue
        if _trivial(node, table):
            continue
        w = 2
        leaf = _leaf_chain(node, root, app, table) is not None
        last = None
        for k, kw, sub, down in _members(node, app, table):
            if k is not last:       # the member's first item: what its key says
                last = k
                if k in _UNSUPPORTED and not (top and k == "$schema" and node is body):
                    raise _Unsupported(k)
                if dialect == "draft4" and k == "id":
                    raise _Unsupported(k)
                if k == "$ref":
                    info.refs.append((rel, _ref_target(node[k], root)))
                elif k in _UNEVALUATED:
                    info.uneval = True
            w += kw
            if sub is not None:
                stack.append((sub, rel + 1 if down else rel))
        weights[rel] += w
        if leaf:
            leaves[rel] += w
        else:
            stubs[rel] += 1
            if rel > info.deepest:
                info.deepest = rel
    return info


def _info(body: Any, root: dict, dialect: str, top: bool, memo: dict | None) -> _Info:
    if memo is None or top:
        return _walk(body, root, dialect, top)
    mkey = (id(body), dialect)
    got = memo.get(mkey)
    if got is not None and got[0] is body:
        for _rel, tgt in got[1].refs:        # walked in another root: its refs name these?
            if tgt is not _ROOT:
                defs = root.get(tgt[0])
                if not isinstance(defs, dict) or not isinstance(defs.get(tgt[1]),
                                                                (dict, bool)):
                    raise _Unsupported(tgt)
        return got[1]
    info = _walk(body, root, dialect, top)
    memo[mkey] = (body, info)       # the body is kept alive: its id names it
    return info


def bound_output(schema: Any, dialect: str, budget: int = OUTPUT_BUDGET,
                 pointer: str = "/outputSchema", memo: dict | None = None,
                 reason: str | None = None) -> tuple[Any, list[Change]]:
    """``schema`` bounded to ``budget`` (see the module docstring): the schema (``schema``
    itself when it fits whole or cannot be bounded soundly) and a ``widened`` change per
    cut. ``memo``: the walks of definition bodies, by object, kept by the caller for a run
    (an OpenAPI spec's tools bundle the same definition objects)."""
    if not isinstance(schema, dict):
        return schema, []
    try:
        return _bound(schema, dialect, budget, pointer, memo, reason)
    except (_Unsupported, RecursionError):
        return schema, []


def _body(root: dict, did: Any) -> Any:
    return root if did is _ROOT else root[did[0]][did[1]]


def _bound(root: dict, dialect: str, budget: int, pointer: str,
           memo: dict | None, reason: str | None = None) -> tuple[Any, list[Change]]:
    # least depths of the definitions (Dijkstra over $ref edges), walked as needed
    least: dict[Any, int] = {}
    infos: dict[Any, _Info] = {}
    heap: list[tuple[int, int, Any]] = [(0, 0, _ROOT)]
    order: dict[Any, int] = {_ROOT: 0}
    depth = 0
    while True:
        while heap and heap[0][0] <= depth:
            m, _n, did = heapq.heappop(heap)
            if did in least:
                continue
            least[did] = m
            info = infos[did] = _info(_body(root, did), root, dialect, did is _ROOT, memo)
            for rel, tgt in info.refs:
                if tgt not in least:
                    n = order.setdefault(tgt, len(order))
                    heapq.heappush(heap, (m + rel, n, tgt))
        weight = 0
        cut = False
        for did, m in least.items():
            info = infos[did]
            lim = depth - m
            weight += sum(info.weights[:lim + 1])
            if info.deepest > lim:
                cut = True
                weight += 3 * info.stubs[lim + 1] + info.leaves[lim + 1]
        if not cut:
            return root, []         # nothing below the levels kept (within budget or not)
        if weight > budget:
            break
        depth += 1
    bound = max(depth - 1, 0)
    return _build(root, dialect, bound, least, infos, pointer, budget, reason)


def _build(root: dict, dialect: str, bound: int, least: dict, infos: dict, pointer: str,
           budget: int, reason: str | None = None) -> tuple[Any, list[Change]]:
    kept = {did: m for did, m in least.items() if m <= bound}
    # which kept definitions differ from the input (a cut in them or in one they reach)
    rev: dict[Any, list] = {}
    differs: set = set()
    for did, m in kept.items():
        info = infos[did]
        lim = bound - m
        if info.deepest > lim:
            differs.add(did)
        for rel, tgt in info.refs:
            if rel <= lim:
                rev.setdefault(tgt, []).append(did)
    todo = list(differs)
    while todo:
        for src in rev.get(todo.pop(), ()):
            if src not in differs:
                differs.add(src)
                todo.append(src)
    app = APPLICATORS[dialect]
    table = _PLAIN[dialect]
    changes: list[Change] = []
    why = (f"widened to {{}}: below depth {bound} of the value ("
           + (reason or f"--output-schema bounded: {budget:,} bytes per output schema; "
              "--output-schema full keeps it") + ")")
    dropped_if = False
    extra: set = set()      # definitions only leaves one level below the bound reach

    def below(sub: Any, path: tuple) -> Any:
        """A subschema one level below the bound: a leaf as it is, else ``{}``."""
        if _trivial(sub, table):
            return sub, False
        chain = _leaf_chain(sub, root, app, table)
        if chain is not None:
            extra.update(chain)
            return sub, False
        changes.append(Change(pointer + encode(path), WIDENED, why))
        return {}, True

    def build(node: Any, rel: int, lim: int, path: tuple) -> tuple[Any, bool]:
        nonlocal dropped_if
        if node.__class__ is not dict:
            return node, False
        if _trivial(node, table):
            return node, False
        new: dict = {}
        changed: dict[str, bool] = {}
        for k, v in node.items():
            if k in _DEFS:
                continue            # the root's are rebuilt below; nested ones are unused
            shape = app.get(k)
            if shape is None:
                new[k] = v
                continue
            down = rel + 1 if k in _DOWN else rel
            ch = False
            if shape == SCHEMA_MAP or shape == SCHEMA_OR_NAMES:
                if v.__class__ is dict:
                    out = {}
                    for name, sub in v.items():
                        if sub.__class__ is dict or sub.__class__ is bool:
                            if down > lim:
                                out[name], c = below(sub, path + (k, name))
                            else:
                                out[name], c = build(sub, down, lim, path + (k, name))
                            ch = ch or c
                        else:
                            out[name] = sub
                    v = out
            elif shape == SCHEMA_LIST or (shape == SCHEMA_OR_LIST and v.__class__ is list):
                if v.__class__ is list:
                    out_l = []
                    for i, sub in enumerate(v):
                        if sub.__class__ is dict or sub.__class__ is bool:
                            if down > lim:
                                got, c = below(sub, path + (k, i))
                            else:
                                got, c = build(sub, down, lim, path + (k, i))
                            out_l.append(got)
                            ch = ch or c
                        else:
                            out_l.append(sub)
                    v = out_l
            elif v.__class__ is dict or v.__class__ is bool:
                if down > lim:
                    v, ch = below(v, path + (k,))
                else:
                    v, ch = build(v, down, lim, path + (k,))
            new[k] = v
            changed[k] = ch
        any_change = any(changed.values())
        if "$ref" in node and _ref_target(node["$ref"], root) in differs:
            any_change = True
        here = pointer + encode(path)
        if changed.get("not"):
            del new["not"]
            changes.append(Change(here + "/not", WIDENED,
                                  "not dropped: its subschema was widened by the bound"))
        if changed.get("oneOf"):
            branches = new.pop("oneOf")
            if "anyOf" in new:
                new["allOf"] = [*new.get("allOf", []), {"anyOf": branches}]
            else:
                new["anyOf"] = branches
            changes.append(Change(here + "/oneOf", WIDENED,
                                  "oneOf is now anyOf: a branch was widened by the bound"))
        if changed.get("if"):
            for k in ("if", "then", "else"):
                new.pop(k, None)
            dropped_if = True
            changes.append(Change(here + "/if", WIDENED, "if/then/else dropped: the if "
                                  "subschema was widened by the bound"))
        if changed.get("contains") and "maxContains" in new:
            del new["maxContains"]
            changes.append(Change(here + "/maxContains", WIDENED, "maxContains dropped: "
                                  "contains was widened by the bound"))
        return new, any_change

    out, _ = build(root, 0, bound, ())
    built = {}
    for did, m in kept.items():
        if did is not _ROOT:
            built[did], _ = build(_body(root, did), 0, bound - m, did)
    for did in extra:
        if did not in built and did is not _ROOT:
            built[did] = _body(root, did)       # a leaf
    for key in _DEFS:
        defs = root.get(key)
        if isinstance(defs, dict):
            kept_defs = {}
            for name, body in defs.items():
                if (key, name) in built:
                    kept_defs[name] = built[(key, name)]
            if kept_defs:
                out[key] = kept_defs
        elif defs is not None:
            out[key] = defs
    if dropped_if and any(infos[d].uneval for d in kept):
        raise _Unsupported("unevaluated")
    return out, changes


def inlined_weight(schema: Any, dialect: str, limit: int) -> int:
    """The weight (as :func:`bound_output` weighs: canonical JSON without prose and ``x-*``
    keys) of ``schema`` with every local ``$ref`` replaced by what it names, as the RFC 0112
    subset writes it (a ``$ref`` back into one being expanded counts as ``{}``: the lowering
    widens it there). Stops counting past ``limit`` (returns a value above it), so the cost
    is bounded by ``limit``, not by the expansion."""
    app = APPLICATORS[dialect]
    table = _PLAIN[dialect]
    root = schema
    memo: dict[int, int] = {}

    def weigh(node: Any, active: frozenset, budget: int) -> int:
        if node.__class__ is not dict:
            return 5
        w = 2
        for k, kw, sub, _down in _members(node, app, table):
            if w > budget:
                return w
            if k == "$ref":
                try:
                    did = _ref_target(node[k], root)
                except _Unsupported:
                    w += kw         # weighed as data
                    continue
                body = _body(root, did)
                if id(body) in active:
                    w += 2
                    continue
                got = memo.get(id(body))
                if got is None:
                    got = weigh(body, active | {id(body)}, budget - w)
                    if got <= budget - w:
                        memo[id(body)] = got
                w += got
                continue
            w += kw
            if sub is not None:
                w += weigh(sub, active, budget - w)
        return w

    if not isinstance(schema, dict):
        return 5
    try:
        return weigh(schema, frozenset((id(schema),)), limit)
    except RecursionError:
        return limit + 1


def bound_inlined(schema: Any, dialect: str, limit: int, pointer: str = "/inputSchema",
                  memo: dict | None = None,
                  reason: str | None = None) -> tuple[Any, list[Change]]:
    """``schema`` bounded (as :func:`bound_output` bounds, the same sound widening with a
    ``widened`` change per cut) so that written without ``$ref`` (the RFC 0112 subset, which
    copies a definition wherever it is used) it weighs at most ``limit``: the deepest levels
    that fit are kept. A shared definition copied into every place that uses it is what
    makes an inlined schema grow past its source (Xero's ``createOverpaymentAllocations``:
    456 KB inlined from a 4 MB spec's shared invoice types); ``schema`` itself when it fits,
    or when it cannot be bounded soundly (see the module docstring)."""
    if not isinstance(schema, dict) or inlined_weight(schema, dialect, limit) <= limit:
        return schema, []
    budget = limit
    best: tuple[Any, list[Change]] = (schema, [])
    while True:
        got = bound_output(schema, dialect, budget, pointer, memo,
                           reason or f"written without $ref it would weigh over {limit:,} bytes")
        if got[0] is not schema:    # (the same object: it fits the budget whole, or
            best = got              # cannot be bounded soundly)
            if inlined_weight(got[0], dialect, limit) <= limit:
                return best
        if budget <= 64:
            return best
        budget //= 2
