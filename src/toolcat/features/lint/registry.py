"""The rule registry: every lint rule's code, name, default severity, doc and check.

A rule is a small function registered with :func:`rule`. Its *scope* says when the engine
calls it and with what:

``catalog``  ``check(ctx)``                 once per catalog
``tool``     ``check(ctx, tool)``           once per valid tool (an object descriptor)
``node``     ``check(ctx, tool, node)``     once per schema node of a tool's schemas, in the
                                            order :mod:`toolcat.schema.walker` visits them
                                            (:class:`~toolcat.features.lint.engine.Node`)
``setup``    ``check(ctx)``                 once per run with servers, on the setup catalog
                                            (every server's tools; ``ctx.catalog.meta
                                            ["setup"]`` names the servers and the client)

Each check yields :class:`Hit` values; the engine turns them into findings (file, line,
column, tool, pointer), applies the profile and the configuration, and de-duplicates.

Codes are stable (users write them into configs and baselines):

* ``TC1xx`` catalog and tool conformance (TC101-TC107 fixed by the issue, TC108+ added here)
* ``CS2xx`` compact-view readiness (RFC 0112), with ``--profile openwop-compact``
* ``MC1xx`` the MCP specification (``--mcp-version``), with the ``mcp`` profile
* ``SC3xx`` JSON Schema correctness (SC301-SC304 fixed, SC305+ added here)
* ``MR4xx`` model readiness (parameter docs, enum use, nesting)
* ``PV5xx`` provider profiles (OpenAI, Anthropic, Gemini), off unless a provider profile is
  chosen
* ``DF7xx`` deferred loading: tools a tool search loads on demand (``defer_loading``)
* ``TP1xx`` poisoned tools: hidden text, instructions to the model, secrets and
  exfiltration, shadowing of other tools (every profile)
* ``SU6xx`` client setups: the per-request limits of providers and clients on the tools of
  every live server of a run together (``scope="setup"``; they run only when a command reads
  servers: ``--server``, ``--url``, ``--client``, ``--client-config``)

``toolcat rule CODE`` prints a rule's doc; :func:`rules_markdown` renders the rule table for
the README.

A rule's doc is its check's docstring, in Markdown sections as ruff's rules are (see
:data:`SECTIONS`): ``## What it does``, ``## Why``, ``## Example``, ``## Fix`` (required, in
that order) and optionally ``## Not reported``, ``## Options`` and ``## Sources``.
:func:`sections` splits a doc into them, :func:`example` reads its Example: one fenced catalog
fragment (```` ```json ```` or ```` ```yaml ````, then ``key=value`` lint settings, see
:data:`EXAMPLE_OPTIONS`) that the rule reports, which ``tests/unit/test_rule_docs.py`` lints
for every rule, so a doc cannot show an example its rule does not flag. A Fix may hold a
fragment too; it must lint clean of the rule.

Codes are never reused, but a rule may be renamed or merged into another: :data:`REDIRECTS`
maps each old code to its new one. ``--select``/``--extend-select``/``--ignore``, the
configuration (those keys, ``[severity]``, ``per-file-ignores``), baselines and ``# toolcat:
ignore[CODE]`` comments take an old code as the new one, with a warning naming the new code
(:func:`redirect`), and ``toolcat rule OLD`` explains the new rule.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, NamedTuple

SEVERITY_ORDER = {"info": 0, "warning": 1, "error": 2}

CATEGORIES = {
    "TC": "catalog and tool conformance",
    "CS": "compact-view readiness (RFC 0112)",
    "MC": "MCP specification",
    "SC": "JSON Schema correctness",
    "MR": "model readiness",
    "PV": "provider profiles",
    "SU": "client setups (the tools of every server a client runs, sent together)",
    "DF": "deferred loading (tool search)",
    "TP": "poisoned tools (what a tool's text tells the model beyond describing the tool)",
}


# The sections of a rule's doc, in their order; the first four are required.
SECTIONS = ("What it does", "Why", "Not reported", "Example", "Fix", "Options", "Sources")
REQUIRED_SECTIONS = ("What it does", "Why", "Example", "Fix")

# The lint settings an Example's fence may give (```json profile=openai max-depth=2):
EXAMPLE_OPTIONS = {
    "profile": "the lint profile (`--profile`; default mcp)",
    "from": "the catalog format (`--from`; default: detected)",
    "file": "the file name the fragment is linted under (default example.json/.yaml)",
    "view": "lint it as this view (`--view`)",
    "mcp-version": "the MCP revision (`--mcp-version`)",
    "description-max": "`--description-max`",
    "prose-max": "`--prose-max`",
    "max-depth": "the `max-depth` setting",
    "repeat": "the fragment's one tool N times, each name numbered (_1, _2, ...); in a setup, "
              "each server's one tool",
    "long-description": "each tool's description repeated to N characters",
    "setup": "the fragment is a client's setup: each key a server's name, its value the "
             "server's `tools/list` result (`yes`)",
    "client": "the MCP client of the setup (`--client`)",
}

# Renamed or merged rules: old code -> new code (users' configs, baselines and comments keep
# working, with a warning). A code here is never registered again.
REDIRECTS: dict[str, str] = {}

_HEADING = re.compile(r"^## (.+?)\s*$", re.M)
_FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\s*$", re.M | re.S)


class Example(NamedTuple):
    """A fenced fragment of a rule's doc: its language (json/yaml), the lint settings its
    fence gives, its text, and the prose before it."""

    lang: str
    options: dict[str, str]
    text: str
    intro: str


class Hit(NamedTuple):
    """One problem a check found.

    ``pointer`` is a tool pointer (``/inputSchema/properties/q``) when the hit belongs to a
    tool; for a hit with no tool (``tool`` None and ``file`` given) it is a pointer into
    ``file``.
    """

    message: str
    pointer: str = ""
    tool: Any = None          # the Tool (catalog-scope rules name it; others get it filled in)
    file: str | None = None   # file of a tool-less hit
    severity: str | None = None  # a per-hit severity (rare: e.g. an error inside a warning rule)


class Rule:
    """One registered rule (see :func:`rule`)."""

    __slots__ = ("code", "name", "severity", "summary", "doc", "markdown", "scope", "check",
                 "schemas", "formats", "after", "keys", "prose", "pure")

    def __init__(self, code: str, name: str, severity: str, summary: str, doc: str,
                 scope: str, check: Callable[..., Iterable[Hit]],
                 schemas: tuple[str, ...] = ("input",), formats: tuple[str, ...] | None = None,
                 after: Callable[..., Iterable[Hit]] | None = None,
                 keys: frozenset[str] | None = None, prose: bool = False,
                 pure: bool = False) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.summary = summary
        self.markdown = doc                    # the docstring, in sections (see SECTIONS)
        self.doc = _flat(doc)                  # its prose, one paragraph (SARIF, rule --all)
        self.scope = scope
        self.check = check
        self.schemas = schemas          # node rules: "input" and/or "output" schemas
        self.formats = formats          # only for catalogs of these formats
        self.after = after              # after(ctx): once per catalog, after the tools
        self.keys = keys                # node rules: only object nodes with one of these keys
        self.prose = prose              # checks prose a compact view drops: not run on one
        self.pure = pure                # node rules: hits depend on the node's content only

    @property
    def sections(self) -> dict[str, str]:
        """The doc's sections, title -> Markdown text (see :func:`sections`)."""
        return sections(self.markdown)

    @property
    def category(self) -> str:
        return CATEGORIES.get(self.code[:2], "")

    def __repr__(self) -> str:  # pragma: no cover
        return f"Rule({self.code} {self.name})"


