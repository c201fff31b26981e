"""Ajv as a second judge on real catalogs (issue 12): every catalog of the corpus
(../shared) and the samples, and every catalog of the outside corpus where its cache is
present (tests/outside/manifest.toml), projected as a user projects it, judged by
python-jsonschema and by Ajv as the MCP TypeScript SDK runs it (support/differential.py,
engine ``sdk``: SDK 1.32.2's own validator, what MCP clients compile output schemas with).

For each catalog, ``--to mcp`` (compact and standard view) and ``--to openwop`` (the compact
subset): every tool's projected inputSchema and outputSchema against the schema as loaded,

* compiles under Ajv wherever the original does, and is valid against its metaschema
  wherever the original is (jsonschema ``check_schema``);
* gives every instance the original's verdict (only exact changes) or accepts every instance
  the original accepts (a widened/omitted change under that pointer); instances are drawn
  from the schema and mutated (support/instances.py, seeded), objects for a tool's arguments
  and structuredContent, ``{"result": x}`` for an output schema the projection wrapped;

and every ``--to mcp`` output is a ``tools/list`` result the SDK takes
(``ListToolsResultSchema.safeParse``, then every outputSchema compiled on one shared validator
as ``Client.listTools`` does), unless a schema as loaded already fails to compile (source
data: the original is refused, the differential says so).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from support.common import CORPUS, SAMPLES

REPO = Path(__file__).resolve().parents[2]
RUN_LARGE = os.environ.get("TOOLCAT_OUTSIDE_LARGE") == "1"
COMBOS = (("mcp", "compact"), ("mcp", "standard"), ("openwop", "compact"))
SEEDS = 3          # instances drawn per schema (each with one mutant)
LONG = {"openapi/openai.openapi.yaml", "openapi/box.openapi.json"}


def _shared_paths() -> list[str]:
    out = [str(CORPUS / "github-mcp-server")] if (CORPUS / "github-mcp-server").is_dir() else []
    for folder in ("mcp-context-cost", "neo", "openapi", "openwop"):
        out += sorted(str(f) for f in (CORPUS / folder).glob("*")
                      if f.suffix in (".json", ".yaml", ".yml"))
    out += sorted(str(f) for f in SAMPLES.iterdir() if f.suffix in (".json", ".yaml", ".yml")
                  and f.name != "broken.tools.json")      # a dangling $ref, on purpose
    return out


def _outside() -> tuple[Path, list[dict], object]:
    spec = importlib.util.spec_from_file_location("outside_corpus",
                                                  REPO / "scripts" / "outside_corpus.py")
    oc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oc)
    cache = Path(os.environ.get("TOOLCAT_OUTSIDE", REPO.parent / "outside")).resolve()
    entries = [e for e in oc.load_manifest() if e["kind"] != "pair" and e["expect"] == "load"]
    return cache, entries, oc


def _params() -> list:
    out = []
    for p in _shared_paths():
        name = os.path.relpath(p, CORPUS) if not p.startswith(str(SAMPLES)) else \
            "samples/" + Path(p).name
        # the two largest corpus specs take ~4 minutes of the suite here: the long profile
        # (TOOLCAT_LONG=1) runs them; twilio and the rest of the corpus run always
        marks = [pytest.mark.long] if name in LONG else []
        out.append(pytest.param("shared", p, id=name, marks=marks))
    cache, entries, _oc = _outside()
    for e in entries:
        marks = [pytest.mark.slow] if e.get("slow") else []
        if e.get("large") and not RUN_LARGE:
            marks.append(pytest.mark.skip(reason="large spec: set TOOLCAT_OUTSIDE_LARGE=1 "
                                                 "(minutes and GiBs per projection, issue 17)"))
        out.append(pytest.param("outside", e["id"], id="outside/" + e["id"], marks=marks))
    return out


def _path(kind: str, ref: str) -> str:
    if kind == "shared":
        return ref
    cache, entries, oc = _outside()
    e = next(x for x in entries if x["id"] == ref)
    p = oc.catalog_path(cache, e, "")
    if not p.exists():
        pytest.skip(f"outside corpus cache not found at {cache} (build it: python "
                    "scripts/outside_corpus.py build --mirrors /work/.mirror --out "
                    f"{cache}; or set TOOLCAT_OUTSIDE)")
    for sub, rec in oc.sides(e):
        problems = oc._expect(rec, oc._cached(cache, e, sub, rec))
        assert not problems, f"{ref}: the cache does not match the manifest: {problems}"
    return str(p)


def _schemas(desc: dict, target: str) -> dict[str, object]:
    return {"/inputSchema": desc.get("inputSchema"), "/outputSchema": desc.get("outputSchema")}


def _instances(schema, seed: str) -> list:
    import random

    from support.instances import RandomChooser, gen, mutate

    out = []
    base = random.Random(seed).randrange(1 << 30)
    for i in range(SEEDS):
        c = RandomChooser(base + i)
        x = gen(c, schema, schema)
        out += [x, mutate(c, x)]
    return out


@pytest.mark.parametrize("target,view", COMBOS, ids=[f"{t}-{v}" for t, v in COMBOS])
@pytest.mark.parametrize("kind,ref", _params())
def test_projection_under_ajv(kind, ref, target, view, ajv_judge) -> None:
    """Each (catalog, target, view) is its own case, so that xdist spreads a large spec's
    three projections over the workers."""
    from support.differential import Differential, Pair
    from toolcat.errors import ToolcatError
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats import LoadOptions, load_catalogs
    from toolcat.formats.targets import get as get_target
    from toolcat.schema.lower import OMITTED, WIDENED

    path = _path(kind, ref)
    try:
        # as a user loads it: a $ref that names nothing widened there, reported (README)
        cats = load_catalogs([path], LoadOptions(broken_refs="widen"))
    except ToolcatError as e:
        if kind == "outside":
            raise
        pytest.skip(f"not a catalog: {e}")      # (corpus files that hold no tools)
    diff = Differential(ajv_judge, distinct=True)
    lists = []
    n = 0
    for cat in cats:
        # ids made unique as a user must (sendgrid has two operations named POST-design)
        proj = project_catalogs([cat], ProjectOptions(to=target, view=view,
                                                      duplicate_ids="rename"))
        assert len(proj.tools) == len(cat.tools)
        if target == "mcp":
            lists.append((view, json.loads(proj.output_bytes()),
                          view == "standard" and cat.format in get_target("mcp").native_formats))
        for tool, pt in zip(cat.tools, proj.tools):
            got = _schemas(pt.descriptor, target)
            for ptr, orig in (("/inputSchema", tool.input_schema),
                              ("/outputSchema", tool.output_schema)):
                new = got[ptr]
                if orig is None or new is None:
                    continue
                mine = [c for c in pt.changes
                        if c.pointer == ptr or c.pointer.startswith(ptr + "/")]
                wrapped = any(c.kind == "wrapped" and c.pointer == ptr for c in mine)
                lossy = any(c.kind in (WIDENED, OMITTED) for c in mine)
                n += 1
                diff.add(Pair(f"{ref}: {tool.id} {ptr} [{target} {view}]", orig,
                              tool.dialect, new, _instances(orig, f"{ref}:{tool.id}{ptr}"),
                              lossy=lossy, objects_only=not wrapped, wrapped=wrapped,
                              engines=("sdk",), meta=True))
    if not n:
        pytest.skip("no tool schemas")
    rep = diff.run()
    print(ref, rep.line())
    assert not rep.failures, f"{len(rep.failures)} failures:\n" + "\n".join(rep.failures[:10])
    assert rep.counts["sdk"]["pairs"] + rep.counts["sdk"]["originals refused"] > 0, rep.line()
    refused = rep.counts["sdk"]["originals refused"]
    for view, out, verbatim in lists:
        if verbatim:
            continue     # the MCP standard view of MCP input is the source as written (lint: MC101)
        r = ajv_judge.tools_list(out, sdk="v1")
        assert r.ok, (view, r.issues[:5])
        if refused == 0:     # else: a schema as loaded does not compile (source data)
            assert r.client_error is None, (view, r.client_error)
