"""`toolcat project`: the API contract, the CLI, byte stability, --check, atomic writes,
the position rule, derivations, the handbook round trip and the report."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.common import corpus, run_toolcat, spec

# --------------------------------------------------------------------------- helpers


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _load(*paths, **kw):
    from toolcat.formats import LoadOptions, load_catalogs

    return load_catalogs([str(p) for p in paths], LoadOptions(**kw))


def _project(*paths, **opts):
    from toolcat.features.project import ProjectOptions, project_catalogs

    return project_catalogs(_load(*paths), ProjectOptions(**opts))


def _captures() -> list[str]:
    root = corpus("mcp-context-cost")
    out = []
    for f in sorted(glob.glob(str(root / "*.json"))):
        with open(f, encoding="utf-8") as fh:
            if isinstance(json.load(fh).get("rawToolsCapture"), list):
                out.append(f)
    return out


MCP_TOOLS = {"tools": [
    {
        "name": "search",
        "title": "Search",
        "description": "Search the   index.\n\nReturns matching documents, newest first. Use it "
                       "before fetching anything else, because fetching is slow and costly.",
        "inputSchema": {
            "type": "object",
            "description": "Arguments.",
            "properties": {
                "q": {"type": "string", "description": "The query.", "minLength": 1,
                      "examples": ["cats"], "x-ui": {"widget": "text"}},
                "description": {"type": "string", "title": "A property named description"},
                "title": {"type": "string"},
                "oneOf": {"type": "integer", "$comment": "a property named oneOf"},
                "kind": {"enum": [{"description": "data", "$ref": "#/nowhere"}, "plain"],
                         "default": {"description": "kept", "title": "kept"}},
                "fixed": {"const": {"$ref": "#/also/data", "examples": [1]}},
                "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
                         "description": "Mode."},
            },
            "required": ["q"],
        },
        "outputSchema": {"type": "object", "properties": {"hits": {"type": "array",
                         "description": "Hits.", "items": {"type": "string"}}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": True, "title": "Search"},
        "icons": [{"src": "data:,x"}],
        "_meta": {"x": 1},
    },
    {
        "name": "delete_item",
        "description": "Delete item",
        "title": "Delete item",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
        "annotations": {"destructiveHint": True},
    },
]}


@pytest.fixture
def mcp_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "tools.json", MCP_TOOLS)


# --------------------------------------------------------------------------- API contract


def test_api_contract_shapes(mcp_file: Path) -> None:
    from toolcat.document.canonical import dumps
    from toolcat.features.project import ProjectOptions, standard_array

    opts = ProjectOptions()
    assert (opts.view, opts.to, opts.description_max, opts.unlowerable, opts.output_policy,
            opts.sort, opts.source, opts.safety_tier, opts.indent) == \
        ("compact", None, 120, "widen", "bounded", False, None, None, None)
    proj = _project(mcp_file)
    assert proj.target == "mcp"
    assert [t.id for t in proj.tools] == ["search", "delete_item"]
    assert proj.array() == [t.descriptor for t in proj.tools]
    assert proj.array_bytes() == dumps(proj.array())
    assert proj.output_bytes() == (b'{"tools":' + proj.array_bytes()
                                   + b',"_meta":{"toolcat/view":"compact"}}')
    digest = proj.report()["digest"]
    assert digest == "sha256:" + hashlib.sha256(proj.output_bytes()).hexdigest()
    # the standard view of MCP input is the raw objects, verbatim
    assert standard_array(_load(mcp_file), "mcp") == MCP_TOOLS["tools"]
    assert [t.standard for t in proj.tools] == MCP_TOOLS["tools"]
    assert proj.exit_code() == 0
    # openai / anthropic: bare arrays
    for to in ("openai", "anthropic"):
        p = _project(mcp_file, to=to)
        assert p.output_bytes() == p.array_bytes()
        assert isinstance(json.loads(p.output_bytes()), list)


def test_standard_view_hashes_to_published_sha256() -> None:
    """Before = standard_array: on every capture its canonical bytes hash to the published
    canonicalSha256 (mcp-context-cost methodology)."""
    from toolcat.document.canonical import dumps
    from toolcat.features.project import standard_array

    files = _captures()
    assert len(files) >= 60
    for f in files:
        with open(f, encoding="utf-8") as fh:
            published = json.load(fh)["canonicalSha256"]
        got = hashlib.sha256(dumps(standard_array(_load(f), "mcp"))).hexdigest()
        assert got == published, f


def test_compact_fields_and_prose(mcp_file: Path) -> None:
    proj = _project(mcp_file)
    search, delete = proj.array()
    # the title (a UI label) goes to the handbook when there is a description to read
    assert list(search) == ["name", "description", "inputSchema", "outputSchema",
                            "annotations"]
    assert "icons" not in search and "_meta" not in search
    # description collapsed and cut at a sentence end
    assert search["description"] == "Search the index. Returns matching documents, newest first."
    # a description that only repeats the title is dropped; the title, now the only prose,
    # stays
    assert "description" not in delete and delete["title"] == "Delete item"
    # annotations: MCP defaults and the title are left out
    assert search["annotations"] == {"readOnlyHint": True}
    assert "annotations" not in delete
    kept = _project(mcp_file, keep_titles=True).array()[0]
    assert list(kept) == ["name", "title", "description", "inputSchema", "outputSchema",
                          "annotations"]
    assert kept["title"] == "Search" and kept["annotations"] == {"readOnlyHint": True}
    # the output schema keeps its shape, loses its prose
    assert search["outputSchema"] == {"type": "object", "properties": {"hits": {
        "type": "array", "items": {"type": "string"}}}}
    ids = {c.pointer: c for c in proj.tools[0].changes}
    assert ids["/icons"].kind == "omitted" and ids["/_meta"].kind == "omitted"
    assert ids["/title"].kind == "omitted" and "handbook" in ids["/title"].what
    assert ids["/annotations/title"].kind == "omitted"


def test_titles_relocated_only_with_a_description(tmp_path: Path) -> None:
    """MCP titles are UI labels: relocated when a description remains, kept when the
    compact description is empty (then they are the only prose); annotations.title too;
    the OpenWOP compact view keeps its title (RFC 0112 carries it)."""
    tools = {"tools": [
        {"name": "a", "title": "Alpha", "description": "Does alpha things.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"title": "Alpha tool", "readOnlyHint": True}},
        {"name": "b", "annotations": {"title": "Beta"},
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "c", "title": "Gamma", "description": "x" * 300,     # cut to nothing
         "inputSchema": {"type": "object", "properties": {}}},
    ]}
    f = _write(tmp_path / "t.json", tools)
    a, b, c = _project(f).array()
    assert "title" not in a and a["annotations"] == {"readOnlyHint": True}
    assert b["annotations"] == {"title": "Beta"}
    assert c["title"] == "Gamma" and "description" not in c
    ow = _project(f, to="openwop").array()
    assert [d.get("title") for d in ow] == ["Alpha", "Beta", "Gamma"]
    # nothing is lost: the handbook has them
    hb = _project(f).handbook()["tools"]
    assert hb["a"]["title"] == "Alpha" and hb["a"]["annotations"]["title"] == "Alpha tool"


def test_position_rule(mcp_file: Path) -> None:
    """Properties named after keywords survive; enum/const/default values are untouched."""
    schema = _project(mcp_file).array()[0]["inputSchema"]
    props = schema["properties"]
    assert "description" not in schema
    assert set(props) == {"q", "description", "title", "oneOf", "kind", "fixed", "mode"}
    assert props["q"] == {"type": "string", "minLength": 1}
    assert props["description"] == {"type": "string"}
    assert props["title"] == {"type": "string"}
    assert props["oneOf"] == {"type": "integer"}
    assert props["kind"]["enum"] == [{"description": "data", "$ref": "#/nowhere"}, "plain"]
    assert props["kind"]["default"] == {"description": "kept", "title": "kept"}
    assert props["fixed"] == {"const": {"$ref": "#/also/data", "examples": [1]}}
    # anyOf of X and null lowered to a type union (exact)
    assert props["mode"] == {"enum": ["a", "b", None]}


def test_ref_target_keys_are_kept(tmp_path: Path) -> None:
    """A $ref into an x-* container keeps that key when the ref stays (MCP: not inlined
    because inlining would grow the schema)."""
    big = {"type": "object", "properties": {f"p{i}": {"type": "string", "minLength": i}
                                            for i in range(12)}}
    schema = {"type": "object", "x-shared": {"item": big},
              "properties": {"a": {"$ref": "#/x-shared/item"}, "b": {"$ref": "#/x-shared/item"},
                             "c": {"$ref": "#/x-shared/item"}},
              "x-other": {"gone": True}}
    f = _write(tmp_path / "t.json", {"tools": [{"name": "t", "inputSchema": schema}]})
    out = _project(f).array()[0]["inputSchema"]
    assert out["x-shared"] == {"item": big}
    assert "x-other" not in out
    assert out["properties"]["a"] == {"$ref": "#/x-shared/item"}


def test_descriptions_unit() -> None:
    from toolcat.features.project.describe import length, repeats, truncate

    assert truncate("  a \n b\t c ", 120) == "a b c"
    s = "First sentence here. Second sentence is a lot longer than the first one is."
    assert truncate(s, 40) == "First sentence here."
    out = truncate("word " * 40, 23)
    assert out.endswith("…") and length(out) <= 23 and "wor…" not in out
    assert out == "word word word word…"
    # never inside a surrogate pair: emoji count 2 (UTF-16), cut between words
    emo = "😀😀 😀😀 😀😀 😀😀"
    cut = truncate(emo, 10)
    assert length(cut) <= 10 and cut.endswith("…") and "😀😀 😀😀" in cut
    assert all(0xD800 > ord(c) or ord(c) > 0xDFFF for c in cut)
    # one word longer than the limit: nothing fits, nothing is cut mid-word
    assert truncate("x" * 200, 120) == ""
    # "e.g. the" is no sentence end
    assert truncate("Use it e.g. the way you like and then some more words.", 30) == \
        "Use it e.g. the way you like…"
    # CJK text has no spaces: boundaries between ideographs
    zh = "这是一个很长的描述" * 20
    cut = truncate(zh, 20)
    assert length(cut) <= 20 and cut.endswith("…")
    assert repeats("List pets.", "List pets") and not repeats("List all pets", "List pets")


def test_derivations(tmp_path: Path) -> None:
    from toolcat.errors import UsageError

    proj = _project(_write(tmp_path / "t.json", MCP_TOOLS), to="openwop")
    a, b = proj.array()
    assert (a["toolId"], a["source"], a["safetyTier"]) == ("mcp:search", "mcp", "read")
    assert (b["toolId"], b["source"], b["safetyTier"]) == ("mcp:delete_item", "mcp", "write")
    assert list(a) == ["toolId", "source", "safetyTier", "title", "description", "inputSchema"]
    proj = _project(tmp_path / "t.json", to="openwop", source="connector", safety_tier="pure")
    assert [(d["toolId"], d["source"], d["safetyTier"]) for d in proj.array()] == \
        [("connector:search", "connector", "pure"), ("connector:delete_item", "connector", "pure")]
    with pytest.raises(UsageError):
        _project(tmp_path / "t.json", to="openwop", safety_tier="exec")
    p = _project(tmp_path / "t.json", to="openwop", safety_tier="exec", source="host-extension")
    assert {d["safetyTier"] for d in p.array()} == {"exec"}


def test_openapi_methods_give_safety_tier() -> None:
    proj = _project(corpus("openapi", "oai-petstore.openapi.yaml"), to="openwop")
    from toolcat.formats import LoadOptions, load_catalogs

    tools = load_catalogs([str(corpus("openapi", "oai-petstore.openapi.yaml"))],
                          LoadOptions())[0].tools
    for t, d in zip(tools, proj.array()):
        assert d["source"] == "connector"
        assert d["toolId"] == "connector:" + t.id
        expected = "read" if t.http_method in ("get", "head", "options") else "write"
        assert d["safetyTier"] == expected, t.id


# --------------------------------------------------------------------------- openwop target


def _compact_validator():
    import jsonschema

    with open(spec("openwop", "compact-tool-descriptor.schema.json"), encoding="utf-8") as f:
        return jsonschema.Draft202012Validator(json.load(f))


def _subset_ok(schema) -> list:
    """An independent any-depth check of the RFC 0112 subset (not toolcat's walker)."""
    bad = []
    forbidden = {"$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties",
                 "dependentSchemas"}
    maps = {"properties", "$defs", "definitions", "dependentSchemas", "patternProperties"}
    single = {"additionalProperties", "items", "not", "if", "then", "else", "contains",
              "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
    lists = {"allOf", "anyOf", "oneOf", "prefixItems"}
    stack = [("", schema)]
    while stack:
        p, s = stack.pop()
        if not isinstance(s, dict):
            continue
        bad += [f"{p}/{k}" for k in s if k in forbidden]
        for k, v in s.items():
            if k in maps and isinstance(v, dict):
                stack += [(f"{p}/{k}/{n}", x) for n, x in v.items()]
            elif k in single:
                if isinstance(v, list):
                    stack += [(f"{p}/{k}/{i}", x) for i, x in enumerate(v)]
                else:
                    stack.append((f"{p}/{k}", v))
            elif k in lists and isinstance(v, list):
                stack += [(f"{p}/{k}/{i}", x) for i, x in enumerate(v)]
    return bad


def _all_catalog_paths() -> list[str]:
    return ([str(corpus("github-mcp-server"))] + _captures()
            + sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml"))))


def test_openwop_compact_is_conformant_everywhere() -> None:
    """--to openwop on every corpus catalog: each descriptor validates against the published
    CompactToolDescriptor schema, every inputSchema is in the subset at any depth (checked
    independently), and the toolId set equals the standard view's."""
    v = _compact_validator()
    from toolcat.features.project import ProjectOptions, project_catalogs, standard_array

    n = 0
    for path in _all_catalog_paths():
        cats = _load(path)
        proj = project_catalogs(cats, ProjectOptions(to="openwop"))
        for d in proj.array():
            errs = [e.message for e in v.iter_errors(d)]
            assert not errs, (path, d.get("toolId"), errs[:3])
            if "inputSchema" in d:
                assert d["inputSchema"]["type"] == "object"
                assert isinstance(d["inputSchema"]["properties"], dict)
                assert not _subset_ok(d["inputSchema"]), (path, d["toolId"])
            n += 1
        std_ids = [s["toolId"] for s in standard_array(cats, "openwop")]
        assert std_ids == [d["toolId"] for d in proj.array()], path
    assert n > 1000


def test_rfc_example_is_its_own_compact_view(tmp_path: Path) -> None:
    with open(corpus("openwop", "rfc-inline-examples.json"), encoding="utf-8") as f:
        ex = json.load(f)
    body = ex["compactCatalog"][0]["body"]
    out = _project(_write(tmp_path / "c.json", body))
    assert out.target == "openwop"
    assert json.loads(out.output_bytes()) == body
    assert all(c.kind == "exact" for t in out.tools for c in t.changes)


# --------------------------------------------------------------------------- handbook


def _ids(target: str, arr: list) -> list:
    from toolcat.features.project.handbook import descriptor_id

    return [descriptor_id(target, d) for d in arr]


@pytest.mark.parametrize("to", ["mcp", "openwop", "openai", "anthropic"])
def test_handbook_round_trip(to: str) -> None:
    """The standard view rebuilt from the compact output and the handbook is the standard
    view; every description the compact view cut is in the handbook in full."""
    from toolcat.features.project import ProjectOptions, project_catalogs, standard_array
    from toolcat.features.project.handbook import rebuild_standard

    for path in [str(corpus("github-mcp-server"))] + _captures()[:25] + \
            sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml"))):
        cats = _load(path)
        proj = project_catalogs(cats, ProjectOptions(to=to))
        out = json.loads(proj.output_bytes())
        arr = out["tools"] if isinstance(out, dict) else out
        hb = json.loads(proj.handbook_bytes())
        assert rebuild_standard(to, arr, hb) == json.loads(
            json.dumps(standard_array(cats, to))), path
        assert sorted(hb["tools"]) == sorted(_ids(to, arr))
        for t in cats[0].tools if len(cats) == 1 else []:
            if t.description:
                assert any(t.description == (s.get("description") or
                                             (s.get("function") or {}).get("description"))
                           for s in hb["tools"].values()), (path, t.id)


# --------------------------------------------------------------------------- report


def test_report_lists_every_non_exact_change(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {
        "pet": {"oneOf": [{"type": "object", "properties": {"bark": {"type": "boolean"}},
                           "required": ["bark"]},
                          {"type": "object", "properties": {"meow": {"type": "boolean"}},
                           "required": ["meow"]}]},
        "tag": {"not": {"type": "null"}},
        "extra": {"patternProperties": {"^x": {"type": "string"}}},
    }}
    f = _write(tmp_path / "t.json", {"tools": [{"name": "t", "inputSchema": schema}]})
    proj = _project(f, to="openwop")
    rep = proj.report()
    changes = {(c["pointer"], c["kind"]) for c in rep["tools"][0]["changes"]}
    assert ("/inputSchema/properties/pet/oneOf", "widened") in changes
    assert ("/inputSchema/properties/tag/not", "exact") in changes
    assert ("/inputSchema/properties/extra/patternProperties", "widened") in changes
    out = proj.array()[0]["inputSchema"]
    # the union of the branches' properties; each branch lets the other's name through
    # with any value, so the superset cannot type it
    assert out["properties"]["pet"] == {"type": "object", "properties": {"bark": {}, "meow": {}}}
    assert rep["tools"][0]["conformant"] is True
    # keep: left as is, reported, not conformant; fail: exit 1; omit: no inputSchema
    keep = _project(f, to="openwop", unlowerable="keep")
    assert keep.tools[0].conformant is False
    kinds = {c.kind for c in keep.tools[0].changes}
    assert "kept" in kinds and "widened" not in kinds
    assert _project(f, to="openwop", unlowerable="fail").exit_code() == 1
    omit = _project(f, to="openwop", unlowerable="omit")
    assert "inputSchema" not in omit.array()[0]
    assert any(c.kind == "omitted" and c.pointer == "/inputSchema" for c in omit.tools[0].changes)
    # MCP target, no subset asked: only exact rewrites, nothing widened
    mcp = _project(f)
    assert all(c.kind != "widened" for c in mcp.tools[0].changes)
    assert "oneOf" in mcp.array()[0]["inputSchema"]["properties"]["pet"]


def test_mcp_compact_keeps_every_validation_value() -> None:
    """Neo's prose compaction lost format, pattern and bounds; the compact MCP view keeps
    every value of those keywords, per tool (counted independently of toolcat's walker)."""
    keys = ("format", "pattern", "minLength", "maxLength", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minProperties",
            "maxProperties", "multipleOf", "uniqueItems", "required", "enum", "const")
    # bounds that bound nothing may go (validation no-ops): every other value stays
    noops = {("minLength", "0"), ("minItems", "0"), ("minProperties", "0"),
             ("uniqueItems", "false"), ("required", "[]")}

    def values(x, acc):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in keys and (k, json.dumps(v)) not in noops:
                    acc.add((k, json.dumps(v, sort_keys=True)))
                if k not in ("enum", "const", "default", "examples", "example"):
                    values(v, acc)
        elif isinstance(x, list):
            for v in x:
                values(v, acc)
        return acc

    from toolcat.features.project import ProjectOptions, project_catalogs

    for path in sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml"))) + \
            [str(corpus("github-mcp-server"))]:
        cats = _load(path)
        proj = project_catalogs(cats, ProjectOptions())
        for tool, d in zip(cats[0].tools, proj.array()):
            for src, out in ((tool.input_schema, d.get("inputSchema")),
                             (tool.output_schema, d.get("outputSchema"))):
                lowered = any(c.pointer.endswith(("/anyOf", "/oneOf", "/allOf", "/not"))
                              for t in proj.tools if t.id == tool.id for c in t.changes)
                before, after = values(src, set()), values(out, set())
                missing = before - after
                if lowered:  # a null union turns {"enum": [...]} + null into one enum
                    missing = {m for m in missing if m[0] not in ("enum", "const")}
                assert not missing, (path, tool.id, sorted(missing)[:5])


# --------------------------------------------------------------------------- CLI


def test_cli_stdout_and_file(tmp_path: Path, mcp_file: Path) -> None:
    r = run_toolcat("project", mcp_file, "-q")
    assert r.returncode == 0, r.stderr
    assert r.stdout == _project(mcp_file).output_bytes()
    out = tmp_path / "out.json"
    r = run_toolcat("project", mcp_file, "-o", out, "--handbook", tmp_path / "hb.json",
                    "--report", tmp_path / "rep.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == b""
    assert out.read_bytes() == r_bytes(mcp_file)
    err = r.stderr.decode()
    assert "tokens" in err and "bytes" in err and "digest sha256:" in err and "\x1b[" not in err
    rep = json.loads((tmp_path / "rep.json").read_bytes())
    assert rep["digest"] == "sha256:" + hashlib.sha256(out.read_bytes()).hexdigest()
    hb = json.loads((tmp_path / "hb.json").read_bytes())
    assert hb["tools"]["search"] == MCP_TOOLS["tools"][0]


@pytest.mark.parametrize("no_fork", ["", "1"])
def test_cli_summary_token_counts(tmp_path: Path, no_fork: str) -> None:
    """The summary's bytes and tokens (counted in a forked child that starts before loading,
    or in this process with TOOLCAT_NO_FORK) are those of the standard and compact views."""
    import re

    from toolcat import tokens

    src = corpus("github-mcp-server")
    env = {**os.environ, "TOOLCAT_NO_FORK": no_fork, "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "toolcat", "project", str(src), "-o",
                        str(tmp_path / "out.json")], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr
    proj = _project(src)
    err = r.stderr.decode()
    row = {m.group(1): (int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
           for m in re.finditer(r"^(bytes|tokens \(o200k\))\s+([\d,]+)\s+([\d,]+)", err, re.M)}
    assert row["bytes"] == (len(proj.standard_bytes()), len(proj.array_bytes())), err
    assert row["tokens (o200k)"] == (tokens.count(proj.standard_bytes()),
                                     tokens.count(proj.array_bytes())), err


def r_bytes(path: Path) -> bytes:
    return _project(path).output_bytes()


def test_cli_indent_sort_view_to(tmp_path: Path, mcp_file: Path) -> None:
    r = run_toolcat("project", mcp_file, "-q", "--indent", "2", "--sort", "--to", "anthropic")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [d["name"] for d in data] == ["delete_item", "search"]
    assert r.stdout.startswith(b"[\n  {") and r.stdout.endswith(b"]\n")
    r = run_toolcat("project", mcp_file, "-q", "--view", "standard")
    assert json.loads(r.stdout) == MCP_TOOLS
    r = run_toolcat("project", mcp_file, "-q", "--no-output-schema")
    assert "outputSchema" not in json.loads(r.stdout)["tools"][0]


def test_cli_usage_errors(tmp_path: Path, mcp_file: Path) -> None:
    for args in (["--check"], ["--to", "yaml"], ["--view", "tiny"], ["--unlowerable", "x"],
                 ["--safety-tier", "maybe"], ["--source", "moon"], ["--bogus"]):
        r = run_toolcat("project", mcp_file, *args)
        assert r.returncode == 2, (args, r.stderr)
        assert b"Traceback" not in r.stderr
    r = run_toolcat("project", tmp_path / "missing.json")
    assert r.returncode == 2 and r.stderr.startswith(b"toolcat: error: ")
    assert r.stderr.count(b"\n") == 1


def test_cli_check(tmp_path: Path, mcp_file: Path) -> None:
    out = tmp_path / "out.json"
    r = run_toolcat("project", mcp_file, "-o", out, "--check")
    assert r.returncode == 1 and not out.exists()           # missing: stale, nothing written
    assert run_toolcat("project", mcp_file, "-o", out, "-q").returncode == 0
    before = out.read_bytes()
    st = os.stat(out)
    r = run_toolcat("project", mcp_file, "-o", out, "--check")
    assert r.returncode == 0, r.stderr
    out.write_bytes(before + b" ")
    r = run_toolcat("project", mcp_file, "-o", out, "--check")
    assert r.returncode == 1 and out.read_bytes() == before + b" "   # --check writes nothing
    out.write_bytes(before)
    # other options make a different file: stale
    assert run_toolcat("project", mcp_file, "-o", out, "--check", "--indent", "2").returncode == 1
    assert os.stat(out).st_ino == st.st_ino or out.read_bytes() == before


def test_byte_stability(tmp_path: Path) -> None:
    """Same bytes on every run, whatever the hash seed; input key order noise inside data
    (sets, dict iteration) never leaks into the output."""
    path = str(corpus("github-mcp-server"))
    outs = set()
    for seed in ("0", "1", "12345"):
        r = run_toolcat("project", path, "-q", "--to", "openwop", env={"PYTHONHASHSEED": seed})
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1
    # the same tools in another file order give the same tools (by id) and bytes per tool
    from toolcat.document.canonical import dumps

    a = _project(path, to="openwop")
    shuffled = tmp_path / "rev.json"
    _write(shuffled, {"tools": [t.standard for t in reversed(_project(path).tools)]})
    b = _project(shuffled, to="openwop")
    assert {t.id: dumps(t.descriptor) for t in a.tools} == \
        {t.id: dumps(t.descriptor) for t in b.tools}
    assert _project(path, to="openwop", sort=True).output_bytes() == \
        _project(shuffled, to="openwop", sort=True).output_bytes()


def test_atomic_writes(tmp_path: Path, mcp_file: Path) -> None:
    """A run that fails leaves OUT as it was and no temporary file behind."""
    out = tmp_path / "out.json"
    out.write_bytes(b"previous")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    r = run_toolcat("project", mcp_file, bad, "-o", out, "--handbook", tmp_path / "hb.json")
    assert r.returncode == 2
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "out.json", "tools.json"]
    # --unlowerable fail: exit 1 and no output written
    f = _write(tmp_path / "u.json", {"tools": [{"name": "u", "inputSchema": {
        "type": "object", "properties": {"a": {"not": {"const": 1}}}}}]})
    r = run_toolcat("project", f, "--to", "openwop", "--unlowerable", "fail", "-o", out)
    assert r.returncode == 1 and out.read_bytes() == b"previous"
    # a failure inside the write itself: the old file survives, no temp file remains
    from toolcat import ui

    real_replace = os.replace

    def boom(*a, **k):
        raise OSError("disk full")

    os.replace = boom
    from toolcat.errors import UsageError

    try:
        with pytest.raises((OSError, UsageError)):
            ui.write_atomic(str(out), b"new")
    finally:
        os.replace = real_replace
    assert out.read_bytes() == b"previous"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".toolcat-")]


def test_an_entry_that_is_not_a_tool_is_left_out(tmp_path: Path) -> None:
    """A broken part degrades that part: an entry with no name, or not an object, is left out
    of project and measure (a warning with its place; the report's ``left_out``), the other
    tools are written as usual (it once stopped the whole catalog with exit 2)."""
    f = _write(tmp_path / "t.json", {"tools": [{"name": "ok", "inputSchema": {"type": "object"}},
                                               {"description": "no name"}, 7,
                                               {"name": "last", "inputSchema": {"type": "object"}}]})
    rep = tmp_path / "rep.json"
    r = run_toolcat("project", f, "--report", rep)
    assert r.returncode == 0, r.stderr
    assert [t["name"] for t in json.loads(r.stdout)["tools"]] == ["ok", "last"]
    assert b"Traceback" not in r.stderr
    warning = [ln for ln in r.stderr.splitlines() if ln.startswith(b"toolcat: warning:")]
    assert len(warning) == 1 and b"2 entries that are not tools left out" in warning[0]
    assert b"t.json:1:" in warning[0] and b"/tools/1" in warning[0]
    left = json.loads(rep.read_text())["left_out"]
    assert [(e["where"], e["line"]) for e in left] == [("/tools/1", 1), ("/tools/2", 1)]
    assert "no name" in left[0]["what"] and "found int" in left[1]["what"]
    r = run_toolcat("measure", f, "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["catalogs"][0]["tools"] == 2
    assert b"left out" in r.stderr


@pytest.mark.parametrize("to", ["mcp", "anthropic", "openai", "openai-responses", "gemini"])
def test_a_tool_whose_input_schema_is_not_a_schema_is_left_out(tmp_path: Path, to: str) -> None:
    """A tool whose input schema is a string, an array or a number (lint: MC101) is left
    out of every target, with a warning and the report's ``left_out`` (``broken_schema``):
    written as given, the provider's SDK types refuse the request (and MCP clients the whole
    tools list). A boolean schema is a schema: written as before. The standard view and
    diff-toolids' views agree. Before: written as given into every target, no warning."""
    f = _write(tmp_path / "t.json", {"tools": [
        {"name": "text", "description": "Takes text.", "inputSchema": "x"},
        {"name": "ok", "description": "Fine.", "inputSchema": {"type": "object"}},
        {"name": "list", "description": "A list.", "inputSchema": [1]},
        {"name": "any", "description": "Anything.", "inputSchema": True}]})
    rep = tmp_path / "rep.json"
    out = tmp_path / "out.json"
    r = run_toolcat("project", f, "--to", to, "-o", out, "--report", rep)
    assert r.returncode == 0, r.stderr
    written = json.loads(out.read_text())
    if isinstance(written, dict):
        written = written.get("tools", written.get("functionDeclarations"))
    assert len(written) == 2 and "x" not in json.dumps(written)
    left = json.loads(rep.read_text())["left_out"]
    assert [(e["where"], e.get("broken_schema")) for e in left] == [("/tools/0", True),
                                                                     ("/tools/2", True)]
    assert "a string, not a JSON Schema" in left[0]["what"]
    assert "an array, not a JSON Schema" in left[1]["what"]
    assert b"whose input schema is not a schema left out" in r.stderr
    r = run_toolcat("diff-toolids", f, "--to", to if to in ("mcp", "openai", "anthropic")
                    else "mcp")
    assert r.returncode == 0, r.stdout


def test_duplicate_ids_and_handbook(tmp_path: Path, mcp_file: Path) -> None:
    # two catalogs, one projection: tools concatenated, so every id twice (issue 12 item 11:
    # never an output with duplicate names; tests/cli/test_duplicate_ids.py)
    r = run_toolcat("project", mcp_file, mcp_file, "-q")
    assert r.returncode == 2 and b"duplicate tool id" in r.stderr and not r.stdout
    r = run_toolcat("project", mcp_file, mcp_file, "--handbook", tmp_path / "hb.json")
    assert r.returncode == 2 and b"duplicate tool id" in r.stderr
    assert not (tmp_path / "hb.json").exists()
    r = run_toolcat("project", mcp_file, mcp_file, "-q", "--duplicate-ids", "rename",
                    "--handbook", tmp_path / "hb.json")
    assert r.returncode == 0
    names = [t["name"] for t in json.loads(r.stdout)["tools"]]
    assert len(names) == 4 and len(set(names)) == 4
    assert sorted(json.loads((tmp_path / "hb.json").read_text())["tools"]) == sorted(names)


def test_idempotent(tmp_path: Path) -> None:
    """The compact view of a compact view is itself (descriptions already fit; factored
    definitions pay for themselves, so they stay; nothing is left to lower), on every corpus
    catalog."""
    for path in [str(corpus("github-mcp-server"))] + _captures() + \
            sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml"))):
        once = _project(path).output_bytes()
        f = tmp_path / "once.json"
        f.write_bytes(once)
        assert _project(f).output_bytes() == once, path
        ow = _project(path, to="openwop").output_bytes()
        f.write_bytes(ow)
        assert _project(f).output_bytes() == ow, path


# --------------------------------------------------------------------------- size


def _figures(paths: list[str], **opts) -> tuple[int, int, int, int]:
    from toolcat import tokens
    from toolcat.document.canonical import dumps
    from toolcat.features.project import ProjectOptions, project_catalogs, standard_array

    bb = ba = tb = ta = 0
    for p in paths:
        for cat in _load(p):
            proj = project_catalogs([cat], ProjectOptions(**opts))
            before = dumps(standard_array([cat], proj.target))
            after = proj.array_bytes()
            bb, ba = bb + len(before), ba + len(after)
            tb, ta = tb + tokens.count(before), ta + tokens.count(after)
    return bb, ba, tb, ta


def test_size_neo() -> None:
    """Neo's six servers: the default compact MCP view (outputSchema kept, validation intact:
    test_mcp_compact_keeps_every_validation_value) is under 103,000 bytes (99,183 before the
    compact view kept the argument-critical clauses of schema descriptions and the obligation
    sentences of tool descriptions: 101,720 with them). Each size rewrite does its part:
    titles relocated, repeated subtrees factored, no-ops removed."""
    paths = sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml")))
    assert len(paths) == 6
    bb, ba, _tb, _ta = _figures(paths)
    assert ba < 103_000, ba
    _bb, ba_titles, _tb, _ta = _figures(paths, keep_titles=True)
    _bb, ba_plain, _tb, _ta = _figures(paths, keep_titles=True, factor=False)
    _bb, ba_no_out, _tb, _ta = _figures(paths, output_schema=False)
    assert ba_no_out < ba < ba_titles < ba_plain < bb


def test_size_mcp_corpora() -> None:
    """GitHub snapshots and every capture together: the compact view (outputSchema kept) with
    every schema factored (--factor-all) is at most 40% of the standard view in bytes and in
    o200k tokens; the default one, which adds no $ref to a schema without one (issue 33:
    clients strip or refuse $ref), at most 42%."""
    paths = [str(corpus("github-mcp-server"))] + _captures()
    bb, ba, tb, ta = _figures(paths, factor_all=True)
    assert ba <= 0.40 * bb, (ba, bb)
    assert ta <= 0.40 * tb, (ta, tb)
    bb, ba, tb, ta = _figures(paths)
    assert ba <= 0.42 * bb, (ba, bb)
    assert ta <= 0.42 * tb, (ta, tb)


# --------------------------------------------------------------------------- size rewrites


def test_noop_keywords_unit() -> None:
    """Validation no-ops, derived by hand from the JSON Schema rules (1.0 is an integer from
    draft-06 on, a boolean is no number, unevaluated* reads additionalProperties/items)."""
    from toolcat.schema.lower import noop_keywords

    def keys(n, d="2020-12", **kw):
        return sorted(k for k, _label in noop_keywords(n, d, **kw))

    assert keys({"type": "integer", "enum": [1, 1.0, 2]}) == ["type"]
    assert keys({"type": "integer", "enum": [1, 1.0]}, "draft4") == []    # 1.0 no integer
    assert keys({"type": "integer", "enum": [1, 1.5]}) == []
    assert keys({"type": "number", "enum": [1, 2]}) == ["type"]
    assert keys({"type": "number", "enum": [True]}) == []
    assert keys({"type": ["string", "null"], "const": None}) == ["type"]
    assert keys({"type": "string", "const": 1}) == []
    assert keys({"type": "string", "const": "a"}, "draft4") == []   # no const in draft-04
    assert keys({"type": "bogus", "enum": ["a"]}) == []
    assert keys({"type": "object", "enum": [{}]}, root=True) == []  # the top-level type stays
    assert keys({"properties": {}}, root=True) == []
    assert keys({"properties": {}, "required": [], "minLength": 0, "minItems": 0.0,
                 "minProperties": 0, "uniqueItems": False, "patternProperties": {},
                 "propertyNames": {}}) == sorted(
        ["properties", "required", "minLength", "minItems", "minProperties", "uniqueItems",
         "patternProperties", "propertyNames"])
    assert keys({"minLength": False, "uniqueItems": 0, "required": {}}) == []
    assert keys({"additionalProperties": True, "items": {}, "additionalItems": True},
                "draft7", annotations=False) == ["additionalItems", "additionalProperties",
                                                 "items"]
    # unevaluated* in the schema: these still mark properties/items as evaluated
    assert keys({"additionalProperties": True, "items": {}}, annotations=True) == []
    assert keys({"items": []}, "draft7", annotations=False) == []   # a tuple: not a no-op
    assert keys({"dependencies": {}}, "draft7") == ["dependencies"]
    # not a 2020-12 keyword, but Ajv (both MCP SDKs) applies it there: empty, it is a no-op
    # for every reader
    assert keys({"dependencies": {}}, "2020-12") == ["dependencies"]
    assert keys({"minContains": 0}) == []                # minContains 0 changes contains


def _factor(schema, dialect="2020-12"):
    from toolcat.schema.factor import factor_schema

    return factor_schema(schema, dialect)


_BIG = {"type": "object", "properties": {"street": {"type": "string", "minLength": 1},
                                          "city": {"type": "string"}},
        "required": ["street", "city"]}


def test_factor_moves_repeats_and_keeps_what_points() -> None:
    import jsonschema

    s = {"type": "object", "properties": {"home": _BIG, "work": _BIG,
                                          "other": {"type": "array", "items": _BIG}},
         "$defs": {"home": {"type": "string"}}}
    f = _factor(s)
    out = f.schema
    # one definition, named after the first property, never colliding with an existing one
    assert [(c, n, k) for c, n, k, _first in f.defs] == [("$defs", "home2", 3)]
    assert out["$defs"] == {"home": {"type": "string"}, "home2": _BIG}
    assert out["properties"]["home"] == {"$ref": "#/$defs/home2"}
    assert out["properties"]["other"]["items"] == {"$ref": "#/$defs/home2"}
    assert len(json.dumps(out, separators=(",", ":"))) < len(json.dumps(s, separators=(",", ":")))
    v0, v1 = jsonschema.Draft202012Validator(s), jsonschema.Draft202012Validator(out)
    for x in ({"home": {"street": "a", "city": "b"}}, {"home": {"street": ""}},
              {"other": [{"street": "a", "city": "b"}, {"city": 1}]}, {"work": 3}):
        assert v0.is_valid(x) == v1.is_valid(x)
    # draft-07: `definitions`, and a $ref with siblings at the root blocks it
    f7 = _factor({"$schema": "http://json-schema.org/draft-07/schema#", **s}, "draft7")
    assert [c for c, *_ in f7.defs] == ["definitions"]
    assert not _factor({"$ref": "#/definitions/x", "definitions": {"x": {}},
                        "properties": {"a": _BIG, "b": _BIG}}, "draft7").defs
    # a subtree something points into (or at) never moves; the others still do
    s2 = {"type": "object", "properties": {"a": _BIG, "b": _BIG, "c": _BIG,
                                           "d": {"$ref": "#/properties/a/properties/city"}}}
    out2 = _factor(s2).schema
    assert out2["properties"]["a"] == _BIG and out2["properties"]["b"] == {"$ref": "#/$defs/b"}
    # anything tied to its location: left alone
    for bad in ({"$id": "x.json"}, {"$anchor": "a"}, {"$dynamicRef": "#a"},
                {"$ref": "other.json"}, {"$ref": "#/nowhere"}, {"$schema": "x"}):
        s3 = {"type": "object", "properties": {"a": _BIG, "b": _BIG, "c": {**_BIG, **bad}}}
        assert not _factor(s3).defs, bad
    # a $ref into a data position (an unknown keyword): left alone
    s4 = {"type": "object", "x-data": {"k": _BIG},
          "properties": {"a": _BIG, "b": _BIG, "c": {"$ref": "#/x-data/k"}}}
    assert not _factor(s4).defs
    # small or rare subtrees do not pay
    assert not _factor({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}}).defs


def test_factor_only_where_refs_are_allowed(tmp_path: Path) -> None:
    """MCP/OpenAI/Anthropic compact views factor a schema that uses $ref (or any, with
    --factor-all); OpenWOP (the subset forbids $ref) and --subset never do; --no-factor
    turns it off; the report lists each definition (exact)."""
    schema = {"type": "object", "properties": {n: _BIG for n in ("a", "b", "c", "d")}}
    f = _write(tmp_path / "t.json", {"tools": [{"name": "t", "description": "T.",
                                                "inputSchema": schema}]})
    for to in ("mcp", "openai", "anthropic"):
        assert "$ref" not in json.dumps(_project(f, to=to).array()), to
        p = _project(f, to=to, factor_all=True)
        assert "$ref" in json.dumps(p.array()), to
        ch = [c for c in p.tools[0].changes if "identical subschemas" in c.what]
        assert ch and ch[0].kind == "exact" and ch[0].pointer == "/inputSchema/$defs/a"
    for kw in ({"to": "openwop"}, {"subset": True}, {"factor": False},
               {"to": "openwop", "subset": False}):
        assert "$ref" not in json.dumps(_project(f, factor_all=True, **kw).array()), kw
    r = run_toolcat("project", f, "-q", "--no-factor", "--factor-all")
    assert r.returncode == 0 and b"$ref" not in r.stdout
    r = run_toolcat("project", f, "-q", "--factor-all")
    assert r.returncode == 0 and b"$ref" in r.stdout


def test_run_cache_changes_nothing(monkeypatch) -> None:
    """The run cache (lowered definitions shared between the tools of an OpenAPI spec) is
    an optimization only: output and report are byte-identical without it, for every
    target, on specs whose tools share many definitions."""
    import toolcat.features.project as P

    paths = [str(corpus("openapi", n)) for n in (
        "oai-petstore-expanded.openapi.yaml", "swagger-petstore-v3.openapi.yaml",
        "oai-uspto.openapi.yaml", "twilio-api-v2010.openapi.yaml")] + \
        sorted(glob.glob(str(corpus("neo") / "*.openapi.yaml")))[:3]
    for path in paths:
        cats = _load(path)
        for opts in ({}, {"to": "openwop"}, {"to": "openai", "unlowerable": "keep"},
                     {"subset": True}):
            with_cache = P.project_catalogs(cats, P.ProjectOptions(**opts))
            with monkeypatch.context() as m:
                m.setattr(P, "LowerCache", lambda: None)
                without = P.project_catalogs(cats, P.ProjectOptions(**opts))
            assert with_cache.output_bytes() == without.output_bytes(), (path, opts)
            assert with_cache.report_bytes() == without.report_bytes(), (path, opts)
