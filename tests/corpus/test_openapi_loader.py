"""OpenAPI 3.x / Swagger 2.0 loader: corpus counts, standalone schemas, conversion, $ref rules."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from support.common import CORPUS, corpus, or_absent, run_toolcat
from support.outside import outside
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats.openapi.loader import fallback_id
from toolcat.model import OPENAPI3, SWAGGER2
from toolcat.schema.walker import local_refs

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


# --------------------------------------------------------------------------- helpers

def parse_independently(path: Path):
    """Parse a spec without toolcat (yaml_rs / json), for expectations."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    import yaml_rs

    return yaml_rs.loads(text, parse_datetime=False)


def count_ops(doc: dict, key: str = "paths") -> int:
    group = doc.get(key) or {}
    return sum(1 for item in group.values() if isinstance(item, dict)
               for m in METHODS if m in item)


def source_table() -> dict[str, tuple[int, int]]:
    """file -> (ops, webhook ops) from corpus/openapi/SOURCE.md."""
    out = {}
    text = corpus("openapi", "SOURCE.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0].startswith("`") and cells[0].endswith("`"):
            ops, hooks = (int(c.replace(",", "")) for c in cells[7:9])
            out[cells[0].strip("`")] = (ops, hooks)
    return out


def load(path, **opts):
    kw = {"strict": False}
    kw.update(opts)
    return load_catalogs([str(path)], LoadOptions(**kw))[0]


def write_spec(folder: Path, doc: dict, name: str = "spec.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return p


def oas(paths: dict, schemas: dict | None = None, version: str = "3.0.3", **extra) -> dict:
    doc = {"openapi": version, "info": {"title": "t", "version": "1"}, "paths": paths}
    if schemas is not None:
        doc["components"] = {"schemas": schemas}
    doc.update(extra)
    return doc


def body_op(schema: dict, required: bool = True, params: list | None = None,
            media: str = "application/json") -> dict:
    op: dict = {"operationId": "op", "requestBody": {"required": required,
                                                      "content": {media: {"schema": schema}}},
                "responses": {"200": {"description": "ok"}}}
    if params:
        op["parameters"] = params
    return op


def one_tool(tmp_path, doc, **opts):
    cat = load(write_spec(tmp_path, doc), **opts)
    assert len(cat.tools) == 1, [t.id for t in cat.tools]
    return cat, cat.tools[0]


def valid(schema, instance) -> bool:
    return Draft202012Validator(schema).is_valid(instance)


def prop_schema(tool, name):
    return tool.input_schema["properties"][name]


def corpus_specs() -> list[Path]:
    files = []
    for folder in ("openapi", "neo", "neo/snapshot-2026-04-12"):
        d = CORPUS / folder
        if d.is_dir():
            files += sorted(p for p in d.iterdir() if p.suffix in (".json", ".yaml", ".yml"))
    return files


SPECS = corpus_specs()
SPEC_PARAMS = or_absent([pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in SPECS], "openapi")


@pytest.fixture(scope="module")
def loaded():
    """Every corpus spec loaded once (with webhooks), keyed by path."""
    corpus("openapi")
    return {p: load(p, webhooks=True) for p in SPECS}


# --------------------------------------------------------------------------- corpus

@pytest.mark.parametrize("path", SPEC_PARAMS)
def test_one_tool_per_operation(path: Path, loaded):
    doc = parse_independently(path)
    expected = count_ops(doc)
    cat = load(path)  # default options: no webhooks
    assert len(cat.tools) == expected
    # nothing a tool is built from is broken (swagger-petstore-v31's unused PetDetails has two
    # $refs that its own $id makes unresolvable: lint reports them, see test_openapi_refs.py)
    assert [p for p in cat.problems if p.blocking] == []
    assert cat.format == (SWAGGER2 if "swagger" in doc else OPENAPI3)
    assert cat.version == str(doc.get("openapi") or doc.get("swagger"))
    assert cat.sources[str(path)].path == str(path)
    # document order, method and path set
    paths = doc.get("paths") or {}
    want = [(p, m) for p, item in paths.items() for m in item if m in METHODS]
    assert [(t.http_path, t.http_method) for t in cat.tools] == want
    ids = [item[m].get("operationId") for p, item in paths.items() for m in item if m in METHODS]
    assert [t.id for t in cat.tools] == [i if i else fallback_id(m, p)
                                         for i, (p, m) in zip(ids, want)]
    # with webhooks
    with_hooks = loaded[path]
    assert len(with_hooks.tools) == expected + count_ops(doc, "webhooks")


def test_counts_match_source_md():
    table = source_table()
    assert len(table) == 18
    for name, (ops, hooks) in table.items():
        path = corpus("openapi", name)
        assert count_ops(parse_independently(path)) == ops, name
        assert len(load(path).tools) == ops, name
        if hooks:
            assert len(load(path, webhooks=True).tools) == ops + hooks, name


def test_neo_counts_match_source_md():
    text = corpus("neo", "SOURCE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w.-]+\.openapi\.yaml)` \| [^|]+ \| [0-9a-f]+ \| \d+ \| (\d+) \|",
                      text, re.M)
    assert len(rows) == 6
    for name, tools in rows:
        # neo makes one MCP tool per operationId; toolcat one per operation (an operation
        # without operationId, like github-workflow's GET /docs, gets a generated id)
        path = corpus("neo", name)
        doc = parse_independently(path)
        with_id = sum(1 for item in doc["paths"].values() for m in item
                      if m in METHODS and item[m].get("operationId"))
        assert with_id == int(tools), name
        cat = load(path)
        assert len(cat.tools) == count_ops(doc)
        assert sum(1 for t in cat.tools if t.raw.get("operationId")) == int(tools), name


# Genuinely invalid schemas in the corpus specs, kept verbatim by the lossless loader:
# (spec file, keyword path fragment, reason)
KNOWN_INVALID = [
    ("openai.openapi.yaml", "$recursiveAnchor",
     "BetaCompoundFilter uses 2019-09 `$recursiveAnchor: true`; "
     "the 2020-12 meta-schema wants a string"),
    ("openai.openapi.yaml", "required",
     "ContainerResource lists `id` and `name` twice in `required` (must be unique)"),
    ("swagger-petstore-v31.openapi.yaml", "$ref",
     "`$ref: #/...` unquoted: YAML reads `$ref: null` (SOURCE.md); kept as data"),
]


@pytest.mark.parametrize("path", SPEC_PARAMS)
def test_every_tool_schema_stands_alone(path: Path, loaded):
    """Every $ref is a local #/$defs pointer that exists; every schema passes the meta-schema."""
    cat = loaded[path]
    checked: set[int] = set()
    errors: list[str] = []
    seen_known: set[tuple[str, str]] = set()
    for tool in cat.tools:
        for which, schema in (("inputSchema", tool.input_schema),
                              ("outputSchema", tool.output_schema)):
            if schema is None:
                continue
            if which == "inputSchema":
                assert schema["type"] == "object" and isinstance(schema["properties"], dict)
            defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
            top = schema
            if isinstance(schema, dict):
                top = {k: v for k, v in schema.items() if k != "$defs"}
            # shared def objects are checked once (they are the same object in every tool)
            parts = [(None, top)] + [(n, d) for n, d in defs.items() if id(d) not in checked]
            for name, part in parts:
                if name is not None:
                    checked.add(id(part))
                for _p, ref in local_refs(part):
                    assert ref.startswith("#/$defs/"), (tool.id, which, name, ref)
                    assert ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~") in defs, \
                        (tool.id, which, name, ref)
                try:
                    Draft202012Validator.check_schema(part)
                except SchemaError as e:
                    where = "/".join(map(str, e.absolute_path))
                    known = [(f, frag) for f, frag, _r in KNOWN_INVALID
                             if f == path.name and where.split("/")[-1] == frag]
                    if known:
                        seen_known.update(known)
                    else:
                        errors.append(f"{tool.id} {which} {name}: {e.message[:120]} at {where}")
    assert errors == []
    # the exception list is not stale: each entry for this spec still occurs
    assert seen_known == {(f, frag) for f, frag, _r in KNOWN_INVALID if f == path.name}


def test_parsed_document_is_not_mutated(tmp_path):
    path = corpus("openapi", "swagger-petstore-v31.openapi.yaml")
    from toolcat.document.parse import load_file
    from toolcat.formats.openapi.loader import load_openapi

    doc, src = load_file(str(path))
    before = copy.deepcopy(doc)
    load_openapi(doc, src, str(path), LoadOptions(webhooks=True))
    assert doc == before


def test_defs_are_shared_between_tools(loaded):
    cat = loaded[corpus("openapi", "swagger-petstore-v3.openapi.yaml")]
    pets = [t.output_schema["$defs"]["Pet"] for t in cat.tools
            if isinstance(t.output_schema, dict) and "Pet" in t.output_schema.get("$defs", {})]
    assert len(pets) >= 3
    assert all(p is pets[0] for p in pets)


def test_duplicate_operation_ids_load(loaded):
    cat = loaded[corpus("openapi", "sendgrid-v3.swagger2.yaml")]
    dup = [t for t in cat.tools if t.id == "POST-design"]
    assert sorted(t.http_path for t in dup) == ["/designs", "/designs/{id}"]


def test_missing_operation_ids_get_stable_ids():
    assert fallback_id("get", "/pets/{id}") == "get_pets_id"
    assert fallback_id("post", "{$request.query.queryUrl}") == "post_request_query_queryUrl"
    assert fallback_id("get", "/a//b.json") == "get_a_b_json"
    cat = load(corpus("openapi", "oai-callback-example.openapi.yaml"))
    assert [t.id for t in cat.tools] == ["post_streams"]
    assert cat.tools[0].raw.get("operationId") is None


def test_titles_descriptions_annotations_and_pointers(loaded):
    cat = loaded[corpus("openapi", "swagger-petstore-v3.openapi.yaml")]
    t = next(t for t in cat.tools if t.id == "findPetsByStatus")
    assert t.title == "Finds Pets by status."
    assert t.description.startswith("Multiple status values")
    assert (t.http_method, t.http_path) == ("get", "/pet/findByStatus")
    assert t.pointer == "/paths/~1pet~1findByStatus/get"
    assert t.source_pointer("/inputSchema/properties/status") == (
        str(corpus("openapi", "swagger-petstore-v3.openapi.yaml")),
        "/paths/~1pet~1findByStatus/get/parameters/0/schema")
    assert t.source_pointer("/inputSchema/properties/status/enum/1")[1] == \
        "/paths/~1pet~1findByStatus/get/parameters/0/schema/enum/1"
    assert t.source_pointer("/inputSchema/properties/status/description")[1] == \
        "/paths/~1pet~1findByStatus/get/parameters/0/description"
    assert t.source_pointer("/outputSchema/$defs/Pet/properties/name")[1] == \
        "/components/schemas/Pet/properties/name"
    assert t.source_pointer("/description")[1] == "/paths/~1pet~1findByStatus/get/description"
    assert t.source_pointer("/inputSchema/required")[1] == "/paths/~1pet~1findByStatus/get"
    # a summary-only operation: description falls back to the summary
    neo = load(corpus("neo", "memory-core.openapi.yaml"))
    hc = next(t for t in neo.tools if t.id == "healthcheck")
    assert hc.annotations == {"readOnlyHint": True}
    assert hc.extra.get("x-neo-tool-tier") == "read"
    assert hc.source_pointer("/annotations/readOnlyHint")[1] == \
        "/paths/~1healthcheck/get/x-annotations/readOnlyHint"


def test_positions_resolve_to_lines():
    path = corpus("openapi", "swagger-petstore-v3.openapi.yaml")
    cat = load(path)
    t = next(t for t in cat.tools if t.id == "findPetsByStatus")
    file, line, _col = cat.tool_position(t, "/inputSchema/properties/status")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert file == str(path)
    assert line is not None
    assert lines[line - 1].strip().startswith(("schema:", "type:")), lines[line - 1]
    # a def bundled from components lands in the component
    _f, line, _c = cat.tool_position(t, "/outputSchema/$defs/Pet/properties/name")
    assert lines[line - 1].strip().startswith(("name:", "type:")), lines[line - 1]


def test_output_schema_is_first_2xx_json(tmp_path):
    doc = oas({"/a": {"get": {"operationId": "a", "responses": {
        "default": {"description": "e",
                    "content": {"application/json": {"schema": {"type": "string"}}}},
        "204": {"description": "none"},
        "2XX": {"description": "x", "content": {
            "text/plain": {"schema": {"type": "boolean"}},
            "application/problem+json": {"schema": {"type": "integer"}}}},
        "200": {"description": "later",
                "content": {"application/json": {"schema": {"type": "array"}}}},
    }}}})
    _cat, t = one_tool(tmp_path, doc)
    assert t.output_schema == {"type": "integer"}
    doc = oas({"/a": {"get": {"operationId": "a", "responses": {"204": {"description": "none"}}}}})
    _cat, t = one_tool(tmp_path / "2", doc)
    assert t.output_schema is None


# --------------------------------------------------------------------------- conversion

def convert_one(tmp_path, schema: dict, version: str = "3.0.3", swagger: bool = False) -> dict:
    """The converted form of one schema (as an output schema of a tiny spec)."""
    if swagger:
        doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
            "operationId": "a", "responses": {"200": {"description": "ok", "schema": schema}}}}}}
    else:
        doc = oas({"/a": {"get": {"operationId": "a", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": schema}}}}}}},
            version=version)
    _cat, t = one_tool(tmp_path, doc)
    return t.output_schema


def test_nullable_with_type(tmp_path):
    s = convert_one(tmp_path, {"type": "string", "nullable": True, "minLength": 2})
    assert s == {"type": ["string", "null"], "minLength": 2}
    assert valid(s, None) and valid(s, "ab") and not valid(s, "a") and not valid(s, 3)


def test_nullable_without_type(tmp_path):
    s = convert_one(tmp_path, {"description": "d", "allOf": [{"type": "integer"}],
                               "nullable": True})
    assert s == {"description": "d", "anyOf": [{"allOf": [{"type": "integer"}]}, {"type": "null"}]}
    assert valid(s, None) and valid(s, 3) and not valid(s, "x")
    # nothing to constrain: null is already accepted, nothing to wrap
    s = convert_one(tmp_path / "2", {"description": "any", "nullable": True})
    assert s == {"description": "any"}
    # nullable false: dropped
    assert convert_one(tmp_path / "3", {"type": "string", "nullable": False}) == {"type": "string"}


def test_nullable_enum(tmp_path):
    s = convert_one(tmp_path, {"type": "string", "enum": ["a", "b"], "nullable": True})
    assert s == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert valid(s, None) and valid(s, "a") and not valid(s, "c")
    s = convert_one(tmp_path / "2", {"enum": ["a"], "nullable": True})
    assert valid(s, None) and valid(s, "a") and not valid(s, "b")


def test_nullable_in_31_documents_too(tmp_path):
    s = convert_one(tmp_path, {"type": "integer", "nullable": True}, version="3.1.0")
    assert s == {"type": ["integer", "null"]}


def test_exclusive_bounds(tmp_path):
    s = convert_one(tmp_path, {"type": "number", "minimum": 0, "exclusiveMinimum": True,
                               "maximum": 10, "exclusiveMaximum": False})
    assert s == {"type": "number", "exclusiveMinimum": 0, "maximum": 10}
    assert not valid(s, 0) and valid(s, 0.5) and valid(s, 10) and not valid(s, 10.5)
    s = convert_one(tmp_path / "2", {"type": "number", "maximum": 5, "exclusiveMaximum": True})
    assert s == {"type": "number", "exclusiveMaximum": 5}
    # 3.1 numeric bounds are left alone
    s = convert_one(tmp_path / "3", {"type": "number", "exclusiveMinimum": 1}, version="3.1.0")
    assert s == {"type": "number", "exclusiveMinimum": 1}


def test_example_becomes_examples(tmp_path):
    s = convert_one(tmp_path, {"type": "string", "example": "x", "format": "uuid", "x-y": 1,
                               "pattern": "^a", "readOnly": True, "xml": {"name": "q"}})
    assert s == {"type": "string", "examples": ["x"], "format": "uuid", "x-y": 1, "pattern": "^a",
                 "readOnly": True, "xml": {"name": "q"}}
    s = convert_one(tmp_path / "2", {"type": "string", "example": "x", "examples": ["y"]},
                    version="3.1.0")
    assert s == {"type": "string", "examples": ["y"]}
    # a property called "example" or "nullable" is data, not a keyword
    s = convert_one(tmp_path / "3", {"type": "object", "properties": {
        "example": {"type": "string"}, "nullable": {"type": "boolean"}}})
    assert s == {"type": "object", "properties": {"example": {"type": "string"},
                                                   "nullable": {"type": "boolean"}}}


def test_swagger_x_nullable_and_file(tmp_path):
    s = convert_one(tmp_path, {"type": "object", "properties": {
        "a": {"type": "string", "x-nullable": True},
        "f": {"type": "file", "description": "upload"}}}, swagger=True)
    assert s["properties"]["a"] == {"type": ["string", "null"]}
    assert s["properties"]["f"] == {"type": "string", "format": "binary", "description": "upload"}


def test_swagger_tuple_items_become_prefix_items(tmp_path):
    s = convert_one(tmp_path, {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                    swagger=True)
    assert s == {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
    assert valid(s, ["a", 1]) and not valid(s, [1, 1]) and valid(s, ["a", 1, None])


def test_swagger_parameters_from_keywords(tmp_path):
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {"/a/{id}": {"get": {
        "operationId": "a", "parameters": [
            {"name": "id", "in": "path", "type": "integer", "minimum": 1, "exclusiveMinimum": True,
             "description": "the id"},
            {"name": "tags", "in": "query", "type": "array", "collectionFormat": "csv",
             "items": {"type": "string", "enum": ["a", "b"], "collectionFormat": "pipes"},
             "maxItems": 3},
            {"name": "q", "in": "query", "type": "string", "x-nullable": True, "required": True,
             "allowEmptyValue": True, "pattern": "^q"},
        ], "responses": {"200": {"description": "ok"}}}}}}
    _cat, t = one_tool(tmp_path, doc)
    props = t.input_schema["properties"]
    assert props["id"] == {"description": "the id", "type": "integer", "exclusiveMinimum": 1}
    assert props["tags"] == {"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                             "maxItems": 3}
    assert props["q"] == {"type": ["string", "null"], "pattern": "^q"}
    assert t.input_schema["required"] == ["id", "q"]
    assert t.source_pointer("/inputSchema/properties/tags/items")[1] == \
        "/paths/~1a~1{id}/get/parameters/1/items"


def test_swagger_form_data_and_body(tmp_path):
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/up": {"post": {"operationId": "up", "consumes": ["multipart/form-data"], "parameters": [
            {"name": "file", "in": "formData", "type": "file", "required": True},
            {"name": "note", "in": "formData", "type": "string"}],
            "responses": {"200": {"description": "ok"}}}},
        "/b": {"post": {"operationId": "b", "parameters": [
            {"name": "payload", "in": "body", "required": True, "description": "the thing",
             "schema": {"type": "array", "items": {"$ref": "#/definitions/T"}}}],
            "responses": {"200": {"description": "ok"}}}}},
        "definitions": {"T": {"type": "object", "properties": {"a": {"type": "integer"}}}}}
    cat = load(write_spec(tmp_path, doc))
    up, b = cat.tools
    assert up.input_schema == {"type": "object", "properties": {
        "file": {"type": "string", "format": "binary"}, "note": {"type": "string"}},
        "required": ["file"]}
    assert b.input_schema["properties"]["body"] == {
        "description": "the thing", "type": "array", "items": {"$ref": "#/$defs/T"}}
    assert b.input_schema["required"] == ["body"]
    assert b.input_schema["$defs"] == {
        "T": {"type": "object", "properties": {"a": {"type": "integer"}}}}


