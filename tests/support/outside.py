"""The outside corpus cache (tests/outside/manifest.toml, built by scripts/outside_corpus.py)
for tests outside the battery: ``outside("digitalocean")`` is the path of that entry's catalog,
or the test is skipped with the command that builds the cache."""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path

import pytest

from support.common import REPO

CACHE = Path(os.environ.get("TOOLCAT_OUTSIDE", REPO.parent / "outside")).resolve()


@lru_cache(maxsize=1)
def _oc():
    spec = importlib.util.spec_from_file_location("outside_corpus",
                                                  REPO / "scripts" / "outside_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def entry(entry_id: str) -> dict:
    (e,) = [e for e in _oc().load_manifest() if e["id"] == entry_id]
    return e


def outside(entry_id: str, sub: str = "") -> Path:
    """The catalog of the manifest entry ``entry_id`` (``sub``: "old"/"new" of a pair)."""
    p = _oc().catalog_path(CACHE, entry(entry_id), sub)
    if not p.exists():
        pytest.skip(f"outside corpus entry {entry_id} not at {p} (build the cache: python "
                    f"scripts/outside_corpus.py build --mirrors /work/.mirror --out {CACHE}; "
                    "or set TOOLCAT_OUTSIDE)")
    return p
