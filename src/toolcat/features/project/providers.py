"""Provider targets: rewrite a (lowered) input schema into what one provider accepts, and
report every rewrite with its JSON pointer and kind.

The facts come from the provider table (:data:`toolcat.formats.providers.PROVIDERS`, each row
with its sources); ``toolcat lint --profile P`` checks the same rows, so what a target writes
passes its profile. One :class:`Adapter` per target; :func:`adapt` runs it over a schema
bottom-up (:func:`toolcat.schema.walker.transform`), after the exact compact lowering.

Kinds of change (:class:`toolcat.schema.lower.Kind`):

``exact``
    the same instances are accepted (``const: x`` -> ``enum: [x]``, ``$ref`` beside other
    keywords -> ``anyOf: [{$ref}]`` beside them, Gemini's ``nullable``);
``widened``
    a superset is accepted: a keyword the provider refuses is dropped, and where the model
    needs it (a ``pattern``, a ``format``, a bound) written into the node's ``description``;
``narrowed``
    a subset is accepted: strict modes close every object (``additionalProperties: false``),
    so undeclared properties can no longer be sent;
``changed``
    a different shape with a documented argument mapping: OpenAI strict mode requires every
    property, so an optional one becomes required and nullable, and the caller maps it back:
    an argument that is ``null`` means absent (the change's ``mapping``).

A schema a strict mode cannot express at all (a map: ``additionalProperties`` holding a
schema, ``patternProperties``; an object of any properties; recursion where it is refused;
the size limits) is not forced: the tool is written with ``"strict": false`` and the reason
is reported (``omitted``, at the pointer that stops it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from toolcat.document.canonical import dumps
from toolcat.document.pointer import encode
from toolcat.formats.providers import STRICT_TYPED_KEYS, Provider
from toolcat.schema import merge as M
from toolcat.schema.lower import (
    CHANGED,
    EXACT,
    NARROWED,
    OMITTED,
    WIDENED,
    Change,
    dialect_neutral,
)
from toolcat.schema.walker import iter_schemas, transform

#: the keywords whose value is written into the description when a provider refuses them
CONSTRAINTS = ("pattern", "format", "minLength", "maxLength", "minimum", "maximum",
               "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
               "uniqueItems", "minProperties", "maxProperties", "minContains", "maxContains",
               "dependentRequired", "propertyNames", "contains", "not", "if", "then", "else",
               "prefixItems", "patternProperties", "dependentSchemas", "dependencies")
#: annotations: dropping one changes no verdict
ANNOTATIONS = frozenset(("default", "examples", "example", "title", "description", "$comment",
                         "readOnly", "writeOnly", "deprecated", "contentEncoding",
                         "contentMediaType", "contentSchema", "discriminator", "xml",
                         "externalDocs", "$id", "$anchor", "$dynamicAnchor", "$schema",
                         "$vocabulary", "propertyOrdering"))
_TEXT_MAX = 200


def _text(key: str, value: Any) -> str:
    if isinstance(value, str):
        return f"{key}: {value}"
    s = dumps(value).decode("utf-8")
    return f"{key}: {s}" if len(s) <= _TEXT_MAX else ""


def _with_description(node: dict, notes: list[str]) -> dict:
    notes = [n for n in notes if n]
    if not notes:
        return node
    d = node.get("description")
    text = "; ".join(notes)
    node["description"] = f"{d} ({text})" if isinstance(d, str) and d else text
    return node


def _argument(path: tuple) -> str | None:
    """The instance pointer a schema path describes (``*``: any array item or map value),
    or None when the path goes through a definition."""
    out: list[str] = []
    i = 0
    while i < len(path):
        t = path[i]
        if t == "properties" and i + 1 < len(path):
            out.append(str(path[i + 1]))
            i += 2
        elif t in ("items", "additionalProperties"):
            out.append("*")
            i += 1
        elif t == "prefixItems" and i + 1 < len(path):
            out.append(str(path[i + 1]))
            i += 2
        elif t in ("anyOf", "oneOf", "allOf") and i + 1 < len(path):
            i += 2
        else:
            return None
    return encode(out)


def accepts_null(s: Any, dialect: str) -> bool:
    """Does ``s`` (a schema with no references to follow) accept ``null``? (False when
    unsure.)"""
    if s is True:
        return True
    if not isinstance(s, dict):
        return False
    if not s:
        return True
    return "null" in M.schema_atoms(s, dialect) and not any(
        k in s for k in ("$ref", "$dynamicRef", "not", "allOf", "oneOf", "if"))\
        and (not isinstance(s.get("enum"), list) or None in s["enum"]) \
        and ("const" not in s or s["const"] is None) \
        and (not isinstance(s.get("anyOf"), list)
             or any(accepts_null(b, dialect) for b in s["anyOf"]))


def nullable(s: Any, dialect: str) -> Any:
    """``s`` or ``null``, exactly, written the way strict modes read it (a type union where
    that is exact, else ``anyOf: [s, {"type": "null"}]``)."""
    if accepts_null(s, dialect):
        return s
    if isinstance(s, dict) and "type" in s and not any(
            k in s for k in ("$ref", "$dynamicRef", "not", "allOf", "anyOf", "oneOf", "if",
                             "then", "else", "$defs", "definitions")):
        t = s["type"]
        names = [t] if isinstance(t, str) else list(t) if isinstance(t, list) else None
        if names is not None and all(isinstance(x, str) for x in names):
            out = dict(s)
            out["type"] = names + ["null"]
            if isinstance(s.get("enum"), list):
                out["enum"] = list(s["enum"]) + [None]
            if "const" in s:
                out.pop("const")
                out["enum"] = [s["const"], None]
            return out
    return {"anyOf": [s, {"type": "null"}]}


def _disjoint(branches: list, dialect: str) -> bool:
    seen: frozenset = frozenset()
    for b in branches:
        if not isinstance(b, dict) or "type" not in b:
            return False
        atoms = M.schema_atoms(b, dialect)
        if atoms & seen:
            return False
        seen |= atoms
    return True


@dataclass
class Adapted:
    schema: Any
    changes: list[Change] = field(default_factory=list)
    #: None: the schema is in the provider's subset; else (pointer, why) of what stops it
    unexpressible: tuple[str, str] | None = None


#: a schema holding one of these says what values it takes (strict modes need one)


def _ref_siblings(n: dict, path: tuple, note: Any) -> dict:
    """``{"$ref": R, ...}`` -> ``{"anyOf": [{"$ref": R}], ...}`` (exact in 2019-09 and later:
    a reference beside other keywords is ANDed with them)."""
    if "$ref" in n and len(n) > 1 and "anyOf" not in n:
        ref = n.pop("$ref")
        n = {"anyOf": [{"$ref": ref}], **n}
        note(path + ("$ref",), EXACT, "$ref beside other keywords written as anyOf: [{$ref}]")
    return n


_GEMINI_TYPES = ("string", "number", "integer", "boolean", "array", "object")


class _OpenApiRules(ABC):
    """``parameters`` (the OpenAPI 3.0 Schema subset Gemini reads): one ``type``
    (``nullable`` for null), ``enum`` of strings, no ``const``; after the RFC 0112 lowering
    (no ``$ref``, no combinators but what it writes back).

    A part of :class:`Adapter`: it reads the provider row and calls back the adapter's
    :meth:`note` and :meth:`node_rules`, declared here."""

    #: the provider-table row the rewrites follow
    row: Provider

    @abstractmethod
    def note(self, path: tuple, kind: Any, what: str, **extra: Any) -> None:
        """Record a change at schema ``path`` (see :meth:`Adapter.note`)."""

    @abstractmethod
    def node_rules(self, n: dict, path: tuple, d: str) -> dict:
        """The provider's rules for one (copied) node (see :meth:`Adapter.node_rules`)."""

    def openapi_rules(self, n: dict, path: tuple, d: str) -> dict:
        notes: list[str] = []
        if "const" in n:
            c = n.pop("const")
            n["enum"] = [c]
            self.note(path + ("const",), EXACT, "const written as a one-value enum")
        e = n.get("enum")
        if isinstance(e, list):
            vals = [v for v in e if v is not None]
            if None in e and len(vals) < len(e):
                n["enum"] = vals
                n["nullable"] = True
                self.note(path + ("enum",), EXACT, "null in enum written as nullable: true")
            if not all(isinstance(v, str) for v in vals) or not vals:
                n.pop("enum")
                if vals:
                    notes.append("one of: " + ", ".join(dumps(v).decode("utf-8") for v in vals))
                self.note(path + ("enum",), WIDENED, f"{self.row.title} accepts string enum "
                          "values only: the values moved into the description")
                if not vals and n.get("nullable"):
                    n["type"] = n.get("type", "string")
        t = n.get("type")
        if isinstance(t, list):
            names = [x for x in t if isinstance(x, str)]
            has_null = "null" in names
            rest = [x for x in names if x != "null"]
            if has_null:
                n["nullable"] = True
            if len(rest) == 1:
                n["type"] = rest[0]
                self.note(path + ("type",), EXACT, "type union with null written as nullable")
            elif not rest:
                n.pop("type")
                self.note(path + ("type",), WIDENED, "type null has no Gemini type: dropped")
            else:
                n.pop("type")
                branches: list[dict] = []
                for x in rest:
                    atom = M.type_atoms(x) or frozenset()
                    b: dict = {"type": x}
                    for k, v in list(n.items()):
                        ka = M.KEYWORD_ATOMS.get(k)
                        if ka is not None and ka & atom:
                            b[k] = v
                    if has_null:
                        b["nullable"] = True
                    bp = path + ("anyOf", len(branches))
                    branches.append(self.node_rules(self.openapi_rules(b, bp, d), bp, d))
                for k in list(n):
                    if k in M.KEYWORD_ATOMS:
                        n.pop(k)
                if "anyOf" in n:
                    n = {"allOf": [{"anyOf": branches}], **n}
                else:
                    n["anyOf"] = branches
                self.note(path + ("type",), EXACT, "type union written as anyOf of single "
                          "types")
        elif t is not None and t not in _GEMINI_TYPES:
            n.pop("type")
            self.note(path + ("type",), WIDENED, f"type {t!r} dropped")
        items = n.get("items")
        if isinstance(items, list):
            n.pop("items")
            notes.append(_text("items", items))
            self.note(path + ("items",), WIDENED, "items array (a tuple) dropped")
        for key in ("properties",):
            props = n.get(key)
            if isinstance(props, dict) and any(isinstance(v, bool) for v in props.values()):
                fixed: dict[str, Any] = {}
                for name, v in props.items():
                    if v is True:
                        fixed[name] = {}
                        self.note(path + (key, name), EXACT, "true written as {}")
                    elif v is False:
                        fixed[name] = {}
                        self.note(path + (key, name), WIDENED, "false (never valid) written "
                                  "as {}")
                    else:
                        fixed[name] = v
                n[key] = fixed
        if n.get("additionalProperties") is False:
            n.pop("additionalProperties")
            self.note(path + ("additionalProperties",), WIDENED, "additionalProperties: false "
                      f"dropped ({self.row.title} does not accept it): undeclared properties "
                      "are no longer refused")
        return _with_description(n, notes)


