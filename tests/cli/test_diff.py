"""`toolcat diff-toolids`: toolId sets, likely renames, source/safetyTier changes, exit codes."""

from __future__ import annotations

import json

import pytest

from support.common import corpus, run_toolcat
from toolcat.features.diff.toolids import Side, diff_sides, likely_renames, rename_reason


def write(tmp_path, name, doc):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def mcp(*names):
    return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}


def openwop(*items):
    return {"tools": [{"toolId": t, "source": s, "safetyTier": z} for t, s, z in items]}


def diff_json(*args):
    r = run_toolcat("diff-toolids", "-f", "json", *args)
    assert r.returncode in (0, 1), r.stderr.decode()
    return r.returncode, json.loads(r.stdout)


# --------------------------------------------------------------------------- core


@pytest.mark.parametrize("a,b,why", [
    ("read", "mcp:fs.read", "namespace prefix"),
    ("mcp:fs.read", "read", "namespace prefix"),
    ("Read", "read", "case"),
    ("mcp:fs.Read", "read", "namespace prefix"),
    ("create_issue", "github__create_issue", "namespace prefix"),
    ("mcp:fs.read", "fs__read", "namespace prefix"),
    ("fs.read", "mcp:fs.read", "namespace prefix"),
])
def test_rename_reasons(a, b, why):
    assert rename_reason(a, b) == why


@pytest.mark.parametrize("a,b", [
    ("read", "write"),
    ("read", "reader"),
    ("read", "thread"),         # a suffix without a separator is no prefix
    ("issue", "get_issue"),     # a single underscore is part of a name
    ("read", "read"),
])
def test_not_renames(a, b):
    assert rename_reason(a, b) is None


def test_renames_are_reported_not_matched():
    a, b = Side("a"), Side("b")
    for i in ("read", "Write", "same"):
        a.add(i)
    for i in ("mcp:fs.read", "write", "same"):
        b.add(i)
    r = diff_sides(a, b)
    assert r.only_in_a == ["Write", "read"] and r.only_in_b == ["mcp:fs.read", "write"]
    assert r.common == 1 and not r.equal
    assert {(x.a, x.b, x.why) for x in r.renames} == {("read", "mcp:fs.read", "namespace prefix"),
                                                     ("Write", "write", "case")}


def test_ambiguous_renames_list_every_candidate():
    got = likely_renames(["read"], ["mcp:a.read", "mcp:b.read", "other"])
    assert sorted(x.b for x in got) == ["mcp:a.read", "mcp:b.read"]


# --------------------------------------------------------------------------- command


def test_equal_catalogs_exit_0(tmp_path):
    a = write(tmp_path, "a.json", mcp("x", "y"))
    b = write(tmp_path, "b.json", {"tools": [{"type": "function", "function": {"name": n}}
                                             for n in ("y", "x")]})  # OpenAI, other order
    code, data = diff_json(a, b)
    assert code == 0
    assert data == {"only_in_a": [], "only_in_b": [], "common": 2, "changed": [],
                    "likely_renames": []}
    r = run_toolcat("diff-toolids", a, b)
    assert r.returncode == 0 and b"common: 2" in r.stdout and b"equal" in r.stdout


def test_json_shape_and_exit_1(tmp_path):
    a = write(tmp_path, "a.json", mcp("read", "Write", "same", "gone"))
    b = write(tmp_path, "b.json", openwop(("mcp:fs.read", "mcp", "read"),
                                          ("write", "mcp", "write"),
                                          ("same", "mcp", "read"), ("new", "mcp", "read")))
    code, data = diff_json(a, b)
    assert code == 1
    assert list(data)[:4] == ["only_in_a", "only_in_b", "common", "changed"]
    assert data["only_in_a"] == ["Write", "gone", "read"]
    assert data["only_in_b"] == ["mcp:fs.read", "new", "write"]
    assert data["common"] == 1
    assert data["changed"] == []  # MCP carries no source/safetyTier: nothing to compare
    assert {(x["a"], x["b"]) for x in data["likely_renames"]} == {("read", "mcp:fs.read"),
                                                                  ("Write", "write")}
    text = run_toolcat("diff-toolids", a, b).stdout.decode()
    assert "likely renames" in text and "read -> mcp:fs.read" in text
    assert "  - gone" in text and "  + new" in text and "common: 1" in text


