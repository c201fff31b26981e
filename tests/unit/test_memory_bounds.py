"""What keeps `project` and `measure` on a Stripe-sized spec within a memory bound (issue 17):
equal parts of the kept output schemas are one object (:mod:`toolcat.document.share`), the
token counter's child is fed a bounded amount at a time, the output is serialized once and
`measure` serializes its views a chunk of tools at a time. Each must give exactly what the
whole-at-once way gives."""

from __future__ import annotations

import math
import os
import signal
import sys

import orjson
import pytest

from support.common import SAMPLES, corpus
from toolcat import tokens
from toolcat.api import load_all, load_data
from toolcat.document.share import Sharer
from toolcat.features.project import options_from_cli, project_catalogs

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="the forked counter is Linux-only")


def _ids(v, out=None):
    """id of every container in ``v``, with repeats (a shared object is met again)."""
    out = [] if out is None else out
    if isinstance(v, dict):
        out.append(id(v))
        for x in v.values():
            _ids(x, out)
    elif isinstance(v, list):
        out.append(id(v))
        for x in v:
            _ids(x, out)
    return out


# ------------------------------------------------------------------------------ Sharer

def test_equal_subtrees_become_one_object_across_values():
    sh = Sharer()
    part = {"type": "object", "properties": {"a": {"type": "string"}}}
    a = sh.share({"x": orjson.loads(orjson.dumps(part)), "y": orjson.loads(orjson.dumps(part))})
    b = sh.share({"z": orjson.loads(orjson.dumps(part))})
    assert a["x"] is a["y"] is b["z"]
    assert a["x"]["properties"]["a"] is b["z"]["properties"]["a"]
    assert orjson.dumps(a) == orjson.dumps({"x": part, "y": part})


@pytest.mark.parametrize("left,right", [
    (1, 1.0), (1, True), (0, False), (0.0, -0.0), ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ([1, 2], [2, 1]), ("1", 1), (None, False), ([], {}), ({"a": [1]}, {"a": [1.0]}),
])
def test_values_equal_in_python_but_not_as_json_stay_apart(left, right):
    sh = Sharer()
    got = sh.share([{"v": left}, {"v": right}])
    assert got[0] is not got[1]
    assert orjson.dumps(got) == orjson.dumps([{"v": left}, {"v": right}])
    if isinstance(left, float) and isinstance(right, float):
        assert math.copysign(1, got[0]["v"]) != math.copysign(1, got[1]["v"])


def test_nan_and_foreign_values_are_not_shared_and_the_input_is_not_changed():
    sh = Sharer()
    nan = {"v": float("nan")}
    tup = {"v": (1, 2)}
    value = [nan, dict(nan), tup, dict(tup), {"k": [1]}, {"k": [1]}]
    before = repr(value)
    got = sh.share(value)
    assert got[0] is not got[1] and got[2] is not got[3]
    assert got[4] is got[5]
    assert repr(value) == before and value[4] is not value[5]


def test_too_deep_to_walk_is_left_as_it_is():
    deep: list = []
    v = deep
    for _ in range(100_000):
        v.append([])
        v = v[0]
    assert Sharer().share(deep) is deep


# ------------------------------------------------------------------- the kept output schemas

def test_output_schemas_of_a_run_share_their_equal_parts():
    path = corpus("openapi", "box.openapi.json")
    if not path.exists():
        pytest.skip("no corpus")
    # (--output-schema full: whole response schemas, where memory is at stake; a bounded
    # one is a few KB, not walked for this)
    proj = project_catalogs(load_all([str(path)]), options_from_cli(to="mcp",
                                                                    output_schema="full"))
    outs = [t.descriptor["outputSchema"] for t in proj.tools if "outputSchema" in t.descriptor]
    ids = [i for o in outs for i in _ids(o)]
    assert len(set(ids)) * 2 < len(ids)      # most containers are shared
    # and the bytes are those of each tool projected alone (test_output_memo checks schemas)
    alone = project_catalogs(load_all([str(path)]), options_from_cli(to="mcp",
                                                                     output_schema="full"))
    assert proj.output_bytes() == alone.output_bytes()


