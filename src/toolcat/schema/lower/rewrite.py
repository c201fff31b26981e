"""The rewrite pass of lowering: one bottom-up walk of a schema that strips prose, inlines
the ``$ref`` s its :class:`~toolcat.schema.lower.plan.RefPlan` says to inline, lowers
combinators exactly, widens (widen mode) what cannot be lowered, and removes validation
no-ops, reporting each change (:class:`~toolcat.schema.lower.changes.Change`).

:class:`Lowerer` runs :func:`toolcat.schema.walker.transform` over the schema with one hook
that, at each schema node (children first):

1. removes prose keys (keeping any key a remaining ``$ref`` points into);
2. inlines a local ``$ref`` (merging the keys beside it: ANDed in 2019-09+, ignored in
   draft-07) where the plan says so; a merge that cannot be exact flips the decision to
   ``KEEP`` and the pass starts again;
3. lowers combinators where the result is exactly equivalent: ``allOf`` of compatible
   schemas into one, ``anyOf``/``oneOf`` of value lists into one ``enum``, of disjoint types
   into a type union, ``not`` of a type into the other types;
4. in widen mode, replaces what could not be lowered by a schema that accepts a superset;
5. removes validation no-ops (:mod:`toolcat.schema.lower.noops`), also in the nodes a merge
   made.

A ``$ref`` target is lowered once per pass (a memo by path); with a
:class:`~toolcat.schema.lower.cache.LowerCache` (exact mode, the "smaller" policy) once per run,
recorded and replayed by the other schemas (:mod:`toolcat.schema.lower.cache`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcat.document.canonical import dumps
from toolcat.document.pointer import encode
from toolcat.schema import merge as M
from toolcat.schema.keywords import (
    ANCHOR_KEYWORDS,
    COMPACT_FORBIDDEN,
    DRAFT7,
    DYNAMIC_REFERENCE_KEYWORDS,
    LEGACY_DIALECTS,
)
from toolcat.schema.lower.cache import (
    ChangeEvent,
    ExpansionEvent,
    Frame,
    LowerCache,
    Record,
    expansion_key,
    plain_json,
)
from toolcat.schema.lower.changes import EXACT, WIDENED, Change, Kind
from toolcat.schema.lower.fixes import FIXABLE_KEYS, fix_data
from toolcat.schema.lower.noops import noop_keywords
from toolcat.schema.lower.plan import DECLARATIONS, DEFINITIONS, Decision, RefPlan
from toolcat.schema.strip import strip_node
from toolcat.schema.walker import (
    DESCEND,
    count_values,
    iter_schemas,
    node_dialect,
    subschemas,
    transform,
)


class _Restart(Exception):
    pass


@dataclass(slots=True)
class _Pass:
    """What one pass of :meth:`Lowerer.run` accumulates; a restart starts a fresh one."""

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
    frames: list[Frame] = field(default_factory=list)     # recordings under way
    tops: list[tuple] = field(default_factory=list)        # paths _process walks from
    keys: dict[tuple, int] = field(default_factory=dict)   # expansion keys, by target


class Lowerer:
    """One lowering of ``root``: :meth:`run` gives the lowered schema; ``p`` then holds what
    the last pass reported (changes, prose and no-op counts). ``pointer`` prefixes the change
    pointers; ``budget``: the size budget of the "all" policy (values inlined in all)."""

    def __init__(self, root: Any, dialect: str, *, widen: bool, inline: str, pointer: str,
                 budget: int | None = None, cache: LowerCache | None = None,
                 content_sizes: dict | None = None, clean: dict | None = None) -> None:
        self.root = root
        self.dialect = dialect
        self.widen = widen
        self.inline_policy = inline          # "all" | "smaller"
        self.pointer = pointer
        self.plan = plan = RefPlan(root, dialect, widen=widen, inline=inline,
                                   walks=cache.walks if cache is not None else None,
                                   sizes=cache.sizes if cache is not None else None,
                                   content_sizes=content_sizes)
        self.idx = plan.idx
        self.p = _Pass()                     # the state of the pass under way (see run())
        if budget is None and inline == "all":   # only "all" spends the size budget
            budget = max(200_000, 50 * count_values(root))
        self.budget = budget if budget is not None else 0
        self.prose_only = plan.prose_only
        self.annotations = plan.annotations
        self.may_drop_defs = plan.may_drop_defs
        self.decisions = plan.decisions      # (the plan's: a flip changes them in place)
        self.why = plan.why
        # shared expansions: exact mode with the "smaller" policy only (widening depends on
        # the expansion stack, "all" on the size budget spent so far)
        self.cache = cache if (cache is not None and not widen and inline == "smaller"
                               and not self.prose_only) else None
        # the subtrees found clean, by content (exact mode, the "smaller" policy, no cache:
        # the re-lowering after factoring; see unchanged()), where the schema's bytes
        # identify its values (no tuple, no subclass, no NaN: the hook tells them apart)
        self.clean = clean if (clean is not None and not widen and inline == "smaller"
                               and self.cache is None and plain_json(root)) else None
        self._flags = (self.annotations, self.prose_only)
        self._moving: set[tuple] = set()    # at or above a reference not kept (see run())

    def _flip(self, path: tuple, defer: bool = False) -> None:
        if self.plan.keep(path):
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

    def _note(self, path: tuple, kind: Kind, what: str, rebuilt: bool = True) -> None:
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
        if self.clean is not None:
            # (a decision only flips to KEEP: the set stays a superset of what it must be)
            moving: set[tuple] = set()
            for path, dec in self.decisions.items():
                if dec is not Decision.KEEP:
                    moving.update(path[:i] for i in range(len(path) + 1))
            self._moving = moving
        for _ in range(len(self.decisions) + 2):
            self.p = _Pass()
            try:
                out = self._process(self.root, (), self.dialect)
            except _Restart:
                self.plan.set_pins()
                continue
            if self.p.restart:
                self.plan.set_pins()
                continue
            return self._finish(out)
        raise RuntimeError("lowering did not settle")  # pragma: no cover

    def unchanged(self) -> bool:
        """Whether :meth:`run` would give the schema back as it is and report nothing, found
        without rebuilding it (exact mode, the "smaller" policy, no cache: the re-lowering
        after factoring). So it is when every reference is kept, no definition is unused,
        and the hook leaves every node alone (returns it, reports nothing): the hook depends
        on a node's content, path and dialect only, so a walk that rebuilds children first
        hands each hook a copy equal to the node, which it leaves alone too. False is no
        promise that it changes something. Leaves the plan as it was (no decision flips
        where every reference is kept).

        With ``clean`` (kept by the caller for a run, :attr:`LowerCache.clean`): the subtrees
        found clean so far, by content (their JSON text), dialect and the flags the hook
        reads (``unevaluated*`` about, prose only), below no pin of the schema they were
        found in; an equal subtree met again is not walked (nor by :meth:`run`, where no
        reference at or below it is inlined or dropped)."""
        if self.widen or self.inline_policy != "smaller" or self.cache is not None:
            return False
        if any(d is not Decision.KEEP for d in self.decisions.values()):
            return False
        idx = self.idx
        if self.may_drop_defs and idx.defs_at:
            pinned = self.plan.pinned_any
            for q in idx.defs_at:
                node = idx.node(q)
                for key in DEFINITIONS:
                    defs = node.get(key) if isinstance(node, dict) else None
                    if isinstance(defs, dict) and any(q + (key, name) not in pinned
                                                      for name in defs):
                        return False
        self.p = p = _Pass()
        hook = self._hook
        clean = self.clean
        if clean is None:
            for path, node, d in iter_schemas(self.root, self.dialect):
                if node.__class__ is dict and (hook(node, path, d) is not node or p.changes
                                               or p.prose_removed or p.noops):
                    return False
            return True
        # a subtree equal to one a walk of another schema found clean (below no pin there) is
        # clean here: what the hook does at a node is a function of its content, dialect and
        # the flags below (every reference kept), and pins only spare what it would remove.
        # By content (orjson's bytes identify a JSON value): the schemas of a spec repeat
        # the same lowered definitions as distinct objects
        import orjson

        flags = self._flags
        seen: list[tuple[tuple, bytes, str]] = []
        stack: list[tuple[tuple, Any, str]] = [((), self.root, self.dialect)]
        while stack:
            path, node, d = stack.pop()
            if node.__class__ is not dict:
                continue
            if "$schema" in node:
                d = node_dialect(node, d)
            text = None
            if path:
                try:
                    text = orjson.dumps(node)
                except (TypeError, orjson.JSONEncodeError):
                    pass
                else:
                    if (text, d, flags) in clean:
                        continue
            if hook(node, path, d) is not node or p.changes or p.prose_removed or p.noops:
                return False
            if text is not None:
                seen.append((path, text, d))
            kids = [(path + suffix, child, d) for suffix, child in subschemas(node, d)]
            kids.reverse()
            stack.extend(kids)
        pinned = self.plan.pinned_any
        for path, text, d in seen:
            if path not in pinned:
                clean[(text, d, flags)] = True
        return True

    def _process(self, node: Any, path: tuple, dialect: str) -> Any:
        if self.may_drop_defs and self.idx.defs_at:
            node = self._drop_defs(node, path)
        if self.cache is None:
            if self.clean is not None:
                return transform(node, self._hook, dialect, path, self._enter_clean)
            return transform(node, self._hook, dialect, path)
        self.p.tops.append(path)
        try:
            return transform(node, self._hook, dialect, path, self._enter)
        finally:
            self.p.tops.pop()

    def _enter_clean(self, node: Any, path: tuple, d: str) -> Any:
        """A subtree equal to one found clean (:meth:`unchanged`), where no reference at or
        below it is inlined or dropped, lowers to itself: put in place as it is."""
        if node.__class__ is not dict or not path or path in self._moving:
            return DESCEND
        import orjson

        try:
            text = orjson.dumps(node)
        except (TypeError, orjson.JSONEncodeError):
            return DESCEND
        if "$schema" in node:
            d = node_dialect(node, d)
        if self.clean is not None and (text, d, self._flags) in self.clean:
            return node
        return DESCEND

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
        if not isinstance(n, dict) or not any(k in n for k in DEFINITIONS):
            return n
        out = None
        for key in DEFINITIONS:
            defs = n.get(key)
            if not isinstance(defs, dict):
                continue
            keep = {name: s for name, s in defs.items() if path + (key, name) in self.plan.pinned_any}
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
        pinned = self.plan.pinned_any
        if pinned:
            n, removed = strip_node(n, lambda k: path + (k,) in pinned)
        else:
            n, removed = strip_node(n)
        if removed:
            self.p.prose_removed += len(removed)
            if self.p.frames:
                self.p.frames[-1].prose += len(removed)
        if FIXABLE_KEYS & n.keys():
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
        if path not in self.plan.pinned_below:
            ids = _identifiers(n) if path in self.plan.pins else None
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
        pinned = self.plan.pinned_any
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
        pinned = self.plan.pinned_any
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
        # INLINE: the plan inlines only a reference that resolves
        assert info is not None and info.target is not None
        t = info.target
        if not self.widen and path in self.plan.pinned_below:
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
            if expanded is not None and self.plan.declares_below(t):
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
        """The expansion key of the subtree at ``t`` (:func:`~toolcat.schema.lower.cache.expansion_key`)."""
        assert self.cache is not None
        return expansion_key(self.plan, self.cache, self.p.keys, t)

    def _replay(self, t: tuple, rec: Record) -> None:
        """Report what lowering ``t`` reported when it was recorded (see :class:`Record`)."""
        for ev in rec.events:
            if isinstance(ev, ChangeEvent):
                self._note(t + ev.path, ev.kind, ev.what, ev.rebuilt)
            else:
                at = t + ev.path
                target = at if ev.walked else self.idx.refs[at].target
                if target in self.p.memo:
                    continue
                assert self.cache is not None and target is not None   # (it was expanded)
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
            self.p.frames.append(Frame(t))
            self.p.stack.append(t)
            try:
                out = self._process(idx.node(t), t, idx.dialect_at(t))
            finally:
                self.p.stack.pop()
                frame = self.p.frames.pop()
            self.cache.expansions[key] = Record(idx.node(t), out, frame.events, frame.prose,
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


def _without_declarations(n: Any, dialect: str) -> Any:
    """A copy of ``n`` (an inlined target) without ``$id``/``id``, anchors and ``$schema`` at
    any depth: the original keeps them; a second node with the same identifier is refused by
    Ajv (and the MCP SDK), and the copy's dialect is the one around it. Only for a copy that
    no reference resolves through: in exact mode a target with identifiers below is never
    inlined, in widen mode every reference inside it was inlined or dropped first; and a
    target whose parts switch the dialect is not inlined (:meth:`.plan.RefPlan.decide`)."""

    def hook(node: Any, _path: tuple, _d: str) -> Any:
        if isinstance(node, dict) and not node.keys().isdisjoint(DECLARATIONS):
            return {k: v for k, v in node.items() if k not in DECLARATIONS}
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
    out: Any
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
