"""Schema algebra for lowering: JSON equality, instance types, exact merges, superset joins.

Everything here works on schemas whose children are already processed (the lowering hook
calls it bottom-up). Nothing is mutated: every result is a fresh dict (data values such as
``enum`` lists may be shared).

* :func:`merge_and` -- one schema that accepts exactly what *both* schemas accept, or None
  when no such single schema can be written without combinators.
* :func:`merge_and_widen` -- like :func:`merge_and`, but drops the constraints of ``b`` that
  cannot be merged exactly: the result accepts a superset of ``a AND b`` (``widened`` is set).
* :func:`union_exact` -- ``anyOf``/``oneOf`` branches as one schema, exactly, or None.
* :func:`join` -- one schema that accepts a superset of ``anyOf`` the branches.

Which keyword does what comes from :mod:`toolcat.schema.keywords` (the per-dialect table), plus the
instance-type class of each type-specific keyword below.
"""

from __future__ import annotations

from math import gcd
from typing import Any, Iterable, NoReturn

from toolcat.schema.keywords import (
    CORE,
    DECLARATION_KEYWORDS,
    KEYWORDS,
    LEGACY_DIALECTS,
    MODERN_DIALECTS,
    REFERENCE_KEYWORDS,
    TUPLE_ITEMS_DIALECTS,
    VALIDATION,
    python_kind,
)

# ----------------------------------------------------------------------------- JSON values

ALL_ATOMS = frozenset(("null", "boolean", "object", "array", "string", "int", "frac"))
_TYPE_ATOMS = {
    "null": frozenset(("null",)),
    "boolean": frozenset(("boolean",)),
    "object": frozenset(("object",)),
    "array": frozenset(("array",)),
    "string": frozenset(("string",)),
    "integer": frozenset(("int",)),
    "number": frozenset(("int", "frac")),
}
_TYPE_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")


def jkey(v: Any) -> Any:
    """A hashable key with JSON equality: ``1 == 1.0``, ``true != 1``, deep for containers."""
    c = v.__class__       # (the plain JSON types first, by class: the hot path of merging)
    if c is str:
        return ("s", v)
    if c is dict:
        return ("o", frozenset([(k, jkey(x)) for k, x in v.items()]))
    if c is list:
        return ("a", tuple([jkey(x) for x in v]))
    if v is None:
        return ("z",)
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, (int, float)):
        return ("n", v)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, list):
        return ("a", tuple(jkey(x) for x in v))
    if isinstance(v, dict):
        return ("o", frozenset((k, jkey(x)) for k, x in v.items()))
    return ("?", repr(v))


def json_equal(a: Any, b: Any) -> bool:
    return a is b or jkey(a) == jkey(b)


