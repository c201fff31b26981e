"""``--output-schema bounded`` (issue 35 item 1, :mod:`toolcat.features.project.bound`): the compact
view's output schemas keep the levels near the root that fit a budget and widen what lies
deeper, soundly (every instance the full schema accepts, the bounded one accepts), with a
``widened`` change per cut; ``full`` and ``none`` are what the compact view wrote before
(the default's ``outputSchema`` and ``--no-output-schema``)."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest
from jsonschema.validators import Draft202012Validator, validator_for

from support.common import corpus, run_toolcat
from support.instances import instances_for
from support.outside import outside


def _validator(schema):
    cls = validator_for(schema, default=Draft202012Validator)
    return cls(schema)


def _tools_with_output(path: Path):
    import toolcat

    cats = toolcat.load_all([str(path)])
    return [t for c in cats for t in c.tools if t.output_schema is not None]


def _sound(tools, budget: int, seeds: int = 4) -> tuple[int, int, int]:
    """Bound every tool's output schema to ``budget``; every generated instance the full
    schema accepts must be accepted by the bounded one. (tools cut, cuts, instances the
    full schema accepted)"""
    from toolcat.features.project.bound import bound_output

    cut = cuts = accepted = 0
    memo: dict = {}
    for i, t in enumerate(tools):
        out, changes = bound_output(t.output_schema, t.dialect, budget, memo=memo)
        if out is t.output_schema:
            assert not changes
            continue
        cut += 1
        cuts += len(changes)
        assert all(c.kind == "widened" and c.pointer.startswith("/outputSchema/")
                   for c in changes), changes[:3]
        full, bounded = _validator(t.output_schema), _validator(out)
        for x in instances_for(t.output_schema, seed=i, n=seeds):
            if full.is_valid(x):
                accepted += 1
                assert bounded.is_valid(x), (t.id, json.dumps(x)[:300])
    return cut, cuts, accepted


@pytest.mark.parametrize("budget", [256, 4096])
def test_bounded_is_sound_on_stripe(budget: int) -> None:
    """Stripe's 468 bundled response schemas (~700 KB each): bounded at a small and at the
    default budget, generated instances the full schema accepts stay accepted."""
    tools = _tools_with_output(outside("stripe-spec3-2023-09"))
    cut, cuts, accepted = _sound(tools, budget)
    assert cut > 300 and cuts > cut, (cut, cuts)
    assert accepted > 100, accepted


@pytest.mark.parametrize("name", ["openai.openapi.yaml", "box.openapi.json"])
def test_bounded_is_sound_on_openapi(name: str) -> None:
    tools = _tools_with_output(corpus("openapi", name))
    cut, _cuts, accepted = _sound(tools, 256)
    assert cut > 20 and accepted > 20, (cut, accepted)


def test_bounded_is_sound_on_mcp_captures() -> None:
    """MCP servers' own output schemas (mcp-context-cost captures, GitHub's server): at a
    budget small enough to cut them, still sound."""
    paths = [p for p in sorted(glob.glob(str(corpus("mcp-context-cost") / "*.json")))
             if '"outputSchema"' in Path(p).read_text(encoding="utf-8")]
    tools = [t for p in paths for t in _tools_with_output(Path(p))]
    assert len(tools) > 20
    cut, _cuts, accepted = _sound(tools, 128, seeds=6)
    assert cut > 10 and accepted > 20, (cut, accepted)


# the non-monotone keywords: widening below them is not a widening of the whole unless
# the keyword is widened too
_DEEP = {"type": "object", "properties": {"b": {"type": "object", "properties": {
    "c": {"type": "object", "properties": {"d": {"type": "string"}}, "required": ["d"]}}}}}


# ``valid``: what the bounded schema accepts once the keyword is widened (the full one need
# not: they show the keyword did not stay as it was)
@pytest.mark.parametrize("schema, valid, widened_at", [
    # not over a subschema that gets widened: dropped (else `not {}` rejects everything)
    ({"type": "object", "properties": {"a": {"not": _DEEP}}},
     [{"a": 1}, {"a": {"b": {"c": {"d": 5}}}}], "/outputSchema/properties/a/not"),
    # oneOf whose branches both accept once widened: anyOf
    ({"type": "object", "properties": {"a": {"oneOf": [
        {"type": "object", "properties": {"x": _DEEP}, "required": ["x"]},
        {"type": "object", "properties": {"y": _DEEP}, "required": ["y"]}]}}},
     [{"a": {"x": {}}}, {"a": {"y": {"b": 1}}}], "/outputSchema/properties/a/oneOf"),
    # if widened: if/then/else dropped
    ({"type": "object", "properties": {"a": {
        "if": {"properties": {"k": _DEEP}}, "then": {"required": ["t"]},
        "else": {"required": ["e"]}}}},
     [{"a": {"k": {"b": 1}, "e": 1}}, {"a": {"t": 1}}], "/outputSchema/properties/a/if"),
    # contains widened: maxContains dropped
    ({"type": "object", "properties": {"a": {"type": "array", "contains": _DEEP,
                                             "maxContains": 1}}},
     [{"a": [{"b": 1}, {}]}], "/outputSchema/properties/a/maxContains"),
])
def test_non_monotone_keywords_are_widened_too(schema, valid, widened_at) -> None:
    from toolcat.features.project.bound import bound_output

    seen = set()
    full = _validator(schema)
    xs = [x for x in instances_for(schema, seed=7, n=40) if full.is_valid(x)]
    assert xs
    for budget in (1, 40, 80, 120, 160, 240, 400):
        out, changes = bound_output(schema, "2020-12", budget=budget)
        pointers = {c.pointer for c in changes}
        seen.update(pointers)
        bounded = _validator(out)
        for x in xs + (valid if widened_at in pointers else []):
            assert bounded.is_valid(x), (budget, x)
    assert widened_at in seen, seen


def test_names_required_and_closed_objects_stay() -> None:
    """A widened property keeps its name (additionalProperties: false still allows it) and
    stays required; a definition no kept $ref reaches is left out; a leaf one level below
    the bound is kept whole; a recursive definition stays sound."""
    from toolcat.features.project.bound import bound_output

    schema = {"type": "object", "additionalProperties": False, "required": ["a", "n"],
              "properties": {"a": {"$ref": "#/$defs/node"}, "n": {"type": "integer"}},
              "$defs": {"node": {"type": "object", "additionalProperties": False,
                                 "properties": {"v": {"type": "string"},
                                                "kids": {"type": "array",
                                                         "items": {"$ref": "#/$defs/node"}},
                                                "deep": {"$ref": "#/$defs/far"}}},
                        "far": {"type": "object", "properties": {"z": _DEEP}},
                        "unused": {"type": "string"}}}
    out, changes = bound_output(schema, "2020-12", budget=250)
    assert out["additionalProperties"] is False and out["required"] == ["a", "n"]
    assert set(out["properties"]) == {"a", "n"}
    assert "unused" not in out["$defs"] and "far" not in out["$defs"]
    node = out["$defs"]["node"]
    assert set(node["properties"]) == {"v", "kids", "deep"}
    assert node["properties"]["v"] == {"type": "string"}          # a leaf, kept
    assert node["properties"]["deep"] == {}
    assert "/outputSchema/$defs/node/properties/deep" in [c.pointer for c in changes]
    v = _validator(out)
    assert v.is_valid({"a": {"v": "x", "kids": [{"v": "y", "kids": []}],
                             "deep": {"z": {"b": 1}}}, "n": 1})
    assert not v.is_valid({"a": {}, "n": 1, "other": 1})


def test_within_budget_is_the_same_object() -> None:
    from toolcat.features.project.bound import bound_output

    schema = {"type": "object", "properties": {"a": _DEEP}}
    out, changes = bound_output(schema, "2020-12")
    assert out is schema and changes == []


def test_unsupported_references_stay_whole() -> None:
    """A $ref the bound cannot follow (here a pointer into properties) leaves the schema
    whole (exact), however large."""
    from toolcat.features.project.bound import bound_output

    schema = {"type": "object", "properties": {"a": _DEEP, "b": {"$ref": "#/properties/a"}}}
    out, changes = bound_output(schema, "2020-12", budget=1)
    assert out is schema and changes == []


def test_integers_beyond_64_bits() -> None:
    """A bound beyond 64 bits (DigitalOcean writes 2**64 - 1) is weighed as its canonical
    JSON: the bound cuts as elsewhere (it raised TypeError from orjson)."""
    from toolcat.features.project.bound import bound_output

    schema = {"type": "object", "properties": {
        "a": {"type": "integer", "maximum": 2**64 - 1},
        "b": {"type": "object", "properties": {"c": {"maximum": 2**70}}}}}
    out, changes = bound_output(schema, "2020-12", budget=1)
    assert out["properties"]["a"] == {"type": "integer", "maximum": 2**64 - 1}
    assert out["properties"]["b"] == {}
    assert [c.pointer for c in changes] == ["/outputSchema/properties/b"]


def test_digitalocean_projects_bounded(tmp_path: Path) -> None:
    """DigitalOcean's spec (integers beyond 64 bits in its responses): the default compact
    view (bounded) is written; it was an internal error."""
    spec = outside("digitalocean")
    out = tmp_path / "c.json"
    r = run_toolcat("project", str(spec), "-q", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert len(json.loads(out.read_text())["tools"]) > 500


# ------------------------------------------------------------------------- the command


def test_stripe_project_bounded_by_default(tmp_path: Path) -> None:
    """The compact view of Stripe: output schemas bounded (the view was 49 MB with them
    whole); the report lists each cut with its pointer; the standard view is unchanged."""
    spec = outside("stripe-spec3-2023-09")
    out, rep = tmp_path / "c.json", tmp_path / "r.json"
    r = run_toolcat("project", str(spec), "-q", "-o", str(out), "--report", str(rep))
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size < 5_000_000
    tools = json.loads(out.read_text())["tools"]
    report = {t["id"]: t["changes"] for t in json.loads(rep.read_text())["tools"]}
    get = next(t for t in tools if t["name"] == "GetCustomers")
    # (the one $ref to the customer is inlined by the lowering)
    cust = get["outputSchema"]["properties"]["data"]["items"]
    assert cust["properties"]["address"] == {}
    assert cust["properties"]["created"] == {"format": "unix-time", "type": "integer"}
    assert cust["required"] == ["created", "id", "livemode", "object"]
    # the pointers are the standard view's (where the cut is in the whole schema)
    cut = [c for c in report["GetCustomers"] if c["kind"] == "widened"]
    assert "/outputSchema/$defs/customer/properties/address" in [c["pointer"] for c in cut]
    assert "/outputSchema/$defs/customer/properties/created" not in [c["pointer"] for c in cut]
    std = tmp_path / "s.json"
    assert run_toolcat("project", str(spec), "-q", "--view", "standard", "-o",
                       str(std)).returncode == 0
    stools = json.loads(std.read_text())["tools"]
    sget = next(t for t in stools if t["name"] == "GetCustomers")
    assert "address" in sget["outputSchema"]["$defs"]       # whole
    # the compact output schema accepts what the standard one accepts (generated instances)
    full, bounded = _validator(sget["outputSchema"]), _validator(get["outputSchema"])
    page = {"data": [], "has_more": False, "object": "list", "url": "/v1/customers"}
    cus = {"id": "cus_1", "object": "customer", "created": 1, "livemode": False,
           "address": {"city": "x", "country": "US", "line1": "a", "line2": None,
                       "postal_code": "1", "state": None}, "email": None}
    xs = [page, {**page, "data": [cus]}] + [
        x for x in instances_for(sget["outputSchema"], seed=3, n=30) if full.is_valid(x)]
    for x in xs:
        assert full.is_valid(x) and bounded.is_valid(x), x
    assert not bounded.is_valid({**page, "data": [{**cus, "created": "x"}]})


def test_output_schema_option(tmp_path: Path) -> None:
    """--output-schema full|bounded|none; --no-output-schema is none; the two together
    must agree; a bad value is one error line, exit 2."""
    spec = corpus("openapi", "box.openapi.json")

    def run(*args: str) -> bytes:
        out = tmp_path / "o.json"
        r = run_toolcat("project", str(spec), "-q", "-o", str(out), *args)
        assert r.returncode == 0, r.stderr
        return out.read_bytes()

    full, bounded, none = run("--output-schema", "full"), run(), run("--output-schema", "none")
    assert len(none) < len(bounded) < len(full)
    assert run("--no-output-schema") == none
    assert run("--output-schema", "bounded") == bounded
    assert run("--lossless") != run("--lossless", "--output-schema", "bounded")
    r = run_toolcat("project", str(spec), "-q", "--output-schema", "some")
    err = r.stderr.decode()
    assert r.returncode == 2 and err.strip().startswith("toolcat: error:") \
        and len(err.strip().splitlines()) == 1, err
    assert "--output-schema must be one of full, bounded, none" in err
    r = run_toolcat("project", str(spec), "-q", "--output-schema", "full",
                    "--no-output-schema")
    assert r.returncode == 2 and "--no-output-schema" in r.stderr.decode()
    import toolcat

    cat = toolcat.load(str(spec))
    assert toolcat.project(cat, output_schema="full").output_bytes() == full
    assert toolcat.project(cat, output_schema=False).output_bytes() == none
    m_full = toolcat.measure(cat, output_schema="full").json()
    m_bounded = toolcat.measure(cat).json()
    key = "bytes_after"
    assert m_bounded["catalogs"][0][key] < m_full["catalogs"][0][key]
