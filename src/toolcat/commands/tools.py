"""`toolcat tools`: list what toolcat loads from each catalog."""

from __future__ import annotations

from typing import Annotated

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

EPILOG = """Examples:

  toolcat tools openapi.yaml

  toolcat tools ../servers/ --format json
"""


def register(app: typer.Typer) -> None:
    app.command("tools", epilog=EPILOG, help="List the tools toolcat loads from each catalog.")(tools)


def tools(
    paths: Paths,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output: text or json.")] = "text",
    from_format: FromFormat = None,
    webhooks: Webhooks = False,
    cookies: Cookies = False,
    merge: Merge = False,
    max_file_size: MaxFileSize = None,
    no_color: NoColor = False,
    quiet: Quiet = False,
) -> int:
    """List the tools toolcat loads: id, source format, title, parameters, schema bytes."""
    from toolcat.errors import UsageError

    apply_ui(no_color, quiet)
    if fmt not in ("text", "json"):
        raise UsageError(f"--format must be text or json (got {fmt!r})")
    from toolcat.loaders import load_catalogs
    from toolcat.report import tools_json, tools_text

    cats = load_catalogs(paths, load_options(from_format, webhooks, cookies, merge,
                                             max_file_size=max_file_size))
    if fmt == "json":
        tools_json(cats)
    else:
        tools_text(cats)
    return 0
