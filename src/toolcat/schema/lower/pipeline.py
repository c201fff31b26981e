"""The entry point of lowering, :func:`lower_schema`: the rewrite pass
(:mod:`toolcat.schema.lower.rewrite`), then the report of prose and no-ops removed, the
root's ``$schema`` left out where the schema is dialect-neutral, factoring
(:mod:`toolcat.schema.factor`, exact mode), and for the compact subset the floor and the
``--unlowerable`` policy (:mod:`toolcat.schema.lower.subset`)."""

from __future__ import annotations

from typing import Any

from toolcat.document.canonical import dumps
from toolcat.schema.keywords import DRAFT2020
from toolcat.schema.lower.cache import LowerCache
from toolcat.schema.lower.changes import EXACT, WIDENED, Change, SchemaResult, dedupe
from toolcat.schema.lower.neutral import dialect_neutral, neutral_without_schema
from toolcat.schema.lower.noops import NOOP_LABELS
from toolcat.schema.lower.rewrite import Lowerer
from toolcat.schema.lower.subset import apply_policy, object_floor
from toolcat.schema.walker import node_dialect


def lower_schema(schema: Any, dialect: str = DRAFT2020, *, subset: bool = False,
                 unlowerable: str = "widen", floor: bool | None = None, pointer: str = "",
                 inline: str | None = None, budget: int | None = None,
                 drop_schema: bool = True, cache: LowerCache | None = None,
                 factor: bool = False, content_sizes: dict | None = None,
                 lowerer: Lowerer | None = None) -> SchemaResult:
    """Strip prose and lower ``schema``; see the module docstring.

    ``subset``: the result must satisfy the RFC 0112 compact subset; what cannot be lowered
    exactly follows ``unlowerable`` (widen | omit | keep | fail). Without ``subset`` only
    exact rewrites are made and ``$ref`` is inlined only where that does not grow the schema.
    ``floor``: also give the top level ``type: "object"`` and ``properties`` (default: with
    ``subset``). ``pointer`` prefixes the change pointers (e.g. ``/inputSchema``).
    ``drop_schema``: leave out a root ``$schema`` (draft-07 or 2020-12) when nothing in the
    schema means something else under the other one (:func:`dialect_neutral`).
    ``factor``: without ``subset``, also move repeated identical subschemas into the root's
    definitions where that is smaller (:mod:`toolcat.schema.factor`; never for the compact
    subset, which forbids ``$ref``).
    ``cache``: shared between the schemas of one run (:class:`LowerCache`).
    ``content_sizes``: the inlining decisions' sizes of subtrees by content
    (:class:`~toolcat.schema.lower.plan.RefPlan`; the re-lowering after factoring).
    ``lowerer``: the :class:`Lowerer` of ``schema`` with these options, built before (the
    re-lowering after factoring asks it first whether anything would change).
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
                out, ch, _ok = object_floor(schema, dialect, pointer, True)
                return SchemaResult(out, ch, True, True)
            return apply_policy(res, dialect, pointer, unlowerable, floor)
        return res
    low = lowerer if lowerer is not None else \
        Lowerer(schema, dialect, widen=widen, inline=inline, pointer=pointer, budget=budget,
                cache=cache, content_sizes=content_sizes)
    out = low.run()
    if isinstance(out, bool) and isinstance(schema, dict) and not subset:
        # an object schema stays an object schema (Ajv, as the MCP SDK runs it, throws on a
        # boolean root: `'$id' in schema`), and keeps saying which dialect it is; the compact
        # subset has no object form of `false` (no `not`): there the floor replaces it
        out = {"not": {}} if out is False else {}
        if "$schema" in schema:
            out = {"$schema": schema["$schema"], **out}
    done = low.p
    res = SchemaResult(out, dedupe(done.changes), prose_removed=done.prose_removed)
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
        _factor_rounds(res, dialect, pointer, keep_neutral=dropped, cache=cache)
    if subset and floor:
        fl, ch, ok = object_floor(res.schema, dialect, pointer, widen)
        if ok:
            res.schema = fl
            res.changes.extend(ch)
    res.unlowerable = any(c.kind == WIDENED for c in res.changes)
    if subset:
        return apply_policy(res, dialect, pointer, unlowerable, floor)
    return res


def _factor_rounds(res: SchemaResult, dialect: str, pointer: str,
                   keep_neutral: bool = False, cache: LowerCache | None = None) -> None:
    """Factor repeated subtrees of ``res.schema`` (exact mode), then lower the result again:
    a definition that was worth keeping while many copies pointed at it may now have one
    reference left (inlined), and a union of it can then be lowered. Until nothing changes
    (a few rounds at most), so that projecting the output again gives it back.

    ``keep_neutral``: the root's ``$schema`` was dropped because the schema means the same
    under draft-07 and 2020-12; a lowering that would end that (an ``allOf`` of a new ``$ref``
    merged into a ``$ref`` with siblings, which draft-07 ignores) is not taken."""
    from toolcat.schema.factor import describe, factor_schema

    content_sizes = cache.content_sizes if cache is not None else None

    for _round in range(4):
        # the dialect the output is read in (a dropped $schema: the default one), so that a
        # re-projection picks the same definitions map
        f = factor_schema(res.schema, node_dialect(res.schema, dialect))
        if not f.defs:
            return
        res.schema = f.schema
        res.changes.extend(Change(ptr, EXACT, what) for ptr, what in describe(pointer, f.defs))
        # (no `cache`: the factored tree's nodes are new objects, its identity memos would
        # only grow; the definitions' sizes are memoized by content)
        low = Lowerer(res.schema, dialect, widen=False, inline="smaller", pointer=pointer,
                      content_sizes=content_sizes,
                      clean=cache.clean if cache is not None else None)
        if low.unchanged():
            return      # (what the lowering would give back: nothing to compare)
        again = lower_schema(res.schema, dialect, pointer=pointer, drop_schema=False,
                             content_sizes=content_sizes, lowerer=low)
        if dumps(again.schema) == dumps(res.schema):
            return
        if keep_neutral and not neutral_without_schema(again.schema):
            return
        res.schema = again.schema
        seen = set(res.changes)       # (a list's `in` made this quadratic on large schemas)
        for c in again.changes:
            if c not in seen:
                seen.add(c)
                res.changes.append(c)
