"""``toolcat project --for CLIENT``: the rewrites that make a tool schema acceptable to MCP
clients (the rows of :data:`toolcat.formats.providers.CLIENTS`; issue 33), exact where they
can be, each reported (a change that is not exact with its kind and pointer):

* a client that takes one dialect only (Claude Desktop, Claude Code: 2020-12): a schema that
  declares draft-06 or draft-07 is upgraded (tuple ``items`` -> ``prefixItems``,
  ``additionalItems`` -> ``items``, ``dependencies`` -> ``dependentRequired`` /
  ``dependentSchemas``, the root's ``definitions`` -> ``$defs`` with the references moved,
  keywords only 2019-09+ defines, which every reader of the input ignores, dropped: exact)
  and its ``$schema`` dropped (MCP reads a schema without one as 2020-12). ``additionalItems``
  beside tuple ``items`` is written ``unevaluatedItems`` where that is exact (no ``contains``
  or in-place applicator beside it), else ``items``. Readers that take every schema as
  draft-07 (the MCP TypeScript SDK 1.x's validator, Ajv's draft-07 class; python-jsonschema's
  ``Draft7Validator``) read the output otherwise: ``prefixItems``, ``unevaluatedItems`` and
  ``dependent*`` are unknown to them (the tuple, the items after it, the dependencies go
  unchecked: each reported ``widened`` with ``"readers": "draft-07"`` at its pointer), and an
  ``items`` written from ``additionalItems`` applies to every item there, the tuple's own too
  (reported ``narrowed`` for them: the reason ``unevaluatedItems`` is preferred, which only
  widens). No 2020-12 form is exact under both readings (a tuple needs ``prefixItems`` in
  2020-12 and ``items: [...]``, which 2020-12 refuses, in draft-07). Where the input's
  two readers disagree no 2020-12 schema is exact under both, so the rewrite takes Ajv's
  reading (the MCP TypeScript SDK's validator, what the client's own validator is) and
  reports each such keyword ``changed`` at its pointer: a keyword beside a ``$ref``
  (python-jsonschema ignores it, as draft-06/07 say; Ajv applies it, as 2020-12 does), a
  draft-06 schema's ``if``/``then``/``else`` (Ajv reads every schema as draft-07), a
  ``format`` only 2019-09+ defines (``uuid``, ``duration``: python-jsonschema's draft-07
  checker does not know it, Ajv's formats and 2020-12 checkers do). A draft-04 schema is
  upgraded too (:func:`_draft4`: boolean ``exclusiveMaximum``/``exclusiveMinimum`` as the
  numbers; ``type: integer`` reported widened, the draft-06/07 keywords changed), and a
  subschema that declares an older ``$schema`` below a 2020-12 root (:func:`_nested`). What
  cannot be upgraded (``definitions`` referenced from below the root, a ``$schema`` of another
  dialect below the root, a ``$ref`` in a nested declaration) is kept and reported ``kept``;
* a 2020-12-only client (its validator, Ajv2020, compiles every schema): a ``pattern`` that
  is no ECMA-262 regular expression dropped, reported widened (:func:`_patterns`);
* a client that strips or refuses ``$ref``/``$defs``: every reference inlined where that is
  exact (not recursive); a recursive one is kept and reported with its pointer;
* a client that refuses a top-level object schema without ``properties``: ``"properties":
  {}`` (exact).
"""

from __future__ import annotations

from typing import Any

from toolcat.document import pointer as jp
from toolcat.schema import merge as M
from toolcat.schema.keywords import DRAFT4, DRAFT6, DRAFT7, DRAFT2020
from toolcat.schema.lower import CHANGED, EXACT, KEPT, NARROWED, WIDENED, Change
from toolcat.schema.walker import iter_schemas, node_dialect, transform

_UPGRADABLE = (DRAFT4, DRAFT6, DRAFT7)
#: formats a draft-04 schema's readers do not check (draft-06+ defines them; python-jsonschema's
#: draft-04 checker passes any string, its 2020-12 one and Ajv's formats check them)
_NEW_FORMATS_4 = ("uuid", "duration", "date", "time", "uri-reference", "uri-template",
                  "json-pointer", "relative-json-pointer", "idn-email", "idn-hostname", "iri",
                  "iri-reference")
