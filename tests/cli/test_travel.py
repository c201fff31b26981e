"""Tests that travel: a clone without ``../shared`` (or the outside corpus) collects the whole
suite without errors, and every test whose data is absent is skipped with the reason; the
tests import toolcat's own modules plainly (``importorskip`` only for optional third-party
packages), so a broken module fails its tests instead of skipping them. CI's ``.ci/travel``
runs the whole suite that way."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

from support.common import REPO, TESTS


def _pytest(tmp_path, *args: str) -> subprocess.CompletedProcess:
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    env = dict(os.environ, TOOLCAT_SHARED=str(empty), TOOLCAT_OUTSIDE=str(empty))
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                           "no:randomly", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_suite_collects_without_the_shared_corpus(tmp_path):
    r = _pytest(tmp_path, "--collect-only", "-q", "tests")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "error" not in r.stdout.splitlines()[-1], r.stdout.splitlines()[-1]


def test_absent_corpus_cases_skip_with_the_reason(tmp_path):
    # cases of parametrize lists drawn from the corpus (support.common.corpus_param, or_absent)
    r = _pytest(tmp_path, "-q", "-rs", "-n", "0", "tests/unit/test_factor_replace.py",
                "-k", "random_paths_on_corpus", "tests/corpus/test_openapi_loader.py",
                "-k", "random_paths_on_corpus or one_tool_per_operation")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    skipped = [ln for ln in r.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert skipped and all("corpus not available" in ln and "TOOLCAT_SHARED" in ln
                           for ln in skipped), r.stdout[-3000:]
    assert " passed" in r.stdout.splitlines()[-1], r.stdout.splitlines()[-1]  # the samples ran


def test_toolcat_modules_are_imported_plainly():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "importorskip"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and str(node.args[0].value).split(".")[0] == "toolcat"):
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert not found, found
