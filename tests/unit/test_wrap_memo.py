"""roots.wrap's run memo: a definitions entry that several output schemas bundle (the same
object) is rewritten once, and each wrapped schema is what wrap gives without the memo."""

from __future__ import annotations

import copy

from toolcat.document.canonical import dumps
from toolcat.features.project import roots
from toolcat.schema.lower import text_memo


def _entry() -> dict:
    return {"type": "object", "properties": {"next": {"$ref": "#/$defs/Page"},
                                             "owner": {"$ref": "#/$defs/User"}}}


def test_shared_entries_are_rewritten_as_without_the_memo() -> None:
    page, user = _entry(), {"type": "object", "properties": {"login": {"type": "string"}}}
    a = {"type": "array", "items": {"$ref": "#/$defs/Page"},
         "$defs": {"Page": page, "User": user}}
    b = {"type": ["array", "null"], "items": {"$ref": "#/$defs/User"},
         "$defs": {"User": user, "Page": page}}
    memo: dict = {}
    with text_memo({}):
        got = [roots.wrap(s, "2020-12", memo) for s in (a, b, a)]
    want = [roots.wrap(copy.deepcopy(s), "2020-12") for s in (a, b, a)]
    assert [dumps(g) for g in got] == [dumps(w) for w in want]
    # the rewritten entry is shared, and points below the wrapper
    assert got[0]["properties"]["result"]["$defs"]["Page"] is \
        got[1]["properties"]["result"]["$defs"]["Page"]
    assert got[1]["properties"]["result"]["$defs"]["Page"]["properties"]["next"] == \
        {"$ref": "#/properties/result/$defs/Page"}
    assert page == _entry()     # (the input is not changed)


def test_an_entry_with_its_own_base_is_not_taken_from_the_memo() -> None:
    user = {"type": "object", "properties": {"self": {"$ref": "#/$defs/User"}}}
    plain = {"type": "array", "items": {"$ref": "#/$defs/User"}, "$defs": {"User": user}}
    based = {"type": "array", "items": {"$ref": "#/$defs/User"},
             "$defs": {"User": user, "Other": {"$id": "https://example.com/o",
                                               "$ref": "#/x"}}}
    memo: dict = {}
    with text_memo({}):
        first = roots.wrap(plain, "2020-12", memo)
        second = roots.wrap(based, "2020-12", memo)
    assert dumps(first) == dumps(roots.wrap(copy.deepcopy(plain), "2020-12"))
    assert dumps(second) == dumps(roots.wrap(copy.deepcopy(based), "2020-12"))
    # under its own $id, the entry's pointer is left as it is
    assert second["properties"]["result"]["$defs"]["Other"]["$ref"] == "#/x"
