"""OpenAI tool arrays: Chat Completions ``[{"type": "function", "function": {...}}]``,
Responses-style flat function tools, and the older flat ``{name, description, parameters}``.

A Responses API array may also hold ``{"type": "namespace", "name", "description", "tools":
[...]}`` (its functions are read as tools of their own, each with ``extra["namespace"]``, id
``<namespace>__<name>`` when another tool has its name; ``Catalog.meta["namespaces"]`` lists
the namespaces) and hosted tools the platform runs
(``{"type": "tool_search"}``, ``web_search``...: server tools, written as given)."""

from __future__ import annotations

from typing import Any, ClassVar

from toolcat.formats.arrays import not_an_object, str_or_none, tool_list, view_from_name
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import OPENAI, Catalog, Tool

#: entry types of a Responses API tools array that are no function (the platform's tools)
_NOT_HOSTED = ("function", "namespace", "custom")

#: the ``type`` of each hosted tool of the Responses API (the members of
#: ``openai.types.responses.ToolParam`` but function, custom and namespace; a test keeps them
#: equal): an array of them alone is an OpenAI tools array
HOSTED_TYPES = frozenset({
    "file_search", "computer", "computer_use_preview", "web_search", "web_search_2025_08_26",
    "web_search_preview", "web_search_preview_2025_03_11", "mcp", "code_interpreter",
    "programmatic_tool_calling", "image_generation", "local_shell", "shell", "tool_search",
    "apply_patch"})


def is_openai_server_tool(item: Any) -> bool:
    """A hosted tool of the Responses API (``tool_search``, ``web_search``...): an entry of a
    hosted tool's ``type`` (:data:`HOSTED_TYPES`), or of another ``type`` than a function's
    with neither a ``function`` nor ``parameters``. A known hosted type may carry
    ``parameters``: the API echoes ``{"type": "tool_search", "description": null,
    "parameters": null}`` in a response's ``tools``, and a client-executed tool search
    (``"execution": "client"``) gives the parameters the model calls it with."""
    t = item.get("type") if isinstance(item, dict) else None
    if not isinstance(t, str) or t in _NOT_HOSTED or "function" in item:
        return False
    return t in HOSTED_TYPES or "parameters" not in item


def custom_form(item: Any) -> str | None:
    """A custom tool (free-form text input under an optional grammar, no JSON Schema):
    ``"chat"`` for Chat Completions' ``{"type": "custom", "custom": {"name", "format"}}``,
    ``"responses"`` for the Responses API's flat ``{"type": "custom", "name", "format"}``;
    None for anything else."""
    if not isinstance(item, dict) or item.get("type") != "custom":
        return None
    if isinstance(item.get("custom"), dict):
        return "chat"
    return "responses" if "parameters" not in item and "function" not in item else None


def openai_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    if item.get("type") == "namespace":
        # (a namespace with a tools array is read member by member: load_openai)
        return Tool(id=None, raw=item, file=file, pointer=pointer,
                    invalid="a namespace whose 'tools' is not an array of functions")
    form = custom_form(item)
    if form is not None:
        # written as given by the target of its own form, left out by the others (a
        # function would change what the model sends: JSON arguments, not free text)
        body = item["custom"] if form == "chat" else item
        name = body.get("name")
        fptr = pointer + "/custom" if form == "chat" else pointer
        return Tool(id=name if isinstance(name, str) else None,
                    description=str_or_none(body.get("description")),
                    extra={"custom": form}, raw=item, file=file, pointer=pointer,
                    origin=[("", pointer), ("/description", fptr + "/description"),
                            ("/name", fptr + "/name")])
    if is_openai_server_tool(item):
        name = item.get("name")
        if not isinstance(name, str):
            # a hosted MCP server is named by its label (a request may hold several)
            label = item.get("server_label")
            name = f"{item['type']}:{label}" if isinstance(label, str) else item["type"]
        return Tool(id=name, server_tool=True,
                    extra={k: v for k, v in item.items() if k != "name"}, raw=item,
                    file=file, pointer=pointer, origin=[("", pointer)])
    fn = item.get("function")
    if isinstance(fn, dict):        # Chat Completions: {"type": "function", "function": {...}}
        body, fptr = fn, pointer + "/function"
    else:                           # Responses API / legacy functions: flat
        body, fptr = item, pointer
    name = body.get("name")
    # the function object's other fields (`strict`...); a Chat Completions wrapper's own
    # other fields stay in `raw`
    extra = {k: v for k, v in body.items() if k not in ("name", "description", "parameters")}
    return Tool(
        id=name if isinstance(name, str) else None,
        description=str_or_none(body.get("description")),
        input_schema=body.get("parameters"),
        extra=extra,
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer), ("/inputSchema", fptr + "/parameters"),
                ("/description", fptr + "/description"), ("/name", fptr + "/name")],
    )


