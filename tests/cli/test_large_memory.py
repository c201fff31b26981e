"""Lint of a large generated tools list stays in bounded memory (README "Large catalogs").

A child process runs ``toolcat lint`` on a streamed catalog (bench/gen_catalog.py, 20,000
tools, read a batch at a time) under an address-space limit (RLIMIT_AS): memory that grows
with the catalog makes it fail (MemoryError, exit 2 with a traceback or a kill), not the
machine. No timing is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys

import pytest

from support.common import REPO

N = 20_000
#: bytes of address space: the sibling comparison of MR406/MR407 held the streamed catalog's
#: tools and one vector per tool (a peak RSS of 400 MiB here); reading it twice, keeping the
#: weights of the few words that can make a pair, 201 MiB (it failed under 150 MiB and ran
#: under 200); its index in flat arrays, the tools of a pair read again by position, a peak
#: RSS of 107 MiB (it runs under 150 MiB)
LIMIT = 176 << 20


def _gen():
    spec = importlib.util.spec_from_file_location("bench_gen_catalog",
                                                  REPO / "bench" / "gen_catalog.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lint_limited(limit: int, *args: str) -> subprocess.CompletedProcess:
    """``toolcat lint ARGS`` of the generated catalog of N tools, streamed, in a child
    process under an address-space limit of ``limit`` bytes; exit 0 or 1 (findings)."""
    path = _gen().ensure("mcp", N)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, NO_COLOR="1", TOOLCAT_STREAM_THRESHOLD="1",
               TOOLCAT_MAX_FILE_SIZE=str(1 << 33))
    r = subprocess.run([sys.executable, "-m", "toolcat", "lint", *args, str(path)],
                       capture_output=True, env=env, timeout=1800, preexec_fn=limited)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-800:])
    return r


@pytest.mark.fresh
@pytest.mark.long
def test_streamed_lint_of_siblings_stays_under_an_address_space_limit() -> None:
    r = _lint_limited(LIMIT, "-f", "json", "--select", "MR406,MR407,TC108")
    out = json.loads(r.stdout)
    assert out["summary"]["tools"] == N


#: bytes of address space for 20,000 streamed tools' 27,600 MR401 findings as SARIF: held
#: until the end as findings and then as the whole report, they took a peak RSS of 469 MiB;
#: spilled to a temporary file a batch at a time and written a result at a time, 212 MiB
SPILL_LIMIT = 400 << 20


@pytest.mark.fresh
@pytest.mark.long
def test_streamed_lint_findings_and_report_stay_under_an_address_space_limit() -> None:
    r = _lint_limited(SPILL_LIMIT, "-f", "sarif", "--select", "MR401")
    results = json.loads(r.stdout)["runs"][0]["results"]
    assert len(results) > N
    assert {x["ruleId"] for x in results} == {"MR401"}
