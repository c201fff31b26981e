"""Malformed OpenAPI documents never crash the loader: problems or skipped parts, no exception."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcat.document.source import SourceText
from toolcat.formats import LoadOptions
from toolcat.formats.openapi.loader import load_openapi

REFS = st.sampled_from([
    "#", "", "#/", "#/components/schemas/A", "#/components/schemas/B", "#/paths", "#x",
    "#/components/schemas/A/properties/x", "#/components/schemas/%41", "//host/x", "http://x",
    "x.yaml", "../x.yaml", "#/components/parameters/P", "#/definitions/A", "#/parameters/P",
    "urn:x", "#/%zz", "#/components/schemas/A/items/0", "a b#c", "#/components/requestBodies/R",
    "#/components/responses/S", "#/components/pathItems/I", "/components/schemas/a#anc"])
KEYS = st.sampled_from([
    "type", "properties", "items", "nullable", "x-nullable", "example", "examples", "enum",
    "$ref", "$id", "$anchor", "allOf", "anyOf", "additionalProperties", "required",
    "exclusiveMinimum", "minimum", "name", "in", "schema", "content", "application/json",
    "application/x-www-form-urlencoded", "text/plain", "requestBody", "responses", "200", "2XX",
    "parameters", "get", "post", "operationId", "summary", "description", "discriminator",
    "mapping", "propertyName", "x-annotations", "consumes", "formData", "body", "query", "path",
    "header", "cookie", "file", "object", "string", "null", "$schema", "$defs", "prefixItems",
    "A", "B", "P", "R", "S", "I", "x"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), KEYS, REFS)
VALUES = st.recursive(SCALARS, lambda c: st.one_of(st.lists(c, max_size=3),
                                                   st.dictionaries(KEYS, c, max_size=5)),
                      max_leaves=40)
MAPS = st.dictionaries(KEYS, VALUES, max_size=4)


@settings(max_examples=300, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.sampled_from(["3.0.3", "3.1.0", "2.0"]),
       st.dictionaries(st.sampled_from(["/a", "/b/{x}"]), MAPS, max_size=2), MAPS, MAPS)
def test_loader_never_raises(tmp_path_factory, version, paths, schemas, comps):
    if version == "2.0":
        doc = {"swagger": version, "paths": paths, "definitions": schemas, "parameters": comps}
    else:
        doc = {"openapi": version, "paths": paths, "webhooks": paths,
               "components": dict(comps, schemas=schemas)}
    folder = tmp_path_factory.getbasetemp() / "fuzz"
    folder.mkdir(exist_ok=True)
    path = str(folder / "spec.json")
    text = json.dumps(doc)
    cat = load_openapi(doc, SourceText(path, text, "json"), path,
                       LoadOptions(webhooks=True, cookies=True))
    for t in cat.tools:
        assert t.input_schema["type"] == "object"
        json.dumps([t.input_schema, t.output_schema])
    for p in cat.problems:
        # a $ref that does not resolve; a path template variable no parameter declares
        assert p.code in ("SC302", "TC113") and p.message
