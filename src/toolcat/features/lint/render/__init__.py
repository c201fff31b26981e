"""Lint report renderers: text, concise (one line per finding), json, markdown, sarif (2.1.0),
github (workflow annotations), junit; ``--statistics``: counts per rule (text or json).

With several profiles each finding names the profiles that report it (text, markdown:
``[openai-strict, gemini]`` before the message; json: ``"profiles"``; sarif, github, junit:
in the message), and text, markdown and json end with the compatibility matrix (tools x
profiles: ok / warnings / errors).

Each renderer takes a :class:`Report` and returns the text to write (stdout or
``--output-file``). None of them imports Rich; the text renderer uses it only to colour
output on a terminal.
"""

from __future__ import annotations

from typing import Any, Iterator

from toolcat.model import Finding

FORMATS = ("text", "concise", "json", "markdown", "sarif", "github", "junit")


class Report:
    def __init__(self, findings: list[Finding], files: int, tools: int, fail_on: str = "error",
                 profile: str = "mcp", hidden: int = 0, sources: dict[str, Any] | None = None,
                 rules: list[Any] | None = None, profiles: list[str] | None = None,
                 matrix: dict | None = None, servers: dict[str, str] | None = None,
                 score: Any = None) -> None:
        self.findings = findings
        self.files = files                      # files and folders read (servers not included)
        self.tools = tools
        self.fail_on = fail_on
        self.profile = profile
        self.hidden = hidden                    # findings hidden by --baseline
        self.sources = sources or {}            # file -> SourceText
        self.rules = rules or []                # registry.Rule, for SARIF
        self.profiles = profiles or [profile]   # the profiles run
        self.matrix = matrix                    # several profiles: tools x profiles
        # live MCP servers (and the setup of several) that findings name instead of a file:
        # name -> what it is ("MCP server, stdio"...); see server_index()
        self.servers = servers or {}
        # --statistics: the description quality score (toolcat.features.lint.quality.Score)
        self.score = score

    @property
    def many(self) -> bool:
        """Several profiles: findings name theirs."""
        return len(self.profiles) > 1

    def tagged(self, f: Finding) -> str:
        """The finding's message, after the profiles reporting it when there are several."""
        if self.many and f.profiles:
            return f"[{', '.join(f.profiles)}] {f.message}"
        return f.message

    def counts(self) -> dict[str, int]:
        if hasattr(self.findings, "counts"):     # spilled findings keep theirs
            return self.findings.counts()
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out


def server_index(report: Report, f: Finding) -> int | None:
    """The index in its server's tools/list of the tool a finding on a live server is about
    (None for a file, or a finding on no tool)."""
    if f.file not in report.servers or not f.source_pointer:
        return None
    parts = f.source_pointer.split("/", 3)
    if len(parts) >= 3 and parts[1] == "tools" and parts[2].isdigit():
        return int(parts[2])
    return None


def where_counts(report: Report) -> str:
    """``3 files, 2 servers, 40 tools`` (the summary's "in ...")."""
    def plural(n: int, word: str) -> str:
        return f"{n:,} {word}{'' if n == 1 else 's'}"

    servers = sum(1 for k in report.servers.values() if not k.startswith("setup"))
    parts = [plural(report.files, "file")] if report.files or not servers else []
    if servers:
        parts.append(plural(servers, "server"))
    parts.append(plural(report.tools, "tool"))
    return ", ".join(parts)


def chunks(fmt: str, report: Report, color: bool = False, quiet: bool = False,
           statistics: bool = False) -> Iterator[str]:
    """:func:`render`'s text in parts, made as they are written: text, concise, json and
    sarif without colour write a streamed catalog's spilled findings as they are read back
    (the others, and colour, are made whole)."""
    if not statistics and not color:
        if fmt in ("text", "concise"):
            from toolcat.features.lint.render import text as t

            build = t.build if fmt == "text" else t.build_concise
            return t.plain_chunks(build(report, quiet))
        if fmt == "json":
            from toolcat.features.lint.render.json import json_chunks

            return json_chunks(report)
        if fmt == "sarif":
            from toolcat.features.lint.render.sarif import sarif_chunks

            return sarif_chunks(report)
    return iter((render(fmt, report, color, quiet, statistics),))


def render(fmt: str, report: Report, color: bool = False, quiet: bool = False,
           statistics: bool = False) -> str:
    if statistics:
        if fmt == "json":
            import json

            from toolcat.features.lint.render.text import statistics as stats

            c = report.counts()
            data = {"statistics": stats(report),
                    "summary": {"errors": c["error"], "warnings": c["warning"],
                                "infos": c["info"], "files": report.files,
                                "tools": report.tools}}
            if report.score is not None:
                data["score"] = report.score.to_json()
            return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        from toolcat.features.lint.render.text import render_statistics

        return render_statistics(report, color=color, quiet=quiet)
    if fmt == "concise":
        from toolcat.features.lint.render.text import render_concise

        return render_concise(report, color=color, quiet=quiet)
    if fmt == "json":
        from toolcat.features.lint.render.json import render_json

        return render_json(report)
    if fmt == "markdown":
        from toolcat.features.lint.render.markdown import render_markdown

        return render_markdown(report)
    if fmt == "sarif":
        from toolcat.features.lint.render.sarif import render_sarif

        return render_sarif(report)
    if fmt == "github":
        from toolcat.features.lint.render.github import render_github

        return render_github(report)
    if fmt == "junit":
        from toolcat.features.lint.render.junit import render_junit

        return render_junit(report)
    from toolcat.features.lint.render.text import render_text

    return render_text(report, color=color, quiet=quiet)
