"""Strip prose and lower a schema to the RFC 0112 compact subset, reporting every change.

:func:`lower_schema` is the one entry point. It runs :func:`toolcat.schema.walker.transform` over
the schema with one hook that, at each schema node (children first):

1. removes prose keys (keeping any key a remaining ``$ref`` points into);
2. inlines a local ``$ref`` (merging the keys beside it: ANDed in 2019-09+, ignored in
   draft-07), unless it is recursive, remote or (outside the subset) would grow the schema;
3. lowers combinators where the result is exactly equivalent: ``allOf`` of compatible
   schemas into one, ``anyOf``/``oneOf`` of value lists into one ``enum``, of disjoint types
   (``X`` or ``{"type": "null"}``) into a type union, ``not`` of a type into the other types;
4. in *widen* mode (the subset is required and ``--unlowerable widen``), replaces what could
   not be lowered by a schema that accepts a superset (union of branch properties, recursive
   ``$ref`` -> the target's ``type``...);
5. removes validation no-ops (:func:`noop_keywords`: ``additionalProperties: true``, a
   ``type`` its ``enum`` implies, ``required: []``...), also in the nodes a merge made.

Definitions no used part of the schema references are dropped before the walk. Without the
subset, ``factor=True`` then moves repeated identical subtrees into ``$defs`` + ``$ref``
(:mod:`toolcat.features.project.factor`) and lowers again. Lowered ``$ref`` targets are shared
between the schemas of a run (:class:`LowerCache`: OpenAPI tools share their definitions).
Every change is a :class:`Change` with a JSON pointer into the original schema and a kind:
``exact`` (accepts the same instances), ``widened`` (accepts a superset), ``omitted``,
``kept``, and (a tool's output schema in a target that wants an object there,
:mod:`toolcat.features.project.roots`) ``wrapped``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from toolcat.document.canonical import dumps
from toolcat.document.pointer import encode
from toolcat.document.share import Sharer
from toolcat.schema import merge as M
from toolcat.schema.keywords import (
    ANCHOR_KEYWORDS,
    COMPACT_FORBIDDEN,
    DRAFT7,
    DRAFT2020,
    DYNAMIC_REFERENCE_KEYWORDS,
    LEGACY_DIALECTS,
)
from toolcat.schema.patterns import without_identity_escapes
from toolcat.schema.refs import RefIndex, RefProblem
from toolcat.schema.strip import strip_node
from toolcat.schema.walker import (
    DESCEND,
    count_values,
    iter_schemas,
    node_dialect,
    subschemas,
    transform,
)


class Kind(StrEnum):
    """What a change does to what a schema accepts (the report's ``kind``)."""

    EXACT = "exact"        # accepts the same instances
    WIDENED = "widened"    # accepts a superset
    OMITTED = "omitted"    # left out (the handbook has it)
    KEPT = "kept"          # kept although outside the compact subset (or a target's rule)
    WRAPPED = "wrapped"    # the schema now describes the value under a property of an object
                           # (MCP: a non-object output schema; see toolcat.features.project.roots)
    NARROWED = "narrowed"  # accepts a subset (provider targets: strict modes close objects)
    CHANGED = "changed"    # a mapped shape: the same verdicts after the change's `mapping`


EXACT, WIDENED, OMITTED, KEPT, WRAPPED = (Kind.EXACT, Kind.WIDENED, Kind.OMITTED, Kind.KEPT,
                                          Kind.WRAPPED)
NARROWED, CHANGED = Kind.NARROWED, Kind.CHANGED
KINDS = tuple(Kind)


class Decision(Enum):
    """What lowering does with one ``$ref``."""

    INLINE = "inline"      # replace it by its (lowered) target
    KEEP = "keep"          # leave it as it is
    WIDEN = "widen"        # drop it (widen mode: the schema then accepts a superset)

_DEFS = ("$defs", "definitions")
_FIXABLE_KEYS = frozenset(("pattern", "patternProperties", "required"))
_ESCAPES_WHY = ("an identity escape of a character that needs none means the character itself "
                "in Python and ECMA-262, and ECMA-262's u mode (Ajv, the MCP SDK) refuses it")
#: what a copy of a subtree never carries (two nodes with one `$id` or anchor are refused by
#: Ajv, "already exists"; a `$schema` is the copy's context's, whose dialect it has)
_DECLARATIONS = frozenset(("$id", "id", "$schema") + ANCHOR_KEYWORDS)


@dataclass(frozen=True, slots=True)
class Change:
    pointer: str
    kind: Kind
    what: str
    #: ``changed``: what the caller applies to arguments or names (e.g. ``{"mapping":
    #: {"argument": "/limit", "null": "absent"}}``); None otherwise
    extra: dict | None = field(default=None, compare=False)

    def as_dict(self) -> dict:
        d = {"pointer": self.pointer, "kind": self.kind.value, "what": self.what}
        if self.extra:
            d.update(self.extra)
        return d


@dataclass
class SchemaResult:
    schema: Any
    changes: list[Change] = field(default_factory=list)
    conformant: bool = True          # satisfies the compact subset (when it was asked for)
    unlowerable: bool = False        # a construct could not be lowered exactly
    omitted: bool = False            # the schema was dropped (--unlowerable omit)
    prose_removed: int = 0


class _Restart(Exception):
    pass


class LowerCache:
    """What one run (one :func:`toolcat.features.project.project_catalogs` call) may share between the
    schemas it lowers: OpenAPI tools of one spec hold the *same* definition objects in their
    ``$defs`` (the loader bundles them per tool by reference), and without this each tool
    would strip and lower every shared definition again.

    Entries are keyed by object identity (``id``): the objects must stay alive, and must not
    change, while the cache is in use (the catalogs of a run are). Results are shared, never
    mutated: a lowered definition may appear in several tools' outputs as the same object.

    * ``sizes``: the canonical size of a node with its prose stripped (inlining decisions);
    * ``expansions``: a lowered ``$ref`` target, with the changes and prose count its lowering
      reported, keyed by everything the lowering of that subtree depends on (exact mode only;
      see ``_Lowerer._key``).
    """

    __slots__ = ("sizes", "expansions", "keys", "walks", "hits", "misses", "outputs", "sharer",
                 "digests", "standards", "bounds", "inputs")

    def __init__(self) -> None:
        #: whole results by content (:func:`content_key` and the options): a caller's memo,
        #: e.g. the output schemas of an OpenAPI spec's operations that return the same type
        self.outputs: dict[tuple, Any] = {}
        self.sizes: dict[tuple, tuple[Any, int]] = {}
        self.walks: dict[tuple, tuple] = {}   # RefIndex: walked $defs entries
        self.expansions: dict[int, _Record] = {}
        self.keys: dict[tuple, int] = {}      # expansion key -> small int (shallow hashing)
        self.hits = 0
        self.misses = 0
        #: equal subtrees of the results kept in ``outputs`` as one object (memory: Stripe's
        #: output schemas repeat the same lowered components; :mod:`toolcat.document.share`)
        self.sharer = Sharer()
        #: :func:`content_key`'s memo: the digests of ``$defs`` entries, by object
        self.digests: dict[int, tuple[Any, bytes | None]] = {}
        #: the standard view's rewrites of an output schema, by its content (the caller's)
        self.standards: dict[tuple, Any] = {}
        #: :func:`toolcat.features.project.bound.bound_output`'s walks of definitions, by object
        self.bounds: dict = {}
        #: a caller's memo of lowered input schemas, by content and options
        self.inputs: dict[tuple, Any] = {}

    def intern(self, key: tuple) -> int:
        k = self.keys.get(key)
        if k is None:
            k = self.keys[key] = len(self.keys)
        return k


_PLAIN_LEAVES = frozenset((str, int, bool, type(None)))


def content_key(value: Any, memo: dict | None = None) -> bytes | None:
    """A digest that two JSON values share exactly when they are equal as JSON documents
    (the same keys in the same order, the same values, ``1`` and ``1.0`` apart), for
    memoizing a deterministic function of a schema's content; None for a value this cannot
    vouch for: anything but plain dicts, lists, strings, numbers, booleans and null (a
    tuple or a subclass orjson would write like a list or its base type), a float that
    is not finite (orjson writes NaN as null), an integer beyond 64 bits.

    The digest is the SHA-256 of orjson's bytes (which identify a value: distinct values
    have distinct texts), so that a memo holds 32 bytes per entry, not the text.

    ``memo`` (kept by the caller across calls, :attr:`LowerCache.digests`): a dict whose
    ``$defs`` is a dict is digested from its other members and the digest of each ``$defs``
    entry, remembered by object: the output schemas of an OpenAPI spec's tools bundle the
    same definition objects, whose text would be checked and hashed again for each tool.
    (Another digest of the same value than without a memo, as injective: compare keys made
    one way only.)"""
    import hashlib

    if memo is not None and value.__class__ is dict and value.get("$defs").__class__ is dict:
        return _split_key(value, memo)

    import orjson

    leaves = _PLAIN_LEAVES
    stack = [value]
    pop = stack.pop
    push = stack.append
    while stack:
        v = pop()
        c = v.__class__
        if c is dict:
            for x in v.values():
                xc = x.__class__
                if xc is dict or xc is list:
                    push(x)
                elif xc is float:
                    if x - x != 0.0:      # inf or NaN
                        return None
                elif xc not in leaves:
                    return None
        elif c is list:
            for x in v:
                xc = x.__class__
                if xc is dict or xc is list:
                    push(x)
                elif xc is float:
                    if x - x != 0.0:
                        return None
                elif xc not in leaves:
                    return None
        elif c is float:
            if v - v != 0.0:
                return None
        elif c not in leaves:
            return None
    try:
        text = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None
    return hashlib.sha256(text).digest()


def _split_key(value: dict, memo: dict) -> bytes | None:
    """:func:`content_key` of a dict with a ``$defs`` map, from parts: the digest of the dict
    with ``null`` in place of the map (the keys keep their order), then for each entry its
    name's JSON text and its digest (32 bytes; a JSON string ends at its closing quote, so
    the sequence reads back one way), under a prefix no JSON text starts with."""
    import hashlib

    import orjson

    parts = [b"defs:"]
    for name, sub in value["$defs"].items():
        rec = memo.get(id(sub))
        if rec is None or rec[0] is not sub:
            rec = memo[id(sub)] = (sub, content_key(sub))
        if rec[1] is None:
            return None
        try:
            parts.append(orjson.dumps(name))
        except (TypeError, orjson.JSONEncodeError):
            return None
        parts.append(rec[1])
    rest = content_key({k: (None if k == "$defs" else v) for k, v in value.items()})
    if rest is None:
        return None
    parts.insert(1, rest)
    return hashlib.sha256(b"".join(parts)).digest()


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """A change reported while lowering a recorded subtree (``path`` relative to it)."""

    kind: Kind
    path: tuple
    what: str
    rebuilt: bool


@dataclass(frozen=True, slots=True)
class ExpansionEvent:
    """A nested expansion met while lowering a recorded subtree: the ``$ref`` node at
    ``path`` (relative to it) was expanded, or (``walked``) the target at ``path`` itself was
    met in the walk."""

    path: tuple
    walked: bool


class _Record:
    """One lowered subtree: the result, and what its lowering reported, in order: its
    :class:`ChangeEvent` and :class:`ExpansionEvent` values (a nested expansion is replayed
    only where the replaying lowerer has not expanded it yet)."""

    __slots__ = ("node", "result", "events", "prose", "noops")

    def __init__(self, node: Any, result: Any, events: list, prose: int, noops: dict) -> None:
        self.node = node          # keeps the keyed object alive
        self.result = result
        self.events = events
        self.prose = prose
        self.noops = noops


class _Frame:
    __slots__ = ("root", "events", "prose", "noops")

    def __init__(self, root: tuple) -> None:
        self.root = root
        self.events: list[ChangeEvent | ExpansionEvent] = []
        self.prose = 0
        self.noops: dict[str, int] = {}


@dataclass(slots=True)
class _Pass:
    """What one pass of :meth:`_Lowerer.run` accumulates; a restart starts a fresh one."""

    changes: list[Change] = field(default_factory=list)
    prose_removed: int = 0
    noops: dict[str, int] = field(default_factory=dict)   # validation no-ops removed, by kind
    widened: bool = False
    n_widened: int = 0                   # widened changes so far
    widened_at: set[tuple] = field(default_factory=set)   # paths at and above a widening
    memo_widened: set[tuple] = field(default_factory=set)  # expansions whose lowering widened
    expanded_widened: bool = False       # whether the last _expand widened
    memo: dict[tuple, Any] = field(default_factory=dict)  # lowered targets, by path
    counts: dict[tuple, int] = field(default_factory=dict)  # their sizes (size budget)
    stack: list[tuple] = field(default_factory=list)       # targets being expanded
    spent: int = 0                       # size budget spent
    restart: bool = False                # a decision flipped past the budget: one more pass
    rebuilt: int = 0                     # rewrites that made new nodes, so far
    clean: dict[int, Any] = field(default_factory=dict)    # hook results (no-op free)
    frames: list[_Frame] = field(default_factory=list)     # recordings under way
    tops: list[tuple] = field(default_factory=list)        # paths _process walks from
    keys: dict[tuple, int] = field(default_factory=dict)   # expansion keys, by target


class _Lowerer:
    def __init__(self, root: Any, dialect: str, *, widen: bool, inline: str, pointer: str,
                 budget: int | None = None, cache: LowerCache | None = None) -> None:
        self.root = root
        self.dialect = dialect
        self.widen = widen
        self.inline_policy = inline          # "all" | "smaller"
        self.pointer = pointer
        self.idx = RefIndex(root, dialect, cache.walks if cache is not None else None)
        self.p = _Pass()                     # the state of the pass under way (see run())
        if budget is None and inline == "all":   # only "all" spends the size budget
            budget = max(200_000, 50 * count_values(root))
        self.budget = budget if budget is not None else 0
        idx = self.idx
        # exact mode cannot move anything when dynamic references are about
        self.prose_only = idx.dynamic and not widen
        self.annotations = idx.unevaluated
        unresolved = any(i.target is None for i in idx.refs.values())
        # what other readers see: {ref path: target} for the references a reader of the other
        # dialect follows that this reading does not (or resolves elsewhere), and the refs
        # whose readers disagree (see _other_readers)
        self.foreign, self.disputed, lost = self._other_readers()
        self.may_drop_defs = not self.prose_only and not lost and (widen or not unresolved)
        self.sizes_cache = cache
        # shared expansions: exact mode with the "smaller" policy only (widening depends on
        # the expansion stack, "all" on the size budget spent so far)
        self.cache = cache if (cache is not None and not widen and inline == "smaller"
                               and not self.prose_only) else None
        self.p.frames: list[_Frame] = []
        self.p.tops: list[tuple] = []         # paths _process walks from (innermost last)
        self.p.keys: dict[tuple, int] = {}
        self.pins_rel: dict[tuple, frozenset] = {}
        # the references that count: all of them, or when unused definitions can go, those
        # a used part of the schema holds (a definition only an unused one uses goes too)
        self.live: set[tuple] | None = self._live_refs() if self.may_drop_defs else None
        self.live_count: dict[tuple, int] = {}
        for path, info in idx.refs.items():
            if info.target is not None and (self.live is None or path in self.live):
                self.live_count[info.target] = self.live_count.get(info.target, 0) + 1
        for path, t in self.foreign.items():
            if self.live is None or path in self.live:
                self.live_count[t] = self.live_count.get(t, 0) + 1
        self._decl: tuple[list[tuple], list[tuple]] | None = None
        self.decisions: dict[tuple, Decision] = {}
        self.why: dict[tuple, str] = {}      # a $ref widened although it resolves: why
        self._sizes: dict[tuple, int] = {}
        self.p.counts: dict[tuple, int] = {}
        for path, info in idx.refs.items():
            self.decisions[path] = self._decide(info)
        self._set_pins()

    # -- decisions and pins

    def _decide(self, info: Any) -> Decision:
        idx = self.idx
        if info.target is None:
            return Decision.WIDEN if self.widen else Decision.KEEP
        dispute = self.disputed.get(info.path)
        if dispute is not None:
            # readers disagree on what this $ref means: kept as written (each reads it as
            # before); in widen mode, a $ref whose target depends on the reader is dropped (a
            # superset for every reader), one with keywords beside it is inlined and they
            # are dropped (reported as a widening: _ref)
            if not self.widen:
                return Decision.KEEP
            if dispute[0] == "target":
                self.why[info.path] = dispute[1]
                return Decision.WIDEN
        if idx.dialect_at(info.target) != idx.dialect_at(info.path):
            if self.widen:
                self.why[info.path] = "its target is in another dialect"
                return Decision.WIDEN
            return Decision.KEEP
        t = info.target
        if self._switches_dialect_below(t):
            # a copy may not carry the $schema that switches the dialect of a part of it (nor
            # the $id a validator needs to honour it), and without them that part would be
            # read in the wrong dialect
            if self.widen:
                self.why[info.path] = "its target holds a subschema of another dialect"
                return Decision.WIDEN
            return Decision.KEEP
        if self.widen:
            return Decision.INLINE
        if self.prose_only or idx.embedded_ids:
            return Decision.KEEP
        if t in idx.cyclic:
            return Decision.KEEP
        if idx.has_identifiers_below(t):
            return Decision.KEEP
        if self.inline_policy == "smaller" and not self._smaller(info):
            return Decision.KEEP
        return Decision.INLINE

    def _declarations(self) -> tuple[list[tuple], list[tuple]]:
        """(paths of the nodes that declare something a copy may not repeat: ``$id``/``id``,
        an anchor, ``$schema``; paths of the nodes whose ``$schema`` switches the dialect)."""
        got = self._decl
        if got is None:
            decl: list[tuple] = []
            switch: list[tuple] = []
            for p, (node, d) in self.idx.nodes.items():
                if node.__class__ is dict and not node.keys().isdisjoint(_DECLARATIONS):
                    decl.append(p)
                    if "$schema" in node and p and d != self.idx.dialect_at(p[:-1]):
                        switch.append(p)
            got = self._decl = (decl, switch)
        return got

    def _switches_dialect_below(self, t: tuple) -> bool:
        n = len(t)
        return any(p[:n] == t and p != t for p in self._declarations()[1])

    def _declares_below(self, t: tuple) -> bool:
        n = len(t)
        return any(p[:n] == t for p in self._declarations()[0])

    def _smaller(self, info: Any) -> bool:
        t = info.target
        n = self.live_count.get(t, 1)
        size_t = self._sizes.get(t)
        if size_t is None:
            node, dialect = self.idx.node(t), self.idx.dialect_at(t)
            shared = self.sizes_cache.sizes if self.sizes_cache is not None else None
            skey = (id(node), dialect, self.annotations)
            hit = shared.get(skey) if shared is not None else None
            if hit is not None and hit[0] is node:
                size_t = hit[1]
            else:
                try:
                    size_t = len(dumps(_plain(node, dialect, self.annotations)))
                except (TypeError, ValueError):
                    size_t = 1 << 40
                if shared is not None:
                    shared[skey] = (node, size_t)
            self._sizes[t] = size_t
        ref_size = len(dumps({"$ref": info.ref}))
        in_defs = len(t) >= 2 and t[-2] in _DEFS
        if not in_defs:
            return size_t <= ref_size
        entry = len(dumps(str(t[-1]))) + 2 + size_t
        return n * size_t <= n * ref_size + entry

    def _set_pins(self) -> None:
        live = self.live
        pins = set()
        for path, d in self.decisions.items():
            if d is Decision.KEEP and (live is None or path in live):
                info = self.idx.refs[path]
                if info.target is not None:
                    pins.add(info.target)
        for path, t in self.foreign.items():
            # (a $ref dropped by a widening keeps nothing alive)
            if (live is None or path in live) and \
                    self.decisions.get(path) is not Decision.WIDEN:
                pins.add(t)
        self.pins = pins
        below: set = set()
        for p in pins:
            for i in range(len(p)):
                below.add(p[:i])
        self.pinned_below = below           # strict ancestors of a pinned path
        self.pinned_any = pins | below
        if self.cache is not None:
            rel: dict[tuple, set] = {}
            for p in pins:
                for i in range(len(p)):
                    rel.setdefault(p[:i], set()).add(p[i:])
            self.pins_rel = {k: frozenset(v) for k, v in rel.items()}

    def _other_readers(self) -> tuple[dict[tuple, tuple], dict[tuple, str], bool]:
        """What the readers of the other dialect see that this reading does not. Real readers
        disagree: the MCP SDK (1.x) reads every schema with draft-07 Ajv, whatever its
        ``$schema`` says, and Ajv applies the keywords beside a ``$ref`` (an ``$id`` too) in
        every dialect; the SDK v2 and python-jsonschema read the dialect declared (2020-12
        without one). Returns:

        * ``foreign``: {path of a ``$ref`` node: its target} for the references a reader of
          the other dialect's keywords follows and this one does not (draft-07 tuple
          ``items``, ``additionalItems``, ``dependencies`` read as 2020-12, or the 2020-12-only
          applicators read as draft-07), and for a draft-07 ``$ref`` beside an ``$id``, the
          target Ajv resolves it to (against that ``$id``) where the letter of draft-07 finds
          another. Their targets are used: never dropped, never moved.
        * ``disputed``: {path of a ``$ref`` node this reading follows: (what, why)}, where
          readers disagree: ``("siblings", names)``, a draft-07 ``$ref`` with validation
          keywords beside it (the letter ignores them, Ajv applies them), ``("target",
          why)``, one whose target depends on the reader. Never inlined in exact mode.
        * ``lost``: a reference another reader follows that cannot be located here (no
          definition may then be dropped).
        """
        from urllib.parse import urljoin

        idx = self.idx
        foreign: dict[tuple, tuple] = {}
        disputed: dict[tuple, str] = {}
        lost = False
        if not idx.refs and not idx.defs_at:
            return foreign, disputed, lost
        for path, info in idx.refs.items():
            d = idx.dialect_at(path)
            if d not in LEGACY_DIALECTS or info.target is None:
                continue
            node = idx.node(path)
            if not isinstance(node, dict):
                continue
            siblings = [k for k in node if k != "$ref" and M.validates(k, DRAFT7)]
            nid = node.get("$id") if d != "draft4" else node.get("id")
            if isinstance(nid, str) and not nid.startswith("#"):
                try:
                    other, _problem, _frag = idx.resolve(info.ref, urljoin(idx.base[path], nid))
                except (KeyError, ValueError):
                    other = None
                if other != info.target:
                    disputed[path] = ("target", "an $id beside it changes its target for Ajv "
                                      "(the MCP SDK), not by the letter of draft-07")
                    if other is not None:
                        foreign[path] = other
                    continue
            if siblings:
                target = idx.node(info.target)
                m = M.merge_and(target, {k: node[k] for k in siblings}, d)
                if m is None or not M.json_equal(m, target):   # not implied by the target
                    disputed[path] = ("siblings", ", ".join(siblings))
        # the other dialect's applicators, with no $schema switching (the SDK's reading)
        other_d = DRAFT2020 if self.dialect in LEGACY_DIALECTS else DRAFT7
        for path, node in _walk_fixed(self.root, other_d):
            ref = node.get("$ref")
            if not isinstance(ref, str) or path in idx.refs:
                continue
            target = None
            if ref == "#" or ref.startswith("#/"):
                from toolcat.document import pointer as jp

                try:
                    got = jp.walk(idx.root, jp.decode_fragment(ref[1:]))
                except (KeyError, ValueError):
                    got = None
                target = got[0] if got is not None else None
            else:
                try:
                    target, problem, _frag = idx.resolve(ref, idx._context(path)[1])
                except (KeyError, ValueError):
                    target, problem = None, None
                if target is None and problem is not RefProblem.REMOTE:
                    lost = True
            if target is not None:
                foreign[path] = tuple(target)
        return foreign, disputed, lost

    def _live_refs(self) -> set[tuple]:
        """The references the output keeps or inlines: those outside every definition, and
        those inside a definition that a live reference points into (to a fixpoint), with
        the ones only a reader of the other dialect follows (:meth:`_other_readers`). A
        definition only dead references point at is dropped with them. (Whether a reference
        is kept or inlined does not matter: either way its target is used.)"""
        idx = self.idx
        entries: set[tuple] = set()
        for q in idx.defs_at:
            node = idx.node(q)
            if isinstance(node, dict):
                for key in _DEFS:
                    defs = node.get(key)
                    if isinstance(defs, dict):
                        entries.update(q + (key, name) for name in defs)

        def region(p: tuple) -> tuple | None:     # the innermost definition holding p
            for i in range(len(p), 1, -1):
                if p[:i] in entries:
                    return p[:i]
            return None

        targets: dict[tuple, tuple | None] = {p: i.target for p, i in idx.refs.items()}
        extra: dict[tuple, tuple] = {}   # a $ref node both readings follow, to two targets
        for p, t in self.foreign.items():
            if p in targets:
                extra[p] = t
            else:
                targets[p] = t
        if not entries:
            return set(targets)
        by_region: dict[tuple | None, list[tuple]] = {}
        for p in targets:
            by_region.setdefault(region(p), []).append(p)
        live_entries: set[tuple] = set()
        live: set[tuple] = set()
        pending = list(by_region.get(None, ()))
        while pending:
            p = pending.pop()
            if p in live:
                continue
            live.add(p)
            for t in (targets[p], extra.get(p)):
                if t is None:
                    continue
                for i in range(len(t), 1, -1):
                    e = t[:i]
                    if e in entries and e not in live_entries:
                        live_entries.add(e)
                        pending.extend(by_region.get(e, ()))
        return live

    def _flip(self, path: tuple, defer: bool = False) -> None:
        if self.decisions.get(path) is not Decision.KEEP:
            self.decisions[path] = Decision.KEEP
            if not defer:
                raise _Restart
            # over the size budget: every reference past the budget in this run is kept,
            # then one restart (one restart per reference was quadratic on long ref chains)
            self.p.restart = True

    # -- reporting

    def _mark(self, path: tuple) -> None:
        """Remember that something at ``path`` was widened (for :meth:`_polarity`)."""
        w = self.p.widened_at
        for i in range(len(path), -1, -1):
            p = path[:i]
            if p in w:
                break
            w.add(p)

    def _polarity(self, n: dict, path: tuple, d: str) -> dict:
        """Widening is sound only where a larger subschema makes the whole accept more. Below
        ``not`` it narrows, below ``if`` it moves the then/else boundary, below ``contains`` it
        can break ``maxContains``: where a subschema there was widened, the keyword goes."""
        w = self.p.widened_at
        if "not" in n and path + ("not",) in w and M.validates("not", d):
            self._note(path + ("not",), WIDENED, "not dropped: its subschema was widened")
            n = {k: v for k, v in n.items() if k != "not"}
        if "if" in n and path + ("if",) in w and M.validates("if", d):
            self._note(path + ("if",), WIDENED,
                       "if/then/else dropped: the if subschema was widened")
            n = {k: v for k, v in n.items() if k not in ("if", "then", "else")}
        if "maxContains" in n and path + ("contains",) in w and M.validates("maxContains", d):
            self._note(path + ("maxContains",), WIDENED,
                       "maxContains dropped: contains was widened")
            n = {k: v for k, v in n.items() if k != "maxContains"}
        return n

    def _note(self, path: tuple, kind: str, what: str, rebuilt: bool = True) -> None:
        """Report a change; ``rebuilt``: the rewrite made new nodes (a merge, a union...)
        that the no-op pass has to see whole."""
        if kind == WIDENED:
            self.p.widened = True
            self.p.n_widened += 1
            self._mark(path)
        if rebuilt:
            self.p.rebuilt += 1
        self.p.changes.append(Change(self.pointer + encode(path), kind, what))
        if self.p.frames:
            f = self.p.frames[-1]
            f.events.append(ChangeEvent(kind, path[len(f.root):], what, rebuilt))

    # -- running

    def run(self) -> Any:
        """Lower the schema: passes over it until no decision flips (a flip restarts the
        pass with fresh state)."""
        for _ in range(len(self.decisions) + 2):
            self.p = _Pass()
            try:
                out = self._process(self.root, (), self.dialect)
            except _Restart:
                self._set_pins()
                continue
            if self.p.restart:
                self._set_pins()
                continue
            return self._finish(out)
        raise RuntimeError("lowering did not settle")  # pragma: no cover

    def _process(self, node: Any, path: tuple, dialect: str) -> Any:
        if self.may_drop_defs and self.idx.defs_at:
            node = self._drop_defs(node, path)
        if self.cache is None:
            return transform(node, self._hook, dialect, path)
        self.p.tops.append(path)
        try:
            return transform(node, self._hook, dialect, path, self._enter)
        finally:
            self.p.tops.pop()

    def _enter(self, node: Any, path: tuple, _d: str) -> Any:
        """A ``$ref`` target met in a walk (a kept definition...) is lowered as an expansion,
        so that its lowering is shared with the other schemas of the run."""
        if path == self.p.tops[-1] or path not in self.idx.ref_count:
            return DESCEND
        return self._expand(path, path, True)

    def _drop_defs(self, node: Any, path: tuple) -> Any:
        """``node`` (at ``path``) without the definitions no kept reference uses: what a
        bottom-up walk with :meth:`_drop_defs_hook` gives, rebuilt only along the paths to
        the nodes that hold definitions (the walk reaches exactly the nodes the index
        walked from the same start)."""
        idx = self.idx
        walk = idx.walk_of.get(path)
        n = len(path)
        found = sorted((seq, q) for q, (start, seq) in idx.defs_at.items()
                       if q[:n] == path and start == walk)
        if not found:
            return node
        # post-order (what the bottom-up walk visits first), from the pre-order numbers
        order: list[tuple] = []
        stack: list[tuple] = []
        for _seq, q in found:
            while stack and q[:len(stack[-1])] != stack[-1]:
                order.append(stack.pop())
            stack.append(q)
        order.extend(reversed(stack))
        for q in order:
            rel = q[n:]
            cur = node
            for tok in rel:
                cur = cur[tok]
            new = self._drop_defs_hook(cur, q, "")
            if new is not cur:
                node = _replace_at(node, rel, new)
        return node

    def _drop_defs_hook(self, n: Any, path: tuple, _d: str) -> Any:
        if not isinstance(n, dict) or not any(k in n for k in _DEFS):
            return n
        out = None
        for key in _DEFS:
            defs = n.get(key)
            if not isinstance(defs, dict):
                continue
            keep = {name: s for name, s in defs.items() if path + (key, name) in self.pinned_any}
            if len(keep) == len(defs):
                continue
            if out is None:
                out = dict(n)
            for name in defs:
                if name not in keep:
                    self._note(path + (key, name), EXACT, "unused definition dropped", False)
            if keep:
                out[key] = keep
            else:
                del out[key]
        return n if out is None else out

    def _finish(self, out: Any) -> Any:
        if self.widen and self.p.widened and _has_unevaluated(out, self.dialect):
            self.p.widened_at = set()   # marks of this pass only (paths of the output)
            out = transform(out, self._drop_unevaluated_hook, self.dialect)
        if self.widen and isinstance(out, (dict, bool)):
            out = transform(out, self._drop_identifiers_hook, self.dialect)
        return out

    def _drop_unevaluated_hook(self, n: Any, path: tuple, d: str) -> Any:
        if isinstance(n, dict) and any(k in n for k in M.UNEVALUATED):
            for k in M.UNEVALUATED:
                if k in n:
                    self._note(path + (k,), WIDENED,
                               f"{k} dropped: a construct it depends on was widened")
            n = {k: v for k, v in n.items() if k not in M.UNEVALUATED}
        if isinstance(n, dict) and self.p.widened_at:
            # dropped below an `if` (or `not`...): that widening narrows, the keyword goes too
            n = self._polarity(n, path, d)
        return n

    def _drop_identifiers_hook(self, n: Any, path: tuple, _d: str) -> Any:
        # no reference is left: anchors and nested ids identify nothing any more
        if not isinstance(n, dict) or path == ():
            return n
        drop = [k for k in ANCHOR_KEYWORDS if k in n]
        if "$id" in n and "$schema" not in n:
            drop.append("$id")
        if not drop:
            return n
        return {k: v for k, v in n.items() if k not in drop}

    # -- the hook

    def _hook(self, n: Any, path: tuple, d: str) -> Any:
        if not isinstance(n, dict):
            return n
        pinned = self.pinned_any
        if pinned:
            n, removed = strip_node(n, lambda k: path + (k,) in pinned)
        else:
            n, removed = strip_node(n)
        if removed:
            self.p.prose_removed += len(removed)
            if self.p.frames:
                self.p.frames[-1].prose += len(removed)
        if _FIXABLE_KEYS & n.keys():
            n = self._fix_data(n, path, d)
        if self.prose_only:
            return n
        rebuilt = self.p.rebuilt
        if isinstance(n.get("$ref"), str):
            n = self._ref(n, path, d)
            if not isinstance(n, dict):
                return n
            if d in LEGACY_DIALECTS and isinstance(n.get("$ref"), str):
                # a kept $ref in draft-07 and older *is* its target: the keywords beside it
                # are inert, nothing here may be lowered (`not: {}` beside it is no `false`)
                self.p.clean[id(n)] = n
                return n
        if self.widen:
            for k in DYNAMIC_REFERENCE_KEYWORDS:
                if k in n and M.validates(k, d):
                    self._note(path + (k,), WIDENED, f"{k} dropped (dynamic reference)")
                    n = {x: v for x, v in n.items() if x != k}
            if self.p.widened_at:
                n = self._polarity(n, path, d)
        if path not in self.pinned_below:
            ids = _identifiers(n) if path in self.pins else None
            n = self._lower(n, path, d)
            if self.widen:
                n = self._widen(n, path, d)
            if ids and not (isinstance(n, dict) and all(k in n for k in ids)):
                # a kept $ref resolves through this node's $anchor/$id: an exact rewrite
                # (`not: {}` -> false...) must not lose it
                n = _with_identifiers(n, ids)
        if self.p.rebuilt != rebuilt and isinstance(n, dict):
            # merges and unions made nodes no hook call saw whole (a `type` beside an enum
            # that now implies it...): the no-op pass over the new parts
            return self._scrub(n, path, d)
        if isinstance(n, dict):
            if n:
                n = self._drop_noops(n, path, d)
            self.p.clean[id(n)] = n
        return n

    def _fix_data(self, n: dict, path: tuple, d: str) -> dict:
        """:func:`fix_data` at one node, reported."""
        pinned = self.pinned_any
        out, done = fix_data(n, d, lambda k: path + ("patternProperties", k) not in pinned)
        for suffix, what in done:
            self._note(path + suffix, EXACT, what, False)
        return out

    def _scrub(self, n: Any, path: tuple, d: str) -> Any:
        """``n`` with the no-op pass applied to every node in it that is not a hook result
        already (those are clean): the new nodes a merge or a union made."""
        clean = self.p.clean
        if not isinstance(n, dict) or id(n) in clean:
            return n
        if "$schema" in n:
            d = node_dialect(n, d)
        out = n
        for suffix, child in subschemas(n, d):
            if isinstance(child, dict) and id(child) not in clean:
                new = self._scrub(child, path + suffix, d)
                if new is not child:
                    if out is n:
                        out = dict(n)
                    _put_child(out, n, suffix, new)
        if out:
            out = self._drop_noops(out, path, d)
        clean[id(out)] = out
        return out

    # -- validation no-ops

    def _drop_noops(self, n: dict, path: tuple, d: str) -> dict:
        """``n`` without keywords that cannot change what it accepts in dialect ``d``
        (:func:`noop_keywords`), except at pinned paths (a kept ``$ref`` points there)."""
        found = noop_keywords(n, d, root=(path == ()), annotations=self.annotations)
        if not found:
            return n
        pinned = self.pinned_any
        if pinned:
            found = [(k, label) for k, label in found if path + (k,) not in pinned]
            if not found:
                return n
        drop = {k for k, _label in found}
        counts = self.p.noops
        frame = self.p.frames[-1] if self.p.frames else None
        for _k, label in found:
            counts[label] = counts.get(label, 0) + 1
            if frame is not None:
                frame.noops[label] = frame.noops.get(label, 0) + 1
        return {k: v for k, v in n.items() if k not in drop}

    # -- $ref

    def _ref(self, n: dict, path: tuple, d: str) -> Any:
        info = self.idx.refs.get(path)
        default = Decision.WIDEN if self.widen else Decision.KEEP
        decision = self.decisions.get(path, default)
        if info is None or info.ref != n["$ref"]:
            decision = default
        legacy = d in LEGACY_DIALECTS
        siblings = {k: v for k, v in n.items() if k != "$ref"}
        if decision is Decision.KEEP:
            return n
        if decision is Decision.WIDEN:
            why = (self.why.get(path) or info.why) if info is not None else \
                "reference not resolved"
            self._note(path + ("$ref",), WIDENED, f"$ref {n['$ref']!r} dropped: {why}")
            return {} if legacy else siblings
        t = info.target
        if not self.widen and path in self.pinned_below:
            self._flip(path)
        target_node = self.idx.node(t)
        if t in self.p.stack:
            # recursive: the target's type stands in for it
            widened: Any = _stand_in(target_node, self.idx.dialect_at(t))
            self._note(path + ("$ref",), WIDENED,
                       f"recursive $ref {n['$ref']!r} replaced by {dumps(widened).decode()}")
            expanded = widened
        else:
            expanded = self._expand(t, path)
            if self.widen and expanded is not None and self.p.expanded_widened:
                self._mark(path)
            if expanded is not None and self._declares_below(t):
                expanded = _without_declarations(expanded, self.idx.dialect_at(t))
            if expanded is None:  # over budget
                if not self.widen:
                    self._flip(path, defer=True)
                widened = _stand_in(target_node, self.idx.dialect_at(t))
                if widened is False:
                    widened = {}
                self._note(path + ("$ref",), WIDENED,
                           f"$ref {n['$ref']!r} not inlined (size budget); replaced by "
                           f"{dumps(widened).decode()}")
                expanded = widened
        if legacy:
            ignored = [k for k in siblings if M.validates(k, d) or M.validates(k, DRAFT7)]
            if ignored:
                # the letter of draft-07 ignores them, Ajv (the MCP SDK) applies them: dropped,
                # the schema accepts what it did for the first and a superset for the second,
                # unless the target implies them
                part = {k: siblings[k] for k in ignored}
                m = M.merge_and(expanded, part, d) if isinstance(expanded, (dict, bool)) else None
                if m is not None and M.json_equal(m, expanded):
                    self._note(path, EXACT, "keywords beside $ref dropped (its target implies "
                               "them): " + ", ".join(ignored), False)
                else:
                    self._note(path, WIDENED, "keywords beside $ref dropped: "
                               + ", ".join(ignored) + " (draft-07 ignores them; Ajv, as the "
                               "MCP SDK runs it, applies them)", False)
            self._note(path + ("$ref",), EXACT, f"inlined $ref {n['$ref']!r}", False)
            if path == () and "$schema" in siblings:
                # the root keeps saying which dialect it is (tuple `items`...)
                if expanded is False:
                    expanded = {"not": {}}
                return {"$schema": siblings["$schema"],
                        **(expanded if isinstance(expanded, dict) else {})}
            return dict(expanded) if isinstance(expanded, dict) else expanded
        merged = M.merge_and(siblings, expanded, d)
        if merged is not None:
            self._note(path + ("$ref",), EXACT, f"inlined $ref {n['$ref']!r}", bool(siblings))
            return _in_place_of_ref(n, siblings, merged)
        if not self.widen:
            self._flip(path)
        merged, dropped = M.merge_and_widen(siblings, expanded, d)
        merged = _in_place_of_ref(n, siblings, merged)
        self._note(path + ("$ref",), WIDENED,
                   f"inlined $ref {n['$ref']!r}; target keywords that conflict with the ones "
                   f"beside it dropped: {', '.join(dropped)}")
        return merged

    # -- expansions shared across the schemas of a run

    def _key(self, t: tuple) -> int:
        """Everything the lowering of the subtree at ``t`` depends on, as a small int: the
        node (by identity) and its dialect, whether ``unevaluated*`` is about, the pinned
        paths below it, and for each ``$ref`` inside it the decision taken (with the key of
        the target it inlines). Two lowerers with equal keys lower the subtree alike."""
        k = self.p.keys.get(t)
        if k is None:
            idx = self.idx
            n = len(t)
            sig = []
            for p in idx.refs_within.get(t, ()):
                info = idx.refs[p]
                dec = self.decisions.get(p)
                sub = self._key(info.target) if dec is Decision.INLINE and info.target is not None \
                    else None
                sig.append((p[n:], info.ref, dec, sub))
            key = (id(idx.node(t)), idx.dialect_at(t), self.annotations, self.may_drop_defs,
                   self.pins_rel.get(t), t in idx.reaches_cycle, tuple(sig))
            k = self.p.keys[t] = self.cache.intern(key)
        return k

    def _replay(self, t: tuple, rec: _Record) -> None:
        """Report what lowering ``t`` reported when it was recorded (see :class:`_Record`)."""
        for ev in rec.events:
            if isinstance(ev, ChangeEvent):
                self._note(t + ev.path, ev.kind, ev.what, ev.rebuilt)
            else:
                at = t + ev.path
                target = at if ev.walked else self.idx.refs[at].target
                if target in self.p.memo:
                    continue
                sub = self.cache.expansions[self._key(target)]
                self._replay(target, sub)
                if target not in self.idx.reaches_cycle:
                    self.p.memo[target] = sub.result
        self.p.prose_removed += rec.prose
        for label, k in rec.noops.items():
            self.p.noops[label] = self.p.noops.get(label, 0) + k

    def _expand(self, t: tuple, at: tuple, walked: bool = False) -> Any:
        """The lowered target ``t`` of the ``$ref`` at ``at`` (``walked``: ``t`` itself,
        met in a walk)."""
        idx = self.idx
        memo_ok = t not in idx.reaches_cycle
        if self.cache is not None:
            if self.p.frames:
                f = self.p.frames[-1]
                f.events.append(ExpansionEvent(at[len(f.root):], walked))
            if memo_ok and t in self.p.memo:
                return self.p.memo[t]
            key = self._key(t)
            rec = self.cache.expansions.get(key)
            if rec is not None and rec.node is idx.node(t):
                self.cache.hits += 1
                if isinstance(rec.result, dict):
                    self.p.clean[id(rec.result)] = rec.result
                saved, self.p.frames = self.p.frames, []
                try:
                    self._replay(t, rec)
                finally:
                    self.p.frames = saved
                if memo_ok:
                    self.p.memo[t] = rec.result
                return rec.result
            self.cache.misses += 1
            self.p.frames.append(_Frame(t))
            self.p.stack.append(t)
            try:
                out = self._process(idx.node(t), t, idx.dialect_at(t))
            finally:
                self.p.stack.pop()
                frame = self.p.frames.pop()
            self.cache.expansions[key] = _Record(idx.node(t), out, frame.events, frame.prose,
                                                 frame.noops)
            if memo_ok:
                self.p.memo[t] = out
            return out
        if memo_ok and t in self.p.memo:
            out = self.p.memo[t]
            self.p.expanded_widened = t in self.p.memo_widened
        else:
            before = self.p.n_widened
            self.p.stack.append(t)
            try:
                out = self._process(idx.node(t), t, idx.dialect_at(t))
            finally:
                self.p.stack.pop()
            self.p.expanded_widened = self.p.n_widened != before
            if self.p.expanded_widened:
                self.p.memo_widened.add(t)
            if memo_ok:
                self.p.memo[t] = out
        if self.inline_policy == "all":   # "smaller" never grows the schema
            size = self.p.counts.get(t) if memo_ok else None
            if size is None:
                size = count_values(out)
                if memo_ok:
                    self.p.counts[t] = size
            self.p.spent += size
            if self.p.spent > self.budget:
                return None
        return out

    # -- exact lowering

    def _lower(self, n: dict, path: tuple, d: str) -> dict | bool:
        if isinstance(n.get("allOf"), list) and M.validates("allOf", d):
            rest = {k: v for k, v in n.items() if k != "allOf"}
            acc: Any = rest
            for b in n["allOf"]:
                acc = M.merge_and(acc, b, d)
                if acc is None:
                    break
            if acc is not None:
                self._note(path + ("allOf",), EXACT, "allOf merged into one schema")
                n = acc
                if not isinstance(n, dict):
                    return n
        if "not" in n and M.validates("not", d):
            x = M.not_exact(n["not"], d)
            if x is not None:
                rest = {k: v for k, v in n.items() if k != "not"}
                m = M.merge_and(rest, x, d)
                if m is not None:
                    self._note(path + ("not",), EXACT, "not lowered to " + _short(x))
                    n = m
                    if not isinstance(n, dict):
                        return n
        for key in ("anyOf", "oneOf"):
            if not isinstance(n, dict) or not isinstance(n.get(key), list) or not M.validates(key, d):
                continue
            u = M.union_exact(n[key], d, one_of=(key == "oneOf"), annotations=self.annotations)
            if u is None:
                continue
            rest = {k: v for k, v in n.items() if k != key}
            m = M.merge_and(rest, u, d)
            if m is None:
                continue
            self._note(path + (key,), EXACT, f"{key} lowered to " + _short(u))
            n = m
        return n

    # -- widening (the subset is required)

    def _widen(self, n: Any, path: tuple, d: str) -> Any:
        inert = [k for k in n if k in COMPACT_FORBIDDEN and not M.validates(k, d)] \
            if isinstance(n, dict) else []
        if inert:
            # a forbidden name this dialect does not define: ignored by validators, dropped
            for k in inert:
                self._note(path + (k,), EXACT, f"{k} is no keyword in this dialect: dropped")
            n = {k: v for k, v in n.items() if k not in inert}
        for _ in range(8):
            if not isinstance(n, dict):
                return n
            present = [k for k in n if k in _WIDEN_KEYS and M.validates(k, d)
                       and not (k == "dependencies" and not _schema_deps(n[k]))]
            if not present:
                return n
            k = present[0]
            rest = {x: v for x, v in n.items() if x != k}
            v = n[k]
            if k == "allOf" and isinstance(v, list):
                acc: Any = rest
                lost: list[str] = []
                for b in v:
                    acc, dropped = M.merge_and_widen(acc, b, d)
                    lost.extend(dropped)
                self._note(path + (k,), WIDENED,
                           "allOf merged; conflicting keywords dropped: " + ", ".join(dict.fromkeys(lost)))
                n = acc
            elif k in ("anyOf", "oneOf") and isinstance(v, list):
                j = M.join(v, d)
                n, dropped = M.merge_and_widen(rest, j, d)
                self._note(path + (k,), WIDENED,
                           f"{k} replaced by a schema accepting every branch: {_short(j)}")
            elif k == "not":
                self._note(path + (k,), WIDENED, "not dropped")
                n = rest
            elif k == "patternProperties":
                add = n.get("additionalProperties", True)
                if M.is_trivial(add, d) or not isinstance(v, dict):
                    n = rest
                    self._note(path + (k,), WIDENED, "patternProperties dropped")
                else:
                    rest["additionalProperties"] = M.join([add, *v.values()], d)
                    n = rest
                    self._note(path + (k,), WIDENED,
                               "patternProperties folded into additionalProperties")
            elif k == "dependentSchemas":
                self._note(path + (k,), WIDENED, "dependentSchemas dropped")
                n = rest
            elif k == "dependencies":
                deps = {}
                for name, dep in v.items():
                    if isinstance(dep, list):
                        deps[name] = dep
                    elif isinstance(dep, dict) and set(dep) == {"required"} and isinstance(dep["required"], list):
                        deps[name] = dep["required"]
                        self._note(path + (k, name), EXACT, "schema dependency lowered to names")
                    elif dep is True or (isinstance(dep, dict) and M.is_trivial(dep, d)):
                        self._note(path + (k, name), EXACT, "empty schema dependency dropped")
                    else:
                        self._note(path + (k, name), WIDENED, "schema dependency dropped")
                if deps:
                    rest["dependencies"] = deps
                n = rest
            else:  # a malformed value: the keyword cannot hold subschemas as written
                self._note(path + (k,), WIDENED, f"malformed {k} dropped")
                n = rest
        return n


# ----------------------------------------------------------------------------- no-ops

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


def _stand_in(target: Any, dialect: str) -> Any:
    """What a widened ``$ref`` becomes: its target's ``type`` (a superset of the target), or
    ``{}``; ``false`` for a ``false`` target. In draft-07 and older a target that holds a
    ``$ref`` itself *is* that ref's target: its own ``type`` is inert, so ``{}``."""
    if target is False:
        return False
    if not isinstance(target, dict) or (dialect in LEGACY_DIALECTS and isinstance(target.get("$ref"), str)):
        return {}
    if M.type_atoms(target.get("type")) is not None:
        return {"type": target["type"]}
    return {}


# the identifiers a kept $ref may resolve through (not draft-04's `id`: see factor)
_IDENTIFIERS = ("$id",) + ANCHOR_KEYWORDS


def _identifiers(n: dict) -> dict:
    return {k: n[k] for k in _IDENTIFIERS if k in n}


def _walk_fixed(root: Any, dialect: str) -> Any:
    """``(path, node)`` of every object schema node of ``root`` read with ``dialect``'s
    keywords throughout: no nested ``$schema`` switches it (as the MCP SDK 1.x reads every
    schema: draft-07 Ajv, ``$schema`` never looked at)."""
    stack = [((), root)]
    while stack:
        p, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield p, node
        kids = [(p + suffix, child) for suffix, child in subschemas(node, dialect)]
        kids.reverse()
        stack.extend(kids)


def fix_data(n: dict, d: str, renamable: Any = None,
             required: bool = True) -> tuple[dict, list[tuple[tuple, str]]]:
    """Exact rewrites of values of one node that one real reader refuses and another takes:
    a ``pattern`` (or ``patternProperties`` name) with an identity escape ECMA-262 refuses
    (:mod:`toolcat.schema.patterns`: Ajv, and so the MCP SDK, cannot compile the schema), a
    name repeated in ``required`` (invalid against every metaschema). Returns the node (a new
    one when changed) and ``(path suffix, what)`` for each rewrite; ``renamable(name)``: may
    that ``patternProperties`` entry be renamed (no reference points into it); ``required``:
    also deduplicate ``required``."""
    out = n
    done: list[tuple[tuple, str]] = []
    pat = n.get("pattern")
    if isinstance(pat, str) and "\\" in pat and M.validates("pattern", d):
        new = without_identity_escapes(pat)
        if new is not None:
            out = dict(out)
            out["pattern"] = new
            done.append((("pattern",), f"pattern {pat!r} written {new!r}: " + _ESCAPES_WHY))
    props = n.get("patternProperties")
    if isinstance(props, dict) and M.validates("patternProperties", d) and \
            any("\\" in k for k in props):
        renamed: dict = {}
        for k, v in props.items():
            new = without_identity_escapes(k) if "\\" in k else None
            if new is not None and new not in props and new not in renamed and \
                    (renamable is None or renamable(k)):
                done.append((("patternProperties", k),
                             f"patternProperties name {k!r} written {new!r}: " + _ESCAPES_WHY))
                renamed[new] = v
            else:
                renamed[k] = v
        if list(renamed) != list(props):
            if out is n:
                out = dict(out)
            out["patternProperties"] = renamed
    req = n.get("required") if required else None
    if isinstance(req, list) and len(req) > 1 and M.validates("required", d):
        once = M.dedupe(req)
        if len(once) != len(req):
            if out is n:
                out = dict(out)
            out["required"] = once
            done.append((("required",), "each required name once"))
    return out, done


def _without_declarations(n: Any, dialect: str) -> Any:
    """A copy of ``n`` (an inlined target) without ``$id``/``id``, anchors and ``$schema`` at
    any depth: the original keeps them; a second node with the same identifier is refused by
    Ajv (and the MCP SDK), and the copy's dialect is the one around it. Only for a copy that
    no reference resolves through: in exact mode a target with identifiers below is never
    inlined, in widen mode every reference inside it was inlined or dropped first; and a
    target whose parts switch the dialect is not inlined (:meth:`_Lowerer._decide`)."""

    def hook(node: Any, _path: tuple, _d: str) -> Any:
        if isinstance(node, dict) and not node.keys().isdisjoint(_DECLARATIONS):
            return {k: v for k, v in node.items() if k not in _DECLARATIONS}
        return node

    return transform(n, hook, dialect)


def _with_identifiers(n: Any, ids: dict) -> dict:
    """``n`` (a rewritten node) carrying ``ids`` again; ``false`` becomes ``{"not": {}}``."""
    if n is True:
        return dict(ids)
    if n is False:
        return {**ids, "not": {}}
    return {**ids, **{k: v for k, v in n.items() if k not in ids}}


_WIDEN_KEYS = ("allOf", "anyOf", "oneOf", "not", "patternProperties", "dependentSchemas",
               "dependencies", "$ref")


def _schema_deps(v: Any) -> bool:
    return isinstance(v, dict) and any(not isinstance(x, list) for x in v.values())


def _short(s: Any, limit: int = 80) -> str:
    text = dumps(s).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plain(schema: Any, dialect: str, annotations: bool) -> Any:
    """``schema`` without prose and validation no-ops: what it weighs once lowered, as far as
    that can be told without lowering it (the size that inlining decisions compare)."""

    def hook(node: Any, path: tuple, d: str) -> Any:
        if not isinstance(node, dict):
            return node
        node = strip_node(node)[0]
        found = noop_keywords(node, d, root=False, annotations=annotations)
        if found:
            drop = {k for k, _label in found}
            node = {k: v for k, v in node.items() if k not in drop}
        return node

    return transform(schema, hook, dialect)


def _put_child(out: dict, orig: dict, suffix: tuple, new: Any) -> None:
    """Put ``new`` at ``suffix`` (a walker path suffix: ``(key,)``, ``(key, name)`` or
    ``(key, index)``) of ``out``, a copy of ``orig``, copying the container it sits in."""
    key = suffix[0]
    if len(suffix) == 1:
        out[key] = new
        return
    box = out[key]
    if box is orig[key]:
        box = list(box) if isinstance(box, list) else dict(box)
        out[key] = box
    box[suffix[1]] = new


def _in_place_of_ref(n: dict, siblings: dict, merged: Any) -> Any:
    """``merged`` with the keys the ``$ref`` brought where the ``$ref`` stood: validators
    evaluate keywords in order, and a schema whose verdict hangs on that order (a reference
    cycle that an earlier failure short-circuits) keeps it."""
    if not isinstance(merged, dict) or not siblings or list(n)[-1] == "$ref":
        return merged
    out: dict = {}
    for k in n:
        if k == "$ref":
            out.update((x, v) for x, v in merged.items() if x not in siblings)
        elif k in merged:
            out[k] = merged[k]
    out.update((x, v) for x, v in merged.items() if x not in out)
    return out


def _replace_at(root: Any, rel: tuple, new: Any) -> Any:
    """``root`` with the value at ``rel`` replaced by ``new`` (copies along the path only)."""
    if not rel:
        return new
    head = rel[0]
    child = _replace_at(root[head], rel[1:], new)
    if isinstance(root, list):
        out = list(root)
    else:
        out = dict(root)
    out[head] = child
    return out


def _has_unevaluated(s: Any, dialect: str) -> bool:
    for _p, node, _d in iter_schemas(s, dialect):
        if isinstance(node, dict) and any(k in node for k in M.UNEVALUATED):
            return True
    return False


# ----------------------------------------------------------------------------- subset checks

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


def _with_type(base: dict) -> dict:
    out: dict = {}
    for k in ("$schema", "$id"):
        if k in base:
            out[k] = base[k]
    out["type"] = "object"
    out.update((k, v) for k, v in base.items() if k not in out)
    return out


def _root_referenced(schema: Any, dialect: str, idx: RefIndex | None = None) -> bool:
    """Whether a reference inside ``schema`` may resolve to its root (a dynamic one may).
    ``idx``: a :class:`RefIndex` of ``schema`` built before (with ``dialect``)."""
    if idx is None:
        if _no_root_refs_by_text(schema):
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


def _no_root_refs_by_text(schema: Any) -> bool:
    """A shortcut of :func:`_root_referenced`: True when no reference in ``schema`` can lead to
    its root, because its JSON text has no dynamic reference key and every ``"$ref"`` key
    (anywhere, data included) holds a string that starts with ``#/``: such a pointer names a
    member below a resource's root, never a root (a resource's root is the document's or
    an embedded one's, and ``#/...`` adds at least one token). False: index to decide."""
    text = schema_text(schema)
    if text is None:
        return False
    if b'"$dynamicRef"' in text or b'"$recursiveRef"' in text:
        return False
    return text.count(b'"$ref":') == text.count(b'"$ref":"#/')


def _floor(schema: Any, dialect: str, pointer: str, widen: bool) -> tuple[Any, list[Change], bool]:
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
    if schema.get("type") != "object" and _root_referenced(schema, dialect):
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
        schema = _with_type(schema)
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


# ----------------------------------------------------------------------------- entry point

def lower_schema(schema: Any, dialect: str = DRAFT2020, *, subset: bool = False,
                 unlowerable: str = "widen", floor: bool | None = None, pointer: str = "",
                 inline: str | None = None, budget: int | None = None,
                 drop_schema: bool = True, cache: LowerCache | None = None,
                 factor: bool = False) -> SchemaResult:
    """Strip prose and lower ``schema``; see the module docstring.

    ``subset``: the result must satisfy the RFC 0112 compact subset; what cannot be lowered
    exactly follows ``unlowerable`` (widen | omit | keep | fail). Without ``subset`` only
    exact rewrites are made and ``$ref`` is inlined only where that does not grow the schema.
    ``floor``: also give the top level ``type: "object"`` and ``properties`` (default: with
    ``subset``). ``pointer`` prefixes the change pointers (e.g. ``/inputSchema``).
    ``drop_schema``: leave out a root ``$schema`` (draft-07 or 2020-12) when nothing in the
    schema means something else under the other one (:func:`dialect_neutral`).
    ``factor``: without ``subset``, also move repeated identical subschemas into the root's
    definitions where that is smaller (:mod:`toolcat.features.project.factor`; never for the compact
    subset, which forbids ``$ref``).
    ``cache``: shared between the schemas of one run (:class:`LowerCache`).
    """
    if unlowerable not in ("widen", "omit", "keep", "fail"):
        raise ValueError(f"unknown unlowerable policy {unlowerable!r}")
    if floor is None:
        floor = subset
    widen = subset and unlowerable == "widen"
    if inline is None:
        inline = "all" if subset else "smaller"
    if not isinstance(schema, (dict, bool)):
        res = SchemaResult(schema)
        if subset:
            if floor and widen:
                out, ch, _ok = _floor(schema, dialect, pointer, True)
                return SchemaResult(out, ch, True, True)
            return _policy(res, dialect, pointer, unlowerable, floor)
        return res
    low = _Lowerer(schema, dialect, widen=widen, inline=inline, pointer=pointer, budget=budget,
                   cache=cache)
    out = low.run()
    if isinstance(out, bool) and isinstance(schema, dict) and not subset:
        # an object schema stays an object schema (Ajv, as the MCP SDK runs it, throws on a
        # boolean root: `'$id' in schema`), and keeps saying which dialect it is; the compact
        # subset has no object form of `false` (no `not`): there the floor replaces it
        out = {"not": {}} if out is False else {}
        if "$schema" in schema:
            out = {"$schema": schema["$schema"], **out}
    done = low.p
    res = SchemaResult(out, _dedupe(done.changes), prose_removed=done.prose_removed)
    if done.noops:
        total = sum(done.noops.values())
        kinds = ", ".join(f"{label} ({done.noops[label]})" for label in NOOP_LABELS
                          if label in done.noops)
        res.changes.insert(0, Change(pointer, EXACT, f"{total} validation no-op"
                                     f"{'' if total == 1 else 's'} removed: " + kinds))
    if done.prose_removed:
        res.changes.insert(0, Change(pointer, EXACT,
                                     f"{done.prose_removed} prose "
                                     f"key{'' if done.prose_removed == 1 else 's'} removed (description, "
                                     "title, examples, $comment, x-*)"))
    dropped = False
    if drop_schema and isinstance(res.schema, dict) and "$schema" in res.schema \
            and dialect_neutral(res.schema):
        dropped = True
        res.schema = {k: v for k, v in res.schema.items() if k != "$schema"}
        res.changes.append(Change(pointer + "/$schema", EXACT,
                                  "$schema dropped: the schema means the same under draft-07 "
                                  "and 2020-12"))
    if factor and not subset and isinstance(res.schema, dict):
        _factor_rounds(res, dialect, pointer, keep_neutral=dropped)
    if subset and floor:
        fl, ch, ok = _floor(res.schema, dialect, pointer, widen)
        if ok:
            res.schema = fl
            res.changes.extend(ch)
    res.unlowerable = any(c.kind == WIDENED for c in res.changes)
    if subset:
        return _policy(res, dialect, pointer, unlowerable, floor)
    return res


def _factor_rounds(res: SchemaResult, dialect: str, pointer: str,
                   keep_neutral: bool = False) -> None:
    """Factor repeated subtrees of ``res.schema`` (exact mode), then lower the result again:
    a definition that was worth keeping while many copies pointed at it may now have one
    reference left (inlined), and a union of it can then be lowered. Until nothing changes
    (a few rounds at most), so that projecting the output again gives it back.

    ``keep_neutral``: the root's ``$schema`` was dropped because the schema means the same
    under draft-07 and 2020-12; a lowering that would end that (an ``allOf`` of a new ``$ref``
    merged into a ``$ref`` with siblings, which draft-07 ignores) is not taken."""
    from toolcat.features.project.factor import describe, factor_schema

    for _round in range(4):
        # the dialect the output is read in (a dropped $schema: the default one), so that a
        # re-projection picks the same definitions map
        f = factor_schema(res.schema, node_dialect(res.schema, dialect))
        if not f.defs:
            return
        res.schema = f.schema
        res.changes.extend(Change(ptr, EXACT, what) for ptr, what in describe(pointer, f.defs))
        again = lower_schema(res.schema, dialect, pointer=pointer, drop_schema=False)
        if dumps(again.schema) == dumps(res.schema):
            return
        if keep_neutral and not _neutral_without_schema(again.schema):
            return
        res.schema = again.schema
        seen = set(res.changes)       # (a list's `in` made this quadratic on large schemas)
        for c in again.changes:
            if c not in seen:
                seen.add(c)
                res.changes.append(c)


def _neutral_without_schema(schema: Any) -> bool:
    """:func:`dialect_neutral` for a schema whose ``$schema`` was dropped."""
    if not isinstance(schema, dict):
        return True
    return dialect_neutral({"$schema": "http://json-schema.org/draft-07/schema#", **schema})


def _policy(res: SchemaResult, dialect: str, pointer: str, unlowerable: str,
            floor: bool) -> SchemaResult:
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


def _dedupe(changes: list[Change]) -> list[Change]:
    return list(dict.fromkeys(changes))
