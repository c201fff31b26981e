"""The differential judge: a projected schema against its original, under every real reader.

Readers: python-jsonschema (the letter of the dialect the schema declares, or toolcat's
default for it) and Ajv as the MCP TypeScript SDKs run it (:mod:`support.ajv`: ``sdk`` =
SDK 1.x, draft-07 Ajv for every schema; ``2020-12`` = the same on Ajv2020; ``sdk-v2`` = one
Ajv per declared dialect). The rules, for each reader:

* the projected schema compiles wherever its original does (Ajv; jsonschema: the validator
  can be made), and is valid against the metaschema wherever its original is (``meta``);
* only ``exact`` changes: every instance gets the original's verdict;
* a ``widened`` (or ``omitted``) change: every instance the original accepts is still
  accepted; and, where the pair has a ``ceiling`` (the original widened at the pointers the
  report gives, :func:`widened_at`), every instance the projection accepts and the original
  refuses is accepted by the ceiling: the change is where the report says it is (at or
  below one of its pointers), not elsewhere.

Instances can be mapped: ``objects_only`` compares object instances only (tool arguments and
MCP ``structuredContent`` are objects: the top-level floor and ``type: "object"`` are exact
there), ``wrapped`` judges the projection on ``{"result": x}`` (an MCP output schema wrapped
as SEP-2106 does). Ajv requests are collected and sent in batches at :meth:`run`, each
distinct (engine, schema) compiled once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

D7 = "http://json-schema.org/draft-07/schema#"
READERS = ("jsonschema", "sdk", "2020-12", "sdk-v2")


def canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def engines_for(original: Any, dialect: str) -> tuple[str, ...]:
    """The Ajv engines that read ``original`` (read by toolcat as ``dialect``) as toolcat
    does, or are real readers of it: the SDK 1.x always (it reads every MCP schema, as
    draft-07); for a 2020-12 schema also Ajv2020 and the SDK v2; for a draft-07 one the SDK v2
    only when it declares draft-07 (the SDK v2 reads a schema without ``$schema`` as
    2020-12)."""
    if dialect == "2020-12":
        return ("sdk", "2020-12", "sdk-v2")
    declared = original.get("$schema") if isinstance(original, dict) else None
    if isinstance(declared, str) and declared.rstrip("#") == D7.rstrip("#"):
        return ("sdk", "sdk-v2")
    return ("sdk",)


@dataclass
class Pair:
    where: str
    original: Any
    dialect: str                 # toolcat's reading of the original ("2020-12", "draft7"...)
    projected: Any
    instances: list
    lossy: bool = False          # a widened/omitted change applies: the superset rule
    objects_only: bool = False
    wrapped: bool = False
    formats: bool = True         # jsonschema asserts formats (Ajv always does: ajv-formats)
    engines: tuple[str, ...] | None = None   # None: engines_for(original, dialect)
    meta: bool = False           # also compare metaschema validity (jsonschema check_schema)
    ceiling: Any = None          # lossy: the original widened at the reported pointers
    #: the dialect the projection is read in when it drops the original's ``$schema`` (None:
    #: both draft-07 and 2020-12, the two ways MCP readers take a schema without one)
    projected_dialect: str | None = None


@dataclass
class Report:
    counts: dict[str, Counter] = field(default_factory=lambda: {r: Counter() for r in READERS})
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        return "; ".join(f"{r}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                         for r, c in self.counts.items() if c)

    def total(self, key: str) -> int:
        return sum(c[key] for c in self.counts.values())


class Differential:
    """Collect :class:`Pair` values (:meth:`add`), then :meth:`run` judges them all.

    ``distinct``: a pair that only repeats one added already (the same original, dialect,
    projection and judging options: OpenAPI tools share their schemas) is not added again;
    it would get the same verdicts (on other generated instances)."""

    def __init__(self, judge: Any = None, registry: Any = None, distinct: bool = False) -> None:
        self.judge = judge
        self.registry = registry
        self._distinct: set[tuple] | None = set() if distinct else None
        self.pairs: list[Pair] = []
        self.report = Report()
        self._ajv: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {}
        self._canons: dict[int, tuple[Any, str]] = {}

    def _canon(self, schema: Any) -> str:
        """:func:`canon` of a schema, once per object (Stripe's output schemas are ~500 KB,
        each looked up for every engine and pair)."""
        got = self._canons.get(id(schema))
        if got is None or got[0] is not schema:
            got = self._canons[id(schema)] = (schema, canon(schema))
        return got[1]

    # -- collecting

    def add(self, pair: Pair) -> None:
        if pair.engines is None:
            pair.engines = engines_for(pair.original, pair.dialect)
        if self._distinct is not None:
            key = (self._canon(pair.original), pair.dialect, self._canon(pair.projected),
                   pair.lossy, pair.objects_only, pair.wrapped, pair.formats, pair.engines,
                   pair.meta, None if pair.ceiling is None else canon(pair.ceiling),
                   pair.projected_dialect)
            if key in self._distinct:
                return
            self._distinct.add(key)
        insts = [x for x in pair.instances if not pair.objects_only or isinstance(x, dict)]
        pair.instances = insts
        self.pairs.append(pair)
        if self.judge is None or not insts:
            return
        after = [{"result": x} for x in insts] if pair.wrapped else insts
        for e in pair.engines:
            self._want(e, pair.original, insts)
            self._want(e, pair.projected, after)
            if pair.ceiling is not None:
                self._want(e, pair.ceiling, insts)

    def _want(self, engine: str, schema: Any, instances: list) -> None:
        key = (engine, self._canon(schema))
        got = self._ajv.get(key)
        if got is None:
            got = self._ajv[key] = (schema, {})
        for x in instances:
            got[1].setdefault(canon(x), x)

    # -- judging

    def run(self) -> Report:
        ajv = self._run_ajv() if self.judge is not None else {}
        rep = self.report
        js_cache: dict = {}
        for p in self.pairs:
            self._jsonschema(p, js_cache)
            for e in p.engines or ():
                if self.judge is not None:
                    self._ajv_pair(p, e, ajv)
        return rep

    def _run_ajv(self) -> dict:
        out: dict[tuple[str, str], tuple[str | None, dict[str, str]]] = {}
        by_engine: dict[str, list] = {}
        for (engine, key), (schema, insts) in self._ajv.items():
            by_engine.setdefault(engine, []).append((key, schema, insts))
        for engine, items in by_engine.items():
            res = self.judge.validate_many([(s, list(i.values())) for _k, s, i in items],
                                           engine=engine)
            for (key, _s, insts), v in zip(items, res):
                verdicts = {}
                if v.error is None:
                    for ck, ok in zip(insts, v.valid):
                        verdicts[ck] = "error" if ok is None else ("valid" if ok else "invalid")
                out[(engine, key)] = (v.error, verdicts)
            self.report.counts[engine]["schemas compiled"] += len(items)
        return out

    def _ajv_pair(self, p: Pair, e: str, ajv: dict) -> None:
        c = self.report.counts[e]
        if not p.instances:
            return
        err0, before = ajv[(e, self._canon(p.original))]
        if err0 is not None:
            c["originals refused"] += 1
            return
        err1, after = ajv[(e, self._canon(p.projected))]
        c["pairs"] += 1
        if err1 is not None:
            c["compile errors"] += 1
            self._fail(p, e, f"compile error {err1[:200]} (the original compiles)")
            return
        top = None
        if p.ceiling is not None:
            err2, top = ajv[(e, self._canon(p.ceiling))]
            if err2 is not None:
                top = None
        for x in p.instances:
            b = before[canon(x)]
            a = after[canon({"result": x} if p.wrapped else x)]
            c["instances"] += 1
            if b != a:
                c["verdict changes"] += 1
            if self._violates(p, b, a):
                c["verdict violations"] += 1
                self._fail(p, e, f"instance {canon(x)[:160]}: {b} before, {a} after")
            elif top is not None and self._uncovered(b, a, top[canon(x)]):
                c["uncovered changes"] += 1
                self._fail(p, e, f"instance {canon(x)[:160]}: {b} before, {a} after, "
                           f"{top[canon(x)]} with the reported pointers widened")

    def _jsonschema(self, p: Pair, cache: dict) -> None:
        import jsonschema

        c = self.report.counts["jsonschema"]
        cls = _CLASSES[p.dialect]
        try:
            orig = _validator(p.original, cls, p.formats, self.registry, cache,
                              text=self._canon(p.original))
        except Exception:  # noqa: BLE001 - the original itself is unusable: nothing to keep
            c["originals refused"] += 1
            return
        dropped = (isinstance(p.original, dict) and "$schema" in p.original
                   and isinstance(p.projected, dict) and "$schema" not in p.projected)
        try:
            if dropped and p.projected_dialect is not None:
                news = [_validator(p.projected, _CLASSES[p.projected_dialect], p.formats,
                                   self.registry, cache, forced=True)]
            elif dropped:
                news = [_validator(p.projected, k, p.formats, self.registry, cache, forced=True)
                        for k in (jsonschema.Draft7Validator, jsonschema.Draft202012Validator)]
            else:
                news = [_validator(p.projected, cls, p.formats, self.registry, cache,
                                   text=self._canon(p.projected))]
        except Exception as e:  # noqa: BLE001
            c["compile errors"] += 1
            self._fail(p, "jsonschema", f"projected schema unusable: {type(e).__name__}: {e}")
            return
        c["pairs"] += 1
        if p.meta:
            self._meta(p, orig, news, c)
        top = None
        if p.ceiling is not None:
            try:
                top = _validator(p.ceiling, cls, p.formats, self.registry, cache,
                                 text=self._canon(p.ceiling))
            except Exception as e:  # noqa: BLE001
                self._fail(p, "jsonschema", f"ceiling unusable: {type(e).__name__}: {e}")
        for x in p.instances:
            b = _outcome(orig, x)
            y = {"result": x} if p.wrapped else x
            t = None
            for v in news:
                a = _outcome(v, y)
                c["instances"] += 1
                if b != a:
                    c["verdict changes"] += 1
                if self._violates(p, b, a):
                    c["verdict violations"] += 1
                    self._fail(p, f"jsonschema {type(v).__name__}",
                               f"instance {canon(x)[:160]}: {b} before, {a} after")
                    continue
                if top is not None and b != a:
                    t = _outcome(top, x) if t is None else t
                    if self._uncovered(b, a, t):
                        c["uncovered changes"] += 1
                        self._fail(p, f"jsonschema {type(v).__name__}",
                                   f"instance {canon(x)[:160]}: {b} before, {a} after, {t} "
                                   "with the reported pointers widened")

    def _meta(self, p: Pair, orig: Any, news: list, c: Counter) -> None:
        import jsonschema

        def ok(v: Any, schema: Any) -> bool:
            try:
                type(v).check_schema(schema)
                return True
            except jsonschema.SchemaError:
                return False

        # the projected schema first: the original (the slower half on a large spec: the
        # metaschema check is most of this judge's time) is asked only when one fails
        failed = [v for v in news if not ok(v, p.projected)]
        if not failed or not ok(orig, p.original):
            return
        for v in failed:
            c["metaschema regressions"] += 1
            self._fail(p, f"jsonschema {type(v).__name__}", "projected schema is invalid "
                       "against the metaschema (its original is valid)")

    @staticmethod
    def _violates(p: Pair, before: str, after: str) -> bool:
        if p.lossy:
            return before == "valid" and after != "valid"
        return after != before

    @staticmethod
    def _uncovered(before: str, after: str, ceiling: str) -> bool:
        """Accepted after, refused before, and refused by the ceiling too: the widening is
        not under any reported pointer."""
        return after == "valid" and before != "valid" and ceiling != "valid"

    def _fail(self, p: Pair, reader: str, what: str) -> None:
        self.report.failures.append(
            f"{p.where} [{reader}, {'widened' if p.lossy else 'exact'}"
            f"{', wrapped' if p.wrapped else ''}]: {what}\n    original:  "
            f"{canon(p.original)[:300]}\n    projected: {canon(p.projected)[:300]}")


def _classes() -> dict:
    import jsonschema

    return {"draft4": jsonschema.Draft4Validator, "draft6": jsonschema.Draft6Validator,
            "draft7": jsonschema.Draft7Validator, "2019-09": jsonschema.Draft201909Validator,
            "2020-12": jsonschema.Draft202012Validator}


class _Lazy(dict):
    def __missing__(self, key: str) -> Any:
        self.update(_classes())
        return dict.__getitem__(self, key)


_CLASSES = _Lazy()


def _validator(schema: Any, default: Any, formats: bool, registry: Any, cache: dict,
               forced: bool = False, text: str | None = None) -> Any:
    import jsonschema

    key = (canon(schema) if text is None else text, default, formats, forced)
    v = cache.get(key)
    if v is None:
        cls = default if forced else jsonschema.validators.validator_for(schema, default=default)
        kw: dict = {"format_checker": cls.FORMAT_CHECKER if formats else None}
        if registry is not None:
            kw["registry"] = registry
        v = cache[key] = cls(schema, **kw)
    return v


def _outcome(v: Any, data: Any) -> str:
    """jsonschema's verdict, the whole instance evaluated (not up to the first error: where
    the schema holds something jsonschema cannot evaluate, such as a ``$ref`` that is not a
    string, whether the first error comes before it depends on the keywords' order, which a
    rewrite may change)."""
    try:
        valid = True
        for _e in v.iter_errors(data):
            valid = False
        return "valid" if valid else "invalid"
    except Exception as e:  # noqa: BLE001 - the oracle's own limits (unresolvable, recursion)
        return f"error:{type(e).__name__}"
    except BaseException as e:
        # a RecursionError inside rpds (Rust) surfaces as a pyo3 PanicException
        if type(e).__name__ == "PanicException":
            return "error:recursion"
        raise


# ------------------------------------------------------------------------- the ceiling

def widened_at(schema: Any, pointers: list[str], dialect: str, prefix: str = ""
               ) -> tuple[Any, list[str]]:
    """``schema`` widened at each of ``pointers`` (a report's, ``prefix`` + a pointer into
    ``schema``): the subschema there becomes ``{}``, a keyword there is dropped; a keyword
    whose widening is not a widening of its schema (``not``, ``if``, ``oneOf``, ``contains``)
    is dropped whole when a pointer goes through it. Every instance a projection whose
    changes are all at or below those pointers accepts, this accepts. (the ceiling, the
    pointers that do not resolve in ``schema``)"""
    from toolcat.document.pointer import unescape
    from toolcat.schema.keywords import APPLICATORS

    table = APPLICATORS.get(dialect, APPLICATORS["2020-12"])
    out, bad = schema, []
    for ptr in pointers:
        if ptr != prefix and not ptr.startswith(prefix + "/"):
            bad.append(ptr)
            continue
        toks = [unescape(t) for t in ptr[len(prefix):].split("/")[1:]]
        if not _resolves(schema, toks):
            bad.append(ptr)
            continue
        out = _widen(out, toks, table)
    return out, bad


def _resolves(node: Any, toks: list[str]) -> bool:
    for t in toks:
        if isinstance(node, dict) and t in node:
            node = node[t]
        elif isinstance(node, list) and t.isdigit() and int(t) < len(node):
            node = node[int(t)]
        else:
            return False
    return True


_NOT_MONOTONE = {"not": (), "if": (), "oneOf": (), "contains": ("minContains", "maxContains")}


def _widen(node: Any, toks: list[str], table: dict) -> Any:
    if not toks:
        return {}
    if not isinstance(node, dict) or toks[0] not in node:
        return node           # (gone with an earlier pointer's keyword)
    k, rest = toks[0], toks[1:]
    shape = table.get(k)
    value = node[k]
    if shape is None or not rest or k in _NOT_MONOTONE:
        drop = {k, *_NOT_MONOTONE.get(k, ())}
        return {kk: v for kk, v in node.items() if kk not in drop}
    if shape == "schema" or (shape == "schema_or_list" and isinstance(value, dict)):
        return {**node, k: _widen(value, rest, table)}
    if isinstance(value, dict) and shape in ("map", "schema_or_names") and rest[0] in value:
        sub = value[rest[0]]
        if isinstance(sub, (dict, bool)):
            return {**node, k: {**value, rest[0]: _widen(sub, rest[1:], table)}}
    if isinstance(value, list) and shape in ("list", "schema_or_list") and rest[0].isdigit() \
            and int(rest[0]) < len(value):
        i = int(rest[0])
        return {**node, k: [*value[:i], _widen(value[i], rest[1:], table), *value[i + 1:]]}
    return {kk: v for kk, v in node.items() if kk != k}