# --------------------------------------------------------------------------- bodies and names

def test_object_body_is_merged(tmp_path):
    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    params = [{"name": "q", "in": "query", "schema": {"type": "string"}}]
    _cat, t = one_tool(tmp_path, oas({"/x": {"post": body_op(schema, params=params)}}))
    s = t.input_schema
    assert s == {"type": "object", "properties": {"q": {"type": "string"}, "a": {"type": "string"},
                                                  "b": {"type": "integer"}},
                 "required": ["a"], "additionalProperties": False}
    assert valid(s, {"a": "x", "q": "y"}) and not valid(s, {"a": "x", "c": 1}) and not valid(s, {})
    assert t.source_pointer("/inputSchema/properties/a")[1] == \
        "/paths/~1x/post/requestBody/content/application~1json/schema/properties/a"


def test_optional_body_with_required_fields_goes_under_body(tmp_path):
    schema = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
    _cat, t = one_tool(tmp_path, oas({"/x": {"post": body_op(schema, required=False)}}))
    s = t.input_schema
    assert s["properties"] == {"body": schema} and "required" not in s
    assert valid(s, {}) and valid(s, {"body": {"a": "x"}}) and not valid(s, {"body": {}})


def test_param_and_body_name_collision_kept_apart(tmp_path):
    schema = {"type": "object", "properties": {"name": {"type": "integer"}}}
    params = [{"name": "name", "in": "query", "schema": {"type": "string"}}]
    _cat, t = one_tool(tmp_path, oas({"/x": {"post": body_op(schema, params=params)}}))
    props = t.input_schema["properties"]
    assert props == {"name": {"type": "string"}, "body": schema}
    assert t.input_schema["required"] == ["body"]


