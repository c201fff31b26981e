"""Run the registered rules over catalogs and turn their hits into located findings.

Per catalog: load problems (e.g. SC302 from the OpenAPI loader) become findings; then the
catalog rules; then, per tool, the tool rules and one walk over each of its schemas
(:func:`toolcat.schema.walker.subschemas`, so property names and data values are never taken for
keywords) that hands every schema node to the node rules.

OpenAPI tools share their bundled ``$defs`` objects: a shared definition is walked once per
catalog, and every finding is de-duplicated by (file, source pointer, code, message), so a
problem in a shared component is reported once, at its source.
"""

from __future__ import annotations

import gc
import os
from typing import Any, Iterable, Literal

from toolcat.config import MCP_VERSIONS, Config
from toolcat.document import pointer as jp
from toolcat.errors import InputError
from toolcat.features.lint.profiles import CLIENTS, PROFILES, PROVIDERS, Profile, Provider
from toolcat.features.lint.registry import (
    SEVERITY_ORDER,
    Hit,
    Rule,
    all_rules,
    matches,
    redirect_all,
)
from toolcat.formats import registry
from toolcat.model import COMPACT, Catalog, Finding, Tool
from toolcat.schema.keywords import APPLICATORS, DRAFT2020, SCHEMA_MAP
from toolcat.schema.walker import node_dialect, subschemas

_CS_COMPACT_ERRORS = ("CS201", "CS202", "CS203", "CS204")


class Node:
    """One schema node as node rules see it."""

    __slots__ = ("path", "node", "dialect", "role", "base")

    def __init__(self, path: tuple, node: Any, dialect: str, role: str, base: str) -> None:
        self.path = path          # tokens from the schema root
        self.node = node          # dict or bool
        self.dialect = dialect
        self.role = role          # "input" or "output"
        self.base = base          # "/inputSchema" or "/outputSchema"

    def ptr(self, *more: object) -> str:
        """Tool pointer of this node (plus ``more`` tokens)."""
        return self.base + jp.encode(self.path + more)

    @property
    def is_root(self) -> bool:
        return not self.path


class Context:
    """What the rules of one catalog run can see."""

    def __init__(self, catalog: Catalog, config: Config, profile: Profile,
                 severities: dict[str, str], provider: Provider | None = None,
                 view: str | None = None) -> None:
        self.catalog = catalog
        self.view = view or catalog.view   # the view the catalog is linted as
        self.config = config
        self.profile = profile
        self.severities = severities       # enabled rule code -> severity
        self.provider = provider
        self.client: Any = None            # an MCP client profile's CLIENTS row
        self.cache: dict = {}              # per-catalog scratch space for rules

    @property
    def is_compact(self) -> bool:
        return registry.get(self.catalog.format).compact_descriptors and self.view == COMPACT

    @property
    def mcp_version(self) -> str:
        return getattr(self.config, "mcp_version", None) or MCP_VERSIONS[-1]

    def enabled(self, code: str) -> bool:
        return code in self.severities


def enabled_rules(config: Config, profile: Profile) -> dict[str, tuple[Rule, str]]:
    """code -> (rule, severity) for the rules this run reports."""
    out: dict[str, tuple[Rule, str]] = {}
    for r in all_rules():
        if config.select is not None:
            on = matches(r.code, config.select)
        else:
            on = r.code[:2] in profile.categories
        if config.extend_select and matches(r.code, config.extend_select):
            on = True
        if config.ignore and matches(r.code, config.ignore):
            on = False
        sev = config.severity.get(r.code) or profile.severities.get(r.code, r.severity)
        if sev == "off":
            on = False
        if on:
            out[r.code] = (r, sev)
    return out