_RULES: dict[str, Rule] = {}
_LOADED = False


def rule(code: str, name: str, severity: str, summary: str, scope: str = "tool",
         schemas: tuple[str, ...] = ("input",), formats: tuple[str, ...] | None = None,
         after: Callable | None = None, keys: Iterable[str] | None = None,
         prose: bool = False, pure: bool = False) -> Callable[[Callable], Callable]:
    """Register the decorated check; its docstring is the rule's doc, in the sections of
    :data:`SECTIONS` (Markdown ``## Title`` headings).

    ``after(ctx)`` (optional) runs once per catalog after every tool was checked.
    ``keys`` (node rules, optional): the check can only report on a schema object holding
    one of these keys; the engine skips it on every other node (booleans and non-objects
    included) without calling it.
    ``prose``: the rule asks for prose that a compact view removes on purpose (it moves to
    the handbook); it does not run on compact views (see :func:`toolcat.features.lint.engine.lint`).
    ``pure`` (node rules): the hits depend only on the node's own content (its keys and
    values, in order), its dialect and role and the catalog's settings -- never on the tool,
    the node's path (its depth, whether it is the root) or state kept between calls -- and
    every hit is a plain ``Hit(message, n.ptr(...))`` at or below the node. The engine then
    checks equal nodes once per catalog and gives each the first one's hits (non-root
    nodes; see :func:`toolcat.features.lint.engine._walk`).
    """
    if severity not in SEVERITY_ORDER:
        raise ValueError(f"{code}: bad severity {severity!r}")
    if scope not in ("catalog", "tool", "node", "setup"):
        raise ValueError(f"{code}: bad scope {scope!r}")

    def deco(fn: Callable) -> Callable:
        if code in _RULES or code in REDIRECTS:
            raise ValueError(f"rule {code} registered twice (or a redirected old code)")
        import inspect

        doc = inspect.cleandoc(fn.__doc__ or summary)
        _RULES[code] = Rule(code=code, name=name, severity=severity, summary=summary, doc=doc,
                            scope=scope, check=fn, schemas=schemas, formats=formats,
                            after=after, keys=frozenset(keys) if keys is not None else None,
                            prose=prose, pure=pure)
        return fn

    return deco