def dedupe(values: Iterable[Any]) -> list:
    seen: set = set()
    out = []
    for v in values:
        k = jkey(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def value_atom(v: Any, dialect: str) -> str:
    """The type atom of a value: "int" and "frac" split JSON numbers (an integral float is an
    "int" after draft-04)."""
    k = python_kind(v)
    if k == "integer":
        return "int"
    if k == "number":
        return "int" if dialect != "draft4" and v.is_integer() else "frac"
    return k


def type_atoms(type_value: Any) -> frozenset | None:
    """Atoms admitted by a ``type`` value; None when the value is not a valid ``type``."""
    if isinstance(type_value, str):
        return _TYPE_ATOMS.get(type_value)
    if isinstance(type_value, list) and type_value:
        out: set = set()
        for t in type_value:
            a = _TYPE_ATOMS.get(t) if isinstance(t, str) else None
            if a is None:
                return None
            out |= a
        return frozenset(out)
    return None


def atoms_to_type(atoms: frozenset, order: Iterable[str] = ()) -> Any:
    """``type`` value admitting exactly ``atoms``; None when not expressible (empty, frac only)."""
    if not atoms:
        return None
    names: list[str] = []
    rest = set(atoms)
    if "frac" in rest:
        if "int" not in rest:
            return None
        names.append("number")
        rest -= {"int", "frac"}
    elif "int" in rest:
        names.append("integer")
        rest.discard("int")
    names.extend(t for t in ("object", "array", "string", "boolean", "null") if t in rest)
    # each name once (``order`` may repeat one: the two sides of a merge both name it; a
    # ``type`` list with repeats is invalid against every metaschema: uniqueItems)
    pref = [t for t in dict.fromkeys(order) if t in names]
    names = pref + [t for t in names if t not in pref]
    return names[0] if len(names) == 1 else names


def type_names(type_value: Any) -> list[str]:
    if isinstance(type_value, str):
        return [type_value]
    if isinstance(type_value, list):
        return [t for t in type_value if isinstance(t, str)]
    return []


# ----------------------------------------------------------------------------- keyword classes

NUMBER_ATOMS = frozenset(("int", "frac"))
STRING_ATOMS = frozenset(("string",))
OBJECT_ATOMS = frozenset(("object",))
ARRAY_ATOMS = frozenset(("array",))
# `format`: every format the specifications define is a string format; validators such as
# ajv-formats also define numeric ones (int32, double). It never applies to null, booleans,
# objects or arrays.
FORMAT_ATOMS = frozenset(("string", "int", "frac"))

KEYWORD_ATOMS: dict[str, frozenset] = {
    **{k: NUMBER_ATOMS for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                 "multipleOf")},
    **{k: STRING_ATOMS for k in ("minLength", "maxLength", "pattern")},
    "format": FORMAT_ATOMS,
    **{k: OBJECT_ATOMS for k in ("properties", "patternProperties", "additionalProperties",
                                 "required", "minProperties", "maxProperties", "propertyNames",
                                 "dependentRequired", "dependentSchemas", "dependencies",
                                 "unevaluatedProperties")},
    **{k: ARRAY_ATOMS for k in ("items", "prefixItems", "additionalItems", "contains",
                                "minContains", "maxContains", "minItems", "maxItems",
                                "uniqueItems", "unevaluatedItems")},
}
#: validation keywords that apply to every instance type
GENERIC = frozenset(("type", "enum", "const", "not", "allOf", "anyOf", "oneOf", "if", "then",
                     "else") + REFERENCE_KEYWORDS)
REFS = REFERENCE_KEYWORDS
UNEVALUATED = ("unevaluatedProperties", "unevaluatedItems")
# keyword groups whose members interact; a group is merged as a whole
PROPS_GROUP = ("properties", "patternProperties", "additionalProperties")
ITEMS_GROUP = ("prefixItems", "items", "additionalItems")
CONTAINS_GROUP = ("contains", "minContains", "maxContains")
IF_GROUP = ("if", "then", "else")
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
IDENTIFIERS = DECLARATION_KEYWORDS


#: keywords a dialect does not define that a real reader applies in it all the same: Ajv
#: (every class, Ajv2020 too, and so both MCP SDKs) applies draft-07's ``dependencies`` in a
#: 2019-09/2020-12 schema. For the letter of the dialect it is an unknown keyword, which no
#: rewrite may then treat as inert (merged away, or making a branch accept everything).
APPLIED_ANYWAY: dict[str, frozenset] = {d: frozenset(("dependencies",)) if d in MODERN_DIALECTS
                                        else frozenset() for d in KEYWORDS}


def validates(key: str, dialect: str) -> bool:
    """True when ``key`` changes what a schema of ``dialect`` accepts (for some real reader:
    :data:`APPLIED_ANYWAY`)."""
    kw = KEYWORDS[dialect].get(key)
    if kw is None:
        return key in APPLIED_ANYWAY[dialect]
    return kw.role == VALIDATION or (kw.role == CORE and key in REFS)


def is_trivial(s: Any, dialect: str) -> bool:
    """True for a schema that accepts everything (``true``, ``{}``, only annotations)."""
    if s is True:
        return True
    return isinstance(s, dict) and not any(validates(k, dialect) for k in s)


def schema_atoms(s: Any, dialect: str) -> frozenset:
    """Instance types a schema can accept (an over-approximation)."""
    if s is False:
        return frozenset()
    if not isinstance(s, dict):
        return ALL_ATOMS
    atoms = ALL_ATOMS
    if "type" in s:
        t = type_atoms(s["type"])
        if t is not None:
            atoms = atoms & t
    if "const" in s and validates("const", dialect):
        atoms = atoms & {value_atom(s["const"], dialect)}
    if isinstance(s.get("enum"), list):
        atoms = atoms & {value_atom(v, dialect) for v in s["enum"]}
    return frozenset(atoms)


