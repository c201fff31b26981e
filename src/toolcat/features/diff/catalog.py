"""What changed between two versions of a catalog, and whether it breaks the callers.

:func:`diff_catalogs` pairs the tools of OLD and NEW by id (likely renames from
:mod:`toolcat.features.diff.toolids`), skips every pair whose definitions are equal as written, and for
the others compares each field:

* ``inputSchema`` and ``outputSchema`` by what they accept (:mod:`toolcat.schema.inclusion`
  on both sides normalized with the projection's exact rewrites, :func:`lower_schema`);
  a *breaking* finding carries a witness that ``jsonschema`` confirmed against the schemas
  as written (an input OLD accepts and NEW rejects; for outputs, a result NEW may return that
  OLD's schema rejects); where no witness holds, the finding is *unknown*;
* name, title, description, annotations, OpenWOP ``source``/``safetyTier`` (and the safety
  tier the annotations or the HTTP method imply), the prose and defaults inside the schemas,
  the other descriptor fields: *behavioural*. A tool that becomes destructive, or ``exec``,
  has ``priority`` (reports show it first). A description change that adds what a
  poisoned-tool rule reports (lint TP101-TP104: hidden text, instructions to the model,
  secrets or exfiltration, shadowing; a rug pull) is *breaking* for security, with
  ``priority`` and the tag ``poisoned`` (its witness is the rule's message).

Every finding has a *canonical pointer* (``/inputSchema/properties/q/minLength``, the place
in a schema with every ``$ref`` inlined: what ``--ignore`` matches) and, where it can be
found, the place in each version as written (tool pointer, file, line, column).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcat.document.canonical import dumps
from toolcat.document.pointer import encode
from toolcat.features.diff.toolids import likely_renames
from toolcat.model import OPENWOP, SAFETY_TIERS, Catalog, Tool

BREAKING = "breaking"
UNKNOWN = "unknown"
BEHAVIOURAL = "behavioural"
NON_BREAKING = "non-breaking"
KINDS = (BREAKING, UNKNOWN, BEHAVIOURAL, NON_BREAKING)
#: --fail-on levels: the kinds each one fails on
FAIL_ON = {
    "breaking": (BREAKING,),
    "unknown": (BREAKING, UNKNOWN),
    "behavioural": (BREAKING, UNKNOWN, BEHAVIOURAL),
    "any": KINDS,
}
_MISSING: Any = object()
_ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_PROSE_PLACES = ("description", "title", "default", "deprecated", "readOnly", "writeOnly")


@dataclass
class Place:
    """Where a finding sits in one version: a tool pointer, and the file/line/column of it."""

    pointer: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    exact: bool = True     # False: the nearest written node (the change is deeper)

    def to_json(self) -> dict:
        out: dict = {"pointer": self.pointer}
        if self.file:
            out["file"] = self.file
        if self.line is not None:
            out["line"] = self.line
            out["column"] = self.column
        if not self.exact:
            out["nearest"] = True
        return out

    def where(self) -> str:
        if not self.file:
            return ""
        return self.file + (f":{self.line}" if self.line is not None else "")


@dataclass
class Finding:
    tool: str
    kind: str
    what: str
    pointer: str = ""           # canonical tool pointer ("" for the tool as a whole)
    area: str = "tool"          # tool | input | output | description | annotations | field
    data: tuple = ()            # instance place (input/output findings)
    old: Place | None = None
    new: Place | None = None
    witness: Any = _MISSING
    witness_of: str = ""        # "input" | "output"
    rejected: str | None = None  # how the rejecting side's jsonschema refuses the witness
    reason: str | None = None   # unknown: why it could not be decided
    priority: bool = False
    tag: str = ""
    details: list | None = None  # a folded finding: the changes it stands for

    @property
    def has_witness(self) -> bool:
        return self.witness is not _MISSING

    @property
    def ignore_key(self) -> str:
        return f"{self.tool}:{self.pointer}" if self.pointer else self.tool

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "what": self.what, "area": self.area,
                     "pointer": self.pointer}
        if self.area in ("input", "output"):
            out["instance"] = encode(self.data)
        if self.priority:
            out["priority"] = True
        if self.old is not None:
            out["old"] = self.old.to_json()
        if self.new is not None:
            out["new"] = self.new.to_json()
        if self.has_witness:
            out["witness"] = self.witness
            out["witness_of"] = self.witness_of
            if self.rejected:
                out["rejected"] = self.rejected
        if self.reason:
            out["reason"] = self.reason
        if self.tag:
            out["tag"] = self.tag
        if self.details:
            out["details"] = self.details
        out["ignore"] = self.ignore_key
        return out


@dataclass
class ToolDiff:
    old_id: str | None
    new_id: str | None
    status: str                 # changed | removed | added | renamed
    findings: list[Finding] = field(default_factory=list)
    why: str | None = None      # renamed: why the ids look like one tool
    identical: bool = False     # renamed: the definitions (but the name) are identical

    @property
    def tool(self) -> str:
        if self.status == "renamed":
            return f"{self.old_id} -> {self.new_id}"
        return self.old_id or self.new_id or ""

    def worst(self) -> int:
        return min((KINDS.index(f.kind) for f in self.findings), default=len(KINDS))

    def sort_key(self) -> tuple:
        return (self.worst(), not any(f.priority for f in self.findings), self.tool)


@dataclass
class Side:
    label: str
    tools: dict[str, tuple[Tool, Catalog]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    missing_ids: int = 0


@dataclass
class Report:
    old: Side
    new: Side
    tools: list[ToolDiff] = field(default_factory=list)
    ignored: int = 0
    unchanged: int = 0
    checks: int = 0             # jsonschema steps spent (see toolcat.schema.validate.Budget)
    checks_peak: int = 0        # the most of them one tool pair spent

    def findings(self) -> list[Finding]:
        return [f for t in self.tools for f in t.findings]

    def counts(self) -> dict[str, int]:
        c = {k: 0 for k in KINDS}
        for f in self.findings():
            c[f.kind] += 1
        return c

    def exit_code(self, fail_on: str = "breaking") -> int:
        kinds = FAIL_ON[_fail_on(fail_on)]
        return 1 if any(f.kind in kinds for f in self.findings()) else 0

    def failed(self, fail_on: str = "breaking") -> bool:
        """A finding of the ``fail_on`` kinds is there (``toolcat diff`` exits 1)."""
        return self.exit_code(fail_on) == 1

    def json(self, fail_on: str = "breaking") -> dict:
        """What ``toolcat diff --format json`` prints, as data."""
        from toolcat.features.diff.render import report_json

        return report_json(self, _fail_on(fail_on))

    def render(self, fmt: str = "text", fail_on: str = "breaking") -> str:
        """The report as ``toolcat diff --format FMT`` prints it (text, json, markdown,
        github)."""
        from toolcat.errors import UsageError
        from toolcat.features.diff.render import FORMATS, render

        if fmt not in FORMATS:
            raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
        return render(self, fmt, _fail_on(fail_on))


def _fail_on(fail_on: str) -> str:
    if fail_on not in FAIL_ON:
        from toolcat.errors import UsageError

        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    return fail_on




DiffReport = Report   # the name :mod:`toolcat` gives it


# ----------------------------------------------------------------------------- sides

def side_of(cats: list[Catalog], label: str) -> Side:
    side = Side(label)
    for c in cats:
        for t in c.tools:
            if not isinstance(t.id, str) or t.invalid:
                side.missing_ids += 1
                continue
            if t.id in side.tools:
                if t.id not in side.duplicates:
                    side.duplicates.append(t.id)
                continue
            side.tools[t.id] = (t, c)
            side.order.append(t.id)
    return side


def _definition_fields(t: Tool) -> list:
    return [t.title, t.description, t.input_schema, t.output_schema, t.annotations,
            t.source, t.safety_tier, t.extra, t.http_method, t.http_path, t.dialect]


def _definition(t: Tool) -> bytes:
    """A tool's definition as written, without its name (equal bytes: nothing to compare)."""
    return dumps(_definition_fields(t))


