"""A `$ref` that does not resolve blocks no catalog (issue 36 item 1): ``--broken-refs
widen`` (the default) builds every tool, the schema at a broken ref becomes ``{}`` and the
report says so with the pointer and the ref; ``omit`` leaves out the tools that use one
(reported); ``fail`` is the old exit 2, whose error line names the option. The real specs
(Square, DocuSign) are in tests/corpus/test_outside_specs.py."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.common import run_toolcat

SPEC = {
    "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "paths": {
        "/items": {"post": {"operationId": "makeItem", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/ping": {"get": {"operationId": "ping", "parameters": [
            {"name": "q", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}}}},
    },
    "components": {"schemas": {"Item": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"},
        "toggle": {"$ref": "#/components/schemas/Missing", "description": "a toggle"}}}}},
}


@pytest.fixture
def spec(tmp_path):
    p = tmp_path / "api.json"
    p.write_text(json.dumps(SPEC))
    return p


def _project(spec, tmp_path, *args):
    out, rep = tmp_path / "out.json", tmp_path / "rep.json"
    r = run_toolcat("project", spec, "--view", "standard", "-o", out, "--report", rep, *args)
    return r, out, rep


def test_widen_is_the_default_and_reported(spec, tmp_path):
    r, out, rep = _project(spec, tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "1 $ref that does not resolve: 1 tool widened" in err, err
    tools = {t["name"]: t for t in json.loads(out.read_bytes())["tools"]}
    assert set(tools) == {"makeItem", "ping"}
    s = tools["makeItem"]["inputSchema"]
    assert s["$defs"]["Item"]["properties"]["toggle"] == {"description": "a toggle"}
    # wider exactly at the broken ref: the rest still checks
    jsonschema.validate({"body": {"name": "n", "toggle": [1, {"x": None}]}}, s)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"body": {"name": 1}}, s)
    report = json.loads(rep.read_bytes())
    (t,) = [t for t in report["tools"] if t["id"] == "makeItem"]
    (c,) = [c for c in t["changes"] if c["kind"] == "widened"]
    assert c["pointer"] == "/inputSchema/$defs/Item/properties/toggle"
    assert "'#/components/schemas/Missing'" in c["what"]
    assert "/components/schemas/Item/properties/toggle/$ref" in c["what"]
    assert not [c for t in report["tools"] if t["id"] == "ping" for c in t["changes"]]
    (b,) = report["broken_refs"]
    assert b["id"] == "makeItem" and b["what"] == "widened"
    assert b["refs"] == [{"file": str(spec), "ref": "#/components/schemas/Missing",
                          "pointer": "/components/schemas/Item/properties/toggle/$ref"}]
    # the compact view reports it too
    r = run_toolcat("project", spec, "--report", tmp_path / "c.json", "-o", tmp_path / "c.out")
    assert r.returncode == 0
    compact = json.loads((tmp_path / "c.json").read_bytes())
    assert any(c["kind"] == "widened" and "Missing" in c["what"]
               for t in compact["tools"] for c in t["changes"])


def test_omit_leaves_the_tool_out(spec, tmp_path):
    r, out, rep = _project(spec, tmp_path, "--broken-refs", "omit")
    assert r.returncode == 0, r.stderr
    assert [t["name"] for t in json.loads(out.read_bytes())["tools"]] == ["ping"]
    assert "1 tool left out" in r.stderr.decode()
    (b,) = json.loads(rep.read_bytes())["broken_refs"]
    assert b["id"] == "makeItem" and b["what"] == "omitted"


def test_fail_is_one_error_line_naming_the_option(spec, tmp_path):
    r, out, _rep = _project(spec, tmp_path, "--broken-refs", "fail")
    lines = r.stderr.decode().strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"toolcat: error: {spec}:") and "--broken-refs" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("cmd", [("tools",), ("measure",), ("diff-toolids",)])
def test_other_commands_read_it(spec, cmd):
    r = run_toolcat(*cmd, spec)
    assert r.returncode == 0, r.stderr
    assert "does not resolve" in r.stderr.decode()
    r = run_toolcat(*cmd, "--broken-refs", "fail", spec)
    assert r.returncode == 2


def test_diff_reads_it(spec):
    r = run_toolcat("diff", spec, spec)
    assert r.returncode == 0, r.stderr


def test_unknown_value_is_a_usage_error(spec):
    r = run_toolcat("project", "--broken-refs", "maybe", spec)
    assert r.returncode == 2 and b"--broken-refs must be one of widen, omit, fail" in r.stderr


def test_broken_parameter_and_response_refs(tmp_path):
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
        "operationId": "getA", "parameters": [{"$ref": "#/components/parameters/Gone"},
                                              {"name": "q", "in": "query"}],
        "responses": {"200": {"$ref": "#/components/responses/Gone"}}}}}}
    p = tmp_path / "api.json"
    p.write_text(json.dumps(doc))
    r, out, rep = _project(p, tmp_path)
    assert r.returncode == 0, r.stderr
    (t,) = json.loads(out.read_bytes())["tools"]
    assert list(t["inputSchema"]["properties"]) == ["q"]
    (rt,) = json.loads(rep.read_bytes())["tools"]
    assert sorted(c["pointer"] for c in rt["changes"] if c["kind"] == "widened") == [
        "/inputSchema", "/outputSchema"]
