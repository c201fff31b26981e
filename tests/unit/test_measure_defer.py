"""`measure --defer`: what the model reads up front and what each deferred tool adds on
demand, counted from what `project` writes with the same options; `--gate upfront`."""

from __future__ import annotations

import json
import math
import statistics

import pytest

import toolcat
from support.common import corpus, run_toolcat
from toolcat.document.canonical import dumps
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.features.project.defer import DeferOptions
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.tokens import count


@pytest.fixture(scope="module")
def github():
    return load_catalogs([str(corpus("github-mcp-server"))], LoadOptions(strict=True))


@pytest.mark.parametrize("to", ["anthropic", "openai-responses"])
def test_upfront_and_on_demand_are_what_project_writes(github, to):
    opts = ProjectOptions(to=to, defer=DeferOptions("all", eager=("get_me",)))
    written = project_catalogs(github, opts).catalog()
    fig = toolcat.measure(github, settings=opts, loaded=3).catalogs[0]
    d = fig.defer
    if to == "anthropic":     # deferred tools are not shown at all
        shown = [x for x in written if not x.get("defer_loading")]
        loaded = [x for x in written if x.get("defer_loading")]
    else:                     # a namespace shows its name and description
        shown = [{k: x[k] for k in ("type", "name", "description")}
                 if x["type"] == "namespace" else x for x in written]
        loaded = [f for x in written if x["type"] == "namespace" for f in x["tools"]]
    assert d.upfront_bytes == len(dumps(shown)) == fig.bytes_upfront
    assert d.upfront_tokens == count(dumps(shown)) == fig.tokens_upfront
    want = {x["name"]: count(dumps(x)) for x in loaded}
    assert {o.id: o.tokens for o in d.on_demand} == want
    toks = sorted(want.values())
    median = math.floor(statistics.median(toks) + 0.5)    # halves round up
    assert d.spread() == {"min": toks[0], "median": median, "max": toks[-1]}
    assert d.session_tokens() == d.upfront_tokens + 3 * median
    eager = project_catalogs(github, ProjectOptions(to=to)).array_bytes()
    assert d.eager_catalog_tokens == count(eager)
    # the acceptance: up front is under 15% of the eager compact catalog
    assert d.upfront_tokens * 100 < 15 * d.eager_catalog_tokens


def test_cli_json_and_the_upfront_gate(github):
    gh = str(corpus("github-mcp-server"))
    r = run_toolcat("measure", gh, "--as", "anthropic", "--defer", "all", "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["catalogs"][0]
    assert c["upfront_tokens"] * 100 < 15 * c["deferral"]["eager_tokens"]
    per = c["deferral"]["deferred_tools"]
    assert len(per) == 117 and all(t["on_demand_tokens"] > 0 for t in per)
    up = c["upfront_tokens"]
    for limit, code in ((up, 0), (up - 1, 1)):
        r = run_toolcat("measure", gh, "--as", "anthropic", "--defer", "all", "--gate",
                        "upfront", "--max-tokens", str(limit), "-q")
        assert r.returncode == code, r.stderr
    r = run_toolcat("measure", gh, "--gate", "upfront", "--max-tokens", "5")
    assert r.returncode == 2 and b"--gate upfront needs --defer" in r.stderr
