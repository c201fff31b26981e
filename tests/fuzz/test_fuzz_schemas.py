"""Generated JSON Schemas with generated instances: projection keeps every verdict.

A grammar over the 2020-12 keywords (and draft-07 variants: ``definitions``, tuple ``items``
+ ``additionalItems``, ``dependencies``, keywords beside ``$ref`` ignored) builds schemas with
nested properties/items/prefixItems, allOf/anyOf/oneOf/not, if/then/else, ``$defs`` + ``$ref``
(recursive ones too, and ``$anchor`` refs), enum/const with odd values, patternProperties,
propertyNames, dependentSchemas/dependentRequired, unevaluated*, bounds, formats, contains,
boolean schemas, property names that are keyword names, and prose everywhere.

Each schema is the inputSchema (and outputSchema) of a one-tool MCP catalog, loaded by
toolcat's loader and projected with :func:`toolcat.features.project.project_catalogs` for every
target: mcp, openai, anthropic, bedrock (exact rewrites only, or the compact subset with
``--subset``), openwop (the subset, under each ``--unlowerable`` policy).

Instances come from a simple generator guided by the schema (valid-looking values) and
mutations of them (a key dropped or added, another type, a bound crossed, null). The oracles
are python-jsonschema with the *same* format checker on both sides, and (for the seeded
sweep's schemas) Ajv as the MCP SDKs run it (support/differential.py: every engine that reads
the original). Property: the projected schema gives every instance the original's verdict,
unless the report lists a ``widened`` (or ``omitted``) change under the schema's pointer, in
which case every instance the original accepts is still accepted. Tool arguments are objects,
so the inputSchema is compared on object instances (the compact subset's top-level floor and
the MCP ``type: "object"`` are exact only there); the MCP outputSchema on objects too (a
tool's ``structuredContent`` is one), or, where the projection wrapped a non-object output
schema (SEP-2106), each instance ``x`` as ``{"result": x}``.

(hypothesis-jsonschema was tried: 0.23.1 fails on current Hypothesis and ignores the 2020-12
applicators, so the instance generator is this module's own.)

A failure prints the schema, the instance, both verdicts, the projected schema and the report.
"""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.fuzz_profile import examples, is_long
from support.fuzz_support import Chooser, SeededChooser

DRAFT7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"

NAMES = ["a", "b", "c", "id", "é", "x-y", "type", "properties", "$ref", "description",
         "enum", "items", "0", ""]
PATTERNS = ["^a", "b$", "^[a-z]+$", "\\d", "^x-", ".*", "^$", "é", "^[0-9]{2,3}$", "[A-Z]"]
FORMATS = ["date-time", "date", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname",
           "regex", "duration", "json-pointer", "no-such-format"]
FORMAT_SAMPLES = {
    "date-time": "2024-05-06T07:08:09Z", "date": "2024-05-06", "time": "07:08:09Z",
    "email": "a@example.com", "uri": "https://example.com/x",
    "uuid": "123e4567-e89b-12d3-a456-426614174000", "ipv4": "192.0.2.1", "ipv6": "::1",
    "hostname": "example.com", "regex": "^a+$", "duration": "P1D", "json-pointer": "/a/0",
}
PATTERN_SAMPLES = {"^a": "abc", "b$": "ab", "^[a-z]+$": "xyz", "\\d": "a1", "^x-": "x-1",
                   ".*": "", "^$": "", "é": "café", "^[0-9]{2,3}$": "123", "[A-Z]": "aB"}
ODD_VALUES = [None, True, False, 0, 1, -1, 1.0, 1.5, 2**53 + 1, -0.0, 1e308, "", "a", "é",
              "\u0000", "1", [], [1, "a"], {}, {"a": 1}, {"": None}, [[]], "null", 0.1]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
PROSE = {"description": "Some prose.", "title": "T", "examples": [1, "x"], "$comment": "c",
         "x-note": {"type": "string"}, "default": {"a": 1}, "deprecated": False,
         "readOnly": False, "writeOnly": False}


# --------------------------------------------------------------------------- the grammar

