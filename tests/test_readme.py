"""README's fresh-machine commands and .ci/run agree."""

from __future__ import annotations

import re

from conftest import REPO


def fresh_machine_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Fresh machine", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```console\n(.+?)\n```", section, re.S)


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
