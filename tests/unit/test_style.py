"""``ruff check`` (configured in pyproject.toml's ``[tool.ruff]``) passes on the sources and
the tests, so the style rules the code's ``noqa`` comments rely on are kept in CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.common import REPO


def test_ruff_check_passes() -> None:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff is not installed (it is in the test extra: pip install '.[test]')")
    r = subprocess.run([exe, "check", "--no-cache", "src", "tests"], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
