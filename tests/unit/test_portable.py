"""Issue 33: what toolcat writes is no less portable than its input (clients that strip or
refuse `$ref`/`$defs`, draft-07, missing root properties...)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.lint import write
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs

POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                                          "z": {"type": "number"}},
         "required": ["x", "y", "z"]}
# the issue's reproducer: three identical {x, y, z} objects, no $ref
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
    from toolcat.features.lint.engine import lint

    p = write(tmp_path, {"tools": [DRAFT7, BARE, PLAIN]})
    cats = load_catalogs([str(p)], LoadOptions(strict=True))
    return {(f.code, f.tool, f.pointer) for f in lint(cats, Config(), profile).findings
            if f.code in ("PV512", "PV513", "PV514")}


def test_client_profiles_check_the_client_facts(tmp_path):
    from toolcat.features.lint.profiles import CLIENTS, PROFILES

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
        for fact in ("refs", "dialects", "root_properties", "stringifies", "plugin_tool_name"):
            if getattr(c, fact):
                assert c.cites.get(fact), (c.key, fact)


# --for CLIENT (issue 33: exact rewrites for the clients' rules)
TUPLE7 = {"name": "t", "description": "T.", "inputSchema": {
    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
    "properties": {
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                 "additionalItems": False},
        "p": {"$ref": "#/definitions/P"},
        "q": {"$ref": "#/definitions/P", "minLength": 3},
        "tree": {"$ref": "#/definitions/T"},
        "d": {"type": "object", "dependencies": {"a": ["b"], "c": {"required": ["e"]}}}},
    "definitions": {"P": {"type": "string", "maxLength": 9},
                    "T": {"type": "object",
                          "properties": {"kids": {"type": "array",
                                                  "items": {"$ref": "#/definitions/T"}}}}}}}
INSTANCES = [
    {"pair": ["a", 1]}, {"pair": ["a", 1, 2]}, {"pair": [1, "a"]}, {"pair": ["a"]},
    {"p": "abc"}, {"p": "abcdefghijk"}, {"p": 1}, {"q": "ab"}, {"q": "abcdefghijk"},
    {"tree": {"kids": [{"kids": []}]}}, {"tree": {"kids": [1]}},
    {"d": {"a": 1}}, {"d": {"a": 1, "b": 2}}, {"d": {"c": 1}}, {"d": {"c": 1, "e": 2}}, {},
]


def test_for_claude_desktop_upgrades_draft7(tmp_path, ajv_judge):
    proj = _project(tmp_path, [TUPLE7, {**MOVE, "inputSchema": {"type": "object"}}],
                    to="mcp", for_clients=("claude-desktop", "copilot-cli"))
    s = proj.tools[0].descriptor["inputSchema"]
    assert "$schema" not in s and "definitions" not in _text(s)
    assert s["properties"]["pair"]["prefixItems"] and \
        s["properties"]["pair"]["unevaluatedItems"] is False
    before = jsonschema.Draft7Validator(TUPLE7["inputSchema"])
    after = jsonschema.Draft202012Validator(s)
    # q's minLength beside its $ref: python-jsonschema's draft-07 ignores it, Ajv's applies
    # it; kept (2020-12 applies it) and reported changed at its pointer
    assert s["properties"]["q"]["minLength"] == 3
    changed = {c.pointer for c in proj.tools[0].changes if c.kind == "changed"}
    assert changed == {"/inputSchema/properties/q/minLength"}
    for x in INSTANCES:
        if x != {"q": "ab"}:
            assert before.is_valid(x) == after.is_valid(x), x
    assert before.is_valid({"q": "ab"}) and not after.is_valid({"q": "ab"})
    # Claude Desktop's judge: Ajv2020 without the draft-07 metaschema compiles it (and the
    # instances agree, with the SDK's draft-07 Ajv on the input too), where it refuses the input
    assert ajv_judge.compile(TUPLE7["inputSchema"], engine="2020-12") is not None
    v = ajv_judge.validate(s, INSTANCES, engine="2020-12")
    assert v.error is None and v.valid == [after.is_valid(x) for x in INSTANCES]
    assert ajv_judge.validate(TUPLE7["inputSchema"], INSTANCES).valid == v.valid
    # the only $ref left is the recursive one, reported
    kept = [c.pointer for c in proj.tools[0].changes if c.kind == "kept"]
    assert "/inputSchema/properties/tree/$ref" in kept
    assert _text(s).count('"$ref"') == 2
    # copilot-cli: properties at the top
    assert proj.tools[1].descriptor["inputSchema"] == {"type": "object", "properties": {}}


def test_for_a_client_warns_over_its_tool_count(tmp_path):
    """A client's own per-request tool limit (Cursor 40, Windsurf 100, VS Code Copilot 128) is
    said by ``project --for`` as a provider's is by ``--to``; what ``lint --profile CLIENT``
    reports as PV506."""
    tools = [{"name": f"t{i}", "description": f"Tool {i}.",
              "inputSchema": {"type": "object", "properties": {}}} for i in range(41)]
    proj = _project(tmp_path, tools, for_clients=("cursor", "windsurf"))
    assert [w for w in proj.warnings if "in one request" in w] == [
        "41 tools: Cursor sends at most 40 in one request (send a subset of them, or defer "
        "them behind a tool search: --defer)"]
    assert not [w for w in _project(tmp_path, tools[:40], for_clients=("cursor",)).warnings
                if "in one request" in w]


def test_for_an_unknown_client_is_a_usage_error(tmp_path):
    from toolcat.errors import UsageError

    with pytest.raises(UsageError, match="--for"):
        _project(tmp_path, [MOVE], to="mcp", for_clients=("claude-web",))


D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"


def test_for_claude_desktop_upgrades_draft4(tmp_path, ajv_judge):
    """Issue 33: a draft-04 schema, which Claude Desktop refuses (its validator: "declares an
    unsupported dialect"; Ajv2020 and Ajv draft-07 alike refuse a boolean exclusiveMaximum),
    is upgraded: boolean exclusiveMaximum/Minimum written as the numbers (exact), a root id
    dropped, tuple items as for draft-07; type integer reported widened (draft-04 refuses 1.0)
    and const kept, reported changed (python-jsonschema's draft-04 ignores it, Ajv applies
    it). Before: kept with its $schema (one `kept` change), which Claude Desktop refuses."""
    d4 = {"name": "old", "description": "Old.", "inputSchema": {
        "$schema": D4, "id": "http://example.com/old.json", "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True},
                       "m": {"type": "integer", "minimum": 0, "exclusiveMinimum": False},
                       "c": {"const": "x"},
                       "t": {"type": "array", "items": [{"type": "string"}],
                             "additionalItems": False}},
        "required": ["n"]}}
    proj = _project(tmp_path, [d4], to="mcp", for_clients=("claude-desktop",))
    s = proj.tools[0].descriptor["inputSchema"]
    assert "$schema" not in s and "id" not in s
    assert s["properties"]["n"] == {"type": "number", "exclusiveMaximum": 5}
    assert s["properties"]["m"] == {"type": "integer", "minimum": 0}
    kinds = {(c.pointer, c.kind.value) for c in proj.tools[0].changes}
    assert ("/inputSchema/properties/m/type", "widened") in kinds
    assert ("/inputSchema/properties/c/const", "changed") in kinds
    assert not [k for k in kinds if k[1] == "kept"]
    assert ajv_judge.compile(d4["inputSchema"], engine="2020-12") is not None
    assert ajv_judge.compile(s, engine="2020-12") is None
    before = jsonschema.Draft4Validator(d4["inputSchema"])
    after = jsonschema.Draft202012Validator(s)
    xs = [{"n": 5}, {"n": 4.5}, {"n": 4, "m": 0}, {"n": 4, "m": -1}, {"n": 4, "t": ["a"]},
          {"n": 4, "t": ["a", "b"]}, {"n": 4, "t": [1]}, {"m": 1}]
    for x in xs:
        assert before.is_valid(x) == after.is_valid(x), x
    # what was reported: 1.0 as an integer, const
    assert not before.is_valid({"n": 1, "m": 1.0}) and after.is_valid({"n": 1, "m": 1.0})
    assert before.is_valid({"n": 1, "c": "y"}) and not after.is_valid({"n": 1, "c": "y"})


def test_for_claude_desktop_upgrades_nested_schema_declarations(tmp_path, ajv_judge):
    """A $schema below the root: python-jsonschema honours it, Ajv ignores it (Ajv2020, Claude
    Desktop's validator, refused the nested draft-07 tuple items as 2020-12 items). Under a
    2020-12 root, a nested draft-04/06/07 subschema is upgraded from its dialect and loses its
    $schema; one holding a $ref is kept and reported `kept` at its $schema. Under a draft-07
    root, a nested draft-07 $schema is dropped with the root's upgrade; one of another
    dialect stops the upgrade (reported `kept`). Before: the nested draft-07 tuple was
    written as it was, with no report, and Ajv2020 refused the tool."""
    root = {"name": "nest", "description": "N.", "inputSchema": {
        "type": "object", "properties": {
            "a": {"$schema": D7, "type": "array", "items": [{"type": "string"}]},
            "b": {"$schema": D4, "type": "number", "maximum": 3, "exclusiveMaximum": True}}}}
    same = {"name": "same", "description": "S.", "inputSchema": {
        "$schema": D7, "type": "object", "properties": {
            "a": {"$schema": D7, "type": "array", "items": [{"type": "string"}],
                  "additionalItems": False}}}}
    reffed = {"name": "reffed", "description": "R.", "inputSchema": {
        "type": "object", "properties": {
            "a": {"$schema": D7, "items": [{"$ref": "#/properties/b"}]}, "b": {"type": "string"}}}}
    proj = _project(tmp_path, [root, same, reffed], to="mcp", for_clients=("claude-desktop",))
    for src, t in zip((root, same), proj.tools):
        s = t.descriptor["inputSchema"]
        assert "$schema" not in _text(s), s
        assert ajv_judge.compile(src["inputSchema"], engine="2020-12") is not None
        assert ajv_judge.compile(s, engine="2020-12") is None
        before = jsonschema.validators.validator_for(src["inputSchema"])(src["inputSchema"])
        after = jsonschema.Draft202012Validator(s)
        for x in ({"a": ["x"]}, {"a": [1]}, {"a": ["x", 2]}, {"b": 3}, {"b": 2.5}, {}):
            assert before.is_valid(x) == after.is_valid(x), (t.id, x)
        assert not [c for c in t.changes if c.kind == "kept"]
    assert proj.tools[0].descriptor["inputSchema"]["properties"]["b"] == {
        "type": "number", "exclusiveMaximum": 3}
    kept = [c.pointer for c in proj.tools[2].changes if c.kind == "kept"]
    assert kept[0] == "/inputSchema/properties/a/$schema"


# --for claude-code: names with the client's prefix counted (issue 33)
def _github():
    from support.common import CORPUS

    p = CORPUS / "github-mcp-server"
    if not p.is_dir():
        pytest.skip(f"{p} absent (TOOLCAT_SHARED)")
    return load_catalogs([str(p)], LoadOptions(strict=False))


def _sent(proj, server, plugin=None):
    from toolcat.formats.providers import CLIENTS

    return [CLIENTS["claude-code"].sent_name(server, t.id, plugin) for t in proj.tools]


def test_for_claude_code_shortens_names_with_the_prefix_counted():
    """GitHub's server (the corpus): Claude Code sends manage_repository_notification_
    subscription as mcp__github-mcp-server__..., 67 characters, which Anthropic refuses.
    project --for claude-code writes it within 64 (a `changed` change mapping the original,
    a warning old -> new); with a plugin's longer prefix more names are cut, all distinct,
    the same every run; lint --profile claude-code (PV515) reports the input's, not the
    output's."""
    from toolcat.config import Config
    from toolcat.features.lint.engine import lint

    cats = _github()
    before = [t.id for c in cats for t in c.tools]
    from toolcat.formats.providers import CLIENTS

    cc = CLIENTS["claude-code"]
    assert max(len(cc.sent_name("github-mcp-server", i)) for i in before) == 67
    proj = project_catalogs(cats, ProjectOptions(to="mcp", for_clients=("claude-code",)))
    assert max(len(s) for s in _sent(proj, "github-mcp-server")) <= 64
    renamed = {c.extra["mapping"]["original"]: c.extra["mapping"]["name"]
               for t in proj.tools for c in t.changes if c.pointer == "/name"}
    assert list(renamed) == ["manage_repository_notification_subscription"]
    assert any("manage_repository_notification_subscription -> " in w for w in proj.warnings)
    assert [t.id for t in proj.tools if t.id not in renamed.values()] == \
        [i for i in before if i not in renamed]
    # no --for: names as they are
    assert [t.id for t in project_catalogs(cats, ProjectOptions(to="mcp")).tools] == before
    # a plugin's server: more names cut, all distinct, deterministic
    opts = dict(to="mcp", for_clients=("claude-code",), server_name="github", plugin="gh-tools")
    a, b = project_catalogs(cats, ProjectOptions(**opts)), project_catalogs(cats,
                                                                            ProjectOptions(**opts))
    assert [t.id for t in a.tools] == [t.id for t in b.tools]
    assert len({t.id for t in a.tools}) == len(a.tools)
    assert max(len(s) for s in _sent(a, "github", "gh-tools")) <= 64
    room = 64 - len("mcp__plugin_gh-tools_github__")
    assert sum(t.id not in before for t in a.tools) == sum(len(i) > room for i in before) == 3
    # lint: PV515 on the input, none on what project wrote
    found = [f for f in lint(cats, Config(), "claude-code").findings if f.code == "PV515"]
    assert [f.tool for f in found] == ["manage_repository_notification_subscription"]
    assert "67 characters" in found[0].message


def test_shortened_names_stay_distinct(tmp_path):
    """Two long names that share their first characters are cut to distinct names (a hash
    of the whole name), distinct from every other tool's too."""
    long = "x" * 60
    tools = [{**PLAIN, "name": long + "_alpha"}, {**PLAIN, "name": long + "_beta"},
             {**PLAIN, "name": "ok"}]
    proj = _project(tmp_path, tools, to="mcp", for_clients=("claude-code",),
                    server_name="srv")
    ids = [t.id for t in proj.tools]
    assert len(set(ids)) == 3 and ids[2] == "ok"
    assert all(len(f"mcp__srv__{i}") <= 64 for i in ids)
    assert ids[0][:20] == ids[1][:20] and ids[0] != ids[1]


# --for claude-code / claude-desktop: top-level unions (Anthropic refuses oneOf, allOf and
# anyOf at the top level of input_schema)
PICK = {"name": "pick", "description": "P.", "inputSchema": {
    "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
    "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}
SHAPE = {"name": "shape", "description": "S.", "inputSchema": {"oneOf": [
    {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
     "required": ["kind", "r"], "additionalProperties": False},
    {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
     "required": ["kind", "side"], "additionalProperties": False}]}}
# a union only one branch of which is an object: exact (the root says object)
MODE = {"name": "mode", "description": "M.", "inputSchema": {
    "type": "object",
    "anyOf": [{"type": "object", "properties": {"m": {"type": "string"}}, "required": ["m"]},
              {"type": "string"}]}}
UNION_INSTANCES = [{}, {"a": "x"}, {"b": 1}, {"a": "x", "b": 1}, {"a": 1}, {"kind": "circle"},
                   {"kind": "circle", "r": 1}, {"kind": "square", "side": 2},
                   {"kind": "circle", "side": 2}, {"kind": "tri"}, {"r": 1, "x": 2},
                   {"m": "a"}, {"m": "c"}, {"m": 1}]


def test_for_claude_code_rewrites_top_level_unions(tmp_path, ajv_judge):
    """An anyOf/oneOf at the top is written as one object schema: exactly where the union
    is one schema (mode: an object or a string, at an object root), else widened (the union of the branches' properties,
    required only what all require) and reported `widened` at /inputSchema/anyOf|oneOf;
    every instance the input accepts, the output accepts; Ajv2020 compiles each; the
    provider row's own rule (lint --profile claude-code) has nothing left to say. Without
    --for the unions stay."""
    from toolcat.config import Config
    from toolcat.features.lint.engine import lint

    tools = [PICK, SHAPE, MODE]
    proj = _project(tmp_path, tools, to="mcp", for_clients=("claude-code",))
    kinds = {}
    for src, t in zip(tools, proj.tools):
        s = t.descriptor["inputSchema"]
        assert not {"anyOf", "oneOf", "allOf"} & set(s), (t.id, s)
        assert s["type"] == "object"
        assert ajv_judge.compile(s, engine="2020-12") is None
        before, after = (jsonschema.Draft202012Validator(x) for x in (src["inputSchema"], s))
        for x in UNION_INSTANCES:
            assert after.is_valid(x) or not before.is_valid(x), (t.id, x)
        kinds[t.id] = {c.pointer: c.kind.value for c in t.changes
                       if c.pointer.endswith(("/anyOf", "/oneOf"))}
        exact = kinds[t.id] and all(k == "exact" for k in kinds[t.id].values())
        if exact:       # exact: the same verdicts
            assert all(after.is_valid(x) == before.is_valid(x) for x in UNION_INSTANCES)
    assert kinds == {"pick": {"/inputSchema/anyOf": "widened"},
                     "shape": {"/inputSchema/oneOf": "widened"},
                     "mode": {"/inputSchema/anyOf": "exact"}}
    assert proj.tools[0].descriptor["inputSchema"].get("required") is None
    assert proj.tools[1].descriptor["inputSchema"]["required"] == ["kind"]
    # lint: the input's top-level unions are refused for Claude Code, the output's are gone
    out = tmp_path / "out.json"
    out.write_text(json.dumps(proj.catalog()))
    cats_in = load_catalogs([str(write(tmp_path, {"tools": tools}))], LoadOptions(strict=True))
    cats_out = load_catalogs([str(out)], LoadOptions(strict=True))

    def root_findings(cats):
        return {(f.tool, f.pointer) for f in lint(cats, Config(), "claude-code").findings
                if f.pointer.endswith(("/anyOf", "/oneOf", "/allOf"))}

    assert root_findings(cats_in) >= {("pick", "/inputSchema/anyOf"),
                                      ("shape", "/inputSchema/oneOf")}
    assert root_findings(cats_out) == set()
    # no --for: the unions are the input's
    plain = _project(tmp_path, tools, to="mcp")
    assert "anyOf" in plain.tools[0].descriptor["inputSchema"]
    assert "oneOf" in plain.tools[1].descriptor["inputSchema"]


# --for claude-code: enum / const / not at the top of an input schema (issue 33). No client
# fact says they are refused there; the MCP target types the root (exact on tool arguments,
# which are objects) and a refused top-level union beside them is merged with them: exact
# where it is, else reported widened, never narrowed.
ROOTS = [
    {"enum": [{"a": 1}, {"b": 2}, "x"]},
    {"const": "x"},
    {"not": {"type": "object", "required": ["a"]}},
    {"type": "object", "enum": [{"a": 1}, {"b": 2}], "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"type": "object", "const": {"a": 1}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"type": "object", "not": {"required": ["a"]}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"type": "object", "allOf": [{"not": {"required": ["a"]}}, {"enum": [{"b": 1}, {"a": 1}]}]},
    {"type": "object", "anyOf": [{"const": {"a": 1}}, {"const": {"b": 2}}]},
    {"type": "object", "oneOf": [{"enum": [{"a": 1}, {"b": 2}]}, {"enum": [{"a": 1}]}]},
    {"type": "object", "anyOf": [{"not": {"required": ["a"]}}, {"required": ["b"]}]},
]
ROOT_ARGS = [{}, {"a": 1}, {"b": 2}, {"a": 1, "b": 2}, {"a": 2}, {"b": 1}, {"c": 1}, {"a": "x"}]


def test_for_claude_code_root_enum_const_not(tmp_path, ajv_judge):
    tools = [{"name": f"r{i}", "description": "R.", "inputSchema": s} for i, s in enumerate(ROOTS)]
    proj = _project(tmp_path, tools, to="mcp", for_clients=("claude-code",))
    kinds = []
    for src, t in zip(ROOTS, proj.tools):
        s = t.descriptor["inputSchema"]
        assert s["type"] == "object" and not {"anyOf", "oneOf", "allOf"} & set(s), (src, s)
        assert ajv_judge.compile(s, engine="2020-12") is None
        before, after = (jsonschema.Draft202012Validator(x) for x in (src, s))
        lossy = [c for c in t.changes if c.kind != "exact"]
        kinds.append(sorted({c.kind.value for c in lossy}))
        for x in ROOT_ARGS:
            assert after.is_valid(x) or not before.is_valid(x), (src, x)   # never narrowed
            if not lossy:
                assert after.is_valid(x) == before.is_valid(x), (src, x)
    # the enum, const and not stay (no client refuses them); the unions beside them that
    # cannot be one schema exactly are the widened ones
    assert proj.tools[0].descriptor["inputSchema"]["enum"] == ROOTS[0]["enum"]
    assert proj.tools[1].descriptor["inputSchema"] == {"type": "object", "not": {}}
    assert proj.tools[7].descriptor["inputSchema"]["enum"] == [{"a": 1}, {"b": 2}]
    assert kinds == [[], [], [], ["widened"], [], ["widened"], [], [], [], ["widened"]]


def test_for_claude_desktop_drops_a_pattern_ecma262_refuses(tmp_path, ajv_judge):
    """A pattern with an inline (?i) (Adyen's dispute specs) is no ECMA-262 regular
    expression: Ajv2020, Claude Desktop's validator, refuses the whole schema over it. --for
    claude-desktop drops it, reported widened at its pointer (any string accepted there); a
    patternProperties name of that kind is kept, reported kept (dropping it could narrow).
    Without --for, the pattern stays."""
    bad = r"([^\s]+(\.(?i)(jpeg|tiff|pdf))$)"
    tool = {"name": "up", "description": "U.", "inputSchema": {
        "type": "object", "properties": {"file": {"type": "string", "pattern": bad},
                                         "ok": {"type": "string", "pattern": "^a+$"},
                                         "m": {"type": "object",
                                               "patternProperties": {"(?i)x": {}}}}}}
    proj = _project(tmp_path, [tool], to="mcp", for_clients=("claude-desktop",))
    s = proj.tools[0].descriptor["inputSchema"]
    assert ajv_judge.compile(tool["inputSchema"]["properties"]["file"], engine="2020-12")
    assert s["properties"]["file"] == {"type": "string"}
    assert s["properties"]["ok"]["pattern"] == "^a+$"
    assert ajv_judge.compile(s["properties"]["file"], engine="2020-12") is None
    kinds = {c.pointer: c.kind.value for c in proj.tools[0].changes}
    assert kinds["/inputSchema/properties/file/pattern"] == "widened"
    assert kinds["/inputSchema/properties/m/patternProperties/(?i)x"] == "kept"
    plain = _project(tmp_path, [tool], to="mcp")
    assert plain.tools[0].descriptor["inputSchema"]["properties"]["file"]["pattern"] == bad


@pytest.mark.parametrize("bad", [
    # PayPal's email pattern: `\[\x01-...\x7f]` leaves a `]` outside any class
    r'(?:[a-z]+|"(?:[\x01-\x08]|\[\x01-\x09\x0b])*")@example\.com',
    r"^id-{x}$",           # a brace no quantifier explains
    r"^a}b$",
])
def test_for_claude_desktop_drops_a_pattern_only_annex_b_reads(tmp_path, ajv_judge, bad):
    """A lone ``]``, ``{`` or ``}`` is the character itself to ECMA-262's Annex B and to
    Python, but a syntax error in ``u`` mode, where Ajv2020 compiles every pattern: --for
    claude-desktop drops the pattern, reported widened; a quantifier, a class holding the
    brackets, and ``\\p{...}`` stay."""
    from toolcat.schema.patterns import unicode_mode_error

    keep = {"q": r"^[a-z]{2,3}$", "c": r"^[{}\]]+$", "p": r"^\p{L}+$"}
    tool = {"name": "up", "description": "U.", "inputSchema": {
        "type": "object", "properties": {
            "bad": {"type": "string", "pattern": bad},
            **{k: {"type": "string", "pattern": v} for k, v in keep.items()}}}}
    assert ajv_judge.compile({"type": "string", "pattern": bad}, engine="2020-12")
    assert unicode_mode_error(bad)
    proj = _project(tmp_path, [tool], to="mcp", for_clients=("claude-desktop",))
    s = proj.tools[0].descriptor["inputSchema"]
    assert s["properties"]["bad"] == {"type": "string"}
    assert ajv_judge.compile(s, engine="2020-12") is None
    for k, v in keep.items():
        assert s["properties"][k]["pattern"] == v and unicode_mode_error(v) is None
    kinds = {c.pointer: c.kind.value for c in proj.tools[0].changes}
    assert kinds["/inputSchema/properties/bad/pattern"] == "widened"


def test_for_claude_desktop_writes_an_empty_enum_as_not_anything(tmp_path, ajv_judge):
    """``enum: []`` (Discord's join-request status) accepts no value, and Ajv refuses to
    compile it ("enum must have non-empty array"), so Claude Desktop refuses the tool. --for
    claude-desktop writes ``not: {}`` (no value either: exact, reported); every verdict kept
    under both jsonschema and Ajv2020."""
    import jsonschema

    tool = {"name": "j", "description": "J.", "inputSchema": {
        "type": "object", "properties": {
            "status": {"type": "string", "enum": []},
            "both": {"enum": [], "not": {"type": "null"}}}}}
    assert ajv_judge.compile(tool["inputSchema"], engine="2020-12")
    proj = _project(tmp_path, [tool], to="mcp", for_clients=("claude-desktop",))
    s = proj.tools[0].descriptor["inputSchema"]
    assert ajv_judge.compile(s, engine="2020-12") is None
    assert s["properties"]["status"].get("not") == {} and "enum" not in s["properties"]["status"]
    xs = [{}, {"status": "a"}, {"both": None}, {"both": 1}, {"status": 2}]
    before = [jsonschema.Draft202012Validator(tool["inputSchema"]).is_valid(x) for x in xs]
    assert [jsonschema.Draft202012Validator(s).is_valid(x) for x in xs] == before
    assert ajv_judge.validate(s, xs, engine="2020-12").valid == before
    kinds = {c.pointer: c.kind.value for c in proj.tools[0].changes}
    assert kinds["/inputSchema/properties/status/enum"] == "exact"
