"""README.md is true: its example blocks are real runs of the current code, its rule table is
the registry's, its snippets (configuration, pre-commit, CI) are accepted by the tools they
are for, and .ci/run runs its fresh-machine test command verbatim.

How examples run and what is normalised: scripts/readme_examples.py (and README's section
"How the README is tested"). `python scripts/readme_examples.py --update` refreshes them."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from support.common import REPO, SAMPLES, run_toolcat

TEXT = (REPO / "README.md").read_text()


def _examples_module():
    spec = importlib.util.spec_from_file_location("readme_examples",
                                                  REPO / "scripts" / "readme_examples.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


EX = _examples_module()
BLOCKS = EX.blocks(TEXT)


def fresh_machine_commands() -> list[str]:
    section = TEXT.split("## Fresh machine", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```console\n(.+?)\n```", section, re.S)


def section(title: str) -> str:
    return TEXT.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_readme_has_two_fresh_machine_commands():
    cmds = fresh_machine_commands()
    assert len(cmds) == 2
    install_run, install_test = cmds
    assert "pip install ." in install_run and "toolcat " in install_run
    sample = re.search(r"toolcat \w[\w-]* (\S+)", install_run).group(1)
    assert (REPO / sample).exists(), sample
    assert "pip install '.[test]'" in install_test and "pytest" in install_test


def test_ci_runs_readme_test_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text()
    test_cmd = fresh_machine_commands()[1]
    assert test_cmd in ci.splitlines()


def test_sections():
    titles = re.findall(r"^## (.+)$", TEXT, re.M)
    for cmd in ("tools", "project", "lint", "rule", "measure", "diff", "diff-toolids",
                "capture"):
        assert f"toolcat {cmd}" in titles, cmd
    for t in ("Install", "Live MCP servers", "Serve a compact view of any MCP server",
              "Configuration", "Exit codes", "pre-commit",
              "Use in CI",
              "Shell completions", "How bytes and tokens are counted", "Performance",
              "How the README is tested"):
        assert t in titles, t
    # the fresh-machine section stays first
    assert titles[0] == "Fresh machine (Python 3.11+)"
    # the performance section is marked for the benchmark to fill
    perf = section("Performance")
    assert "<!-- performance:begin" in perf and "<!-- performance:end -->" in perf


def test_every_command_section_has_an_example():
    for cmd in ("tools", "project", "lint", "rule", "measure", "diff", "diff-toolids",
                "capture"):
        sec = section(f"toolcat {cmd}")
        assert any(f"toolcat {cmd}" in step.command or f"toolcat -q {cmd}" in step.command
                   for b in EX.blocks(sec) for step in b.steps), cmd


def test_examples_have_output_and_use_samples():
    assert len(BLOCKS) >= 10
    for b in BLOCKS:
        assert b.steps
        assert any(s.expected.strip() for s in b.steps), b.line


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_example_output_matches_a_real_run(block):
    results = EX.run_block(block)
    for i, (step, (out, code)) in enumerate(zip(block.steps, results)):
        want_code = block.exit if i == len(block.steps) - 1 else 0
        assert code == want_code, f"README.md:{block.line}: $ {step.command}\n{out}"
        assert EX.normalize(out) == EX.normalize(step.expected), (
            f"README.md:{block.line}: $ {step.command}: output differs from README "
            "(python scripts/readme_examples.py shows the diff; --update refreshes)")


def test_rule_table_is_the_registry():
    from toolcat.features.lint.registry import codes, rules_markdown

    m = EX.RULES_RE.search(TEXT)
    assert m, "no rules:begin/rules:end markers"
    assert m.group(2).strip() == rules_markdown().strip()
    assert set(re.findall(r"^\| ([A-Z]{2}\d{3}) \|", m.group(2), re.M)) == set(codes())


def test_provider_tables_are_the_profiles_table():
    from toolcat.features.lint.profiles import CLIENTS, PROVIDERS, providers_markdown

    m = EX.PROVIDERS_RE.search(TEXT)
    assert m, "no providers:begin/providers:end markers"
    assert m.group(2).strip() == providers_markdown().strip()
    for entry in [*PROVIDERS.values(), *CLIENTS.values()]:
        assert entry.sources and all(f"<{src}>" in m.group(2) for src in entry.sources)
    # the client compatibility matrix (issue 33): one row per client, a cell per quirk, each
    # fact's own sources in the table under it
    cells = [[x.strip() for x in r.strip().strip("|").split("|")]
             for r in m.group(2).splitlines() if r.startswith("| ")]
    rows = {r[0]: r[1:] for r in cells if len(r) == 9}
    assert [t for t in rows if t != "client"] == [c.title for c in CLIENTS.values()]
    for c in CLIENTS.values():
        ref, dialect, unions, props, _name, _desc, args, count = rows[c.title]
        assert (ref != "-") == bool(c.refs) and (dialect != "-") == bool(c.dialects)
        assert (unions != "-") == bool(c.refused_at_root()) and \
            (props != "-") == c.root_properties and (args != "-") == c.stringifies
        assert count == (f"≤ {c.max_tools:,}" if c.max_tools else "-")
        assert all(f"<{u}>" in m.group(2) for urls in c.cites.values() for u in urls)


def test_inputs_table_names_every_format():
    from toolcat.formats.registry import keys as format_keys

    names = re.findall(r"^\| `([\w-]+)` \|", section("Inputs"), re.M)
    assert names == list(format_keys())


def test_profiles_table_names_every_profile():
    from toolcat.features.lint.profiles import PROFILES

    names = re.findall(r"^\| `([\w-]+)`(?: \(default\))? \|", section("toolcat lint"), re.M)
    assert names == list(PROFILES)


def test_configuration_snippet_is_accepted(tmp_path):
    (toml,) = fenced(section("Configuration"), "toml")
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "generated").mkdir()
    shutil.copy(SAMPLES / "git.tools.json", tmp_path / "generated" / "git.json")
    r = run_toolcat("lint", "generated/git.json", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr.decode()  # 2 would be a config error
    r = run_toolcat("measure", "generated/git.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    # and the keys are the ones the loader knows: a misspelt one is an error
    (tmp_path / "pyproject.toml").write_text(toml.replace("fail-on", "fail_on"))
    r = run_toolcat("lint", "generated/git.json", cwd=tmp_path)
    assert r.returncode == 2


def _yaml(text: str):
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


def test_pre_commit_snippet_uses_real_hooks():
    hooks = {h["id"]: h for h in _yaml((REPO / ".pre-commit-hooks.yaml").read_text())}
    (cfg,) = fenced(section("pre-commit"), "yaml")
    used = _yaml(cfg)["repos"][0]["hooks"]
    assert {h["id"] for h in used} == set(hooks)
    for h in used:
        if "files" in h:
            re.compile(h["files"])
    # the table names each hook
    for hook_id in hooks:
        assert f"`{hook_id}`" in section("pre-commit")
    # the default file pattern admits what README says and leaves others
    pattern = re.compile(hooks["toolcat-lint"]["files"])
    for ok in ("openapi.yaml", "api/openapi.yml", "x.openapi.json", "a/b.openapi.yaml",
               "tools.json", "tools.compact.json", "servers/git.tools.json"):
        assert pattern.search(ok), ok
    for no in ("package.json", "openapi.yaml.bak", "mytools.json", "tsconfig.json"):
        assert not pattern.search(no), no


def test_github_actions_step_uses_real_inputs():
    action = _yaml((REPO / "action.yml").read_text())
    (snippet,) = fenced(section("Use in CI").split("**GitLab CI.**")[0], "yaml")
    steps = _yaml(snippet)
    ours = [s for s in steps if "toolcat" in s.get("uses", "")]
    assert len(ours) == 1
    assert set(ours[0]["with"]) <= set(action["inputs"])
    assert "paths" in ours[0]["with"]
    # every input is documented in README
    for name in action["inputs"]:
        assert f"`{name}`" in section("Use in CI"), name


def test_gitlab_job_runs(tmp_path):
    """The job's script, except the install line, in a folder with the files it names."""
    (snippet,) = fenced(section("Use in CI").split("**GitLab CI.**")[1].split("**Any shell**")[0],
                        "yaml")
    job = _yaml(snippet)["toolcat"]
    shutil.copy(SAMPLES / "petstore.openapi.yaml", tmp_path / "openapi.yaml")
    shutil.copy(SAMPLES / "git.tools.json", tmp_path / "tools.json")
    env_path = f"{sys.executable.rsplit('/', 1)[0]}:/usr/bin:/bin"
    for line in job["script"]:
        if line.startswith("pip install"):
            continue
        r = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True,
                           env={"PATH": env_path, "NO_COLOR": "1", "HOME": str(tmp_path)})
        assert r.returncode == 0, (line, r.stdout, r.stderr)
    report = job["artifacts"]["reports"]["junit"]
    root = ET.parse(tmp_path / report).getroot()
    assert root.tag in ("testsuites", "testsuite")


def test_completion_install_paths_name_the_files():
    sec = section("Shell completions")
    for f in ("completions/toolcat.bash", "completions/_toolcat", "completions/toolcat.fish"):
        assert f in sec and (REPO / f).exists()
