"""Factor repeated identical subschemas into ``$defs`` + ``$ref`` where that is smaller.

Generated schemas often repeat one subschema many times (a generator inlined every use of
a type). :func:`factor_schema` replaces each repeated subtree by ``{"$ref": "#/$defs/NAME"}``
and keeps one copy under the root's definitions, when that makes the canonical bytes
smaller. It is an exact rewrite (the schema accepts the same instances), under conditions
that make it provably so; where one does not hold, the schema is left as it is:

* the dialect is the same everywhere (no ``$schema`` below the root) and nothing depends on
  a location: no ``$id`` (draft-04 ``id``) below the root, no ``$anchor``,
  ``$dynamicAnchor``, ``$recursiveAnchor``, ``$dynamicRef`` or ``$recursiveRef`` anywhere;
* every ``$ref`` is a JSON pointer into the document itself (``#`` or ``#/...``) that
  resolves to a schema position, so its meaning does not change when it moves: the base
  URI is the root's everywhere, and a pointer from the root means the same from anywhere;
* a subtree that holds a ``$ref`` target, or is one, never moves (nothing points into a
  moved subtree), and the root never moves;
* whole nodes are replaced, so a new ``$ref`` has no siblings (draft-07 and earlier ignore
  a ``$ref``'s siblings); in 2019-09 and 2020-12 a ``$ref`` is an in-place applicator, so
  ``unevaluatedProperties``/``unevaluatedItems`` see the annotations of the referenced
  subschema exactly as they saw the inlined one;
* in draft-07 and earlier, a root with a ``$ref`` (whose siblings are ignored) is left alone.

The definitions go to ``$defs`` (2019-09, 2020-12) or ``definitions`` (draft-07 and
earlier): the existing map when there is one (new names never collide with its entries),
else a new one at the end of the root. Names come from the nearest property name of the
first occurrence (``address``, ``address_item`` for its ``items``...), made unique with a
number; the choice depends only on the schema, so the output is byte-stable. A group of
identical subtrees is factored only when the replacement saves bytes, larger subtrees
first, and a definition stays only while it pays by the rule :mod:`toolcat.schema.lower`
inlines references by, so re-projecting the result keeps it (every catalog of the corpora
projects to a fixpoint; on contrived schemas a second pass can still find a little more).
"""

from __future__ import annotations

import re
from typing import Any

from toolcat.document import pointer as jp
from toolcat.document.canonical import dumps
from toolcat.document.pointer import encode
from toolcat.schema.keywords import (
    ANCHOR_KEYWORDS,
    DRAFT2019,
    DRAFT2020,
    DYNAMIC_REFERENCE_KEYWORDS,
)
from toolcat.schema.lower.plan import entry_size, ref_size
from toolcat.schema.walker import iter_schemas, node_dialect, transform

_LOCATION_KEYS = ANCHOR_KEYWORDS + DYNAMIC_REFERENCE_KEYWORDS
_LOCATION_SET = frozenset(_LOCATION_KEYS)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_]+")
_NAME_MAX = 24
_MIN_BYTES = 20     # a smaller subtree never pays for its $ref (`{"$ref":"#/$defs/a"}`)
# n copies of L bytes pay when n * (L - ref) > 5 + L (+ 11 for a new map): with the shortest
# ref (20 bytes) and an existing map that takes L > 45 for two copies, L > 32 for three, L > 28
# for four...: at least 92 bytes of copies beside a map of 10 or more, so a schema under 100
# bytes has nothing to factor
_MIN_SCHEMA_BYTES = 100


class Factored:
    """The factored schema and what was done: ``defs`` lists ``(container, name, count,
    first path)`` for each new definition (``count`` subtrees now point at it)."""

    __slots__ = ("schema", "defs")

    def __init__(self, schema: Any, defs: list[tuple[str, str, int, tuple]]) -> None:
        self.schema = schema
        self.defs = defs


