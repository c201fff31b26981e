"""`toolcat lint`: conformance and model-readiness findings for catalogs."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from toolcat.commands.common import (
    Cookies,
    FromFormat,
    MaxFileSize,
    Merge,
    NoColor,
    Paths,
    Quiet,
    Webhooks,
    apply_ui,
    load_options,
)
from toolcat.commands.sources import (
    Client,
    ClientConfig,
    Headers,
    Servers,
    Timeout,
    Urls,
    Verbose,
    live_options,
    load_sources,
    require_inputs,
)

EPILOG = """Examples:

  toolcat lint tools.json

  toolcat lint openapi.yaml --profile openai-strict --format sarif -o toolcat.sarif

  toolcat lint tools.json --profile openai-strict,gemini,anthropic   (a compatibility matrix)

  toolcat lint catalogs/ --write-baseline .toolcat-baseline.json

  toolcat lint catalogs/ --baseline .toolcat-baseline.json --format github

  toolcat lint --server 'python my_server.py' --server 'uvx mcp-server-time'

  toolcat lint --client claude-code

A finding on a server's tool names the server and the tool's index in its tools/list (no
line). With servers, the setup rules (SU6xx) check all their tools together: the per-request
limits of the providers and clients (see `toolcat rule SU601`).

Exit codes: 0 no finding reaches --fail-on, 1 one does, 2 usage or input error.
`toolcat rule CODE` explains a rule; `toolcat rule --all` lists them.
"""

HELP = ("Check catalogs for conformance and model-readiness problems; report the file, line, "
        "column, tool and JSON pointer of each.")
SHORT = "Check catalogs for conformance and model-readiness problems."


def register(app: typer.Typer) -> None:
    app.command("lint", epilog=EPILOG, help=HELP, short_help=SHORT)(lint)


def lint(
    paths: Paths = None,
    fmt: Annotated[Optional[str], typer.Option(
        "--format", "-f", help="Output: text, concise (one line per finding: "
        "FILE:LINE:COL: CODE message), json, markdown, sarif, github or junit "
        "[default: text].",
        show_default=False)] = None,
    statistics: Annotated[bool, typer.Option(
        "--statistics", help="Print how many findings each rule has instead of the findings "
        "(text, or json with --format json).")] = False,
    profile: Annotated[Optional[str], typer.Option(
        "--profile", "-p", help="Rule set and severities: mcp, openwop-compact, openai-strict, "
        "openai, anthropic, anthropic-strict, gemini; several comma-separated (each finding "
        "names its profiles, and a tools x profiles matrix follows) [default: mcp].",
        show_default=False)] = None,
    mcp_version: Annotated[Optional[str], typer.Option(
        "--mcp-version", help="MCP specification revision the mcp profile checks: "
        "2025-06-18, 2025-11-25 or 2026-07-28 [default: 2026-07-28].",
        show_default=False)] = None,
    config_file: Annotated[Optional[str], typer.Option(
        "--config", help="Config file [default: toolcat.toml or [tool.toolcat] in "
        "pyproject.toml, found upwards from the current folder].", show_default=False)] = None,
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", help="Only these rule codes or prefixes (comma-separated) "
        "[default: the profile's rules].",
        show_default=False)] = None,
    extend_select: Annotated[Optional[list[str]], typer.Option(
        "--extend-select", help="Add these codes or prefixes to the selection.",
        show_default=False)] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(
        "--ignore", help="Never report these codes or prefixes (comma-separated).",
        show_default=False)] = None,
    fail_on: Annotated[Optional[str], typer.Option(
        "--fail-on", help="Lowest severity that makes the exit code 1: error, warning, info "
        "or never [default: error].", show_default=False)] = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Hide the findings recorded in this baseline file.",
        show_default=False)] = None,
    write_baseline: Annotated[Optional[str], typer.Option(
        "--write-baseline", help="Record the current findings in this file and exit 0 "
        "(nothing is written when an input cannot be read).",
        show_default=False)] = None,
    output_file: Annotated[Optional[str], typer.Option(
        "--output-file", "-o", help="Write the report to this file (atomically) instead of "
        "stdout.", show_default=False)] = None,
    description_max: Annotated[Optional[int], typer.Option(
        "--description-max", help="TC106: longest tool description [default: 1024].",
        show_default=False)] = None,
    prose_max: Annotated[Optional[int], typer.Option(
        "--prose-max", help="SC304: longest schema prose [default: 300].",
        show_default=False)] = None,
    view: Annotated[Optional[str], typer.Option(
        "--view", help="Lint every input as a compact or standard view. Compact views leave "
        "schema prose out on purpose, so MR401 is not checked on them [default: the view "
        "the file declares (OpenWOP: its descriptors; MCP: the result's _meta "
        "\"toolcat/view\", which toolcat project writes), else compact when the file name "
        "contains \"compact\"].",
        show_default=False)] = None,
    from_format: FromFormat = None,
    webhooks: Webhooks = False,
    cookies: Cookies = False,
    merge: Merge = False,
    max_file_size: MaxFileSize = None,
    server: Servers = None,
    url: Urls = None,
    header: Headers = None,
    timeout: Timeout = None,
    client: Client = None,
    client_config: ClientConfig = None,
    verbose: Verbose = False,
    no_color: NoColor = False,
    quiet: Quiet = False,
) -> None:
    import sys

    from toolcat import ui
    from toolcat.config import load_config
    from toolcat.errors import UsageError
    from toolcat.lint.engine import check_selection, lint_with
    from toolcat.lint.profiles import PROFILES
    from toolcat.lint.render import FORMATS

    apply_ui(no_color, quiet)
    # the settings: the config file, with the command line on top
    cfg = load_config(config_file, profiles=PROFILES)
    fmt = fmt or cfg.format or "text"
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if statistics and fmt not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json (got --format {fmt})")
    # a selector that matches no rule is a typo, blamed where it was written: the command
    # line's here (on the command line), the config file's by check_selection below (on the
    # file); an empty one (an unset CI variable) is a usage error, not "no rules"
    for option, values in (("--select", select), ("--extend-select", extend_select),
                           ("--ignore", ignore)):
        if values is not None:
            _check_cli_codes(option, values)
    cfg = cfg.merged(profile=profile, fail_on=fail_on, select=select,
                     extend_select=extend_select, ignore=ignore,
                     description_max=description_max, prose_max=prose_max,
                     mcp_version=mcp_version)
    if baseline and write_baseline:
        raise UsageError("--baseline and --write-baseline cannot be used together")
    if view is not None and view not in ("compact", "standard"):
        raise UsageError(f"--view must be compact or standard (got {view!r})")
    check_selection(cfg)
    fail = cfg.fail_on or "error"

    from toolcat.files import check_outputs

    check_outputs([("-o", output_file), ("--write-baseline", write_baseline)])
    live = live_options(server, url, header, timeout, client, client_config, verbose)
    paths = require_inputs(paths, live)
    opts = load_options(from_format, webhooks, cookies, merge, strict=False,
                        max_file_size=max_file_size, view=view)
    # an input that cannot be read (a broken file among many, in a folder or given; a server
    # that fails) does not stop the others: each is one error line at the end, exit code 2
    opts.errors = input_errors = []
    opts.stream = True        # a large MCP tools list is linted a batch of tools at a time
    src = load_sources(paths, opts, live)
    input_errors.extend(src.errors)
    cats = src.catalogs
    if not cats and input_errors:
        _report_input_errors(input_errors)
        raise typer.Exit(2)
    # the API's lint, plus the setup rules on the servers' tools together
    result = lint_with(cats, cfg, view=view, setup=src.setup(), errors=input_errors)
    if not cats and input_errors:      # the only input was a streamed file found broken
        _report_input_errors(input_errors)
        raise typer.Exit(2)
    findings = result.findings
    labels = src.labels()

    if write_baseline:
        from toolcat.lint.baseline import write_baseline as write

        if input_errors:   # a baseline must cover every input: do not write a partial one
            _report_input_errors(input_errors)
            sys.stderr.write(f"toolcat: error: {write_baseline}: not written: "
                             f"{len(input_errors):,} input{'s' if len(input_errors) != 1 else ''}"
                             " could not be read\n")
            raise typer.Exit(2)
        n = write(write_baseline, findings, set(labels))
        if not ui.state.quiet:
            sys.stderr.write(f"toolcat: recorded {n:,} finding{'s' if n != 1 else ''} in "
                             f"{write_baseline}\n")
        raise typer.Exit(0)

    hidden = 0
    if baseline:
        from toolcat.lint.baseline import apply_baseline

        findings, hidden = apply_baseline(baseline, findings, set(labels))

    from toolcat.lint import registry
    from toolcat.lint.engine import reaches
    from toolcat.lint.render import Report, render

    report = Report(findings=findings, files=result.files, tools=result.tools, fail_on=fail,
                    profile=result.profile, hidden=hidden, sources=result.sources,
                    rules=registry.all_rules(), profiles=result.profiles, matrix=result.matrix,
                    servers=labels)
    to_file = output_file is not None and output_file != "-"
    color = fmt in ("text", "concise") and not to_file and ui.color_enabled(sys.stdout)
    text = render(fmt, report, color=color, quiet=ui.state.quiet, statistics=statistics)
    if not color and fmt in ("text", "concise", "github", "markdown"):
        from toolcat.terminal import guard

        text = guard(text)       # for people: no control character from the input
    if to_file:
        ui.write_atomic(output_file, text)
    else:
        ui.write_stdout(text)
    if input_errors:      # input errors win over findings (exit 2, like any input error)
        _report_input_errors(input_errors)
        raise typer.Exit(2)
    failed = any(reaches(f.severity, fail) for f in findings)
    raise typer.Exit(1 if failed else 0)


def _report_input_errors(errors: list) -> None:
    import sys

    sys.stdout.flush()
    for e in errors:
        sys.stderr.write(e.render() + "\n")


def _check_cli_codes(option: str, values: list[str]) -> None:
    """The codes of a ``--select``-like option: not empty, each matching a rule."""
    from toolcat.errors import UsageError
    from toolcat.lint.registry import selects_nothing

    sels = [x.strip().upper() for v in values for x in v.split(",") if x.strip()]
    if not sels:
        raise UsageError(f"{option} is empty: give rule codes or prefixes (`toolcat rule "
                         "--all` lists them), or leave the option out")
    for s in sels:
        if selects_nothing(s):
            raise UsageError(f"{option}: {s!r} matches no rule (see `toolcat rule --all`)")
