"""`toolcat lint` and `toolcat rule` on the command line: exit codes, config, baseline, inputs."""

from __future__ import annotations

import json
import os

import pytest

from support.common import SAMPLES, run_toolcat
from support.lint import mcp, tool, write
from toolcat.cli import run as cli_run
from toolcat.config import load_config
from toolcat.features.lint.registry import all_rules, rules_markdown


def lint_json(capfd, *args) -> tuple[int, dict | None, str]:
    code = cli_run(["lint", "--format", "json", *map(str, args)])
    out, err = capfd.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def warn_only(tmp_path, name="tools.json"):
    return write(tmp_path, mcp(tool(q={"type": "string"})), name)     # MR401 warning only


def test_exit_codes_and_fail_on(capfd, tmp_path):
    p = warn_only(tmp_path)
    assert lint_json(capfd, p)[0] == 0
    assert lint_json(capfd, p, "--fail-on", "warning")[0] == 1
    assert lint_json(capfd, p, "--fail-on", "info")[0] == 1
    bad = write(tmp_path, mcp(tool("bad name")), "bad.json")
    assert lint_json(capfd, bad)[0] == 1
    assert lint_json(capfd, bad, "--fail-on", "never")[0] == 0


def test_usage_and_input_errors_exit_2(capfd, tmp_path):
    p = warn_only(tmp_path)
    for args in (["--format", "xml"], ["--profile", "nope"], ["--fail-on", "sometimes"],
                 ["--select", "ZZ9"], ["--baseline", str(tmp_path / "none.json")]):
        code, _, err = lint_json(capfd, p, *args)
        assert code == 2, args
        assert err.startswith("toolcat: error:") and "Traceback" not in err
    code, _, err = lint_json(capfd, tmp_path / "missing.json")
    assert code == 2 and "no such file" in err
    broken = write(tmp_path, '{"tools": [', "broken.json")
    code, _, err = lint_json(capfd, broken)
    assert code == 2 and f"{broken}:1:" in err


def test_several_files_folders_and_stdin(capfd, tmp_path):
    a = warn_only(tmp_path, "a.json")
    sub = tmp_path / "more"
    sub.mkdir()
    write(sub, mcp(tool("x"), tool("y", "Other.")), "b.json")
    code, data, _ = lint_json(capfd, a, sub)
    assert code == 0
    assert data["summary"]["files"] == 2 and data["summary"]["tools"] == 3
    r = run_toolcat("lint", "-", "--format", "json", input=a.read_bytes())
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["findings"][0]["file"] == "-" and d["findings"][0]["code"] == "MR401"
    assert d["findings"][0]["line"] is not None


def test_output_file(capfd, tmp_path):
    p = warn_only(tmp_path)
    out = tmp_path / "report.json"
    code = cli_run(["lint", str(p), "--format", "json", "--output-file", str(out)])
    assert code == 0 and capfd.readouterr()[0] == ""
    assert json.loads(out.read_text())["summary"]["tools"] == 1
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".toolcat-")]


def test_baseline_hides_recorded_and_reports_new(capfd, tmp_path):
    t1 = tool("a", city={"type": "string"})
    p = write(tmp_path, mcp(t1))
    bl = tmp_path / "baseline.json"
    assert cli_run(["lint", str(p), "--write-baseline", str(bl)]) == 0
    capfd.readouterr()
    entries = json.loads(bl.read_text())["findings"]
    assert entries == [{"file": "tools.json", "code": "MR401", "tool": "a",
                        "pointer": "/inputSchema/properties/city", "count": 1}]
    code, data, _ = lint_json(capfd, p, "--baseline", bl, "--fail-on", "warning")
    assert code == 0 and data["findings"] == []
    # edits elsewhere (lines shift) keep the baseline valid; a new finding is reported
    t0 = tool("z", "First tool now.")
    t2 = tool("b", "Reads the weather of a city.", r={"type": "string"})
    write(tmp_path, mcp(t0, t1, t2))
    code, data, _ = lint_json(capfd, p, "--baseline", bl, "--fail-on", "warning")
    assert code == 1
    assert [(f["tool"], f["pointer"]) for f in data["findings"]] == [
        ("b", "/inputSchema/properties/r")]
    # from another working directory
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path / "..")
        code, data, _ = lint_json(capfd, p, "--baseline", bl)
        assert [f["tool"] for f in data["findings"]] == ["b"]
    finally:
        os.chdir(cwd)


