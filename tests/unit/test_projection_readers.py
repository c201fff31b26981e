"""The projection keeps the verdict of every real reader and writes what the MCP SDK accepts
(allOf merges, inlined copies, schema roots, $ref siblings, reachable definitions, dialects).

Real readers: python-jsonschema by the letter of the declared dialect; Ajv as the MCP
TypeScript SDK 1.x runs it (draft-07 Ajv for every schema, ``$schema`` never read, keywords
beside ``$ref`` applied, a boolean schema throws, a duplicate ``$id`` refused, patterns
compiled with the ``u`` flag; its ``ToolSchema`` wants ``type: "object"`` at both roots and an
object as every root ``properties`` value); Ajv2020 as the SDK v2 runs it. The first tests of
each item need no Node.js (structure, jsonschema, the metaschemas); the Ajv tests at the end
judge every reproducer with the real thing (support/ajv.py).

Each test failed before its fix (run against the parent commit's ``src``).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from support.common import SAMPLES
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.schema.keywords import DRAFT7, DRAFT2020, dialect_from_uri
from toolcat.schema.lower import lower_schema

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"


def walk(x, path=""):
    yield path, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk(v, f"{path}/{i}")


def project(tmp_path: Path, tools: list, to: str = "mcp", name: str = "t.tools.json",
            **opts):
    f = tmp_path / name
    f.write_text(json.dumps({"tools": tools}), "utf-8")
    cats = load_catalogs([str(f)], LoadOptions())
    return project_catalogs(cats, ProjectOptions(to=to, **opts))


def verdicts(schema, instances, cls=None):
    cls = cls or jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    v = cls(schema)
    return [v.is_valid(x) for x in instances]


# ------------------------------------------------------------------------- allOf merges

def test_allof_merge_names_each_type_once() -> None:
    schema = {"type": "object", "properties": {
        "n": {"allOf": [{"type": ["integer", "null"]}, {"type": "integer"}]},
        "m": {"allOf": [{"type": ["string", "null"]}, {"type": ["null", "string"]}]}}}
    res = lower_schema(schema)
    assert res.schema["properties"]["n"] == {"type": "integer"}
    assert res.schema["properties"]["m"]["type"] == ["string", "null"]
    # valid against the metaschema (uniqueItems), as the original is
    jsonschema.Draft202012Validator.check_schema(res.schema)
    jsonschema.Draft7Validator.check_schema(res.schema)


# ----------------------------------------------------------------------- inlined copies

TREE = {"$schema": D2020, "$id": "https://example.com/tree", "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "tree"}}}}
URN = {"$schema": D2020, "$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "minimum": 30,
       "properties": {"foo": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"}}}


@pytest.mark.parametrize("schema,kw", [(TREE, {"subset": True}),
                                       (URN, {"subset": True, "floor": False})])
def test_an_inlined_copy_carries_no_identifiers(schema, kw) -> None:
    res = lower_schema(schema, **kw)
    ids = [v for p, v in walk(res.schema) if p.endswith("/$id")]
    assert len(ids) == len(set(ids)), res.schema
    nested = [p for p, _v in walk(res.schema) if p.endswith("/$schema") and p != "/$schema"]
    assert not nested, res.schema
    # what it accepts: a superset (widened), as jsonschema reads it
    ok = [{"kids": [{"kids": []}]}, {"foo": 31}, {}]
    before = verdicts(schema, ok)
    assert all(a or not b for a, b in zip(verdicts(res.schema, ok), before))


def test_tool_projection_openwop(tmp_path: Path) -> None:
    proj = project(tmp_path, [{"name": "t", "description": "d.", "inputSchema": TREE}],
                   to="openwop")
    (t,) = proj.tools
    ids = [v for p, v in walk(t.descriptor) if p.endswith("/$id")]
    assert len(ids) == len(set(ids)), t.descriptor


# -------------------------------------------------------------------- tool schema roots

NOTHING = {"type": "object", "properties": {"a": {"type": "string"}}, "not": {}}
NOTHING_PROP = {"type": "object", "properties": {"a": {"not": {}}, "b": {"type": "string"}}}


def _schemas(target: str, descriptor: dict) -> list:
    from toolcat.formats import targets as tg

    t = tg.get(target)
    return [t.get_schema(t.body(descriptor), w) for w in range(len(t.schema_paths))]


@pytest.mark.parametrize("to", ["mcp", "openai", "anthropic", "openwop", "bedrock"])
def test_a_tool_schema_root_is_never_a_boolean(tmp_path: Path, to: str) -> None:
    proj = project(tmp_path, [{"name": "a", "description": "A.", "inputSchema": NOTHING,
                               "outputSchema": NOTHING}], to=to)
    (t,) = proj.tools
    widened = any(c.kind == "widened" for c in t.changes)   # the subset has no `not`
    for s in _schemas(to, t.descriptor):
        if s is None:
            continue
        assert isinstance(s, dict), (to, s)
        # still accepts no object (or says it widened)
        assert widened or verdicts(s, [{}, {"a": "x"}]) == [False, False], (s, t.changes)


def test_mcp_roots_typed_and_properties_objects(tmp_path: Path) -> None:
    for view in ("compact", "standard"):
        for src, name in ((NOTHING, "n.openai.json"), (NOTHING_PROP, "p.openai.json"),
                          (True, "t.openai.json"), (False, "f.openai.json")):
            f = tmp_path / name
            f.write_text(json.dumps([{"type": "function", "function": {
                "name": "a", "description": "A.", "parameters": src}}]), "utf-8")
            proj = project_catalogs(load_catalogs([str(f)], LoadOptions()),
                                    ProjectOptions(to="mcp", view=view))
            s = proj.tools[0].descriptor["inputSchema"]
            assert isinstance(s, dict) and s.get("type") == "object", (view, src, s)
            for v in (s.get("properties") or {}).values():
                assert isinstance(v, dict), (view, src, s)
            objs = [{}, {"a": "x"}, {"b": "y"}, {"a": 1}]
            want = verdicts(src, objs) if isinstance(src, dict) else [src] * len(objs)
            assert verdicts(s, objs) == want, (view, src, s)


# --------------------------------------------------------------------- siblings of $ref

SIBLINGS = {"$schema": D7, "definitions": {"tags": {"type": "array"}}, "type": "object",
            "properties": {"t": {"$ref": "#/definitions/tags", "maxItems": 2}}}


def _ajv_reading(schema: dict) -> dict:
    """A reader that applies keywords beside $ref (as Ajv does in every dialect): the same
    schema read as 2020-12 (`definitions` still resolves by pointer)."""
    return {**{k: v for k, v in schema.items() if k != "$schema"}, "$schema": D2020}


def test_draft07_siblings_of_ref_keep_both_readings() -> None:
    three = {"t": ["a", "b", "c"]}
    assert verdicts(SIBLINGS, [three]) == [True]                  # the letter of draft-07
    assert verdicts(_ajv_reading(SIBLINGS), [three]) == [False]   # Ajv's reading
    exact = lower_schema(SIBLINGS, DRAFT7)
    assert all(c.kind == "exact" for c in exact.changes)
    assert verdicts(exact.schema, [three], jsonschema.Draft7Validator) == [True]
    assert verdicts(_ajv_reading(exact.schema), [three]) == [False], exact.schema
    # the compact subset has no $ref: inlined, the siblings dropped, reported as a widening
    sub = lower_schema(SIBLINGS, DRAFT7, subset=True)
    assert "$ref" not in json.dumps(sub.schema)
    assert any(c.kind == "widened" and c.pointer == "/properties/t" for c in sub.changes)


def test_siblings_the_target_implies_are_exact() -> None:
    s = {"$schema": D7, "definitions": {"tags": {"type": "array"}}, "type": "object",
         "properties": {"t": {"$ref": "#/definitions/tags", "type": "array"}}}
    res = lower_schema(s, DRAFT7, subset=True)
    assert all(c.kind == "exact" for c in res.changes), res.changes


# --------------------------------------------------------- definitions a reader reaches

TUPLE = {"type": "object", "properties": {"p": {"type": "array",
                                                "items": [{"$ref": "#/definitions/a"}]}},
         "definitions": {"a": {"type": "string"}}}


@pytest.mark.parametrize("kw", [{}, {"factor": True}])
def test_definitions_a_draft07_reader_reaches_are_kept(kw) -> None:
    res = lower_schema(TUPLE, DRAFT2020, **kw)      # no $schema: read as 2020-12
    assert res.schema.get("definitions") == {"a": {"type": "string"}}, res.schema
    # the SDK's reading (draft-07): the tuple's $ref still resolves, same verdicts
    objs = [{"p": [1]}, {"p": ["x"]}, {"p": ["x", 2]}]
    assert verdicts(res.schema, objs, jsonschema.Draft7Validator) == \
        verdicts(TUPLE, objs, jsonschema.Draft7Validator) == [False, True, True]


def test_dependencies_read_by_ajv_in_2020_12() -> None:
    """Ajv (every class, and so both SDKs) applies draft-07's `dependencies` in a 2020-12
    schema: a branch holding one is not a branch that accepts everything."""
    s = {"$schema": D2020, "anyOf": [{"dependencies": {"bar": ["foo"]}}] * 3}
    res = lower_schema(s)
    assert "dependencies" in json.dumps(res.schema), res.schema
    s2 = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d"}},
          "dependencies": {"x": {"$ref": "#/$defs/e"}},
          "$defs": {"d": {"type": "string"}, "e": {"required": ["y"]}}}
    res2 = lower_schema(s2)
    assert "e" in res2.schema.get("$defs", {}), res2.schema


# ----------------------------------------------------------------- $schema and dialects

def test_only_the_exact_metaschema_uris_name_a_dialect() -> None:
    assert dialect_from_uri("https://example.com/draft2020-12/my-vocabulary.json", "x") == "x"
    assert dialect_from_uri("http://localhost:1234/draft2020-12/metaschema-no-validation.json",
                            "x") == "x"
    assert dialect_from_uri("https://example.com/draft-07/strict", "x") == "x"
    for uri in (D7, D7.rstrip("#"), "https://json-schema.org/draft-07/schema#", D2020,
                D2020 + "#", "http://json-schema.org/draft/2020-12/schema"):
        assert dialect_from_uri(uri, "x") in (DRAFT7, DRAFT2020), uri


@pytest.mark.parametrize("schema", [
    {"$schema": "https://example.com/draft2020-12/my-vocabulary.json", "type": "object",
     "properties": {"a": {"type": "string"}}},
    {"$schema": "http://example.com/draft-07/custom#", "type": "object"},
    # a draft-07 reader may assert contentMediaType/contentEncoding; 2020-12 never does
    {"$schema": D2020, "type": "object",
     "properties": {"d": {"type": "string", "contentMediaType": "application/json"}}},
    {"$schema": D2020, "type": "object",
     "properties": {"d": {"type": "string", "contentEncoding": "base64"}}},
    # jsonschema does not know this spelling (the SDK v2 does): not provably the same
    {"$schema": "https://json-schema.org/draft-07/schema#", "type": "object"},
])
def test_schema_kept_unless_provably_neutral(schema) -> None:
    res = lower_schema(schema)
    assert res.schema.get("$schema") == schema["$schema"], res.changes


def test_neutral_schema_still_dropped() -> None:
    res = lower_schema({"$schema": D2020, "type": "object",
                        "properties": {"a": {"type": "string"}}})
    assert "$schema" not in res.schema


# -------------------------------------------------------------- wrapped and typed roots

def test_readme_sample_outputs_are_object_schemas() -> None:
    cats = load_catalogs([str(SAMPLES / "petstore.openapi.yaml")], LoadOptions())
    for view in ("standard", "compact"):
        proj = project_catalogs(cats, ProjectOptions(to="mcp", view=view))
        for t in proj.tools:
            for key in ("inputSchema", "outputSchema"):
                s = t.descriptor.get(key)
                if s is not None:
                    assert isinstance(s, dict) and s.get("type") == "object", (view, t.id, key, s)
        by_id = {t.id: t for t in proj.tools}
        out = by_id["listPets"].descriptor["outputSchema"]
        assert out["properties"]["result"]["type"] == "array" if view == "compact" else True
        assert out["required"] == ["result"]
        assert [c.kind for c in by_id["listPets"].changes
                if c.pointer == "/outputSchema"] == ["wrapped"]


def test_wrap_and_type_keep_every_verdict(tmp_path: Path) -> None:
    pets = {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {
            "/pets/{id}": {"get": {"operationId": "getPet", "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}}}},
            "/pets": {"get": {"operationId": "listPets", "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": {
                    "type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}}},
            "/name": {"get": {"operationId": "petName", "responses": {"200": {
                "description": "ok", "content": {"application/json": {
                    "schema": {"type": "string", "maxLength": 3}}}}}}}},
        "components": {"schemas": {"Pet": {"type": "object", "required": ["name"],
                                           "properties": {"name": {"type": "string"}}}}},
    }
    f = tmp_path / "pets.openapi.json"
    f.write_text(json.dumps(pets), "utf-8")
    cats = load_catalogs([str(f)], LoadOptions())
    values = [{"name": "x"}, {}, [{"name": "x"}], [{}], "abc", "abcd", 1, None]
    for view in ("standard", "compact"):
        proj = project_catalogs(cats, ProjectOptions(to="mcp", view=view))
        for t in proj.tools:
            src = next(x for x in cats[0].tools if x.id == t.id).output_schema
            out = t.descriptor["outputSchema"]
            assert out.get("type") == "object", (view, t.id, out)
            wrapped = any(c.kind == "wrapped" for c in t.changes)
            assert wrapped == (t.id != "getPet"), (view, t.id, t.changes)
            for x in values:
                if wrapped:
                    assert verdicts(out, [{"result": x}]) == verdicts(src, [x]), (view, t.id, x)
                elif isinstance(x, dict):   # structuredContent is an object
                    assert verdicts(out, [x]) == verdicts(src, [x]), (view, t.id, x)


def test_wrap_repoints_local_refs(tmp_path: Path) -> None:
    from toolcat.features.project.roots import wrap

    s = {"type": "array", "items": {"$ref": "#/$defs/N"},
         "$defs": {"N": {"type": "object", "properties": {"kids": {"$ref": "#"}}}}}
    w = wrap(s, DRAFT2020)
    assert w["properties"]["result"]["items"] == {"$ref": "#/properties/result/$defs/N"}
    assert w["properties"]["result"]["$defs"]["N"]["properties"]["kids"] == \
        {"$ref": "#/properties/result"}
    vals = [[], [{"kids": []}], [{"kids": [1]}], [1], {}]
    assert verdicts(w, [{"result": x} for x in vals]) == verdicts(s, vals)


def test_bare_input_schema_gets_type_object(tmp_path: Path) -> None:
    """gitlab's tools: inputSchema {"$schema": draft-07} (accepts any arguments)."""
    proj = project(tmp_path, [{"name": "create_or_update_file",
                               "inputSchema": {"$schema": D7}}])
    assert proj.tools[0].descriptor["inputSchema"] == {"type": "object"}