class LintResult:
    """The findings of one lint run (sorted by file and position), with what they came from:
    the number of files and tools linted, the profile(s), the sources (for positions and
    snippets) and ``fail_on`` (the configuration's, default ``error``). With several profiles
    each finding names the profiles that report it (``Finding.profiles``) and ``matrix`` is the
    tools x profiles compatibility matrix (:func:`compatibility_matrix`)."""

    def __init__(self, findings: list[Finding], files: int, tools: int,
                 profiles: list[str] | None = None, matrix: dict | None = None,
                 sources: dict[str, Any] | None = None, fail_on: str = "error") -> None:
        self.findings = findings
        self.files = files
        self.tools = tools
        self.profiles = profiles or ["mcp"]   # the profiles run
        self.matrix = matrix
        self.sources = sources or {}
        self.fail_on = fail_on

    @property
    def profile(self) -> str:
        """The profiles run, comma-separated (what the reports print)."""
        return ",".join(self.profiles)

    def counts(self) -> dict[str, int]:
        """``{"error": n, "warning": n, "info": n}``."""
        return counts_of(self.findings)

    def failed(self, fail_on: str | None = None) -> bool:
        """Whether a finding reaches ``fail_on`` (default: the run's): lint's exit code 1."""
        level = fail_on or self.fail_on
        return any(n and reaches(sev, level) for sev, n in self.counts().items())

    def json(self) -> dict:
        """What ``toolcat lint --format json`` prints, as data."""
        from toolcat.features.lint.render import Report
        from toolcat.features.lint.render.json import report_data

        return report_data(Report(findings=self.findings, files=self.files, tools=self.tools,
                                  profile=self.profile, sources=self.sources,
                                  profiles=self.profiles, matrix=self.matrix))


def profile_names(config: Config) -> list[str]:
    """The profiles a configuration runs (``profile = "a,b"`` or a list; default ``mcp``);
    a UsageError names an unknown one."""
    from toolcat.errors import UsageError
    from toolcat.features.lint.profiles import parse_profiles

    try:
        return parse_profiles(config.profile) or ["mcp"]
    except ValueError as e:
        raise UsageError(f"--profile: {e}") from None


def check_selection(config: Config) -> list[str]:
    """The profiles exist (returned), and every selector matches a rule (a selector that
    matches none is a typo: a UsageError naming it, not a silent no-op); provider rules
    (``PV``) are selected only with a provider profile."""
    from toolcat.errors import UsageError
    from toolcat.features.lint.profiles import PROVIDER_PROFILES
    from toolcat.features.lint.registry import codes, selects_nothing

    names = profile_names(config)
    known = codes()
    _redirect_config(config)
    for label, sels in (("select", config.select), ("extend-select", config.extend_select),
                        ("ignore", config.ignore)):
        for s in sels or []:
            if selects_nothing(s):
                raise UsageError(f"{label}: {s!r} matches no rule (see `toolcat rule --all`)",
                                 config.path)
    for code in config.severity:
        if code not in known:
            raise UsageError(f"severity: unknown rule {code!r}", config.path)
    if not any(PROFILES[n].provider or PROFILES[n].client for n in names):
        # `--select PV...` without a provider profile would report nothing: say which to pass
        for sels in (config.select, config.extend_select):
            for s in sels or []:
                hit = [c for c in known if c.startswith(s)] if s != "ALL" else []
                if hit and all(c.startswith("PV") for c in hit):
                    raise UsageError(f"select: {s!r} selects provider rules, which need a "
                                     f"provider profile: pass --profile with one of "
                                     f"{', '.join(PROVIDER_PROFILES)} (several: comma-separated)")
    return names


def _redirect_config(config: Config) -> None:
    """Old codes of renamed rules (:data:`~toolcat.features.lint.registry.REDIRECTS`) in the settings
    become the new ones, each with a warning (see :func:`~toolcat.features.lint.registry.redirect`)."""
    from toolcat.features.lint.registry import REDIRECTS, redirect

    if not REDIRECTS:
        return
    where = ""       # the command line's and the file's codes are merged by now
    for attr in ("select", "extend_select", "ignore"):
        sels = getattr(config, attr)
        if sels:
            setattr(config, attr, redirect_all(sels, where))
    config.severity = {redirect(c, where): v for c, v in config.severity.items()}
    config.per_file_ignores = {p: redirect_all(c, where)
                               for p, c in config.per_file_ignores.items()}


def lint_with(catalogs: list[Catalog], config: Config, view: str | None = None,
              setup: Catalog | None = None, errors: list | None = None,
              spill: bool = False) -> LintResult:
    """:func:`lint` after :func:`check_selection` (the API and the CLI call this).
    ``errors``, ``spill``: see :func:`lint`."""
    if view is not None and view not in (COMPACT, "standard"):
        from toolcat.errors import UsageError

        raise UsageError(f"--view must be compact or standard (got {view!r})")
    names = check_selection(config)
    return lint(catalogs, config, names if len(names) > 1 else names[0], view=view, setup=setup,
                errors=errors, spill=spill)


