"""The Typer declarations of the options several commands share (Annotated aliases keep the
signatures short). :mod:`toolcat.commands.common` and :mod:`toolcat.commands.sources` hand
them out under their old names; they live here so that those two modules, and the fast
``toolcat lint`` path (:mod:`toolcat.commands.lint_run`), do not import Typer."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from toolcat.commands.sources import CLIENT_NAMES
from toolcat.formats.registry import keys

Paths = Annotated[
    Optional[list[str]],
    typer.Argument(help="Catalog files or folders (`-` reads stdin); none are needed when "
                   "--server, --url, --client or --client-config gives servers.",
                   show_default=False),
]
FromFormat = Annotated[
    Optional[str],
    typer.Option("--from", help=f"Force the input format: {', '.join(keys())} "
                 "[default: detected from the content].",
                 show_default=False),
]
Webhooks = Annotated[bool, typer.Option("--webhooks", help="OpenAPI 3.1: also make tools of `webhooks`.")]
Cookies = Annotated[bool, typer.Option("--cookies", help="OpenAPI: also map cookie parameters.")]
Merge = Annotated[bool, typer.Option("--merge", help="Treat all inputs as pages of one catalog.")]
NoColor = Annotated[bool, typer.Option("--no-color", help="No colours (also: NO_COLOR=1).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No summaries on stderr.")]
MaxFileSize = Annotated[
    Optional[int],
    typer.Option("--max-file-size", help="Largest input file in bytes [default: 64 MiB].",
                 show_default=False),
]

# the live options (toolcat.commands.sources)
Servers = Annotated[Optional[list[str]], typer.Option(
    "--server", help="Run this MCP server and read its tools (a command line, split as a "
    "shell splits words; `NAME=value` words before the command set its environment). "
    "Repeatable.", show_default=False)]
Urls = Annotated[Optional[list[str]], typer.Option(
    "--url", help="Read the tools of this Streamable HTTP MCP server (http:// or https://). "
    "Repeatable.", show_default=False)]
Headers = Annotated[Optional[list[str]], typer.Option(
    "--header", help="'Name: value' sent to every --url server (e.g. 'Authorization: Bearer "
    "...'; never printed). Repeatable.", show_default=False)]
Timeout = Annotated[Optional[float], typer.Option(
    "--timeout", help="Seconds each server has from its start to its last tools/list page; "
    "then its process group is ended [default: 10].", show_default=False)]
Client = Annotated[Optional[str], typer.Option(
    "--client", help="Read every MCP server of this client's configuration: "
    f"{', '.join(CLIENT_NAMES)}.", show_default=False)]
ClientConfig = Annotated[Optional[str], typer.Option(
    "--client-config", help="Read every MCP server of this client configuration file "
    "(mcpServers or servers).", show_default=False)]
Verbose = Annotated[bool, typer.Option(
    "--verbose", "-v", help="Show each server's stderr (lines prefixed with [name]) and what "
    "was captured.")]

