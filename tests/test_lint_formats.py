"""Output formats of `toolcat lint`: json shape, SARIF 2.1.0 validity, github, junit, text."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_lint_support import line_of, mcp, tool, write

from toolcat.cli import run as cli_run

SARIF_SCHEMA = Path(__file__).parent / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"


def lint_out(capfd, *args) -> tuple[int, str, str]:
    code = cli_run(["lint", *map(str, args)])
    out, err = capfd.readouterr()
    return code, out, err


@pytest.fixture
def catalog(tmp_path):
    t = tool(q={"type": "string", "description": "Q.", "oneOf": [{"minLength": 1}]},
             r={"type": "integer", "description": "R.", "default": "x"})
    t2 = tool("bad name", "Other.")
    return write(tmp_path, mcp(t, t2))


def test_json_shape(capfd, catalog):
    code, out, _ = lint_out(capfd, catalog, "--format", "json")
    assert code == 1                                    # TC102 is an error
    data = json.loads(out)
    assert set(data) == {"findings", "summary"}
    assert set(data["summary"]) == {"errors", "warnings", "infos", "files", "tools"}
    assert data["summary"]["files"] == 1 and data["summary"]["tools"] == 2
    keys = {"code", "severity", "message", "file", "line", "column", "tool", "pointer"}
    assert data["findings"] and all(set(f) == keys for f in data["findings"])
    by = {f["code"]: f for f in data["findings"]}
    assert by["CS203"]["line"] == line_of(catalog, '"oneOf"')
    assert by["CS203"]["pointer"] == "/inputSchema/properties/q/oneOf"
    assert by["TC102"]["tool"] == "bad name"
    n = {s: sum(1 for f in data["findings"] if f["severity"] == s)
         for s in ("error", "warning", "info")}
    assert (data["summary"]["errors"], data["summary"]["warnings"], data["summary"]["infos"]) \
        == (n["error"], n["warning"], n["info"])


def test_sarif_valid_against_schema(capfd, catalog, tmp_path):
    from jsonschema import Draft7Validator

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    out_file = tmp_path / "out.sarif"
    code, out, _ = lint_out(capfd, catalog, "--format", "sarif", "-o", out_file)
    assert code == 1 and out == ""
    log = json.loads(out_file.read_text(encoding="utf-8"))
    errors = sorted(Draft7Validator(schema).iter_errors(log), key=str)
    assert not errors, errors[:3]
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
    cs = [r for r in run["results"] if r["ruleId"] == "CS203"][0]
    region = cs["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == line_of(catalog, '"oneOf"')
    # also valid for a clean run and for a catalog from a folder with spaces in its name
    spaced = tmp_path / "a folder"
    spaced.mkdir()
    clean = write(spaced, mcp(tool()), "clean tools.json")
    code, out, _ = lint_out(capfd, clean, "--format", "sarif", "--ignore", "MR")
    assert code == 0
    assert not list(Draft7Validator(schema).iter_errors(json.loads(out)))


def test_github_annotations(capfd, catalog):
    code, out, _ = lint_out(capfd, catalog, "--format", "github")
    lines = out.strip().splitlines()
    assert lines and all(re.match(r"^::(error|warning|notice) file=[^,]+(,line=\d+,col=\d+)?,"
                                  r"title=[A-Z]{2}\d{3}::.+", ln) for ln in lines), lines
    cs = [ln for ln in lines if "title=CS203" in ln][0]
    assert cs.startswith("::warning ") and f"line={line_of(catalog, chr(34) + 'oneOf')}," in cs


def test_junit(capfd, catalog):
    code, out, _ = lint_out(capfd, catalog, "--format", "junit")
    root = ET.fromstring(out)
    assert root.tag == "testsuites"
    failures = root.findall(".//failure")
    assert [f.get("type") for f in failures] == ["TC102"]     # only errors fail by default
    code, out, _ = lint_out(capfd, catalog, "--format", "junit", "--fail-on", "warning")
    assert len(ET.fromstring(out).findall(".//failure")) > 1


def test_text_groups_and_caret(capfd, catalog):
    code, out, _ = lint_out(capfd, catalog)
    assert out.startswith(str(catalog) + "\n")
    assert "\n  tool search\n" in out and "\n  tool bad name\n" in out
    assert "\x1b[" not in out                                  # not a terminal: plain text
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if "CS203" in ln)
    src_line = line_of(catalog, '"oneOf"')
    text = catalog.read_text().splitlines()[src_line - 1]
    assert lines[i + 1].strip() == f"{src_line} | {text}".strip()
    caret = lines[i + 2]
    col = text.index("[") + 1                                  # the value of "oneOf"
    assert caret.index("^") - caret.index("|") - 2 == col - 1
    assert re.search(r"^Found 1 error, \d+ warnings?, \d+ infos? in 1 file, 2 tools\.$", out,
                     re.M)


def test_quiet_and_clean(capfd, tmp_path):
    p = write(tmp_path, mcp(tool()))
    code, out, _ = lint_out(capfd, p)
    assert code == 0 and out == "No problems found in 1 file, 1 tool.\n"
    code = cli_run(["--quiet", "lint", str(p)])
    assert code == 0 and capfd.readouterr()[0] == ""
