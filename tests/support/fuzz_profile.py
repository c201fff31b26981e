"""Hypothesis profiles for the test suite: ``ci`` (bounded, the default) and ``long``.

* ``ci``: 100 examples for tests that do not set their own count, and no deadline;
  the fuzz modules (``test_fuzz_*.py``) size their runs so that they stay well under a minute
  on two cores.
* ``long``: many more examples for local runs, e.g.::

      HYPOTHESIS_PROFILE=long python -m pytest tests/fuzz/test_fuzz_cli.py tests/fuzz/test_fuzz_schemas.py
      python -m pytest --hypothesis-profile=long tests/fuzz/test_fuzz_cli.py

  The fuzz modules multiply their CI counts by :func:`factor` (20 by default; override with
  ``TOOLCAT_FUZZ_FACTOR=N``).

``conftest.py`` calls :func:`register` before Hypothesis' pytest plugin reads
``--hypothesis-profile`` (which then wins over ``HYPOTHESIS_PROFILE``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

CI_MAX_EXAMPLES = 100
LONG_FACTOR = 20


def register() -> None:
    # no deadline: a per-example time limit fails on a loaded machine (CI shares its cores)
    settings.register_profile("ci", max_examples=CI_MAX_EXAMPLES, deadline=None)
    settings.register_profile(
        "long", max_examples=CI_MAX_EXAMPLES * LONG_FACTOR, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def is_long() -> bool:
    """True when the current profile asks for more examples than CI's."""
    return settings.default.max_examples > CI_MAX_EXAMPLES


def factor() -> int:
    env = os.environ.get("TOOLCAT_FUZZ_FACTOR")
    if env:
        return max(1, int(env))
    return max(1, settings.default.max_examples // CI_MAX_EXAMPLES)


def examples(ci: int) -> int:
    """The number of examples for a fuzz test that runs ``ci`` examples in CI."""
    return ci * factor()
