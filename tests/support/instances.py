"""Instances for a schema: a generator guided by the schema (valid-looking values) and a
mutator (a key dropped or added, a value of another type, a bound crossed, null), driven by a
:class:`~support.fuzz_support.Chooser` (Hypothesis' draws, or :class:`RandomChooser`'s seeded
ones). The differential tests judge the verdicts of the real readers on them
(:mod:`support.differential`); nothing here validates anything.
"""

from __future__ import annotations

from typing import Any

from support.fuzz_support import SeededChooser

_FORMATS = {
    "date-time": "2024-05-06T07:08:09Z", "date": "2024-05-06", "time": "07:08:09Z",
    "email": "a@example.com", "uri": "https://example.com/x", "uuid":
    "123e4567-e89b-12d3-a456-426614174000", "ipv4": "192.0.2.1", "hostname": "example.com",
}
_ALPHABET = "ab Z0_-é😀"


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


def instances_for(schema: Any, seed: int, n: int = 6) -> list:
    """``n`` generated instances of ``schema`` and a mutant of each, from a seeded sweep."""
    c = RandomChooser(seed)
    out = []
    for _ in range(n):
        x = gen(c, schema, schema)
        out.append(x)
        out.append(mutate(c, x))
    return out