#: keywords whose value maps names to schemas (a key there is a name, not a keyword)
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                          "dependentSchemas"})


class Adapter(_OpenApiRules):
    """One provider's rewrites (see the module doc), driven by its provider-table row
    (:class:`toolcat.formats.providers.Provider`), so a provider is described once:

    * ``row.allowed`` / ``row.unsupported``: the keywords it refuses (dropped; a constraint
      moved into the description), ``row.formats`` and ``row.min_items_values`` likewise;
    * ``row.strict_objects``: every object closed, a ``$ref`` alone in its node (both
      providers' SDKs drop or inline a reference's siblings); ``row.all_required``: every
      property required, optional ones nullable; ``row.recursion`` false: a recursive
      ``$ref`` stops strict;
    * ``row.root_forbidden``: those combinators merged (``allOf``) or joined (``anyOf``,
      ``oneOf``) at the top level;
    * ``row.type_arrays`` false: a type list written as ``anyOf`` of single types;
    * ``row.openapi_schema``: the OpenAPI 3.0 Schema object (Gemini): one ``type``,
      ``nullable``, string enums, no ``const``, no boolean schemas.
    """

    def __init__(self, row: Provider) -> None:
        self.row = row
        self.strict = bool(row.strict_objects)
        self.all_required = bool(row.all_required)
        self.openapi = bool(row.openapi_schema)

    # ---------------------------------------------------------------- per node
    def refused(self, key: str) -> bool:
        row = self.row
        if row.allowed is not None:
            return key not in row.allowed
        return key in row.unsupported

    def run(self, schema: Any, dialect: str, pointer: str) -> Adapted:
        self.dialect = dialect
        self.pointer = pointer
        self.changes: list[Change] = []
        self.stop: tuple[str, str] | None = None
        self.root = schema
        out = transform(schema, self._hook, dialect)
        if isinstance(out, dict):
            out = self.root_rules(out)
            if self.strict:
                self.untyped(out, dialect)
            if self.strict and not self.row.recursion:
                from toolcat.formats.providers import recursive_refs

                rec = recursive_refs(out, dialect)
                if rec:
                    self.halt(rec[0] + ("$ref",), f"a recursive $ref ({self.row.title} "
                              "refuses recursion)")
        return Adapted(out, self.changes, self.stop)

    def note(self, path: tuple, kind: Any, what: str, **extra: Any) -> None:
        self.changes.append(Change(self.pointer + encode(path), kind, what, extra or None))

    def halt(self, path: tuple, why: str) -> None:
        if self.stop is None:
            self.stop = (self.pointer + encode(path), why)

    def _hook(self, n: Any, path: tuple, d: str) -> Any:
        if self.openapi and isinstance(n, bool):
            # the Schema object has no boolean form
            if n is False:
                self.note(path, WIDENED, "false (never valid) written as {}")
            return {}
        if not isinstance(n, dict):
            # (`additionalProperties: false` is the one boolean schema strict modes ask for; any
            # other stops strict here too, also under a keyword the provider drops: closing
            # the object it belonged to would refuse what it accepted)
            if self.strict and isinstance(n, bool) and not (
                    n is False and path and path[-1] == "additionalProperties"
                    and (len(path) < 2 or path[-2] not in _SCHEMA_MAPS)):
                self.halt(path, f"a boolean schema ({str(n).lower()}): strict modes ask every "
                          "schema for a type")
            return n
        n = dict(n)
        if self.openapi:
            n = self.openapi_rules(n, path, d)
        return self.node_rules(n, path, d)

    def node_rules(self, n: dict, path: tuple, d: str) -> dict:
        title = self.row.title
        # oneOf: read as anyOf (exact when the branches cannot overlap)
        if "oneOf" in n and self.refused("oneOf") and isinstance(n["oneOf"], list):
            branches = n.pop("oneOf")
            if "anyOf" in n:
                self.note(path + ("oneOf",), WIDENED, f"oneOf dropped ({title} does not "
                          "accept it beside anyOf)")
            else:
                n["anyOf"] = branches
                exact = _disjoint(branches, d)
                self.note(path + ("oneOf",), EXACT if exact else WIDENED,
                          "oneOf written as anyOf" + ("" if exact else
                                                      " (a value matching several branches "
                                                      "is accepted too)"))
        # allOf: merged (the lowering merged what merges exactly)
        if "allOf" in n and self.refused("allOf") and isinstance(n["allOf"], list):
            branches = n.pop("allOf")
            acc: Any = n
            lost: list[str] = []
            for b in branches:
                acc, dropped = M.merge_and_widen(acc, b, d)
                lost.extend(dropped)
            n = dict(acc) if isinstance(acc, dict) else n
            self.note(path + ("allOf",), WIDENED if lost else EXACT,
                      "allOf merged" + (f"; conflicting keywords dropped: "
                                        f"{', '.join(dict.fromkeys(lost))}" if lost else ""))
        notes: list[str] = []
        for key in list(n):
            if key in ("properties", "description") or not self.refused(key):
                continue
            value = n.pop(key)
            if key == "$schema" and d != "2020-12" and not dialect_neutral({**n, key: value}):
                # the provider reads the schema without its dialect: where draft-07 and
                # 2020-12 read it differently (tuple items, additionalItems, dependencies,
                # $ref siblings) the meaning changes
                self.note(path + (key,), CHANGED, f"$schema dropped ({title} does not accept "
                          f"it): the schema declared {value!r} and uses forms that 2020-12 "
                          "reads differently")
                continue
            if key in ANNOTATIONS:
                self.note(path + (key,), EXACT, f"{key} dropped (an annotation {title} does "
                          "not accept)")
                continue
            text = _text(key, value) if key in CONSTRAINTS else ""
            notes.append(text)
            self.note(path + (key,), WIDENED,
                      f"{key} dropped ({title} does not accept it)"
                      + (": moved into the description" if text else ""))
        fmt = n.get("format")
        if self.row.formats is not None and isinstance(fmt, str) and fmt not in self.row.formats:
            n.pop("format")
            notes.append(f"format: {fmt}")
            self.note(path + ("format",), WIDENED, f"format {fmt!r} is not one {title} accepts: "
                      "moved into the description")
        mi = n.get("minItems")
        if self.row.min_items_values is not None and "minItems" in n \
                and not (isinstance(mi, int) and not isinstance(mi, bool)
                         and mi in self.row.min_items_values):
            n.pop("minItems")
            if isinstance(mi, int) and mi > 1 and 1 in self.row.min_items_values:
                n["minItems"] = 1
            notes.append(f"minItems: {mi}")
            self.note(path + ("minItems",), WIDENED, f"minItems {mi!r} is not one {title} "
                      "accepts: moved into the description")
        n = _with_description(n, notes)
        if not self.row.type_arrays and not self.openapi and isinstance(n.get("type"), list):
            n = self.split_types(n, path, d)
        if self.strict:
            if d == "2020-12":
                n = _ref_siblings(n, path, self.note)
            n = self.close_object(n, path, d)
        return n

    def untyped(self, schema: Any, dialect: str) -> None:
        """Strict modes: stop at the first schema of the written ``schema`` that says no type
        (``{}``, ``true``, only annotations) or that is ``false`` anywhere but
        ``additionalProperties`` (where strict modes ask for it)."""
        for path, node, _d in iter_schemas(schema, dialect):
            if isinstance(node, bool):
                if node is False and path and path[-1] == "additionalProperties" and (
                        len(path) < 2 or path[-2] not in _SCHEMA_MAPS):
                    continue   # the keyword (not a property of that name)
                self.halt(path, f"a boolean schema ({str(node).lower()}): strict modes ask "
                          "every schema for a type")
                return
            if isinstance(node, dict) and not any(k in node for k in STRICT_TYPED_KEYS):
                self.halt(path, "a schema of any value (no type): strict modes ask every "
                          "schema for a type, an enum, a const or anyOf")
                return

    def close_object(self, n: dict, path: tuple, d: str) -> dict:
        """Strict modes: every object closed; a map or a free-form object stops strict."""
        t = n.get("type")
        is_obj = t == "object" or (isinstance(t, list) and "object" in t) or \
            (t is None and "properties" in n)
        if not is_obj:
            return n
        ap = n.get("additionalProperties", True)
        props = n.get("properties") if isinstance(n.get("properties"), dict) else None
        if "patternProperties" in n or (ap is not False and not M.is_trivial(ap, d)):
            self.halt(path, "an object with additionalProperties holding a schema (a map) "
                      "cannot be closed")
            return n
        if ap is not False:
            if not props and path:
                self.halt(path, "an object of any properties cannot be closed")
                return n
            n["additionalProperties"] = False
            self.note(path + ("additionalProperties",), NARROWED,
                      f"additionalProperties: false ({self.row.title} closes every object): "
                      "undeclared properties can no longer be sent")
        if self.all_required and props:
            req = rq if isinstance(rq := n.get("required"), list) else []
            missing = [k for k in props if k not in req]
            if missing:
                new_props = dict(props)
                for k in missing:
                    had_null = accepts_null(props[k], d)
                    new_props[k] = nullable(props[k], d)
                    arg = _argument(path + ("properties", k))
                    self.note(path + ("properties", k), CHANGED,
                              "optional: written as required and nullable; an argument that "
                              "is null means absent" + (" (it accepted null before: an "
                                                        "explicit null cannot be sent)"
                                                        if had_null else ""),
                              mapping={"argument": arg, "null": "absent"})
                n["properties"] = new_props
                n["required"] = list(req) + missing
        return n

    def split_types(self, n: dict, path: tuple, d: str) -> dict:
        """``type: [A, B]`` -> ``anyOf: [{type: A, A's keywords}, {type: B, ...}]`` (exact),
        for a provider that takes one type per schema but JSON Schema's ``anyOf``."""
        names = [x for x in n["type"] if isinstance(x, str)]
        if len(names) != len(n["type"]) or len(names) < 2:
            return n
        n = dict(n)
        n.pop("type")
        branches: list[dict] = []
        for x in names:
            atom = M.type_atoms(x) or frozenset()
            b: dict = {"type": x}
            for k, v in n.items():
                ka = M.KEYWORD_ATOMS.get(k)
                if ka is not None and ka & atom:
                    b[k] = v
            bp = path + ("anyOf", len(branches))
            branches.append(self.node_rules(b, bp, d))
        for k in list(n):
            if k in M.KEYWORD_ATOMS:
                n.pop(k)
        n = {"allOf": [{"anyOf": branches}], **n} if "anyOf" in n else {"anyOf": branches, **n}
        self.note(path + ("type",), EXACT, f"type union written as anyOf of single types "
                  f"({self.row.title} takes one type per schema)")
        return n

    def root_rules(self, s: dict) -> dict:
        """The top level: the combinators the provider refuses there merged (``allOf``:
        exact where the merge is) or replaced by a schema accepting every branch."""
        for key in ("allOf", "anyOf", "oneOf"):
            if key not in self.row.root_forbidden or not isinstance(s.get(key), list):
                continue
            rest = {k: v for k, v in s.items() if k != key}
            for u in ("unevaluatedProperties", "unevaluatedItems"):
                if u in rest:
                    # it sees through the combinator: merged, it would judge differently
                    rest.pop(u)
                    self.note((u,), WIDENED, f"{u} dropped: it reads the top-level {key} "
                              f"{self.row.title} refuses")
            acc: Any = rest
            lost: list[str] = []
            if key == "allOf":
                for b in s[key]:
                    acc, dropped = M.merge_and_widen(acc, b, self.dialect)
                    lost.extend(dropped)
                self.note((key,), WIDENED if lost else EXACT,
                          f"top-level allOf merged ({self.row.title} refuses it there)")
            else:
                j = M.join(s[key], self.dialect)
                acc, _dropped = M.merge_and_widen(rest, j, self.dialect)
                self.note((key,), WIDENED, f"top-level {key} replaced by a schema accepting "
                          f"every branch ({self.row.title} refuses it there)")
            if acc is False:
                # the branches together accept nothing, so neither does the tool: said with
                # `not: {}` beside the rest (exact), unless the provider refuses `not`
                if self.refused("not"):
                    self.note((key,), WIDENED, f"the top-level {key} accepts no arguments; "
                              f"{self.row.title} cannot say so (no `not`): written without it")
                    s = rest
                else:
                    self.note((key,), EXACT, f"the top-level {key} accepts no arguments: "
                              "written as not: {}")
                    s = {**rest, "not": {}}
            else:
                s = dict(acc) if isinstance(acc, dict) else rest
            if self.strict:
                s = self.close_object(s, (), self.dialect)
        if self.row.root_properties and s.get("type") == "object" and "properties" not in s:
            # `properties: {}` constrains nothing; the provider refuses an object root without
            # it (OpenAI: "object schema missing properties")
            out: dict = {}
            for k, v in s.items():
                out[k] = v
                if k == "type":
                    out["properties"] = {}
            s = out
            self.note(("properties",), EXACT, f"added empty properties ({self.row.title} "
                      "refuses an object schema without them at the top level)")
            if self.all_required and "required" not in s:
                s["required"] = []
        return s


