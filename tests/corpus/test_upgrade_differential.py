"""Issue 33: ``--for`` a client that takes 2020-12 only (Claude Code, Claude Desktop) upgrades a
draft-06/07 schema; every verdict that changes is reported at (or above) its pointer.

The input has two real readers, python-jsonschema's Draft7 (Draft6) validator and Ajv's
draft-07 class as the MCP TypeScript SDK 1.x makes it (support/ajv.py engine ``sdk``); the
output has python-jsonschema's 2020-12 validator and Ajv2020 (engine ``2020-12``, what a
2020-12-only client's validator is). For each library the verdict on every instance must stay,
unless a change that is not ``exact`` sits at or above a keyword that judged the instance
(the leaf errors of the readers; tokens the upgrade renames, ``prefixItems``/``$defs``/
``dependent*``, read as the draft-07 names). Instances: the JSON-Schema-Test-Suite's own (its
draft7 folder, every case read as a declared draft-07 schema) and generated ones
(support/instances.py), on the suite, targeted fixtures, and every tool schema of the shared
and outside corpora that declares draft-06/07.

Before the fix: the keywords beside a ``$ref`` were dropped and reported ``exact`` (Ajv's
reading changed: ``{"$ref": ..., "maxLength": 2}`` refused "abcd" under Ajv draft-07 and
accepted it after); 2019-09+ keywords in a draft-07 schema (``prefixItems``,
``dependentRequired``, ``unevaluatedProperties``...), which both input readers ignore, came
alive in the output; ``format: uuid`` went from unchecked to checked for python-jsonschema
unreported; a draft-06 ``if`` likewise; a root with both ``definitions`` and ``$defs`` had
its references moved to ``$defs`` while ``definitions`` stayed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from support.common import CORPUS

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
_RENAMED = {"prefixItems": "items", "$defs": "definitions", "dependentRequired": "dependencies",
            "dependentSchemas": "dependencies"}
_OUTSIDE = ("mcp-proxy-server-github", "mcp-proxy-server-filesystem", "mcp-proxy-server-memory",
            "mcp-proxy-cloudflare-radar", "mcp-proxy-cloudflare-docs",
            "mcp-proxy-cloudflare-browser")


# ----------------------------------------------------------------------------- the judge

def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def _norm(tokens: list[str]) -> tuple[str, ...]:
    return tuple(_RENAMED.get(t, t) for t in tokens)


def _pointers(schema: Any) -> dict[int, tuple[str, ...]]:
    """id(node) -> its path, for every dict/list of ``schema`` (the nodes jsonschema's errors
    name by identity, references followed or not)."""
    out: dict[int, tuple[str, ...]] = {}
    todo = [((), schema)]
    while todo:
        path, node = todo.pop()
        if isinstance(node, dict):
            out.setdefault(id(node), path)
            todo += [(path + (str(k),), v) for k, v in node.items()]
        elif isinstance(node, list):
            todo += [(path + (str(i),), v) for i, v in enumerate(node)]
    return out


def _leaves(v: Any, where: dict, x: Any) -> set[tuple[str, ...]]:
    """The paths (in the schema's own coordinates, and as the reader reached them) of the
    keywords that judged ``x`` invalid, combinator errors and what they hold alike."""
    out: set = set()
    try:
        todo = list(v.iter_errors(x))
    except Exception:  # noqa: BLE001 - the reader's own limits: no location from it
        return out
    while todo:
        e = todo.pop()
        base = where.get(id(e.schema))
        if base is not None:
            out.add(_norm(list(base) + [str(e.validator)]))
        # and the way the reader reached it (through a `$ref`: the reference's place, then the
        # target's keywords; a boolean subschema has no identity of its own)
        out.add(_norm([str(t) for t in e.absolute_schema_path]))
        todo += list(e.context or ())
    return out


def _validators(schema: Any, cls: Any) -> Any:
    try:
        return cls(schema, format_checker=cls.FORMAT_CHECKER)
    except Exception:  # noqa: BLE001
        return None


def _verdict(v: Any, x: Any) -> str:
    if v is None:
        return "none"
    try:
        return "valid" if v.is_valid(x) else "invalid"
    except Exception as e:  # noqa: BLE001 - unresolvable, recursion: not a verdict
        return f"error:{type(e).__name__}"


def judge(cases: list, ajv_judge: Any, stats: Counter) -> list[str]:
    """``cases``: ``(where, original, dialect, projected, changes, instances)`` with
    ``changes`` the report entries as (pointer relative to the schema, kind) pairs. Returns
    the failures."""
    import jsonschema

    cls_in = {"draft4": jsonschema.Draft4Validator, "draft6": jsonschema.Draft6Validator,
              "draft7": jsonschema.Draft7Validator}
    ajv_items: dict[tuple[str, str], tuple[Any, dict]] = {}
    for _w, orig, _d, proj, _c, insts in cases:
        for engine, s in (("sdk", orig), ("2020-12", proj), ("sdk", proj)):
            got = ajv_items.setdefault((engine, _canon(s)), (s, {}))
            for x in insts:
                got[1].setdefault(_canon(x), x)
    ajv: dict = {}
    for engine in ("sdk", "2020-12"):
        items = [(k, s, list(xs.values())) for (e, k), (s, xs) in ajv_items.items() if e == engine]
        res = ajv_judge.validate_many([(s, xs) for _k, s, xs in items], engine=engine)
        for (k, _s, xs), r in zip(items, res):
            ajv[(engine, k)] = None if r.error is not None else {
                _canon(x): ("error" if ok is None else "valid" if ok else "invalid")
                for x, ok in zip(xs, r.valid)}
    fails = []
    for where, orig, d, proj, changes, insts in cases:
        if ("/$schema", "kept") in changes:
            # not upgraded (a remote or nested reference, a nested $id): still draft-07,
            # which the client refuses, and reported so
            stats["kept"] += 1
            assert proj.get("$schema") == orig["$schema"], where
            continue
        # the 2020-12 readers' verdicts may change only under a change said of every reader;
        # the draft-07 readers' (the output read as draft-07) under any non-exact change, and
        # from valid to invalid only under one that is not `widened`
        lossy = [_norm(jp_tokens(p)) for p, kind, *readers in changes
                 if kind != "exact" and not readers]
        lossy_d7 = [_norm(jp_tokens(p)) for p, kind, *_r in changes if kind != "exact"]
        narrow_d7 = [_norm(jp_tokens(p)) for p, kind, *_r in changes
                     if kind not in ("exact", "widened")]
        # a change at additionalItems is one at what the output writes there (items beside
        # prefixItems, which _norm cannot tell from tuple items, or unevaluatedItems)
        for said in (lossy, lossy_d7, narrow_d7):
            said += [p[:-1] + (k,) for p in list(said) if p[-1:] == ("additionalItems",)
                     for k in ("items", "unevaluatedItems")]
        js_in = _validators(orig, jsonschema.validators.validator_for(orig, default=cls_in[d]))
        js_out = _validators(proj, jsonschema.Draft202012Validator)
        js_d7 = _validators(proj, jsonschema.Draft7Validator)
        # the input read as 2020-12 (keywords beside $ref applied): where Ajv's reading of
        # the input looks, to locate its verdicts
        bare = {k: v for k, v in orig.items() if k != "$schema"} if isinstance(orig, dict) \
            else orig
        js_ajv = _validators(bare, jsonschema.Draft202012Validator)
        where_in, where_out, where_bare = _pointers(orig), _pointers(proj), _pointers(bare)
        a_in, a_out = ajv[("sdk", _canon(orig))], ajv[("2020-12", _canon(proj))]
        a_d7 = ajv[("sdk", _canon(proj))]
        if a_in is not None and a_out is None:
            fails.append(f"{where}: Ajv2020 refuses the output, Ajv draft-07 compiles the input")
        stats["pairs"] += 1
        for x in insts:
            pairs = [("jsonschema", _verdict(js_in, x), _verdict(js_out, x)),
                     ("jsonschema draft-07 reading", _verdict(js_in, x), _verdict(js_d7, x))]
            if a_in is not None and a_out is not None:
                pairs.append(("Ajv", a_in[_canon(x)], a_out[_canon(x)]))
            if a_in is not None and a_d7 is not None:
                pairs.append(("Ajv draft-07 reading", a_in[_canon(x)], a_d7[_canon(x)]))
            for reader, b, a in pairs:
                if b.startswith(("error", "none")) or a.startswith(("error", "none")):
                    stats[f"{reader} no verdict"] += 1
                    continue
                stats[f"{reader} instances"] += 1
                if a == b:
                    continue
                stats[f"{reader} verdicts changed"] += 1
                leaves = (_leaves(js_in, where_in, x) | _leaves(js_out, where_out, x)
                          | _leaves(js_ajv, where_bare, x) | _leaves(js_d7, where_out, x))
                said = lossy
                if reader.endswith("draft-07 reading"):
                    said = narrow_d7 if (b, a) == ("valid", "invalid") else lossy_d7
                if any(_under(leaf, p) for leaf in leaves for p in said):
                    stats[f"{reader} changes reported"] += 1
                    continue
                fails.append(f"{where} [{reader}]: {_canon(x)[:120]}: {b} before, {a} after, "
                             f"no change reported at {sorted('/'.join(t) for t in leaves)[:4]}"
                             f"\n    original:  {_canon(orig)[:300]}\n    projected: "
                             f"{_canon(proj)[:300]}")
    return fails


def jp_tokens(pointer: str) -> list[str]:
    from toolcat.document import pointer as jp

    return list(jp.decode(pointer)) if pointer else []


def _under(leaf: tuple, p: tuple) -> bool:
    n = min(len(leaf), len(p))
    return leaf[:n] == p[:n] and n > 0


# ----------------------------------------------------------------------------- the cases

def _generated(schema: Any, seed: str, n: int = 6) -> list:
    from support.instances import RandomChooser, gen, mutate

    out = []
    base = random.Random(seed).randrange(1 << 30)
    for i in range(n):
        c = RandomChooser(base + i)
        try:
            x = gen(c, schema, schema)
        except RecursionError:
            continue
        out += [x, mutate(c, x)]
    return out


def _fit(schema: Any, dialect: str, client: str, root: bool = False) -> tuple[Any, list]:
    from toolcat.features.project import portable

    changes: list = []
    out = portable.fit(schema, dialect, (client,), "", changes, root=root)
    return out, [(c.pointer, c.kind.value, *(c.extra or {}).get("readers", "").split())
                 for c in changes]


FIXTURES: list[tuple[str, dict, list]] = [
    ("sibling maxLength", {"$schema": D7, "definitions": {"s": {"type": "string"}},
                           "$ref": "#/definitions/s", "maxLength": 2}, ["ab", "abcd", 3]),
    ("sibling in a property", {"$schema": D7, "type": "object", "properties": {
        "q": {"$ref": "#/definitions/P", "minLength": 3, "type": "string"},
        "n": {"$ref": "#/definitions/N", "maximum": 3}},
        "definitions": {"P": {"type": "string", "maxLength": 9}, "N": {"minimum": 0}}},
     [{"q": "ab"}, {"q": "abcd"}, {"q": "abcdefghijk"}, {"n": 5}, {"n": 2}, {"n": -1}]),
    ("sibling inside definitions", {"$schema": D7, "properties": {"a": {"$ref": "#/definitions/A"}},
                                    "definitions": {"A": {"$ref": "#/definitions/B", "enum": [1, 2]},
                                                    "B": {"type": "integer"}}},
     [{"a": 1}, {"a": 3}, {"a": "x"}]),
    ("tuple items", {"$schema": D7, "type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                     "additionalItems": False}, [["a", 1], ["a", 1, 2], [1, "a"], ["a"], []]),
    ("tuple and a schema after it", {"$schema": D7, "type": "array", "items": [{"type": "string"}],
                                     "additionalItems": {"type": "integer"}},
     [["a", 1], ["a", "b"], ["a"], [1], ["a", 1, 2]]),
    # beside contains, unevaluatedItems would not be items: written items, which a draft-07
    # reader applies to the tuple's own items too (reported narrowed for it)
    ("tuple beside contains", {"$schema": D7, "type": "array", "items": [{"type": "string"}],
                               "additionalItems": {"type": "integer"}, "contains": {"type": "string"}},
     [["a", 1], ["a", "b"], ["a"], [1], ["a", 1, 2]]),
    ("additionalItems alone", {"$schema": D7, "items": {"type": "integer"}, "additionalItems": False},
     [[1, 2], ["a"], []]),
    ("dependencies", {"$schema": D7, "dependencies": {"a": ["b"], "c": {"required": ["e"]}}},
     [{"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "e": 2}, {}]),
    ("2019-09 keywords in draft-07", {"$schema": D7, "type": "object", "dependentRequired": {"a": ["b"]},
                                      "unevaluatedProperties": False, "properties": {
                                          "t": {"prefixItems": [{"type": "string"}], "minContains": 2,
                                                "contains": {"type": "string"}}}},
     [{"a": 1}, {"a": 1, "b": 2}, {"t": [1]}, {"t": ["a"]}, {"z": 1}]),
    ("definitions and $defs", {"$schema": D7, "properties": {"a": {"$ref": "#/definitions/A"},
                                                             "b": {"$ref": "#/$defs/B"}},
                               "definitions": {"A": {"type": "integer"}},
                               "$defs": {"B": {"type": "array", "items": [{"type": "string"}],
                                               "additionalItems": False}}},
     [{"a": 1}, {"a": "x"}, {"b": ["x"]}, {"b": ["x", 1]}, {"b": [1]}]),
    ("uuid format", {"$schema": D7, "type": "object", "properties": {
        "id": {"type": "string", "format": "uuid"}}},
     [{"id": "123e4567-e89b-12d3-a456-426614174000"}, {"id": "nope"}]),
    ("draft-06 if", {"$schema": D6, "type": "object", "if": {"required": ["a"]},
                     "then": {"required": ["b"]}}, [{"a": 1}, {"a": 1, "b": 2}, {}]),
    ("draft-06 then with tuple items", {"$schema": D6, "type": "object", "if": {"required": ["a"]},
                                        "then": {"properties": {"a": {"items": [{"type": "string"}],
                                                                      "additionalItems": False}}}},
     [{"a": ["x"]}, {"a": ["x", 1]}, {"a": [1]}, {"b": [1]}]),
    ("draft-04 exclusive bounds", {"$schema": D4, "type": "object", "properties": {
        "n": {"type": "number", "maximum": 5, "exclusiveMaximum": True},
        "m": {"type": "number", "minimum": 1, "exclusiveMinimum": True},
        "k": {"type": "number", "maximum": 5, "exclusiveMaximum": False},
        "z": {"exclusiveMinimum": True}}},
     [{"n": 5}, {"n": 4.9}, {"m": 1}, {"m": 1.1}, {"k": 5}, {"k": 6}, {"z": -1}]),
    ("draft-04 integer and draft-06 keywords", {"$schema": D4, "properties": {
        "i": {"type": "integer"}, "c": {"const": 3}, "p": {"propertyNames": {"maxLength": 2}},
        "f": {"if": {"minimum": 3}, "then": {"multipleOf": 2}}}},
     [{"i": 1}, {"i": 1.0}, {"i": 1.5}, {"c": 3}, {"c": 4}, {"p": {"ab": 1}}, {"p": {"abc": 1}},
      {"f": 3}, {"f": 4}]),
    ("draft-04 tuple, id, definitions", {"$schema": D4, "id": "http://example.com/s.json",
                                         "properties": {"t": {"items": [{"type": "string"}],
                                                              "additionalItems": False},
                                                        "a": {"$ref": "#/definitions/A"}},
                                         "definitions": {"A": {"type": "integer", "minimum": 0,
                                                               "exclusiveMinimum": True}}},
     [{"t": ["a"]}, {"t": ["a", 1]}, {"t": [1]}, {"a": 1}, {"a": 0}, {"a": "x"}]),
    ("draft-04 format date", {"$schema": D4, "type": "string", "format": "date"},
     ["2024-01-02", "nope"]),
    ("draft-06 sibling", {"$schema": D6, "properties": {"x": {"$ref": "#/definitions/x", "minimum": 5}},
                          "definitions": {"x": {"type": "number"}}}, [{"x": 1}, {"x": 7}]),
]


def _suite_cases() -> list[tuple[str, Any, list]]:
    root = CORPUS / "json-schema-test-suite" / "draft7"
    out = []
    for f in sorted(root.glob("*.json")):
        for i, case in enumerate(json.loads(f.read_text())):
            s = case["schema"]
            if not isinstance(s, dict) or "$schema" in s:
                continue
            out.append((f"suite {f.name}#{i}", {"$schema": D7, **s},
                        [t["data"] for t in case["tests"]]))
    return out


def _fixture_cases(client: str) -> list:
    cases = []
    for name, s, insts in FIXTURES + _suite_cases():
        d = {D4: "draft4", D6: "draft6"}.get(s["$schema"], "draft7")
        out, changes = _fit(s, d, client)
        cases.append((f"{client} {name}", s, d, out, changes,
                      insts + _generated(s, name) + _generated(out, name + "/out")))
    return cases


@pytest.mark.parametrize("client", ["claude-code", "claude-desktop"])
def test_upgrade_fixtures_and_suite_report_every_verdict_change(client, ajv_judge):
    stats: Counter = Counter()
    fails = judge(_fixture_cases(client), ajv_judge, stats)
    print(client, dict(stats))
    assert not fails, f"{len(fails)} unreported verdict changes ({dict(stats)}):\n" + \
        "\n".join(fails[:12])
    # python-jsonschema's reading changes where the readers of the input disagreed (every
    # such change reported); Ajv's never does (its reading is the one kept)
    assert stats["jsonschema changes reported"] > 0 and stats["Ajv verdicts changed"] == 0
    if (CORPUS / "json-schema-test-suite" / "draft7").is_dir():   # (else the fixtures only)
        assert stats["pairs"] > 100 and stats["Ajv instances"] > 1000, stats


def test_upgrade_reports_ref_siblings_changed_at_their_pointer():
    """The issue's case: kept (Ajv's reading, which 2020-12 shares) and reported."""
    s = FIXTURES[1][1]
    out, changes = _fit(s, "draft7", "claude-code", root=True)
    assert out["properties"]["q"]["minLength"] == 3 and out["properties"]["n"]["maximum"] == 3
    assert ("/properties/q/minLength", "changed") in changes
    assert ("/properties/q/type", "changed") in changes
    assert ("/properties/n/maximum", "changed") in changes
    # the 2019-09 keywords both readers of a draft-07 schema ignore: dropped, exactly
    out, changes = _fit(FIXTURES[8][1], "draft7", "claude-code")
    assert "dependentRequired" not in out and "unevaluatedProperties" not in out
    assert "prefixItems" not in out["properties"]["t"]
    # additionalItems: unevaluatedItems where exact (a draft-07 reader only checks less),
    # else items (narrowed for a draft-07 reader, said so)
    out, changes = _fit(FIXTURES[4][1], "draft7", "claude-desktop")
    assert out["unevaluatedItems"] == {"type": "integer"} and "items" not in out
    assert ("/additionalItems", "widened", "draft-07") in changes
    out, changes = _fit(FIXTURES[5][1], "draft7", "claude-desktop")
    assert out["items"] == {"type": "integer"} and "unevaluatedItems" not in out
    assert ("/additionalItems", "narrowed", "draft-07") in changes
    # both definitions and $defs: references stay as written, $defs' schemas upgraded too
    out, _changes = _fit(FIXTURES[9][1], "draft7", "claude-code")
    assert out["properties"]["a"] == {"$ref": "#/definitions/A"}
    assert out["$defs"]["B"]["prefixItems"] == [{"type": "string"}]


# ----------------------------------------------------------------------------- the corpora

def _corpus_paths() -> list:
    from support.outside import outside

    paths = [str(p) for p in sorted((CORPUS / "mcp-context-cost").glob("*.json"))
             if "json-schema.org/draft-0" in p.read_text()]
    for e in _OUTSIDE:
        try:
            paths.append(str(outside(e)))
        except pytest.skip.Exception:
            continue
    return paths


@pytest.mark.parametrize("client", ["claude-code", "claude-desktop"])
def test_upgrade_corpus_reports_every_verdict_change(client, ajv_judge):
    """Every tool schema of the corpora that declares draft-06/07, projected ``--to mcp
    --for CLIENT`` (objects only: tool arguments and structuredContent are objects)."""
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats import LoadOptions, load_catalogs
    from toolcat.schema.walker import node_dialect

    paths = _corpus_paths()
    if not paths:
        pytest.skip("no corpus capture declares draft-06/07")
    cases = []
    for path in paths:
        cats = load_catalogs([path], LoadOptions(strict=False))
        proj = project_catalogs(cats, ProjectOptions(to="mcp", for_clients=(client,),
                                                     duplicate_ids="rename"))
        tools = [t for c in cats for t in c.tools]
        for tool, pt in zip(tools, proj.tools):
            for key, orig in (("inputSchema", tool.input_schema),
                              ("outputSchema", tool.output_schema)):
                new = pt.descriptor.get(key)
                if not isinstance(orig, dict) or not isinstance(new, dict) or \
                        node_dialect(orig, tool.dialect) not in ("draft4", "draft6", "draft7"):
                    continue
                mine = [(c.pointer[len(key) + 1:], c.kind.value,
                         *(c.extra or {}).get("readers", "").split()) for c in pt.changes
                        if c.pointer == "/" + key or c.pointer.startswith(f"/{key}/")]
                if any(k == "wrapped" for _p, k, *_r in mine):
                    continue
                insts = [x for x in _generated(orig, f"{path}:{tool.id}:{key}", 8)
                         + _generated(new, f"{path}:{tool.id}:{key}/out", 4)
                         if isinstance(x, dict)]
                cases.append((f"{path.rsplit('/', 1)[-1]}:{tool.id}:{key}", orig,
                              node_dialect(orig, tool.dialect), new, mine, insts))
    stats: Counter = Counter()
    fails = judge(cases, ajv_judge, stats)
    print(client, len(paths), "catalogs", dict(stats))
    assert not fails, f"{len(fails)} unreported verdict changes ({dict(stats)}):\n" + \
        "\n".join(fails[:12])
    assert stats["pairs"] > 50 and stats["Ajv instances"] > 500, stats
