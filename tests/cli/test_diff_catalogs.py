"""`toolcat diff OLD NEW` (issue 16): one case per item of the issue (kinds and exit codes),
the formats, --fail-on / --ignore / --ignore-file / --ids-only, input errors, and the witness
replay: every breaking finding on the real version pairs of the corpus (and the README's
sample pair) carries a witness that jsonschema finds valid for OLD and invalid for NEW
(outputs: valid for NEW, invalid for OLD), checked here against the schemas as loaded,
independently of toolcat's own checker."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry
from referencing.exceptions import NoSuchResource

from support.common import SAMPLES, corpus, run_toolcat

OBJ = lambda props, req=(), **kw: {"type": "object", "properties": props,  # noqa: E731
                                   **({"required": list(req)} if req else {}), **kw}
S = {"type": "string"}


def tool(name, schema, **kw):
    return {"name": name, "description": kw.pop("description", f"{name} tool"),
            "inputSchema": schema, **kw}


# (old inputSchema, new inputSchema, expected verdict for tool "t")
SCHEMA_CASES = {
    "new-required-param": (OBJ({"q": S}), OBJ({"q": S, "n": {"type": "integer"}}, ["n"]),
                           "breaking"),
    "optional-made-required": (OBJ({"q": S}), OBJ({"q": S}, ["q"]), "breaking"),
    "param-removed-closed": (OBJ({"q": S, "x": S}, additionalProperties=False),
                             OBJ({"q": S}, additionalProperties=False), "breaking"),
    "type-narrowed": (OBJ({"q": {"type": ["string", "integer"]}}), OBJ({"q": S}), "breaking"),
    "enum-value-removed": (OBJ({"c": {"enum": ["a", "b"]}}), OBJ({"c": {"enum": ["a"]}}),
                           "breaking"),
    "minLength-raised": (OBJ({"q": {"type": "string", "minLength": 1}}),
                         OBJ({"q": {"type": "string", "minLength": 3}}), "breaking"),
    "maximum-lowered": (OBJ({"n": {"type": "integer", "maximum": 100}}),
                        OBJ({"n": {"type": "integer", "maximum": 50}}), "breaking"),
    "pattern-added": (OBJ({"q": S}), OBJ({"q": {"type": "string", "pattern": "^[a-z]+$"}}),
                      "breaking"),
    "additionalProperties-closed": (OBJ({"q": S}), OBJ({"q": S}, additionalProperties=False),
                                    "breaking"),
    "not-widened": (OBJ({"q": {"not": {"const": "x"}}}), OBJ({"q": {"not": {"enum": ["x", "y"]}}}),
                    "breaking"),
    "new-optional-param": (OBJ({"q": S}), OBJ({"q": S, "n": {"type": "integer"}}),
                           "non-breaking"),
    "enum-value-added": (OBJ({"c": {"enum": ["a"]}}), OBJ({"c": {"enum": ["a", "b"]}}),
                         "non-breaking"),
    "bound-relaxed": (OBJ({"q": {"type": "string", "maxLength": 10}}),
                      OBJ({"q": {"type": "string", "maxLength": 20}}), "non-breaking"),
    "required-dropped": (OBJ({"q": S}, ["q"]), OBJ({"q": S}), "non-breaking"),
    "enum-to-const": (OBJ({"c": {"type": "string", "enum": ["a"]}}), OBJ({"c": {"const": "a"}}),
                      "none"),
    "moved-into-ref": (OBJ({"u": OBJ({"id": S}, ["id"])}),
                       {**OBJ({"u": {"$ref": "#/$defs/U"}}), "$defs": {"U": OBJ({"id": S}, ["id"])}},
                       "none"),
    "split-into-allOf": (OBJ({"q": {"type": "string", "minLength": 2}}),
                         OBJ({"q": {"allOf": [{"type": "string"}, {"minLength": 2}]}}), "none"),
    "reordered": (OBJ({"a": S, "b": S}, ["a", "b"]), OBJ({"b": S, "a": S}, ["b", "a"]), "none"),
    "prose-only": (OBJ({"q": {**S, "description": "the query"}}),
                   OBJ({"q": {**S, "description": "what to search for", "title": "Q"}}),
                   "behavioural"),
    "pattern-changed": (OBJ({"q": {"type": "string", "pattern": "^[a-z]+$"}}),
                        OBJ({"q": {"type": "string", "pattern": "^[a-z0-9]+$"}}), "unknown"),
}
# the exit code of each verdict under each --fail-on
EXIT = {
    "breaking": {"breaking": 1, "unknown": 1, "behavioural": 1, "any": 1},
    "unknown": {"breaking": 0, "unknown": 1, "behavioural": 1, "any": 1},
    "behavioural": {"breaking": 0, "unknown": 0, "behavioural": 1, "any": 1},
    "non-breaking": {"breaking": 0, "unknown": 0, "behavioural": 0, "any": 1},
    "none": {"breaking": 0, "unknown": 0, "behavioural": 0, "any": 0},
}


def write(tmp_path, name, tools):
    p = tmp_path / name
    p.write_text(json.dumps({"tools": tools}, indent=1))
    return p


def diff_json(old, new, *args, codes=(0, 1)):
    r = run_toolcat("diff", "-f", "json", *args, old, new)
    assert r.returncode in codes, r.stderr.decode()
    assert not r.stderr, r.stderr.decode()
    return r.returncode, json.loads(r.stdout)


def verdict(doc: dict) -> str:
    kinds = {f["kind"] for t in doc["tools"] for f in t["findings"]}
    for k in ("breaking", "unknown", "behavioural", "non-breaking"):
        if k in kinds:
            return k
    return "none"


@pytest.mark.parametrize("name", sorted(SCHEMA_CASES))
def test_schema_change_kinds_and_exit_codes(name, tmp_path):
    old_s, new_s, want = SCHEMA_CASES[name]
    old = write(tmp_path, "old.json", [tool("t", old_s)])
    new = write(tmp_path, "new.json", [tool("t", new_s)])
    code, doc = diff_json(old, new)
    assert verdict(doc) == want, doc["tools"]
    assert doc["summary"]["unchanged"] == (1 if want == "none" else 0)
    assert code == EXIT[want]["breaking"]
    # the other --fail-on levels, in-process (the CLI's exit is the report's exit_code)
    from toolcat.features.diff.catalog import diff_catalogs
    from toolcat.formats import load_catalogs

    rep = diff_catalogs(load_catalogs([str(old)]), load_catalogs([str(new)]), "old", "new")
    assert {k: rep.exit_code(k) for k in EXIT[want]} == EXIT[want]
    for f in (f for t in doc["tools"] for f in t["findings"]):
        assert f["pointer"].startswith("/inputSchema"), f
        if f["kind"] == "breaking":
            assert f["witness_of"] == "input" and "witness" in f
            assert _valid(old_s, f["witness"]) and not _valid(new_s, f["witness"]), f
        if f["kind"] == "unknown":
            assert f.get("reason"), f


def test_pattern_change_says_why_it_is_unknown(tmp_path):
    old_s, new_s, _ = SCHEMA_CASES["pattern-changed"]
    old = write(tmp_path, "old.json", [tool("t", old_s)])
    new = write(tmp_path, "new.json", [tool("t", new_s)])
    r = run_toolcat("diff", old, new)
    out = r.stdout.decode()
    assert r.returncode == 0
    assert "UNKNOWN" in out and "/inputSchema/properties/q/pattern" in out and "why unknown" in out


def test_tools_removed_renamed_added(tmp_path):
    old = write(tmp_path, "old.json", [
        tool("gone", OBJ({})),
        tool("search", OBJ({"q": S})),                           # renamed, same schema
        tool("fs_read", OBJ({"path": S}, ["path"])),             # renamed by a namespace prefix
    ])
    new = write(tmp_path, "new.json", [
        tool("brave_search", OBJ({"q": S})),
        tool("mcp:fs_read", OBJ({"path": S, "n": {"type": "integer"}}, ["path", "n"])),
        tool("fresh", OBJ({"x": S})),
    ])
    code, doc = diff_json(old, new)
    assert code == 1
    by = {(t["old_id"], t["new_id"]): t for t in doc["tools"]}
    assert by[("gone", None)]["status"] == "removed"
    assert by[(None, "fresh")]["status"] == "added"
    assert by[(None, "fresh")]["findings"][0]["kind"] == "non-breaking"
    ren = by[("search", "brave_search")]
    assert ren["status"] == "renamed"
    assert ren["findings"][0]["kind"] == "breaking"
    assert "same schemas under a new name" in ren["findings"][0]["what"]
    pref = by[("fs_read", "mcp:fs_read")]
    assert pref["status"] == "renamed" and "namespace prefix" in pref["findings"][0]["what"]
    assert "schemas differ too" in pref["findings"][0]["what"]
    # the schema change of the renamed tool is reported too, with its witness
    assert any(f["kind"] == "breaking" and f["witness"] == {"path": "a"}
               or f["kind"] == "breaking" and "n" not in f.get("witness", {"n": 0})
               for f in pref["findings"][1:]), pref["findings"]


def test_two_removed_tools_without_parameters_are_no_rename(tmp_path):
    """Tools that share a trivial schema (no parameters) are not paired by it."""
    old = write(tmp_path, "old.json", [tool("ping", OBJ({}))])
    new = write(tmp_path, "new.json", [tool("version", OBJ({}))])
    code, doc = diff_json(old, new)
    assert {t["status"] for t in doc["tools"]} == {"removed", "added"}


def test_behavioural_changes_and_escalation_first(tmp_path):
    old = write(tmp_path, "old.json", [
        tool("a", OBJ({}), description="Reads a file."),
        tool("b", OBJ({}), annotations={"destructiveHint": False, "readOnlyHint": False}),
    ])
    new = write(tmp_path, "new.json", [
        tool("a", OBJ({}), description="Reads or deletes a file."),
        tool("b", OBJ({}), annotations={"destructiveHint": True, "readOnlyHint": False}),
    ])
    code, doc = diff_json(old, new)
    assert code == 0 and verdict(doc) == "behavioural"
    # the tool that became destructive comes first, its finding marked as a priority
    assert doc["tools"][0]["tool"] == "b"
    assert "now destructive" in doc["tools"][0]["findings"][0]["what"]
    r = run_toolcat("diff", old, new)
    lines = r.stdout.decode().splitlines()
    assert lines[2].startswith("attention: b: now destructive"), lines[:4]
    assert run_toolcat("diff", "--fail-on", "behavioural", old, new).returncode == 1


def test_output_schema_changes_are_judged_the_other_way(tmp_path):
    old = write(tmp_path, "old.json", [
        tool("a", OBJ({}), outputSchema=OBJ({"id": S}, ["id"])),
        tool("b", OBJ({}), outputSchema=OBJ({"id": S})),
    ])
    new = write(tmp_path, "new.json", [
        tool("a", OBJ({}), outputSchema=OBJ({"id": S})),                # no longer guaranteed
        tool("b", OBJ({}), outputSchema=OBJ({"id": S}, ["id"])),        # now guaranteed
    ])
    code, doc = diff_json(old, new)
    by = {t["tool"]: t["findings"] for t in doc["tools"]}
    assert code == 1
    [fa] = by["a"]
    assert fa["kind"] == "breaking" and fa["area"] == "output" and fa["witness_of"] == "output"
    old_out, new_out = OBJ({"id": S}, ["id"]), OBJ({"id": S})
    assert _valid(new_out, fa["witness"]) and not _valid(old_out, fa["witness"])
    assert [f["kind"] for f in by["b"]] == ["non-breaking"]


# --------------------------------------------------------------------------- formats, options

@pytest.fixture()
def pair(tmp_path):
    old = write(tmp_path, "old.json", [
        tool("search", OBJ({"q": {"type": "string", "minLength": 1}})),
        tool("get", OBJ({"id": S}, ["id"]), description="Gets it."),
        tool("gone", OBJ({})),
    ])
    new = write(tmp_path, "new.json", [
        tool("search", OBJ({"q": {"type": "string", "minLength": 3}, "n": {"type": "integer"}})),
        tool("get", OBJ({"id": S}, ["id"]), description="Gets it, or fails."),
    ])
    return old, new


def test_text_groups_by_tool_breaking_first(pair):
    old, new = pair
    r = run_toolcat("diff", old, new)
    assert r.returncode == 1 and not r.stderr
    out = r.stdout.decode()
    assert out.index("gone  (removed)") < out.index("get  (changed)")
    assert out.index("search  (changed)") < out.index("get  (changed)")
    assert "witness {\"q\":\"a\"}: OLD accepts it, NEW rejects it" in out
    assert out.rstrip().endswith("2 breaking, 0 unknown, 1 behavioural, 1 non-breaking; "
                                 "2 changed, 1 removed; 0 unchanged")


def test_json_findings_have_pointers_into_both_files(pair):
    old, new = pair
    code, doc = diff_json(old, new)
    assert code == 1 and doc["summary"]["exit_code"] == 1
    f = next(f for t in doc["tools"] if t["tool"] == "search" for f in t["findings"]
             if f["kind"] == "breaking")
    assert f["pointer"] == "/inputSchema/properties/q/minLength"
    assert f["old"]["file"] == str(old) and f["new"]["file"] == str(new)
    assert f["old"]["line"] > 0 and f["new"]["line"] > 0
    assert f["ignore"] == "search:/inputSchema/properties/q/minLength"


def test_markdown_and_github(pair):
    old, new = pair
    md = run_toolcat("diff", "-f", "markdown", old, new)
    assert md.returncode == 1
    text = md.stdout.decode()
    assert text.startswith("### toolcat diff: breaking changes")
    assert "| **breaking** | `search` |" in text and "witness: `{\"q\":\"a\"}`" in text
    gh = run_toolcat("diff", "-f", "github", old, new)
    assert gh.returncode == 1
    lines = gh.stdout.decode().splitlines()
    assert any(x.startswith(f"::error file={new},line=") and "search" in x for x in lines)
    assert any(x.startswith(f"::error file={old},line=") and "gone" in x for x in lines)
    assert all(x.startswith(("::error ", "::warning ", "::notice ")) for x in lines), lines


def test_markdown_cells_carry_no_markup_from_the_input(tmp_path):
    """Names and values from the catalogs cannot break the table or inject HTML/links; the
    names toolcat quotes are code spans."""
    name = "a|b<img src=x>`[l](http://x)"
    old = write(tmp_path, "old.json", [tool("t|<b>", OBJ({name: {"type": "string"}}))])
    new = write(tmp_path, "new.json", [tool("t|<b>", OBJ({name: {"type": "string",
                                                               "minLength": 2}}))])
    r = run_toolcat("diff", "-f", "markdown", old, new)
    assert r.returncode == 1
    from markdown_it import MarkdownIt  # rich's Markdown parser (CommonMark + GFM tables)

    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(r.stdout.decode())
    rows = [x for x in html.split("<tr>")[2:]]           # after the header row
    assert rows and all(x.count("<td>") == 4 for x in rows), html   # no cell split by a pipe
    assert "<img" not in html and "<b>" not in html and "<a " not in html, html
    assert "<code>a|b&lt;img src=x&gt;" in html           # the name, a code span, verbatim


def test_ignore_by_tool_and_pointer(pair, tmp_path):
    old, new = pair
    code, doc = diff_json(old, new, "--ignore", "gone",
                          "--ignore", "search:/inputSchema/properties/q/minLength")
    assert code == 0, doc
    assert doc["summary"]["breaking"] == 0 and doc["summary"]["ignored"] == 2
    ign = tmp_path / "accepted.txt"
    ign.write_text("# accepted for 2.0\ngone\nsearch:/inputSchema/properties/q   # below it\n")
    code, doc = diff_json(old, new, "--ignore-file", ign)
    assert code == 0 and doc["summary"]["breaking"] == 0
    assert doc["summary"]["non-breaking"] == 1     # the new property `n` is not below it
    code, doc = diff_json(old, new, "--ignore", "search:/inputSchema/properties/other")
    assert code == 1 and doc["summary"]["breaking"] == 2


def test_ids_only_is_diff_toolids(pair):
    old, new = pair
    a = run_toolcat("diff", "--ids-only", "-f", "json", old, new)
    b = run_toolcat("diff-toolids", "-f", "json", old, new)
    assert a.returncode == b.returncode == 1
    assert a.stdout == b.stdout


def test_unchanged_catalogs_exit_0(tmp_path):
    p = SAMPLES / "git.tools.json"
    r = run_toolcat("diff", "--fail-on", "any", p, p)
    assert r.returncode == 0, r.stdout.decode()
    assert "0 breaking, 0 unknown, 0 behavioural, 0 non-breaking; 12 unchanged" in r.stdout.decode()


@pytest.mark.parametrize("args,needle", [
    (["--format", "xml"], "--format"),
    (["--fail-on", "nothing"], "--fail-on"),
    (["--ignore", ":/inputSchema"], "--ignore"),
    (["--ids-only", "-f", "markdown"], "--ids-only"),
    (["--max-checks", "0"], "--max-checks"),
    (["--max-checks-total", "-5"], "--max-checks-total"),
])
def test_usage_errors_exit_2(args, needle, pair):
    old, new = pair
    r = run_toolcat("diff", *args, old, new)
    assert r.returncode == 2
    line = r.stderr.decode()
    assert line.startswith("toolcat: error:") and needle in line and line.count("\n") == 1
    assert not r.stdout


def test_input_errors_exit_2(pair, tmp_path):
    old, new = pair
    r = run_toolcat("diff", "-", "-", input=b"{}")
    assert r.returncode == 2 and b"stdin" in r.stderr
    missing = tmp_path / "nope.txt"
    r = run_toolcat("diff", "--ignore-file", missing, old, new)
    assert r.returncode == 2 and r.stderr.decode().startswith(f"toolcat: error: {missing}")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe")
    r = run_toolcat("diff", "--ignore-file", bad, old, new)
    assert r.returncode == 2 and b"UTF-8" in r.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [')
    r = run_toolcat("diff", old, broken)
    assert r.returncode == 2 and r.stderr.decode().startswith(f"toolcat: error: {broken}:")
    assert not r.stdout


def test_stdin_as_one_side(pair):
    old, new = pair
    r = run_toolcat("diff", "-f", "json", "-", new, input=old.read_bytes())
    assert r.returncode == 1, r.stderr.decode()
    assert json.loads(r.stdout)["summary"]["breaking"] == 2


# --------------------------------------------------------------------------- witness replay

_DIALECTS = {"draft4": jsonschema.Draft4Validator, "draft6": jsonschema.Draft6Validator,
             "draft7": jsonschema.Draft7Validator, "2019-09": jsonschema.Draft201909Validator,
             "2020-12": jsonschema.Draft202012Validator}


def _refuse(uri):
    raise NoSuchResource(ref=uri)


def _valid(schema, instance, dialect="2020-12"):
    if schema is None:
        schema = True
    cls = (jsonschema.validators.validator_for(schema, default=_DIALECTS[dialect])
           if isinstance(schema, dict) else _DIALECTS[dialect])
    return cls(schema, registry=Registry(retrieve=_refuse)).is_valid(instance)


def _tools(path):
    from toolcat.formats import load_catalogs

    return {t.id: t for c in load_catalogs([str(path)]) for t in c.tools}


def replay(old, new) -> int:
    """Replays every breaking finding's witness; returns how many were checked."""
    _, doc = diff_json(old, new, "--fail-on", "any")
    ta, tb = _tools(old), _tools(new)
    n = 0
    for t in doc["tools"]:
        for f in t["findings"]:
            if f["kind"] != "breaking" or f["area"] not in ("input", "output"):
                continue
            assert "witness" in f, f
            a, b = ta[t["old_id"]], tb[t["new_id"]]
            w = f["witness"]
            if f["area"] == "input":
                ok = _valid(a.input_schema, w, a.dialect) and not _valid(b.input_schema, w, b.dialect)
            else:
                ok = (_valid(b.output_schema, w, b.dialect)
                      and not _valid(a.output_schema, w, a.dialect))
            assert ok, (t["tool"], f)
            n += 1
    return n


