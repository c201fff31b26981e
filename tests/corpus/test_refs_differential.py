"""The one reference index (:class:`toolcat.schema.refs.RefIndex`) against ``referencing``
(the library ``jsonschema`` resolves references with), on every ``$ref`` of the
JSON-Schema-Test-Suite's schemas and of the corpus tools' schemas, read as draft-07 and as
2020-12.

For each ``$ref`` in a schema position, both must agree on whether it resolves inside the
schema (an empty registry: nothing is fetched, so a remote reference resolves for neither)
and, when it does, on the node it resolves to (the same object). The base URI of every node
comes from ``referencing`` walking the same schema positions (``in_subresource``), so ``$id``
handling (draft-07 ignores an ``$id`` beside a ``$ref``; 2020-12 does not) is theirs.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterator

import pytest

from support.common import SAMPLES, corpus

DIALECTS = {"draft7": "http://json-schema.org/draft-07/schema#",
            "2020-12": "https://json-schema.org/draft/2020-12/schema"}
BASE = "https://toolcat.invalid/schema.json"   # RefIndex's own base for a schema without $id


def _spec(dialect: str) -> Any:
    from referencing import jsonschema as rjs

    return rjs.DRAFT7 if dialect == "draft7" else rjs.DRAFT202012


def _their_verdicts(schema: Any, dialect: str) -> Iterator[tuple[tuple, str, Any]]:
    """``(path, ref, resolved contents or None)`` for every ``$ref`` in a schema position,
    resolved by ``referencing`` with the base URI its own subresource walk gives."""
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    from toolcat.schema.walker import node_dialect, subschemas

    spec = _spec(dialect)
    root = spec.create_resource(schema) if "$schema" not in schema else \
        __import__("referencing").Resource.from_contents(schema, default_specification=spec)
    registry = Registry().with_resource(BASE, root)
    start = registry.resolver(base_uri=BASE).in_subresource(root)
    stack = [((), schema, dialect, start)]
    while stack:
        path, node, d, resolver = stack.pop()
        if not isinstance(node, dict):
            continue
        d = node_dialect(node, d) if "$schema" in node else d
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                got = resolver.lookup(ref).contents
            except Unresolvable:
                got = None
            except (ValueError, KeyError, IndexError, TypeError):
                got = None   # a malformed reference: unresolved
            yield path, ref, got
        for suffix, child in subschemas(node, d):
            if isinstance(child, dict):
                from referencing import Resource

                res = Resource.from_contents(child, default_specification=_spec(
                    "draft7" if d in ("draft4", "draft6", "draft7") else "2020-12"))
                stack.append((path + suffix, child, d, resolver.in_subresource(res)))


def _check(schema: Any, dialect: str, where: str, stats: Counter) -> list[str]:
    from toolcat.schema.refs import RefIndex

    if not isinstance(schema, dict):
        return []
    try:
        json.dumps(schema)
    except (TypeError, ValueError):
        return []
    idx = RefIndex(schema, dialect)
    out = []
    for path, ref, theirs in _their_verdicts(schema, dialect):
        info = idx.refs.get(path)
        stats["refs"] += 1
        if info is None:
            out.append(f"{where} [{dialect}] {path}: $ref {ref!r} not indexed")
            continue
        ours = idx.node(info.target) if info.target is not None else None
        if (ours is None) != (theirs is None):
            out.append(f"{where} [{dialect}] {path}: $ref {ref!r}: toolcat "
                       f"{'resolves' if ours is not None else 'does not resolve (' + str(info.problem) + ')'}"
                       f", referencing {'resolves' if theirs is not None else 'does not'}")
        elif ours is not None and ours is not theirs:
            out.append(f"{where} [{dialect}] {path}: $ref {ref!r} resolves to another node")
        else:
            stats["resolved" if ours is not None else "unresolved"] += 1
    return out


def _suite_schemas(folder: str) -> Iterator[tuple[str, Any]]:
    root = corpus("json-schema-test-suite", folder)
    for f in sorted(root.rglob("*.json")):
        for i, case in enumerate(json.loads(f.read_text())):
            yield f"{f.relative_to(root)}#{i}", case["schema"]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("folder", ["draft7", "draft2020-12"])
def test_suite_refs_resolve_as_referencing_does(folder: str, dialect: str) -> None:
    stats: Counter = Counter()
    failures: list[str] = []
    for where, schema in _suite_schemas(folder):
        failures += _check(schema, dialect, where, stats)
    # what this compares (draft7: 69 refs read as draft-07, 63 as 2020-12; 2020-12: 125)
    assert stats["resolved"] >= 40 and stats["unresolved"] >= 10, stats
    assert not failures, f"{len(failures)} disagreements ({dict(stats)}):\n" + "\n".join(failures[:40])


def _corpus_schemas() -> Iterator[tuple[str, Any]]:
    from toolcat.formats import LoadOptions, load_catalogs

    paths = [corpus("mcp-context-cost"), corpus("github-mcp-server"), corpus("neo"), SAMPLES]
    for p in paths:
        for cat in load_catalogs([str(p)], LoadOptions(strict=False, errors=[])):
            for t in cat.tools:
                for role, s in (("input", t.input_schema), ("output", t.output_schema)):
                    if isinstance(s, dict):
                        yield f"{cat.file}:{t.id}:{role}", s


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_corpus_refs_resolve_as_referencing_does(dialect: str) -> None:
    stats: Counter = Counter()
    failures: list[str] = []
    for where, schema in _corpus_schemas():
        failures += _check(schema, dialect, where, stats)
    assert stats["resolved"] > 300 and stats["unresolved"] >= 1, stats   # broken.tools.json
    assert not failures, f"{len(failures)} disagreements ({dict(stats)}):\n" + "\n".join(failures[:40])


ISSUE_11_TOOL = {"tools": [{"name": "t", "description": "d", "inputSchema": {
    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
    "properties": {"a": {"$id": "http://other.example/x", "$ref": "#/definitions/b"}},
    "definitions": {"b": {"type": "string"}}}}]}


def test_draft07_id_beside_ref_lint_and_project_agree(tmp_path) -> None:
    """Issue 11: draft-07 ignores an ``$id`` beside a ``$ref``, so ``#/definitions/b``
    resolves against the root. lint used to report SC302 "target /definitions/b does not
    exist" (exit 1) while project inlined the reference, as jsonschema's Draft7Validator
    resolves it. Both now use the one index: no SC302, and the projection keeps every
    verdict. (Issue 12, ajv-survey class 8: Ajv, as the MCP SDK runs it, resolves that
    ``$ref`` against the sibling ``$id`` instead, where it finds nothing; readers disagree on
    its target, so the projection keeps it, and its definition, as written.)"""
    import jsonschema

    from support.common import run_toolcat

    f = tmp_path / "tools.json"
    f.write_text(json.dumps(ISSUE_11_TOOL))
    r = run_toolcat("lint", "--format", "json", str(f))
    findings = json.loads(r.stdout)["findings"]
    assert r.returncode == 0, r.stdout
    assert [x["code"] for x in findings if x["code"] == "SC302"] == []
    r = run_toolcat("-q", "project", str(f))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["tools"][0]["inputSchema"]
    assert out["properties"]["a"] == {"$id": "http://other.example/x", "$ref": "#/definitions/b"}
    assert out["definitions"] == {"b": {"type": "string"}}
    orig = jsonschema.Draft7Validator(ISSUE_11_TOOL["tools"][0]["inputSchema"])
    new = jsonschema.Draft7Validator(out)
    for x in ({"a": "x"}, {"a": 1}, {}, {"a": None}):
        assert orig.is_valid(x) == new.is_valid(x), x
