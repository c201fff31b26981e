"""In-process runs of the CLI do not leak options into the next run."""

from __future__ import annotations

from support.common import SAMPLES
from toolcat import ui
from toolcat.cli import run


def test_quiet_and_no_color_do_not_leak_between_runs():
    sample = str(SAMPLES / "git.tools.json")
    assert run(["-q", "--no-color", "tools", sample]) == 0
    assert ui.state.quiet and ui.state.no_color
    assert run(["tools", sample]) == 0
    assert not ui.state.quiet and not ui.state.no_color
