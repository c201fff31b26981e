"""Where every ``$ref`` of one schema points, for lowering.

:class:`RefIndex` visits a schema once through the walker and records, for every schema
node, its path, dialect and base URI (``$id`` resolution), every ``$anchor`` (and draft-07
``$id: "#name"``), and every ``$ref`` with the path of its target inside the same schema
(or why it has none: a remote or missing target). Targets that sit in data positions (a
``$ref`` into an unknown keyword) are indexed as schemas too. It then finds the targets that
are recursive (on a cycle of references), so lowering can inline the others.

Paths are tuples of tokens (property names are strings, list indices ints), relative to the
schema root; nothing here fetches anything.
"""

from __future__ import annotations

import itertools
from enum import Enum
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from toolcat.document import pointer as jp
from toolcat.schema.keywords import (
    LEGACY_DIALECTS,
    MODERN_DIALECTS,
    REFERENCE_KEYWORDS,
    RESOURCE_KEYWORDS,
)
from toolcat.schema.walker import iter_schemas, node_dialect

_DUMMY_BASE = "https://toolcat.invalid/schema.json"


# keys that make a node interesting to the index (any other node only records its base)
_SPECIAL = frozenset(RESOURCE_KEYWORDS + ("$anchor", "$dynamicAnchor") + REFERENCE_KEYWORDS
                     + ("$defs", "definitions", "unevaluatedProperties", "unevaluatedItems"))


_MARKERS = {k: b'"' + k.encode() + b'"' for k in _SPECIAL}
# the markers _scan looks for beyond the base URI's, those a schema that has one mostly holds
# first (any() stops at the first found: one scan of the text where a $ref is), the ones
# written with a "$" apart (no `"$` in the text: none of them is there)
_FIRST = ("$ref", "$defs", "definitions")
_SCANNED = sorted(set(_SPECIAL) - {"$id", "id"},
                  key=lambda k: (_FIRST.index(k) if k in _FIRST else len(_FIRST), k))
_DOLLAR_MARKERS = tuple(_MARKERS[k] for k in _SCANNED)
_PLAIN_MARKERS = tuple(_MARKERS[k] for k in _SCANNED if not k.startswith("$"))


def _plain(root: Any, dialect: str) -> bool:
    """True when no key the index looks at occurs in ``root`` at all (its JSON text has no
    such quoted name), so the walk can be skipped. ``id`` only counts in draft-04, or when a
    nested ``$schema`` could switch to it."""
    return _scan(root, dialect)[0]


def _scan(root: Any, dialect: str) -> tuple[bool, bytes | None, bool]:
    """(:func:`_plain`, the JSON text of ``root`` (None when it has none), whether no node
    can change the base URI: no ``$id``, and no ``id`` that may be read as draft-04's, occurs
    in that text, so every node of the root's walk has the root's base)."""
    import orjson

    if isinstance(root, bool):
        return True, None, True
    try:
        text = orjson.dumps(root)
    except (TypeError, orjson.JSONEncodeError):
        return False, None, False
    # (a text without `"$` holds no "$schema", "$id", "$ref"...: those scans are left out)
    dollar = b'"$' in text
    nested_schema = dollar and text.count(b'"$schema"') > (1 if "$schema" in root else 0)
    skip_id = not nested_schema and node_dialect(root, dialect) != "draft4"
    # (the base URI's markers first: the same scans as before when nothing is found)
    flat = (not dollar or b'"$id"' not in text) and (skip_id or b'"id"' not in text)
    return (flat and not any(m in text for m in (_DOLLAR_MARKERS if dollar else _PLAIN_MARKERS)),
            text, flat)


class RefProblem(Enum):
    """Why a ``$ref`` does not resolve inside its schema."""

    MALFORMED = "malformed"      # not a URI reference
    REMOTE = "remote"            # another resource than this schema (toolcat never fetches)
    NO_TARGET = "no-target"      # a JSON pointer to nothing
    NO_ANCHOR = "no-anchor"      # a plain-name fragment no $anchor (draft-07: $id) defines


