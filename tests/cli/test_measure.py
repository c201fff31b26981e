"""`toolcat measure`: published figures, breakdown, formats, gates and baselines."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from support.common import corpus, run_toolcat

CAPTURES = "mcp-context-cost"


def captures() -> tuple[list[Path], list[Path]]:
    """(files with a rawToolsCapture, files without one) of the mcp-context-cost corpus."""
    folder = corpus(CAPTURES)
    with_tools, without = [], []
    for p in sorted(folder.glob("*.json")):
        doc = json.loads(p.read_bytes())
        (with_tools if isinstance(doc.get("rawToolsCapture"), list) else without).append(p)
    return with_tools, without


def published(p: Path) -> dict:
    return json.loads(p.read_bytes())


class Result:
    def __init__(self, code: int, out: bytes, err: bytes) -> None:
        self.returncode, self.stdout, self.stderr = code, out, err


def tc(*args, cwd=None) -> Result:
    """Run the CLI in this process (same code path as `toolcat`, without the start-up cost)."""
    import os
    import sys

    from toolcat import ui
    from toolcat.cli import run

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    saved = sys.stdout, sys.stderr, os.getcwd(), dict(os.environ)
    os.environ["NO_COLOR"] = "1"
    os.environ.pop("FORCE_COLOR", None)
    ui.state.quiet = ui.state.no_color = False
    ui.state._out = ui.state._err = None
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.stdout, sys.stderr = out, err
        code = run([str(a) for a in args])
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        os.chdir(saved[2])
        os.environ.clear()
        os.environ.update(saved[3])
        ui.state.quiet = ui.state.no_color = False
        ui.state._out = ui.state._err = None
    return Result(code, out.buffer.getvalue(), err.buffer.getvalue())


def measure_json(*args: str) -> dict:
    r = tc("measure", "-f", "json", *args)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def all_captures():
    """One run over the whole folder glob (captured and uncaptured servers), o200k."""
    with_tools, without = captures()
    files = sorted(with_tools + without)
    r = run_toolcat("measure", "-f", "json", "--top", "5", *map(str, files))
    return with_tools, without, r


# --------------------------------------------------------------------------- published figures


def test_every_capture_reproduces_published_sha256_and_tokens(all_captures):
    with_tools, _without, r = all_captures
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    assert data["tokenizer"] == "o200k_base"
    assert len(with_tools) == 69
    got = {c["file"]: c for c in data["catalogs"]}
    assert sorted(got) == sorted(map(str, with_tools))
    for p in with_tools:
        pub = published(p)
        c = got[str(p)]
        assert c["sha256_before"] == pub["canonicalSha256"], p.name
        assert c["tokens_before"] == pub["totalTokens"], p.name
        assert c["tools"] == len(pub["rawToolsCapture"]), p.name
        # the bytes are the UTF-8 of JSON.stringify: Python's compact json.dumps agrees
        raw = json.dumps(pub["rawToolsCapture"], separators=(",", ":"), ensure_ascii=False)
        assert c["bytes_before"] == len(raw.encode("utf-8")), p.name
    assert data["total"]["tokens_before"] == sum(published(p)["totalTokens"] for p in with_tools)
    assert data["total"]["tools"] == sum(c["tools"] for c in data["catalogs"])


def test_uncaptured_servers_in_a_glob_are_skipped_with_a_note(all_captures):
    _with_tools, without, r = all_captures
    assert without, "the corpus has servers without a capture"
    err = r.stderr.decode()
    for p in without:
        status = published(p)["status"]
        assert f"{p}: skipped" in err and status in err
    assert r.returncode == 0


def test_an_uncaptured_server_alone_is_an_input_error():
    _with_tools, without = captures()
    r = run_toolcat("measure", str(without[0]))
    assert r.returncode == 2
    err = r.stderr.decode().strip()
    assert err.startswith("toolcat: error: ") and "\n" not in err and str(without[0]) in err


def test_top_tools_match_published_per_tool_tokens(all_captures):
    with_tools, _without, r = all_captures
    data = json.loads(r.stdout)
    top = data["top"]
    assert len(top) == 5
    per_tool = {}
    for p in with_tools:
        for t in published(p)["tools"]:
            per_tool[(str(p), t["name"])] = t["tokens"]
    expected = sorted(per_tool.values(), reverse=True)[:5]
    assert [t["tokens_before"] for t in top] == expected
    for t in top:
        assert per_tool[(t["file"], t["id"])] == t["tokens_before"]
        assert t["bytes_after"] <= t["bytes_before"]


def test_cl100k_counts_differ(all_captures):
    with_tools, _without, r = all_captures
    o200k = {c["file"]: c for c in json.loads(r.stdout)["catalogs"]}
    files = list(map(str, with_tools))
    cl = measure_json("--tokenizer", "cl100k_base", *files)
    assert cl["tokenizer"] == "cl100k_base"
    differ = 0
    for c in cl["catalogs"]:
        o = o200k[c["file"]]
        assert c["bytes_before"] == o["bytes_before"] and c["sha256_before"] == o["sha256_before"]
        differ += c["tokens_before"] != o["tokens_before"]
    assert differ >= len(files) - 2, "cl100k and o200k should count (almost) every catalog apart"
    assert cl["total"]["tokens_before"] != sum(published(p)["totalTokens"] for p in with_tools)


# --------------------------------------------------------------------------- breakdown

PROSE = {"description", "title", "examples", "example", "$comment"}
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
              "propertyNames", "unevaluatedProperties", "unevaluatedItems",
              "additionalItems")
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def strip_prose(schema):
    """Test oracle (2020-12 / draft-07 applicators): the schema without prose entries."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k in PROSE or k.startswith("x-"):
            continue
        if k in SCHEMA_MAPS and isinstance(v, dict):
            out[k] = {name: strip_prose(s) for name, s in v.items()}
        elif k in SCHEMA_ONE and isinstance(v, dict):
            out[k] = strip_prose(v)
        elif k in SCHEMA_LISTS + ("items",) and isinstance(v, list):
            out[k] = [strip_prose(s) for s in v]
        else:
            out[k] = v
    return out


