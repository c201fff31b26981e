"""THE provider table: what each model provider accepts in a tool definition (names, schema
keywords, formats, limits), one :class:`Provider` row each with the documentation or SDK code
it was taken from, so updating a provider is one edit here. ``toolcat lint``'s provider rules
(PV5xx, :mod:`toolcat.features.lint.rules.provider`) and ``toolcat project``'s provider targets
(:mod:`toolcat.features.project.providers`) read nothing else; what an MCP client does to the tools it
sends (its name prefix, a description cut, the providers it talks to) is one :class:`Client`
row of :data:`CLIENTS`, read by the setup rules (SU6xx, :mod:`toolcat.features.lint.rules.setup`). The
measurements they need (size limits, recursion, the strict per-request totals) are the
functions below.
"""

from __future__ import annotations

from typing import Any, Iterator

from toolcat.document import pointer as jp
from toolcat.schema.walker import iter_schemas

#: Tool-name pattern of the OpenAI and Anthropic APIs (PV508).
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"

#: Strict modes (OpenAI structured outputs, Anthropic strict tool use) compile the schema into
#: a grammar and ask every schema for one of these: a schema of any value (``{}``, no type) is
#: refused (OpenAI: "all fields must have a type"; both SDKs' strict transforms stop on it).
#: lint PV511 reports it; project's strict targets send such a tool without strict.
STRICT_TYPED_KEYS = ("type", "enum", "const", "anyOf", "allOf", "$ref", "oneOf", "not")

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
    ``openapi_schema``: schemas are the OpenAPI 3.0 Schema object (``nullable``, one
    ``type``, no boolean schemas), not JSON Schema.
    ``portable``: the profile's name rule is a portability finding (PV508) for MCP catalogs.
    ``unique_names``: a request with two tools of one name is rejected (SU605).
    ``root_properties``: a top-level object schema without ``properties`` is rejected
    (OpenAI: 400 "object schema missing properties"; PV505); the provider targets write
    ``"properties": {}`` there (exact).
    ``description_min``: the fewest characters of a tool description, when one is given
    (Bedrock: 1; PV516); the target writes no empty description.
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
                 max_unions: int | None = None, openapi_schema: bool = False,
                 unique_names: bool = False, root_properties: bool = False,
                 description_min: int = 0, notes: str = "") -> None:
        self.key = key
        self.title = title
        self.name = title.split()[0]           # "OpenAI", "Anthropic", "Gemini" (messages)
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
        self.openapi_schema = openapi_schema
        self.unique_names = unique_names
        self.root_properties = root_properties
        self.description_min = description_min
        self.notes = notes


#: 400 "Invalid schema for function 'X': In context=(), object schema missing properties"
#: for parameters {"type": "object"} (a tool without arguments), strict or not
_MISSING_PROPERTIES = (
    "https://github.com/evalstate/fast-agent/issues/143",
    "https://github.com/containers/kubernetes-mcp-server/issues/340",
    "https://github.com/mark3labs/mcphost/pull/90",
)

PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        key="openai",
        title="OpenAI function calling, strict mode (Structured Outputs)",
        sources=(
            "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas",
            "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
            "https://platform.openai.com/docs/guides/function-calling",
            "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
            *_MISSING_PROPERTIES,
        ),
        max_tools=128,
        root_properties=True,
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
            # 400 "tools: Tool names must be unique." (two MCP servers with one tool name)
            "https://github.com/anthropics/claude-code/issues/10687",
        ),
        root_must_be_object=True,
        # the API rejects: "input_schema does not support oneOf, allOf, or anyOf at the top level"
        root_forbidden=frozenset({"oneOf", "allOf", "anyOf"}),
        unique_names=True,
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
            # the per-request totals (20 strict tools, 24 optional, 16 union parameters)
            "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"
            "#explicit-limits",
            "https://github.com/anthropics/claude-code/issues/10687",   # unique tool names
        ),
        root_forbidden=frozenset({"oneOf", "allOf", "anyOf"}),
        # JSON Schema limitations: supported are the basic types, enum (primitive values),
        # const, anyOf, allOf, local $ref/$defs/definitions, default, required,
        # additionalProperties: false, the string formats below and minItems 0 or 1; not
        # supported: recursive schemas, numerical constraints (minimum, maximum, multipleOf),
        # string length constraints, array constraints beyond minItems 0/1, external $ref
        # The SDK's own strict-schema transform (anthropic-sdk-python
        # src/anthropic/lib/_parse/_transform.py, transform_schema) is stricter than the
        # prose: it keeps only type (one name: a type list is unreachable there), enum/const
        # of primitives, anyOf/oneOf/allOf, $ref/$defs, description, title, properties,
        # required, additionalProperties false, items, minItems 0/1 and the formats below,
        # and moves everything else (pattern and default included) into the description.
        # toolcat follows the SDK: what it moves, the API may refuse.
        allowed=frozenset({
            "type", "properties", "required", "additionalProperties", "items", "enum",
            "const", "anyOf", "allOf", "$ref", "$defs", "definitions", "format",
            "minItems", "description", "title", "$schema",
        }),
        type_arrays=False,
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
        unique_names=True,
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
            *_MISSING_PROPERTIES,
        ),
        root_properties=True,
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
            # Tool.functionDeclarations: "Maximum 512 function declarations can be provided."
            "https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool",
        ),
        max_tools=512,
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
        openapi_schema=True,
        notes="The Schema object is closed (unknown fields are rejected, e.g. $schema, "
              "additionalProperties, $ref); `type` is one value (use nullable); enum holds "
              "strings. parametersJsonSchema (full JSON Schema): the gemini-json row.",
    ),
    "gemini-json": Provider(
        key="gemini-json",
        title="Gemini function declarations (parametersJsonSchema: JSON Schema)",
        sources=(
            # FunctionDeclaration.parametersJsonSchema: "Describes the parameters to the
            # function in JSON Schema format. The schema must describe an object where the
            # properties are the parameters to the function ... This field is mutually
            # exclusive with `parameters`." (also google-genai's types.FunctionDeclaration,
            # field parameters_json_schema, the same docstring)
            "https://ai.google.dev/api/caching#FunctionDeclaration",
            "https://github.com/googleapis/python-genai/blob/main/google/genai/types.py "
            "(FunctionDeclaration.parameters_json_schema)",
            # the JSON Schema support ($ref, $defs, anyOf, additionalProperties, prefixItems)
            "https://ai.google.dev/gemini-api/docs/structured-output#json-schema",
            "https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool",
        ),
        max_tools=512,
        name_pattern=r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
        # `$schema` is refused in the declaration's schema (issue 33); the project target
        # drops it, exact only where the schema reads the same as 2020-12
        unsupported=frozenset({"$schema"}),
        root_must_be_object=True,
        notes="JSON Schema ($defs, $ref, anyOf, additionalProperties); `$schema` is refused; "
              "mutually exclusive with `parameters`.",
    ),
    "bedrock": Provider(
        key="bedrock",
        title="Amazon Bedrock Converse tools (toolSpec.inputSchema.json)",
        sources=(
            # botocore/data/bedrock-runtime/2023-09-30/service-2.json: ToolSpecification
            # (name and inputSchema required), ToolName (min 1, max 64, pattern
            # [a-zA-Z0-9_-]+), description NonEmptyString (min 1), ToolInputSchema ("The top
            # level schema type must be object"; a union whose member is `json`)
            "https://github.com/boto/botocore/blob/develop/botocore/data/bedrock-runtime/"
            "2023-09-30/service-2.json (ToolSpecification, ToolName, ToolInputSchema)",
            "https://docs.aws.amazon.com/bedrock/latest/APIReference/"
            "API_runtime_ToolSpecification.html",
            "https://docs.aws.amazon.com/bedrock/latest/APIReference/"
            "API_runtime_ToolInputSchema.html",
            "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use.html",
            # ValidationException "The value at toolConfig.tools.N.toolSpec.inputSchema.json.type
            # must be one of the following: object."
            "https://github.com/cognitect-labs/aws-api/issues/272",
            "https://github.com/aaif-goose/goose/pull/5064",
        ),
        name_pattern=NAME_PATTERN,
        root_must_be_object=True,
        # description: NonEmptyString (min 1); the bedrock target leaves an empty one out
        description_min=1,
        notes="Any JSON Schema object whose top level says type: object; inputSchema is "
              "required; a description, when given, is not empty.",
    ),
}