class RefInfo:
    """One ``$ref`` at ``path``: the path of its ``target`` in the schema, or the ``problem``
    (and the ``fragment`` as written) that leaves it unresolved."""

    __slots__ = ("path", "ref", "target", "problem", "fragment")

    def __init__(self, path: tuple, ref: str, target: tuple | None,
                 problem: RefProblem | None = None, fragment: str = "") -> None:
        self.path = path
        self.ref = ref
        self.target = target
        self.problem = problem
        self.fragment = fragment

    @property
    def why(self) -> str:
        """Why the reference does not resolve, in words ("" when it does)."""
        p = self.problem
        if p is None:
            return ""
        if p is RefProblem.REMOTE:
            return "points outside the tool's schema (toolcat never fetches references)"
        if p is RefProblem.NO_TARGET:
            return f"target {self.fragment or '/'} does not exist"
        if p is RefProblem.NO_ANCHOR:
            return f"anchor #{self.fragment} is not defined"
        return "it is not a valid URI reference"


def node_at(doc: Any, path: tuple) -> Any:
    node = doc
    for tok in path:
        node = node[tok]
    return node


class RefIndex:
    def __init__(self, root: Any, dialect: str, shared: dict | None = None) -> None:
        """``shared``: walks of ``$defs`` entries by object identity, shared by the schemas
        of one run (see ``toolcat.schema.lower.LowerCache``)."""
        self.root = root
        self.dialect = dialect
        self.shared = shared
        self.nodes: dict[tuple, tuple[Any, str]] = {}     # path -> (node, dialect)
        self.base: dict[tuple, str] = {}                  # path -> base URI
        self.resources: dict[str, tuple] = {}             # URI (no fragment) -> path
        self.anchors: dict[tuple[str, str], tuple] = {}   # (resource URI, name) -> path
        self.refs: dict[tuple, RefInfo] = {}              # $ref node path -> info
        self.embedded_ids = False      # a $id below the root changes the base URI
        self.identifiers_at: set[tuple] = set()   # paths of nodes carrying $id/$anchor...
        self.dynamic = False           # a $dynamicRef (2020-12) / $recursiveRef (2019-09)
        self.cyclic: set[tuple] = set()        # targets on a cycle of references
        self.reaches_cycle: set[tuple] = set()  # targets whose expansion meets a cycle
        self.ref_count: dict[tuple, int] = {}   # target -> number of $refs to it
        self.refs_within: dict[tuple, list[tuple]] = {}  # target -> $ref paths in its subtree
        self.unevaluated = False       # an unevaluatedProperties/unevaluatedItems key somewhere
        # nodes holding a `$defs`/`definitions` key: path -> (walk start, pre-order number)
        self.defs_at: dict[tuple, tuple[tuple, int]] = {}
        self.walk_of: dict[tuple, tuple] = {}   # node path -> start of the walk that indexed it
        self._flat = False    # the root walk under way sees no $id/id (see _scan)
        root_base = _DUMMY_BASE
        if isinstance(root, dict):
            rid = root.get("$id") if dialect != "draft4" else root.get("id")
            if isinstance(rid, str) and not rid.startswith("#") and \
                    not (dialect in LEGACY_DIALECTS and "$ref" in root):
                root_base = urljoin(_DUMMY_BASE, rid)
        self.root_base = urldefrag(root_base)[0]
        self.resources[self.root_base] = ()
        self._raw_refs: list[tuple[tuple, str, str]] = []
        self._pointers: dict[str, tuple] = {}     # resolve()'s answers for "#/..." refs
        #: how many ``"$ref":`` keys the root's JSON text holds (None: not known), for
        #: readers that would otherwise walk the whole schema to find one not indexed
        self.ref_keys: int | None = None
        plain, text, flat = _scan(root, dialect)
        if plain:
            return    # nothing to index: no reference, identifier or definitions anywhere
        if text is not None:
            self.ref_keys = text.count(b'"$ref":')
        self._flat = flat
        self._index(root, dialect, (), self.root_base)
        self._flat = False
        self._resolve_pending()
        # targets in data positions: index them as schemas (to a fixpoint)
        seen_targets: set = set()
        while True:
            new = [i.target for i in self.refs.values()
                   if i.target is not None and i.target not in seen_targets]
            if not new:
                break
            for t in new:
                seen_targets.add(t)
                if t in self.nodes:
                    continue
                found = jp.walk(root, [str(x) for x in t])
                if found is None:
                    continue
                d, base = self._context(t)
                self._index(found[1], d, t, base)
            self._resolve_pending()
        self._cycles()

    def _resolve_pending(self) -> None:
        # every identifier is known before any reference is resolved
        for path, ref, base in self._raw_refs:
            target, problem, fragment = self.resolve(ref, base)
            self.refs[path] = RefInfo(path, ref, target, problem, fragment)
        self._raw_refs = []

    # -- indexing

    def _context(self, path: tuple) -> tuple[str, str]:
        """Dialect and base URI at ``path`` (its nearest indexed ancestor's)."""
        p = path
        while p:
            if p in self.nodes:
                return self.nodes[p][1], self.base[p]
            p = p[:-1]
        return self.dialect, self.root_base

    def _parent_base(self, path: tuple, start_base: str, start: tuple) -> str:
        for cut in (1, 2):
            p = path[:-cut] if len(path) >= cut else None
            if p is not None and p in self.base and len(p) >= len(start):
                return self.base[p]
        return start_base

    def _index(self, schema: Any, dialect: str, start: tuple, start_base: str) -> None:
        shared = self.shared
        if shared is not None and start == () and isinstance(schema, dict) and \
                isinstance(schema.get("$defs"), dict) and next(reversed(schema)) == "$defs":
            d0 = node_dialect(schema, dialect)
            if d0 in MODERN_DIALECTS:
                self._index_with_shared_defs(schema, dialect, d0, start_base, shared)
                return
        self._walk(iter_schemas(schema, dialect, start), start, start_base)

    def _index_with_shared_defs(self, schema: dict, dialect: str, d0: str, start_base: str,
                                shared: dict) -> None:
        """The walk from the root, with each ``$defs`` entry (the last key) taken from
        ``shared`` when a schema indexed before held the same object: an OpenAPI spec's
        tools share their definitions, and each would walk them again."""
        defs = schema["$defs"]
        rest = {k: v for k, v in schema.items() if k != "$defs"}
        walk = iter_schemas(rest, dialect)
        first = next(walk)
        self._walk(itertools.chain([((), schema, first[2])], walk), (), start_base)
        root_base = self.base[()]
        for name, sub in defs.items():
            if not isinstance(sub, (dict, bool)):
                continue
            prefix = ("$defs", name)
            rec = shared.get((id(sub), d0))
            if rec is None or rec[0] is not sub:
                entries = list(iter_schemas(sub, d0))
                movable = not any(isinstance(n, dict) and ("$id" in n or "$schema" in n)
                                  for _p, n, _d in entries)
                at_name: dict[tuple, tuple] = {}
                rec = shared[(id(sub), d0)] = (sub, entries, movable, at_name)
            if not rec[2] or prefix in self.nodes:
                self._walk(iter_schemas(sub, d0, prefix), (), start_base)
                continue
            # the entry's nodes at this name, as the walk would record them (no path below
            # `prefix` is recorded yet, and none changes the base: every base is the root's),
            # made once per name and base and added in one step each
            at = rec[3].get((name, root_base))
            if at is None:
                at_nodes: dict[tuple, tuple[Any, str]] = {}
                special: list[tuple[tuple, dict, str]] = []
                for rel, node, d in rec[1]:
                    path = prefix + rel
                    at_nodes[path] = (node, d)
                    if node.__class__ is dict and not node.keys().isdisjoint(_SPECIAL):
                        special.append((path, node, d))
                # when each of them has no key the index looks at but a string `$ref`, all
                # that visiting them does is record the references (their bases are set)
                refs_only = None
                if all(node.keys() & _SPECIAL == {"$ref"} and isinstance(node["$ref"], str)
                       for _p, node, _d in special):
                    refs_only = [(path, node["$ref"], root_base) for path, node, _d in special]
                at = rec[3][(name, root_base)] = (at_nodes, dict.fromkeys(at_nodes, ()),
                                                  dict.fromkeys(at_nodes, root_base), special,
                                                  refs_only)
            self.nodes.update(at[0])
            self.walk_of.update(at[1])
            self.base.update(at[2])
            if at[4] is not None and not self.refs:     # (no reference resolved yet)
                self._raw_refs.extend(at[4])
                continue
            for path, node, d in at[3]:
                self._visit(path, node, d, root_base)

    def _walk(self, walk: Any, start: tuple, start_base: str) -> None:
        nodes = self.nodes
        bases = self.base
        walk_of = self.walk_of
        # from the root, when no node of it can change the base URI (no ``$id``/``id`` in its
        # text, see :func:`_scan`): every node's base is the root's, no parent's looked up
        flat = start == () and self._flat
        for path, node, d in walk:
            if path in nodes and path != start:
                continue
            if flat or path == start:
                base = start_base
            else:
                parent = path[:-1]
                base = bases[parent] if parent in bases and len(parent) >= len(start) else \
                    self._parent_base(path, start_base, start)
            nodes[path] = (node, d)
            walk_of[path] = start
            if not isinstance(node, dict) or node.keys().isdisjoint(_SPECIAL):
                bases[path] = base
                continue
            self._visit(path, node, d, base, start)

    def _visit(self, path: tuple, node: dict, d: str, base: str, start: tuple = ()) -> None:
        """Record what a node with an interesting key brings (base, anchors, refs...)."""
        if "unevaluatedProperties" in node or "unevaluatedItems" in node:
            self.unevaluated = True
        if "$defs" in node or "definitions" in node:
            self.defs_at[path] = (start, len(self.defs_at))
        legacy = d in LEGACY_DIALECTS
        has_ref = "$ref" in node
        id_key = "id" if d == "draft4" else "$id"
        nid = node.get(id_key)
        if isinstance(nid, str) and not (legacy and has_ref):
            uri, frag = urldefrag(urljoin(base, nid))
            if nid.startswith("#"):
                if legacy and frag:
                    self.anchors.setdefault((urldefrag(base)[0], frag), path)
                    self.identifiers_at.add(path)
            else:
                if path != ():
                    self.embedded_ids = True
                    self.identifiers_at.add(path)
                base = uri
                self.resources.setdefault(uri, path)
                if legacy and frag:
                    self.anchors.setdefault((uri, frag), path)
        for ak in ("$anchor", "$dynamicAnchor"):
            a = node.get(ak)
            if isinstance(a, str) and not legacy:
                self.anchors.setdefault((urldefrag(base)[0], a), path)
                self.identifiers_at.add(path)
        # a dynamic reference (only where the dialect defines it: `$recursiveRef` in a
        # 2020-12 schema is an unknown keyword, and ignored)
        if ("$dynamicRef" in node and d == "2020-12") or \
                ("$recursiveRef" in node and d == "2019-09"):
            self.dynamic = True
        self.base[path] = base
        ref = node.get("$ref")
        if isinstance(ref, str) and path not in self.refs:
            self._raw_refs.append((path, ref, base))

    def resolve(self, ref: str, base: str) -> tuple[tuple | None, RefProblem | None, str]:
        """Where ``ref``, found where ``base`` is the base URI, points: ``(target path, None,
        "")``, or ``(None, problem, fragment as written)``."""
        if ref.startswith("#/") and base == self.root_base and "%" not in ref:
            # the common case: a JSON pointer into this document (the same answer for each
            # reference that writes it: the document does not change)
            got = self._pointers.get(ref)
            if got is None:
                found = jp.walk(self.root, [jp.unescape(t) for t in ref[2:].split("/")])
                got = self._pointers[ref] = (None, RefProblem.NO_TARGET, ref[1:]) \
                    if found is None else (found[0], None, "")
            return got
        try:
            full = urljoin(base, ref)
        except ValueError:
            return None, RefProblem.MALFORMED, ""
        uri, frag = urldefrag(full)
        if ref.startswith("#"):
            uri = urldefrag(base)[0]
            frag = ref[1:]
        res = self.resources.get(uri)
        if res is None:
            return None, RefProblem.REMOTE, frag
        written = frag
        frag = unquote(frag)
        if frag == "":
            return res, None, ""
        if frag.startswith("/"):
            found = jp.walk(node_at(self.root, res), [jp.unescape(t) for t in frag[1:].split("/")])
            if found is None:
                return None, RefProblem.NO_TARGET, written
            return res + found[0], None, ""
        t = self.anchors.get((uri, frag))
        if t is None:
            return None, RefProblem.NO_ANCHOR, written
        return t, None, ""

    # -- cycles

    def _cycles(self) -> None:
        # document order (the index walk's): deterministic, and no sort needed (the sets
        # computed below do not depend on the order)
        targets = list(dict.fromkeys(i.target for i in self.refs.values()
                                     if i.target is not None))
        for ref in self.refs.values():
            if ref.target is not None:
                self.ref_count[ref.target] = self.ref_count.get(ref.target, 0) + 1
        edges: dict[tuple, list[tuple]] = {t: [] for t in targets}
        tset = set(targets)
        within = self.refs_within
        lengths = sorted({len(t) for t in targets})   # only prefixes that long can be targets
        for p, info in self.refs.items():
            for k in lengths:
                if k > len(p):
                    break
                if p[:k] in tset:
                    within.setdefault(p[:k], []).append(p)
                    if info.target is not None:
                        edges[p[:k]].append(info.target)
        # Tarjan's SCC, iterative
        index: dict = {}
        low: dict = {}
        on: set = set()
        stack: list = []
        counter = 0
        for v0 in targets:
            if v0 in index:
                continue
            work = [(v0, 0)]
            while work:
                v, i = work.pop()
                if i == 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on.add(v)
                recurse = False
                succ = edges.get(v, [])
                while i < len(succ):
                    w = succ[i]
                    i += 1
                    if w not in index:
                        work.append((v, i))
                        work.append((w, 0))
                        recurse = True
                        break
                    if w in on:
                        low[v] = min(low[v], index[w])
                if recurse:
                    continue
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1 or v in edges.get(v, []):
                        self.cyclic.update(comp)
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
        # which targets reach a cycle: everything a cyclic target is reachable from
        if not self.cyclic:
            return
        back: dict[tuple, list[tuple]] = {}
        for x, succ in edges.items():
            for y in succ:
                back.setdefault(y, []).append(x)
        reach = set(self.cyclic)
        stack2 = list(self.cyclic)
        while stack2:
            y = stack2.pop()
            for x in back.get(y, ()):
                if x not in reach:
                    reach.add(x)
                    stack2.append(x)
        self.reaches_cycle = reach

    # -- queries

    def dialect_at(self, path: tuple) -> str:
        return self._context(path)[0] if path not in self.nodes else self.nodes[path][1]

    def node(self, path: tuple) -> Any:
        if path in self.nodes:
            return self.nodes[path][0]
        return node_at(self.root, path)

    def has_identifiers_below(self, path: tuple) -> bool:
        n = len(path)
        return any(p[:n] == path for p in self.identifiers_at)