def wire(v) -> int:
    return len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def test_breakdown_parts_are_what_removing_them_saves(all_captures):
    """descriptions / schema prose = bytes saved by removing them (independent oracle)."""
    with_tools, _without, r = all_captures
    got = {c["file"]: c for c in json.loads(r.stdout)["catalogs"]}
    for p in with_tools:
        tools = published(p)["rawToolsCapture"]
        c = got[str(p)]
        bd = c["breakdown"]
        assert sum(bd.values()) == c["bytes_before"], p.name
        assert min(bd.values()) >= 0, p.name
        no_desc = [{k: v for k, v in t.items() if k != "description"} for t in tools]
        assert bd["descriptions"] == wire(tools) - wire(no_desc), p.name
        schema_keys = ("inputSchema", "outputSchema")
        no_prose = [{k: (strip_prose(v) if k in schema_keys else v) for k, v in t.items()}
                    for t in tools]
        assert bd["schema_prose"] == wire(tools) - wire(no_prose), p.name
        schemas = sum(wire(t[k]) for t in tools for k in schema_keys if k in t)
        assert bd["schema_shape"] == schemas - bd["schema_prose"], p.name


def test_breakdown_is_position_aware(tmp_path):
    schema = {
        "type": "object",
        "description": "xy",
        "properties": {
            "description": {"type": "string", "title": "T"},   # a property named description
            "title": {"enum": [{"description": "data"}]},      # enum values are data
        },
        "x-internal": 1,
    }
    tool = {"name": "t", "title": "Tee", "description": "abc", "inputSchema": schema}
    f = tmp_path / "one.json"
    f.write_text(json.dumps({"tools": [tool]}))
    c = measure_json(str(f))["catalogs"][0]
    bd = c["breakdown"]
    assert bd["descriptions"] == len('"description":"abc"') + 1
    assert bd["schema_prose"] == (len('"description":"xy"') + 1 + len('"title":"T"') + 1
                                  + len('"x-internal":1') + 1)
    assert bd["schema_shape"] == wire(schema) - bd["schema_prose"]
    assert bd["other"] == wire([tool]) - wire(schema) - bd["descriptions"]


# --------------------------------------------------------------------------- formats


def small_set() -> list[str]:
    with_tools, _ = captures()
    return [str(p) for p in with_tools[:4]]


def _md_tables(text: str) -> list[list[list[str]]]:
    """Parse GitHub pipe tables: lists of rows of cells (escaped pipes kept as text)."""
    tables, cur = [], None
    for line in text.splitlines():
        if line.startswith("|") and line.endswith("|"):
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line[1:-1])]
            if cur is None:
                cur = []
                tables.append(cur)
            cur.append(cells)
        else:
            cur = None
    return tables


