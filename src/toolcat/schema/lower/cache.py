"""What the schemas of one run share while they are lowered: :class:`LowerCache`, the record
of a lowered subtree that another schema replays, and :func:`content_key` (a digest of a
JSON value for memos keyed by content).

Record/replay: a ``$ref`` target that :class:`toolcat.schema.lower.rewrite.Lowerer` expands
(exact mode, the "smaller" policy) is lowered once per :func:`expansion_key` (everything its
lowering depends on), and recorded as a :class:`Record`: the lowered subtree and what lowering
it reported, in order (:class:`ChangeEvent`, :class:`ExpansionEvent`, the prose and no-op
counts). Another schema of the run that holds the same target object under the same plan
replays the record (its changes at its own paths) instead of lowering the subtree again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcat.document.share import Sharer
from toolcat.schema.lower.changes import Kind
from toolcat.schema.lower.plan import Decision

if TYPE_CHECKING:
    from toolcat.schema.lower.plan import RefPlan


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
      see :func:`expansion_key`).
    """

    __slots__ = ("sizes", "expansions", "keys", "walks", "hits", "misses", "outputs", "sharer",
                 "digests", "standards", "bounds", "inputs", "texts", "content_sizes",
                 "prose", "wraps", "clean")

    def __init__(self) -> None:
        #: whole results by content (:func:`content_key` and the options): a caller's memo,
        #: e.g. the output schemas of an OpenAPI spec's operations that return the same type
        self.outputs: dict[tuple, Any] = {}
        self.sizes: dict[tuple, tuple[Any, int]] = {}
        self.walks: dict[tuple, tuple] = {}   # RefIndex: walked $defs entries
        self.expansions: dict[int, Record] = {}
        self.keys: dict[tuple, int] = {}      # expansion key -> small int (shallow hashing)
        self.hits = 0
        self.misses = 0
        #: equal subtrees of the results kept in ``outputs`` as one object (memory: Stripe's
        #: output schemas repeat the same lowered components; :mod:`toolcat.document.share`)
        self.sharer = Sharer()
        #: :func:`content_key`'s memo: the digests of ``$defs`` entries, by object
        self.digests: dict[Any, tuple[Any, bytes | None]] = {}
        #: the standard view's rewrites of an output schema, by its content (the caller's)
        self.standards: dict[tuple, Any] = {}
        #: :func:`toolcat.features.project.bound.bound_output`'s walks of definitions, by object
        self.bounds: dict = {}
        #: a caller's memo of lowered input schemas, by content and options
        self.inputs: dict[tuple, Any] = {}
        #: :func:`toolcat.schema.lower.subset.text_count`'s memo: the keyword counts of the
        #: definitions maps and entries of the schemas met, by object
        self.texts: dict[int, tuple] = {}
        #: ``sizes`` by content (:func:`content_key`, the dialect, whether ``unevaluated*`` is
        #: about) for the re-lowering after factoring, whose definitions are new objects
        self.content_sizes: dict[tuple, int] = {}
        #: :func:`toolcat.features.project.prose.restore`'s walks of definitions entries, by
        #: object (the original schemas' prose)
        self.prose: dict[tuple, tuple] = {}
        #: :func:`toolcat.features.project.roots.wrap`'s rewritten definitions entries
        self.wraps: dict = {}
        #: :meth:`~toolcat.schema.lower.rewrite.Lowerer.unchanged`'s subtrees found clean, by content
        self.clean: dict[tuple, Any] = {}

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
    one way only.) A definitions map met again (the same object: the tools of one
    response type bundle one) adds its remembered parts."""
    import hashlib

    if memo is not None and value.__class__ is dict and value.get("$defs").__class__ is dict:
        return _split_key(value, memo)

    import orjson

    if not plain_json(value):
        return None
    try:
        text = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None
    return hashlib.sha256(text).digest()


def plain_json(value: Any) -> bool:
    """Whether ``value`` holds nothing but plain dicts, lists, strings, numbers, booleans
    and null, its floats finite (what :func:`content_key` vouches for: orjson writes a tuple
    like a list, a subclass like its base type, NaN as null)."""
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
                        return False
                elif xc not in leaves:
                    return False
        elif c is list:
            for x in v:
                xc = x.__class__
                if xc is dict or xc is list:
                    push(x)
                elif xc is float:
                    if x - x != 0.0:
                        return False
                elif xc not in leaves:
                    return False
        elif c is float:
            if v - v != 0.0:
                return False
        elif c not in leaves:
            return False
    return True


def _split_key(value: dict, memo: dict) -> bytes | None:
    """:func:`content_key` of a dict with a ``$defs`` map, from parts: the digest of the dict
    with ``null`` in place of the map (the keys keep their order), then for each entry its
    name's JSON text and its digest (32 bytes; a JSON string ends at its closing quote, so
    the sequence reads back one way), under a prefix no JSON text starts with."""
    import hashlib

    import orjson

    defs = value["$defs"]
    mkey = ("map", id(defs))       # (the map's parts, apart from its entries' digests)
    got = memo.get(mkey)
    if got is None or got[0] is not defs:
        parts = []
        for name, sub in defs.items():
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
        got = memo[mkey] = (defs, b"".join(parts))
    rest = content_key({k: (None if k == "$defs" else v) for k, v in value.items()})
    if rest is None:
        return None
    return hashlib.sha256(b"defs:" + rest + got[1]).digest()


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


class Record:
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


class Frame:
    """A recording under way: the events of the subtree at ``root`` (an absolute path)."""

    __slots__ = ("root", "events", "prose", "noops")

    def __init__(self, root: tuple) -> None:
        self.root = root
        self.events: list[ChangeEvent | ExpansionEvent] = []
        self.prose = 0
        self.noops: dict[str, int] = {}


def expansion_key(plan: RefPlan, cache: LowerCache, keys: dict[tuple, int], t: tuple) -> int:
    """Everything the lowering of the subtree at ``t`` depends on, as a small int (interned
    in ``cache``; ``keys``: the memo of one pass): the node (by identity) and its dialect,
    whether ``unevaluated*`` is about, whether unused definitions may go, the pinned paths
    below it, whether it reaches a cycle, and for each ``$ref`` inside it the decision taken
    (with the key of the target it inlines). Two lowerers with equal keys lower the subtree
    alike."""
    k = keys.get(t)
    if k is None:
        idx = plan.idx
        n = len(t)
        sig = []
        for p in idx.refs_within.get(t, ()):
            info = idx.refs[p]
            dec = plan.decisions.get(p)
            sub = expansion_key(plan, cache, keys, info.target) \
                if dec is Decision.INLINE and info.target is not None else None
            sig.append((p[n:], info.ref, dec, sub))
        key = (id(idx.node(t)), idx.dialect_at(t), plan.annotations, plan.may_drop_defs,
               plan.pins_below(t), t in idx.reaches_cycle, tuple(sig))
        k = keys[t] = cache.intern(key)
    return k
