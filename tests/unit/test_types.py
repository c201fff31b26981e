"""The types are checked: ``mypy`` (configured in pyproject.toml's ``[tool.mypy]``) reports
no error on src/toolcat, and the model says what the code does: a streamed catalog's tools
are a :class:`toolcat.model.ToolStream` that :attr:`toolcat.model.Catalog.stream` names."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from support.common import REPO, corpus
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.model import ToolStream


def test_mypy_reports_no_error(request) -> None:
    """``python -m mypy`` at its default strictness (plus ``[tool.mypy]``): zero errors. Its
    cache is kept in pytest's cache folder (a first run checks everything: about 12 s of
    CPU; a run after a change, the changed modules)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the test extra: pip install '.[test]')")
    from mypy.version import __version__ as mypy_version

    cache = request.config.cache.mkdir(f"mypy-{mypy_version}")

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                               str(REPO / "pyproject.toml"), *extra],
                              cwd=REPO, capture_output=True, text=True, timeout=600)

    r = run("--cache-dir", str(cache))
    if r.returncode == 2 and "Traceback" in r.stderr + r.stdout:
        # mypy itself crashed (an incremental cache written by a run over other sources can
        # trip it): judge the sources once more without any cache; a type error still fails.
        r = run("--no-incremental", "--cache-dir", os.devnull)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("Success: no issues found"), r.stdout


def test_catalog_stream_names_the_streamed_tools(tmp_path, monkeypatch) -> None:
    """A large MCP tools list is read as a stream: ``Catalog.tools`` is then a ToolStream,
    which ``Catalog.stream`` gives (what lint and measure ask instead of probing for a
    ``batches`` attribute); read whole, the tools are a list and ``stream`` is None."""
    capture = json.loads(corpus("mcp-context-cost", "notion.json").read_text(encoding="utf-8"))
    tools = capture["rawToolsCapture"]
    f = tmp_path / "notion.tools.json"
    f.write_text(json.dumps({"tools": tools}, indent=2), encoding="utf-8")

    monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", "1")
    [cat] = load_catalogs([str(f)], LoadOptions(strict=False, stream=True))
    assert isinstance(cat.tools, ToolStream)
    assert cat.stream is cat.tools
    ids = [t.id for batch, _source in cat.stream.batches() for t in batch]
    assert ids == [t["name"] for t in tools] and len(ids) > 10
    assert [t.id for t in cat.stream.load_whole().tools] == ids

    monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", str(1 << 40))
    [whole] = load_catalogs([str(f)], LoadOptions(strict=False, stream=True))
    assert isinstance(whole.tools, list) and whole.stream is None
    assert [t.id for t in whole.tools] == ids
