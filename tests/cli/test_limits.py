"""Resource limits with clear errors, through every command, in fresh processes.

* file size: the default 64 MiB and ``--max-file-size`` (every command has the option);
* nesting depth (default 256 levels), JSON and YAML;
* YAML alias expansion (a "billion laughs" file);
* ``$ref`` expansion: a spec whose dereferenced size explodes (40 levels of
  ``A_n: {properties: {a: $ref A_n-1, b: $ref A_n-1}}``, 2^40 nodes if expanded).

The first three end with one ``toolcat: error:`` line and exit 2. The ``$ref`` bomb is no
error: toolcat never dereferences a whole document (tools, lint and measure keep references,
the MCP target keeps ``$defs`` + ``$ref``). The OpenWOP target must inline references to reach
the RFC 0112 compact subset: there, inlining stops at a size budget (50 x the schema's size,
at least 200,000 JSON values) and each reference past it is *widened* (replaced by its target's
``type``) with a ``widened`` entry in ``--report`` naming the size budget; with
``--unlowerable fail`` the tool fails (exit 1, nothing written but the report).

Each run is checked for CPU time (a few seconds), a wall-clock hang guard and the peak RSS of
that one child process (``os.wait4``), under 500 MB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fuzz_support import check_outcome, run_child

# every run is a child process: its peak RSS and CPU are what is checked
pytestmark = pytest.mark.fresh

COMMANDS = ["tools", "lint", "project", "measure", "diff-toolids"]
CPU_LIMIT = 5.0          # seconds of CPU per run
RSS_LIMIT_MB = 500


def _assert_error(r, *needles: str) -> None:
    check_outcome(r, cpu_limit=CPU_LIMIT)
    assert r.code == 2, r.describe()
    line = r.err.decode()
    for n in needles:
        assert n.lower() in line.lower(), (n, r.describe())
    assert r.maxrss_mb < RSS_LIMIT_MB, r.describe()


def _assert_ok(r, codes=(0, 1)) -> None:
    check_outcome(r, cpu_limit=CPU_LIMIT)
    assert r.code in codes, r.describe()
    assert r.maxrss_mb < RSS_LIMIT_MB, r.describe()


# --------------------------------------------------------------------------- file size

def _catalog(n_tools: int = 3, pad: int = 0) -> bytes:
    tools = [{"name": f"t{i}", "description": f"Tool {i}." + " x" * pad,
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
             for i in range(n_tools)]
    return json.dumps({"tools": tools}).encode()


@pytest.mark.parametrize("command", COMMANDS)
def test_max_file_size_option_on_every_command(command, tmp_path):
    f = tmp_path / "cat.json"
    f.write_bytes(_catalog(3, pad=2000))
    size = f.stat().st_size
    r = run_child([command, "--max-file-size", str(size - 1), f])
    _assert_error(r, str(f), "limit", "--max-file-size")
    r = run_child([command, "--max-file-size", str(size), f])
    _assert_ok(r)


@pytest.mark.parametrize("command", COMMANDS)
def test_max_file_size_must_be_positive(command, tmp_path):
    f = tmp_path / "cat.json"
    f.write_bytes(_catalog())
    r = run_child([command, "--max-file-size", "0" if command != "lint" else "-5", f])
    _assert_error(r, "--max-file-size")


@pytest.mark.parametrize("command", COMMANDS)
def test_default_file_size_limit_is_64_mib(command, tmp_path):
    # a sparse file: 64 MiB + 1 byte on paper, no disk used; refused before it is read
    f = tmp_path / "huge.json"
    with open(f, "wb") as fh:
        fh.truncate(64 * 1024 * 1024 + 1)
    r = run_child([command, f])
    _assert_error(r, str(f), "64 MiB", "--max-file-size")
    assert r.maxrss_mb < 200, r.describe()   # not read into memory


def test_stdin_over_the_limit(tmp_path):
    data = _catalog(3, pad=2000)
    r = run_child(["tools", "--max-file-size", "1000", "-"], input=data)
    _assert_error(r, "-:", "limit")


def test_folder_file_over_the_limit(tmp_path):
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "a.json").write_bytes(json.dumps({"name": "a", "inputSchema": {}}).encode())
    (folder / "b.json").write_bytes(_catalog(1, pad=3000))
    r = run_child(["tools", "--max-file-size", "2000", folder])
    _assert_error(r, "b.json", "limit")


# --------------------------------------------------------------------------- nesting depth

def _deep_properties(levels: int) -> dict:
    s: dict = {"type": "string"}
    for _ in range(levels):
        s = {"type": "object", "properties": {"p": s}}
    return s


DEEP_CASES = {
    # 300 levels of `properties` is 600+ levels of JSON: over the 256 limit
    "deep-properties.json": json.dumps(
        {"tools": [{"name": "t", "inputSchema": _deep_properties(300)}]}).encode(),
    "deep-flow.yaml": b"tools:\n  - name: t\n    inputSchema: " + b"[" * 400 + b"]" * 400 + b"\n",
    "deep-block.yaml": b"tools:\n  - name: t\n    inputSchema:\n" + "".join(
        "      " + "  " * i + "a:\n" for i in range(400)).encode()
    + b"      " + b"  " * 400 + b"b: 1\n",
    "deep-array.json": b"[" * 3000 + b"]" * 3000,
}


# every case through two commands, two cases through all (they all load the same way)
DEEP_RUNS = [(c, n) for n in sorted(DEEP_CASES) for c in COMMANDS
             if c in ("tools", "project") or n in ("deep-properties.json", "deep-block.yaml")]


@pytest.mark.parametrize("command,name", DEEP_RUNS)
def test_nesting_deeper_than_the_limit(command, name, tmp_path):
    f = tmp_path / name
    f.write_bytes(DEEP_CASES[name])
    r = run_child([command, f])
    _assert_error(r, str(f), "nesting deeper than")


ARGS_BY_COMMAND = {
    "tools": [["--format", "json"]],
    "lint": [["-f", "sarif"], ["-f", "junit"]],
    "project": [[], ["--to", "openwop"], ["--to", "openai", "--subset"],
                ["--to", "openwop", "--unlowerable", "fail"]],
    "measure": [["-f", "json"], ["--to", "openwop", "-f", "csv"]],
    "diff-toolids": [[], ["--to", "openwop"]],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_nesting_within_the_limit_is_processed(command, tmp_path):
    """120 levels of properties (240+ levels of JSON, just under the limit), plus unions
    nested 60 deep: every stage (walker, lowering, positions, tokens) copes, no recursion
    error."""
    s: dict = {"type": "string"}
    for _ in range(60):
        s = {"anyOf": [{"type": "array", "items": s}, {"type": "null"}]}
    f = tmp_path / "deep.json"
    f.write_text(json.dumps({"tools": [
        {"name": "deep", "inputSchema": _deep_properties(120)},
        {"name": "unions", "description": "x",
         "inputSchema": {"type": "object", "properties": {"x": s}}}]}))
    for extra in ARGS_BY_COMMAND[command]:
        r = run_child([command, *extra, f])
        _assert_ok(r)


# --------------------------------------------------------------------------- alias expansion

def _alias_bomb(levels: int = 10, fan: int = 9) -> bytes:
    lines = ["tools:", "  - name: t", "    annotations:",
             '      a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"      a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("command", COMMANDS)
def test_alias_bomb(command, tmp_path):
    f = tmp_path / "lol.yaml"
    f.write_bytes(_alias_bomb())
    r = run_child([command, f])
    _assert_error(r, str(f), "alias")
    assert r.maxrss_mb < 200, r.describe()


@pytest.mark.parametrize("command", COMMANDS)
def test_anchors_within_the_budget_are_expanded(command, tmp_path):
    """A realistic use of anchors (one shared schema used by 200 tools) is no bomb."""
    lines = ["tools:"]
    for i in range(200):
        lines.append(f"  - name: t{i}")
        lines.append(f"    description: Tool number {i}.")
        if i == 0:
            lines.append("    inputSchema: &schema")
            lines.append("      type: object")
            lines.append("      properties: {q: {type: string, description: a query}}")
        else:
            lines.append("    inputSchema: *schema")
    f = tmp_path / "shared.yaml"
    f.write_text("\n".join(lines) + "\n")
    r = run_child([command, f])
    _assert_ok(r)


# --------------------------------------------------------------------------- $ref expansion

LEVELS = 40


def _openapi_ref_bomb(levels: int = LEVELS) -> dict:
    schemas: dict = {"A0": {"type": "object", "properties": {"x": {"type": "string"}}}}
    for n in range(1, levels + 1):
        ref = {"$ref": f"#/components/schemas/A{n - 1}"}
        schemas[f"A{n}"] = {"type": "object", "description": f"level {n}",
                            "properties": {"a": dict(ref), "b": dict(ref)}}
    top = {"$ref": f"#/components/schemas/A{levels}"}
    return {
        "openapi": "3.1.0", "info": {"title": "ref bomb", "version": "1"},
        "paths": {"/x": {"post": {
            "operationId": "explode",
            "requestBody": {"content": {"application/json": {"schema": top}}},
            "responses": {"200": {"description": "ok",
                                  "content": {"application/json": {"schema": top}}}}}}},
        "components": {"schemas": schemas},
    }


def _mcp_ref_bomb(levels: int = LEVELS, fan: int = 2) -> dict:
    defs: dict = {"A0": {"type": "string"}}
    for n in range(1, levels + 1):
        defs[f"A{n}"] = {"type": "object", "properties": {
            f"p{k}": {"$ref": f"#/$defs/A{n - 1}"} for k in range(fan)}}
    schema = {"type": "object", "properties": {"q": {"$ref": f"#/$defs/A{levels}"}},
              "required": ["q"], "$defs": defs}
    return {"tools": [{"name": "explode", "description": "A schema that explodes.",
                       "inputSchema": schema,
                       "outputSchema": {"$ref": f"#/$defs/A{levels}", "$defs": defs}}]}


def _write_bombs(tmp_path: Path) -> dict[str, Path]:
    out = {}
    f = tmp_path / "bomb.openapi.json"
    f.write_text(json.dumps(_openapi_ref_bomb()))
    out["openapi"] = f
    f = tmp_path / "bomb.tools.json"
    f.write_text(json.dumps(_mcp_ref_bomb()))
    out["mcp"] = f
    return out


REF_RUNS = [
    ["tools", "--format", "json"],
    ["lint"], ["lint", "-f", "sarif"],
    ["project"], ["project", "--to", "openai"], ["project", "--to", "anthropic"],
    ["project", "--view", "standard"],
    ["measure", "-f", "json"], ["measure", "--to", "openwop", "-f", "json"],
    ["diff-toolids"], ["diff-toolids", "--to", "openwop"],
]


@pytest.mark.parametrize("kind", ["openapi", "mcp"])
@pytest.mark.parametrize("args", REF_RUNS, ids=lambda a: "-".join(a))
def test_ref_bomb_is_never_materialized(kind, args, tmp_path):
    f = _write_bombs(tmp_path)[kind]
    r = run_child([*args, f])
    _assert_ok(r)
    # whatever is printed stays small: no expansion reached the output
    assert len(r.out) < 2_000_000, r.describe()


@pytest.mark.parametrize("kind", ["openapi", "mcp"])
def test_ref_bomb_tools_keep_their_defs(kind, tmp_path):
    """tools: the schema bytes stay near the spec's size (bundled as $defs, not inlined)."""
    f = _write_bombs(tmp_path)[kind]
    r = run_child(["tools", "--format", "json", f])
    _assert_ok(r, (0,))
    doc = json.loads(r.out)
    (tool,) = doc["catalogs"][0]["tools"]
    assert tool["input_schema_bytes"] + (tool["output_schema_bytes"] or 0) \
        < 4 * f.stat().st_size, tool