def test_input_schema_that_accepts_no_object(tmp_path: Path) -> None:
    proj = project(tmp_path, [{"name": "a", "description": "A.",
                               "inputSchema": {"type": "string"}},
                              {"name": "b", "description": "B.",
                               "inputSchema": {"type": ["object", "null"],
                                               "properties": {"x": {"type": "integer"}}}}])
    a, b = (t.descriptor["inputSchema"] for t in proj.tools)
    assert a == {"type": "object", "not": {}}
    assert b == {"type": "object", "properties": {"x": {"type": "integer"}}}


def test_root_referenced_input_is_kept_and_reported(tmp_path: Path) -> None:
    s = {"properties": {"a": {"$ref": "#"}}}
    proj = project(tmp_path, [{"name": "a", "description": "A.", "inputSchema": s}])
    (t,) = proj.tools
    assert t.descriptor["inputSchema"] == s
    assert any(c.kind == "kept" and c.pointer == "/inputSchema/type" for c in t.changes)


# ----------------------------------------------------------------------------- class 8

ID_REF = {"$id": "http://localhost:1234/base/", "type": "object",
          "properties": {"x": {"$id": "http://localhost:1234/", "$ref": "foo.json"}},
          "definitions": {"a": {"$id": "foo.json", "type": "number"},
                          "b": {"$id": "http://localhost:1234/foo.json", "type": "string"}}}


