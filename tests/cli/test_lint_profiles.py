"""`toolcat lint --profile A,B`: several profiles in one run, each finding naming its profiles,
and the tools x profiles compatibility matrix in text, Markdown and JSON."""

from __future__ import annotations

import json

from support.lint import mcp, write
from toolcat.cli import run as cli_run

# closed with every property required (what OpenAI strict asks; Gemini's closed Schema object
# has no additionalProperties), open with an optional property (OpenAI strict refuses it), and
# closed with a type array (Gemini takes one type)
OK = {"name": "ok", "description": "Finds notes that hold a word.",
      "inputSchema": {"type": "object", "properties": {"q": {"type": "string",
                                                             "description": "Q."}},
                      "required": ["q"], "additionalProperties": False}}
LOOSE = {"name": "loose", "description": "Finds notes; the word is optional.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string",
                                                                "description": "Q."}}}}
UNION = {"name": "union", "description": "Finds notes by a word or a number.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": ["string", "integer"],
                                                                "description": "Q."}},
                         "required": ["q"], "additionalProperties": False}}
PROFILES = "openai-strict,gemini,anthropic"


def lint(capfd, *args):
    code = cli_run(["lint", *map(str, args)])
    out, err = capfd.readouterr()
    return code, out, err


def test_json_matrix_and_profiles_per_finding(capfd, tmp_path):
    p = write(tmp_path, mcp(OK, LOOSE, UNION))
    code, out, err = lint(capfd, p, "--profile", PROFILES, "--format", "json")
    assert code == 1, err
    data = json.loads(out)
    m = data["matrix"]
    assert m["profiles"] == ["openai-strict", "gemini", "anthropic"]
    cells = {r["tool"]: r["results"] for r in m["tools"]}
    assert cells == {
        "ok": {"openai-strict": "ok", "gemini": "errors", "anthropic": "ok"},
        "loose": {"openai-strict": "errors", "gemini": "ok", "anthropic": "ok"},
        "union": {"openai-strict": "ok", "gemini": "errors", "anthropic": "ok"}}
    assert m["totals"]["openai-strict"] == {"ok": 2, "warnings": 0, "errors": 1}
    # every finding names the profiles that report it, and only those
    for f in data["findings"]:
        assert f["profiles"] and set(f["profiles"]) <= set(m["profiles"])
        assert all(cells[f["tool"]][pr] != "ok" for pr in f["profiles"]
                   if f["severity"] == "error")
    assert {tuple(f["profiles"]) for f in data["findings"] if f["tool"] == "loose"} == {
        ("openai-strict",)}
    # one profile: the report has the shape it always had
    code, out, _ = lint(capfd, p, "--profile", "gemini", "--format", "json")
    data = json.loads(out)
    assert "matrix" not in data and all("profiles" not in f for f in data["findings"])


def test_text_and_markdown_matrix(capfd, tmp_path):
    p = write(tmp_path, mcp(OK, LOOSE, UNION))
    code, out, _ = lint(capfd, p, "--profile", PROFILES)
    assert code == 1
    assert "[openai-strict]" in out and "[gemini]" in out
    table = out[out.index("Compatibility (tools x profiles)"):].splitlines()
    assert table[1].split() == ["tool", "openai-strict", "gemini", "anthropic"]
    assert table[3].split() == ["loose", "errors", "ok", "ok"]
    assert table[2].split() == ["ok", "ok", "errors", "ok"]
    assert table[-1].split() == ["tools", "ok", "2/3", "1/3", "3/3"]
    code, out, _ = lint(capfd, p, "--profile", PROFILES, "--format", "markdown")
    assert "| tool | openai-strict | gemini | anthropic |" in out
    assert "| union | ok | **errors** | ok |" in out
    assert "| **tools ok** | 2/3 | 1/3 | 3/3 |" in out


def test_profiles_from_config_list_and_unknown_profile(capfd, tmp_path, monkeypatch):
    p = write(tmp_path, mcp(OK, LOOSE))
    (tmp_path / "toolcat.toml").write_text('profile = ["openai-strict", "anthropic"]\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capfd, p, "--format", "json")
    assert json.loads(out)["matrix"]["profiles"] == ["openai-strict", "anthropic"]
    code, out, err = lint(capfd, p, "--profile", "openai-strict,nope")
    assert code == 2 and err.startswith("toolcat: error: ") and "'nope'" in err
    (tmp_path / "toolcat.toml").write_text('profile = ["openai-strict", 3]\n')
    code, out, err = lint(capfd, p)
    assert code == 2 and "profile" in err


def test_mcp_version_option(capfd, tmp_path):
    t = dict(OK, execution={"taskSupport": "sometimes"})
    p = write(tmp_path, mcp(t))
    assert lint(capfd, p, "--select", "MC109")[0] == 0                 # 2026-07-28: no rule
    code, out, _ = lint(capfd, p, "--select", "MC109", "--mcp-version", "2025-11-25")
    assert code == 1 and "MC109" in out
    code, _, err = lint(capfd, p, "--mcp-version", "2024-01-01")
    assert code == 2 and "--mcp-version" in err


def test_matrix_escapes_control_characters(capfd, tmp_path):
    bad = dict(OK, name="a\x1b[31mb")
    p = write(tmp_path, mcp(bad))
    for fmt, head in (("text", "Compatibility"), ("markdown", "| tool |")):
        _code, out, _ = lint(capfd, p, "--profile", "openai,gemini", "--format", fmt)
        matrix = out[out.index(head):]
        # (Markdown escapes the bracket: catalog text is never a link there)
        want = "x1b[31mb" if fmt == "text" else "x1b\\[31mb"
        assert "\x1b" not in matrix and want in matrix, fmt


def test_strict_profiles_report_a_schema_of_any_value(capfd, tmp_path):
    """PV511: strict modes need a type for every schema; `{}` (or only prose) is refused.
    A tool sent with strict false is not held to it, nor are the non-strict profiles."""
    anyv = {"name": "anyv", "description": "Any x.",
            "inputSchema": {"type": "object", "additionalProperties": False,
                            "required": ["x", "y"],
                            "properties": {"x": {"description": "Anything."},
                                           "y": {"type": "array", "items": {},
                                                 "description": "Y."}}}}
    p = write(tmp_path, mcp(anyv))
    for profile in ("openai-strict", "anthropic-strict"):
        code, out, err = lint(capfd, p, "--profile", profile, "--select", "PV511",
                              "--format", "json")
        found = sorted(f["pointer"] for f in json.loads(out)["findings"])
        assert code == 1, err
        assert found == ["/inputSchema/properties/x", "/inputSchema/properties/y/items"]
    code, out, _ = lint(capfd, p, "--profile", "openai", "--select", "PV511",
                        "--format", "json")
    assert code == 0 and json.loads(out)["findings"] == []
    loose = tmp_path / "loose.openai.json"
    loose.write_text(json.dumps([{"type": "function", "function": {
        "name": "anyv", "description": "Any x.", "strict": False,
        "parameters": anyv["inputSchema"]}}]), encoding="utf-8")
    code, out, _ = lint(capfd, loose, "--profile", "openai-strict", "--select", "PV511",
                        "--format", "json")
    assert code == 0 and json.loads(out)["findings"] == []
