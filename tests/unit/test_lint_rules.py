"""Per rule: a catalog that triggers it (right file, line, tool, pointer) and a near miss."""

from __future__ import annotations

import json
import re

import pytest

from support.lint import codes, line_of, mcp, only, run, tool, write
from toolcat.config import Config

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"   # a GitHub token shape (not a real one)


def one(findings, code):
    got = only(findings, code)
    assert len(got) == 1, (code, findings)
    return got[0]


def check(f, path, line, tool_id, pointer):
    assert f.file == str(path)
    assert f.line == line, (f.line, line, f)
    assert f.tool == tool_id
    assert f.pointer == pointer


# ----------------------------------------------------------------------------- TC1xx

def test_tc101_duplicate_id(tmp_path):
    p = write(tmp_path, mcp(tool("a"), tool("b", "Other."), tool("a", "Third.")))
    f = one(run(p), "TC101")
    check(f, p, line_of(p, '"name": "a"', 1), "a", "/name")
    assert f.severity == "error"
    # near miss: differ only in case -> TC109, not TC101
    p2 = write(tmp_path, mcp(tool("getUser"), tool("getuser", "Other.")), "case.json")
    fs = run(p2)
    assert "TC101" not in codes(fs)
    one(fs, "TC109")


def test_tc102_tool_id_format(tmp_path):
    p = write(tmp_path, mcp(tool("search web!"), tool("ok_name-1", "Other.")))
    f = one(run(p), "TC102")
    check(f, p, line_of(p, "search web!"), "search web!", "/name")
    # MCP (2025-11-25 and later): 129 characters is one too many; 128 is fine
    p2 = write(tmp_path, mcp(tool("x" * 129), tool("y" * 128, "Other.")), "long.json")
    assert [f.tool for f in only(run(p2), "TC102")] == ["x" * 129]
    # the spec's own example has dots; 2025-06-18 had no name grammar at all
    p4 = write(tmp_path, mcp(tool("admin.tools.list"), tool("a b", "Other.")), "dots.json")
    assert [f.tool for f in only(run(p4), "TC102")] == ["a b"]
    cfg = Config()
    cfg.mcp_version = "2025-06-18"
    assert only(run(p4, config=cfg), "TC102") == []
    # missing name
    p3 = write(tmp_path, mcp(tool("named"), {"description": "No name.", "inputSchema": {
        "type": "object", "properties": {}}}), "noname.json")
    assert "TC102" in codes(run(p3))


def test_tc102_openwop_and_gemini_patterns(tmp_path):
    desc = {"toolId": "mcp:fs.read", "source": "mcp", "safetyTier": "read",
            "description": "Read a file.",
            "inputSchema": {"type": "object", "properties": {}}}
    p = write(tmp_path, {"tools": [desc]}, "wop.json")
    assert "TC102" not in codes(run(p))                      # OpenWOP ids have a colon
    assert "PV508" in codes(run(p, profile="openai-strict"))  # OpenAI names do not
    p2 = write(tmp_path, mcp(tool("fs.read")), "dots.json")
    assert "TC102" not in codes(run(p2))                      # MCP names may hold dots
    # the 64-character, no-dot rule is the providers' (a portability finding)
    for prof in ("openai-strict", "openai", "anthropic", "anthropic-strict"):
        fs = run(p2, profile=prof)
        assert "PV508" in codes(fs) and "TC102" not in codes(fs), prof
    assert "PV508" not in codes(run(p2, profile="gemini"))    # Gemini allows dots
    p3 = write(tmp_path, mcp(tool("x" * 65)), "long65.json")
    assert codes(only(run(p3, profile="openai"), "PV508")) == ["PV508"]
    assert only(run(p3), "TC102") == []


def test_tc102_openapi_missing_operation_id(tmp_path):
    spec = """openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      summary: List pets.
      responses: {"200": {description: ok}}
    post:
      operationId: createPet
      summary: Create a pet.
      responses: {"200": {description: ok}}
"""
    p = write(tmp_path, spec, "api.yaml")
    fs = only(run(p), "TC102")
    assert len(fs) == 1 and "no operationId" in fs[0].message
    assert fs[0].line == line_of(p, "get:") + 1   # the operation object (its first key)


def _wop(**over):
    d = {"toolId": "x-host-acme-tool", "source": "host-extension", "safetyTier": "read",
         "description": "Does a thing.", "inputSchema": {"type": "object", "properties": {}}}
    d.update(over)
    return {k: v for k, v in d.items() if v is not None}


def test_tc103_openwop_schema(tmp_path):
    p = write(tmp_path, {"tools": [_wop(safetyTier=None), _wop(toolId="ok")]}, "wop.json")
    f = one(run(p), "TC103")
    assert "safetyTier" in f.message and f.tool == "x-host-acme-tool"
    assert f.line == line_of(p, '"toolId": "x-host-acme-tool"') - 1   # the descriptor's "{"
    p2 = write(tmp_path, {"tools": [_wop(danger=True)]}, "wop2.json")
    f2 = one(run(p2), "TC103")
    assert "danger" in f2.message
    p3 = write(tmp_path, {"tools": [_wop()]}, "ok.json")
    assert "TC103" not in codes(run(p3))


def test_tc104_exec_tier(tmp_path):
    p = write(tmp_path, {"tools": [_wop(source="node-pack", safetyTier="exec"),
                                   _wop(toolId="shell", safetyTier="exec")]}, "wop.json")
    fs = run(p)
    f = one(fs, "TC104")
    check(f, p, line_of(p, '"source": "node-pack"'), "x-host-acme-tool", "/source")
    assert "TC103" not in codes(fs)     # the schema's if/then is left to TC104


def test_tc105_secrets(tmp_path):
    t = tool(token={"type": "string", "description": "API token.", "default": GHP},
             password={"type": "string", "description": "Password.", "default": "hunter2x"})
    t["annotations"] = {"apiKey": "Zq8v0LmN4pR2sT6uW1xY3zA5"}
    p = write(tmp_path, mcp(t))
    fs = only(run(p), "TC105")
    by_ptr = {f.pointer: f for f in fs}
    assert set(by_ptr) == {"/inputSchema/properties/token/default",
                           "/inputSchema/properties/password/default", "/annotations/apiKey"}
    assert by_ptr["/inputSchema/properties/token/default"].line == line_of(p, GHP)
    assert "GitHub token" in by_ptr["/inputSchema/properties/token/default"].message
    # token shapes anywhere: in a description, in examples
    t2 = tool(description=f"Uses {GHP} internally.",
              q={"type": "string", "description": "Query.", "examples": [GHP]})
    p2 = write(tmp_path, mcp(t2), "shapes.json")
    assert sorted(f.pointer for f in only(run(p2), "TC105")) == [
        "/description", "/inputSchema/properties/q/examples/0"]


