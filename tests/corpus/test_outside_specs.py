"""Spec-reading classes (broken $refs, OpenAPI 3.2, path variables, output schemas, ...) on the
real API descriptions of the outside corpus where each class occurs.

The catalogs are listed in ``tests/outside/manifest.toml`` (repository, commit, licence, size,
sha256, facts derived without toolcat) and built into the cache by ``scripts/outside_corpus.py``
(``TOOLCAT_OUTSIDE``, default: the folder ``outside`` next to the repository); every test skips,
saying so, when its catalog is absent. Each command runs in the test
process (support.common.run_toolcat).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from support.common import run_toolcat

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("outside_corpus", REPO / "scripts" / "outside_corpus.py")
oc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oc)

CACHE = Path(os.environ.get("TOOLCAT_OUTSIDE", REPO.parent / "outside")).resolve()
BY_ID = {e["id"]: e for e in oc.load_manifest()}


def catalog(eid: str) -> Path:
    e = BY_ID[eid]
    p = oc.catalog_path(CACHE, e)
    if not p.exists():
        pytest.skip(f"{eid} not in the outside corpus cache {CACHE} (build it: python "
                    f"scripts/outside_corpus.py build --mirrors /work/.mirror --out {CACHE} "
                    f"{eid}; or set TOOLCAT_OUTSIDE)")
    problems = oc._expect(e, oc._cached(CACHE, e, "", e))
    assert not problems, f"{eid}: the cache does not match the manifest: {problems}"
    return p


def toolcat(*args) -> subprocess.CompletedProcess:
    r = run_toolcat(*args, timeout=1800)
    err = r.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]
    return r


# ---------------------------------------------------------------- broken $refs
BROKEN = ["square-connect", "docusign-esignature-v2", "temporal-api-openapiv2"]


@pytest.mark.slow
@pytest.mark.parametrize("eid", BROKEN)
def test_broken_refs_widen_by_default(eid, tmp_path):
    """Every operation is a tool; each tool that reaches a broken $ref is reported widened at
    a pointer, naming one of the refs the manifest lists; the summary counts them."""
    e = BY_ID[eid]
    spec = catalog(eid)
    out, rep = tmp_path / "out.json", tmp_path / "report.json"
    r = toolcat("project", spec, "--view", "standard", "-o", out, "--report", rep)
    err = r.stderr.decode()
    assert r.returncode == 0, err[-2000:]
    assert len(json.loads(out.read_bytes())["tools"]) == e["facts"]["operations"]
    report = json.loads(rep.read_bytes())
    refs = {b["ref"] for b in e["broken_refs"]}
    where = {b["pointer"] for b in e["broken_refs"]}
    widened = {t["id"]: [c for c in t["changes"] if c["kind"] == "widened"]
               for t in report["tools"]}
    affected = {i for i, cs in widened.items() if cs}
    assert affected, "no tool reported widened"
    for cs in widened.values():
        for c in cs:
            assert c["pointer"].startswith(("/inputSchema", "/outputSchema")), c
            assert any(repr(ref) in c["what"] for ref in refs), c
    listed = {b["id"]: b for b in report["broken_refs"]}
    assert set(listed) == affected
    # (a broken ref in a definition no operation uses is lint's SC302 alone)
    reached = {r["pointer"] for b in listed.values() for r in b["refs"]}
    assert reached and reached <= where
    assert f"{len(reached)} $ref" in err and f"{len(affected)} tools widened" in err, err
    # the widened node: the property the broken ref stood for accepts anything now
    doc = json.loads(out.read_bytes())
    tool = next(t for t in doc["tools"] if t["name"] in affected)
    c = widened[tool["name"]][0]
    node = tool
    for part in c["pointer"].strip("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    assert "$ref" not in node


@pytest.mark.slow
@pytest.mark.parametrize("eid", BROKEN)
def test_broken_refs_omit_and_fail(eid, tmp_path):
    e = BY_ID[eid]
    spec = catalog(eid)
    out, rep = tmp_path / "out.json", tmp_path / "report.json"
    r = toolcat("project", spec, "--view", "standard", "--broken-refs", "omit", "-o", out,
                "--report", rep)
    assert r.returncode == 0, r.stderr[-2000:]
    names = {t["name"] for t in json.loads(out.read_bytes())["tools"]}
    left = {b["id"] for b in json.loads(rep.read_bytes())["broken_refs"]}
    assert left and not names & left
    assert len(names) + len(left) == e["facts"]["operations"]
    assert f"{len(left)} tools left out" in r.stderr.decode()
    r = toolcat("project", spec, "--broken-refs", "fail", "-o", tmp_path / "x.json")
    lines = r.stderr.decode().strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "--broken-refs" in lines[0], lines
    assert not (tmp_path / "x.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("eid", BROKEN)
@pytest.mark.parametrize("cmd", [("tools",), ("measure",), ("diff-toolids",)])
def test_broken_refs_other_commands(eid, cmd):
    spec = catalog(eid)
    r = toolcat(*cmd, spec)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "do not resolve" in r.stderr.decode() or "does not resolve" in r.stderr.decode()


# ---------------------------------------------------------------- OpenAPI 3.2
def test_openapi_32_query_and_additional_operations(tmp_path):
    """The OAI repository's 3.2 path item example: get, query and additionalOperations COPY
    are three tools (2 of them vanished when 3.2 was read as 3.1); QUERY is a read."""
    e = BY_ID["oai-3.2-path-item-example"]
    spec = catalog(e["id"])
    r = toolcat("tools", "--format", "json", spec)
    assert r.returncode == 0, r.stderr
    (cat,) = json.loads(r.stdout)["catalogs"]
    assert sorted(t["id"] for t in cat["tools"]) == e["facts"]["operation_id_list"]
    r = toolcat("project", "--to", "openwop", "--view", "standard", spec)
    assert r.returncode == 0, r.stderr
    tiers = {t["toolId"].split(":")[-1]: t["safetyTier"] for t in json.loads(r.stdout)["tools"]}
    assert tiers == {"getPetsById": "read", "queryPetsById": "read", "copyPetsById": "write"}
    # a later version than toolcat knows is read as 3.2 and said, never silent
    later = tmp_path / "later.yaml"
    later.write_bytes(spec.read_bytes().replace(b"openapi: 3.2.0", b"openapi: 3.3.0"))
    r = toolcat("lint", "--format", "json", later)
    assert r.returncode in (0, 1)
    assert [f["code"] for f in json.loads(r.stdout)["findings"] if f["code"] == "TC112"] == ["TC112"]
    r = toolcat("tools", later)
    assert r.returncode == 0 and b"3.3.0" in r.stderr and b"TC112" not in r.stdout


# ---------------------------------------------------------------- path variables
@pytest.mark.parametrize("eid", ["intercom-2.15", "square-connect"])
def test_path_variable_not_in_path_is_an_error(eid):
    """Intercom declares {job_identifier} `in: query`; Square's PUT /v2/vendors/{vendor_id}
    has no parameter for it: no call can fill the URL. TC113 errors name exactly those paths
    (the manifest's, found by a plain walk)."""
    e = BY_ID[eid]
    r = toolcat("lint", "--format", "json", "--select", "TC113", catalog(eid))
    assert r.returncode == 1, r.stderr
    found = json.loads(r.stdout)["findings"]
    assert {f["severity"] for f in found} == {"error"}
    paths = {f["message"].split(" of ", 1)[1].split(" ", 1)[0] for f in found}
    assert paths == set(e["path_variables_not_in_path"])
    assert all(f["line"] for f in found)


# ---------------------------------------------------------------- output schemas
def _nullable_responses(spec: Path) -> set[str]:
    """operationIds whose first 2xx JSON response schema is nullable at its top level
    (following $refs), derived with PyYAML alone."""
    import yaml

    doc = yaml.load(spec.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))

    def follow(x):
        while isinstance(x, dict) and "$ref" in x:
            node = doc
            for part in x["$ref"][2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            x = node
        return x

    out = set()
    for item in doc["paths"].values():
        for m, op in item.items():
            if m not in ("get", "put", "post", "delete", "patch") or not isinstance(op, dict):
                continue
            for code, resp in (op.get("responses") or {}).items():
                if not str(code).startswith("2"):
                    continue
                resp = follow(resp)
                media = next((v for k, v in (resp.get("content") or {}).items()
                              if "json" in k and isinstance(v, dict) and "schema" in v), None)
                if media is None:
                    continue
                s = follow(media["schema"])
                t = s.get("type")
                if s.get("nullable") is True or t == "null" or (isinstance(t, list) and "null" in t):
                    out.add(op["operationId"])
                break
    return out


def test_nullable_responses_are_wrapped_not_narrowed(tmp_path):
    """Intercom: 20 operations whose response may be null. Their MCP outputSchema accepts
    that null (wrapped under `result`, reported `wrapped`), where it was narrowed to an
    object without a report."""
    import jsonschema

    spec = catalog("intercom-2.15")
    want = _nullable_responses(spec)
    assert want
    out, rep = tmp_path / "out.json", tmp_path / "rep.json"
    r = toolcat("project", "--view", "standard", spec, "-o", out, "--report", rep)
    assert r.returncode == 0, r.stderr[-2000:]
    wrapped = {t["id"] for t in json.loads(rep.read_bytes())["tools"] for c in t["changes"]
               if c["kind"] == "wrapped" and c["pointer"] == "/outputSchema"
               and "may also be null" in c["what"]}
    assert wrapped == want
    tools = {t["name"]: t for t in json.loads(out.read_bytes())["tools"]}
    for tid in want:
        s = tools[tid]["outputSchema"]
        jsonschema.validate({"result": None}, s)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"result": 1}, s)


