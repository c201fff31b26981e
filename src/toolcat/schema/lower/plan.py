"""The reference plan of one lowering: which ``$ref`` is inlined, kept or (widen mode)
dropped, which definitions are used, and which paths are pinned.

:class:`RefPlan` is built once per schema from its :class:`toolcat.schema.refs.RefIndex`, before
the rewrite pass (:mod:`toolcat.schema.lower.rewrite`) walks it:

* the references that count (:meth:`RefPlan.live_refs`): those outside every definition, and
  those inside a definition a live reference points into, to a fixpoint; a definition only
  dead references use is dropped (when nothing another reader follows is lost);
* what readers of the other dialect follow that this reading does not, and the references
  whose readers disagree (:meth:`RefPlan.other_readers`): their targets stay;
* a :class:`Decision` per reference (:meth:`RefPlan.decide`): kept when recursive, remote,
  in another dialect, disputed, under identifiers, or (the "smaller" policy) when inlining
  it would grow the schema; inlined otherwise (widen mode: dropped where it cannot be
  inlined);
* the pins (:meth:`RefPlan.set_pins`): the targets of kept references, which the pass leaves
  where they are (no prose or no-op removed at a path a reference points into).

A decision may flip to ``KEEP`` while the pass runs (:meth:`RefPlan.keep`: a merge that
cannot be exact, the size budget); the pass then re-pins and starts again.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from toolcat.document.canonical import dumps
from toolcat.schema import merge as M
from toolcat.schema.keywords import ANCHOR_KEYWORDS, DRAFT7, DRAFT2020, LEGACY_DIALECTS
from toolcat.schema.lower.noops import noop_keywords
from toolcat.schema.refs import RefIndex, RefProblem
from toolcat.schema.strip import strip_node
from toolcat.schema.walker import subschemas, transform


class Decision(Enum):
    """What lowering does with one ``$ref``."""

    INLINE = "inline"      # replace it by its (lowered) target
    KEEP = "keep"          # leave it as it is
    WIDEN = "widen"        # drop it (widen mode: the schema then accepts a superset)


#: the definitions maps of the dialects
DEFINITIONS = ("$defs", "definitions")
#: what a copy of a subtree never carries (two nodes with one `$id` or anchor are refused by
#: Ajv, "already exists"; a `$schema` is the copy's context's, whose dialect it has)
DECLARATIONS = frozenset(("$id", "id", "$schema") + ANCHOR_KEYWORDS)


#: the canonical size of ``{"$ref": R}``, by ``R``, and of a name's JSON string (functions of
#: the string alone; a bounded number kept)
_REF_SIZES: dict[str, int] = {}
_NAME_SIZES: dict[str, int] = {}
_SIZES_MAX = 100_000


def ref_size(ref: str) -> int:
    """The canonical size of ``{"$ref": ref}``."""
    got = _REF_SIZES.get(ref)
    if got is None:
        got = len(dumps({"$ref": ref}))
        if len(_REF_SIZES) < _SIZES_MAX:
            _REF_SIZES[ref] = got
    return got


def entry_size(name: str, size: int) -> int:
    """The bytes a definitions entry ``name`` whose content weighs ``size`` adds to its map
    (its name, the colon, a comma): with :func:`ref_size`, the rule references are inlined
    by (:meth:`RefPlan.smaller`) and factoring keeps a definition by
    (:mod:`toolcat.schema.factor`)."""
    got = _NAME_SIZES.get(name)
    if got is None:
        got = len(dumps(name))
        if len(_NAME_SIZES) < _SIZES_MAX:
            _NAME_SIZES[name] = got
    return got + 2 + size


class RefPlan:
    """The reference plan of one schema (see the module docstring).

    ``widen``: widen mode (the compact subset is required, ``--unlowerable widen``);
    ``inline``: the inlining policy, ``"all"`` or ``"smaller"``; ``walks`` and ``sizes``: the
    :class:`toolcat.schema.lower.cache.LowerCache` memos shared by the schemas of a run (by
    object); ``content_sizes``: the sizes by content (:func:`~toolcat.schema.lower.cache.content_key`),
    for schemas whose targets are new objects of contents met before (factored ones)."""

    def __init__(self, root: Any, dialect: str, *, widen: bool, inline: str,
                 walks: dict | None = None, sizes: dict | None = None,
                 content_sizes: dict | None = None) -> None:
        self.root = root
        self.dialect = dialect
        self.widen = widen
        self.inline_policy = inline          # "all" | "smaller"
        self.idx = idx = RefIndex(root, dialect, walks)
        # exact mode cannot move anything when dynamic references are about
        self.prose_only: bool = idx.dynamic and not widen
        self.annotations: bool = idx.unevaluated
        unresolved = any(i.target is None for i in idx.refs.values())
        # what other readers see: {ref path: target} for the references a reader of the other
        # dialect follows that this reading does not (or resolves elsewhere), and the refs
        # whose readers disagree (see other_readers)
        self.foreign, self.disputed, lost = self.other_readers()
        self.may_drop_defs: bool = not self.prose_only and not lost and (widen or not unresolved)
        self.sizes = sizes
        self.content_sizes = content_sizes
        # the references that count: all of them, or when unused definitions can go, those
        # a used part of the schema holds (a definition only an unused one uses goes too)
        self.live: set[tuple] | None = self.live_refs() if self.may_drop_defs else None
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
        # (a reference's decision is a function of its target, its text and its dialect, but
        # where readers dispute it, and in widen mode, where `why` is kept by path: one
        # decision per distinct target, ref and dialect, as the bundled definitions of an
        # OpenAPI tool point at the same targets from many places)
        same: dict[tuple, Decision] | None = {} if not widen else None
        disputed = self.disputed
        for path, info in idx.refs.items():
            if same is None or info.target is None or path in disputed:
                self.decisions[path] = self.decide(info)
                continue
            key = (info.target, info.ref, idx.dialect_at(path))
            dec = same.get(key)
            if dec is None:
                dec = same[key] = self.decide(info)
            self.decisions[path] = dec
        self.pins: set[tuple] = set()
        self.pinned_below: set[tuple] = set()
        self.pinned_any: set[tuple] = set()
        self._pins_rel: dict[tuple, frozenset] | None = None
        self.set_pins()

    def keep(self, path: tuple) -> bool:
        """Flip the decision for the ``$ref`` at ``path`` to ``KEEP``; whether it changed
        (the caller then re-pins, :meth:`set_pins`, and lowers again)."""
        if self.decisions.get(path) is Decision.KEEP:
            return False
        self.decisions[path] = Decision.KEEP
        return True

    def pins_below(self, t: tuple) -> frozenset | None:
        """The pinned paths at or below ``t``, relative to it (None: no pin there)."""
        rel = self._pins_rel
        if rel is None:
            acc: dict[tuple, set] = {}
            for p in self.pins:
                for i in range(len(p)):
                    acc.setdefault(p[:i], set()).add(p[i:])
            rel = self._pins_rel = {k: frozenset(v) for k, v in acc.items()}
        return rel.get(t)

    # -- decisions and pins

    def decide(self, info: Any) -> Decision:
        idx = self.idx
        if info.target is None:
            return Decision.WIDEN if self.widen else Decision.KEEP
        dispute = self.disputed.get(info.path)
        if dispute is not None:
            # readers disagree on what this $ref means: kept as written (each reads it as
            # before); in widen mode, a $ref whose target depends on the reader is dropped (a
            # superset for every reader), one with keywords beside it is inlined and they
            # are dropped (reported as a widening by the rewrite pass)
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
        if self.switches_dialect_below(t):
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
        if self.inline_policy == "smaller" and not self.smaller(info):
            return Decision.KEEP
        return Decision.INLINE

    def declarations(self) -> tuple[list[tuple], list[tuple]]:
        """(paths of the nodes that declare something a copy may not repeat: ``$id``/``id``,
        an anchor, ``$schema``; paths of the nodes whose ``$schema`` switches the dialect)."""
        got = self._decl
        if got is None:
            decl: list[tuple] = []
            switch: list[tuple] = []
            for p, (node, d) in self.idx.nodes.items():
                if node.__class__ is dict and not node.keys().isdisjoint(DECLARATIONS):
                    decl.append(p)
                    if "$schema" in node and p and d != self.idx.dialect_at(p[:-1]):
                        switch.append(p)
            got = self._decl = (decl, switch)
        return got

    def switches_dialect_below(self, t: tuple) -> bool:
        n = len(t)
        return any(p[:n] == t and p != t for p in self.declarations()[1])

    def declares_below(self, t: tuple) -> bool:
        n = len(t)
        return any(p[:n] == t for p in self.declarations()[0])

    def smaller(self, info: Any) -> bool:
        t = info.target
        n = self.live_count.get(t, 1)
        size_t = self._sizes.get(t)
        if size_t is None:
            node, dialect = self.idx.node(t), self.idx.dialect_at(t)
            shared = self.sizes
            skey = (id(node), dialect, self.annotations)
            hit = shared.get(skey) if shared is not None else None
            if hit is not None and hit[0] is node:
                size_t = hit[1]
            else:
                by_content = self.content_sizes
                ckey = None
                if by_content is not None:
                    from toolcat.schema.lower.cache import content_key

                    digest = content_key(node)
                    if digest is not None:
                        ckey = (digest, dialect, self.annotations)
                        size_t = by_content.get(ckey)
                if size_t is None:
                    try:
                        size_t = len(dumps(_plain(node, dialect, self.annotations)))
                    except (TypeError, ValueError):
                        size_t = 1 << 40
                    if ckey is not None and by_content is not None:
                        by_content[ckey] = size_t
                if shared is not None:
                    shared[skey] = (node, size_t)
            self._sizes[t] = size_t
        r = ref_size(info.ref)
        in_defs = len(t) >= 2 and t[-2] in DEFINITIONS
        if not in_defs:
            return size_t <= r
        return n * size_t <= n * r + entry_size(str(t[-1]), size_t)

    def set_pins(self) -> None:
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
        self._pins_rel = None               # pins_below() works them out again

    def other_readers(self) -> tuple[dict[tuple, tuple], dict[tuple, tuple[str, str]], bool]:
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
        disputed: dict[tuple, tuple[str, str]] = {}
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
        if idx.ref_keys is not None and idx.ref_keys == len(idx.refs):
            # every "$ref" key of the schema's text is an indexed reference (each position
            # of a key is one occurrence in the text): the walk below finds none that is not
            return foreign, disputed, lost
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

    def ref_targets(self) -> tuple[dict[tuple, tuple | None], dict[tuple, tuple]]:
        """Every reference's target (path -> target path, None where it names nothing), the
        schema's own and the other reading's (:attr:`foreign`), and for a ``$ref`` node both
        readings follow to two targets, the second one."""
        targets: dict[tuple, tuple | None] = {p: i.target for p, i in self.idx.refs.items()}
        extra: dict[tuple, tuple] = {}
        for p, t in self.foreign.items():
            if p in targets:
                extra[p] = t
            else:
                targets[p] = t
        return targets, extra

    def live_refs(self) -> set[tuple]:
        """The references the output keeps or inlines: those outside every definition, and
        those inside a definition that a live reference points into (to a fixpoint), with
        the ones only a reader of the other dialect follows (:meth:`other_readers`). A
        definition only dead references point at is dropped with them. (Whether a reference
        is kept or inlined does not matter: either way its target is used.)"""
        idx = self.idx
        entries: set[tuple] = set()
        for q in idx.defs_at:
            node = idx.node(q)
            if isinstance(node, dict):
                for key in DEFINITIONS:
                    defs = node.get(key)
                    if isinstance(defs, dict):
                        entries.update(q + (key, name) for name in defs)

        def innermost(p: tuple) -> tuple | None:     # the innermost definition holding p
            for i in range(len(p), 1, -1):
                if p[:i] in entries:
                    return p[:i]
            return None

        def root_entry(p: tuple) -> tuple | None:    # the same, every entry two tokens long
            e = p[:2]
            return e if len(p) >= 2 and e in entries else None

        # (the root's definitions alone, as an OpenAPI tool's bundle: the one prefix that
        # can be an entry is the first two tokens)
        region = root_entry if all(len(e) == 2 for e in entries) else innermost

        targets, extra = self.ref_targets()
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
            for to in (targets[p], extra.get(p)):
                if to is None:
                    continue
                for i in range(len(to), 1, -1):
                    e = to[:i]
                    if e in entries and e not in live_entries:
                        live_entries.add(e)
                        pending.extend(by_region.get(e, ()))
        return live


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
