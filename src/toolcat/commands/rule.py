"""`toolcat rule`: explain lint rules."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from toolcat.commands.common import UI, Shared
from toolcat.commands.options import shared

EPILOG = """Examples:

  toolcat rule CS203

  toolcat rule CS203 --format markdown

  toolcat rule --all

  toolcat rule --all --format markdown
"""


def register(app: typer.Typer) -> None:
    app.command("rule", epilog=EPILOG,
                help="Explain a lint rule (`toolcat rule CODE`) or list them all (--all).",
                short_help="Explain a lint rule, or list them all.")(rule)


@shared(*UI)
def rule(
    code: Annotated[Optional[str], typer.Argument(help="A rule code, e.g. CS203.",
                                                  show_default=False)] = None,
    all_: Annotated[bool, typer.Option("--all", "-a", help="List every rule.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f",
                                     help="Output format: text, markdown or json.")] = "text",
    *,
    opts: Shared,
) -> None:
    from toolcat.errors import UsageError
    from toolcat.features.lint import registry
    from toolcat.ui import write_stdout

    opts.apply_ui()

    if fmt not in ("text", "markdown", "json"):
        raise UsageError(f"--format must be text, markdown or json (got {fmt!r})")
    if all_ == (code is not None):
        raise UsageError("give one rule code, or --all")
    if code is not None:
        r = registry.get(code)
        if r is None:
            near = [c for c in registry.codes() if c.startswith(code.upper()[:2])]
            hint = f" (rules starting {code.upper()[:2]}: {', '.join(near)})" if near else ""
            raise UsageError(f"unknown rule {code!r}{hint}; `toolcat rule --all` lists them")
        if fmt == "json":
            write_stdout(_json([r]))
        elif fmt == "markdown":
            write_stdout(f"# {r.code} {r.name}\n\n{r.markdown}\n")
        else:
            write_stdout(registry.rule_text(r))
        raise typer.Exit(0)
    rules = registry.all_rules()
    if fmt == "markdown":
        write_stdout(registry.rules_markdown())
    elif fmt == "json":
        write_stdout(_json(rules))
    else:
        from toolcat.ui import terminal_width

        write_stdout(rules_text(rules, terminal_width()))
    raise typer.Exit(0)


def rules_text(rules, width: int | None) -> str:
    """``rule --all`` as text: one rule per line when that fits ``width`` (None: any width),
    else the summary wrapped at word boundaries under its column, or, when that column would
    be too narrow, one rule per block with the summary on the lines below."""
    import textwrap

    w_name = max(len(r.name) for r in rules)
    indent = 6 + 1 + w_name + 1 + 8 + 1
    lines = [f"{'code':<6} {'name':<{w_name}} {'severity':<8} summary"]
    if width is None or all(indent + len(r.summary) <= width for r in rules):
        for r in rules:
            lines.append(f"{r.code:<6} {r.name:<{w_name}} {r.severity:<8} {r.summary}")
        return "\n".join(lines) + "\n"
    if width - indent >= 30:
        for r in rules:
            wrapped = textwrap.wrap(r.summary, width - indent, break_long_words=False,
                                    break_on_hyphens=False) or [""]
            lines.append(f"{r.code:<6} {r.name:<{w_name}} {r.severity:<8} {wrapped[0]}")
            lines.extend(" " * indent + w for w in wrapped[1:])
        return "\n".join(lines) + "\n"
    out: list[str] = []
    for r in rules:
        if out:
            out.append("")
        out.append(f"{r.code}  {r.name}  ({r.severity})")
        out.extend(textwrap.wrap(r.summary, max(width - 2, 20), initial_indent="  ",
                                 subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False))
    return "\n".join(out) + "\n"


def _json(rules) -> bytes:
    from toolcat.document.canonical import dumps
    from toolcat.features.lint.registry import REDIRECTS, example

    out = []
    for r in rules:
        ex = example(r.markdown)
        out.append({"code": r.code, "name": r.name, "severity": r.severity,
                    "summary": r.summary, "doc": r.doc, "category": r.category,
                    "sections": r.sections,
                    "example": None if ex is None else {"lang": ex.lang, "options": ex.options,
                                                        "text": ex.text},
                    "formerly": sorted(o for o, n in REDIRECTS.items() if n == r.code)})
    return dumps(out, indent=2) + b"\n"