def test_an_object_or_array_response_is_wrapped_not_narrowed(tmp_path):
    """GitHub REST (issue 36 item 4): repos/get-content answers a file object or a directory
    array. Its MCP outputSchema must accept both (the array wrapped under `result`, reported
    `wrapped`), judged by jsonschema on the spec's own four response examples (file,
    directory, symlink, submodule); it was an object-only schema without a report."""
    import jsonschema

    spec = catalog("github-rest-2020")
    doc = json.loads(spec.read_bytes())
    op = doc["paths"]["/repos/{owner}/{repo}/contents/{path}"]["get"]
    refs = op["responses"]["200"]["content"]["application/json"]["examples"]
    examples = {k: doc["components"]["examples"][v["$ref"].rsplit("/", 1)[1]]["value"]
                for k, v in refs.items()}
    assert any(isinstance(v, list) for v in examples.values())
    out, rep = tmp_path / "out.json", tmp_path / "rep.json"
    r = toolcat("project", "--view", "standard", spec, "-o", out, "--report", rep)
    assert r.returncode == 0, r.stderr[-2000:]
    (tool,) = [t for t in json.loads(out.read_bytes())["tools"]
               if t["name"].endswith("get-content") and t["name"].startswith("repos")]
    (ch,) = [c for t in json.loads(rep.read_bytes())["tools"] if t["id"] == tool["name"]
             for c in t["changes"] if c["pointer"] == "/outputSchema" and c["kind"] == "wrapped"]
    assert "array" in ch["what"]
    v = jsonschema.Draft202012Validator(tool["outputSchema"])
    for name, ex in examples.items():
        assert v.is_valid({"result": ex}), name
    assert not v.is_valid({"result": "a string"})