def test_config_found_upwards(capfd, tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.toolcat]\nfail-on = "warning"\nignore = ["MR402"]\n'
        '[tool.toolcat.severity]\nSC307 = "error"\n'
        '[tool.toolcat.budgets]\nmax-tokens = 5000\ngate = "before"\n')
    p = write(proj / "sub", mcp(tool(q={"type": "integer", "description": "Q.",
                                        "default": "x", "enum": [1]})))
    monkeypatch.chdir(proj / "sub")
    cfg = load_config()
    assert cfg.path == str(proj / "pyproject.toml")
    assert cfg.budgets == {"max-tokens": 5000, "gate": "before"}
    code, data, _ = lint_json(capfd, p)
    assert code == 1
    assert {f["code"]: f["severity"] for f in data["findings"]} == {"SC307": "error"}
    # toolcat.toml in the same folder wins; --config overrides both
    (proj / "toolcat.toml").write_text('select = ["MR402"]\n')
    code, data, _ = lint_json(capfd, p)
    assert code == 0 and [f["code"] for f in data["findings"]] == ["MR402"]
    other = tmp_path / "other.toml"
    other.write_text('[tool.toolcat]\nprofile = "openai-strict"\nselect = ["PV502"]\n')
    code, data, _ = lint_json(capfd, p, "--config", other)
    assert code == 1 and {f["code"] for f in data["findings"]} == {"PV502"}


def test_config_per_file_ignores_and_errors(capfd, tmp_path, monkeypatch):
    (tmp_path / "gen").mkdir()
    p = warn_only(tmp_path / "gen")
    (tmp_path / "toolcat.toml").write_text('[per-file-ignores]\n"gen/*.json" = ["MR401"]\n')
    monkeypatch.chdir(tmp_path)
    code, data, _ = lint_json(capfd, p)
    assert data["findings"] == []
    (tmp_path / "toolcat.toml").write_text('selct = ["TC"]\n')
    code, _, err = lint_json(capfd, p)
    assert code == 2 and "selct" in err and "toolcat.toml" in err
    (tmp_path / "toolcat.toml").write_text('description-max = "long"\n')
    assert lint_json(capfd, p)[0] == 2


def test_description_max_option(capfd, tmp_path):
    p = write(tmp_path, mcp(tool(description="Reads the file " + "d" * 40)))
    code, data, _ = lint_json(capfd, p, "--description-max", "40")
    assert [f["code"] for f in data["findings"]] == ["TC106"]


def test_rule_command(capfd):
    assert cli_run(["rule", "cs203"]) == 0
    out = capfd.readouterr()[0]
    assert out.startswith("CS203 compact-forbidden-keyword\n")
    assert "Default severity: error" in out and "mcp: off" in out and "RFC 0112" in out
    assert "openwop-compact: error" in out
    assert cli_run(["rule", "--all"]) == 0
    out = capfd.readouterr()[0]
    for r in all_rules():
        assert f"\n{r.code} " in out
    assert cli_run(["rule", "ZZ999"]) == 2
    assert "unknown rule" in capfd.readouterr()[1]
    assert cli_run(["rule"]) == 2