def test_tc105_near_misses(tmp_path):
    t = tool(token={"type": "string", "description": "Your API token (we never store it)."},
             password={"type": "string", "description": "Password.", "default": "<password>"},
             api_key={"type": "string", "description": "Key.", "examples": ["${API_KEY}"]},
             max_tokens={"type": "integer", "description": "Tokens.", "default": 4096},
             page_token={"type": "string", "description": "Cursor.", "default": "abcdefgh"},
             kind={"type": "string", "description": "Kind.", "enum": ["bearer", "basic"]})
    t["annotations"] = {"secret": "changeme", "token": "your-token-here"}
    p = write(tmp_path, mcp(t))
    assert only(run(p), "TC105") == []


def test_tc106_tc107_descriptions(tmp_path):
    p = write(tmp_path, mcp(tool("long", "x" * 1025), tool("edge", "y" * 1024),
                            tool("none", "")))
    fs = run(p)
    f = one(fs, "TC106")
    check(f, p, line_of(p, "x" * 1025), "long", "/description")
    assert f.severity == "warning"
    assert one(fs, "TC107").tool == "none"
    cfg = Config(description_max=2000)
    assert "TC106" not in codes(run(p, config=cfg))


def test_tc107_title_is_enough_on_a_compact_view(tmp_path):
    titled = tool("titled", "")
    titled["title"] = "Search the web"
    data = mcp(titled, tool("bare", ""))
    compact = write(tmp_path, data, name="tools.compact.json")
    assert [f.tool for f in only(run(compact), "TC107")] == ["bare"]
    standard = write(tmp_path, data, name="tools.json")
    assert sorted(f.tool for f in only(run(standard), "TC107")) == ["bare", "titled"]


def test_tc108_duplicate_description(tmp_path):
    p = write(tmp_path, mcp(tool("a", "Search."), tool("b", "Search."), tool("c", "Other.")))
    f = one(run(p), "TC108")
    check(f, p, line_of(p, '"description": "Search."', 1), "b", "/description")


def test_tc110_invalid_entry(tmp_path):
    p = write(tmp_path, {"tools": [tool("a"), "not a tool", 3]})
    fs = only(run(p), "TC110")
    assert len(fs) == 2 and all(f.severity == "error" for f in fs)


# ----------------------------------------------------------------------------- CS2xx

def test_cs201_cs202(tmp_path):
    t1 = {"name": "a", "description": "A.", "inputSchema": {"type": ["object"], "properties": {}}}
    t2 = {"name": "b", "description": "B.", "inputSchema": {"type": "object"}}
    t3 = {"name": "c", "description": "C."}
    p = write(tmp_path, mcp(t1, t2, t3))
    # the compact-view rules are RFC 0112's (openwop-compact), not the mcp profile's
    assert [f for f in run(p) if f.code.startswith("CS")] == []
    fs = run(p, config=Config(select=["CS"]))
    cs201 = only(fs, "CS201")
    assert [(f.tool, f.pointer) for f in cs201] == [("a", "/inputSchema/type"), ("c", "")]
    assert cs201[0].line == line_of(p, '"type": [')
    cs202 = one(fs, "CS202")
    check(cs202, p, line_of(p, '"inputSchema"', 1), "b", "/inputSchema")
    assert {f.severity for f in run(p, profile="openwop-compact") if f.code.startswith("CS20")} \
        == {"error"}
    # the MCP specification's own rule (MC101) reports the root type and the missing schema
    mc = only(run(p), "MC101")
    assert [(f.tool, f.pointer) for f in mc] == [("a", "/inputSchema/type"), ("c", "")]


def test_cs203_any_depth(tmp_path):
    t = tool(q={"type": "object", "description": "Q.", "properties": {
        "deep": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/n"}]}},
        "p": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}})
    t["inputSchema"]["$defs"] = {"n": {"not": {"type": "null"}}}
    p = write(tmp_path, mcp(t))
    fs = only(run(p, profile="openwop-compact"), "CS203")
    assert sorted(f.pointer for f in fs) == sorted([
        "/inputSchema/properties/q/properties/deep/items/anyOf",
        "/inputSchema/properties/q/properties/deep/items/anyOf/1/$ref",
        "/inputSchema/properties/q/properties/p/patternProperties",
        "/inputSchema/$defs/n/not"])
    f = [f for f in fs if f.pointer.endswith("/anyOf")][0]
    assert f.line == line_of(p, '"anyOf"') and f.tool == "search"


def test_cs203_near_miss_property_names_and_data(tmp_path):
    t = tool(oneOf={"type": "object", "description": "A property named oneOf.",
                    "properties": {"$ref": {"type": "string", "description": "Named $ref."},
                                   "not": {"type": "boolean", "description": "Named not."}}},
             kind={"type": "object", "description": "Data values.",
                   "enum": [{"$ref": "#/nowhere", "oneOf": [1]}],
                   "const": {"allOf": []}, "default": {"anyOf": [], "$ref": "#/x"},
                   "examples": [{"not": 1, "patternProperties": {}}]})
    p = write(tmp_path, mcp(t))
    fs = run(p)
    assert "CS203" not in codes(fs)
    assert "SC302" not in codes(fs)       # $ref keys inside data are not references


def test_cs204_compact_field_set(tmp_path):
    d = _wop(auth={"scopes": ["x"]}, danger=True)
    p = write(tmp_path, {"view": "compact", "tools": [d]}, "cat.json")
    fs = only(run(p), "CS204")
    assert sorted((f.pointer, f.severity) for f in fs) == [("/auth", "error"),
                                                           ("/danger", "error")]
    assert [f.line for f in fs if f.pointer == "/auth"] == [line_of(p, '"auth"')]
    # the standard view may carry them
    p2 = write(tmp_path, {"tools": [_wop(auth={"scopes": ["x"]})]}, "std.json")
    assert "CS204" not in codes(run(p2))


