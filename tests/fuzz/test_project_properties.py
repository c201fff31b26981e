"""Property-based proof on real schemas: the 117 GitHub snapshots, every mcp-context-cost
capture (input and output schemas) and the neo OpenAPI tools.

Hypothesis drives an instance generator guided by the *original* schema (valid-looking
instances) and then mutates them (a key dropped or added, a value of another type, a bound
crossed, null). python-jsonschema validates each instance against the original and against
the projection in two modes: the default MCP compact view (exact rewrites only) and the
OpenWOP compact view (the subset, widened where needed). Exact -> the same verdict; widened
-> every instance the original accepts is still accepted.
"""

from __future__ import annotations

import glob
import json
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.common import corpus
from support.fuzz_support import Chooser
from support.instances import _ALPHABET, RandomChooser, gen, mutate

# --------------------------------------------------------------------------- the schemas


def _catalog_paths(group: str) -> list[str]:
    if group == "github":
        return [str(corpus("github-mcp-server"))]
    if group == "neo":
        return sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml")))
    out = []
    for f in sorted(glob.glob(str(corpus("mcp-context-cost") / "*.json"))):
        with open(f, encoding="utf-8") as fh:
            if isinstance(json.load(fh).get("rawToolsCapture"), list):
                out.append(f)
    return out


class Case:
    """One schema, its projections and the validators (jsonschema is the oracle here; Ajv
    judges the instances the sweep drew, at the end of the group).

    Modes: ``mcp`` = what ``--to mcp`` writes (exact rewrites, factoring, then the MCP roots:
    ``type: "object"``, a non-object output schema wrapped), judged on objects (tool
    arguments and structuredContent are objects) or, wrapped, on ``{"result": x}``;
    ``widen`` = the compact subset (``--to openwop``), on objects (the floor)."""

    def __init__(self, where: str, schema: Any, dialect: str, output: bool) -> None:
        import jsonschema

        from toolcat.features.project import roots
        from toolcat.schema.lower import EXACT, lower_schema
        from toolcat.schema.walker import node_dialect

        self.where = where
        self.schema = schema
        self.dialect = node_dialect(schema, dialect) if isinstance(schema, dict) else dialect
        self.instances: list = []       # what the sweep drew (for the Ajv judge)
        default = jsonschema.Draft202012Validator
        cls = jsonschema.validators.validator_for(schema, default=default)
        self.orig = cls(schema)
        self.modes = []
        kwargs = [("mcp", {"subset": False, "factor": True})]
        if not output:
            kwargs.append(("widen", {"subset": True, "unlowerable": "widen"}))
        for name, kw in kwargs:
            res = lower_schema(schema, dialect, pointer="", **kw)
            changes = list(res.changes)
            p = res.schema
            if name == "mcp":
                fit = roots.fit_output if output else roots.fit_input
                p, more = fit(p, dialect, typed=True, boolean_properties=False)
                changes += more
            wrapped = any(c.kind == "wrapped" for c in changes)
            lossy = any(c.kind not in (EXACT, "wrapped") for c in changes)
            if isinstance(schema, dict) and "$schema" in schema and isinstance(p, dict) \
                    and "$schema" not in p:
                vs = [jsonschema.Draft7Validator(p), jsonschema.Draft202012Validator(p)]
            else:
                vs = [jsonschema.validators.validator_for(p, default=default)(p)]
            self.modes.append((name, not lossy, vs, p, not wrapped, wrapped))


@lru_cache(maxsize=None)
def _cases(group: str) -> tuple:
    from toolcat.formats import LoadOptions, load_catalogs

    cases = []
    for path in _catalog_paths(group):
        for cat in load_catalogs([path], LoadOptions()):
            for t in cat.tools:
                for output, s in ((False, t.input_schema), (True, t.output_schema)):
                    if isinstance(s, (dict, bool)):
                        label = f"{path.rsplit('/', 1)[-1]}:{t.id}:{'out' if output else 'in'}"
                        cases.append(Case(label, s, t.dialect, output))
    return tuple(cases)


# --------------------------------------------------------------------------- generator