def lint(catalogs: list[Catalog], config: Config,
         profile_name: str | list[str] | None = None, view: str | None = None,
         setup: Catalog | None = None, errors: list | None = None,
         spill: bool = False) -> LintResult:
    """Lint ``catalogs`` with one profile, or with several (a list): then each finding lists
    the profiles that report it (``Finding.profiles``) and the result has the matrix.
    ``view``: lint each catalog as that view. With ``setup`` (the union of a run's live
    servers, see :func:`toolcat.formats.live.capture.setup_catalog`) also run the setup rules
    on it. ``errors``: a list for the input errors of streamed catalogs (a large file found
    broken while its tools are read): such a catalog is then left out, as a file that cannot
    be read is by the loader, instead of the error ending the run; it is removed from
    ``catalogs``. ``spill`` (the CLI, one profile, a streamed catalog among ``catalogs``): the
    result's findings are a :class:`~toolcat.features.lint.spill.SpilledFindings` (in the
    same order, kept in a temporary file a batch of tools at a time), not a list."""
    names = profile_name if isinstance(profile_name, list) else \
        [profile_name or (config.profile if isinstance(config.profile, str) else None) or "mcp"]
    if len(names) > 1:
        return _lint_many(catalogs, config, names, view, setup, errors)
    pname = names[0]
    profile = PROFILES[pname]
    rules = enabled_rules(config, profile)
    store: Any = None
    if spill and any(c.meta.get("streamed") for c in catalogs):
        from toolcat.features.lint.spill import SpilledFindings

        store = SpilledFindings()
    findings: list[Finding] = []
    files: set[str] = set()
    sources: dict[str, Any] = {}
    tools = 0
    for cat in list(catalogs):
        mark = store.mark() if store is not None else None
        try:
            got = lint_catalog(cat, config, profile, rules, view, store)
            if store is not None:
                store.add(got)
            else:
                findings.extend(got)
        except InputError as e:
            if errors is None or not cat.meta.get("streamed"):
                raise
            if store is not None:
                store.truncate(mark)
            errors.append(e)
            catalogs.remove(cat)
            continue
        if "live" not in cat.meta:         # a server is no file
            files.update(cat.sources or [cat.file])
        sources.update(cat.sources)
        tools += len(cat.tools)
    if setup is not None:
        got = lint_catalog(setup, config, profile, rules)
        if store is not None:
            store.add(got)
        else:
            findings.extend(got)
    if store is None:
        findings.sort(key=Finding.sort_key)
    return LintResult(store if store is not None else findings, len(files), tools, [pname],
                      None, sources, config.fail_on or "error")


def _lint_many(catalogs: list[Catalog], config: Config, names: list[str],
               view: str | None = None, setup: Catalog | None = None,
               errors: list | None = None) -> LintResult:
    merged: dict[tuple, Finding] = {}
    files = tools = 0
    sources: dict[str, Any] = {}
    for name in names:
        res = lint(catalogs, config, name, view, setup, errors)
        files, tools, sources = res.files, res.tools, res.sources
        for f in res.findings:
            key = (f.file, f.source_pointer, f.tool, f.code, f.severity, f.message)
            got = merged.get(key)
            if got is None:
                f.profiles = (name,)
                merged[key] = f
            else:
                got.profiles = got.profiles + (name,)
    findings = sorted(merged.values(), key=Finding.sort_key)
    return LintResult(findings, files, tools, list(names),
                      compatibility_matrix(catalogs, findings, names), sources,
                      config.fail_on or "error")


#: a matrix cell: the worst severity a tool has in a profile (infos count as ok)
MATRIX_CELLS = ("ok", "warnings", "errors")


