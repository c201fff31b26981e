#!/usr/bin/env python3
"""Survey: toolcat's projections under Ajv as the MCP TypeScript SDK runs it (the second judge).

    npm ci --prefix tests/support/node            # once
    TOOLCAT_SHARED=/work/shared python scripts/ajv_survey.py [--json out.json] [--quick]

Over the JSON-Schema-Test-Suite (draft7 and draft2020-12, each as written and with the root
``$schema`` removed, which toolcat then reads as 2020-12, MCP's default) through every
``lower_schema`` mode the targets use, and over every corpus catalog (and the repository's
samples) for every target x view (compact, compact --subset, standard), it counts with each
judge engine (``sdk``: @modelcontextprotocol/sdk 1.32.2's validator; ``2020-12``: the same on
Ajv2020; ``sdk-v2``: @modelcontextprotocol/client 2.4.0's per-dialect validator):

* compile failures: original vs projected (a *regression* is a projected schema that fails
  where its original compiles);
* metaschema regressions: projected schema invalid against a metaschema its original satisfies
  (what Ajv's default ``validateSchema: true`` and jsonschema-rs refuse; the SDK turns it off);
* verdict violations: an exact-only change whose Ajv verdict differs on any suite or generated
  instance, or a widened change that rejects an instance the original accepted;
* MCP outputs (``tools/list``) that the SDK's ``ListToolsResultSchema`` rejects (v1 and v2),
  or whose outputSchemas ``Client.listTools`` cannot compile.

Every failure is put in a class (``classify``) and the report prints counts per class and
the smallest example found. Not a test: it reports what is, and exits 0.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.schema.lower import EXACT, KEPT, OMITTED, lower_schema

# --- toolcat's public functions (the only toolcat imports; update after the restructure) ---
from toolcat.formats import LoadOptions, load_catalogs

# ---------------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
from ajv import ENGINES, AjvJudge, skip_reason

SHARED = Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
SUITE = CORPUS / "json-schema-test-suite"
SUITES = {"draft7": "draft7", "draft2020-12": "2020-12"}
TARGETS = ("mcp", "openwop", "openai", "anthropic")
# lower_schema keyword arguments per mode (as tests/test_schema_suite.py: what the targets ask)
MODES = {
    "exact": {"subset": False},
    "factor": {"subset": False, "factor": True},
    "widen": {"subset": True, "unlowerable": "widen", "floor": False},
    "keep": {"subset": True, "unlowerable": "keep", "floor": False},
    "floor": {"subset": True, "unlowerable": "widen", "floor": True},
}
LOSSLESS = {EXACT, KEPT}


def canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# ------------------------------------------------------------------ generated instances

_FORMATS = {"date-time": "2024-05-06T07:08:09Z", "date": "2024-05-06", "time": "07:08:09Z",
            "email": "a@example.com", "uri": "https://example.com/x", "uuid":
            "123e4567-e89b-12d3-a456-426614174000", "ipv4": "192.0.2.1", "hostname": "example.com"}


def _resolve(root: Any, ref: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return {}
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return {}
    return node


def _scalar(r: random.Random) -> Any:
    return r.choice([None, True, False, 0, -3, 7, 2.5, "", "ab", "Zé😀"])


def gen(r: random.Random, s: Any, root: Any, depth: int = 0) -> Any:
    """An instance that tries to satisfy ``s`` (a guess, not a solver; mutants do the rest)."""
    if depth > 6 or not isinstance(s, dict):
        return _scalar(r)
    if isinstance(s.get("$ref"), str) and r.random() < 0.8:
        return gen(r, _resolve(root, s["$ref"]), root, depth + 1)
    if "const" in s and r.random() < 0.8:
        return copy.deepcopy(s["const"])
    if isinstance(s.get("enum"), list) and s["enum"] and r.random() < 0.8:
        return copy.deepcopy(r.choice(s["enum"]))
    for comb in ("anyOf", "oneOf", "allOf"):
        if isinstance(s.get(comb), list) and s[comb] and r.random() < 0.7:
            b = r.choice(s[comb])
            if isinstance(b, dict):
                b = _resolve(root, b["$ref"]) if isinstance(b.get("$ref"), str) else b
                rest = {k: v for k, v in s.items() if k != comb}
                merged = {**rest, **(b if isinstance(b, dict) else {})}
                if isinstance(rest.get("properties"), dict) and isinstance(merged.get("properties"), dict):
                    merged["properties"] = {**rest["properties"], **merged["properties"]}
                return gen(r, merged, root, depth + 1)
    t = s.get("type")
    if isinstance(t, list) and t:
        t = r.choice(t)
    if not isinstance(t, str):
        t = ("object" if "properties" in s or "required" in s else
             "array" if "items" in s or "prefixItems" in s else
             "string" if "pattern" in s or "format" in s or "minLength" in s else
             r.choice(["string", "integer", "object", "null"]))
    if t == "object":
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        req = [x for x in s.get("required", []) if isinstance(x, str)] if isinstance(s.get("required"), list) else []
        return {k: gen(r, props.get(k, {}), root, depth + 1)
                for k in dict.fromkeys(req + list(props)) if k in req or r.random() < 0.4}
    if t == "array":
        lo = s["minItems"] if isinstance(s.get("minItems"), int) else 0
        n = r.randint(lo, lo + 3)
        pre = s.get("prefixItems") if isinstance(s.get("prefixItems"), list) else (
            s.get("items") if isinstance(s.get("items"), list) else [])
        items = s.get("items") if isinstance(s.get("items"), (dict, bool)) else {}
        return [gen(r, pre[i] if i < len(pre) else items, root, depth + 1) for i in range(n)]
    if t == "string":
        if s.get("format") in _FORMATS and r.random() < 0.7:
            return _FORMATS[s["format"]]
        lo = s["minLength"] if isinstance(s.get("minLength"), int) else 0
        return "".join(r.choice("ab Z0_-é") for _ in range(r.randint(lo, lo + 6)))
    if t in ("integer", "number"):
        lo = s.get("minimum", s.get("exclusiveMinimum"))
        lo = int(lo) if isinstance(lo, (int, float)) and not isinstance(lo, bool) and abs(lo) < 1e12 else -50
        v = r.randint(lo, lo + 100)
        return v if t == "integer" or r.random() < 0.5 else v + 0.5
    if t == "boolean":
        return r.random() < 0.5
    if t == "null":
        return None
    return _scalar(r)


def mutate(r: random.Random, v: Any, depth: int = 0) -> Any:
    if isinstance(v, dict) and v and depth < 4 and r.random() < 0.7:
        k = r.choice(sorted(v))
        out = dict(v)
        op = r.randint(0, 3)
        if op == 0:
            del out[k]
        elif op == 1:
            out["zz_unknown"] = _scalar(r)
        else:
            out[k] = mutate(r, v[k], depth + 1)
        return out
    if isinstance(v, list) and v and depth < 4 and r.random() < 0.7:
        i = r.randrange(len(v))
        out = list(v)
        op = r.randint(0, 2)
        if op == 0:
            del out[i]
        elif op == 1:
            out.append(out[i])
        else:
            out[i] = mutate(r, v[i], depth + 1)
        return out
    return r.choice([{}, [], 10 ** 6, "x" * 60, _scalar(r), _scalar(r)])


def instances_for(schema: Any, seed: str, n: int) -> list:
    r = random.Random(seed)
    out: list = []
    seen: set = set()
    for _ in range(n):
        x = gen(r, schema, schema)
        for y in (x, mutate(r, x)):
            k = canon(y)
            if k not in seen:
                seen.add(k)
                out.append(y)
    return out


# ------------------------------------------------------------------ the judge, memoized


class Memo:
    """Ajv answers for (engine, schema, instances), asked in batches, each asked once."""

    def __init__(self, judge: AjvJudge) -> None:
        self.judge = judge
        self.done: dict[tuple, Any] = {}
        self.todo: dict[tuple, tuple] = {}
        self.meta_done: dict[str, Any] = {}
        self.meta_todo: dict[str, Any] = {}

    def ask(self, engine: str, schema: Any, instances: list) -> tuple:
        key = (engine, canon(schema), canon(instances))
        if key not in self.done:
            self.todo[key] = (schema, instances)
        return key

    def ask_meta(self, schema: Any) -> str:
        key = canon(schema)
        if key not in self.meta_done:
            self.meta_todo[key] = schema
        return key

    def run(self) -> None:
        by_engine: dict[str, list] = defaultdict(list)
        for key, item in self.todo.items():
            by_engine[key[0]].append((key, item))
        for engine, rows in by_engine.items():
            for (key, _), v in zip(rows, self.judge.validate_many([it for _, it in rows], engine=engine)):
                self.done[key] = v
        self.todo.clear()
        keys = list(self.meta_todo)
        for key, m in zip(keys, self.judge.metaschema_many([self.meta_todo[k] for k in keys])):
            self.meta_done[key] = m
        self.meta_todo.clear()


# ------------------------------------------------------------------ checks

Failure = dict  # {"class", "kind", "engine", "where", "original", "projected", "instance", "detail"}


origin_failures: dict[tuple, tuple] = {}   # (engine, "catalog: tool side") -> (error, schema)


def compare(memo: Memo, item: dict, failures: list[Failure], counts: Counter) -> None:
    """``item``: where, original, projected, instances, lossless (bool), changes (text),
    objects_only (only object instances count), group."""
    group = item["group"]
    mo, mp = memo.meta_done[canon(item["original"])], memo.meta_done[canon(item["projected"])]
    for dialect in ("draft-07", "2020-12"):
        if mo[dialect] is None and mp[dialect] is not None:
            counts[f"{group}: metaschema regressions ({dialect})"] += 1
            failures.append(dict(kind="metaschema", engine=dialect, detail="; ".join(mp[dialect][:3]), **_ctx(item)))
    insts = item["instances"]
    for engine in ENGINES:
        vo = memo.done[item["keys"][engine][0]]
        vp = memo.done[item["keys"][engine][1]]
        counts[f"{group}: schemas [{engine}]"] += 1
        if not vo.compiled:
            counts[f"{group}: original fails to compile [{engine}]"] += 1
            if group.startswith("catalogs"):
                origin_failures.setdefault((engine, item["where"].split(" [")[0]), (vo.error, item["original"]))
        if not vp.compiled:
            counts[f"{group}: projected fails to compile [{engine}]"] += 1
        if vo.compiled and not vp.compiled:
            counts[f"{group}: compile regressions [{engine}]"] += 1
            failures.append(dict(kind="compile", engine=engine, detail=vp.error, **_ctx(item)))
            continue
        if not vo.compiled and vp.compiled and item["lossless"]:
            counts[f"{group}: refused before, compiles after an exact change [{engine}]"] += 1
            failures.append(dict(kind="unrefused", engine=engine, detail=vo.error, **_ctx(item)))
        if not (vo.compiled and vp.compiled):
            continue
        for x, a, b in zip(insts, vo.valid, vp.valid):
            if item["objects_only"] and not isinstance(x, dict):
                continue
            counts[f"{group}: instance checks [{engine}]"] += 1
            bad = (a != b) if item["lossless"] else (a is True and b is not True)
            if bad:
                counts[f"{group}: verdict violations [{engine}]"] += 1
                failures.append(dict(kind="exact" if item["lossless"] else "widened", engine=engine,
                                     instance=x, detail=f"{a} before, {b} after", **_ctx(item)))
                break   # one instance per schema and engine is enough to show it


def _ctx(item: dict) -> dict:
    return {"where": item["where"], "original": item["original"], "projected": item["projected"],
            "changes": item["changes"], "group": item["group"]}


def enqueue(memo: Memo, item: dict) -> dict:
    item["keys"] = {e: (memo.ask(e, item["original"], item["instances"]),
                        memo.ask(e, item["projected"], item["instances"])) for e in ENGINES}
    memo.ask_meta(item["original"])
    memo.ask_meta(item["projected"])
    return item


# ------------------------------------------------------------------ the suite


def suite_items(memo: Memo, quick: bool) -> list[dict]:
    items = []
    for suite, dialect in SUITES.items():
        root = SUITE / suite
        if not root.is_dir():
            print(f"skip: {root} absent", file=sys.stderr)
            continue
        files = sorted(root.rglob("*.json"))
        if quick:
            files = files[::6]
        for f in files:
            rel = f.relative_to(root).as_posix()
            if rel.startswith("optional/format/"):
                pass
            for i, case in enumerate(json.loads(f.read_text("utf-8"))):
                schema = case["schema"]
                variants = [("as written", schema, dialect)]
                if isinstance(schema, dict) and "$schema" in schema:
                    variants.append(("no $schema", {k: v for k, v in schema.items() if k != "$schema"}, "2020-12"))
                elif suite == "draft7":
                    # the draft-07 suite writes no $schema: toolcat reads such a schema as 2020-12
                    variants.append(("read as 2020-12", schema, "2020-12"))
                insts = [t["data"] for t in case["tests"]]
                for vname, s, d in variants:
                    group = f"suite {suite} ({vname})"
                    for mode, kw in MODES.items():
                        try:
                            res = lower_schema(copy.deepcopy(s), d, pointer="", **kw)
                        except Exception as e:  # noqa: BLE001
                            items.append({"group": group, "crash": f"{type(e).__name__}: {e}",
                                          "where": f"{suite}/{rel}#{i} [{mode}]"})
                            continue
                        kinds = {c.kind for c in res.changes}
                        if canon(res.schema) == canon(s):
                            continue   # nothing changed: the same verdicts by construction
                        items.append(enqueue(memo, {
                            "group": group, "where": f"{suite}/{rel}#{i} {case['description']!r} [{mode}]",
                            "original": s, "projected": res.schema, "instances": insts,
                            "lossless": kinds <= LOSSLESS, "objects_only": mode == "floor",
                            "changes": [f"{c.kind} {c.pointer}: {c.what}" for c in res.changes][:6]}))
    return items


# ------------------------------------------------------------------ the catalogs


def catalog_paths() -> list[str]:
    out: list[str] = []
    if (CORPUS / "github-mcp-server").is_dir():
        out.append(str(CORPUS / "github-mcp-server"))
    for folder in ("mcp-context-cost", "neo", "openapi", "openwop"):
        for f in sorted((CORPUS / folder).glob("*")):
            if f.suffix in (".json", ".yaml", ".yml"):
                out.append(str(f))
    for f in sorted((REPO / "samples").glob("*")):
        if f.suffix in (".json", ".yaml", ".yml"):
            out.append(str(f))
    return out


def schemas_of(desc: dict, target: str) -> dict[str, Any]:
    if target in ("mcp", "openwop"):
        return {"input": desc.get("inputSchema"), "output": desc.get("outputSchema")}
    if target == "openai":
        fn = desc.get("function", desc)
        return {"input": fn.get("parameters"), "output": None}
    return {"input": desc.get("input_schema"), "output": None}


COMBOS = [("compact", None), ("compact", True), ("standard", None)]


def catalog_items(memo: Memo, quick: bool, tools_lists: list, crashes: list) -> tuple[list[dict], Counter]:
    items: list[dict] = []
    stats: Counter = Counter()
    paths = catalog_paths()
    if quick:
        paths = paths[::5]
    for path in paths:
        name = os.path.relpath(path, CORPUS) if path.startswith(str(CORPUS)) else os.path.relpath(path, REPO)
        try:
            cats = load_catalogs([path], LoadOptions())
        except Exception as e:  # noqa: BLE001
            stats["catalogs not loaded"] += 1
            crashes.append(f"{name}: load: {type(e).__name__}: {e}")
            continue
        stats["catalogs"] += 1
        for cat in cats:
            stats["tools"] += len(cat.tools)
            for target in TARGETS:
                for view, subset in COMBOS:
                    combo = f"{target} {view}{' --subset' if subset else ''}"
                    try:
                        proj = project_catalogs([cat], ProjectOptions(view=view, to=target, subset=subset))
                    except Exception as e:  # noqa: BLE001
                        crashes.append(f"{name} [{combo}]: {type(e).__name__}: {str(e)[:200]}")
                        continue
                    stats["projections"] += 1
                    if target == "mcp":
                        tools_lists.append((name, combo, json.loads(proj.output_bytes())))
                    if len(proj.tools) != len(cat.tools):
                        crashes.append(f"{name} [{combo}]: {len(proj.tools)} projected for {len(cat.tools)} tools")
                        continue
                    for tool, pt in zip(cat.tools, proj.tools):
                        got = schemas_of(pt.descriptor, target)
                        for side, orig in (("input", tool.input_schema), ("output", tool.output_schema)):
                            new = got[side]
                            if orig is None or new is None:
                                continue
                            ptr = "/inputSchema" if side == "input" else "/outputSchema"
                            kinds = {c.kind for c in pt.changes if c.pointer.startswith(ptr)}
                            if OMITTED in kinds and any(c.pointer == ptr for c in pt.changes if c.kind == OMITTED):
                                continue
                            where = f"{name}: {tool.id} {side} [{combo}]"
                            insts = instances_for(orig, f"{name}:{tool.id}:{side}", 3 if quick else 6)
                            items.append(enqueue(memo, {
                                "group": f"catalogs {'standard' if view == 'standard' else combo.split(' ', 1)[1]}",
                                "target": target, "where": where, "original": orig, "projected": new,
                                "instances": insts, "lossless": kinds <= LOSSLESS,
                                # tool arguments are always an object (MCP tools/call `arguments`)
                                "objects_only": side == "input",
                                "changes": [f"{c.kind} {c.pointer}: {c.what}" for c in pt.changes
                                            if c.pointer.startswith(ptr)][:6]}))
    return items, stats


# ------------------------------------------------------------------ classes

def walk(x: Any, path: str = ""):
    yield path, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk(v, f"{path}/{i}")


def _has(x: Any, pred) -> bool:
    return any(pred(p, n) for p, n in walk(x))


def _ref_with_siblings(x: Any) -> bool:
    return _has(x, lambda p, n: isinstance(n, dict) and "$ref" in n
                and set(n) - {"$ref", "$schema", "$id", "$comment", "description", "title", "definitions", "$defs"})


def _array_items(x: Any) -> bool:
    return _has(x, lambda p, n: isinstance(n, dict) and isinstance(n.get("items"), list))


def _dup_type(x: Any) -> bool:
    return _has(x, lambda p, n: isinstance(n, dict) and isinstance(n.get("type"), list)
                and len(n["type"]) != len({canon(t) for t in n["type"]}))


def _ref_beside_id(x: Any) -> bool:
    return _has(x, lambda p, n: isinstance(n, dict) and isinstance(n.get("$ref"), str) and "$id" in n)


def _ref_not_string(x: Any) -> bool:
    return _has(x, lambda p, n: isinstance(n, dict) and "$ref" in n and not isinstance(n["$ref"], str))


def classify(f: Failure) -> str:
    o, p, d = f["original"], f["projected"], f.get("detail") or ""
    kind = f["kind"]
    if kind == "unrefused":
        return "exact change turns a schema the client refused into one it takes: " + \
            re.sub(r'"[^"]*"|#/\S*', '…', d)[:60]
    if _ref_not_string(o):
        return "data: $ref that is not a string in the source (YAML `$ref: #/...` is a comment)"
    if kind == "metaschema":
        if _dup_type(p) and not _dup_type(o):
            return "1 duplicate type names (allOf merge)"
        if "required must NOT have duplicate items" in d:
            return ("data: duplicate names in a source `required` (in $defs the draft-07 metaschema "
                    "does not look; inlined, it does)")
        return "metaschema: other"
    if kind == "compile":
        if "already exists" in d or "resolves to more than one schema" in d:
            return "2 $id/$anchor copied by inlining or factoring"
        if "Cannot use 'in' operator" in d:
            return "3 object schema lowered to a boolean"
        if "can't resolve reference" in d:
            if _ref_beside_id(o):
                return "8 definition reached through a $ref beside $id (Ajv's base) dropped as unused"
            if _array_items(o):
                return "5 draft-07 array items: definitions dropped"
            return "compile: dangling $ref"
        if "unsupported dialect" in d:
            return "6 $schema: unsupported dialect (sdk-v2)"
        if "items value must be" in d:
            return "5b array-form items kept, read as 2020-12"
        return "compile: " + re.sub(r'"[^"]*"', '"…"', d)[:60]
    # verdicts
    if isinstance(o, dict) and "$schema" in o and isinstance(p, dict) and "$schema" not in p:
        lead = "6 $schema dropped: "
    else:
        lead = ""
    if _ref_beside_id(o):
        return lead + "8 $ref beside $id: Ajv resolves it against that $id, toolcat against the outer base"
    if _ref_with_siblings(o) and not _ref_with_siblings(p):
        return lead + "4 keywords beside $ref dropped (Ajv applies them)"
    return lead + f"verdict ({kind}): other"


def tools_list_class(issue: dict, result: dict) -> str:
    path = [("N" if isinstance(x, int) else x) for x in issue["path"]]
    text = f"{'/'.join(map(str, path))}: {issue['message']}"
    if len(issue["path"]) >= 3 and issue["path"][2] in ("inputSchema", "outputSchema"):
        sch = result["tools"][issue["path"][1]].get(issue["path"][2])
        if isinstance(sch, dict):
            t = sch.get("type")
            shape = (f"type {canon(t)}" if t is not None else
                     "root $ref" if "$ref" in sch else
                     "root " + "/".join(k for k in ("anyOf", "oneOf", "allOf", "not", "if") if k in sch)
                     if any(k in sch for k in ("anyOf", "oneOf", "allOf", "not", "if")) else
                     "no type: keys " + ",".join(sorted(sch))[:60])
        else:
            shape = f"a {type(sch).__name__}"
        text += f" [{shape}]"
    return text


# ------------------------------------------------------------------ reproducers

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"
# (class, schema, dialect toolcat reads it with, lower_schema keywords, instances)
REPRODUCERS = [
    ("1 duplicate type names (allOf merge)",
     {"type": "object", "properties": {"n": {"allOf": [{"type": ["integer", "null"]}, {"type": "integer"}]}}},
     "2020-12", {}, [{"n": 1}, {"n": None}]),
    ("2 $id copied by inlining a recursive $ref (--subset / openwop)",
     {"$schema": D2020, "$id": "https://example.com/tree", "type": "object",
      "properties": {"kids": {"type": "array", "items": {"$ref": "tree"}}}},
     "2020-12", {"subset": True}, [{"kids": [{"kids": []}]}, {"kids": [1]}]),
    ("2 $id copied by inlining a recursive $ref (URN, widen)",
     {"$schema": D2020, "$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "minimum": 30,
      "properties": {"foo": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"}}},
     "2020-12", {"subset": True, "floor": False}, [{"foo": 31}, {"foo": 1}]),
    ("3 object schema lowered to a boolean",
     {"type": "object", "properties": {"a": {"type": "string"}}, "not": {}}, "2020-12", {}, [{}, {"a": "x"}]),
    ("3b a root property that accepts nothing lowered to false: v1 ListToolsResultSchema refuses the tool",
     {"type": "object", "properties": {"a": {"not": {}}, "b": {"type": "string"}}}, "2020-12", {},
     [{"b": "x"}, {"a": 1}]),
    ("4 keywords beside $ref dropped (Ajv applies them)",
     {"$schema": D7, "definitions": {"tags": {"type": "array"}}, "type": "object",
      "properties": {"t": {"$ref": "#/definitions/tags", "maxItems": 2}}},
     "draft7", {}, [{"t": ["a", "b", "c"]}, {"t": ["a"]}]),
    ("5 draft-07 array items: definitions dropped (no $schema, read as 2020-12)",
     {"type": "object", "properties": {"p": {"type": "array", "items": [{"$ref": "#/definitions/a"}]}},
      "definitions": {"a": {"type": "string"}}},
     "2020-12", {}, [{"p": [1]}, {"p": ["x"]}]),
    ("6 custom $schema whose URI contains '2020-12' (or 'draft-07') is dropped; sdk-v2 refused it",
     {"$schema": "https://example.com/draft2020-12/my-vocabulary.json", "type": "object",
      "properties": {"a": {"type": "string"}}},
     "2020-12", {}, [{"a": "x"}, {"a": 1}]),
    ("6 (control) custom $schema without a dialect name in it is kept",
     {"$schema": "https://example.com/custom-meta", "type": "object", "properties": {"a": {"type": "string"}}},
     "2020-12", {}, [{"a": "x"}, {"a": 1}]),
    ("6 2020-12 $schema dropped beside contentMediaType (Ajv: annotation in both dialects)",
     {"$schema": D2020, "type": "object", "properties": {"d": {"type": "string", "contentMediaType": "application/json"}}},
     "2020-12", {}, [{"d": "{"}, {"d": "{}"}]),
    ("8 $ref beside $id: Ajv resolves against the sibling $id; the definition it reaches is dropped",
     {"$id": "http://localhost:1234/base/", "type": "object",
      "properties": {"x": {"$id": "http://localhost:1234/", "$ref": "foo.json"}},
      "definitions": {"a": {"$id": "foo.json", "type": "number"},
                      "b": {"$id": "http://localhost:1234/foo.json", "type": "string"}}},
     "draft7", {}, [{"x": "s"}, {"x": 1}]),
]

PETS = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "paths": {"/pets/{id}": {"get": {"operationId": "getPet", "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Pet"}}}}}}},
        "/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}}},
        "/pets/{id}/name": {"get": {"operationId": "petName", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "string"}}}}}}}},
    "components": {"schemas": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}},
}
# (class, file name, document (None: a repository sample), project options)
CATALOG_REPRODUCERS = [
    ("7 OpenAPI -> MCP: the README's sample", "petstore.openapi.yaml", None, {}),
    ("7 OpenAPI -> MCP: outputSchema root $ref (standard view), array, string", "pets.openapi.json", PETS, {}),
    ("7b MCP tool whose inputSchema has no type (gitlab's bare {\"$schema\"})", "bare.tools.json",
     {"tools": [{"name": "create_or_update_file", "inputSchema": {"$schema": D7}}]}, {}),
    ("data: a pattern Python accepts but ECMA-262 (u flag) refuses: every Ajv engine, listTools throws",
     "pattern.tools.json",
     {"tools": [{"name": "send", "inputSchema": {"type": "object"},
                 "outputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z0-9\\-\\_]+$"}}}}]}, {}),
]


def _show(v) -> str:
    return f"compile error: {v.error}" if v.error else f"verdicts {v.valid}"


def run_reproducers(judge: AjvJudge) -> list[str]:
    out = []
    for cls, schema, dialect, kw, insts in REPRODUCERS:
        res = lower_schema(copy.deepcopy(schema), dialect, pointer="", **kw)
        out.append(f"### {cls}\n")
        out.append(f"- original ({dialect}, lower_schema {kw or 'exact'}): `{canon(schema)}`")
        out.append(f"- projected: `{canon(res.schema)}`")
        out.append(f"- changes: {[f'{c.kind} {c.pointer}: {c.what}' for c in res.changes]}")
        for engine in ENGINES:
            a, b = judge.validate(schema, insts, engine), judge.validate(res.schema, insts, engine)
            out.append(f"- [{engine}] on {canon(insts)}: original {_show(a)}; projected {_show(b)}")
        meta = judge.metaschema(res.schema)
        if any(meta.values()):
            out.append(f"- projected vs metaschemas: {meta}")
        tl = judge.tools_list({"tools": [{"name": "t", "inputSchema": res.schema}]})
        out.append(f"- as a tool's inputSchema, ListToolsResultSchema (v1): "
                   f"{'ok' if tl.ok else [(i['path'], i['message']) for i in tl.issues]}\n")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for cls, fname, doc, extra in CATALOG_REPRODUCERS:
            path = REPO / "samples" / fname
            if doc is not None:
                path = Path(tmp) / fname
                path.write_text(json.dumps(doc), "utf-8")
            cats = load_catalogs([str(path)], LoadOptions())
            out.append(f"### {cls}\n")
            if doc is not None:
                out.append(f"- input `{fname}`: `{canon(doc)[:400]}`")
            for view in ("standard", "compact"):
                proj = project_catalogs(cats, ProjectOptions(view=view, to="mcp", **extra))
                result = json.loads(proj.output_bytes())
                r = judge.tools_list(result)
                out.append(f"- `toolcat project {fname} --to mcp --view {view}`:")
                for t in result["tools"]:
                    out.append(f"  - {t['name']}: inputSchema `{canon(t.get('inputSchema'))[:120]}`, "
                               f"outputSchema `{canon(t.get('outputSchema'))[:120]}`")
                issues = [(i["path"], i["message"]) for i in r.issues]
                out.append(f"  - ListToolsResultSchema (v1): {'ok' if r.ok else issues}"
                           f"{'; listTools throws: ' + r.client_error if r.ok and r.client_error else ''}")
                r2 = judge.tools_list(result, sdk="v2")
                out.append(f"  - v2: {'ok' if r2.ok else [(i['path'], i['message']) for i in r2.issues]}"
                           f"{'; listTools throws: ' + r2.client_error if r2.client_error else ''}")
            out.append("")
    return out


# ------------------------------------------------------------------ report


def smallest(fs: list[Failure]) -> Failure:
    return min(fs, key=lambda f: len(canon(f["original"])) + len(canon(f["projected"])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write every failure here (JSON)")
    ap.add_argument("--quick", action="store_true", help="a sample of the suite and the catalogs")
    ap.add_argument("--no-suite", action="store_true")
    ap.add_argument("--no-catalogs", action="store_true")
    ap.add_argument("--reproducers", action="store_true", help="only the minimal reproducers")
    args = ap.parse_args()
    why = skip_reason()
    if why:
        print(why, file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    failures: list[Failure] = []
    counts: Counter = Counter()
    crashes: list[str] = []
    tools_lists: list = []
    with AjvJudge(timeout=600) as judge:
        repro = run_reproducers(judge)
        if args.reproducers:
            print("\n".join(repro))
            return 0
        memo = Memo(judge)
        items: list[dict] = []
        if not args.no_suite:
            items += suite_items(memo, args.quick)
        stats: Counter = Counter()
        if not args.no_catalogs:
            more, stats = catalog_items(memo, args.quick, tools_lists, crashes)
            items += more
        t1 = time.perf_counter()
        n_ask = len(memo.todo)
        memo.run()
        t2 = time.perf_counter()
        for it in items:
            if "crash" in it:
                crashes.append(f"{it['where']}: {it['crash']}")
                continue
            compare(memo, it, failures, counts)
        tl_fail: list = []
        tl_counter: Counter = Counter()
        for name, combo, result in tools_lists:
            view = combo.split(" ", 1)[1]
            by_id: dict[str, set] = defaultdict(set)
            for t in result["tools"]:
                o = t.get("outputSchema")
                if isinstance(o, dict) and isinstance(o.get("$id"), str):
                    by_id[o["$id"]].add(canon(o))
            shared = [i for i, v in by_id.items() if len(v) > 1]
            if shared:
                counts[f"tools/list {view}: root $id shared by different outputSchemas "
                       f"(the client validates with the first one's)"] += len(shared)
                tl_fail.append({"sdk": "v1", "view": view, "where": name,
                                "class": f"client: outputSchema $id {shared[0]} shared by different schemas"})
            for sdk in ("v1", "v2"):
                r = judge.tools_list(result, sdk=sdk)
                counts[f"tools/list [{sdk}] {view}: outputs"] += 1
                counts[f"tools/list [{sdk}] {view}: tools"] += len(result["tools"])
                if not r.ok:
                    counts[f"tools/list [{sdk}] {view}: outputs refused"] += 1
                    bad_tools = {i["path"][1] for i in r.issues if len(i["path"]) > 1}
                    counts[f"tools/list [{sdk}] {view}: tools with issues"] += len(bad_tools)
                    for i in r.issues:
                        cls = tools_list_class(i, result)
                        tl_counter[(sdk, view, cls)] += 1
                        tl_fail.append({"sdk": sdk, "view": view, "where": name, "class": cls,
                                        "tool": result["tools"][i["path"][1]] if len(i["path"]) > 1 else None})
                elif r.client_error:
                    counts[f"tools/list [{sdk}] {view}: listTools throws (outputSchema compile)"] += 1
                    tl_fail.append({"sdk": sdk, "view": view, "where": name, "class": "client: " + r.client_error[:100]})
    t3 = time.perf_counter()
    for f in failures:
        f["class"] = classify(f)
    by_class: dict[str, list] = defaultdict(list)
    for f in failures:
        by_class[(f["class"])].append(f)

    print(f"# Ajv survey ({time.strftime('%Y-%m-%d')}; judge {', '.join(ENGINES)})\n")
    print(f"projection {t1 - t0:.0f} s; judge {t2 - t1:.0f} s for {n_ask} distinct (engine, schema, instances) "
          f"requests ({n_ask / max(t2 - t1, 1e-9):.0f}/s); tools/list {t3 - t2:.0f} s")
    print(f"catalog stats: {dict(stats)}\n")
    print("## Counts\n")
    for k in sorted(counts):
        print(f"- {k}: {counts[k]}")
    print("\n## Failure classes (count by engine; smallest example)\n")
    for cls in sorted(by_class):
        fs = by_class[cls]
        per = Counter((f["engine"], f["group"]) for f in fs)
        distinct = len({(f["where"].split(" [")[0], canon(f["original"])) for f in fs})
        print(f"### {cls}: {len(fs)} (distinct original schemas: {distinct})\n")
        for (e, g), n in sorted(per.items()):
            print(f"  - {g} [{e}]: {n}")
        ex = smallest(fs)
        print(f"\n  example: {ex['where']}")
        print(f"  original:  {canon(ex['original'])[:400]}")
        print(f"  projected: {canon(ex['projected'])[:400]}")
        if ex.get("instance") is not None or ex["kind"] in ("exact", "widened"):
            print(f"  instance:  {canon(ex.get('instance'))[:200]} ({ex['detail']})")
        else:
            print(f"  error:     {ex['detail'][:200]}")
        print(f"  changes:   {ex['changes'][:3]}\n")
    print("## tools/list refusals (issue class: count)\n")
    for (sdk, view, cls), n in sorted(tl_counter.items()):
        print(f"- [{sdk}] {view}: {cls}: {n}")
    client = Counter((f["sdk"], f["view"], f["class"]) for f in tl_fail if f["class"].startswith("client:"))
    for (sdk, view, cls), n in sorted(client.items()):
        print(f"- [{sdk}] {view}: {cls}: {n}")
    print("\n## Catalog schemas (as loaded: the standard view) that fail to compile\n")
    oc: dict[tuple, list] = defaultdict(list)
    for (engine, where), (err, schema) in origin_failures.items():
        oc[(engine, re.sub(r'"[^"]*"|#/\S*', '…', err)[:70])].append((where, err, schema))
    for (engine, msg), rows in sorted(oc.items()):
        where, err, schema = min(rows, key=lambda r: len(canon(r[2])))
        print(f"- [{engine}] {msg}: {len(rows)} (e.g. {where}: {err[:160]})")
    print("\n## Minimal reproducers (run live)\n")
    print("\n".join(repro))
    print(f"\n## Crashes / load errors: {len(crashes)}\n")
    for c in crashes[:40]:
        print(f"- {c}")
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": counts, "failures": failures, "tools_list": tl_fail,
                                               "crashes": crashes}, default=str, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