class HypChooser(Chooser):
    """Choices drawn by Hypothesis (shrinkable, reproducible), with text and regex."""

    def text(self, lo: int, hi: int) -> str:
        return self.draw(st.text(alphabet=_ALPHABET, min_size=lo, max_size=hi))

    def regex(self, pattern: str) -> str:
        return self.draw(st.from_regex(pattern).filter(lambda x: len(x) < 60))



# --------------------------------------------------------------------------- the property


def _outcome(v, data) -> str:
    try:
        return "valid" if v.is_valid(data) else "invalid"
    except Exception as e:  # noqa: BLE001
        return f"error:{type(e).__name__}"


# (the OpenAPI corpus and samples: tests/corpus/test_ajv_catalogs.py, every tool as projected,
# judged by jsonschema and Ajv; here, with Hypothesis exploring too, it took minutes)
# (the captures, ~1 minute: the long profile, TOOLCAT_LONG=1; test_ajv_catalogs judges every
# capture's projection under jsonschema and Ajv always)
GROUPS = ["github", "neo", pytest.param("captures", marks=pytest.mark.long)]


def _check(case: Case, c, counts: dict, keep: bool = False) -> None:
    inst = gen(c, case.schema, case.schema)
    for x in (inst, mutate(c, inst)):
        before = _outcome(case.orig, x)
        counts["instances"] += 1
        counts["valid"] += before == "valid"
        if keep:
            case.instances.append(x)
        for name, exact, vs, projected, objects_only, wrapped in case.modes:
            if objects_only and not isinstance(x, dict):
                continue  # the top level is exact for arguments/structuredContent (objects)
            y = {"result": x} if wrapped else x
            for v in vs:
                after = _outcome(v, y)
                if exact:
                    assert after == before, (case.where, name, x, before, after,
                                             json.dumps(projected)[:400])
                elif before == "valid":
                    assert after == "valid", (case.where, name, x, after,
                                              json.dumps(projected)[:400])


@pytest.mark.parametrize("group", GROUPS)
def test_projection_keeps_verdicts(group: str, ajv_judge) -> None:
    """Every schema of the group: a seeded sweep (8 instances and their mutants each), then
    Hypothesis explores (it picks the schema too, so failures shrink to one schema). The
    sweep's instances then go to Ajv as the MCP SDKs run it (support/differential.py), each
    distinct schema compiled once per engine."""
    from support.differential import Differential, Pair

    cases = _cases(group)
    assert cases
    counts = {"instances": 0, "valid": 0}
    for i, case in enumerate(cases):
        case.instances = []
        for seed in range(8):
            _check(case, RandomChooser(seed * 7919 + i), counts, keep=True)
    diff = Differential(ajv_judge)
    for case in cases:
        for name, exact, _vs, projected, objects_only, wrapped in case.modes:
            diff.add(Pair(f"{case.where} [{name}]", case.schema, case.dialect, projected,
                          case.instances, lossy=not exact, objects_only=objects_only,
                          wrapped=wrapped, meta=True))
    report = diff.run()
    print(group, "Ajv:", report.line())
    assert not report.failures, f"{len(report.failures)} failures:\n" + \
        "\n".join(report.failures[:20])

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def explore(data) -> None:
        c = HypChooser(data)
        case = cases[c.int(0, len(cases) - 1)]
        _check(case, c, counts)

    explore()
    print(group, len(cases), "schemas", counts)
    # the generator must reach both sides of the schemas, or the property says little
    assert counts["valid"] > counts["instances"] * 0.2, counts
    assert counts["valid"] < counts["instances"] * 0.95, counts


def test_corpus_has_lowering_to_prove() -> None:
    """The corpora exercise more than prose stripping: combinators lowered exactly and
    widenings happen (so the properties above test them)."""
    kinds: dict[str, int] = {}
    from toolcat.schema.lower import lower_schema

    for case in _cases("captures") + _cases("github"):
        for name, exact, _vs, _p, _objects_only, _wrapped in case.modes:
            kinds[(name, exact)] = kinds.get((name, exact), 0) + 1
    assert kinds[("widen", False)] > 10 and kinds[("widen", True)] > 500, kinds
    del lower_schema


# --------------------------------------------------------------------------- robustness