def factor_schema(schema: Any, dialect: str = DRAFT2020) -> Factored:
    """``schema`` with repeated identical subschemas factored (see the module doc).

    Rounds of :func:`_factor_once` (greedy, larger subtrees first), each followed by
    inlining back every new definition that no longer pays once the smaller ones inside
    it were factored too, until nothing changes: the result is what a re-projection keeps
    as it is (its ``$ref`` inlining rule and this one agree)."""
    if not isinstance(schema, dict):
        return Factored(schema, [])
    d0 = node_dialect(schema, dialect)
    container = "$defs" if d0 in (DRAFT2019, DRAFT2020) else "definitions"
    if not isinstance(schema.get(container, {}), dict):
        return Factored(schema, [])
    if d0 not in (DRAFT2019, DRAFT2020) and "$ref" in schema:
        return Factored(schema, [])
    if not _may_repeat(schema):
        return Factored(schema, [])
    had_container = container in schema
    made: dict[str, tuple[int, tuple]] = {}     # name -> (count, first path), in order
    current = schema
    ref_base = "#/" + container + "/"
    counts: dict[str, int] | None = None
    for _round in range(64):
        seen: dict[str, int] = {}
        last: list[bool] = []
        step = _factor_once(current, dialect, d0, container, seen, last)
        if step is None:
            return Factored(schema, [])          # a condition above does not hold
        current, new = step
        if not new:
            counts = seen      # the round changed nothing: its walk counted `current`'s refs
            break
        for name, count, first in new:
            made[name] = (count, first)
        seen = {}
        current, dropped = _inline_unpaid(current, dialect, container, list(made), seen)
        for name in dropped:
            del made[name]
        if last and not dropped and seen:
            # the next round would find nothing (see _factor_once's `last`); the references
            # as _inline_unpaid's walk counted them
            counts = seen
            break
    if not made:
        return Factored(schema, [])
    if not had_container and not current.get(container):
        current = {k: v for k, v in current.items() if k != container}
    if counts is None:
        counts = _ref_counts(current, dialect, ref_base)
    return Factored(current, [(container, name, counts.get(name, 0), first)
                              for name, (_count, first) in made.items()])