def test_body_name_taken(tmp_path):
    params = [{"name": "body", "in": "query", "schema": {"type": "string"}}]
    _cat, t = one_tool(tmp_path, oas({"/x": {"post": body_op({"type": "array"}, params=params)}}))
    assert t.input_schema["properties"] == {"body": {"type": "string"},
                                            "requestBody": {"type": "array"}}


def test_same_name_in_two_locations(tmp_path):
    params = [{"name": "id", "in": "header", "schema": {"type": "string"}},
              {"name": "id", "in": "query", "required": True, "schema": {"type": "integer"}},
              {"name": "id", "in": "cookie", "schema": {"type": "boolean"}}]
    op = {"operationId": "op", "parameters": params, "responses": {"200": {"description": "ok"}}}
    _cat, t = one_tool(tmp_path, oas({"/x": {"get": op}}))
    assert t.input_schema["properties"] == {"id": {"type": "integer"},
                                            "header_id": {"type": "string"}}
    assert t.input_schema["required"] == ["id"]
    _cat, t = one_tool(tmp_path / "c", oas({"/x": {"get": op}}), cookies=True)
    assert list(t.input_schema["properties"]) == ["id", "header_id", "cookie_id"]


def test_path_level_parameters_and_overrides(tmp_path):
    doc = oas({"/p/{id}": {
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "v", "in": "query", "schema": {"type": "string"}}],
        "get": {"operationId": "g", "parameters": [
            {"name": "v", "in": "query", "schema": {"type": "integer"}, "deprecated": True,
             "example": 3},
            {"$ref": "#/components/parameters/Lim"},
            {"name": "Accept", "in": "header", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}}},
        "delete": {"operationId": "d", "responses": {"204": {"description": "gone"}}}}},
        {}, components={"parameters": {"Lim": {"name": "limit", "in": "query",
                                               "schema": {"type": "integer", "maximum": 5}}}})
    cat = load(write_spec(tmp_path, doc))
    g, d = cat.tools
    assert g.input_schema["properties"] == {
        "id": {"type": "string"},
        "v": {"examples": [3], "deprecated": True, "type": "integer"},
        "limit": {"type": "integer", "maximum": 5}}
    assert g.input_schema["required"] == ["id"]
    assert g.source_pointer("/inputSchema/properties/limit")[1] == \
        "/components/parameters/Lim/schema"
    assert d.input_schema["properties"] == {"id": {"type": "string"}, "v": {"type": "string"}}


