"""The MCP specification rules (MC101-MC109) per revision (--mcp-version), and the provider
rules added with them (PV508-PV510): a catalog that triggers each, and a near miss."""

from __future__ import annotations

from support.lint import line_of, mcp, only, run, tool, write
from toolcat.config import Config


def rev(v: str) -> Config:
    cfg = Config()
    cfg.mcp_version = v
    return cfg


def pointers(findings, code):
    return sorted((f.tool, f.pointer) for f in only(findings, code))


def test_mc102_output_schema_root(tmp_path):
    t = tool("a")
    t["outputSchema"] = {"type": "array", "items": {"type": "string"}}
    ok = tool("b", "B.")
    ok["outputSchema"] = {"type": "object", "properties": {}}
    p = write(tmp_path, mcp(t, ok))
    assert pointers(run(p, config=rev("2025-06-18")), "MC102") == [("a", "/outputSchema/type")]
    assert pointers(run(p, config=rev("2025-11-25")), "MC102") == [("a", "/outputSchema/type")]
    assert only(run(p), "MC102") == []          # 2026-07-28: any JSON Schema


def test_mc103_no_parameters_open(tmp_path):
    open_ = {"name": "a", "description": "A.", "inputSchema": {"type": "object"}}
    closed = {"name": "b", "description": "B.",
              "inputSchema": {"type": "object", "additionalProperties": False}}
    p = write(tmp_path, mcp(open_, closed, tool("c", "C.")))
    fs = only(run(p), "MC103")
    assert [(f.tool, f.pointer, f.severity) for f in fs] == [("a", "/inputSchema", "info")]
    assert only(run(p, config=rev("2025-06-18")), "MC103") == []


def test_mc104_annotation_types(tmp_path):
    t = tool("a")
    t["annotations"] = {"title": 3, "readOnlyHint": "false", "destructiveHint": True}
    t2 = tool("b", "B.")
    t2["annotations"] = {"title": "B", "readOnlyHint": False, "openWorldHint": True}
    t3 = tool("c", "C.")
    t3["annotations"] = ["readOnlyHint"]
    p = write(tmp_path, mcp(t, t2, t3))
    fs = run(p)
    assert pointers(fs, "MC104") == [("a", "/annotations/readOnlyHint"),
                                     ("a", "/annotations/title"), ("c", "/annotations")]
    f = [f for f in only(fs, "MC104") if f.pointer.endswith("readOnlyHint")][0]
    assert f.line == line_of(p, '"readOnlyHint": "false"')


def test_mc105_icons(tmp_path):
    t = tool("a")
    t["icons"] = [{"src": "https://x.example/i.png", "sizes": ["48x48", "any"]},
                  {"src": "http://x.example/i.png"},
                  {"src": "data:image/png;base64,AAAA", "sizes": ["big"], "theme": "blue"},
                  {"mimeType": "image/png"}, "icon.png"]
    p = write(tmp_path, mcp(t))
    assert pointers(run(p), "MC105") == [
        ("a", "/icons/1/src"), ("a", "/icons/2/sizes/0"), ("a", "/icons/2/theme"),
        ("a", "/icons/3"), ("a", "/icons/4")]
    assert only(run(p, config=rev("2025-06-18")), "MC105") == []   # no icons in 2025-06-18


def test_mc106_meta_keys(tmp_path):
    t = tool("a")
    t["_meta"] = {"com.example/owner": "x", "plain": 1, "io.modelcontextprotocol/x": 1,
                  "1bad.prefix/name": 1, "com.example/-bad": 1}
    p = write(tmp_path, mcp(t))
    fs = only(run(p), "MC106")
    got = sorted((f.pointer, f.severity) for f in fs)
    assert got == [("/_meta/1bad.prefix~1name", "error"), ("/_meta/com.example~1-bad", "error"),
                   ("/_meta/io.modelcontextprotocol~1x", "warning")]
    # 2025-06-18 reserves any label before the last: "mcp.example/x" is reserved there only
    t["_meta"] = {"mcp.example/x": 1}
    p2 = write(tmp_path, mcp(t), "old.json")
    assert [f.severity for f in only(run(p2, config=rev("2025-06-18")), "MC106")] == ["warning"]
    assert only(run(p2), "MC106") == []


