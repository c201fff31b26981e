"""OpenAPI's read-only/write-only properties leave `required` (loader.context_required):
where nothing is marked, the schema is returned itself (issue 17: no rebuilt copy of every
container down to the shared subschemas), so tools keep sharing their bundled `$defs`; where
something is marked, the result is the same as before and the input is never changed."""

from __future__ import annotations

import copy

from toolcat import api
from toolcat.formats.openapi.loader import context_required

_DEFS = {
    "Mount": {"type": "object", "required": ["readOnly", "path"],
              "properties": {"readOnly": {"type": "boolean",
                                          "description": "readOnly makes it read-only"},
                             "path": {"type": "string"}}},
    "Id": {"type": "string", "readOnly": True},
    "Thing": {"type": "object", "required": ["id", "name"],
              "properties": {"id": {"$ref": "#/$defs/Id"}, "name": {"type": "string"}}},
}


def test_nothing_marked_is_the_schema_itself():
    s = {"type": "object", "required": ["m"],
         "properties": {"m": {"$ref": "#/$defs/Mount"}},
         "$defs": {"Mount": _DEFS["Mount"]}}
    before = copy.deepcopy(s)
    assert context_required(s, "readOnly") is s
    assert context_required(s, "readOnly", cache={}) is s
    assert s == before


def test_marked_properties_leave_required_and_the_input_stays():
    s = {"type": "object", "required": ["t", "id"],
         "properties": {"t": {"$ref": "#/$defs/Thing"}, "id": {"$ref": "#/$defs/Id"}},
         "$defs": copy.deepcopy(_DEFS)}
    before = copy.deepcopy(s)
    got = context_required(s, "readOnly")
    assert s == before
    assert got is not s
    assert got["required"] == ["t"]
    assert got["$defs"]["Thing"]["required"] == ["name"]
    assert got["$defs"]["Mount"] == _DEFS["Mount"]
    # a top-level name kept (a parameter) stays required whatever it says
    kept = context_required(s, "readOnly", keep=frozenset({"id"}))
    assert kept["required"] == ["t", "id"]
    # nested only: the root itself changes nothing, a subschema does
    s2 = {"type": "object", "properties": {"t": {"$ref": "#/$defs/Thing"}},
          "$defs": copy.deepcopy(_DEFS)}
    got2 = context_required(s2, "readOnly")
    assert got2 is not s2 and got2["$defs"]["Thing"]["required"] == ["name"]


def _spec(marked: bool) -> dict:
    mount = copy.deepcopy(_DEFS["Mount"])
    if marked:
        mount["properties"]["path"]["readOnly"] = True
    body = {"required": True, "content": {"application/json": {
        "schema": {"type": "object", "required": ["m"],
                   "properties": {"m": {"$ref": "#/components/schemas/Mount"}}}}}}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"post": {"operationId": "a", "requestBody": body,
                                      "responses": {"200": {"description": "ok"}}}},
                      "/b": {"put": {"operationId": "b", "requestBody": body,
                                     "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": {"Mount": mount}}}


def _defs(tool) -> dict:
    return tool.input_schema["$defs"]


def test_tools_share_their_definitions_when_nothing_is_marked():
    a, b = api.load_data(_spec(False), name="spec.json").tools
    assert "readOnly" in str(a.input_schema)      # the word is there: the check runs
    assert _defs(a) is _defs(b)


def test_marked_definitions_still_leave_required():
    cat = api.load_data(_spec(True), name="spec.json")
    for t in cat.tools:
        assert _defs(t)["Mount"]["required"] == ["readOnly"]
        assert t.input_schema["required"] == ["m"]


def test_shared_defs_map_remembered_like_fresh_runs():
    # tools that bundle the same $defs map (the loader shares it) with one cache: each answer
    # is the one a run without a cache gives, whether the map's entries need a change or
    # not, whether the properties do, and with $defs last or not (then read in key order)
    plain = {"Mount": _DEFS["Mount"]}
    marked = copy.deepcopy(_DEFS)
    for defs in (plain, marked):
        cache: dict = {}
        schemas = [
            {"type": "object", "properties": {"m": {"$ref": "#/$defs/Mount"}}, "$defs": defs},
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}},
             "$defs": defs},
            {"type": "object", "properties": {"t": {"$ref": "#/$defs/Thing"}}, "$defs": defs},
            {"$defs": defs, "type": "object", "properties": {"x": {"type": "integer"}}},
            {"type": "object", "required": ["o"], "properties": {"o": {
                "type": "object", "required": ["id"], "properties": {"id": {
                    "$ref": "#/$defs/Id"}}}}, "$defs": defs},
        ]
        for s in schemas * 2:
            want = context_required(copy.deepcopy(s), "readOnly")
            got = context_required(s, "readOnly", cache=cache)
            assert got == want
            assert (got is s) == (want == s)


def _write_json_spec(tmp_path, text: str):
    path = tmp_path / "spec.json"
    path.write_text(text)
    return api.load(str(path))


def test_a_json_spec_with_readonly_only_as_a_name_is_not_read_for_marks(tmp_path, monkeypatch):
    # Kubernetes' case: "readOnly" is a property name and a word of the prose, never a
    # `"readOnly": true` member: the text says there is nothing to take out of `required`
    import json

    from toolcat.formats.openapi import loader

    calls: list[str] = []
    real = loader.context_required

    def counted(schema, flag, *a, **k):
        calls.append(flag)
        return real(schema, flag, *a, **k)

    monkeypatch.setattr(loader, "context_required", counted)
    cat = _write_json_spec(tmp_path, json.dumps(_spec(False), indent=1))
    assert calls == []
    assert [t.input_schema["required"] for t in cat.tools] == [["m"], ["m"]]
    assert _defs(cat.tools[0])["Mount"]["required"] == ["readOnly", "path"]


def test_a_json_spec_marks_readonly_however_its_key_is_written(tmp_path):
    # the key spelled with escapes and JSON's whitespace around the colon: still a mark
    import json

    text = json.dumps(_spec(True), indent=2)
    assert text.count('"readOnly": true') == 1
    for written in ('"read\\u004fnly": true', '"\\u0072eadOnly"\n :\ttrue',
                    '"readOnl\\u0079":true'):
        cat = _write_json_spec(tmp_path, text.replace('"readOnly": true', written))
        for t in cat.tools:
            assert _defs(t)["Mount"]["required"] == ["readOnly"]
            assert t.input_schema["required"] == ["m"]
