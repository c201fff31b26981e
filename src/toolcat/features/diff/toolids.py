"""Compare the toolId sets of two catalogs (RFC 0112 projection completeness).

Each side is a list of tool ids with, where the side carries them (OpenWOP descriptors),
each tool's ``source`` and ``safetyTier``. The result lists the ids only in A, only in B,
the number in common and the ``source``/``safetyTier`` changes of common ids.

Ids that differ only in case, or only by a namespace prefix (``mcp:fs.read`` vs ``read``,
``github__create_issue`` vs ``create_issue``), are *likely renames*: they are reported
next to the sets, never matched silently, so they still count as only-in-A and only-in-B.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcat.model import OPENWOP, Catalog

FIELDS = ("source", "safetyTier")
# What may separate a namespace prefix from the name: RFC 0078 scopes (`mcp:`), dotted
# namespaces (`fs.read`), paths, and the double underscore hosts use (`mcp__server__tool`).
PREFIX_SEPARATORS = (":", ".", "/", "__")


@dataclass
class Side:
    """The tools of one side of a comparison."""

    label: str
    ids: list[str] = field(default_factory=list)
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {field: value}
    has_fields: bool = False      # the side's format carries source and safetyTier
    missing_ids: int = 0          # tools without a usable id
    duplicates: list[str] = field(default_factory=list)

    def add(self, tid: Any, values: dict[str, Any] | None = None) -> None:
        if not isinstance(tid, str):
            self.missing_ids += 1
            return
        if tid in self.fields:
            if tid not in self.duplicates:
                self.duplicates.append(tid)
            return
        self.ids.append(tid)
        self.fields[tid] = values or {}


def side_from_catalogs(cats: list[Catalog], label: str) -> Side:
    """A side from loaded catalogs: their tools' ids (and OpenWOP source/safetyTier)."""
    side = Side(label=label, has_fields=bool(cats) and all(c.format == OPENWOP for c in cats))
    for c in cats:
        for t in c.tools:
            side.add(t.id, {"source": t.source, "safetyTier": t.safety_tier}
                     if side.has_fields else None)
    return side


def side_from_items(items: list, target: str, label: str) -> Side:
    """A side from descriptors in a target envelope's shape (``standard_array``, ``array()``)."""
    from toolcat.formats import targets

    envelope = targets.get(target)
    side = Side(label=label, has_fields=envelope.openwop_fields)
    for it in items:
        body = envelope.body(it)
        values = None
        if side.has_fields and isinstance(body, dict):
            values = {f: body.get(f) for f in FIELDS}
        side.add(envelope.item_id(it), values)
    return side


@dataclass
class Rename:
    a: str
    b: str
    why: str  # "case" or "namespace prefix"

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "why": self.why}


@dataclass
class DiffResult:
    a: Side
    b: Side
    only_in_a: list[str]
    only_in_b: list[str]
    common: int
    changed: list[dict]
    renames: list[Rename]

    @property
    def equal(self) -> bool:
        return not self.only_in_a and not self.only_in_b and not self.changed

    def to_json(self) -> dict:
        return {"only_in_a": self.only_in_a, "only_in_b": self.only_in_b, "common": self.common,
                "changed": self.changed, "likely_renames": [r.to_json() for r in self.renames]}


def _strip_prefix(longer: str, shorter: str) -> bool:
    """``longer`` is ``shorter`` behind a namespace prefix (case-insensitively)."""
    lo, sh = longer.casefold(), shorter.casefold()
    if len(lo) <= len(sh) or not lo.endswith(sh):
        return False
    head = lo[: len(lo) - len(sh)]
    return any(head.endswith(sep) and len(head) > len(sep) for sep in PREFIX_SEPARATORS)


def rename_reason(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` look like one tool renamed, or None."""
    if a == b:
        return None
    if a.casefold() == b.casefold():
        return "case"
    if _strip_prefix(a, b) or _strip_prefix(b, a):
        return "namespace prefix"
    # both prefixed, differently: `mcp:fs.read` vs `fs__read`
    na, nb = _bare(a), _bare(b)
    if na and nb and na == nb:
        return "namespace prefix"
    return None


def _bare(tid: str) -> str:
    """The id without any namespace prefix, case-folded (``mcp:fs.Read`` -> ``read``)."""
    s = tid.casefold()
    cut = 0
    for sep in PREFIX_SEPARATORS:
        i = s.rfind(sep)
        if i >= 0:
            cut = max(cut, i + len(sep))
    return s[cut:]


def likely_renames(only_a: list[str], only_b: list[str]) -> list[Rename]:
    out: list[Rename] = []
    by_bare: dict[str, list[str]] = {}
    for b in only_b:
        by_bare.setdefault(_bare(b), []).append(b)
    for a in only_a:
        for b in by_bare.get(_bare(a), ()):
            why = rename_reason(a, b)
            if why is not None:
                out.append(Rename(a, b, why))
    return out


def diff_sides(a: Side, b: Side) -> DiffResult:
    set_a, set_b = set(a.ids), set(b.ids)
    only_a = sorted(set_a - set_b)
    only_b = sorted(set_b - set_a)
    common = [i for i in a.ids if i in set_b]
    changed: list[dict] = []
    if a.has_fields and b.has_fields:
        for tid in sorted(common):
            fa, fb = a.fields[tid], b.fields[tid]
            for f in FIELDS:
                if fa.get(f) != fb.get(f):
                    changed.append({"id": tid, "field": f, "a": fa.get(f), "b": fb.get(f)})
    return DiffResult(a=a, b=b, only_in_a=only_a, only_in_b=only_b, common=len(common),
                      changed=changed, renames=likely_renames(only_a, only_b))


def render_text(r: DiffResult) -> str:
    lines = [f"A: {r.a.label} ({len(r.a.ids)} ids)", f"B: {r.b.label} ({len(r.b.ids)} ids)"]
    for side, name in ((r.a, "A"), (r.b, "B")):
        if side.missing_ids:
            lines.append(f"note: {side.missing_ids} tool{'s' if side.missing_ids != 1 else ''} "
                         f"in {name} without an id (not compared)")
        if side.duplicates:
            lines.append(f"note: ids repeated in {name}: {', '.join(side.duplicates)}")
    if r.only_in_a:
        lines.append(f"only in A ({len(r.only_in_a)}):")
        lines += [f"  - {i}" for i in r.only_in_a]
    if r.only_in_b:
        lines.append(f"only in B ({len(r.only_in_b)}):")
        lines += [f"  + {i}" for i in r.only_in_b]
    if r.renames:
        lines.append(f"likely renames ({len(r.renames)}; not matched):")
        lines += [f"  {x.a} -> {x.b} ({x.why})" for x in r.renames]
    if r.changed:
        lines.append(f"changed ({len(r.changed)}):")
        lines += [f"  {c['id']}: {c['field']} {c['a']!r} -> {c['b']!r}" for c in r.changed]
    lines.append(f"common: {r.common}")
    lines.append("equal" if r.equal else "different")
    return "\n".join(lines) + "\n"
