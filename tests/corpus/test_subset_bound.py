"""The RFC 0112 subset (``--to openwop``, ``--subset``) writes a definition wherever a
``$ref`` names it; a spec whose request bodies share deep types grew past its standard view
(Xero accounting on OpenWOP: 111.6% of the standard tokens, one tool from 54 KB to 456 KB).
The input schema is now bounded before it is lowered (project/bound.py ``bound_inlined``):
written without ``$ref`` it weighs at most what the standard schema does, the levels beyond
widened to ``{}`` and reported. Widening only: every instance the standard schema accepts,
the compact one accepts."""

from __future__ import annotations

import json

import jsonschema
import pytest

from support.common import corpus
from support.instances import instances_for
from support.outside import outside
from toolcat.features.project.bound import SUBSET_FLOOR, bound_inlined, inlined_weight

D = "2020-12"


def _shared_tree(levels: int, fanout: int) -> dict:
    """A schema whose definitions each use the next one ``fanout`` times: ``fanout **
    levels`` copies of the last when written without ``$ref``."""
    defs = {f"L{levels}": {"type": "object", "properties": {"leaf": {"type": "string",
                                                                     "maxLength": 3}},
                           "required": ["leaf"]}}
    for i in range(levels - 1, -1, -1):
        defs[f"L{i}"] = {"type": "object", "properties": {
            f"p{k}": {"$ref": f"#/$defs/L{i + 1}"} for k in range(fanout)}}
    return {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}},
            "required": ["root"], "$defs": defs}


def test_inlined_weight_counts_each_use_and_stops_at_the_limit():
    s = _shared_tree(6, 3)                  # 3**6 = 729 copies of the leaf type
    small = inlined_weight(_shared_tree(1, 3), D, 10**9)
    big = inlined_weight(s, D, 10**9)
    assert big > 100 * small
    assert len(json.dumps(s)) < big         # the written schema is far smaller
    # bounded work: past the limit it stops (the answer is only "over")
    assert 1000 < inlined_weight(s, D, 1000) < big


def test_a_recursive_definition_counts_once():
    s = {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
         "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}
    assert inlined_weight(s, D, 10**6) < 200


def test_bound_inlined_widens_only_and_reports_each_cut():
    s = _shared_tree(6, 3)
    limit = SUBSET_FLOOR
    got, changes = bound_inlined(s, D, limit)
    assert got is not s and changes
    assert inlined_weight(got, D, limit) <= limit
    assert all(c.kind.value == "widened" and c.pointer.startswith("/inputSchema")
               for c in changes)
    assert all("without $ref" in c.what for c in changes)
    # sound: what the schema accepts, the bounded one accepts (and the root is kept)
    v_in, v_out = jsonschema.Draft202012Validator(s), jsonschema.Draft202012Validator(got)
    checked = 0
    for x in instances_for(s, seed=7, n=20):
        if v_in.is_valid(x):
            checked += 1
            assert v_out.is_valid(x), x
    assert checked
    assert not v_out.is_valid({}) and v_out.is_valid({"root": {}})


def test_a_schema_within_the_limit_is_the_same_object():
    s = _shared_tree(2, 2)
    assert bound_inlined(s, D, 10**6) == (s, [])


@pytest.fixture(scope="module")
def xero(tmp_path_factory):
    from support.common import run_toolcat

    spec = outside("xero-accounting-16.1")
    d = tmp_path_factory.mktemp("xero")
    std = d / "std.json"
    r = run_toolcat("project", spec, "--to", "openwop", "--view", "standard", "-o", std)
    assert r.returncode == 0, r.stderr
    r = run_toolcat("project", spec, "--to", "openwop", "-o", d / "c.json", "--report",
                    d / "r.json")
    assert r.returncode == 0, r.stderr
    return (json.loads(std.read_text())["tools"], json.loads((d / "c.json").read_text())["tools"],
            json.loads((d / "r.json").read_text()), r.stderr)


def test_xero_openwop_compact_view_is_not_larger_than_its_standard_view(xero):
    std, compact, report, stderr = xero
    assert b"is larger than the standard view" not in stderr, stderr
    by_id = {t["toolId"]: t for t in std}
    assert {t["toolId"] for t in compact} == set(by_id)
    big = max(compact, key=lambda t: len(json.dumps(t.get("inputSchema"))))
    # the tool that grew to 456 KB before
    assert len(json.dumps(big["inputSchema"])) <= max(
        SUBSET_FLOOR, len(json.dumps(by_id[big["toolId"]]["inputSchema"])))
    text = json.dumps(compact)
    assert "$ref" not in text


def test_xero_openwop_bounds_are_reported_and_sound(xero):
    std, compact, report, _ = xero
    by_id = {t["toolId"]: t for t in std}
    text = json.dumps(report)
    assert "written without $ref it would weigh over" in text
    cut = [t for t in compact if "createOverpaymentAllocations" in t["toolId"]]
    assert cut
    for t in cut:
        s = by_id[t["toolId"]]["inputSchema"]
        v_in = jsonschema.Draft202012Validator(s)
        v_out = jsonschema.Draft202012Validator(t["inputSchema"])
        ok = [x for x in instances_for(s, seed=3, n=12) if v_in.is_valid(x)]
        assert ok
        for x in ok:
            assert v_out.is_valid(x), x


def test_integers_beyond_64_bits_are_weighed():
    """As bound_output weighs them (DigitalOcean's specs hold such integers)."""
    s = {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
         "$defs": {"N": {"type": "integer", "maximum": 2**70}}}
    assert inlined_weight(s, D, 10**6) > len(str(2**70))


def _no_trivial_node(s) -> bool:
    """No ``{}`` (or prose-only) subschema: the bounded walk leaves those out of its weight
    (nothing to cut there), the inlined weight counts their braces."""
    from toolcat.features.project.bound import _PLAIN, _trivial

    table = _PLAIN[D]

    def go(node) -> bool:
        if isinstance(node, dict):
            if _trivial(node, table) and node is not s:
                return False
            return all(go(v) for k, v in node.items() if not k.startswith("x-"))
        if isinstance(node, list):
            return all(go(v) for v in node)
        return True

    return go(s)


def test_the_two_accountings_weigh_a_schema_alike():
    """bound.py weighs a schema two ways from one dispatch on keyword shapes: by level (the
    bounded walk) and written without ``$ref`` (``inlined_weight``). On a schema with no
    ``$ref`` the two are the same number: OpenAI's input and output schemas, some with
    ``true``/``false`` subschemas (``additionalProperties: false``, ``items: true``), which
    the inlined weight once counted as nothing (it had its own walk)."""
    import toolcat
    from toolcat.features.project.bound import _walk

    cat = toolcat.load(corpus("openapi", "openai.openapi.yaml"))
    seen = 0
    for t in cat.tools:
        for s in (t.input_schema, t.output_schema):
            if not isinstance(s, dict) or '"$ref"' in json.dumps(s) or not _no_trivial_node(s):
                continue
            seen += 1
            assert (inlined_weight(s, t.dialect, 10**9)
                    == sum(_walk(s, s, t.dialect, True).weights)), t.id
    assert seen >= 100, seen