def _load() -> None:
    global _LOADED
    if not _LOADED:
        # (set once the import is done: another thread meanwhile waits for the module's
        # import to end, never reads half the rules)
        import toolcat.features.lint.rules  # noqa: F401  (registers every rule)
        _LOADED = True


def all_rules() -> list[Rule]:
    """Every rule, sorted by code."""
    _load()
    return [_RULES[c] for c in sorted(_RULES)]


def get(code: str) -> Rule | None:
    """The rule of ``code``; an old code of :data:`REDIRECTS` gives its new rule."""
    _load()
    code = code.upper()
    return _RULES.get(REDIRECTS.get(code, code))


_WARNED: set[str] = set()


def redirect(code: str, where: str = "") -> str:
    """``code``, or the code it was renamed to (:data:`REDIRECTS`), warning once per old code
    on stderr (``where``: the option, file or comment that wrote it)."""
    new = REDIRECTS.get(code.upper())
    if new is None:
        return code
    if code.upper() not in _WARNED:
        _WARNED.add(code.upper())
        from toolcat import ui

        at = f"{where}: " if where else ""
        ui.err().print(f"toolcat: warning: {at}{code.upper()} is now {new} (renamed rule); "
                       f"write {new}", markup=False, highlight=False)
    return new


def redirect_all(codes: Iterable[str], where: str = "") -> list[str]:
    """:func:`redirect` of each code or prefix (a prefix is never redirected)."""
    return [redirect(c, where) for c in codes]


def codes() -> list[str]:
    _load()
    return sorted(_RULES)


def selects_nothing(selector: str) -> bool:
    """True when ``selector`` (a code, a prefix or ``ALL``) matches no rule: a typo, which
    the CLI and the config reader both refuse instead of selecting nothing."""
    return (selector != "ALL" and selector.upper() not in REDIRECTS
            and not any(c.startswith(selector) for c in codes()))


def matches(code: str, selectors: Iterable[str]) -> bool:
    """True when ``code`` is selected by any selector (a code or a prefix, ruff-style)."""
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def rules_markdown() -> str:
    """The rule table as Markdown (the README's table is generated from this)."""
    lines = ["| code | name | severity | what it checks |", "|---|---|---|---|"]
    for r in all_rules():
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| {r.code} | {r.name} | {r.severity} | {summary} |")
    return "\n".join(lines) + "\n"


def sections(doc: str) -> dict[str, str]:
    """A rule doc's ``## Title`` sections, title -> text (stripped), in the doc's order. Text
    before the first heading (a doc written before sections) is ``What it does``."""
    out: dict[str, str] = {}
    parts = _HEADING.split(doc)
    if parts[0].strip():
        out["What it does"] = parts[0].strip()
    for title, text in zip(parts[1::2], parts[2::2]):
        out[title] = text.strip()
    return out


