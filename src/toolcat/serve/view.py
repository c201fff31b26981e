"""What ``toolcat serve`` serves: the compact view of the upstream's tools, their handbook,
and the added handbook tool (no MCP SDK here).

The compact view is :func:`toolcat.project.project_catalogs` with target ``mcp`` on the
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


@dataclass
class View:
    """One projection of the upstream's tools, made once (``tools/list`` is byte-stable)."""

    tools: list[dict]                 # tools/list: the compact upstream tools, then the handbook tool
    handbook: dict[str, Any]          # tool name -> full descriptor (as the upstream sent it)
    handbook_name: str
    upstream: list = field(default_factory=list)   # the upstream's tools, as sent
    projection: Any = None            # toolcat.project.Projection

    @property
    def upstream_names(self) -> list[str]:
        return [t["name"] for t in self.tools if t["name"] != self.handbook_name]

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


def _tool_error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def build_view(catalog: Any, settings: Any, handbook_name: str) -> View:
    """The view of ``catalog`` (the upstream's live catalog) with the projection options
    ``settings`` (:class:`toolcat.project.ProjectOptions`, target ``mcp``)."""
    import json

    from toolcat.project import project_catalogs

    proj = project_catalogs([catalog], settings)
    listed = json.loads(proj.array_bytes())        # fresh data, canonical key order
    handbook = proj.handbook()["tools"]
    if handbook_name in handbook:
        raise InputError(f"the server has a tool named {handbook_name!r}: give the handbook "
                         "tool another name with --handbook-tool NAME", catalog.file)
    upstream = [t.raw for t in catalog.tools]
    return View(tools=listed + [handbook_tool(handbook_name)], handbook=handbook,
                handbook_name=handbook_name, upstream=upstream, projection=proj)
