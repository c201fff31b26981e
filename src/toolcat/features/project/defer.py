"""The deferral plan: which tools the model reads up front and which it loads on demand.

Providers let a request carry tools the model does not see until it searches for them
(Anthropic's tool search: ``"defer_loading": true`` and a tool search server tool; OpenAI's
Responses API: ``{"type": "tool_search"}``, deferred functions in namespaces). This module
decides, in one place, which tools are deferred; each target writes the decision in its own
shape (:meth:`toolcat.formats.targets.Target.deferred_array`).

* ``--defer none`` (default): nothing is deferred and the output is what it was without it.
* ``--defer all``: every tool but the eager ones (``--eager GLOB``, repeatable, shell-style
  patterns matched case-sensitively with :func:`fnmatch.fnmatchcase`; server tools are
  always eager).
* ``--defer auto``: as ``all`` when the eager compact catalog would pass
  ``--defer-threshold`` tokens (default :data:`DEFAULT_THRESHOLD`, Claude Code's rule: tool
  search turns on once MCP tools take 10% of the context window, 20,000 tokens of a
  200,000-token one), else as ``none``.

What a deferred tool keeps: it is found by a search over its name, description and parameter
names and descriptions, and its tokens are paid only when a search loads it (3-5 tools a
turn), so it keeps its full description and its schema's prose (the standard view's schema,
adapted to the provider exactly as the compact one is); eager tools, read on every request,
stay compact. Where the provider cannot take the standard schema as adapted (a strict
target), the deferred tool keeps the compact schema and its full description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from toolcat.errors import UsageError

DEFER_MODES = ("none", "all", "auto")
SEARCH_KINDS = ("bm25", "regex")
#: Claude Code's threshold: 10% of a 200,000-token context window
DEFAULT_THRESHOLD = 20_000


@dataclass(frozen=True)
class DeferOptions:
    mode: str = "none"                 # none | all | auto
    eager: tuple[str, ...] = ()        # shell-style patterns of tool names kept eager
    threshold: int = DEFAULT_THRESHOLD  # auto: defer past this many eager tokens
    search: str = "bm25"               # the search tool: bm25 | regex

    @property
    def active(self) -> bool:
        return self.mode != "none"

    def check(self) -> None:
        if self.mode not in DEFER_MODES:
            raise UsageError(f"--defer must be one of {', '.join(DEFER_MODES)} "
                             f"(got {self.mode!r})")
        if self.search not in SEARCH_KINDS:
            raise UsageError(f"--search must be one of {', '.join(SEARCH_KINDS)} "
                             f"(got {self.search!r})")
        if not isinstance(self.threshold, int) or self.threshold < 0:
            raise UsageError(f"--defer-threshold must be 0 or more tokens (got {self.threshold!r})")
        for p in self.eager:
            if not isinstance(p, str) or not p:
                raise UsageError("--eager needs a tool name or a shell-style pattern")
        if not self.active and (self.eager or self.search != "bm25"):
            what = "--eager" if self.eager else "--search"
            raise UsageError(f"{what} needs --defer all or --defer auto")


def is_eager(name: str, patterns: tuple[str, ...]) -> bool:
    """Does ``name`` match one of the ``--eager`` patterns?"""
    return any(fnmatchcase(name, p) for p in patterns)


@dataclass
class DeferPlan:
    """The decision for one projection: ``deferred[i]`` for its ``i``-th tool."""

    options: DeferOptions
    deferred: list[bool] = field(default_factory=list)
    #: ``auto``: the eager compact catalog's tokens, which the threshold was held against
    eager_tokens: int | None = None
    #: the catalog as it is without deferral (the compact view's tools array, canonical
    #: bytes): what measure puts beside the up-front figure
    eager_bytes: bytes = b""
    #: deferring at all: ``all``, or ``auto`` past the threshold (``deferred`` may still be
    #: all False: every tool eager)
    deferring: bool = False
    #: a target that loads deferred tools by group (:attr:`Target.namespace_max`): them
    groups: list[Group] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return any(self.deferred)

    def describe(self) -> str:
        n = sum(self.deferred)
        why = ""
        if self.options.mode == "auto":
            why = (f" (auto: the eager catalog is {self.eager_tokens:,} tokens, "
                   f"threshold {self.options.threshold:,})")
        return f"{n} of {len(self.deferred)} tools deferred{why}"


def decide(tools: list[Any], options: DeferOptions, eager_bytes: Any = None) -> DeferPlan:
    """The plan for ``tools`` (projected tools: ``.id``, ``.server_tool``, and optionally
    ``.aliases``: other names the ``--eager`` patterns match, such as an upstream's own name
    of a tool ``toolcat serve`` renames). The one rule of ``project``, ``measure`` and
    ``serve --defer``.

    ``eager_bytes``: for ``auto``, a function giving the eager (compact) catalog's bytes,
    whose tokens are held against the threshold."""
    plan = DeferPlan(options)
    if not options.active:
        plan.deferred = [False] * len(tools)
        return plan
    plan.eager_bytes = eager_bytes() if eager_bytes is not None else b"[]"
    if options.mode == "auto":
        from toolcat.tokens import count

        plan.eager_tokens = count(plan.eager_bytes)
        if plan.eager_tokens <= options.threshold:
            plan.deferred = [False] * len(tools)
            return plan
    plan.deferring = True
    plan.deferred = [not (t.server_tool or is_eager(t.id, options.eager)
                          or any(is_eager(a, options.eager) for a in getattr(t, "aliases", ())))
                     for t in tools]
    return plan


def deferred_schema(standard_schema: Any, dialect: str, target: Any) -> tuple[Any, list] | None:
    """A deferred tool's input schema: the standard view's (prose kept) adapted to the
    target's provider row, with the changes that made; None where the compact schema must
    stay (a strict target, or a schema the row cannot hold as written)."""
    if target.writes_strict or target.provider is None or standard_schema is None:
        return None
    from toolcat.features.project import providers as pv
    from toolcat.formats.providers import PROVIDERS

    res = pv.adapt(standard_schema, dialect, PROVIDERS[target.provider], "/inputSchema")
    if res.unexpressible is not None:
        return None
    return res.schema, res.changes


# ----------------------------------------------------------------------------- namespaces

@dataclass
class Group:
    """Deferred tools that load together (a Responses API ``namespace``)."""

    name: str
    description: str
    members: list[Any]                 # projected tools, in output order


_NAME_CUT = re.compile(r"[^A-Za-z0-9_-]+")
_PREFIX = re.compile(r"[A-Za-z0-9]+?(?=[_.\-/ ]|[a-z](?=[A-Z])|$)")


def name_prefix(tid: str) -> str:
    """A tool name's first word (``list_issues`` -> ``list``, ``getPet`` -> ``get``)."""
    m = _PREFIX.match(tid)
    if m is None:
        return tid[:1] or "tools"
    # the regex stops before the next word; a camel-case stop keeps its last lower letter
    end = m.end() + (1 if m.end() < len(tid) and tid[m.end()].islower() else 0)
    return tid[:end].lower()