def row(target: Any) -> Any:
    """The provider-table row whose rules ``target`` writes (None: no provider's)."""
    from toolcat.formats.providers import PROVIDERS

    return PROVIDERS[target.provider] if target.provider else None


def size_problem(schema: Any, dialect: str, r: Any) -> tuple[str, str] | None:
    """(pointer, why) of the first size limit ``schema`` exceeds for row ``r``, or None."""
    from toolcat.formats.providers import size_violations

    for message, ptr in size_violations(r, schema, dialect):
        return ptr, message
    return None


def name_limit(pattern: str) -> int:
    """The longest name ``pattern`` (a ``^[...]{1,N}$`` rule) accepts: N (64 if it says none).
    MCP's rule is 128 characters, the providers' 64: a renamed tool gets the target's."""
    import re

    m = re.search(r"\{1,(\d+)\}\$?$", pattern)
    return int(m.group(1)) if m else 64


def _name_for(tid: str, pattern: str, taken: set[str]) -> str:
    import hashlib
    import re

    rx = re.compile(pattern)
    limit = name_limit(pattern)
    name = re.sub(r"[^A-Za-z0-9_-]", "_", tid)
    if not rx.match(name) and name and not re.match(r"[A-Za-z_]", name[0]):
        name = "_" + name
    keep = limit - 9       # room for "_" + 8 hex digits
    if (len(name) > limit or not rx.match(name)) and not rx.match(name[:keep] + "_0000000a"):
        name = "tool_" + hashlib.sha256(tid.encode("utf-8")).hexdigest()[:12]
    elif len(name) > limit or not rx.match(name):
        h = hashlib.sha256(tid.encode("utf-8")).hexdigest()[:8]
        name = name[:keep] + "_" + h
    base, n = name, 2
    while name in taken:
        suffix = f"_{n}"
        name = base[:limit - len(suffix)] + suffix
        n += 1
    return name