def test_cs205_lowering(tmp_path):
    t = tool(q={"type": "string", "description": "Q."})
    t["inputSchema"].update({"$defs": {"a": {"type": "string"}},
                             "if": {"required": ["q"]}, "then": {"required": ["q"]}})
    p = write(tmp_path, mcp(t))
    assert only(run(p), "CS205") == []
    assert sorted(f.pointer for f in only(run(p, profile="openwop-compact"), "CS205")) == [
        "/inputSchema/$defs", "/inputSchema/if", "/inputSchema/then"]


# ----------------------------------------------------------------------------- SC3xx

def test_sc301_metaschema(tmp_path):
    t = tool(q={"type": "strin", "description": "Q.", "minLength": -1},
             r={"type": "string", "description": "R.", "pattern": "([a-z"},
             s={"type": "array", "description": "S.", "items": "string"})
    t["inputSchema"]["required"] = ["q", "q"]
    p = write(tmp_path, mcp(t))
    got = {f.pointer: f for f in only(run(p), "SC301")}
    assert set(got) == {"/inputSchema/properties/q/type", "/inputSchema/properties/q/minLength",
                        "/inputSchema/properties/r/pattern", "/inputSchema/properties/s/items",
                        "/inputSchema/required"}
    assert got["/inputSchema/properties/q/type"].line == line_of(p, '"strin"')
    ok = tool(q={"type": ["string", "null"], "description": "Q.", "minLength": 0,
                 "pattern": "^(?<year>[0-9]{4})$"})
    assert "SC301" not in codes(run(write(tmp_path, mcp(ok), "ok.json")))


def test_sc302_local_refs(tmp_path):
    t = tool(a={"$ref": "#/$defs/present"}, b={"$ref": "#/$defs/missing"},
             c={"$ref": "#anchor"}, d={"$ref": "https://example.com/schema.json"},
             e={"$ref": "#/properties/a"})
    t["inputSchema"]["$defs"] = {"present": {"type": "string"},
                                 "anch": {"$anchor": "anchor", "type": "integer"}}
    p = write(tmp_path, mcp(t))
    got = {f.pointer: f for f in only(run(p), "SC302")}
    assert set(got) == {"/inputSchema/properties/b/$ref", "/inputSchema/properties/d/$ref"}
    assert got["/inputSchema/properties/b/$ref"].line == line_of(p, "#/$defs/missing")
    assert got["/inputSchema/properties/b/$ref"].severity == "error"


def test_sc302_from_openapi_loader(tmp_path):
    spec = """openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    post:
      operationId: createPet
      description: Create a pet.
      requestBody:
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/Missing'
      responses: {"200": {description: ok}}
"""
    p = write(tmp_path, spec, "api.yaml")
    fs = only(run(p), "SC302")
    assert len(fs) == 1
    assert fs[0].file == str(p) and fs[0].line == line_of(p, "#/components/schemas/Missing")


def test_sc303_required_not_declared(tmp_path):
    t = tool(q={"type": "string", "description": "Q."})
    t["inputSchema"]["required"] = ["q", "qq"]
    p = write(tmp_path, mcp(t))
    f = one(run(p), "SC303")
    check(f, p, line_of(p, '"qq"'), "search", "/inputSchema/required/1")
    # near miss: declared in an allOf sibling / a required-only branch naming one
    t2 = tool(q={"type": "string", "description": "Q."})
    t2["inputSchema"]["allOf"] = [{"properties": {"z": {"type": "string"}}},
                                  {"required": ["z", "q"]}]
    t2["inputSchema"]["required"] = ["q", "z"]
    assert "SC303" not in codes(run(write(tmp_path, mcp(t2), "ok.json")))
    # a required-only allOf branch is the same object: a name declared nowhere is reported
    # (the compact view merges the branch, and lint of it reports the name there)
    t2["inputSchema"]["allOf"][1]["required"] = ["z", "w"]
    f = one(run(write(tmp_path, mcp(t2), "w.json")), "SC303")
    assert f.pointer == "/inputSchema/allOf/1/required/1" and "'w'" in f.message
    # a referenced definition that only requires, likewise, where it is written (once)
    t2["inputSchema"]["allOf"][1] = {"$ref": "#/$defs/Req"}
    t2["inputSchema"]["properties"]["r"] = {"allOf": [{"$ref": "#/$defs/Z"},
                                                      {"$ref": "#/$defs/Req"}]}
    t2["inputSchema"]["$defs"] = {"Req": {"required": ["z", "w"]},
                                  "Z": {"properties": {"z": {}}}}
    f = one(run(write(tmp_path, mcp(t2), "ref.json")), "SC303")
    assert f.pointer == "/inputSchema/$defs/Req/required/1" and "'w'" in f.message
    # a required-only definition used alone is the idiom: not checked
    t2["inputSchema"]["properties"]["r"] = {"$ref": "#/$defs/Req"}
    t2["inputSchema"]["allOf"] = [{"properties": {"z": {"type": "string"}}}]
    assert "SC303" not in codes(run(write(tmp_path, mcp(t2), "alone.json")))


def test_sc304_prose(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "string", "description": "d" * 301}),
                            tool("b", "B.", q={"type": "string", "description": "e" * 300})))
    f = one(run(p), "SC304")
    check(f, p, line_of(p, "d" * 301), "search", "/inputSchema/properties/q/description")
    assert f.severity == "info"


def test_sc305_ref_siblings(tmp_path):
    t = tool(q={"$ref": "#/definitions/s", "minLength": 3, "description": "Q."})
    t["inputSchema"].update({"$schema": "http://json-schema.org/draft-07/schema#",
                             "definitions": {"s": {"type": "string"}}})
    p = write(tmp_path, mcp(t))
    f = one(run(p), "SC305")
    assert f.pointer == "/inputSchema/properties/q/$ref" and "minLength" in f.message
    t["inputSchema"]["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    assert "SC305" not in codes(run(write(tmp_path, mcp(t), "ok.json")))


def test_sc306_no_effect(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "string", "description": "Q.", "nullable": True,
                                    "minLenght": 2},
                                 r={"type": ["string", "null"], "description": "R.",
                                    "nullable": True, "x-requried": 1})))
    got = sorted(f.pointer for f in only(run(p), "SC306"))
    assert got == ["/inputSchema/properties/q/minLenght", "/inputSchema/properties/q/nullable"]


