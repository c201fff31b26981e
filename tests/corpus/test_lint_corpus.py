"""Lint on the real corpora: no internal error anywhere; CS203 counts against an independent
walk; the RFC 0112 / RFC 0078 inline examples get their recorded verdicts; the SC301
metaschema check agrees with jsonschema's `check_schema`."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from support.common import corpus, spec
from support.lint import run, write
from toolcat.config import Config
from toolcat.errors import InputError
from toolcat.features.lint.engine import lint
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.schema.keywords import DRAFT7, DRAFT2020

# ----------------------------------------------------------------------------- every catalog


def _catalog_files() -> list[str]:
    from support.common import CORPUS

    out = []
    for sub in ("mcp-context-cost", "openapi", "neo", "neo/snapshot-2026-04-12"):
        d = CORPUS / sub
        if d.is_dir():
            out += sorted(str(p) for p in d.iterdir()
                          if p.suffix in (".json", ".yaml", ".yml") and p.is_file())
    if (CORPUS / "github-mcp-server").is_dir():
        out.append(str(CORPUS / "github-mcp-server"))
    return out


@pytest.mark.parametrize("path", _catalog_files() or ["<no corpus>"],
                         ids=lambda p: Path(p).name)
def test_lint_every_corpus_catalog(path):
    if path == "<no corpus>":
        pytest.skip("corpus not available")
    try:
        cats = load_catalogs([path], LoadOptions(strict=False))
    except InputError as e:
        # not a catalog (a capture of a server that could not be measured, a LICENSE...)
        assert "rawToolsCapture" in e.message or "not a tool catalog" in e.message, e.render()
        return
    for profile in ("mcp", "openai-strict"):
        res = lint(cats, Config(), profile)
        assert res.tools == sum(len(c.tools) for c in cats)
        for f in res.findings:
            assert f.severity in ("error", "warning", "info")
            assert f.file and f.code
            if f.line is not None:
                assert f.line >= 1 and f.column >= 1


# ----------------------------------------------------------------------------- CS203 counts

RFC_FORBIDDEN = ("$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties",
                 "dependentSchemas")
_ONE = ("not", "additionalProperties", "additionalItems", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def count_forbidden(schema) -> int:
    """RFC 0112's banned keywords in every schema position, by a plain recursive walk."""
    if not isinstance(schema, dict):
        return 0
    n = sum(1 for k in RFC_FORBIDDEN if k in schema)
    for k in _ONE:
        n += count_forbidden(schema.get(k))
    for k in _MAPS:
        m = schema.get(k)
        if isinstance(m, dict):
            n += sum(count_forbidden(v) for v in m.values())
    for k in _LISTS:
        lst = schema.get(k)
        if isinstance(lst, list):
            n += sum(count_forbidden(v) for v in lst)
    items = schema.get("items")
    if isinstance(items, list):
        n += sum(count_forbidden(v) for v in items)
    else:
        n += count_forbidden(items)
    deps = schema.get("dependencies")
    if isinstance(deps, dict):
        n += sum(count_forbidden(v) for v in deps.values())
    return n


def _captures_with_tools() -> list[Path]:
    from support.common import CORPUS

    d = CORPUS / "mcp-context-cost"
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob("*.json")):
        doc = json.loads(p.read_text(encoding="utf-8"))
        if isinstance(doc.get("rawToolsCapture"), list):
            out.append(p)
    return out


def test_cs203_counts_match_independent_walk():
    caps = _captures_with_tools()
    if not caps:
        pytest.skip("mcp-context-cost corpus not available")
    total_expected = 0
    checked_nonzero = 0
    for p in caps:
        doc = json.loads(p.read_text(encoding="utf-8"))
        expected = sum(count_forbidden(t.get("inputSchema")) for t in doc["rawToolsCapture"]
                       if isinstance(t, dict))
        got = len([f for f in run(p, config=Config(select=["CS203"])) if f.code == "CS203"])
        assert got == expected, p.name
        total_expected += expected
        checked_nonzero += expected > 0
    assert checked_nonzero >= 10 and total_expected >= 100


def test_cs203_counts_github_snapshots():
    d = corpus("github-mcp-server")
    expected = 0
    for p in sorted(d.glob("*.snap")):
        expected += count_forbidden(json.loads(p.read_text(encoding="utf-8")).get("inputSchema"))
    got = [f for f in run(d, config=Config(select=["CS203"]))]
    assert len(got) == expected and expected > 0
    assert all(f.file.endswith(".snap") and f.line for f in got)


# ----------------------------------------------------------------------------- RFC verdicts

def _examples() -> dict:
    return json.loads(corpus("openwop", "rfc-inline-examples.json").read_text(encoding="utf-8"))


def test_rfc_tool_descriptor_verdicts(tmp_path):
    for i, ex in enumerate(_examples()["toolDescriptor"]):
        p = write(tmp_path, {"tools": [ex["descriptor"]]}, f"std{i}.json")
        fs = run(p)
        errors = [f for f in fs if f.severity == "error"]
        if ex["expectValid"]:
            assert errors == [], (ex["from"], errors)
        else:
            assert errors and {f.code for f in errors} <= {"TC103", "TC104"}, (ex["from"], fs)


