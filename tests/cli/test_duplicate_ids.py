"""Two tools with one id (issue 12 item 11; SendGrid's official spec has two `POST-design`
operations): `project` stops with one error naming both places, or with `--duplicate-ids
rename` makes the later ids unique, deterministically, and says so; never an output with
duplicate names. `measure` (which writes no catalog) counts them as they are, with a note;
lint TC101 says where the first one is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support.common import corpus, run_toolcat

SPEC = """\
openapi: 3.0.0
info: {title: t, version: "1"}
paths:
  /a:
    post:
      operationId: X
      responses: {"200": {description: ok}}
  /b:
    post:
      operationId: X
      responses: {"200": {description: ok}}
  /c:
    get:
      operationId: X_2
      responses: {"200": {description: ok}}
  /d:
    get:
      operationId: X
      responses: {"200": {description: ok}}
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    p = tmp_path / "dup.yaml"
    p.write_text(SPEC)
    return p


def test_an_error_names_both_operations(spec: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    for extra in ([], ["--view", "standard"], ["--handbook", str(tmp_path / "hb.json")],
                  ["--to", "openai"], ["--to", "openwop"]):
        r = run_toolcat("project", str(spec), "-o", str(out), *extra)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        # the second operation's place (where it starts) is the error's, the first one's
        # is named
        assert re.fullmatch(
            rf"toolcat: error: {re.escape(str(spec))}:10:\d+: duplicate tool id '(connector:)?X' \(post /b\): "
            rf"also at {re.escape(str(spec))}:6 \(post /a\); .*--duplicate-ids rename.*",
            lines[0]), lines[0]
        assert not out.exists() and not (tmp_path / "hb.json").exists()


@pytest.mark.parametrize("target,key", [("mcp", None), ("openai", "function"),
                                        ("anthropic", None), ("openwop", None)])
def test_rename_is_deterministic_and_reported(spec: Path, tmp_path: Path, target: str,
                                              key: str | None) -> None:
    out, hb, rep = tmp_path / "out.json", tmp_path / "hb.json", tmp_path / "report.json"
    r = run_toolcat("project", str(spec), "--to", target, "--duplicate-ids", "rename",
                    "-o", str(out), "--handbook", str(hb), "--report", str(rep))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    tools = doc["tools"] if isinstance(doc, dict) else doc

    def name(t: dict) -> str:
        body = t[key] if key else t
        return body.get("toolId") or body["name"]

    names = [name(t) for t in tools]
    prefix = "connector:" if target == "openwop" else ""
    # input order; X_2 is the third operation's own id, so the later X become X_3 and X_4
    assert names == [prefix + n for n in ("X", "X_3", "X_2", "X_4")]
    # the handbook has every tool, under the new ids, and its descriptors carry them
    book = json.loads(hb.read_text())["tools"]
    assert list(book) == names
    assert all(name(book[n]) == n for n in names)
    report = json.loads(rep.read_text())
    renamed = {t["id"]: t.get("renamed_from") for t in report["tools"]}
    assert renamed == {names[0]: None, names[1]: prefix + "X", names[2]: None,
                       names[3]: prefix + "X"}
    (dup,) = report["duplicate_ids"]
    assert [(t["line"], t["where"], t["id"]) for t in dup["tools"]] == [
        (6, "post /a", prefix + "X"), (10, "post /b", names[1]), (18, "get /d", names[3])]
    # the same again: the same bytes
    again = run_toolcat("project", str(spec), "--to", target, "--duplicate-ids", "rename")
    assert again.stdout == out.read_bytes()
    assert "renamed duplicate tool ids" in r.stderr.decode()


def test_renamed_ids_stay_within_64_characters(tmp_path: Path) -> None:
    long = "a" * 64
    tools = [{"name": long, "inputSchema": {"type": "object"}}] * 2
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"tools": tools}))
    r = run_toolcat("-q", "project", str(p), "--duplicate-ids", "rename")
    assert r.returncode == 0, r.stderr
    names = [t["name"] for t in json.loads(r.stdout)["tools"]]
    assert names == [long, "a" * 62 + "_2"]


def test_measure_counts_them_with_a_note(spec: Path) -> None:
    r = run_toolcat("measure", str(spec), "-f", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["catalogs"][0]["tools"] == 4
    err = r.stderr.decode()
    assert "duplicate tool ids: 'X' at" in err and "(post /b)" in err and "(get /d)" in err


def test_lint_names_the_first_ones_line(spec: Path) -> None:
    r = run_toolcat("lint", str(spec), "--select", "TC101", "--format", "json")
    assert r.returncode == 1
    msgs = [(f["line"], f["message"]) for f in json.loads(r.stdout)["findings"]]
    assert msgs == [(10, "duplicate toolId 'X' (first used by tool #1, line 6)"),
                    (18, "duplicate toolId 'X' (first used by tool #1, line 6)")]


def test_sendgrid(tmp_path: Path) -> None:
    """SendGrid's own spec: `POST /designs` and `POST /designs/{id}` are both POST-design."""
    src = corpus("openapi", "sendgrid-v3.swagger2.yaml")
    if not src.exists():
        pytest.skip("corpus not present")
    r = run_toolcat("-q", "project", str(src), "-o", str(tmp_path / "o.json"))
    assert r.returncode == 2
    assert b"duplicate tool id 'POST-design' (post /designs)" in r.stderr
    assert b"(post /designs/{id})" in r.stderr
    r = run_toolcat("-q", "project", str(src), "--duplicate-ids", "rename")
    assert r.returncode == 0
    names = [t["name"] for t in json.loads(r.stdout)["tools"]]
    assert len(names) == len(set(names))
    assert "POST-design" in names and "POST-design_2" in names
