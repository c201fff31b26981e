"""Fixtures for every test folder (unit/, cli/, corpus/, fuzz/ and any other): helpers are in
``support/`` (``from support.common import corpus, run_toolcat``), not here."""

from __future__ import annotations

import os

import pytest

from support.common import run_toolcat
from support.fuzz_profile import register as _register_hypothesis_profiles


@pytest.fixture
def toolcat():
    return run_toolcat


@pytest.fixture(scope="session")
def ajv_judge():
    """The Ajv judge (support/ajv.py: the MCP SDK's validator and ListToolsResultSchema), one
    process per test session; skipped only where node is absent (installed on first use)."""
    from support.ajv import AjvJudge, require

    require()
    with AjvJudge(timeout=600) as judge:
        yield judge


# Hypothesis profiles: `ci` (default) and `long` (HYPOTHESIS_PROFILE=long or
# --hypothesis-profile=long); see support/fuzz_profile.py.
_register_hypothesis_profiles()


def pytest_collection_modifyitems(config, items):
    """Tests marked ``long`` run only in the long profile (``TOOLCAT_LONG=1``): CI's default
    run stays under 20 minutes on a 2-core machine. The Ajv judge's Node packages are
    installed here, before any test runs, when a collected test needs them (support/ajv.py
    ``prepare``): a fresh clone's first run judges as every later one."""
    from support.ajv import prepare

    prepare(items)
    if os.environ.get("TOOLCAT_LONG"):
        return
    skip = pytest.mark.skip(reason="long profile: set TOOLCAT_LONG=1")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)