def same_definition(ta: Tool, tb: Tool) -> bool:
    """``ta`` and ``tb`` are defined alike as written (but for the name): Python's ``==``
    (in C), then the texts with sorted keys (``true`` and ``1``, ``1`` and ``1.0`` differ
    there: such tools are compared, and found the same)."""
    from toolcat.schema.inclusion import Digests

    a, b = _definition_fields(ta), _definition_fields(tb)
    try:
        if a != b:
            return False
    except RecursionError:
        return False
    xa, xb = Digests.text(a), Digests.text(b)
    if xa is None or xb is None:      # integers beyond 64 bits: the canonical text
        return dumps(a) == dumps(b)
    return xa == xb


# ----------------------------------------------------------------------------- the diff

@dataclass
class Options:
    interface: bool = True       # see toolcat.schema.inclusion (undeclared names)
    ignore: list[str] = field(default_factory=list)   # TOOL[:POINTER] entries
    normalize: bool = False      # always compare normalized schemas (tests: both paths)
    #: jsonschema steps (validations, references followed) per tool pair and per run; past
    #: them the undecided changes are unknown (see toolcat.schema.validate.Budget)
    max_checks: int | None = None
    max_checks_total: int | None = None


class Run:
    """What the comparisons of one diff share: the options, content digests, and each
    side's lowering cache (OpenAPI tools of one spec share their definitions)."""

    def __init__(self, opts: Options | None = None) -> None:
        from toolcat.features.diff import MAX_CHECKS, MAX_CHECKS_TOTAL
        from toolcat.schema.inclusion import Digests
        from toolcat.schema.lower import LowerCache
        from toolcat.schema.validate import Budget

        self.opts = opts or Options()
        self.digests = Digests()
        self.budget = Budget(self.opts.max_checks or MAX_CHECKS,
                             self.opts.max_checks_total or MAX_CHECKS_TOTAL)
        self.old_cache = LowerCache()
        self.new_cache = LowerCache()