def test_source_and_safety_tier_changes(tmp_path):
    a = write(tmp_path, "a.json", openwop(("mcp:fs.read", "mcp", "read"),
                                          ("mcp:fs.write", "mcp", "write"),
                                          ("x-host-acme-shell", "host-extension", "exec")))
    b = write(tmp_path, "b.compact.json", openwop(("mcp:fs.read", "mcp", "write"),
                                                  ("mcp:fs.write", "connector", "write"),
                                                  ("x-host-acme-shell", "host-extension",
                                                   "exec")))
    code, data = diff_json(a, b)
    assert code == 1
    assert data["only_in_a"] == [] and data["only_in_b"] == [] and data["common"] == 3
    assert data["changed"] == [
        {"id": "mcp:fs.read", "field": "safetyTier", "a": "read", "b": "write"},
        {"id": "mcp:fs.write", "field": "source", "a": "mcp", "b": "connector"},
    ]
    text = run_toolcat("diff-toolids", a, b).stdout.decode()
    assert "mcp:fs.read: safetyTier 'read' -> 'write'" in text


def test_input_errors_exit_2(tmp_path):
    a = write(tmp_path, "a.json", mcp("x"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for args in ([a, str(tmp_path / "missing.json")], [a, str(bad)], [a, a, "-f", "xml"],
                 [a, a, "--to", "openwop"]):
        r = run_toolcat("diff-toolids", *args)
        assert r.returncode == 2, args
        err = r.stderr.decode().strip()
        assert err.startswith("toolcat: error: ") and "\n" not in err


def test_compares_real_captures(tmp_path):
    f = corpus("mcp-context-cost", "github.json")
    doc = json.loads(f.read_bytes())
    names = [t["name"] for t in doc["rawToolsCapture"]]
    trimmed = dict(doc, rawToolsCapture=doc["rawToolsCapture"][1:])
    b = write(tmp_path, "github.json", trimmed)
    code, data = diff_json(str(f), b)
    assert code == 1
    assert data["only_in_a"] == [names[0]] and data["only_in_b"] == []
    assert data["common"] == len(set(names)) - 1


# --------------------------------------------------------------------------- one catalog


def _some_captures(n=4):
    folder = corpus("mcp-context-cost")
    out = []
    for p in sorted(folder.glob("*.json")):
        doc = json.loads(p.read_bytes())
        if isinstance(doc.get("rawToolsCapture"), list) and doc["rawToolsCapture"]:
            out.append((p, doc))
        if len(out) == n:
            break
    return out


@pytest.mark.parametrize("to", [None, "openwop", "openai"])
def test_single_catalog_projection_is_complete(to):
    for p, doc in _some_captures(3):
        args = ["-f", "json", str(p)] + (["--to", to] if to else [])
        code, data = diff_json(*args)
        assert code == 0, (p.name, data)
        assert data["common"] == len({t["name"] for t in doc["rawToolsCapture"]})
        assert data["only_in_a"] == data["only_in_b"] == data["changed"] == []


def test_single_openwop_catalog_keeps_source_and_tier(tmp_path):
    a = write(tmp_path, "cat.json", {"tools": [
        {"toolId": "mcp:fs.read", "source": "mcp", "safetyTier": "read", "title": "Read file",
         "description": "Read a file. " * 30,
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string",
                                                                   "description": "p"}}},
         "outputSchema": {"type": "string"}, "egress": "none", "approval": "never"},
        {"toolId": "x-host-acme-shell", "source": "host-extension", "safetyTier": "exec"},
    ]})
    r = run_toolcat("diff-toolids", a)
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert b"(standard view, openwop)" in r.stdout and b"common: 2" in r.stdout


def test_mcp_catalog_against_its_openwop_projection_shows_renames(tmp_path):
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats import load_catalogs

    p, doc = _some_captures(1)[0]
    proj = project_catalogs(load_catalogs([str(p)]), ProjectOptions(to="openwop"))
    out = tmp_path / "compact.json"
    out.write_bytes(proj.output_bytes())
    code, data = diff_json(str(p), str(out))
    names = sorted({t["name"] for t in doc["rawToolsCapture"]})
    assert code == 1
    assert data["common"] == 0 and data["only_in_a"] == names
    assert {(x["a"], x["b"]) for x in data["likely_renames"]} == {(n, "mcp:" + n) for n in names}
    # compared within the same target, the ids agree
    code, data = diff_json(str(out), str(out))
    assert code == 0
