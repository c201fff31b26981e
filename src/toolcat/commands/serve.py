"""`toolcat serve`: an MCP server (stdio) serving the compact view of an upstream MCP server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Optional

import typer

from toolcat.commands.common import FOR, PROSE, Shared
from toolcat.commands.options import Client, ClientConfig, Headers, Timeout, shared

HELP = ("Serve an MCP server's tools in the compact view, over stdio (or Streamable HTTP on "
        "127.0.0.1 with --http): tools/list lists what "
        "`toolcat project` writes for it plus a handbook tool that returns any tool's full "
        "descriptor; tools/call is forwarded to the server unchanged.")
SHORT = "Serve an MCP server's tools in the compact view (an MCP proxy)."

EPILOG = """SERVER is the upstream: a command line (run over stdio, split as a shell splits
words) or an http:// or https:// URL (Streamable HTTP); or give it with --server or --url.
Several upstreams (--server, --url repeated; --client NAME or --client-config FILE: every
server of a client's configuration) are served together, each tool named
<server>__<tool> (MCP's name rule; the server's name is its key in the client
configuration, else derived from the command or URL as every report names it); two tools
served under one name end start-up with an error. One upstream: names as they are.
--catalog FILE serves a catalog file's tools (any format toolcat reads: an MCP capture,
an OpenAPI spec...) with no server behind them, to test what a host does with a catalog:
tools/list and the handbook as for a server, a tools/call gets a tool error (isError).
toolcat serve is an MCP server on its stdin and stdout: put it where a client's
configuration runs the server (README: "Serve a compact view of any MCP server"); with
--http PORT it is a Streamable HTTP server at http://127.0.0.1:PORT/mcp instead (127.0.0.1
only; --http 0 picks a free port; the start-up line on stderr gives the URL, even with -q)
until SIGTERM or Ctrl-C. The
upstream is started and listed first (within --timeout); tools/list then always returns the
same bytes. Each schema is rewritten only where the rewrite accepts exactly what the
upstream's schema accepts. The handbook tool (--handbook-tool) returns a tool's descriptor
exactly as the upstream listed it. A call's arguments are checked against the upstream's own
full input schema first (regular expressions run by RE2, so a hostile pattern cannot hang
it; a pattern RE2 cannot run is left to the upstream; bounded work, off the event loop):
arguments it refuses are forwarded all the same, since a server may accept more than its
schema says, and said on stderr (--validate strict: a tool error, isError, naming the
keyword and the JSON pointer, as the MCP SDKs' servers answer; --validate off: no check).
An object or array argument sent as JSON text is forwarded parsed when the schema accepts
the parsed value (--no-repair-args: as sent). Calls are forwarded as they came and their
results and
errors returned as the upstream gave them; when the upstream is gone or does not answer within
--call-timeout, the call gets an MCP error. The upstream's process group is ended when the
client closes stdin, and on SIGTERM. Its stderr goes to a log file (-v: to stderr).
--for CLIENT (repeatable or comma-separated) serves what `toolcat project --for CLIENT`
writes: the same exact rewrites for those clients' rules; each rewrite that is not exact
(a recursive $ref kept, a name shortened...) is one line on stderr; calls still reach the
upstream under its own names.
--defer (all, or auto past --defer-threshold) lists only the --eager tools, search_tools,
call_tool and the handbook tool: search_tools ranks every tool for a task in words (BM25
over names, descriptions and parameters) and adds the best to the list (at most
--max-loaded, least recently used out first), telling the client with
notifications/tools/list_changed; call_tool calls a tool by name for clients that never
list again; every tool can still be called by its name.
Exit codes: 0 the client went away, 2 usage error, an upstream that could not be started or
listed, or one that ended while serving.

Examples:

\b
  toolcat serve 'uvx mcp-server-time'
  toolcat serve --server 'uvx mcp-server-git' --description-max 80 --keep-titles
  toolcat serve --url http://127.0.0.1:8000/mcp --header 'Authorization: Bearer TOKEN'
  toolcat serve --http 8765 'uvx mcp-server-time'
  toolcat serve --server 'uvx mcp-server-time' --server 'uvx mcp-server-git'
  toolcat serve --catalog openapi.yaml
  toolcat serve --defer --eager get_me --server 'github-mcp-server stdio'
"""

#: Set in the environment of every upstream a client configuration gave (a toolcat serve
#: among them must not read a configuration again: it would start itself without end).
NESTED = "TOOLCAT_SERVE_FROM_CONFIG"

HandbookTool = Annotated[str, typer.Option(
    "--handbook-tool", help="Name of the added tool that returns a tool's full descriptor.")]
Server = Annotated[Optional[list[str]], typer.Option(
    "--server", help="An upstream: run this MCP server (a command line, split as a shell "
    "splits words; `NAME=value` words before the command set its environment). Repeatable.",
    show_default=False)]
Url = Annotated[Optional[list[str]], typer.Option(
    "--url", help="An upstream: this Streamable HTTP MCP server (http:// or https://). "
    "Repeatable.", show_default=False)]
Http = Annotated[Optional[int], typer.Option(
    "--http", metavar="PORT", help="Serve over Streamable HTTP on 127.0.0.1:PORT (path /mcp) "
    "instead of stdio; 0 picks a free port. The URL is the start-up line on stderr.",
    show_default=False)]
DenyPoisoned = Annotated[bool, typer.Option(
    "--deny-poisoned", help="Do not serve upstream tools that the poisoned-tool rules "
    "(TP101-TP104) flag: not listed, calls refused; which ones is said on stderr at start-up "
    "and when the list changes.")]
#: --validate's modes (toolcat.features.serve.arguments)
VALIDATE_MODES = ("log", "strict", "off")
Validate = Annotated[str, typer.Option(
    "--validate", metavar="MODE", help="Check each tools/call's arguments against the "
    "upstream's own input schema: log (forward what the schema refuses, and say so on "
    "stderr: the server may accept more than its schema says), strict (answer it with a "
    "tool error, isError), off (no check).")]
NoValidate = Annotated[bool, typer.Option(
    "--no-validate", help="The same as --validate off.")]
NoRepairArgs = Annotated[bool, typer.Option(
    "--no-repair-args", help="Forward an object or array argument sent as JSON text as it "
    "came (by default it is parsed when the schema accepts the parsed value).")]
CatalogFiles = Annotated[Optional[list[str]], typer.Option(
    "--catalog", metavar="FILE", help="Serve the tools of this catalog file (any format "
    "toolcat reads) with no server behind them: calls get a tool error (for testing hosts). "
    "Repeatable; combines with servers.", show_default=False)]
Defer = Annotated[str, typer.Option(
    "--defer", metavar="[none|all|auto]", help="Defer tools: list only the --eager ones, "
    "plus search_tools (finds tools and adds them to the list, with "
    "notifications/tools/list_changed), call_tool and the handbook tool. A bare --defer is "
    "all; auto defers when the compact list passes --defer-threshold.")]
Eager = Annotated[Optional[list[str]], typer.Option(
    "--eager", metavar="GLOB", help="With --defer: always list the tools whose name matches "
    "this shell-style pattern. Repeatable.", show_default=False)]
MaxLoaded = Annotated[int, typer.Option(
    "--max-loaded", metavar="N", help="With --defer: at most N tools found by search_tools "
    "are listed at once (the least recently used leave first).")]
DeferThreshold = Annotated[int, typer.Option(
    "--defer-threshold", metavar="TOKENS", help="--defer auto defers when the compact list "
    "of every tool is more tokens than this (o200k_base; the default: 10% of a 200k "
    "context window, Claude Code's rule).")]
CallTimeout = Annotated[float, typer.Option(
    "--call-timeout", help="Seconds a forwarded tools/call may take before the client gets an "
    "MCP error (0: no limit).")]


def register(app: typer.Typer) -> None:
    app.command("serve", epilog=EPILOG, help=HELP, short_help=SHORT)(serve)


@shared(*PROSE, *FOR, "verbose", "no_color", "quiet")
def serve(
    upstream: Annotated[Optional[str], typer.Argument(
        metavar="SERVER", help="The upstream server: a command line, or an http(s):// URL.",
        show_default=False)] = None,
    server: Server = None,
    url: Url = None,
    header: Headers = None,
    client: Client = None,
    client_config: ClientConfig = None,
    catalog: CatalogFiles = None,
    timeout: Timeout = None,
    call_timeout: CallTimeout = 300.0,
    http: Http = None,
    validate: Validate = "log",
    no_validate: NoValidate = False,
    no_repair_args: NoRepairArgs = False,
    deny_poisoned: DenyPoisoned = False,
    handbook_tool: HandbookTool = "get_tool_handbook",
    defer: Defer = "none",
    eager: Eager = None,
    max_loaded: MaxLoaded = 20,
    defer_threshold: DeferThreshold = 20_000,
    *,
    opts: Shared,
) -> None:
    import gc

    from toolcat import ui
    from toolcat.errors import UsageError
    from toolcat.features.serve.runner import ServeOptions
    from toolcat.features.serve.runner import serve as run
    from toolcat.features.serve.view import check_tool_name

    gc.enable()     # a long-lived process (the CLI turns the cyclic collector off)
    opts.apply_ui()
    cmds, urls = _upstream_args(upstream, server, url, client, client_config, catalog)
    _check_args(call_timeout, validate, http)
    if no_validate:
        validate = "off"
    check_tool_name(handbook_tool)
    deferring = _defer_options(defer, eager or [], max_loaded, defer_threshold)
    if deferring is not None and handbook_tool in (deferring.search, deferring.call):
        raise UsageError(f"--handbook-tool {handbook_tool} is the name of a meta tool of "
                         "--defer: choose another name")
    settings = opts.projection(to="mcp")
    live = _live(cmds, urls, header, timeout, client, client_config, opts.verbose, catalog)
    statics = _catalogs(catalog or [], [s.name for s in live.specs])
    code = run(ServeOptions(specs=live.specs, settings=settings, handbook_tool=handbook_tool,
                            timeout=live.timeout, call_timeout=call_timeout or None,
                            verbose=live.verbose, quiet=ui.state.quiet, http=http,
                            validate=validate, repair_args=not no_repair_args,
                            catalogs=statics, defer=deferring and deferring.options,
                            deny_poisoned=deny_poisoned))
    raise typer.Exit(code)


def _upstream_args(upstream: str | None, server: list[str] | None, url: list[str] | None,
                   client: str | None, client_config: str | None,
                   catalog: list[str] | None) -> tuple[list[str], list[str]]:
    """The upstream commands and URLs (SERVER is one or the other); a usage error when
    there is nothing to serve."""
    import re

    from toolcat.errors import UsageError

    cmds = list(server or [])
    urls = list(url or [])
    if upstream is not None:
        (urls if re.match(r"(?i)https?://", upstream) else cmds).insert(0, upstream)
    if not cmds and not urls and not client and not client_config and not catalog:
        raise UsageError("give the upstream server: a command line or URL, --server CMD, "
                         "--url URL, --client NAME or --client-config FILE (or a catalog "
                         "file to serve without a server: --catalog FILE)")
    return cmds, urls


def _check_args(call_timeout: float, validate: str, http: int | None) -> None:
    from toolcat.errors import UsageError

    if not call_timeout >= 0:
        raise UsageError(f"--call-timeout must be 0 (no limit) or more seconds "
                         f"(got {call_timeout:g})")
    if validate not in VALIDATE_MODES:
        raise UsageError(f"--validate must be one of {', '.join(VALIDATE_MODES)} "
                         f"(got {validate!r})")
    if http is not None and not 0 <= http <= 65535:
        raise UsageError(f"--http must be a port number, 0 to 65535 (got {http})")


def _live(cmds: list[str], urls: list[str], header: list[str] | None, timeout: float | None,
          client: str | None, client_config: str | None, verbose: bool,
          catalog: list[str] | None) -> Any:
    """The upstreams' live options; those of a client configuration are marked (NESTED)."""
    import os

    from toolcat.commands.sources import live_options
    from toolcat.errors import UsageError

    from_config = bool(client or client_config)
    if from_config and os.environ.get(NESTED):
        # a client's configuration that runs toolcat serve --client on itself
        raise UsageError("toolcat serve was started by a toolcat serve that read a client "
                         "configuration, and reads one too: it would start itself without "
                         "end (leave the toolcat serve entry out of the configuration it "
                         "serves)")
    live = live_options(cmds, urls, header, timeout, client, client_config, verbose)
    if not live.specs and from_config and not catalog:
        raise UsageError("the client configuration has no MCP server to serve")
    if from_config:
        for spec in live.specs:
            spec.env[NESTED] = "1"
    return live


def _catalogs(files: list[str], taken: list[str]) -> list:
    """``--catalog`` files loaded (every catalog a file holds), each named for the served
    names' prefix after its file (characters outside MCP's name rule as ``_``; unique)."""
    import os
    import re

    from toolcat.formats import LoadOptions, load_catalogs

    out = []
    seen = set(taken)
    for cat in load_catalogs(files, LoadOptions(strict=True)) if files else []:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(cat.file).split(".")[0]
                      or "catalog")[:40]
        name, n = base, 2
        while name in seen:
            name, n = f"{base}-{n}", n + 1
        seen.add(name)
        out.append((name, cat))
    return out