def diff_catalogs(old_cats: list[Catalog], new_cats: list[Catalog], old_label: str,
                  new_label: str, opts: Options | None = None) -> Report:
    opts = opts or Options()
    run = Run(opts)
    a, b = side_of(old_cats, old_label), side_of(new_cats, new_label)
    rep = Report(a, b)
    only_a = [i for i in a.order if i not in b.tools]
    only_b = [i for i in b.order if i not in a.tools]
    renames = likely_renames(sorted(only_a), sorted(only_b))
    # one rename per id: the first pairing (likely_renames may pair an id twice)
    paired_a: dict[str, Any] = {}
    paired_b: set[str] = set()
    for r in renames:
        if r.a not in paired_a and r.b not in paired_b:
            paired_a[r.a] = r
            paired_b.add(r.b)
    # a removed and an added tool with one and the same (non-trivial) definition, then with
    # one and the same schemas (declaring a parameter at least)
    for by in ("definition", "schema"):
        for r in identical_renames([i for i in only_a if i not in paired_a],
                                   [i for i in only_b if i not in paired_b], a, b, by):
            paired_a[r.a] = r
            paired_b.add(r.b)
    for tid in a.order:
        if tid in b.tools:
            ta, ca = a.tools[tid]
            tb, cb = b.tools[tid]
            if same_definition(ta, tb):
                rep.unchanged += 1
                continue
            td = ToolDiff(tid, tid, "changed")
            td.findings = compare_tools(ta, ca, tb, cb, tid, run)
            if td.findings:
                rep.tools.append(td)
            else:
                rep.unchanged += 1
        elif tid in paired_a:
            r = paired_a[tid]
            ta, ca = a.tools[tid]
            tb, cb = b.tools[r.b]
            td = ToolDiff(tid, r.b, "renamed", why=r.why)
            td.identical = same_definition(ta, tb)
            name = td.tool
            sub = [] if td.identical else compare_tools(ta, ca, tb, cb, name, run)
            same_schema = not any(f.area in ("input", "output") for f in sub)
            if r.why == "identical definition":
                what = f"likely renamed to {r.b!r} (the same definition under a new name)"
            elif r.why == "identical schema":
                what = f"likely renamed to {r.b!r} (the same schemas under a new name)"
            else:
                what = (f"likely renamed to {r.b!r} ({r.why}); "
                        + ("definition identical" if td.identical else
                           "schemas identical" if same_schema else "schemas differ too"))
            what += f": calls to {tid!r} fail"
            td.findings = [Finding(name, BREAKING, what, "", "tool", old=_tool_place(ta, ca),
                                   new=_tool_place(tb, cb), tag="renamed")] + sub
            rep.tools.append(td)
        else:
            ta, ca = a.tools[tid]
            td = ToolDiff(tid, None, "removed")
            td.findings = [Finding(tid, BREAKING, "tool removed: calls to it fail", "", "tool",
                                   old=_tool_place(ta, ca), tag="removed")]
            rep.tools.append(td)
    for tid in b.order:
        if tid in a.tools or tid in paired_b:
            continue
        tb, cb = b.tools[tid]
        td = ToolDiff(None, tid, "added")
        f = Finding(tid, NON_BREAKING, "tool added", "", "tool", new=_tool_place(tb, cb),
                    tag="added")
        td.findings = [f]
        esc = _escalation(None, None, tb, cb)
        if esc:
            f.what += f" ({esc})"
            f.priority = True
        rep.tools.append(td)
    rep.checks, rep.checks_peak = run.budget.used, run.budget.peak
    if opts.ignore:
        rep.ignored = apply_ignores(rep, opts.ignore)
    rep.tools.sort(key=ToolDiff.sort_key)
    for t in rep.tools:
        t.findings.sort(key=lambda f: (KINDS.index(f.kind), not f.priority))
    return rep


def _schemas_key(t: Tool) -> bytes:
    return dumps([t.input_schema, t.output_schema, t.dialect])


