"""``toolcat diff`` reports: text (by tool, breaking first), json, markdown (a PR comment),
github (workflow annotations)."""

from __future__ import annotations

import json
from typing import Any

from toolcat.features.diff.catalog import (
    BEHAVIOURAL,
    BREAKING,
    KINDS,
    NON_BREAKING,
    UNKNOWN,
    Finding,
    Report,
)

FORMATS = ("text", "json", "markdown", "github")
_LABEL = {BREAKING: "BREAKING", UNKNOWN: "UNKNOWN", BEHAVIOURAL: "behavioural",
          NON_BREAKING: "non-breaking"}


def _clean(s: Any) -> str:
    """Text for people: control characters from the input escaped (never sent to a
    terminal as they are)."""
    s = str(s)
    if s.isprintable():
        return s
    out = []
    for ch in s:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                       else f"\\U{code:08x}")
    return "".join(out)


def _json_text(v: Any, limit: int | None = 300) -> str:
    try:
        text = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(v)
    if limit is not None and len(text) > limit:
        text = text[:limit - 1] + "…"
    return text


def summary_line(rep: Report) -> str:
    c = rep.counts()
    status = {s: 0 for s in ("changed", "renamed", "added", "removed")}
    for t in rep.tools:
        status[t.status] += 1
    parts = [f"{c[k]} {k}" for k in KINDS]
    tools = ", ".join(f"{n} {s}" for s, n in status.items() if n)
    tail = f"; {tools}" if tools else ""
    tail += f"; {rep.unchanged} unchanged"
    if rep.ignored:
        tail += f"; {rep.ignored} ignored"
    return ", ".join(parts) + tail


def render(rep: Report, fmt: str, fail_on: str = "breaking") -> str:
    if fmt == "json":
        return render_json(rep, fail_on)
    if fmt == "markdown":
        return render_markdown(rep)
    if fmt == "github":
        return render_github(rep)
    return render_text(rep)


# ----------------------------------------------------------------------------- text

def render_text(rep: Report) -> str:
    lines = [f"OLD: {_clean(rep.old.label)} ({len(rep.old.tools)} tools)",
             f"NEW: {_clean(rep.new.label)} ({len(rep.new.tools)} tools)"]
    for side, name in ((rep.old, "OLD"), (rep.new, "NEW")):
        if side.missing_ids:
            lines.append(f"note: {side.missing_ids} tool(s) in {name} without an id (not compared)")
        if side.duplicates:
            lines.append(f"note: ids repeated in {name} (first one compared): "
                         + ", ".join(_clean(d) for d in side.duplicates))
    prio = [(t, f) for t in rep.tools for f in t.findings if f.priority]
    for t, f in prio:
        lines.append(f"attention: {_clean(t.tool)}: {_clean(f.what)}")
    for t in rep.tools:
        lines.append("")
        lines.append(f"{_clean(t.tool)}  ({t.status})")
        for f in t.findings:
            lines.extend(_text_finding(f))
    lines.append("")
    lines.append(summary_line(rep))
    return "\n".join(lines) + "\n"


def _text_finding(f: Finding) -> list[str]:
    pad = " " * 16
    places = []
    if f.new is not None and f.new.where():
        places.append("new " + _clean(f.new.where()))
    if f.old is not None and f.old.where():
        places.append("old " + _clean(f.old.where()))
    if f.kind not in (BREAKING, UNKNOWN):
        tail = f"  [{', '.join(places[:1])}]" if places else ""
        return [f"  {_LABEL[f.kind]:<13} {_clean(f.what)}{tail}"]
    out = [f"  {_LABEL[f.kind]:<13} {_clean(f.what)}"]
    if f.has_witness:
        side = "OLD accepts it, NEW rejects it" if f.witness_of == "input" else \
            "NEW may return it, OLD's schema rejects it"
        out.append(f"{pad}witness {_clean(_json_text(f.witness, 160))}: {side}"
                   + (f": {_clean(f.rejected)}" if f.rejected else ""))
    if f.reason:
        out.append(f"{pad}why unknown: {_clean(f.reason)}")
    where = ([_clean(f.pointer)] if f.pointer else []) + places
    if where:
        out.append(pad + "at " + where[0] + (f" ({', '.join(where[1:])})" if len(where) > 1 else ""))
    return out


# ----------------------------------------------------------------------------- json

