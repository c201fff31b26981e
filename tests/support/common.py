"""What every kind of test shares: where things are, the corpus (skipped with a reason where
absent), and a run of toolcat (in this process, or a fresh one).

Import as ``from support.common import corpus, run_toolcat`` (``tests/`` is on ``sys.path``:
``pythonpath`` in pyproject.toml). Helpers live here rather than in ``conftest.py``: a folder
with its own ``conftest.py`` (``tests/live/``) replaces the module ``conftest`` that
``from conftest import ...`` would find.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
SHARED = Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
SPEC = SHARED / "spec"
SAMPLES = REPO / "samples"
FIXTURES = TESTS / "fixtures"


def _absent(p: Path) -> str:
    return f"corpus not available: {p} (set TOOLCAT_SHARED to the shared folder)"


def corpus(*parts: str) -> Path:
    """Path into ../shared/corpus; skips the test when that folder is absent. Call it inside a
    test or fixture only: in a ``parametrize`` list (evaluated when the module is imported) a
    skip stops the whole collection; use :func:`corpus_param` there."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(_absent(p))
    return p


def corpus_param(*parts: str, id: str | None = None):
    """For ``parametrize`` lists: the path into ../shared/corpus, or where it is absent a
    ``pytest.param`` of it marked skip with the reason (the other cases still run)."""
    p = CORPUS.joinpath(*parts)
    if p.exists() and id is None:
        return p
    return pytest.param(p, id=id, marks=() if p.exists() else pytest.mark.skip(reason=_absent(p)))


def or_absent(params: list, what: str = "") -> list:
    """A ``parametrize`` list drawn from the corpus, never empty: ``params``, or where none was
    found one case marked skip saying the corpus (``what`` in it) is absent."""
    if params:
        return params
    return [pytest.param(None, id="no-corpus",
                         marks=pytest.mark.skip(reason=_absent(CORPUS / what)))]


def lowered_schemas(path) -> list[tuple[dict, str]]:
    """Every tool's input and output schema of the catalog at ``path``, lowered (object
    results only), with the tool's dialect: the inputs of the factoring tests."""
    from toolcat.api import load_all
    from toolcat.schema.lower import lower_schema

    out = []
    for cat in load_all([str(path)]):
        for tool in cat.tools:
            for s in (tool.input_schema, tool.output_schema):
                if isinstance(s, dict):
                    low = lower_schema(s, tool.dialect, drop_schema=False).schema
                    if isinstance(low, dict):
                        out.append((low, tool.dialect))
    return out


def spec(*parts: str) -> Path:
    p = SPEC.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"spec not available: {p} (set TOOLCAT_SHARED to the shared folder)")
    return p


def run_toolcat(*args: str, input: bytes | None = None, cwd: str | Path | None = None,
                env: dict | None = None, timeout: float = 60,
                fresh: bool = False) -> subprocess.CompletedProcess:
    """Run toolcat; returns the completed process (bytes).

    In this process (``toolcat.cli.run``, as ``main`` runs it: stdin, stdout, stderr, the
    working folder and toolcat's process-wide settings saved and restored; about 0.25 s of
    CPU less per run than a new interpreter), unless ``fresh`` or ``env`` is given or
    ``TOOLCAT_TEST_FRESH=1`` is set: then in a fresh process, as users run it."""
    if fresh or env or os.environ.get("TOOLCAT_TEST_FRESH"):
        e = dict(os.environ)
        e.pop("FORCE_COLOR", None)
        e["NO_COLOR"] = "1"
        if env:
            e.update(env)
        return subprocess.run([sys.executable, "-m", "toolcat", *map(str, args)],
                              input=input, capture_output=True, cwd=cwd, env=e,
                              timeout=timeout)
    from support.fuzz_support import run_inprocess

    r = run_inprocess([str(a) for a in args], cwd=str(cwd) if cwd is not None else None,
                      input=input, timeout=max(timeout, 1))
    if r.timed_out:
        raise subprocess.TimeoutExpired(["toolcat", *map(str, args)], timeout)
    return subprocess.CompletedProcess(["toolcat", *map(str, args)], r.code, r.out, r.err)
