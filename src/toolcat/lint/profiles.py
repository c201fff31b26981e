"""Lint profiles (which rules run, at which severity) and THE provider-limits table.

Each provider's facts live in one :class:`Provider` entry of :data:`PROVIDERS`, with the
documentation it was taken from, so updating a provider is one edit here. The ``PV5xx`` rules
and ``toolcat project``'s provider targets read nothing else.

Profiles (``--profile NAME``, several as ``--profile A,B``, or ``profile = ...`` in the config):

``mcp`` (default)
    The MCP specification (``--mcp-version``, default 2026-07-28): catalog, schema and
    model-readiness rules (TC, SC, MR) and the MCP specification rules (MC). Tool names match
    ``^[A-Za-z0-9_.-]{1,128}$``.
``openwop-compact``
    RFC 0112: every input is read as a compact view; CS201-CS204 are errors (CS205 stays a
    warning: RFC 0112 allows those keywords, a compact view only has to lower them).
``openai-strict``
    OpenAI function calling with ``strict: true`` (Structured Outputs): PV rules with the
    ``openai`` entry below.
``openai``
    OpenAI function calling without ``strict`` (what most MCP clients send): the
    ``openai-nonstrict`` entry.
``anthropic`` / ``anthropic-strict``
    Anthropic Messages API tools, plain and with ``strict: true`` (strict tool use).
``gemini``
    Gemini function declarations (``parameters``, an OpenAPI 3.0 Schema subset).

Whatever the profile, an OpenWOP *compact* catalog gets CS201-CS204 as errors.
"""

from __future__ import annotations

#: Tool-name pattern of the OpenAI and Anthropic APIs (PV508).
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"

#: Tool names in MCP 2025-11-25 and later: 1-128 of ASCII letters, digits, `_`, `-`, `.`
#: (server/tools "Tool Names"; TC102 with the `mcp` profile).
MCP_NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,128}$"


class Provider:
    """What one model provider accepts in a tool definition (one row of the table).

    ``unsupported``: keywords rejected in any schema position (when ``allowed`` is None);
    ``allowed``: when set, the only keys a schema object may carry (a closed, proto-like Schema
    object); ``root_forbidden``: keywords rejected at the top level only; ``strict_objects``:
    every object needs additionalProperties false and all properties required;
    ``max_properties``/``max_depth``/``max_enum_values``: totals in one schema;
    ``max_string_chars``: property names + definition names + enum/const values;
    ``large_enum_values``/``large_enum_chars``: a string enum with more values than the first
    may hold at most the second many characters; ``strict_subset_unsupported``: keywords only
    strict mode rejects (reported as info).

    Strict modes (``strict: true`` on the function/tool): ``strict`` says the row describes
    one, so its schema rules apply to tools that do not set ``strict: false``;
    ``all_required`` (default: ``strict_objects``) asks every property to be required;
    ``formats``: the only ``format`` values accepted (None: any); ``min_items_values``: the
    only ``minItems`` values accepted; ``recursion``: recursive ``$ref`` accepted;
    ``max_strict_tools``/``max_optional``/``max_unions``: per-request totals over the strict
    tools (optional parameters, parameters whose type is a union).
    ``portable``: the profile's name rule is a portability finding (PV508) for MCP catalogs.
    """

    def __init__(self, key: str, title: str, sources: tuple[str, ...],
                 name_pattern: str = NAME_PATTERN, max_tools: int | None = None,
                 unsupported: frozenset[str] = frozenset(),
                 allowed: frozenset[str] | None = None, root_must_be_object: bool = True,
                 root_forbidden: frozenset[str] = frozenset(), strict_objects: bool = False,
                 type_arrays: bool = True, enum_strings_only: bool = False,
                 max_properties: int | None = None, max_depth: int | None = None,
                 max_enum_values: int | None = None, max_string_chars: int | None = None,
                 large_enum_values: int | None = None, large_enum_chars: int | None = None,
                 strict_subset_unsupported: frozenset[str] = frozenset(),
                 strict: bool = False, all_required: bool | None = None,
                 formats: frozenset[str] | None = None,
                 min_items_values: frozenset[int] | None = None, recursion: bool = True,
                 max_strict_tools: int | None = None, max_optional: int | None = None,
                 max_unions: int | None = None, notes: str = "") -> None:
        self.key = key
        self.title = title
        self.sources = sources
        self.name_pattern = name_pattern
        self.max_tools = max_tools
        self.unsupported = unsupported
        self.allowed = allowed
        self.root_must_be_object = root_must_be_object
        self.root_forbidden = root_forbidden
        self.strict_objects = strict_objects
        self.type_arrays = type_arrays
        self.enum_strings_only = enum_strings_only
        self.max_properties = max_properties
        self.max_depth = max_depth
        self.max_enum_values = max_enum_values
        self.max_string_chars = max_string_chars
        self.large_enum_values = large_enum_values
        self.large_enum_chars = large_enum_chars
        self.strict_subset_unsupported = strict_subset_unsupported
        self.strict = strict
        self.all_required = strict_objects if all_required is None else all_required
        self.formats = formats
        self.min_items_values = min_items_values
        self.recursion = recursion
        self.max_strict_tools = max_strict_tools
        self.max_optional = max_optional
        self.max_unions = max_unions
        self.notes = notes


PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        key="openai",
        title="OpenAI function calling, strict mode (Structured Outputs)",
        sources=(
            "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas",
            "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
            "https://platform.openai.com/docs/guides/function-calling",
            "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
        ),
        max_tools=128,
        unsupported=frozenset({
            # composition
            "allOf", "not", "oneOf", "dependentRequired", "dependentSchemas",
            "if", "then", "else",
            # objects
            "patternProperties", "unevaluatedProperties", "propertyNames",
            "minProperties", "maxProperties",
            # strings
            "minLength", "maxLength",
            # arrays
            "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
            "prefixItems",
            # not permitted in strict schemas
            "default",
        }),
        root_must_be_object=True,
        root_forbidden=frozenset({"anyOf"}),
        strict_objects=True,
        max_properties=5000,
        max_depth=10,
        max_enum_values=1000,
        max_string_chars=120_000,
        large_enum_values=250,
        large_enum_chars=15_000,
        strict=True,
        # "Supported string properties ... format: date-time, time, date, duration, email,
        # hostname, ipv4, ipv6, uuid"
        formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                           "ipv4", "ipv6", "uuid"}),
        notes="anyOf, $ref/$defs (recursion included), const, enum, pattern, format, numeric "
              "bounds, minItems/maxItems are supported; the root must be an object, not anyOf.",
    ),
    "anthropic": Provider(
        key="anthropic",
        title="Anthropic Messages API tools (input_schema)",
        sources=(
            "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
            "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"
            "#json-schema-limitations",
            "https://github.com/anthropics/claude-code/issues/5319",
        ),
        root_must_be_object=True,
        # the API rejects: "input_schema does not support oneOf, allOf, or anyOf at the top level"
        root_forbidden=frozenset({"oneOf", "allOf", "anyOf"}),
        notes="Plain tool use takes JSON Schema 2020-12 (the anthropic-strict row: strict: true).",
    ),
    "anthropic-strict": Provider(
        key="anthropic-strict",
        title="Anthropic strict tool use (strict: true)",
        sources=(
            "https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use",
            "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"
            "#json-schema-limitations",
            "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/lib/"
            "_parse/_transform.py",
        ),
        root_forbidden=frozenset({"oneOf", "allOf", "anyOf"}),
        # JSON Schema limitations: supported are the basic types, enum (primitive values),
        # const, anyOf, allOf, local $ref/$defs/definitions, default, required,
        # additionalProperties: false, the string formats below and minItems 0 or 1; not
        # supported: recursive schemas, numerical constraints (minimum, maximum, multipleOf),
        # string length constraints, array constraints beyond minItems 0/1, external $ref
        allowed=frozenset({
            "type", "properties", "required", "additionalProperties", "items", "enum",
            "const", "anyOf", "allOf", "$ref", "$defs", "definitions", "default", "format",
            "pattern", "minItems", "description", "title", "$schema",
        }),
        strict_objects=True,
        all_required=False,
        strict=True,
        formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                           "uri", "ipv4", "ipv6", "uuid"}),
        min_items_values=frozenset({0, 1}),
        recursion=False,
        # "at most 20 strict tools", "24 optional parameters", "16 parameters with union
        # types" per request
        max_strict_tools=20,
        max_optional=24,
        max_unions=16,
        notes="Optional parameters stay optional (each counts against the 24); a type union "
              "(nullable included) counts against the 16.",
    ),
    "openai-nonstrict": Provider(
        key="openai-nonstrict",
        title="OpenAI function calling (strict off)",
        sources=(
            "https://github.com/openai/openai-openapi/blob/master/openapi.yaml "
            "(FunctionObject, FunctionParameters, CreateChatCompletionRequest.tools)",
            "https://developers.openai.com/api/docs/guides/function-calling",
        ),
        # "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length
        # of 64"; "A max of 128 functions are supported"; parameters "described as a JSON
        # Schema object"
        max_tools=128,
        notes="Any JSON Schema object; names, tool count and an object root are checked.",
    ),
    "gemini": Provider(
        key="gemini",
        title="Gemini function declarations (parameters: OpenAPI 3.0 Schema subset)",
        sources=(
            "https://ai.google.dev/api/caching#Schema",
            "https://ai.google.dev/api/caching#FunctionDeclaration",
            "https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
        ),
        name_pattern=r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
        allowed=frozenset({
            "type", "format", "title", "description", "nullable", "enum", "maxItems",
            "minItems", "properties", "required", "minProperties", "maxProperties",
            "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
            "default", "items", "minimum", "maximum",
        }),
        root_must_be_object=True,
        type_arrays=False,
        enum_strings_only=True,
        notes="The Schema object is closed (unknown fields are rejected, e.g. $schema, "
              "additionalProperties, $ref); `type` is one value (use nullable); enum holds "
              "strings. parametersJsonSchema (full JSON Schema) is not covered.",
    ),
}