def identical_renames(only_a: list[str], only_b: list[str], a: Side, b: Side,
                      by: str = "definition") -> list:
    """Likely renames by definition (``by="definition"``): an id only OLD has and one only
    NEW has whose tools are defined identically but for the name, where that definition is
    the only one of its kind on each side and says something (a description or a declared
    parameter). ``by="schema"``: the same, by the input and output schemas as written, where
    they declare a parameter (two tools without parameters are no evidence)."""
    from toolcat.features.diff.toolids import Rename

    def table(ids: list[str], side: Side) -> dict[bytes, list[str]]:
        out: dict[bytes, list[str]] = {}
        for i in ids:
            t = side.tools[i][0]
            if by == "definition" and (t.description or t.parameter_count):
                out.setdefault(_definition(t), []).append(i)
            elif by == "schema" and t.parameter_count:
                out.setdefault(_schemas_key(t), []).append(i)
        return out

    ta, tb = table(only_a, a), table(only_b, b)
    return [Rename(ids[0], tb[k][0], f"identical {by}") for k, ids in ta.items()
            if len(ids) == 1 and len(tb.get(k, ())) == 1]


def apply_ignores(rep: Report, entries: list[str]) -> int:
    """Drop the findings an ``--ignore`` entry names: ``TOOL`` (all of the tool's), or
    ``TOOL:POINTER`` (the findings whose canonical, old or new pointer is POINTER or below
    it). A renamed tool answers to its old id, its new id and ``OLD -> NEW``."""
    rules: list[tuple[str, str | None]] = []
    for e in entries:
        tool, sep, ptr = e.partition(":/")
        if sep:
            rules.append((tool, "/" + ptr))
        elif e.endswith(":"):
            rules.append((e[:-1], None))
        else:
            rules.append((e, None))
    dropped = 0
    for t in rep.tools:
        names = {t.tool, t.old_id, t.new_id}
        keep = []
        for f in t.findings:
            if any(tool in names and (ptr is None or _under(f, ptr)) for tool, ptr in rules):
                dropped += 1
            else:
                keep.append(f)
        t.findings = keep
    rep.tools = [t for t in rep.tools if t.findings]
    return dropped


def _under(f: Finding, ptr: str) -> bool:
    ptr = ptr.rstrip("/") if ptr != "/" else ptr
    for p in (f.pointer, f.old.pointer if f.old else None, f.new.pointer if f.new else None):
        if p is not None and (p == ptr or p.startswith(ptr + "/")):
            return True
    return False


# ----------------------------------------------------------------------------- one tool

def _tool_place(t: Tool, c: Catalog, tool_pointer: str = "", exact: bool = True) -> Place:
    file, line, col = c.tool_position(t, tool_pointer)
    return Place(tool_pointer, file, line, col, exact)


def compare_tools(ta: Tool, ca: Catalog, tb: Tool, cb: Catalog, name: str,
                  run: Run | None = None) -> list[Finding]:
    run = run or Run()
    run.budget.start()
    out: list[Finding] = []
    out.extend(_fields(ta, ca, tb, cb, name))
    for key, area in (("input_schema", "input"), ("output_schema", "output")):
        sa, sb = getattr(ta, key), getattr(tb, key)
        if dumps(sa) == dumps(sb) and ta.dialect == tb.dialect:
            continue
        out.extend(_schemas(ta, ca, tb, cb, name, area, sa, sb, run))
        out.extend(_prose(ta, ca, tb, cb, name, area, sa, sb, run))
    return out


