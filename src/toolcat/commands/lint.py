"""`toolcat lint`: conformance and model-readiness findings for catalogs. Its Typer
declaration (options, help); the work is :func:`toolcat.commands.lint_run.run`, which a plain
``toolcat lint ...`` command line reaches without Typer (:func:`toolcat.cli.run`)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from toolcat.commands.common import Shared
from toolcat.commands.lint_run import OWN, SHARED_NAMES
from toolcat.commands.options import Paths, shared
from toolcat.features.lint.profiles import PROFILES

EPILOG = """Examples:

  toolcat lint tools.json

  toolcat lint openapi.yaml --profile openai-strict --format sarif -o toolcat.sarif

  toolcat lint tools.json --profile openai-strict,gemini,anthropic   (a compatibility matrix)

  toolcat lint catalogs/ --write-baseline .toolcat-baseline.json

  toolcat lint catalogs/ --baseline .toolcat-baseline.json --format github

  toolcat lint --server 'python my_server.py' --server 'uvx mcp-server-time'

  toolcat lint --client claude-code   (its servers, with Claude Code's schema rules too)

  toolcat lint tools.json --statistics --min-score 80   (gate on the description score)

A finding on a server's tool names the server and the tool's index in its tools/list (no
line). With servers, the setup rules (SU6xx) check all their tools together: the per-request
limits of the providers and clients (see `toolcat rule SU601`).

Exit codes: 0 no finding reaches --fail-on (and no catalog scores under --min-score), 1 one
does, 2 usage or input error.
`toolcat rule CODE` explains a rule; `toolcat rule --all` lists them.
"""

# --profile's names: the profiles table (toolcat.features.lint.profiles), MCP clients last
_PROFILES = [n for n, p in PROFILES.items() if p.client is None]
_CLIENTS = [n for n, p in PROFILES.items() if p.client is not None]

HELP = ("Check catalogs for conformance and model-readiness problems; report the file, line, "
        "column, tool and JSON pointer of each.")
SHORT = "Check catalogs for conformance and model-readiness problems."


def register(app: typer.Typer) -> None:
    app.command("lint", epilog=EPILOG, help=HELP, short_help=SHORT)(lint)


def _own(name: str, **kw: Any) -> Any:
    """The typer.Option of lint's own option ``name`` (its strings from lint_run.OWN)."""
    return typer.Option(*OWN[name][0], **kw)


# the options of lint (its own; the shared ones: commands/options.py)
Fmt = Annotated[Optional[str], _own(
    "fmt", help="Output: text, concise (one line per finding: "
    "FILE:LINE:COL: CODE message), json, markdown, sarif, github or junit "
    "[default: text].",
    show_default=False)]
Statistics = Annotated[bool, _own(
    "statistics", help="Print how many findings each rule has instead of the findings "
    "(text, or json with --format json).")]
Profile = Annotated[Optional[str], _own(
    "profile", help=f"Rule set and severities: {', '.join(_PROFILES)}, or an MCP "
    f"client: {', '.join(_CLIENTS)}; several comma-separated (each finding names its "
    "profiles, and a tools x profiles matrix follows) [default: mcp].",
    show_default=False)]
McpVersion = Annotated[Optional[str], _own(
    "mcp_version", help="MCP specification revision the mcp profile checks: "
    "2025-06-18, 2025-11-25 or 2026-07-28 [default: 2026-07-28].",
    show_default=False)]
ConfigFile = Annotated[Optional[str], _own(
    "config_file", help="Config file [default: toolcat.toml or [tool.toolcat] in "
    "pyproject.toml, found upwards from the current folder].", show_default=False)]
Select = Annotated[Optional[list[str]], _own(
    "select", help="Only these rule codes or prefixes (comma-separated) "
    "[default: the profile's rules].",
    show_default=False)]
ExtendSelect = Annotated[Optional[list[str]], _own(
    "extend_select", help="Add these codes or prefixes to the selection.",
    show_default=False)]
Ignore = Annotated[Optional[list[str]], _own(
    "ignore", help="Never report these codes or prefixes (comma-separated).",
    show_default=False)]
FailOn = Annotated[Optional[str], _own(
    "fail_on", help="Lowest severity that makes the exit code 1: error, warning, info "
    "or never [default: error].", show_default=False)]
MinScore = Annotated[Optional[float], _own(
    "min_score", help="Exit 1 when a catalog's description quality score (0-100, "
    "see --statistics) is under this [default: no gate].",
    show_default=False)]
Baseline = Annotated[Optional[str], _own(
    "baseline", help="Hide the findings recorded in this baseline file.",
    show_default=False)]
WriteBaseline = Annotated[Optional[str], _own(
    "write_baseline", help="Record the current findings in this file and exit 0 "
    "(nothing is written when an input cannot be read).",
    show_default=False)]
OutputFile = Annotated[Optional[str], _own(
    "output_file", help="Write the report to this file (atomically) instead of "
    "stdout.", show_default=False)]
DescriptionMax = Annotated[Optional[int], _own(
    "description_max", help="TC106: longest tool description [default: 1024].",
    show_default=False)]
ProseMax = Annotated[Optional[int], _own(
    "prose_max", help="SC304: longest schema prose [default: 300].",
    show_default=False)]
View = Annotated[Optional[str], _own(
    "view", help="Lint every input as a compact or standard view. Compact views leave "
    "schema prose out on purpose, so MR401 is not checked on them [default: the view "
    "the file declares (OpenWOP: its descriptors; MCP: the result's _meta "
    "\"toolcat/view\", which toolcat project writes), else compact when the file name "
    "contains \"compact\"].",
    show_default=False)]


@shared(*SHARED_NAMES)
def lint(
    paths: Paths = None,
    fmt: Fmt = None,
    statistics: Statistics = False,
    profile: Profile = None,
    mcp_version: McpVersion = None,
    config_file: ConfigFile = None,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    fail_on: FailOn = None,
    min_score: MinScore = None,
    baseline: Baseline = None,
    write_baseline: WriteBaseline = None,
    output_file: OutputFile = None,
    description_max: DescriptionMax = None,
    prose_max: ProseMax = None,
    view: View = None,
    *,
    opts: Shared,
) -> None:
    from toolcat.commands import lint_run

    raise typer.Exit(lint_run.run(
        paths=paths, fmt=fmt, statistics=statistics, profile=profile,
        mcp_version=mcp_version, config_file=config_file, select=select,
        extend_select=extend_select, ignore=ignore, fail_on=fail_on, min_score=min_score,
        baseline=baseline,
        write_baseline=write_baseline, output_file=output_file,
        description_max=description_max, prose_max=prose_max, view=view,
        opts=opts))