def finite_values(s: dict, dialect: str) -> list | None:
    """The complete list of values a schema of only type/enum/const accepts, or None."""
    vals: list | None = None
    if "const" in s and validates("const", dialect):
        vals = [s["const"]]
    if isinstance(s.get("enum"), list):
        vals = list(s["enum"]) if vals is None else [v for v in vals if
                                                      any(json_equal(v, e) for e in s["enum"])]
    atoms = type_atoms(s["type"]) if "type" in s else ALL_ATOMS
    if atoms is None:
        return None
    if vals is None:
        if atoms <= {"null", "boolean"}:
            vals = ([None] if "null" in atoms else []) + ([True, False] if "boolean" in atoms else [])
            # keep the order the type names give
            return vals
        return None
    return [v for v in vals if value_atom(v, dialect) in atoms]


# ----------------------------------------------------------------------------- merge (AND)

class _NoMerge(Exception):
    pass


def _fail() -> NoReturn:
    raise _NoMerge


def merge_and(a: Any, b: Any, dialect: str) -> Any:
    """One schema equivalent to ``allOf: [a, b]`` without combinators, or None."""
    try:
        return _merge(a, b, dialect)
    except _NoMerge:
        return None


def _merge(a: Any, b: Any, dialect: str) -> Any:
    if a is True or (isinstance(a, dict) and not a):
        return _copy(b)
    if b is True or (isinstance(b, dict) and not b):
        return _copy(a)
    if a is False or b is False:
        return False
    if not isinstance(a, dict) or not isinstance(b, dict):
        _fail()
    # every keyword beside a `$ref` is ignored before 2019-09 (even `$id`): nothing can join
    # such a node but prose
    if dialect in LEGACY_DIALECTS:
        if ("$ref" in a and _substantive(b, dialect)) or ("$ref" in b and _substantive(a, dialect)):
            _fail()
    for k in UNEVALUATED:
        if (k in a and validates(k, dialect)) or (k in b and validates(k, dialect)):
            _fail()
    for k in IDENTIFIERS:
        if k in b and (k not in a or not json_equal(a[k], b[k])):
            _fail()
    out: dict = {}
    done: set = set()
    # interacting groups first (their keys are written in a's order below)
    group_vals: dict[str, Any] = {}
    for group, fn in ((PROPS_GROUP, _merge_props), (ITEMS_GROUP, _merge_items),
                      (CONTAINS_GROUP, None), (IF_GROUP, None)):
        ga = {k: a[k] for k in group if k in a and validates(k, dialect)}
        gb = {k: b[k] for k in group if k in b and validates(k, dialect)}
        done.update(ga)
        done.update(gb)
        if not gb:
            group_vals.update(ga)
        elif not ga:
            group_vals.update(gb)
        elif json_equal(ga, gb):
            group_vals.update(ga)
        elif fn is None:
            _fail()
        else:
            group_vals.update(fn(ga, gb, dialect))
    for key, va in a.items():
        if key in done:
            if key in group_vals:
                out[key] = group_vals.pop(key)
            continue
        if key not in b:
            out[key] = va
            continue
        out[key] = _merge_key(key, va, b[key], dialect)
    for key, vb in b.items():
        if key in done:
            if key in group_vals:
                out[key] = group_vals.pop(key)
            continue
        if key not in a:
            out[key] = vb
    out.update(group_vals)  # group keys neither side spelled (e.g. merged items)
    if "enum" in out and "const" in out and validates("const", dialect):
        c = out["const"]
        if not any(json_equal(c, v) for v in out["enum"]):
            _fail()
        del out["enum"]
    return out


def _substantive(s: dict, dialect: str) -> bool:
    return any(validates(k, dialect) or k in IDENTIFIERS or k in ("$defs", "definitions")
               for k in s)


def _copy(s: Any) -> Any:
    return dict(s) if isinstance(s, dict) else s