def test_rules_markdown_table():
    md = rules_markdown().splitlines()
    assert md[0] == "| code | name | severity | what it checks |"
    rows = [ln.split(" | ")[0].strip("| ") for ln in md[2:]]
    assert rows == [r.code for r in all_rules()]
    fixed = {"TC101", "TC102", "TC103", "TC104", "TC105", "TC106", "TC107", "CS201", "CS202",
             "CS203", "CS204", "CS205", "SC301", "SC302", "SC303", "SC304"}
    assert fixed <= set(rows)
    sev = {r.code: r.severity for r in all_rules()}
    assert {c: sev[c] for c in ("TC106", "TC107", "CS205", "SC301", "SC303", "SC304")} == {
        "TC106": "warning", "TC107": "warning", "CS205": "warning", "SC301": "warning",
        "SC303": "warning", "SC304": "info"}
    assert all(sev[c] == "error" for c in fixed - {"TC106", "TC107", "CS205", "SC301", "SC303",
                                                    "SC304"})


def test_budget_keys_validated(tmp_path):
    import pytest

    from toolcat.errors import UsageError

    good = tmp_path / "good.toml"
    good.write_text('[budgets]\nmax-bytes = 10\nmax-increase = 2.5\ntokenizer = "cl100k_base"\n')
    assert load_config(str(good)).budgets == {"max-bytes": 10, "max-increase": 2.5,
                                              "tokenizer": "cl100k_base"}
    for body in ("max-bytes = -3", "max-tokens = 0", "max-increase = -1",
                 'tokenizer = "p50k"', 'gate = "sideways"', 'max-bytes = "10"', "maxbytes = 1"):
        bad = tmp_path / "bad.toml"
        bad.write_text(f"[budgets]\n{body}\n")
        with pytest.raises(UsageError) as e:
            load_config(str(bad))
        assert body.split(" =")[0] in e.value.message


def _undescribed(catalog: dict) -> list[tuple[str, str]]:
    """(tool, parameter) without a description, read off the file (MR401's definition)."""
    out = []
    for t in catalog["tools"]:
        for name, p in (t.get("inputSchema") or {}).get("properties", {}).items():
            if isinstance(p, dict) and "$ref" not in p \
                    and not str(p.get("description", "")).strip():
                out.append((t.get("name") or t.get("toolId"), name))
    return sorted(out)


def test_compact_views_skip_parameter_descriptions(capfd, tmp_path):

    sample = SAMPLES / "git.tools.json"
    compact = tmp_path / "tools.compact.json"
    assert cli_run(["project", str(sample), "-o", str(compact)]) == 0
    capfd.readouterr()
    data = json.loads(compact.read_text())
    missing = _undescribed(data)
    params = sum(len(t["inputSchema"].get("properties", {})) for t in data["tools"])
    # the parameters' prose went to the handbook, but for the clauses that carry a format, a
    # reference, allowed values or an example (issue 34: 2 of git's 28 parameters keep one)
    assert params > 10 and params // 2 < len(missing) < params

    def mr401(*args):
        code, report, err = lint_json(capfd, *args)
        assert code in (0, 1), err
        # the other rules a compact view does not run are left out as MR401: MR407 and MR408
        # (prose), MC110 (a compact view leaves out hints equal to the defaults)
        return sorted((f["tool"], f["pointer"].rsplit("/", 1)[1]) for f in report["findings"]
                      if f["code"] == "MR401"), [
            f for f in report["findings"] if f["code"] not in ("MR401", "MR407", "MR408",
                                                              "MC110")]

    # project's output says it is a compact view (the result's _meta), whatever its name
    assert data["_meta"] == {"toolcat/view": "compact"}
    marked = tmp_path / "tools.json"
    marked.write_bytes(compact.read_bytes())
    assert mr401(marked)[0] == []
    # the same tools without that declaration, under a name that does not say "compact":
    # a standard MCP catalog
    plain = tmp_path / "server.json"
    plain.write_text(json.dumps({"tools": data["tools"]}), encoding="utf-8")
    got, others = mr401(plain)
    assert got == missing
    # named like project's output, or told so: a compact view, MR401 not checked
    got_named, others_named = mr401(compact)
    got_told, others_told = mr401(plain, "--view", "compact")
    assert got_named == [] and got_told == []
    # (the same findings; the files differ in layout, so in positions)
    def bare(fs):
        return [{k: v for k, v in f.items() if k not in ("file", "line", "column")} for f in fs]

    assert bare(others_named) == bare(others) and bare(others_told) == bare(others)
    # --view standard wins over the name
    assert mr401(compact, "--view", "standard")[0] == missing
    code, _, err = lint_json(capfd, plain, "--view", "tiny")
    assert code == 2 and "--view" in err


