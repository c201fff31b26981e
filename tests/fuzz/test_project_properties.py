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
from support.fuzz_support import Chooser, SeededChooser

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
    """One schema, its two projections and the validators (jsonschema is the oracle)."""

    def __init__(self, where: str, schema: Any, dialect: str, output: bool) -> None:
        import jsonschema

        from toolcat.project.lower import EXACT, lower_schema

        self.where = where
        self.schema = schema
        default = jsonschema.Draft202012Validator
        cls = jsonschema.validators.validator_for(schema, default=default)
        self.orig = cls(schema)
        self.modes = []
        kwargs = [("exact", {"subset": False, "factor": True})]
        if not output:
            kwargs.append(("widen", {"subset": True, "unlowerable": "widen"}))
        for name, kw in kwargs:
            res = lower_schema(schema, dialect, pointer="", **kw)
            exact = all(c.kind == EXACT for c in res.changes)
            p = res.schema
            if isinstance(schema, dict) and "$schema" in schema and isinstance(p, dict) \
                    and "$schema" not in p:
                vs = [jsonschema.Draft7Validator(p), jsonschema.Draft202012Validator(p)]
            else:
                vs = [jsonschema.validators.validator_for(p, default=default)(p)]
            self.modes.append((name, exact, vs, p, kw.get("subset", False)))


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

_FORMATS = {
    "date-time": "2024-05-06T07:08:09Z", "date": "2024-05-06", "time": "07:08:09Z",
    "email": "a@example.com", "uri": "https://example.com/x", "uuid":
    "123e4567-e89b-12d3-a456-426614174000", "ipv4": "192.0.2.1", "hostname": "example.com",
}
_ALPHABET = "ab Z0_-é😀"


class HypChooser(Chooser):
    """Choices drawn by Hypothesis (shrinkable, reproducible), with text and regex."""

    def text(self, lo: int, hi: int) -> str:
        return self.draw(st.text(alphabet=_ALPHABET, min_size=lo, max_size=hi))

    def regex(self, pattern: str) -> str:
        return self.draw(st.from_regex(pattern).filter(lambda x: len(x) < 60))


class RandomChooser(SeededChooser):
    """The same choices from a seeded random generator (a sweep over every schema)."""

    def text(self, lo: int, hi: int) -> str:
        return "".join(self.r.choice(_ALPHABET) for _ in range(self.r.randint(lo, hi)))

    def regex(self, pattern: str) -> str:
        raise ValueError("no regex generation in the sweep")


def scalar(c) -> Any:
    k = c.int(0, 4)
    if k == 0:
        return None
    if k == 1:
        return bool(c.int(0, 1))
    if k == 2:
        return c.int(-5, 5)
    if k == 3:
        return c.int(-10, 10) + 0.25
    return c.text(0, 5)


