"""Differential proof of the projection on the JSON-Schema-Test-Suite (draft2020-12, draft7).

For every case (``optional/`` included) the schema goes through the projection's schema
pipeline in each mode a catalog can ask for, and every test instance is validated with
python-jsonschema against the original and the projected schema (``refRemote`` targets come
from the suite's ``remotes/`` folder through a local registry; nothing is fetched):

* only ``exact`` changes  -> the same verdict as the original, on every instance;
* a ``widened`` change    -> every instance the original accepts is still accepted;
* subset modes            -> the result uses no RFC 0112 forbidden keyword at any depth.

The verdicts come from jsonschema, never from toolcat; a failure names the file, the case
and the instance.
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


class Judge:
    """Validate instances with jsonschema (the oracle), remembering the outcome kind."""

    def __init__(self, suite: str) -> None:
        import jsonschema

        self.js = jsonschema
        self.default = (jsonschema.Draft202012Validator if suite == "draft2020-12"
                        else jsonschema.Draft7Validator)
        self.registry = _registry(suite)

    def validator(self, schema, formats: bool, cls=None):
        cls = cls or self.js.validators.validator_for(schema, default=self.default)
        fc = cls.FORMAT_CHECKER if formats else None
        return cls(schema, registry=self.registry, format_checker=fc)

    def projected_validators(self, original, projected, formats: bool) -> list:
        """Validators for the projected schema: under the dialect it declares, and when the
        projection dropped the root ``$schema``, under draft-07 and 2020-12 both (a consumer
        may default to either)."""
        dropped = (isinstance(original, dict) and "$schema" in original
                   and isinstance(projected, dict) and "$schema" not in projected)
        if not dropped:
            return [self.validator(projected, formats)]
        return [self.validator(projected, formats, cls)
                for cls in (self.js.Draft7Validator, self.js.Draft202012Validator)]

    @staticmethod
    def outcome(v, data) -> str:
        try:
            return "valid" if v.is_valid(data) else "invalid"
        except Exception as e:  # noqa: BLE001 - the oracle's own limits (unresolvable...)
            return f"error:{type(e).__name__}"


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


def _check_suite(suite: str) -> dict:
    from toolcat.project.lower import EXACT, WIDENED, lower_schema, subset_violations

    dialect = SUITES[suite]
    judge = Judge(suite)
    failures: list[str] = []
    stats = {"cases": 0, "instances": 0, "checks": 0, "widened_cases": 0, "factored": 0}
    for rel, i, case in (v for c in _cases(suite) for v in _variants(*c)):
        stats["cases"] += 1
        schema = case["schema"]
        formats = rel.startswith("optional/format/")
        orig_v = judge.validator(schema, formats)
        verdicts = [judge.outcome(orig_v, t["data"]) for t in case["tests"]]
        stats["instances"] += len(case["tests"])
        where = f"{suite}/{rel} case {i} ({case['description']!r})"
        for mode, kw in MODES.items():
            try:
                res = lower_schema(schema, dialect, pointer="", **kw)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{where} [{mode}]: projection raised {type(e).__name__}: {e}")
                continue
            kinds = {c.kind for c in res.changes}
            if mode == "factor" and any("identical subschemas" in c.what for c in res.changes):
                stats["factored"] += 1
            if mode in ("exact", "keep") and WIDENED in kinds:
                failures.append(f"{where} [{mode}]: widened in an exact-only mode: {res.changes}")
            if mode in ("widen", "floor"):
                v = subset_violations(res.schema, dialect, floor=(mode == "floor"))
                if v:
                    failures.append(f"{where} [{mode}]: not in the compact subset: {v}")
            if WIDENED in kinds:
                stats["widened_cases"] += 1
            try:
                new_vs = judge.projected_validators(schema, res.schema, formats)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{where} [{mode}]: projected schema unusable: {e}: "
                                f"{json.dumps(res.schema)[:300]}")
                continue
            exact = kinds <= {EXACT}
            for t, before in zip(case["tests"], verdicts):
                data = t["data"]
                if mode == "floor" and not isinstance(data, dict):
                    continue  # the floor is exact for tool arguments (objects) only
                for new_v in new_vs:
                    after = judge.outcome(new_v, data)
                    stats["checks"] += 1
                    if exact and after != before:
                        failures.append(
                            f"{where} [{mode}] instance {t['description']!r} "
                            f"{json.dumps(data)[:120]}: {before} before, {after} after "
                            f"({type(new_v).__name__}; exact changes only); projected: "
                            f"{json.dumps(res.schema)[:300]}")
                    elif not exact and before == "valid" and after != "valid":
                        failures.append(
                            f"{where} [{mode}] instance {t['description']!r} "
                            f"{json.dumps(data)[:120]}: valid before, {after} after a widening "
                            f"({type(new_v).__name__}); projected: {json.dumps(res.schema)[:300]}")
    stats["failures"] = failures
    return stats


@pytest.mark.parametrize("suite", list(SUITES))
def test_json_schema_test_suite(suite: str) -> None:
    stats = _check_suite(suite)
    failures = stats["failures"]
    assert stats["cases"] > 300 and stats["instances"] > 1500
    assert stats["factored"] > 30, stats      # factoring met many constructs
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])


if __name__ == "__main__":  # a summary for the report: python tests/corpus/test_schema_suite.py
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # tests/: support.*
    for s in SUITES:
        st = _check_suite(s)
        print(s, {k: v for k, v in st.items() if k != "failures"}, "failures:", len(st["failures"]))
        for f in st["failures"][:60]:
            print("  ", f)
