"""Streamed MCP tools lists (document/stream.py, formats.mcp.stream_catalog): the reader gives
every element with its exact position, and lint and measure of a streamed catalog give what
they give for the same file read whole: the same findings (lines and columns included), the
same figures (bytes, hashes, token counts), the same errors."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from support.common import CORPUS, REPO
from toolcat.config import Config
from toolcat.document import stream
from toolcat.document.parse import load_file
from toolcat.errors import InputError
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats import mcp as mcp_format


def _lines_of(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize("seed", range(40))
def test_reader_gives_every_element_with_its_position(tmp_path, monkeypatch, seed):
    rnd = random.Random(seed)
    monkeypatch.setattr(stream, "CHUNK", rnd.choice([1, 2, 3, 7, 64, 1 << 22]))
    monkeypatch.setattr(stream, "_CONTEXT", rnd.choice([4, 40, 1 << 16]))
    items = [{"name": f"t{i}", "d": "é✓😀\\\"" * rnd.randint(0, 3),
              "n": rnd.choice([1, 12345678901234, 1.5, -3e5]), "l": [1, [2, {"a": None}]]}
             for i in range(rnd.randint(0, 6))]
    items.append(rnd.choice([1, "s", None, 123456789, [], {}]))
    for doc in (items, {"tools": items, "z": {"q": [1]}},
                {"a": 1, "result": {"b": 2, "tools": items, "c": "x"}, "e": [3]}):
        text = json.dumps(doc, indent=rnd.choice([None, 0, 2]), ensure_ascii=rnd.random() < .5)
        f = tmp_path / "t.json"
        f.write_text(("\ufeff" if rnd.random() < .3 else "") + text, encoding="utf-8")
        s = stream.open_array(str(f), 1 << 30, 256)
        got = list(s.elements())
        assert [e.value for e in got] == items
        lines = text.split("\n")
        for e in got:
            assert text[e.offset:e.offset + len(e.text)] == e.text
            assert (e.line, e.column) == _lines_of(text, e.offset)
            for k in range(e.line, e.line + e.text.count("\n") + 1):
                lt = e.line_text(k)
                assert lt == lines[k - 1] or (lt is None and stream._CONTEXT < 1000)
            again = s.element(e.index)
            assert (again.value, again.text, again.line, again.column) == \
                (e.value, e.text, e.line, e.column)
        whole = json.loads(text)
        if isinstance(whole, dict):
            (whole["result"] if "result" in whole else whole)["tools"] = []
        assert s.envelope == (whole if isinstance(whole, dict) else [])
        assert [e.value for e in s.elements()] == items      # a second pass reads it again


def _late(f):
    """``f`` applied to the last quarter of the text: after the first elements (which are
    read to tell the format, and read whole when broken)."""
    return lambda t: t[:len(t) * 3 // 4] + f(t[len(t) * 3 // 4:])


_BROKEN = {
    "truncated": lambda t: t[:len(t) * 7 // 8],
    "duplicate key": _late(lambda t: t.replace('"name": "', '"name": "a", "name": "', 1)),
    "NaN": _late(lambda t: t.replace('"minimum": 1', '"minimum": NaN', 1)),
    "extra data": lambda t: t + " x",
    "NUL": _late(lambda t: "\x00" + t),
    "trailing comma": lambda t: t.rstrip()[:-1].rstrip()[:-1].rstrip() + ",]}",
    "trailing comma after the tools": lambda t: t.rstrip()[:-1].rstrip() + ",}",
    "too deep": _late(lambda t: t.replace('"a": {', '"a": ' + "[" * 300 + "]" * 300 + ', "b": {',
                                          1)),
    "missing comma": _late(lambda t: t.replace("},", "}", 3)),
    "bad UTF-8": lambda t: t,
}


@pytest.mark.parametrize("case", sorted(_BROKEN))
def test_a_broken_file_is_the_same_error_streamed(tmp_path, monkeypatch, case):
    monkeypatch.setattr(stream, "CHUNK", 257)
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "integer", "minimum": 1}}}} for i in range(1500)]
    text = _BROKEN[case](json.dumps({"tools": tools}, indent=2))
    f = tmp_path / "broken.json"
    data = text.encode()
    if case == "bad UTF-8":
        data = data[:len(data) * 3 // 4] + b"\xff" + data[len(data) * 3 // 4:]
    f.write_bytes(data)
    with pytest.raises(InputError) as whole:
        load_file(str(f))
    s = stream.open_array(str(f), 1 << 30, 256)
    assert s is not None, "broken after the first elements: streamed"
    with pytest.raises(InputError) as streamed:
        for _ in s.elements():
            pass
    assert streamed.value.render() == whole.value.render()


@pytest.mark.parametrize("repeat,same", [
    ('"meta": null, "meta": null', True), ('"n": 2, "n": 2.0', True), ('"s": "x", "s": "x"', True),
    ('"b": true, "b": true', True), ('"s": "x", "s": "y"', False), ('"b": true, "b": 1', False),
    ('"o": {}, "o": {}', False), ('"a": [], "a": []', False), ('"n": null, "n": false', False)])
def test_a_key_repeated_with_the_same_scalar_is_read_once(tmp_path, monkeypatch, repeat, same):
    """A key repeated in an object with one JSON scalar (null, a boolean, a number, a string)
    reads the same in every parser, first or last wins: read once, whole and streamed (the
    envelope's members and the tools' alike; real reports repeat ``"meta": null``). Another
    value, or an object or array, is refused as before, with its place. Before: every
    repeated key was refused (exit 2)."""
    monkeypatch.setattr(stream, "CHUNK", 257)
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(400)]
    body = json.dumps({"tools": tools}, indent=2)
    for where in ("tool", "envelope"):
        if where == "tool":
            text = body.replace('"name": "t350"', '"name": "t350", ' + repeat, 1)
        else:
            text = body[:-1] + ", " + repeat + "}"
        f = tmp_path / f"{where}.json"
        f.write_text(text)
        if same:
            whole = load_file(str(f))[0]
            assert [t["name"] for t in whole["tools"]] == [f"t{i}" for i in range(400)]
            key = repeat.split(":")[0].strip('"')
            holder = whole["tools"][350] if where == "tool" else whole
            assert holder[key] == json.loads("{" + repeat.split(",")[0] + "}")[key]
            s = stream.open_array(str(f), 1 << 30, 256)
            assert s is not None
            got = [e for e in s.elements()]
            assert len(got) == 400, where
            continue
        with pytest.raises(InputError) as whole_err:
            load_file(str(f))
        assert "duplicate key" in whole_err.value.render()
        s = stream.open_array(str(f), 1 << 30, 256)
        with pytest.raises(InputError) as streamed:
            for _ in (s.elements() if s is not None else ()):
                pass
            if s is None:
                raise InputError("not streamed", str(f))
        assert streamed.value.render() == whole_err.value.render(), where


# ------------------------------------------------------------------- lint and measure


def _catalogs() -> list[tuple[str, object]]:
    """MCP tools lists built from the corpus: the captures' tool arrays, the github snaps
    together, and a synthetic catalog (bench/gen_catalog.py)."""
    out = []
    caps = sorted((CORPUS / "mcp-context-cost").glob("*.json"))
    for p in caps[::6]:
        raw = json.loads(p.read_text())
        tools = raw.get("rawToolsCapture") if isinstance(raw, dict) else None
        if isinstance(tools, list) and tools:
            out.append((p.stem, {"tools": tools}))
    snaps = [json.loads(p.read_text()) for p in sorted((CORPUS / "github-mcp-server").glob("*.snap"))]
    if snaps:
        out.append(("github", {"jsonrpc": "2.0", "id": 1, "result": {"tools": snaps}}))
    else:   # absent: skipped with the reason (the synthetic catalog still runs)
        out.append(pytest.param("github", None, id="github", marks=pytest.mark.skip(
            reason=f"corpus not available: {CORPUS / 'github-mcp-server'} (set TOOLCAT_SHARED "
                   "to the shared folder)")))
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import gen_catalog
    finally:
        sys.path.pop(0)
    out.append(("synthetic", gen_catalog.gen_mcp(300, 7)))
    return out


def _write(tmp_path: Path, name: str, doc: object, indent: int | None) -> str:
    f = tmp_path / f"{name}.json"
    f.write_text(json.dumps(doc, indent=indent, ensure_ascii=False), encoding="utf-8")
    return str(f)


def _load(path: str, streamed: bool, monkeypatch) -> list:
    monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", "1" if streamed else str(1 << 40))
    cats = load_catalogs([path], LoadOptions(strict=False, stream=True))
    assert (cats[0].stream is not None) == streamed
    return cats


def _findings(path: str, streamed: bool, monkeypatch, profile: str = "mcp") -> list[tuple]:
    from toolcat.features.lint.engine import lint

    res = lint(_load(path, streamed, monkeypatch), Config(), profile)
    return [(f.code, f.severity, f.message, f.file, f.tool, f.pointer, f.line, f.column,
             f.source_pointer) for f in res.findings]


CATALOGS = [c if hasattr(c, "marks") else pytest.param(*c, id=c[0]) for c in _catalogs()]


@pytest.mark.parametrize("name,doc", CATALOGS)
def test_lint_streamed_finds_what_lint_whole_finds(tmp_path, monkeypatch, name, doc):
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 3)
    for indent in (None, 2):
        path = _write(tmp_path, name, doc, indent)
        whole = _findings(path, False, monkeypatch)
        assert _findings(path, True, monkeypatch) == whole
        if name in ("synthetic", "github"):
            assert len(whole) > 10


def test_catalog_rules_see_every_batch(tmp_path, monkeypatch):
    """Duplicate ids, descriptions and ids in other case across batches; a `_meta` after the
    tools that declares the compact view (prose rules off)."""
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 2)
    tool = {"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    tools = [dict(tool, name="a", description="same"), dict(tool, name="b"),
             dict(tool, name="c", description="same"), dict(tool, name="a"),
             dict(tool, name="A")]
    for tail in ({}, {"_meta": {"toolcat/view": "compact"}}):
        path = _write(tmp_path, "dups", {"tools": tools, **tail}, 2)
        whole = _findings(path, False, monkeypatch)
        codes = {f[0] for f in whole}
        assert {"TC101", "TC108", "TC109"} <= codes
        assert ("MR401" in codes) == (not tail)     # prose rules only in the standard view
        assert _findings(path, True, monkeypatch) == whole
        for prof in ("openai-strict", "anthropic"):
            assert _findings(path, True, monkeypatch, prof) == \
                _findings(path, False, monkeypatch, prof)


def test_a_view_declared_after_the_first_elements_is_the_one_linted(tmp_path, monkeypatch):
    """A `_meta` after more of the file than the reader takes when it opens it is known
    only once the tools are read: the catalog is then linted again as that view, in
    every batch (no MR401: a compact view has no prose on purpose); an explicit view wins."""
    monkeypatch.setattr(stream, "CHUNK", 257)     # (the file is read a piece at a time)
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 2)
    tool = {"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    tools = [dict(tool, name=f"t{i}", description=f"tool {i}") for i in range(60)]
    path = _write(tmp_path, "tail", {"tools": tools, "_meta": {"toolcat/view": "compact"}},
                  None)
    whole = _findings(path, False, monkeypatch)
    assert "MR401" not in {f[0] for f in whole}
    assert _findings(path, True, monkeypatch) == whole
    from toolcat.features.lint.engine import lint

    for streamed in (True, False):
        res = lint(_load(path, streamed, monkeypatch), Config(), "mcp", view="standard")
        assert "MR401" in {f.code for f in res.findings}


def _figures(path: str, streamed: bool, monkeypatch, **popts) -> list[dict]:
    from toolcat.features.measure import measure_catalogs
    from toolcat.features.project import ProjectOptions

    cats = _load(path, streamed, monkeypatch)
    from toolcat import tokens

    figs = measure_catalogs(cats, ProjectOptions(**popts), per_tool=True,
                            counter=tokens.Counter())
    return [dict(f.to_json(), tool_figures=[t.to_json() for t in f.tool_figures],
                 notes=(f.input_schema_note, f.duplicate_note), tokens_lossless=f.tokens_lossless)
            for f in figs]


@pytest.mark.parametrize("name,doc", CATALOGS[::2])
def test_measure_streamed_counts_what_measure_whole_counts(tmp_path, monkeypatch, name, doc):
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 3)
    path = _write(tmp_path, name, doc, None)
    for popts in ({}, {"output_schema": False}, {"to": "openwop"}, {"view": "standard"}):
        assert _figures(path, True, monkeypatch, **popts) == \
            _figures(path, False, monkeypatch, **popts)


def test_measure_streamed_memos_last_a_batch(tmp_path, monkeypatch):
    """The breakdown's memos hold the objects they sized: a streamed catalog gets new ones
    for each batch (memory: a batch's tools, not the catalog's), the same figures."""
    import importlib

    m = importlib.import_module("toolcat.features.measure")
    made: list = []

    class Counted(m._Breakdown):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(m, "_Breakdown", Counted)
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 3)
    prop = {"type": "string", "description": "x" * 1200}
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {
        "a": dict(prop, title=f"a{i}"), "b": {"type": "array", "items": dict(prop)}}}}
        for i in range(12)]
    path = _write(tmp_path, "big", {"tools": tools}, None)
    streamed = _figures(path, True, monkeypatch)
    assert len(made) == 4 and all(b.sizes or b.prose for b in made)
    del made[:]
    assert _figures(path, False, monkeypatch) == streamed
    assert len(made) == 1


def test_measure_of_ids_repeated_across_batches_is_the_whole_measure(tmp_path, monkeypatch):
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 2)
    tools = [{"name": n, "description": f"tool {i}"} for i, n in enumerate("abcab")]
    path = _write(tmp_path, "dup", {"tools": tools}, None)
    whole = _figures(path, False, monkeypatch)
    assert whole[0]["notes"][0] and whole[0]["notes"][1]      # no input schemas; duplicates
    assert _figures(path, True, monkeypatch) == whole


@pytest.mark.parametrize("options", [
    ["--to", "anthropic", "--defer", "all"], ["--lossless"], ["--for", "claude-desktop"],
    ["--to", "openai-strict", "--top", "3"], ["-f", "json", "--description-max", "40"],
])
def test_a_streamed_catalog_measures_as_one_read_whole_with_every_option(tmp_path, options):
    """A tools list large enough to be read a batch at a time (480 tools, names repeated):
    with --defer, measure projected it whole, and the projection asked for the catalog's tool
    names in the middle of its pass over the stream (an internal RuntimeError, exit 2)."""
    from support.common import SAMPLES, run_toolcat

    tools = json.loads((SAMPLES / "git.tools.json").read_text())["tools"]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"tools": [dict(t, name=f"{t['name']}_{i}") for i in range(20)
                                          for t in tools] + tools * 20}))
    args = ["measure", str(path), *options]
    whole = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": str(1 << 40)})
    streamed = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": "100"})
    assert whole.returncode == 0, whole.stderr
    assert (streamed.returncode, streamed.stdout, streamed.stderr) == \
        (whole.returncode, whole.stdout, whole.stderr)


@pytest.mark.parametrize("options", [["--to", "anthropic", "--defer", "all"],
                                     ["--to", "openai-strict"]])
def test_a_real_streamed_tools_list_measures_as_one_read_whole(options):
    """The same on a real catalog of the outside corpus: Okta's MCP server (docker/mcp-registry
    tools.json, 108 tools) read a batch at a time; both option sets ended in an internal
    error before."""
    from support.common import run_toolcat
    from support.outside import outside

    args = ["measure", str(outside("docker-okta-mcp-server")), *options]
    whole = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": str(1 << 40)})
    streamed = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": "100"})
    assert whole.returncode == 0, whole.stderr
    assert (streamed.returncode, streamed.stdout, streamed.stderr) == \
        (whole.returncode, whole.stdout, whole.stderr)


@pytest.mark.parametrize("command", ["lint", "measure"])
def test_the_cli_reports_a_broken_streamed_file_as_a_file_read_whole(tmp_path, command):
    """One error line and exit 2 for the broken file; with lint, the other inputs' findings
    are printed first, as when the broken file is read whole and refused by the loader."""
    from support.common import run_toolcat

    tools = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "integer"}}}} for i in range(300)]
    text = json.dumps({"tools": tools}, indent=2)
    broken = tmp_path / "broken.json"
    broken.write_text(text[:len(text) * 2 // 3] + "]]" + text[len(text) * 2 // 3:])
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tools": tools[:3]}))
    args = [command, str(good), str(broken)] if command == "lint" else [command, str(broken)]
    whole = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": str(1 << 40)})
    streamed = run_toolcat(*args, env={"TOOLCAT_STREAM_THRESHOLD": "100"})
    assert whole.returncode == 2
    assert b"broken.json:" in whole.stderr and b"invalid JSON" in whole.stderr
    assert (streamed.returncode, streamed.stdout, streamed.stderr) == \
        (whole.returncode, whole.stdout, whole.stderr)
    if command == "lint":
        assert b"good.json" in whole.stdout


@pytest.mark.parametrize("head", [b"\xff\xfe", b"\xef\xbb\xbf  x", b"{\"tools\": [1, }", b"  "])
def test_a_file_whose_start_is_broken_is_read_whole(tmp_path, head):
    """Not a JSON array or object, or broken before the first elements: the file is read
    whole, and that reader's error is the one given."""
    f = tmp_path / "x.json"
    f.write_bytes(head + b" " * 200)
    assert stream.open_array(str(f), 1 << 30, 256) is None


def test_measure_streamed_definitions_memos_last_a_batch(tmp_path, monkeypatch):
    """The memos of definitions entries and groups (DescriptorParts, the views' Seen) hold
    the objects they met: a streamed catalog forgets them after each batch (memory: a
    batch's tools, not the catalog's, whose tools each bring their own definitions), the
    same figures as read whole."""
    import importlib

    m = importlib.import_module("toolcat.features.measure")
    held: list = []
    add = m._Sums.add

    def counted(self, pts, dialects):
        held.append((len(self.writer.entries), len(self.seen.groups)))
        return add(self, pts, dialects)

    monkeypatch.setattr(m._Sums, "add", counted)
    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 3)
    tools = [{"name": f"t{i}", "description": f"tool {i}", "inputSchema": {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "string", "description": f"the {i}th"}}}} for i in range(30)]
    path = _write(tmp_path, "defs", {"tools": tools}, None)
    streamed = _figures(path, True, monkeypatch)
    assert len(held) == 10 and max(held) == (0, 0)
    assert _figures(path, False, monkeypatch) == streamed