def _num(cell: str) -> int:
    return int(re.sub(r"[*,`]", "", cell).split(" ")[0])


def test_markdown_is_a_valid_github_table():
    files = small_set()
    ref = measure_json(*files)
    r = tc("measure", "-f", "markdown", "--top", "2", *files)
    assert r.returncode == 0, r.stderr.decode()
    text = r.stdout.decode()
    assert "o200k_base" in text
    tables = _md_tables(text)
    assert len(tables) == 3
    for t in tables:
        header, sep, *rows = t
        assert all(re.fullmatch(r":?-{2,}:?", c) for c in sep), sep
        assert len(sep) == len(header)
        assert all(len(row) == len(header) for row in rows)
    main = tables[0]
    header = main[0]
    col = {h: i for i, h in enumerate(header)}
    rows = main[2:]
    assert len(rows) == len(files) + 1
    for row, c in zip(rows, ref["catalogs"]):
        assert row[0].strip("`") == c["file"]
        assert _num(row[col["bytes before"]]) == c["bytes_before"]
        assert _num(row[col["bytes after"]]) == c["bytes_after"]
        assert _num(row[col["tokens before"]]) == c["tokens_before"]
        assert _num(row[col["tokens after"]]) == c["tokens_after"]
        assert _num(row[col["tokens saved"]]) == c["tokens_before"] - c["tokens_after"]
    total = rows[-1]
    assert "total" in total[0]
    assert _num(total[col["tokens before"]]) == ref["total"]["tokens_before"]
    # breakdown table: parts sum to the total column
    for row in tables[1][2:]:
        assert sum(_num(x) for x in row[1:5]) == _num(row[5])
    assert len(tables[2]) == 2 + 2


def test_markdown_escapes_pipes_in_names(tmp_path):
    f = tmp_path / "a|b.json"
    f.write_text(json.dumps({"tools": [{"name": "x|y", "inputSchema": {"type": "object"}}]}))
    r = tc("measure", "-f", "markdown", "--top", "1", str(f))
    assert r.returncode == 0, r.stderr.decode()
    tables = _md_tables(r.stdout.decode())
    assert tables[0][2][0].strip("`") == str(f)
    assert tables[2][2][0].strip("`") == "x|y"
    assert all(len(row) == len(t[0]) for t in tables for row in t)


def test_csv_matches_json():
    files = small_set()
    ref = measure_json(*files)
    r = tc("measure", "-f", "csv", *files)
    assert r.returncode == 0
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    assert len(rows) == len(files) + 1
    for row, c in zip(rows, ref["catalogs"]):
        assert row["file"] == c["file"]
        for k in ("tools", "bytes_before", "bytes_after", "tokens_before", "tokens_after"):
            assert int(row[k]) == c[k]
        assert row["sha256_before"] == c["sha256_before"]
        assert row["tokenizer"] == "o200k_base"
        for k, v in c["breakdown"].items():
            assert int(row[k]) == v
    assert rows[-1]["file"] == "(total)"
    assert int(rows[-1]["tokens_before"]) == ref["total"]["tokens_before"]


def test_table_output():
    files = small_set()
    ref = measure_json(*files)
    r = tc("measure", *files)
    assert r.returncode == 0
    out = r.stdout.decode()
    assert "\x1b[" not in out
    assert "o200k_base" in out and "total" in out
    c = ref["catalogs"][0]
    assert f"{c['bytes_before']:,}" in out and f"{c['tokens_before']:,}" in out
    assert f"{ref['total']['tokens_before']:,}" in out
    # numbers are right-aligned: the total row's before-bytes ends where the header does
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("catalog"))
    total = next(line for line in lines if line.startswith("total"))
    tb = f"{ref['total']['bytes_before']:,}"
    assert lines[head].index("before") + len("before") == total.index(tb) + len(tb)


