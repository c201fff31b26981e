"""What ``toolcat serve`` serves: the compact view of the upstream's tools, their handbook,
and the added handbook tool (no MCP SDK here).

The compact view is :func:`toolcat.features.project.project_catalogs` with target ``mcp`` on the
upstream's catalog as every live command reads it (:func:`toolcat.formats.live.capture.
to_catalog`), with ``toolcat project``'s options: so ``tools/list`` of ``toolcat serve
--server CMD`` lists exactly what ``toolcat project --server CMD`` writes (the same tools,
the same schemas), plus the handbook tool. The ``mcp`` target rewrites schemas only where the
rewrite is exact (no ``--subset``): every served schema accepts what the upstream's accepts.

The handbook maps each tool's name to its full standard descriptor (``toolcat project
--handbook``'s entries), which for an MCP upstream is the tool as the upstream sent it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolcat.errors import InputError, UsageError

#: MCP tool names (2025-11-25: 1 to 128 of A-Z a-z 0-9 _ - .)
NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,128}")

HANDBOOK_DESCRIPTION = (
    "The full documentation of one of this server's tools: its complete description and its "
    "input and output schemas with every field described. The tools listed here are "
    "shortened; call this before using a tool whose purpose, arguments or result are unclear.")


def check_tool_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise UsageError("--handbook-tool must be an MCP tool name (1 to 128 of A-Z a-z 0-9 "
                         f"_ - .; got {name!r})")
    return name


def handbook_tool(name: str) -> dict:
    """The added tool's descriptor (what ``tools/list`` shows of it)."""
    return {
        "name": name,
        "description": HANDBOOK_DESCRIPTION,
        "inputSchema": {"type": "object",
                        "properties": {"name": {"type": "string",
                                                "description": "The tool's name."}},
                        "required": ["name"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    }


#: The largest ``tools/list`` served on one page (its tools' JSON bytes). Clients read one
#: page (the MCP SDKs' ``list_tools()``, the Inspector), so the list is one page however the
#: upstreams paged theirs; only a list beyond any real server's (the largest real lists are
#: under 1 MB) is split, so that no one message grows without bound.
PAGE_BYTES = 8 * 1024 * 1024

#: Between a server's prefix and a tool's name when several upstreams are served (Claude
#: Code's ``mcp__<server>__<tool>`` without its ``mcp__``: the host adds its own).
SEPARATOR = "__"


def served_name(prefix: str | None, name: str) -> str:
    return name if prefix is None else f"{prefix}{SEPARATOR}{name}"


@dataclass
class Part:
    """One upstream's share of the view."""

    prefix: str | None                # None: the only upstream (names as they are)
    label: str                        # the server's name in messages
    listed: list[dict]                # its tools as served (served names), in its order
    upstream: list[dict]              # its tools as it sent them
    projection: Any = None            # toolcat.features.project.Projection of its catalog
    pages: list[int] = field(default_factory=list)   # its tools/list page sizes (upstream)


@dataclass
class View:
    """One projection of the upstreams' tools (``tools/list`` is byte-stable)."""

    tools: list[dict]                 # tools/list: the compact upstream tools, then the handbook tool
    handbook: dict[str, Any]          # served name -> full descriptor (as the upstream sent it)
    handbook_name: str
    upstream: list = field(default_factory=list)   # the upstreams' tools, as sent
    projection: Any = None            # toolcat.features.project.Projection (the first upstream's)
    routes: dict[str, tuple[int, str]] = field(default_factory=dict)  # served -> (part, name)
    parts: list[Part] = field(default_factory=list)
    #: --deny-poisoned: served name -> the TP rules it breaks (not listed, calls refused)
    denied: dict[str, list[str]] = field(default_factory=dict)
    _pages: list[list[dict]] | None = field(default=None, repr=False, compare=False)
    _checks: dict = field(default_factory=dict, repr=False, compare=False)

    def check_arguments(self, name: str, arguments: Any, repair: bool = True) -> Any:
        """The upstream's own input schema of the served tool ``name`` on ``arguments``: a
        :class:`toolcat.features.serve.arguments.Verdict` (an empty one when the tool is not known).
        Runs in a worker thread (the checks of one tool share nothing but the validator)."""
        from toolcat.features.serve.arguments import ArgumentCheck, Verdict

        desc = self.handbook.get(name)
        if not isinstance(desc, dict):
            return Verdict()
        check = self._checks.get(name)
        if check is None:
            check = self._checks.setdefault(name, ArgumentCheck(desc.get("inputSchema")))
        return check.check(name, arguments, repair)

    def unportable(self) -> list[str]:
        """``serve --for CLIENT``: one line for the served log per rewrite that is not exact
        (a recursive ``$ref`` kept, a dialect not upgraded, a name shortened, a root union
        widened...), ``served name: pointer kind: what``; empty without ``--for``."""
        from toolcat.schema.lower import EXACT

        out = []
        for part in self.parts:
            proj = part.projection
            if proj is None or not proj.options.for_clients:
                continue
            for pt, t in zip(proj.tools, part.listed):
                for c in pt.changes:
                    schema = c.pointer.startswith(("/inputSchema", "/outputSchema"))
                    if c.kind != EXACT and (c in pt.lossy() if schema else c.pointer == "/name"):
                        out.append(f"toolcat: {t['name']}: {c.pointer} {c.kind.value}: {c.what}")
        return out

    @property
    def upstream_names(self) -> list[str]:
        return [t["name"] for t in self.tools if t["name"] != self.handbook_name]

    def pages(self) -> list[list[dict]]:
        """``tools/list`` page by page: one page, every tool and the handbook tool last
        (clients that read one page, as the MCP SDKs' ``list_tools()`` and the Inspector do,
        see every tool whatever the upstreams paged). Only a list larger than
        :data:`PAGE_BYTES` is paged: at tool boundaries, each page under it where a tool
        allows, the handbook tool at the end of the first page. Their union is :attr:`tools`
        (the handbook tool moved)."""
        if self._pages is not None:
            return self._pages
        from toolcat.document.canonical import dumps

        sizes = [len(dumps(t)) + 1 for t in self.tools]
        if sum(sizes) <= PAGE_BYTES:
            self._pages = [list(self.tools)]
            return self._pages
        book, rest = self.tools[-1], self.tools[:-1]
        out: list[list[dict]] = [[]]
        room = PAGE_BYTES - sizes[-1]
        for tool, size in zip(rest, sizes):
            if out[-1] and size > room:
                out.append([])
                room = PAGE_BYTES
            out[-1].append(tool)
            room -= size
        out[0].append(book)
        self._pages = out
        return out

    def cursor(self, index: int, generation: int) -> str:
        """The opaque ``nextCursor`` of page ``index`` of view ``generation``."""
        return f"toolcat-{generation}-{index}"

    def page_of(self, cursor: str, generation: int) -> int | None:
        """The page a cursor of this view names (None: not one of this view's)."""
        m = re.fullmatch(r"toolcat-(\d+)-(\d+)", cursor)
        if not m or int(m.group(1)) != generation:
            return None
        index = int(m.group(2))
        return index if 0 < index < len(self.pages()) else None

    def standard_bytes(self) -> list[bytes]:
        """Each upstream's tools as standard descriptors (what the start-up line counts)."""
        return [p.projection.standard_bytes() for p in self.parts]

    def handbook_result(self, arguments: Any) -> dict:
        """The result of a call of the handbook tool (a ``CallToolResult`` as JSON data): the
        descriptor as minified JSON text, or a tool error (``isError``) the model can act on."""
        from toolcat.document.canonical import dumps

        name = arguments.get("name") if isinstance(arguments, dict) else None
        if not isinstance(name, str):
            return _tool_error(f"{self.handbook_name} needs the argument name: the name of a "
                               "tool listed by this server")
        if name == self.handbook_name:
            descriptor: Any = handbook_tool(self.handbook_name)
        elif name in self.handbook:
            descriptor = self.handbook[name]
        else:
            import difflib

            near = difflib.get_close_matches(name, list(self.handbook), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            return _tool_error(f"this server has no tool named {name!r}{hint}")
        return {"content": [{"type": "text", "text": dumps(descriptor).decode("utf-8")}],
                "isError": False}


#: ``serve --for``'s assumption, with several upstreams and no ``--server-name``: the name of
#: toolcat serve's entry in the client's configuration (its tool-name prefix)
SERVED_NAME = "toolcat"


def _part_settings(settings: Any, prefix: str | None) -> Any:
    """The projection options of one upstream's share: with ``--for`` and several upstreams,
    the client's name limit counts ``<prefix>__`` and the client's own prefix is that of
    toolcat serve's entry (``--server-name``, else :data:`SERVED_NAME`)."""
    if prefix is None or not settings.for_clients:
        return settings
    import dataclasses

    return dataclasses.replace(settings, name_prefix=prefix + SEPARATOR,
                               server_name=settings.server_name or SERVED_NAME)


def _original_name(pt: Any) -> str:
    """The name the upstream gave a projected tool (``pt.id`` unless it was renamed: a
    ``changed`` change at ``/name`` maps the new name to the original)."""
    for c in pt.changes:
        m = (c.extra or {}).get("mapping") if c.pointer == "/name" else None
        if isinstance(m, dict) and m.get("name") == pt.id and isinstance(m.get("original"), str):
            return m["original"]
    return pt.id


def _tool_error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


#: Where a start-up problem of the view is reported when several servers are involved.
SERVE = "toolcat serve"


def build_view(catalogs: Any, settings: Any, handbook_name: str,
               prefixes: list[str | None] | None = None,
               pages: list[list[int]] | None = None, deny: bool = False) -> View:
    """The view of ``catalogs`` (the upstreams' live catalogs; one catalog alone is one
    upstream) with the projection options ``settings`` (:class:`toolcat.features.project.
    ProjectOptions`, target ``mcp``). Each catalog is projected on its own; with several,
    ``prefixes`` names them (each tool served as ``<prefix>__<name>``). A served name that is
    no MCP tool name, or two tools served under one name, is an :class:`InputError`.
    ``deny``: tools the poisoned-tool rules flag are left out (:mod:`toolcat.features.serve.deny`)."""
    import json

    from toolcat.features.project import project_catalogs

    cats = catalogs if isinstance(catalogs, list) else [catalogs]
    prefixes = prefixes if prefixes is not None else [None] * len(cats)
    where: dict[str, str] = {}      # served name -> which server's tool
    parts: list[Part] = []
    routes: dict[str, tuple[int, str]] = {}
    handbook: dict[str, Any] = {}
    listed_all: list[dict] = []
    denied: dict[str, list[str]] = {}
    for i, (cat, prefix) in enumerate(zip(cats, prefixes)):
        if deny:
            from toolcat.features.serve.deny import split

            cat, bad = split(cat)
            denied.update((served_name(prefix, n), r) for n, r in bad.items())
        proj = project_catalogs([cat], _part_settings(settings, prefix))
        listed = json.loads(proj.array_bytes())        # fresh data, canonical key order
        book = proj.handbook()["tools"]
        for t, pt in zip(listed, proj.tools):
            projected = t["name"]
            # the upstream's own name (a name --for shortened is called by its original)
            original = _original_name(pt)
            name = served_name(prefix, projected)
            if prefix is not None and not NAME_RE.fullmatch(name):
                raise InputError(f"tool {original!r} would be served as {name!r}, which is no "
                                 "MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .): give the "
                                 "server a shorter name", cat.file)
            said = f"tool {original!r} of {cat.file}"
            if name == handbook_name:
                raise InputError(
                    f"the server has a tool named {handbook_name!r}: give the handbook tool "
                    "another name with --handbook-tool NAME" if prefix is None else
                    f"{said} would be served as {name!r}, the handbook tool's name: give the "
                    "handbook tool another name with --handbook-tool NAME", cat.file)
            if name in where:
                raise InputError(f"two tools would be served as {name!r}: {where[name]} and "
                                 f"{said} (rename a server: its name in the client "
                                 "configuration is the prefix)", SERVE)
            where[name] = said
            routes[name] = (i, original)
            t["name"] = name
            desc = book[projected]
            handbook[name] = desc if name == desc.get("name") else {**desc, "name": name}
        listed_all += listed
        parts.append(Part(prefix=prefix, label=cat.file, listed=listed,
                          upstream=[t.raw for t in cat.tools], projection=proj,
                          pages=list(pages[i]) if pages else [len(listed)]))
    return View(tools=listed_all + [handbook_tool(handbook_name)], handbook=handbook,
                handbook_name=handbook_name, upstream=[t for p in parts for t in p.upstream],
                projection=parts[0].projection if parts else None, routes=routes,
                parts=parts, denied=denied)