def test_sc307_value_type(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "integer", "description": "Q.", "default": "10"},
                                 r={"type": "number", "description": "R.", "default": 1,
                                    "enum": [1, 2.5]})))
    f = one(run(p), "SC307")
    check(f, p, line_of(p, '"10"'), "search", "/inputSchema/properties/q/default")


# ----------------------------------------------------------------------------- MR4xx

def test_mr401_mr404_parameters(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "string"}, r={"description": "R."},
                                 s={"$ref": "#/$defs/x"})))
    fs = run(p)
    f = one(fs, "MR401")
    check(f, p, line_of(p, '"q"'), "search", "/inputSchema/properties/q")
    assert one(fs, "MR404").pointer == "/inputSchema/properties/r"


def test_mr402_single_enum(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "string", "description": "Q.", "enum": ["only"]},
                                 r={"type": "string", "description": "R.", "enum": ["a", "b"]})))
    f = one(run(p), "MR402")
    check(f, p, line_of(p, '"enum": ['), "search", "/inputSchema/properties/q/enum")


def test_mr403_deep_nesting(tmp_path):
    leaf: dict = {"type": "string", "description": "Leaf."}
    for i in range(6):
        leaf = {"type": "object", "description": f"L{i}.", "properties": {f"k{i}": leaf}}
    p = write(tmp_path, mcp(tool(q=leaf)))
    fs = only(run(p), "MR403")
    assert len(fs) == 1
    assert fs[0].pointer.count("/properties/") == 5
    assert "MR403" not in codes(run(p, config=Config(max_depth=7)))


# ----------------------------------------------------------------------------- PV5xx

def test_pv_openai_strict(tmp_path):
    t = tool(q={"type": "string", "description": "Q.", "minLength": 1},
             r={"type": "object", "description": "R.", "properties": {
                 "s": {"type": "string", "description": "S."}}})
    t["inputSchema"]["required"] = ["q"]
    p = write(tmp_path, mcp(t))
    fs = run(p, profile="openai-strict")
    assert [f.pointer for f in only(fs, "PV501")] == ["/inputSchema/properties/q/minLength"]
    assert sorted(f.pointer for f in only(fs, "PV502")) == [
        "/inputSchema", "/inputSchema/properties/r"]
    assert sorted(f.pointer for f in only(fs, "PV503")) == [
        "/inputSchema/properties/r", "/inputSchema/properties/r/properties/s"]
    assert not [f for f in fs if f.code.startswith("CS")]      # CS rules are off there
    # the same catalog under the default profile: no PV findings
    assert not [f for f in run(p) if f.code.startswith("PV")]
    ok = {"name": "ok", "description": "Ok.", "inputSchema": {
        "type": "object", "additionalProperties": False, "required": ["q"],
        "properties": {"q": {"type": ["string", "null"], "description": "Q."}}}}
    assert not [f for f in run(write(tmp_path, mcp(ok), "ok.json"), profile="openai-strict")
                if f.code.startswith("PV")]


def test_pv_openai_limits(tmp_path):
    enum = [f"value-{i:04d}" for i in range(1001)]
    p = write(tmp_path, mcp(tool(q={"type": "string", "description": "Q.", "enum": enum})))
    assert any("enum values" in f.message for f in only(run(p, profile="openai-strict"),
                                                         "PV504"))
    many = {"tools": [tool(f"t{i}", f"Tool {i}.") for i in range(129)]}
    p2 = write(tmp_path, many, "many.json")
    assert len(only(run(p2, profile="openai-strict"), "PV506")) == 1
    assert only(run(p2, profile="anthropic"), "PV506") == []
    # a client profile holds the catalog to the client's own limit too (issue 33: VS Code
    # Copilot 128 tools per request, Windsurf 100, Cursor 40), with the limit's source
    (f,) = only(run(p2, profile="vscode"), "PV506")
    assert f.message.startswith("129 tools (max 128 for VS Code Copilot in one request: https://")
    assert [f.message.split(" (")[0] for f in only(run(p2, profile="windsurf"), "PV506")] == \
        ["129 tools"]
    few = write(tmp_path, {"tools": [tool(f"t{i}", f"Tool {i}.") for i in range(41)]}, "41.json")
    assert len(only(run(few, profile="cursor"), "PV506")) == 1
    assert only(run(few, profile="windsurf"), "PV506") == []


def test_pv_anthropic_root_combinators(tmp_path):
    t = tool()
    t["inputSchema"]["anyOf"] = [{"required": ["q"]}]
    p = write(tmp_path, mcp(t))
    f = one(run(p, profile="anthropic"), "PV505")
    assert f.pointer == "/inputSchema/anyOf"
    t2 = tool(q={"type": "string", "description": "Q.", "anyOf": [{"minLength": 1}]})
    assert "PV505" not in codes(run(write(tmp_path, mcp(t2), "ok.json"), profile="anthropic"))


def test_pv_gemini_closed_schema(tmp_path):
    t = tool(q={"type": ["string", "null"], "description": "Q.", "enum": ["a", 1]})
    t["inputSchema"]["$schema"] = "http://json-schema.org/draft-07/schema#"
    t["inputSchema"]["additionalProperties"] = False
    p = write(tmp_path, mcp(t))
    fs = run(p, profile="gemini")
    assert sorted(f.pointer for f in only(fs, "PV501")) == [
        "/inputSchema/$schema", "/inputSchema/additionalProperties"]
    assert sorted(f.pointer for f in only(fs, "PV507")) == [
        "/inputSchema/properties/q/enum", "/inputSchema/properties/q/type"]


# ----------------------------------------------------------------------------- engine

def test_shared_openapi_component_reported_once(tmp_path):
    spec = """openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    post:
      operationId: opA
      description: A.
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Body'}
      responses: {"200": {description: ok}}
  /b:
    post:
      operationId: opB
      description: B.
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Body'}
      responses: {"200": {description: ok}}
components:
  schemas:
    Body:
      type: object
      properties:
        pet: {$ref: '#/components/schemas/Pet'}
    Pet:
      type: object
      properties:
        kind:
          oneOf:
            - {type: string}
            - {type: integer}
"""
    p = write(tmp_path, spec, "api.yaml")
    fs = only(run(p, config=Config(extend_select=["CS"])), "CS203")
    oneofs = [f for f in fs if f.pointer.endswith("/oneOf")]
    assert len(oneofs) == 1, fs
    assert oneofs[0].line == line_of(p, "oneOf:") + 1
    assert oneofs[0].tool in ("opA", "opB")


