"""`toolcat measure` (in progress)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("measure", help="(not built yet)")
    def _cmd() -> int:
        from toolcat.errors import UsageError

        raise UsageError("toolcat measure is not built yet")