@pytest.mark.parametrize("to", ["mcp", "openwop", "openai", "anthropic"])
def test_the_output_is_serialized_once_and_holds_the_array(to):
    cats = load_all([str(SAMPLES / "petstore.openapi.yaml")])
    proj = project_catalogs(cats, options_from_cli(to=to))
    out = proj.output_bytes()
    assert proj.output_bytes() is out                     # memoized
    arr = orjson.dumps(proj.array())
    assert bytes(proj.array_view()) == arr == proj.array_bytes()
    doc = orjson.loads(out)
    listed = doc if isinstance(doc, list) else next(v for v in doc.values() if isinstance(v, list))
    assert orjson.dumps(listed) == arr
    fresh = project_catalogs(cats, options_from_cli(to=to))
    fresh.array_bytes()                                   # the other order: array first
    assert fresh.output_bytes() == out


# ----------------------------------------------------------------- the counter's backpressure

@needs_fork
def test_the_forked_counter_holds_a_bounded_amount_and_counts_the_same():
    texts = [('{"name":"t%d","description":"%s"}' % (i, "word " * (i % 300))) for i in range(400)]
    c = tokens.ForkedCounter("o200k_base")
    c.IN_FLIGHT_MAX = 4000
    most = 0
    for t in texts:
        c.submit(t)
        most = max(most, c._in_flight)
    got = c.results()
    assert got == [tokens.count(t) for t in texts]
    assert most <= 4000 + max(len(t) for t in texts)


@needs_fork
def test_a_dead_child_does_not_leave_the_submitter_waiting():
    c = tokens.ForkedCounter("o200k_base")
    c.IN_FLIGHT_MAX = 10
    os.kill(c._pid, signal.SIGKILL)
    texts = ["some text %d " % i * 20 for i in range(50)]
    for t in texts:
        c.submit(t)
    assert c.results() == [tokens.count(t) for t in texts]


# ------------------------------------------------------------------- measure in chunks

def _measured(cats, monkeypatch, chunk, **opts):
    import toolcat.features.measure as M

    monkeypatch.setattr(M, "_CHUNK_BYTES", chunk)
    popts = options_from_cli(**opts)
    figs = M.measure_catalogs(cats, popts, per_tool=True, counter=tokens.Counter())
    return [orjson.dumps({**f.to_json(), "tools_figures": [t.to_json() for t in f.tool_figures],
                          "middle": f.tokens_middle, "notes": [f.input_schema_note,
                                                               f.duplicate_note]})
            for f in figs]


CATALOGS = [SAMPLES / "petstore.openapi.yaml", SAMPLES / "git.tools.json",
            SAMPLES / "petstore.swagger2.yaml"]


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.name)
@pytest.mark.parametrize("opts", [{}, {"to": "openai"}, {"output_schema": False},
                                  {"to": "openwop"}], ids=str)
def test_measure_a_tool_at_a_time_gives_the_whole_figures(path, opts, monkeypatch):
    cats = load_all([str(path)])
    whole = _measured(cats, monkeypatch, 1 << 40, **opts)
    assert _measured(cats, monkeypatch, 1, **opts) == whole      # one tool per chunk
    assert _measured(cats, monkeypatch, 3000, **opts) == whole   # a few tools per chunk


def test_measure_in_chunks_counts_the_joined_text_exactly(monkeypatch):
    # tools whose canonical texts join where a careless cut would change the count: keys
    # that start with a digit or punctuation, a first tool, non-ASCII descriptions
    tools = [{"name": f"t{i}", "description": "\u00e9" * (i % 7) + " x" * i,
              "inputSchema": {"type": "object", "properties": {"1a": {}, "_b": {"type": "string"}}}}
             for i in range(40)]
    cats = [load_data({"tools": tools}, name="t.json")]
    whole = _measured(cats, monkeypatch, 1 << 40)
    assert _measured(cats, monkeypatch, 1, ) == whole
    fig = orjson.loads(whole[0])
    import toolcat.features.measure as M

    proj = M.project_one(cats[0], options_from_cli())
    assert fig["tokens_after"] == tokens.count(proj.array_bytes())
    assert fig["tokens_before"] == tokens.count(orjson.dumps([t.standard for t in proj.tools]))
