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
from toolcat.formats.registry import keys


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


#: each shared option's alias and its default on the command line
_ALIASES: dict[str, tuple[Any, Any]] = {
    "from_format": (FromFormat, None), "webhooks": (Webhooks, False),
    "cookies": (Cookies, False), "broken_refs": (BrokenRefs, "widen"), "root": (Root, None),
    "merge": (Merge, False), "max_file_size": (MaxFileSize, None),
    "server": (Servers, None), "url": (Urls, None), "header": (Headers, None),
    "timeout": (Timeout, None), "client": (Client, None), "client_config": (ClientConfig, None),
    "verbose": (Verbose, False), "no_color": (NoColor, False), "quiet": (Quiet, False),
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