def test_class8_id_beside_ref_keeps_both_targets() -> None:
    res = lower_schema({"$schema": D7, **ID_REF}, DRAFT7)
    assert set(res.schema["definitions"]) == {"a", "b"}, res.schema
    sub = lower_schema({"$schema": D7, **ID_REF}, DRAFT7, subset=True)
    assert any(c.kind == "widened" and c.pointer == "/properties/x/$ref" for c in sub.changes)


# ----------------------------------------------------------------------------- source data

def test_patterns_without_identity_escapes_ecma_refuses() -> None:
    from toolcat.schema.patterns import without_identity_escapes as fix

    assert fix(r"^[a-zA-Z0-9\-\_]+$") == r"^[a-zA-Z0-9\-_]+$"
    assert fix(r"a\-b\_c\ d") == "a-b_c d"
    assert fix(r"\d\.\w\(\)\[\]\{\}\|\/\^\$\*\+\?") is None   # nothing to drop
    assert fix(r"(?x)a\ b") is None       # verbose: the escaped space means something
    assert fix(r"[]\_]") is None          # Python and ECMA-262 delimit this class differently
    s = {"type": "object", "properties": {"id": {"type": "string", "pattern": r"^[a-z\_]+$"}},
         "patternProperties": {r"^x\_": {"type": "integer"}},
         "required": ["id", "id"]}
    res = lower_schema(s)
    assert res.schema["properties"]["id"]["pattern"] == "^[a-z_]+$"
    assert list(res.schema["patternProperties"]) == ["^x_"]
    assert res.schema["required"] == ["id"]
    assert all(c.kind == "exact" for c in res.changes)
    vals = [{"id": "a_b"}, {"id": "a-b"}, {"x_1": 1}, {"x_1": "s"}, {}]
    assert verdicts(res.schema, vals) == verdicts(s, vals)