#: keywords draft-06/07 define and draft-04 does not: python-jsonschema's draft-04 validator
#: ignores them, Ajv (which reads the schema as draft-07) and 2020-12 apply them
_DRAFT6_KEYWORDS = ("const", "contains", "propertyNames", "if", "then", "else")
#: what the report says of readers that take every schema as draft-07
_D7_READERS = ("for readers that take the schema as draft-07 (the MCP TypeScript SDK 1.x's "
               "validator, Ajv's draft-07 class; python-jsonschema's Draft7Validator)")
_D7 = {"readers": "draft-07"}
#: keywords beside which ``unevaluatedItems`` would see other evaluated items than
#: ``items`` (after ``prefixItems``) does: then ``additionalItems`` is written ``items``
_ANNOTATING = ("contains", "allOf", "anyOf", "oneOf", "if", "then", "else", "$ref")
#: formats only 2019-09+ defines: python-jsonschema's draft-07 checker passes any value,
#: its 2020-12 checker and ajv-formats (both MCP SDKs) check them
_NEW_FORMATS = ("uuid", "duration")


def clients(names: tuple[str, ...]) -> list:
    from toolcat.formats.providers import CLIENTS

    return [CLIENTS[n] for n in names]


def check(names: tuple[str, ...]) -> None:
    from toolcat.errors import UsageError
    from toolcat.formats.providers import CLIENTS

    for n in names:
        if n not in CLIENTS:
            raise UsageError(f"--for must name MCP clients: {', '.join(CLIENTS)} (got {n!r})")


def fit(schema: Any, dialect: str, names: tuple[str, ...], pointer: str,
        changes: list[Change], root: bool = True, original: Any = None) -> Any:
    """``schema`` rewritten for the clients ``names`` (see the module doc); the changes are
    appended to ``changes`` (``original``: the tool's schema before projection, whose
    pointers a dropped pattern is reported at)."""
    if not names or not isinstance(schema, dict):
        return schema
    cs = clients(names)
    who = lambda pred: ", ".join(c.title for c in cs if pred(c))  # noqa: E731
    d = node_dialect(schema, dialect)
    if any(c.dialects and d not in c.dialects for c in cs):
        schema, d = _upgrade(schema, d, pointer, changes, who(lambda c: c.dialects))
    elif any(c.dialects for c in cs):
        schema = _nested(schema, d, pointer, changes, who(lambda c: c.dialects))
    if any(c.dialects for c in cs):
        schema = _patterns(schema, d, pointer, changes, who(lambda c: c.dialects), original,
                           dialect)
    if any(c.refs for c in cs) and _has_refs(schema, d):
        from toolcat.schema.lower import lower_schema

        res = lower_schema(schema, d, inline="all", pointer=pointer, drop_schema=False)
        schema = res.schema
        changes.extend(res.changes)
        for path, node, _d in iter_schemas(schema, d):
            if isinstance(node, dict) and "$ref" in node:
                changes.append(Change(pointer + jp.encode(path + ("$ref",)), KEPT,
                                      f"$ref kept (recursive: no finite inlining); $ref "
                                      f"stripped or refused by: {who(lambda c: c.refs)}"))
    refused = frozenset().union(*(c.refused_at_root() for c in cs))
    if root and isinstance(schema, dict) and any(k in schema for k in refused):
        schema = _root_unions(schema, d, pointer, changes, refused,
                              lambda k: who(lambda c: k in c.refused_at_root()))
    if root and isinstance(schema, dict) and any(c.root_properties for c in cs) \
            and schema.get("type") == "object" and "properties" not in schema:
        schema = {**schema, "properties": {}}
        changes.append(Change(pointer + "/properties", EXACT, "added empty properties (an object schema "
                              "without them at the top level is refused by: "
                              f"{who(lambda c: c.root_properties)})"))
    return schema