@dataclass
class _Deferring:
    options: Any
    search: str
    call: str


def _defer_options(mode: str | None, eager: list[str], max_loaded: int,
                   threshold: int) -> _Deferring | None:
    """The options of ``--defer`` (None: every tool listed, as without it)."""
    from toolcat.errors import UsageError
    from toolcat.features.project.defer import DeferOptions as Checked
    from toolcat.features.serve.defer import CALL_TOOL, SEARCH_TOOL, DeferOptions

    # the mode and threshold checks are project's and measure's (one set of messages)
    Checked(mode or "none", tuple(eager), threshold).check()
    if mode in (None, "none"):
        return None
    if max_loaded < 1:
        raise UsageError(f"--max-loaded must be 1 or more (got {max_loaded})")
    return _Deferring(DeferOptions(mode=mode, eager=list(eager), max_loaded=max_loaded,
                                   threshold=threshold), SEARCH_TOOL, CALL_TOOL)


def bare_defer(args: list[str]) -> list[str]:
    """``args`` of ``toolcat serve`` with a bare ``--defer`` (not followed by none, all or
    auto) written ``--defer=all``: Click options cannot have an optional value."""
    from toolcat.features.serve.defer import MODES

    out = list(args)
    for i, a in enumerate(out):
        if a == "--":
            break
        if a == "--defer" and (i + 1 >= len(out) or out[i + 1] not in MODES):
            out[i] = "--defer=all"
    return out
