"""`toolcat diff`, differentially: real schemas from the corpus, random edits of each kind
(tests/support/diff_fuzz.py: required names added/removed, bounds moved, enum values
added/removed, a property moved into a ``$ref``, properties reordered, a schema split into an
``allOf``, values respelled, a new optional property, objects closed, a property removed from
a closed object, types narrowed or widened, patterns added), each pair classified by
``diff_catalogs`` as an input and as an output schema, and the classification checked
against instances:

* every breaking finding's witness is replayed with jsonschema (and with Ajv where the
  judge is installed): valid for OLD and invalid for NEW (outputs: the reverse);
* a pair called non-breaking (or unchanged) is checked on random instances of OLD drawn by a
  generator of the test's own (outputs: of NEW): every one must be valid for the other side;
* an edit that narrows (by construction it has a witness) is never called non-breaking, and
  one that keeps the instances the same is called unchanged.

``TOOLCAT_DIFF_FUZZ=N`` runs N cases with ``TOOLCAT_DIFF_FUZZ_SEED``; by default 400, times
the fuzz factor under the ``long`` Hypothesis profile (``--hypothesis-profile=long``,
tests/support/fuzz_profile.py).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import jsonschema
import pytest

from support.common import corpus
from support.diff_fuzz import EDITS, apply, instances
from support.fuzz_profile import examples
from toolcat.features.diff.catalog import BREAKING, UNKNOWN, Options, diff_catalogs
from toolcat.model import Catalog, Tool

CASES = int(os.environ.get("TOOLCAT_DIFF_FUZZ") or examples(400))
SEED = int(os.environ.get("TOOLCAT_DIFF_FUZZ_SEED", "16"))


def _sources() -> list[dict]:
    folder = corpus("mcp-context-cost")
    out, seen = [], set()
    for p in sorted(folder.glob("*.json")):
        doc = json.loads(p.read_bytes())
        for t in doc.get("rawToolsCapture") or []:
            s = t.get("inputSchema") if isinstance(t, dict) else None
            if not isinstance(s, dict) or not isinstance(s.get("properties"), dict) or not s["properties"]:
                continue
            key = json.dumps(s, sort_keys=True)
            if key in seen or len(key) > 20000:
                continue
            seen.add(key)
            out.append(s)
    return out


def _catalog(schema: dict, area: str) -> Catalog:
    t = Tool(id="t", description="d")
    if area == "input":
        t.input_schema = schema
    else:
        t.input_schema = {"type": "object"}
        t.output_schema = schema
    return Catalog(file=f"{area}.json", format="mcp", tools=[t])


def classify(old: dict, new: dict, area: str, normalize: bool = False):
    rep = diff_catalogs([_catalog(old, area)], [_catalog(new, area)], "old", "new",
                        Options(normalize=normalize))
    fs = [f for f in rep.findings() if f.area == area]
    if any(f.kind == BREAKING for f in fs):
        verdict = "breaking"
    elif any(f.kind == UNKNOWN for f in fs):
        verdict = "unknown"
    else:
        verdict = "non-breaking" if fs else "none"
    return verdict, fs


def _validator(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


@pytest.fixture(scope="module")
def sweep():
    """Run the sweep once; the tests below look at its records."""
    sources = _sources()
    assert len(sources) > 50
    rng = random.Random(SEED)
    records = []
    attempts = 0
    while len(records) < CASES and attempts < CASES * 20:
        attempts += 1
        schema = rng.choice(sources)
        edit = rng.choice(EDITS)
        got = apply(schema, edit, rng)
        if got is None:
            continue
        old, new, expect = got
        area = "input" if rng.random() < 0.6 else "output"
        normalize = rng.random() < 0.25      # the normalized path too, not only as written
        verdict, fs = classify(old, new, area, normalize)
        src, dst = (old, new) if area == "input" else (new, old)
        va, vb = _validator(src), _validator(dst)
        rec = {"edit": edit.__name__, "expect": expect, "area": area, "verdict": verdict,
               "old": old, "new": new, "witnesses": [], "instances": [], "failures": [],
               "normalized": normalize}
        for f in fs:
            if f.kind == BREAKING:
                assert f.has_witness, f.what
                rec["witnesses"].append(f.witness)
                if not (va.is_valid(f.witness) and not vb.is_valid(f.witness)):
                    rec["failures"].append(f"witness does not replay: {f.what}: "
                                           f"{json.dumps(f.witness)[:200]}")
        if verdict in ("non-breaking", "none"):
            for inst in instances(src, va, rng, n=15):
                rec["instances"].append(inst)
                if not vb.is_valid(inst):
                    rec["failures"].append(f"called {verdict}, but {json.dumps(inst)[:200]} "
                                           f"is valid for {'OLD' if area == 'input' else 'NEW'} "
                                           "and not for the other")
        records.append(rec)
    return records


def test_sweep_size(sweep):
    assert len(sweep) >= min(CASES, 100)
    by_edit = Counter(r["edit"] for r in sweep)
    assert len(by_edit) >= len(EDITS) - 2, by_edit   # (almost) every kind of edit was tried


def test_witnesses_replay_and_non_breaking_holds(sweep):
    bad = [(r["edit"], r["area"], f) for r in sweep for f in r["failures"]]
    assert not bad, bad[:5]
    assert sum(len(r["witnesses"]) for r in sweep) > 50
    assert sum(len(r["instances"]) for r in sweep) > 500


def _narrowing(r) -> bool:
    """The edit makes the side that must hold everything accept less."""
    return (r["expect"] == "narrow") == (r["area"] == "input") and r["expect"] in ("narrow", "widen")


def test_narrowing_edits_are_never_called_compatible(sweep):
    wrong = [(r["edit"], r["area"], r["verdict"]) for r in sweep
             if _narrowing(r) and r["verdict"] in ("non-breaking", "none")]
    assert not wrong, wrong[:5]


def test_meaning_preserving_edits_show_no_change(sweep):
    same = [r for r in sweep if r["expect"] == "same"]
    assert same
    wrong = [(r["edit"], r["area"], r["verdict"]) for r in same if r["verdict"] != "none"]
    assert not wrong, wrong[:5]


def test_precision(sweep):
    """Most narrowing edits are shown as breaking with a witness (not merely unknown)."""
    nar = [r for r in sweep if _narrowing(r)]
    assert nar
    shown = sum(1 for r in nar if r["verdict"] == "breaking")
    assert shown / len(nar) >= 0.85, Counter((r["edit"], r["verdict"]) for r in nar
                                            if r["verdict"] != "breaking")


def test_ajv_agrees(sweep):
    """The second judge: Ajv (Ajv2020, and the MCP SDK's own draft-07 validator) on every
    witness and every generated instance. Ajv asserts formats (jsonschema does not): an
    instance Ajv refuses for the side it was drawn from is no instance of it there (skipped),
    and a witness it refuses for the accepting side must be explained by a format."""
    from support.ajv import AjvJudge, require

    require()
    items, meta = [], []
    for r in sweep:
        src, dst = (r["old"], r["new"]) if r["area"] == "input" else (r["new"], r["old"])
        insts = r["witnesses"] + r["instances"]
        if insts:
            items += [(src, insts), (dst, insts)]
            meta.append((r, len(r["witnesses"]), json.dumps(src)))
    bad, checked, by_format = [], 0, 0
    # small batches: each round trip stays far within the judge's timeout on a busy machine
    with AjvJudge(batch_size=40) as judge:
        for engine in ("2020-12", "sdk"):
            got = judge.validate_many(items, engine=engine)
            for k, (r, n_w, src_text) in enumerate(meta):
                vs, vd = got[2 * k], got[2 * k + 1]
                if vs.error is not None or vd.error is not None:
                    continue   # a schema this Ajv cannot compile: no verdict
                insts = r["witnesses"] + r["instances"]
                for i, inst in enumerate(insts):
                    a, b = vs.valid[i], vd.valid[i]
                    if a is None or b is None:
                        continue
                    checked += 1
                    if i < n_w:   # a witness: NEW side must reject it, OLD side accept it
                        if b:
                            bad.append((engine, r["edit"], "witness accepted", json.dumps(inst)[:120]))
                        elif not a:
                            if '"format"' in src_text:
                                by_format += 1
                            else:
                                bad.append((engine, r["edit"], "witness refused by its side",
                                            json.dumps(inst)[:120]))
                    elif a and not b:
                        bad.append((engine, r["edit"], f"{r['verdict']}, yet refused",
                                    json.dumps(inst)[:120]))
    assert checked > 1000
    assert not bad, bad[:5]
