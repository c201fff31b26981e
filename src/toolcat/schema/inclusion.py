"""Schema inclusion: where a NEW schema rejects instances an OLD one accepts, and where it
accepts more.

:func:`compare` walks two schemas side by side (both normalized by the caller with the exact
rewrites, so that ``$ref`` indirection, ``allOf`` splits, ``enum``/``const`` spellings and
no-ops do not show up as differences) and returns a :class:`Change` for each place where
they differ. Each change says, for each direction,

* ``narrows``: NEW may reject an instance OLD accepts there;
* ``widens``: NEW may accept an instance OLD rejects there;

as ``None`` (proved not to happen at this change) or a :class:`Maybe` holding candidate
instances (already checked with ``jsonschema`` against both nodes: valid for one, invalid
for the other) and, where the rules could not decide, why.

**Soundness.** Every rule that answers ``None`` is a sufficient condition, so when no change
narrows, every instance OLD accepts is accepted by NEW (and likewise for ``widens``). A
``Maybe`` is only a suspicion until :func:`witness` turns one of its candidates into a whole
instance that the callers' checkers confirm. Where no rule applies (two different
``pattern``\\ s, ``not``, ``if``/``then``/``else`` that differ, references that stay
recursive, ``unevaluated*``...) the change carries a reason and callers report it as
undecided, never as compatible.

**Interface assumption** (``interface=True``, the default): a property name that only one
side declares, where the other side says nothing about undeclared names (no
``additionalProperties``/``patternProperties`` constraint), is taken as no part of that
other side's interface: an instance of that side does not carry it. So a new optional
parameter does not narrow (an old call that happened to send it, with a value the new
schema refuses, is not counted), and neither does a property that NEW stops declaring.
Every such change is tagged (``property-added``/``property-removed``) so callers can say so.
Names neither side declares are compared strictly (closing ``additionalProperties``
narrows).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from toolcat.schema import merge as M
from toolcat.schema.examples import (
    Sampler,
    bounds,
    dependent_required,
    int_bounds,
    plain_accepts,
    property_schema,
    split_items,
)
from toolcat.schema.keywords import DRAFT2020, LEGACY_DIALECTS, TUPLE_ITEMS_DIALECTS
from toolcat.schema.validate import Checker
from toolcat.schema.walker import local_target, node_dialect

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()

# keywords compared as conjuncts of their own (everything else is the node's "plain" part)
_COMBINATORS = ("allOf", "anyOf", "oneOf", "not", "$ref", "if")
_IF_GROUP = ("if", "then", "else")
_UNSUPPORTED = ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef")
_MAX_BRANCHES = 64
MAX_STEPS = 200_000
#: changes that mean something although neither direction is in doubt
_INFO_TAGS = ("property-added", "property-removed")
_MAX_FOLLOWS = 32
_MAX_DRY = 6


N, W = "narrows", "widens"
BOTH = frozenset((N, W))


class _Refuted(Exception):
    """A dry run met a narrowing: its answer is known."""


class _Shared:
    """What every comparator of one comparison shares: the work done (bounded), and the
    answers of dry runs (context-free: they start without assumptions)."""

    __slots__ = ("steps", "dry_depth", "dry", "shapes_differ", "disjoint", "derefs",
                 "same_memo", "assumed", "same_log", "equal")

    def __init__(self) -> None:
        self.steps = 0
        self.dry_depth = 0
        self.shapes_differ = False   # combinators of different shapes were compared
        self.disjoint: dict[tuple, tuple] = {}
        self.derefs: dict[tuple, tuple] = {}
        self.same_memo: dict[tuple[int, int], bool] = {}
        self.assumed: list[tuple[int, int]] = []
        self.same_log: list[tuple[int, int]] = []
        self.equal: dict[tuple[int, int], tuple] = {}   # (id a, id b) -> (a, b, answer)
        self.dry: dict[tuple, tuple] = {}   # (flip, id x, id y) -> (x, y, answer)


class Maybe:
    """NEW may reject (``narrows``) or accept (``widens``) an instance here.

    ``candidates``: instances *at this node* that one side accepts and the other rejects
    (checked with ``jsonschema`` on the two nodes), computed on first use (most changes
    never need them); ``reason``: why the rules could not decide (None when they found the
    difference itself, e.g. a raised ``minLength``)."""

    __slots__ = ("_candidates", "_make", "reason")

    def __init__(self, candidates: list | None = None, reason: str | None = None,
                 make: Callable[[], list] | None = None) -> None:
        self._candidates = candidates
        self._make = make
        self.reason = reason

    @property
    def candidates(self) -> list:
        if self._candidates is None:
            make, self._make = self._make, None
            try:
                self._candidates = make() if make is not None else []
            except RecursionError:
                self._candidates = []
        return self._candidates

    def __repr__(self) -> str:
        return f"Maybe(reason={self.reason!r})"


@dataclass
class Change:
    """One difference between the two schemas.

    ``old_route``/``new_route``: the path walked from each root to the node (pointer tokens;
    a ``"$ref"`` token where a reference was followed); ``keyword``: what differs there
    (``"minLength"``, ``"required"``, ``"properties"``, ``"type"``, ``"enum"``...; ``""``
    for the node as a whole); ``data``: where in an instance (property names, item
    indexes, ``"*"`` for any other name)."""

    keyword: str
    old_route: tuple
    new_route: tuple
    data: tuple
    what: str
    narrows: Maybe | None
    widens: Maybe | None
    tag: str = "changed"
    old: Any = MISSING
    new: Any = MISSING
    at: tuple = ()          # pointer tokens after the keyword (a property's name)

    @property
    def decided(self) -> bool:
        return all(m is None or m.reason is None for m in (self.narrows, self.widens))


def _dict(s: Any) -> Any:
    if s is True:
        return {}
    return s


def _eqv(a: Any, b: Any) -> bool:
    """JSON equality (``1 == 1.0``, ``true != 1``), with an early exit."""
    if a is b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b or not _eqv(v, b[k]):
                return False
        return True
    if isinstance(a, list):
        return len(a) == len(b) and all(_eqv(x, y) for x, y in zip(a, b))
    return a == b


def _short(v: Any, limit: int = 60) -> str:
    import json

    try:
        text = json.dumps(v, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _values(vs: list, limit: int = 6) -> str:
    shown = ", ".join(_short(v, 40) for v in vs[:limit])
    return shown + (f", … ({len(vs)} in all)" if len(vs) > limit else "")


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Digests:
    """Equality of JSON values, fast: Python's ``==`` (in C) first, then the canonical text
    with sorted keys (``true`` and ``1`` differ there; ``1`` and ``1.0`` do too, which only
    makes two equal values look different: never the reverse). One instance may serve a
    whole diff."""

    __slots__ = ("refs",)
    _REF_MARKS = (b'"$ref":"', b'"$dynamicRef":"', b'"$recursiveRef":"')

    def __init__(self) -> None:
        self.refs: dict[int, tuple[Any, tuple[str, ...]]] = {}

    @staticmethod
    def text(v: Any) -> bytes | None:
        import orjson

        try:
            return orjson.dumps(v, option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError, RecursionError):
            return None

    def equal(self, a: Any, b: Any) -> tuple[bool, tuple[str, ...] | None]:
        """(``a`` and ``b`` are equal as written, the reference strings in them; None: they
        may hold references toolcat cannot list)."""
        try:
            if a != b:
                return False, ()
        except RecursionError:
            return False, ()
        ta, tb = self.text(a), self.text(b)
        if ta is None or tb is None or ta != tb:
            return False, ()
        if not any(m in ta for m in self._REF_MARKS):
            return True, ()
        hit = self.refs.get(id(a))
        if hit is not None and hit[0] is a:
            return True, hit[1]
        refs = tuple(_ref_strings(ta))
        if isinstance(a, (dict, list)):
            self.refs[id(a)] = (a, refs)
        return True, refs

    # (kept for callers that only want "equal as written")
    def same_text(self, a: Any, b: Any) -> bool:
        return self.equal(a, b)[0]


def _ref_strings(text: bytes) -> list[str]:
    """Every string value of a reference keyword in a canonical JSON text (a data value that
    happens to look like one is listed too: harmless, it is only checked)."""
    import json
    import re

    out = []
    for m in re.finditer(rb'"\$(?:ref|dynamicRef|recursiveRef)":("(?:[^"\\]|\\.)*")', text):
        try:
            out.append(json.loads(m.group(1)))
        except ValueError:
            continue
    return list(dict.fromkeys(out))


class Side:
    """One schema of a comparison: its root, dialect, checker and sampler."""

    def __init__(self, root: Any, dialect: str = DRAFT2020, hints: tuple = (),
                 checker: Checker | None = None, digests: Digests | None = None,
                 budget: Any = None) -> None:
        self.root = root
        self.dialect = node_dialect(root, dialect) if isinstance(root, dict) else dialect
        self.checker = checker if checker is not None else Checker(root, self.dialect, budget)
        self.sampler = Sampler(root, self.dialect, self.checker, hints)
        self.digests = digests if digests is not None else Digests()
        self._embedded_ids: bool | None = None
        self._targets: dict[str, Any] = {}

    def target(self, ref: str) -> Any:
        """``local_target(ref, root)``, memoized (the root is not changed while compared)."""
        try:
            return self._targets[ref]
        except KeyError:
            t = self._targets[ref] = local_target(ref, self.root)
            return t

    @property
    def embedded_ids(self) -> bool:
        """The schema has an ``$id``/``$anchor`` below its root (local references may then
        mean something else than a JSON pointer from the root: not followed)."""
        if self._embedded_ids is None:
            text = self.digests.text(self.root)
            # no identifier keyword anywhere in the text: none at a schema position either
            # (draft-04's `id`, a common property name, only where draft-04 may apply)
            marks = _ID_MARKS if text is None or self.dialect == "draft4" or \
                b'"$schema":' in text else _ID_MARKS[1:]
            self._embedded_ids = (text is None or any(m in text for m in marks)) and \
                _has_embedded_ids(self.root, self.dialect)
        return self._embedded_ids

    def accepts(self, value: Any, node: Any) -> bool | None:
        fast = plain_accepts(node, value, self.dialect)
        if fast is not None:
            return fast
        return self.checker.accepts(value, node)


_ID_MARKS = (b'"id":', b'"$id":', b'"$anchor":', b'"$dynamicAnchor":', b'"$recursiveAnchor":')


def _has_embedded_ids(root: Any, dialect: str = DRAFT2020) -> bool:
    """A schema position below the root declares a base URI or an anchor (``$id``,
    ``$anchor``...; draft-04's ``id``)."""
    from toolcat.schema.keywords import ANCHOR_KEYWORDS, RESOURCE_KEYWORDS
    from toolcat.schema.walker import iter_schemas

    keys = RESOURCE_KEYWORDS + ANCHOR_KEYWORDS
    for path, node, d in iter_schemas(root, dialect):
        if path and isinstance(node, dict):
            for k in keys:
                if k in node and M.validates(k, d) is False and k in M.KEYWORDS[d] and \
                        isinstance(node[k], str):
                    return True
    return False


class Comparator:
    """Compare OLD and NEW (see the module docstring)."""

    def __init__(self, old: Side, new: Side, *, interface: bool = True,
                 witnesses: bool = True, shared: _Shared | None = None) -> None:
        self.a = old
        self.b = new
        self.shared = shared if shared is not None else _Shared()
        self.interface = interface
        self.witnesses = witnesses        # collect candidates (off in dry runs)
        self._expanding: dict[tuple[int, int], int] = {}   # pair -> len(data) when met
        self._follows = 0                  # $ref expansions on the current stack
        # pairs compared: (id a, id b) -> (a, b, the directions their changes cover)
        self._done: dict[tuple[int, int], tuple] = {}
        self._want: frozenset = BOTH
        self.stop_early = False            # dry runs: stop at the first narrowing
        # the bisimulation state of same(): shared by the comparators of one comparison
        self._same_memo = self.shared.same_memo
        self._assumed = self.shared.assumed
        self._same_log = self.shared.same_log

    # ------------------------------------------------------------------ entry points

    def compare(self) -> list[Change]:
        return self.node(self.a.root, self.b.root, (), (), ())

    def _dry(self, flip: bool, x: Any, y: Any) -> bool:
        """A comparison of its own (no candidates) of ``x`` (a node of the first side) and
        ``y``: True when nothing narrows. No assumption of the enclosing comparison carries
        over (its instance depths are not this one's); nesting is bounded (unproved past it)."""
        sh = self.shared
        key = (flip, id(x), id(y))
        hit = sh.dry.get(key)
        if hit is not None and hit[0] is x and hit[1] is y:
            return hit[2]
        if sh.dry_depth >= _MAX_DRY or sh.steps > MAX_STEPS:
            return False
        a, b = (self.b, self.a) if flip else (self.a, self.b)
        dry = Comparator(a, b, interface=self.interface, witnesses=False, shared=sh)
        dry._want = frozenset((N,))
        dry.stop_early = True
        sh.dry_depth += 1
        try:
            ok = all(c.narrows is None for c in dry.node(x, y, (), (), ()))
        except _Refuted:
            ok = False
        finally:
            sh.dry_depth -= 1
        sh.dry[key] = (x, y, ok)
        return ok

    def sub(self, x: Any, y: Any) -> bool:
        """Proved: every instance ``x`` (a node of OLD) accepts is accepted by ``y`` (a node
        of NEW)."""
        return self._dry(False, x, y)

    def sup(self, x: Any, y: Any) -> bool:
        """Proved: every instance ``y`` (a node of NEW) accepts is accepted by ``x`` (OLD)."""
        return self._dry(True, y, x)

    # ------------------------------------------------------------------ nodes

    def same(self, a: Any, b: Any) -> bool:
        """``a`` and ``b`` are the same schema: equal as written, with every local ``$ref``
        in them leading to the same schema too (a bisimulation: a pair of targets assumed
        the same while it is checked is the same). Results found under an assumption that
        then fails are forgotten."""
        if a is b and not isinstance(a, (dict, list)):
            return True
        key = (id(a), id(b))
        hit = self.shared.equal.get(key)
        if hit is not None and hit[0] is a and hit[1] is b:
            ok, refs = hit[2]
        else:
            ok, refs = self.a.digests.equal(a, b)
            if isinstance(a, (dict, list)):
                self.shared.equal[key] = (a, b, (ok, refs))
        if not ok or not refs:
            return ok
        if self.a.embedded_ids or self.b.embedded_ids or \
                self.a.dialect != self.b.dialect:
            return False
        return all(self._same_target(r) for r in refs)

    def _same_target(self, ref: str) -> bool:
        if ref.startswith("#") is False:
            return True   # a remote reference, the same string on both sides (never fetched)
        ta, tb = self.a.target(ref), self.b.target(ref)
        if ta is None or tb is None:
            return ta is None and tb is None
        key = (id(ta), id(tb))
        hit = self._same_memo.get(key)
        if hit is not None:
            return hit
        top = not self._assumed
        self._assumed.append(key)
        self._same_memo[key] = True
        mark = len(self._same_log)
        self._same_log.append(key)
        try:
            ok = self.same(ta, tb)
        finally:
            self._assumed.pop()
        if not ok:
            # everything decided since this pair was assumed may rest on it
            for k in self._same_log[mark:]:
                self._same_memo.pop(k, None)
            del self._same_log[mark:]
            self._same_memo[key] = False
        if top:
            self._same_log.clear()
        return ok

    def node(self, a: Any, b: Any, ra: tuple, rb: tuple, data: tuple,
             want: frozenset | None = None) -> list[Change]:
        """The changes from ``a`` (a node of OLD) to ``b`` (of NEW) for the directions in
        ``want`` (default: those of the enclosing comparison); the other direction of each
        change is left None (another comparison covers it)."""
        if self.same(a, b):
            return []
        want = self._want if want is None else want
        # A pair of nodes compared once already (a definition both versions reference from
        # several places): its changes are in the list, reported where it was met first.
        key = (id(a), id(b))
        hit = self._done.get(key)
        need = want - hit[2] if hit is not None else want
        if not need:
            return []
        # (the memo keeps the objects alive: their ids are not reused)
        self._done[key] = (a, b, (hit[2] if hit is not None else frozenset()) | need)
        saved, self._want = self._want, need
        try:
            out = self._node(a, b, ra, rb, data)
        finally:
            self._want = saved
        if self.stop_early and any(c.narrows is not None for c in out):
            raise _Refuted
        if need != BOTH:
            for c in out:
                if N not in need:
                    c.narrows = None
                if W not in need:
                    c.widens = None
            out = [c for c in out if c.narrows is not None or c.widens is not None
                   or c.tag in _INFO_TAGS]
        return out

    def _node(self, a: Any, b: Any, ra: tuple, rb: tuple, data: tuple) -> list[Change]:
        A, B = _dict(a), _dict(b)
        self.shared.steps += 1
        if self.shared.steps > MAX_STEPS:
            return [self._unknown(A, B, ra, rb, data, "", "the schemas are too large to "
                                  f"compare ({MAX_STEPS} comparisons)")]
        if A is False or B is False or not isinstance(A, dict) or not isinstance(B, dict):
            return self._whole(A, B, ra, rb, data)
        da, db = node_dialect(A, self.a.dialect), node_dialect(B, self.b.dialect)
        for s, d in ((A, da), (B, db)):
            bad = [k for k in _UNSUPPORTED if k in s and M.validates(k, d)]
            if bad:
                return [self._unknown(A, B, ra, rb, data, bad[0],
                                      f"{bad[0]}: no sound check for it when the schemas differ")]
        # a local $ref the normalization kept (recursive, or too large to inline)
        shared_ref = "$ref" in A and "$ref" in B and self._shared(A, B, "$ref")
        if shared_ref and (da in LEGACY_DIALECTS or db in LEGACY_DIALECTS):
            if da == db:
                return []   # keywords beside a $ref are ignored: the same target, the same node
        for side, s, d in (("a", A, da), ("b", B, db)):
            ref = s.get("$ref")
            if isinstance(ref, str) and M.validates("$ref", d) and not shared_ref:
                return self._follow(side, A, B, ra, rb, data)
        ca = {k for k in _COMBINATORS if k in A and M.validates(k, da)}
        cb = {k for k in _COMBINATORS if k in B and M.validates(k, db)}
        diff_a = {k for k in ca if not (k in cb and self._shared(A, B, k))}
        diff_b = {k for k in cb if not (k in ca and self._shared(A, B, k))}
        if diff_a or diff_b:
            for k in ("anyOf", "oneOf", "allOf", "not", "if"):
                if (k in ca) != (k in cb) or (k in ca and k not in ("not", "if") and (
                        not isinstance(A[k], list) or not isinstance(B[k], list)
                        or len(A[k]) != len(B[k]))):
                    # combinators of different shapes: the exact rewrites may tell more
                    self.shared.shapes_differ = True
        if {"anyOf", "oneOf"} & (diff_a | diff_b):
            return self._unions(A, B, da, db, ra, rb, data)
        out = self._plain(A, B, da, db, ra, rb, data)
        xa, xb = A.get("allOf"), B.get("allOf")
        if "allOf" in diff_a and "allOf" in diff_b and isinstance(xa, list) and \
                isinstance(xb, list) and len(xa) == len(xb):
            # conjunct by conjunct (sufficient: each OLD conjunct within NEW's)
            for i, (x, y) in enumerate(zip(xa, xb)):
                out.extend(self.node(x, y, ra + ("allOf", i), rb + ("allOf", i), data))
            diff_a.discard("allOf")
            diff_b.discard("allOf")
        for k in ("allOf", "not", "if"):
            if k in diff_a or k in diff_b:
                out.extend(self._conjunct(k, A, B, da, db, ra, rb, data))
        return out

    def _shared(self, A: dict, B: dict, k: str) -> bool:
        """``A`` and ``B`` hold the same conjunct ``k`` (for ``$ref``: the same reference,
        leading to the same schema)."""
        if k == "$ref":
            ra, rb = A.get("$ref"), B.get("$ref")
            if not isinstance(ra, str) or ra != rb:
                return False
            if self.a.embedded_ids or self.b.embedded_ids:
                return False
            ta, tb = self.a.target(ra), self.b.target(rb)
            return ta is not None and tb is not None and self.same(ta, tb)
        keys = _IF_GROUP if k == "if" else (k,)
        for x in keys:
            if (x in A) != (x in B):
                return False
            if x in A and not self.same(A[x], B[x]):
                return False
        return True

    # ------------------------------------------------------------------ whole-node cases

    def _whole(self, A: Any, B: Any, ra: tuple, rb: tuple, data: tuple) -> list[Change]:
        if A is False and B is False:
            return []
        if not isinstance(A, (dict, bool)) or not isinstance(B, (dict, bool)):
            return [self._unknown(A, B, ra, rb, data, "", "a schema that is not an object or a boolean")]
        narrows = widens = None
        if B is False:
            narrows = self._maybe_from(self.a, A, B, lambda: self.a.sampler.samples(A, 3))
            what = "NEW accepts nothing here"
        else:
            widens = self._maybe_from(self.b, B, A, lambda: self.b.sampler.samples(B, 3))
            what = "OLD accepted nothing here"
        return [Change("", ra, rb, data, what, narrows, widens, tag="closed" if B is False else "opened",
                       old=A, new=B)]

    def _maybe_from(self, side: Side, valid_node: Any, other_node: Any,
                    gen: Callable[[], list], reason: str | None = None) -> Maybe:
        """A Maybe whose candidates (computed when first asked for) are values ``gen``
        yields that ``valid_node`` (of ``side``) accepts and ``other_node`` (of the other
        side) rejects."""
        if not self.witnesses:
            return Maybe([], reason)
        other = self.b if side is self.a else self.a

        def make() -> list:
            out: list = []
            for v in gen():
                if side.accepts(v, valid_node) is True and other.accepts(v, other_node) is False:
                    if not any(_eqv(v, o) for o in out):
                        out.append(v)
                if len(out) >= 3:
                    break
            return out

        return Maybe(None, reason, make)

    def _narrow(self, A: Any, B: Any, gen: Callable[..., list], reason: str | None = None) -> Maybe:
        return self._maybe_from(self.a, A, B, gen, reason)

    def _widen(self, A: Any, B: Any, gen: Callable[..., list], reason: str | None = None) -> Maybe:
        return self._maybe_from(self.b, B, A, gen, reason)

    def _unknown(self, A: Any, B: Any, ra: tuple, rb: tuple, data: tuple, keyword: str,
                 reason: str) -> Change:
        """A difference no rule decides: both directions undecided, with candidates from
        samples of each side (they may still turn out to be witnesses)."""
        def na() -> list:
            return self.a.sampler.samples(A, 4) if isinstance(A, (dict, bool)) else []

        def wb() -> list:
            return self.b.sampler.samples(B, 4) if isinstance(B, (dict, bool)) else []

        return Change(keyword, ra, rb, data, reason, self._narrow(A, B, na, reason),
                      self._widen(A, B, wb, reason), tag="unknown",
                      old=A.get(keyword, MISSING) if isinstance(A, dict) and keyword else MISSING,
                      new=B.get(keyword, MISSING) if isinstance(B, dict) and keyword else MISSING)

    # ------------------------------------------------------------------ references

    def _follow(self, side: str, A: dict, B: dict, ra: tuple, rb: tuple, data: tuple) -> list[Change]:
        s = A if side == "a" else B
        sd = self.a if side == "a" else self.b
        ref = s["$ref"]
        target = sd.target(ref) if not sd.embedded_ids else None
        if target is None:
            return [self._unknown(A, B, ra, rb, data, "$ref",
                                  f"$ref {ref!r} is not a local reference toolcat can follow")]
        key = (id(target), id(B)) if side == "a" else (id(A), id(target))
        depth = self._expanding.get(key)
        if depth is not None and len(data) > depth:
            # The same pair again, at a strictly smaller part of the instance: assume what
            # is being shown for it (coinduction on the instance's size: sound because the
            # instance is finite; the pair's differences are reported where it was met first)
            return []
        if depth is not None:
            return [self._unknown(A, B, ra, rb, data, "$ref",
                                  f"recursive $ref {ref!r}: no sound check for recursive schemas "
                                  "that differ")]
        if self._follows >= _MAX_FOLLOWS:
            return [self._unknown(A, B, ra, rb, data, "$ref",
                                  f"$ref {ref!r} nested in more than {_MAX_FOLLOWS} references: "
                                  "not compared further")]
        d = node_dialect(s, sd.dialect)
        siblings = {k: v for k, v in s.items() if k != "$ref"}
        if d in ("draft4", "draft6", "draft7"):
            expanded = target
        else:
            expanded = M.merge_and(siblings, target, d) if siblings else target
            if expanded is None:
                expanded = {"allOf": [siblings, target]}
        self._expanding[key] = len(data)
        self._follows += 1
        try:
            if side == "a":
                return self.node(expanded, B, ra + ("$ref",), rb, data)
            return self.node(A, expanded, ra, rb + ("$ref",), data)
        finally:
            self._follows -= 1
            del self._expanding[key]

    # ------------------------------------------------------------------ unions

    def _branches(self, S: dict, d: str) -> tuple[list, list[tuple], str | None]:
        """(branches, their routes, the union keyword) of ``S`` distributed over its rest:
        ``P AND anyOf[x, y]`` is ``anyOf[P AND x, P AND y]``."""
        kws = [k for k in ("anyOf", "oneOf") if isinstance(S.get(k), list) and M.validates(k, d)]
        if not kws:
            return [S], [()], None
        if len(kws) > 1:
            return [], [], "both"
        k = kws[0]
        rest = {x: v for x, v in S.items() if x != k}
        out, routes = [], []
        for i, br in enumerate(S[k]):
            br = _dict(br)
            if br is False:
                continue
            m = M.merge_and(rest, br, d) if isinstance(br, dict) else None
            out.append(m if m is not None else {"allOf": [rest, br]})
            routes.append((k, i))
        return out, routes, k

    def _unions(self, A: dict, B: dict, da: str, db: str, ra: tuple, rb: tuple,
                data: tuple) -> list[Change]:
        xa, routes_a, ka = self._branches(A, da)
        xb, routes_b, kb = self._branches(B, db)
        if "both" in (ka, kb) or len(xa) * len(xb) > _MAX_BRANCHES ** 2:
            return [self._unknown(A, B, ra, rb, data, ka if ka not in (None, "both") else kb or "",
                                  "anyOf/oneOf too large or combined: no sound check")]
        want = self._want
        out: list[Change] = []
        pn_s = [self._pair(x, xb, self.a, self.b) for x in xa]
        pw_s = [self._pair(y, xa, self.b, self.a) for y in xb]
        pn = [p[0] for p in pn_s]
        pw = [p[0] for p in pw_s]
        same = {(i, j) for i, (j, how) in enumerate(pn_s) if how == "same"}
        # (i, j) -> {direction: proved?} for the pairs compared here (not from the memo)
        known: dict[tuple[int, int], dict[str, bool]] = {}
        pending_n: list[tuple[int, int]] = []
        pending_w: list[tuple[int, int]] = []
        i: int | None      # a branch of OLD (None: no NEW branch holds it)
        proved: bool | None
        if N in want:
            # every OLD branch inside some NEW branch: the closest one first
            for i, j in enumerate(pn):
                if j is None:
                    out.append(Change(ka or "", ra + routes_a[i], rb, data,
                                      f"{ka or 'schema'} branch {i} of OLD is not accepted by NEW",
                                      self._narrow(A, B, lambda x=xa[i]: self.a.sampler.samples(x, 4)),
                                      None, tag="branch-removed"))
                    continue
                mutual = pw[j] == i
                dirs = want if mutual else frozenset((N,))
                sub, proved, fresh = self._branch_pair(
                    xa[i], xb[j], ra + routes_a[i], rb + routes_b[j], data, dirs, N,
                    [] if pn_s[i][1] is not None else [k for k in range(len(xb)) if k != j][:8],
                    lambda k, x=xa[i]: self.sub(x, xb[k]))
                if fresh:
                    known.setdefault((i, j), {})[N] = proved
                    if W in dirs:
                        known[(i, j)][W] = all(c.widens is None for c in sub)
                if proved:
                    pending_n.append((i, j))
                out.extend(sub)
        if W in want:
            for j, i in enumerate(pw):
                if i is None:
                    out.append(Change(kb or "", ra, rb + routes_b[j], data,
                                      f"{kb or 'schema'} branch {j} of NEW accepts what OLD did not",
                                      None,
                                      self._widen(A, B, lambda y=xb[j]: self.b.sampler.samples(y, 4)),
                                      tag="branch-added"))
                    continue
                if N in want and pn[i] == j:
                    proved = known.get((i, j), {}).get(W)
                    if proved is None:   # (met before: its changes are in the list already)
                        proved = self.sup(xa[i], xb[j])
                else:
                    sub, proved, fresh = self._branch_pair(
                        xa[i], xb[j], ra + routes_a[i], rb + routes_b[j], data, frozenset((W,)), W,
                        [] if pw_s[j][1] is not None else [k for k in range(len(xa)) if k != i][:8],
                        lambda k, y=xb[j]: self.sup(xa[k], y))
                    if fresh:
                        known.setdefault((i, j), {})[W] = proved
                    out.extend(sub)
                if proved:
                    pending_w.append((i, j))

        def held(direction: str, k: int, m: int) -> bool:
            # N: NEW branch m within OLD branch k; W: OLD branch m within NEW branch k
            if ((k, m) if direction == N else (m, k)) in same:
                return True
            pair = (k, m) if direction == N else (m, k)
            got = known.get(pair, {}).get(W if direction == N else N)
            if got is not None:
                return got
            return self.sup(xa[k], xb[m]) if direction == N else self.sub(xa[m], xb[k])

        # a oneOf on the including side: each instance must match only one of its branches
        for i, j in pending_n:
            if not self._exclusive(i, j, xa, xb, pn, pw, ka, kb, N, same, held):
                assert kb == "oneOf"     # (any other holds)
                out.append(Change(kb, ra, rb, data, "oneOf branches of NEW may overlap: an "
                                  "instance OLD accepts may match two of them",
                                  self._narrow(A, B, lambda: self.a.sampler.samples(A, 4),
                                               "oneOf exclusivity is not proved"), None,
                                  tag="unknown"))
                break
        for i, j in pending_w:
            if not self._exclusive(j, i, xb, xa, pw, pn, kb, ka, W, {(b, a) for a, b in same},
                                   held):
                assert ka == "oneOf"     # (any other holds)
                out.append(Change(ka, ra, rb, data, "oneOf branches of OLD may overlap",
                                  None, self._widen(A, B, lambda: self.b.sampler.samples(B, 4),
                                                    "oneOf exclusivity is not proved"),
                                  tag="unknown"))
                break
        return out

    def _exclusive(self, i: int, j: int, xs: list, ys: list, px: list, py: list, kx: str | None,
                   ky: str | None, direction: str, same: set, held: Callable) -> bool:
        """Proved: an instance of branch ``i`` of ``xs`` (the included side), which branch
        ``j`` of ``ys`` holds, matches no other branch of ``ys`` (needed when ``ys`` is a
        oneOf). For each other branch ``m``: it is disjoint from ``j``, or (``xs`` being a
        oneOf too, so the instance matches only its own branch there) ``m`` is paired with
        a branch ``k != i`` of ``xs`` that holds all of ``m`` (``held(direction, k, m)``)."""
        if ky != "oneOf":
            return True
        sy = self.b if direction == N else self.a
        for m in range(len(ys)):
            if m == j:
                continue
            k = py[m]
            paired = kx == "oneOf" and k is not None and k != i and px[k] == m
            if paired and (k, m) in same:
                continue
            if self._disjoint(ys[j], ys[m], sy):
                continue
            if paired and held(direction, k, m):
                continue
            return False
        return True

    def _branch_pair(self, x: Any, y: Any, rx: tuple, ry: tuple, data: tuple, dirs: frozenset,
                     key: str, others: list[int], other_holds: Callable[..., bool]
                     ) -> tuple[list[Change], bool, bool]:
        """The changes between paired branches ``x`` and ``y`` for ``dirs``; whether the
        ``key`` direction is proved for the branch (by this pair, or by another branch that
        a dry run proves holds it: then this pair's ``key`` findings are left out); and
        whether the pair was compared here (not met before: then its changes are already in
        the list, and "no change" proves nothing)."""
        prior = self._done.get((id(x), id(y)))
        fresh = prior is None or not (dirs & prior[2])
        child = Comparator(self.a, self.b, interface=self.interface, witnesses=self.witnesses,
                           shared=self.shared)
        child._expanding = self._expanding
        child._follows = self._follows
        child.stop_early = self.stop_early
        child._done = dict(self._done)
        sub = child.node(x, y, rx, ry, data, want=dirs)
        proved = all(getattr(c, key) is None for c in sub)
        if not proved and any(other_holds(k) for k in others[:_MAX_BRANCHES]):
            # another branch holds it: this pair's `key` findings are void, and so is what
            # the child covered (nothing of it goes into this comparator's memo)
            proved = True
            for c in sub:
                setattr(c, key, None)
            sub = [c for c in sub if c.narrows is not None or c.widens is not None]
        else:
            self._done.update(child._done)
        return sub, proved, fresh

    def _pair(self, x: Any, ys: list, sx: Side, sy: Side) -> tuple[int | None, str | None]:
        """The branch of ``ys`` most like ``x``, and whether that is clear (the same schema,
        the same reference, or the only branch a discriminator value leaves): else the one
        with the most instance types in common and the best discriminator score (ties: the
        first); None when none shares an instance type."""
        for j, y in enumerate(ys):
            if (sx is self.a and self.same(x, y)) or (sx is self.b and self.same(y, x)):
                return j, "same"
        if isinstance(x, dict) and isinstance(x.get("$ref"), str):
            for j, y in enumerate(ys):
                if isinstance(y, dict) and y.get("$ref") == x["$ref"]:
                    return j, "ref"
        x = self._deref(x, sx)
        ax = M.schema_atoms(x, sx.dialect)
        scores: list[int | None]
        best, score, scores = None, 0, []
        for j, y in enumerate(ys):
            y = self._deref(y, sy)
            ay = M.schema_atoms(y, sy.dialect)
            sc = len(ax & ay) * 4
            if not sc:
                scores.append(None)
                continue
            disc = _discriminator_score(x, y, sx, sy)
            scores.append(disc)
            sc += disc
            if sc > score:
                best, score = j, sc
        clear = best is not None and (sb := scores[best]) is not None and sb >= 8 and \
            sum(1 for v in scores if v is not None and v >= 8) == 1
        return best, ("discriminator" if clear else None)

    def _deref(self, s: Any, side: Side) -> Any:
        """``s`` with a local ``$ref`` of it replaced by its target (merged with the keywords
        beside it), a few times; ``s`` itself when that cannot be done."""
        if not isinstance(s, dict) or "$ref" not in s:
            return s
        key = (id(s), id(side))
        hit = self.shared.derefs.get(key)
        if hit is not None and hit[0] is s:
            return hit[1]
        out = self._deref1(s, side)
        self.shared.derefs[key] = (s, out)
        return out

    def _deref1(self, s: Any, side: Side) -> Any:
        for _ in range(8):
            if not isinstance(s, dict) or not isinstance(s.get("$ref"), str) or side.embedded_ids:
                return s
            t = side.target(s["$ref"])
            if t is None:
                return s
            rest = {k: v for k, v in s.items() if k != "$ref"}
            if not rest or node_dialect(s, side.dialect) in LEGACY_DIALECTS:
                s = t
            else:
                m = M.merge_and(rest, t, side.dialect)
                if m is None:
                    return s
                s = m
        return s

    def _disjoint_all(self, xs: list, side: Side) -> bool:
        return all(self._disjoint(xs[i], xs[j], side) for i in range(len(xs))
                   for j in range(i + 1, len(xs)))

    def _disjoint(self, x: Any, y: Any, side: Side, depth: int = 0) -> bool:
        """Proved: no instance matches both ``x`` and ``y`` (schemas of ``side``)."""
        key = (id(x), id(y), id(side))
        hit = self.shared.disjoint.get(key)
        if hit is not None and hit[0] is x and hit[1] is y:
            return hit[2]
        ok = self._disjoint1(x, y, side, depth)
        self.shared.disjoint[key] = (x, y, ok)
        return ok

    def _disjoint1(self, x: Any, y: Any, side: Side, depth: int) -> bool:
        x, y = self._deref(x, side), self._deref(y, side)
        if x is False or y is False:
            return True
        if not isinstance(x, dict) or not isinstance(y, dict) or depth > 4:
            return False
        d = side.dialect
        common = M.schema_atoms(x, d) & M.schema_atoms(y, d)
        if not common:
            return True
        # a conjunct of one disjoint from the other (an allOf part holds all of its node)
        for s, t in ((x, y), (y, x)):
            conj = s.get("allOf")
            if isinstance(conj, list) and M.validates("allOf", d) and len(conj) <= 8:
                if any(self._disjoint(c, t, side, depth + 1) for c in conj):
                    return True
        # a discriminator: a property both require, with disjoint schemas
        if common <= {"object"}:
            ry = _names(y.get("required"))
            for name in _names(x.get("required")):
                if name in ry and self._disjoint(property_schema(x, name),
                                                 property_schema(y, name), side, depth + 1):
                    return True
        for s, t in ((x, y), (y, x)):
            vals = M.finite_values({k: v for k, v in s.items() if k in ("type", "enum", "const")}, d) \
                if ("enum" in s or "const" in s) else None
            if vals is not None and len(vals) <= 64:
                if all(side.accepts(v, t) is False for v in vals):
                    return True
        return False

    # ------------------------------------------------------------------ other conjuncts

    def _conjunct(self, k: str, A: dict, B: dict, da: str, db: str, ra: tuple, rb: tuple,
                  data: tuple) -> list[Change]:
        """``allOf`` (left unmerged), ``not`` or ``if``/``then``/``else`` that differ: the
        narrowing check is ``OLD within NEW's conjunct``, the widening one the reverse."""
        narrows = widens = None
        if k in B and M.validates(k, db) and not self._within(A, B, k, da, db, self.a, self.b,
                                                               self.sub):
            narrows = self._narrow(A, B, lambda: self.a.sampler.samples(A, 4) +
                                   self._violators(B, k, self.b, A, self.a),
                                   f"{k} differs: no sound check")
        if k in A and M.validates(k, da) and not self._within(B, A, k, db, da, self.b, self.a,
                                                               lambda x, y: self.sup(y, x)):
            widens = self._widen(A, B, lambda: self.b.sampler.samples(B, 4) +
                                 self._violators(A, k, self.a, B, self.b),
                                 f"{k} differs: no sound check")
        if narrows is None and widens is None:
            return []
        name = "if/then/else" if k == "if" else k
        return [Change(k, ra, rb, data, f"`{name}` changed", narrows, widens, tag="unknown",
                       old=A.get(k, MISSING), new=B.get(k, MISSING))]

    def _violators(self, S: dict, k: str, side: Side, other: dict, oside: Side) -> list:
        """Values of ``other`` (a node of ``oside``) that may fail ``S``'s conjunct ``k``:
        samples of what ``not`` excludes, of what takes ``S``'s ``if`` branch."""
        if k == "not" and isinstance(S.get("not"), (dict, bool)):
            return side.sampler.samples(S["not"], 4)
        if k == "if" and isinstance(S.get("if"), (dict, bool)):
            plain = {x: v for x, v in other.items() if x not in _IF_GROUP and x not in _COMBINATORS}
            out = []
            for cond in (S["if"], {"not": S["if"]}):
                m = M.merge_and(plain, cond, oside.dialect) if isinstance(cond, dict) else None
                if m is not None:
                    out.extend(oside.sampler.samples(m, 3))
            return out
        return []

    def _within(self, X: dict, Y: dict, k: str, dx: str, dy: str, sx: Side, sy: Side,
                proved: Callable[[Any, Any], bool]) -> bool:
        """Proved: every instance of ``X`` satisfies ``Y``'s conjunct ``k``. ``proved(p, q)``
        proves "p (of X's side) within q (of Y's side)"."""
        if k == "allOf":
            conj = Y.get("allOf")
            if not isinstance(conj, list):
                return False
            xs = X.get("allOf")
            mine = [X_ for X_ in (xs if isinstance(xs, list)
                                  and M.validates("allOf", dx) else [])]
            whole = {x: v for x, v in X.items() if x != "allOf"}
            return all(proved(whole, c) or any(proved(m, c) for m in mine) for c in conj)
        if k == "not":
            n = Y.get("not")
            if isinstance(X.get("not"), (dict, bool)) and M.validates("not", dx):
                # X excludes N' and N is inside N': X excludes N
                if self._inside(n, X["not"], sy, sx):
                    return True
            return self._disjoint_across(X, n, sx, sy)
        if k == "if":
            t, e = Y.get("then", True), Y.get("else", True)
            return proved(X, t) and proved(X, e)
        return False

    def _inside(self, n: Any, m: Any, sn: Side, sm: Side) -> bool:
        """Proved: ``n`` (a schema of ``sn``) within ``m`` (of ``sm``)."""
        sh = self.shared
        if sh.dry_depth >= _MAX_DRY or sh.steps > MAX_STEPS:
            return False
        c = Comparator(sn, sm, interface=False, witnesses=False, shared=sh)
        c._want = frozenset((N,))
        c.stop_early = True
        sh.dry_depth += 1
        try:
            return all(ch.narrows is None for ch in c.node(n, m, (), (), ()))
        except _Refuted:
            return False
        finally:
            sh.dry_depth -= 1

    def _disjoint_across(self, X: Any, N: Any, sx: Side, sn: Side) -> bool:
        if N is True or (isinstance(N, dict) and M.is_trivial(N, sn.dialect)):
            return X is False
        if not isinstance(X, dict) or not isinstance(N, dict):
            return N is False
        if not (M.schema_atoms(X, sx.dialect) & M.schema_atoms(N, sn.dialect)):
            return True
        vals = M.finite_values({k: v for k, v in X.items() if k in ("type", "enum", "const")},
                               sx.dialect) if ("enum" in X or "const" in X) else None
        if vals is not None:
            return all(sn.accepts(v, N) is False for v in vals if sx.accepts(v, X) is not False)
        return False

    # ------------------------------------------------------------------ plain keywords

    def _plain(self, A: dict, B: dict, da: str, db: str, ra: tuple, rb: tuple,
               data: tuple) -> list[Change]:
        fa = self._finite(A, da, self.a)
        fb = self._finite(B, db, self.b)
        if fa is not None or fb is not None:
            return self._finite_change(A, B, fa, fb, ra, rb, data)
        ta = M.type_atoms(A["type"]) if "type" in A and M.validates("type", da) else M.ALL_ATOMS
        tb = M.type_atoms(B["type"]) if "type" in B and M.validates("type", db) else M.ALL_ATOMS
        if ta is None or tb is None:
            return [self._unknown(A, B, ra, rb, data, "type", "type is malformed")]
        out: list[Change] = []
        gone, new = ta - tb, tb - ta
        if gone or new:
            out.append(Change(
                "type", ra, rb, data,
                f"type {_short(A.get('type', 'any'))} -> {_short(B.get('type', 'any'))}",
                self._narrow(A, B, lambda: self.a.sampler.samples(A, 3, atoms=gone)) if gone else None,
                self._widen(A, B, lambda: self.b.sampler.samples(B, 3, atoms=new)) if new else None,
                tag="type", old=A.get("type", MISSING), new=B.get("type", MISSING)))
        common = ta & tb
        if common & M.NUMBER_ATOMS:
            out.extend(self._numbers(A, B, da, db, ra, rb, data, "frac" not in common))
        if "string" in common:
            out.extend(self._strings(A, B, da, db, ra, rb, data))
        if "object" in common:
            out.extend(self._objects(A, B, da, db, ra, rb, data))
        if "array" in common:
            out.extend(self._arrays(A, B, da, db, ra, rb, data))
        return out

    def _finite(self, S: dict, d: str, side: Side) -> list | None:
        """The values ``S`` accepts, when it lists them (``enum``/``const``, or a type of
        only null/boolean), each checked against the whole node; None otherwise, or when a
        check cannot be made."""
        part = {k: v for k, v in S.items() if k in ("type", "enum", "const")}
        if not ("enum" in part or "const" in part):
            atoms = M.type_atoms(part.get("type")) if "type" in part else None
            if atoms is None or not atoms <= {"null", "boolean"}:
                return None
        vals = M.finite_values(part, d)
        if vals is None or len(vals) > 2000:
            return None
        out = []
        for v in M.dedupe(vals):
            ok = side.accepts(v, S)
            if ok is None:
                return None
            if ok:
                out.append(v)
        return out

    def _finite_change(self, A: dict, B: dict, fa: list | None, fb: list | None, ra: tuple,
                       rb: tuple, data: tuple) -> list[Change]:
        kw = "enum" if ("enum" in B or "enum" in A) else "const" if ("const" in B or "const" in A) \
            else "type"
        narrows = widens = None
        parts = []
        if fa is not None:
            lost = []
            for v in fa:
                ok = self.b.accepts(v, B)
                if ok is not True:
                    lost.append(v)
            if lost:
                narrows = Maybe(lost[:3] if self.witnesses else [])
                parts.append(f"no longer accepted: {_values(lost)}")
        else:
            narrows = self._narrow(A, B, lambda: self.a.sampler.samples(A, 4) +
                                   self.a.sampler.samples(_without_values(A), 4))
            parts.append(f"now only {_values(fb)}" if fb else "now accepts nothing")
        if fb is not None:
            gained = []
            for v in fb:
                ok = self.a.accepts(v, A)
                if ok is not True:
                    gained.append(v)
            if gained:
                widens = Maybe(gained[:3] if self.witnesses else [])
                parts.append(f"newly accepted: {_values(gained)}")
        else:
            widens = self._widen(A, B, lambda: self.b.sampler.samples(B, 4) +
                                 self.b.sampler.samples(_without_values(B), 4))
            parts.append(f"was only {_values(fa)}" if fa else "accepted nothing before")
        if narrows is None and widens is None:
            return []
        return [Change(kw, ra, rb, data, f"{kw}: " + "; ".join(parts), narrows, widens,
                       tag="enum", old=A.get(kw, MISSING), new=B.get(kw, MISSING))]

    # numbers

    def _numbers(self, A, B, da, db, ra, rb, data, integer: bool) -> list[Change]:
        out: list[Change] = []
        la = bounds(A, da)
        lb = bounds(B, db)
        for lower in (True, False):
            va, xa = (la[0], la[1]) if lower else (la[2], la[3])
            vb, xb = (lb[0], lb[1]) if lower else (lb[2], lb[3])
            if integer:
                ia = int_bounds(va, xa, None, False)[0] if lower else int_bounds(None, False, va, xa)[1]
                ib = int_bounds(vb, xb, None, False)[0] if lower else int_bounds(None, False, vb, xb)[1]
                tighter = _tighter_int(ia, ib, lower)
                looser = _tighter_int(ib, ia, lower)
            else:
                tighter = _tighter_real((va, xa), (vb, xb), lower)
                looser = _tighter_real((vb, xb), (va, xa), lower)
            if not tighter and not looser:
                continue
            kws = ("minimum", "exclusiveMinimum") if lower else ("maximum", "exclusiveMaximum")
            kw = next((k for k in kws if k in B), next((k for k in kws if k in A), kws[0]))
            what = f"{'lower' if lower else 'upper'} bound {_bound(va, xa, lower)} -> {_bound(vb, xb, lower)}"
            neg_b = _negate_bound(vb, xb, lower)
            neg_a = _negate_bound(va, xa, lower)
            out.append(Change(
                kw, ra, rb, data, what,
                self._narrow(A, B, lambda n=neg_b: self._samples_and(self.a, A, n)) if tighter else None,
                self._widen(A, B, lambda n=neg_a: self._samples_and(self.b, B, n)) if looser else None,
                tag="bound", old=_pick(A, kws), new=_pick(B, kws)))
        ma, mb = A.get("multipleOf"), B.get("multipleOf")
        ma = ma if _num(ma) and ma > 0 else None
        mb = mb if _num(mb) and mb > 0 else None
        if not (ma is not None and mb is not None and _eqv(ma, mb)) and (ma is not None or mb is not None):
            narrows = None if _multiple_implies(ma, mb, integer) else \
                self._narrow(A, B, lambda: self.a.sampler.samples(A, 6), None if _exact_mult(ma, mb)
                             else "multipleOf with fractions: jsonschema's float arithmetic")
            widens = None if _multiple_implies(mb, ma, integer) else \
                self._widen(A, B, lambda: self.b.sampler.samples(B, 6), None if _exact_mult(mb, ma)
                            else "multipleOf with fractions: jsonschema's float arithmetic")
            if narrows is not None or widens is not None:
                out.append(Change("multipleOf", ra, rb, data, f"multipleOf {_short(ma)} -> {_short(mb)}",
                                  narrows, widens, tag="bound", old=A.get("multipleOf", MISSING),
                                  new=B.get("multipleOf", MISSING)))
        return out

    def _samples_and(self, side: Side, S: dict, extra: dict | None, n: int = 3) -> list:
        """Samples of ``S`` that also satisfy ``extra`` (a bound's negation...), then of ``S``."""
        out: list = []
        if extra is not None:
            m = M.merge_and(S, extra, side.dialect)
            if m is None:
                plain = {k: v for k, v in S.items() if k not in _COMBINATORS and k not in _IF_GROUP}
                m = M.merge_and(plain, extra, side.dialect)
            if m is not None and m is not False:
                out = [v for v in side.sampler.samples(m, n) if side.accepts(v, S) is True]
        return out or side.sampler.samples(S, n)

    # strings

    def _strings(self, A, B, da, db, ra, rb, data) -> list[Change]:
        out: list[Change] = []
        for kw, lower in (("minLength", True), ("maxLength", False)):
            out.extend(self._int_bound(kw, lower, A, B, ra, rb, data, "maxLength", "minLength"))
        pa = A.get("pattern") if M.validates("pattern", da) else None
        pb = B.get("pattern") if M.validates("pattern", db) else None
        pa = pa if isinstance(pa, str) else None
        pb = pb if isinstance(pb, str) else None
        if pa != pb:
            if pa is None:
                what, tag = f"pattern added: {_short(pb)}", "pattern"
            elif pb is None:
                what, tag = f"pattern removed (was {_short(pa)})", "pattern"
            else:
                what, tag = f"pattern {_short(pa)} -> {_short(pb)}", "pattern"
            reason = "two different patterns: no sound check" if pa and pb else None
            out.append(Change(
                "pattern", ra, rb, data, what,
                self._narrow(A, B, lambda: self._string_probes(self.a, A), reason) if pb else None,
                self._widen(A, B, lambda: self._string_probes(self.b, B), reason) if pa else None,
                tag=tag, old=pa if pa is not None else MISSING, new=pb if pb is not None else MISSING))
        fa = A.get("format") if isinstance(A.get("format"), str) else None
        fb = B.get("format") if isinstance(B.get("format"), str) else None
        if fa != fb:
            reason = ("format is not asserted by jsonschema's default validation; validators "
                      "that assert formats (the MCP SDK client's Ajv does) may reject what OLD "
                      "accepted")
            out.append(Change(
                "format", ra, rb, data,
                f"format {_short(fa) if fa else '(none)'} -> {_short(fb) if fb else '(none)'}",
                self._narrow(A, B, lambda: self._string_probes(self.a, A), reason) if fb else None,
                self._widen(A, B, lambda: self._string_probes(self.b, B), reason) if fa else None,
                tag="format", old=fa if fa else MISSING, new=fb if fb else MISSING))
        return out

    def _string_probes(self, side: Side, S: dict) -> list:
        probes = ["", " ", "a", "A", "0", "-", "a b", "a" * 8, "é", "a/b", "A-1", "_x", "1.5"]
        return side.sampler.samples(S, 6) + [p for p in probes if side.accepts(p, S) is True][:8]

    def _int_bound(self, kw: str, lower: bool, A: dict, B: dict, ra, rb, data,
                   neg_lower: str, neg_upper: str) -> list[Change]:
        """``minLength``-like keywords (non-negative integer bounds; ``neg_*``: the keyword
        that expresses the negation of a lower / upper bound)."""
        va = A.get(kw) if _num(A.get(kw)) else None
        vb = B.get(kw) if _num(B.get(kw)) else None
        ia = None if va is None else (int(-(-va // 1)) if lower else int(va // 1))
        ib = None if vb is None else (int(-(-vb // 1)) if lower else int(vb // 1))
        if lower:
            ia = ia if ia and ia > 0 else None
            ib = ib if ib and ib > 0 else None
        if ia == ib:
            return []
        tighter = _tighter_int(ia, ib, lower)
        looser = _tighter_int(ib, ia, lower)
        if lower:
            neg_b = {neg_lower: ib - 1} if ib is not None else None
            neg_a = {neg_lower: ia - 1} if ia is not None else None
        else:
            neg_b = {neg_upper: ib + 1} if ib is not None else None
            neg_a = {neg_upper: ia + 1} if ia is not None else None
        what = f"{kw} {va if va is not None else '(none)'} -> {vb if vb is not None else '(none)'}"
        return [Change(
            kw, ra, rb, data, what,
            self._narrow(A, B, lambda: self._samples_and(self.a, A, neg_b)) if tighter else None,
            self._widen(A, B, lambda: self._samples_and(self.b, B, neg_a)) if looser else None,
            tag="bound", old=A.get(kw, MISSING), new=B.get(kw, MISSING))]

    # objects

    def _objects(self, A, B, da, db, ra, rb, data) -> list[Change]:
        out: list[Change] = []
        pa = A.get("properties", {}) if M.validates("properties", da) else {}
        pb = B.get("properties", {}) if M.validates("properties", db) else {}
        xa = A.get("patternProperties", {}) if M.validates("patternProperties", da) else {}
        xb = B.get("patternProperties", {}) if M.validates("patternProperties", db) else {}
        if not all(isinstance(v, dict) for v in (pa, pb, xa, xb)):
            return [self._unknown(A, B, ra, rb, data, "properties", "malformed properties")]
        aa = A.get("additionalProperties", True) if M.validates("additionalProperties", da) else True
        ab = B.get("additionalProperties", True) if M.validates("additionalProperties", db) else True
        free_a = M.is_trivial(aa, da) and not xa
        free_b = M.is_trivial(ab, db) and not xb
        names = list(pa) + [n for n in pb if n not in pa]
        for n in names:
            ina, inb = n in pa, n in pb
            sa = property_schema(A, n) if (ina or not free_a) else True
            sb = property_schema(B, n) if (inb or not free_b) else True
            rta = ra + (("properties", n) if ina else _undeclared_route(A, n))
            rtb = rb + (("properties", n) if inb else _undeclared_route(B, n))
            if inb and not ina:
                newly_required = n in _names(B.get("required")) and n not in _names(A.get("required"))
                if not newly_required:
                    # (a new required property is one change: _required reports it)
                    req = " (required)" if n in _names(B.get("required")) else " (optional)"
                    out.append(Change("properties", ra, rb, data, f"property {n!r} added{req}",
                                      None, None, tag="property-added", new=pb[n], at=(n,)))
                if free_a and self.interface:
                    continue
                if _dict(sa) is False:
                    # OLD refused the name: whatever NEW accepts for it is more
                    def obj_gen(n: str = n) -> list:
                        return list(self._objects_with(self.b, B, n))
                    out[-1:] = [Change("properties", ra, rb, data,
                                       f"property {n!r} added{req if not newly_required else ''}; "
                                       "OLD refused it (additionalProperties: false)",
                                       None, self._widen(A, B, obj_gen), tag="property-added",
                                       new=pb[n], at=(n,))] if not newly_required else []
                    continue
            elif ina and not inb:
                if free_b and self.interface:
                    out.append(Change("properties", ra, rb, data,
                                      f"property {n!r} no longer declared (NEW accepts any value)",
                                      None, None, tag="property-removed", old=pa[n], at=(n,)))
                    continue
                if _dict(sb) is False:
                    def obj_gen(n: str = n) -> list:
                        return list(self._objects_with(self.a, A, n))
                    out.append(Change("properties", ra, rb, data,
                                      f"property {n!r} no longer accepted "
                                      "(additionalProperties: false)",
                                      self._narrow(A, B, obj_gen), None, tag="property-closed",
                                      old=pa[n], at=(n,)))
                    continue
            out.extend(self.node(sa, sb, rta, rtb, data + (n,)))
        # names neither declares
        if set(xa) == set(xb):
            for p in xa:
                out.extend(self.node(xa[p], xb[p], ra + ("patternProperties", p),
                                     rb + ("patternProperties", p), data + (f"<{p}>",)))
            if not (M.is_trivial(aa, da) and M.is_trivial(ab, db)):
                closed_a, closed_b = _dict(aa) is False, _dict(ab) is False
                if closed_b and not closed_a:
                    out.append(Change(
                        "additionalProperties", ra, rb, data,
                        "additionalProperties closed: properties NEW does not declare are rejected",
                        self._narrow(A, B, lambda: self._objects_extra(self.a, A, aa, pa, pb, xa)),
                        None, tag="closed", old=aa, new=ab))
                elif closed_a and not closed_b:
                    out.append(Change(
                        "additionalProperties", ra, rb, data,
                        "additionalProperties opened: properties OLD did not declare are accepted",
                        None,
                        self._widen(A, B, lambda: self._objects_extra(self.b, B, ab, pb, pa, xb)),
                        tag="opened", old=aa, new=ab))
                else:
                    out.extend(self.node(aa, ab, ra + ("additionalProperties",),
                                         rb + ("additionalProperties",), data + ("*",)))
        else:
            out.extend(self._patterns(A, B, xa, xb, aa, ab, ra, rb, data))
        out.extend(self._required(A, B, da, db, ra, rb, data))
        for kw, lower in (("minProperties", True), ("maxProperties", False)):
            out.extend(self._int_bound(kw, lower, A, B, ra, rb, data, "maxProperties",
                                       "minProperties"))
        out.extend(self._property_names(A, B, da, db, pa, pb, aa, ab, xa, xb, ra, rb, data))
        out.extend(self._dependencies(A, B, da, db, ra, rb, data))
        return out

    def _objects_extra(self, side: Side, S: dict, add: Any, mine: dict, theirs: dict,
                       pats: dict) -> list:
        """Objects of ``S`` with one more property that neither side declares."""
        from toolcat.schema.examples import EXTRA_NAMES, _search

        names = [n for n in EXTRA_NAMES if n not in mine and n not in theirs
                 and not any(_search(p, n) for p in pats)][:2]
        base = side.sampler.samples(S, 2, atoms={"object"})
        vals = side.sampler.samples(add, 2)
        return [{**o, n: v} for o in base if isinstance(o, dict) for n in names for v in vals]

    def _objects_with(self, side: Side, S: dict, name: str) -> list:
        base = side.sampler.samples(S, 2, atoms={"object"})
        vals = side.sampler.samples(property_schema(S, name), 2)
        return [{**o, name: v} for o in base for v in vals if isinstance(o, dict)]

    def _patterns(self, A, B, xa, xb, aa, ab, ra, rb, data) -> list[Change]:
        ok_n = all((self.sub(xa[q], xb[q]) if q in xa else
                    self.sub(aa, xb[q]) and all(self.sub(xa[p], xb[q]) for p in xa))
                   for q in xb) and self.sub(aa, ab) and all(
            self.sub(xa[p], ab) for p in xa if p not in xb)
        ok_w = all((self.sup(xa[q], xb[q]) if q in xb else
                    self.sup(xa[q], ab) and all(self.sup(xa[q], xb[p]) for p in xb))
                   for q in xa) and self.sup(aa, ab) and all(
            self.sup(aa, xb[p]) for p in xb if p not in xa)
        if ok_n and ok_w:
            return []
        reason = "patternProperties changed: no sound check beyond the sufficient ones"
        def gen_a() -> list:
            return [{**o, "x": v} for o in self.a.sampler.samples(A, 1, atoms={"object"})
                    for v in ("a", 1)]

        def gen_b() -> list:
            return [{**o, "x": v} for o in self.b.sampler.samples(B, 1, atoms={"object"})
                    for v in ("a", 1)]
        return [Change("patternProperties", ra, rb, data,
                       f"patternProperties {sorted(xa)} -> {sorted(xb)}",
                       None if ok_n else self._narrow(A, B, gen_a, reason),
                       None if ok_w else self._widen(A, B, gen_b, reason), tag="unknown",
                       old=xa, new=xb)]

    def _required(self, A, B, da, db, ra, rb, data) -> list[Change]:
        qa = [r for r in A.get("required", []) if isinstance(r, str)] \
            if isinstance(A.get("required"), list) and M.validates("required", da) else []
        qb = [r for r in B.get("required", []) if isinstance(r, str)] \
            if isinstance(B.get("required"), list) and M.validates("required", db) else []
        out: list[Change] = []
        pa = A.get("properties") if isinstance(A.get("properties"), dict) else {}
        pb = B.get("properties") if isinstance(B.get("properties"), dict) else {}
        for r in qb:
            if r not in qa:
                what = (f"new required property {r!r}" if r in pb and r not in pa
                        else f"{r!r} is now required")
                out.append(Change(
                    "required", ra, rb, data, what,
                    self._narrow(A, B, lambda r=r: [o for o in self.a.sampler.samples(A, 4, atoms={"object"})
                                                    if isinstance(o, dict) and r not in o]),
                    None, tag="required-added", old=A.get("required", MISSING), new=r))
        for r in qa:
            if r not in qb:
                out.append(Change(
                    "required", ra, rb, data, f"{r!r} is no longer required",
                    None,
                    self._widen(A, B, lambda r=r: [o for o in self.b.sampler.samples(B, 4, atoms={"object"})
                                                   if isinstance(o, dict) and r not in o]),
                    tag="required-removed", old=r, new=B.get("required", MISSING)))
        return out

    def _property_names(self, A, B, da, db, pa, pb, aa, ab, xa, xb, ra, rb, data) -> list[Change]:
        na = A.get("propertyNames", True) if M.validates("propertyNames", da) else True
        nb = B.get("propertyNames", True) if M.validates("propertyNames", db) else True
        if self.same(na, nb):
            return []
        closed_a = _dict(aa) is False and not xa
        closed_b = _dict(ab) is False and not xb
        ok_n = self.sub(na, nb) or (closed_a and all(self.b.accepts(n, nb) is True for n in pa))
        ok_w = self.sup(na, nb) or (closed_b and all(self.a.accepts(n, na) is True for n in pb))
        if ok_n and ok_w:
            return []

        def gen(side: Side, S: dict, mine: Any) -> list:
            out = []
            for name in side.sampler.samples(mine, 4, atoms={"string"}) + ["x", "a1", "Z"]:
                if isinstance(name, str):
                    out.extend(self._objects_with(side, S, name)[:1])
            return out

        return [Change("propertyNames", ra, rb, data, "propertyNames changed",
                       None if ok_n else self._narrow(A, B, lambda: gen(self.a, A, na)),
                       None if ok_w else self._widen(A, B, lambda: gen(self.b, B, nb)),
                       tag="property-names", old=na, new=nb)]

    def _dependencies(self, A, B, da, db, ra, rb, data) -> list[Change]:
        out: list[Change] = []
        qa, qb = dependent_required(A, da), dependent_required(B, db)
        for k in list(qa) + [x for x in qb if x not in qa]:
            la, lb = qa.get(k, []), qb.get(k, [])
            more = [n for n in lb if n not in la]
            less = [n for n in la if n not in lb]
            if not more and not less:
                continue
            kw = "dependentRequired" if "dependentRequired" in B or "dependentRequired" in A \
                else "dependencies"
            out.append(Change(
                kw, ra, rb, data,
                f"with {k!r}: " + "; ".join(x for x in (
                    f"now also requires {_values(more)}" if more else "",
                    f"no longer requires {_values(less)}" if less else "") if x),
                self._narrow(A, B, lambda k=k: [o for o in self._objects_with(self.a, A, k)
                                                if not all(m in o for m in more)]) if more else None,
                self._widen(A, B, lambda k=k: [o for o in self._objects_with(self.b, B, k)
                                               if not all(m in o for m in less)]) if less else None,
                tag="dependencies", old=la, new=lb))
        sa, sb = _dependent_schemas(A, da), _dependent_schemas(B, db)
        for k in list(sa) + [x for x in sb if x not in sa]:
            xa_, ka_ = sa.get(k, (True, None))
            xb_, kb_ = sb.get(k, (True, None))
            out.extend(self.node(xa_, xb_, ra + ((ka_ or kb_), k), rb + ((kb_ or ka_), k), data))
        return out

    # arrays

    def _arrays(self, A, B, da, db, ra, rb, data) -> list[Change]:
        out: list[Change] = []
        pa, resta = split_items(A, da)
        pb, restb = split_items(B, db)
        n = max(len(pa), len(pb))
        for i in range(n):
            ia = pa[i] if i < len(pa) else resta
            ib = pb[i] if i < len(pb) else restb
            out.extend(self.node(ia, ib, ra + _item_route(A, da, i, len(pa)),
                                 rb + _item_route(B, db, i, len(pb)), data + (i,)))
        out.extend(self.node(resta, restb, ra + _item_route(A, da, n, len(pa)),
                             rb + _item_route(B, db, n, len(pb)), data + (n,)))
        for kw, lower in (("minItems", True), ("maxItems", False)):
            out.extend(self._int_bound(kw, lower, A, B, ra, rb, data, "maxItems", "minItems"))
        ua, ub = A.get("uniqueItems") is True, B.get("uniqueItems") is True
        if ua != ub:
            def dups(side: Side, S: dict) -> list:
                _p, rest = split_items(S, side.dialect)
                vals = side.sampler.samples(rest, 1)
                return [[v, v] for v in vals]

            out.append(Change("uniqueItems", ra, rb, data,
                              f"uniqueItems {str(ua).lower()} -> {str(ub).lower()}",
                              self._narrow(A, B, lambda: dups(self.a, A)) if ub else None,
                              self._widen(A, B, lambda: dups(self.b, B)) if ua else None,
                              tag="bound", old=A.get("uniqueItems", MISSING),
                              new=B.get("uniqueItems", MISSING)))
        out.extend(self._contains(A, B, da, db, ra, rb, data))
        return out

    def _contains(self, A, B, da, db, ra, rb, data) -> list[Change]:
        ga = {k: A[k] for k in M.CONTAINS_GROUP if k in A and M.validates(k, da)}
        gb = {k: B[k] for k in M.CONTAINS_GROUP if k in B and M.validates(k, db)}
        if not ga and not gb:
            return []
        if set(ga) == set(gb) and all(self.same(ga[k], gb[k]) for k in ga):
            return []

        def within(g1: dict, g2: dict, proved: Callable[[Any, Any], bool], back: Callable) -> bool:
            # every array satisfying g1 satisfies g2
            if "contains" not in g2:
                return True
            if "contains" not in g1:
                return False
            min1 = g1.get("minContains", 1)
            min2 = g2.get("minContains", 1)
            if not (_num(min1) and _num(min2) and min1 >= min2):
                return False
            if not proved(g1["contains"], g2["contains"]):
                return False
            if "maxContains" in g2:
                if "maxContains" not in g1 or not _num(g1["maxContains"]) or \
                        not _num(g2["maxContains"]) or g1["maxContains"] > g2["maxContains"]:
                    return False
                if not back(g1["contains"], g2["contains"]):
                    return False
            return True

        ok_n = within(ga, gb, self.sub, self.sup)
        ok_w = within(gb, ga, lambda x, y: self.sup(y, x), lambda x, y: self.sub(y, x))
        if ok_n and ok_w:
            return []
        reason = "contains changed: no sound check beyond the sufficient ones"
        return [Change("contains", ra, rb, data, "contains/minContains/maxContains changed",
                       None if ok_n else self._narrow(A, B, lambda: self.a.sampler.samples(A, 4) + [[]], reason),
                       None if ok_w else self._widen(A, B, lambda: self.b.sampler.samples(B, 4) + [[]], reason),
                       tag="unknown", old=ga, new=gb)]



# ---------------------------------------------------------------------- helpers

def _discriminator_score(x: Any, y: Any, sx: Side, sy: Side) -> int:
    """How alike two object branches look: +2 per property both declare, +8 per required
    property whose values they both list with one in common, -8 when such lists share none
    (a discriminator that tells them apart)."""
    if not isinstance(x, dict) or not isinstance(y, dict):
        return 0
    px = p if isinstance(p := x.get("properties"), dict) else {}
    py = q if isinstance(q := y.get("properties"), dict) else {}
    score = 2 * len(set(px) & set(py))
    for name in _names(x.get("required")):
        if name in px and name in py and name in _names(y.get("required")):
            vx, vy = px[name], py[name]
            fx = M.finite_values(vx, sx.dialect) if isinstance(vx, dict) and ("enum" in vx or "const" in vx) else None
            fy = M.finite_values(vy, sy.dialect) if isinstance(vy, dict) and ("enum" in vy or "const" in vy) else None
            if fx is not None and fy is not None:
                kx = {M.jkey(v) for v in fx}
                score += 8 if any(M.jkey(v) in kx for v in fy) else -8
    return score


def _names(v: Any) -> list:
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _without_values(S: dict) -> dict:
    return {k: v for k, v in S.items() if k not in ("enum", "const")}


def _pick(S: dict, kws: tuple) -> Any:
    got = {k: S[k] for k in kws if k in S}
    return got if got else MISSING


def _tighter_int(x: Any, y: Any, lower: bool) -> bool:
    """Bound ``y`` excludes an integer that bound ``x`` admits (None: unbounded)."""
    if y is None:
        return False
    if x is None:
        return True
    return y > x if lower else y < x


def _tighter_real(x: tuple, y: tuple, lower: bool) -> bool:
    (vx, ex), (vy, ey) = x, y
    if vy is None:
        return False
    if vx is None:
        return True
    if vy != vx:
        return vy > vx if lower else vy < vx
    return ey and not ex


def _bound(v: Any, x: bool, lower: bool) -> str:
    if v is None:
        return "(none)"
    return f"{'>' if lower else '<'}{'' if x else '='} {_short(v)}"


def _negate_bound(v: Any, x: bool, lower: bool) -> dict | None:
    """A schema for the numbers a bound excludes."""
    if v is None:
        return None
    if lower:
        return {"maximum": v} if x else {"exclusiveMaximum": v}
    return {"minimum": v} if x else {"exclusiveMinimum": v}


def _frac(v: Any) -> Fraction:
    return Fraction(v) if isinstance(v, int) else Fraction(repr(v))


def _exact_mult(m1: Any, m2: Any) -> bool:
    return all(v is None or isinstance(v, int) for v in (m1, m2))


def _multiple_implies(m1: Any, m2: Any, integer: bool) -> bool:
    """Every number that is a multiple of ``m1`` (None: any number; ``integer``: an
    integer) is a multiple of ``m2``, as jsonschema computes it."""
    if m2 is None:
        return True
    if not isinstance(m2, int):
        return False  # jsonschema divides floats: only integer divisors are exact
    if m1 is None:
        return integer and m2 == 1
    if not isinstance(m1, int):
        return False
    return m1 % m2 == 0


def _undeclared_route(S: dict, name: str) -> tuple:
    from toolcat.schema.examples import _search

    pats = pp if isinstance(pp := S.get("patternProperties"), dict) else {}
    for p in pats:
        if _search(p, name):
            return ("patternProperties", p)
    return ("additionalProperties",)


def _item_route(S: dict, d: str, i: int, n_prefix: int) -> tuple:
    if d in TUPLE_ITEMS_DIALECTS:
        if isinstance(S.get("items"), list):
            return ("items", i) if i < n_prefix else ("additionalItems",)
        return ("items",)
    if i < n_prefix:
        return ("prefixItems", i)
    return ("items",)


def _dependent_schemas(S: dict, d: str) -> dict[str, tuple[Any, str]]:
    out: dict[str, tuple[Any, str]] = {}
    for key in ("dependentSchemas", "dependencies"):
        v = S.get(key)
        if isinstance(v, dict) and M.validates(key, d):
            for k, s in v.items():
                if isinstance(s, (dict, bool)):
                    out[k] = (s, key)
    return out


# ---------------------------------------------------------------------- public API

@dataclass
class Comparison:
    """What :func:`compare` found: the changes, the two sides (their checkers and samplers,
    for :func:`witness`), and whether combinators of different shapes were met (``allOf``
    on one side only, unions of other lengths...: the exact rewrites of
    :func:`toolcat.schema.lower.lower_schema` may then show that some changes are only
    spelling)."""

    changes: list[Change]
    old: Side
    new: Side
    shapes_differ: bool

    def __iter__(self):  # (changes, old, new) = compare(...)
        return iter((self.changes, self.old, self.new))


def compare(old: Any, new: Any, old_dialect: str = DRAFT2020, new_dialect: str = DRAFT2020, *,
            interface: bool = True, old_hints: tuple = (), new_hints: tuple = (),
            digests: Digests | None = None, budget: Any = None) -> Comparison:
    """The changes from ``old`` to ``new`` (see the module docstring). ``digests``: shared
    between the comparisons of one diff (see :class:`Digests`); ``budget``: the
    :class:`~toolcat.schema.validate.Budget` the checkers of both sides spend."""
    dig = digests if digests is not None else Digests()
    a = Side(old, old_dialect, old_hints, digests=dig, budget=budget)
    b = Side(new, new_dialect, new_hints, digests=dig, budget=budget)
    c = Comparator(a, b, interface=interface)
    return Comparison(c.compare(), a, b, c.shared.shapes_differ)


def witness(change: Change, direction: str, old: Side, new: Side,
            valid: Sequence[Checker] = (), invalid: Sequence[Checker] = ()) -> Any:
    """A whole instance for ``change``: for ``"narrows"`` one OLD accepts and NEW rejects
    (for ``"widens"``, the reverse), built from the change's candidates by embedding them at
    the change's place; checked with the two roots' checkers and with every checker in
    ``valid`` (must accept) and ``invalid`` (must reject). ``MISSING`` when none holds."""
    m = change.narrows if direction == "narrows" else change.widens
    if m is None or not m.candidates:
        return MISSING
    src, dst = (old, new) if direction == "narrows" else (new, old)
    route = change.old_route if direction == "narrows" else change.new_route
    for value in m.candidates:
        for inst in src.sampler.embed(route, change.data, value)[:6]:
            if src.checker.accepts(inst) is not True or dst.checker.accepts(inst) is not False:
                continue
            if all(c.accepts(inst) is True for c in valid) and \
                    all(c.accepts(inst) is False for c in invalid):
                return inst
    return MISSING


# ---------------------------------------------------------------------- written places

_ONE_SCHEMA = ("additionalProperties", "not", "if", "then", "else", "propertyNames", "contains",
               "additionalItems", "unevaluatedItems", "unevaluatedProperties", "contentSchema")


def written_path(root: Any, route: tuple, tail: tuple = (), dialect: str = DRAFT2020) -> tuple[tuple, bool]:
    """Where a route of :func:`compare` (walked over a normalized schema) lands in the
    schema as written: ``(path from the root, exact)``. Follows the written schema's local
    ``$ref``\\ s and ``allOf`` branches to find each step; stops at the nearest node it can
    reach (``exact`` False) when the normalization moved things further than that."""
    node, path = root, ()
    toks = list(route)
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "$ref":
            i += 1
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                hop = target_path(node["$ref"], root)
                if hop is not None:
                    path, node = hop
            continue
        if t == "items" and isinstance(node, dict) and isinstance(node.get("items"), list) \
                and i + 1 < len(toks) and isinstance(toks[i + 1], int):
            step: tuple = (t, toks[i + 1])
        elif t in _ONE_SCHEMA or t == "items":
            step = (t,)
        elif i + 1 < len(toks):
            step = (t, toks[i + 1])
        else:
            step = (t,)
        got = _locate(node, path, step, root, 0)
        if got is None:
            return path, False
        path, node = got
        i += len(step)
    if tail:
        got = _locate(node, path, tail, root, 0, leaf=True)
        if got is None:
            got = _locate(node, path, tail[:1], root, 0, leaf=True) if len(tail) > 1 else None
            return (got[0] if got else path), False
        path = got[0]
    return path, True


def target_path(ref: str, root: Any) -> tuple[tuple, Any] | None:
    if not ref.startswith("#"):
        return None
    from toolcat.document import pointer as jp

    try:
        tokens = jp.decode_fragment(ref[1:])
        target = jp.resolve(root, tokens)
    except (KeyError, ValueError, TypeError, IndexError):
        return None
    out: list[str | int] = []
    cur = root
    tok: str | int
    for tok in tokens:
        if isinstance(cur, list):
            tok = int(tok)
        out.append(tok)
        cur = cur[tok]
    return tuple(out), target


def _locate(node: Any, path: tuple, step: tuple, root: Any, depth: int,
            leaf: bool = False) -> tuple[tuple, Any] | None:
    """``step`` taken at ``node`` (at ``path``), or through its ``$ref`` / ``allOf``."""
    if depth > 16 or not isinstance(node, dict):
        return None
    cur: Any = node
    ok = True
    for tok in step:
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list) and isinstance(tok, int) and 0 <= tok < len(cur):
            cur = cur[tok]
        else:
            ok = False
            break
    if ok:
        return path + step, cur
    ref = node.get("$ref")
    if isinstance(ref, str):
        hop = target_path(ref, root)
        if hop is not None:
            got = _locate(hop[1], hop[0], step, root, depth + 1, leaf)
            if got is not None:
                return got
    for key in ("allOf", "anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list):
            for j, b in enumerate(branches):
                got = _locate(b, path + (key, j), step, root, depth + 1, leaf)
                if got is not None:
                    return got
    return None