def _root_unions(schema: dict, d: str, pointer: str, changes: list[Change],
                 refused: frozenset, who: Any) -> dict:
    """``schema`` without the top-level ``allOf``/``anyOf``/``oneOf`` the clients refuse
    there (Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top
    level"): an ``allOf`` merged into the root where the merge is exact
    (:func:`toolcat.schema.merge.merge_and`); an ``anyOf``/``oneOf`` written as one schema
    where that is exact (:func:`~toolcat.schema.merge.union_exact`), else widened to the
    join of its branches (:func:`~toolcat.schema.merge.join`: every branch's properties,
    ``required`` only what every branch requires), reported ``widened``; what cannot be
    merged is kept, reported ``kept``."""
    from toolcat.schema.lower import WIDENED

    out = dict(schema)
    for key in ("allOf", "anyOf", "oneOf"):
        branches = out.get(key)
        if key not in refused or not isinstance(branches, list) or not branches:
            continue
        rest = {k: v for k, v in out.items() if k != key}
        at = pointer + "/" + key
        if key == "allOf":
            merged: Any = rest
            for b in branches:
                merged = M.merge_and(merged, b, d) if merged is not None else None
            kind = EXACT
            what = f"top-level allOf of {len(branches)} merged into the root"
        else:
            u = M.union_exact(branches, d, one_of=key == "oneOf")
            kind, what = EXACT, f"top-level {key} of {len(branches)} written as one schema"
            if u is None:
                u = M.join(branches, d)
                kind = WIDENED
                what = (f"top-level {key} of {len(branches)} widened to one object schema: "
                        "every branch's properties, required only what all require (accepts "
                        "what any branch accepts, and more)")
            merged = M.merge_and(rest, u, d) if isinstance(u, (dict, bool)) else None
            if merged is None and kind == WIDENED and isinstance(u, dict):
                merged, _dropped = M.merge_and_widen(rest, u, d)
        if kind == WIDENED and isinstance(merged, dict) and _same_instances(out, merged, d):
            kind, what = EXACT, (f"top-level {key} of {len(branches)} written as one schema "
                                 "(toolcat.schema.inclusion: the same instances)")
        if not isinstance(merged, dict):
            changes.append(Change(at, KEPT, f"top-level {key} kept (no single schema merges "
                                  f"it; refused at the top level by: {who(key)})"))
            continue
        out = merged
        changes.append(Change(at, kind, f"{what} (refused at the top level by: {who(key)})"))
    return out


def _same_instances(old: dict, new: dict, d: str) -> bool:
    """Does :func:`toolcat.schema.inclusion.compare` prove that ``new`` accepts exactly
    what ``old`` accepts (no change that may narrow or widen; every property counted)?"""
    from toolcat.schema.inclusion import compare

    try:
        found = compare(old, new, d, d, interface=False).changes
    except (RecursionError, ValueError, TypeError):
        return False
    return all(c.narrows is None and c.widens is None for c in found)


def _has_refs(schema: Any, d: str) -> bool:
    return any(isinstance(n, dict) and ("$ref" in n or "$defs" in n or "definitions" in n)
               for _p, n, _d in iter_schemas(schema, d))


