"""`toolcat project --to openai-strict | anthropic | anthropic-strict | gemini | bedrock`: what each
provider target writes, what it reports, and that `toolcat lint --profile P` of it is clean.

Expected shapes come from the providers' documented rules (cited in formats/providers.py), never
from toolcat's own output; verdicts come from jsonschema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.lint import write
from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats import targets as tg

PROVIDER_TARGETS = ("openai", "openai-strict", "anthropic", "anthropic-strict", "gemini",
                    "bedrock")


def project(tmp_path, tools, to, name="tools.json"):
    p = write(tmp_path, {"tools": tools}, name)
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    return project_catalogs(cats, ProjectOptions(to=to))


def schema_of(proj, i=0):
    t = tg.get(proj.target)
    return t.get_schema(t.body(proj.tools[i].descriptor))


def body(proj, i=0):
    return tg.get(proj.target).body(proj.tools[i].descriptor)


def changes(proj, i=0):
    return [c.as_dict() for c in proj.tools[i].changes]


def lint_output(tmp_path, proj, profile):
    out = tmp_path / f"out.{proj.target}.compact.json"
    out.write_bytes(proj.output_bytes())
    cats = load_catalogs([str(out)], LoadOptions(strict=False))
    return lint(cats, Config(), profile).findings


SEARCH = {"name": "search", "description": "Search issues.", "inputSchema": {
    "type": "object",
    "properties": {"q": {"type": "string", "description": "Query."},
                   "limit": {"type": "integer", "minimum": 1, "description": "Max hits."},
                   "since": {"type": "string", "format": "date", "description": "Since."}},
    "required": ["q"]}}


def test_openai_strict_closes_requires_and_maps(tmp_path):
    proj = project(tmp_path, [SEARCH], "openai-strict")
    b, s = body(proj), schema_of(proj)
    assert b["strict"] is True
    assert s["additionalProperties"] is False
    assert sorted(s["required"]) == ["limit", "q", "since"]
    assert s["properties"]["limit"]["type"] == ["integer", "null"]
    ch = changes(proj)
    maps = sorted(c["mapping"]["argument"] for c in ch if c["kind"] == "changed")
    assert maps == ["/limit", "/since"]
    assert all(c["mapping"]["null"] == "absent" for c in ch if c["kind"] == "changed")
    assert any(c["kind"] == "narrowed" and c["pointer"] == "/inputSchema/additionalProperties"
               for c in ch)
    # the mapped arguments are accepted, unmapped ones are what the original accepted
    orig = jsonschema.Draft202012Validator(SEARCH["inputSchema"])
    new = jsonschema.Draft202012Validator(s)
    sent = {"q": "x", "limit": None, "since": None}
    assert new.is_valid(sent) and not new.is_valid({"q": "x"})
    assert orig.is_valid({k: v for k, v in sent.items() if v is not None})


def test_openai_strict_map_falls_back_to_strict_false(tmp_path):
    t = {"name": "tag", "description": "Tags.", "inputSchema": {
        "type": "object", "properties": {"labels": {
            "type": "object", "additionalProperties": {"type": "string"}}}}}
    proj = project(tmp_path, [t, SEARCH], "openai-strict")
    assert body(proj, 0)["strict"] is False and body(proj, 1)["strict"] is True
    # a tool sent without strict keeps its schema as written, and says why
    assert schema_of(proj, 0) == t["inputSchema"]
    why = [c for c in changes(proj, 0) if c["kind"] == "omitted"]
    assert why and why[0]["pointer"] == "/inputSchema/properties/labels" \
        and "map" in why[0]["what"]


@pytest.mark.parametrize("to", ["openai-strict", "anthropic-strict"])
def test_strict_any_value_falls_back(tmp_path, to):
    t = {"name": "put", "description": "Put a value.", "inputSchema": {
        "type": "object", "properties": {"value": {"description": "Anything."}},
        "required": ["value"]}}
    proj = project(tmp_path, [t], to)
    assert body(proj)["strict"] is False
    assert [c["pointer"] for c in changes(proj) if c["kind"] == "omitted"] == [
        "/inputSchema/properties/value"]


def test_refused_keywords_move_into_the_description(tmp_path):
    t = {"name": "f", "description": "F.", "inputSchema": {
        "type": "object", "properties": {
            "code": {"type": "string", "minLength": 3, "description": "A code."}},
        "required": ["code"]}}
    proj = project(tmp_path, [t], "openai-strict")
    code = schema_of(proj)["properties"]["code"]
    assert "minLength" not in code and "minLength: 3" in code["description"]
    assert [c["kind"] for c in changes(proj) if c["pointer"].endswith("/minLength")] == [
        "widened"]


def test_anthropic_top_level_combinator(tmp_path):
    t = {"name": "f", "description": "F.", "inputSchema": {
        "type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}
    proj = project(tmp_path, [t], "anthropic")
    s = schema_of(proj)
    assert "anyOf" not in s and s["type"] == "object"
    assert [c["kind"] for c in changes(proj) if c["pointer"] == "/inputSchema/anyOf"] == [
        "widened"]
    # a widening: everything the original accepts is still accepted
    orig = jsonschema.Draft202012Validator(t["inputSchema"])
    new = jsonschema.Draft202012Validator(s)
    for inst in ({"a": "x"}, {"b": "y"}, {"a": "x", "b": "y"}, {}):
        assert not orig.is_valid(inst) or new.is_valid(inst)


# found by tests/fuzz/test_fuzz_schemas.py: after the lowering, the top-level allOf's branches
# together accept nothing (one is `allOf: [false, ...]`, one `anyOf: [false]`)
UNSATISFIABLE = json.loads('{"type":"object","properties":{"a":{"$ref":"#/$defs/A","const":null},"b":{"type":"null","properties":{"a":{"items":true,"$ref":"#/$defs/B","anyOf":[{"type":"integer"},{"type":"null"}]},"items":{"type":"string","minLength":8,"deprecated":false,"x-note":{"type":"string"},"not":{},"anyOf":[{"const":{}},{"type":"number"},{"$ref":"#/$defs/B"}]}},"required":["a"],"additionalProperties":{"type":"object","properties":{"a":true,"items":true,"b":true},"required":["a","0"],"additionalProperties":false},"$ref":"#"},"0":{"anyOf":[{"type":"integer"},{"type":"null"}],"type":"array","pattern":"b$","minLength":8,"readOnly":false,"prefixItems":[{"format":"regex","type":"string","$ref":"#/$defs/B"}],"items":{"properties":{"x-y":{"const":{"a":1}},"id":{"$ref":"#/$defs/Node"},"\\u00e9":{"const":1.0}},"oneOf":[{"enum":["a"]}],"dependentSchemas":{"0":{"enum":["null",[[]]]}},"default":{"a":1},"description":"Some prose."}}},"allOf":[{"minItems":0,"maxItems":0,"allOf":[false,false,{}]},{"anyOf":[false]},{"type":["array"],"properties":{"b":{}}}],"$defs":{"A":{"type":["null"]},"B":{"type":["null"]},"Node":{"type":"object","properties":{"value":{"allOf":[false]},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}')


@pytest.mark.parametrize("to", ["anthropic", "anthropic-strict"])
def test_a_top_level_allof_that_accepts_nothing_stays_so(tmp_path, to):
    """Merging a refused top-level allOf whose branches accept nothing together gave the
    rest of the schema alone, reported exact: an invalid call became valid. Now the root
    says it accepts nothing (`not: {}`)."""
    proj = project(tmp_path, [{"name": "f", "description": "F.",
                               "inputSchema": UNSATISFIABLE}], to)
    s = schema_of(proj)
    kinds = {c["kind"] for c in changes(proj) if c["pointer"].startswith("/inputSchema")}
    orig = jsonschema.Draft202012Validator(UNSATISFIABLE)
    new = jsonschema.Draft202012Validator(s)
    assert "allOf" not in s
    for inst in ({}, {"a": None}, {"a": None, "0": []}, {"b": None}):
        assert not orig.is_valid(inst)
        assert not new.is_valid(inst) or kinds & {"widened", "omitted"}, (inst, s)
    assert s.get("not") == {}


def test_anthropic_strict_keeps_optional_and_counts_the_budget(tmp_path):
    proj = project(tmp_path, [SEARCH], "anthropic-strict")
    s = schema_of(proj)
    assert body(proj)["strict"] is True and s["required"] == ["q"]      # stays optional
    assert s["additionalProperties"] is False
    assert "minimum" not in s["properties"]["limit"]                   # numerical constraint
    # 25 optional parameters over the strict tools: the last tool goes without strict
    many = []
    for i in range(5):
        props = {f"p{j}": {"type": "string", "description": "P."} for j in range(6)}
        many.append({"name": f"t{i}", "description": "T.",
                     "inputSchema": {"type": "object", "properties": props}})
    proj = project(tmp_path, many, "anthropic-strict", "many.json")
    flags = [body(proj, i)["strict"] for i in range(5)]
    assert flags == [True, True, True, True, False]
    assert lint_output(tmp_path, proj, "anthropic-strict") == [] or not any(
        f.severity == "error" for f in lint_output(tmp_path, proj, "anthropic-strict"))


def test_gemini_openapi_schema(tmp_path):
    t = {"name": "fs.read", "description": "Read.", "inputSchema": {
        "type": "object", "additionalProperties": False,
        "properties": {"path": {"type": ["string", "null"], "description": "Path."},
                       "mode": {"const": "r"},
                       "n": {"type": "integer", "enum": [1, 2]}}}}
    proj = project(tmp_path, [t], "gemini")
    doc = json.loads(proj.output_bytes())
    assert list(doc) == ["functionDeclarations"]
    s = schema_of(proj)
    # (the compact view leaves parameter prose to the handbook)
    assert s["properties"]["path"] == {"type": "string", "nullable": True}
    assert s["properties"]["mode"]["enum"] == ["r"]
    assert "enum" not in s["properties"]["n"] and "1" in s["properties"]["n"]["description"]
    assert "additionalProperties" not in s
    assert body(proj)["name"] == "fs.read"                      # Gemini names may hold dots


def test_gemini_json_keeps_json_schema_and_drops_only_schema(tmp_path):
    inner = {"type": "object", "properties": {"q": {"type": "integer"}},
             "additionalProperties": False}
    t = {"name": "fs.read", "description": "Read.", "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": False,
        "properties": {"path": {"type": ["string", "null"]},
                       "mode": {"const": "r"},
                       "n": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
                       "a": inner, "b": inner}}}
    proj = project(tmp_path, [t], "gemini-json")
    b, s = body(proj), schema_of(proj)
    # JSON Schema under parametersJsonSchema, never also `parameters` (mutually exclusive)
    assert "parameters" not in b and "parametersJsonSchema" in b
    assert "$schema" not in json.dumps(s)
    assert s["additionalProperties"] is False
    assert s["properties"]["path"] == {"type": ["string", "null"]}   # no OpenAPI lowering
    assert s["properties"]["mode"] == {"const": "r"}
    assert "$ref" not in json.dumps(s)                # no $ref where the input had none
    # the written schema accepts exactly what the input accepts, on both sides of each edge
    for v, ok in (({"path": None, "mode": "r", "n": True}, True), ({"path": 1}, False),
                  ({"mode": "w"}, False), ({"a": {"q": 1}}, True), ({"a": {"q": 1, "z": 1}}, False),
                  ({"zz": 1}, False)):
        assert jsonschema.Draft202012Validator(s).is_valid(v) is ok, v
    assert not [f for f in lint_output(tmp_path, proj, "gemini-json") if f.severity == "error"]


# A Gemini declaration as Gemini's own docs and API write it: the Type enum in upper case,
# nullable, int64 fields as strings. The other targets must write JSON Schema ("OBJECT" is no
# JSON Schema type: the providers and the MCP SDKs refuse it), and --to gemini must keep every
# parameter (it read "OBJECT" as "accepts no object" and wrote an empty object: widened).
GEMINI_NATIVE = {"functionDeclarations": [{
    "name": "find", "description": "Find records by a query.", "parameters": {
        "type": "OBJECT", "required": ["q"], "properties": {
            "q": {"type": "STRING", "nullable": True, "description": "Query."},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": "1",
                     "description": "Tags."},
            "n": {"type": "INTEGER", "format": "int32", "description": "Count."}}}}]}


@pytest.mark.parametrize("to", ["mcp", "anthropic", "openai", "gemini-json", "gemini"])
def test_a_gemini_native_declaration_is_read_as_json_schema(tmp_path, to):
    p = write(tmp_path, GEMINI_NATIVE, "find.gemini.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    proj = project_catalogs(cats, ProjectOptions(to=to, view="standard" if to != "gemini"
                                                  else "compact"))
    s = schema_of(proj)
    assert not [c for c in changes(proj) if c["kind"] != "exact"], changes(proj)
    assert set(s["properties"]) == {"q", "tags", "n"}
    if to == "gemini":           # written back in Gemini's subset
        assert s["properties"]["q"] == {"type": "string", "nullable": True}
        assert s["properties"]["tags"]["minItems"] == 1
        return
    jsonschema.Draft202012Validator.check_schema(s)
    v = jsonschema.Draft202012Validator(s)
    for inst, ok in (({"q": None}, True), ({"q": "x", "n": 3, "tags": ["a"]}, True),
                     ({"q": 1}, False), ({"q": "x", "tags": []}, False), ({}, False),
                     ({"q": "x", "n": "3"}, False)):
        assert v.is_valid(inst) is ok, (to, inst)
    # the native file lints clean under its own profile: nullable is Gemini's way to say null
    assert not [f for f in lint(load_catalogs([str(p)], LoadOptions()), Config(), "gemini")
                .findings if f.code in ("PV507", "SC301", "MC101")]


# A nullable node without a type is read wrapped in an anyOf (null beside it), so the read tree
# has anyOf/0 where the declaration has nothing: the reader records each wrap in the tool's
# origin, and lint judges and places what is below it on the declaration's own node.
GEMINI_WRAPPED = {"functionDeclarations": [{
    "name": "find", "description": "Find records by a filter.", "parameters": {
        "type": "OBJECT", "properties": {
            "kind": {"nullable": True, "description": "Kind.", "anyOf": [
                {"type": "STRING", "nullable": True}, {"type": "INTEGER"}]},
            "filter": {"nullable": True, "description": "Filter.", "properties": {
                "owner": {"type": "STRING", "nullable": True, "description": "Owner."},
                "inner": {"nullable": True, "properties": {
                    "when": {"type": "INTEGER", "nullable": True, "enum": [1, 2],
                             "description": "When."}}}}}}}}]}


def test_a_wrapped_gemini_nullable_maps_to_the_declaration(tmp_path):
    p = write(tmp_path, GEMINI_WRAPPED, "wrapped.gemini.json")
    cat = load_catalogs([str(p)], LoadOptions())[0]
    tool = cat.tools[0]
    s = tool.input_schema
    inner = s["properties"]["filter"]["anyOf"][0]["properties"]["inner"]["anyOf"][0]
    assert inner["properties"]["when"]["type"] == ["integer", "null"]
    base = "/functionDeclarations/0/parameters"
    assert tool.source_pointer("/inputSchema/properties/filter/anyOf/0/properties/inner/anyOf"
                               "/0/properties/when/type") == (
        str(p), base + "/properties/filter/properties/inner/properties/when/type")
    found = lint([cat], Config(), "gemini").findings
    # the [type, null] pairs are the declaration's own nullable: not PV507's to report
    assert not [f for f in found if f.code == "PV507" and "single type" in f.message], found
    # a finding below two wraps is placed on the declaration's node (Gemini's enum holds strings)
    enum = [f for f in found if f.code == "PV507" and "enum" in f.message]
    assert [f.source_pointer for f in enum] == [base + "/properties/filter/properties/inner/properties"
                                                "/when/enum"], enum


def test_gemini_json_reports_a_dropped_draft07_schema_that_changes_meaning(tmp_path):
    tuple_items = {"type": "array", "items": [{"type": "string"}], "additionalItems": False}
    t = {"name": "t", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                                      "type": "object", "properties": {"t": tuple_items}}}
    proj = project(tmp_path, [t], "gemini-json")
    assert "$schema" not in schema_of(proj)
    ch = [c for c in changes(proj) if c["pointer"].endswith("/$schema")]
    assert ch and all(c["kind"] != "exact" for c in ch), changes(proj)


@pytest.mark.parametrize("to", ["openai", "openai-strict", "anthropic", "anthropic-strict",
                                "bedrock"])
def test_names_outside_the_provider_rule_are_renamed_with_a_mapping(tmp_path, to):
    a = dict(SEARCH, name="admin.tools.list")
    b = dict(SEARCH, name="x" * 70)
    proj = project(tmp_path, [a, b], to)
    names = [body(proj, i)["name"] for i in range(2)]
    import re

    assert all(re.match(r"^[a-zA-Z0-9_-]{1,64}$", n) for n in names) and len(set(names)) == 2
    m = [c["mapping"] for c in changes(proj, 0) if c["pointer"] == "/name"]
    assert m == [{"name": names[0], "original": "admin.tools.list"}]


@pytest.mark.parametrize("to", PROVIDER_TARGETS)
def test_output_lints_clean_under_its_profile(tmp_path, to):
    odd = {"name": "odd", "description": "Odd.", "inputSchema": {
        "type": "object", "properties": {
            "x": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "y": {"type": "array", "items": {"type": "string"}, "minItems": 2,
                  "uniqueItems": True},
            "z": {"type": "string", "pattern": "^a", "format": "uri"},
            "w": {"allOf": [{"type": "number"}, {"maximum": 3}]}}}}
    proj = project(tmp_path, [SEARCH, odd], to)
    profile = tg.get(to).profile
    errors = [f for f in lint_output(tmp_path, proj, profile) if f.severity == "error"]
    assert errors == []


@pytest.mark.parametrize("to", PROVIDER_TARGETS)
def test_odd_keyword_values_neither_crash_project_nor_lint(tmp_path, to):
    # keyword values of the wrong JSON type (found by a random-schema run): minItems as a
    # list or an object was an internal error ("unhashable type") in PV507 and the rewrite
    t = {"name": "f", "description": "F.", "inputSchema": {
        "type": "object", "properties": {
            "a": {"type": "array", "minItems": [1]}, "b": {"type": "array", "minItems": {}},
            "c": {"type": "string", "format": ["date"]}, "d": {"type": "array",
                                                           "minItems": True}}}}
    proj = project(tmp_path, [t], to)
    for profile in (tg.get(to).profile, "anthropic-strict"):
        lint_output(tmp_path, proj, profile)          # no exception
    p = write(tmp_path, {"tools": [t]}, "in.json")
    fs = lint(load_catalogs([str(p)], LoadOptions(strict=False)), Config(),
              "anthropic-strict").findings
    assert sorted(f.pointer for f in fs if f.code == "PV507" and "minItems" in f.pointer) == [
        "/inputSchema/properties/a/minItems", "/inputSchema/properties/b/minItems",
        "/inputSchema/properties/d/minItems"]


def test_mcp_target_names_follow_the_mcp_rule_for_converted_tools_only(tmp_path) -> None:
    """An operationId outside MCP's name rule (box: ``get_files_id#get_shared_link``) is
    written under a conforming name in both MCP views, with the mapping reported, and
    diff-toolids finds the views' ids equal; a tool already in MCP form keeps its name."""
    import json

    from support.common import run_toolcat

    spec = tmp_path / "s.yaml"
    spec.write_text("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                    "      operationId: 'a#b'\n      responses: {'200': {description: ok}}\n")
    views = {}
    for view in ("compact", "standard"):
        r = run_toolcat("-q", "project", "--view", view, str(spec))
        assert r.returncode == 0, r.stderr
        views[view] = [t["name"] for t in json.loads(r.stdout)["tools"]]
    assert views["compact"] == views["standard"] == ["a_b"]
    rep = tmp_path / "r.json"
    assert run_toolcat("-q", "project", str(spec), "-o", str(tmp_path / "o.json"),
                       "--report", str(rep)).returncode == 0
    changes = json.loads(rep.read_text())["tools"][0]["changes"]
    assert any(c["pointer"] == "/name" and c["kind"] == "changed" for c in changes), changes
    assert run_toolcat("diff-toolids", str(spec)).returncode == 0
    mcp = tmp_path / "m.json"
    mcp.write_text(json.dumps({"tools": [{"name": "a#b", "inputSchema": {"type": "object"}}]}))
    r = run_toolcat("-q", "project", str(mcp))
    assert [t["name"] for t in json.loads(r.stdout)["tools"]] == ["a#b"]


@pytest.mark.parametrize("to", ["openai-strict", "anthropic-strict"])
def test_a_schema_already_closed_stays_strict(tmp_path, to):
    """`additionalProperties: false` is what strict modes ask of every object: a schema that
    has it already is no boolean schema the strict subset refuses (it was: strict false)."""
    closed = {"type": "object", "properties": {"a": {"type": "object", "properties": {
        "b": {"type": "string"}}, "required": ["b"], "additionalProperties": False}},
        "required": ["a"], "additionalProperties": False}
    proj = project(tmp_path, [{"name": "f", "inputSchema": closed}], to)
    assert body(proj).get("strict") is True
    assert schema_of(proj) == closed
    # a property that is named additionalProperties and never valid is still refused
    odd = {"type": "object", "properties": {"additionalProperties": False},
           "required": ["additionalProperties"], "additionalProperties": False}
    proj = project(tmp_path, [{"name": "f", "inputSchema": odd}], to)
    assert body(proj).get("strict") is False


# issue 33 item 2: OpenAI answers 400 "object schema missing properties" to a parameters
# object without `properties` (strict or not; fast-agent#143, kubernetes-mcp-server#340)
NOPARAMS = {"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}


@pytest.mark.parametrize("to", ["openai", "openai-strict"])
def test_openai_writes_root_properties_for_a_tool_without_parameters(tmp_path, to):
    proj = project(tmp_path, [NOPARAMS, SEARCH], to)
    s = schema_of(proj)
    assert s["type"] == "object" and s["properties"] == {}
    if to == "openai-strict":
        assert body(proj)["strict"] is True
        assert s["additionalProperties"] is False and s["required"] == []
    # exact: the same arguments are accepted
    for args in ({}, {"x": 1}):
        assert jsonschema.Draft202012Validator(s).is_valid(args) == \
            jsonschema.Draft202012Validator(NOPARAMS["inputSchema"]).is_valid(args) or \
            to == "openai-strict"
    assert any(c["pointer"] == "/inputSchema/properties" and c["kind"] == "exact"
               for c in changes(proj))
    assert not [f for f in lint_output(tmp_path, proj, to) if f.code == "PV505"]


@pytest.mark.parametrize("profile", ["openai", "openai-strict"])
def test_lint_openai_reports_a_root_object_without_properties(tmp_path, profile):
    p = write(tmp_path, {"tools": [NOPARAMS, SEARCH]})
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    hits = [(f.tool, f.pointer) for f in lint(cats, Config(), profile).findings
            if f.code == "PV505"]
    assert hits == [("ping", "/inputSchema")]
    # Anthropic takes {"type": "object"} (its InputSchema's properties are optional)
    assert not [f for f in lint(cats, Config(), "anthropic").findings if f.code == "PV505"]


# issue 33 item 3: `additionalProperties: false` is what strict modes ask for, not a boolean
# schema that stops strict
CLOSED = {"name": "closed", "description": "Closed.", "inputSchema": {
    "type": "object", "additionalProperties": False,
    "properties": {"a": {"type": "string"},
                   "o": {"type": "object", "properties": {"b": {"type": "integer"}},
                         "required": ["b"], "additionalProperties": False}},
    "required": ["a", "o"]}}


@pytest.mark.parametrize("to", ["openai-strict", "anthropic-strict"])
def test_a_closed_schema_is_written_strict(tmp_path, to):
    proj = project(tmp_path, [CLOSED], to)
    assert body(proj)["strict"] is True
    assert schema_of(proj) == CLOSED["inputSchema"]
    assert not [c for c in changes(proj) if c["kind"] != "exact"]
    assert not [f for f in lint_output(tmp_path, proj, to) if f.severity == "error"]


@pytest.mark.parametrize("to", ["openai-strict", "anthropic-strict"])
def test_a_true_or_false_property_still_stops_strict(tmp_path, to):
    for value in (True, False):
        t = {"name": "b", "description": "B.", "inputSchema": {
            "type": "object", "properties": {"x": value, "y": {"type": "string"}},
            "additionalProperties": False}}
        proj = project(tmp_path, [t], to)
        assert body(proj)["strict"] is False
        ptrs = [c["pointer"] for c in changes(proj) if c["kind"] == "omitted"]
        assert len(ptrs) == 1 and ptrs[0].startswith("/inputSchema/properties/x")


# ------------------------------------------------------------------------ Bedrock Converse

def test_bedrock_writes_a_tool_configuration(tmp_path):
    """``--to bedrock``: ``{"tools": [{"toolSpec": {"name", "description", "inputSchema":
    {"json": ...}}}]}`` (botocore's ToolConfiguration; tests/corpus/test_provider_sdks.py
    validates it with botocore); a tool without a schema gets the empty object schema (the
    model requires inputSchema), an empty description is left out (min length 1)."""
    proj = project(tmp_path, [SEARCH, {"name": "ping", "description": ""}], "bedrock")
    doc = json.loads(proj.output_bytes())
    assert list(doc) == ["tools"] and [list(e) for e in doc["tools"]] == [["toolSpec"]] * 2
    assert list(body(proj)) == ["name", "description", "inputSchema"]
    assert list(body(proj)["inputSchema"]) == ["json"]
    assert schema_of(proj)["required"] == ["q"]
    assert body(proj, 1) == {"name": "ping", "inputSchema": {"json": {
        "type": "object", "properties": {}}}}


@pytest.mark.parametrize("view", ["compact", "standard"])
def test_bedrock_roots_say_object_and_accept_what_the_tool_accepts(tmp_path, view):
    """Bedrock refuses a top level that does not say ``type: "object"`` (ValidationException
    "...inputSchema.json.type must be one of the following: object"): every root says so,
    and accepts the same arguments as the tool's own schema (jsonschema verdicts on both
    sides), or the change is reported."""
    roots = [{}, True, {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}},
                                   "required": ["a"]}, {"type": "object", "required": ["b"]}]},
             {"type": ["object", "null"], "properties": {"a": {"type": "integer"}}},
             {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "required": ["a"]}}},
             {"properties": {"a": {"type": "integer"}}, "additionalProperties": False}]
    tools = [{"name": f"t{i}", "description": "T.", "inputSchema": s}
             for i, s in enumerate(roots)]
    p = write(tmp_path, {"tools": tools}, "roots.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    proj = project_catalogs(cats, ProjectOptions(to="bedrock", view=view))
    args = [{}, {"a": "x"}, {"a": 1}, {"b": 2}, {"a": 1, "z": 0}]
    for i, root in enumerate(roots):
        s = schema_of(proj, i)
        assert s["type"] == "object", s
        lossy = [c for c in changes(proj, i) if c["kind"] != "exact"]
        for a in args:
            before = jsonschema.Draft202012Validator(root).is_valid(a)
            after = jsonschema.Draft202012Validator(s).is_valid(a)
            assert before == after or lossy, (root, s, a)


def test_bedrock_reads_converse_requests_and_writes_its_own_tools_as_given(tmp_path):
    """A Converse request's ``toolConfig.tools`` is read as Bedrock tools (pointers into
    ``toolSpec``, the schema under ``inputSchema.json``); a ``systemTool`` is the provider's
    (written as given), a ``cachePoint`` no tool (skipped, with a note); the standard view of
    a Bedrock tool is the entry as written."""
    spec = {"name": "get_weather", "description": "Weather for a city.",
            "inputSchema": {"json": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name."}},
                "required": ["city"]}}}
    req = {"modelId": "m", "messages": [], "toolConfig": {"tools": [
        {"toolSpec": spec}, {"systemTool": {"name": "nova_grounding"}},
        {"cachePoint": {"type": "default"}}]}}
    p = write(tmp_path, req, "request.json")
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    (cat,) = cats
    assert cat.format == "bedrock" and [t.id for t in cat.tools] == ["get_weather",
                                                                    "nova_grounding"]
    tool = cat.tools[0]
    assert tool.input_schema == spec["inputSchema"]["json"]
    assert tool.source_pointer("/inputSchema/properties/city")[1] == \
        "/toolConfig/tools/0/toolSpec/inputSchema/json/properties/city"
    std = project_catalogs(cats, ProjectOptions(to="bedrock", view="standard"))
    assert std.tools[0].descriptor == {"toolSpec": spec}
    assert std.tools[1].descriptor == {"systemTool": {"name": "nova_grounding"}}
    assert any("cachePoint" in w and "/toolConfig/tools/2" in w for w in std.warnings)
    compact = project_catalogs(cats, ProjectOptions(to="bedrock"))
    assert compact.tools[1].descriptor == {"systemTool": {"name": "nova_grounding"}}
    assert "description" not in json.dumps(schema_of(compact))     # prose to the handbook
    # to another target: an MCP tool with the same schema
    mcp = project_catalogs(cats[:1], ProjectOptions(to="mcp", view="standard"))
    assert mcp.tools[0].descriptor["inputSchema"] == spec["inputSchema"]["json"]