_KEYS = ["type", "properties", "items", "anyOf", "oneOf", "allOf", "not", "$ref", "$defs",
         "definitions", "enum", "const", "required", "additionalProperties", "prefixItems",
         "patternProperties", "dependentSchemas", "dependencies", "if", "then", "else",
         "description", "title", "x-a", "minimum", "$id", "$anchor", "$schema",
         "unevaluatedProperties", "format"]
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4),
              st.sampled_from(["object", "string", "null", "#", "#/$defs/a", "#/properties/a",
                               "#/definitions/a", "#a", "http://x/y.json", "integer",
                               "http://json-schema.org/draft-07/schema#"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(_KEYS + ["a", "b"]), inner,
                                            max_size=4)),
    max_leaves=25)


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(_VALUES, st.sampled_from(["2020-12", "draft7"]))
def test_any_json_as_a_schema_never_crashes(schema, dialect) -> None:
    """Whatever sits in an inputSchema, the projection answers (no exception), and with the
    subset required (widen) the result is always in the subset."""
    from toolcat.schema.lower import lower_schema, subset_violations

    for kw in ({"subset": False}, {"subset": True, "unlowerable": "widen"},
               {"subset": True, "unlowerable": "keep"}, {"subset": True, "unlowerable": "omit"}):
        res = lower_schema(schema, dialect, pointer="/inputSchema", **kw)
        if kw.get("unlowerable") == "widen":
            assert not subset_violations(res.schema, dialect), (schema, res.schema)


# --------------------------------------------------------------------------- generated schemas
#
# Schemas built to meet the size rewrites: subtrees repeated many times (factoring into
# $defs + $ref), validation no-ops (`additionalProperties: true`, `items: {}`, `required: []`,
# `minLength: 0`, `uniqueItems: false`, `type` beside an enum that implies it, and near
# misses that do not: 1.5 under `integer`, `true` under `number`), existing definitions and
# references, and `unevaluatedProperties` (whose annotations the no-ops must not lose).
# jsonschema judges the original and the projection (exact + factoring, what the MCP target
# does) on instances drawn from the schema and mutated; the verdicts must agree.

_LEAVES = [
    {"type": "string", "minLength": 0}, {"type": "string", "maxLength": 3, "minLength": 1},
    {"type": "integer", "minimum": 0}, {"type": "number", "enum": [1, 2.0, 2.5]},
    {"type": "integer", "enum": [1, 1.0, 2]}, {"type": "integer", "enum": [1, 1.5]},
    {"type": "number", "enum": [True, 1]}, {"type": "boolean", "const": True},
    {"type": ["string", "null"], "enum": ["a", None]}, {"type": "string", "const": 1},
    {"enum": ["x", "y"]}, {"type": "null"}, {"type": "integer", "multipleOf": 2},
    {"type": "string", "format": "date", "pattern": "^2"}, {}, True,
]


@st.composite
def _gen_schema(draw, dialect: str):
    legacy = dialect == "draft7"
    defs_key = "definitions" if legacy else "$defs"
    pool: list = []
    defs: dict = {}

    def leaf():
        return draw(st.sampled_from(_LEAVES))

    def node(depth: int):
        if pool and draw(st.integers(0, 2)) == 0:
            return draw(st.sampled_from(pool))           # a repeated subtree
        kind = draw(st.integers(0, 6 if depth < 3 else 0))
        if kind == 0:
            s = leaf()
        elif kind in (1, 2):
            names = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3,
                                  unique=True))
            s = {"type": "object", "properties": {n: node(depth + 1) for n in names}}
            s["required"] = draw(st.sampled_from([[], names[:1], names]))
            extra = draw(st.integers(0, 4))
            if extra == 1:
                s["additionalProperties"] = draw(st.sampled_from([True, {}, False]))
            elif extra == 2:
                s["additionalProperties"] = node(depth + 1)
            elif extra == 3 and not legacy:
                s["unevaluatedProperties"] = False
            if draw(st.booleans()):
                s["minProperties"] = draw(st.sampled_from([0, 1]))
            if draw(st.booleans()):
                s["propertyNames"] = draw(st.sampled_from([True, {}, {"maxLength": 1}]))
        elif kind == 3:
            s = {"type": "array", "items": draw(st.sampled_from([True, {}])) if
                 draw(st.booleans()) else node(depth + 1)}
            s["minItems"] = draw(st.sampled_from([0, 1]))
            s["uniqueItems"] = draw(st.booleans())
            if not legacy and draw(st.booleans()):
                s["prefixItems"] = [node(depth + 1)]
        elif kind == 4:
            key = draw(st.sampled_from(["anyOf", "oneOf", "allOf"]))
            s = {key: [node(depth + 1) for _ in range(draw(st.integers(1, 3)))]}
        elif kind == 5:
            name = draw(st.sampled_from(["p", "q", "r"]))
            if name not in defs:
                defs[name] = node(depth + 1)
            s = {"$ref": f"#/{defs_key}/{name}"}
        else:
            s = {"properties": {}, "patternProperties": {}, "dependentRequired": {}} \
                if not legacy else {"properties": {}, "dependencies": {}}
        if isinstance(s, dict) and draw(st.integers(0, 3)) == 0:
            pool.append(s)
        return s

    root = {"type": "object", "properties": {n: node(1) for n in ("x", "y", "z", "w")}}
    if not legacy and draw(st.booleans()):
        root["unevaluatedProperties"] = False
    if defs:
        root[defs_key] = defs
    if legacy:
        root = {"$schema": "http://json-schema.org/draft-07/schema#", **root}
    return root


