"""Output formats of `toolcat lint`: json shape, SARIF 2.1.0 validity, github, junit, text."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from support.common import FIXTURES
from support.lint import line_of, mcp, tool, write
from toolcat.cli import run as cli_run

SARIF_SCHEMA = FIXTURES / "sarif" / "sarif-schema-2.1.0.json"


def lint_out(capfd, *args) -> tuple[int, str, str]:
    # CS203 (a compact-view rule, not the mcp profile's) is the node rule these tests follow
    code = cli_run(["lint", "--extend-select", "CS", *map(str, args)])
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
    assert cs.startswith("::error ") and f"line={line_of(catalog, chr(34) + 'oneOf')}," in cs


def test_junit(capfd, catalog):
    code, out, _ = lint_out(capfd, catalog, "--format", "junit")
    root = ET.fromstring(out)
    assert root.tag == "testsuites"
    failures = root.findall(".//failure")
    assert [f.get("type") for f in failures] == ["CS203", "TC102"]   # only errors fail
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
    assert re.search(r"^Found 2 errors, \d+ warnings?, \d+ infos? in 1 file, 2 tools\.$", out,
                     re.M)


def test_quiet_and_clean(capfd, tmp_path):
    p = write(tmp_path, mcp(tool()))
    code, out, _ = lint_out(capfd, p)
    assert code == 0 and out == "No problems found in 1 file, 1 tool.\n"
    code = cli_run(["--quiet", "lint", str(p)])
    assert code == 0 and capfd.readouterr()[0] == ""


def test_text_snippet_window_on_a_one_line_catalog(capfd, tmp_path):
    # a compact one-line JSON file: the "source line" of every finding is the whole file
    tools = [tool(f"t{i}", "Does a thing.", **{f"p{i}": {"type": "string"}}) for i in range(400)]
    p = tmp_path / "one-line.json"
    p.write_text(json.dumps(mcp(*tools), separators=(",", ":")), encoding="utf-8")
    whole = p.read_text(encoding="utf-8")
    assert "\n" not in whole and len(whole) > 30_000
    code, out, _ = lint_out(capfd, p)
    lines = out.splitlines()
    rows = [i for i, ln in enumerate(lines) if "MR401" in ln]
    assert len(rows) == 400                                     # one per tool
    for i in rows:
        pos = re.search(r"^\s+1:(\d+)\s", lines[i])
        assert pos, lines[i]
        col = int(pos.group(1))
        src, caret = lines[i + 1], lines[i + 2]
        assert src.startswith("      1 | ") and caret.startswith("        | ")
        shown = src[len("      1 | "):]
        assert len(shown) <= 161                                # the window, plus "…"
        k = caret.index("^") - len("        | ")
        # the caret sits on the character the column names in the file
        assert shown[k] == whole[col - 1]
        # the window is a piece of the line around the column
        body = shown[1:] if shown.startswith("…") else shown
        start = col - 1 - (k - (1 if shown.startswith("…") else 0))
        assert whole[start:start + len(body)] == body
    name_at = [whole[int(re.search(r"1:(\d+)", lines[i]).group(1)) - 1:][:8] for i in rows]
    assert all(s.startswith("{") for s in name_at), name_at[:3]    # the parameter's schema


def test_text_tabs_in_the_window(capfd, tmp_path):
    p = tmp_path / "tabs.json"
    body = json.dumps(mcp(tool(q={"type": "string"})), indent=1).replace("\n ", "\n\t")
    p.write_text(body, encoding="utf-8")
    code, out, _ = lint_out(capfd, p)
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if "MR401" in ln)
    line_no = line_of(p, '"q"')
    raw = p.read_text(encoding="utf-8").splitlines()[line_no - 1]
    assert "\t" in raw
    assert lines[i + 1] == f"      {line_no} | " + raw.replace("\t", " ")
    col = int(re.search(r"(\d+):(\d+)", lines[i]).group(2))
    caret = lines[i + 2]
    assert caret.index("^") - caret.index("|") - 2 == col - 1
    assert raw[col - 1] == "{"


def test_text_one_header_per_tool(capfd, tmp_path):
    # opA's shared component is reported at its own line, after opB's finding: the text
    # report still shows each tool once, with its findings in position order
    spec = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: opA
      description: A.
      parameters:
        - name: q
          in: query
          schema: {type: string}
        - name: r
          in: query
          description: R.
          schema: {$ref: '#/components/schemas/Kind'}
  /b:
    get:
      operationId: opB
      description: B.
      parameters:
        - name: s
          in: query
          schema: {type: string}
components:
  schemas:
    Kind:
      oneOf:
        - {type: string}
        - {type: integer}
"""
    p = write(tmp_path, spec, "api.yaml")
    code, out, _ = lint_out(capfd, p, "--format", "json")
    found = json.loads(out)["findings"]
    by_line = sorted((f["line"], f["tool"]) for f in found)
    tools_in_line_order = [t for _l, t in by_line]
    assert tools_in_line_order.index("opB") < len(tools_in_line_order) - 1   # interleaved
    code, out, _ = lint_out(capfd, p)
    lines = out.splitlines()
    headers = [ln.strip() for ln in lines if ln.startswith("  tool ")]
    assert headers == ["tool opA", "tool opB"]
    cur, got = None, {}
    for ln in lines:
        if ln.startswith("  tool "):
            cur = ln.split()[1]
        m = re.match(r"^    (\d+):(\d+)\s", ln)
        if m:
            got.setdefault(cur, []).append((int(m.group(1)), int(m.group(2))))
    want: dict = {}
    for f in sorted(found, key=lambda f: (f["line"], f["column"])):
        want.setdefault(f["tool"], []).append((f["line"], f["column"]))
    assert got == want
    assert got["opA"] == sorted(got["opA"])


def test_text_source_lines_counted_like_positions(capfd, tmp_path):
    # U+2028, U+0085 and form feeds inside JSON strings do not end a line (str.splitlines
    # would say they do and show the wrong line); CRLF line ends are not shown
    t = tool("a", "Line\u2028separator, next\x85line, form\x0cfeed.", q={"type": "string"})
    p = tmp_path / "odd.json"
    p.write_bytes(json.dumps(mcp(t), indent=2, ensure_ascii=False).replace("\n", "\r\n")
                  .encode("utf-8"))
    code, out, _ = lint_out(capfd, p)
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if "MR401" in ln)
    line_no = int(re.search(r"(\d+):\d+", lines[i]).group(1))
    want = p.read_bytes().decode("utf-8").split("\r\n")[line_no - 1]
    assert '"q"' in want
    assert lines[i + 1] == f"      {line_no} | {want}"


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_listed_findings_written_one_at_a_time(fmt):
    # a whole-read catalog's findings are a list: its report is still written a finding at a
    # time (100,000 SARIF results made at once took over a gigabyte), the same text
    from toolcat.features.lint.render import Report, chunks
    from toolcat.model import Finding

    fs = [Finding("TC102", "error", f"Bad {i}.", "t.json", f"t{i}", "", i + 1, 3, f"/tools/{i}")
          for i in range(5)]
    parts = list(chunks(fmt, Report(fs, 1, 5)))
    doc = json.loads("".join(parts))
    items = doc["runs"][0]["results"] if fmt == "sarif" else doc["findings"]
    assert [it["message"]["text"] if fmt == "sarif" else it["message"] for it in items] \
        == [f"Bad {i}." for i in range(5)]
    assert len(parts) >= len(fs) + 1
    empty = json.loads("".join(chunks(fmt, Report([], 1, 0))))
    assert (empty["runs"][0]["results"] if fmt == "sarif" else empty["findings"]) == []