def test_openwop_compact_catalog_skips_parameter_descriptions(capfd, tmp_path):

    sample = SAMPLES / "file-system.openwop.compact.json"
    data = json.loads(sample.read_text())
    assert _undescribed(data)                   # parameters without descriptions, on purpose
    code, report, _ = lint_json(capfd, sample)
    assert not [f for f in report["findings"] if f["code"] == "MR401"]
    # the same descriptors in a file declared standard get MR401 for each of them
    std = tmp_path / "catalog.json"
    std.write_text(json.dumps(dict(data, view="standard")))
    code, report, _ = lint_json(capfd, std)
    got = sorted((f["tool"], f["pointer"].rsplit("/", 1)[1]) for f in report["findings"]
                 if f["code"] == "MR401")
    assert got == _undescribed(data)


def test_unreadable_files_reported_and_the_others_linted(capfd, tmp_path):
    folder = tmp_path / "cats"
    folder.mkdir()
    good = write(folder, mcp(tool("a", city={"type": "string"})), "good.json")   # MR401
    broken_json = folder / "broken.json"
    broken_json.write_text('{"tools": [\n  {"name": "a",\n    "description": }\n]}\n')
    broken_yaml = folder / "broken.yaml"
    broken_yaml.write_text("tools:\n  - name: a\n    description: [unclosed\n")
    (folder / "notes.json").write_text('{"hello": 1}')        # not a catalog: no error
    with pytest.raises(ValueError) as e:
        json.loads(broken_json.read_text())
    json_where = f"{broken_json}:{e.value.lineno}:{e.value.colno}: "
    yaml_line = broken_yaml.read_text().splitlines()
    yaml_where = f"{broken_yaml}:3:{yaml_line[2].index('[') + 1}: "

    code, data, err = lint_json(capfd, folder)
    assert code == 2                              # input errors win over findings
    assert data["summary"]["files"] == 1 and data["summary"]["tools"] == 1
    assert [(f["file"], f["code"]) for f in data["findings"]] == [(str(good), "MR401")]
    lines = err.splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    assert lines[0].startswith("toolcat: error: " + json_where), lines
    assert lines[1].startswith("toolcat: error: " + yaml_where), lines

    # text report too, and files given one by one (a missing one among them)
    code = cli_run(["lint", str(good), str(tmp_path / "missing.json"), str(broken_yaml)])
    out, err = capfd.readouterr()
    assert code == 2 and "MR401" in out and "in 1 file, 1 tool." in out
    assert err.splitlines() == [f"toolcat: error: {tmp_path / 'missing.json'}: no such file or "
                                "folder", err.splitlines()[1]]
    assert err.splitlines()[1].startswith("toolcat: error: " + yaml_where)

    # nothing readable: no report, every error, exit 2
    code, data, err = lint_json(capfd, broken_json, broken_yaml)
    assert code == 2 and data is None and len(err.splitlines()) == 2

    # a baseline is never written from part of the inputs
    bl = tmp_path / "baseline.json"
    code, _, err = lint_json(capfd, folder, "--write-baseline", bl)
    assert code == 2 and not bl.exists()
    assert err.splitlines()[-1].startswith(f"toolcat: error: {bl}: not written")

    # without the broken files, the same folder lints clean of input errors
    broken_json.unlink()
    broken_yaml.unlink()
    code, data, err = lint_json(capfd, folder)
    assert code == 0 and err == "" and len(data["findings"]) == 1