def section_problems(doc: str) -> list[str]:
    """What is wrong with a doc's sections (empty: nothing): unknown titles, missing or empty
    required ones, the order, an Example without exactly one fragment, unknown options."""
    secs = sections(doc)
    out = [f"unknown section {t!r}" for t in secs if t not in SECTIONS]
    out += [f"no {t!r} section" for t in REQUIRED_SECTIONS if not secs.get(t)]
    known = [t for t in secs if t in SECTIONS]
    if known != sorted(known, key=SECTIONS.index):
        out.append(f"sections out of order: {known} (order: {list(SECTIONS)})")
    if "Example" in secs:
        if len(_FENCE.findall(secs["Example"])) != 1:
            out.append("the Example holds no fenced fragment, or more than one")
        else:
            ex = example(doc)
            if ex is not None:
                out += [f"unknown example option {k!r}" for k in ex.options
                        if k not in EXAMPLE_OPTIONS]
    for t in ("Fix",):
        if len(_FENCE.findall(secs.get(t, ""))) > 1:
            out.append(f"the {t} holds more than one fenced fragment")
    return out


def _fragment(text: str) -> Example | None:
    m = _FENCE.search(text)
    if m is None:
        return None
    opts: dict[str, str] = {}
    for kv in m.group(2).split():
        key, _eq, value = kv.partition("=")
        opts[key] = value if _eq else "yes"
    return Example(m.group(1), opts, m.group(3), text[:m.start()].strip())


def example(doc: str) -> Example | None:
    """The Example's fragment (None: there is none)."""
    return _fragment(sections(doc).get("Example", ""))


def fix_example(doc: str) -> Example | None:
    """The Fix's fragment, if it has one (linted with the Example's options)."""
    return _fragment(sections(doc).get("Fix", ""))


def _flat(doc: str) -> str:
    """The doc's prose sections as one paragraph (no Example, no code)."""
    secs = sections(doc)
    return " ".join(" ".join(_FENCE.sub("", text).split())
                    for title, text in secs.items() if title != "Example")


def example_settings(ex: Example) -> str:
    """An Example's settings as a command line would say them."""
    words = []
    for k, v in ex.options.items():
        if k == "repeat":
            words.append(f"the tool {v} times, names numbered")
        elif k == "long-description":
            words.append(f"each description repeated to {v} characters")
        elif k == "setup":
            words.append("a setup: each key a server, its value the server's tools")
        elif k == "file":
            words.append(f"as {v}")
        else:
            words.append(f"--{k} {v}")
    return "; ".join(words)


def rule_text(r: Rule) -> str:
    """What ``toolcat rule CODE`` prints: the facts, then each section of the doc (prose
    wrapped at 88 columns, fragments indented by four spaces)."""
    import textwrap

    from toolcat.features.lint.profiles import PROFILES, severity_in

    lines = [f"{r.code} {r.name}", "",
             f"Default severity: {r.severity}", f"Category: {r.category}"]
    if r.formats:
        lines.append("Applies to: " + ", ".join(r.formats) + " catalogs")
    per = []
    for name in PROFILES:
        sev = severity_in(name, r)
        per.append(f"{name}: {sev or 'off'}")
    lines.append("Profiles: " + "; ".join(per))
    old = sorted(o for o, n in REDIRECTS.items() if n == r.code)
    if old:
        lines.append("Formerly: " + ", ".join(old))
    for title, text in r.sections.items():
        lines += ["", title]
        pos = 0
        for m in _FENCE.finditer(text):
            lines += _paragraphs(text[pos:m.start()], textwrap)
            settings = example_settings(_fragment(m.group(0)) or Example("", {}, "", ""))
            if settings:
                lines.append(f"({settings})")
            lines += ["    " + ln if ln else "" for ln in m.group(3).rstrip("\n").split("\n")]
            pos = m.end()
        lines += _paragraphs(text[pos:], textwrap)
    return "\n".join(lines) + "\n"


def _paragraphs(text: str, textwrap: Any) -> list[str]:
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text.strip()):
        if para.strip():
            if out:
                out.append("")
            if re.match(r"\s*[-*] ", para):       # a list: one item per line
                for item in re.split(r"\n(?=\s*[-*] )", para):
                    out += textwrap.wrap(" ".join(item.split()), width=88,
                                         subsequent_indent="  ")
            else:
                out += textwrap.wrap(" ".join(para.split()), width=88)
    return out