def test_standard_view_patterns_fixed_for_mcp(tmp_path: Path) -> None:
    f = tmp_path / "p.openai.json"
    f.write_text(json.dumps([{"type": "function", "function": {
        "name": "a", "description": "A.", "parameters": {
            "type": "object", "properties": {"id": {"type": "string",
                                                    "pattern": r"^[a-z\_]+$"}}}}}]), "utf-8")
    proj = project_catalogs(load_catalogs([str(f)], LoadOptions()),
                            ProjectOptions(to="mcp", view="standard"))
    assert proj.tools[0].descriptor["inputSchema"]["properties"]["id"]["pattern"] == "^[a-z_]+$"


def test_ref_that_is_not_a_string_is_a_lint_finding(tmp_path: Path, toolcat) -> None:
    f = tmp_path / "r.tools.json"
    f.write_text(json.dumps({"tools": [{"name": "a", "description": "A.", "inputSchema": {
        "type": "object", "properties": {"p": {"$ref": None}}}}]}), "utf-8")
    r = toolcat("lint", str(f), "--format", "json")
    found = json.loads(r.stdout)["findings"]
    assert any(x["code"] == "SC301" and x["pointer"].endswith("/p/$ref") for x in found), found


# ----------------------------------------------------------------------------- under Ajv

