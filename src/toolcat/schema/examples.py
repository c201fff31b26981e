"""Example instances of a schema: small values it accepts, and whole instances that carry a
given value at a given place (the witnesses of :mod:`toolcat.schema.inclusion`).

Nothing here has to be right: every value :class:`Sampler` returns has been checked with
:class:`toolcat.schema.validate.Checker` (``jsonschema``), and callers check whole instances
again. What it tries is bounded (``Sampler.budget`` candidate checks), so a schema it cannot
satisfy costs little and gives nothing.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, TypeGuard

from toolcat.schema import merge as M
from toolcat.schema.keywords import DRAFT2020, LEGACY_DIALECTS, TUPLE_ITEMS_DIALECTS
from toolcat.schema.validate import Checker
from toolcat.schema.walker import local_target

#: a value for each ``format`` the specifications define (jsonschema asserts none of them by
#: default; a format-asserting validator accepts these)
FORMAT_EXAMPLES = {
    "date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "time": "00:00:00Z",
    "duration": "P1D", "email": "a@example.com", "idn-email": "a@example.com",
    "hostname": "example.com", "idn-hostname": "example.com", "ipv4": "127.0.0.1",
    "ipv6": "::1", "uri": "https://example.com", "uri-reference": "https://example.com",
    "iri": "https://example.com", "iri-reference": "https://example.com",
    "uri-template": "https://example.com/{id}", "url": "https://example.com",
    "uuid": "00000000-0000-4000-8000-000000000000", "json-pointer": "/a",
    "relative-json-pointer": "0", "regex": "a", "byte": "YQ==", "int32": 1, "int64": 1,
    "float": 1.5, "double": 1.5, "password": "secret", "binary": "a",
}
_ATOM_ORDER = ("string", "int", "boolean", "object", "array", "frac", "null")
_FILLER = ("a", "0", "A", "x1", " ", "-")
#: names for properties no schema declares
EXTRA_NAMES = ("extra", "x", "zz_extra", "other", "_", "a1")


_VALUE_KEYS = frozenset(("type", "enum", "const"))


def plain_accepts(node: Any, value: Any, d: str) -> bool | None:
    """What a schema of only ``type``/``enum``/``const`` (and annotations) says of
    ``value``, as jsonschema decides it; None for any other schema."""
    if node is True:
        return True
    if node is False:
        return False
    if not isinstance(node, dict):
        return None
    for k in node:
        if k not in _VALUE_KEYS and M.validates(k, d):
            return None
    if "type" in node:
        atoms = M.type_atoms(node["type"])
        if atoms is None:
            return None
        if M.value_atom(value, d) not in atoms:
            return False
    if "const" in node and M.validates("const", d):
        if M.jkey(node["const"]) != M.jkey(value):
            return False
    if "enum" in node:
        vals = node["enum"]
        if not isinstance(vals, list):
            return None
        k = M.jkey(value)
        if not any(M.jkey(v) == k for v in vals):
            return False
    return True


def _as_node(s: Any) -> Any:
    return {} if s is True else s


def _num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Sampler:
    """Small instances that ``root`` (or its subschemas) accepts, verified with ``checker``.

    ``hints``: values seen in the schemas as written (examples, defaults, enum values) that
    are tried first where a string is wanted (they tend to satisfy the patterns)."""

    def __init__(self, root: Any, dialect: str = DRAFT2020, checker: Checker | None = None,
                 hints: tuple = (), budget: int = 2000) -> None:
        self.root = root
        self.dialect = dialect
        self.checker = checker if checker is not None else Checker(root, dialect)
        self._targets: dict[str, Any] = {}
        self.hints = tuple(h for h in hints if isinstance(h, str))[:40]
        self.budget = budget
        self._memo: dict[tuple, tuple[Any, list]] = {}

    def _target(self, ref: str) -> Any:
        """``local_target(ref, root)``, memoized (the root is not changed while sampled)."""
        try:
            return self._targets[ref]
        except KeyError:
            t = self._targets[ref] = local_target(ref, self.root)
            return t

    # ------------------------------------------------------------------ verified samples

    def ok(self, value: Any, node: Any) -> bool:
        fast = plain_accepts(node, value, self.dialect)
        if fast is not None:
            return fast
        if self.budget <= 0:
            return False
        self.budget -= 1
        return self.checker.accepts(value, node) is True

    def samples(self, node: Any, limit: int = 3, depth: int = 0, atoms: Any = None) -> list:
        """Up to ``limit`` distinct values that ``node`` accepts (``atoms``: only of these
        instance types, e.g. ``{"string"}``)."""
        key = (id(node), limit, frozenset(atoms) if atoms is not None else None)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is node:
            return list(hit[1])
        got = self._samples(node, limit, depth, atoms)
        self._memo[key] = (node, got)
        return list(got)

    def _samples(self, node: Any, limit: int, depth: int, atoms: Any) -> list:
        out: list = []
        seen: set = set()
        tries = 0
        for v in self._cands(node, depth, atoms):
            tries += 1
            if tries > 60 or self.budget <= 0:
                break
            k = M.jkey(v)
            if k in seen:
                continue
            seen.add(k)
            if atoms is not None and M.value_atom(v, self.dialect) not in atoms:
                continue
            if self.ok(v, node):
                out.append(v)
                if len(out) >= limit:
                    break
        return out

    def one(self, node: Any, depth: int = 0, atoms: Any = None) -> tuple[bool, Any]:
        got = self.samples(node, 1, depth, atoms)
        return (True, got[0]) if got else (False, None)

    # ------------------------------------------------------------------ candidates

    def _cands(self, node: Any, depth: int, atoms: Any = None) -> Iterator[Any]:
        if depth > 12:
            return
        if node is True or (isinstance(node, dict) and M.is_trivial(node, self.dialect)):
            yield from ({}, "a", 0, True, None, [])
            return
        if not isinstance(node, dict):
            return
        d = self.dialect
        if "const" in node and M.validates("const", d):
            yield node["const"]
            return
        if isinstance(node.get("enum"), list):
            yield from node["enum"][:20]
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._target(ref)
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if target is not None:
                merged = M.merge_and(rest, target, d) if rest else target
                yield from self._cands(merged if merged is not None else target, depth + 1, atoms)
            return
        rest = node
        for key in ("allOf",):
            if isinstance(node.get(key), list) and M.validates(key, d):
                rest = {k: v for k, v in node.items() if k != key}
                acc: Any = rest
                for b in node[key]:
                    b = self._deref(b)
                    m = M.merge_and(acc, b, d)
                    acc = m if m is not None else acc
                yield from self._cands(acc, depth + 1, atoms)
                for b in node[key]:
                    yield from self._cands(self._deref(b), depth + 1, atoms)
                return
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list) and M.validates(key, d):
                rest = {k: v for k, v in node.items() if k != key}
                for b in node[key]:
                    b = self._deref(b)
                    m = M.merge_and(rest, b, d)
                    yield from self._cands(m if m is not None else b, depth + 1, atoms)
                return
        plain = {k: v for k, v in node.items()
                 if k not in ("not", "if", "then", "else", "dependentSchemas")}
        if "if" in node and isinstance(node.get("then"), dict):
            m = M.merge_and(plain, node["then"], d)
            if m is not None:
                yield from self._cands(m, depth + 1, atoms)
        if "else" in node and isinstance(node.get("else"), dict):
            m = M.merge_and(plain, node["else"], d)
            if m is not None:
                yield from self._cands(m, depth + 1, atoms)
        have = M.schema_atoms(plain, d)
        if atoms is not None:
            have = have & frozenset(atoms)
        for atom in self._order(plain, have):
            yield from self._atom(plain, atom, depth)

    def _deref(self, b: Any) -> Any:
        for _ in range(8):
            if isinstance(b, dict) and isinstance(b.get("$ref"), str) and len(b) == 1:
                t = self._target(b["$ref"])
                if t is None:
                    return b
                b = t
            else:
                break
        return b

    def _order(self, node: dict, have: frozenset) -> list[str]:
        names = M.type_names(node.get("type"))
        order: list[str] = []
        for t in names:
            for a in ("int", "frac") if t == "number" else ("int",) if t == "integer" else (t,):
                if a in have and a not in order:
                    order.append(a)
        if not order:
            keyed = [M.KEYWORD_ATOMS[k] for k in node if k in M.KEYWORD_ATOMS]
            for cls in keyed:
                for a in sorted(cls):
                    if a in have and a not in order:
                        order.append(a)
        order.extend(a for a in _ATOM_ORDER if a in have and a not in order)
        return order

    def _atom(self, node: dict, atom: str, depth: int) -> Iterator[Any]:
        if atom == "null":
            yield None
        elif atom == "boolean":
            yield from (False, True)
        elif atom in ("int", "frac"):
            yield from self._numbers(node, atom == "int")
        elif atom == "string":
            yield from self._strings(node)
        elif atom == "object":
            yield from self._objects(node, depth)
        elif atom == "array":
            yield from self._arrays(node, depth)

    # numbers

    def _numbers(self, node: dict, integer: bool) -> Iterator[Any]:
        lo, lo_x, hi, hi_x = bounds(node, self.dialect)
        m = mo if _num(mo := node.get("multipleOf")) else None
        cands: list = []
        base: list[float]
        if integer:
            ilo, ihi = int_bounds(lo, lo_x, hi, hi_x)
            base = [0, 1, -1, 2, 10]
            if ilo is not None:
                base = [ilo, ilo + 1] + base
            if ihi is not None:
                base = base[:2] + [ihi, ihi - 1] + base[2:]
            if m:
                start = ilo if ilo is not None else 0
                k = math.ceil(start / m) if m > 0 else 0
                base = [int(k * m) if float(k * m).is_integer() else k * m, int((k + 1) * m)
                        if float((k + 1) * m).is_integer() else (k + 1) * m] + base
            cands = base
        else:
            base = [0.5, 1.5, -0.5, 2.5]
            if lo is not None and hi is not None:
                base = [(lo + hi) / 2] + base
            if lo is not None:
                base = [lo + 0.5, lo + 0.25] + base
            if hi is not None:
                base = [hi - 0.5, hi - 0.25] + base
            if m:
                base = [m * 0.5, m * 1.5] + base
            cands = base
        for c in cands:
            if isinstance(c, float) and integer and c.is_integer():
                c = int(c)
            yield c

    # strings

    def _strings(self, node: dict) -> Iterator[str]:
        d = self.dialect
        lo = mn if _num(mn := node.get("minLength")) else 0
        hi = mx if _num(mx := node.get("maxLength")) else None
        lo = max(0, int(math.ceil(lo)))
        fmt = node.get("format")
        if isinstance(fmt, str) and isinstance(example := FORMAT_EXAMPLES.get(fmt), str):
            yield example
        pat = node.get("pattern")
        if isinstance(pat, str) and M.validates("pattern", d):
            for h in self.hints:
                yield h
            for s in regex_samples(pat, 6):
                yield s
                if len(s) < lo:
                    yield s + s[-1:] * (lo - len(s)) if s else "a" * lo
        n = max(lo, 1) if hi is None or hi >= 1 else 0
        for ch in _FILLER:
            yield ch * n
        if hi is not None:
            yield "a" * int(hi)
        yield ""
        for h in self.hints:
            yield h

    # objects

    def _props_schema(self, node: dict, name: str) -> Any:
        return property_schema(node, name)

    def _objects(self, node: dict, depth: int) -> Iterator[dict]:
        d = self.dialect
        req = [r for r in node.get("required", []) if isinstance(r, str)] \
            if isinstance(node.get("required"), list) else []
        props = ps if isinstance(ps := node.get("properties"), dict) else {}
        obj: dict = {}
        todo = list(dict.fromkeys(req))
        deps = dependent_required(node, d)
        i = 0
        while i < len(todo):
            name = todo[i]
            i += 1
            found, v = self.one(self._props_schema(node, name), depth + 1)
            if not found:
                return
            obj[name] = v
            for extra in deps.get(name, ()):
                if extra not in todo:
                    todo.append(extra)
        mn = mp if _num(mp := node.get("minProperties")) else 0
        if len(obj) < mn:
            for name in list(props) + list(EXTRA_NAMES):
                if len(obj) >= mn:
                    break
                if name in obj:
                    continue
                found, v = self.one(self._props_schema(node, name), depth + 1)
                if found:
                    obj[name] = v
        yield obj
        # every declared property (a fuller instance: another chance when the minimal one fails)
        full = dict(obj)
        for name in props:
            if name not in full:
                found, v = self.one(self._props_schema(node, name), depth + 1)
                if found:
                    full[name] = v
        if full != obj:
            yield full

    # arrays

    def _arrays(self, node: dict, depth: int) -> Iterator[list]:
        d = self.dialect
        prefix, rest = split_items(node, d)
        mn = mi if _num(mi := node.get("minItems")) else 0
        mn = int(math.ceil(mn))
        if mn == 0 and not prefix:
            yield []
        n = max(mn, 1 if prefix or rest is not True else 0, min(len(prefix), max(mn, 1)))
        out: list = []
        unique = node.get("uniqueItems") is True
        pool_cache: dict[int, list] = {}
        for i in range(max(n, mn)):
            sch = prefix[i] if i < len(prefix) else rest
            key = id(sch)
            if key not in pool_cache:
                pool_cache[key] = self.samples(sch, 4 if unique else 1, depth + 1)
            pool = pool_cache[key]
            pick = None
            for v in pool:
                if not unique or all(not M.json_equal(v, o) for o in out):
                    pick = (v,)
                    break
            if pick is None:
                return
            out.append(pick[0])
        yield out

    # ------------------------------------------------------------------ embedding

    def embed(self, route: tuple, data: tuple, value: Any, node: Any = None,
              depth: int = 0) -> list:
        """Instances of ``node`` (default: the root) that hold ``value`` at the place the
        schema route ``route`` leads to; ``data`` names the instance steps along it (a
        property name, ``"*"`` for a name no schema declares, an item index). Route tokens:
        ``properties``/``patternProperties`` + key, ``additionalProperties``, ``items``
        (+ index for tuples), ``prefixItems`` + index, ``additionalItems`` (each consumes one
        ``data`` step); ``anyOf``/``oneOf``/``allOf`` + index, ``dependentSchemas``/
        ``dependencies`` + key, ``$ref`` (none). Unverified; empty when it cannot be followed."""
        if node is None:
            node = self.root
        if not route:
            return [value]
        node = _as_node(node)
        if depth > 60 or not isinstance(node, dict):
            return []
        d = self.dialect
        k = route[0]
        if k in ("properties", "patternProperties", "additionalProperties"):
            if k == "additionalProperties":
                sub, rest_route = node.get(k, True), route[1:]
            else:
                box = node.get(k)
                if len(route) < 2 or not isinstance(box, dict) or route[1] not in box:
                    return []
                sub, rest_route = box[route[1]], route[2:]
            step = data[0] if data else "*"
            names: list = []
            if k == "properties":
                names = [route[1]]
            elif isinstance(step, str) and step != "*" and not step.startswith("<"):
                names = [step]
            elif k == "patternProperties":
                names = [n for n in list(self.hints) + regex_samples(str(route[1]), 4)
                         if _search(str(route[1]), n)]
            base_objs = self._objects_for(node, depth)
            if k == "additionalProperties" and not names:
                names = [next(self._fresh_names(node, base_objs[0]), None)]
                names = [n for n in names if n is not None]
            inner = self.embed(rest_route, data[1:], value, sub, depth + 1)
            out: list = []
            for base in base_objs:
                for name in names[:3]:
                    for v in inner[:2]:
                        out.append({**base, name: v})
            return out
        if k in ("items", "prefixItems", "additionalItems"):
            prefix, rest = split_items(node, d)
            tuple_form = k == "prefixItems" or (k == "items" and d in TUPLE_ITEMS_DIALECTS
                                                 and isinstance(node.get("items"), list))
            if tuple_form:
                if len(route) < 2 or not isinstance(route[1], int) or route[1] >= len(prefix):
                    return []
                i, tail, sub = route[1], route[2:], prefix[route[1]]
            else:
                step = data[0] if data else len(prefix)
                i = step if isinstance(step, int) and step >= len(prefix) else len(prefix)
                tail, sub = route[1:], rest
            inner = self.embed(tail, data[1:], value, sub, depth + 1)
            head = []
            for j in range(i):
                found, v = self.one(prefix[j] if j < len(prefix) else rest, depth + 1)
                if not found:
                    return []
                head.append(v)
            mn = mi if _num(mi := node.get("minItems")) else 0
            out = []
            for v in inner[:2]:
                arr = head + [v]
                while len(arr) < mn:
                    j = len(arr)
                    found, x = self.one(prefix[j] if j < len(prefix) else rest, depth + 1)
                    if not found:
                        break
                    arr.append(x)
                out.append(arr)
            return out
        if k in ("anyOf", "oneOf", "allOf") and len(route) >= 2 and isinstance(route[1], int):
            branches = node.get(k)
            if not isinstance(branches, list) or route[1] >= len(branches):
                return []
            rest = {x: v for x, v in node.items() if x != k}
            branch = _as_node(branches[route[1]])
            if k == "allOf":
                target = branch
            else:
                # inclusion compares each branch merged with the keywords beside the union
                m = M.merge_and(rest, branch, d) if isinstance(branch, dict) else None
                target = m if m is not None else branch
            inner = self.embed(route[2:], data, value, target, depth + 1)
            out = []
            for v in inner[:3]:
                out.append(v)
                if isinstance(v, dict):
                    for base in self._objects_for(rest, depth):
                        out.append({**base, **v})
                        break
            return out
        if k in ("dependentSchemas", "dependencies") and len(route) >= 2:
            box = node.get(k)
            if not isinstance(box, dict) or route[1] not in box:
                return []
            name = route[1]
            inner = self.embed(route[2:], data, value, box[name], depth + 1)
            out = []
            for v in inner[:2]:
                if not isinstance(v, dict):
                    continue
                for base in self._objects_for(node, depth):
                    obj = {**base, **v}
                    if name not in obj:
                        found, x = self.one(property_schema(node, name), depth + 1)
                        if not found:
                            continue
                        obj[name] = x
                    out.append(obj)
            return out
        if k == "$ref":
            ref = node.get("$ref")
            t = self._target(ref) if isinstance(ref, str) else None
            if t is None:
                return []
            siblings = {x: v for x, v in node.items() if x != "$ref"}
            if siblings and d not in LEGACY_DIALECTS:
                m = M.merge_and(siblings, t, d)
                t = m if m is not None else t
            return self.embed(route[1:], data, value, t, depth + 1)
        return []

    def _objects_for(self, node: Any, depth: int) -> list[dict]:
        if not isinstance(node, dict):
            return [{}]
        # the minimal object (its required properties); the fuller one only without it
        key = ("objects_for", id(node))
        hit = self._memo.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        got = []
        for o in self._objects(node, depth + 1):
            got.append(o)
            break
        got = got or [{}]
        self._memo[key] = (node, got)
        return got

    def _fresh_names(self, node: dict, base: dict) -> Iterator[str]:
        props = ps if isinstance(ps := node.get("properties"), dict) else {}
        pats = pp if isinstance(pp := node.get("patternProperties"), dict) else {}
        for n in EXTRA_NAMES:
            if n in props or n in base or any(_search(p, n) for p in pats):
                continue
            yield n


# ---------------------------------------------------------------------- schema facts

def bounds(node: dict, dialect: str) -> tuple[Any, bool, Any, bool]:
    """(lower, lower exclusive, upper, upper exclusive) of a number schema, tightest of
    ``minimum``/``exclusiveMinimum`` (draft-04: the boolean forms)."""
    lo = hi = None
    lo_x = hi_x = False
    mn, mx = node.get("minimum"), node.get("maximum")
    emn, emx = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    if dialect == "draft4":
        if _num(mn):
            lo, lo_x = mn, emn is True
        if _num(mx):
            hi, hi_x = mx, emx is True
        return lo, lo_x, hi, hi_x
    if _num(mn):
        lo = mn
    if _num(emn) and (lo is None or emn >= lo):
        lo, lo_x = emn, True
    if _num(mx):
        hi = mx
    if _num(emx) and (hi is None or emx <= hi):
        hi, hi_x = emx, True
    return lo, lo_x, hi, hi_x


def int_bounds(lo: Any, lo_x: bool, hi: Any, hi_x: bool) -> tuple[Any, Any]:
    """The smallest and largest integers within the bounds (None: unbounded)."""
    ilo = None if lo is None else (math.floor(lo) + 1 if lo_x else math.ceil(lo))
    ihi = None if hi is None else (math.ceil(hi) - 1 if hi_x else math.floor(hi))
    return ilo, ihi


def split_items(node: dict, dialect: str) -> tuple[list, Any]:
    """(per-index item schemas, the schema of every later item) of an array schema."""
    if dialect in TUPLE_ITEMS_DIALECTS:
        items = node.get("items")
        if isinstance(items, list):
            extra = node.get("additionalItems", True)
            return list(items), extra
        return [], items if items is not None else True
    prefix = pi if isinstance(pi := node.get("prefixItems"), list) else []
    return list(prefix), node.get("items", True)


def dependent_required(node: dict, dialect: str) -> dict[str, list]:
    """name -> names it makes required (``dependentRequired``, draft-07's name lists)."""
    out: dict[str, list] = {}
    for key in ("dependentRequired", "dependencies"):
        v = node.get(key)
        if isinstance(v, dict) and M.validates(key, dialect):
            for k, names in v.items():
                if isinstance(names, list):
                    out.setdefault(k, []).extend(n for n in names if isinstance(n, str))
    return out


def property_schema(node: dict, name: str) -> Any:
    """The schema ``node`` applies to property ``name``: ``properties[name]`` and every
    matching ``patternProperties`` schema (as an ``allOf`` when more than one), else
    ``additionalProperties`` (default ``true``)."""
    props = ps if isinstance(ps := node.get("properties"), dict) else {}
    pats = pp if isinstance(pp := node.get("patternProperties"), dict) else {}
    parts = []
    if name in props:
        parts.append(props[name])
    for p, s in pats.items():
        if _search(p, name):
            parts.append(s)
    if not parts:
        return node.get("additionalProperties", True)
    return parts[0] if len(parts) == 1 else {"allOf": parts}


def _search(pattern: str, s: str) -> bool:
    """Whether ``pattern`` certainly matches in ``s``: by RE2, in linear time (a catalog's
    pattern never runs on Python's backtracking ``re``); one RE2 cannot run does not."""
    from toolcat.schema.regex import search

    return isinstance(pattern, str) and search(pattern, s) is True


# ---------------------------------------------------------------------- regex samples

def regex_samples(pattern: str, n: int = 4) -> list[str]:
    """Up to ``n`` strings that (very likely) match ``pattern``, from its parse tree
    (literals, classes, repeats at their lower bound and one more, the branches of an
    alternation in turn); empty for what it does not understand (look-arounds...)."""
    try:
        import re._parser as sre  # type: ignore[import-not-found]  # Python 3.11+ (no stub)
    except ImportError:  # pragma: no cover
        import sre_parse as sre  # type: ignore[no-redef]
    try:
        tree = sre.parse(pattern)
    except MemoryError:   # never a best effort: one line, exit 2 (cli)
        raise
    except Exception:  # noqa: BLE001 - not a pattern Python reads
        return []
    out: list[str] = []
    for variant in range(n * 2):
        try:
            s = _gen(tree, variant, sre, 0)
        except _Give_up:
            return out
        except RecursionError:
            return out
        if s is not None and s not in out:
            out.append(s)
        if len(out) >= n:
            break
    return out


class _Give_up(Exception):
    pass


def _gen(tree: Any, variant: int, sre: Any, depth: int) -> str:
    if depth > 30:
        raise _Give_up
    c = sre._constants if hasattr(sre, "_constants") else sre
    parts: list[str] = []
    for op, av in tree:
        name = str(op)
        if name == "LITERAL":
            parts.append(chr(av))
        elif name == "NOT_LITERAL":
            parts.append("a" if chr(av) != "a" else "b")
        elif name == "ANY":
            parts.append("a")
        elif name == "IN":
            parts.append(_in(av, variant))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            count = lo + (variant % 2 if (hi == c.MAXREPEAT or hi > lo) else 0)
            if lo == 0 and variant % 3 == 0 and (hi == c.MAXREPEAT or hi >= 1):
                count = max(count, 1)
            if count > 64:
                raise _Give_up
            parts.append("".join(_gen(sub, variant + i, sre, depth + 1) for i in range(count)))
        elif name == "SUBPATTERN":
            parts.append(_gen(av[-1], variant, sre, depth + 1))
        elif name == "BRANCH":
            branches = av[1]
            parts.append(_gen(branches[variant % len(branches)], variant // len(branches),
                              sre, depth + 1))
        elif name in ("AT",):
            continue
        elif name == "CATEGORY":
            parts.append(_category(str(av)))
        else:
            raise _Give_up
    return "".join(parts)


def _category(name: str) -> str:
    if "NOT_DIGIT" in name:
        return "a"
    if "DIGIT" in name:
        return "0"
    if "NOT_SPACE" in name:
        return "a"
    if "SPACE" in name:
        return " "
    if "NOT_WORD" in name:
        return "-"
    if "WORD" in name:
        return "a"
    return "a"


def _in(items: list, variant: int) -> str:
    negate = any(str(op) == "NEGATE" for op, _ in items)
    choices: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            choices.append(chr(av))
        elif name == "RANGE":
            lo, hi = av
            choices.append(chr(lo))
            if hi != lo:
                choices.append(chr(hi))
        elif name == "CATEGORY":
            choices.append(_category(str(av)))
    if negate:
        for ch in "aZ0_ -x":
            if ch not in choices:
                return ch
        raise _Give_up
    if not choices:
        raise _Give_up
    return choices[variant % len(choices)]