def test_rfc_compact_catalog_verdicts(tmp_path):
    for i, ex in enumerate(_examples()["compactCatalog"]):
        p = write(tmp_path, ex["body"], f"catalog{i}.compact.json")
        fs = run(p, profile="openwop-compact")
        errors = [f for f in fs if f.severity == "error"]
        assert (errors == []) == ex["expectValidV1"], (ex["from"], errors)


def test_rfc_compact_negative_example(tmp_path):
    # RFC 0112 §Examples (negative): an inputSchema using oneOf/$ref/patternProperties
    body = {"tools": [{"toolId": "mcp:search.web", "source": "mcp", "safetyTier": "read",
                       "inputSchema": {"type": "object", "properties": {
                           "q": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/q"}]},
                           "m": {"type": "object", "patternProperties": {"^x": {}}}},
                           "$defs": {"q": {"type": "integer"}}}}]}
    p = write(tmp_path, body, "neg.compact.json")
    errors = [f for f in run(p) if f.severity == "error"]      # compact catalog: errors
    assert sorted(f.pointer for f in errors if f.code == "CS203") == [
        "/inputSchema/properties/m/patternProperties", "/inputSchema/properties/q/oneOf",
        "/inputSchema/properties/q/oneOf/1/$ref"]


def test_openwop_schemas_are_the_spec_files():
    from toolcat.features.lint import openwop_schemas

    std = json.loads(spec("openwop", "tool-descriptor.schema.json").read_text(encoding="utf-8"))
    cmp_ = json.loads(spec("openwop", "compact-tool-descriptor.schema.json")
                      .read_text(encoding="utf-8"))
    assert openwop_schemas.tool_descriptor() == std
    assert openwop_schemas.compact_tool_descriptor() == cmp_


# ----------------------------------------------------------------------------- SC301 oracle

def _suite_schemas(draft: str):
    """(name, schema, mutate?) for every test-case schema; the first few of each file are
    also mutated (see _mutations)."""
    d = corpus("json-schema-test-suite", draft)
    for p in sorted(d.rglob("*.json")):
        for i, case in enumerate(json.loads(p.read_text(encoding="utf-8"))):
            yield f"{p.relative_to(d)}: {case['description']}", case["schema"], i < 3


def _mutations(schema):
    """Invalid and valid variants of a schema: bad keyword values put on its root."""
    bad = [("type", "strin"), ("type", []), ("minLength", -1), ("maxItems", 1.5),
           ("required", ["a", "a"]), ("required", [1]), ("allOf", []), ("anyOf", {}),
           ("items", "x"), ("properties", {"a": 3}), ("pattern", "(unclosed"),
           ("multipleOf", 0), ("enum", "x"), ("not", 3), ("uniqueItems", "yes"),
           ("patternProperties", {"[": {}}), ("minimum", "1"), ("$anchor", "1x"),
           ("dependentRequired", {"a": [1]}), ("type", ["string", "string"])]
    good = [("type", ["string", "null"]), ("minLength", 0), ("required", []),
            ("pattern", "^a+$"), ("enum", []), ("items", True), ("maxContains", 2)]
    for key, val in bad + good:
        if isinstance(schema, dict):
            s = copy.deepcopy(schema)
            s[key] = val
            yield f"{key}={val!r}", s


@pytest.mark.parametrize("draft,dialect,cls", [("draft2020-12", DRAFT2020, "Draft202012Validator"),
                                               ("draft7", DRAFT7, "Draft7Validator")])
def test_sc301_agrees_with_jsonschema_check_schema(draft, dialect, cls):
    import jsonschema
    from jsonschema.exceptions import SchemaError

    from toolcat.features.lint.rules.metaschema import schema_problems

    validator = getattr(jsonschema, cls)
    checked = disagreements = 0
    report = []
    for name, schema, mutate in _suite_schemas(draft):
        text = json.dumps(schema)
        if "\\p{" in text or "\\P{" in text or re.search(r"\\\\c[A-Za-z]", text):
            # ECMA-262 Unicode property escapes and control escapes (\cJ): valid patterns
            # that Python's re (jsonschema's "regex" format check) rejects; toolcat reads
            # patterns as ECMA-262 (toolcat.schema.regex)
            continue
        variants = [("as is", schema)] + (list(_mutations(schema)) if mutate else [])
        for vname, s in variants:
            if isinstance(s, dict) and "$schema" in s and dialect not in str(s["$schema"]) \
                    and not (dialect == DRAFT7 and "draft-07" in str(s["$schema"])):
                continue  # another dialect's schema: compared under its own validator
            try:
                validator.check_schema(s)
                oracle = True
            except SchemaError:
                oracle = False
            ours = not schema_problems(s, dialect)
            checked += 1
            if ours != oracle:
                disagreements += 1
                report.append(f"{name} [{vname}]: ours={ours} jsonschema={oracle} "
                              f"{schema_problems(s, dialect)[:2]}")
    assert checked > 500
    assert not report, "\n".join(report[:20])