def _upgrade(schema: dict, d: str, pointer: str, changes: list[Change],
             who: str) -> tuple[Any, str]:
    if d not in _UPGRADABLE:
        if "$schema" in schema:
            changes.append(Change(pointer + "/$schema", KEPT,
                                  f"declares {d}: not upgraded to 2020-12 (2020-12 only: "
                                  f"{who})"))
        return schema, d
    # a draft-04/06 schema is walked as draft-07, as Ajv reads it (the reading the upgrade
    # keeps): the schemas under if/then/else (and draft-04's contains...) are upgraded too
    walk = DRAFT7 if d in (DRAFT4, DRAFT6) else d
    # (without its $schema, which the walkers would read the dialect from)
    body = {k: v for k, v in schema.items() if k != "$schema"} if walk != d else schema
    defs = schema.get("definitions")
    # the root's definitions become $defs unless the root has both (then every reference
    # stays as written: a JSON pointer resolves in either)
    move = isinstance(defs, dict) and "$defs" not in schema
    newer = _newer_keywords(d)
    # a reference into `definitions` anywhere but the root's stops the move, as does one
    # into a keyword the upgrade drops
    movable = True
    got = schema.get("$defs")
    extra: dict = got if isinstance(got, dict) else {}
    for _path, node, _nd in [x for r in (body, *extra.values()) for x in iter_schemas(r, walk)]:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if "/definitions/" in ref and not ref.startswith("#/definitions/"):
                movable = False
            if not ref.startswith("#"):
                movable = False
            if ref.startswith("#") and _moved(ref, schema, move, newer) is None:
                movable = False
        if isinstance(node, dict) and "$id" in node and _path:
            movable = False
        if d == DRAFT4 and isinstance(node, dict) and isinstance(node.get("id"), str) and _path:
            movable = False     # draft-04's $id: a resource of its own below the root
    mixed = [jp.encode(p) for p, n, _nd in iter_schemas(body, walk)
             if p and isinstance(n, dict) and "$schema" in n and node_dialect(n, d) != d]
    if mixed:
        changes.append(Change(pointer + "/$schema", KEPT,
                              f"declares {d}: not upgraded to 2020-12 (a $schema of another "
                              f"dialect below it, at {', '.join(mixed[:3])}: python-jsonschema "
                              "honours it, Ajv ignores it; 2020-12 only: " + who + ")"))
        return schema, d
    if not movable:
        changes.append(Change(pointer + "/$schema", KEPT,
                              f"declares {d}: not upgraded to 2020-12 (a reference that is not "
                              f"a local one into the root's definitions; 2020-12 only: {who})"))
        return schema, d

    def hook(n: Any, path: tuple, nd: str) -> Any:
        if not isinstance(n, dict):
            return n
        n = dict(n)
        at = pointer + jp.encode(path)
        if path and "$schema" in n:
            # the root's own dialect (another one stopped the upgrade above): upgraded with it
            changes.append(Change(at + "/$schema", EXACT, f"$schema {d} dropped (below a {d} "
                                  "root, upgraded with it)"))
            n.pop("$schema")
        for k in [k for k in n if k in newer]:
            # every reader of the input ignores it (python-jsonschema's draft-07 and Ajv's
            # draft-07 class alike); 2020-12 would apply it
            n.pop(k)
            changes.append(Change(at + "/" + jp.escape(k), EXACT, f"{k} dropped ({nd} "
                                  "defines no such keyword and its readers ignore it; "
                                  "2020-12 would apply it)"))
        if isinstance(n.get("$ref"), str):
            ref = _moved(n["$ref"], schema, move, newer)
            if ref is not None and ref != n["$ref"]:
                changes.append(Change(at + "/$ref", EXACT, f"reference {n['$ref']} moved to "
                                      f"{ref} (where the upgrade puts its target)"))
                n["$ref"] = ref
            beside = [k for k in n if k != "$ref" and M.validates(k, nd)]
            for k in beside:
                changes.append(Change(at + "/" + jp.escape(k), CHANGED,
                                      f"{k} beside $ref kept: {nd} readers disagree on it "
                                      f"(python-jsonschema ignores it, as {nd} says; Ajv, the "
                                      "MCP TypeScript SDK's validator, applies it, as 2020-12 "
                                      "does)"))
        if d == DRAFT4:
            _draft4(n, at, changes, not path)
        if d == DRAFT6:
            for k in ("if", "then", "else"):
                if k in n:
                    changes.append(Change(at + "/" + k, CHANGED, f"{k} kept: draft-06 readers "
                                          "disagree on it (python-jsonschema ignores it; Ajv, "
                                          "the MCP TypeScript SDK's validator, reads every "
                                          "schema as draft-07 and applies it, as 2020-12 does)"))
        if n.get("format") in (_NEW_FORMATS_4 if d == DRAFT4 else _NEW_FORMATS) and (
                n.get("type") in (None, "string") or (
                isinstance(n.get("type"), list) and "string" in n["type"])):
            changes.append(Change(at + "/format", CHANGED, f"format {n['format']} kept: "
                                  f"{nd} defines no such format (python-jsonschema's {nd} "
                                  "format checker passes any string; Ajv's formats, as both "
                                  "MCP SDKs load them, and 2020-12 checkers check it)"))
        items = n.get("items")
        if isinstance(items, list):
            n.pop("items")
            n["prefixItems"] = items
            changes.append(Change(at + "/items", EXACT, "tuple items written as prefixItems"))
            if not all(M.is_trivial(x, nd) for x in items):
                changes.append(Change(at + "/items", WIDENED, f"{_D7_READERS}: prefixItems "
                                      "is unknown there, the tuple's items go unchecked "
                                      "(exact for 2020-12 readers)", dict(_D7)))
            if "additionalItems" in n:
                rest = n.pop("additionalItems")
                key = _rest_key(n)
                n[key] = rest
                if key == "unevaluatedItems":
                    changes.append(Change(at + "/additionalItems", EXACT, "additionalItems "
                                          "written as unevaluatedItems (the items after "
                                          "prefixItems, as items would be)"))
                    if not M.is_trivial(rest, nd):
                        changes.append(Change(at + "/additionalItems", WIDENED,
                                              f"{_D7_READERS}: unevaluatedItems is unknown "
                                              "there, the items after the tuple go unchecked "
                                              "(exact for 2020-12 readers)", dict(_D7)))
                else:
                    changes.append(Change(at + "/additionalItems", EXACT,
                                          "additionalItems written as items"))
                    if not M.is_trivial(rest, nd):
                        changes.append(Change(
                            at + "/additionalItems", NARROWED, f"{_D7_READERS}: items applies "
                            "to every item there, the tuple's own too (arrays the input "
                            "accepts may be refused), and prefixItems is unknown (exact for "
                            "2020-12 readers; unevaluatedItems, which only widens there, is "
                            f"not exact beside {', '.join(k for k in _ANNOTATING if k in n)})",
                            dict(_D7)))
        elif "additionalItems" in n:
            n.pop("additionalItems")
            changes.append(Change(at + "/additionalItems", EXACT, "additionalItems dropped "
                                  "(without tuple items it constrains nothing)"))
        dep = n.get("dependencies")
        if isinstance(dep, dict):
            n.pop("dependencies")
            req = {k: v for k, v in dep.items() if isinstance(v, list)}
            sch = {k: v for k, v in dep.items() if not isinstance(v, list)}
            if req:
                n["dependentRequired"] = req
            if sch:
                n["dependentSchemas"] = sch
            changes.append(Change(at + "/dependencies", EXACT, "dependencies written as "
                                  "dependentRequired/dependentSchemas"))
            if not all(v == [] or M.is_trivial(v, nd) for v in dep.values()):
                changes.append(Change(at + "/dependencies", WIDENED, f"{_D7_READERS}: "
                                      "dependentRequired and dependentSchemas are unknown "
                                      "there, the dependencies go unchecked (exact for 2020-12 "
                                      "readers)", dict(_D7)))
        return n

    out = transform(body, hook, walk)
    if body is not schema:
        out = {"$schema": schema["$schema"], **out}
    if isinstance(out.get("$defs"), dict):
        # a draft-07 schema's $defs (no draft-07 keyword, but what `#/$defs/...` references
        # resolve to): its schemas are upgraded as the others
        out = {**out, "$defs": {k: transform(v, hook, walk, ("$defs", k)) if isinstance(
            v, (dict, bool)) else v for k, v in out["$defs"].items()}}
    if move and isinstance(out.get("definitions"), dict) and "$defs" not in out:
        out = {("$defs" if k == "definitions" else k): v for k, v in out.items()}
        changes.append(Change(pointer + "/definitions", EXACT, "definitions moved to $defs"))
    if "$schema" in out:
        out = {k: v for k, v in out.items() if k != "$schema"}
        changes.append(Change(pointer + "/$schema", EXACT, f"$schema {d} dropped after the "
                              f"upgrade to 2020-12 (MCP's default; 2020-12 only: {who})"))
    return out, DRAFT2020


