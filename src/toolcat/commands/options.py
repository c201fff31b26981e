"""The Typer declarations of the options several commands share: an Annotated alias each
(option strings from :data:`toolcat.commands.common.SHARED`, help here), and :func:`shared`,
which adds them to a command as one typed :class:`~toolcat.commands.common.Shared`::

    @shared(*LOAD, *LIVE, *UI)
    def tools(paths: Paths = None, fmt: ... = "text", *, opts: Shared) -> int:
        opts.apply_ui()
        src = opts.sources(paths, opts.live())

They live here so that :mod:`toolcat.commands.common`, :mod:`toolcat.commands.sources` and
the fast ``toolcat lint`` path (:mod:`toolcat.commands.lint_run`) do not import Typer."""

from __future__ import annotations

import functools
import inspect
from typing import Annotated, Any, Callable, Optional

import typer

from toolcat.commands.common import SHARED, Shared
from toolcat.commands.sources import CLIENT_NAMES
from toolcat.formats.providers import CLIENTS
from toolcat.formats.registry import keys
from toolcat.formats.targets import names as target_names


def _option(name: str, **kw: Any) -> Any:
    """The typer.Option of the shared option ``name`` (its strings from SHARED)."""
    return typer.Option(*SHARED[name][0], **kw)


Paths = Annotated[
    Optional[list[str]],
    typer.Argument(help="Catalog files or folders (`-` reads stdin); none are needed when "
                   "--server, --url, --client or --client-config gives servers.",
                   show_default=False),
]
FromFormat = Annotated[
    Optional[str],
    _option("from_format", help=f"Force the input format: {', '.join(keys())} "
                 "[default: detected from the content].",
                 show_default=False),
]
Webhooks = Annotated[bool, _option("webhooks", help="OpenAPI 3.1: also make tools of `webhooks`.")]
Cookies = Annotated[bool, _option("cookies", help="OpenAPI: also map cookie parameters.")]
BrokenRefs = Annotated[str, _option(
    "broken_refs", help="OpenAPI: a $ref that does not resolve: widen (the schema there "
    "becomes {}, reported), omit (the tools that use it are left out, reported) or fail "
    "(exit 2). Other tools are built as usual.")]
Root = Annotated[Optional[str], _option(
    "root", help="OpenAPI: the folder $refs to other files may reach [default: the spec's "
    "own folder] (e.g. the specification/ folder of Azure specs that share common-types).",
    show_default=False)]
Merge = Annotated[bool, _option("merge", help="Treat all inputs as pages of one catalog.")]
NoColor = Annotated[bool, _option("no_color", help="No colours (also: NO_COLOR=1).")]
Quiet = Annotated[bool, _option("quiet", help="No summaries on stderr.")]
MaxFileSize = Annotated[
    Optional[int],
    _option("max_file_size", help="Largest input file in bytes [default: 64 MiB].",
                 show_default=False),
]

# the live options (toolcat.commands.sources)
Servers = Annotated[Optional[list[str]], _option(
    "server", help="Run this MCP server and read its tools (a command line, split as a "
    "shell splits words; `NAME=value` words before the command set its environment). "
    "Repeatable.", show_default=False)]
Urls = Annotated[Optional[list[str]], _option(
    "url", help="Read the tools of this Streamable HTTP MCP server (http:// or https://). "
    "Repeatable.", show_default=False)]
Headers = Annotated[Optional[list[str]], _option(
    "header", help="'Name: value' sent to every --url server (e.g. 'Authorization: Bearer "
    "...'; never printed). Repeatable.", show_default=False)]
Timeout = Annotated[Optional[float], _option(
    "timeout", help="Seconds each server has from its start to its last tools/list page; "
    "then its process group is ended [default: 30, from measured cold starts of uvx and "
    "npx servers].", show_default=False)]
Client = Annotated[Optional[str], _option(
    "client", help="Read every MCP server of this client's configuration: "
    f"{', '.join(CLIENT_NAMES)}.", show_default=False)]
ClientConfig = Annotated[Optional[str], _option(
    "client_config", help="Read every MCP server of this client configuration file "
    "(mcpServers or servers).", show_default=False)]
Verbose = Annotated[bool, _option(
    "verbose", help="Show each server's stderr (lines prefixed with [name]) and what "
    "was captured.")]


# the projection options (toolcat.features.project.options_from_cli)
To = Annotated[Optional[str], _option(
    "to", help=f"Target: {', '.join(target_names())} (a provider target writes what that provider "
    "accepts; `toolcat lint --profile TARGET` checks it) [default: openwop for OpenWOP input, "
    "else mcp].",
    show_default=False)]
DescriptionMax = Annotated[int, _option(
    "description_max", help="Longest tool description, in characters; also caps the kept "
    "clauses of schema descriptions (60 at most). 0 drops every description (the handbook "
    "keeps them).")]
Lossless = Annotated[bool, _option(
    "lossless", help="Cut no prose a model reads: tool and schema descriptions whole, "
    "titles kept; only the exact rewrites (implies --keep-titles; --description-max is "
    "ignored).")]
Unlowerable = Annotated[Optional[str], _option(
    "unlowerable", help="What cannot be lowered exactly to the compact subset: widen, "
    "omit, keep or fail [default: widen]. Given with a target other than openwop, it "
    "implies --subset.", show_default=False)]
Subset = Annotated[Optional[bool], _option(
    "subset", help="Lower input schemas to the RFC 0112 compact subset "
    "[default: only with --to openwop].", show_default=False)]
