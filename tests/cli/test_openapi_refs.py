"""OpenAPI `$ref` wherever the specification allows one, in files next to the spec (issue 12
item 9): operations that are references (DigitalOcean keeps each operation in a file), the
references inside them resolved relative to their own file, and every reference toolcat does
not use (headers, links, callbacks, error responses, unused components...) resolved too:
one that does not resolve is an SC302 finding, never silence. The real multi-file specs of the
outside corpus (DigitalOcean: 659 operations in 2,907 files) are in tests/corpus/test_outside.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from support.common import corpus, run_toolcat


def write(root: Path, files: dict[str, object]) -> None:
    for name, doc in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(yaml.safe_dump(doc, sort_keys=False) if name.endswith(".yaml")
                     else json.dumps(doc))


def tools(path: Path) -> list[dict]:
    r = run_toolcat("tools", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    (cat,) = json.loads(r.stdout)["catalogs"]
    return cat["tools"]


def lint(path: Path, *args: str) -> list[dict]:
    r = run_toolcat("lint", "--format", "json", *args, path)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["findings"]


def standard(path: Path) -> list[dict]:
    r = run_toolcat("-q", "project", "--view", "standard", path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["tools"]


SPEC = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
    "/things/{id}": {
        "parameters": [{"$ref": "shared/params.yaml#/id"}],
        "get": {"$ref": "resources/things/get.yaml"},
        "put": {"$ref": "resources/things/put.yaml"},
    },
}}
FILES = {
    "spec.yaml": SPEC,
    "shared/params.yaml": {"id": {"name": "id", "in": "path", "required": True,
                                  "description": "The thing's id.",
                                  "schema": {"type": "integer", "minimum": 1}}},
    # references inside an operation file are relative to that file
    "resources/things/get.yaml": {
        "operationId": "getThing", "summary": "Get a thing",
        "parameters": [{"$ref": "../../shared/params.yaml#/verbose"},
                       {"name": "fields", "in": "query", "schema": {"type": "string"},
                        "examples": {"one": {"$ref": "examples/fields.yaml"}}}],
        "responses": {"200": {"$ref": "responses/thing.yaml"}}},
    "resources/things/put.yaml": {
        "operationId": "putThing",
        "requestBody": {"$ref": "models/body.yaml"},
        "responses": {"204": {"description": "done"}}},
    "resources/things/examples/fields.yaml": {"summary": "two fields", "value": "name,size"},
    "resources/things/responses/thing.yaml": {
        "description": "the thing",
        "content": {"application/json": {"schema": {"$ref": "../models/thing.yaml"}}}},
    "resources/things/models/thing.yaml": {"type": "object",
                                           "properties": {"name": {"type": "string"}}},
    "resources/things/models/body.yaml": {
        "required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"name": {"type": "string", "maxLength": 9}},
            "required": ["name"]}}}},
}
FILES["shared/params.yaml"]["verbose"] = {"name": "verbose", "in": "query",
                                          "schema": {"type": "boolean"}}


def test_an_operation_that_is_a_ref_to_a_file_is_read_there(tmp_path):
    write(tmp_path, FILES)
    spec = tmp_path / "spec.yaml"
    got = {t["id"]: t["parameters"] for t in tools(spec)}
    assert got == {"getThing": 3, "putThing": 2}   # id (path level), verbose, fields / id, name
    by = {t["name"]: t for t in standard(spec)}
    g = by["getThing"]["inputSchema"]
    assert g["properties"]["id"] == {"description": "The thing's id.", "type": "integer",
                                     "minimum": 1}
    assert g["properties"]["fields"]["examples"] == ["name,size"]   # an Example Object $ref
    assert g["required"] == ["id"]
    out = by["getThing"]["outputSchema"]
    assert out["$defs"][out["$ref"].rsplit("/", 1)[1]]["properties"] == {"name": {"type": "string"}}
    p = by["putThing"]["inputSchema"]
    assert p["properties"]["name"] == {"type": "string", "maxLength": 9}
    assert sorted(p["required"]) == ["id", "name"]
    assert by["getThing"]["description"] == "Get a thing"
    # no invented ids, and findings point into the operation's own file
    found = lint(spec)
    assert not [f for f in found if f["code"] == "TC102"]
    (desc,) = [f for f in found if f["code"] == "TC107"]
    assert desc["file"].endswith("resources/things/put.yaml") and desc["line"] == 1
    mr = {(Path(f["file"]).name, f["pointer"], f["line"]) for f in found if f["code"] == "MR401"}

    def line_of(name: str, text: str) -> int:
        """1-based line of the first line holding ``text`` in the written file ``name``."""
        lines = (tmp_path / name).read_text().splitlines()
        return 1 + next(i for i, line in enumerate(lines) if text in line)

    assert mr == {("params.yaml", "/inputSchema/properties/verbose",
                   line_of("shared/params.yaml", "type: boolean")),
                  ("get.yaml", "/inputSchema/properties/fields",
                   line_of("resources/things/get.yaml", "type: string")),
                  ("body.yaml", "/inputSchema/properties/name",
                   line_of("resources/things/models/body.yaml", "type: string"))}, mr
    # project refuses nothing: every reference resolves
    assert run_toolcat("-q", "project", spec).returncode == 0


def test_swagger_operation_ref(tmp_path):
    write(tmp_path, {
        "spec.yaml": {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                      "paths": {"/a": {"post": {"$ref": "ops/a.yaml"}}}},
        "ops/a.yaml": {"operationId": "makeA", "parameters": [
            {"in": "body", "name": "body", "required": True, "schema": {"$ref": "a.schema.yaml"}}],
            "responses": {"200": {"description": "ok"}}},
        "ops/a.schema.yaml": {"type": "object", "properties": {"n": {"type": "integer"}}},
    })
    assert [(t["id"], t["parameters"]) for t in tools(tmp_path / "spec.yaml")] == [("makeA", 1)]
    (t,) = standard(tmp_path / "spec.yaml")
    assert t["inputSchema"] == {"type": "object", "properties": {"n": {"type": "integer"}}}


BROKEN = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "paths": {"/a": {"get": {
        "operationId": "getA",
        "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"},
                        "examples": {"e": {"$ref": "#/components/examples/nope"}}}],
        "callbacks": {"cb": {"$ref": "#/components/callbacks/nope"}},
        "responses": {
            "200": {"description": "ok",
                    "headers": {"X-Rate": {"$ref": "#/components/headers/nope"}},
                    "links": {"next": {"$ref": "#/components/links/nope"}},
                    "content": {"application/json": {
                        "schema": {"type": "object"},
                        "examples": {"x": {"$ref": "examples.yaml#/nope"}}}}},
            "404": {"$ref": "#/components/responses/NotFound"},
            "500": {"$ref": "#/components/responses/nope"}}}}},
    "components": {
        "responses": {"NotFound": {"description": "nf", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Gone"}}}}},
        "schemas": {"Unused": {"type": "object", "properties": {
            "x": {"$ref": "other.yaml#/Missing"}}}},
    },
}


def test_every_reference_is_resolved_or_reported(tmp_path):
    """References toolcat does not use are resolved too; each one that does not resolve is an
    SC302 error where it is written. The tool does not need them: project goes on."""
    write(tmp_path, {"spec.yaml": BROKEN, "examples.yaml": {"yes": {"value": 1}},
                     "other.yaml": {"Present": {"type": "string"}}})
    spec = tmp_path / "spec.yaml"
    sc = sorted(f["pointer"] for f in lint(spec) if f["code"] == "SC302")
    base = "/paths/~1a/get"
    assert sc == sorted([
        f"{base}/parameters/0/examples/e/$ref",
        f"{base}/callbacks/cb/$ref",
        f"{base}/responses/200/headers/X-Rate/$ref",
        f"{base}/responses/200/links/next/$ref",
        f"{base}/responses/200/content/application~1json/examples/x/$ref",
        f"{base}/responses/500/$ref",
        "/components/responses/NotFound/content/application~1json/schema/$ref",
        "/components/schemas/Unused/properties/x/$ref",
    ]), sc
    r = run_toolcat("-q", "project", spec)
    assert r.returncode == 0, r.stderr
    assert [t["name"] for t in json.loads(r.stdout)["tools"]] == ["getA"]


def test_a_broken_reference_a_tool_needs_stops_project(tmp_path):
    write(tmp_path, {"spec.yaml": {"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
                                   "paths": {"/a": {"get": {"$ref": "ops/missing.yaml"}},
                                             "/b": {"get": {"$ref": "ops/b.yaml"}}}},
                     "ops/b.yaml": {"operationId": "getB", "parameters": [
                         {"$ref": "../params.yaml#/gone"}],
                         "responses": {"200": {"description": "ok"}}},
                     "params.yaml": {"here": {"name": "h", "in": "query"}}})
    spec = tmp_path / "spec.yaml"
    r = run_toolcat("-q", "project", "--broken-refs", "fail", spec)
    err = r.stderr.decode()
    assert r.returncode == 2 and err.count("\n") == 1, err
    line = 1 + spec.read_text().splitlines().index("      $ref: ops/missing.yaml")
    assert err.startswith(f"toolcat: error: {spec}:{line}:13: $ref 'ops/missing.yaml': cannot "
                          "load"), err
    found = [(Path(f["file"]).name, f["pointer"]) for f in lint(spec) if f["code"] == "SC302"]
    assert sorted(found) == [("b.yaml", "/parameters/0/$ref"), ("spec.yaml", "/paths/~1a/get/$ref")]
    # by default (--broken-refs widen) the operation that is a broken reference is left out
    # (nothing is known of it) and getB is built without the parameter it cannot read
    r = run_toolcat("project", spec)
    assert r.returncode == 0, r.stderr
    assert [t["name"] for t in json.loads(r.stdout)["tools"]] == ["getB"]
    assert b"2 $refs that do not resolve: 1 tool widened to {} there, 1 left out" in r.stderr


def test_an_id_changes_what_a_fragment_reference_means():
    """swagger-petstore-v31's PetDetails (used by no operation) has ``$id:
    /components/schemas/petdetails``, so its ``#/components/schemas/Tag`` is looked up inside
    PetDetails itself, where it does not exist (JSON Schema 2020-12, 8.2.1/9.1.1): two true
    SC302 findings that only a check of the unused components finds. The `referencing`
    library (jsonschema's) agrees."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    path = corpus("openapi", "swagger-petstore-v31.openapi.yaml")
    doc = yaml.safe_load(path.read_text())
    pet_details = doc["components"]["schemas"]["PetDetails"]
    uri = "https://example.test/openapi.yaml"
    registry = Registry().with_resource(uri, Resource.from_contents(
        doc, default_specification=DRAFT202012))
    res = registry.resolver(uri).lookup(f"{uri}#/components/schemas/PetDetails")
    inside = res.resolver.in_subresource(Resource.from_contents(pet_details))
    for name in ("Tag", "Category"):
        try:
            inside.lookup(f"#/components/schemas/{name}")
        except Unresolvable:
            pass
        else:  # pragma: no cover - the premise of the test
            raise AssertionError(f"{name} resolved")
    found = [f["pointer"] for f in lint(path) if f["code"] == "SC302"]
    assert found == ["/components/schemas/PetDetails/properties/tag/$ref",
                     "/components/schemas/PetDetails/properties/category/$ref"]
    assert run_toolcat("-q", "project", path).returncode == 0
