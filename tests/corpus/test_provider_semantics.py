"""Differential proof of the provider rewrites on the JSON-Schema-Test-Suite (draft2020-12,
draft7): every case's schema goes through what `project --to P` does to an input schema (the
lowering, then the provider's rewrites), and every test instance is validated with
python-jsonschema against the original and the result. By the kinds of change reported:

* only ``exact``                        -> the same verdict on every instance;
* ``exact`` and ``widened``             -> what the original accepts is still accepted;
* ``exact``, ``narrowed``, ``changed``  -> what the result accepts, after the reported argument
  mapping (``null`` at a mapped argument means absent: the property is removed), the original
  accepts.

A strict rewrite that stops (the tool is then sent with ``"strict": false``) is not judged
here: that tool's schema is the non-strict target's. Gemini's ``nullable`` is OpenAPI 3.0's,
which JSON Schema does not know: the judge reads ``nullable: true`` as "or null" (its own
conversion below, not toolcat's). The verdicts come from jsonschema, never from toolcat.
"""

from __future__ import annotations

import copy
import json

import pytest

from support.common import corpus

SUITES = {"draft2020-12": "2020-12", "draft7": "draft7"}
TARGETS = ("openai-strict", "anthropic", "anthropic-strict", "gemini")


def _cases(suite: str):
    root = corpus("json-schema-test-suite", suite)
    for f in sorted(root.rglob("*.json")):
        rel = f.relative_to(root).as_posix()
        if rel.startswith("optional/format/"):
            continue      # format assertion is off in this judge (and in the providers)
        for i, case in enumerate(json.loads(f.read_text(encoding="utf-8"))):
            yield rel, i, case


def _nullable_as_json_schema(s):
    """The judge's reading of the OpenAPI 3.0 Schema object: ``nullable: true`` adds null."""
    if isinstance(s, list):
        return [_nullable_as_json_schema(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: (v if k in ("enum", "const", "default", "example", "examples")
               else _nullable_as_json_schema(v)) for k, v in s.items()}
    if out.pop("nullable", False) is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _unmap(instance, pointers: list[list[str]]):
    """``instance`` with the properties a mapping names removed where they are null."""
    inst = copy.deepcopy(instance)

    def walk(node, toks):
        if not toks:
            return
        head, rest = toks[0], toks[1:]
        kids = (list(node.items()) if isinstance(node, dict) else list(enumerate(node))) \
            if head == "*" and isinstance(node, (dict, list)) else \
            ([(head, node[head])] if isinstance(node, dict) and head in node else [])
        for k, v in kids:
            if not rest:
                if v is None and isinstance(node, dict):
                    del node[k]
            else:
                walk(v, rest)

    for p in sorted(pointers, key=len, reverse=True):
        walk(inst, p)
    return inst


def _pointer_tokens(ptr: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]


def _outcome(v, data) -> str:
    try:
        return "valid" if v.is_valid(data) else "invalid"
    except Exception as e:  # noqa: BLE001 - the oracle's own limits (unresolvable refs...)
        return f"error:{type(e).__name__}"


def _check(suite: str, to: str) -> dict:
    import jsonschema

    from toolcat.features.project import providers as pv
    from toolcat.formats import targets as tg
    from toolcat.formats.providers import PROVIDERS
    from toolcat.schema.lower import CHANGED, EXACT, NARROWED, WIDENED, lower_schema

    dialect = SUITES[suite]
    target = tg.get(to)
    row = PROVIDERS[target.provider]
    default = jsonschema.Draft202012Validator if suite == "draft2020-12" \
        else jsonschema.Draft7Validator
    stats = {"cases": 0, "judged": 0, "checks": 0, "stopped": 0, "mixed": 0}
    failures: list[str] = []
    for rel, i, case in _cases(suite):
        schema = case["schema"]
        stats["cases"] += 1
        where = f"{suite}/{rel} case {i} ({case['description']!r}) [{to}]"
        try:
            low = lower_schema(schema, dialect, subset=target.subset_by_default, pointer="")
            res = pv.adapt(low.schema, dialect, row, "")
        except Exception as e:  # noqa: BLE001
            failures.append(f"{where}: raised {type(e).__name__}: {e}")
            continue
        if res.unexpressible is not None:
            stats["stopped"] += 1
            continue
        out = res.schema
        if row.openapi_schema:
            out = _nullable_as_json_schema(out)
        kinds = {c.kind for c in low.changes + res.changes}
        maps = [_pointer_tokens(c.extra["mapping"]["argument"]) for c in res.changes
                if c.kind == CHANGED and c.extra and c.extra.get("mapping", {}).get("argument")]
        if kinds <= {EXACT}:
            mode = "exact"
        elif kinds <= {EXACT, WIDENED}:
            mode = "widened"
        elif kinds <= {EXACT, NARROWED, CHANGED}:
            mode = "sound"
        else:
            stats["mixed"] += 1
            continue
        try:
            orig_v = jsonschema.validators.validator_for(schema, default=default)(schema)
            new_v = jsonschema.validators.validator_for(out, default=default)(out)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{where}: unusable: {e}: {json.dumps(out)[:300]}")
            continue
        stats["judged"] += 1
        for t in case["tests"]:
            data = t["data"]
            if target.subset_by_default and not isinstance(data, dict):
                continue   # the compact floor (type: object) is exact for arguments only
            before, after = _outcome(orig_v, data), _outcome(new_v, data)
            if before.startswith("error") or after.startswith("error"):
                continue
            stats["checks"] += 1
            bad = (mode == "exact" and before != after) or \
                (mode == "widened" and before == "valid" and after != "valid") or \
                (mode == "sound" and after == "valid"
                 and _outcome(orig_v, _unmap(data, maps)) != "valid")
            if bad:
                failures.append(f"{where} {mode} instance {t['description']!r} "
                                f"{json.dumps(data)[:120]}: {before} before, {after} after; "
                                f"result: {json.dumps(out)[:300]}")
    stats["failures"] = failures
    return stats


@pytest.mark.parametrize("suite", list(SUITES))
@pytest.mark.parametrize("to", TARGETS)
def test_provider_rewrites_keep_their_promise(suite: str, to: str) -> None:
    st = _check(suite, to)
    assert st["cases"] > 290 and st["judged"] > 80 and st["checks"] > 250, st
    assert not st["failures"], f"{len(st['failures'])} failures:\n" + \
        "\n".join(st["failures"][:30])


if __name__ == "__main__":  # figures: python tests/corpus/test_provider_semantics.py
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for s in SUITES:
        for to in TARGETS:
            st = _check(s, to)
            print(s, to, {k: v for k, v in st.items() if k != "failures"},
                  "failures:", len(st["failures"]))
            for f in st["failures"][:8]:
                print("  ", f)