def test_azure_refs_above_the_folder_need_root(tmp_path):
    """Azure resource-manager specs (issue 36 item 2) refer to
    ../../../../../common-types/...: without --root those refs are refused (the error says
    --root; by default the tools are widened there, losing the shared parameters), with
    --root at the specs' tree every tool gets them; the parameters each operation lists
    (its own and the common ones, derived from the files without toolcat) are all there."""
    spec = catalog("azure-insights-workbooks-2020-10-20")
    root = spec.parents[5]
    assert root.name == "specification"
    r = toolcat("tools", "--broken-refs", "fail", spec)
    assert r.returncode == 2 and b"--root" in r.stderr, r.stderr
    doc = json.loads(spec.read_bytes())
    common = json.loads((root / "common-types/resource-management/v1/types.json").read_bytes())

    def name(p):
        if "$ref" in p:
            where, frag = p["$ref"].split("#")
            p = (common if where else doc)["parameters"][frag.rsplit("/", 1)[1]]
        return "body" if p["in"] == "body" else p["name"]    # (a body is toolcat's `body`)

    want = {op["operationId"]: {name(p) for p in op.get("parameters", [])}
            for item in doc["paths"].values() for m, op in item.items() if m != "parameters"}
    out = tmp_path / "out.json"
    r = toolcat("project", "--view", "standard", "--root", root, spec, "-o", out)
    assert r.returncode == 0 and b"do not resolve" not in r.stderr, r.stderr[-2000:]
    got = {t["name"]: set(t["inputSchema"].get("properties", {})) for t in
           json.loads(out.read_bytes())["tools"]}
    assert set(got) == set(want)
    for op, names in want.items():
        assert names <= got[op], (op, names, got[op])
    # without --root (the default, widen): the common parameters are not there
    r = toolcat("project", "--view", "standard", spec, "-o", out)
    assert r.returncode == 0 and b"6 tools widened" in r.stderr, r.stderr
    assert "subscriptionId" not in out.read_text()