class Profile:
    def __init__(self, name: str, summary: str, categories: tuple[str, ...],
                 severities: dict[str, str] | None = None, provider: str | None = None,
                 name_pattern: str | None = MCP_NAME_PATTERN, view: str | None = None) -> None:
        self.name = name
        self.summary = summary
        self.categories = categories
        self.severities = severities or {}
        self.provider = provider           # key into PROVIDERS (PV rules), or None
        self.name_pattern = name_pattern   # TC102 (None: only non-empty)
        self.view = view                   # read every input as this view (None: its own)


_CS_ERR = {"CS201": "error", "CS202": "error", "CS203": "error", "CS204": "error"}
_PV = ("TC", "SC", "MR", "PV")

PROFILES: dict[str, Profile] = {
    "mcp": Profile("mcp", "MCP tools/list (default): the MCP specification, catalog, schema "
                   "and model-readiness rules", ("TC", "MC", "SC", "MR")),
    "openwop-compact": Profile("openwop-compact", "RFC 0112 compact view: CS rules are errors",
                               ("TC", "CS", "SC", "MR"), _CS_ERR, name_pattern=None,
                               view="compact"),
    "openai-strict": Profile("openai-strict", "OpenAI strict function calling", _PV,
                             provider="openai", name_pattern=None),
    "openai": Profile("openai", "OpenAI function calling (strict off)", _PV,
                      provider="openai-nonstrict", name_pattern=None),
    "anthropic": Profile("anthropic", "Anthropic tool use", _PV, provider="anthropic",
                         name_pattern=None),
    "anthropic-strict": Profile("anthropic-strict", "Anthropic strict tool use", _PV,
                                provider="anthropic-strict", name_pattern=None),
    "gemini": Profile("gemini", "Gemini function declarations", _PV, provider="gemini",
                      name_pattern=None),
}

DEFAULT_PROFILE = "mcp"

#: MCP specification revisions whose rules `--mcp-version` selects (the last is the default)
from toolcat.config import MCP_VERSIONS  # noqa: E402, F401  (re-exported; config imports no feature)

#: the profiles whose rules check a provider (what `--select PV` needs)
PROVIDER_PROFILES = tuple(n for n, p in PROFILES.items() if p.provider)


def parse_profiles(value: str | list | tuple | None) -> list[str]:
    """Profile names from ``--profile A,B`` or a config value (a string or a list); raises
    ValueError naming an unknown one."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    out: list[str] = []
    for v in items:
        if not isinstance(v, str):
            raise ValueError(f"profile names are strings (got {v!r})")
        v = v.strip()
        if not v:
            continue
        if v not in PROFILES:
            raise ValueError(f"unknown profile {v!r} (one of {', '.join(PROFILES)})")
        if v not in out:
            out.append(v)
    return out


def severity_in(profile: str, rule) -> str | None:  # registry.Rule
    """The severity ``rule`` has in ``profile``; None when the profile does not run it."""
    p = PROFILES[profile]
    if rule.code[:2] not in p.categories:
        return None
    return p.severities.get(rule.code, rule.severity)


def providers_markdown() -> str:
    """The provider table as Markdown (for docs)."""
    out = ["| provider | tool name | limits | sources |", "|---|---|---|---|"]
    for p in PROVIDERS.values():
        limits = []
        for label, v in (("tools", p.max_tools), ("strict tools", p.max_strict_tools),
                         ("properties", p.max_properties),
                         ("nesting", p.max_depth), ("enum values", p.max_enum_values),
                         ("name/enum chars", p.max_string_chars),
                         ("optional parameters", p.max_optional),
                         ("union parameters", p.max_unions)):
            if v is not None:
                limits.append(f"{label} ≤ {v:,}")
        out.append(f"| {p.title} | `{p.name_pattern}` | {', '.join(limits) or '-'} | "
                   + " ".join(f"<{s}>" for s in p.sources) + " |")
    return "\n".join(out) + "\n"