def load_openai(doc: Any, path: str) -> Catalog:
    items, base = tool_list(doc, path)
    tools: list[Tool] = []
    cat = Catalog(file=path, format=OPENAI, tools=tools, document=doc, view=view_from_name(path),
                  meta={"envelope": "tools" if base else "array"})
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("type") == "namespace" \
                and isinstance(item.get("tools"), list):
            cat.meta.setdefault("namespaces", []).append(
                {"name": item.get("name"), "description": item.get("description"),
                 "pointer": f"{base}/{i}", "tools": len(item["tools"])})
            for j, f in enumerate(item["tools"]):
                t = openai_tool(f, path, f"{base}/{i}/tools/{j}")
                t.extra["namespace"] = item.get("name")
                tools.append(t)
            continue
        if isinstance(item, dict) and (is_openai_server_tool(item) or (
                item.get("type") == "function" and "function" not in item)
                or custom_form(item) == "responses"):
            cat.meta["api"] = "responses"
        tools.append(openai_tool(item, path, f"{base}/{i}"))
    if "namespaces" in cat.meta:
        cat.meta["api"] = "responses"
        _qualify_namespace_members(tools)
    return cat


def _qualify_namespace_members(tools: list[Tool]) -> None:
    """A namespace's function is called by its namespace and its name (the API's
    ``function_call`` carries both), so it may share its name with a top-level function or
    one of another namespace: such a member's id is ``<namespace>__<name>`` (a name every
    provider takes, as Claude Code's ``mcp__<server>__<tool>``), and so is the name of its
    descriptor out of its namespace (``raw``, what an OpenAI target's standard view writes);
    other ids stay the function's name."""
    seen: dict[str, int] = {}
    for t in tools:
        if t.id is not None:
            seen[t.id] = seen.get(t.id, 0) + 1
    for t in tools:
        ns = t.extra.get("namespace")
        if isinstance(ns, str) and t.id is not None and seen[t.id] > 1:
            t.id = f"{ns}__{t.id}"
            if isinstance(t.raw, dict):
                fn = t.raw.get("function")
                t.raw = ({**t.raw, "function": {**fn, "name": t.id}} if isinstance(fn, dict)
                         else {**t.raw, "name": t.id})


def responses_array(cat: Catalog) -> bool:
    """Is ``cat`` a Responses API tools array (a flat ``{"type": "function", "name"}``, a
    namespace or a hosted tool: what Chat Completions' ``tools`` does not take)? Its own
    target is then ``openai-responses``, not ``openai``."""
    return cat.format == OPENAI and cat.meta.get("api") == "responses"


class OpenAiTarget(Target):
    """``[{"type": "function", "function": {"name", "description", "parameters"}}]`` (Chat
    Completions function tools). A tool without an input schema gets ``"parameters": {"type":
    "object", "properties": {}}``, what OpenAI reads an omitted ``parameters`` as (an empty
    parameter list), so that every tool says ``properties`` at its root (issue 33)."""

    name = "openai"
    native_formats = (OPENAI,)
    custom_form = "chat"
    schema_paths = (("parameters",),)
    compact_fields = ("type", "function", "name", "description", "parameters")
    body_key = "function"
    compact_body_fields: ClassVar[tuple[str, ...]] = ("name", "description", "parameters")

    profile = "openai"
    provider = "openai-nonstrict"
    typed_object_roots = True
    requires_input_schema = True
    counted_as = True

    #: the fields of Chat Completions' function object (``FunctionDefinition``)
    function_fields = ("name", "description", "parameters", "strict")

    def standard(self, tool: Tool, fmt: str, source: str | None = None,
                 safety_tier: str | None = None) -> Any:
        """A native descriptor as written, but for a function that is not in Chat Completions'
        shape (a Responses API function ``{"type": "function", "name", ...}`` or the older flat
        ``{name, parameters}``): Chat Completions takes it inside ``function``, with the fields
        its function object has (``defer_loading``, ``allowed_callers`` and ``output_schema``
        are the Responses API's)."""
        raw = tool.raw
        if fmt in self.native_formats and isinstance(raw, dict) \
                and not isinstance(raw.get("function"), dict) and custom_form(raw) is None \
                and not is_openai_server_tool(raw):
            return {"type": "function",
                    "function": {k: raw[k] for k in self.function_fields if k in raw}}
        return super().standard(tool, fmt, source, safety_tier)

    def _fields(self, **f: Any) -> dict:
        fn: dict = {}
        put(fn, "name", f["id"])
        put(fn, "description", f["description"])
        put(fn, "parameters", f["input_schema"])
        put(fn, "strict", f.get("strict"))
        return {"type": "function", "function": fn}