def test_json_keys_are_exact():
    data = measure_json(*small_set()[:1])
    assert list(data) == ["tokenizer", "catalogs", "total"]
    assert list(data["catalogs"][0]) == ["file", "target", "tools", "bytes_before",
                                         "bytes_after", "tokens_before", "tokens_after",
                                         "sha256_before", "saved", "schemas", "output_schemas",
                                         "breakdown", "tools_without_input_schema",
                                         "model_facing", "description_score"]
    assert list(data["total"]) == ["tools", "bytes_before", "bytes_after", "tokens_before",
                                   "tokens_after", "breakdown", "saved", "schemas",
                                   "model_facing", "description_score"]
    assert list(data["catalogs"][0]["model_facing"]) == ["bytes_before", "bytes_after",
                                                         "tokens_before", "tokens_after"]
    assert list(data["catalogs"][0]["breakdown"]) == ["descriptions", "schema_prose",
                                                      "schema_shape", "other"]
    assert re.fullmatch(r"[0-9a-f]{64}", data["catalogs"][0]["sha256_before"])


# --------------------------------------------------------------------------- gates


@pytest.fixture(scope="module")
def one():
    """A capture and its figures."""
    with_tools, _ = captures()
    f = str(next(p for p in with_tools if p.name == "airbnb.json"))
    return f, measure_json(f)["catalogs"][0]


@pytest.mark.parametrize("figure", ["bytes", "tokens"])
@pytest.mark.parametrize("side", ["after", "before"])
def test_limits_under_at_over(one, figure, side):
    f, c = one
    value = c[f"{figure}_{side}"]
    gate = ["--gate", "after"] if side == "after" else []   # before is the default
    for limit, code in ((value + 1, 0), (value, 0), (value - 1, 1)):
        r = tc("measure", "-f", "json", f"--max-{figure}", str(limit), *gate, f)
        assert r.returncode == code, (limit, r.stderr.decode())
        assert json.loads(r.stdout)["catalogs"][0][f"{figure}_{side}"] == value
        err = r.stderr.decode()
        if code:
            assert f in err and f"{figure}_{side}" in err
            assert f"{limit:,}" in err and f"{value:,}" in err
        else:
            assert "budget exceeded" not in err


def test_limit_names_only_the_failing_catalog():
    files = small_set()[:3]
    ref = measure_json(*files)["catalogs"]
    biggest = max(ref, key=lambda c: c["tokens_after"])
    limit = max(c["tokens_after"] for c in ref if c is not biggest)
    r = tc("measure", "-f", "csv", "--max-tokens", str(limit), "--gate", "after", *files)
    assert r.returncode == 1
    lines = [x for x in r.stderr.decode().splitlines() if "budget exceeded" in x]
    assert len(lines) == 1 and biggest["file"] in lines[0]


def test_baseline_roundtrip_and_growth(tmp_path, one):
    f, c = one
    work = tmp_path / "airbnb.json"
    shutil.copy(f, work)
    base = tmp_path / "base.json"
    r = tc("measure", "-q", "-f", "json", "--write-baseline", str(base), str(work))
    assert r.returncode == 0, r.stderr.decode()
    doc = json.loads(base.read_text())
    entry = doc["catalogs"][str(work)]
    assert entry["bytes_after"] == c["bytes_after"] and entry["tokens_before"] == c["tokens_before"]
    assert doc["tokenizer"] == "o200k_base"
    assert not list(tmp_path.glob(".toolcat-*"))  # atomic write left no temp file

    # unchanged: passes with no increase allowed
    r = tc("measure", "--gate", "after", "--baseline", str(base), str(work))
    assert r.returncode == 0, r.stderr.decode()

    # grow the catalog: a longer description of the first tool's first property
    d = json.loads(work.read_text())
    props = d["rawToolsCapture"][0]["inputSchema"]["properties"]
    first = next(iter(props))
    props[first]["type"] = ["string", "null", "integer", "number", "boolean"]
    work.write_text(json.dumps(d))
    grown = measure_json(str(work))["catalogs"][0]
    assert grown["bytes_after"] > c["bytes_after"]
    growth = (grown["bytes_after"] - c["bytes_after"]) * 100 / c["bytes_after"]

    r = tc("measure", "--gate", "after", "--baseline", str(base), "--max-increase", "0", str(work))
    assert r.returncode == 1
    err = r.stderr.decode()
    assert str(work) in err and "bytes_after" in err
    assert f"{c['bytes_after']:,}" in err and f"{grown['bytes_after']:,}" in err
    r = tc("measure", "--gate", "after", "--baseline", str(base), "--max-increase",
                    f"{growth * 1.5 + 1:.3f}", str(work))
    assert r.returncode == 0, r.stderr.decode()