def _factor_once(schema: dict, dialect: str, d0: str, container: str,
                 counts: dict[str, int] | None = None, last: list[bool] | None = None,
                 ) -> tuple[dict, list[tuple[str, int, tuple]]] | None:
    """One greedy round; None when the schema cannot be factored safely. ``counts``: filled
    with the number of references to each ``#/CONTAINER/NAME`` in ``schema`` (what
    :func:`_ref_counts` gives), when the walk gets through.

    ``last``: gets ``True`` appended when the round made definitions and a round on its
    result would make none, provided no definition is inlined back in between. That round
    sees the copies this one left: a group of identical subtrees there is a group here (the
    replacements are by content, so equal subtrees there were equal here, and larger where
    a copy inside was replaced) with the copies this one counted live when it came to it,
    or the new ``{"$ref"}`` nodes of one definition. So a group can pay there only where
    one skipped here would pay with the definitions map there and the shortest name (its
    cost and its name's length are all that may differ), or where the references to a new
    definition would pay as a definition of their own."""
    stop = _LOCATION_SET | {"id" if d0 == "draft4" else "$id", "$schema", "$ref"}
    ref_base = "#/" + container + "/"
    skip = len(ref_base)
    if counts is None:
        counts = {}
    nodes: list[tuple[tuple, dict]] = []
    paths: list[tuple] = []
    targets: list[tuple] = []
    resolved: dict[str, Any] = {}      # a reference's target path (the same in one schema)
    for path, node, _d in iter_schemas(schema, dialect):
        paths.append(path)
        if node.__class__ is not dict:
            continue
        if path:
            nodes.append((path, node))
            if node.keys().isdisjoint(stop):
                continue
        if not node.keys().isdisjoint(_LOCATION_SET):
            return None
        if path and (("id" if d0 == "draft4" else "$id") in node or "$schema" in node):
            return None
        if "$ref" in node:
            ref = node["$ref"]
            t = resolved.get(ref, _UNSEEN) if ref.__class__ is str else _UNSEEN
            if t is _UNSEEN:
                t = _pointer_target(schema, ref)
                if ref.__class__ is str:
                    resolved[ref] = t
            if t is None:
                return None
            targets.append(t)
            if ref.startswith(ref_base):
                name = ref[skip:]
                counts[name] = counts.get(name, 0) + 1
    blocked: set[tuple] = set()
    if targets:
        positions = set(paths)
        if any(t not in positions for t in targets):
            return None          # a $ref into a data position: leave the schema alone
        for t in targets:
            for i in range(len(t) + 1):
                blocked.add(t[:i])
    # identical subtrees, by their JSON bytes (pre-order: a group's first is the document's);
    # orjson's bytes identify a value as well as the canonical ones (which differ in how a few
    # floats are written), and the sizes that decide are measured canonically below
    import orjson

    groups: dict[bytes, list[tuple]] = {}
    order: list[bytes] = []
    index: dict[tuple, int] = {}        # a group member's pre-order position
    firsts_at: dict[bytes, dict] = {}   # a group's first node
    for i, (path, node) in enumerate(nodes):
        if blocked and path in blocked:
            continue
        try:
            b = orjson.dumps(node)
        except (TypeError, orjson.JSONEncodeError):
            try:
                b = dumps(node)
            except (TypeError, ValueError):
                return None
        if len(b) < _MIN_BYTES:
            continue
        g = groups.get(b)
        index[path] = i
        if g is None:
            groups[b] = [path]
            order.append(b)
            firsts_at[b] = node
        else:
            g.append(path)
    rank = {b: i for i, b in enumerate(order)}
    size = {b: len(dumps(firsts_at[b])) for b in order if len(groups[b]) > 1}
    cands = sorted(size, key=lambda b: (-size[b], rank[b]))
    if not cands:
        return schema, []
    existing = schema.get(container, {})
    used = set(existing)
    container_cost = 0 if container in schema else len(dumps(container)) + 4   # ,"k":{}
    # the nodes inside a replaced copy (its content gone), by pre-order position: a
    # subtree's nodes follow its root in `nodes`, so marking one is a scan of its own nodes
    # (the copies replaced are disjoint: each is marked once)
    dead_at = bytearray(len(nodes))
    any_dead = False
    replaced: dict[tuple, str] = {}
    made: list[tuple[str, int, tuple]] = []
    n_nodes = len(nodes)
    # a name is one character at least: its reference and its entry weigh at least this
    min_ref = ref_size(ref_base + "a")
    min_entry = entry_size("a", 0)
    more = False        # a later round may find something (see `last`)
    moved: set[tuple] = set()     # the first copies replaced so far (their bodies move)

    def stays(paths: list[tuple]) -> bool:      # none of them moves with a body
        return not moved or not any(p[:k] in moved for p in paths for k in range(1, len(p)))

    for b in cands:
        if any_dead:
            live = [p for p in groups[b] if not dead_at[index[p]]]
        else:
            live = groups[b]
        if len(live) < 2:
            continue
        cost = container_cost if not made else 0
        # (the saving with the shortest name any would have: when even that does not pay,
        # no name is worked out)
        best = len(live) * (size[b] - min_ref) - (min_entry + size[b])
        if best - cost <= 0:
            if best > 0 and not more:
                # a later round names it from the same first copy (where none moves), never
                # shorter (more names are taken): it pays there only if it pays here at no
                # cost for the map
                more = not stays(live) or len(live) * (
                    size[b] - ref_size(ref_base + _name(live[0], used))) \
                    - entry_size(_name(live[0], used), size[b]) > 0
            continue
        name = _name(live[0], used)
        saving = len(live) * (size[b] - ref_size(ref_base + name)) - entry_size(name, size[b]) \
            - cost
        if saving <= 0:
            more = more or not stays(live) or saving + cost > 0
            continue
        if not more and not stays(live):
            # its references, as a group of their own, some moved with a body: named from
            # another path there (where none moves, from this one: a longer name than its
            # own, which never pays)
            r = ref_size(ref_base + name)
            more = len(live) * (r - min_ref) - (min_entry + r) > 0
        used.add(name)
        moved.add(live[0])
        for p in live:
            replaced[p] = name
        for p in live[1:]:
            k = len(p)
            j = index[p] + 1
            while j < n_nodes and nodes[j][0][:k] == p:
                dead_at[j] = 1
                j += 1
        any_dead = True
        made.append((name, len(live), live[0]))
    if not made:
        return schema, []
    if last is not None and not more:
        last.append(True)
    firsts = {first: name for name, _n, first in made}
    content: dict[str, Any] = {}

    def hook(node: Any, path: tuple) -> Any:
        name = replaced[path]
        if path in firsts:
            content[name] = node
        return {"$ref": ref_base + name}

    out = _replace(schema, replaced, hook)
    made.sort(key=lambda m: index[m[2]])      # new definitions in document order
    defs = dict(out.get(container, {}))
    for name, _n, _first in made:
        defs[name] = content[name]
    out = dict(out)
    out[container] = defs
    return out, made


_UNSEEN: Any = object()


def _replace(root: Any, at: dict[tuple, Any], hook: Any) -> Any:
    """``root`` with the node at each path of ``at`` replaced by ``hook(node, path)``, where
    ``node`` already has the replacements below it made: what a bottom-up
    :func:`~toolcat.schema.walker.transform` whose hook changes only those paths gives,
    as JSON, but rebuilt only along the paths to them; every other subtree is the input's
    own object (nothing here mutates a schema: results are shared, as the lowering's are).
    The paths are schema positions of ``root`` (from :func:`iter_schemas`)."""
    if not at:
        return root
    trie: dict = {}
    for path in at:
        t = trie
        for tok in path:
            t = t.setdefault(tok, {})
        t[_END] = True
    return _replace_in(root, (), trie, hook)


