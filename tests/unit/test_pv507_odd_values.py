"""PV507 on a `minItems` that is not an integer (a list, an object): a finding, never a crash
(it was an internal error, 'unhashable type', under --profile anthropic-strict)."""

from __future__ import annotations

import json

import pytest

from support.common import run_toolcat


@pytest.mark.parametrize("value", [[1], {"a": 1}, True, "1"])
def test_min_items_of_any_json_value_is_a_finding(tmp_path, value) -> None:
    cat = {"tools": [{"name": "t", "description": "d", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "array", "minItems": value}}}}]}
    f = tmp_path / "c.tools.json"
    f.write_text(json.dumps(cat))
    r = run_toolcat("lint", "--profile", "anthropic-strict", "--format", "json", str(f))
    assert r.returncode in (0, 1), r.stderr
    assert b"Traceback" not in r.stderr if isinstance(r.stderr, bytes) else "Traceback" not in r.stderr
    codes = [x["code"] for x in json.loads(r.stdout)["findings"]]
    assert "PV507" in codes