def test_lint_bedrock_reports_a_long_name_an_empty_description_and_a_non_object_root(
        tmp_path):
    """``lint --profile bedrock`` (derived from the target's row): a 65-character name
    (PV508, error), an empty description (PV516, error: Bedrock refuses the request; TC107),
    a top level that is no object (PV505, error); a missing description is no PV516 (it is
    optional); the target's own output of the same tools lints without an error."""
    tools = [{"name": "a" * 65, "description": "", "inputSchema": {"type": "object",
                                                                   "properties": {}}},
             {"name": "s", "description": "S.", "inputSchema": {"type": "string"}},
             {"name": "n", "inputSchema": {"type": "object", "properties": {}}}]
    p = write(tmp_path, {"tools": tools}, "in.json")
    fs = lint(load_catalogs([str(p)], LoadOptions(strict=False)), Config(), "bedrock").findings
    got = {(f.code, f.severity, f.tool) for f in fs
           if f.code in ("PV508", "TC107", "PV505", "PV516")}
    assert got == {("PV508", "error", "a" * 65), ("TC107", "warning", "a" * 65),
                   ("PV516", "error", "a" * 65), ("PV505", "error", "s"),
                   ("TC107", "warning", "n")}
    # no other profile refuses an empty description
    assert not [f for f in lint(load_catalogs([str(p)], LoadOptions(strict=False)), Config(),
                                "anthropic").findings if f.code == "PV516"]
    proj = project(tmp_path, tools, "bedrock")
    assert [f.code for f in lint_output(tmp_path, proj, "bedrock")
            if f.severity == "error"] == []