class Client:
    """What one MCP client does to the tools of its servers before a model sees them.

    ``providers``: the providers (keys of :data:`PROVIDERS`) it sends requests to (None:
    any, the user picks the model); ``tool_name``: the name it sends a server's tool under
    (``{server}``: the server's name in its configuration, characters outside
    ``[A-Za-z0-9_-]`` replaced by ``_``; ``{tool}``: the tool's name), None when it sends the
    tool's own name; ``name_max``: the longest name the provider takes;
    ``description_max``: the characters of a tool description it passes on (longer ones are
    cut).

    What it does to the schemas (``lint --profile CLIENT``, PV512-PV515; issue 33), each
    fact with its sources in ``cites`` (fact name -> URLs): ``refs``: ``"stripped"`` (it
    drops ``$defs`` and sends dangling ``$ref`` s on) or ``"refused"`` (the tool, or the
    server, fails on ``$ref``); ``dialects``: the only ``$schema`` dialects it takes (None:
    any); ``root_properties``: it refuses a top-level object schema without ``properties``;
    ``stringifies``: it is known to send object and array arguments as JSON strings (what a
    proxy may repair). ``plugin_tool_name``: the name it sends a tool of a server a plugin
    brought under (``{plugin}``: the plugin's name), None when plugins do not change it.
    ``root_unions``: keywords it refuses at the top level of an input schema beyond those
    its providers refuse (:meth:`refused_at_root`). ``max_tools``: the most tools (of all its
    servers together) it sends in one request; beyond it the request fails or the client
    leaves tools out.
    """

    def __init__(self, key: str, title: str, sources: tuple[str, ...],
                 providers: tuple[str, ...] | None = None, tool_name: str | None = None,
                 name_max: int | None = None, description_max: int | None = None,
                 refs: str | None = None, dialects: tuple[str, ...] | None = None,
                 root_properties: bool = False, stringifies: bool = False,
                 plugin_tool_name: str | None = None,
                 root_unions: frozenset[str] = frozenset(), max_tools: int | None = None,
                 cites: dict[str, tuple[str, ...]] | None = None) -> None:
        self.key = key
        self.title = title
        self.sources = sources
        self.providers = providers
        self.tool_name = tool_name
        self.name_max = name_max
        self.description_max = description_max
        self.refs = refs
        self.dialects = dialects
        self.root_properties = root_properties
        self.stringifies = stringifies
        self.plugin_tool_name = plugin_tool_name
        self.root_unions = root_unions
        self.max_tools = max_tools
        self.cites = cites or {}

    def sent_name(self, server: str, tool: str, plugin: str | None = None) -> str:
        """The name this client sends ``server``'s tool ``tool`` under (``plugin``: the
        plugin that brought the server, where the client names its tools apart)."""
        if self.tool_name is None:
            return tool
        import re

        fmt = self.plugin_tool_name if plugin and self.plugin_tool_name else self.tool_name
        clean = lambda v: re.sub(r"[^A-Za-z0-9_-]", "_", v)  # noqa: E731
        return fmt.format(server=clean(server), tool=tool, plugin=clean(plugin or ""))

    def refused_at_root(self) -> frozenset[str]:
        """The keywords this client's requests cannot carry at the top level of an input
        schema: its own, and its providers' (``root_forbidden``: Anthropic refuses ``oneOf``,
        ``allOf`` and ``anyOf`` there, OpenAI's strict mode ``anyOf``)."""
        out = set(self.root_unions)
        for k in self.providers or ():
            p = PROVIDERS.get(k)
            if p is not None and not p.strict:
                out |= p.root_forbidden
        return frozenset(out)

    def name_room(self, server: str, plugin: str | None = None) -> int | None:
        """The longest tool name this client sends within its provider's limit once it
        has prefixed it (None: no prefix or no limit known)."""
        if self.tool_name is None or self.name_max is None:
            return None
        return self.name_max - len(self.sent_name(server, "", plugin))


def server_name(catalog: Any) -> str:
    """The name a client knows the server of ``catalog`` by, for its name prefix: a live
    server's name in the client's configuration (else the name toolcat gives it), an
    mcp-context-cost capture's ``serverName``, else the catalog's file name up to its first
    dot (``github.capture.json``: ``github``; the assumption ``--server-name`` replaces)."""
    import os

    meta = getattr(catalog, "meta", None) or {}
    live = meta.get("live")
    if isinstance(live, dict) and isinstance(live.get("key"), str) and live["key"]:
        return live["key"]
    if isinstance(meta.get("serverName"), str) and meta["serverName"]:
        return meta["serverName"]
    base = os.path.basename(str(getattr(catalog, "file", "")).rstrip("/"))
    return base.split(".")[0] or base or "server"


