"""The projection report (``--report FILE``) and the summary printed on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.project import Projection


def build_report(proj: "Projection") -> dict:
    """``{"digest": "sha256:<hex of the output bytes>", "target", "view", "tools": [{"id",
    "changes": [{"pointer", "kind", "what"}]}]}``; with the compact subset required, each
    tool also says whether its inputSchema is ``conformant``; ``without_input_schema``: the
    ids of the tools whose source gives no input schema (when there are any);
    ``duplicate_ids``: ids several tools had, each tool's file, line, operation and id as
    written (``--duplicate-ids rename``: a tool's ``renamed_from`` says what it was)."""
    tools = []
    for t in proj.tools:
        entry: dict[str, Any] = {"id": t.id, "changes": [c.as_dict() for c in t.changes]}
        if t.renamed_from is not None:
            entry["renamed_from"] = t.renamed_from
        if proj.subset and proj.view == "compact":
            entry["conformant"] = t.conformant
        tools.append(entry)
    out = {"digest": proj.digest(), "target": proj.target, "view": proj.view, "tools": tools}
    if proj.broken_refs:
        out["broken_refs"] = proj.broken_refs
    if proj.left_out:
        out["left_out"] = proj.left_out
    missing = proj.without_input_schema()
    if missing:
        out["without_input_schema"] = missing
    if proj.duplicates:
        out["duplicate_ids"] = [
            {"id": d.id, "tools": [
                {"file": f, "line": ln, "where": w,
                 "id": d.id if i == 0 or not d.renamed_to else d.renamed_to[i - 1]}
                for i, (f, ln, w) in enumerate(d.places)]}
            for d in proj.duplicates]
    return out


def start_counting(proj: "Projection", counter: Any) -> None:
    """Hand the texts the summary counts to ``counter`` (a :class:`toolcat.tokens.Counter`
    made before loading, so that a forked one loads the tokenizer meanwhile): the standard
    view and its model-facing part (:func:`toolcat.features.project.prose.model_facing`) in
    distinct pieces (:class:`toolcat.tokens.Tally`: each definitions entry the tools bundle
    is serialized once and counted once, never the whole text: Kubernetes' is 54 MB, 1.2 MB
    of it distinct), then the compact array and its model-facing part. Records the tallies
    and where the others' counts are for :func:`summary_figures`.

    A standard view whose tools are their standard descriptors (the same objects: no target
    rewrote them) is that text itself: it is counted once (Stripe's is 206 MB)."""
    from toolcat.document.canonical import dumps
    from toolcat.features.project.parts import DescriptorParts, add_item
    from toolcat.features.project.prose import model_facing
    from toolcat.tokens import Seen, Tally

    env = proj.envelope
    writer = DescriptorParts(env)
    seen = Seen()          # (the model-facing view repeats the standard one's pieces)
    before, model = Tally(counter, seen), Tally(counter, seen)
    for tally, items in ((before, [t.standard for t in proj.tools]),
                         (model, [model_facing(env, t.standard) for t in proj.tools])):
        tally.add(b"[")
        for item in items:
            add_item(tally, writer.parts(item))
        tally.add(b"]")
        tally.close()
    same = proj.view == "standard" and all(t.descriptor is t.standard for t in proj.tools)
    after = None if same else counter.submit(proj.array_view())
    upfront = None
    if proj.plan is not None and proj.plan.any:
        # what every request carries when tools are deferred (the tool search tool, the
        # eager tools; measure --defer's up-front figure): the array holds each deferred tool
        # in full, which the model reads only when a search loads it
        text = proj.upfront_bytes()
        upfront = (len(text), counter.submit(text))
    proj._memo["counted"] = (before, after, model,
                             counter.submit(dumps([model_facing(env, t.descriptor)
                                                   for t in proj.tools])), upfront)


def summary_figures(proj: "Projection", tokenizer: str = "o200k_base",
                    counter: Any = None) -> dict:
    """The summary's figures; ``counter``: one that :func:`start_counting` was given."""
    from toolcat import tokens

    after = proj.array_view()
    if counter is None or "counted" not in proj._memo:
        counter = counter if counter is not None else tokens.Counter(tokenizer)
        start_counting(proj, counter)
    before, ia, model, ma, upfront = proj._memo["counted"]
    counts = counter.results()
    tokens_before = before.total(counts)
    tokens_after = tokens_before if ia is None else counts[ia]
    kinds: dict[str, int] = {}
    for t in proj.tools:
        for c in t.lossy():
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
    return {
        "tools": len(proj.tools),
        "bytes_before": before.size,
        "bytes_after": len(after),
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "model_tokens_before": model.total(counts),
        "model_tokens_after": counts[ma],
        "lossy": kinds,
        "nonconformant": sum(1 for t in proj.tools if not t.conformant) if proj.subset else 0,
        "failed": [t.id for t in proj.tools if t.failed],
        "digest": proj.digest(),
        **({"upfront_bytes": upfront[0], "upfront_tokens": counts[upfront[1]]}
           if upfront is not None else {}),
    }


def print_summary(proj: "Projection", out_label: str, counter: Any = None,
                  written: bool = True) -> None:
    """A short Rich summary on stderr (``counter``: see :func:`summary_figures`). When
    nothing was written (``--unlowerable fail``), it says so: no "-> FILE", no digest.

    Where stderr's console would print text as it is (:func:`toolcat.ui.plain_err`: no
    terminal, no colour) and every line is printable ASCII, the lines are written without
    Rich (its import is ~25 ms of a run): the same bytes (the table laid out as Rich lays
    out one with no box and no edge padding)."""
    from toolcat import ui
    from toolcat.terminal import shown

    f = summary_figures(proj, counter=counter)

    def pct(a: int, b: int) -> str:
        return f"{(100.0 * a / b):.1f}%" if b else "-"

    head = ("toolcat project", f"  {proj.view} view, target {proj.target}"
            f", {f['tools']} tool{'s' if f['tools'] != 1 else ''} "
            + (f"-> {shown(out_label)}" if written else f"({shown(out_label)})"))
    columns = ("", "standard", proj.view, "ratio")
    rows = [("bytes", f"{f['bytes_before']:,}", f"{f['bytes_after']:,}",
             pct(f["bytes_after"], f["bytes_before"])),
            ("tokens (o200k)", f"{f['tokens_before']:,}", f"{f['tokens_after']:,}",
             pct(f["tokens_after"], f["tokens_before"])),
            ("model-facing tokens", f"{f['model_tokens_before']:,}",
             f"{f['model_tokens_after']:,}",
             pct(f["model_tokens_after"], f["model_tokens_before"]))]
    lines: list[tuple[str, str | None]] = []      # (text, style) after the table
    lossy = f["lossy"]
    if lossy:
        parts = ", ".join(f"{n} {k}" for k, n in sorted(lossy.items()))
        lines.append((f"schema changes that are not exact: {parts} (see --report)", None))
    else:
        lines.append(("schema changes that are not exact: none", None))
    env = proj.envelope
    dropped = sum(1 for t in proj.tools
                  if isinstance(env.body(t.standard), dict)
                  and "outputSchema" in env.body(t.standard)
                  and any(c.pointer == "/outputSchema" and c.kind == "omitted"
                          for c in t.changes))
    if dropped:
        # the standard view carries them: the ratio counts their removal (HubSpot on
        # OpenWOP: 1.9%, most of it output schemas)
        lines.append((f"the {proj.view} view leaves out the outputSchema of {dropped} "
                      f"tool{'s' if dropped != 1 else ''} (in the handbook); the standard "
                      "column includes them", None))
    if proj.plan is not None:
        line = "deferred: " + proj.plan.describe()
        if "upfront_tokens" in f:
            line += (f"; up front {f['upfront_tokens']:,} tokens "
                     f"({pct(f['upfront_tokens'], f['tokens_before'])} of the standard view's), "
                     f"{f['upfront_bytes']:,} bytes: what every request carries; each deferred "
                     "tool is written in full and read when a search loads it")
        lines.append((line, None))
    note = proj.input_schema_note()
    if note:
        lines.append((note, None))
    note = proj.duplicate_note()
    if note:
        lines.append((note, None))
    if f["nonconformant"]:
        lines.append((f"tools outside the compact subset: {f['nonconformant']}", None))
    if f["failed"]:
        lines.append((f"unlowerable (--unlowerable fail): {shown(', '.join(f['failed'][:10]))}"
                      + (" ..." if len(f["failed"]) > 10 else ""), "red"))
    up_tokens, up_bytes = (f["upfront_tokens"], f["upfront_bytes"]) if "upfront_tokens" in f \
        else (f["tokens_after"], f["bytes_after"])
    if proj.view == "compact" and (up_tokens > f["tokens_before"]
                                   or up_bytes > f["bytes_before"]):
        # a compact view larger than its standard view saves nothing (Xero on OpenWOP:
        # 111.6% of the tokens): never only a ratio over 100% in a table. With tools
        # deferred, the array is larger by design (each deferred tool in full, read only
        # when loaded): what counts is what every request carries
        what = "what every request carries" if "upfront_tokens" in f else "the compact view"
        lines.append((f"toolcat: warning: {what} is larger than the standard view "
                      f"({pct(up_tokens, f['tokens_before'])} of its tokens, "
                      f"{pct(up_bytes, f['bytes_before'])} of its bytes)", None))
    if written:
        lines.append((f"digest {f['digest']}", None))
    plain = ui.plain_err()
    texts = [*head, *columns, *(c for r in rows for c in r), *(t for t, _s in lines)]
    if plain is not None and all(t.isascii() and t.isprintable() for t in texts):
        plain.write("".join(x + "\n" for x in [
            "".join(head), *_table_lines(columns, rows), *(t for t, _s in lines)]))
        plain.flush()
        return
    from rich.text import Text

    con = ui.err()
    con.print(Text.assemble((head[0], "bold"), head[1]))
    con.print(rich_table(columns, rows))
    for text, style in lines:
        con.print(Text(text, style=style or ""))


def rich_table(columns: tuple, rows: list[tuple]) -> Any:
    """The summary's table as Rich lays it out (the first column left-justified, the others
    right-justified; no box, no edge padding): what :func:`_table_lines` writes without Rich."""
    from rich.table import Table

    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column(columns[0])
    for c in columns[1:]:
        table.add_column(c, justify="right")
    for r in rows:
        table.add_row(*r)
    return table


def _table_lines(columns: tuple, rows: list[tuple]) -> list[str]:
    """The lines Rich prints for a table of ``columns`` (the first left-justified, the others
    right-justified) and ``rows`` with no box, no edge padding, one space of padding each side
    of a cell, on a console with room for it and no colour (text of single-width characters)."""
    widths = [max(len(c) for c in col) for col in zip(columns, *rows)]
    return ["  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])])
            for r in (columns, *rows)]