def test_form_body_and_other_media(tmp_path):
    doc = oas({
        "/f": {"post": body_op({"properties": {"a": {"type": "string"}}},
                               media="application/x-www-form-urlencoded")},
        "/o": {"put": {"operationId": "o", "requestBody": {"content": {
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/j": {"patch": {"operationId": "j", "requestBody": {"required": True, "content": {
            "text/plain": {"schema": {"type": "string"}},
            "application/merge-patch+json": {"schema": {"type": "object",
                                                        "properties": {"z": {"type": "string"}}}}}},
            "responses": {"200": {"description": "ok"}}}}})
    cat = load(write_spec(tmp_path, doc))
    f, o, j = cat.tools
    assert f.input_schema["properties"] == {"a": {"type": "string"}}
    assert o.input_schema["properties"] == {"body": {"type": "string", "format": "binary"}}
    assert j.input_schema["properties"] == {"z": {"type": "string"}}


def test_webhooks_only_with_option(tmp_path):
    path = corpus("openapi", "oai-webhook-example.openapi.yaml")
    assert load(path).tools == []
    (t,) = load(path, webhooks=True).tools
    assert t.extra["webhook"] == "newPet" and t.http_path is None
    assert t.pointer == "/webhooks/newPet/post"
    assert "$defs" in t.input_schema or t.input_schema["properties"]


