"""``toolcat project --for CLIENT``: the exact rewrites that make a tool schema acceptable to
MCP clients (the rows of :data:`toolcat.formats.providers.CLIENTS`; issue 33), each reported:

* a client that takes one dialect only (Claude Desktop, Claude Code: 2020-12): a schema that
  declares draft-06 or draft-07 is upgraded exactly (tuple ``items`` -> ``prefixItems``,
  ``additionalItems`` -> ``items``, ``dependencies`` -> ``dependentRequired`` /
  ``dependentSchemas``, the root's ``definitions`` -> ``$defs`` with the references moved,
  the keywords beside a ``$ref``, which draft-07 ignores, dropped) and its ``$schema``
  dropped (MCP reads a schema without one as 2020-12); what cannot be upgraded exactly
  (draft-04, ``definitions`` referenced from below the root) is kept and reported;
* a client that strips or refuses ``$ref``/``$defs``: every reference inlined where that is
  exact (not recursive); a recursive one is kept and reported with its pointer;
* a client that refuses a top-level object schema without ``properties``: ``"properties":
  {}`` (exact).
"""

from __future__ import annotations

from typing import Any

from toolcat.document import pointer as jp
from toolcat.project.lower import EXACT, KEPT, Change
from toolcat.schema import merge as M
from toolcat.schema.keywords import DRAFT6, DRAFT7, DRAFT2020
from toolcat.schema.walker import iter_schemas, node_dialect, transform

_UPGRADABLE = (DRAFT6, DRAFT7)


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
        changes: list[Change], root: bool = True) -> Any:
    """``schema`` rewritten for the clients ``names`` (see the module doc); the changes are
    appended to ``changes``."""
    if not names or not isinstance(schema, dict):
        return schema
    cs = clients(names)
    who = lambda pred: ", ".join(c.title for c in cs if pred(c))  # noqa: E731
    d = node_dialect(schema, dialect)
    if any(c.dialects and d not in c.dialects for c in cs):
        schema, d = _upgrade(schema, d, pointer, changes, who(lambda c: c.dialects))
    if any(c.refs for c in cs) and _has_refs(schema, d):
        from toolcat.project.lower import lower_schema

        res = lower_schema(schema, d, inline="all", pointer=pointer, drop_schema=False)
        schema = res.schema
        changes.extend(res.changes)
        for path, node, _d in iter_schemas(schema, d):
            if isinstance(node, dict) and "$ref" in node:
                changes.append(Change(pointer + jp.encode(path + ("$ref",)), KEPT,
                                      f"$ref kept (recursive: no finite inlining); $ref "
                                      f"stripped or refused by: {who(lambda c: c.refs)}"))
    if root and isinstance(schema, dict) and any(c.root_properties for c in cs) \
            and schema.get("type") == "object" and "properties" not in schema:
        schema = {**schema, "properties": {}}
        changes.append(Change(pointer + "/properties", EXACT, "added empty properties (an object schema "
                              "without them at the top level is refused by: "
                              f"{who(lambda c: c.root_properties)})"))
    return schema


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
    defs = schema.get("definitions")
    # a reference into `definitions` anywhere but the root's stops the move
    movable = True
    for _path, node, _nd in iter_schemas(schema, d):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if "/definitions/" in ref and not ref.startswith("#/definitions/"):
                movable = False
            if not ref.startswith("#"):
                movable = False
        if isinstance(node, dict) and "$id" in node and _path:
            movable = False
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
        if isinstance(n.get("$ref"), str):
            if n["$ref"].startswith("#/definitions/"):
                n["$ref"] = "#/$defs/" + n["$ref"][len("#/definitions/"):]
                changes.append(Change(at + "/$ref", EXACT, "reference into definitions "
                                      "moved to $defs"))
            ignored = [k for k in n if k != "$ref" and M.validates(k, nd)
                       and not (not path and k in ("definitions", "$schema"))]
            for k in ignored:
                n.pop(k)
                changes.append(Change(at + "/" + jp.escape(k), EXACT,
                                      f"{k} beside $ref dropped ({nd} ignores it there)"))
        items = n.get("items")
        if isinstance(items, list):
            n.pop("items")
            n["prefixItems"] = items
            changes.append(Change(at + "/items", EXACT, "tuple items written as prefixItems"))
            if "additionalItems" in n:
                n["items"] = n.pop("additionalItems")
                changes.append(Change(at + "/additionalItems", EXACT,
                                      "additionalItems written as items"))
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
        return n

    out = transform(schema, hook, d)
    if isinstance(defs, dict) and isinstance(out.get("definitions"), dict) and "$defs" not in out:
        out = {("$defs" if k == "definitions" else k): v for k, v in out.items()}
        changes.append(Change(pointer + "/definitions", EXACT, "definitions moved to $defs"))
    if "$schema" in out:
        out = {k: v for k, v in out.items() if k != "$schema"}
        changes.append(Change(pointer + "/$schema", EXACT, f"$schema {d} dropped after the "
                              f"upgrade to 2020-12 (MCP's default; 2020-12 only: {who})"))
    return out, DRAFT2020
