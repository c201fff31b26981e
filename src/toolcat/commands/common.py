"""What several commands share: their load options and the ui flags. The Typer declarations
of the shared options (``Paths``, ``FromFormat``, ...) are in :mod:`toolcat.commands.options`;
importing one of them from here imports that module (and Typer) then, not before."""

from __future__ import annotations

from typing import Any

_TYPER_ALIASES = frozenset(("Paths", "FromFormat", "Webhooks", "Cookies", "Merge", "NoColor",
                            "Quiet", "MaxFileSize"))


def __getattr__(name: str) -> Any:
    if name in _TYPER_ALIASES:
        from toolcat.commands import options

        return getattr(options, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_options(from_format: str | None, webhooks: bool = False, cookies: bool = False,
                 merge: bool = False, strict: bool = True, max_file_size: int | None = None,
                 view: str | None = None):
    from toolcat.document.parse import MAX_LIMIT, Limits
    from toolcat.errors import UsageError
    from toolcat.formats import LoadOptions
    from toolcat.formats.registry import keys

    if from_format is not None and from_format not in keys():
        raise UsageError(f"--from must be one of {', '.join(keys())} (got {from_format!r})")
    if max_file_size is not None and not 0 < max_file_size <= MAX_LIMIT:
        raise UsageError(f"--max-file-size must be a positive number of bytes up to {MAX_LIMIT:,}"
                         f" (got {max_file_size:,})")
    return LoadOptions(from_format=from_format, webhooks=webhooks, cookies=cookies, merge=merge,
                       strict=strict, view=view, limits=Limits.from_env(max_file_size))


def apply_ui(no_color: bool, quiet: bool) -> None:
    from toolcat import ui

    ui.configure(no_color=no_color, quiet=quiet)