CLIENTS: dict[str, Client] = {
    "claude-code": Client(
        key="claude-code",
        title="Claude Code",
        sources=(
            # "Claude Code truncates tool descriptions and server instructions at 2KB each"
            "https://code.claude.com/docs/en/mcp",
            "https://github.com/anthropics/claude-code/issues/41593",   # the 2,048 cut
            "https://github.com/anthropics/claude-code/issues/19882",   # mcp__<server>__ names
        ),
        providers=("anthropic",),
        tool_name="mcp__{server}__{tool}",
        plugin_tool_name="mcp__plugin_{plugin}_{server}__{tool}",
        name_max=64,
        description_max=2048,
        dialects=("2020-12",), stringifies=True,
        cites={"dialects": ("https://github.com/anthropics/claude-code/issues/90549",),
               # a plugin's servers: mcp__plugin_<plugin>_<server>__<tool>, and the API's
               # "tool_name: String should have at most 64 characters"
               "plugin_tool_name": ("https://github.com/cloudflare/skills/issues/11",
                                    "https://github.com/nix-community/home-manager/issues/9446"),

               "stringifies": ("https://github.com/anthropics/claude-code/issues/22394",
                               "https://github.com/anthropics/claude-code/issues/82652")},
    ),
    "claude-desktop": Client(
        key="claude-desktop", title="Claude Desktop",
        sources=("https://modelcontextprotocol.io/quickstart/user",), providers=("anthropic",),
        refs="stripped", dialects=("2020-12",), stringifies=True,
        cites={
            "refs": ("https://github.com/PrefectHQ/fastmcp/pull/2861",
                     "https://github.com/PrefectHQ/fastmcp/pull/2808"),
            # "JSON Schema declares an unsupported dialect (...draft-07...). The default
            # validator supports JSON Schema 2020-12 only" (Claude desktop / Cowork)
            "dialects": ("https://github.com/perplexityai/modelcontextprotocol/issues/132",
                         "https://github.com/marianfoo/sap-mcp-servers/issues/52"),
            "stringifies": ("https://github.com/anthropics/claude-code/issues/59227",),
        }),
    "cursor": Client(
        key="cursor", title="Cursor", sources=("https://cursor.com/docs/mcp",), max_tools=40,
        # "errors that Cursor cannot take more than 40 tools"; its docs of 2025 said it sent
        # only the first 40 tools to the agent
        cites={"max_tools": ("https://github.com/modelcontextprotocol/.github/discussions/360",)}),
    "vscode": Client(
        key="vscode", title="VS Code Copilot",
        sources=("https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",),
        refs="stripped", max_tools=128,
        cites={"refs": ("https://github.com/PrefectHQ/fastmcp/pull/2808",
                        "https://github.com/microsoft/vscode/issues/286415"),
               # "Cannot have more than 128 tools per request." (Copilot Chat's own check)
               "max_tools": ("https://github.com/microsoft/vscode/issues/258890",
                             "https://github.com/microsoft/vscode-copilot-release/issues/11653")}),
    "windsurf": Client(
        key="windsurf", title="Windsurf",
        sources=("https://docs.windsurf.com/windsurf/cascade/mcp",), max_tools=100,
        # "Cascade has a limit of 100 total tools that it has access to at any given time"
        cites={"max_tools": ("https://docs.windsurf.com/windsurf/cascade/mcp",)}),
    "copilot-cli": Client(
        key="copilot-cli", title="GitHub Copilot CLI",
        sources=("https://github.com/github/copilot-cli",),
        refs="refused", root_properties=True,
        cites={"refs": ("https://github.com/github/copilot-cli/issues/1876",
                        "https://github.com/perforce/p4mcp-server/issues/3"),
               # "object schema missing properties" for {"type": "object", ...}
               "root_properties": ("https://github.com/github/copilot-cli/issues/1825",)}),
    "gemini-cli": Client(
        key="gemini-cli", title="Gemini CLI",
        sources=("https://github.com/google-gemini/gemini-cli",), providers=("gemini",),
        refs="refused",
        cites={"refs": ("https://github.com/google-gemini/gemini-cli/issues/13326",
                        "https://github.com/google-gemini/gemini-cli/issues/13142")}),
    "kiro": Client(
        key="kiro", title="Kiro", sources=("https://kiro.dev/docs/mcp/",), refs="refused",
        cites={"refs": ("https://github.com/davideast/stitch-mcp/issues/184",)}),
    "opencode": Client(
        key="opencode", title="opencode", sources=("https://opencode.ai/docs/mcp-servers/",),
        refs="refused",
        cites={"refs": ("https://github.com/davideast/stitch-mcp/issues/184",
                        "https://github.com/anomalyco/opencode/issues/12295")}),
    "bedrock-agentcore": Client(
        key="bedrock-agentcore", title="Amazon Bedrock AgentCore",
        sources=("https://docs.aws.amazon.com/bedrock-agentcore/",), refs="refused",
        # "rejects schemas containing $ref, $defs, $anchor, $dynamicRef, or $dynamicAnchor"
        cites={"refs": ("https://github.com/PrefectHQ/fastmcp/issues/3655",)}),
    "codex": Client(
        key="codex", title="Codex", sources=("https://github.com/openai/codex",),
        providers=("openai-nonstrict",)),
}



