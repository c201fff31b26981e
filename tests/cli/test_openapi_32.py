"""OpenAPI 3.2 (issue 36 item 3): the QUERY method, `additionalOperations`, the `querystring`
parameter, `itemSchema` for sequential media types, `$self` as the base of references; a
version toolcat does not know is a TC112 warning (read as 3.2), never silence. The OAI
repository's own 3.2 example is in tests/corpus/test_outside_specs.py."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.common import run_toolcat


def _doc(paths: dict, version: str = "3.2.0", **more) -> dict:
    return {"openapi": version, "info": {"title": "t", "version": "1"}, "paths": paths, **more}


def _tools(tmp_path, doc, *files) -> list[dict]:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc))
    for name, data in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(data))
    r = run_toolcat("project", "--view", "standard", spec)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["tools"]


OK = {"200": {"description": "ok"}}


def test_query_and_additional_operations(tmp_path):
    doc = _doc({"/pets": {
        "query": {"operationId": "findPets", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": {"q": {"type": "string"}}}}}},
            "responses": OK},
        "additionalOperations": {"PURGE": {"responses": OK}}}})
    tools = {t["name"]: t for t in _tools(tmp_path, doc)}
    assert set(tools) == {"findPets", "purge_pets"}
    assert tools["findPets"]["inputSchema"]["properties"] == {"q": {"type": "string"}}
    # in 3.1 `query` is no method: it stays no tool
    assert _tools(tmp_path, _doc({"/pets": {"query": {"operationId": "x", "responses": OK}}},
                                 "3.1.0")) == []


def test_querystring_parameter_is_an_input(tmp_path):
    doc = _doc({"/s": {"get": {"operationId": "search", "parameters": [{
        "name": "filter", "in": "querystring", "content": {
            "application/x-www-form-urlencoded": {"schema": {
                "type": "object", "properties": {"n": {"type": "integer"}}}}}}],
        "responses": OK}}})
    (t,) = _tools(tmp_path, doc)
    assert t["inputSchema"]["properties"]["filter"]["properties"] == {"n": {"type": "integer"}}


def test_item_schema_is_a_list_of_items(tmp_path):
    doc = _doc({"/events": {"get": {"operationId": "events", "responses": {"200": {
        "description": "a stream", "content": {"application/jsonl": {"itemSchema": {
            "$ref": "#/components/schemas/Event"}}}}}}}},
        components={"schemas": {"Event": {"type": "object", "properties": {
            "id": {"type": "integer"}}}}})
    (t,) = _tools(tmp_path, doc)
    out = t["outputSchema"]
    assert out["type"] == "object"        # MCP wraps a non-object output (README)
    jsonschema.validate({"result": [{"id": 1}, {"id": 2}]}, out)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"result": [{"id": "x"}]}, out)


def test_self_is_the_base_of_references(tmp_path):
    doc = _doc({"/p": {"post": {"operationId": "make", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "https://example.com/api/schemas/pet.json"}}}},
        "responses": OK}}}, **{"$self": "https://example.com/api/openapi.json"})
    pet = {"type": "object", "properties": {"name": {"type": "string"}}}
    (t,) = _tools(tmp_path, doc, ("schemas/pet.json", pet))
    assert t["inputSchema"]["properties"]["name"] == {"type": "string"}
    # relative to $self, the same file
    doc["paths"]["/p"]["post"]["requestBody"]["content"]["application/json"]["schema"] = {
        "$ref": "schemas/pet.json"}
    (t,) = _tools(tmp_path, doc)
    assert t["inputSchema"]["properties"]["name"] == {"type": "string"}


@pytest.mark.parametrize("version, warned", [("3.2.0", False), ("3.1.1", False), ("3.0", False),
                                             ("3.3.0", True), ("4.0.0", True)])
def test_unknown_version_is_a_warning(tmp_path, version, warned):
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_doc({"/a": {"get": {"operationId": "a", "responses": OK}}},
                                    version)))
    r = run_toolcat("lint", "--format", "json", spec)
    codes = [f["code"] for f in json.loads(r.stdout)["findings"]]
    assert ("TC112" in codes) is warned
    r = run_toolcat("tools", spec)
    assert r.returncode == 0 and (b"not a version toolcat knows" in r.stderr) is warned


def test_path_variable_not_in_path_is_tc113(tmp_path):
    """Issue 36 item 8: `{id}` declared `in: query`, `{other}` not declared at all, `{ok}`
    declared at the path item: two errors, at the parameter's `in` and at the operation."""
    doc = _doc({"/a/{id}/{other}/{ok}": {
        "parameters": [{"name": "ok", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "get": {"operationId": "a", "parameters": [{"name": "id", "in": "query",
                                                   "schema": {"type": "string"}}],
                "responses": OK}}}, "3.0.3")
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc))
    r = run_toolcat("lint", "--format", "json", spec)
    assert r.returncode == 1
    got = sorted((f["pointer"], f["severity"]) for f in json.loads(r.stdout)["findings"]
                 if f["code"] == "TC113")
    assert got == [("/paths/~1a~1{id}~1{other}~1{ok}/get", "error"),
                   ("/paths/~1a~1{id}~1{other}~1{ok}/get/parameters/0/in", "error")]