class Ctx:
    def __init__(self, dialect: str) -> None:
        self.dialect = dialect                # "2020-12" | "draft7"
        self.defs_key = "$defs" if dialect == "2020-12" else "definitions"
        self.def_names = ["A", "B", "Node"]
        self.anchors: list[str] = []

    @property
    def modern(self) -> bool:
        return self.dialect == "2020-12"


def gen_schema(c: Chooser, ctx: Ctx, depth: int) -> Any:
    if depth <= 0 or c.bool(0.12):
        return c.pick([True, False, {}, {"type": c.pick(TYPES)}, {"const": c.pick(ODD_VALUES)},
                       {"enum": c.sample(ODD_VALUES, 1, 4)}, {"$ref": ref_to(c, ctx)}])
    s: dict = {}
    for _ in range(c.pick([1, 1, 2, 2, 3, 4])):
        fragment(c, ctx, depth, s)
    if c.bool(0.35):
        for k in c.sample(PROSE, 1, 3):
            s[k] = PROSE[k]
    return s


def ref_to(c: Chooser, ctx: Ctx) -> str:
    r = c.int(0, 9)
    if r == 0 and ctx.anchors and ctx.modern:
        return "#" + c.pick(ctx.anchors)
    if r == 1:
        return "#"
    return f"#/{ctx.defs_key}/{c.pick(ctx.def_names)}"


def fragment(c: Chooser, ctx: Ctx, depth: int, s: dict) -> None:
    def sub() -> Any:
        return gen_schema(c, ctx, depth - 1)

    kind = c.pick(["type", "type", "properties", "properties", "items", "combinator",
                   "combinator", "not", "if", "enum", "bounds", "string", "array-bounds",
                   "object-bounds", "ref", "ref", "pattern-props", "dependent", "unevaluated",
                   "contains", "format", "prose-only", "anchor", "nullable-union"])
    if kind == "type":
        t = c.sample(TYPES, 1, 3)
        s["type"] = t[0] if len(t) == 1 and c.bool(0.7) else t
    elif kind == "properties":
        s.setdefault("type", "object") if c.bool(0.6) else None
        s["properties"] = {n: sub() for n in c.sample(NAMES, 1, 3)}
        if c.bool(0.5):
            s["required"] = c.sample(NAMES, 1, 3)
        if c.bool(0.4):
            s["additionalProperties"] = c.pick([False, True, {"type": "string"}]) \
                if c.bool(0.7) else sub()
    elif kind == "items":
        if c.bool(0.6):
            s["type"] = "array"
        if ctx.modern:
            if c.bool(0.7):
                s["prefixItems"] = [sub() for _ in range(c.int(1, 3))]
            s["items"] = sub() if c.bool(0.8) else c.pick([False, True])
        else:
            if c.bool(0.6):
                s["items"] = [sub() for _ in range(c.int(1, 3))]
                if c.bool(0.8):
                    s["additionalItems"] = c.pick([False, {"type": "integer"}])
            else:
                s["items"] = sub()
    elif kind == "combinator":
        k = c.pick(["allOf", "anyOf", "oneOf"])
        s[k] = [sub() for _ in range(c.int(1, 3))]
    elif kind == "not":
        s["not"] = sub()
    elif kind == "if":
        s["if"] = sub()
        if c.bool(0.8):
            s["then"] = sub()
        if c.bool(0.6):
            s["else"] = sub()
    elif kind == "enum":
        if c.bool(0.5):
            s["enum"] = c.sample(ODD_VALUES, 1, 5)
        else:
            s["const"] = c.pick(ODD_VALUES)
    elif kind == "bounds":
        s["type"] = c.pick(["integer", "number", ["integer", "null"]])
        for k in c.sample(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                           "multipleOf"], 1, 3):
            s[k] = (c.pick([0, 1, 2, 5, -3, 0.5, 10]) if k != "multipleOf"
                    else c.pick([1, 2, 0.5, 3]))
    elif kind == "string":
        s["type"] = "string"
        for k in c.sample(["minLength", "maxLength", "pattern"], 1, 2):
            s[k] = c.pick([0, 1, 3, 8]) if k != "pattern" else c.pick(PATTERNS)
    elif kind == "array-bounds":
        for k in c.sample(["minItems", "maxItems", "uniqueItems"], 1, 2):
            s[k] = c.pick([0, 1, 2]) if k != "uniqueItems" else c.bool()
    elif kind == "object-bounds":
        for k in c.sample(["minProperties", "maxProperties", "propertyNames"], 1, 2):
            s[k] = c.pick([0, 1, 2]) if k != "propertyNames" else c.pick(
                [{"pattern": c.pick(PATTERNS)}, {"maxLength": 2}, sub()])
    elif kind == "ref":
        s["$ref"] = ref_to(c, ctx)
    elif kind == "pattern-props":
        s["patternProperties"] = {c.pick(PATTERNS): sub() for _ in range(c.int(1, 2))}
    elif kind == "dependent":
        if ctx.modern:
            if c.bool():
                s["dependentRequired"] = {c.pick(NAMES): c.sample(NAMES, 0, 2)}
            else:
                s["dependentSchemas"] = {c.pick(NAMES): sub()}
        else:
            s["dependencies"] = {c.pick(NAMES): c.sample(NAMES, 0, 2) if c.bool() else sub()}
    elif kind == "unevaluated":
        if ctx.modern:
            k = c.pick(["unevaluatedProperties", "unevaluatedItems"])
            s[k] = c.pick([False, {"type": "string"}]) if c.bool(0.7) else sub()
        else:
            s["additionalProperties"] = False
    elif kind == "contains":
        s["contains"] = sub()
        if ctx.modern and c.bool(0.5):
            s["minContains"] = c.pick([0, 1, 2])
        if ctx.modern and c.bool(0.3):
            s["maxContains"] = c.pick([1, 2])
    elif kind == "format":
        s["format"] = c.pick(FORMATS)
        if c.bool(0.6):
            s["type"] = "string"
    elif kind == "anchor" and ctx.modern:
        name = f"an{len(ctx.anchors)}"
        s["$anchor"] = name
        ctx.anchors.append(name)
    elif kind == "nullable-union":
        s["anyOf"] = [{"type": c.pick(TYPES[1:])}, {"type": "null"}]
    else:
        s.update({k: PROSE[k] for k in c.sample(PROSE, 1, 2)})