def _display(v: Any, limit: int = 60) -> str:
    if v is _MISSING or v is None:
        return "(none)"
    text = dumps(v).decode("utf-8", "replace") if not isinstance(v, str) else repr(v)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _fields(ta: Tool, ca: Catalog, tb: Tool, cb: Catalog, name: str) -> list[Finding]:
    out: list[Finding] = []

    def add(what: str, ptr: str, priority: bool = False, tag: str = "") -> None:
        out.append(Finding(name, BEHAVIOURAL, what, ptr, "tool" if not ptr.startswith(
            "/annotations") else "annotations", old=_tool_place(ta, ca, ptr),
            new=_tool_place(tb, cb, ptr), priority=priority, tag=tag))

    esc = _escalation(ta, ca, tb, cb)
    if esc:
        add(esc, "/annotations" if ta.annotations or tb.annotations else "", True, "escalation")
    folded = ("readOnlyHint", "destructiveHint") if esc and "destructive" in esc else ()
    if ta.title != tb.title:
        add(f"title {_display(ta.title)} -> {_display(tb.title)}", "/title", tag="title")
    if ta.description != tb.description:
        add(_text_change("description", ta.description, tb.description), "/description",
            tag="description")
        poisoned = _poisoned(ta.description, tb.description, tb.id, cb)
        if poisoned:
            out.append(Finding(name, BREAKING, "description now " + poisoned + " (breaking "
                               "for security: lint TP101-TP104)", "/description", "tool",
                               old=_tool_place(ta, ca, "/description"),
                               new=_tool_place(tb, cb, "/description"), priority=True,
                               tag="poisoned"))
    aa = ta.annotations if isinstance(ta.annotations, dict) else {}
    ab = tb.annotations if isinstance(tb.annotations, dict) else {}
    for k in list(aa) + [k for k in ab if k not in aa]:
        va, vb = aa.get(k, _MISSING), ab.get(k, _MISSING)
        if (va is _MISSING and vb is _MISSING) or k in folded:
            continue
        if (va is _MISSING) != (vb is _MISSING) or dumps(va) != dumps(vb):
            add(f"annotations.{k} {_display(va)} -> {_display(vb)}", f"/annotations/{encode((k,))[1:]}",
                tag="annotation")
    if ta.source != tb.source:
        add(f"source {_display(ta.source)} -> {_display(tb.source)}", "/source", tag="source")
    if ta.safety_tier != tb.safety_tier and not esc:
        add(f"safetyTier {_display(ta.safety_tier)} -> {_display(tb.safety_tier)}", "/safetyTier",
            tag="safety-tier")
    if (ta.http_method, ta.http_path) != (tb.http_method, tb.http_path):
        add(f"endpoint {(ta.http_method or '').upper()} {ta.http_path or ''} -> "
            f"{(tb.http_method or '').upper()} {tb.http_path or ''}", "", tag="endpoint")
    ea = ta.extra if isinstance(ta.extra, dict) else {}
    eb = tb.extra if isinstance(tb.extra, dict) else {}
    for k in list(ea) + [k for k in eb if k not in ea]:
        va, vb = ea.get(k, _MISSING), eb.get(k, _MISSING)
        if (va is _MISSING) != (vb is _MISSING) or dumps(va) != dumps(vb):
            add(f"{k} {_display(va)} -> {_display(vb)}", "/" + encode((k,))[1:], tag="field")
    return out


def _poisoned(a: Any, b: Any, own: str | None, cb: Catalog) -> str | None:
    """What the poisoned-tool rules find in description ``b`` and not in ``a`` (``code:
    message; ...``), or None."""
    if not isinstance(b, str):
        return None
    from toolcat.features.lint.rules.poison import findings

    siblings = frozenset(t.id for t in cb.tools if isinstance(t.id, str))
    before = {c for c, _m in findings(a, own, siblings)} if isinstance(a, str) else set()
    new = [(c, m) for c, m in findings(b, own, siblings) if c not in before]
    return "; ".join(f"{c}: {m}" for c, m in new) or None


def _text_change(what: str, a: Any, b: Any) -> str:
    if not a:
        return f"{what} added ({len(b or '')} characters)"
    if not b:
        return f"{what} removed"
    return f"{what} rewritten ({len(a)} -> {len(b)} characters)"


def _tier(t: Tool, c: Catalog) -> str:
    from toolcat.formats.openwop import derive_safety_tier

    return derive_safety_tier(t, c.format)


def _destructive(t: Tool) -> bool:
    """MCP: the tool may perform destructive updates (``destructiveHint``, default true,
    counts only when ``readOnlyHint`` is not true)."""
    ann = t.annotations if isinstance(t.annotations, dict) else {}
    return ann.get("readOnlyHint") is not True and ann.get("destructiveHint", True) is not False


def _escalation(ta: Tool | None, ca: Catalog | None, tb: Tool, cb: Catalog) -> str | None:
    """What makes NEW more dangerous than OLD: it became destructive, or ``exec``, or its
    safety tier went up."""
    tier_b = _tier(tb, cb)
    if ta is None:
        if tier_b == "exec":
            return "safetyTier exec"
        return None
    assert ca is not None       # (a tool comes with its catalog)
    tier_a = _tier(ta, ca)
    parts = []
    if tier_b == "exec" and tier_a != "exec":
        parts.append(f"now exec (safetyTier {tier_a} -> exec)")
    elif SAFETY_TIERS.index(tier_b) > SAFETY_TIERS.index(tier_a) if (
            tier_a in SAFETY_TIERS and tier_b in SAFETY_TIERS) else False:
        parts.append(f"safetyTier {tier_a} -> {tier_b}")
    explicit = ca.format != OPENWOP and (ta.annotations or tb.annotations)
    if explicit and _destructive(tb) and not _destructive(ta):
        parts.append("now destructive (" + _hints(ta) + " -> " + _hints(tb) + ")")
    return "; ".join(parts) if parts else None


def _hints(t: Tool) -> str:
    ann = t.annotations if isinstance(t.annotations, dict) else {}
    got = [f"{k}: {str(ann[k]).lower()}" for k in ("readOnlyHint", "destructiveHint") if k in ann]
    return ", ".join(got) if got else "no hints"


# ----------------------------------------------------------------------------- schemas

