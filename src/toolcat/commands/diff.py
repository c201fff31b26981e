"""`toolcat diff-toolids`: compare the toolId sets of two catalogs, or of one catalog's views."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from toolcat.commands.common import (
    Cookies,
    FromFormat,
    MaxFileSize,
    NoColor,
    Quiet,
    Webhooks,
    apply_ui,
    load_options,
)

HELP = "Compare the toolId sets of two catalogs, or of one catalog's standard and compact views."
SHORT = "Compare the toolId sets of two catalogs or of two views."

EPILOG = """With A and B (any formats, e.g. an OpenWOP standard view and its ?view=compact
capture): compares the ids of their tools, and `source`/`safetyTier` of common ids where both
sides carry them (OpenWOP). With A alone: compares A's standard view with toolcat's own compact
projection of it, both in the same target envelope (A's own by default: openwop for OpenWOP
input, else mcp; --to picks another), i.e. RFC 0112 projection completeness: the compact view
must carry the same toolId set. Ids that differ only in case or by a namespace prefix
(`mcp:fs.read` vs `read`) are listed as likely renames, never matched. JSON adds
"likely_renames" to only_in_a, only_in_b, common and changed. Exit codes: 0 equal, 1 different,
2 usage or input error.

Examples:

  toolcat diff-toolids catalog.json catalog.compact.json

  toolcat diff-toolids openapi.yaml --format json
"""

def register(app: typer.Typer) -> None:
    app.command("diff-toolids", epilog=EPILOG, help=HELP, short_help=SHORT)(diff_toolids)


def diff_toolids(
    a: Annotated[str, typer.Argument(help="First catalog (file, folder or `-`).",
                                     show_default=False)],
    b: Annotated[Optional[str], typer.Argument(
        help="Second catalog [default: A's own compact projection].", show_default=False)
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output: text or json.")] = "text",
    to: Annotated[Optional[str], typer.Option(
        "--to", help="With A alone: the target envelope of both views: mcp, openwop, openai "
        "or anthropic [default: openwop for OpenWOP input, else mcp].", show_default=False)
    ] = None,
    source: Annotated[Optional[str], typer.Option(
        "--source", help="With A alone: OpenWOP `source` for tools that have none "
        "[default: derived].", show_default=False)] = None,
    safety_tier: Annotated[Optional[str], typer.Option(
        "--safety-tier", help="With A alone: OpenWOP `safetyTier` for tools that have none "
        "[default: derived].", show_default=False)] = None,
    from_format: FromFormat = None,
    webhooks: Webhooks = False,
    cookies: Cookies = False,
    max_file_size: MaxFileSize = None,
    no_color: NoColor = False,
    quiet: Quiet = False,
) -> int:
    """Compare toolId sets; exit 0 when equal, 1 when different."""
    from toolcat.errors import UsageError

    apply_ui(no_color, quiet)
    if fmt not in ("text", "json"):
        raise UsageError(f"--format must be text or json (got {fmt!r})")
    from toolcat.formats.targets import TARGETS

    if to is not None and to not in TARGETS:
        raise UsageError(f"--to must be one of {', '.join(TARGETS)} (got {to!r})")
    if b is not None and (to is not None or source is not None or safety_tier is not None):
        raise UsageError("--to, --source and --safety-tier apply only with a single catalog")
    if a == "-" and b == "-":
        raise UsageError("only one of A and B can be stdin (-)")

    from toolcat.diff.toolids import diff_sides, render_text, side_from_catalogs, side_from_items
    from toolcat.formats import load_catalogs

    lopts = load_options(from_format, webhooks, cookies, max_file_size=max_file_size)
    cats_a = load_catalogs([a], lopts)
    if b is not None:
        cats_b = load_catalogs([b], lopts)
        side_a = side_from_catalogs(cats_a, a)
        side_b = side_from_catalogs(cats_b, b)
    else:
        from toolcat.project import ProjectOptions, project_catalogs, standard_array

        popts = ProjectOptions(view="compact", to=to, source=source, safety_tier=safety_tier)
        proj = project_catalogs(cats_a, popts)
        target = proj.target
        side_a = side_from_items(standard_array(cats_a, target), target,
                                 f"{a} (standard view, {target})")
        side_b = side_from_items(proj.array(), target, f"{a} (compact view, {target})")
    result = diff_sides(side_a, side_b)

    from toolcat.ui import write_stdout

    if fmt == "json":
        from toolcat.document.canonical import dumps

        write_stdout(dumps(result.to_json(), indent=2) + b"\n")
    else:
        write_stdout(render_text(result))
    raise typer.Exit(0 if result.equal else 1)
