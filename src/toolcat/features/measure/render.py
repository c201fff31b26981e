"""Renderers for `toolcat measure`: Rich table, JSON, GitHub Markdown, CSV."""

from __future__ import annotations

import csv
import io
import os
from typing import Any

from toolcat.features.measure import BREAKDOWN_KEYS, CatalogFigures, ToolFigures, saving_pct, total

BREAKDOWN_TITLES = {"descriptions": "descriptions", "schema_prose": "schema prose",
                    "schema_shape": "schema shape", "other": "other"}
BAR_WIDTH = 12


def _pct(p: float) -> str:
    return f"{p:.1f}%"


def bar(pct: float, width: int = BAR_WIDTH) -> str:
    """A text bar of a saving in percent (clamped to 0..100)."""
    filled = round(max(0.0, min(100.0, pct)) * width / 100)
    return "\u2588" * filled + "\u2591" * (width - filled)


def as_label(as_provider: str | None, tokenizer: str) -> str:
    """How a ``--as`` figure is counted: ``exact`` with the provider's own tokenizer (OpenAI:
    o200k_base, the encoding of its GPT-4o and later models; harmony: gpt-oss's own renderer
    and encoding), else ``estimate``."""
    if as_provider == "harmony":
        return "exact"
    return "exact" if as_provider == "openai" and tokenizer == "o200k_base" else "estimate"


def as_note(as_provider: str | None, tokenizer: str) -> str:
    if as_provider is None:
        return ""
    if as_provider == "harmony":
        return " (exact: bytes of the function tools a request carries, tokens of their " \
            "harmony rendering, as gpt-oss reads them)"
    return f" ({as_label(as_provider, tokenizer)}: the tools as a request to {as_provider} " \
        "carries them)"


def setup_lines(setup: dict) -> list[str]:
    """The setup's limits, one line per finding of the setup rules (plain text)."""
    from toolcat.features.lint.render import Report, server_index

    report = Report(findings=setup["findings"], files=0, tools=0, servers=setup["labels"])
    out = []
    for f in setup["findings"]:
        idx = server_index(report, f)
        where = "" if f.tool is None else \
            f"{f.file} #{idx} {f.tool}: " if idx is not None else f"{f.file} {f.tool}: "
        out.append(f"{f.severity:<8} {f.code}  {where}{f.message}")
    return out


def setup_json(setup: dict) -> dict:
    from toolcat.features.lint.render import Report
    from toolcat.features.lint.render.json import finding_data

    report = Report(findings=setup["findings"], files=0, tools=0, servers=setup["labels"])
    return {"name": setup["name"], "servers": list(setup["servers"]),
            "findings": [finding_data(report, f) for f in setup["findings"]]}


def json_data(figs: list[CatalogFigures], tokenizer: str, top: list[ToolFigures] | None,
              as_provider: str | None = None, setup: dict | None = None,
              missing: list[dict] | None = None) -> dict:
    """``missing``: the servers that failed (``{"server", "error"}``): listed under
    ``missing``, with ``"partial": true`` (the totals leave them out)."""
    out: dict[str, Any] = {
        "tokenizer": tokenizer,
        "catalogs": [f.to_json() for f in figs],
        "total": total(figs),
    }
    if missing:
        out["partial"] = True
        out["missing"] = missing
    if as_provider is not None:
        out["as"] = {"provider": as_provider, "tokens": as_label(as_provider, tokenizer)}
    if top is not None:
        out["top"] = [t.to_json() for t in top]
    if setup is not None:
        out["setup"] = setup_json(setup)
    return out


def render_json(figs: list[CatalogFigures], tokenizer: str, top: list[ToolFigures] | None,
                as_provider: str | None = None, setup: dict | None = None,
                missing: list[dict] | None = None) -> bytes:
    from toolcat.document.canonical import dumps

    return dumps(json_data(figs, tokenizer, top, as_provider, setup, missing), indent=2) + b"\n"