def test_baseline_growth_at_the_limit(tmp_path, one):
    f, c = one
    v = c["bytes_after"]
    assert v > 100
    # with a baseline of 100 bytes, today's growth is exactly (v - 100) percent
    doc = {"toolcat_baseline": 1, "tokenizer": "o200k_base",
           "catalogs": {f: {"tools": c["tools"], "bytes_after": 100,
                            "tokens_after": c["tokens_after"]}}}
    base = tmp_path / "base.json"
    base.write_text(json.dumps(doc))
    pct = v - 100
    at = tc("measure", "--gate", "after", "--baseline", str(base), "--max-increase", str(pct), f)
    assert at.returncode == 0, at.stderr.decode()
    over = tc("measure", "--gate", "after", "--baseline", str(base), "--max-increase", f"{pct - 0.01}", f)
    assert over.returncode == 1
    err = over.stderr.decode()
    assert f in err and "bytes_after" in err and "tokens_after" not in err
    assert f"{v:,}" in err and "100" in err
    under = tc("measure", "--gate", "after", "--baseline", str(base), "--max-increase", f"{pct + 0.01}", f)
    assert under.returncode == 0


def test_baseline_gate_before(tmp_path, one):
    f, c = one
    doc = {"toolcat_baseline": 1, "tokenizer": "o200k_base",
           "catalogs": {f: {"bytes_before": c["bytes_before"] - 1,
                            "tokens_before": c["tokens_before"],
                            "bytes_after": 1, "tokens_after": 1}}}
    base = tmp_path / "b.json"
    base.write_text(json.dumps(doc))
    r = tc("measure", "--gate", "before", "--baseline", str(base), f)
    assert r.returncode == 1 and "bytes_before" in r.stderr.decode()
    assert "tokens_before" not in r.stderr.decode()
    r = tc("measure", "--gate", "before", "--baseline", str(base),
                    "--max-increase", "1", f)
    assert r.returncode == 0


def test_bad_baseline_and_options_are_input_errors(tmp_path, one):
    f, _c = one
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"toolcat_baseline": 1, "tokenizer": "cl100k_base",
                                 "catalogs": {}}))
    for args in (["--baseline", str(bad)], ["--baseline", str(tmp_path / "missing.json")],
                 ["--baseline", str(other)], ["--max-increase", "5"], ["--format", "xml"],
                 ["--tokenizer", "p50k"], ["--gate", "middle"], ["--to", "soap"]):
        r = tc("measure", *args, f)
        assert r.returncode == 2, (args, r.stderr.decode())
        err = r.stderr.decode().strip()
        assert "Traceback" not in err and err, args


def test_write_baseline_to_unwritable_place_is_an_input_error(tmp_path, one):
    f, _c = one
    r = tc("measure", "--write-baseline", str(tmp_path / "no" / "such" / "b.json"), f)
    assert r.returncode == 2
    assert r.stderr.decode().startswith("toolcat: error: ")


# --------------------------------------------------------------------------- progress


def test_progress_only_on_a_terminal_and_human_formats():
    from toolcat.commands.measure import want_progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert want_progress("table", False, Tty())
    assert want_progress("markdown", False, Tty())
    assert not want_progress("json", False, Tty())
    assert not want_progress("csv", False, Tty())
    assert not want_progress("table", True, Tty())
    assert not want_progress("table", False, io.StringIO())


def test_delayed_progress_stays_hidden_for_quick_runs():
    from toolcat.commands.measure import DelayedProgress

    p = DelayedProgress(True, total=2, delay=5.0)
    p.update("x", advance=1)
    p.stop()
    assert not p._started


# --------------------------------------------------------------------------- config budgets