def test_yaml_ignore_comments(tmp_path):
    text = """tools:
  - name: a
    description: A.
    inputSchema:
      type: object
      properties:
        q:
          description: Q.
          anyOf:   # toolcat: ignore[CS203]
            - {type: string}
        r:
          description: R.
          oneOf: [{type: string}]  # toolcat: ignore
        s:
          description: S.
          allOf: [{type: string}]  # toolcat: ignore[SC301]
"""
    p = write(tmp_path, text, "tools.yaml")
    fs = only(run(p, config=Config(extend_select=["CS"])), "CS203")
    assert [f.pointer for f in fs] == ["/inputSchema/properties/s/allOf"]


OPENAPI_IGNORES = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: opA
      description: A.
      parameters:
        - name: q
          in: query
          schema: {type: string}   # toolcat: ignore[MR401]
        - name: r
          in: query
          schema: {type: string}   # toolcat: ignore[cs203, MR401 ,SC3]
        - name: s
          in: query
          schema: {type: string}   # toolcat: ignore
        - name: t
          in: query
          schema: {type: string}   # toolcat: ignore[MR402]
        - name: u
          in: query
          description: U.
          schema: {type: string, enum: [x], title: "not a comment # toolcat: ignore"}
        - name: v
          in: query
          schema: {type: string}
          # toolcat: ignore[MR401]  (a comment on its own line covers nothing)
        - name: w
          in: query
          schema: {$ref: '#/components/schemas/Kind'}
        - name: y
          in: query
          description: Y.
          schema: {type: string, enum: [only], title: 'it''s # not'}   # toolcat: ignore[MR4]
components:
  schemas:
    Kind:
      oneOf:   # toolcat: ignore[CS203]
        - {type: string}
        - {type: integer}
      not:
        type: 'null'
      description: The kind.