def gen_root(c: Chooser) -> tuple[Any, str]:
    dialect = c.pick(["2020-12", "2020-12", "draft7"])
    ctx = Ctx(dialect)
    depth = c.pick([1, 2, 2, 3, 3, 4])
    root: dict = {"type": "object"} if c.bool(0.8) else {}
    root["properties"] = {n: gen_schema(c, ctx, depth) for n in c.sample(NAMES, 1, 4)}
    for _ in range(c.pick([0, 0, 1, 2])):
        fragment(c, ctx, depth, root)
    if c.bool(0.5):
        root["required"] = c.sample(NAMES, 1, 3)
    defs = {}
    for name in ctx.def_names:
        if name == "Node":   # a recursive definition: a tree
            defs[name] = {"type": "object", "properties": {
                "value": gen_schema(c, ctx, 1),
                "children": {"type": "array", "items": {"$ref": f"#/{ctx.defs_key}/Node"}}}}
            if c.bool(0.3):
                defs[name]["additionalProperties"] = False
        else:
            defs[name] = gen_schema(c, ctx, max(1, depth - 1))
    root[ctx.defs_key] = defs
    if dialect == "draft7" or c.bool(0.3):
        root = {"$schema": DRAFT7 if dialect == "draft7" else D2020, **root}
    return root, dialect


# --------------------------------------------------------------------------- instances

def _resolve(root: Any, ref: str) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        # an anchor: find it
        name = ref[1:]
        todo = [root]
        while todo:
            n = todo.pop()
            if isinstance(n, dict):
                if n.get("$anchor") == name:
                    return n
                todo.extend(n.values())
            elif isinstance(n, list):
                todo.extend(n)
        return None
    node = root
    for tok in ref[2:].split("/"):
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        else:
            return None
    return node