def restrict(schema: Any, dialect: str, area: str) -> Any:
    """``schema`` as written, for inputs restricted to objects (tool arguments are always
    one); ``true`` for a missing schema."""
    from toolcat.schema import merge as M

    if schema is None:
        return True
    if area == "input":
        m = M.merge_and(schema, {"type": "object"}, dialect)
        if m is not None:
            return m
    return schema


def normalize(schema: Any, dialect: str, area: str, cache: Any = None) -> Any:
    """A schema with the projection's exact rewrites applied (prose removed, local ``$ref``
    inlined where that does not grow the schema, ``allOf`` merged, unions of values/types
    lowered, no-ops removed; the comparison follows the references left); for inputs,
    restricted to objects (tool arguments are always one). ``cache``: a
    :class:`~toolcat.schema.lower.LowerCache` shared by the schemas of one side."""
    from toolcat.schema import merge as M
    from toolcat.schema.lower import lower_schema

    if schema is None:
        schema = True
    out = lower_schema(schema, dialect, drop_schema=False, cache=cache).schema
    if area == "input":
        m = M.merge_and(out, {"type": "object"}, dialect)
        if m is not None:
            out = m
    return out


def _hints_of(schema: Any) -> tuple:
    """String values written in a schema (examples, defaults, enum values...): good
    candidates for strings that must match a pattern."""
    out: list[str] = []
    stack = [schema]
    n = 0
    while stack and n < 20000 and len(out) < 40:
        v = stack.pop()
        n += 1
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("examples", "example", "default", "enum", "const"):
                    vals = x if isinstance(x, list) else [x]
                    out.extend(s for s in vals if isinstance(s, str) and len(s) < 200)
                elif isinstance(x, (dict, list)):
                    stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
    return tuple(dict.fromkeys(out))


def _schemas(ta: Tool, ca: Catalog, tb: Tool, cb: Catalog, name: str, area: str,
             sa: Any, sb: Any, run: Run) -> list[Finding]:
    from toolcat.schema import inclusion as I
    from toolcat.schema.validate import Checker

    key = "/inputSchema" if area == "input" else "/outputSchema"
    if area == "output" and (sa is None) != (sb is None):
        if sa is None:
            return [Finding(name, NON_BREAKING, "outputSchema added (results are now described)",
                            key, area, new=_tool_place(tb, cb, key), tag="output-added")]
    if not isinstance(sa, (dict, bool, type(None))) or not isinstance(sb, (dict, bool, type(None))):
        return [Finding(name, UNKNOWN, f"{key[1:]} is not a schema on one side", key, area,
                        old=_tool_place(ta, ca, key), new=_tool_place(tb, cb, key),
                        reason="not an object or boolean schema")]
    try:
        hints = (_hints_of(sa), _hints_of(sb))
        # The schemas as written first: where both spell their combinators alike, comparing
        # them is as exact as comparing them normalized (references are followed, values
        # enumerated, no-ops and prose are no constraint), and most of a spec is untouched
        # between two versions. Otherwise both are normalized and compared again.
        na, nb = restrict(sa, ta.dialect, area), restrict(sb, tb.dialect, area)
        res = I.compare(na, nb, ta.dialect, tb.dialect, interface=run.opts.interface,
                        old_hints=hints[0], new_hints=hints[1], digests=run.digests,
                        budget=run.budget)
        if res.shapes_differ or run.opts.normalize:
            na = normalize(sa, ta.dialect, area, run.old_cache)
            nb = normalize(sb, tb.dialect, area, run.new_cache)
            res = I.compare(na, nb, ta.dialect, tb.dialect, interface=run.opts.interface,
                            old_hints=hints[0], new_hints=hints[1], digests=run.digests,
                            budget=run.budget)
        changes, A, B = res.changes, res.old, res.new
    except (RecursionError, ValueError, TypeError) as e:
        return [Finding(name, UNKNOWN, f"{key[1:]} changed; it could not be compared", key, area,
                        old=_tool_place(ta, ca, key), new=_tool_place(tb, cb, key),
                        reason=f"{type(e).__name__}: {' '.join(str(e).split())[:120]}")]
    raw_a = Checker(sa if sa is not None else True, ta.dialect, run.budget)
    raw_b = Checker(sb if sb is not None else True, tb.dialect, run.budget)
    breaking_dir = "narrows" if area == "input" else "widens"
    out: list[Finding] = []
    removed_output = area == "output" and sb is None
    for c in changes:
        ptr = key + encode(tuple(t for t in c.old_route if t != "$ref") if c.old_route
                           else tuple(t for t in c.new_route if t != "$ref"))
        tail = ((c.keyword,) if c.keyword else ()) + tuple(c.at)
        ptr += encode(tail)
        evidence = getattr(c, breaking_dir)
        f = Finding(name, NON_BREAKING, _schema_what(area, c), ptr, area, data=c.data, tag=c.tag)
        if evidence is not None:
            if breaking_dir == "narrows":
                w = I.witness(c, "narrows", A, B, valid=[raw_a], invalid=[raw_b])
                rej = raw_b
            else:
                w = I.witness(c, "widens", A, B, valid=[raw_b], invalid=[raw_a])
                rej = raw_a
            if w is not I.MISSING:
                f.kind = BREAKING
                f.witness = w
                f.witness_of = area
                f.rejected = rej.why_not(w)
            else:
                f.kind = UNKNOWN
                f.reason = evidence.reason or ("the rules say NEW may reject what OLD accepts "
                                               if area == "input" else
                                               "the rules say NEW may return what OLD rejects ") \
                    + "here, but no instance showing it was found"
                trouble = _trouble(run, raw_a, raw_b, A.checker, B.checker)
                if trouble:
                    f.reason += f"; {trouble}"
        elif c.tag == "property-removed":
            f.kind = BEHAVIOURAL
            f.what += (": calls that send it are still accepted; the server may ignore it"
                       if area == "input" else ": results may no longer carry it")
        out.append(f)
        f.old = _written(ta, ca, sa, key, c.old_route, tail, ta.dialect)
        f.new = _written(tb, cb, sb, key, c.new_route, tail, tb.dialect)
    if removed_output:
        # one finding for the whole schema: the first witness of a result OLD rejects
        witnessed = [f for f in out if f.kind == BREAKING]
        first = witnessed[0] if witnessed else None
        f = Finding(name, BREAKING if first else UNKNOWN,
                    "outputSchema removed: results are no longer described, and OLD's consumers "
                    "validate against OLD's schema", key, area, old=_tool_place(ta, ca, key),
                    tag="output-removed")
        if first:
            f.witness, f.witness_of, f.rejected = first.witness, "output", first.rejected
        else:
            f.reason = "no result that OLD's schema rejects was found"
            trouble = _trouble(run, raw_a, raw_b, A.checker, B.checker)
            if trouble:
                f.reason += f"; {trouble}"
        return [f]
    return out