def _nested(schema: Any, d: str, pointer: str, changes: list[Change], who: str) -> Any:
    """``schema`` (a ``d`` schema the clients take, 2020-12) with each subschema that declares
    an older ``$schema`` below its root upgraded from that dialect and without it: Ajv2020
    reads a nested ``$schema`` as nothing (it refused tuple ``items`` there), python-jsonschema
    honours it (the reading kept, and the one the schema declares). A subschema with a
    ``$ref``, an ``$id`` or a dialect that cannot be upgraded is kept, reported ``kept``."""
    found = [(p, n) for p, n, _nd in iter_schemas(schema, d)
             if p and isinstance(n, dict) and isinstance(n.get("$schema"), str)]
    outer = [(p, n) for p, n in found
             if not any(q != p and p[:len(q)] == q for q, _n in found)]
    for p, n in outer:
        nd = node_dialect(n, d)
        at = pointer + jp.encode(p)
        if nd == d:
            continue
        inside = [x for _q, x, _xd in iter_schemas(n, nd) if isinstance(x, dict)]
        if nd not in _UPGRADABLE or any("$ref" in x or "$id" in x or (
                nd == DRAFT4 and isinstance(x.get("id"), str)) for x in inside):
            changes.append(Change(at + "/$schema", KEPT, f"declares {nd} below a {d} root: not "
                                  "upgraded (a $ref or $id in it, or no upgrade from "
                                  f"{nd}); 2020-12 only: {who}"))
            continue
        new, _nd = _upgrade(n, nd, at, changes, who)
        schema = _replace(schema, p, new)
    return schema


