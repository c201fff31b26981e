"""The rule registry: every lint rule's code, name, default severity, doc and check.

A rule is a small function registered with :func:`rule`. Its *scope* says when the engine
calls it and with what:

``catalog``  ``check(ctx)``                 once per catalog
``tool``     ``check(ctx, tool)``           once per valid tool (an object descriptor)
``node``     ``check(ctx, tool, node)``     once per schema node of a tool's schemas, in the
                                            order :mod:`toolcat.schema.walker` visits them
                                            (:class:`~toolcat.lint.engine.Node`)
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
"""

from __future__ import annotations

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

    __slots__ = ("code", "name", "severity", "summary", "doc", "scope", "check", "schemas",
                 "formats", "after", "keys", "prose", "pure")

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
        self.doc = doc
        self.scope = scope
        self.check = check
        self.schemas = schemas          # node rules: "input" and/or "output" schemas
        self.formats = formats          # only for catalogs of these formats
        self.after = after              # after(ctx): once per catalog, after the tools
        self.keys = keys                # node rules: only object nodes with one of these keys
        self.prose = prose              # checks prose a compact view drops: not run on one
        self.pure = pure                # node rules: hits depend on the node's content only

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
    """Register the decorated check; its docstring is the rule's doc (one paragraph).

    ``after(ctx)`` (optional) runs once per catalog after every tool was checked.
    ``keys`` (node rules, optional): the check can only report on a schema object holding
    one of these keys; the engine skips it on every other node (booleans and non-objects
    included) without calling it.
    ``prose``: the rule asks for prose that a compact view removes on purpose (it moves to
    the handbook); it does not run on compact views (see :func:`toolcat.lint.engine.lint`).
    ``pure`` (node rules): the hits depend only on the node's own content (its keys and
    values, in order), its dialect and role and the catalog's settings -- never on the tool,
    the node's path (its depth, whether it is the root) or state kept between calls -- and
    every hit is a plain ``Hit(message, n.ptr(...))`` at or below the node. The engine then
    checks equal nodes once per catalog and gives each the first one's hits (non-root
    nodes; see :func:`toolcat.lint.engine._walk`).
    """
    if severity not in SEVERITY_ORDER:
        raise ValueError(f"{code}: bad severity {severity!r}")
    if scope not in ("catalog", "tool", "node", "setup"):
        raise ValueError(f"{code}: bad scope {scope!r}")

    def deco(fn: Callable) -> Callable:
        if code in _RULES:
            raise ValueError(f"rule {code} registered twice")
        doc = " ".join((fn.__doc__ or summary).split())
        _RULES[code] = Rule(code=code, name=name, severity=severity, summary=summary, doc=doc,
                            scope=scope, check=fn, schemas=schemas, formats=formats,
                            after=after, keys=frozenset(keys) if keys is not None else None,
                            prose=prose, pure=pure)
        return fn

    return deco


def _load() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        import toolcat.lint.rules  # noqa: F401  (registers every rule)


def all_rules() -> list[Rule]:
    """Every rule, sorted by code."""
    _load()
    return [_RULES[c] for c in sorted(_RULES)]


def get(code: str) -> Rule | None:
    _load()
    return _RULES.get(code.upper())


def codes() -> list[str]:
    _load()
    return sorted(_RULES)


def selects_nothing(selector: str) -> bool:
    """True when ``selector`` (a code, a prefix or ``ALL``) matches no rule: a typo, which
    the CLI and the config reader both refuse instead of selecting nothing."""
    return selector != "ALL" and not any(c.startswith(selector) for c in codes())


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


def rule_text(r: Rule) -> str:
    """What ``toolcat rule CODE`` prints."""
    from toolcat.lint.profiles import PROFILES, severity_in

    lines = [f"{r.code} {r.name}", "",
             f"Default severity: {r.severity}", f"Category: {r.category}"]
    if r.formats:
        lines.append("Applies to: " + ", ".join(r.formats) + " catalogs")
    per = []
    for name in PROFILES:
        sev = severity_in(name, r)
        per.append(f"{name}: {sev or 'off'}")
    lines.append("Profiles: " + "; ".join(per))
    import textwrap

    lines += ["", textwrap.fill(r.doc, width=88), ""]
    return "\n".join(lines)
