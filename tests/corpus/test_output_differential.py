"""Output schemas are never narrowed silently (issue 35 item 1, issue 36 item 4): the
differential proof of every rewrite of a tool's ``outputSchema`` on real catalogs.

The MCP target is the one that carries output schemas (the others leave them out, reported
``omitted``). For each catalog with output schemas (MCP captures of the shared corpus; OpenAPI
specs, whose responses become ``outputSchema``: box, openai, and the outside corpus' Stripe,
Intercom, Square, DocuSign, PagerDuty...), a seeded sample of its tools (every tool with
``TOOLCAT_LONG=1``) is projected ``--to mcp`` with ``--output-schema full`` and ``bounded``
(compact view; also ``bounded --for`` every client, ``full --factor-all``, and the standard
view), and each projected ``outputSchema`` is judged against the schema as loaded by
python-jsonschema and by Ajv as the MCP SDKs run it (support/differential.py, batched: one
Node call per engine) on instances drawn from both schemas and mutated
(support/instances.py: near misses):

* every verdict change is covered by the report: no ``widened`` change, no verdict change
  (``exact``); with ``widened`` changes, only refusals become acceptances, and each such
  instance is accepted by the original widened at the reported pointers (the ceiling,
  :func:`support.differential.widened_at`): the change happens at or below a pointer the
  report gives; every reported pointer resolves in the schema as loaded;
* a schema wrapped (kind ``wrapped``: a non-object response) is judged on ``{"result": x}``;
  others on objects (MCP ``structuredContent`` is always an object).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import random
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from support.common import CORPUS
from support.fuzz_profile import is_long

LONG = os.environ.get("TOOLCAT_LONG") == "1" or is_long()

SAMPLE = 8              # tools per catalog (every tool in the long profile)
SMALLER = {"outside/stripe": 3}     # ~500 KB per output schema, each compiled ~20 times
SEEDS = (3, 2)          # instances drawn from the original, from the projection (each + mutant)
VARIANTS = (            # (--output-schema, --view, --for every client / --factor-all)
    ("full", "compact", ""),
    ("bounded", "compact", ""),
    ("bounded", "compact", "for"),
    ("full", "compact", "factor-all"),
    ("full", "standard", ""),
)
_OK_KINDS = {"exact", "kept", "widened", "wrapped"}

# (id, where) -- where: a shared corpus path, or "outside:<manifest id>"
CATALOGS = [
    ("mcp-captures", "captures"),
    ("openapi/box", "openapi/box.openapi.json"),
    ("openapi/openai", "openapi/openai.openapi.yaml"),
    ("openapi/petstore-v31", "openapi/swagger-petstore-v31.openapi.yaml"),
    ("openapi/twilio", "openapi/twilio-api-v2010.openapi.yaml"),
    ("outside/stripe", "outside:stripe-spec3-2023-09"),
    ("outside/intercom", "outside:intercom-2.15"),
    ("outside/square", "outside:square-connect"),
    ("outside/docusign", "outside:docusign-esignature-v2"),
    ("outside/pagerduty-mcp-spec", "outside:pagerduty-mcp-spec"),
    ("outside/server-filesystem", "outside:mcp-proxy-server-filesystem"),
    ("outside/server-memory", "outside:mcp-proxy-server-memory"),
    ("outside/digitalocean", "outside:digitalocean"),
    ("outside/spotify", "outside:spotify"),
    ("outside/asana", "outside:asana"),
    ("outside/temporal", "outside:temporal-api-openapiv2"),
    ("outside/paypal-orders", "outside:paypal-checkout-orders-v2"),
    ("outside/mastodon", "outside:mastodon-abraham"),
    ("outside/resend", "outside:resend"),
    ("outside/openfga", "outside:openfga-api"),
]


def _paths(where: str) -> list[str]:
    if where == "captures":
        found = [p for p in sorted(glob.glob(str(CORPUS / "mcp-context-cost" / "*.json")))
                 if '"outputSchema"' in Path(p).read_text(encoding="utf-8")]
        if not found:
            pytest.skip(f"{CORPUS / 'mcp-context-cost'} absent (set TOOLCAT_SHARED)")
        return found
    if where.startswith("outside:"):
        from support.outside import outside

        return [str(outside(where.split(":", 1)[1]))]
    p = CORPUS / where
    if not p.exists():
        pytest.skip(f"{p} absent (set TOOLCAT_SHARED)")
    return [str(p)]


@lru_cache(maxsize=2)
def _load(paths: tuple[str, ...]):
    from toolcat.formats import LoadOptions, load_catalogs

    # (Square's and DocuSign's specs hold $refs to nothing: widened to {} as loaded)
    return load_catalogs(list(paths), LoadOptions(broken_refs="widen"))


def _not_object(schema) -> bool:
    t = schema.get("type") if isinstance(schema, dict) else None
    return t is not None and t != "object"


def _instances(schema, seed: str, n: int) -> list:
    from support.instances import RandomChooser, gen, mutate

    out = []
    base = random.Random(seed).randrange(1 << 30)
    for i in range(n):
        c = RandomChooser(base + i)
        x = gen(c, schema, schema)
        out += [x, mutate(c, x)]
    return out


def _judge(cats, ref: str, ajv_judge, sample: int | None):
    """Build the differential of ``cats``' output schemas (a seeded sample of ``sample``
    tools per catalog, or all) over :data:`VARIANTS`, run it; (report, problems, tools)."""
    from support.differential import Differential, Pair, widened_at
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats.providers import CLIENTS

    diff = Differential(ajv_judge, distinct=True)
    shapes: Counter = Counter()
    problems: list[str] = []
    checked = 0
    for cat in cats:
        idx = [i for i, t in enumerate(cat.tools) if t.output_schema is not None]
        if sample is not None and len(idx) > sample:
            # a seeded sample, and the first few whose root names a type other than object
            # (wrapped: Intercom's nullable responses, arrays)
            odd = [i for i in idx if _not_object(cat.tools[i].output_schema)][:3]
            rest = [i for i in idx if i not in odd]
            idx = sorted(odd + random.Random(f"{ref}:{Path(cat.file).name}").sample(
                rest, min(len(rest), sample)))
        if not idx:
            continue
        checked += len(idx)
        # the sampled tools alone (Stripe: 8 of 468 projected, not all)
        sub = dataclasses.replace(cat, tools=[cat.tools[i] for i in idx])
        for policy, view, extra in VARIANTS:
            opts = ProjectOptions(to="mcp", view=view, output_schema=policy,
                                  duplicate_ids="rename", factor_all=extra == "factor-all",
                                  for_clients=tuple(CLIENTS) if extra == "for" else ())
            proj = project_catalogs([sub], opts)
            for tool, pt in zip(sub.tools, proj.tools):
                where = f"{ref}: {tool.id} [{policy} {view} {extra}]"
                new = pt.descriptor.get("outputSchema")
                mine = [c for c in pt.changes if c.pointer == "/outputSchema"
                        or c.pointer.startswith("/outputSchema/")]
                kinds = {c.kind.value for c in mine}
                if new is None:
                    if not any(c.kind.value == "omitted" and c.pointer == "/outputSchema"
                               for c in mine):
                        problems.append(f"{where}: outputSchema left out, not reported")
                    continue
                if kinds - _OK_KINDS:
                    problems.append(f"{where}: change kinds {sorted(kinds - _OK_KINDS)}")
                wrapped = any(c.kind.value == "wrapped" and c.pointer == "/outputSchema"
                              for c in mine)
                lossy = [c.pointer for c in mine if c.kind.value == "widened"]
                ceiling = None
                if lossy:
                    ceiling, bad = widened_at(tool.output_schema, lossy, tool.dialect,
                                              "/outputSchema")
                    problems += [f"{where}: reported pointer {p} is not in the schema"
                                 for p in bad]
                seed = f"{ref}:{tool.id}"
                xs = _instances(tool.output_schema, seed, SEEDS[0]) + \
                    _instances(new, seed + ":new", SEEDS[1])
                if wrapped:      # the projection's instances are {"result": x}
                    xs = xs[:2 * SEEDS[0]] + [x["result"] for x in xs[2 * SEEDS[0]:]
                                              if isinstance(x, dict) and "result" in x]
                # --for a 2020-12-only client: a draft-06/07 schema upgraded, its $schema
                # dropped; exact as MCP reads a schema without $schema (2020-12), not as
                # the SDK 1.x's draft-07 Ajv does (tuple items become prefixItems)
                upgraded = any("after the upgrade to 2020-12" in c.what for c in mine)
                shapes["wrapped" if wrapped else "object"] += 1
                shapes["widened"] += bool(lossy)
                shapes["upgraded"] += upgraded
                diff.add(Pair(where, tool.output_schema, tool.dialect, new, xs,
                              lossy=bool(lossy), objects_only=not wrapped, wrapped=wrapped,
                              ceiling=ceiling,
                              projected_dialect="2020-12" if upgraded else None,
                              engines=("2020-12", "sdk-v2") if upgraded else None))
    return diff.run(), problems, checked, shapes


@pytest.mark.parametrize("ref,where", CATALOGS, ids=[c[0] for c in CATALOGS])
def test_output_schemas_under_both_judges(ref, where, ajv_judge) -> None:
    cats = _load(tuple(_paths(where)))
    rep, problems, tools, shapes = _judge(cats, ref, ajv_judge,
                                          None if LONG else SMALLER.get(ref, SAMPLE))
    if not tools:
        pytest.skip("no output schemas")
    print(f"{ref}: {tools} tools; pairs {dict(shapes)}; {rep.line()}")
    assert not problems, "\n".join(problems[:10])
    assert not rep.failures, f"{len(rep.failures)} failures:\n" + "\n".join(rep.failures[:10])
    assert rep.counts["jsonschema"]["pairs"] > 0, rep.line()
    # (petstore-v31's schemas as loaded do not compile under Ajv: the originals refused)
    assert rep.counts["sdk"]["pairs"] + rep.counts["sdk"]["originals refused"] > 0, rep.line()


def test_the_ceiling_places_each_widening() -> None:
    """The rule can fail: on a captured output schema (brave_place_search), a property
    widened to {} is covered when the report points at it or above, and an uncovered change
    when it points at a sibling or says nothing; a widening the report calls a narrowing
    (an instance the original accepts, refused) is a violation either way."""
    import json

    from support.differential import Differential, Pair, widened_at

    path = CORPUS / "mcp-context-cost" / "brave-search.json"
    if not path.exists():
        pytest.skip(f"{path} absent (set TOOLCAT_SHARED)")
    (cat,) = _load((str(path),))
    tool = next(t for t in cat.tools if t.id == "brave_place_search")
    orig = tool.output_schema
    loc = orig["properties"]["location"]
    assert loc["properties"]["coordinates"]["type"] == "array"
    wide = {**orig, "properties": {**orig["properties"], "location": {
        **loc, "properties": {**loc["properties"], "coordinates": {}}}}}
    x = {"type": "locations", "query": {"original": "q"},
         "location": {"coordinates": "here", "country": "FR"}}
    at = "/outputSchema/properties/location/properties/coordinates"
    verdicts = {}
    for name, pointers in (("at", [at]), ("above", ["/outputSchema/properties/location"]),
                           ("sibling", ["/outputSchema/properties/location/properties/country"]),
                           ("none", [])):
        diff = Differential()
        ceiling = widened_at(orig, pointers, tool.dialect, "/outputSchema")[0] \
            if pointers else None
        diff.add(Pair(name, orig, tool.dialect, wide, [x, json.loads(json.dumps(x))],
                      lossy=bool(pointers), objects_only=True, ceiling=ceiling))
        rep = diff.run()
        verdicts[name] = (rep.total("verdict changes"), len(rep.failures))
    assert verdicts == {"at": (2, 0), "above": (2, 0), "sibling": (2, 2), "none": (2, 2)}, \
        verdicts
    # the other way round: the projection refuses what the original accepts
    diff = Differential()
    y = {**x, "location": {"coordinates": [1.5, 2.5], "country": "FR"}}
    diff.add(Pair("narrowed", wide, tool.dialect, orig, [y], lossy=True, objects_only=True,
                  ceiling=widened_at(wide, [at], tool.dialect, "/outputSchema")[0]))
    rep = diff.run()
    assert rep.total("verdict violations") == 0, rep.failures   # y is valid in both
    diff = Differential()
    diff.add(Pair("narrowed", wide, tool.dialect, orig, [x], lossy=True, objects_only=True,
                  ceiling=widened_at(wide, [at], tool.dialect, "/outputSchema")[0]))
    assert diff.run().total("verdict violations") == 1


@pytest.mark.parametrize("where", ["captures", "openapi/box.openapi.json"])
def test_other_targets_leave_output_schemas_out(where) -> None:
    """Only ``--to mcp`` carries output schemas: every other target leaves each one out of
    its compact view, and says so (``omitted`` at /outputSchema)."""
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats.targets import get, names

    cats = _load(tuple(_paths(where)))
    seen = 0
    for target in names():
        if get(target).compact_output_schema:
            assert target == "mcp"
            continue
        for cat in cats:
            proj = project_catalogs([cat], ProjectOptions(to=target, duplicate_ids="rename"))
            for tool, pt in zip(cat.tools, proj.tools):
                if tool.output_schema is None:
                    continue
                seen += 1
                assert "outputSchema" not in pt.descriptor, (target, tool.id)
                assert any(c.pointer == "/outputSchema" and c.kind.value == "omitted"
                           for c in pt.changes), (target, tool.id)
    assert seen > 100, seen