def test_strict_suggests_the_strict_targets(tmp_path):
    """Issue 36 item 10: `project --strict` suggested --sort, --source."""
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_doc({"/a": {"get": {"operationId": "a", "responses": OK}}})))
    for cmd in ("project", "measure"):
        r = run_toolcat(cmd, "--strict", spec)
        lines = r.stderr.decode().splitlines()
        assert r.returncode == 2 and "--to openai-strict" in lines[0], lines


def test_an_operation_without_id_is_named_from_method_and_path(tmp_path):
    """README: `GET /pets/{id}` is `get_pets_id`; an additional method in lower case."""
    doc = _doc({"/pets/{id}": {
        "get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "string"}}], "responses": OK},
        "additionalOperations": {"COPY": {"responses": OK}}}})
    assert [t["name"] for t in _tools(tmp_path, doc)] == ["get_pets_id", "copy_pets_id"]


@pytest.mark.parametrize("to, limit", [("mcp", 128), ("openai", 64)])
def test_a_renamed_name_gets_the_targets_limit(tmp_path, to, limit):
    """Issue 36 item 7: a renamed MCP name was cut at 64 characters with a hash while the
    report cited MCP's 128-character rule; the limit is the target's."""
    spec = tmp_path / "api.json"
    tid = "a#" + "b" * 100
    spec.write_text(json.dumps(_doc({"/x": {"get": {"operationId": tid, "responses": OK}}},
                                    "3.0.3")))
    rep = tmp_path / "rep.json"
    r = run_toolcat("project", "--to", to, spec, "--report", rep)
    assert r.returncode == 0, r.stderr
    (c,) = [c for t in json.loads(rep.read_bytes())["tools"] for c in t["changes"]
            if c["pointer"] == "/name"]
    assert "{1,%d}" % limit in c["what"], c
    new = c["mapping"]["name"]
    assert len(new) <= limit
    if limit == 128:
        assert new == "a_" + "b" * 100       # fits: no hash
    else:
        assert len(new) == 64


def test_measure_lossless_with_renamed_names(tmp_path):
    """Issue 36 item 6: measure's lossless saving was 0 whenever names were rewritten
    (HubSpot, GitHub), although the rename is the same in both views. The same spec with
    names that need no rename saves the same."""
    def saved(op_id: str) -> dict:
        ops = {f"/x{i}": {"get": {
            "operationId": f"{op_id}{i}", "description": "Does things. " * 40,
            "parameters": [{"name": "q", "in": "query", "description": "a query",
                            "schema": {"type": "string", "description": "prose " * 30}}],
            "responses": OK}} for i in range(3)}
        spec = tmp_path / f"{len(op_id)}-{op_id.isidentifier()}.json"
        spec.write_text(json.dumps(_doc(ops, "3.0.3")))
        r = run_toolcat("measure", "-f", "json", spec)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["catalogs"][0]["saved"]

    renamed, plain = saved("get#thing"), saved("get_thing")
    assert renamed["bytes"]["lossless"] > 0
    assert renamed == plain


def test_summary_says_when_the_compact_view_drops_output_schemas(tmp_path):
    """Issue 36 item 10: the OpenWOP summary compared a standard view with output schemas
    against a compact one without, silently (HubSpot "1.9%")."""
    out = {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"id": {"type": "string"}}}}}}}
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_doc({"/a": {"get": {"operationId": "a", "responses": out}}},
                                    "3.0.3")))
    r = run_toolcat("project", "--to", "openwop", spec)
    assert r.returncode == 0
    assert b"leaves out the outputSchema of 1 tool" in r.stderr, r.stderr
    r = run_toolcat("project", "--to", "mcp", spec)
    assert b"leaves out the outputSchema" not in r.stderr


def test_a_compact_view_larger_than_the_standard_is_a_warning(tmp_path):
    """Issue 36 item 5 (its warning): a compact view larger than its standard view (Xero on
    OpenWOP: 111.6% of the tokens) was only a ratio over 100% in the table."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "samples" / "petstore.openapi.yaml"
    r = run_toolcat("project", sample, "--to", "openai-strict", "-o", tmp_path / "o.json")
    assert r.returncode == 0
    assert b"warning: the compact view is larger than the standard view" in r.stderr
    r = run_toolcat("project", sample, "-o", tmp_path / "m.json")
    assert r.returncode == 0 and b"is larger than" not in r.stderr