def gen_instance(c: Chooser, root: Any, s: Any, depth: int = 0) -> Any:
    if depth > 6 or not isinstance(s, dict):
        return c.pick(ODD_VALUES) if (s is not False or c.bool()) else None
    if "$ref" in s and c.bool(0.8):
        target = _resolve(root, s["$ref"])
        if target is not None:
            return gen_instance(c, root, target, depth + 1)
    if "const" in s and c.bool(0.8):
        return s["const"]
    if isinstance(s.get("enum"), list) and s["enum"] and c.bool(0.8):
        return c.pick(s["enum"])
    for k in ("allOf", "anyOf", "oneOf"):
        if isinstance(s.get(k), list) and s[k] and c.bool(0.4):
            return gen_instance(c, root, c.pick(s[k]), depth + 1)
    t = s.get("type")
    if isinstance(t, list) and t:
        t = c.pick(t)
    if t is None:
        if "properties" in s or "required" in s:
            t = "object"
        elif "items" in s or "prefixItems" in s:
            t = "array"
        elif any(k in s for k in ("minLength", "maxLength", "pattern", "format")):
            t = "string"
        elif any(k in s for k in ("minimum", "maximum", "multipleOf")):
            t = "number"
        else:
            t = c.pick(TYPES)
    if t == "object":
        out = {}
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        req = s.get("required") if isinstance(s.get("required"), list) else []
        for name in list(props) + [r for r in req if r not in props]:
            if name in req or c.bool(0.6):
                out[name] = gen_instance(c, root, props.get(name, {}), depth + 1)
        return out
    if t == "array":
        prefix = s.get("prefixItems") if isinstance(s.get("prefixItems"), list) else None
        items = s.get("items")
        if isinstance(items, list):
            prefix, items = items, s.get("additionalItems", {})
        out = [gen_instance(c, root, p, depth + 1) for p in (prefix or [])][:c.int(0, 3)]
        for _ in range(c.int(0, 2)):
            out.append(gen_instance(c, root, items if isinstance(items, dict) else {}, depth + 1))
        return out
    if t == "string":
        if s.get("format") in FORMAT_SAMPLES and c.bool(0.8):
            return FORMAT_SAMPLES[s["format"]]
        if s.get("pattern") in PATTERN_SAMPLES and c.bool(0.8):
            return PATTERN_SAMPLES[s["pattern"]]
        return c.pick(["", "a", "abc", "é", "x-1", "2024-05-06", "a" * 10])
    if t in ("integer", "number"):
        cands = [0, 1, 2, 3, -1, 10, 100]
        for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(s.get(k), (int, float)) and not isinstance(s.get(k), bool):
                cands += [s[k], s[k] + 1, s[k] - 1]
        if t == "number":
            cands += [0.5, 1.25]
        return c.pick(cands)
    if t == "boolean":
        return c.bool()
    return None


def mutate(c: Chooser, x: Any) -> Any:
    op = c.int(0, 6)
    if op == 0:
        return c.pick(ODD_VALUES)
    if isinstance(x, dict):
        x = dict(x)
        if op == 1 and x:
            del x[c.pick(list(x))]
        elif op == 2:
            x[c.pick(NAMES)] = c.pick(ODD_VALUES)
        elif op == 3 and x:
            k = c.pick(list(x))
            x[k] = mutate(c, x[k])
        return x
    if isinstance(x, list):
        x = list(x)
        if op == 1 and x:
            x.pop()
        elif op == 2:
            x.append(c.pick(ODD_VALUES))
        elif op == 3 and x:
            i = c.int(0, len(x) - 1)
            x[i] = mutate(c, x[i])
        elif op == 4:
            x = x + x
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return c.pick([x + 1, x - 1, -x, x * 1000, 0.5, str(x)])
    if isinstance(x, str):
        return c.pick([x + "Z", "", x * 3, 1, None])
    return c.pick(ODD_VALUES)


# --------------------------------------------------------------------------- the oracle

@lru_cache(maxsize=1)
def _format_checker():
    import jsonschema

    return jsonschema.FormatChecker()


def _validators(schema: Any, declared: str | None) -> list:
    import jsonschema

    fc = _format_checker()
    if isinstance(schema, dict) and "$schema" in schema:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        return [cls(schema, format_checker=fc)]
    if declared is not None:
        # the projection dropped $schema: it must mean the same under both dialects
        return [jsonschema.Draft7Validator(schema, format_checker=fc),
                jsonschema.Draft202012Validator(schema, format_checker=fc)]
    return [jsonschema.Draft202012Validator(schema, format_checker=fc)]