@pytest.mark.parametrize("kind", ["openapi", "mcp"])
def test_ref_bomb_mcp_target_keeps_refs(kind, tmp_path):
    f = _write_bombs(tmp_path)[kind]
    out = tmp_path / "out.json"
    r = run_child(["project", "--to", "mcp", "-o", out, f])
    _assert_ok(r, (0,))
    doc = json.loads(out.read_bytes())
    schema = doc["tools"][0]["inputSchema"]
    text = json.dumps(schema)
    assert '"$ref"' in text and '"$defs"' in text
    assert len(text) < 4 * f.stat().st_size


@pytest.mark.parametrize("kind", ["openapi", "mcp"])
def test_ref_bomb_openwop_widens_at_the_size_budget(kind, tmp_path):
    """The OpenWOP target must inline: the size budget stops it, the report says where."""
    f = _write_bombs(tmp_path)[kind]
    out, rep = tmp_path / "out.json", tmp_path / "report.json"
    r = run_child(["project", "--to", "openwop", "-o", out, "--report", rep, f])
    _assert_ok(r, (0,))
    assert out.stat().st_size < 2_000_000
    schema = json.loads(out.read_bytes())["tools"][0]["inputSchema"]
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema  # in the subset
    changes = json.loads(rep.read_bytes())["tools"][0]["changes"]
    # bounded before the lowering (written without $ref it would outweigh the standard
    # schema), or by the lowering's own size budget
    budget = [c for c in changes if c["kind"] == "widened"
              and ("size budget" in c["what"] or "without $ref" in c["what"])]
    assert budget, changes
    assert all(c["pointer"].startswith("/inputSchema") for c in budget)


