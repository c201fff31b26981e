"""What lowering reports: the kinds of change, a :class:`Change` with its JSON pointer, and a
lowered schema's :class:`SchemaResult`.

Every rewrite of a schema is a :class:`Change` whose ``pointer`` is a JSON pointer into the
original schema (prefixed by the caller's, e.g. ``/inputSchema``) and whose ``kind`` says what
it does to what the schema accepts: ``exact`` (the same instances), ``widened`` (a superset),
``narrowed`` (a subset: a provider's strict mode), ``omitted``, ``kept`` (outside the compact
subset or a target's rule, left as it is), ``wrapped`` (the schema now describes the value under
a property of an object: :mod:`toolcat.features.project.roots`) and ``changed`` (a mapped shape:
the same verdicts after the change's ``mapping``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """What a change does to what a schema accepts (the report's ``kind``)."""

    EXACT = "exact"        # accepts the same instances
    WIDENED = "widened"    # accepts a superset
    OMITTED = "omitted"    # left out (the handbook has it)
    KEPT = "kept"          # kept although outside the compact subset (or a target's rule)
    WRAPPED = "wrapped"    # the schema now describes the value under a property of an object
                           # (MCP: a non-object output schema; see toolcat.features.project.roots)
    NARROWED = "narrowed"  # accepts a subset (provider targets: strict modes close objects)
    CHANGED = "changed"    # a mapped shape: the same verdicts after the change's `mapping`


EXACT, WIDENED, OMITTED, KEPT, WRAPPED = (Kind.EXACT, Kind.WIDENED, Kind.OMITTED, Kind.KEPT,
                                          Kind.WRAPPED)
NARROWED, CHANGED = Kind.NARROWED, Kind.CHANGED
KINDS = tuple(Kind)


@dataclass(frozen=True, slots=True)
class Change:
    """One change to a schema: where (a JSON pointer into the original), its kind, what."""

    pointer: str
    kind: Kind
    what: str
    #: ``changed``: what the caller applies to arguments or names (e.g. ``{"mapping":
    #: {"argument": "/limit", "null": "absent"}}``); None otherwise
    extra: dict | None = field(default=None, compare=False)

    def as_dict(self) -> dict:
        d = {"pointer": self.pointer, "kind": self.kind.value, "what": self.what}
        if self.extra:
            d.update(self.extra)
        return d


@dataclass
class SchemaResult:
    """A lowered schema and what lowering it did (:func:`toolcat.schema.lower.lower_schema`)."""

    schema: Any
    changes: list[Change] = field(default_factory=list)
    conformant: bool = True          # satisfies the compact subset (when it was asked for)
    unlowerable: bool = False        # a construct could not be lowered exactly
    omitted: bool = False            # the schema was dropped (--unlowerable omit)
    prose_removed: int = 0


def dedupe(changes: list[Change]) -> list[Change]:
    """``changes`` with each change once, in the order first reported."""
    return list(dict.fromkeys(changes))
