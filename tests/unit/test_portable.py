"""Issue 33: what toolcat writes is no less portable than its input (clients that strip or
refuse `$ref`/`$defs`, draft-07, missing root properties...)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.lint import write
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.project import ProjectOptions, project_catalogs

POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                          "z": {"type": "number"}},
         "required": ["x", "y", "z"]}
# the reproducer: three identical {x, y, z} objects, no $ref
MOVE = {"name": "move", "description": "Move.", "inputSchema": {
    "type": "object", "properties": {"from": POINT, "to": POINT, "via": POINT},
    "required": ["from", "to"]}}


def _project(tmp_path, tools, **opts):
    p = write(tmp_path, {"tools": tools})
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    return project_catalogs(cats, ProjectOptions(**opts))


def _text(x) -> str:
    return json.dumps(x)


@pytest.mark.parametrize("to", ["mcp", "openai", "anthropic", "openai-strict"])
def test_no_ref_is_added_to_a_schema_without_one(tmp_path, to):
    proj = _project(tmp_path, [MOVE], to=to)
    out = _text(proj.catalog())
    assert "$ref" not in out and "$defs" not in out
    # the same arguments as the input
    if to == "mcp":
        s = proj.tools[0].descriptor["inputSchema"]
        for args in ({"from": {"x": 1, "y": 2, "z": 3}, "to": {"x": 1, "y": 2, "z": 3}},
                     {"from": {"x": 1, "y": 2}, "to": {"x": 1, "y": 2, "z": 3}}):
            assert jsonschema.Draft202012Validator(s).is_valid(args) == \
                jsonschema.Draft202012Validator(MOVE["inputSchema"]).is_valid(args)


def test_factor_all_factors_a_schema_without_ref(tmp_path):
    proj = _project(tmp_path, [MOVE], to="mcp", factor_all=True)
    assert "$ref" in _text(proj.tools[0].descriptor["inputSchema"])


def test_a_schema_with_refs_is_still_factored(tmp_path):
    s = json.loads(json.dumps(MOVE["inputSchema"]))
    s["properties"]["other"] = {"$ref": "#/$defs/name"}
    s["$defs"] = {"name": {"type": "string", "minLength": 1, "maxLength": 80,
                           "pattern": "^[a-z]+$"}}
    s["properties"]["again"] = {"$ref": "#/$defs/name"}
    proj = _project(tmp_path, [{**MOVE, "inputSchema": s}], to="mcp")
    out = proj.tools[0].descriptor["inputSchema"]
    assert _text(out).count('"$ref"') > 2      # the repeated point objects too


def test_no_ref_is_added_to_an_output_schema_without_one(tmp_path):
    tool = {**MOVE, "outputSchema": MOVE["inputSchema"]}
    proj = _project(tmp_path, [tool], to="mcp")
    assert "$ref" not in _text(proj.tools[0].descriptor["outputSchema"])


# client profiles (the rows of formats.providers.CLIENTS)
DRAFT7 = {"name": "a", "description": "A tool.", "inputSchema": {
    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
    "properties": {"p": {"$ref": "#/definitions/P"}}, "definitions": {"P": {"type": "string"}}}}
BARE = {"name": "b", "description": "B tool.", "inputSchema": {"type": "object"}}
PLAIN = {"name": "c", "description": "C tool.", "inputSchema": {
    "type": "object", "properties": {"q": {"type": "string", "description": "Q."}}}}


def _lint(tmp_path, profile):
    from toolcat.config import Config
    from toolcat.lint.engine import lint

    p = write(tmp_path, {"tools": [DRAFT7, BARE, PLAIN]})
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    return {(f.code, f.tool, f.pointer) for f in lint(cats, Config(), profile).findings
            if f.code in ("PV512", "PV513", "PV514")}


def test_client_profiles_check_the_client_facts(tmp_path):
    from toolcat.lint.profiles import CLIENTS, PROFILES

    assert all(k in PROFILES and PROFILES[k].client == k for k in CLIENTS)
    got = _lint(tmp_path, "claude-desktop")
    assert ("PV513", "a", "/inputSchema/$schema") in got
    assert ("PV512", "a", "/inputSchema/definitions") in got
    assert ("PV512", "a", "/inputSchema/properties/p/$ref") in got
    assert not [x for x in got if x[1] != "a"]
    got = _lint(tmp_path, "copilot-cli")
    assert ("PV514", "b", "/inputSchema") in got and "PV513" not in {x[0] for x in got}
    assert _lint(tmp_path, "cursor") == set()      # no schema fact known for Cursor
    # every fact a client states has its own sources
    for c in CLIENTS.values():
        for fact in ("refs", "dialects", "root_properties", "stringifies"):
            if getattr(c, fact):
                assert c.cites.get(fact), (c.key, fact)