OutputSchema = Annotated[Optional[str], _option(
    "output_schema", help="MCP target: the compact view's outputSchema: full (whole, "
    "prose stripped), bounded (also widened to {} below the levels that fit 4,096 bytes; "
    "each cut reported) or none [default: bounded; full with --lossless].",
    show_default=False)]
NoOutputSchema = Annotated[bool, _option(
    "no_output_schema", help="The same as --output-schema none.")]

NoFactor = Annotated[bool, _option(
    "no_factor", help="Do not move repeated identical subschemas into $defs + $ref "
    "(done for mcp, openai and anthropic where it makes a schema smaller, in a schema that "
    "already uses $ref).")]
FactorAll = Annotated[bool, _option(
    "factor_all", help="Also factor schemas without $ref (several MCP clients strip or "
    "refuse $ref/$defs: by default a schema without one never gets one).")]
ForClients = Annotated[Optional[list[str]], _option(
    "for_clients", help="Make the compact view acceptable to these MCP clients (repeatable or "
    f"comma-separated: {', '.join(CLIENTS)}) with exact rewrites: $ref inlined, "
    "draft-07 upgraded to 2020-12, properties: {} at the top; what cannot be done exactly is "
    "reported [default: none].", show_default=False)]
ServerName = Annotated[Optional[str], _option(
    "server_name", metavar="NAME", help="With --for: the server's name in the client's "
    "configuration, in the name the client sends each tool under (Claude Code: "
    "mcp__NAME__TOOL, 64 characters) [default: a live server's configured name, else the "
    "file name up to its first dot].", show_default=False)]
Plugin = Annotated[Optional[str], _option(
    "plugin", metavar="NAME", help="With --for: the plugin that brings the server (Claude "
    "Code sends its tools as mcp__plugin_NAME_SERVER__TOOL) [default: none].",
    show_default=False)]

KeepTitles = Annotated[bool, _option(
    "keep_titles", help="MCP target: keep title and annotations.title (UI labels) in the "
    "compact view [default: they go to the handbook when a description remains].")]
Source = Annotated[Optional[str], _option(
    "source", help="OpenWOP source for every tool (node-pack, workflow, mcp, connector, "
    "host-extension) [default: derived].", show_default=False)]
SafetyTier = Annotated[Optional[str], _option(
    "safety_tier", help="OpenWOP safetyTier for every tool (pure, read, write, exec) "
    "[default: derived].", show_default=False)]

# deferral (toolcat.features.project.defer), shared with `toolcat measure`
Defer = Annotated[str, _option(
    "defer", help="Tools loaded on demand through the provider's tool search: none, all "
    "(every tool but the --eager ones) or auto (all, once the eager catalog passes "
    "--defer-threshold tokens). Needs --to anthropic, anthropic-strict or openai-responses.")]
Eager = Annotated[Optional[list[str]], _option(
    "eager", help="With --defer: a tool name or shell-style pattern (fnmatch) read up front, "
    "never deferred. Repeatable.", show_default=False)]
DeferThreshold = Annotated[int, _option(
    "defer_threshold", help="--defer auto: defer once the eager compact catalog passes this "
    "many tokens (Claude Code's 10% of a 200k-token window).")]
Search = Annotated[str, _option(
    "search", help="With --defer, Anthropic: the tool search tool, bm25 or regex.")]


#: each shared option's alias and its default on the command line
_ALIASES: dict[str, tuple[Any, Any]] = {
    "from_format": (FromFormat, None), "webhooks": (Webhooks, False),
    "cookies": (Cookies, False), "broken_refs": (BrokenRefs, "widen"), "root": (Root, None),
    "merge": (Merge, False), "max_file_size": (MaxFileSize, None),
    "server": (Servers, None), "url": (Urls, None), "header": (Headers, None),
    "timeout": (Timeout, None), "client": (Client, None), "client_config": (ClientConfig, None),
    "verbose": (Verbose, False), "no_color": (NoColor, False), "quiet": (Quiet, False),
    "to": (To, None), "description_max": (DescriptionMax, 120), "lossless": (Lossless, False),
    "keep_titles": (KeepTitles, False), "unlowerable": (Unlowerable, None),
    "subset": (Subset, None), "output_schema": (OutputSchema, None),
    "no_output_schema": (NoOutputSchema, False), "no_factor": (NoFactor, False),
    "factor_all": (FactorAll, False), "source": (Source, None),
    "safety_tier": (SafetyTier, None), "for_clients": (ForClients, None),
    "server_name": (ServerName, None), "plugin": (Plugin, None), "defer": (Defer, "none"),
    "eager": (Eager, None), "defer_threshold": (DeferThreshold, 20_000),
    "search": (Search, "bm25"),
}


def shared(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the shared options ``names`` (in this order, after the command's own) to a
    command whose last parameter is ``opts: Shared``: Typer sees each option, the command
    gets them as one :class:`~toolcat.commands.common.Shared` (the options it lacks at their
    defaults there)."""
    assert set(names) <= set(_ALIASES), set(names) - set(_ALIASES)

    def add(func: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(func, eval_str=True)
        own = [p for p in sig.parameters.values() if p.name != "opts"]
        added = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=_ALIASES[n][1],
                                   annotation=_ALIASES[n][0]) for n in names]

        @functools.wraps(func)
        def command(**kwargs: Any) -> Any:
            opts = Shared(**{n: kwargs.pop(n) for n in names})
            return func(**kwargs, opts=opts)

        params = own + added
        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return add