class OpenAiStrictTarget(OpenAiTarget):
    """The same function tools with ``"strict": true`` (Structured Outputs), each schema
    rewritten into the strict subset; ``"strict": false`` on a tool the subset cannot
    express (see :mod:`toolcat.features.project.providers`)."""

    name = "openai-strict"
    compact_body_fields = ("name", "description", "parameters", "strict")
    provider = "openai"
    loose_provider = "openai-nonstrict"
    writes_strict = True
    profile = "openai-strict"
    factors = True

    def descriptor(self, **kw: Any) -> dict:
        """A strict tool without an input schema gets the empty parameter list closed, as
        strict mode asks (``additionalProperties: false``, ``required: []``)."""
        if kw.get("input_schema") is None and kw.get("strict"):
            kw["input_schema"] = {"type": "object", "properties": {},
                                  "additionalProperties": False, "required": []}
        return super().descriptor(**kw)


class OpenAiResponsesTarget(Target):
    """``[{"type": "function", "name", "description", "parameters", "strict": false}]``
    (Responses API function tools; ``parameters`` and ``strict`` are required there). With
    deferral: ``{"type": "tool_search"}``, the eager functions, then the deferred ones with
    ``"defer_loading": true`` in ``{"type": "namespace", "name", "description", "tools"}``
    groups of at most :attr:`namespace_max` (the guide's advice: fewer than 10 functions per
    namespace); the model sees each namespace's name and description up front."""

    name = "openai-responses"
    server_tool_formats = (OPENAI,)
    custom_form = "responses"
    schema_paths = (("parameters",),)
    compact_fields = ("type", "name", "description", "parameters", "strict")
    requires_input_schema = True
    counted_as = True

    profile = "openai"
    provider = "openai-nonstrict"
    typed_object_roots = True

    def _fields(self, **f: Any) -> dict:
        d: dict = {"type": "function"}
        put(d, "name", f["id"])
        put(d, "description", f["description"])
        put(d, "parameters", f["input_schema"])
        d["strict"] = bool(f.get("strict"))
        return d

    defers = True
    namespace_max = 10
    defer_key = "defer_loading"
    leading_fields = compact_fields

    def upfront(self, array: list) -> list:
        """A namespace shows its name and description, a deferred function outside one its
        name and description; their schemas load on demand."""
        out = []
        for d in array:
            if isinstance(d, dict) and (d.get("type") == "namespace"
                                        or d.get("defer_loading") is True):
                d = {k: v for k, v in d.items() if k in ("type", "name", "description")}
            out.append(d)
        return out

    def deferred_array(self, tools: list, plan: Any) -> list:
        eager = [t.descriptor for t in tools if not t.deferred]
        searches = [i for i, d in enumerate(eager)
                    if isinstance(d, dict) and d.get("type") == "tool_search"]
        for i in searches:      # the catalog's own (never deferred)
            eager[i] = self.undefer(eager[i])
        return [*([] if searches else [{"type": "tool_search"}]), *eager, *(
            {"type": "namespace", "name": g.name, "description": g.description,
             "tools": [t.descriptor for t in g.members]} for g in plan.groups)]


OPENAI_TARGET = OpenAiTarget()
OPENAI_STRICT_TARGET = OpenAiStrictTarget()
OPENAI_RESPONSES_TARGET = OpenAiResponsesTarget()


def _is_openai(t: dict) -> bool:
    if t.get("type") == "function" and (isinstance(t.get("function"), dict) or "name" in t):
        return True   # Chat Completions {type, function: {...}} or Responses {type, name, ...}
    kind = t.get("type")
    if (kind == "namespace" and isinstance(t.get("tools"), list)) \
            or (isinstance(kind, str) and kind in HOSTED_TYPES and is_openai_server_tool(t)):
        return True   # the Responses API's namespaces and its hosted tools (tool_search...)
    if custom_form(t) is not None:
        return True   # a custom tool (free-form text input), either API's form
    # the older flat function list ({name, parameters}), with no field of another format's
    # descriptor (MCP's and Anthropic's schema keys, a description or annotations: MCP)
    return ("name" in t and "parameters" in t and "type" not in t
            and not any(k in t for k in ("input_schema", "inputSchema", "description",
                                         "annotations")))


FORMATS = (Format(
    OPENAI, "OpenAI", "OpenAI tools",
    lambda doc, src, path, opts: load_openai(doc, path),
    targets=(OPENAI_TARGET, OPENAI_STRICT_TARGET, OPENAI_RESPONSES_TARGET),
    item=_is_openai, schema_key="parameters"),)