"""


def test_yaml_ignore_comments_in_an_openapi_spec(tmp_path):
    p = write(tmp_path, OPENAPI_IGNORES, "api.yaml")
    fs = run(p, config=Config(extend_select=["CS"]))
    mr401 = sorted(f.pointer.rsplit("/", 1)[1] for f in only(fs, "MR401"))
    # q: its code; r: one of several codes; s: every code; t: another code only; v: the
    # comment is not on the line of the finding (w is only a $ref: MR401 skips it)
    assert mr401 == ["t", "v"]
    for f in only(fs, "MR401"):
        assert f.line == line_of(p, "- name: " + f.pointer[-1]) + 2
    # "# toolcat: ignore" inside quoted scalars is text, not a comment
    mr402 = [f.pointer for f in only(fs, "MR402")]
    assert mr402 == ["/inputSchema/properties/u/enum"]
    # the key's line covers a block value that starts on the next line; `not` is not covered
    cs203 = sorted(f.pointer.rsplit("/", 1)[1] for f in only(fs, "CS203"))
    assert cs203 == ["$ref", "not"]
    # without the comments every one of them is reported
    plain = write(tmp_path, re.sub(r"  # toolcat: ignore[^\n]*", "", OPENAPI_IGNORES), "plain.yaml")
    fs = run(plain, config=Config(extend_select=["CS"]))
    assert sorted(f.pointer.rsplit("/", 1)[1] for f in only(fs, "MR401")) == \
        ["q", "r", "s", "t", "v"]
    assert len(only(fs, "MR402")) == 2
    assert sorted(f.pointer.rsplit("/", 1)[1] for f in only(fs, "CS203")) == \
        ["$ref", "not", "oneOf"]


def test_json_has_no_ignore_comments(tmp_path):
    data = mcp(tool(q={"type": "string", "title": "# toolcat: ignore"}))
    p = write(tmp_path, data)
    assert "MR401" in codes(run(p))
    # the same catalog as YAML (flow style: JSON is YAML): still a string, not a comment
    y = write(tmp_path, json.dumps(data, indent=2), "tools.yaml")
    assert "MR401" in codes(run(y))


def test_config_select_ignore_severity_per_file(tmp_path):
    p = write(tmp_path, mcp(tool(q={"type": "string", "enum": ["x"]})))
    base = codes(run(p))
    assert "MR401" in base and "MR402" in base
    assert codes(run(p, config=Config(select=["MR402"]))) == ["MR402"]
    assert "MR401" not in codes(run(p, config=Config(ignore=["MR4"])))
    f = one(run(p, config=Config(severity={"MR402": "error"})), "MR402")
    assert f.severity == "error"
    assert "MR402" not in codes(run(p, config=Config(severity={"MR402": "off"})))
    cfg = Config(root=str(tmp_path), per_file_ignores={"tools.json": ["MR"]})
    assert not [c for c in codes(run(p, config=cfg)) if c.startswith("MR")]


@pytest.mark.parametrize("profile", ["mcp", "openwop-compact", "openai-strict", "anthropic",
                                     "gemini"])
def test_every_profile_runs(tmp_path, profile):
    p = write(tmp_path, json.loads(json.dumps(mcp(tool()))))
    run(p, profile=profile)


SAMPLE_TOKENS = {
    "an AWS access key id": "AKIA" + "Q" * 16,
    "a Google API key": "AIza" + "b" * 35,
    "a GitHub token": GHP,
    "a GitHub fine-grained token": "github_pat_" + "a1" * 30,
    "a GitLab token": "glpat-" + "x9" * 10,
    "a Slack token": "xoxb-123456789012-abcdefghijkl",
    "a Slack webhook URL": "https://hooks.slack.com/services/T0123456/B0123456/" + "a" * 24,
    "a private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + "k" * 40,
    "a JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0." + "s" * 20,
    "an Anthropic API key": "sk-ant-api03-" + "k" * 50,
    "an OpenAI API key": "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20,
    "an OpenAI project key": "sk-proj-" + "c" * 48,
    "an OpenAI API key (legacy)": "sk-" + "Ab1" * 16,
    "a Stripe live key": "sk_live_" + "d" * 24,
    "a SendGrid API key": "SG." + "e" * 22 + "." + "f" * 43,
    "an npm token": "npm_" + "g" * 36,
    "a Hugging Face token": "hf_" + "h" * 34,
    "an Azure storage account key": "AccountKey=" + "i" * 80,
}


def test_tc105_every_shape_and_the_text_prefilter():
    from toolcat.features.lint.rules.secrets import _SHAPES, shape, shape_hints

    assert {n for n, _l, _r in _SHAPES} == set(SAMPLE_TOKENS)
    for what, token in SAMPLE_TOKENS.items():
        assert shape(f"see {token} here") is not None, what
        text = json.dumps({"tools": [{"description": f"x {token} y"}]})
        hints = shape_hints(text)
        assert hints is not None and any(h in f"x {token} y" for h in hints), what
    assert shape_hints('{"a": "nothing to see"}') == frozenset()


def test_tc105_token_hidden_by_json_escapes(tmp_path):
    t = tool(q={"type": "string", "description": "Q.", "default": "PLACEHOLDER"})
    text = json.dumps(mcp(t), indent=2).replace("PLACEHOLDER", "\\u0067" + GHP[1:])
    p = write(tmp_path, text)
    assert json.loads(p.read_text())["tools"][0]["inputSchema"]["properties"]["q"]["default"] \
        == GHP
    assert [f.pointer for f in only(run(p), "TC105")] == ["/inputSchema/properties/q/default"]


# ----------------------------------------------------------------------------- robustness

def _json_values():
    from hypothesis import strategies as st

    keys = st.sampled_from(["type", "properties", "items", "required", "enum", "$ref", "oneOf",
                            "anyOf", "allOf", "not", "$defs", "default", "pattern", "minLength",
                            "additionalProperties", "description", "const", "$id", "$anchor",
                            "patternProperties", "if", "then", "dependencies", "token", "x"])
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2),
                       st.sampled_from(["object", "string", "#/$defs/a", "#a", "(", "", GHP,
                                        "array", "null"]))
    return st.recursive(leaves, lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(keys, kids, max_size=4)), max_leaves=25)


def test_lint_never_crashes_on_odd_schemas(tmp_path_factory):
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=120, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_json_values(), _json_values())
    def check(schema, annotations):
        d = tmp_path_factory.mktemp("fuzz")
        p = write(d, {"tools": [{"name": "t", "description": "T.", "inputSchema": schema,
                                 "outputSchema": schema, "annotations": annotations}]})
        for profile in ("mcp", "openai-strict", "gemini"):
            for f in run(p, profile=profile):
                assert f.code and f.severity in ("error", "warning", "info")

    check()


def test_tool_pointers_for_openai_and_anthropic_arrays(tmp_path):
    params = {"type": "object", "properties": {"a": {"type": "string", "description": "A.",
                                                     "default": GHP, "oneOf": [{}]}}}
    oa = [{"type": "function", "function": {"name": "f", "description": "F.",
                                            "parameters": params}}]
    p = write(tmp_path, oa, "openai.json")
    fs = run(p, config=Config(extend_select=["CS"]))
    for code in ("TC105", "CS203"):
        f = one(fs, code)
        assert f.tool == "f" and f.pointer.startswith("/inputSchema/properties/a/")
    assert one(fs, "TC105").line == line_of(p, GHP)
    an = [{"name": "g", "description": "G.", "input_schema": params}]
    p2 = write(tmp_path, an, "anthropic.json")
    f = one(run(p2), "TC105")
    assert (f.tool, f.pointer, f.line) == ("g", "/inputSchema/properties/a/default",
                                           line_of(p2, GHP))


def test_sc308_required_read_only(tmp_path):
    t = tool(q={"type": "string", "description": "Q."},
             petId={"$ref": "#/$defs/Id"}, label={"type": "string", "description": "N."})
    t["inputSchema"]["required"] = ["q", "petId", "label"]
    t["inputSchema"]["$defs"] = {"Id": {"type": "string", "readOnly": True}}
    t["outputSchema"] = {"type": "object", "required": ["token", "name"],
                         "properties": {"token": {"type": "string", "writeOnly": True},
                                        "name": {"type": "string", "readOnly": True}}}
    p = write(tmp_path, mcp(t))
    fs = only(run(p), "SC308")
    assert sorted(f.pointer for f in fs) == ["/inputSchema/required/1",
                                            "/outputSchema/required/0"], fs
    f = next(f for f in fs if f.pointer == "/inputSchema/required/1")
    check(f, p, line_of(p, '"petId",'), "search", "/inputSchema/required/1")
    assert f.severity == "warning" and "readOnly" in f.message
    # near misses: readOnly only in the output, writeOnly only in the input, a property
    # *named* readOnly, and OpenAPI 3.0 (where the loader already lifted the requirement)
    t2 = tool(q={"type": "string", "description": "Q."},
              readOnly={"type": "boolean", "description": "R."},
              pw={"type": "string", "writeOnly": True, "description": "P."})
    t2["inputSchema"]["required"] = ["readOnly", "pw"]
    t2["outputSchema"] = {"type": "object", "required": ["id"],
                          "properties": {"id": {"type": "string", "readOnly": True}}}
    assert "SC308" not in codes(run(write(tmp_path, mcp(t2), "ok.json")))
    spec = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /pets:
    post:
      operationId: createPet
      description: Create a pet.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [id, name]
              properties:
                id: {type: string, readOnly: true, description: Id.}
                name: {type: string, description: Name.}
      responses: {"200": {description: ok}}
"""
    assert "SC308" not in codes(run(write(tmp_path, spec, "api30.yaml")))
    spec31 = spec.replace("openapi: 3.0.3", "openapi: 3.1.0")
    p31 = write(tmp_path, spec31, "api31.yaml")
    f31 = one(run(p31), "SC308")
    assert f31.line == line_of(p31, "required: [id, name]")


# --------------------------------------------------- SC303/SC307/SC308 through composition
# (issue 15 follow-up: the compact view inlines $ref and merges allOf/anyOf/oneOf, so a rule
# that only read a node's own keywords saw in the view what it missed in the source)