def test_a_webhooks_only_document_says_why_it_has_no_tool():
    """Adyen's ACS notification spec (real, webhooks only): read without --webhooks it is a
    catalog of no tools, which lint said as "No problems found, 0 tools" and the other
    commands not at all. Now lint reports TC114 (info, exit 0) at /webhooks and tools,
    measure and project print it as a warning; with --webhooks the 2 webhooks are tools and
    nothing is said."""
    spec = outside("adyen-acs-notification-v1")
    r = run_toolcat("lint", "--format", "json", spec)
    assert r.returncode == 0, r.stderr.decode()
    rep = json.loads(r.stdout)
    got = [(f["code"], f["severity"], f["pointer"]) for f in rep["findings"] if f["code"] == "TC114"]
    assert got == [("TC114", "info", "/webhooks")] and rep["summary"]["tools"] == 0
    assert "2 webhooks" in next(f["message"] for f in rep["findings"] if f["code"] == "TC114")
    for cmd in (("tools",), ("measure",), ("project", "-o", "-")):
        r = run_toolcat(*cmd, spec)
        assert r.returncode == 0, r.stderr.decode()
        assert "no operation under paths, only 2 webhooks" in r.stderr.decode(), cmd
    r = run_toolcat("lint", "--format", "json", "--webhooks", spec)
    rep = json.loads(r.stdout)
    assert rep["summary"]["tools"] == 2
    assert not [f for f in rep["findings"] if f["code"] == "TC114"]
    r = run_toolcat("tools", "--webhooks", spec)
    assert "webhook" not in r.stderr.decode()


# --------------------------------------------------------------------------- $ref

