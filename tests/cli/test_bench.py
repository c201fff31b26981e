"""The benchmark harness: its generator makes valid, deterministic catalogs; `--quick` runs.

The checks on generated catalogs are independent of the generator's code: they walk the
output with their own recursion, validate schemas against the 2020-12 metaschema with
jsonschema, resolve every ``$ref`` by hand and parse the YAML variant with yaml-rs.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from support.common import REPO

BENCH = REPO / "bench"


def _gen():
    spec = importlib.util.spec_from_file_location("bench_gen_catalog", BENCH / "gen_catalog.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _gen()
N = 120


@pytest.fixture(scope="module")
def catalog() -> dict:
    return json.loads(gen.render("mcp", N, seed=11))


def _nodes(x, path=()):
    """Every (path, dict) inside x, with a hand-written recursion."""
    if isinstance(x, dict):
        yield path, x
        for k, v in x.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _nodes(v, path + (i,))


def _resolve(root: dict, ref: str):
    assert ref.startswith("#/"), ref
    node = root
    for tok in ref[2:].split("/"):
        tok = tok.replace("~1", "/").replace("~0", "~")
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def _object_depth(schema) -> int:
    """Deepest nesting of object schemas (the top object is 1), through arrays and unions."""
    best = 0

    def rec(s, d):
        nonlocal best
        if not isinstance(s, dict):
            return
        if s.get("type") == "object":
            d += 1
            best = max(best, d)
        for k in ("properties", "$defs"):
            for sub in (s.get(k) or {}).values():
                rec(sub, d)
        if isinstance(s.get("items"), dict):
            rec(s["items"], d)
        for k in ("anyOf", "oneOf", "allOf"):
            for sub in s.get(k) or []:
                rec(sub, d)

    rec(schema, 0)
    return best


def test_deterministic_and_prefix_stable():
    a = gen.render("mcp", 40, seed=3)
    assert a == gen.render("mcp", 40, seed=3)
    assert a != gen.render("mcp", 40, seed=4)
    small = json.loads(gen.render("mcp", 10, seed=3))["tools"]
    assert small == json.loads(a)["tools"][:10]
    y = gen.render("openapi", 30, seed=3)
    assert y == gen.render("openapi", 30, seed=3)


def test_cache_file_written_once(tmp_path):
    p = gen.ensure("mcp", 15, 5, tmp_path)
    assert p.parent == tmp_path and p.read_bytes() == gen.render("mcp", 15, 5)
    mtime = p.stat().st_mtime_ns
    assert gen.ensure("mcp", 15, 5, tmp_path) == p and p.stat().st_mtime_ns == mtime
    assert not [x for x in tmp_path.iterdir() if x.name.endswith(".tmp")]


def test_tools_are_valid_and_realistic(catalog):
    from jsonschema import Draft202012Validator

    tools = catalog["tools"]
    assert len(tools) == N
    names = [t["name"] for t in tools]
    assert len(set(names)) == N
    depths = set()
    for t in tools:
        assert 100 <= len(t["description"]) <= 600, t["name"]
        for key in ("inputSchema", "outputSchema"):
            if key not in t:
                continue
            s = t[key]
            Draft202012Validator.check_schema(s)
            assert s["type"] == "object"
            for path, node in _nodes(s):
                # descriptions inside schemas: property-length prose (skip enum/default data)
                if isinstance(node.get("description"), str) and "enum" not in path:
                    assert 20 <= len(node["description"]) <= 200, (t["name"], path)
                ref = node.get("$ref")
                if isinstance(ref, str):
                    assert isinstance(_resolve(s, ref), dict), (t["name"], ref)
        depths.add(_object_depth(t["inputSchema"]))
    assert depths == {2, 3, 4, 5}


def test_catalog_has_every_shape(catalog):
    seen = set()
    recursive = 0
    for t in catalog["tools"]:
        s = t["inputSchema"]
        seen.update(k for k in ("title", "annotations", "outputSchema") if k in t)
        for _path, node in _nodes(s):
            for k in ("enum", "format", "pattern", "minimum", "maxLength", "allOf", "oneOf",
                      "$ref", "title", "additionalProperties", "default"):
                if k in node:
                    seen.add(k)
            if node.get("type") == "array" and isinstance(node.get("items"), dict) \
                    and node["items"].get("type") == "object":
                seen.add("array of objects")
            if any(isinstance(b, dict) and b.get("type") == "null" for b in node.get("anyOf", [])):
                seen.add("anyOf null")
        for name, d in (s.get("$defs") or {}).items():
            if any(n.get("$ref") == f"#/$defs/{name}" for _p, n in _nodes(d)):
                recursive += 1
    want = {"title", "annotations", "outputSchema", "enum", "format", "pattern", "minimum",
            "maxLength", "allOf", "oneOf", "$ref", "additionalProperties", "default",
            "array of objects", "anyOf null"}
    assert want <= seen, want - seen
    assert recursive >= 1


def test_openapi_variant_parses_to_the_same_data():
    import yaml_rs

    n = 25
    text = gen.render("openapi", n, seed=2).decode()
    doc = yaml_rs.loads(text, parse_datetime=False)
    assert doc == json.loads(json.dumps(gen.gen_openapi(n, seed=2)))
    assert doc["openapi"].startswith("3.1")
    ops = [(p, m) for p, item in doc["paths"].items() for m in item]
    assert len(ops) == n
    assert len({item[m]["operationId"] for p, item in doc["paths"].items() for m in item}) == n
    for _path, node in _nodes(doc):
        if isinstance(node.get("$ref"), str):
            assert isinstance(_resolve(doc, node["$ref"]), dict), node["$ref"]


def test_toolcat_loads_the_synthetic_catalog(tmp_path, toolcat):
    p = gen.ensure("mcp", 30, 9, tmp_path)
    r = toolcat("tools", str(p), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    out = json.loads(r.stdout)
    assert [t["id"] for t in out["catalogs"][0]["tools"]] == \
        [t["name"] for t in json.loads(p.read_bytes())["tools"]]


def test_run_quick_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, str(BENCH / "run.py"), "--quick", "--quiet",
                        "--json", str(out), "--cache", str(tmp_path / "cache")],
                       capture_output=True, text=True, timeout=120, cwd=str(REPO))
    assert r.returncode == 0, r.stderr
    assert "issue 7 targets" in r.stdout and "Traceback" not in r.stdout + r.stderr
    doc = json.loads(out.read_text())
    cells = {(c["command"], c["target"]): c for c in doc["cells"]}
    assert cells[("python -c pass", "-")]["status"] == "ok"
    assert cells[("python -c pass", "-")]["median_s"] > 0
    assert cells[("toolcat --version", "-")]["status"] == "ok"
    tools = cells[("tools", "synth-200")]
    assert tools["status"] == "ok" and tools["runs"] >= 1 and tools["rss_kib"] > 0
    for cmd in ("lint", "project", "measure"):  # built or not, each is recorded
        c = cells[(cmd, "synth-200")]
        assert c["status"] == "ok" or c["status"].startswith("failed (exit")
    assert doc["walk"]["iter_schemas"]["ns_per_value"] > 0
    assert doc["walk"]["values"] > doc["walk"]["schema_nodes"] > 0
    assert {c["verdict"] for c in doc["checks"]} <= {"PASS", "FAIL", "n/a"}
    # issue 17: diff-toolids is timed next to `tools`, and its ratio has a verdict
    assert cells[("diff-toolids", "synth-200")]["status"] == "ok"
    toolids = [c for c in doc["checks"] if c["target"].startswith("17: diff-toolids synth-200")]
    assert len(toolids) == 1 and toolids[0]["verdict"] in ("PASS", "FAIL")
    assert toolids[0]["value"] > 0
    assert any(c["target"].startswith("17: project stripe") for c in doc["checks"])
    assert not any(tmp_path.glob("*.tmp")) and not any((tmp_path / "cache").glob(".*tmp"))


_RSS_PROBE = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
import run
run.spawner()                      # as run.main does, before the harness grows
big = bytearray(300 << 20)         # the harness after generating a large catalog
for i in range(0, len(big), 4096):
    big[i] = 1
wall, code, rss, tail, cpu = run.run_once([sys.executable, "-c", "pass"], dict(os.environ), 60, "/")
try:
    run.run_once(["no-such-program-toolcat-bench"], dict(os.environ), 60, "/")
    absent = False
except FileNotFoundError:
    absent = True
print(json.dumps({"code": code, "rss": rss, "absent": absent}))
"""