D7_TAGS = SIBLINGS
REPRODUCERS = [
    # (name, schema, dialect, lower_schema keywords, instances)
    ("1", {"type": "object", "properties": {"n": {"allOf": [{"type": ["integer", "null"]},
                                                            {"type": "integer"}]}}},
     DRAFT2020, {}, [{"n": 1}, {"n": None}, {"n": 1.5}]),
    ("2", TREE, DRAFT2020, {"subset": True}, [{"kids": [{"kids": []}]}, {"kids": [1]}]),
    ("2-urn", URN, DRAFT2020, {"subset": True}, [{"foo": 31}, {"foo": 1}]),
    ("3", NOTHING, DRAFT2020, {}, [{}, {"a": "x"}]),
    ("3b", NOTHING_PROP, DRAFT2020, {}, [{"b": "x"}, {"a": 1}]),
    ("4", SIBLINGS, DRAFT7, {}, [{"t": ["a", "b", "c"]}, {"t": ["a"]}]),
    ("4-subset", SIBLINGS, DRAFT7, {"subset": True}, [{"t": ["a", "b", "c"]}, {"t": ["a"]}]),
    ("5", TUPLE, DRAFT2020, {}, [{"p": [1]}, {"p": ["x"]}]),
    ("5-factor", TUPLE, DRAFT2020, {"factor": True}, [{"p": [1]}, {"p": ["x"]}]),
    ("6", {"$schema": "https://example.com/draft2020-12/my-vocabulary.json", "type": "object",
           "properties": {"a": {"type": "string"}}}, DRAFT2020, {}, [{"a": "x"}, {"a": 1}]),
    ("8", {"$schema": D7, **ID_REF}, DRAFT7, {}, [{"x": "s"}, {"x": 1}]),
    ("8-subset", {"$schema": D7, **ID_REF}, DRAFT7, {"subset": True}, [{"x": "s"}, {"x": 1}]),
    ("pattern", {"type": "object", "properties": {"id": {"type": "string",
                                                         "pattern": r"^[a-z0-9\-\_]+$"}}},
     DRAFT2020, {}, [{"id": "a_b"}, {"id": "a b"}]),
]


