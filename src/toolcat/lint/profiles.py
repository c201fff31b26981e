"""Lint profiles (which rules run, at which severity) and THE provider-limits table.

Each provider's facts live in one :class:`Provider` entry of :data:`PROVIDERS`, with the
documentation it was taken from, so updating a provider is one edit here. The ``PV5xx`` rules
read nothing else.

Profiles (``--profile NAME``, or ``profile = "..."`` in the config):

``mcp`` (default)
    Catalog and schema rules (TC, SC, MR); the compact-view rules CS201-CS204 as warnings
    ("not compact-ready"). Tool names must match ``^[a-zA-Z0-9_-]{1,64}$``.
``openwop-compact``
    RFC 0112: CS201-CS204 are errors (CS205 stays a warning: RFC 0112 allows those keywords,
    a compact view only has to lower them).
``openai-strict``
    OpenAI function calling with ``strict: true`` (structured outputs): PV rules with the
    ``openai`` entry below; CS rules off.
``anthropic``
    Anthropic Messages API tools: PV rules with the ``anthropic`` entry; CS rules off.
``gemini``
    Gemini function declarations (``parameters``, an OpenAPI 3.0 Schema subset): PV rules with
    the ``gemini`` entry; CS rules off.

Whatever the profile, an OpenWOP *compact* catalog gets CS201-CS204 as errors.
"""

from __future__ import annotations

#: Tool-name pattern of MCP, OpenAI and Anthropic targets (issue 4, TC102).
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"


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
                 notes: str = "") -> None:
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
        self.notes = notes


PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        key="openai",
        title="OpenAI function calling, strict mode (Structured Outputs)",
        sources=(
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
        strict_subset_unsupported=frozenset({
            "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
            "minLength", "maxLength", "maxItems", "minProperties", "maxProperties",
        }),
        notes="Plain tool use takes JSON Schema 2020-12; with strict: true numeric, string-"
              "length and array/object size constraints are unsupported (reported as info).",
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
                 name_pattern: str | None = NAME_PATTERN) -> None:
        self.name = name
        self.summary = summary
        self.categories = categories
        self.severities = severities or {}
        self.provider = provider
        self.name_pattern = name_pattern   # TC102 (None: only non-empty)


_CS_WARN = {"CS201": "warning", "CS202": "warning", "CS203": "warning", "CS204": "warning"}
_CS_ERR = {"CS201": "error", "CS202": "error", "CS203": "error", "CS204": "error"}

PROFILES: dict[str, Profile] = {
    "mcp": Profile("mcp", "MCP tools/list (default): catalog and schema rules, "
                   "compact-view rules as warnings", ("TC", "CS", "SC", "MR"), _CS_WARN),
    "openwop-compact": Profile("openwop-compact", "RFC 0112 compact view: CS rules are errors",
                               ("TC", "CS", "SC", "MR"), _CS_ERR, name_pattern=None),
    "openai-strict": Profile("openai-strict", "OpenAI strict function calling",
                             ("TC", "SC", "MR", "PV"), provider="openai",
                             name_pattern=PROVIDERS["openai"].name_pattern),
    "anthropic": Profile("anthropic", "Anthropic tool use", ("TC", "SC", "MR", "PV"),
                         provider="anthropic", name_pattern=PROVIDERS["anthropic"].name_pattern),
    "gemini": Profile("gemini", "Gemini function declarations", ("TC", "SC", "MR", "PV"),
                      provider="gemini", name_pattern=PROVIDERS["gemini"].name_pattern),
}

DEFAULT_PROFILE = "mcp"


def severity_in(profile: str, rule) -> str | None:  # noqa: ANN001 - registry.Rule
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
        for label, v in (("tools", p.max_tools), ("properties", p.max_properties),
                         ("nesting", p.max_depth), ("enum values", p.max_enum_values),
                         ("name/enum chars", p.max_string_chars)):
            if v is not None:
                limits.append(f"{label} ≤ {v:,}")
        out.append(f"| {p.title} | `{p.name_pattern}` | {', '.join(limits) or '-'} | "
                   + " ".join(f"<{s}>" for s in p.sources) + " |")
    return "\n".join(out) + "\n"