def compatibility_matrix(catalogs: list[Catalog], findings: list[Finding],
                         names: list[str]) -> dict:
    """Tools x profiles: ``{"profiles": [...], "rows": [{"file", "tool", "cells": {profile:
    "ok" | "warnings" | "errors"}}], "totals": {profile: {cell: count}}}``. A finding that
    names no tool (a catalog-wide limit such as the tool count) marks every tool of its
    file."""
    rank = {"ok": 0, "warnings": 1, "errors": 2}
    cell_of = {"error": "errors", "warning": "warnings", "info": "ok"}
    rows: list[dict] = []
    index: dict[tuple, dict] = {}
    by_file: dict[str, list[dict]] = {}
    for cat in catalogs:
        for t in cat.tools:
            key = (t.file or cat.file, t.id)
            if key in index:
                continue
            row: dict[str, Any] = {"file": key[0], "tool": t.id, "cells": {n: "ok" for n in names}}
            index[key] = row
            rows.append(row)
            by_file.setdefault(key[0], []).append(row)
            if cat.file != key[0]:
                by_file.setdefault(cat.file, []).append(row)
    for f in findings:
        cell = cell_of[f.severity]
        targets = [index[(f.file, f.tool)]] if (f.file, f.tool) in index and f.tool else \
            by_file.get(f.file, [])
        for row in targets:
            for n in f.profiles:
                if rank[cell] > rank[row["cells"][n]]:
                    row["cells"][n] = cell
    totals = {n: {c: sum(1 for r in rows if r["cells"][n] == c) for c in MATRIX_CELLS}
              for n in names}
    return {"profiles": list(names), "rows": rows, "totals": totals}


def _id_pointer(cat: Catalog) -> str:
    return registry.get(cat.format).id_pointer


def lint_catalog(cat: Catalog, config: Config, profile: Profile,
                 rules: dict[str, tuple[Rule, str]], view: str | None = None,
                 store: Any = None) -> list[Finding]:
    """The findings of one catalog (its streamed batches' findings first). With ``store`` (a
    :class:`~toolcat.features.lint.spill.SpilledFindings`) each batch's findings of a streamed
    catalog go there as a run as soon as they are located, and only the others are
    returned."""
    severities = {code: sev for code, (_r, sev) in rules.items()}
    asked = view                 # the view the caller asked for (None: the catalog's own)
    view = profile.view or view or cat.view
    if registry.get(cat.format).compact_descriptors and view == COMPACT:
        # an OpenWOP compact view must be one, whatever the profile
        for code in _CS_COMPACT_ERRORS:
            if code in config.severity or (config.ignore and matches(code, config.ignore)):
                continue
            if config.select is not None and not matches(code, config.select):
                continue
            r = _rule(code)
            rules = {**rules, code: (r, "error")}
            severities[code] = "error"
    ctx = Context(cat, config, profile, severities,
                  PROVIDERS.get(profile.provider) if profile.provider else None, view)
    ctx.client = CLIENTS.get(profile.client) if profile.client else None
    ctx.cache["id_pointer"] = _id_pointer(cat)
    compact = ctx.view == COMPACT      # a compact view drops schema prose on purpose
    # a setup catalog (every server's tools, already linted one server at a time) gets the
    # setup rules only; every other catalog gets all but them
    is_setup = "setup" in cat.meta
    active = [r for r, _s in rules.values()
              if (r.formats is None or cat.format in r.formats) and not (compact and r.prose)
              and (r.scope == "setup") == is_setup]
    cat_rules = [r for r in active if r.scope in ("catalog", "setup")]
    tool_rules = [r for r in active if r.scope == "tool"]
    node_rules = [r for r in active if r.scope == "node"]
    in_rules = [r for r in node_rules if "input" in r.schemas]
    out_rules = [r for r in node_rules if "output" in r.schemas]

    out: dict[tuple, Finding] = {}
    add = _adder(out, severities, cat.file)

    # load problems (unresolved $refs from the OpenAPI loader, ...)
    for p in cat.problems:
        code = p.code
        if code in rules or code not in _known_codes():
            sev = severities.get(code, "error")
            key = (p.file, p.pointer, code, p.message)
            if key not in out and not (config.ignore and matches(code, config.ignore)):
                out[key] = Finding(code=code, severity=sev, message=p.message, file=p.file,
                                   tool=p.tool, pointer=p.pointer, source_pointer=p.pointer)

    streamed: list[Finding] = []
    stream = cat.stream
    mark = store.mark() if store is not None else None
    if stream is not None and not is_setup:
        # a streamed catalog (formats.mcp.StreamedTools): the tool rules see one batch of
        # tools at a time, as a catalog of its own whose source holds just their texts, and
        # their findings are located before the batch is dropped; the catalog rules then
        # read the tools again from the file
        from toolcat.formats.mcp import GC_TOOLS

        uncollected = 0
        for tools, source in stream.batches():
            part = Catalog(file=cat.file, format=cat.format, tools=tools, view=cat.view,
                           version=cat.version, meta=cat.meta, sources={cat.file: source})
            pctx = Context(part, config, profile, severities, ctx.provider, ctx.view)
            pctx.client = ctx.client
            pctx.cache["id_pointer"] = ctx.cache["id_pointer"]
            found: dict[tuple, Finding] = {}
            _lint_tools(pctx, tools, rules, tool_rules, in_rules, out_rules,
                        _adder(found, severities, cat.file))
            fs = list(found.values())
            if fs:
                _locate(part, fs)
                if store is not None:
                    store.add(_suppress(part, config, fs))
                else:
                    streamed.extend(_suppress(part, config, fs))
            # a batch leaves reference cycles (its tools, sources and caches) that the
            # collector's thresholds let pile up over the batches (19 MB a batch of 2,000
            # generated tools): collected now, memory stays that of one batch
            uncollected += len(tools)
            del part, pctx, found, fs
            if uncollected >= GC_TOOLS:      # (formats.mcp.GC_TOOLS: why, and why not
                gc.collect()                 # after every small batch)
                uncollected = 0
        if profile.view is None and asked is None and stream.view() != cat.view:
            # the envelope's `_meta`, after the tools (beyond the first elements read when
            # the file was opened), declares another view: lint as that
            cat.view = stream.view()
            if store is not None:
                store.truncate(mark)
            return lint_catalog(cat, config, profile, rules, asked, store)
    elif not is_setup:
        _lint_tools(ctx, cat.tools, rules, tool_rules, in_rules, out_rules, add)

    # catalog rules and after-hooks run last: a tool-attributed finding wins the de-duplication
    for r in cat_rules:
        for hit in r.check(ctx):
            add(r.code, hit, hit.tool)
    for r in tool_rules:
        if r.after is not None:
            for hit in r.after(ctx):
                add(r.code, hit, hit.tool)

    findings = list(out.values())
    if findings:
        _locate(cat, findings)
        findings = _suppress(cat, config, findings)
    return streamed + findings if streamed else findings