def partial_note(missing: list[dict]) -> str:
    """The line that says the totals leave out the servers that failed."""
    names = ", ".join(m["server"] for m in missing)
    n = len(missing)
    return (f"the totals are partial: {n} server{'s' if n != 1 else ''} failed and "
            f"{'are' if n != 1 else 'is'} not counted ({names})")


# --------------------------------------------------------------------------- CSV

#: the saving split and the schema figures (issue 12 items 12 and 15)
EXTRA_COLUMNS = ("bytes_saved_lossless", "bytes_saved_lossy", "tokens_saved_lossless",
                 "tokens_saved_lossy", "input_schema_bytes_before", "input_schema_bytes_after",
                 "output_schema_bytes_before", "output_schema_bytes_after")
CSV_COLUMNS = ("file", "format", "tools", "bytes_before", "bytes_after", "tokens_before",
               "tokens_after", "sha256_before") + BREAKDOWN_KEYS + EXTRA_COLUMNS + ("tokenizer",)


def _extra(saved: dict, schemas: dict) -> list[int]:
    return [saved["bytes"]["lossless"], saved["bytes"]["lossy"], saved["tokens"]["lossless"],
            saved["tokens"]["lossy"]] + [schemas.get(side, {}).get(kind, 0)
                                         for kind in ("input", "output")
                                         for side in ("before", "after")]


def sides_note(figs: list[CatalogFigures]) -> str:
    """What each side contains, for the table's heading."""
    if all(f.output_schemas for f in figs):
        return "both sides with output schemas"
    if not any(f.output_schemas for f in figs):
        return "output schemas left out of both sides (--output-schema none)"
    return "output schemas on both sides where the target carries them"


def render_csv(figs: list[CatalogFigures], tokenizer: str) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for f in figs:
        w.writerow([f.file, f.format, f.tools, f.bytes_before, f.bytes_after, f.tokens_before,
                    f.tokens_after, f.sha256_before] + [f.breakdown[k] for k in BREAKDOWN_KEYS]
                   + _extra(f.saved(), f.schemas) + [tokenizer])
    t = total(figs)
    w.writerow(["(total)", "", t["tools"], t["bytes_before"], t["bytes_after"], t["tokens_before"],
                t["tokens_after"], ""] + [t["breakdown"][k] for k in BREAKDOWN_KEYS]
               + _extra(t["saved"], t["schemas"]) + [tokenizer])
    return buf.getvalue()


# --------------------------------------------------------------------------- Markdown


def md_cell(text: str) -> str:
    """A table cell: one code span (inert whatever it holds), no line breaks."""
    from toolcat.terminal import md_code, shown

    return md_code(" ".join(shown(text).split()))


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def model_facing_line(mf: dict) -> str:
    """The model-facing figures in one line (tokens of name, description and input schema
    of every tool, both sides)."""
    tb, ta = mf["tokens_before"], mf["tokens_after"]
    share = f"{ta * 100 / tb:.1f}%" if tb else "-"
    return (f"model-facing (name, description, input schema; output schemas, titles, "
            f"annotations, icons and _meta apart): {tb:,} -> {ta:,} tokens, the compact view "
            f"is {share} of the standard view")


def score_line(figs: list[CatalogFigures], total_score: float) -> str:
    """The description quality score line (``toolcat lint --statistics`` explains it)."""
    each = "" if len(figs) < 2 else " (" + ", ".join(
        f"{os.path.basename(f.file.rstrip('/'))} {f.description_score:.1f}" for f in figs
        if f.description_score is not None) + ")"
    return (f"description score: {total_score:.1f}/100{each}; toolcat lint --statistics "
            "says what it lost")