def test_witnesses_replay_on_the_readme_sample_pair():
    assert replay(SAMPLES / "git.tools.json", SAMPLES / "git.v2.tools.json") == 4


@pytest.mark.parametrize("name", ["github", "brave-search"])
def test_witnesses_replay_on_real_version_pairs(name):
    folder = corpus("mcp-context-cost")
    assert replay(folder / f"{name}-legacy.json", folder / f"{name}.json") > 0


@pytest.mark.parametrize("name, failed", [("redis", "redis-legacy.json"),
                                          ("slack", "slack.json")])
def test_real_pairs_with_a_failed_capture_are_one_input_error(name, failed):
    """The corpus's other two version pairs (issue 16): one side of each is a capture of a
    server that failed to start (no tools/list to compare). `diff` says which, in one line,
    exit 2; the other side is a catalog that loads."""
    from toolcat.formats import load_catalogs

    folder = corpus("mcp-context-cost")
    old, new = folder / f"{name}-legacy.json", folder / f"{name}.json"
    assert json.loads((folder / failed).read_text())["status"] == "startup-failure"
    other = old if failed != old.name else new
    assert load_catalogs([str(other)])[0].tools
    r = run_toolcat("diff", old, new)
    err = r.stderr.decode()
    assert r.returncode == 2 and not r.stdout and err.count("\n") == 1, err
    assert err.startswith(f"toolcat: error: {folder / failed}:") and "startup-failure" in err