def _merge_key(key: str, va: Any, vb: Any, dialect: str) -> Any:
    if json_equal(va, vb):
        return va
    if not validates(key, dialect):
        if key in ("$defs", "definitions") and isinstance(va, dict) and isinstance(vb, dict):
            merged = dict(va)
            merged.update((k, v) for k, v in vb.items() if k not in va)
            return merged
        return va  # annotations and unknown keywords do not change what is accepted
    if key == "type":
        ta, tb = type_atoms(va), type_atoms(vb)
        if ta is None or tb is None:
            _fail()
        t = atoms_to_type(ta & tb, type_names(va) + type_names(vb))
        return t if t is not None else _fail()
    if key == "enum":
        if not isinstance(va, list) or not isinstance(vb, list):
            _fail()
        keys_b = {jkey(v) for v in vb}
        vals = [v for v in va if jkey(v) in keys_b]
        return vals if vals else _fail()
    if key == "const":
        _fail()
    if key == "required":
        if not isinstance(va, list) or not isinstance(vb, list):
            _fail()
        return dedupe(list(va) + list(vb))
    if key in LOWER_BOUNDS or key in UPPER_BOUNDS:
        if not _is_num(va) or not _is_num(vb):
            _fail()
        return max(va, vb) if key in LOWER_BOUNDS else min(va, vb)
    if key == "multipleOf":
        if isinstance(va, int) and isinstance(vb, int) and not isinstance(va, bool) \
                and not isinstance(vb, bool) and va > 0 and vb > 0:
            return va * vb // gcd(va, vb)
        _fail()
    if key == "uniqueItems":
        if isinstance(va, bool) and isinstance(vb, bool):
            return va or vb
        _fail()
    if key == "propertyNames":
        return _merge(va, vb, dialect)
    if key == "allOf":
        if isinstance(va, list) and isinstance(vb, list):
            return list(va) + list(vb)
        _fail()
    if key == "dependentRequired":
        if isinstance(va, dict) and isinstance(vb, dict):
            out = dict(va)
            for k, v in vb.items():
                if k in out:
                    if not isinstance(out[k], list) or not isinstance(v, list):
                        _fail()
                    out[k] = dedupe(list(out[k]) + list(v))
                else:
                    out[k] = v
            return out
        _fail()
    if key == "dependentSchemas":
        if isinstance(va, dict) and isinstance(vb, dict):
            out = dict(va)
            for k, v in vb.items():
                out[k] = _merge(out[k], v, dialect) if k in out else v
            return out
        _fail()
    if key == "dependencies":
        if isinstance(va, dict) and isinstance(vb, dict):
            out = dict(va)
            for k, v in vb.items():
                if k not in out:
                    out[k] = v
                    continue
                x = out[k]
                if isinstance(x, list) and isinstance(v, list):
                    out[k] = dedupe(list(x) + list(v))
                else:
                    xs = {"required": x} if isinstance(x, list) else x
                    vs = {"required": v} if isinstance(v, list) else v
                    out[k] = _merge(xs, vs, dialect)
            return out
        _fail()
    # pattern, format, not, anyOf, oneOf, $ref... : no single equivalent
    _fail()


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _merge_props(ga: dict, gb: dict, dialect: str) -> dict:
    pa = ga.get("properties", {})
    pb = gb.get("properties", {})
    xa = ga.get("patternProperties", {})
    xb = gb.get("patternProperties", {})
    if not all(isinstance(x, dict) for x in (pa, pb, xa, xb)):
        _fail()
    aa = ga.get("additionalProperties", True)
    ab = gb.get("additionalProperties", True)
    if not is_trivial(aa, dialect):
        if not set(pb) <= set(pa) or not set(xb) <= set(xa):
            _fail()
    if not is_trivial(ab, dialect):
        if not set(pa) <= set(pb) or not set(xa) <= set(xb):
            _fail()
    out: dict = {}
    if "properties" in ga or "properties" in gb:
        props = {}
        for name, s in pa.items():
            props[name] = _merge(s, pb[name], dialect) if name in pb else s
        for name, s in pb.items():
            if name not in props:
                props[name] = s
        out["properties"] = props
    if "patternProperties" in ga or "patternProperties" in gb:
        pats = {}
        for p, s in xa.items():
            pats[p] = _merge(s, xb[p], dialect) if p in xb else s
        for p, s in xb.items():
            if p not in pats:
                pats[p] = s
        out["patternProperties"] = pats
    if "additionalProperties" in ga or "additionalProperties" in gb:
        out["additionalProperties"] = _merge(aa, ab, dialect)
    return out