def test_child_rss_excludes_the_harness_memory():
    """A child's peak RSS is its own: not the 300 MiB the harness holds when it forks (Linux
    keeps the larger of the parent image's and the child's high-water marks across exec)."""
    out = subprocess.run([sys.executable, "-c", _RSS_PROBE, str(BENCH)], capture_output=True,
                         text=True, timeout=120, check=True)
    got = json.loads(out.stdout)
    assert got["code"] == 0 and got["absent"] is True
    assert 0 < got["rss"] < 100 * 1024, got  # KiB: `python -c pass` is ~10 MiB, not >= 300


_PEER_PREP = r"""
import json, os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import run
shared, out = Path(sys.argv[2]), Path(sys.argv[3])
caps = run.captures(shared / "corpus" / "mcp-context-cost")
inputs = run.token_peer_inputs(caps, out / "in")
tk = run.tiktoken_cache(out / "tk", shared)
os.environ["TIKTOKEN_CACHE_DIR"] = str(tk)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "*"
import tiktoken
enc = tiktoken.get_encoding("o200k_base")
one = json.loads(Path(inputs["one"]).read_bytes())["tools"]
servers = json.loads(Path(inputs["servers"]).read_bytes())
folder = sorted(Path(inputs["folder"]).iterdir())
ours = sum(len(enc.encode_ordinary(json.dumps(t, separators=(",", ":"), ensure_ascii=False)))
           for t in servers.values())
print(json.dumps({"captures": len(caps), "one": len(one), "servers": len(servers),
                  "folder": len(folder), "tokens": ours,
                  "published": run.exact_captures_tokens(caps),
                  "tool_count": sum(len(v) for v in servers.values())}))
"""


def test_token_peer_inputs_hold_the_captures_and_the_vocabulary_loads_offline(tmp_path):
    """The token peers get the same 858 tools in their three input forms, and tiktoken loads
    o200k from ../shared/tokenizers (no network): its count of the captures is the published
    total the bench compares everyone with."""
    from support.common import corpus

    mcc = corpus("mcp-context-cost")
    shared = mcc.parent.parent
    out = subprocess.run([sys.executable, "-c", _PEER_PREP, str(BENCH), str(shared),
                          str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout)
    assert got["captures"] == got["servers"] == got["folder"] >= 60
    assert got["one"] == got["tool_count"] > 500
    assert got["tokens"] == got["published"] > 300_000