def _trouble(run: Run, *checkers: Any) -> str | None:
    """Why checks were left undone in this tool pair: the budget ran out, jsonschema itself
    failed on one of ``checkers`` (see :attr:`toolcat.schema.validate.Checker.trouble`)."""
    out = [run.budget.reason()] if run.budget.ran_out else []
    for c in checkers:
        if c.trouble and c.trouble not in out:
            out.append(c.trouble)
    return "; ".join(out) or None


def _schema_what(area: str, c: Any) -> str:
    where = _data_label(c.data)
    noun = "parameter" if area == "input" else "result"
    if not c.data:
        return f"{area}: {c.what}" if area == "input" else f"output: {c.what}"
    return f"{noun} {where}: {c.what}"


def _data_label(data: tuple) -> str:
    parts = []
    for d in data:
        if isinstance(d, int):
            parts.append(f"[{d}]")
        elif d == "*":
            parts.append(".<other>")
        elif isinstance(d, str) and d.startswith("<"):
            parts.append(f".{d}")
        else:
            parts.append(f".{d}")
    text = "".join(parts).lstrip(".")
    return f"`{text}`" if text else "(the whole value)"


def _written(t: Tool, c: Catalog, raw: Any, key: str, route: tuple, tail: tuple,
             dialect: str) -> Place | None:
    from toolcat.schema.inclusion import written_path

    if raw is None:
        return None
    path, exact = written_path(raw, route, tail, dialect)
    return _tool_place(t, c, key + encode(path), exact)


# ----------------------------------------------------------------------------- prose

_VIEW_KEYS = ("allOf", "anyOf", "oneOf")


def _view(node: Any, path: tuple, root: Any, depth: int = 0, seen: frozenset = frozenset()) -> list:
    """``(node, path)`` for a schema node and what applies at the same instance place:
    the targets of its local ``$ref`` and its combinator branches (bounded)."""
    from toolcat.schema.inclusion import target_path

    if not isinstance(node, dict) or depth > 8:
        return []
    out = [(node, path)]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in seen:
        hop = target_path(ref, root)
        if hop is not None:
            out.extend(_view(hop[1], hop[0], root, depth + 1, seen | {ref}))
    for key in _VIEW_KEYS:
        if isinstance(node.get(key), list):
            for i, b in enumerate(node[key]):
                out.extend(_view(b, path + (key, i), root, depth + 1, seen))
    return out


