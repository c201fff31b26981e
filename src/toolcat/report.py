"""Renderers for `toolcat tools`."""

from __future__ import annotations

from typing import Any

from toolcat.canonical import dumps
from toolcat.model import Catalog, Tool


def display_title(tool: Tool) -> str | None:
    if tool.title:
        return tool.title
    ann = tool.annotations
    if isinstance(ann, dict) and isinstance(ann.get("title"), str):
        return ann["title"]
    return None


def schema_bytes(tool: Tool) -> int:
    n = 0
    for s in (tool.input_schema, tool.output_schema):
        if s is not None:
            n += len(dumps(s))
    return n


def tools_data(cats: list[Catalog]) -> dict[str, Any]:
    return {
        "catalogs": [
            {
                "file": c.file,
                "format": c.format,
                "tools": [
                    {
                        "id": t.id,
                        "title": display_title(t),
                        "parameters": t.parameter_count,
                        "schema_bytes": schema_bytes(t),
                    }
                    for t in c.tools
                ],
            }
            for c in cats
        ]
    }


def tools_json(cats: list[Catalog]) -> None:
    from toolcat.ui import write_stdout

    write_stdout(dumps(tools_data(cats), indent=2) + b"\n")


def tools_text(cats: list[Catalog]) -> None:
    from rich.table import Table
    from rich.text import Text

    from toolcat import ui

    con = ui.out()
    data = tools_data(cats)
    for cat, c in zip(cats, data["catalogs"]):
        fmt = cat.format + (f" {cat.version}" if cat.version else "")
        n = len(c["tools"])
        con.print(Text.assemble((c["file"], "bold"), f"  {fmt}  {n} tool{'s' if n != 1 else ''}"))
        table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("tool")
        table.add_column("title", overflow="ellipsis", max_width=48)
        table.add_column("params", justify="right")
        table.add_column("schema bytes", justify="right")
        for t in c["tools"]:
            table.add_row(t["id"] if t["id"] is not None else Text("(no id)", style="red"),
                          t["title"] or "", str(t["parameters"]), f"{t['schema_bytes']:,}")
        con.print(table)
        con.print()
