"""Differential proof of the projection on the JSON-Schema-Test-Suite (draft2020-12, draft7).

For every case (``optional/`` included), as written, for draft7 also with ``$schema``
declared, and without its root ``$schema`` read as 2020-12 (MCP's default; the MCP SDK 1.x
reads every schema as draft-07 anyway), the schema goes through the projection's schema
pipeline in each mode a catalog can ask for, and every test instance is judged against the
original and the projected schema by every real reader (support/differential.py):
python-jsonschema (``refRemote`` targets come from the suite's ``remotes/`` folder through a
local registry; nothing is fetched) and Ajv as the MCP SDKs run it (support/ajv.py):

* the projection compiles under every Ajv engine its original compiles under;
* only ``exact`` changes  -> the same verdict as the original, on every instance;
* a ``widened`` change    -> every instance the original accepts is still accepted;
* subset modes            -> the result uses no RFC 0112 forbidden keyword at any depth.

The verdicts come from the readers, never from toolcat; a failure names the file, the case,
the reader and the instance. ``python tests/corpus/test_schema_suite.py`` prints the counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.common import corpus

SUITES = {"draft2020-12": "2020-12", "draft7": "draft7"}


def _cases(suite: str):
    root = corpus("json-schema-test-suite", suite)
    for f in sorted(root.rglob("*.json")):
        rel = f.relative_to(root).as_posix()
        for i, case in enumerate(json.loads(f.read_text(encoding="utf-8"))):
            yield rel, i, case


def _registry(suite: str):
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT7, DRAFT202012

    spec = DRAFT202012 if suite == "draft2020-12" else DRAFT7
    remotes = corpus("json-schema-test-suite", "remotes")
    resources = []
    for f in sorted(remotes.rglob("*.json")):
        uri = "http://localhost:1234/" + f.relative_to(remotes).as_posix()
        contents = json.loads(f.read_text(encoding="utf-8"))
        resources.append((uri, Resource.from_contents(contents, default_specification=spec)))
    return Registry().with_resources(resources)


MODES = {
    # name: lower_schema keyword arguments
    "exact": {"subset": False},
    # what the MCP/OpenAI/Anthropic targets do: exact rewrites, repeated subtrees factored
    "factor": {"subset": False, "factor": True},
    "widen": {"subset": True, "unlowerable": "widen", "floor": False},
    "keep": {"subset": True, "unlowerable": "keep", "floor": False},
    "floor": {"subset": True, "unlowerable": "widen", "floor": True},
}


_LOCATION = ('"$ref"', '"$id"', '"id"', '"$anchor"', '"$dynamic', '"$recursive', '"$schema"')


def _variants(rel: str, i: int, case: dict):
    """The case itself, and for a schema that no reference or identifier ties to its place,
    the same schema three times under ``anyOf`` (it accepts the same instances, annotations
    included), so factoring of repeated subtrees meets every construct of the suite."""
    yield rel, i, case
    schema = case["schema"]
    if not isinstance(schema, dict):
        return
    head = {"$schema": schema["$schema"]} if "$schema" in schema else {}
    body = {k: v for k, v in schema.items() if k != "$schema"}
    text = json.dumps(body)
    if len(text) >= 12 and not any(k in text for k in _LOCATION):
        yield rel + " [anyOf x3]", i, {**case, "schema": {**head, "anyOf": [body] * 3}}


D7 = "http://json-schema.org/draft-07/schema#"


def _dialect_variants(suite: str, rel: str, i: int, case: dict):
    """``(label, case, dialect toolcat reads it with)``: the case as written (the suite's
    dialect); a draft7 case also with ``$schema`` declared (what the SDK v2 reads as draft-07);
    and every case without its root ``$schema``, read as 2020-12 (MCP's default, which
    toolcat assumes): the MCP SDK 1.x still reads it as draft-07."""
    dialect = SUITES[suite]
    yield rel, case, dialect
    schema = case["schema"]
    if not isinstance(schema, dict):
        return
    if suite == "draft7" and "$schema" not in schema:
        yield rel + " [$schema draft-07]", {**case, "schema": {"$schema": D7, **schema}}, dialect
    bare = {k: v for k, v in schema.items() if k != "$schema"}
    yield rel + " [no $schema, read as 2020-12]", {**case, "schema": bare}, "2020-12"


def _check_suite(suite: str, judge=None) -> dict:
    """Every case (and variant) through every mode, judged by jsonschema and, given the Ajv
    ``judge``, by Ajv as the MCP SDKs run it (support/differential.py)."""
    from support.differential import Differential, Pair
    from toolcat.schema.lower import EXACT, WIDENED, lower_schema, subset_violations

    diff = Differential(judge, registry=_registry(suite))
    failures: list[str] = []
    stats = {"cases": 0, "instances": 0, "widened_cases": 0, "factored": 0}
    for rel0, i, case0 in _cases(suite):
        for rel1, case1, dialect in _dialect_variants(suite, rel0, i, case0):
            variants = _variants(rel1, i, case1) if rel1 == rel0 else [(rel1, i, case1)]
            for rel, _i, case in variants:
                stats["cases"] += 1
                schema = case["schema"]
                formats = rel.startswith("optional/format/")
                instances = [t["data"] for t in case["tests"]]
                stats["instances"] += len(instances)
                where = f"{suite}/{rel} case {i} ({case['description']!r})"
                for mode, kw in MODES.items():
                    try:
                        res = lower_schema(schema, dialect, pointer="", **kw)
                    except Exception as e:  # noqa: BLE001
                        failures.append(f"{where} [{mode}]: projection raised "
                                        f"{type(e).__name__}: {e}")
                        continue
                    kinds = {c.kind for c in res.changes}
                    if mode == "factor" and any("identical subschemas" in c.what
                                                for c in res.changes):
                        stats["factored"] += 1
                    if mode in ("exact", "keep") and WIDENED in kinds:
                        failures.append(f"{where} [{mode}]: widened in an exact-only mode: "
                                        f"{res.changes}")
                    if mode in ("widen", "floor"):
                        v = subset_violations(res.schema, dialect, floor=(mode == "floor"))
                        if v:
                            failures.append(f"{where} [{mode}]: not in the compact subset: {v}")
                    if WIDENED in kinds:
                        stats["widened_cases"] += 1
                    if isinstance(res.schema, bool) and isinstance(schema, dict) and \
                            mode in ("widen", "keep"):
                        # the compact subset has no object form of `false` (no `not`); a
                        # tool's schema always gets the floor there (mode "floor"), never
                        # a boolean root: Ajv is not asked about this synthetic mode's root
                        diff.add(Pair(f"{where} [{mode}]", schema, dialect, res.schema,
                                      instances, lossy=not kinds <= {EXACT}, formats=formats,
                                      engines=()))
                        continue
                    # the floor is exact for tool arguments (objects) only
                    diff.add(Pair(f"{where} [{mode}]", schema, dialect, res.schema, instances,
                                  lossy=not kinds <= {EXACT}, objects_only=(mode == "floor"),
                                  formats=formats))
    report = diff.run()
    stats["readers"] = {r: dict(c) for r, c in report.counts.items()}
    stats["failures"] = failures + report.failures
    return stats


@pytest.mark.parametrize("suite", list(SUITES))
def test_json_schema_test_suite(suite: str, ajv_judge) -> None:
    stats = _check_suite(suite, ajv_judge)
    failures = stats["failures"]
    print(suite, {k: v for k, v in stats.items() if k != "failures"})
    assert stats["cases"] > 300 and stats["instances"] > 1500
    assert stats["factored"] > 30, stats      # factoring met many constructs
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])
    # every reader judged (no silent skip): jsonschema and the three Ajv engines
    for reader in ("jsonschema", "sdk", "2020-12", "sdk-v2"):
        assert stats["readers"][reader]["instances"] > 1000, stats["readers"]


if __name__ == "__main__":  # a summary for the report: python tests/corpus/test_schema_suite.py
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # tests/: support.*
    from support.ajv import AjvJudge

    judge = AjvJudge(timeout=600)
    for s in SUITES:
        st = _check_suite(s, judge)
        print(s, {k: v for k, v in st.items() if k != "failures"}, "failures:", len(st["failures"]))
        for f in st["failures"][:60]:
            print("  ", f)