def render_markdown(figs: list[CatalogFigures], tokenizer: str,
                    top: list[ToolFigures] | None, as_provider: str | None = None,
                    setup: dict | None = None) -> str:
    lines = [f"**toolcat measure**: before = standard view, after = compact view, "
             f"{sides_note(figs)}; tokens: `{tokenizer}`{as_note(as_provider, tokenizer)}", ""]
    head = ["catalog", "tools", "bytes before", "bytes after", "bytes saved", "tokens before",
            "tokens after", "tokens saved", "saved", "lossless", "lossy"]
    lines.append(_md_row(head))
    lines.append(_md_row([":--"] + ["--:"] * (len(head) - 1)))

    def row(name: str, tools: int, bb: int, ba: int, tb: int, ta: int, ll: int) -> list[str]:
        return [name, f"{tools:,}", f"{bb:,}", f"{ba:,}", f"{bb - ba:,}", f"{tb:,}", f"{ta:,}",
                f"{tb - ta:,}", _pct(saving_pct(tb, ta)), _pct(saving_pct(tb, tb - ll)),
                _pct(saving_pct(tb, ta + ll))]

    for f in figs:
        lines.append(_md_row(row(md_cell(f.file), f.tools, f.bytes_before, f.bytes_after,
                                 f.tokens_before, f.tokens_after, f.tokens_lossless)))
    t = total(figs)
    lines.append(_md_row([f"**{c}**" for c in row("total", t["tools"], t["bytes_before"],
                                                   t["bytes_after"], t["tokens_before"],
                                                   t["tokens_after"],
                                                   t["saved"]["tokens"]["lossless"])]))
    lines += ["", "Saved (tokens): *lossless* by exact rewrites, *lossy* by description cuts "
              "and relocated UI labels (the handbook keeps them) or widened schemas.",
              "", model_facing_line(t["model_facing"]) + "."]
    if t.get("description_score") is not None:
        lines += ["", score_line(figs, t["description_score"]) + "."]
    lines += ["", "Bytes of the standard view:", ""]
    head2 = ["catalog"] + [BREAKDOWN_TITLES[k] for k in BREAKDOWN_KEYS] + ["total"]
    lines.append(_md_row(head2))
    lines.append(_md_row([":--"] + ["--:"] * (len(head2) - 1)))

    def brow(name: str, bd: dict, tot: int) -> list[str]:
        return [name] + [f"{bd[k]:,} ({_pct(bd[k] * 100 / tot if tot else 0)})"
                         for k in BREAKDOWN_KEYS] + [f"{tot:,}"]

    for f in figs:
        lines.append(_md_row(brow(md_cell(f.file), f.breakdown, f.bytes_before)))
    lines.append(_md_row([f"**{c}**" for c in brow("total", t["breakdown"], t["bytes_before"])]))
    if any(f.defer is not None for f in figs):
        lines += ["", "Deferral: up front (what every request shows the model) and on demand "
                  "(what a deferred tool adds when a search loads it), tokens:", ""]
        head4 = list(DEFER_HEAD)
        lines.append(_md_row(head4))
        lines.append(_md_row([":--"] + ["--:"] * (len(head4) - 1)))
        for f in figs:
            if f.defer is not None:
                lines.append(_md_row([md_cell(f.file), *defer_cells(f)]))
    if top:
        lines += ["", f"Heaviest {len(top)} tool{'s' if len(top) != 1 else ''}:", ""]
        head3 = ["tool", "catalog", "bytes before", "bytes after", "tokens before",
                 "tokens after", "saved"]
        lines.append(_md_row(head3))
        lines.append(_md_row([":--", ":--"] + ["--:"] * (len(head3) - 2)))
        for x in top:
            lines.append(_md_row([md_cell(x.id or "(no id)"), md_cell(x.file),
                                  f"{x.bytes_before:,}", f"{x.bytes_after:,}",
                                  f"{x.tokens_before:,}", f"{x.tokens_after:,}",
                                  _pct(saving_pct(x.tokens_before, x.tokens_after))]))
    if setup is not None:
        found = setup_lines(setup)
        lines += ["", f"Limits the setup breaks ({len(setup['servers'])} servers together, "
                  "`toolcat lint` rules SU6xx): " + ("none" if not found else ""), ""]
        lines += [f"- `{md_cell(x.split('  ', 1)[0].split()[-1])}` {md_cell(x)}"
                  for x in found]
        if not found:
            lines.pop()
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- deferral

DEFER_HEAD = ("catalog", "tools deferred", "eager compact", "up front",
              "on demand min", "on demand median", "on demand max", "session (K loaded)")


