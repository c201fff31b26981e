"""Loader acceptance for the tool-array formats: MCP (folder, envelope, JSON-RPC, bare array),
mcp-context-cost captures, OpenWOP, OpenAI, Anthropic; --from, --merge, stdin, and the exact
shape of ``toolcat tools --format json``.

Expected figures are read from the corpus files themselves (file counts, the captures'
``toolCount`` and ``tools[]``), never from toolcat's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.common import corpus, run_toolcat
from toolcat.errors import InputError
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.model import ANTHROPIC, MCP, MCP_CAPTURE, OPENAI, OPENWOP


def compact_len(value) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def write(tmp_path: Path, name: str, data) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return p


def tools_json(*args, input: bytes | None = None) -> dict:
    proc = run_toolcat("tools", "--format", "json", *map(str, args), input=input)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- corpora

def test_github_snapshot_folder_is_one_catalog_of_117_tools():
    folder = corpus("github-mcp-server")
    snaps = sorted(folder.glob("*.snap"))
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in snaps]
    assert len(docs) == 117
    (cat,) = load_catalogs([str(folder)])
    assert cat.format == MCP
    assert len(cat.tools) == 117
    assert sorted(t.id for t in cat.tools) == sorted(d["name"] for d in docs)
    # every tool keeps its own file as its source, with a position
    by_id = {t.id: t for t in cat.tools}
    for p, d in zip(snaps, docs):
        t = by_id[d["name"]]
        assert t.file == str(p)
        assert t.input_schema == d["inputSchema"]
        assert cat.tool_position(t, "/inputSchema")[1] is not None


def test_github_snapshot_folder_json_output():
    folder = corpus("github-mcp-server")
    out = tools_json(folder)
    (c,) = out["catalogs"]
    assert c["file"] == str(folder) and c["format"] == "mcp" and len(c["tools"]) == 117
    docs = {d["name"]: d for d in (json.loads(p.read_text(encoding="utf-8"))
                                   for p in folder.glob("*.snap"))}
    for t in c["tools"]:
        d = docs[t["id"]]
        assert t["parameters"] == len(d["inputSchema"].get("properties", {}))
        assert t["title"] == (d.get("title") or d.get("annotations", {}).get("title"))
        # input and output apart (issue 12 item 12)
        assert t["input_schema_bytes"] == compact_len(d["inputSchema"]), t["id"]
        assert t["output_schema_bytes"] == (compact_len(d["outputSchema"])
                                            if "outputSchema" in d else None), t["id"]


def _captures():
    folder = corpus("mcp-context-cost")
    out = []
    for p in sorted(folder.glob("*.json")):
        out.append((p, json.loads(p.read_text(encoding="utf-8"))))
    return out


def test_every_capture_gives_its_tool_count_and_names():
    caps = _captures()
    measured = [(p, d) for p, d in caps if isinstance(d.get("rawToolsCapture"), list)]
    assert len(measured) == 69
    for p, d in measured:
        (cat,) = load_catalogs([str(p)])
        assert cat.format == MCP_CAPTURE
        assert len(cat.tools) == d["toolCount"], p.name
        assert [t.id for t in cat.tools] == [t["name"] for t in d["tools"]], p.name


def test_capture_without_tools_is_an_error_when_named_and_skipped_in_a_folder():
    caps = _captures()
    empty = [(p, d) for p, d in caps if not isinstance(d.get("rawToolsCapture"), list)]
    assert empty
    for p, d in empty:
        with pytest.raises(InputError) as e:
            load_catalogs([str(p)])
        assert d["status"] in e.value.message and "rawToolsCapture" in e.value.message
    proc = run_toolcat("tools", str(empty[0][0]))
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        f"toolcat: error: {empty[0][0]}: mcp-context-cost capture has no rawToolsCapture "
        f"(status: {empty[0][1]['status']}); nothing to read"]
    folder = corpus("mcp-context-cost")
    cats = load_catalogs([str(folder)])
    assert sorted(Path(c.file).name for c in cats) == sorted(
        p.name for p, d in caps if isinstance(d.get("rawToolsCapture"), list))
    assert sum(len(c.tools) for c in cats) == sum(
        d["toolCount"] for _p, d in caps if isinstance(d.get("rawToolsCapture"), list))


def test_openwop_rfc_examples_load(tmp_path):
    ex = json.loads(corpus("openwop", "rfc-inline-examples.json").read_text(encoding="utf-8"))
    descriptors = [e["descriptor"] for e in ex["toolDescriptor"]]
    for i, desc in enumerate(descriptors):  # one descriptor per file
        (cat,) = load_catalogs([str(write(tmp_path, f"desc{i}.json", desc))])
        assert cat.format == OPENWOP
        assert [t.id for t in cat.tools] == [desc["toolId"]]
        t = cat.tools[0]
        assert t.source == desc.get("source") and t.safety_tier == desc.get("safetyTier")
    # all of them as one bare array, and as {"tools": [...]}
    for name, body in (("array.json", descriptors), ("catalog.json", {"tools": descriptors})):
        (cat,) = load_catalogs([str(write(tmp_path, name, body))])
        assert cat.format == OPENWOP
        assert [t.id for t in cat.tools] == [d["toolId"] for d in descriptors]
    for i, entry in enumerate(ex["compactCatalog"]):
        (cat,) = load_catalogs([str(write(tmp_path, f"compact{i}.json", entry["body"]))])
        assert cat.format == OPENWOP
        assert [t.id for t in cat.tools] == [d["toolId"] for d in entry["body"]["tools"]]
        assert cat.tools[0].input_schema == entry["body"]["tools"][0]["inputSchema"]


# --------------------------------------------------------------------------- hand-written fixtures

WEATHER = {"type": "object", "properties": {"city": {"type": "string"},
                                            "unit": {"enum": ["c", "f"]}},
           "required": ["city"], "additionalProperties": False}
SEARCH = {"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}}


def test_openai_chat_completions_array(tmp_path):
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                                 "parameters": WEATHER, "strict": True}},
             {"type": "function", "function": {"name": "search", "parameters": SEARCH}}]
    (cat,) = load_catalogs([str(write(tmp_path, "chat.json", tools))])
    assert cat.format == OPENAI
    assert [t.id for t in cat.tools] == ["get_weather", "search"]
    assert cat.tools[0].input_schema == WEATHER and cat.tools[0].description == "Weather."
    assert cat.tools[0].extra.get("strict") is True
    # a request body {"model": ..., "tools": [...]} too
    (cat,) = load_catalogs([str(write(tmp_path, "request.json", {"model": "m", "tools": tools}))])
    assert cat.format == OPENAI and len(cat.tools) == 2
    # positions map the canonical /inputSchema to the file's /function/parameters
    t = cat.tools[0]
    assert t.source_pointer("/inputSchema/properties/city") == (
        t.file, "/tools/0/function/parameters/properties/city")
    line, col = cat.locate(*t.source_pointer("/inputSchema/properties/city"))
    text = Path(t.file).read_text().splitlines()[line - 1]
    assert text[col - 1] == "{" and '"city"' in text


def test_openai_responses_flat_array(tmp_path):
    tools = [{"type": "function", "name": "get_weather", "description": "Weather.",
              "parameters": WEATHER, "strict": True},
             {"type": "function", "name": "search", "description": "Search.", "parameters": SEARCH}]
    (cat,) = load_catalogs([str(write(tmp_path, "responses.json", tools))])
    assert cat.format == OPENAI
    assert [t.id for t in cat.tools] == ["get_weather", "search"]
    assert cat.tools[1].input_schema == SEARCH


def test_anthropic_array(tmp_path):
    tools = [{"name": "get_weather", "description": "Weather.", "input_schema": WEATHER},
             {"name": "search", "description": "Search.", "input_schema": SEARCH,
              "cache_control": {"type": "ephemeral"}}]
    (cat,) = load_catalogs([str(write(tmp_path, "anthropic.json", tools))])
    assert cat.format == ANTHROPIC
    assert [t.id for t in cat.tools] == ["get_weather", "search"]
    assert cat.tools[1].extra == {"cache_control": {"type": "ephemeral"}}
    assert cat.tools[0].source_pointer("/inputSchema/required") == (
        cat.tools[0].file, "/0/input_schema/required")


MCP_TOOLS = [{"name": "get_weather", "description": "Weather.", "inputSchema": WEATHER},
             {"name": "search", "title": "Search", "description": "Search.", "inputSchema": SEARCH,
              "annotations": {"readOnlyHint": True}}]


@pytest.mark.parametrize("shape", ["envelope", "jsonrpc", "array", "yaml"])
def test_mcp_shapes(tmp_path, shape):
    if shape == "envelope":
        p = write(tmp_path, "list.json", {"tools": MCP_TOOLS, "nextCursor": "abc"})
    elif shape == "jsonrpc":
        p = write(tmp_path, "rpc.json", {"jsonrpc": "2.0", "id": 1, "result": {"tools": MCP_TOOLS}})
    elif shape == "array":
        p = write(tmp_path, "bare.json", MCP_TOOLS)
    else:
        import yaml_rs  # noqa: F401 - the YAML form of the same list

        p = tmp_path / "list.yaml"
        p.write_text(
            "tools:\n  - name: get_weather\n    description: Weather.\n    inputSchema:\n"
            "      type: object\n      properties:\n        city: {type: string}\n"
            "        unit: {enum: [c, f]}\n      required: [city]\n"
            "      additionalProperties: false\n"
            "  - name: search\n    title: Search\n    description: Search.\n    inputSchema:\n"
            "      type: object\n      properties:\n        q: {type: string, minLength: 1}\n"
            "    annotations:\n      readOnlyHint: true\n")
    (cat,) = load_catalogs([str(p)])
    assert cat.format == MCP
    assert [t.id for t in cat.tools] == ["get_weather", "search"]
    assert [t.input_schema for t in cat.tools] == [WEATHER, SEARCH]
    assert cat.tools[1].title == "Search" and cat.tools[1].annotations == {"readOnlyHint": True}
    # the second tool's inputSchema position is the line of its "inputSchema" value
    _file, line, _col = cat.tool_position(cat.tools[1], "/inputSchema")
    lines = p.read_text().splitlines()
    assert line is not None
    assert any("inputSchema" in lines[i] for i in (line - 2, line - 1)), (line, lines[line - 1])


def test_from_forces_a_format(tmp_path):
    p = write(tmp_path, "names.json", [{"name": "a"}, {"name": "b"}])
    with pytest.raises(InputError, match="not a tool catalog"):
        load_catalogs([str(p)])
    (cat,) = load_catalogs([str(p)], LoadOptions(from_format=MCP))
    assert cat.format == MCP and [t.id for t in cat.tools] == ["a", "b"]
    # detected as MCP by default, read as Anthropic when forced
    q = write(tmp_path, "both.json", [{"name": "x", "description": "d", "input_schema": SEARCH,
                                       "inputSchema": WEATHER}])
    (cat,) = load_catalogs([str(q)], LoadOptions(from_format=ANTHROPIC))
    assert cat.format == ANTHROPIC and cat.tools[0].input_schema == SEARCH
    out = tools_json("--from", "mcp", p)
    assert [t["id"] for t in out["catalogs"][0]["tools"]] == ["a", "b"]
    bad = run_toolcat("tools", "--from", "nonsense", str(p))
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr
    assert len(bad.stderr.decode().splitlines()) == 1


def test_merge_pages(tmp_path):
    p1 = write(tmp_path, "page1.json", {"tools": MCP_TOOLS[:1], "nextCursor": "2"})
    p2 = write(tmp_path, "page2.json", {"jsonrpc": "2.0", "id": 2,
                                        "result": {"tools": MCP_TOOLS[1:]}})
    separate = load_catalogs([str(p1), str(p2)])
    assert [len(c.tools) for c in separate] == [1, 1]
    (merged,) = load_catalogs([str(p1), str(p2)], LoadOptions(merge=True))
    assert [t.id for t in merged.tools] == ["get_weather", "search"]
    assert merged.tools[1].file == str(p2)
    assert merged.tool_position(merged.tools[1], "/inputSchema")[1] is not None
    out = tools_json("--merge", p1, p2)
    assert len(out["catalogs"]) == 1
    assert [t["id"] for t in out["catalogs"][0]["tools"]] == ["get_weather", "search"]
    other = write(tmp_path, "anthropic.json", [{"name": "z", "input_schema": SEARCH}])
    with pytest.raises(InputError, match="one format"):
        load_catalogs([str(p1), str(other)], LoadOptions(merge=True))


def test_stdin():
    data = json.dumps({"tools": MCP_TOOLS}).encode()
    out = tools_json("-", input=data)
    (c,) = out["catalogs"]
    assert c["file"] == "-" and c["format"] == "mcp"
    assert [t["id"] for t in c["tools"]] == ["get_weather", "search"]
    out = tools_json("-", input=b"tools:\n  - name: y\n    inputSchema: {type: object}\n")
    assert [t["id"] for t in out["catalogs"][0]["tools"]] == ["y"]


def test_tools_json_shape_exactly(tmp_path):
    p = write(tmp_path, "list.json", {"tools": MCP_TOOLS + [
        {"name": "out", "inputSchema": {"type": "object"}, "outputSchema": SEARCH}]})
    q = write(tmp_path, "anthropic.json", [{"name": "z", "input_schema": SEARCH}])
    out = tools_json(p, q)
    assert list(out) == ["catalogs"]
    assert [list(c) for c in out["catalogs"]] == [["file", "format", "tools"]] * 2
    assert out["catalogs"][0]["file"] == str(p) and out["catalogs"][1]["format"] == "anthropic"
    expected = [
        {"id": "get_weather", "title": None, "parameters": 2,
         "input_schema_bytes": compact_len(WEATHER), "output_schema_bytes": None},
        {"id": "search", "title": "Search", "parameters": 1,
         "input_schema_bytes": compact_len(SEARCH), "output_schema_bytes": None},
        {"id": "out", "title": None, "parameters": 0,
         "input_schema_bytes": compact_len({"type": "object"}),
         "output_schema_bytes": compact_len(SEARCH)},
    ]
    assert out["catalogs"][0]["tools"] == expected
    for t in out["catalogs"][0]["tools"]:
        assert list(t) == ["id", "title", "parameters", "input_schema_bytes",
                           "output_schema_bytes"]


def test_tools_text_output(tmp_path):
    p = write(tmp_path, "list.json", {"tools": MCP_TOOLS})
    proc = run_toolcat("tools", str(p))
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert str(p) in text and "mcp" in text and "2 tools" in text
    assert "get_weather" in text and "search" in text
    assert "\x1b[" not in text  # NO_COLOR / not a tty: no escape codes


def test_folder_mixing_formats(tmp_path):
    (tmp_path / "snaps").mkdir()
    for t in MCP_TOOLS:
        write(tmp_path / "snaps", f"{t['name']}.snap", t)
    write(tmp_path, "anthropic.json", [{"name": "z", "input_schema": SEARCH}])
    (tmp_path / "notes.json").write_text('{"not": "a catalog"}')
    (tmp_path / "README.md").write_text("# hi\n")
    cats = load_catalogs([str(tmp_path)])
    kinds = sorted((c.format, len(c.tools)) for c in cats)
    assert kinds == [(ANTHROPIC, 1), (MCP, 2)]


def test_jsonrpc_error_response_is_explained(tmp_path):
    p = write(tmp_path, "err.json", {"jsonrpc": "2.0", "id": 1,
                                     "error": {"code": -32601, "message": "Method not found"}})
    with pytest.raises(InputError, match="JSON-RPC error response.*-32601: Method not found"):
        load_catalogs([str(p)])


def test_folder_does_not_follow_links_out_of_it(tmp_path):
    outside = write(tmp_path, "outside.json", {"tools": MCP_TOOLS})
    inside = tmp_path / "folder"
    inside.mkdir()
    write(inside, "own.json", {"tools": MCP_TOOLS[:1]})
    (inside / "link.json").symlink_to(outside)
    cats = load_catalogs([str(inside)])
    assert [Path(c.file).name for c in cats] == ["own.json"]


def test_empty_tool_array_reads_back(tmp_path):
    """A catalog without tools (Adyen's webhook-only notification specs: BalancePlatform*
    Notification-v*.json) projects to `[]` for OpenAI and Anthropic; toolcat reads that back
    (lint --profile, measure, tools) as a catalog of 0 tools, as it reads {"tools": []}, and so
    a docker/mcp-registry tools.json that is `[]` (54 of its 82 today). A folder still skips
    a bare `[]` (nothing says it is a catalog there)."""
    spec = write(tmp_path, "hooks.json", {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                                          "webhooks": {"x": {"post": {"operationId": "onX"}}}})
    for to in ("openai", "anthropic"):
        out = tmp_path / f"{to}.json"
        r = run_toolcat("-q", "project", "--to", to, spec, "-o", out)
        assert r.returncode == 0, r.stderr.decode()
        assert json.loads(out.read_bytes()) == []
        r = run_toolcat("lint", "--profile", to, "--format", "json", out)
        assert r.returncode == 0, r.stderr.decode()
        assert json.loads(r.stdout)["summary"]["tools"] == 0
        r = run_toolcat("measure", "--format", "json", out)
        assert r.returncode == 0, r.stderr.decode()
    docker = write(tmp_path, "tools.json", [])
    (cat,) = tools_json(docker)["catalogs"]
    assert cat["tools"] == []
    folder = tmp_path / "servers"
    folder.mkdir()
    write(folder, "empty.json", [])
    write(folder, "one.json", {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]})
    cats = tools_json(folder)["catalogs"]
    assert [c["file"].rsplit("/", 1)[-1] for c in cats] == ["one.json"]
