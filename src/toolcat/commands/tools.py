"""`toolcat tools`: list what toolcat loads from each catalog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolcat.commands.common import LIVE, LOAD, UI, Shared, warn_broken_refs
from toolcat.commands.options import Paths, shared
from toolcat.commands.sources import report_errors

if TYPE_CHECKING:
    from toolcat.model import Catalog

EPILOG = """Examples:

  toolcat tools openapi.yaml

  toolcat tools ../servers/ --format json

  toolcat tools --server 'uvx mcp-server-time'
"""


def register(app: typer.Typer) -> None:
    app.command("tools", epilog=EPILOG, help="List the tools toolcat loads from each catalog.")(tools)


@shared(*LOAD, *LIVE, *UI)
def tools(
    paths: Paths = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output: text or json.")] = "text",
    *,
    opts: Shared,
) -> int:
    """List the tools toolcat loads: id, source format, title, parameters, the bytes of
    its input schema and of its output schema."""
    from toolcat.errors import UsageError

    opts.apply_ui()
    if fmt not in ("text", "json"):
        raise UsageError(f"--format must be text or json (got {fmt!r})")
    src = opts.sources(paths, opts.live())
    cats = src.catalogs
    warn_broken_refs(cats)
    if fmt == "json":
        tools_json(cats)
    else:
        tools_text(cats)
    if src.errors:      # servers that failed: the others were listed; exit 2
        report_errors(src.errors)
        raise typer.Exit(2)
    return 0


# --------------------------------------------------------------------------- rendering

def schema_bytes(schema: Any, memo: dict | None = None) -> int | None:
    """Canonical bytes of one schema (None: the tool has none); ``memo`` (one per run)
    remembers the sizes of parts that tools share (:func:`~toolcat.document.canonical.
    canonical_size`)."""
    from toolcat.document.canonical import canonical_size

    return None if schema is None else canonical_size(schema, memo)


def tools_data(cats: list[Catalog]) -> dict[str, Any]:
    memo: dict = {}
    return {
        "catalogs": [
            {
                "file": c.file,
                "format": c.format,
                **({"server": _server_json(c.meta["live"])} if "live" in c.meta else {}),
                "tools": [
                    {
                        "id": t.id,
                        "title": t.display_title,
                        "parameters": t.parameter_count,
                        "input_schema_bytes": schema_bytes(t.input_schema, memo),
                        "output_schema_bytes": schema_bytes(t.output_schema, memo),
                    }
                    for t in c.tools
                ],
            }
            for c in cats
        ]
    }


def _server_json(live: dict) -> dict:
    """What a live server said of itself (``tools --format json``)."""
    return {k: live[k] for k in ("transport", "protocolVersion", "serverInfo", "pages")
            if k in live}


def tools_json(cats: list[Catalog]) -> None:
    from toolcat.document.canonical import dumps
    from toolcat.ui import write_stdout

    write_stdout(dumps(tools_data(cats), indent=2) + b"\n")


def tools_text(cats: list[Catalog]) -> None:
    from rich.table import Table
    from rich.text import Text

    from toolcat import ui
    from toolcat.terminal import shown

    con = ui.out()
    data = tools_data(cats)
    for cat, c in zip(cats, data["catalogs"]):
        fmt = cat.format + (f" {cat.version}" if cat.version else "")
        live = cat.meta.get("live")
        if live:        # what the server said of itself, made safe for a terminal
            from toolcat.formats.live.spec import printable

            info = live.get("serverInfo") or {}
            who = " ".join(printable(str(info[k]), 60) for k in ("name", "version")
                           if info.get(k))
            fmt = (f"MCP server ({live.get('transport')}"
                   + (f", {who}" if who else "")
                   + f", protocol {printable(str(live.get('protocolVersion')), 20)})")
        n = len(c["tools"])
        ui.print_wrapped(Text.assemble((shown(c["file"]), "bold"), f"  {fmt}  {n} tool{'s' if n != 1 else ''}"), con)
        table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("tool")
        table.add_column("title")
        table.add_column("params", justify="right")
        table.add_column("input bytes", justify="right")
        table.add_column("output bytes", justify="right")

        def size(n: int | None) -> str:
            return "-" if n is None else f"{n:,}"

        for t in c["tools"]:
            table.add_row(shown(t["id"]) if t["id"] is not None else Text("(no id)", style="red"),
                          shown(t["title"] or ""), str(t["parameters"]),
                          size(t["input_schema_bytes"]), size(t["output_schema_bytes"]))
        ui.print_table(table, con)
        con.print()