def defer_cells(f: CatalogFigures) -> list:
    d = f.defer
    sp = d.spread()
    return [f"{d.deferred:,}/{d.tools:,}", f"{d.eager_catalog_tokens:,}",
            f"{d.upfront_tokens:,}",
            f"{sp['min']:,}", f"{sp['median']:,}", f"{sp['max']:,}",
            f"{d.session_tokens():,} ({d.loaded})"]


# --------------------------------------------------------------------------- Rich table


def short_names(files: list[str]) -> tuple[str, dict[str, str]]:
    """The folder all ``files`` share (or "") and each file's name relative to it."""
    import os

    names = {f: f for f in files}
    real = [f for f in files if f != "-"]
    if len(real) < 2 or len(real) != len(files):
        return "", names
    try:
        common = os.path.commonpath([os.path.dirname(f) or "." for f in real])
    except ValueError:  # absolute and relative paths mixed
        return "", names
    if common in ("", ".", os.sep):
        return "", names
    return common, {f: os.path.relpath(f, common) for f in real}


def _print(con: Any, renderable: Any) -> None:
    """Print a table whole (a table when it fits, else one record per block)."""
    from toolcat import ui

    ui.print_table(renderable, con)


def render_table(figs: list[CatalogFigures], tokenizer: str, top: list[ToolFigures] | None,
                 failed: set[tuple[str, str]] | None = None,
                 as_provider: str | None = None, setup: dict | None = None) -> None:
    from rich.table import Table
    from rich.text import Text

    from toolcat import ui
    from toolcat.terminal import shown

    con = ui.out()
    failed = failed or set()
    targets = sorted({f.target for f in figs})
    folder, names = short_names([f.file for f in figs])
    ui.print_wrapped(Text.assemble(
        ("toolcat measure", "bold"),
        f"  before = standard view, after = compact view ({', '.join(targets)}), "
        f"{sides_note(figs)}; tokens: {tokenizer}" + as_note(as_provider, tokenizer)
        + (f"; catalogs in {shown(folder)}/" if folder else "")), con)
    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold",
                  show_footer=False)
    table.add_column("catalog", overflow="fold", min_width=12)
    for name in ("tools", "bytes\nbefore", "bytes\nafter", "bytes\nsaved", "tokens\nbefore",
                 "tokens\nafter", "tokens\nsaved"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("saved\n(tokens)", justify="left", no_wrap=True)
    table.add_column("of it\nlossless", justify="right", no_wrap=True)

    def cell(v: int, file: str, key: str) -> Text | str:
        if (file, key) in failed:
            return Text(f"{v:,}", style="bold red")
        return f"{v:,}"

    def saved(tb: int, ta: int) -> Text:
        p = saving_pct(tb, ta)
        return Text.assemble((bar(p), "green" if p > 0 else "red"), f" {p:5.1f}%")

    for f in figs:
        table.add_row(shown(names[f.file]), f"{f.tools:,}", cell(f.bytes_before, f.file, "bytes_before"),
                      cell(f.bytes_after, f.file, "bytes_after"),
                      f"{f.bytes_before - f.bytes_after:,}",
                      cell(f.tokens_before, f.file, "tokens_before"),
                      cell(f.tokens_after, f.file, "tokens_after"),
                      f"{f.tokens_before - f.tokens_after:,}", saved(f.tokens_before, f.tokens_after),
                      _pct(saving_pct(f.tokens_before, f.tokens_before - f.tokens_lossless)))
    t = total(figs)
    table.add_section()
    table.add_row(Text("total", style="bold"), f"{t['tools']:,}", f"{t['bytes_before']:,}",
                  f"{t['bytes_after']:,}", f"{t['bytes_before'] - t['bytes_after']:,}",
                  f"{t['tokens_before']:,}", f"{t['tokens_after']:,}",
                  f"{t['tokens_before'] - t['tokens_after']:,}",
                  saved(t["tokens_before"], t["tokens_after"]),
                  _pct(saving_pct(t["tokens_before"],
                                  t["tokens_before"] - t["saved"]["tokens"]["lossless"])),
                  style="bold")
    _print(con, table)
    con.print(Text("lossless: saved by exact rewrites; the rest by description cuts and "
                   "relocated UI labels (kept in the handbook) or widened schemas"))
    con.print(Text(model_facing_line(t["model_facing"])))
    if t.get("description_score") is not None:
        con.print(Text(score_line(figs, t["description_score"])))
    con.print()

    con.print(Text("Schema bytes", style="bold"))
    st = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    st.add_column("catalog", overflow="fold", min_width=12)
    for name in ("input\nbefore", "input\nafter", "output\nbefore", "output\nafter"):
        st.add_column(name, justify="right", no_wrap=True)

    def scells(sc: dict) -> list[str]:
        return [f"{sc.get(side, {}).get(kind, 0):,}" for kind in ("input", "output")
                for side in ("before", "after")]

    for f in figs:
        st.add_row(shown(names[f.file]), *scells(f.schemas))
    st.add_section()
    st.add_row(Text("total", style="bold"), *scells(t["schemas"]), style="bold")
    _print(con, st)
    con.print()

    con.print(Text("Bytes of the standard view", style="bold"))
    bt = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    bt.add_column("catalog", overflow="fold", min_width=12)
    for k in BREAKDOWN_KEYS:
        bt.add_column(BREAKDOWN_TITLES[k], justify="right", no_wrap=True)
    bt.add_column("total", justify="right", no_wrap=True)

    def bcells(bd: dict, tot: int) -> list[str]:
        return [f"{bd[k]:,} {bd[k] * 100 / tot if tot else 0:5.1f}%" for k in BREAKDOWN_KEYS] \
            + [f"{tot:,}"]

    for f in figs:
        bt.add_row(shown(names[f.file]), *bcells(f.breakdown, f.bytes_before))
    bt.add_section()
    bt.add_row(Text("total", style="bold"), *bcells(t["breakdown"], t["bytes_before"]),
               style="bold")
    _print(con, bt)
    if any(f.defer is not None for f in figs):
        con.print()
        con.print(Text.assemble(("Deferral", "bold"), " (tokens): up front = what every "
                                "request shows the model; on demand = what a deferred tool "
                                "adds when a search loads it"))
        dt = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        dt.add_column("catalog", overflow="fold", min_width=12)
        for name in DEFER_HEAD[1:]:
            dt.add_column(name.replace(" ", "\n", 1), justify="right", no_wrap=True)
        for f in figs:
            if f.defer is not None:
                cells = defer_cells(f)
                if (f.file, "tokens_upfront") in failed:
                    cells[2] = Text(cells[2], style="bold red")
                dt.add_row(shown(names[f.file]), *cells)
        _print(con, dt)
    if top:
        con.print()
        con.print(Text(f"Heaviest {len(top)} tool{'s' if len(top) != 1 else ''}", style="bold"))
        tt = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
        tt.add_column("tool", overflow="fold", min_width=12)
        tt.add_column("catalog", overflow="fold", min_width=12)
        for name in ("bytes\nbefore", "bytes\nafter", "tokens\nbefore", "tokens\nafter"):
            tt.add_column(name, justify="right", no_wrap=True)
        tt.add_column("saved", no_wrap=True)
        for x in top:
            tt.add_row(shown(x.id or "(no id)"), shown(names.get(x.file, x.file)), f"{x.bytes_before:,}", f"{x.bytes_after:,}",
                       f"{x.tokens_before:,}", f"{x.tokens_after:,}",
                       saved(x.tokens_before, x.tokens_after))
        _print(con, tt)
    if setup is not None:
        con.print()
        found = setup_lines(setup)
        n = len(setup["servers"])
        con.print(Text.assemble(("Limits the setup breaks", "bold"),
                                f" ({n} server{'s' if n != 1 else ''} together, "
                                "toolcat lint rules SU6xx): " + ("none" if not found else "")))
        for line in found:
            sev = line.split()[0]
            con.print(Text.assemble("  ", (line, {"error": "bold red", "warning": "yellow"}
                                           .get(sev, ""))))