def verdict(v, x: Any) -> str:
    """valid / invalid, from *every* keyword's errors (not only up to the first): a schema
    that loops without consuming the instance (``if: {$ref: <its own node>}``) then shows as
    "recursion" whatever order its keywords are in, and such an original is left out."""
    try:
        errors = list(v.iter_errors(x))
    except RecursionError:
        return "recursion"
    except Exception as e:  # noqa: BLE001 - unresolvable refs, bad regex...: an outcome too
        return f"error:{type(e).__name__}"
    except BaseException as e:
        # jsonschema's type checks go through rpds (Rust): a RecursionError inside becomes a
        # pyo3 PanicException (a BaseException)
        if type(e).__name__ == "PanicException":
            return "recursion"
        raise
    return "invalid" if errors else "valid"


# --------------------------------------------------------------------------- projection

MODES = [
    ("mcp", {}), ("openai", {}), ("anthropic", {}),
    ("openwop", {}), ("openwop", {"unlowerable": "keep"}), ("openwop", {"unlowerable": "omit"}),
    ("openwop", {"unlowerable": "fail"}),
    ("mcp", {"subset": True}), ("anthropic", {"subset": True, "unlowerable": "keep"}),
    ("bedrock", {}),
]


def _schema_of(descriptor: dict, target: str, key: str = "input") -> Any:
    from toolcat.formats import targets as tg

    t = tg.get(target)
    return t.get_schema(t.body(descriptor), 1 if key == "output" else 0, "absent")


_TMP = tempfile.mkdtemp(prefix="toolcat-schema-fuzz-")


def load_one(schema: Any) -> Any:
    from toolcat.formats import LoadOptions, load_catalogs

    p = Path(_TMP) / "one.tools.json"
    p.write_text(json.dumps({"tools": [{"name": "t", "description": "One tool.",
                                        "inputSchema": schema, "outputSchema": schema}]}))
    return load_catalogs([str(p)], LoadOptions())


def projections(cats) -> list[tuple[str, dict, Any, Any, list, bool]]:
    """(target, options, projected input schema, projected output schema, changes, failed).
    The MCP output schema is judged on objects (structuredContent is one), or when the
    projection wrapped it (a change of kind ``wrapped``) on ``{"result": x}``."""
    from toolcat.features.project import ProjectOptions, project_catalogs

    out = []
    for target, kw in MODES:
        proj = project_catalogs(cats, ProjectOptions(to=target, **kw))
        (pt,) = proj.tools
        out.append((target, kw, _schema_of(pt.descriptor, target),
                    _schema_of(pt.descriptor, target, "output") if target == "mcp" else "absent",
                    [c.as_dict() for c in pt.changes], pt.failed))
    return out


def _wrapped(changes: list) -> bool:
    return any(ch["kind"] == "wrapped" and ch["pointer"] == "/outputSchema" for ch in changes)


def _lossy(changes: list, prefix: str) -> bool:
    return any(ch["kind"] in ("widened", "omitted") and
               (ch["pointer"] == prefix or ch["pointer"].startswith(prefix + "/"))
               for ch in changes)


STATS = {"schemas": 0, "instances": 0, "valid": 0, "invalid": 0, "widened": 0, "checks": 0,
         "degenerate": 0}


def _reversed_keys(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _reversed_keys(v) for k, v in reversed(list(x.items()))}
    if isinstance(x, list):
        return [_reversed_keys(v) for v in x]
    return x


_INPLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")