def _adder(out: dict[tuple, Finding], severities: dict[str, str], file: str) -> Any:
    """``add(code, hit, tool)``: a rule's hit as a finding in ``out``, keyed by (file, source
    pointer, code, message): the first of equal findings is kept."""

    def add(code: str, hit: Hit, tool: Tool | None) -> None:
        sev = hit.severity or severities[code]
        if hit.file is not None:       # a pointer into hit.file (not a tool pointer)
            f, src = hit.file, hit.pointer
            tid = tool.id if tool is not None else None
        elif tool is not None:
            f, src = tool.source_pointer(hit.pointer)
            tid = tool.id
        else:
            f, src, tid = file, hit.pointer, None
        key = (f, src, code, hit.message)
        if key in out:
            return
        out[key] = Finding(code=code, severity=sev, message=hit.message, file=f, tool=tid,
                           pointer=hit.pointer, source_pointer=src)

    return add


def _lint_tools(ctx: Context, tools: Iterable[Tool], rules: dict, tool_rules: list[Rule],
                in_rules: list[Rule], out_rules: list[Rule], add: Any) -> None:
    """The tool rules on each tool and the node rules on each node of its schemas."""
    seen_defs: set[tuple[str, int]] = set()
    for tool in tools:
        if tool.invalid is not None:
            if "TC110" in rules:
                add("TC110", Hit(f"tool entry is not a tool descriptor: {tool.invalid}", ""),
                    tool)
            continue
        if tool.server_tool:     # the provider's own tool: no client tool to check
            continue
        for r in tool_rules:
            for hit in r.check(ctx, tool):
                add(r.code, hit, hit.tool or tool)
        if in_rules and tool.input_schema is not None:
            _walk(ctx, tool, tool.input_schema, "input", "/inputSchema", in_rules, add, seen_defs)
        if out_rules and tool.output_schema is not None:
            _walk(ctx, tool, tool.output_schema, "output", "/outputSchema", out_rules, add,
                  seen_defs)