def prose_changes(sa: Any, sb: Any, digests: Any, limit: int = 20000) -> list[tuple]:
    """The prose an agent reads at each instance place both schemas have (description,
    title, default, deprecated, readOnly, writeOnly) where it differs:
    ``(instance place, keyword, old value, old path, new value, new path)``. Walks both
    written schemas side by side (following local ``$ref``, combinator branches, properties,
    items, additionalProperties) and skips identical parts. Breadth first, and each pair of
    views once: a recursive schema (``$ref: "#"``) meets the same nodes again at deeper
    places, with the same prose (reported at the shallowest place)."""
    from collections import deque

    out: list[tuple] = []
    todo: deque[tuple[list, list, tuple]] = deque([(_view(sa, (), sa), _view(sb, (), sb), ())])
    seen: set[tuple] = set()
    n = 0
    while todo and n < limit:
        va, vb, data = todo.popleft()
        n += 1
        ids = (tuple(id(x[0]) for x in va), tuple(id(y[0]) for y in vb))
        if ids in seen:
            continue
        seen.add(ids)
        if len(va) == len(vb) and all(digests.same_text(x[0], y[0]) for x, y in zip(va, vb)):
            continue
        if data:
            for k in _PROSE_PLACES:
                xa = next(((x[0][k], x[1] + (k,)) for x in va if k in x[0]), (_MISSING, None))
                xb = next(((y[0][k], y[1] + (k,)) for y in vb if k in y[0]), (_MISSING, None))
                if xa[0] is _MISSING and xb[0] is _MISSING:
                    continue
                if xa[0] is not _MISSING and xb[0] is not _MISSING and dumps(xa[0]) == dumps(xb[0]):
                    continue
                out.append((data, k, xa[0], xa[1], xb[0], xb[1]))
        kids: list[tuple[str, Any]] = []
        for view in (va, vb):
            for node, _p in view:
                props = node.get("properties")
                if isinstance(props, dict):
                    kids.extend(("p", name) for name in props)
        for kind, name in dict.fromkeys(kids):
            ca = [c for node, p in va if isinstance(node.get("properties"), dict) and
                  name in node["properties"] for c in _view(node["properties"][name],
                                                            p + ("properties", name), sa)]
            cb = [c for node, p in vb if isinstance(node.get("properties"), dict) and
                  name in node["properties"] for c in _view(node["properties"][name],
                                                            p + ("properties", name), sb)]
            if ca and cb:
                todo.append((ca, cb, data + (name,)))
        for key, step in (("items", "[]"), ("additionalProperties", "*")):
            ca = [c for node, p in va if isinstance(node.get(key), dict)
                  for c in _view(node[key], p + (key,), sa)]
            cb = [c for node, p in vb if isinstance(node.get(key), dict)
                  for c in _view(node[key], p + (key,), sb)]
            if ca and cb:
                todo.append((ca, cb, data + (step,)))
    return out


def _place_label(data: tuple) -> str:
    return _data_label(tuple("*" if d == "[]" else d for d in data)).replace(".<other>", "[]") \
        if "[]" in data else _data_label(data)


_FOLD = 3   # more prose changes than this in one schema: one finding lists them


def _prose(ta: Tool, ca: Catalog, tb: Tool, cb: Catalog, name: str, area: str, sa: Any,
           sb: Any, run: Run) -> list[Finding]:
    key = "/inputSchema" if area == "input" else "/outputSchema"
    noun = "parameter" if area == "input" else "result"
    found = prose_changes(sa, sb, run.digests)
    found.sort(key=lambda x: (len(x[0]), x[0], _PROSE_PLACES.index(x[1])))
    out: list[Finding] = []
    for data, k, va, pa, vb, pb in found:
        if k in ("description", "title"):
            what = _text_change(k, None if va is _MISSING else va, None if vb is _MISSING else vb)
        else:
            what = f"{k} {_display(va)} -> {_display(vb)}"
        ptr = key + encode(pb if pb is not None else pa)
        out.append(Finding(name, BEHAVIOURAL, f"{noun} {_place_label(data)}: {what}", ptr,
                           "description", data=tuple(data),
                           old=_tool_place(ta, ca, key + encode(pa)) if pa else None,
                           new=_tool_place(tb, cb, key + encode(pb)) if pb else None, tag=k))
    if len(out) <= _FOLD:
        return out
    kinds = sorted({f.tag for f in out}, key=_PROSE_PLACES.index)
    shown = ", ".join(_place_label(f.data) for f in out[:4])
    first = out[0]
    folded = Finding(name, BEHAVIOURAL,
                     f"{len(out)} {noun} {'/'.join(kinds)} changes in the {area} schema: "
                     f"{shown}{', …' if len(out) > 4 else ''}", key, "description",
                     old=first.old, new=first.new, tag="prose")
    folded.details = [{"instance": encode(f.data), "what": f.what, "pointer": f.pointer}
                      for f in out]
    return [folded]
