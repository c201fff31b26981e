"""Options shared by several commands (Annotated aliases keep the signatures short)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from toolcat.model import FORMATS

Paths = Annotated[
    Optional[list[str]],
    typer.Argument(help="Catalog files or folders (`-` reads stdin); none are needed when "
                   "--server, --url, --client or --client-config gives servers.",
                   show_default=False),
]
FromFormat = Annotated[
    Optional[str],
    typer.Option("--from", help=f"Force the input format: {', '.join(FORMATS)} "
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


def load_options(from_format: str | None, webhooks: bool = False, cookies: bool = False,
                 merge: bool = False, strict: bool = True, max_file_size: int | None = None,
                 view: str | None = None):
    from toolcat.document.parse import MAX_LIMIT, Limits
    from toolcat.errors import UsageError
    from toolcat.formats import LoadOptions

    if from_format is not None and from_format not in FORMATS:
        raise UsageError(f"--from must be one of {', '.join(FORMATS)} (got {from_format!r})")
    if max_file_size is not None and not 0 < max_file_size <= MAX_LIMIT:
        raise UsageError(f"--max-file-size must be a positive number of bytes up to {MAX_LIMIT:,}"
                         f" (got {max_file_size:,})")
    return LoadOptions(from_format=from_format, webhooks=webhooks, cookies=cookies, merge=merge,
                       strict=strict, view=view, limits=Limits.from_env(max_file_size))


def apply_ui(no_color: bool, quiet: bool) -> None:
    from toolcat import ui

    ui.configure(no_color=no_color, quiet=quiet)
