"""Lint profiles (which rules run, at which severity); the provider-limits table they name is
:data:`toolcat.formats.providers.PROVIDERS` and the MCP-client table of the setup rules
:data:`toolcat.formats.providers.CLIENTS` (both re-exported here).

Profiles (``--profile NAME``, several as ``--profile A,B``, or ``profile = ...`` in the config):

``mcp`` (default)
    The MCP specification (``--mcp-version``, default 2026-07-28): catalog, schema and
    model-readiness rules (TC, SC, MR), the MCP specification rules (MC) and the
    poisoned-tool rules (TP, errors; every profile runs them). Tool names match
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
``gemini-json``
    Gemini function declarations with ``parametersJsonSchema`` (JSON Schema, no ``$schema``).
``claude-desktop``, ``claude-code``, ``vscode``, ``copilot-cli``, ``gemini-cli``... (every
    row of :data:`CLIENTS`)
    An MCP client: what it strips or refuses in a tool schema (PV512-PV515), and its
    provider's rules when it talks to one provider.

Whatever the profile, an OpenWOP *compact* catalog gets CS201-CS204 as errors.
"""

from __future__ import annotations

# the table lives in formats (lint and project both read it); re-exported here
from toolcat.config import MCP_VERSIONS  # noqa: F401  (the revisions --mcp-version selects)
from toolcat.formats.providers import (  # noqa: F401
    CLIENTS,
    NAME_PATTERN,
    PROVIDERS,
    Client,
    Provider,
)
from toolcat.formats.targets import get as get_target
from toolcat.formats.targets import names as target_names

#: Tool names in MCP 2025-11-25 and later: 1-128 of ASCII letters, digits, `_`, `-`, `.`
#: (server/tools "Tool Names"; TC102 with the `mcp` profile).
MCP_NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,128}$"


class Profile:
    def __init__(self, name: str, summary: str, categories: tuple[str, ...],
                 severities: dict[str, str] | None = None, provider: str | None = None,
                 name_pattern: str | None = MCP_NAME_PATTERN, view: str | None = None,
                 client: str | None = None) -> None:
        self.name = name
        self.summary = summary
        self.categories = categories
        self.severities = severities or {}
        self.provider = provider           # key into PROVIDERS (PV rules), or None
        self.name_pattern = name_pattern   # TC102 (None: only non-empty)
        self.view = view                   # read every input as this view (None: its own)
        self.client = client               # key into CLIENTS (its schema rules), or None


_CS_ERR = {"CS201": "error", "CS202": "error", "CS203": "error", "CS204": "error"}
_PV = ("TC", "SC", "MR", "PV", "SU", "DF", "TP")

PROFILES: dict[str, Profile] = {
    "mcp": Profile("mcp", "MCP tools/list (default): the MCP specification, catalog, schema "
                   "and model-readiness rules", ("TC", "MC", "SC", "MR", "SU", "DF", "TP")),
    "openwop-compact": Profile("openwop-compact", "RFC 0112 compact view: CS rules are errors",
                               ("TC", "CS", "SC", "MR", "SU", "DF", "TP"), _CS_ERR,
                               name_pattern=None,
                               view="compact"),
}

# one profile per provider target, named like it (`lint --profile P` checks what `project
# --to P` writes): the target's provider row, described by the row's title
for _name in target_names():
    _t = get_target(_name)
    if _t.provider:
        PROFILES.setdefault(_t.profile, Profile(
            _t.profile, PROVIDERS[_t.provider].title, _PV, provider=_t.provider,
            name_pattern=None))

# one profile per MCP client (issue 33): its schema rules (PV512-PV515) and, when it talks to
# one provider, that provider's rules
for _c in CLIENTS.values():
    PROFILES.setdefault(_c.key, Profile(
        _c.key, f"{_c.title} (MCP client): what it strips or refuses", _PV,
        provider=_c.providers[0] if _c.providers and len(_c.providers) == 1 else None,
        client=_c.key))

