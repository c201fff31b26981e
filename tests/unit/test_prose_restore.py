"""prose.restore on bundled schemas: the root's definitions that the lowered schema no longer
holds are skipped (their walk kept by object in a memo), with the same result and changes as
the whole walk, and their property names still count as names a description may refer to."""

from __future__ import annotations

import copy

from toolcat.features.project import prose
from toolcat.schema.keywords import DRAFT2020

D = DRAFT2020


def _original() -> dict:
    return {
        "type": "object",
        "properties": {
            "spec": {"description": "The spec. Set `replicaCount` before `mode`.",
                     "$ref": "#/$defs/Spec"},
            "note": {"type": "string", "default": None, "description": "A note (RFC 3339)."},
        },
        "$defs": {
            "Spec": {"type": "object", "description": "Desired state.",
                     "properties": {"mode": {"type": "string", "default": None,
                                             "description": "One of `fast`, `slow`."}}},
            "Kept": {"type": "object", "description": "Format: date-time (RFC 3339).",
                     "properties": {"when": {"type": "string", "default": None,
                                             "description": "A time, e.g. 2024-01-01."}}},
            "Other": {"type": "object",
                      "properties": {"replicaCount": {"type": "integer",
                                                      "description": "How many (e.g. 3)."}}},
        },
    }


def _lowered() -> dict:
    # what lowering left: Spec inlined, Other dropped, Kept still a definition
    return {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"mode": {"type": "string",
                                                               "default": None}}},
            "note": {"type": "string", "default": None},
        },
        "$defs": {"Kept": {"type": "object",
                           "properties": {"when": {"type": "string", "default": None}}}},
    }


def _not_last(schema: dict) -> dict:
    """The same schema with its definitions map first: the whole walk is taken."""
    return {"$defs": schema["$defs"], **{k: v for k, v in schema.items() if k != "$defs"}}


def test_restore_skips_unheld_definitions_exactly() -> None:
    for limit in (60, None, 0):
        want = prose.restore(_not_last(_original()), _lowered(), D, limit)
        memo: dict = {}
        original = _original()
        first = prose.restore(original, _lowered(), D, limit, memo=memo)
        again = prose.restore(original, _lowered(), D, limit, memo=memo)   # from the memo
        plain = prose.restore(original, _lowered(), D, limit)
        assert first == want and again == want and plain == want
        assert len(memo) == 3                 # one walk per definition object


def test_restore_writes_into_a_held_definition_and_drops_its_null_default() -> None:
    out, changes = prose.restore(_original(), _lowered(), D, None, memo={})
    kept = out["$defs"]["Kept"]
    assert kept["description"] == "Format: date-time (RFC 3339)."
    assert "default" not in kept["properties"]["when"]
    pointers = [c.pointer for c in changes]
    assert "/inputSchema/$defs/Kept/properties/when/default" in pointers
    # nothing is written under a definition the lowered schema does not hold
    assert not any("/$defs/Other" in p or "/$defs/Spec" in p for p in pointers)


def test_property_names_of_an_unheld_definition_still_count() -> None:
    # `replicaCount` is a property only in the dropped definition Other: still a name the
    # description refers to, so the sentence naming it is kept as it is with the whole walk
    original = _original()
    with_name, _ = prose.restore(original, _lowered(), D, 60, memo={})
    without = copy.deepcopy(original)
    without["$defs"]["Other"]["properties"] = {"count": {"type": "integer"}}
    without_name, _ = prose.restore(without, _lowered(), D, 60, memo={})
    assert with_name == prose.restore(_not_last(original), _lowered(), D, 60)[0]
    assert "replicaCount" in with_name["properties"]["spec"].get("description", "")
    assert with_name != without_name