def report_json(rep: Report, fail_on: str = "breaking") -> dict:
    return {
        "old": {"label": rep.old.label, "tools": len(rep.old.tools),
                "duplicates": rep.old.duplicates, "without_id": rep.old.missing_ids},
        "new": {"label": rep.new.label, "tools": len(rep.new.tools),
                "duplicates": rep.new.duplicates, "without_id": rep.new.missing_ids},
        "summary": {**rep.counts(), "unchanged": rep.unchanged, "ignored": rep.ignored,
                    "exit_code": rep.exit_code(fail_on)},
        "tools": [{"tool": t.tool, "old_id": t.old_id, "new_id": t.new_id, "status": t.status,
                   **({"rename_reason": t.why} if t.why else {}),
                   "findings": [f.to_json() for f in t.findings]} for t in rep.tools],
    }


def render_json(rep: Report, fail_on: str = "breaking") -> str:
    from toolcat.document.canonical import dumps

    return dumps(report_json(rep, fail_on), indent=2).decode("utf-8") + "\n"


# ----------------------------------------------------------------------------- markdown

def _md(s: Any) -> str:
    """A table cell / inline text: no markup from the input (pipes, backticks, HTML,
    newlines escaped): :func:`toolcat.terminal.md_inline`."""
    from toolcat.terminal import md_inline

    return md_inline(_clean(s), emphasis=True)


def _md_text(s: Any) -> str:
    """A finding's text: :func:`toolcat.terminal.md_text`."""
    from toolcat.terminal import md_text

    return md_text(_clean(s), emphasis=True)


def _code(s: Any) -> str:
    from toolcat.terminal import md_code

    return md_code(_clean(s))


def render_markdown(rep: Report) -> str:
    c = rep.counts()
    head = "breaking changes" if c[BREAKING] else "no breaking change"
    lines = [f"### toolcat diff: {head}", "",
             f"{_code(rep.old.label)} ({len(rep.old.tools)} tools) → {_code(rep.new.label)} "
             f"({len(rep.new.tools)} tools): {_md(summary_line(rep))}", ""]
    prio = [(t, f) for t in rep.tools for f in t.findings if f.priority]
    for t, f in prio:
        lines.append(f"> **Attention:** {_code(t.tool)}: {_md_text(f.what)}")
    if prio:
        lines.append("")
    if rep.tools:
        lines += ["| kind | tool | change | where |", "|---|---|---|---|"]
        for t in rep.tools:
            for f in t.findings:
                where = _code(f.pointer) if f.pointer else ""
                if f.new is not None and f.new.where():
                    where += (" " if where else "") + _md(f.new.where())
                elif f.old is not None and f.old.where():
                    where += (" " if where else "") + _md(f.old.where())
                what = _md_text(f.what)
                if f.has_witness:
                    what += f"<br>witness: {_code(_json_text(f.witness, 200))}"
                if f.reason:
                    what += f"<br>why unknown: {_md_text(f.reason)}"
                kind = f"**{f.kind}**" if f.kind == BREAKING else f.kind
                lines.append(f"| {kind} | {_code(t.tool)} | {what} | {where} |")
        lines.append("")
    lines.append("<sub>Breaking findings carry a witness: an input OLD accepts and NEW rejects "
                 "(for outputs, a result NEW may return that OLD's schema rejects), checked "
                 "with jsonschema. Unknown: no sound check decided it.</sub>")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- github

_LEVEL = {BREAKING: "error", UNKNOWN: "warning", BEHAVIOURAL: "warning", NON_BREAKING: "notice"}


def _gh_data(s: str) -> str:
    return _clean(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(rep: Report) -> str:
    out = []
    for t in rep.tools:
        for f in t.findings:
            place = f.new if (f.new is not None and f.new.file) else f.old
            props = []
            if place is not None and place.file:
                props.append(f"file={_gh_prop(place.file)}")
                if place.line is not None:
                    props.append(f"line={place.line}")
                    if place.column is not None:
                        props.append(f"col={place.column}")
            props.append(f"title={_gh_prop('toolcat diff: ' + f.kind)}")
            msg = f"{t.tool}: {f.what}"
            if f.has_witness:
                msg += f" (witness {f.witness_of}: {_json_text(f.witness, 200)})"
            if f.reason:
                msg += f" (why unknown: {f.reason})"
            if f.pointer:
                msg += f" {f.pointer}"
            out.append(f"::{_LEVEL[f.kind]} {','.join(props)}::{_gh_data(msg)}")
    return "\n".join(out) + ("\n" if out else "")