def test_sc303_reads_required_through_allof_and_refs(tmp_path):
    t = tool(q={"type": "string", "description": "Q."})
    s = t["inputSchema"]
    s["properties"]["body"] = {"allOf": [{"$ref": "#/$defs/Create"}], "required": ["name", "nmae"]}
    # the names are declared four references deep: deeper than the old fixed 3 levels
    s["$defs"] = {"Create": {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"x": {}}}]},
                  "Base": {"allOf": [{"$ref": "#/$defs/Root"}]},
                  "Root": {"type": "object", "properties": {"name": {"type": "string"}}}}
    p = write(tmp_path, mcp(t))
    f = one(run(p), "SC303")
    assert f.pointer == "/inputSchema/properties/body/required/1" and "'nmae'" in f.message
    # a oneOf branch naming its parent's property, and the required-only idiom: quiet
    t2 = tool(q={"type": "string", "description": "Q."}, r={"type": "string"})
    t2["inputSchema"]["oneOf"] = [{"required": ["q"]}, {"required": ["r"], "allOf": [
        {"properties": {"z": {}}}]}]
    assert "SC303" not in codes(run(write(tmp_path, mcp(t2), "ok.json")))


def test_sc307_judges_a_default_by_its_branches_types(tmp_path):
    p = write(tmp_path, mcp(tool(
        stop={"default": None, "oneOf": [{"type": "string"}, {"$ref": "#/$defs/list"}]},
        ok={"default": None, "anyOf": [{"type": "string"}, {"type": "null"}]},
        unknown={"default": None, "oneOf": [{"type": "string"}, {"enum": [1]}]})))
    data = json.loads(p.read_text())
    data["tools"][0]["inputSchema"]["$defs"] = {"list": {"type": "array"}}
    p.write_text(json.dumps(data, indent=2))
    f = one(run(p), "SC307")
    assert f.pointer == "/inputSchema/properties/stop/default"
    assert f.message == "default is null but type is string/array"


def test_sc307_judges_branch_values_by_the_schemas_own_type(tmp_path):
    """A `type` excludes the values its branches allow (Adyen's RaiseDisputesService-v4:
    `{"type": "object", "oneOf": [{"$ref": CancellingEntity}, {"type": "null"}]}` with a
    string enum in CancellingEntity accepts none of them): the source reports what its compact
    view (which merges the branches into one enum beside the type) reports, at the `type`."""
    t = tool(q={"type": "string", "description": "Q."},
             who={"type": "object", "oneOf": [{"$ref": "#/$defs/Who"}, {"type": "null"}]},
             deep={"type": "integer", "allOf": [{"anyOf": [{"$ref": "#/$defs/Ref"}]}]},
             ok={"type": ["string", "null"], "oneOf": [{"$ref": "#/$defs/Who"},
                                                        {"type": "null"}]},
             num={"type": "number", "anyOf": [{"enum": [1, 2.5]}, {"const": 3}]},
             own={"type": "object", "anyOf": [{"type": "integer", "enum": ["x"]}]})
    t["inputSchema"]["$defs"] = {"Who": {"type": "string", "enum": ["merchant", "cardholder"]},
                                 "Ref": {"$ref": "#/$defs/Deep"},
                                 "Deep": {"default": "ten"}}
    p = write(tmp_path, mcp(t))
    got = sorted((f.pointer, f.message) for f in only(run(p), "SC307"))
    assert got == [
        ("/inputSchema/properties/deep/type", "default is string but type is integer"),
        # the branch's own type already excludes "x": reported there, once
        ("/inputSchema/properties/own/anyOf/0/enum/0", "enum value 'x' is string but type is "
                                                       "integer"),
        ("/inputSchema/properties/who/type", "enum value 'merchant' is string but type is "
                                             "object"),
    ], got


