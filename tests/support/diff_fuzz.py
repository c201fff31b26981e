"""Edits of each kind for `toolcat diff`'s differential test, and a random instance generator
independent of toolcat's own (toolcat.schema.examples), so that checking "non-breaking" does
not reuse the code that decided it.

Every edit takes a schema (an object schema with properties) and a ``random.Random`` and
returns ``(new schema, expectation)`` or None when it does not apply; expectations are what
the edit does to the instances the schema accepts:

* ``"same"``    accepts exactly the same instances (a $ref move, a split into allOf...);
* ``"narrow"``  accepts fewer (a witness exists);
* ``"widen"``   accepts more;
* ``"interface"`` a new optional property (non-breaking by the interface rule).
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

Edit = Callable[[dict, random.Random], "tuple[dict, str] | None"]


def _objects(schema: Any, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """``(path, node)`` of every object schema with properties (following properties and
    array items only)."""
    out = []
    if isinstance(schema, dict):
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            out.append((path, schema))
        props = schema.get("properties")
        if isinstance(props, dict):
            for k, v in props.items():
                out.extend(_objects(v, path + ("properties", k)))
        if isinstance(schema.get("items"), dict):
            out.extend(_objects(schema["items"], path + ("items",)))
    return out


def _at(schema: dict, path: tuple) -> Any:
    for p in path:
        schema = schema[p]
    return schema


def _pick_object(s: dict, rng: random.Random) -> tuple[dict, dict] | None:
    new = copy.deepcopy(s)
    objs = _objects(new)
    if not objs:
        return None
    path, node = rng.choice(objs)
    return new, node


def _plain_props(node: dict, pred: Callable[[dict], bool]) -> list[str]:
    return [k for k, v in node["properties"].items() if isinstance(v, dict) and pred(v)]


def _is(v: dict, t: str) -> bool:
    ty = v.get("type")
    return ty == t or (isinstance(ty, list) and t in ty)


def add_required(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    req = node.get("required") if isinstance(node.get("required"), list) else []
    opt = [k for k in node["properties"] if k not in req]
    if not opt:
        return None
    node["required"] = list(req) + [rng.choice(opt)]
    return new, "narrow"


def remove_required(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    req = node.get("required")
    if not isinstance(req, list) or not req:
        return None
    gone = rng.choice(req)
    node["required"] = [r for r in req if r != gone]
    if not node["required"]:
        del node["required"]
    return new, "widen"


def _bound_edit(kind: str):
    def edit(s, rng):
        got = _pick_object(s, rng)
        if not got:
            return None
        new, node = got
        if kind in ("minLength", "maxLength"):
            names = _plain_props(node, lambda v: _is(v, "string") and "enum" not in v
                                 and "const" not in v and "pattern" not in v and "format" not in v)
        elif kind in ("minimum", "maximum"):
            names = _plain_props(node, lambda v: (_is(v, "integer") or _is(v, "number"))
                                 and "enum" not in v and "const" not in v)
        else:
            names = _plain_props(node, lambda v: _is(v, "array"))
        if not names:
            return None
        v = node["properties"][rng.choice(names)]
        cur = v.get(kind)
        if isinstance(cur, bool) or not isinstance(cur, (int, float)):
            cur = None
        lower = kind.startswith("min")
        if cur is None:
            v[kind] = rng.choice([1, 2, 3]) if lower else rng.choice([3, 5, 10, 100])
            return new, "narrow" if not (lower and kind == "minimum" and
                                         isinstance(v.get("exclusiveMinimum"), (int, float))) else "either"
        tighten = rng.random() < 0.5
        step = rng.choice([1, 2, 5])
        if lower:
            v[kind] = cur + step if tighten else max(0, cur - step)
        else:
            v[kind] = max(0, cur - step) if tighten else cur + step
        if v[kind] == cur:
            return None
        return new, "narrow" if tighten else "widen"
    edit.__name__ = f"bound_{kind}"
    return edit


def enum_edit(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    names = _plain_props(node, lambda v: isinstance(v.get("enum"), list) and len(v["enum"]) >= 1)
    if not names:
        return None
    v = node["properties"][rng.choice(names)]
    vals = v["enum"]
    if len(vals) >= 2 and rng.random() < 0.5:
        drop = rng.choice(vals)
        v["enum"] = [x for x in vals if x != drop]
        return new, "narrow"
    if all(isinstance(x, str) for x in vals):
        v["enum"] = list(vals) + [f"zz_new_{rng.randrange(1000)}"]
        return new, "widen"
    return None


def wrap_in_ref(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    names = [k for k, v in node["properties"].items() if isinstance(v, dict) and "$ref" not in v]
    if not names or any(isinstance(v, dict) and "$ref" in v for v in _walk(new)):
        return None
    name = rng.choice(names)
    defs = new.setdefault("$defs", {})
    key = f"Moved_{name}_{rng.randrange(1000)}"
    if key in defs:
        return None
    defs[key] = node["properties"][name]
    node["properties"][name] = {"$ref": f"#/$defs/{key}"}
    return new, "same"


def reorder(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    items = list(node["properties"].items())
    if len(items) < 2:
        return None
    rng.shuffle(items)
    node["properties"] = dict(items)
    if isinstance(node.get("required"), list):
        req = list(node["required"])
        rng.shuffle(req)
        node["required"] = req
    return new, "same"


def split_all_of(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    names = [k for k, v in node["properties"].items() if isinstance(v, dict)
             and len([x for x in v if x not in ("description", "title")]) >= 2 and "$ref" not in v]
    if not names:
        return None
    name = rng.choice(names)
    v = node["properties"][name]
    keys = list(v)
    rng.shuffle(keys)
    cut = rng.randrange(1, len(keys))
    node["properties"][name] = {"allOf": [{k: v[k] for k in keys[:cut]}, {k: v[k] for k in keys[cut:]}]}
    return new, "same"


def respell_values(s, rng):
    """``enum`` of one value <-> ``const``; a ``type`` list <-> ``anyOf`` of types."""
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    one = _plain_props(node, lambda v: isinstance(v.get("enum"), list) and len(v["enum"]) == 1)
    multi = _plain_props(node, lambda v: isinstance(v.get("type"), list) and len(v) == 1)
    if one and (not multi or rng.random() < 0.5):
        v = node["properties"][rng.choice(one)]
        v["const"] = v.pop("enum")[0]
        return new, "same"
    if multi:
        name = rng.choice(multi)
        node["properties"][name] = {"anyOf": [{"type": t} for t in node["properties"][name]["type"]]}
        return new, "same"
    return None


def add_optional(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    name = f"zz_added_{rng.randrange(1000)}"
    if name in node["properties"] or node.get("additionalProperties") not in (None, True, {}) \
            or node.get("patternProperties"):
        return None
    node["properties"][name] = rng.choice([{"type": "string"}, {"type": "integer"},
                                           {"type": "array", "items": {"type": "string"}}])
    return new, "interface"


def close_object(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    if node.get("additionalProperties") is False or node.get("patternProperties"):
        return None
    node["additionalProperties"] = False
    return new, "narrow"


def remove_closed_property(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    if node.get("additionalProperties") is not False:
        node["additionalProperties"] = False
        old = copy.deepcopy(new)
    else:
        old = copy.deepcopy(new)
    req = node.get("required") if isinstance(node.get("required"), list) else []
    opt = [k for k in node["properties"] if k not in req]
    if not opt or len(node["properties"]) < 2:
        return None
    # the OLD side of this edit is the closed object: the caller compares `old` -> `new`
    gone = rng.choice(opt)
    del node["properties"][gone]
    return (old, new), "narrow"


def type_edit(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    nums = _plain_props(node, lambda v: v.get("type") == "number")
    strs = _plain_props(node, lambda v: v.get("type") in ("string", "integer", "boolean")
                        and "enum" not in v and "const" not in v)
    if nums and rng.random() < 0.5:
        node["properties"][rng.choice(nums)]["type"] = "integer"
        return new, "narrow"
    if strs:
        v = node["properties"][rng.choice(strs)]
        v["type"] = [v["type"], "null"]
        return new, "widen"
    return None


def add_pattern(s, rng):
    got = _pick_object(s, rng)
    if not got:
        return None
    new, node = got
    names = _plain_props(node, lambda v: v.get("type") == "string" and "pattern" not in v
                         and "enum" not in v and "const" not in v and "format" not in v)
    if not names:
        return None
    node["properties"][rng.choice(names)]["pattern"] = rng.choice(
        ["^[a-z]+$", "^[0-9]{2,}$", "^x", "^[A-Z][a-z]*$"])
    return new, "narrow"


EDITS: list[Edit] = [add_required, remove_required, _bound_edit("minLength"),
                     _bound_edit("maxLength"), _bound_edit("minimum"), _bound_edit("maximum"),
                     _bound_edit("minItems"), _bound_edit("maxItems"), enum_edit, wrap_in_ref,
                     reorder, split_all_of, respell_values, add_optional, close_object,
                     remove_closed_property, type_edit, add_pattern]


def _walk(v: Any):
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from _walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from _walk(x)


def apply(schema: dict, edit: Edit, rng: random.Random) -> tuple[dict, dict, str] | None:
    """``(old, new, expectation)`` for one edit of ``schema``, or None."""
    got = edit(schema, rng)
    if got is None:
        return None
    new, expect = got
    if isinstance(new, tuple):
        old, new = new
        return old, new, expect
    return schema, new, expect


# --------------------------------------------------------------------------- instances

_EXTRA = "zz_undeclared"


def instances(schema: Any, validator: Any, rng: random.Random, n: int = 20,
              tries: int = 200) -> list:
    """Up to ``n`` random instances ``validator`` (jsonschema, for ``schema``) accepts:
    declared properties drawn at random (required ones always), values within the bounds
    most of the time and at them or just past them sometimes, enum/const values, branches
    of anyOf/oneOf, references followed; undeclared properties only under a name no edit
    declares (``zz_undeclared``)."""
    out: list = []
    seen: set = set()
    import json

    for _ in range(tries):
        try:
            v = _gen(schema, schema, rng, 0)
        except _Skip:
            continue
        key = json.dumps(v, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        try:
            ok = validator.is_valid(v)
        except Exception:  # noqa: BLE001
            ok = False
        if ok:
            out.append(v)
            if len(out) >= n:
                break
    return out


class _Skip(Exception):
    pass


def _deref(node: Any, root: Any) -> Any:
    for _ in range(20):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            cur = root
            for tok in node["$ref"][2:].split("/"):
                tok = tok.replace("~1", "/").replace("~0", "~")
                if not isinstance(cur, dict) or tok not in cur:
                    raise _Skip
                cur = cur[tok]
            rest = {k: v for k, v in node.items() if k != "$ref"}
            node = {**cur, **rest} if isinstance(cur, dict) and rest else cur
        else:
            return node
    raise _Skip


def _gen(node: Any, root: Any, rng: random.Random, depth: int) -> Any:
    if depth > 8:
        raise _Skip
    node = _deref(node, root)
    if node is True or node == {}:
        return rng.choice(["x", 1, True, None, {}, []])
    if node is False or not isinstance(node, dict):
        raise _Skip
    if "const" in node:
        return copy.deepcopy(node["const"])
    if isinstance(node.get("enum"), list) and node["enum"]:
        return copy.deepcopy(rng.choice(node["enum"]))
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list) and node[key]:
            rest = {k: v for k, v in node.items() if k != key}
            br = _deref(rng.choice(node[key]), root)
            merged = {**rest, **br} if isinstance(br, dict) else br
            return _gen(merged, root, rng, depth + 1)
    if isinstance(node.get("allOf"), list) and node["allOf"]:
        merged = {k: v for k, v in node.items() if k != "allOf"}
        for part in node["allOf"]:
            part = _deref(part, root)
            if isinstance(part, dict):
                for k, v in part.items():
                    if k == "properties" and isinstance(merged.get("properties"), dict):
                        merged["properties"] = {**merged["properties"], **v}
                    elif k == "required" and isinstance(merged.get("required"), list):
                        merged["required"] = list(merged["required"]) + list(v)
                    else:
                        merged.setdefault(k, v)
        return _gen(merged, root, rng, depth + 1)
    t = node.get("type")
    types = t if isinstance(t, list) else [t] if isinstance(t, str) else \
        (["object"] if "properties" in node else ["string", "integer", "number", "boolean", "null"])
    ty = rng.choice(types)
    if ty == "null":
        return None
    if ty == "boolean":
        return rng.random() < 0.5
    if ty in ("integer", "number"):
        lo = node.get("minimum", node.get("exclusiveMinimum"))
        hi = node.get("maximum", node.get("exclusiveMaximum"))
        lo = lo if isinstance(lo, (int, float)) and not isinstance(lo, bool) else -5
        hi = hi if isinstance(hi, (int, float)) and not isinstance(hi, bool) else lo + 20
        if hi < lo:
            raise _Skip
        pick = rng.random()
        if pick < 0.2:
            v = lo
        elif pick < 0.4:
            v = hi
        else:
            v = rng.uniform(lo, hi)
        if ty == "integer" or rng.random() < 0.5:
            v = round(v)
        m = node.get("multipleOf")
        if isinstance(m, (int, float)) and not isinstance(m, bool) and m > 0:
            v = round(v / m) * m
        return v
    if ty == "string":
        lo = node.get("minLength", 0)
        hi = node.get("maxLength", lo + 12)
        lo = lo if isinstance(lo, int) and not isinstance(lo, bool) else 0
        hi = hi if isinstance(hi, int) and not isinstance(hi, bool) else lo + 12
        if hi < lo:
            raise _Skip
        n = rng.choice([lo, hi, rng.randint(lo, min(hi, lo + 12))])
        if n > 10_000:
            raise _Skip
        alphabet = rng.choice(["abc", "xyz0", "ABC", "a1-_", "q"])
        return "".join(rng.choice(alphabet) for _ in range(n))
    if ty == "array":
        lo = node.get("minItems", 0)
        hi = node.get("maxItems", lo + 3)
        lo = lo if isinstance(lo, int) and not isinstance(lo, bool) else 0
        hi = hi if isinstance(hi, int) and not isinstance(hi, bool) else lo + 3
        if hi < lo or lo > 50:
            raise _Skip
        k = rng.randint(lo, min(hi, lo + 3))
        items = node.get("items", True)
        if isinstance(node.get("prefixItems"), list):
            raise _Skip
        return [_gen(items, root, rng, depth + 1) for _ in range(k)]
    if ty == "object":
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        req = node.get("required") if isinstance(node.get("required"), list) else []
        obj = {}
        for name, sub in props.items():
            if name in req or rng.random() < 0.5:
                obj[name] = _gen(sub, root, rng, depth + 1)
        for name in req:
            if name not in obj:
                obj[name] = _gen(node.get("additionalProperties", True), root, rng, depth + 1)
        if rng.random() < 0.15 and node.get("additionalProperties", True) is not False:
            obj[_EXTRA] = _gen(node.get("additionalProperties", True), root, rng, depth + 1)
        return obj
    raise _Skip