def test_budgets_from_pyproject(tmp_path, one):
    f, c = one
    (tmp_path / "pyproject.toml").write_text(
        "[tool.toolcat.budgets]\n"
        f"max-tokens = {c['tokens_before'] - 1}\n"
        'gate = "before"\n')
    r = tc("measure", f, cwd=tmp_path)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert f in err and "tokens_before" in err and f"{c['tokens_before'] - 1:,}" in err
    # the command line wins over the config
    r = tc("measure", "--max-tokens", str(c["tokens_before"]), f, cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    r = tc("measure", "--gate", "after", f, cwd=tmp_path)
    assert r.returncode == (1 if c["tokens_after"] > c["tokens_before"] - 1 else 0)


def test_budgets_from_toolcat_toml_and_config_option(tmp_path, one):
    f, c = one
    cfg = tmp_path / "sub" / "toolcat.toml"
    cfg.parent.mkdir()
    cfg.write_text(f"[budgets]\nmax-bytes = {c['bytes_after'] - 1}\n"
                   'tokenizer = "cl100k_base"\n')
    r = tc("measure", "-f", "json", "--config", str(cfg), "--gate", "after", f)
    assert r.returncode == 1
    assert json.loads(r.stdout)["tokenizer"] == "cl100k_base"
    assert "bytes_after" in r.stderr.decode()
    (tmp_path / "sub" / "bad.toml").write_text("[budgets]\nmax-bytes = -3\n")
    r = tc("measure", "--config", str(tmp_path / "sub" / "bad.toml"), f)
    assert r.returncode == 2 and "max-bytes" in r.stderr.decode()


# --------------------------------------------------------------------------- after == project


def _tools_array_bytes(out: bytes) -> bytes:
    """The tools array inside `toolcat project` output, as it appears there (byte-exact)."""
    doc = json.loads(out)
    arr = doc["tools"] if isinstance(doc, dict) else doc
    from toolcat.document.canonical import dumps

    raw = dumps(arr)
    assert raw in out, "the output holds the array's canonical bytes verbatim"
    return raw


@pytest.mark.parametrize("opts", [
    [],
    ["--to", "openwop"],
    ["--to", "openai", "--description-max", "60"],
    ["--to", "anthropic", "--unlowerable", "omit"],
    ["--to", "openai", "--subset"],
    ["--no-output-schema", "--description-max", "0"],
    ["--to", "openwop", "--source", "connector", "--safety-tier", "read"],
    ["--no-factor", "--keep-titles"],
    ["--to", "anthropic", "--no-factor", "--unlowerable", "keep", "--no-subset"],
])
def test_after_is_exactly_what_project_writes(tmp_path, opts):
    with_tools, _ = captures()
    # outputSchema, annotations, $ref and anyOf in one capture; an OpenAPI spec
    files = [str(p) for p in with_tools if p.name == "xcodebuildmcp.json"]
    files.append(str(corpus("openapi", "oai-petstore.openapi.yaml")))
    got = {c["file"]: c for c in measure_json(*opts, *files)["catalogs"]}
    for f in files:
        out = tmp_path / "out.json"
        r = tc("project", f, "-o", str(out), *opts)
        assert r.returncode == 0, (f, opts, r.stderr.decode())
        arr = _tools_array_bytes(out.read_bytes())
        assert got[f]["bytes_after"] == len(arr), (f, opts)
        from toolcat.tokens import count

        assert got[f]["tokens_after"] == count(arr), (f, opts)


def test_unlowerable_fail_names_the_tools(tmp_path):
    f = tmp_path / "unl.json"
    f.write_text(json.dumps({"tools": [
        {"name": "t", "inputSchema": {"type": "object",
                                      "properties": {"a": {"type": "string",
                                                           "not": {"pattern": "^x"}}},
                                      "patternProperties": {"^x": {"type": "integer"}}}},
        {"name": "u", "inputSchema": {"type": "object", "properties": {"b": {"type": "string"}}}},
    ]}))
    r = tc("measure", "-f", "csv", "--to", "openwop", "--unlowerable", "fail", f)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert str(f) in err and "mcp:t" in err and "mcp:u" not in err
    assert tc("measure", "-f", "csv", "--to", "openwop", f).returncode == 0


def test_baseline_matches_a_moved_file_by_name(tmp_path, one):
    f, c = one
    doc = {"toolcat_baseline": 1, "tokenizer": "o200k_base",
           "catalogs": {"elsewhere/airbnb.json": {"bytes_after": c["bytes_after"] - 1,
                                                  "tokens_after": c["tokens_after"]}}}
    base = tmp_path / "b.json"
    base.write_text(json.dumps(doc))
    r = tc("measure", "--gate", "after", "--baseline", base, f)
    assert r.returncode == 1 and "bytes_after" in r.stderr.decode()
    # a catalog the baseline does not know is reported, not failed
    doc["catalogs"] = {"other.json": {"bytes_after": 1}}
    base.write_text(json.dumps(doc))
    r = tc("measure", "--gate", "after", "--baseline", base, f)
    assert r.returncode == 0 and "not in the baseline" in r.stderr.decode()
