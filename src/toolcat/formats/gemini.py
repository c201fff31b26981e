"""Gemini function declarations: a ``Tool`` object ``{"functionDeclarations": [...]}``, a
list of them (a request's ``tools``) or ``{"tools": [...]}`` (a request or its config), each
declaration ``{"name", "description", "parameters" | "parametersJsonSchema"}``. The other
fields of a ``Tool`` (``googleSearch``, ``codeExecution``, ``urlContext``...) are tools the
provider runs: read as server tools, which ``project`` leaves out (the target writes one
``Tool`` of function declarations), with a warning.

``parameters`` is Gemini's Schema object (an OpenAPI 3.0 Schema subset: ``nullable``, one
``type``, spelled as the API's enum: ``"OBJECT"``, ``"STRING"``...). It is read as JSON Schema
2020-12, as an OpenAPI document's schemas are (:func:`json_schema`): the type names in lower
case (``TYPE_UNSPECIFIED``: no type), ``nullable: true`` as ``"null"`` in ``type``, the
int64 fields the API's JSON writes as strings (``"minItems": "1"``) as numbers, ``example``
as ``examples``. The meaning is the same for Gemini and for every JSON Schema reader; what the
other targets write is then JSON Schema (``"OBJECT"`` is no JSON Schema type: Anthropic, OpenAI
and the MCP SDKs refuse it), and ``--to gemini`` writes it back in the subset. A
``parametersJsonSchema`` is JSON Schema already and is read as written.
"""

from __future__ import annotations

from typing import Any

from toolcat.errors import InputError
from toolcat.formats.arrays import not_an_object, str_or_none, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import GEMINI, Catalog, Tool

#: the fields of a Gemini ``Tool`` besides ``functionDeclarations``: tools the provider runs
#: (google.ai.generativelanguage ``Tool``, REST spelling)
SERVER_FIELDS = frozenset({
    "googleSearch", "googleSearchRetrieval", "codeExecution", "urlContext", "retrieval",
    "googleMaps", "fileSearch", "computerUse", "enterpriseWebSearch", "exaAiSearch",
    "parallelAiSearch", "mcpServers"})


def _tool_object(t: Any) -> bool:
    """A Gemini ``Tool``: function declarations and/or the provider's own tools, nothing
    else."""
    return isinstance(t, dict) and bool(t) and all(
        (k == "functionDeclarations" and isinstance(v, list))
        or (k in SERVER_FIELDS and isinstance(v, (dict, list)))
        for k, v in t.items())


def tool_objects(doc: Any) -> list[tuple[dict, str]] | None:
    """The ``Tool`` objects of a Gemini document (a ``Tool``; a list of them, as a request's
    ``tools`` holds them; a request or config ``{"tools": [...]}``), each with its pointer;
    None when it is none of these or declares no function."""
    if isinstance(doc, dict) and isinstance(doc.get("functionDeclarations"), list):
        return [(doc, "")]   # (a field of no Tool beside them is not read, as ever)
    items, base = (doc.get("tools"), "/tools") if isinstance(doc, dict) else (doc, "")
    if isinstance(items, list) and items and all(_tool_object(t) for t in items) \
            and any("functionDeclarations" in t for t in items):
        return [(t, f"{base}/{i}") for i, t in enumerate(items)]
    return None


#: Gemini's ``Type`` enum (google.ai.generativelanguage ``Type``; the SDK's ``types.Type``)
_TYPES = {"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
          "ARRAY": "array", "OBJECT": "object", "NULL": "null"}
#: the Schema fields the API types as int64, which its JSON writes as strings
_INT64 = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties",
                    "maxProperties"})


def json_schema(params: Any, wrapped: list[tuple] | None = None) -> Any:
    """Gemini's Schema object ``params`` as JSON Schema 2020-12 (a new value; see the module
    docstring); anything else as it is. ``wrapped``, when given, gets the path (in ``params``)
    of each node read wrapped in an ``anyOf`` (a ``nullable`` node without a type), outermost
    last."""
    if not isinstance(params, dict):
        return params
    from toolcat.formats.openapi.schema import convert_node, needs_conversion
    from toolcat.schema.walker import transform

    def hook(node: Any, path: tuple, _dialect: str) -> Any:
        if not isinstance(node, dict):
            return node
        t = node.get("type")
        if isinstance(t, str) and (t.upper() in _TYPES or t.upper() == "TYPE_UNSPECIFIED"):
            node = dict(node)
            if t.upper() == "TYPE_UNSPECIFIED":
                del node["type"]
            else:
                node["type"] = _TYPES[t.upper()]
        for k in _INT64.intersection(node):
            v = node[k]
            if isinstance(v, str) and v.isdigit():
                node = {**node, k: int(v)}
        if not needs_conversion(node, False):
            return node
        out = convert_node(node, False)
        if wrapped is not None and "anyOf" in out and out["anyOf"] is not node.get("anyOf"):
            wrapped.append(path)     # a new anyOf: the node is inside it (openapi.schema._wrap)
        return out

    return transform(params, hook)


