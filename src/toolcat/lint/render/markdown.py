"""``--format markdown``: the findings as a table, and with several profiles the
compatibility matrix (tools x profiles: ok / warnings / errors), for a pull request comment
or a README."""

from __future__ import annotations

from toolcat.lint.render import Report

_MARK = {"ok": "ok", "warnings": "warnings", "errors": "**errors**"}


def _cell(text: str) -> str:
    from toolcat.lint.render.text import printable

    text = printable(text.replace("\n", " "))
    return text.replace("\\", "\\\\").replace("|", "\\|")


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
                       f"{f.code} | {_cell(report.tagged(f))} | `{_cell(f.pointer)}` |"
                       if f.pointer else
                       f"| {_cell(f.file)} | {line} | {_cell(f.tool or '')} | {f.severity} | "
                       f"{f.code} | {_cell(report.tagged(f))} | |")
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