@pytest.mark.parametrize("name,schema,dialect,kw,instances", REPRODUCERS,
                         ids=[r[0] for r in REPRODUCERS])
def test_reproducers_under_ajv(ajv_judge, name, schema, dialect, kw, instances) -> None:
    """Every engine that reads the original reads the projection: it compiles (as a tool's
    schema it is an object), and exact changes keep each verdict, widened ones every valid
    instance; as an MCP tool's inputSchema the SDK's ListToolsResultSchema takes it."""
    from support.differential import Differential, Pair

    res = lower_schema(schema, dialect, **kw)
    lossy = any(c.kind != "exact" for c in res.changes)
    diff = Differential(ajv_judge)
    diff.add(Pair(name, schema, dialect, res.schema, instances, lossy=lossy,
                  objects_only=kw.get("subset", False), engines=("sdk", "2020-12", "sdk-v2")))
    rep = diff.run()
    assert not rep.failures, "\n".join(rep.failures)
    if name == "pattern":   # the original does not compile (source data); the projection does
        assert rep.counts["sdk"]["originals refused"] == 1, rep.line()
        for engine in ("sdk", "2020-12", "sdk-v2"):
            assert ajv_judge.compile(res.schema, engine) is None
    else:
        assert rep.counts["sdk"]["pairs"] == 1, rep.line()
    # as an MCP tool's inputSchema (what the MCP target makes of the root)
    from toolcat.features.project.roots import fit_input

    root, _ch = fit_input(res.schema, dialect, typed=True, boolean_properties=False)
    if root.get("type") == "object":
        for sdk in ("v1", "v2"):
            assert ajv_judge.tools_list({"tools": [{"name": "t", "inputSchema": root}]},
                                        sdk=sdk).ok, (sdk, root)


def test_readme_sample_passes_list_tools(ajv_judge) -> None:
    cats = load_catalogs([str(SAMPLES / "petstore.openapi.yaml")], LoadOptions())
    for view in ("standard", "compact"):
        out = project_catalogs(cats, ProjectOptions(to="mcp", view=view)).catalog()
        for sdk in ("v1", "v2"):
            r = ajv_judge.tools_list(out, sdk=sdk)
            assert r.ok and r.client_error is None, (view, sdk, r)