def name_pattern(target: Any) -> str | None:
    """The tool-name rule of what ``target`` writes: its provider's (PV508) or its own
    (:attr:`~toolcat.formats.targets.Target.name_pattern`; MCP: TC102)."""
    r = row(target)
    return r.name_pattern if r is not None else target.name_pattern


def renames(ids: list, target: Any, native: list[bool] | None = None
            ) -> list[tuple[int, str, str]]:
    """The tools ``target`` must write under another name, as ``(index, new name, why)``:
    names the target refuses (PV508, TC102) and, for a provider target, names that repeat an
    earlier tool's (the provider refuses the request); deterministic and unique.

    MCP and OpenWOP (no provider row) rename only names toolcat made from another format (an
    OpenAPI operationId with ``#``): a tool already in the target's format (``native[i]``)
    keeps its name byte for byte, since its server answers to that name (lint: TC102); and
    they keep a repeated id (``--duplicate-ids`` decides, as for the input)."""
    import re

    pattern = name_pattern(target)
    if pattern is None:
        return []
    rx = re.compile(pattern)
    dedupe = target.provider is not None
    keep = [False] * len(ids) if target.provider is not None or native is None else native
    taken = {i for i in ids if isinstance(i, str) and rx.match(i)}
    seen: set[str] = set()
    out = []
    for n, (tid, kept) in enumerate(zip(ids, keep)):
        if not isinstance(tid, str):
            continue
        valid = rx.match(tid) is not None
        if kept or (valid and (tid not in seen or not dedupe)):
            seen.add(tid)
            continue
        new = _name_for(tid, pattern, taken | seen)
        taken.add(new)
        seen.add(new)
        out.append((n, new, "repeats an earlier tool's name" if valid
                    else f"does not match {pattern}"))
    return out