def _inplace_cycle(schema: Any) -> bool:
    """Whether the schema can reach itself through references and in-place applicators only
    (allOf, not, if, $ref...: no step into the instance). Evaluating such a schema loops
    unless a validator happens to stop early: its verdicts are undefined."""
    def edges(node: Any) -> list:
        out = []
        if not isinstance(node, dict):
            return out
        if "$ref" in node:
            t = _resolve(schema, node["$ref"])
            if t is not None:
                out.append(t)
        for k in _INPLACE:
            v = node.get(k)
            if isinstance(v, list):
                out.extend(v)
            elif k == "dependentSchemas" and isinstance(v, dict):
                out.extend(v.values())
            elif isinstance(v, dict):
                out.append(v)
        return out

    nodes: list = []
    todo = [schema]
    seen: set[int] = set()
    while todo:
        n = todo.pop()
        if isinstance(n, dict) and id(n) not in seen:
            seen.add(id(n))
            nodes.append(n)
            todo.extend(v for v in n.values() if isinstance(v, (dict, list)))
        elif isinstance(n, list):
            todo.extend(n)
    state: dict[int, int] = {}   # 1 on the path, 2 done

    def visit(n: Any) -> bool:
        stack = [(n, iter(edges(n)))]
        state[id(n)] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[id(node)] = 2
                stack.pop()
                continue
            if not isinstance(nxt, dict):
                continue
            st_ = state.get(id(nxt))
            if st_ == 1:
                return True
            if st_ is None:
                state[id(nxt)] = 1
                stack.append((nxt, iter(edges(nxt))))
        return False

    return any(state.get(id(n)) is None and visit(n) for n in nodes)


def _loops_when_reordered(schema: Any, x: Any) -> bool:
    """Whether the original schema loops on ``x`` when its keywords are evaluated in another
    order (jsonschema stops an applicator's subschema at its first error)."""
    import jsonschema

    r = _reversed_keys(schema)
    cls = jsonschema.validators.validator_for(r, default=jsonschema.Draft202012Validator)
    return verdict(cls(r, format_checker=_format_checker()), x) == "recursion"


def check_schema_case(c: Chooser, schema: Any, diff: Any = None) -> None:
    """The property on one schema (jsonschema here; given ``diff``, a
    :class:`support.differential.Differential`, each projection also goes to the Ajv judge)."""
    import jsonschema

    declared = schema.get("$schema") if isinstance(schema, dict) else None
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        return   # the grammar made an invalid schema (e.g. a bad combination): not the point
    orig = cls(schema, format_checker=_format_checker())
    cats = load_one(schema)
    STATS["schemas"] += 1
    projected = projections(cats)

    instances = []
    for _ in range(6):
        x = gen_instance(c, schema, schema)
        instances.append(x)
        instances.append(mutate(c, x))

    judged = [x for x in instances if verdict(orig, x) in ("valid", "invalid")]
    if diff is not None and judged and not _inplace_cycle(schema):
        from support.differential import Pair

        dialect = "draft7" if declared == DRAFT7 else "2020-12"
        for target, kw, p_in, p_out, changes, failed in projected:
            if failed:
                continue
            for where, p in (("/inputSchema", p_in), ("/outputSchema", p_out)):
                if p == "absent":
                    continue
                wrapped = where == "/outputSchema" and _wrapped(changes)
                diff.add(Pair(f"{target} {kw} {where}", schema, dialect, p, judged,
                              lossy=_lossy(changes, where), objects_only=not wrapped,
                              wrapped=wrapped))
    for x in instances:
        before = verdict(orig, x)
        if before not in ("valid", "invalid"):
            continue
        STATS["instances"] += 1
        STATS[before] += 1
        for target, kw, p_in, p_out, changes, failed in projected:
            if failed:
                assert kw.get("unlowerable") == "fail"
                continue
            wrapped = _wrapped(changes)
            for where, p, applies in (("/inputSchema", p_in, isinstance(x, dict)),
                                      ("/outputSchema", p_out, wrapped or isinstance(x, dict))):
                if p == "absent" or not applies:
                    if where == "/inputSchema" and p == "absent" and applies:
                        assert _lossy(changes, where), ("inputSchema dropped without an "
                                                        "omitted change", changes)
                    continue
                lossy = _lossy(changes, where)
                STATS["widened"] += lossy
                y = {"result": x} if where == "/outputSchema" and wrapped else x
                for v in _validators(p, declared):
                    after = verdict(v, y)
                    STATS["checks"] += 1
                    if after == "recursion" and (_inplace_cycle(schema)
                                                 or _loops_when_reordered(schema, x)):
                        # the original only escapes an endless loop (a $ref back to its own
                        # node under `if`...) thanks to its key order: undefined, left out
                        STATS["degenerate"] += 1
                        continue
                    ok = (after == before) if not lossy else (before != "valid" or after == "valid")
                    if not ok:
                        raise AssertionError(
                            f"projection changed a verdict ({target} {kw}, {where}, "
                            f"{'widened' if lossy else 'exact'}): {before} -> {after} under "
                            f"{type(v).__name__}\n"
                            f"schema:    {json.dumps(schema, ensure_ascii=False)}\n"
                            f"instance:  {json.dumps(x, ensure_ascii=False)}\n"
                            f"projected: {json.dumps(p, ensure_ascii=False)}\n"
                            f"report:    {json.dumps(changes, ensure_ascii=False)}")