_KNOWN: set[str] | None = None


def _rule(code: str) -> Rule:
    for r in all_rules():
        if r.code == code:
            return r
    raise KeyError(code)


def _known_codes() -> set[str]:
    global _KNOWN
    if _KNOWN is None:
        _KNOWN = {r.code for r in all_rules()}
    return _KNOWN


def _walk(ctx: Context, tool: Tool, schema: Any, role: str, base: str, rules: list[Rule],
          add: Any, seen_defs: set) -> None:
    if not isinstance(schema, (dict, bool)):
        # not a schema at all: only rules that look at the root deal with it
        n = Node((), schema, tool.dialect or DRAFT2020, role, base)
        for r in rules:
            for hit in r.check(ctx, tool, n):
                add(r.code, hit, tool)
        return
    # A rule with trigger keys only runs on objects holding one of them; which rules run
    # depends only on the object's keys, so it is worked out once per key set (schema
    # objects of a catalog use a few hundred key sets at most).
    always = [r for r in rules if r.keys is None]
    by_keys = ctx.cache.setdefault(("rules-by-keys", role), {})
    # The hits of the rules that look at a node's own content only (Rule.pure), by content:
    # OpenAPI tools share parameter and component schemas, and leaf schemas repeat
    # ({"type": "string", "maxLength": 5000}); a node equal to one checked before gets that
    # node's hits at its own pointer instead of the checks run again.
    memo = ctx.cache.setdefault(("node-hits", role, tuple(r.code for r in rules)), {})
    stack: list[tuple[tuple, Any, str]] = [((), schema, tool.dialect or DRAFT2020)]
    pop, push = stack.pop, stack.append
    while stack:
        path, node, d = pop()
        if not isinstance(node, dict):
            n = Node(path, node, d, role, base)
            for r in always:
                for hit in r.check(ctx, tool, n):
                    add(r.code, hit, tool)
            continue
        if "$schema" in node:
            d = node_dialect(node, d)
        n = Node(path, node, d, role, base)
        sig = tuple(node)
        run = by_keys.get(sig)
        if run is None:
            on = [r for r in rules if r.keys is None or not r.keys.isdisjoint(node)]
            run = (on, [r for r in on if r.pure], [r for r in on if not r.pure])
            if len(by_keys) < 10_000:
                by_keys[sig] = run
        on, pure, impure = run
        if pure and path:
            key = _content_key(node, d)
            got = memo.get(key)
            if got is None:
                got = _pure_hits(ctx, tool, n, pure, add)
                if len(memo) < 100_000:
                    memo[key] = got
                on = impure
            elif got is not False:
                if got:
                    at = n.ptr()
                    for code, msg, rel in got:
                        add(code, Hit(msg, at + rel), tool)
                on = impure
        for r in on:
            for hit in r.check(ctx, tool, n):
                add(r.code, hit, tool)
        if node:
            kids_of = node
            defs = node.get("$defs")
            unseen = None
            if defs.__class__ is dict and len(defs) > 1:
                # a $defs object shared with a tool walked before (the OpenAPI loader gives
                # tools that bundle the same definitions the same one): every object in it is
                # in seen_defs, so it is left out instead of read entry by entry again
                mark = (role, "$defs", id(defs))
                if mark in seen_defs:
                    kids_of = {k: v for k, v in node.items() if k != "$defs"}
                else:
                    if all(c.__class__ is dict for c in defs.values()):
                        seen_defs.add(mark)   # each of them is in seen_defs after this loop
                    if APPLICATORS[d].get("$defs") == SCHEMA_MAP:
                        # another tool's bundle (Stripe's hold ~240 definitions, most of
                        # them walked with an earlier tool): only the definitions not in
                        # seen_defs are made children, as the loop below would keep them
                        unseen = [(("$defs", k), c) for k, c in defs.items()
                                  if isinstance(c, bool) or isinstance(c, dict)
                                  and (role, id(c)) not in seen_defs]
            children = list(subschemas(kids_of, d)) if unseen is None else \
                _around_defs(node, d, unseen)
            for suffix, child in reversed(children):
                if len(suffix) == 2 and suffix[0] in ("$defs", "definitions") \
                        and isinstance(child, dict):
                    key = (role, id(child))
                    if key in seen_defs:
                        continue  # a bundled definition shared with a tool walked before
                    seen_defs.add(key)
                push((path + suffix, child, d))


