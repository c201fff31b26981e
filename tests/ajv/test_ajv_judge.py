"""Self-tests of the Ajv judge (tests/support/ajv.py + tests/support/node/judge.mjs).

The judge must read schemas as the MCP TypeScript SDK does, so each case here is one whose
verdict follows from the SDK's code or Ajv's documentation, not from running Ajv:

* @modelcontextprotocol/sdk 1.32.2 ``AjvJsonSchemaValidator`` (validation/ajv-provider.js):
  ``new Ajv({strict: false, validateFormats: true, validateSchema: false, allErrors: true})``
  plus ajv-formats. ``Ajv`` is Ajv's draft-07 class ("Ajv: draft-07 ... Ajv2020: draft-2020-12"
  in Ajv's schema-language guide), and with ``validateSchema: false`` a ``$schema`` is never
  looked up, so every schema is read with draft-07 keywords: ``prefixItems``,
  ``unevaluatedProperties`` and ``dependentRequired`` are unknown keywords, ignored
  (``strict: false``). Ajv 8 applies keywords beside ``$ref`` in every draft. ``getValidator``
  uses ``'$id' in schema``: a boolean schema throws.
* @modelcontextprotocol/client 2.4.0 (``sdk-v2``): the same options, Ajv2020 for no ``$schema``
  or 2020-12, the draft-07 class for draft-07/06, any other ``$schema`` refused.
* ``ListToolsResultSchema`` (sdk types.js): ``inputSchema`` and ``outputSchema`` are objects
  with ``type: "object"``; every ``properties`` value is an object (``AssertObjectSchema``);
  ``required`` is a list of strings. v2 keeps that for ``inputSchema`` (properties: any JSON
  value) and lets ``outputSchema`` be any object.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

import ajv as ajv_support
from ajv import ENGINES, AjvJudge, JudgeError, JudgeTimeout, skip_reason

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"


def need_judge() -> None:
    """Skip only where node is absent; else install on first use, and a judge that still
    cannot run is a failure (ajv.require)."""
    ajv_support.require()


@pytest.fixture(scope="module")
def judge():
    need_judge()
    with AjvJudge(timeout=60) as j:
        yield j


def verdicts(judge, schema, instances, engine="sdk"):
    v = judge.validate(schema, instances, engine=engine)
    assert v.error is None, f"{engine}: {v.error}"
    return v.valid


def test_versions_are_the_locked_ones(judge):
    lock = json.loads((ajv_support.NODE_DIR / "package-lock.json").read_text("utf-8"))
    got = judge.versions()["packages"]
    for pkg in ajv_support.PACKAGES:
        assert got[pkg] == lock["packages"][f"node_modules/{pkg}"]["version"], pkg
    # the SDK's own ajv is the judge's ajv (no second copy under the SDK)
    assert not (ajv_support.NODE_DIR / "node_modules/@modelcontextprotocol/sdk/node_modules/ajv").exists()


def test_sdk_reads_2020_12_tuples_as_draft_07(judge):
    tuple_ = {"$schema": D2020, "prefixItems": [{"type": "string"}]}
    assert verdicts(judge, tuple_, [[1], ["a"]], "sdk") == [True, True]       # prefixItems unknown
    assert verdicts(judge, tuple_, [[1], ["a"]], "2020-12") == [False, True]
    assert verdicts(judge, tuple_, [[1], ["a"]], "sdk-v2") == [False, True]
    # 2020-12 "items" after prefixItems is the rest; draft-07 "items": false is every item
    closed = {"prefixItems": [{"type": "string"}], "items": False}
    assert verdicts(judge, closed, [["a"], ["a", 1], []], "sdk") == [False, False, True]
    assert verdicts(judge, closed, [["a"], ["a", 1], []], "2020-12") == [True, False, True]


def test_draft_07_tuple_items_by_dialect(judge):
    draft7 = {"$schema": D7, "items": [{"type": "string"}]}
    assert verdicts(judge, draft7, [[1], ["x", 1]], "sdk") == [False, True]
    assert verdicts(judge, draft7, [[1], ["x", 1]], "sdk-v2") == [False, True]   # draft-07 engine
    assert "items" in judge.compile(draft7, "2020-12")   # array-form items is not 2020-12
    bare = {"items": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"type": "string"}}}
    assert verdicts(judge, bare, [[1], ["x"]], "sdk") == [False, True]
    assert "items" in judge.compile(bare, "sdk-v2")        # no $schema: 2020-12 under v2
    # the definitions are what the draft-07 reading needs (issue 12 item 5)
    without = {"items": [{"$ref": "#/definitions/a"}]}
    assert "can't resolve reference #/definitions/a" in judge.compile(without, "sdk")


def test_ref_siblings_apply_in_draft_07(judge):
    import jsonschema

    schema = {"$schema": D7, "definitions": {"tags": {"type": "array", "items": {"type": "string"}}},
              "$ref": "#/definitions/tags", "maxItems": 2}
    for engine in ENGINES:
        assert verdicts(judge, schema, [["a", "b", "c"], ["a"], [1]], engine) == [False, True, False]
    # the letter of draft-07 (jsonschema): keywords beside $ref are ignored
    assert jsonschema.Draft7Validator(schema).is_valid(["a", "b", "c"])


def test_duplicate_type_names_break_the_metaschema_not_the_sdk(judge):
    import jsonschema

    schema = {"type": ["integer", "integer"]}
    # validateSchema: false: the SDK compiles it and reads it as "integer"
    for engine in ENGINES:
        assert verdicts(judge, schema, [1, "a", None], engine) == [True, False, False]
    # Ajv's default (validateSchema: true) checks the metaschema: uniqueItems on "type"
    meta = judge.metaschema(schema)
    for dialect in ("draft-07", "2020-12"):
        assert any("duplicate items" in m for m in meta[dialect]), meta
    assert judge.metaschema({"type": ["integer", "null"]}) == {"draft-07": None, "2020-12": None}
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("schema, fragment", [
    ({"type": "foo"}, "type must be JSONType"),
    ({"enum": []}, "enum must have non-empty array"),
    ({"$ref": "#/definitions/missing"}, "can't resolve reference #/definitions/missing"),
    ({"$ref": "https://example.com/x.json"}, "can't resolve reference https://example.com/x.json"),
    # one $id in two places (a recursive $ref inlined with its target's $id; issue 12 item 2)
    ({"$schema": D2020, "$id": "https://example.com/tree", "type": "array",
      "items": {"$schema": D2020, "$id": "https://example.com/tree", "type": "array",
                "items": {"$ref": "tree"}}},
     'schema with key or id "https://example.com/tree" already exists'),
    ({"$defs": {"a": {"$id": "https://x/a", "type": "string"},
                "b": {"$id": "https://x/a", "type": "string"}}},
     'reference "https://x/a" resolves to more than one schema'),
    ({"$defs": {"a": {"$anchor": "n"}, "b": {"$anchor": "n"}}},
     'reference "#n" resolves to more than one schema'),
    (False, "Cannot use 'in' operator"),   # the provider's '$id' in schema
    (True, "Cannot use 'in' operator"),
])
def test_what_fails_to_compile(judge, schema, fragment):
    for engine in ENGINES:
        err = judge.compile(schema, engine)
        assert err is not None and fragment in err, (engine, err)
        v = judge.validate(schema, [1], engine)
        assert v.error == err and v.valid == []


def test_what_compiles(judge):
    tree = {"$schema": D2020, "$id": "https://example.com/tree", "type": "array",
            "items": {"$ref": "tree"}}
    for engine in ENGINES:
        assert verdicts(judge, tree, [[[]], [1], []], engine) == [True, False, True]
        assert judge.compile({"type": "object", "nullable": True, "x-extra": 1}, engine) is None


def test_dollar_schema_by_engine(judge):
    custom = {"$schema": "https://example.com/my-meta", "type": "string"}
    assert verdicts(judge, custom, ["a", 1], "sdk") == [True, False]
    assert verdicts(judge, custom, ["a", 1], "2020-12") == [True, False]
    assert "unsupported dialect" in judge.compile(custom, "sdk-v2")
    d2019 = {"$schema": "https://json-schema.org/draft/2019-09/schema", "dependentRequired": {"a": ["b"]}}
    assert verdicts(judge, d2019, [{"a": 1}, {"a": 1, "b": 2}], "sdk") == [True, True]
    assert verdicts(judge, d2019, [{"a": 1}, {"a": 1, "b": 2}], "sdk-v2") == [False, True]


def test_2020_12_only_keywords(judge):
    schema = {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False}
    assert verdicts(judge, schema, [{"a": 1}, {"b": 1}], "sdk") == [True, True]
    assert verdicts(judge, schema, [{"a": 1}, {"b": 1}], "2020-12") == [True, False]
    assert verdicts(judge, schema, [{"a": 1}, {"b": 1}], "sdk-v2") == [True, False]


def test_formats_are_asserted(judge):
    cases = [({"format": "date"}, ["2020-02-30x", "2020-01-31"], [False, True]),
             ({"format": "email"}, ["nobody", "a@b.co"], [False, True]),
             ({"type": "integer", "format": "int32"}, [2 ** 31, 7], [False, True]),
             ({"format": "int128"}, ["anything"], [True])]          # unknown: ignored
    for engine in ENGINES:
        for schema, instances, want in cases:
            assert verdicts(judge, schema, instances, engine) == want, (engine, schema)


def test_messages_and_exceptions(judge):
    v = judge.validate({"type": "string", "minLength": 2}, ["ab", "a", 3], messages=True)
    assert v.valid == [True, False, False]
    assert v.messages[0] is None and "must NOT have fewer than 2 characters" in v.messages[1]
    # a reference loop compiles; validating any instance overflows the stack: a null verdict
    loop = judge.validate({"$ref": "#"}, [1, "a"])
    assert loop.error is None and loop.valid == [None, None]
    assert "call stack" in loop.exceptions[0]
    assert judge.compile({"type": "string"}) is None     # and the judge still answers


def test_batches_agree_with_single_requests(judge):
    items = [({"type": "integer", "maximum": k}, [k - 1, k, k + 1, "x"]) for k in range(25)]
    items.append(({"type": "foo"}, [1]))
    items.append(({"$ref": "#"}, [1]))
    small = AjvJudge(batch_size=4)
    with small:
        batched = small.validate_many(items)
        compiled = small.compile_many([s for s, _ in items])
    single = [judge.validate(s, i) for s, i in items]
    assert batched == single
    assert [v.error for v in single] == compiled
    assert [v.valid for v in single[:3]] == [[True, True, False, False]] * 3


def test_bad_requests_do_not_stop_the_judge(judge):
    assert judge.raw(b"not json")["request_error"]
    assert judge.raw(b"[1, 2]")["request_error"]
    assert judge.raw(b'{"op": "validate", "schema": {}}')["error"] == 'request has no "instances"'
    for op, fields in [("nope", {}), ("compile", {"schema": {}, "engine": "draft-04"}),
                       ("validate", {"schema": {}, "instances": 3}),
                       ("tools_list", {"result": {}, "sdk": "v9"})]:
        with pytest.raises(JudgeError):
            judge.request(op, **fields)
    inner = judge.request("batch", requests=[{"op": "batch", "requests": []}, {"op": "ping"}])
    assert inner["results"][0]["request_error"] and inner["results"][1] == {"ok": True}
    assert judge.request("ping")["ok"]


def test_a_hung_request_times_out_and_the_next_one_is_served():
    need_judge()
    with AjvJudge() as j:
        # catastrophic backtracking in the instance's regular expression
        with pytest.raises(JudgeTimeout):
            j.request("validate", timeout=1, schema={"pattern": "^(a+)+$"}, instances=["a" * 40 + "!"])
        assert j.restarts == 1
        assert j.validate({"type": "string"}, ["a", 1]).valid == [True, False]


def tools(*entries):
    return {"tools": list(entries)}


def tool(name="t", **fields):
    return {"name": name, "inputSchema": {"type": "object"}, **fields}


def test_tools_list_accepts_what_the_sdk_accepts(judge):
    ok = tools(tool(description="d", inputSchema={"type": "object", "properties": {"a": {"type": "string"}},
                                                  "required": ["a"], "additionalProperties": False},
                    outputSchema={"type": "object", "properties": {"r": {}}}, annotations={"readOnlyHint": True}),
               tool("u", title="T", _meta={"x": 1}, inputSchema={"type": "object", "$schema": D7}))
    for sdk in ("v1", "v2"):
        r = judge.tools_list({**ok, "nextCursor": "c"}, sdk=sdk)
        assert r.ok and r.issues == [] and r.client_error is None, r
        assert [o["name"] for o in r.output_schemas] == ["t"]


@pytest.mark.parametrize("entry, path, v2_ok", [
    # a response schema that is an array (issue 12 item 7): v1 refuses, v2 takes any object
    (tool(outputSchema={"type": "array", "items": {"type": "string"}}), ["tools", 0, "outputSchema", "type"], True),
    (tool(outputSchema={"items": {}}), ["tools", 0, "outputSchema", "type"], True),
    # an input schema without type (gitlab's bare {"$schema": ...})
    (tool(inputSchema={"$schema": D7}), ["tools", 0, "inputSchema", "type"], False),
    # an object schema that accepts nothing, written as false (issue 12 item 3)
    (tool(inputSchema=False), ["tools", 0, "inputSchema"], False),
    (tool(outputSchema=False), ["tools", 0, "outputSchema"], False),
    # a boolean property schema: v1's AssertObjectSchema refuses it, v2 takes any JSON value
    (tool(inputSchema={"type": "object", "properties": {"a": True}}), ["tools", 0, "inputSchema", "properties", "a"], True),
    (tool(inputSchema={"type": "object", "required": "a"}), ["tools", 0, "inputSchema", "required"], False),
    ({"inputSchema": {"type": "object"}}, ["tools", 0, "name"], False),
])
def test_tools_list_refuses_what_the_sdk_refuses(judge, entry, path, v2_ok):
    r = judge.tools_list(tools(tool("fine"), entry))
    path = [path[0], 1, *path[2:]]
    assert not r.ok and path in [i["path"] for i in r.issues], r.issues
    assert r.client_error and "ListToolsResultSchema" in r.client_error
    assert judge.tools_list(tools(tool("fine"), entry), sdk="v2").ok is v2_ok


def test_tools_list_compiles_output_schemas_as_the_client_does(judge):
    bad = {"type": "object", "properties": {"a": {"$ref": "#/definitions/gone"}}}
    r = judge.tools_list(tools(tool("a", outputSchema={"type": "object"}), tool("b", outputSchema=bad),
                               tool("c", outputSchema={"type": "object", "properties": {"n": {"type": "foo"}}})))
    assert r.ok   # the parse passes; listTools then throws on the first schema that does not compile
    assert [(o["name"], o["error"] is None) for o in r.output_schemas] == [("a", True), ("b", False), ("c", False)]
    assert r.client_error.startswith('tool "b": can\'t resolve reference #/definitions/gone')


def test_skip_reason_says_what_to_run(tmp_path, monkeypatch):
    node = shutil.which("node")
    if node is None:
        assert "node is not on PATH" in skip_reason()
        return
    assert "--version failed" in ajv_support._skip_reason(str(tmp_path / "no-node"))
    clone = tmp_path / "node"
    clone.mkdir()
    for f in ("package.json", "package-lock.json", "judge.mjs"):
        shutil.copy(ajv_support.NODE_DIR / f, clone / f)
    monkeypatch.setattr(ajv_support, "NODE_DIR", clone)
    monkeypatch.setattr(ajv_support, "JUDGE", clone / "judge.mjs")
    why = ajv_support._skip_reason(node)
    assert "not installed" in why and why.endswith("run: npm ci --prefix tests/support/node")


def test_a_fresh_clone_installs_before_any_test_runs(tmp_path, monkeypatch):
    """A clone without node_modules: the collection hook (conftest -> ajv.prepare) installs the
    locked packages before the first test, and a judge that still cannot run fails the tests
    that need it (never a skip while node is on PATH)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not on PATH")
    clone = tmp_path / "node"
    clone.mkdir()
    for f in ("package.json", "package-lock.json", "judge.mjs"):
        shutil.copy(ajv_support.NODE_DIR / f, clone / f)
    monkeypatch.setattr(ajv_support, "NODE_DIR", clone)
    monkeypatch.setattr(ajv_support, "JUDGE", clone / "judge.mjs")
    monkeypatch.setattr(ajv_support, "_skip_cache", [])
    calls = []
    monkeypatch.setattr(ajv_support, "install", lambda: calls.append(1) or "npm ci failed: offline")

    class Item:
        def __init__(self, nodeid, fixturenames=()):
            self.nodeid, self.fixturenames = nodeid, fixturenames

    said = []
    assert ajv_support.prepare([Item("tests/unit/test_x.py::test_y")], say=said.append) is None
    assert calls == []                  # nothing collected needs the judge: no install
    needing = [Item("tests/unit/test_x.py::test_y"), Item("tests/unit/test_z.py::t", ("ajv_judge",))]
    assert ajv_support.prepare(needing, say=said.append) == "npm ci failed: offline"
    assert calls == [1] and "npm ci --prefix tests/support/node" in said[0]
    with pytest.raises(pytest.fail.Exception, match="npm ci failed: offline"):
        need_judge()