def group_name(text: str) -> str:
    """``text`` as a namespace name (function-name characters, at most 48 of them)."""
    out = _NAME_CUT.sub("_", text).strip("_")[:48]
    return out or "tools"


def source_group(tool: Any, cat: Any) -> tuple[str, str | None]:
    """Where a tool belongs by what its catalog says: (group key, its description or None):
    the Responses API namespace it is in, an OpenAPI operation's first tag (the tag's description), an MCP server (the catalog),
    else the tool name's first word."""
    from toolcat.model import MCP, MCP_CAPTURE, OPENAPI3, SWAGGER2

    ns = tool.extra.get("namespace") if isinstance(tool.extra, dict) else None
    if isinstance(ns, str) and ns:      # a Responses API namespace the input already has
        for n in cat.meta.get("namespaces", ()):
            if n.get("name") == ns and isinstance(n.get("description"), str):
                return ns, " ".join(n["description"].split()) or None
        return ns, None
    if cat.format in (OPENAPI3, SWAGGER2):
        tags = tool.extra.get("tags") if isinstance(tool.extra, dict) else None
        if isinstance(tags, list) and tags and isinstance(tags[0], str):
            return tags[0], _tag_description(cat, tags[0])
    if cat.format in (MCP, MCP_CAPTURE):
        import os

        base = os.path.basename(cat.file.rstrip("/\\")) or "server"
        for ext in (".json", ".yaml", ".yml"):
            if base.endswith(ext):
                base = base[: -len(ext)]
        for ext in (".tools", ".mcp", ".capture"):
            if base.endswith(ext):
                base = base[: -len(ext)]
        return base, None
    return name_prefix(tool.id or ""), None


def _tag_description(cat: Any, tag: str) -> str | None:
    doc = cat.document
    tags = doc.get("tags") if isinstance(doc, dict) else None
    for t in tags if isinstance(tags, list) else ():
        if isinstance(t, dict) and t.get("name") == tag and isinstance(t.get("description"), str):
            d = " ".join(t["description"].split())
            return d or None
    return None


def groups(members: list[tuple[Any, str, str | None]], most: int) -> list[Group]:
    """Deferred tools ``(projected tool, group key, description)`` in namespaces of at most
    ``most``: a group over ``most`` is split (its tools ordered by their names' first word,
    in the order those first appear, into near-equal parts). A description is the group's
    own, else the names of its tools; a part of a split group adds its tools' names. Every
    tool is in exactly one group; names are unique."""
    by: dict[str, list] = {}
    desc: dict[str, str | None] = {}
    for pt, key, d in members:
        by.setdefault(key, []).append(pt)
        if desc.get(key) is None:
            desc[key] = d
    out: list[Group] = []
    taken: set[str] = set()
    for key, pts in by.items():
        parts = [pts]
        if len(pts) > most:
            first: dict[str, int] = {}
            for pt in pts:
                first.setdefault(name_prefix(pt.id), len(first))
            pts = sorted(pts, key=lambda pt: first[name_prefix(pt.id)])
            n = -(-len(pts) // most)
            size = -(-len(pts) // n)
            parts = [pts[i:i + size] for i in range(0, len(pts), size)]
        for k, part in enumerate(parts, 1):
            name = group_name(key) + (f"_{k}" if len(parts) > 1 else "")
            while name in taken:
                name += "_"
            taken.add(name)
            names = ", ".join(pt.id for pt in part)
            own = desc.get(key)
            if own and len(parts) == 1:
                text = own
            elif own:
                text = f"{own} ({names})"
            else:
                text = f"Tools: {names}"
            out.append(Group(name, text, part))
    return out
