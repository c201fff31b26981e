"""docker/mcp-registry ``tools.json``: a bare array of an MCP server's tools in the registry's own
shape (``servers/<name>/tools.json``, what Docker's MCP catalog lists for a server)::

    [{"name": "...", "description": "...",
      "arguments": [{"name": "...", "type": "string", "desc": "...", "optional": true,
                     "items": {"type": "string"}}],
      "annotations": {"title": "...", "readOnlyHint": true}}]

The shape is the registry's Go type ``Tool``/``ToolArgument`` (``internal/mcp/types.go``):
``arguments``, ``items``, ``optional`` and ``annotations`` are ``omitempty``, so an argument
without ``optional`` is required (``optional`` is false), a tool without ``arguments`` takes
none. ``internal/mcp/helper.go`` writes these files from a server's ``tools/list``:
``type`` is the property's JSON Schema type (``string`` when it had none), ``items`` the
array's item type, ``desc`` its description and ``optional`` is true exactly when the
property is not in the inputSchema's ``required``; ``cmd/validate`` requires a ``desc``.

Each tool becomes an MCP tool whose ``inputSchema`` is ``{"type": "object", "properties":
{name: {"type", "items", "description"}}, "required": [...]}`` (properties in file order, a
``type`` or ``items`` only where the file gives one). The registry's files of MCP tools as
``tools/list`` returns them (``inputSchema`` instead of ``arguments``) are MCP catalogs.
"""

from __future__ import annotations

from typing import Any

from toolcat.formats.arrays import not_an_object, str_or_none
from toolcat.formats.registry import Format
from toolcat.model import DOCKER, Catalog, Problem, Tool

#: the fields of the registry's Tool type
TOOL_FIELDS = frozenset({"name", "description", "arguments", "annotations"})
ARGUMENT_FIELDS = frozenset({"name", "type", "items", "desc", "optional"})


def is_docker_tools(doc: Any) -> bool:
    """A bare array of objects in the registry's Tool shape, none with an MCP ``inputSchema``:
    each has a string ``name``, a ``description`` or ``arguments``, and no field the
    registry's Tool type lacks; ``arguments``, where present, is a list."""
    if not isinstance(doc, list) or not doc:
        return False
    for item in doc:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return False
        if not TOOL_FIELDS.issuperset(item) or not ("description" in item or "arguments" in item):
            return False
        if "arguments" in item and not isinstance(item["arguments"], list):
            return False
    return True


def _argument_schema(arg: dict) -> dict:
    s: dict = {}
    t = arg.get("type")
    if t is not None and t != "":
        s["type"] = t
    items = arg.get("items")
    if isinstance(items, dict):
        it = items.get("type")
        s["items"] = {"type": it} if it is not None and it != "" else {}
    desc = arg.get("desc")
    if isinstance(desc, str) and desc:
        s["description"] = desc
    return s


def docker_tool(item: Any, file: str, pointer: str, cat: Catalog) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    tid = name if isinstance(name, str) else None
    props: dict = {}
    required: list[str] = []
    origin: list[tuple[str, str]] = [("", pointer), ("/inputSchema", "\0" + pointer)]
    args = item.get("arguments")
    if isinstance(args, list):
        origin.append(("/inputSchema/properties", "\0" + pointer + "/arguments"))
        for i, arg in enumerate(args):
            ap = f"{pointer}/arguments/{i}"
            aname = arg.get("name") if isinstance(arg, dict) else None
            if not isinstance(aname, str) or not aname:
                cat.problems.append(Problem("SC301", "argument has no name (a non-empty string "
                                            "is required); left out of the inputSchema",
                                            file, ap, tid, blocking=False))
                continue
            if aname in props:
                cat.problems.append(Problem("SC301", f"argument {aname!r} appears twice; the "
                                            "second is left out of the inputSchema", file,
                                            ap + "/name", tid, blocking=False))
                continue
            props[aname] = _argument_schema(arg)
            from toolcat.document.pointer import escape

            pp = "/inputSchema/properties/" + escape(aname)
            origin += [(pp, ap), (pp + "/description", ap + "/desc")]
            if arg.get("optional") is not True:
                required.append(aname)
    schema: dict = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    ann = item.get("annotations")
    if isinstance(ann, dict):
        origin.append(("/annotations", pointer + "/annotations"))
    return Tool(
        id=tid,
        description=str_or_none(item.get("description")),
        input_schema=schema,
        annotations=ann if isinstance(ann, dict) else None,
        extra={k: v for k, v in item.items() if k not in TOOL_FIELDS},
        raw=item,
        file=file,
        pointer=pointer,
        origin=origin,
    )


def load_docker(doc: Any, path: str) -> Catalog:
    tools: list[Tool] = []
    cat = Catalog(file=path, format=DOCKER, tools=tools, document=doc, meta={"envelope": "array"})
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            tools.append(docker_tool(item, path, f"/{i}", cat))
    return cat


def _misfit(doc: Any) -> str | None:
    from toolcat.formats.detect import misfit_items

    return misfit_items(doc, DOCKER, array_only=True, accepts=lambda t: isinstance(
        t.get("name"), str) and TOOL_FIELDS.issuperset(t))


FORMATS = (Format(
    DOCKER, "docker/mcp-registry", "docker/mcp-registry tools.json",
    lambda doc, src, path, opts: load_docker(doc, path),
    claims=is_docker_tools, misfit=_misfit, mcp_server=True),)