def is_object_schema(node: dict) -> bool:
    """Does ``node`` describe objects (its ``type`` says so, or it has ``properties``)?"""
    t = node.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or \
        (t is None and "properties" in node)


def _nesting(path: tuple) -> int:
    return sum(1 for t in path if t == "properties") + \
        sum(1 for t in path if t in ("items", "additionalProperties"))


def size_violations(p, s: Any, dialect: str) -> Iterator[tuple[str, str]]:
    """(message, tool pointer) of each of provider ``p``'s size limits schema ``s`` exceeds
    (``toolcat project`` asks the same before writing a strict tool)."""
    if not any((p.max_properties, p.max_depth, p.max_enum_values, p.max_string_chars,
                p.large_enum_values)):
        return
    props = enums = chars = depth = 0
    deepest = ""
    for path, node, _d in iter_schemas(s, dialect):
        if not isinstance(node, dict):
            continue
        pr = node.get("properties")
        if isinstance(pr, dict):
            props += len(pr)
            chars += sum(len(k) for k in pr)
        for dk in ("$defs", "definitions"):
            dv = node.get(dk)
            if isinstance(dv, dict):
                chars += sum(len(k) for k in dv)
        lvl = _nesting(path) + (1 if is_object_schema(node) else 0)
        if lvl > depth:
            depth, deepest = lvl, jp.encode(path)
        e = node.get("enum")
        if isinstance(e, list):
            enums += len(e)
            echars = sum(len(v) for v in e if isinstance(v, str))
            chars += echars
            if p.large_enum_values and len(e) > p.large_enum_values and p.large_enum_chars \
                    and echars > p.large_enum_chars:
                yield (f"string enum of {len(e)} values holds {echars:,} characters (max "
                       f"{p.large_enum_chars:,} above {p.large_enum_values} values)",
                       "/inputSchema" + jp.encode(path + ("enum",)))
        c = node.get("const")
        if isinstance(c, str):
            chars += len(c)
    checks = ((p.max_properties, props, "object properties"),
              (p.max_enum_values, enums, "enum values"),
              (p.max_string_chars, chars, "characters of names and enum/const values"))
    for limit, value, what in checks:
        if limit is not None and value > limit:
            yield f"{value:,} {what} (max {limit:,} for {p.title})", "/inputSchema"
    if p.max_depth is not None and depth > p.max_depth:
        yield f"objects nest {depth} levels deep (max {p.max_depth})", "/inputSchema" + deepest


def _local_target(root: Any, ref: str) -> tuple | None:
    """The path (array indices as ints, as the walker gives them) a local ``$ref`` names."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    if ref in ("#", "#/"):
        return ()
    if not ref.startswith("#/"):
        return None
    try:
        got = jp.walk(root, jp.decode_fragment(ref[1:]))
    except ValueError:
        return None
    return None if got is None else tuple(got[0])


def recursive_refs(schema: Any, dialect: str) -> list[tuple]:
    """Paths of the local ``$ref`` nodes of ``schema`` that lead back to themselves (a
    target that holds, or reaches through further references, the reference)."""
    refs: dict[tuple, tuple] = {}
    for path, node, _d in iter_schemas(schema, dialect):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            t = _local_target(schema, node["$ref"])
            if t is not None:
                refs[path] = t
    out = []
    for path, target in refs.items():
        seen: set[tuple] = set()
        todo = [target]
        hit = False
        while todo and not hit:
            t = todo.pop()
            if t in seen:
                continue
            seen.add(t)
            for rp, rt in refs.items():
                if rp[:len(t)] == t:          # a reference inside the target's subtree
                    if rp == path:
                        hit = True
                        break
                    todo.append(rt)
        if hit:
            out.append(path)
    return out


def _union(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    t = node.get("type")
    return (isinstance(t, list) and len(t) > 1) or isinstance(node.get("anyOf"), list)


def strict_budget(schema: Any, dialect: str) -> tuple[int, int]:
    """(optional parameters, union-typed parameters) of one schema, as Anthropic counts them
    against its per-request limits: every property of every object, optional when its object
    does not require it, a union when its type is a list or it is an ``anyOf``."""
    optional = unions = 0
    for _path, node, _d in iter_schemas(schema, dialect):
        if not isinstance(node, dict) or not isinstance(node.get("properties"), dict):
            continue
        req = rq if isinstance(rq := node.get("required"), list) else []
        for name, sub in node["properties"].items():
            optional += name not in req
            unions += _union(sub)
    return optional, unions