def fix_names(tools: list, target: Any, native: list[bool] | None = None) -> None:
    """Write the tools :func:`renames` names under their new names; each rename is a
    ``changed`` change whose mapping names the original: the caller calls that tool when the
    model calls the new name. MCP/OpenWOP: in the standard view (and the handbook) too."""
    from toolcat.features.project import _with_id

    for n, new, why in renames([t.id for t in tools], target, native):
        t = tools[n]
        old = t.id
        for d in (t.descriptor, *((t.loose[0],) if t.loose else ())):
            body = target.body(d)
            if isinstance(body, dict) and body.get(target.id_key) == old:
                body[target.id_key] = new
        if target.provider is None and t.standard is not t.descriptor:
            t.standard = _with_id(target, t.standard, new)
        t.changes.append(Change("/name", CHANGED, f"name {old!r} {why}: written as {new!r}",
                                {"mapping": {"name": new, "original": old}}))
        t.id = new


def budget(tools: list, target: Any) -> None:
    """Strict tools within the provider's per-request totals (Anthropic: 20 strict tools, 24
    optional and 16 union-typed parameters), in catalog order; the tools past a total are
    written with ``"strict": false`` (their non-strict variant, reported)."""
    from toolcat.formats.providers import strict_budget

    r = row(target)
    if r is None or r.max_strict_tools is None and r.max_optional is None and r.max_unions is None:
        return
    n = opt = uni = 0
    for t in tools:
        if t.loose is None:
            continue
        schema = target.get_schema(target.body(t.descriptor))
        o, u = strict_budget(schema, "2020-12") if isinstance(schema, dict) else (0, 0)
        fits = (r.max_strict_tools is None or n + 1 <= r.max_strict_tools) and \
            (r.max_optional is None or opt + o <= r.max_optional) and \
            (r.max_unions is None or uni + u <= r.max_unions)
        if fits:
            n, opt, uni = n + 1, opt + o, uni + u
            continue
        strict_ids = {id(c) for c in t.loose[2]}
        keep = [c for c in t.changes if id(c) not in strict_ids]
        t.descriptor = t.loose[0]
        t.changes = keep + list(t.loose[1])
        t.loose = None


def adapter(r: Any) -> Adapter | None:
    """The rewrites of provider row ``r`` (None: no row, nothing to rewrite)."""
    return Adapter(r) if r is not None else None


def adapt(schema: Any, dialect: str, r: Any, pointer: str = "") -> Adapted:
    """``schema`` rewritten into what provider row ``r`` accepts."""
    a = adapter(r)
    if a is None or not isinstance(schema, dict):
        return Adapted(schema)
    return a.run(schema, dialect, pointer)


def unexpressible_change(res: Adapted, target: str) -> Change:
    ptr, why = res.unexpressible or ("", "")
    return Change(ptr, OMITTED, f"strict: false for this tool: {why}; the schema is kept as "
                  f"written (the {target} rules hold for strict tools only)")