# A request's tools as the Gemini API takes them: a list of Tool objects, some holding
# function declarations, others the provider's own tools (google-genai's types.Tool)
GEMINI_REQUEST_TOOLS = [
    {"functionDeclarations": [{"name": "get_time", "description": "The time in a zone.",
                               "parameters": {"type": "OBJECT", "properties": {
                                   "tz": {"type": "STRING", "description": "A zone."}}}}]},
    {"googleSearch": {}},
    {"functionDeclarations": [{"name": "get_date", "description": "The date in a zone.",
                               "parameters": {"type": "OBJECT", "properties": {
                                   "tz": {"type": "STRING"}}}}]},
    {"codeExecution": {}}]


def test_gemini_server_fields_are_the_sdks_tool_fields():
    """The fields of a Gemini Tool toolcat reads as the provider's own tools are the SDK's
    (google-genai ``types.Tool``) other than its function declarations."""
    types = pytest.importorskip("google.genai.types")
    from toolcat.formats.gemini import SERVER_FIELDS

    sdk = {f.alias or n for n, f in types.Tool.model_fields.items()} - {"functionDeclarations"}
    camel = {n.split("_")[0] + "".join(w.title() for w in n.split("_")[1:]) for n in
             types.Tool.model_fields} - {"functionDeclarations"}
    assert SERVER_FIELDS == (camel if sdk == set(types.Tool.model_fields) - {
        "function_declarations"} else sdk)


