"""Shared test fixtures: the real corpora in ../shared (skipped with a reason where absent)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
SPEC = SHARED / "spec"
SAMPLES = REPO / "samples"


def corpus(*parts: str) -> Path:
    """Path into ../shared/corpus; skips the test when that folder is absent."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"corpus not available: {p} (set TOOLCAT_SHARED to the shared folder)")
    return p


def spec(*parts: str) -> Path:
    p = SPEC.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"spec not available: {p} (set TOOLCAT_SHARED to the shared folder)")
    return p


def run_toolcat(*args: str, input: bytes | None = None, cwd: str | Path | None = None,
                env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run toolcat in a fresh process (as users do); returns the completed process (bytes)."""
    e = dict(os.environ)
    e.pop("FORCE_COLOR", None)
    e["NO_COLOR"] = "1"
    if env:
        e.update(env)
    return subprocess.run([sys.executable, "-m", "toolcat", *map(str, args)], input=input,
                          capture_output=True, cwd=cwd, env=e, timeout=timeout)


@pytest.fixture
def toolcat():
    return run_toolcat


# Hypothesis profiles: `ci` (default) and `long` (HYPOTHESIS_PROFILE=long or
# --hypothesis-profile=long); see fuzz_profile.py.
from fuzz_profile import register as _register_hypothesis_profiles  # noqa: E402

_register_hypothesis_profiles()