def test_mc107_x_mcp_header(tmp_path):
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "again": {"type": "string", "x-mcp-header": "region"},
        "ratio": {"type": "number", "x-mcp-header": "Ratio"},
        "bad": {"type": "string", "x-mcp-header": "has space"},
        "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
        "ok": {"type": "integer", "x-mcp-header": "Page"}}}
    t = {"name": "a", "description": "A.", "inputSchema": schema}
    p = write(tmp_path, mcp(t))
    ps = [f.pointer for f in only(run(p), "MC107")]
    base = "/inputSchema/properties/"
    assert sorted(set(ps)) == sorted([base + "again/x-mcp-header", base + "ratio/x-mcp-header",
                                      base + "bad/x-mcp-header",
                                      base + "list/items/x-mcp-header"])
    assert base + "ok/x-mcp-header" not in ps and base + "region/x-mcp-header" not in ps
    assert only(run(p, config=rev("2025-11-25")), "MC107") == []


def test_mc107_in_shared_openapi_components(tmp_path):
    # OpenAPI tools share their converted parameters and bundled definitions (MC107 reads
    # each shared part once per catalog): every tool that has a header still gets its findings
    region = {"name": "region", "in": "query", "schema": {"type": "string",
                                                          "x-mcp-header": "Region"}}
    again = {"name": "again", "in": "query", "schema": {"type": "string",
                                                        "x-mcp-header": "region"}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/B"}}}}
    ok = {"200": {"description": "ok"}}
    spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "components": {"parameters": {"R": region, "A": again},
                           "schemas": {"B": {"type": "object", "properties": {
                               "n": {"type": "number", "x-mcp-header": "N"}}}}},
            "paths": {
                "/a": {"get": {"operationId": "first", "responses": ok, "parameters": [
                    {"$ref": "#/components/parameters/R"},
                    {"$ref": "#/components/parameters/A"}]}},
                "/b": {"get": {"operationId": "second", "responses": ok, "parameters": [
                    {"$ref": "#/components/parameters/A"},
                    {"$ref": "#/components/parameters/R"}]}},
                "/c": {"get": {"operationId": "plain", "responses": ok}},
                "/d": {"post": {"operationId": "third", "responses": ok, "requestBody": body}},
                "/e": {"put": {"operationId": "fourth", "responses": ok, "requestBody": body,
                               "parameters": [{"$ref": "#/components/parameters/R"}]}}}}
    p = write(tmp_path, spec, "api.openapi.json")
    got = sorted((f.tool, f.source_pointer, f.message) for f in only(run(p), "MC107"))
    rep = "x-mcp-header {!r} repeats {!r} (case-insensitively; clients drop the tool)"
    num = "x-mcp-header on a parameter of type 'number' (only string, integer, boolean; " \
          "clients drop the tool)"
    assert got == [
        ("first", "/components/parameters/A/schema/x-mcp-header", rep.format("region", "Region")),
        ("second", "/components/parameters/R/schema/x-mcp-header", rep.format("Region", "region")),
        ("third", "/components/schemas/B/properties/n/x-mcp-header", num)]


def test_mc108_draft07_forms_under_the_2020_default(tmp_path):
    t = tool("a", q={"type": "array", "items": [{"type": "string"}], "additionalItems": False})
    t2 = tool("b", "B.", q={"type": "array", "items": [{"type": "string"}]})
    t2["inputSchema"]["$schema"] = "http://json-schema.org/draft-07/schema#"
    p = write(tmp_path, mcp(t, t2))
    assert pointers(run(p), "MC108") == [("a", "/inputSchema/properties/q/additionalItems"),
                                         ("a", "/inputSchema/properties/q/items")]
    assert only(run(p, config=rev("2025-06-18")), "MC108") == []


def test_mc109_execution_task_support(tmp_path):
    t = tool("a")
    t["execution"] = {"taskSupport": "sometimes"}
    t2 = tool("b", "B.")
    t2["execution"] = {"taskSupport": "optional"}
    p = write(tmp_path, mcp(t, t2))
    assert pointers(run(p, config=rev("2025-11-25")), "MC109") == [
        ("a", "/execution/taskSupport")]
    assert only(run(p), "MC109") == []


