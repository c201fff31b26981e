"""Findings kept on disk (features/lint/spill.py) and the reports written from them a part at
a time: the same order as the sorted list, the same report bytes (text, concise, json,
sarif) on real catalogs, read whole and streamed."""

from __future__ import annotations

import json
import random

import pytest

from support.common import CORPUS, run_toolcat
from toolcat.config import Config
from toolcat.features.lint.render import Report, chunks, render
from toolcat.features.lint.spill import SpilledFindings
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats import mcp as mcp_format
from toolcat.model import Finding

BOX = CORPUS / "openapi" / "box.openapi.json"
FORMATS = ("text", "concise", "json", "sarif")


def _row(f: Finding) -> tuple:
    return (f.code, f.severity, f.message, f.file, f.tool, f.pointer, f.line, f.column,
            f.source_pointer, f.profiles)


def _linted(path: str):
    from toolcat.features.lint.engine import lint

    cats = load_catalogs([path], LoadOptions(strict=False))
    return cats, lint(cats, Config(), "mcp")


def _need(path) -> None:
    if not path.exists():
        pytest.skip(f"corpus not available: {path} (set TOOLCAT_SHARED to the shared folder)")


@pytest.mark.parametrize("seed", range(6))
def test_spilled_findings_come_back_as_the_stable_sort_of_their_runs(seed, monkeypatch):
    """Runs in any order inside, with findings of equal keys across runs (the same finding
    twice): iterating gives what sorted(run1 + run2 + ...) gives, every time."""
    _need(BOX)
    from toolcat.features.lint import spill

    monkeypatch.setattr(spill, "_CHUNK", 7)        # several chunks per run, read side by side
    _cats, res = _linted(str(BOX))
    fs = list(res.findings)
    assert len(fs) > 500
    rnd = random.Random(seed)
    rnd.shuffle(fs)
    fs += fs[:50]                                  # equal keys in two runs
    cuts = sorted(rnd.sample(range(1, len(fs)), 9))
    runs = [fs[a:b] for a, b in zip([0, *cuts], [*cuts, len(fs)])]
    store = SpilledFindings()
    for r in runs:
        store.add(r)
    want = [_row(f) for f in sorted(fs, key=Finding.sort_key)]
    assert [_row(f) for f in store] == want
    assert [_row(f) for f in store] == want       # read again
    assert len(store) == len(fs)
    assert store.counts() == {s: sum(1 for f in fs if f.severity == s)
                              for s in ("error", "warning", "info")}


def test_a_truncated_store_forgets_the_runs_after_the_mark() -> None:
    _need(BOX)
    _cats, res = _linted(str(BOX))
    fs = list(res.findings)
    store = SpilledFindings()
    store.add(fs[:100])
    mark = store.mark()
    store.add(fs[100:300])
    store.truncate(mark)
    store.add(fs[300:400])
    assert [_row(f) for f in store] == \
        [_row(f) for f in sorted(fs[:100] + fs[300:400], key=Finding.sort_key)]
    assert len(store) == 200


def test_reports_of_spilled_findings_are_the_reports_of_the_list() -> None:
    """Box's OpenAPI spec: a shared component is reported between two operations, so tools'
    findings are not all adjacent in the sorted list (the text report gathers them): the
    spilled findings give the same text, concise, json and sarif, whole and in parts."""
    _need(BOX)
    from toolcat.features.lint import registry

    cats, res = _linted(str(BOX))
    fs = list(res.findings)
    seen, split, cur = set(), 0, None
    for f in fs:
        if (f.file, f.tool) != cur:
            cur = (f.file, f.tool)
            split += cur in seen
            seen.add(cur)
    assert split, "a tool met again after another: the case the text report regroups"
    store = SpilledFindings()
    for i in range(0, len(fs), 97):
        store.add(fs[i:i + 97])

    def report(findings) -> Report:
        return Report(findings=findings, files=res.files, tools=res.tools,
                      profile=res.profile, sources=res.sources, rules=registry.all_rules())

    for fmt in FORMATS:
        whole = render(fmt, report(fs))
        assert render(fmt, report(store)) == whole, fmt
        assert "".join(chunks(fmt, report(store))) == whole, fmt
    assert json.loads(render("json", report(store)))["summary"]["warnings"] == \
        res.counts()["warning"]


def _mcp_catalogs() -> list:
    out = []
    caps = sorted((CORPUS / "mcp-context-cost").glob("*.json"))
    for p in caps[::9]:
        raw = json.loads(p.read_text())
        tools = raw.get("rawToolsCapture") if isinstance(raw, dict) else None
        if isinstance(tools, list) and len(tools) > 3:
            out.append(pytest.param(p.stem, {"tools": tools}, id=p.stem))
    snaps = [json.loads(p.read_text())
             for p in sorted((CORPUS / "github-mcp-server").glob("*.snap"))]
    if snaps:
        out.append(pytest.param("github", {"jsonrpc": "2.0", "id": 1,
                                           "result": {"tools": snaps}}, id="github"))
    return out or [pytest.param("none", None, marks=pytest.mark.skip(
        reason=f"corpus not available: {CORPUS} (set TOOLCAT_SHARED to the shared folder)"))]


@pytest.mark.parametrize("name,doc", _mcp_catalogs())
def test_the_cli_writes_a_streamed_catalogs_report_as_the_whole_one(tmp_path, monkeypatch,
                                                                      name, doc):
    """The CLI's lint of a streamed tools list (3 tools a batch: many runs to merge) spills
    its findings and writes the report a part at a time: the same bytes and exit code as the
    file read whole, in every streamed format."""
    from toolcat.features.lint import spill

    monkeypatch.setattr(mcp_format, "BATCH_TOOLS", 3)
    added: list[int] = []
    real_add = spill.SpilledFindings.add

    def add(self, findings):
        added.append(1)
        return real_add(self, findings)

    monkeypatch.setattr(spill.SpilledFindings, "add", add)
    path = tmp_path / f"{name}.json"
    # (indented: a streamed one-line file shows no source excerpt, README "Large catalogs")
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    for fmt in FORMATS:
        monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", str(1 << 40))
        whole = run_toolcat("lint", "-f", fmt, str(path))
        assert not added
        monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", "1")
        streamed = run_toolcat("lint", "-f", fmt, str(path))
        assert len(added) > 1, "spilled in runs"
        added.clear()
        assert (streamed.returncode, streamed.stdout, streamed.stderr) == \
            (whole.returncode, whole.stdout, whole.stderr), fmt
    # the description score of a streamed catalog: its tools read again, never all held
    for fmt in ("text", "json"):
        monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", str(1 << 40))
        whole = run_toolcat("lint", "--statistics", "-f", fmt, str(path))
        monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", "1")
        streamed = run_toolcat("lint", "--statistics", "-f", fmt, str(path))
        assert b"Description score" in whole.stdout or b'"score"' in whole.stdout
        assert (streamed.returncode, streamed.stdout) == (whole.returncode, whole.stdout)