def _split_items(g: dict, dialect: str) -> tuple[list, Any]:
    """(per-index schemas, schema for the rest) of an array keyword group."""
    if dialect in TUPLE_ITEMS_DIALECTS:
        items = g.get("items")
        if isinstance(items, list):
            return list(items), g.get("additionalItems", True)
        if items is None:
            return [], True
        return [], items
    prefix = g.get("prefixItems", [])
    if not isinstance(prefix, list):
        _fail()
    return list(prefix), g.get("items", True)


def _merge_items(ga: dict, gb: dict, dialect: str) -> dict:
    pa, ra = _split_items(ga, dialect)
    pb, rb = _split_items(gb, dialect)
    n = max(len(pa), len(pb))
    prefix = []
    for i in range(n):
        sa = pa[i] if i < len(pa) else ra
        sb = pb[i] if i < len(pb) else rb
        prefix.append(_merge(sa, sb, dialect))
    rest = _merge(ra, rb, dialect)
    out: dict = {}
    legacy = dialect in TUPLE_ITEMS_DIALECTS
    if legacy:
        if prefix:
            out["items"] = prefix
            if not is_trivial(rest, dialect):
                out["additionalItems"] = rest
        elif not is_trivial(rest, dialect):
            out["items"] = rest
    else:
        if prefix:
            out["prefixItems"] = prefix
        if not is_trivial(rest, dialect):
            out["items"] = rest
    return out


# ----------------------------------------------------------------------------- merge, widening

def key_groups(node: dict, dialect: str) -> list[list[str]]:
    """The validation keys of ``node`` in groups that can be dropped independently."""
    groups: list[list[str]] = []
    seen: set = set()
    for group in (PROPS_GROUP, ITEMS_GROUP, CONTAINS_GROUP, IF_GROUP):
        g = [k for k in group if k in node and validates(k, dialect)]
        if g:
            groups.append(g)
            seen.update(g)
    for k in node:
        if k not in seen and validates(k, dialect):
            groups.append([k])
    return groups


def merge_and_widen(a: Any, b: Any, dialect: str) -> tuple[Any, list[str]]:
    """A schema accepting a superset of ``a AND b``: the exact merge where it exists, else
    ``a`` merged with the groups of ``b`` that merge exactly. Returns (schema, dropped keys of b).
    """
    m = merge_and(a, b, dialect)
    if m is not None:
        return m, []
    if not isinstance(a, dict) or not isinstance(b, dict):
        return (a if b is not False else a), ["(schema)"]
    acc = a
    dropped: list[str] = []
    # non-validation keys of b first (annotations: they never conflict)
    extra = {k: v for k, v in b.items() if not validates(k, dialect) and k not in IDENTIFIERS}
    m = merge_and(acc, extra, dialect)
    if m is not None:
        acc = m
    for g in key_groups(b, dialect):
        part = {k: b[k] for k in g}
        m = merge_and(acc, part, dialect)
        if m is None:
            dropped.extend(g)
        else:
            acc = m
    return acc, dropped


# ----------------------------------------------------------------------------- unions

def _branch_class_ok(b: dict, atoms: frozenset, others: frozenset, dialect: str) -> dict | None:
    """``b`` without the type-specific keywords that cannot apply to its own types; None
    when it holds a keyword that would also constrain another branch's types or a generic
    keyword other than type/enum/const."""
    out = {}
    for k, v in b.items():
        if not validates(k, dialect):
            out[k] = v
            continue
        if k in ("type", "enum", "const"):
            out[k] = v
            continue
        if k in GENERIC or k in UNEVALUATED:
            return None
        cls = KEYWORD_ATOMS.get(k)
        if cls is None:
            return None
        if not (cls & atoms):
            continue  # cannot apply to this branch's instances: drop (exact)
        if cls & others:
            return None
        out[k] = v
    return out