def _around_defs(node: dict, d: str, defs_children: list) -> list:
    """:func:`subschemas` of ``node`` with ``defs_children`` standing for its ``$defs``
    entries, in key order."""
    before: dict = {}
    after: dict = {}
    part = before
    for k, v in node.items():
        if k == "$defs":
            part = after
        else:
            part[k] = v
    return [*subschemas(before, d), *defs_children, *subschemas(after, d)]


def _content_key(node: dict, dialect: str) -> tuple:
    """Equal for two schema objects that the pure node rules cannot tell apart: the same keys
    in the same order with values of the same class and value (a float by its repr: -0.0 and
    0.0 print differently), containers by identity (the same object)."""
    parts: list = [dialect]
    for k, v in node.items():
        c = v.__class__
        if c is str or c is int or c is bool or v is None:
            parts.append((k, c, v))
        elif c is float:
            parts.append((k, c, repr(v)))
        else:
            parts.append((k, c, id(v)))
    return tuple(parts)


def _pure_hits(ctx: Context, tool: Tool, n: Node, rules: list[Rule], add: Any) -> list | bool:
    """Run the pure rules on ``n`` (each hit added); return their hits as (code, message,
    pointer below the node) in the order they came, or False when one does not fit that form
    (the node's content is then checked every time it is met)."""
    at = None
    out: list | Literal[False] = []
    for r in rules:
        for hit in r.check(ctx, tool, n):
            add(r.code, hit, tool)
            if out is not False:
                if at is None:
                    at = n.ptr()
                p = hit.pointer
                if hit.tool is not None or hit.file is not None or hit.severity is not None \
                        or not p.startswith(at) or (len(p) > len(at) and p[len(at)] != "/"):
                    out = False
                else:
                    out.append((r.code, hit.message, p[len(at):]))
    return out


def _locate(cat: Catalog, findings: list[Finding]) -> None:
    debug = bool(os.environ.get("TOOLCAT_DEBUG"))
    broken: set[str] = set()
    for f in findings:
        if f.file in broken:
            continue
        try:
            f.line, f.column = cat.locate(f.file, f.source_pointer or "")
        except MemoryError:   # never a best effort: one line, exit 2 (cli)
            raise
        except Exception:  # positions are a nicety; never lose findings for them
            if debug:
                raise
            broken.add(f.file)


def _suppress(cat: Catalog, config: Config, findings: list[Finding]) -> list[Finding]:
    out = []
    ignores: dict[str, list[str]] = {}
    comments: dict[str, dict[int, list[str] | None] | None] = {}
    for f in findings:
        if f.file not in ignores:
            ignores[f.file] = config.ignored_for(f.file)
            comments[f.file] = _ignore_comments(cat.sources.get(f.file))
        if ignores[f.file] and matches(f.code, ignores[f.file]):
            continue
        marks = comments[f.file]
        if marks and f.line is not None and _comment_ignores(cat, f, marks):
            continue
        out.append(f)
    return out


def _ignore_comments(src: Any) -> dict[int, list[str] | None] | None:
    """The suppression comments of a source (None: it has none; see
    :meth:`toolcat.document.source.SourceText.suppressions`)."""
    return src.suppressions() if src is not None else None


def _comment_ignores(cat: Catalog, f: Finding, marks: dict[int, list[str] | None]) -> bool:
    """Does a suppression comment on the finding's line (or, for a block value that starts
    on the line after its key, on the key's line) cover the finding's code?"""
    for ln in cat.sources[f.file].comment_lines(f.line or 0, f.column):
        if ln in marks:
            codes = marks[ln]
            if codes is None or matches(f.code, redirect_all(codes, f.file)):
                return True
    return False


def counts_of(findings: Any) -> dict[str, int]:
    """:func:`count_by_severity`, or the counts a spilled collection keeps (no reading)."""
    if hasattr(findings, "counts"):
        return findings.counts()
    return count_by_severity(findings)


def count_by_severity(findings: Iterable[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out


def reaches(severity: str, fail_on: str) -> bool:
    if fail_on == "never":
        return False
    return SEVERITY_ORDER[severity] >= SEVERITY_ORDER[fail_on]
