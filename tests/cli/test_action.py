"""action.yml (composite GitHub Action): its inputs, and its "Run toolcat" step run here with
bash as the runner would (inputs substituted into the step's env, GITHUB_STEP_SUMMARY and
GITHUB_OUTPUT as files, toolcat on PATH). The install step needs the registry and is only
syntax-checked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.common import REPO, SAMPLES

EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def action() -> dict:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load((REPO / "action.yml").read_text())


def test_inputs_and_expressions():
    a = action()
    assert a["runs"]["using"] == "composite"
    inputs = a["inputs"]
    for name in ("paths", "command", "profile", "max-bytes", "max-tokens", "gate", "baseline",
                 "max-increase", "python-version", "toolcat-version"):
        assert name in inputs and inputs[name]["description"], name
    text = (REPO / "action.yml").read_text()
    for expr in EXPR.findall(text):
        for ref in re.findall(r"inputs\.([\w-]+)", expr):
            assert ref in inputs, ref
    # no ${{ }} inside scripts (injection): steps read inputs through env only
    for step in a["runs"]["steps"]:
        assert not EXPR.search(step.get("run", "")), step.get("name")
        if "run" in step:
            r = subprocess.run(["bash", "-n"], input=step["run"], text=True,
                               capture_output=True)
            assert r.returncode == 0, (step.get("name"), r.stderr)


def run_step(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, str, dict]:
    """Run the action's `run` step with these inputs; return (process, summary, outputs)."""
    a = action()
    step = next(s for s in a["runs"]["steps"] if s.get("id") == "run")
    values = {k: str(v.get("default", "")) for k, v in a["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})

    def subst(s: str) -> str:
        def one(m: re.Match) -> str:
            ref = re.fullmatch(r"inputs\.([\w-]+)", m.group(1))
            assert ref, m.group(1)
            return values[ref.group(1)]
        return EXPR.sub(one, str(s))

    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("")
    output.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLCAT_", "FORCE_COLOR"))}
    env.update({k: subst(v) for k, v in step["env"].items()})
    env.update(GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(output),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    cwd = REPO / subst(step.get("working-directory", "."))
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    # how the runner starts a `shell: bash` step
    p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                       cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return p, summary.read_text(), outputs


def test_all_writes_summary_table_and_annotations(tmp_path):
    # budget on the standard view: git.tools.json's JSON.stringify bytes, computed here, less one
    tools = json.loads((SAMPLES / "git.tools.json").read_text())["tools"]
    limit = len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False).encode()) - 1
    p, summary, outputs = run_step(
        tmp_path, paths="samples/broken.tools.json samples/git.tools.json",
        max_bytes=str(limit), gate="before")
    assert p.returncode == 1, p.stderr
    assert outputs == {"measure-exit-code": "1", "lint-exit-code": "1"}
    # the Markdown table of measure, one row per catalog
    rows = [line for line in summary.splitlines() if line.startswith("| `samples/")]
    assert [r.split("`")[1] for r in rows] == ["samples/broken.tools.json",
                                               "samples/git.tools.json"] * 2
    # annotations: lint findings with file and line, and the failed gate
    ann = [line for line in p.stdout.splitlines() if line.startswith("::")]
    assert any(a.startswith("::error file=samples/broken.tools.json,line=26,")
               and "TC101" in a for a in ann), ann
    gate = [a for a in ann if a.startswith("::error title=toolcat measure::budget exceeded")]
    assert len(gate) == 1 and "samples/git.tools.json" in gate[0], ann
    assert f"limit {limit:,}" in gate[0] and "(by 1)" in gate[0]


def test_lint_only_with_a_glob(tmp_path):
    p, summary, outputs = run_step(tmp_path, paths="samples/petstore*", command="lint")
    assert p.returncode == 0, p.stdout + p.stderr
    assert outputs == {"lint-exit-code": "0"}
    assert summary == ""
    assert "::error" not in p.stdout


def test_measure_only_within_budget(tmp_path):
    p, summary, outputs = run_step(tmp_path, paths="samples/*.openapi.*", command="measure",
                                   max_tokens="100000")
    assert p.returncode == 0, p.stderr
    assert outputs == {"measure-exit-code": "0"}
    assert "`samples/petstore.openapi.yaml`" in summary
    assert "`samples/petstore-v31.openapi.json`" in summary


@pytest.mark.parametrize("inputs", [{"command": "check"}, {"paths": " "}])
def test_bad_inputs_exit_2(tmp_path, inputs):
    p, _, _ = run_step(tmp_path, **{"paths": "samples/git.tools.json", **inputs})
    assert p.returncode == 2
    assert p.stdout.startswith("::error title=toolcat::")


def test_missing_path_is_an_input_error(tmp_path):
    p, _, outputs = run_step(tmp_path, paths="no/such/*.json", command="lint")
    assert p.returncode == 2
    assert outputs == {"lint-exit-code": "2"}
    assert "no/such/*.json" in p.stderr