@pytest.mark.parametrize("mode", ["fail", "keep", "omit"])
@pytest.mark.parametrize("kind", ["openapi", "mcp"])
def test_ref_bomb_openwop_other_policies(kind, mode, tmp_path):
    f = _write_bombs(tmp_path)[kind]
    out, rep = tmp_path / "out.json", tmp_path / "report.json"
    r = run_child(["project", "--to", "openwop", "--unlowerable", mode, "-o", out,
                   "--report", rep, f])
    if mode == "fail":
        _assert_ok(r, (1,))
        assert not out.exists() and rep.exists()
        assert b"explode" in r.err
    else:
        _assert_ok(r, (0,))
        assert out.stat().st_size < 4_000_000


@pytest.mark.parametrize("mode", ["fail", "keep", "widen"])
def test_long_ref_chain_is_linear(mode, tmp_path):
    """1,000 levels of a doubling chain: the lowering used to restart once per reference past
    the size budget (75 s for --unlowerable fail); one restart per run now."""
    f = tmp_path / "chain.tools.json"
    f.write_text(json.dumps(_mcp_ref_bomb(1000)))
    out = tmp_path / "out.json"
    r = run_child(["project", "--to", "openwop", "--unlowerable", mode, "-o", out, f])
    _assert_ok(r, (1,) if mode == "fail" else (0,))


def test_ref_bomb_in_yaml_with_anchors(tmp_path):
    """$ref bomb and anchors together: anchors share the ref objects, nothing explodes."""
    lines = ["openapi: 3.0.3", "info: {title: t, version: '1'}", "paths:", "  /x:", "    get:",
             "      operationId: op", "      parameters:", "        - name: q",
             "          in: query",
             "          schema: {$ref: '#/components/schemas/A30'}",
             "      responses: {'200': {description: ok}}", "components:", "  schemas:",
             "    A0: {type: string}"]
    for n in range(1, 31):
        lines.append(f"    A{n}:")
        lines.append("      type: object")
        lines.append(f"      properties: &p{n}")
        lines.append(f"        a: {{$ref: '#/components/schemas/A{n - 1}'}}")
        lines.append(f"        b: {{$ref: '#/components/schemas/A{n - 1}'}}")
    f = tmp_path / "bomb.openapi.yaml"
    f.write_text("\n".join(lines) + "\n")
    for args in (["tools"], ["lint"], ["project", "--to", "openwop"], ["measure"]):
        _assert_ok(run_child([*args, f]))