_END: Any = object()


def _replace_in(node: Any, path: tuple, trie: dict, hook: Any) -> Any:
    if len(trie) > (1 if _END in trie else 0):
        new = dict(node) if isinstance(node, dict) else list(node)
        for tok, sub in trie.items():
            if tok is not _END:
                new[tok] = _replace_in(node[tok], path + (tok,), sub, hook)
        node = new
    if _END in trie:
        node = hook(node, path)
    return node


def _may_repeat(schema: dict) -> bool:
    """False when ``schema`` surely holds no two identical subtrees worth factoring: it is
    too small, or no two objects in its JSON text start with the same ``_MIN_BYTES`` bytes
    (two identical subtrees of at least that size would). Cheap: one serialization and a
    scan of the text."""
    import orjson

    try:
        text = orjson.dumps(schema)
    except (TypeError, orjson.JSONEncodeError):
        return True       # integers beyond 64 bits: no shortcut
    if len(text) < _MIN_SCHEMA_BYTES:
        return False
    seen: set[bytes] = set()
    find = text.find
    i = find(b"{", 1)     # the root never moves
    while i != -1:
        w = text[i:i + _MIN_BYTES]
        if w in seen:
            return True
        seen.add(w)
        i = find(b"{", i + 1)
    return False


def _ref_counts(schema: Any, dialect: str, ref_base: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _p, node, _d in iter_schemas(schema, dialect):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(ref_base):
                name = ref[len(ref_base):]
                counts[name] = counts.get(name, 0) + 1
    return counts


def _inline_unpaid(schema: dict, dialect: str, container: str, names: list[str],
                   ref_counts: dict[str, int] | None = None) -> tuple[dict, list[str]]:
    """Inline back (one at a time, first made first) each of our definitions ``names`` that
    does not pay for itself as the schema now stands: ``n`` references to a definition of
    ``L`` bytes pay when ``n * L > n * ref + entry`` (:mod:`toolcat.schema.lower` inlines a
    reference otherwise). Returns the schema and the names inlined.

    The sequence of decisions is worked out on counts (one walk): inlining ``X`` (``n``
    references) replaces each ``{"$ref": X}`` by ``X``'s body, so each reference inside that
    body now occurs ``n`` times instead of once, and a definition whose body held ``m``
    references to ``X`` grows by ``m`` times ``X``'s size less a reference's (canonical JSON
    is compositional); then one rebuild inlines every dropped name, each body with the
    dropped names inside it inlined too (what inlining them one after another gives).
    Where a reference to one of ``names`` has keywords beside it (not ours: never the case
    for what :func:`_factor_once` makes) the one-at-a-time way is taken.

    ``ref_counts``: filled with what :func:`_ref_counts` gives for ``schema`` as it was
    passed, when that one walk was made (not the one-at-a-time way)."""
    ref_base = "#/" + container + "/"
    defs = schema.get(container, {})
    ours = set(names)
    counts: dict[str, int] = {}
    inner: dict[str, dict[str, int]] = {n: {} for n in names if n in defs}
    skip = len(ref_base)
    sites: list[tuple[tuple, str]] = []     # (path, name) of each reference to one of ours
    for path, node, _d in iter_schemas(schema, dialect):
        if node.__class__ is dict:
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(ref_base):
                name = ref[skip:]
                if name in ours:
                    if len(node) != 1:
                        return _inline_unpaid_walks(schema, dialect, container, names)
                    sites.append((path, name))
                counts[name] = counts.get(name, 0) + 1
                if len(path) >= 2 and path[0] == container:   # (a body may be a $ref)
                    box = inner.get(path[1])
                    if box is not None:
                        box[name] = box.get(name, 0) + 1
    if ref_counts is not None:
        ref_counts.update(counts)
    size = {n: len(dumps(defs[n])) for n in inner}
    dropped: list[str] = []
    gone: set[str] = set()
    while True:
        unpaid = None
        for name in names:
            if name in gone or name not in inner:
                continue
            n = counts.get(name, 0)
            if n * size[name] <= n * ref_size(ref_base + name) + entry_size(name, size[name]):
                unpaid = name
                break
        if unpaid is None:
            break
        n = counts.get(unpaid, 0)
        body = inner[unpaid]
        for y, k in body.items():             # n copies of the body, its entry gone
            counts[y] = counts.get(y, 0) + (n - 1) * k
        counts[unpaid] = 0
        grow = size[unpaid] - ref_size(ref_base + unpaid)
        for z, box in inner.items():
            m = box.get(unpaid)
            if not m or z in gone:
                continue
            size[z] += m * grow
            del box[unpaid]
            for y, k in body.items():
                box[y] = box.get(y, 0) + m * k
        gone.add(unpaid)
        dropped.append(unpaid)
    if not dropped:
        return schema, dropped
    # each reference to a dropped name is replaced by its body, with the references to
    # dropped names inside that body replaced too (each body expanded once, shared); the
    # dropped entries go, so what is inside them is not rebuilt
    bodies = {name: defs[name] for name in dropped}
    at_top: dict[tuple, str] = {}
    at_body: dict[str, dict[tuple, str]] = {name: {} for name in dropped}
    for path, name in sites:
        if name not in gone:
            continue
        if len(path) >= 2 and path[0] == container and path[1] in gone:
            at_body[path[1]][path[2:]] = name
        else:
            at_top[path] = name
    expanded: dict[str, Any] = {}

    def expand(name: str) -> Any:
        got = expanded.get(name)
        if got is None:
            at = at_body[name]
            got = expanded[name] = _replace(bodies[name], at, lambda _n, p: expand(at[p]))
        return got

    schema = dict(_replace(schema, at_top, lambda _n, p: expand(at_top[p])))
    schema[container] = {k: v for k, v in schema[container].items() if k not in gone}
    return schema, dropped


def _inline_unpaid_walks(schema: dict, dialect: str, container: str,
                         names: list[str]) -> tuple[dict, list[str]]:
    """:func:`_inline_unpaid` by a walk and a rebuild per inlined name."""
    ref_base = "#/" + container + "/"
    dropped: list[str] = []
    while True:
        defs = schema.get(container, {})
        counts = _ref_counts(schema, dialect, ref_base)
        unpaid = None
        for name in names:
            if name in dropped or name not in defs:
                continue
            size = len(dumps(defs[name]))
            n = counts.get(name, 0)
            if n * size <= n * ref_size(ref_base + name) + entry_size(name, size):
                unpaid = name
                break
        if unpaid is None:
            return schema, dropped
        ref = ref_base + unpaid
        body = defs[unpaid]

        def hook(node: Any, _path: tuple, _d: str, ref: str = ref, body: Any = body) -> Any:
            if isinstance(node, dict) and len(node) == 1 and node.get("$ref") == ref:
                return body
            return node

        schema = transform(schema, hook, dialect)
        schema = dict(schema)
        rest = {k: v for k, v in schema[container].items() if k != unpaid}
        schema[container] = rest
        dropped.append(unpaid)


def _pointer_target(root: Any, ref: Any) -> tuple | None:
    """The path a ``#``/``#/...`` reference points at inside ``root``; None otherwise."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    try:
        tokens = jp.decode_fragment(ref[1:])
    except ValueError:       # a plain-name fragment (an anchor): no path
        return None
    found = jp.walk(root, tokens)
    return None if found is None else found[0]


def _name(path: tuple, used: set) -> str:
    """A definition name for the subtree at ``path``: its nearest property name (plus the
    keyword path below it, shortened), unique among ``used``."""
    prop = None
    tail: tuple = ()
    for i in range(len(path) - 1, 0, -1):
        if path[i - 1] in ("properties", "patternProperties") and isinstance(path[i], str):
            prop = path[i]
            tail = path[i + 1:]
            break
    base = _SAFE_NAME.sub("_", prop).strip("_") if prop else ""
    base = base[:_NAME_MAX] or "def"
    if tail:
        last = tail[-1]
        suffix = {"items": "item", "additionalProperties": "value"}.get(last) \
            if isinstance(last, str) else None
        if suffix is None:
            suffix = "_".join(str(x) for x in tail[-2:])
            suffix = _SAFE_NAME.sub("_", suffix).strip("_")[:12]
        if suffix:
            base = f"{base}_{suffix}"
    name = base
    k = 2
    while name in used:
        name = f"{base}{k}"
        k += 1
    return name


def describe(pointer: str, made: list[tuple[str, str, int, tuple]]) -> list[tuple[str, str]]:
    """Report lines ``(pointer, what)`` for the definitions :func:`factor_schema` made."""
    return [(f"{pointer}/{c}/{name}",
             f"{n} identical subschemas (first at {pointer}{encode(first)}) moved here, "
             f"each replaced by a $ref")
            for c, name, n, first in made]
