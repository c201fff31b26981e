"""The differential judge's metaschema comparison (tests/support/differential.py, ``meta``):
a projected schema that is invalid against its metaschema fails the pair when the original
is valid, and never when the original is invalid too (source data). It asks the projected
schema first and the original only when that fails, so both orders are covered here."""

from __future__ import annotations

from support.differential import Differential, Pair
from toolcat.schema.keywords import DRAFT2020


def _run(original: dict, projected: dict) -> list[str]:
    diff = Differential()
    diff.add(Pair("t", original, DRAFT2020, projected, [{}, {"a": 1}], engines=(), meta=True))
    return diff.run().failures


def test_a_projection_invalid_against_the_metaschema_fails_when_its_original_is_valid() -> None:
    failures = _run({"type": "object"}, {"type": "object", "minProperties": -1})
    assert len(failures) == 1 and "metaschema" in failures[0]


def test_an_invalid_original_excuses_an_invalid_projection() -> None:
    assert _run({"type": "object", "minProperties": -1},
                {"type": "object", "minProperties": -1}) == []


def test_valid_both_sides_pass() -> None:
    assert _run({"type": "object", "properties": {"a": {"type": "integer"}}},
                {"type": "object", "properties": {"a": {"type": "integer"}}}) == []
