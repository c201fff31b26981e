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
    from toolcat.project.lower import WIDENED

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
    from toolcat.formats.providers import server_name
    from toolcat.project import _with_id
    from toolcat.project.lower import CHANGED

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