# --------------------------------------------------------------------------- hostile pairs

def _ref_bomb(levels: int, leaf: dict, required: bool) -> dict:
    """A schema whose expansion has 2**levels leaves (every level references the one below
    twice); ``required``: both references required, so an instance of it is as large."""
    defs: dict = {"A0": leaf}
    for n in range(1, levels + 1):
        defs[f"A{n}"] = {"type": "object",
                         "properties": {f"p{k}": {"$ref": f"#/$defs/A{n - 1}"} for k in range(2)},
                         **({"required": ["p0", "p1"]} if required else {})}
    schema = {"type": "object", "properties": {"q": {"$ref": f"#/$defs/A{levels}"}},
              "required": ["q"], "$defs": defs}
    return {"tools": [{"name": "explode", "description": "A schema that explodes.",
                       "inputSchema": schema,
                       "outputSchema": {"$ref": f"#/$defs/A{levels}", "$defs": defs}}]}


@pytest.mark.parametrize("required", [False, True])
def test_ref_bombs_that_differ_at_the_bottom_stay_bounded(required, tmp_path):
    """The change is 40 references deep, under 2**40 paths: diff answers (a breaking witness
    or unknown, never 'compatible'), in bounded time and memory, without expanding it."""
    from support.fuzz_support import check_outcome, run_child

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_ref_bomb(40, {"type": "string"}, required)))
    new.write_text(json.dumps(_ref_bomb(40, {"type": "string", "maxLength": 3}, required)))
    r = run_child(["diff", "-f", "json", old, new])
    check_outcome(r, cpu_limit=10.0)
    assert r.maxrss_mb < 500, r.describe()
    doc = json.loads(r.out)
    kinds = {f["kind"] for t in doc["tools"] for f in t["findings"]}
    assert kinds and kinds <= {"breaking", "unknown"}, kinds
    assert len(r.out) < 200_000
    assert "recursive" not in r.out.decode()      # a deep DAG is not a recursive schema


