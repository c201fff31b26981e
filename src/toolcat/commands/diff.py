"""`toolcat diff-toolids` (in progress)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("diff-toolids", help="(not built yet)")
    def _cmd() -> int:
        from toolcat.errors import UsageError

        raise UsageError("toolcat diff-toolids is not built yet")
