"""The handbook: every tool's standard-view descriptor, keyed by its id in the target.

Everything the compact view removes (full descriptions, described schemas, dropped fields)
is in it, so an agent can load a tool's full detail on demand, and the standard view can be
rebuilt from a compact file and its handbook: ``[handbook["tools"][t["name"]] for t in
compact["tools"]]`` (``toolId`` for OpenWOP, ``function.name`` for OpenAI).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcat.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.project import Projection


def build_handbook(proj: "Projection") -> dict:
    tools: dict = {}
    where: dict = {}
    for t in proj.tools:
        if t.id in tools:
            raise InputError(f"tool id {t.id!r} appears twice (also in {where[t.id]}): a "
                             "handbook needs unique ids", t.file)
        tools[t.id] = t.standard
        where[t.id] = t.file
    return {"tools": tools}


def descriptor_id(target: str, descriptor: dict) -> str | None:
    """The id of a descriptor written for ``target``."""
    from toolcat.formats import targets

    return targets.get(target).item_id(descriptor)


def rebuild_standard(target: str, compact_tools: list, handbook: dict) -> list:
    """The standard view, rebuilt from a compact tools array and its handbook."""
    return [handbook["tools"][descriptor_id(target, d)] for d in compact_tools]