def _wrap_origin(wrapped: list[tuple], read: str, written: str) -> list[tuple[str, str]]:
    """Origin pairs for the nodes :func:`json_schema` wrapped: below a wrap the read tree has
    ``anyOf/0`` where the declaration has nothing, so each wrapped node's inner schema maps to
    the node as written (and lint places and judges what is below it on the declaration)."""
    from toolcat.document.pointer import join

    done = set(wrapped)
    pairs = []
    for path in sorted(wrapped, key=len):
        shifted: list = ["anyOf", "0"] if () in done and path else []
        for i, seg in enumerate(path):
            shifted.append(seg)
            if path[:i + 1] in done and i + 1 < len(path):
                shifted += ["anyOf", "0"]
        pairs.append((join(read, [*shifted, "anyOf", "0"]), join(written, path)))
    return pairs


def gemini_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    key = "parameters" if "parameters" in item or "parametersJsonSchema" not in item \
        else "parametersJsonSchema"
    wrapped: list[tuple] = []
    schema = json_schema(item.get(key), wrapped) if key == "parameters" else item.get(key)
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(item.get("description")),
        input_schema=schema,
        extra={k: v for k, v in item.items() if k not in ("name", "description", key)},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", f"{pointer}/{key}"),
                *_wrap_origin(wrapped, "/inputSchema", f"{pointer}/{key}")],
    )


def load_gemini(doc: Any, path: str) -> Catalog:
    objs = tool_objects(doc)
    if objs is None:
        raise InputError(f"--from gemini: {_NOT_GEMINI}", path)
    tools: list[Tool] = []
    cat = Catalog(file=path, format=GEMINI, tools=tools, document=doc, view=view_from_name(path),
                  meta={"envelope": "functionDeclarations"})
    for obj, at in objs:
        for key, value in obj.items():
            if key == "functionDeclarations":
                for i, item in enumerate(value):
                    tools.append(gemini_tool(item, path, f"{at}/functionDeclarations/{i}"))
            elif key in SERVER_FIELDS and isinstance(value, (dict, list)):
                # the provider's own tool (Google Search, code execution...)
                tools.append(Tool(id=key, server_tool=True, raw={key: value}, file=path,
                                  pointer=f"{at}/{key}", origin=[("", f"{at}/{key}")]))
    return cat


class GeminiTarget(Target):
    """``{"functionDeclarations": [{"name", "description", "parameters"}]}`` (a Gemini
    ``Tool``; ``parameters`` in the OpenAPI 3.0 Schema subset; none for a tool without
    parameters)."""

    name = "gemini"
    enveloped = True
    envelope_key = "functionDeclarations"
    native_formats = (GEMINI,)
    schema_paths = (("parameters",),)
    compact_fields = ("name", "description", "parameters")
    provider = "gemini"
    subset_by_default = True
    factors = False
    profile = "gemini"
    counted_as = True

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "name", f["id"])
        put(d, "description", f["description"])
        if f["input_schema"] is not None:   # parameters | parametersJsonSchema
            self.set_schema(d, f["input_schema"])
        return d


GEMINI_TARGET = GeminiTarget()


class GeminiJsonTarget(GeminiTarget):
    """``{"functionDeclarations": [{"name", "description", "parametersJsonSchema"}]}``:
    the schema as JSON Schema (``$defs``, ``$ref``, ``anyOf``, ``additionalProperties``), not
    the OpenAPI 3.0 subset, so nothing is lowered; ``$schema`` (refused) is dropped. Never
    both ``parameters`` and ``parametersJsonSchema`` (mutually exclusive)."""

    name = "gemini-json"
    typed_object_roots = True
    schema_paths = (("parametersJsonSchema",),)
    compact_fields = ("name", "description", "parametersJsonSchema")
    provider = "gemini-json"
    subset_by_default = False
    profile = "gemini-json"

    def standard(self, tool: Tool, fmt: str, source: str | None = None,
                 safety_tier: str | None = None) -> Any:
        # a native declaration is kept only when it already carries JSON Schema
        raw = tool.raw
        if fmt in self.native_formats and isinstance(raw, dict) and "parameters" in raw:
            return self.descriptor(id=tool.id or "", description=tool.description,
                                   input_schema=tool.input_schema)
        return super().standard(tool, fmt, source, safety_tier)


GEMINI_JSON_TARGET = GeminiJsonTarget()


_NOT_GEMINI = ("expected {\"functionDeclarations\": [...]} (or a list of such Tool objects, "
               "or {\"tools\": [...]})")

FORMATS = (Format(
    GEMINI, "Gemini", "Gemini function declarations",
    lambda doc, src, path, opts: load_gemini(doc, path),
    targets=(GEMINI_TARGET, GEMINI_JSON_TARGET),
    claims=lambda d: tool_objects(d) is not None,
    misfit=lambda d: None if tool_objects(d) is not None else _NOT_GEMINI,
    openapi_schemas=True),)