def union_exact(branches: list, dialect: str, one_of: bool, annotations: bool = False) -> Any:
    """``anyOf``/``oneOf`` of ``branches`` as one schema without combinators, or None.

    Handles: one branch; ``false`` branches; branches that only list values (const/enum,
    ``type: null``/``boolean``) into one ``enum``; and branches of disjoint instance types
    (``X`` or ``{"type": "null"}``, string or integer...) into a type union.
    ``annotations``: an ``unevaluated*`` keyword may see the branches' annotations, so a
    branch that accepts everything does not make the others irrelevant.
    """
    bs = list(branches)
    if not one_of and not annotations and any(
            b is True or (isinstance(b, dict) and is_trivial(b, dialect)) for b in bs):
        return {}
    bs = [b for b in bs if b is not False]
    if any(not isinstance(b, dict) for b in bs):
        return None
    if not bs:
        return False
    if len(bs) == 1:
        return dict(bs[0])
    # 1) value lists
    value_lists: list[list] | None
    value_lists = []
    for b in bs:
        if any(validates(k, dialect) and k not in ("type", "enum", "const") for k in b):
            value_lists = None
            break
        vals = finite_values(b, dialect)
        if vals is None:
            value_lists = None
            break
        value_lists.append(dedupe(vals))
    if value_lists is not None:
        if one_of:
            counts: dict = {}
            for vals in value_lists:
                for v in vals:
                    counts[jkey(v)] = counts.get(jkey(v), 0) + 1
            merged = [v for vals in value_lists for v in vals if counts[jkey(v)] == 1]
            merged = dedupe(merged)
        else:
            merged = dedupe(v for vals in value_lists for v in vals)
        if not merged:
            return None
        return {"enum": merged}
    # 2) disjoint instance types
    atoms = [schema_atoms(b, dialect) for b in bs]
    for i in range(len(bs)):
        for j in range(i + 1, len(bs)):
            if atoms[i] & atoms[j]:
                return None
    if any(a == ALL_ATOMS for a in atoms):
        return None
    cleaned = []
    for i, b in enumerate(bs):
        others = frozenset().union(*(atoms[j] for j in range(len(bs)) if j != i))
        c = _branch_class_ok(b, atoms[i], others, dialect)
        if c is None:
            return None
        cleaned.append(c)
    # enum: all branches or none (a branch without a value list must be a finite type)
    has_enum = [("enum" in c or "const" in c) for c in cleaned]
    out: dict = {}
    if any(has_enum):
        vals_all = []
        for c in cleaned:
            vals = finite_values({k: v for k, v in c.items() if k in ("type", "enum", "const")},
                                 dialect)
            if vals is None:
                return None
            vals_all.extend(vals)
        enum_vals = dedupe(vals_all)
    else:
        enum_vals = None
    declared = [type_names(c.get("type")) for c in cleaned if "type" in c]
    union_atoms = frozenset().union(*atoms)
    names: list[str] = []
    for c in cleaned:
        if "type" in c:
            names.extend(t for t in type_names(c["type"]) if t not in names)
        else:
            t = atoms_to_type(schema_atoms(c, dialect))
            if t is None:
                return None
            names.extend(x for x in type_names(t) if x not in names)
    if declared:
        t = atoms_to_type(union_atoms, names)
        if t is None:
            return None
        out["type"] = t
    for c in cleaned:
        for k, v in c.items():
            if k in ("type", "enum", "const"):
                continue
            if k in out:
                if validates(k, dialect) and not json_equal(out[k], v):
                    return None
                continue
            out[k] = v
    if enum_vals is not None:
        out["enum"] = enum_vals
    return out


def not_exact(s: Any, dialect: str) -> Any:
    """``not: s`` as one schema without ``not``, or None (handles ``not`` of a type)."""
    if s is True or (isinstance(s, dict) and is_trivial(s, dialect)):
        return False
    if s is False:
        return {}
    if isinstance(s, dict) and set(k for k in s if validates(k, dialect)) == {"type"}:
        ta = type_atoms(s["type"])
        if ta is None:
            return None
        rest = ALL_ATOMS - ta
        if not rest:
            return False
        t = atoms_to_type(frozenset(rest), _TYPE_ORDER)
        return {"type": t} if t is not None else None
    return None


# ----------------------------------------------------------------------------- join (superset)

