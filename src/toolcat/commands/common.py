"""What several commands share: their load options and the ui flags. The Typer declarations
of the shared options (``Paths``, ``FromFormat``, ...) are in :mod:`toolcat.commands.options`;
importing one of them from here imports that module (and Typer) then, not before."""

from __future__ import annotations

from typing import Any

_TYPER_ALIASES = frozenset(("Paths", "FromFormat", "Webhooks", "Cookies", "Merge", "NoColor",
                            "Quiet", "MaxFileSize", "BrokenRefs", "Root"))


def __getattr__(name: str) -> Any:
    if name in _TYPER_ALIASES:
        from toolcat.commands import options

        return getattr(options, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_options(from_format: str | None, webhooks: bool = False, cookies: bool = False,
                 merge: bool = False, strict: bool = True, max_file_size: int | None = None,
                 view: str | None = None, broken_refs: str = "fail", root: str | None = None):
    """The checked load options of the command-line values (the API's builder,
    :func:`toolcat.formats.load.load_options`: one set of limits and messages)."""
    from toolcat.formats.load import load_options as build

    return build(from_format=from_format, webhooks=webhooks, cookies=cookies, merge=merge,
                 strict=strict, view=view, max_file_size=max_file_size,
                 broken_refs=broken_refs, root=root)


def warn_broken_refs(cats: list) -> None:
    """The lines saying what --broken-refs did and which document versions toolcat does not
    know (measure, tools, diff; project's summary has them), on stderr, unless --quiet."""
    from toolcat import ui
    from toolcat.formats.load import load_notes

    for note in load_notes(cats):
        if not ui.state.quiet:
            ui.err().print(f"toolcat: warning: {note}", markup=False, highlight=False)


def apply_ui(no_color: bool, quiet: bool) -> None:
    from toolcat import ui

    ui.configure(no_color=no_color, quiet=quiet)