DEFAULT_PROFILE = "mcp"

#: MCP specification revisions whose rules `--mcp-version` selects (the last is the default)

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
    """The provider and client tables as Markdown (for docs)."""
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
        if p.unique_names:
            limits.append("tool names unique per request")
        out.append(f"| {p.title} | `{p.name_pattern}` | {', '.join(limits) or '-'} | "
                   + " ".join(f"<{s}>" for s in p.sources) + " |")
    out += ["", *clients_matrix()]
    out += ["", "| client | providers | tool name sent | limits | schemas it strips or "
            "refuses, arguments it sends | sources |", "|---|---|---|---|---|---|"]
    for c in CLIENTS.values():
        limits = []
        if c.name_max is not None:
            limits.append(f"name ≤ {c.name_max} characters")
        if c.description_max is not None:
            limits.append(f"description cut at {c.description_max:,} characters")
        if c.max_tools is not None:
            limits.append(f"tools ≤ {c.max_tools:,} per request "
                          + " ".join(f"<{u}>" for u in c.cites.get("max_tools", ())))
        provs = ", ".join(PROVIDERS[k].title.split(" (")[0] for k in c.providers) \
            if c.providers else "any"
        quirks = []
        for fact, text in (("refs", {"stripped": "strips `$defs` (dangling `$ref`)",
                                     "refused": "refuses `$ref`/`$defs`"}.get(c.refs or "")),
                           ("dialects", c.dialects and "`$schema` other than "
                            + "/".join(c.dialects) + " refused"),
                           ("root_properties", c.root_properties
                            and "refuses a top-level object without `properties`"),
                           ("stringifies", c.stringifies
                            and "sends object/array arguments as JSON strings")):
            if text:
                quirks.append(text + " " + " ".join(f"<{u}>" for u in c.cites.get(fact, ())))
        sent = f"`{c.tool_name or '{tool}'}`" + (
            f" (a plugin's server: `{c.plugin_tool_name}` "
            + " ".join(f"<{u}>" for u in c.cites.get("plugin_tool_name", ())) + ")"
            if c.plugin_tool_name else "")
        out.append(f"| {c.title} | {provs} | {sent} | "
                   f"{', '.join(limits) or '-'} | {'; '.join(quirks) or '-'} | "
                   + " ".join(f"<{s}>" for s in c.sources) + " |")
    return "\n".join(out) + "\n"


def clients_matrix() -> list[str]:
    """The client compatibility matrix (client x quirk) as Markdown lines, from the client
    table: what each client does with ``$ref``/``$defs``, a ``$schema`` dialect, a top-level
    union (its providers'), a top-level object without ``properties``, long tool names, long
    descriptions, object/array arguments and the tools it sends in one request (the sources:
    the table under it)."""
    head = ["client", "`$ref`/`$defs`", "`$schema`", "top-level `allOf`/`anyOf`/`oneOf`",
            "object without `properties`", "tool name sent", "description", "object/array "
            "arguments", "tools per request"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in CLIENTS.values():
        root = sorted(c.refused_at_root())
        cells = [
            c.title,
            {"stripped": "`$defs` stripped", "refused": "refused"}.get(c.refs or "", "-"),
            (" / ".join(c.dialects) + " only") if c.dialects else "-",
            ("refused: " + ", ".join(f"`{k}`" for k in root)) if root else "-",
            "refused" if c.root_properties else "-",
            (f"`{c.tool_name}`" + (f", ≤ {c.name_max}" if c.name_max else ""))
            if c.tool_name else "as named",
            f"cut at {c.description_max:,}" if c.description_max else "-",
            "sent as JSON strings" if c.stringifies else "-",
            f"≤ {c.max_tools:,}" if c.max_tools else "-",
        ]
        out.append("| " + " | ".join(cells) + " |")
    return out