@pytest.mark.parametrize("envelope", ["list", "request"])
def test_a_gemini_request_tools_list_is_read(tmp_path, envelope):
    """A request's ``tools`` (a list of Tool objects, bare or as ``{"tools": [...]}``) is a
    Gemini catalog: each Tool's function declarations are tools (placed in their Tool), the
    provider's own tools (``googleSearch``, ``codeExecution``) server tools that project
    leaves out with a warning and the report's ``left_out``. Before: "not a tool catalog"
    (exit 2). The SDK's types take the input, and what ``--to gemini`` writes."""
    import json

    from support.common import run_toolcat

    types = pytest.importorskip("google.genai.types")
    for t in GEMINI_REQUEST_TOOLS:
        types.Tool.model_validate(t)
    doc = GEMINI_REQUEST_TOOLS if envelope == "list" else {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": GEMINI_REQUEST_TOOLS}
    p = tmp_path / "request.json"
    p.write_text(json.dumps(doc, indent=1))
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    assert cats[0].format == "gemini"
    assert [(t.id, t.server_tool) for t in cats[0].tools] == [
        ("get_time", False), ("googleSearch", True), ("get_date", False),
        ("codeExecution", True)]
    r = run_toolcat("lint", str(p), "--select", "MR401", "-f", "json")
    assert r.returncode == 0, r.stdout
    (f,) = json.loads(r.stdout)["findings"]      # placed on the second Tool's declaration
    tz = [i + 1 for i, ln in enumerate(p.read_text().splitlines()) if '"tz"' in ln]
    assert (f["tool"], f["line"]) == ("get_date", tz[1])
    base = "/tools" if envelope == "request" else ""
    out, rep = tmp_path / "out.json", tmp_path / "rep.json"
    r = run_toolcat("project", str(p), "--to", "gemini", "-o", str(out), "--report", str(rep))
    assert r.returncode == 0, r.stderr
    written = json.loads(out.read_text())
    types.Tool.model_validate(written)
    assert [d["name"] for d in written["functionDeclarations"]] == ["get_time", "get_date"]
    assert [e["where"] for e in json.loads(rep.read_text())["left_out"]] == [
        f"{base}/1/googleSearch", f"{base}/3/codeExecution"]
    assert b"2 entries left out (2 server or custom tools" in r.stderr


def test_a_single_gemini_tool_with_other_fields_still_loads(tmp_path):
    """A single Tool object is read by its function declarations whatever else it holds (a
    field of no Tool is not read, as before the request lists were read; the provider's own
    tools beside them are server tools): reading request lists must not refuse what was read."""
    import json

    p = tmp_path / "tool.json"
    p.write_text(json.dumps({"functionDeclarations": [{"name": "a", "description": "A."}],
                             "googleSearch": {}, "toolConfig": {"mode": "AUTO"}}))
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    assert cats[0].format == "gemini"
    assert [(t.id, t.server_tool) for t in cats[0].tools] == [("a", False),
                                                              ("googleSearch", True)]