_LOWER_JOIN = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_JOIN = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def join(branches: list, dialect: str) -> Any:
    """A schema without combinators that accepts every instance any branch accepts."""
    bs = [b for b in branches if b is not False]
    if not bs:
        return False
    if any(b is True or not isinstance(b, dict) or is_trivial(b, dialect) for b in bs):
        return {}
    if len(bs) == 1:
        return {k: v for k, v in bs[0].items()
                if not (validates(k, dialect) and k in GENERIC - {"type", "enum", "const"})}
    atoms = [schema_atoms(b, dialect) for b in bs]
    union_atoms = frozenset().union(*atoms)
    out: dict = {}
    if union_atoms != ALL_ATOMS:
        names: list[str] = []
        for b in bs:
            names.extend(t for t in type_names(b.get("type")) if t not in names)
        t = atoms_to_type(union_atoms, names)
        if t is None and "frac" in union_atoms:
            t = atoms_to_type(union_atoms | {"int"}, names)
        if t is not None:
            out["type"] = t
    # value lists
    vals_all: list | None
    vals_all = []
    for b in bs:
        vals = finite_values({k: v for k, v in b.items() if k in ("type", "enum", "const")},
                             dialect) if ("enum" in b or "const" in b or "type" in b) else None
        if vals is None:
            vals_all = None
            break
        vals_all.extend(vals)
    if vals_all is not None:
        out["enum"] = dedupe(vals_all)
    for cls in (NUMBER_ATOMS, STRING_ATOMS, OBJECT_ATOMS, ARRAY_ATOMS, FORMAT_ATOMS):
        admitting = [b for b, a in zip(bs, atoms) if a & cls]
        if not admitting:
            continue
        if cls is OBJECT_ATOMS:
            out.update(_join_objects(admitting, dialect))
            continue
        if cls is ARRAY_ATOMS:
            out.update(_join_arrays(admitting, dialect))
            continue
        for k, kcls in KEYWORD_ATOMS.items():
            if kcls is not cls or not validates(k, dialect):
                continue
            if not all(k in b for b in admitting):
                continue
            vs = [b[k] for b in admitting]
            if k in _LOWER_JOIN and all(_is_num(v) for v in vs):
                out[k] = min(vs)
            elif k in _UPPER_JOIN and all(_is_num(v) for v in vs):
                out[k] = max(vs)
            elif all(json_equal(v, vs[0]) for v in vs):
                out[k] = vs[0]
    return out


def _join_objects(bs: list[dict], dialect: str) -> dict:
    out: dict = {}
    props: list[dict] = []
    adds: list[Any] = []
    for b in bs:
        p = ps if isinstance(ps := b.get("properties"), dict) else {}
        props.append(p)
        if b.get("patternProperties") or not isinstance(b.get("additionalProperties", True),
                                                        (dict, bool)):
            adds.append(True)
        else:
            adds.append(b.get("additionalProperties", True))
    names: list[str] = []
    for p in props:
        names.extend(n for n in p if n not in names)
    if names:
        out["properties"] = {
            n: join([p[n] if n in p else a for p, a in zip(props, adds)], dialect) for n in names
        }
    add = join(adds, dialect)
    if not is_trivial(add, dialect):
        out["additionalProperties"] = add
    reqs = [rq if isinstance(rq := b.get("required"), list) else [] for b in bs]
    common = [r for r in reqs[0] if all(r in other for other in reqs[1:])]
    if common:
        out["required"] = dedupe(common)
    for k in ("minProperties", "maxProperties"):
        if validates(k, dialect) and all(_is_num(b.get(k)) for b in bs):
            vs = [b[k] for b in bs]
            out[k] = min(vs) if k == "minProperties" else max(vs)
    if validates("propertyNames", dialect) and all("propertyNames" in b for b in bs):
        pn = join([b["propertyNames"] for b in bs], dialect)
        if not is_trivial(pn, dialect):
            out["propertyNames"] = pn
    return out


def _join_arrays(bs: list[dict], dialect: str) -> dict:
    out: dict = {}
    legacy = dialect in TUPLE_ITEMS_DIALECTS
    simple = all(("prefixItems" not in b or not validates("prefixItems", dialect))
                 and not (legacy and isinstance(b.get("items"), list)) for b in bs)
    if simple and all("items" in b for b in bs):
        it = join([b["items"] for b in bs], dialect)
        if not is_trivial(it, dialect):
            out["items"] = it
    for k in ("minItems", "maxItems"):
        if all(_is_num(b.get(k)) for b in bs):
            vs = [b[k] for b in bs]
            out[k] = min(vs) if k == "minItems" else max(vs)
    if all(b.get("uniqueItems") is True for b in bs):
        out["uniqueItems"] = True
    return out
