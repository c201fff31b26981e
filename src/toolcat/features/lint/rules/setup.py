"""Client setups (SU601-SU605): the tools of every server a client runs, sent together.

A client sends the tools of all its servers in each request, so a provider's per-request
limits apply to the union, and the client's own handling (a name prefix, a description cut)
to each tool. These rules run once per run that reads live servers (``--server``, ``--url``,
``--client``, ``--client-config``), on the setup catalog of
:func:`toolcat.formats.live.capture.setup_catalog`; a finding on a tool names its server and
its index in that server's ``tools/list``.

Which providers and clients are checked: with ``--client NAME``, that client and the
providers it talks to (Claude Desktop and Claude Code: Anthropic); otherwise every client and
provider of the tables; a provider profile (``--profile openai-strict``...) keeps only its
provider. Every figure and its source is in :data:`toolcat.features.lint.profiles.PROVIDERS` and
:data:`toolcat.features.lint.profiles.CLIENTS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from toolcat.features.lint.profiles import CLIENTS, PROVIDERS, Client, Provider
from toolcat.features.lint.registry import Hit, rule
from toolcat.features.lint.rules.provider import strict_budget

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context


def _setup(ctx: Context) -> dict:
    return ctx.catalog.meta.get("setup") or {}


def _of(names: tuple[str, ...], key: str) -> bool:
    """Is provider row ``key`` one of ``names`` (a client's providers)? A row counts for its
    provider's name and its modes: ``anthropic`` covers ``anthropic-strict``."""
    return any(key == n or key.startswith(n + "-") for n in names)


def providers(ctx: Context) -> list[Provider]:
    """The provider rows a setup is checked against (see the module docstring)."""
    client = CLIENTS.get(_setup(ctx).get("client") or "")
    keys = [k for k in PROVIDERS if client is None or not client.providers
            or _of(client.providers, k)]
    if ctx.provider is not None:
        keys = [k for k in keys if k == ctx.provider.key]
    return [PROVIDERS[k] for k in keys]


def clients(ctx: Context) -> list[Client]:
    name = _setup(ctx).get("client")
    if name:
        return [CLIENTS[name]] if name in CLIENTS else []
    if ctx.provider is not None:      # only the clients that talk to the profile's provider
        return [c for c in CLIENTS.values()
                if c.providers is None or _of(c.providers, ctx.provider.key)]
    return list(CLIENTS.values())


def _servers(ctx: Context) -> str:
    n = len(_setup(ctx).get("servers", ()))
    return f"{n} server{'s' if n != 1 else ''}"


def _keys(ctx: Context) -> dict[str, str]:
    """server name in reports -> its name in the client's configuration."""
    return {s["name"]: s.get("key") or s["name"] for s in _setup(ctx).get("servers", ())}


def _valid(ctx: Context) -> Iterator[Any]:
    for t in ctx.catalog.tools:
        if t.invalid is None:
            yield t


@rule("SU601", "setup-tool-count", "error",
      "a setup sends more tools in one request than a provider accepts", scope="setup")
def tool_count(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a setup that sends more tools in one request than a provider accepts: OpenAI accepts
    at most 128 tools per request and Gemini at most 512 function declarations; with `--client
    NAME`, also more than that client sends in one (VS Code Copilot 128, Windsurf 100, Cursor 40).

    ## Why
    A client sends the tools of all its servers in every request; a setup above that fails every
    request until servers are removed or their tools filtered. A single server linted with a
    provider profile reports this as PV506 instead.

    ## Example
    Three servers of 100 tools each (300 in a request):
    ```json setup repeat=100
    {"github": {"tools": [{"name": "get_issue", "description": "Get an issue by number.",
                           "inputSchema": {"type": "object", "properties": {}}}]},
     "jira": {"tools": [{"name": "get_ticket", "description": "Get a ticket by key.",
                         "inputSchema": {"type": "object", "properties": {}}}]},
     "notion": {"tools": [{"name": "get_page", "description": "Get a page by id.",
                           "inputSchema": {"type": "object", "properties": {}}}]}}
    ```

    ## Fix
    Remove servers from the client's configuration, or filter their tools (where the client
    has a tool filter).
    """
    n = len(ctx.catalog.tools)
    single = len(_setup(ctx).get("servers", ())) == 1
    said: set[tuple[str, int]] = set()
    for p in providers(ctx):
        if p.max_tools is None or n <= p.max_tools or (p.name, p.max_tools) in said:
            continue          # (OpenAI's strict and non-strict rows: one limit, said once)
        said.add((p.name, p.max_tools))
        if single and ctx.provider is not None and ctx.provider.key == p.key \
                and ctx.enabled("PV506"):
            continue      # the server's own PV506 says it
        yield Hit(f"the setup sends {n:,} tools from {_servers(ctx)}: more than {p.name} "
                  f"accepts in one request ({p.max_tools:,})", "", None,
                  file=ctx.catalog.file)
    c = CLIENTS.get(_setup(ctx).get("client") or "")   # the named client's own limit
    if c is not None and c.max_tools is not None and n > c.max_tools:
        yield Hit(f"the setup sends {n:,} tools from {_servers(ctx)}: more than {c.title} "
                  f"sends in one request ({c.max_tools:,}; "
                  + " ".join(c.cites.get("max_tools", c.sources)) + ")", "", None,
                  file=ctx.catalog.file)


@rule("SU602", "setup-tool-name-length", "error",
      "a tool's name, as the client sends it (with its server prefix), is longer than the "
      "provider accepts", scope="setup")
def prefixed_name(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a tool whose name, as the client sends it (with its server prefix), is longer than
    the provider accepts. Some clients send a server's tool under a longer name: Claude Code
    sends `mcp__<server>__<tool>` (the server's name in its configuration, characters other than
    letters, digits, `_` and `-` made `_`).

    ## Why
    The provider's 64-character limit applies to that name, and one tool over it fails every
    request of the session ("String should have at most 64 characters").

    ## Example
    ```json setup client=claude-code
    {"github.enterprise": {"tools": [
      {"name": "list_repository_security_advisories_for_organization",
       "description": "List the security advisories of an organization's repositories.",
       "inputSchema": {"type": "object", "properties": {}}}]}}
    ```

    ## Fix
    Shorten the server's name in the configuration, or the tool's.
    """
    keys = _keys(ctx)
    for c in clients(ctx):
        if c.tool_name is None or c.name_max is None:
            continue
        for t in _valid(ctx):
            if not isinstance(t.id, str):
                continue
            sent = c.sent_name(keys.get(t.file, t.file), t.id)
            if len(sent) > c.name_max:
                yield Hit(f"{c.title} sends this tool as {sent!r}: {len(sent)} characters, "
                          f"more than {c.name_max}", "/name", t)


@rule("SU603", "client-description-cut", "warning",
      "a tool description longer than the client passes on to the model", scope="setup")
def description_cut(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a tool description longer than the client passes on to the model: Claude Code cuts
    every MCP tool description at 2,048 characters (and server instructions too) before the model
    sees it.

    ## Why
    The cut is silent: whatever the description says after that is lost.

    ## Example
    ```json setup client=claude-code long-description=2100
    {"docs": {"tools": [{"name": "search_docs",
                         "description": "Search the documentation; the syntax of a query is",
                         "inputSchema": {"type": "object", "properties": {}}}]}}
    ```

    ## Fix
    Put what the model needs first, or move details into parameter descriptions.
    """
    for c in clients(ctx):
        if c.description_max is None:
            continue
        for t in _valid(ctx):
            d = t.description
            if isinstance(d, str) and len(d) > c.description_max:
                yield Hit(f"{c.title} passes on only the first {c.description_max:,} of this "
                          f"description's {len(d):,} characters", "/description", t)


@rule("SU604", "setup-strict-limits", "info",
      "the setup cannot be sent with strict tool use (the provider's per-request limits)",
      scope="setup")
def strict_limits(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a setup that cannot be sent with strict tool use (the provider's per-request limits):
    Anthropic's strict tool use (`strict: true`, inputs guaranteed to match the schema) takes at
    most 20 strict tools per request, 24 optional parameters and 16 union-typed parameters
    (`anyOf` or a `type` array) across all strict schemas.

    ## Why
    MCP clients do not send tools as strict today; this says whether the setup could be.

    ## Example
    Five tools of five optional, union-typed parameters each:
    ```json setup repeat=5
    {"crm": {"tools": [{"name": "find_contact", "description": "Find contacts by any field.",
                        "inputSchema": {"type": "object", "properties": {
                          "name": {"type": ["string", "null"]},
                          "email": {"type": ["string", "null"]},
                          "phone": {"type": ["string", "null"]},
                          "city": {"type": ["string", "null"]},
                          "company": {"type": ["string", "null"]}}}}]}}
    ```

    ## Fix
    Make parameters required where the tool needs them, use one type where one will do, or keep
    such tools out of a strict request.
    """
    tools = list(_valid(ctx))
    counted: tuple[int, int] | None = None
    for p in providers(ctx):
        if not p.strict or not any((p.max_strict_tools, p.max_optional, p.max_unions)):
            continue
        if counted is None:       # counted as PV510 counts one catalog's strict tools
            opt = uni = 0
            for t in tools:
                if isinstance(t.input_schema, dict):
                    o, u = strict_budget(t.input_schema, t.dialect)
                    opt += o
                    uni += u
            counted = (opt, uni)
        opt, uni = counted
        for limit, value, what in ((p.max_strict_tools, len(tools), "tools"),
                                   (p.max_optional, opt, "optional parameters"),
                                   (p.max_unions, uni, "union-typed parameters")):
            if limit is not None and value > limit:
                yield Hit(f"sent with strict: true, the setup's {value:,} {what} exceed "
                          f"{p.name}'s {limit} per request", "", None, file=ctx.catalog.file)


@rule("SU605", "setup-duplicate-tool-name", "error",
      "two servers' tools are sent under one name in the same request", scope="setup")
def duplicate_name(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports two servers' tools that are sent under one name in the same request. Two tools of
    one server with one name are TC101.

    ## Why
    A client that sends each tool under its own name sends two servers' `search` tools as two
    tools named `search` in one request, and Anthropic rejects every such request (400 "tools:
    Tool names must be unique."); where a provider takes them, the model cannot tell them apart
    and calls reach one server. Claude Code's `mcp__<server>__<tool>` names collide only when
    two server names become one once characters outside `[A-Za-z0-9_-]` are `_`.

    ## Example
    ```json setup
    {"docs": {"tools": [{"name": "search", "description": "Search the documentation.",
                         "inputSchema": {"type": "object", "properties": {}}}]},
     "web": {"tools": [{"name": "search", "description": "Search the web.",
                        "inputSchema": {"type": "object", "properties": {}}}]}}
    ```

    ## Fix
    Rename a tool, or disable one of the servers.
    """
    strict = [p for p in providers(ctx) if p.unique_names]
    if not strict:
        return
    keys = _keys(ctx)
    schemes: dict[str | None, list[Client]] = {}
    for c in clients(ctx):
        if c.providers is None or any(p.key in c.providers for p in strict):
            schemes.setdefault(c.tool_name, []).append(c)
    names = list(dict.fromkeys(p.name for p in strict))      # Anthropic's rows: one name
    who_p = " and ".join(names)
    for group in schemes.values():
        c = group[0]
        titles = [x.title for x in group]
        who = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
        first: dict[str, Any] = {}
        for t in _valid(ctx):
            if not isinstance(t.id, str):
                continue
            sent = c.sent_name(keys.get(t.file, t.file), t.id)
            other = first.setdefault(sent, t)
            if other is t or other.file == t.file:
                continue          # the first of its name, or TC101's (one server's own)
            idx = other.pointer.rsplit("/", 1)[-1]
            yield Hit(f"{who} send{'s' if len(titles) == 1 else ''} this tool as {sent!r}, "
                      f"the name of {other.file}'s tool #{idx} too: {who_p} "
                      f"reject{'s' if len(names) == 1 else ''} a request "
                      "with two tools of one name", "/name", t)