def test_id_and_anchor_refs_petstore_31(loaded):
    for name in ("swagger-petstore-v31.openapi.yaml",
                 "swagger-petstore-v31-code-first.openapi.json"):
        cat = loaded[corpus("openapi", name)]
        assert [p for p in cat.problems if p.blocking] == []   # (unused PetDetails: see above)
        t = next(t for t in cat.tools if t.id == "addPet")
        s = t.input_schema
        defs = s["$defs"]
        for d in defs.values():
            assert not any(k in d for k in ("$id", "$anchor", "$schema"))

        def deref(node):
            assert set(node) >= {"$ref"}, node
            return defs[node["$ref"][len("#/$defs/"):]]

        # the body ($ref + sibling `required`) is kept whole; Pet is a def
        pet = deref(s["properties"]["body"])
        # the $id-addressed category and the $anchor-addressed petdetails id both became defs
        category = deref(pet["properties"]["category"])
        assert category["properties"]["id"]["type"] == "integer"
        anchored = deref(pet["properties"]["petDetailsId"])
        assert anchored["type"] == "integer" and anchored["format"] == "int64"
        ok = {"body": {"id": 1, "name": "doggie", "photoUrls": ["u"], "petDetailsId": 5,
                       "category": {"id": 1}}}
        v = Draft202012Validator(s)
        assert v.is_valid(ok)
        assert not v.is_valid({"body": dict(ok["body"], petDetailsId="five")})
        assert not v.is_valid({"body": dict(ok["body"], category={"id": "x"})})
        assert not v.is_valid({"body": {"name": "doggie", "photoUrls": []}})  # sibling required id


def test_id_in_data_is_not_an_identifier(tmp_path):
    """Box-like `$id` as a property name and in example data never enters the $id index."""
    doc = oas({"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/M"}}}}}}}},
              {"M": {"type": "object", "properties": {"$id": {"type": "string"}},
                     "example": {"$id": "/components/schemas/M"}}}, version="3.1.0")
    _cat, t = one_tool(tmp_path, doc)
    assert t.output_schema["$defs"]["M"]["properties"] == {"$id": {"type": "string"}}


def test_external_relative_file_ref(tmp_path):
    api = tmp_path / "api"
    (api / "common").mkdir(parents=True)
    (api / "common" / "pet.yaml").write_text(
        "Pet:\n  type: object\n  required: [name]\n  properties:\n"
        "    name: {type: string}\n    owner: {$ref: '#/Owner'}\n"
        "Owner:\n  type: object\n  properties:\n    nick: {type: string, nullable: true}\n",
        encoding="utf-8")
    doc = oas({"/pets": {"post": body_op({"$ref": "common/pet.yaml#/Pet"})}})
    spec = write_spec(api, doc)
    cat = load(spec)
    assert cat.problems == []
    (t,) = cat.tools
    s = t.input_schema
    assert s["required"] == ["name"]
    assert s["properties"]["owner"] == {"$ref": "#/$defs/Owner"}
    assert s["$defs"]["Owner"]["properties"]["nick"] == {"type": ["string", "null"]}
    other = str(api / "common" / "pet.yaml")
    assert other in cat.sources
    assert t.source_pointer("/inputSchema/$defs/Owner/properties/nick") == (
        other, "/Owner/properties/nick")
    assert t.source_pointer("/inputSchema/properties/name") == (other, "/Pet/properties/name")
    assert t.source_pointer("/title")[0] == str(spec)
    assert valid(s, {"name": "x", "owner": {"nick": None}})
    assert not valid(s, {"name": "x", "owner": {"nick": 1}})
    # strict loading is clean
    assert load_catalogs([str(spec)], LoadOptions())[0].tools


def _problem_spec(tmp_path, ref: str, extra_schemas: dict | None = None) -> Path:
    schemas = {"Ok": {"type": "string"}}
    schemas.update(extra_schemas or {})
    doc = oas({"/a": {"post": body_op({"type": "object", "properties": {
        "x": {"$ref": ref}, "y": {"$ref": "#/components/schemas/Ok"}}})}}, schemas)
    return write_spec(tmp_path / "api", doc)


@pytest.mark.parametrize("ref, words", [
    ("../outside.yaml#/X", "outside the spec's folder"),
    ("https://example.com/schemas/x.json", "URL"),
    ("http://json-schema.org/draft-07/schema#", "URL"),
    ("file:///etc/passwd", "URL"),
    ("#/components/schemas/Missing", "does not resolve"),
    ("missing-file.yaml#/X", "cannot load"),
    ("#/components/schemas/A", "cycle"),
])
def test_unresolvable_refs_are_problems(tmp_path, ref, words):
    (tmp_path / "outside.yaml").write_text("X: {type: string}\n", encoding="utf-8")
    spec = _problem_spec(tmp_path, ref, {"A": {"$ref": "#/components/schemas/B"},
                                         "B": {"$ref": "#/components/schemas/A"}})
    cat = load(spec)
    (t,) = cat.tools
    assert len(cat.problems) == 1, cat.problems
    p = cat.problems[0]
    assert p.code == "SC302" and words in p.message and p.tool == "op"
    assert p.file == str(spec)
    assert p.pointer == \
        "/paths/~1a/post/requestBody/content/application~1json/schema/properties/x/$ref"
    # the broken $ref is left as it was; the rest of the tool is fine
    assert t.input_schema["properties"]["x"] == {"$ref": ref}
    assert t.input_schema["properties"]["y"] == {"$ref": "#/$defs/Ok"}
    # strict loading with --broken-refs fail: one error line, exit 2, no traceback
    r = run_toolcat("tools", "--broken-refs", "fail", spec, timeout=20)
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("toolcat: error: ") and "Traceback" not in err
    assert str(spec) in err and words in err and "--broken-refs" in err
    # by default (widen) the tool is built, wider at the broken ref, and a warning says so
    r = run_toolcat("tools", spec, timeout=20)
    assert r.returncode == 0 and b"1 tool widened" in r.stderr, r.stderr