def _resolve(root: Any, ref: str) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return {}
    node = root
    for tok in [t.replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")] if \
            ref not in ("#", "#/") else []:
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return {}
    return node


def _guess_type(s: dict) -> str | None:
    t = s.get("type")
    if isinstance(t, str):
        return t
    if isinstance(t, list) and t:
        return None
    if "properties" in s or "required" in s or "additionalProperties" in s:
        return "object"
    if "items" in s or "prefixItems" in s:
        return "array"
    if any(k in s for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(k in s for k in ("minimum", "maximum", "exclusiveMinimum", "multipleOf")):
        return "number"
    return None


def gen(c, s: Any, root: Any, depth: int = 0) -> Any:
    if depth > 6 or s is True or s is False or not isinstance(s, dict):
        return scalar(c)
    if isinstance(s.get("$ref"), str):
        return gen(c, _resolve(root, s["$ref"]), root, depth + 1)
    if "const" in s and c.int(0, 4):
        return s["const"]
    if isinstance(s.get("enum"), list) and s["enum"] and c.int(0, 5):
        return c.pick(s["enum"])
    for comb in ("anyOf", "oneOf"):
        if isinstance(s.get(comb), list) and s[comb]:
            branch = c.pick(s[comb])
            rest = {k: v for k, v in s.items() if k != comb}
            if isinstance(branch, dict):
                merged = {**rest, **branch}
                if "properties" in rest and "properties" in branch:
                    merged["properties"] = {**rest["properties"], **branch["properties"]}
                return gen(c, merged, root, depth + 1)
    if isinstance(s.get("allOf"), list) and s["allOf"]:
        merged = {k: v for k, v in s.items() if k != "allOf"}
        for b in s["allOf"]:
            if isinstance(b, dict):
                b = _resolve(root, b["$ref"]) if isinstance(b.get("$ref"), str) else b
                if isinstance(b, dict):
                    props = {**merged.get("properties", {}), **b.get("properties", {})}
                    req = list(merged.get("required", [])) + list(b.get("required", []))
                    merged = {**merged, **b, "properties": props, "required": req}
        return gen(c, merged, root, depth + 1)
    t = s.get("type")
    if isinstance(t, list) and t:
        t = c.pick(t)
    if not isinstance(t, str):
        t = _guess_type(s) or c.pick(["string", "integer", "object", "null"])
    if t == "object":
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        req = [r for r in s.get("required", []) if isinstance(r, str)] \
            if isinstance(s.get("required"), list) else []
        out = {}
        for name in list(dict.fromkeys(req + list(props))):
            if name in req or c.int(0, 2) == 0:
                out[name] = gen(c, props.get(name, {}), root, depth + 1)
        return out
    if t == "array":
        lo = s.get("minItems", 0) if isinstance(s.get("minItems"), int) else 0
        hi = s.get("maxItems", lo + 3) if isinstance(s.get("maxItems"), int) else lo + 3
        n = c.int(lo, max(lo, min(hi, lo + 3)))
        items = s.get("items", {})
        if isinstance(s.get("prefixItems"), list):
            pre = s["prefixItems"]
            return [gen(c, pre[i] if i < len(pre) else items, root, depth + 1)
                    for i in range(n)]
        return [gen(c, items if not isinstance(items, list) else {}, root, depth + 1)
                for _ in range(n)]
    if t == "string":
        fmt = s.get("format")
        if fmt in _FORMATS and c.int(0, 3):
            return _FORMATS[fmt]
        if isinstance(s.get("pattern"), str) and c.int(0, 3):
            try:
                return c.regex(s["pattern"])
            except Exception:  # noqa: BLE001 - a pattern Python's re cannot read
                pass
        lo = s.get("minLength", 0) if isinstance(s.get("minLength"), int) else 0
        hi = s.get("maxLength", lo + 8) if isinstance(s.get("maxLength"), int) else lo + 8
        return c.text(lo, max(lo, min(hi, lo + 8)))
    if t in ("integer", "number"):
        lo = s.get("minimum", s.get("exclusiveMinimum"))
        hi = s.get("maximum", s.get("exclusiveMaximum"))
        lo = int(lo) if isinstance(lo, (int, float)) and not isinstance(lo, bool) else -100
        hi = int(hi) if isinstance(hi, (int, float)) and not isinstance(hi, bool) else lo + 200
        v = c.int(lo, max(lo, hi))
        return v if t == "integer" or c.int(0, 1) else v + 0.5
    if t == "boolean":
        return bool(c.int(0, 1))
    if t == "null":
        return None
    return scalar(c)


def mutate(c, v: Any, depth: int = 0) -> Any:
    """One random change somewhere in ``v``."""
    if isinstance(v, dict) and v and depth < 4 and c.int(0, 2):
        k = c.pick(sorted(v))
        out = dict(v)
        op = c.int(0, 3)
        if op == 0:
            del out[k]
        elif op == 1:
            out["zz_unknown"] = scalar(c)
        else:
            out[k] = mutate(c, v[k], depth + 1)
        return out
    if isinstance(v, list) and v and depth < 4 and c.int(0, 2):
        i = c.int(0, len(v) - 1)
        out = list(v)
        op = c.int(0, 2)
        if op == 0:
            del out[i]
        elif op == 1:
            out.append(out[i])
        else:
            out[i] = mutate(c, v[i], depth + 1)
        return out
    k = c.int(0, 5)
    if k == 0:
        return {}
    if k == 1:
        return []
    if k == 2:
        return c.int(-10**6, 10**6)
    if k == 3:
        return c.text(50, 80)
    return scalar(c)


# --------------------------------------------------------------------------- the property


def _outcome(v, data) -> str:
    try:
        return "valid" if v.is_valid(data) else "invalid"
    except Exception as e:  # noqa: BLE001
        return f"error:{type(e).__name__}"


GROUPS = ["github", "neo", "captures"]


def _check(case: Case, c, counts: dict) -> None:
    inst = gen(c, case.schema, case.schema)
    for x in (inst, mutate(c, inst)):
        before = _outcome(case.orig, x)
        counts["instances"] += 1
        counts["valid"] += before == "valid"
        for name, exact, vs, projected, subset in case.modes:
            if subset and not isinstance(x, dict):
                continue  # the subset's top level is exact for tool arguments (objects) only
            for v in vs:
                after = _outcome(v, x)
                if exact:
                    assert after == before, (case.where, name, x, before, after,
                                             json.dumps(projected)[:400])
                elif before == "valid":
                    assert after == "valid", (case.where, name, x, after,
                                              json.dumps(projected)[:400])


@pytest.mark.parametrize("group", GROUPS)
def test_projection_keeps_verdicts(group: str) -> None:
    """Every schema of the group: a seeded sweep (8 instances and their mutants each), then
    Hypothesis explores (it picks the schema too, so failures shrink to one schema)."""
    cases = _cases(group)
    assert cases
    counts = {"instances": 0, "valid": 0}
    for i, case in enumerate(cases):
        for seed in range(8):
            _check(case, RandomChooser(seed * 7919 + i), counts)

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
    from toolcat.project.lower import lower_schema

    for case in _cases("captures") + _cases("github"):
        for name, exact, _vs, _p, subset in case.modes:
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
    from toolcat.project.lower import lower_schema, subset_violations

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
    from toolcat.project.lower import EXACT, lower_schema

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

    from toolcat.project.lower import lower_schema

    def what(s) -> str:
        return " ".join(c.what for c in lower_schema(s, "2020-12", factor=True).changes)

    for dialect in ("2020-12", "draft7"):
        find(_gen_schema(dialect), lambda s: "identical subschemas" in what(s),
             settings=settings(database=None, max_examples=2000))
        for label in ("additionalProperties: true", "items: true", "type implied",
                      "required: []", "minItems: 0", "uniqueItems: false", "empty properties"):
            find(_gen_schema(dialect), lambda s, lab=label: lab in what(s),
                 settings=settings(database=None, max_examples=2000))
