"""The YAML parser's allocator reserves no address space up front (issue 36's hostile battery:
under ``ulimit -v`` 2 GB, a 38 MB YAML spec of 100,000 operations ended in CPython's fatal
"Cannot recover from MemoryErrors" abort or a segmentation fault, because yaml_rs' mimalloc
reserved 1 GiB when it loaded). Read in a fresh process: the first import is what counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="reads /proc/self/status (Linux)")

_PROBE = """
import json, os
from toolcat.document.parse import parse_yaml
doc = parse_yaml("a: [1, 2]\\nb: {c: x}\\n", "x.yaml")
status = open("/proc/self/status").read()
vm = int(status.split("VmSize:")[1].split()[0]) * 1024
print(json.dumps({"doc": doc, "vm": vm, "env": os.environ.get("MIMALLOC_ARENA_RESERVE")}))
"""


def _probe(env: dict | None = None) -> dict:
    import os

    r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, timeout=60, check=True)
    return json.loads(r.stdout)


def test_yaml_parser_reserves_no_gigabyte_of_address_space() -> None:
    got = _probe()
    assert got["doc"] == {"a": [1, 2], "b": {"c": "x"}}
    # a Python process with the parser loaded: ~20-90 MB; with mimalloc's default arena, ~1 GiB
    assert got["vm"] < 512 * 2**20, got
    assert got["env"] is None            # not left for the servers toolcat starts


def test_a_users_own_reserve_is_kept() -> None:
    got = _probe({"MIMALLOC_ARENA_RESERVE": "64MiB"})
    assert got["env"] == "64MiB" and got["vm"] < 512 * 2**20, got