@pytest.mark.parametrize("name", ["file-system", "github-workflow", "knowledge-base",
                                  "memory-core", "neural-link"])
def test_witnesses_replay_on_dated_neo_snapshots(name):
    """neo's 2026-04-12 snapshot of each MCP server's OpenAPI contract against the later one."""
    folder = corpus("neo")
    n = replay(folder / "snapshot-2026-04-12" / f"{name}.openapi.yaml",
               folder / f"{name}.openapi.yaml")
    assert n >= (1 if name == "neural-link" else 0)   # the others: removals only, or none


# ------------------------------------------------------------------ the check budget

RECURSIVE = Path(__file__).parent.parent / "fixtures" / "diff"


def test_recursive_anchor_pair_finishes_within_the_budget():
    """A generated pair (the fuzz grammar's recursive `$ref: "#"`/`$anchor` shapes under
    unions, `if` and `not`; seed 21 of the generated-pairs sweep) ran 80 s of CPU in
    witness search and the prose walk (and could raise a Rust panic from rpds). Now it is
    bounded by counting: the checks left undone are unknown, and say why."""
    from support.fuzz_support import check_outcome, run_child

    old, new = RECURSIVE / "recursive-old.json", RECURSIVE / "recursive-new.json"
    r = run_child(["diff", "-f", "json", old, new])
    check_outcome(r, cpu_limit=20.0)
    assert r.code == 0 and r.err == b"", r.describe()     # no panic message either
    doc = json.loads(r.out)
    fs = [f for t in doc["tools"] for f in t["findings"]]
    schema = [f for f in fs if f["area"] in ("input", "output")]
    assert schema and all(f["kind"] in ("breaking", "unknown", "non-breaking") for f in schema)
    assert all("witness" in f for f in schema if f["kind"] == "breaking")
    undone = [f for f in schema if "budget ran out" in f.get("reason", "")]
    assert undone and all("--max-checks" in f["reason"] for f in undone)
    assert len(r.out) < 200_000        # the prose of a recursive schema is walked once


