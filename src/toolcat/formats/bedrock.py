"""Amazon Bedrock Converse tools: ``toolConfig.tools``, each ``{"toolSpec": {"name",
"description", "inputSchema": {"json": <JSON Schema>}}}``.

Read from a Converse request (``{"toolConfig": {"tools": [...]}, "modelId"...}``), a
``ToolConfiguration`` (``{"tools": [...]}``, what ``project --to bedrock`` writes) or a bare
array of such entries. A ``Tool`` of the Converse API is a union: besides ``toolSpec`` an entry
may be a ``systemTool`` (``{"name"}``: a tool the model provider runs, read as a server tool and
written as given to this target) or a ``cachePoint`` (a cache mark in the request, no tool: it
is skipped when reading, with a note naming its pointer).

The target writes a ``ToolConfiguration``: ``{"tools": [{"toolSpec": ...}]}``, the value of the
request's ``toolConfig``. Its facts (name rule, object root, non-empty description) are the
``bedrock`` row of :data:`toolcat.formats.providers.PROVIDERS`, taken from botocore's service
model of ``bedrock-runtime`` (tests/corpus/test_provider_sdks.py validates what the target
writes with botocore's own parameter validator).
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolcat.errors import InputError
from toolcat.formats.arrays import not_an_object, str_or_none, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import Catalog, Tool

#: ``Catalog.format`` and ``--from`` of a Bedrock tool list
BEDROCK = "bedrock"

#: the members of the Converse ``Tool`` union
_MEMBERS = ("toolSpec", "systemTool", "cachePoint")


def tool_entries(doc: Any) -> tuple[list, str] | None:
    """The ``Tool`` entries of a Bedrock document and their base pointer, or None."""
    if isinstance(doc, dict):
        config = doc.get("toolConfig")
        if isinstance(config, dict) and isinstance(config.get("tools"), list):
            return config["tools"], "/toolConfig/tools"
        if isinstance(doc.get("tools"), list):
            return doc["tools"], "/tools"
    if isinstance(doc, list):
        return doc, ""
    return None


def is_entry(item: Any) -> bool:
    """One entry of a Converse ``toolConfig.tools``: an object holding a member of the
    ``Tool`` union."""
    return isinstance(item, dict) and any(isinstance(item.get(k), dict) for k in _MEMBERS)


def bedrock_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    rest = {k: v for k, v in item.items() if k != "toolSpec"}
    spec = item.get("toolSpec")
    if not isinstance(spec, dict):
        system = item.get("systemTool")
        if isinstance(system, dict) and isinstance(system.get("name"), str):
            # a tool the model provider runs: the request names it
            return Tool(id=system["name"], server_tool=True, extra=rest, raw=item, file=file,
                        pointer=pointer, origin=[("", pointer), ("/name", pointer +
                                                                 "/systemTool/name")])
        return Tool(id=None, raw=item, file=file, pointer=pointer,
                    invalid="expected {\"toolSpec\": {...}} (a Converse Tool)")
    name = spec.get("name")
    wrapper = spec.get("inputSchema")
    schema = wrapper.get("json") if isinstance(wrapper, dict) else None
    sp = pointer + "/toolSpec"
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(spec.get("description")),
        input_schema=schema,
        extra={**rest, **{k: v for k, v in spec.items()
                          if k not in ("name", "description", "inputSchema")}},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", sp + "/inputSchema/json"),
                ("/description", sp + "/description"), ("/name", sp + "/name")],
    )


def load_bedrock(doc: Any, path: str) -> Catalog:
    got = tool_entries(doc)
    if got is None:
        raise InputError(f"--from bedrock: {_NOT_BEDROCK}", path)
    items, base = got
    tools: list[Tool] = []
    envelope = base.split("/")[1] if base else "array"      # toolConfig | tools | array
    cat = Catalog(file=path, format=BEDROCK, tools=tools, document=doc,
                  view=view_from_name(path), meta={"envelope": envelope})
    skipped = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("cachePoint"), dict) \
                and "toolSpec" not in item:
            skipped.append(f"{base}/{i}")
            continue
        tools.append(bedrock_tool(item, path, f"{base}/{i}"))
    if skipped:
        cat.meta["notes"] = [
            f"{len(skipped)} cachePoint entr{'y' if len(skipped) == 1 else 'ies'} of the "
            f"tools array skipped (no tool: {', '.join(skipped[:5])}"
            f"{', ...' if len(skipped) > 5 else ''}); add the cache point back to the request"]
    return cat


class BedrockTarget(Target):
    """``{"tools": [{"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}]}``
    (a Converse ``ToolConfiguration``). ``inputSchema`` is required (a tool without one gets
    the empty object schema) and its root must say ``type: "object"``."""

    name = "bedrock"
    enveloped = True
    native_formats = (BEDROCK,)
    server_tool_formats = (BEDROCK,)
    schema_paths = (("inputSchema", "json"),)
    compact_fields = ("toolSpec",)
    body_key = "toolSpec"
    compact_body_fields: ClassVar[tuple[str, ...]] = ("name", "description", "inputSchema")
    requires_input_schema = True
    typed_object_roots = True
    provider = "bedrock"
    profile = "bedrock"
    counted_as = True

    def _fields(self, **f: Any) -> dict:
        spec: dict = {}
        put(spec, "name", f["id"])
        put(spec, "description", f["description"] or None)    # min length 1
        if f["input_schema"] is not None:
            self.set_schema(spec, f["input_schema"])
        return {"toolSpec": spec}


BEDROCK_TARGET = BedrockTarget()


_NOT_BEDROCK = ("expected a Converse request ({\"toolConfig\": {\"tools\": [...]}}), a "
                "ToolConfiguration ({\"tools\": [...]}) or an array of {\"toolSpec\": ...}")


def _is_converse(doc: Any) -> bool:
    """A Converse request (or its ``toolConfig`` wrapped): ``{"toolConfig": {"tools"}}``."""
    return isinstance(doc, dict) and isinstance(doc.get("toolConfig"), dict) \
        and isinstance(doc["toolConfig"].get("tools"), list)


def _misfit(doc: Any) -> str | None:
    if _is_converse(doc):
        return None
    from toolcat.formats.detect import misfit_items

    return misfit_items(doc, BEDROCK)


FORMATS = (Format(
    BEDROCK, "Bedrock", "Bedrock Converse tools",
    lambda doc, src, path, opts: load_bedrock(doc, path),
    targets=(BEDROCK_TARGET,),
    claims=_is_converse,
    item=is_entry,
    misfit=_misfit),)
