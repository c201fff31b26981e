"""Formats that are not MCP catalogs are not read as MCP ones (issue 12 item 10).

* docker/mcp-registry ``tools.json`` (``[{"name", "description", "arguments": [{"name",
  "type", "desc", "optional", "items"}]}]``) is a format of its own: the arguments become
  the inputSchema. An argument is required unless ``"optional": true``: the registry's Go type
  ``ToolArgument`` has ``Optional bool `json:"optional,omitempty"``` (absent = false), and
  ``internal/mcp/helper.go`` writes ``Optional: !slices.Contains(tool.InputSchema.Required,
  name)`` (docker/mcp-registry @818bf169).
* MCP registry records (``server.json``, the registry's seed arrays) are refused with the
  formats tried; a forced ``--from`` that does not fit the content is an error.
* An MCP tool without inputSchema is an error finding (TC111); ``project`` and ``measure``
  say when a catalog has tools without schemas.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.common import SAMPLES, run_toolcat
from support.outside import outside

DOCKER = [
    {"name": "list_builds", "description": "List builds.",
     "arguments": [{"name": "org", "type": "string", "desc": "Organization slug"},
                   {"name": "per_page", "type": "number", "desc": "Page size", "optional": True},
                   {"name": "branches", "type": "array", "items": {"type": "string"},
                    "desc": "Branches", "optional": True},
                   {"name": "filter", "type": "object", "desc": "", "optional": False}],
     "annotations": {"title": "List builds", "readOnlyHint": True}},
    {"name": "ping", "description": "Check the connection."},   # no arguments: takes none
]


def run_json(*args) -> dict:
    r = run_toolcat(*args)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def write(tmp_path: Path, name: str, doc) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc, indent=2))
    return p


def test_docker_arguments_become_the_input_schema(tmp_path):
    f = write(tmp_path, "tools.json", DOCKER)
    (cat,) = run_json("tools", "--format", "json", f)["catalogs"]
    assert cat["format"] == "docker"
    assert [(t["id"], t["title"], t["parameters"]) for t in cat["tools"]] == [
        ("list_builds", "List builds", 4), ("ping", None, 0)]
    std = run_json("-q", "project", "--view", "standard", f)["tools"]
    assert std[0] == {
        "name": "list_builds", "description": "List builds.",
        "inputSchema": {"type": "object", "properties": {
            "org": {"type": "string", "description": "Organization slug"},
            "per_page": {"type": "number", "description": "Page size"},
            "branches": {"type": "array", "items": {"type": "string"}, "description": "Branches"},
            "filter": {"type": "object"}},
            "required": ["org", "filter"]},
        "annotations": {"title": "List builds", "readOnlyHint": True}}
    assert std[1] == {"name": "ping", "description": "Check the connection.",
                      "inputSchema": {"type": "object", "properties": {}}}
    # the compact view keeps every argument (and measure compares like with like)
    compact = run_json("-q", "project", f)["tools"]
    assert [sorted(t["inputSchema"]["properties"]) for t in compact] == [
        ["branches", "filter", "org", "per_page"], []]
    (m,) = run_json("measure", "-f", "json", f)["catalogs"]
    assert m["bytes_after"] <= m["bytes_before"] and m["tools_without_input_schema"] == 0


def test_docker_findings_point_at_the_argument(tmp_path):
    f = write(tmp_path, "tools.json", DOCKER)
    found = run_json("lint", "--format", "json", f)["findings"]
    (mr,) = [x for x in found if x["code"] == "MR401"]     # `filter` has an empty desc
    lines = f.read_text().splitlines()
    want = 1 + next(i for i, line in enumerate(lines) if '"name": "filter"' in line) - 1
    assert (mr["pointer"], mr["line"]) == ("/inputSchema/properties/filter", want)
    assert not [x for x in found if x["code"] in ("TC111", "CS201")]


def test_registry_records_are_refused_with_the_formats_tried(tmp_path):
    seed = write(tmp_path, "seed.json", [{"name": "io.github.a/b", "description": "d",
                                          "packages": [{"registry_name": "npm", "name": "@a/b"}]}])
    server = write(tmp_path, "server.json", {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json",
        "name": "io.github.a/b", "description": "d", "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": "https://example.test/mcp"}]})
    for f, what in ((seed, "a list of MCP registry server records"),
                    (server, "an MCP registry server record")):
        for cmd in (("tools",), ("lint",), ("measure",), ("project",)):
            r = run_toolcat(*cmd, f)
            err = r.stderr.decode()
            assert r.returncode == 2 and not r.stdout and err.count("\n") == 1, (cmd, err)
            assert err.startswith(f"toolcat: error: {f}: {what}"), err
            assert "(tried: OpenAPI 3.x, Swagger 2.0, MCP tools/list" in err
    # in a folder they are not catalogs: skipped, the tools file next to them is read
    write(tmp_path, "tools.json", DOCKER)
    (cat,) = run_json("tools", "--format", "json", tmp_path)["catalogs"]
    assert cat["file"].endswith("tools.json")


@pytest.mark.parametrize("forced,fixture,message", [
    ("openai", SAMPLES / "git.tools.json", "--from openai: /tools/0 is an MCP tool, not an "
                                           "OpenAI tool"),
    ("anthropic", SAMPLES / "file-system.openai.json", "--from anthropic: /0 is an OpenAI tool"),
    ("swagger", SAMPLES / "petstore.openapi.yaml", "--from swagger: the document has no "
                                                   "'swagger' field (it looks like OpenAPI 3.x)"),
    ("openapi", SAMPLES / "petstore.swagger2.yaml", "--from openapi: the document has no "
                                                    "'openapi' field"),
    ("docker", SAMPLES / "git.tools.json", "--from docker: a docker/mcp-registry tools.json is "
                                           "a JSON array"),
    ("mcp", SAMPLES / "petstore.openapi.yaml", "--from mcp: the document holds no tools array"),
    ("mcp-capture", SAMPLES / "git.tools.json", "--from mcp-capture: the document is not an "
                                                "mcp-context-cost capture"),
])
def test_a_forced_format_that_does_not_fit_is_an_error(forced, fixture, message):
    for cmd in ("tools", "lint", "project", "measure"):
        r = run_toolcat(cmd, "--from", forced, fixture)
        err = r.stderr.decode()
        assert r.returncode == 2 and err.count("\n") == 1, (cmd, err)
        assert err.startswith(f"toolcat: error: {fixture}: {message}"), err


def test_mcp_tools_without_input_schema(tmp_path):
    """Read as MCP (forced), a docker file has tools without inputSchema: an error finding
    each, and project/measure say so."""
    f = write(tmp_path, "tools.json", DOCKER)
    found = run_json("lint", "--from", "mcp", "--format", "json", f)["findings"]
    tc = [(x["tool"], x["severity"]) for x in found if x["code"] == "TC111"]
    assert tc == [("list_builds", "error"), ("ping", "error")]
    r = run_toolcat("project", "--from", "mcp", f, "-o", tmp_path / "out.json",
                    "--report", tmp_path / "report.json")
    assert r.returncode == 0
    assert ("2 of 2 tools have no input schema (list_builds, ping): the compact view gives them "
            '{"type": "object", "properties": {}}') in r.stderr.decode()
    assert json.loads((tmp_path / "report.json").read_text())["without_input_schema"] == [
        "list_builds", "ping"]
    r = run_toolcat("measure", "--from", "mcp", "-f", "json", f)
    assert json.loads(r.stdout)["catalogs"][0]["tools_without_input_schema"] == 2
    assert f"toolcat: note: {f}: 2 of 2 tools have no input schema" in r.stderr.decode()
    # an MCP catalog where one tool has a schema and one has none
    mix = write(tmp_path, "mix.json", {"tools": [
        {"name": "a", "description": "x", "inputSchema": {"type": "object"}},
        {"name": "b", "description": "y"}]})
    found = run_json("lint", "--format", "json", mix)["findings"]
    assert [x["tool"] for x in found if x["code"] == "TC111"] == ["b"]
    # Anthropic requires input_schema too
    anth = write(tmp_path, "a.json", [{"name": "a", "description": "x",
                                       "input_schema": {"type": "object"}},
                                      {"name": "b", "description": "y", "input_schema": None}])
    found = run_json("lint", "--from", "anthropic", "--format", "json", anth)["findings"]
    assert [(x["tool"], x["message"][:28]) for x in found if x["code"] == "TC111"] == [
        ("b", "tool has no input_schema (re")]


@pytest.mark.parametrize("eid", ["docker-keboola-mcp", "docker-buildkite",
                                 "docker-maestro-mcp-server", "docker-zscaler-mcp-server"])
def test_real_docker_tools_json(eid):
    """The outside corpus's docker/mcp-registry files: every argument is a property with the
    file's type, items and desc, required exactly when not `optional: true` (read here with
    json, not toolcat)."""
    f = outside(eid)
    src = json.loads(f.read_bytes())
    std = run_json("-q", "project", "--view", "standard", f)["tools"]
    assert [t["name"] for t in std] == [t["name"] for t in src]
    for tool, out in zip(src, std, strict=True):
        args = tool.get("arguments") or []
        schema = out["inputSchema"]
        assert schema["type"] == "object"
        assert list(schema["properties"]) == [a["name"] for a in args]
        assert schema.get("required", []) == [a["name"] for a in args
                                              if a.get("optional") is not True]
        for a in args:
            p = schema["properties"][a["name"]]
            assert p.get("type") == a["type"]
            assert p.get("description") == (a["desc"] or None)
            if "items" in a:
                assert p["items"] == a["items"]
        assert out.get("annotations") == tool.get("annotations")
    found = run_json("lint", "--format", "json", f)["findings"]
    assert not [x for x in found if x["code"] in ("TC111", "CS201")]