def _schema_verdicts(doc):
    return {(t["tool"], f["pointer"]): f["kind"] for t in doc["tools"] for f in t["findings"]
            if f["area"] in ("input", "output")}


@pytest.mark.parametrize("option", ["--max-checks", "--max-checks-total"])
def test_a_small_budget_turns_witnesses_into_unknowns_never_into_compatible(option):
    old, new = SAMPLES / "git.tools.json", SAMPLES / "git.v2.tools.json"
    _, full = diff_json(old, new)
    _, small = diff_json(old, new, option, "1")
    a, b = _schema_verdicts(full), _schema_verdicts(small)
    assert a.keys() == b.keys() and "breaking" in a.values()
    for k, kind in a.items():
        if kind == "breaking":
            assert b[k] == "unknown", (k, b[k])
        else:
            assert b[k] == kind, (k, b[k])
    reasons = [f["reason"] for t in small["tools"] for f in t["findings"]
               if f["kind"] == "unknown" and f["area"] in ("input", "output")]
    assert reasons and all(f"raise it with {option}" in r for r in reasons)
    # counted, not timed: the same budget gives the same report
    assert diff_json(old, new, option, "1")[1] == small



def test_readme_states_the_budget_defaults():
    from support.common import REPO
    from toolcat.features.diff import MAX_CHECKS, MAX_CHECKS_TOTAL

    text = " ".join((REPO / "README.md").read_text().split())
    assert "`--max-checks N` jsonschema steps" in text
    assert f"per tool (default {MAX_CHECKS:,})" in text
    assert f"for the whole diff (default {MAX_CHECKS_TOTAL:,})" in text
