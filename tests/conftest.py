"""Fixtures for every test folder (unit/, cli/, corpus/, fuzz/ and any other): helpers are in
``support/`` (``from support.common import corpus, run_toolcat``), not here."""

from __future__ import annotations

import pytest

from support.common import run_toolcat
from support.fuzz_profile import register as _register_hypothesis_profiles


@pytest.fixture
def toolcat():
    return run_toolcat


# Hypothesis profiles: `ci` (default) and `long` (HYPOTHESIS_PROFILE=long or
# --hypothesis-profile=long); see support/fuzz_profile.py.
_register_hypothesis_profiles()