def test_pv509_recursion_only_where_refused(tmp_path):
    s = {"type": "object", "properties": {"node": {"$ref": "#/$defs/n"}},
         "required": ["node"], "additionalProperties": False,
         "$defs": {"n": {"type": "object", "properties": {"kids": {
             "type": "array", "items": {"$ref": "#/$defs/n"}}}, "additionalProperties": False}}}
    t = {"name": "tree", "description": "A tree.", "inputSchema": s}
    p = write(tmp_path, mcp(t))
    assert pointers(run(p, profile="anthropic-strict"), "PV509") == [
        ("tree", "/inputSchema/$defs/n/properties/kids/items/$ref")]
    assert only(run(p, profile="openai-strict"), "PV509") == []    # OpenAI accepts recursion
    # a tool sent with strict: false is not held to the strict subset
    t["strict"] = False
    p2 = write(tmp_path, mcp(t), "loose.json")
    assert only(run(p2, profile="anthropic-strict"), "PV509") == []


def test_pv510_per_request_strict_totals(tmp_path):
    def opt_tool(i, n):
        props = {f"p{j}": {"type": "string", "description": "P."} for j in range(n)}
        return {"name": f"t{i}", "description": "T.",
                "inputSchema": {"type": "object", "properties": props,
                                "additionalProperties": False}}

    p = write(tmp_path, mcp(*(opt_tool(i, 6) for i in range(4))))     # 24 optional: at the cap
    assert only(run(p, profile="anthropic-strict"), "PV510") == []
    p2 = write(tmp_path, mcp(*(opt_tool(i, 6) for i in range(4)), opt_tool(9, 1)), "more.json")
    fs = only(run(p2, profile="anthropic-strict"), "PV510")
    assert len(fs) == 1 and "25 optional parameters" in fs[0].message
    assert only(run(p2, profile="anthropic"), "PV510") == []        # plain tool use: no totals


def test_pv507_formats_and_min_items(tmp_path):
    t = tool("a", d={"type": "string", "format": "date-time", "description": "D."},
             u={"type": "string", "format": "uri", "description": "U."},
             xs={"type": "array", "items": {"type": "string"}, "minItems": 2,
                 "description": "X."})
    p = write(tmp_path, mcp(t))
    oa = [f.pointer for f in only(run(p, profile="openai-strict"), "PV507")]
    assert "/inputSchema/properties/u/format" in oa
    assert "/inputSchema/properties/d/format" not in oa
    an = [f.pointer for f in only(run(p, profile="anthropic-strict"), "PV507")]
    assert "/inputSchema/properties/xs/minItems" in an
    assert "/inputSchema/properties/u/format" not in an     # Anthropic strict accepts uri


def test_select_pv_without_a_provider_profile_is_a_usage_error(tmp_path, capfd):
    from toolcat.cli import run as cli_run

    p = write(tmp_path, mcp(tool("a")))
    assert cli_run(["lint", str(p), "--select", "PV"]) == 2
    err = capfd.readouterr()[1]
    assert err.startswith("toolcat: error: ") and "--profile" in err and "openai-strict" in err
    assert cli_run(["lint", str(p), "--select", "PV", "--profile", "openai"]) == 0
    capfd.readouterr()
    # ALL selects what applies, provider rules or not
    assert cli_run(["lint", str(p), "--select", "ALL"]) == 0


def test_mc107_key_spelled_with_escapes(tmp_path):
    # MC107 skips catalogs whose text cannot hold the key: a key spelled with escapes is
    # still read (JSON \\u escapes, YAML double-quoted \\x escapes and line continuations)
    bad = "x-mcp-header on a parameter of type 'number' (only string, integer, boolean; " \
          "clients drop the tool)"
    jtext = ('{"tools": [{"name": "a", "description": "A.", "inputSchema": {"type": "object",'
             ' "properties": {"n": {"type": "number", "x\\u002Dmcp-h\\u0065ader": "N"}}}}]}')
    ytext = ('tools:\n- name: a\n  description: A.\n  inputSchema:\n    type: object\n'
             '    properties:\n      n:\n        type: number\n        ? "x\\x2dmcp-\\\n'
             '          header"\n        : N\n')
    for name, text in (("tools.json", jtext), ("tools.yaml", ytext)):
        p = write(tmp_path, text, name)
        assert [f.message for f in only(run(p), "MC107")] == [bad], name
    plain = write(tmp_path, jtext.replace("\\u002D", "-").replace("\\u0065", "e"), "p.json")
    assert [f.message for f in only(run(plain), "MC107")] == [bad]
