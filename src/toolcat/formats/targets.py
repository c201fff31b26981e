"""Targets: what ``toolcat project`` writes for each envelope, one object per target.

A :class:`Target` holds every fact of one envelope that the features need: whether the tools
array sits in ``{"tools": [...]}``, the descriptor's fields and their order, where the id and
the schemas are, which fields its standard and compact views carry (title, outputSchema,
annotations, OpenWOP's source and safetyTier), its id rules, and whether its compact view is
the RFC 0112 subset. project, measure, diff and the handbook ask the object; nobody compares
a target's name. Each target's class lives in its format's module (:mod:`.mcp`,
:mod:`.openwop`, :mod:`.openai`, :mod:`.anthropic`, :mod:`.gemini`), listed in that format's
record (:attr:`toolcat.formats.registry.Format.targets`); :func:`get` finds one by name.

The standard view of a tool in its own format is its descriptor verbatim (``Tool.raw``: for
an MCP catalog these are the bytes the server sent). Across formats, the fields both formats
know are mapped; the rest has no place in the target and is left out.

OpenWOP derivations (:func:`toolcat.formats.openwop.derive_source`,
:func:`~toolcat.formats.openwop.derive_safety_tier`, the RFC 0078 ``toolId`` scopes of
:class:`~toolcat.formats.openwop.OpenWopTarget`) are described in :mod:`.openwop`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolcat.model import OPENWOP, Tool

#: an input schema for a tool that has none, where the target requires one
EMPTY_OBJECT_SCHEMA = {"type": "object", "properties": {}}


def put(d: dict, key: str, value: Any) -> None:
    """``d[key] = value`` unless the value is None (absent fields stay absent)."""
    if value is not None:
        d[key] = value


class Target:
    """One target envelope (see the module doc); subclasses set the facts and the shape."""

    name: ClassVar[str]
    #: the tools array is written as ``{"tools": [...]}`` (else as a bare array)
    enveloped: ClassVar[bool] = False
    #: the key of that envelope
    envelope_key: ClassVar[str] = "tools"
    #: what the envelope carries after the tools in a compact view, to say it is one
    #: (MCP: the result's ``_meta``; lint reads it back: formats.arrays.declared_view)
    view_meta: ClassVar[dict | None] = None
    #: input formats whose descriptors are this target's shape (their standard view is raw)
    native_formats: ClassVar[tuple[str, ...]] = ()
    #: input formats whose server tools (the provider runs them: ``Tool.server_tool``) this
    #: target writes as given
    server_tool_formats: ClassVar[tuple[str, ...]] = ()
    #: the form of an OpenAI custom tool (free-form text input) this target writes as given
    #: (:func:`toolcat.formats.openai.custom_form`); None: it has none
    custom_form: ClassVar[str | None] = None
    #: where a descriptor (its :meth:`body`) holds its schemas, each a path of keys: the input
    #: schema's first, then the output schema's where the target carries one (Bedrock:
    #: ``("inputSchema", "json")``). Features read and write them through
    #: :meth:`get_schema` / :meth:`set_schema`, never by key
    schema_paths: ClassVar[tuple[tuple[str, ...], ...]] = (("inputSchema",),)
    #: top-level descriptor fields the compact view carries (others are listed as omitted)
    compact_fields: ClassVar[tuple[str, ...]] = ()
    #: request fields of a native descriptor (not read by the model: caching, deferral,
    #: examples) the compact view writes as given, after the target's own fields
    request_fields: ClassVar[tuple[str, ...]] = ()
    #: the provider row a native tool that asks for strict mode itself (``"strict": true``
    #: in a target that does not write strict) keeps its compact schema within
    strict_provider: ClassVar[str | None] = None
    #: the field of a descriptor that holds its body (name, description, schemas), when the
    #: descriptor wraps it (OpenAI's ``function``, Bedrock's ``toolSpec``); None: the
    #: descriptor is its body
    body_key: ClassVar[str | None] = None
    #: fields of that body (OpenAI's function object) the compact view carries
    compact_body_fields: ClassVar[tuple[str, ...]] = ()
    #: the standard view carries the output schema, the compact view too
    standard_output_schema: ClassVar[bool] = False
    compact_output_schema: ClassVar[bool] = False
    #: MCP annotations (readOnlyHint...; the compact view drops the defaults)
    annotations: ClassVar[bool] = False
    #: the tool's title: "own" (``Tool.title``), "display" (``Tool.display_title``) or None
    title: ClassVar[str | None] = None
    #: titles are UI labels the compact view moves to the handbook (``--keep-titles``)
    ui_titles: ClassVar[bool] = False
    #: the compact view drops a description that only repeats the title
    drops_repeated_description: ClassVar[bool] = False
    #: OpenWOP ``source`` and ``safetyTier``
    openwop_fields: ClassVar[bool] = False
    #: the compact view is lowered to the RFC 0112 subset unless told otherwise
    subset_by_default: ClassVar[bool] = False
    #: repeated subschemas may be factored into ``$defs`` (never where ``$ref`` is refused)
    factors: ClassVar[bool] = True
    #: a tool without an input schema gets :data:`EMPTY_OBJECT_SCHEMA`
    requires_input_schema: ClassVar[bool] = False
    #: the input and output schema roots must say ``type: "object"`` (both views; a
    #: non-object output schema is wrapped: :mod:`toolcat.features.project.roots`)
    typed_object_roots: ClassVar[bool] = False
    #: a boolean schema may be the value of a root ``properties`` entry
    boolean_property_schemas: ClassVar[bool] = True
    #: clients compile the schemas with Ajv (ECMA-262 ``u`` patterns): the standard view of
    #: a tool from another format gets the exact rewrites Ajv needs
    #: (:func:`toolcat.features.project.roots.fix_patterns`; the compact view makes them anyway)
    ajv_clients: ClassVar[bool] = False
    #: the provider-table row (:data:`toolcat.formats.providers.PROVIDERS`) whose rules the
    #: compact view is written in (toolcat.features.project.providers), names included
    provider: ClassVar[str | None] = None
    #: a strict target: the row of a tool its strict subset cannot hold (sent without strict)
    loose_provider: ClassVar[str | None] = None
    #: the tool-name rule of a target without a provider row (None: any non-empty name)
    name_pattern: ClassVar[str | None] = None
    #: the descriptor field (of :meth:`body`) holding the tool's name
    id_key: ClassVar[str] = "name"
    #: the compact view writes `strict` on each tool (the provider's strict mode)
    writes_strict: ClassVar[bool] = False
    #: the lint profile that checks what this target writes
    profile: ClassVar[str] = "mcp"
    #: a provider's request: ``measure --as NAME`` counts what it carries for the tools
    #: (set on each class itself: a subclass does not inherit it)
    counted_as: ClassVar[bool] = False
    #: the target can write a deferral plan (:mod:`toolcat.features.project.defer`): tools loaded on
    #: demand through the provider's tool search
    defers: ClassVar[bool] = False
    #: deferred tools load by group, each of at most this many tools (0: one by one)
    namespace_max: ClassVar[int] = 0
    #: the descriptor field marking a tool loaded on demand (``true``), where it :attr:`defers`
    defer_key: ClassVar[str | None] = None
    #: the descriptor fields :meth:`descriptor_order` puts first, in this order (None: as given)
    leading_fields: ClassVar[tuple[str, ...] | None] = None

    def __repr__(self) -> str:
        return f"<target {self.name}>"

    def __str__(self) -> str:
        return self.name

    # ------------------------------------------------------------------ writing
    def descriptor(self, *, id: str, title: str | None = None, description: str | None = None,
                   input_schema: Any = None, output_schema: Any = None,
                   annotations: dict | None = None, source: str | None = None,
                   safety_tier: str | None = None, strict: bool | None = None) -> dict:
        """One descriptor, keys in the target's order; fields it does not carry, and None
        values, are left out."""
        if input_schema is None and self.requires_input_schema:
            input_schema = dict(EMPTY_OBJECT_SCHEMA)
        return self._fields(id=id, title=title, description=description,
                            input_schema=input_schema, output_schema=output_schema,
                            annotations=annotations, source=source, safety_tier=safety_tier,
                            strict=strict)

    def _fields(self, **f: Any) -> dict:  # pragma: no cover - every target defines it
        raise NotImplementedError

    def tool_id(self, tool: Tool, fmt: str, source: str) -> str:
        """The tool's id in this target (``source``: its derived OpenWOP source). Plain
        names; an OpenWOP tool whose source is MCP loses its ``mcp:`` scope."""
        tid = tool.id or ""
        if fmt == OPENWOP and (tool.source == "mcp" or source == "mcp") and tid.startswith("mcp:"):
            return tid[4:]
        return tid

    def title_of(self, tool: Tool) -> str | None:
        if self.title == "own":
            return tool.title
        if self.title == "display":
            return tool.display_title
        return None

    def standard(self, tool: Tool, fmt: str, source: str | None = None,
                 safety_tier: str | None = None) -> Any:
        """The lossless standard view of one tool in this target's shape (``source`` and
        ``safety_tier``: OpenWOP overrides)."""
        if fmt in self.native_formats and tool.raw is not None:
            return tool.raw
        from toolcat.formats.openwop import derive_safety_tier, derive_source

        src = derive_source(tool, fmt, source)
        tier = derive_safety_tier(tool, fmt, safety_tier)
        return self.descriptor(
            id=self.tool_id(tool, fmt, src),
            title=self.title_of(tool),
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema if self.standard_output_schema else None,
            annotations=(tool.annotations if self.annotations
                         and isinstance(tool.annotations, dict) else None),
            source=src if self.openwop_fields else None,
            safety_tier=tier if self.openwop_fields else None,
        )

    def dropped_fields(self, raw: Any) -> list[tuple[str, ...]]:
        """Pointer tokens of the fields of a native descriptor its compact view leaves out."""
        if not isinstance(raw, dict):
            return []
        out: list[tuple[str, ...]] = [(k,) for k in raw if k not in self.compact_fields
                                      and k not in self.request_fields]
        key = self.body_key
        inner = raw.get(key) if key is not None else None
        if key is not None and isinstance(inner, dict):
            out += [(key, k) for k in inner if k not in self.compact_body_fields]
        return out

    def request_extras(self, raw: Any) -> dict:
        """The :attr:`request_fields` of a native descriptor, in its order."""
        if not isinstance(raw, dict) or not self.request_fields:
            return {}
        return {k: v for k, v in raw.items() if k in self.request_fields}

    # ------------------------------------------------------------------ deferral
    def defer(self, descriptor: dict) -> dict:
        """``descriptor`` marked as loaded on demand (a target that :attr:`defers`)."""
        if self.defer_key is None:
            raise NotImplementedError(self.name)
        return {**descriptor, self.defer_key: True}

    def undefer(self, descriptor: Any) -> Any:
        """``descriptor`` without a deferral mark (it is read up front)."""
        if self.defer_key is not None and isinstance(descriptor, dict) \
                and self.defer_key in descriptor:
            return {k: v for k, v in descriptor.items() if k != self.defer_key}
        return descriptor

    def descriptor_order(self, descriptor: dict) -> dict:
        """``descriptor`` with its fields in the target's order (:attr:`leading_fields`
        first, the others after, as they are)."""
        first = self.leading_fields
        if first is None:
            return descriptor
        return {**{k: descriptor[k] for k in first if k in descriptor},
                **{k: v for k, v in descriptor.items() if k not in first}}

    def upfront(self, array: list) -> list:
        """What the model is shown up front of a tools array with deferred tools, as this
        target's provider renders it (measure's up-front figure)."""
        return array

    def deferred_array(self, tools: list, plan: Any) -> list:
        """The tools array of a projection with deferred tools (``tools``: projected tools,
        ``.deferred`` set by ``plan``)."""
        raise NotImplementedError(self.name)

    # ------------------------------------------------------------------ schemas
    @property
    def schema_fields(self) -> tuple[str, ...]:
        """The descriptor fields (of :meth:`body`) that hold the schemas (each path's first
        key): what a model reads of the input schema is the whole field."""
        return tuple(p[0] for p in self.schema_paths)

    @property
    def output_field(self) -> str | None:
        """The descriptor field holding the output schema (None: the target carries none)."""
        return self.schema_paths[1][0] if len(self.schema_paths) > 1 else None

    def get_schema(self, body: Any, which: int = 0, default: Any = None) -> Any:
        """The schema at :attr:`schema_paths` ``[which]`` (0: input, 1: output) of a
        descriptor's body; ``default`` when it has none there."""
        if which >= len(self.schema_paths):
            return default
        node = body
        for key in self.schema_paths[which]:
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    def set_schema(self, body: dict, schema: Any, which: int = 0) -> None:
        """Put ``schema`` at :attr:`schema_paths` ``[which]`` of ``body`` (changed in place;
        the objects on the way are copied, never changed: they may be a tool's own)."""
        *way, last = self.schema_paths[which]
        node = body
        for key in way:
            inner = node.get(key)
            node[key] = node = dict(inner) if isinstance(inner, dict) else {}
        node[last] = schema

    def with_schema(self, body: dict, schema: Any, which: int = 0) -> dict:
        """A copy of ``body`` with ``schema`` at :attr:`schema_paths` ``[which]``."""
        out = dict(body)
        self.set_schema(out, schema, which)
        return out

    # ------------------------------------------------------------------ reading
    def body(self, item: Any) -> Any:
        """The object that holds a descriptor's name, description and schemas."""
        if self.body_key is not None and isinstance(item, dict):
            inner = item.get(self.body_key)
            if isinstance(inner, dict):
                return inner
        return item

    def item_id(self, item: Any) -> str | None:
        """The tool id of one descriptor in this target's shape."""
        body = self.body(item)
        if not isinstance(body, dict):
            return None
        v = body.get("name")
        if v is None:
            v = body.get("toolId")
        return v if isinstance(v, str) else None


_BY_NAME: dict[str, Target] = {}


def _targets() -> dict[str, Target]:
    """Every target by name: each format record's ``targets``, formats in registry order
    (a new target is an object in its format's record; nothing here names it)."""
    if not _BY_NAME:
        from toolcat.formats.registry import formats

        # (filled in one step: a thread that finds the table filled finds every target)
        _BY_NAME.update({t.name: t for f in formats() for t in f.targets})
    return _BY_NAME


def names() -> tuple[str, ...]:
    """The target names, in the order the CLI lists them (a provider target is named like the
    lint profile that checks its output: ``toolcat lint --profile P`` of ``project --to P``)."""
    return tuple(_targets())


def get(name: str) -> Target:
    """The target called ``name`` (one of :func:`names`); KeyError for any other."""
    return _targets()[name]


def default_target(formats: list[str]) -> Target:
    """``openwop`` when every input is OpenWOP, else ``mcp``."""
    return get("openwop" if formats and all(f == OPENWOP for f in formats) else "mcp")