def test_sc308_reads_read_only_through_composition(tmp_path):
    t = tool(q={"type": "string", "description": "Q."},
             both={"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "string", "readOnly": True}]},
             one={"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "string"}]},
             all={"allOf": [{"$ref": "#/$defs/Id"}]})
    t["inputSchema"]["required"] = ["q", "both", "one", "all"]
    t["inputSchema"]["$defs"] = {"Id": {"type": "integer", "readOnly": True}}
    p = write(tmp_path, mcp(t))
    got = sorted(f.pointer for f in only(run(p), "SC308"))
    assert got == ["/inputSchema/required/1", "/inputSchema/required/3"], got


def test_openapi30_lifts_required_read_only_through_allof(tmp_path):
    """OpenAPI 3.0: a readOnly property is required in responses only; the loader lifts it
    from a request's `required` also when the property is readOnly through allOf (lint and
    the loader read readOnly the same way, so SC308 stays quiet)."""
    spec = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /pets:
    post:
      operationId: createPet
      description: Create a pet.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [id, name]
              properties:
                id: {allOf: [{$ref: '#/components/schemas/Id'}], description: Id.}
                name: {type: string, description: Name.}
      responses: {"200": {description: ok}}
components:
  schemas:
    Id: {type: string, readOnly: true}
"""
    p = write(tmp_path, spec, "api30.yaml")
    assert "SC308" not in codes(run(p))
    from toolcat.formats.load import load_catalogs

    (cat,) = load_catalogs([str(p)])
    body = cat.tools[0].input_schema["properties"]["body"]
    assert body["required"] == ["name"]


BASE_ID = {"type": "object", "properties": {"id": {"type": "string", "readOnly": True},
                                           "kind": {"type": "string", "readOnly": True}}}


def _sc308_and_compact(tmp_path, schema, name):
    """SC308's pointers on an MCP tool with ``schema``, and the messages lint gives the
    compact view of it (which inlines the references and merges the allOf)."""
    import toolcat

    t = tool()
    t["inputSchema"] = schema
    p = write(tmp_path, mcp(t), f"{name}.json")
    fs = only(run(p), "SC308")
    out = tmp_path / f"{name}.compact.json"
    out.write_bytes(toolcat.project([toolcat.load(p)]).output_bytes())
    view = {f.message for f in only(run(out), "SC308")}
    return sorted(f.pointer for f in fs), {f.message for f in fs}, view


def test_sc308_reads_read_only_from_the_schemas_that_apply_to_the_same_instance(tmp_path):
    """A `required` meets the properties of every schema its instance is one of: its own
    `allOf` branches (Cloudflare: the required list beside an allOf of the properties), its
    siblings when it is a branch (PagerDuty: a base that marks `type` readOnly, joined with a
    branch that requires it), and a definition's `required` where a reference joins it with
    a base. The source reports what its compact view (merged) reports, each once."""
    defs = {"Base": BASE_ID, "Req": {"required": ["kind", "name"]}}
    cases = {
        "parent": ({"type": "object", "allOf": [{"$ref": "#/$defs/Base"}],
                    "required": ["id", "name"], "properties": {"name": {"type": "string"}},
                    "$defs": defs}, ["/inputSchema/required/0"]),
        "sibling": ({"type": "object", "properties": {}, "allOf": [
                        {"$ref": "#/$defs/Base"},
                        {"properties": {"name": {"type": "string"}},
                         "required": ["name", "kind"]}], "$defs": defs},
                    ["/inputSchema/allOf/1/required/1"]),
        "reference": ({"type": "object", "properties": {"x": {"allOf": [
                          {"$ref": "#/$defs/Base"}, {"$ref": "#/$defs/Req"}]},
                          "y": {"allOf": [{"$ref": "#/$defs/Base"}, {"$ref": "#/$defs/Req"}]}},
                       "$defs": defs}, ["/inputSchema/$defs/Req/required/0"]),
    }
    for name, (schema, want) in cases.items():
        got, msgs, view = _sc308_and_compact(tmp_path, schema, name)
        assert got == want, (name, got)
        assert view and view <= msgs, (name, view, msgs)
    # near misses: an anyOf sibling does not apply to every instance; a property of
    # another name
    t = {"type": "object", "properties": {}, "anyOf": [{"$ref": "#/$defs/Base"}, {
        "properties": {"name": {}}, "required": ["id"]}], "$defs": defs}
    assert _sc308_and_compact(tmp_path, t, "anyof")[0] == []
    t = {"type": "object", "properties": {}, "allOf": [{"$ref": "#/$defs/Base"}, {
        "required": ["ident"]}], "$defs": defs}
    assert _sc308_and_compact(tmp_path, t, "other")[0] == []


def test_openapi30_lifts_required_read_only_from_allof_siblings(tmp_path):
    """OpenAPI 3.0 reads a readOnly property's `required` as the response's only, also when
    the readOnly comes from a sibling allOf branch or the required list is a referenced
    definition's (copied without the names: the definition is shared with a response)."""
    spec = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /addons:
    post:
      operationId: createAddon
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Addon'}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Ref'}
  /refs:
    post:
      operationId: createRef
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Ref'}
      responses: {"200": {description: ok}}
components:
  schemas:
    Base:
      type: object
      properties:
        id: {type: string, readOnly: true}
        type: {type: string, readOnly: true}
    Addon:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          properties: {type: {type: string, enum: [a, b]}, name: {type: string}}
          required: [type, name]
    Ref:
      allOf:
        - $ref: '#/components/schemas/Base'
        - $ref: '#/components/schemas/IdRequired'
    IdRequired:
      required: [id]
"""
    p = write(tmp_path, spec, "api30.yaml")
    assert "SC308" not in codes(run(p))
    from toolcat.formats.load import load_catalogs

    (cat,) = load_catalogs([str(p)])
    by = {t.id: t for t in cat.tools}
    defs = by["createAddon"].input_schema["$defs"]
    assert defs["Addon"]["allOf"][1]["required"] == ["name"]
    ref = by["createRef"].input_schema["$defs"]["Ref"]
    assert ref["allOf"] == [{"$ref": "#/$defs/Base"}, {}], ref
    # a response keeps them: the readOnly id is required there
    out = by["createAddon"].output_schema
    assert out["$defs"]["Ref"]["allOf"][1] == {"$ref": "#/$defs/IdRequired"}, out
    assert out["$defs"]["IdRequired"]["required"] == ["id"], out


def test_composition_reads_cost_the_graph_not_its_paths(tmp_path):
    """Six levels of definitions, each an anyOf of 60 references to the next: 60**6 paths.
    SC308 reads it (each node once) and finishes; a walk per path would not."""
    defs = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"} for _ in range(60)]}
            for i in range(6)}
    defs["d6"] = {"type": "integer", "readOnly": True}
    t = tool(x={"$ref": "#/$defs/d0", "default": 1})
    t["inputSchema"]["required"] = ["x"]
    t["inputSchema"]["$defs"] = defs
    fs = run(write(tmp_path, mcp(t)))
    assert one(fs, "SC308").pointer == "/inputSchema/required/0"


def test_tc115_a_second_schema_key_with_another_schema(tmp_path) -> None:
    """A descriptor with another format's schema key beside its own, holding a different
    schema, is reported (once, on the tool) with the key read and the key ignored; the same
    schema under both keys, or the other key alone, is not. Before: one of the two was
    dropped without a finding (what the model saw depended on who read the file)."""
    add = {"type": "object", "properties": {"a": {"type": "number", "description": "A."}}}
    other = {"type": "object", "properties": {"x": {"type": "string", "description": "X."}}}
    cases = {
        "anthropic": ([{"name": "add", "description": "Add two numbers and return the sum.",
                        "input_schema": add, "inputSchema": other}], "'input_schema'",
                      "'inputSchema'"),
        "mcp": ({"tools": [{"name": "add", "description": "Add two numbers and return the sum.",
                            "inputSchema": add, "parameters": other}]}, "'inputSchema'",
                "'parameters'"),
        "openai": ([{"type": "function", "function": {
            "name": "add", "description": "Add two numbers and return the sum.",
            "parameters": add, "input_schema": other}}], "'parameters'", "'input_schema'"),
    }
    for fmt, (data, read, ignored) in cases.items():
        p = write(tmp_path, data, f"{fmt}.json")
        hits = only(run(p), "TC115")
        assert len(hits) == 1, fmt
        assert f"{read} (the {fmt} format's: read)" in hits[0].message
        assert f"{ignored} with another schema (ignored" in hits[0].message
        assert hits[0].severity == "warning" and hits[0].tool == "add"
        # (on the tool's object: the line before its name; OpenAI's wrapper three before)
        assert hits[0].line == line_of(p, '"name": "add"') - 1 - 2 * (fmt == "openai")
    same = write(tmp_path, [{"name": "add", "description": "Add two numbers and return it.",
                             "input_schema": add, "inputSchema": add}], "same.json")
    assert not only(run(same), "TC115")
