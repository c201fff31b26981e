"""An OpenAPI response that may be an object or something else (an array: GitHub's
repos/get-content, a file object or a directory listing; null: Intercom's nullable
responses) becomes a wrapped outputSchema that accepts every such value (issue 36 item 4),
reported `wrapped`; before, it was narrowed to its objects with an `exact` report. The real
spec (Intercom) is in tests/corpus/test_outside_specs.py."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.common import run_toolcat

CONTENT = {"oneOf": [
    {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}]}


@pytest.mark.parametrize("view", ["standard", "compact"])
@pytest.mark.parametrize("schema, values, refused", [
    (CONTENT, [[{"name": "a"}], {"content": "x"}], [1, {"x": 1}]),
    ({"type": "object", "nullable": True, "properties": {"a": {"type": "integer"}}},
     [None, {"a": 1}], [{"a": "x"}, []]),
])
def test_a_response_that_may_be_no_object_is_wrapped(tmp_path, view, schema, values, refused):
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/c": {"get": {
        "operationId": "getContent", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": schema}}}}}}}}
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc))
    rep = tmp_path / "rep.json"
    r = run_toolcat("project", "--view", view, spec, "--report", rep)
    assert r.returncode == 0, r.stderr
    (t,) = json.loads(r.stdout)["tools"]
    out = t["outputSchema"]
    for v in values:     # every response the operation may give is a valid result
        jsonschema.validate({"result": v}, out)
    for v in refused:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"result": v}, out)
    (tr,) = json.loads(rep.read_bytes())["tools"]
    kinds = {c["kind"] for c in tr["changes"] if c["pointer"] == "/outputSchema"}
    assert "wrapped" in kinds


def test_an_mcp_tools_object_or_null_output_is_still_an_object(tmp_path):
    """MCP's structuredContent is always an object: a native tool's [object, null] output is
    read as its objects (exact in that domain), not wrapped."""
    cat = {"tools": [{"name": "t", "inputSchema": {"type": "object"},
                      "outputSchema": {"type": ["object", "null"],
                                       "properties": {"a": {"type": "integer"}}}}]}
    f = tmp_path / "tools.json"
    f.write_text(json.dumps(cat))
    r = run_toolcat("project", f)
    assert r.returncode == 0, r.stderr
    (t,) = json.loads(r.stdout)["tools"]
    assert t["outputSchema"]["type"] == "object" and "result" not in t["outputSchema"].get(
        "properties", {})