def _patterns(schema: Any, d: str, pointer: str, changes: list[Change], who: str,
              original: Any = None, original_dialect: str | None = None) -> Any:
    """``schema`` without the ``pattern`` s that are not ECMA-262 regular expressions in its
    ``u`` mode (e.g. an inline ``(?i)``, or a lone ``]`` that only Annex B reads as the
    character: :func:`toolcat.schema.patterns.unicode_mode_error`): the validator of a 2020-12-only client (Ajv2020, ``u`` flag) refuses
    the whole schema over one; each is dropped, reported ``widened`` at its pointer (the
    schema then accepts any string there). A ``patternProperties`` name that is not one is
    kept, reported ``kept`` (dropping it could narrow: its properties would fall to
    ``additionalProperties``). Pointers are the ``original`` schema's (the tool's, before
    lowering and factoring moved its parts) wherever it holds the same pattern: every node
    with it there is widened, a superset of what is written."""
    from toolcat.schema.patterns import unicode_mode_error
    from toolcat.schema.regex import syntax_error

    def why_not(p: str) -> str | None:
        return syntax_error(p) or unicode_mode_error(p)

    reported: set[str] = set()
    # the original's pointers of each pattern text, read in one walk when first asked
    by_pattern: dict[str, list[str]] | None = None

    def where(pat: str, at: str) -> list[str]:
        nonlocal by_pattern
        if by_pattern is None:
            by_pattern = {}
            if original is not None:
                for p, n, _d in iter_schemas(original, original_dialect or d):
                    if isinstance(n, dict) and isinstance(n.get("pattern"), str):
                        by_pattern.setdefault(n["pattern"], []).append(
                            pointer + jp.encode(p + ("pattern",)))
        return by_pattern.get(pat) or [at + "/pattern"]

    def hook(n: Any, path: tuple, nd: str) -> Any:
        if not isinstance(n, dict):
            return n
        at = pointer + jp.encode(path)
        pat = n.get("pattern")
        if isinstance(pat, str) and (why := why_not(pat)) is not None:
            n = {k: v for k, v in n.items() if k != "pattern"}
            for ptr in where(pat, at):
                if ptr not in reported:
                    reported.add(ptr)
                    changes.append(Change(ptr, WIDENED, f"pattern {pat!r} dropped: not an "
                                          f"ECMA-262 regular expression ({why}), which the "
                                          f"validator of {who} refuses the schema over"))
        if n.get("enum") == []:
            # no value is valid either way; Ajv refuses to compile an empty enum
            n = {k: v for k, v in n.items() if k != "enum"}
            if "not" in n:
                n["allOf"] = [*(n.get("allOf") or []), {"not": {}}]
            else:
                n["not"] = {}
            changes.append(Change(at + "/enum", EXACT, "enum [] (no value is valid) written "
                                  "as not: {} (no value is valid): the validator of "
                                  f"{who} refuses an empty enum"))
        pp = n.get("patternProperties")
        if isinstance(pp, dict):
            for k in pp:
                if (why := why_not(k)) is not None:
                    changes.append(Change(at + "/patternProperties/" + jp.escape(k), KEPT,
                                          f"patternProperties name {k!r} kept: not an "
                                          f"ECMA-262 regular expression ({why}); refused by: "
                                          f"{who}"))
        return n

    if not any(isinstance(n, dict) and ("pattern" in n or "patternProperties" in n
                                        or n.get("enum") == [])
               for _p, n, _d in iter_schemas(schema, d)):
        return schema
    return transform(schema, hook, d)