def _judge(schema, dialect: str):
    import jsonschema

    cls = jsonschema.Draft7Validator if dialect == "draft7" else jsonschema.Draft202012Validator
    return cls(schema)


@settings(max_examples=500, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data(), st.sampled_from(["2020-12", "draft7"]))
def test_size_rewrites_keep_verdicts(data, dialect) -> None:
    """Generated schemas with repeated subtrees and redundant keywords: the projection (exact,
    factored) is exact-only, judges every instance as the original does and keeps the
    top-level type and properties; projected again it still does, and never grows (on
    generated schemas a second pass may find a little more: a definition's $ref can let an
    allOf merge, a name can be shorter; the real catalogs are fixpoints, test_idempotent)."""
    import jsonschema

    from toolcat.document.canonical import dumps
    from toolcat.schema.lower import EXACT, lower_schema

    schema = data.draw(_gen_schema(dialect))
    res = lower_schema(schema, "2020-12", pointer="/inputSchema", factor=True)
    assert all(c.kind == EXACT for c in res.changes), res.changes
    out = res.schema
    assert out["type"] == "object" and isinstance(out["properties"], dict)
    orig = _judge(schema, dialect)
    news = [_judge(out, dialect)] if "$schema" in out or "$schema" not in schema else \
        [jsonschema.Draft7Validator(out), jsonschema.Draft202012Validator(out)]
    again = lower_schema(out, "2020-12", pointer="/inputSchema", factor=True)
    assert all(c.kind == EXACT for c in again.changes), again.changes
    assert len(dumps(again.schema)) <= len(dumps(out)), (json.dumps(out), json.dumps(again.schema))
    news.append(_judge(again.schema, "2020-12"))
    c = HypChooser(data)
    for _ in range(6):
        inst = gen(c, schema, schema)
        for x in (inst, mutate(c, inst)):
            before = _outcome(orig, x)
            if before == "error:RecursionError":
                # the original loops (a definition that is only a $ref to itself, reached
                # before a branch that accepts everything): it has no verdict to keep
                continue
            for v in news:
                assert _outcome(v, x) == before, (json.dumps(schema), json.dumps(out), x)


def test_generated_schemas_meet_the_rewrites() -> None:
    """The generator above does produce what it is meant to test: factored subtrees, no-ops
    of each kind, and the unevaluated* guard (a no-op kept)."""
    from hypothesis import find

    from toolcat.schema.lower import lower_schema

    def what(s) -> str:
        return " ".join(c.what for c in lower_schema(s, "2020-12", factor=True).changes)

    for dialect in ("2020-12", "draft7"):
        find(_gen_schema(dialect), lambda s: "identical subschemas" in what(s),
             settings=settings(database=None, max_examples=2000))
        for label in ("additionalProperties: true", "items: true", "type implied",
                      "required: []", "minItems: 0", "uniqueItems: false", "empty properties"):
            find(_gen_schema(dialect), lambda s, lab=label: lab in what(s),
                 settings=settings(database=None, max_examples=2000))