def test_ref_chain_and_self_cycle(tmp_path):
    spec = _problem_spec(tmp_path, "#/components/schemas/S",
                         {"S": {"$ref": "#/components/schemas/S"}})
    cat = load(spec)
    assert len(cat.problems) == 1 and "cycle" in cat.problems[0].message
    # a chain A -> B -> schema is fine
    spec = _problem_spec(tmp_path / "2", "#/components/schemas/A", {
        "A": {"$ref": "#/components/schemas/B", "description": "alias"},
        "B": {"type": "integer"}})
    cat = load(spec)
    assert cat.problems == []
    s = cat.tools[0].input_schema
    assert s["$defs"]["A"] == {"$ref": "#/$defs/B", "description": "alias"}
    assert valid(s, {"x": 1}) and not valid(s, {"x": "1"})


def test_recursive_schema_bundled_as_defs(tmp_path):
    tree = {"type": "object", "required": ["value"], "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}}
    doc = oas({"/t": {"post": body_op({"$ref": "#/components/schemas/Tree"})}}, {"Tree": tree})
    _cat, t = one_tool(tmp_path, doc)
    s = t.input_schema
    assert s["properties"]["children"] == {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
    assert s["$defs"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    three = {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}
    assert valid(s, three)
    assert not valid(s, {"value": 1, "children": [{"value": 2, "children": [{"value": "3"}]}]})
    assert not valid(s, {"value": 1, "children": [{"children": []}]})


def test_refs_into_the_inside_of_components_get_their_own_defs(tmp_path):
    doc = oas({"/a": {"post": body_op({"type": "object", "properties": {
        "owner": {"$ref": "#/components/schemas/Pet/properties/owner"},
        "pet": {"$ref": "#/components/schemas/Pet"},
        "other": {"$ref": "#/paths/~1a/post/responses/200/content/application~1json/schema"}}})}},
        {"Pet": {"type": "object", "properties": {"owner": {"type": "string", "minLength": 3}}},
         "Pet_properties_owner": {"type": "integer"}})
    doc["paths"]["/a"]["post"]["responses"]["200"]["content"] = {
        "application/json": {"schema": {"type": "boolean"}}}
    _cat, t = one_tool(tmp_path, doc)
    s = t.input_schema
    inner = s["properties"]["owner"]["$ref"][len("#/$defs/"):]
    assert inner != "Pet_properties_owner"  # the real component keeps that name
    assert s["$defs"][inner] == {"type": "string", "minLength": 3}
    other = s["properties"]["other"]["$ref"][len("#/$defs/"):]
    assert s["$defs"][other] == {"type": "boolean"}
    assert t.source_pointer(f"/inputSchema/$defs/{inner}")[1] == \
        "/components/schemas/Pet/properties/owner"


def test_non_string_ref_is_data(tmp_path):
    doc = oas({"/a": {"post": body_op({"type": "object", "properties": {
        "x": {"$ref": None}}})}}, version="3.1.0")
    cat, t = one_tool(tmp_path, doc)
    assert cat.problems == []
    assert t.input_schema["properties"]["x"] == {"$ref": None}


def test_openapi_level_refs(tmp_path):
    doc = oas({"/a/{id}": {"$ref": "#/components/pathItems/A"}}, {"R": {"type": "string"}},
              version="3.1.0", webhooks={})
    doc["components"].update({
        "pathItems": {"A": {"parameters": [{"$ref": "#/components/parameters/Id"}],
                            "post": {"operationId": "a",
                                     "requestBody": {"$ref": "#/components/requestBodies/B"},
                                     "responses": {"201": {"$ref": "#/components/responses/R"}}}}},
        "parameters": {"Id": {"name": "id", "in": "path", "required": True,
                              "schema": {"type": "integer"}}},
        "requestBodies": {"B": {"required": True, "content": {"application/json": {
            "schema": {"type": "object",
                       "properties": {"n": {"$ref": "#/components/schemas/R"}}}}}}},
        "responses": {"R": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/R"}}}}},
    })
    cat, t = one_tool(tmp_path, doc)
    assert cat.problems == []
    assert t.input_schema["properties"] == {"id": {"type": "integer"}, "n": {"$ref": "#/$defs/R"}}
    assert t.output_schema == {"$ref": "#/$defs/R", "$defs": {"R": {"type": "string"}}}
    assert t.pointer == "/components/pathItems/A/post"
    # a broken parameter ref is a problem, the operation still loads
    doc["components"]["pathItems"]["A"]["parameters"] = [{"$ref": "#/components/parameters/Nope"}]
    cat, t = one_tool(tmp_path / "2", doc)
    assert [p.code for p in cat.problems] == ["SC302"]
    assert cat.problems[0].pointer == "/components/pathItems/A/parameters/0/$ref"
    assert "id" not in t.input_schema["properties"]


def test_bad_ref_cli_line_names_position(tmp_path):
    spec = _problem_spec(tmp_path, "#/components/schemas/Missing")
    r = run_toolcat("tools", "--broken-refs", "fail", spec)
    assert r.returncode == 2
    assert re.match(r"toolcat: error: .*spec\.json(:\d+:\d+)?: ", r.stderr.decode())


def test_swagger_consumes_decides_json_or_not(tmp_path):
    def spec(consumes):
        op = {"operationId": "b", "parameters": [
            {"name": "payload", "in": "body", "required": True,
             "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}],
            "responses": {"200": {"description": "ok"}}}
        if consumes is not None:
            op["consumes"] = consumes
        return {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                "consumes": ["application/json"], "paths": {"/b": {"post": op}}}

    for consumes, merged in ((None, True), (["application/json; charset=utf-8"], True),
                             (["application/xml"], False),
                             (["text/plain", "application/json"], True)):
        _cat, t = one_tool(tmp_path / str(len(str(consumes))) / str(merged), spec(consumes))
        assert ("a" in t.input_schema["properties"]) is merged, consumes
        assert ("body" in t.input_schema["properties"]) is not merged, consumes


# --------------------------------------------------------------------------- readOnly / writeOnly

_PET_SCHEMAS = {
    "Id": {"type": "string", "readOnly": True},
    "Pet": {"type": "object", "required": ["petId", "name", "secret", "owner"],
            "properties": {"petId": {"$ref": "#/components/schemas/Id"},
                           "name": {"type": "string"},
                           "secret": {"type": "string", "writeOnly": True},
                           "owner": {"$ref": "#/components/schemas/Owner"}}},
    "Owner": {"type": "object", "required": ["ownerId", "email"],
              "properties": {"ownerId": {"type": "integer", "readOnly": True},
                             "email": {"type": "string"}}},
}


def _pet_doc(version: str) -> dict:
    ref = {"$ref": "#/components/schemas/Pet"}
    op = {"operationId": "updatePet",
          "parameters": [{"name": "id", "in": "path", "required": True,
                          "schema": {"type": "string", "readOnly": True}}],
          "requestBody": {"required": True, "content": {"application/json": {"schema": ref}}},
          "responses": {"200": {"description": "ok",
                                "content": {"application/json": {"schema": ref}}}}}
    get = {"operationId": "getPet",
           "responses": {"200": {"description": "ok",
                                 "content": {"application/json": {"schema": ref}}}}}
    return oas({"/pets/{id}": {"put": op, "get": get}}, copy.deepcopy(_PET_SCHEMAS), version)


_FULL = {"id": "p1", "petId": "x", "name": "Rex", "secret": "s",
         "owner": {"ownerId": 1, "email": "a@b"}}


def _without(inst: dict, *path: str) -> dict:
    out = copy.deepcopy(inst)
    node = out
    for k in path[:-1]:
        node = node[k]
    del node[path[-1]]
    return out


def test_openapi_30_read_only_required_applies_to_responses_only(tmp_path):
    """OpenAPI 3.0: "If the property is marked as readOnly being true and is in the required
    list, the required will take effect on the response only" (writeOnly: on the request
    only). A request without the server-set fields is one the operation accepts."""
    cat = load(write_spec(tmp_path, _pet_doc("3.0.3")))
    put, get = (next(t for t in cat.tools if t.id == i) for i in ("updatePet", "getPet"))
    request = put.input_schema
    assert valid(request, _FULL)
    assert valid(request, _without(_FULL, "petId"))             # readOnly through a $ref
    assert valid(request, _without(_FULL, "owner", "ownerId"))  # readOnly, nested definition
    assert not valid(request, _without(_FULL, "name"))
    assert not valid(request, _without(_FULL, "secret"))        # writeOnly: sent, required
    assert not valid(request, _without(_FULL, "owner", "email"))
    assert not valid(request, _without(_FULL, "id"))            # a path parameter stays
    pet = {k: v for k, v in _FULL.items() if k != "id"}
    for tool in (put, get):
        response = tool.output_schema
        assert valid(response, pet)
        assert valid(response, _without(pet, "secret"))          # writeOnly: not returned
        assert not valid(response, _without(pet, "petId"))       # readOnly: returned, required
        assert not valid(response, _without(pet, "owner", "ownerId"))
        assert not valid(response, _without(pet, "name"))


def test_openapi_31_required_is_as_written(tmp_path):
    """OpenAPI 3.1 uses JSON Schema's readOnly/writeOnly, which are annotations only."""
    cat = load(write_spec(tmp_path, _pet_doc("3.1.0")))
    put = next(t for t in cat.tools if t.id == "updatePet")
    assert valid(put.input_schema, _FULL)
    assert not valid(put.input_schema, _without(_FULL, "petId"))
    assert not valid(put.output_schema, _without({k: v for k, v in _FULL.items() if k != "id"},
                                                 "secret"))


def test_swagger_20_read_only_is_not_required_in_requests(tmp_path):
    schemas = {"Pet": {"type": "object", "required": ["id", "name"],
                       "properties": {"id": {"type": "integer", "readOnly": True},
                                      "name": {"type": "string"}}}}
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "definitions": schemas,
           "paths": {"/pets": {"post": {
               "operationId": "addPet",
               "parameters": [{"name": "pet", "in": "body", "required": True,
                               "schema": {"$ref": "#/definitions/Pet"}}],
               "responses": {"200": {"description": "ok",
                                     "schema": {"$ref": "#/definitions/Pet"}}}}}}}
    _cat, tool = one_tool(tmp_path, doc)
    assert valid(tool.input_schema, {"name": "Rex"})
    assert not valid(tool.input_schema, {"id": 1})
    assert not valid(tool.output_schema, {"name": "Rex"})


def test_a_bundled_definition_has_one_origin_entry_for_every_closure_that_holds_it() -> None:
    """Operations bundle overlapping sets of schemas (each its closure); the origin entry of
    a definition (``/inputSchema/$defs/NAME`` -> its pointer) is made once per prefix and file
    and shared by every tool whose closure holds it, not made again for each closure."""
    cat = load_catalogs([str(corpus("openapi", "openai.openapi.yaml"))])[0]
    made: dict[tuple[str, str], set[int]] = {}
    closures = set()
    for t in cat.tools:
        entries = [e for e in t.origin if e[0].startswith(("/inputSchema/$defs/",
                                                            "/outputSchema/$defs/"))]
        closures.add(tuple(e[0] for e in entries))
        for e in entries:
            made.setdefault((t.file, e[0]), set()).add(id(e))
    assert len(closures) > 100 and len(made) > 500
    assert all(len(ids) == 1 for ids in made.values())
