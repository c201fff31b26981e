"""``--format markdown``: the findings as a table, and with several profiles the
compatibility matrix (tools x profiles: ok / warnings / errors), for a pull request comment
or a README."""

from __future__ import annotations

from toolcat.features.lint.render import Report

_MARK = {"ok": "ok", "warnings": "warnings", "errors": "**errors**"}


def _clean(text: str) -> str:
    from toolcat.features.lint.render.text import printable

    return printable(text.replace("\n", " "))


def _cell(text: str) -> str:
    """Catalog text (a file name, a tool id) as literal text: nothing in it is markup."""
    from toolcat.terminal import md_inline

    return md_inline(_clean(text))


def _message(text: str) -> str:
    from toolcat.terminal import md_text

    return md_text(_clean(text))


def _code(text: str) -> str:
    from toolcat.terminal import md_code

    return md_code(_clean(text))


def render_markdown(report: Report) -> str:
    c = report.counts()
    out = [f"**toolcat lint** ({', '.join(report.profiles)}): {c['error']:,} errors, "
           f"{c['warning']:,} warnings, {c['info']:,} infos in {report.files:,} files, "
           f"{report.tools:,} tools", ""]
    if report.findings:
        head = "| file | line | tool | severity | code | message | pointer |"
        out += [head, "|---|---|---|---|---|---|---|"]
        for f in report.findings:
            line = f"{f.line}:{f.column}" if f.line is not None else "-"
            out.append(f"| {_cell(f.file)} | {line} | {_cell(f.tool or '')} | {f.severity} | "
                       f"{f.code} | {_message(report.tagged(f))} | {_code(f.pointer)} |"
                       if f.pointer else
                       f"| {_cell(f.file)} | {line} | {_cell(f.tool or '')} | {f.severity} | "
                       f"{f.code} | {_message(report.tagged(f))} | |")
        out.append("")
    m = report.matrix
    if report.many and m is not None:
        files = {r["file"] for r in m["rows"]}
        out.append("| tool | " + " | ".join(m["profiles"]) + " |")
        out.append("|---|" + "---|" * len(m["profiles"]))
        for r in m["rows"]:
            name = f"{r['file']}: {r['tool']}" if len(files) > 1 else str(r["tool"])
            out.append(f"| {_cell(name)} | "
                       + " | ".join(_MARK[r["cells"][n]] for n in m["profiles"]) + " |")
        n = len(m["rows"])
        out.append("| **tools ok** | " + " | ".join(f"{m['totals'][p]['ok']}/{n}"
                                                  for p in m["profiles"]) + " |")
        out.append("")
    return "\n".join(out)