def _replace(root: Any, path: tuple, new: Any) -> Any:
    """``root`` with the node at ``path`` (keys and list indices) replaced by ``new``; the
    containers on the way copied, the rest shared."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(root, list):
        out_l = list(root)
        out_l[head] = _replace(root[head], rest, new)
        return out_l
    return {**root, head: _replace(root[head], rest, new)}


def _draft4(n: dict, at: str, changes: list[Change], root: bool) -> None:
    """The draft-04 forms of one schema object ``n`` (a copy, changed in place) as 2020-12
    writes them: boolean ``exclusiveMaximum``/``exclusiveMinimum`` beside ``maximum``/
    ``minimum`` become the numbers (exact; alone, or false, they constrain nothing: dropped);
    a root ``id`` (a base URI no local reference needs) is dropped. What 2020-12 reads
    otherwise is reported: ``type`` ``integer`` (draft-04 refuses ``1.0``, 2020-12 takes it:
    widened), the keywords draft-06/07 added (draft-04's python-jsonschema ignores them, Ajv
    reads the schema as draft-07 and applies them, as 2020-12 does: kept, changed)."""
    for ex, bound in (("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")):
        v = n.get(ex)
        if not isinstance(v, bool):
            continue
        if v and isinstance(n.get(bound), (int, float)) and not isinstance(n[bound], bool):
            n[ex] = n.pop(bound)
            changes.append(Change(at + "/" + ex, EXACT, f"{ex}: true with {bound} {n[ex]} "
                                  f"written as {ex}: {n[ex]} (draft-04's boolean form)"))
        else:
            n.pop(ex)
            changes.append(Change(at + "/" + ex, EXACT, f"{ex}: {str(v).lower()} dropped "
                                  f"(draft-04's boolean form; it constrains nothing "
                                  f"{'without ' + bound if v else 'when false'})"))
    if root and isinstance(n.get("id"), str):
        n.pop("id")
        changes.append(Change(at + "/id", EXACT, "id dropped (draft-04's base URI; every "
                              "reference here is local)"))
    t = n.get("type")
    if t == "integer" or (isinstance(t, list) and "integer" in t):
        changes.append(Change(at + "/type", WIDENED, "type integer: draft-04 readers refuse "
                              "1.0 (a number with a fraction part of zero), 2020-12 accepts it"))
    for k in _DRAFT6_KEYWORDS:
        if k in n:
            changes.append(Change(at + "/" + k, CHANGED, f"{k} kept: draft-04 readers disagree "
                                  "on it (python-jsonschema ignores it, as draft-04 defines no "
                                  "such keyword; Ajv, the MCP TypeScript SDK's validator, reads "
                                  "every schema as draft-07 and applies it, as 2020-12 does)"))


def _moved(ref: str, root: dict, move: bool, newer: frozenset) -> str | None:
    """The local reference ``ref`` (into ``root``, as written) as the upgrade places its
    target: through tuple ``items`` (``prefixItems``), ``additionalItems`` beside them
    (``items``), ``dependencies`` (``dependentRequired``/``dependentSchemas``), the root's
    ``definitions`` (``$defs``, when ``move``); None when its target is dropped (a keyword
    of ``newer``, ``additionalItems`` without tuple ``items``) or cannot be read. A
    reference that does not point into the schema (an ``$id``, ``#``) comes back as it is."""
    if not ref.startswith("#/"):
        return ref
    try:
        tokens = jp.decode_fragment(ref[1:])
    except (KeyError, ValueError):
        return None
    node: Any = root
    out: list[str] = []
    changed = False
    for i, t in enumerate(tokens):
        new = t
        if isinstance(node, dict):
            if t in newer:
                return None
            if t == "items" and isinstance(node.get("items"), list):
                new = "prefixItems"
            elif t == "additionalItems":
                if not isinstance(node.get("items"), list):
                    return None
                new = _rest_key({k: v for k, v in node.items() if k not in newer})
            elif t == "dependencies" and isinstance(node.get(t), dict) and i + 1 < len(tokens):
                new = ("dependentRequired" if isinstance(node[t].get(tokens[i + 1]), list)
                       else "dependentSchemas")
            elif t == "definitions" and i == 0 and move:
                new = "$defs"
            node = node.get(t)
        elif isinstance(node, list) and t.isdigit() and int(t) < len(node):
            node = node[int(t)]
        else:
            return ref      # a reference to nothing: left for the readers to refuse alike
        changed |= new != t
        out.append(new)
    if not changed:
        return ref
    # only the renamed tokens replaced: the others keep their escapes as written
    raw = ref[2:].split("/")
    if len(raw) != len(out):
        return None
    return "#/" + "/".join(o if o != t else r for r, t, o in zip(raw, tokens, out))


def _rest_key(node: dict) -> str:
    """Where the upgrade writes the ``additionalItems`` of a node with tuple ``items``
    (``node``: its keywords once the upgrade has dropped those its dialect does not define):
    ``unevaluatedItems`` (2020-12: the items no adjacent keyword evaluated, here the ones
    after ``prefixItems``; unknown to a draft-07 reader, which then checks less, never more),
    or ``items`` beside a keyword that evaluates items itself or through a subschema."""
    return "items" if any(k in node for k in _ANNOTATING) else "unevaluatedItems"


def _newer_keywords(d: str) -> frozenset[str]:
    """The keywords that validate in 2020-12, which dialect ``d`` does not define and no
    reader of a ``d`` schema applies (Ajv's draft-07 class, as both MCP SDKs make it, does
    not know them either): ``prefixItems``, ``dependentRequired``, ``unevaluated*``..."""
    from toolcat.schema.keywords import KEYWORDS

    return frozenset(k for k in KEYWORDS[DRAFT2020] if M.validates(k, DRAFT2020)
                     and k not in KEYWORDS[d] and not M.validates(k, DRAFT7))


# ----------------------------------------------------------------------------- names

def name_room(names: tuple[str, ...], server: str, plugin: str | None = None,
              served_prefix: str = "") -> tuple[int, Any] | None:
    """The longest tool name every client of ``names`` sends within its provider's limit,
    once it has put its prefix (with ``server``, and ``plugin`` where the client names a
    plugin's servers apart) and ``served_prefix`` (``toolcat serve``'s ``<upstream>__`` of
    several upstreams) before it: ``(room, the client that limits it)``; None when no client
    of ``names`` prefixes names under a limit."""
    best = None
    for c in clients(names):
        room = c.name_room(server, plugin)
        if room is not None and (best is None or room - len(served_prefix) < best[0]):
            best = (room - len(served_prefix), c)
    return best


def short_name(name: str, room: int, taken: set[str]) -> str | None:
    """``name`` cut to ``room`` characters, deterministically: its first ``room - 9``
    characters, ``_`` and 8 hex digits of its SHA-256 (so two names cut alike stay apart),
    then ``_2``, ``_3``... while the result is in ``taken``; None when ``room`` is under 10
    (no name that short would stay distinct and readable)."""
    import hashlib

    if room < 10:
        return None
    h = hashlib.sha256(name.encode("utf-8")).hexdigest()
    base = name[:room - 9].rstrip("_-.") + "_" + h[:8]
    out, n = base, 2
    while out in taken:
        suffix = f"_{n}"
        out = base[:room - len(suffix)] + suffix
        n += 1
    return out


def shorten_names(tools: list, cats: list, target: Any, opts: Any) -> list[str]:
    """Rename the projected ``tools`` (``cats[i]``: the catalog of ``tools[i]``) whose name,
    as a client of ``opts.for_clients`` sends it (its prefix counted: Claude Code's
    ``mcp__<server>__<tool>``), is longer than its provider takes: each rename is a
    ``changed`` change at ``/name`` whose mapping names the original (the name the server
    answers to). Returns the warning lines (old -> new, or why a name could not be
    shortened), one per catalog."""
    from toolcat.features.project import _with_id
    from toolcat.formats.providers import server_name
    from toolcat.schema.lower import CHANGED

    taken = {t.id for t in tools if isinstance(t.id, str)}
    said: dict[int, tuple[str, Any, list[str]]] = {}
    for t, cat in zip(tools, cats):
        if not isinstance(t.id, str):
            continue
        server = opts.server_name or server_name(cat)
        got = name_room(tuple(opts.for_clients), server, opts.plugin, opts.name_prefix)
        if got is None or len(t.id) <= got[0]:
            continue
        room, c = got
        sent = c.sent_name(server, opts.name_prefix + t.id, opts.plugin)
        entry = said.setdefault(id(cat), (server, c, []))
        new = short_name(t.id, room, taken)
        if new is None:
            t.changes.append(Change("/name", KEPT, f"{c.title} sends this tool as {sent!r}, "
                                    f"more than {c.name_max} characters, and the prefix "
                                    "leaves no room for a name: give the server a shorter "
                                    "name"))
            entry[2].append(f"{t.id} (no room: shorten the server's name)")
            continue
        taken.add(new)
        old = t.id
        body = target.body(t.descriptor)
        if isinstance(body, dict) and body.get(target.id_key) == old:
            body[target.id_key] = new
        if t.standard is not t.descriptor:
            t.standard = _with_id(target, t.standard, new)
        t.changes.append(Change("/name", CHANGED, f"name {old!r}: {c.title} would send it as "
                                f"{sent!r} ({len(sent)} characters, more than "
                                f"{c.name_max}): written as {new!r}",
                                {"mapping": {"name": new, "original": old}}))
        t.id = new
        entry[2].append(f"{old} -> {new}")
    out = []
    for server, c, lines in said.values():
        fmt = c.plugin_tool_name if opts.plugin and c.plugin_tool_name else c.tool_name
        out.append(f"{len(lines)} tool name{'s' if len(lines) != 1 else ''} shortened for "
                   f"{c.title} ({fmt} within {c.name_max} characters, server {server!r}"
                   + (f", plugin {opts.plugin!r}" if opts.plugin else "") + "; --server-name "
                   "sets the server's name): " + ", ".join(lines))
    return out