FUZZ = dict(deadline=None, database=None, derandomize=not is_long(),
            suppress_health_check=list(HealthCheck))
CI_EXAMPLES = 200
CI_SWEEP = 150


SWEEP_PARTS = 3   # the seeded sweep in parts: xdist runs them beside the Hypothesis run


def _assert_both_sides(least: int) -> None:
    # the generators must reach both sides, or the property says little
    assert STATS["schemas"] > least, STATS
    assert STATS["valid"] > STATS["instances"] * 0.1, STATS
    assert STATS["invalid"] > STATS["instances"] * 0.1, STATS


def test_generated_schemas_keep_their_verdicts():
    """jsonschema judges every instance of each schema Hypothesis draws, before and after
    the projection (the seeded sweep below sends its pairs to Ajv too)."""
    STATS.update({k: 0 for k in STATS})

    @settings(max_examples=examples(CI_EXAMPLES), **FUZZ)
    @given(st.data())
    def run(data):
        c = Chooser(data)
        schema, _dialect = gen_root(c)
        check_schema_case(c, schema)

    run()
    print("\nschema fuzz:", STATS)
    _assert_both_sides(examples(CI_EXAMPLES) // 2)


@pytest.mark.parametrize("part", range(SWEEP_PARTS))
def test_seeded_schemas_keep_their_verdicts_under_ajv(ajv_judge, part):
    """A seeded sweep (uniform choices reach shapes Hypothesis' small-value lean rarely
    does): jsonschema judges every instance as it is drawn; Ajv (as the MCP SDKs run it)
    judges the same pairs in batches at the end (support/differential.py). Its schemas go to
    Ajv here, not in the Hypothesis run, whose shrinking would re-run the judge."""
    from support.differential import Differential

    STATS.update({k: 0 for k in STATS})
    diff = Differential(ajv_judge)
    seeds = range(part, examples(CI_SWEEP), SWEEP_PARTS)
    for seed in seeds:
        c = SeededChooser(seed)
        schema, _dialect = gen_root(c)
        check_schema_case(c, schema, diff)
    report = diff.run()
    print("\nschema sweep:", STATS, "\nAjv:", report.line())
    assert not report.failures, f"{len(report.failures)} failures:\n" + \
        "\n".join(report.failures[:20])
    assert report.counts["sdk"]["instances"] > 1000 // SWEEP_PARTS, report.line()
    _assert_both_sides(len(seeds) // 2)


@pytest.mark.parametrize("draft", ["2020-12", "draft7"])
def test_grammar_covers_the_keywords(draft):
    """The grammar reaches every keyword it is meant to (a guard against a silent narrowing;
    seeded, so that it does not depend on how Hypothesis leans)."""
    seen: set = set()
    for seed in range(200):
        s = gen_schema(SeededChooser(seed), Ctx(draft), 3)
        todo = [s]
        while todo:
            n = todo.pop()
            if isinstance(n, dict):
                seen.update(k for k in n if isinstance(k, str))
                todo.extend(n.values())
            elif isinstance(n, list):
                todo.extend(n)

    want = {"type", "properties", "required", "additionalProperties", "items", "allOf", "anyOf",
            "oneOf", "not", "if", "then", "else", "enum", "const", "minimum", "maximum",
            "exclusiveMinimum", "multipleOf", "minLength", "maxLength", "pattern", "minItems",
            "maxItems", "uniqueItems", "minProperties", "propertyNames", "$ref",
            "patternProperties", "contains", "format", "description", "title", "examples"}
    if draft == "2020-12":
        want |= {"prefixItems", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
                 "unevaluatedItems", "$anchor", "minContains"}
    else:
        want |= {"dependencies", "additionalItems"}
    assert want <= seen, sorted(want - seen)


# --------------------------------------------------------------------------- found by the fuzzer


REGRESSIONS = [
    # the top-level floor added type "object" at a root that `#` refers to: {"b": null}
    # became invalid (schema/lower/subset.py `object_floor`)
    ({"properties": {"a": {"properties": {"a": True}}, "b": {"$ref": "#"}}},
     [{"b": None}, {"b": {"b": 1}}, {"b": 1}, {}]),
    ({"$anchor": "top", "properties": {"b": {"$ref": "#top"}}}, [{"b": None}, {"b": "x"}]),
    # `not: {}` lowered to false lost the $anchor a kept `$ref` resolves through
    ({"type": "object", "properties": {
        "a": {"$anchor": "an0", "not": {}},
        "b": {"if": {"$ref": "#an0"}, "then": {"type": "string"}},
        "c": {"$anchor": "an1", "allOf": [True]}, "d": {"$ref": "#an1"}}},
     [{"b": 1}, {"b": "x"}, {"a": 1}, {"d": 2}]),
    # draft-07: a kept $ref node is its target; `not: {}` beside it was lowered to false
    ({"$schema": DRAFT7, "type": "object", "properties": {
        "a": {"if": {"$ref": "#/definitions/A", "not": {}}, "then": True, "else": False},
        "b": {"$ref": "#/definitions/A"}, "c": {"$ref": "#/definitions/A"}},
      "definitions": {"A": {"type": "object", "additionalProperties": False,
                            "properties": {"zz": {"type": "string", "maxLength": 3}}}}},
     [{"a": {}}, {"a": {"q": 1}}, {"b": {"zz": "abcd"}}]),
    # widen: unevaluatedProperties dropped (something else was widened) inside an `if`
    ({"type": "object", "properties": {
        "x": {"if": {"properties": {"a": {}}, "unevaluatedProperties": False},
              "then": {"required": ["zz"]}},
        "y": {"not": {"const": 1}}}},
     [{"x": {"a": 1, "b": 2}}, {"x": {"a": 1}}, {"y": 1}]),
    # draft-07 widen: a recursive $ref to a node that holds a $ref itself was replaced by that
    # node's (inert) type
    ({"$schema": DRAFT7, "type": "object", "properties": {"x": {"$ref": "#/definitions/A"}},
      "definitions": {"A": {"$ref": "#", "type": "integer"}}},
     [{"x": {"x": {}}}, {"x": {"x": {"x": 1}}}, {"x": 1}]),
    # draft-07: inlining a root $ref dropped the root's $schema (tuple `items` then read as
    # 2020-12)
    ({"$schema": DRAFT7, "type": "object", "$ref": "#/definitions/A", "definitions": {
        "A": {"items": [True, False, {"type": "object"}], "additionalItems": False}}},
     [{"a": 1}, [1], [1, 2], [1, {}, 3]]),
    ({"$id": "https://example.com/s.json", "type": ["object", "null"],
      "properties": {"b": {"$ref": "https://example.com/s.json"}}}, [{"b": None}, {"b": 1}]),
]


@pytest.mark.parametrize("schema,instances", REGRESSIONS)
def test_regressions(schema, instances):
    """Each case through every mode, as in the property (inputSchema on objects, the MCP
    outputSchema on anything)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    orig = cls(schema, format_checker=_format_checker())
    declared = schema.get("$schema")
    for target, kw, p_in, p_out, changes, failed in projections(load_one(schema)):
        if failed:
            continue
        wrapped = _wrapped(changes)
        for where, p, objects_only in ((("/inputSchema", p_in, True),
                                        ("/outputSchema", p_out, not wrapped))):
            if p == "absent":
                continue
            lossy = _lossy(changes, where)
            for x in instances:
                if objects_only and not isinstance(x, dict):
                    continue
                before = verdict(orig, x)
                y = {"result": x} if where == "/outputSchema" and wrapped else x
                for v in _validators(p, declared):
                    after = verdict(v, y)
                    ok = (after == before) if not lossy else (before != "valid" or after == "valid")
                    assert ok, (target, kw, where, x, before, after, p, changes)
