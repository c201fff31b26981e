"""Figures that know deferral (``measure --defer``): what the model reads **up front** and
what each deferred tool adds **on demand**.

Up front is the target's rendering of what every request shows the model
(:meth:`toolcat.formats.targets.Target.upfront`): the eager tools, the tool search tool's
request entry, and for the Responses API each namespace's name and description. On demand is
one deferred tool's descriptor as the target writes it (what a search that finds it loads),
over the deferred tools: min, median and max. The session estimate is up front plus ``K``
(``--loaded``, default 5) tools of the median on-demand size.

A provider renders a tool search tool into its own instructions, which no request shows:
the up-front figure counts the request entry (``{"type": ..., "name": ...}``), a floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcat.document import canonical

#: the default of ``--loaded``: the tools a search typically loads (Anthropic: 3-5)
DEFAULT_LOADED = 5


@dataclass(slots=True)
class OnDemand:
    id: str
    bytes: int
    tokens: int = 0


@dataclass(slots=True)
class DeferFigures:
    mode: str
    search: str | None
    tools: int
    deferred: int
    groups: int
    upfront_bytes: int
    loaded: int
    upfront_tokens: int = 0
    #: the same catalog without deferral (the compact view): bytes and tokens
    eager_bytes: int = 0
    eager_catalog_tokens: int = 0
    on_demand: list[OnDemand] = field(default_factory=list)
    #: ``auto``: the eager catalog's tokens held against the threshold
    eager_tokens: int | None = None
    threshold: int | None = None

    def spread(self) -> dict[str, int]:
        """min / median / max of the on-demand tokens (zeros without deferred tools)."""
        toks = sorted(o.tokens for o in self.on_demand)
        if not toks:
            return {"min": 0, "median": 0, "max": 0}
        n = len(toks)
        med = toks[n // 2] if n % 2 else (toks[n // 2 - 1] + toks[n // 2] + 1) // 2
        return {"min": toks[0], "median": med, "max": toks[-1]}

    def session_tokens(self) -> int:
        """Up front plus ``loaded`` tools of the median on-demand size (at most all)."""
        return self.upfront_tokens + min(self.loaded, self.deferred) * self.spread()["median"]

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "mode": self.mode, "search": self.search, "tools": self.tools,
            "deferred": self.deferred, "eager": self.tools - self.deferred,
            "groups": self.groups,
            "upfront_bytes": self.upfront_bytes, "upfront_tokens": self.upfront_tokens,
            "eager_bytes": self.eager_bytes, "eager_tokens": self.eager_catalog_tokens,
            "on_demand_tokens": self.spread(), "loaded": self.loaded,
            "session_tokens": self.session_tokens(),
            "deferred_tools": [{"id": o.id, "on_demand_bytes": o.bytes,
                                "on_demand_tokens": o.tokens} for o in self.on_demand],
        }
        if self.eager_tokens is not None:
            out["auto"] = {"eager_tokens": self.eager_tokens, "threshold": self.threshold,
                           "deferred": self.deferred > 0}
        return out


def defer_figures(proj: Any, counter: Any, slots: list, loaded: int) -> DeferFigures:
    """The deferral figures of ``proj`` (a projection with a plan); token counts are
    submitted to ``counter`` and filled in through ``slots`` (as measure's others)."""
    target = proj.envelope
    plan = proj.plan
    text = proj.upfront_bytes()
    deferred = [t for t in proj.tools if t.deferred]
    fig = DeferFigures(
        mode=plan.options.mode,
        search=(plan.options.search if target.namespace_max == 0 else "tool_search")
        if plan.any else None,
        tools=len(proj.tools), deferred=len(deferred), groups=len(plan.groups),
        upfront_bytes=len(text), loaded=loaded,
        eager_tokens=plan.eager_tokens,
        threshold=plan.options.threshold if plan.options.mode == "auto" else None)
    slots.append((fig, "upfront_tokens", counter.submit(text)))
    fig.eager_bytes = len(plan.eager_bytes)
    slots.append((fig, "eager_catalog_tokens", counter.submit(plan.eager_bytes)))
    for t in deferred:
        b = canonical.dumps(t.descriptor)
        o = OnDemand(t.id, len(b))
        slots.append((o, "tokens", counter.submit(b)))
        fig.on_demand.append(o)
    return fig
