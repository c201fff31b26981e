"""Deterministic generator of synthetic tool catalogs for the benchmarks.

Two shapes:

* ``mcp`` (default): an MCP ``tools/list`` result ``{"tools": [...]}`` of N tools, compact
  JSON. Tools have realistic shapes: object schemas nested 2-5 levels, arrays of objects,
  enums, formats, patterns and bounds, descriptions of realistic length (tools 100-600
  characters, properties 20-200), titles, annotations, local ``$ref`` into ``$defs`` (some
  recursive), ``anyOf`` with ``null``, ``oneOf`` unions, ``allOf``, and an ``outputSchema`` on
  about a quarter of the tools.
* ``openapi``: an OpenAPI 3.1 YAML document of N operations sharing ``components`` (schemas,
  parameters, responses), to stress the OpenAPI loader.

Everything is seeded: the same ``(n, seed)`` gives the same bytes on every run and machine.
Each tool draws from its own generator seeded by ``(seed, index)``, so the catalog of 1,000
tools is the first 1,000 tools of the catalog of 50,000 (the series scales the amount of the
same material, not its kind).

Usage::

    python bench/gen_catalog.py 10000              # prints the cached file's path
    python bench/gen_catalog.py 1000 --openapi     # OpenAPI 3.1 YAML variant
    python bench/gen_catalog.py 200 --out x.json   # write elsewhere

Files go to ``bench/.cache/`` (gitignored) and are reused while the generator version, N and
seed are unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

GEN_VERSION = 1
DEFAULT_SEED = 7
CACHE = Path(__file__).resolve().parent / ".cache"

# --------------------------------------------------------------------------- vocabulary

_WORDS = (
    "the a an this that each every any of for to from in on with by when which returns "
    "list create update delete fetch retrieve search filter sort page cursor limit offset "
    "repository issue pull request comment review branch commit tag release workflow run job "
    "artifact user team organization member project board column card label milestone file "
    "folder path content blob tree ref sha status check deployment environment secret variable "
    "webhook event payload notification subscription thread message channel account invoice "
    "customer payment charge refund subscription plan product price order item cart shipment "
    "address region zone instance volume snapshot image cluster node pod service endpoint "
    "record table row field schema index query result document collection bucket object key "
    "value token session scope permission role policy rule alert metric log trace span dashboard "
    "calendar meeting attendee room booking task note reminder contact lead opportunity ticket "
    "agent queue priority severity owner assignee reviewer author timestamp date time zone "
    "identifier name title description summary body text markdown html url link email phone "
    "optional required default maximum minimum number count total size bytes characters "
    "including excluding only all none must should may can will is are be if not returned "
    "provided specified matching given current latest previous next first last new existing "
    "authenticated public private internal archived active disabled pending completed failed"
).split()
_VERBS = ("list get create update delete search find add remove set merge close open "
          "archive restore assign sync export import run cancel approve reject move copy").split()
_NOUNS = ("issue repository comment branch commit release workflow user team project label "
          "file folder invoice customer payment order shipment instance volume cluster record "
          "table document bucket token session alert metric dashboard meeting task contact "
          "ticket message channel webhook secret deployment artifact snapshot policy").split()
_FORMATS = ("date-time", "date", "email", "uri", "uuid", "hostname", "ipv4", "time")
_PATTERNS = (r"^[a-z0-9][a-z0-9-]{2,62}$", r"^[A-Z]{2}$", r"^\d{4}-\d{2}$", r"^[a-f0-9]{40}$",
             r"^#[0-9a-fA-F]{6}$", r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", r"^v\d+\.\d+\.\d+$")
_ENUMS = (("open", "closed", "all"), ("asc", "desc"), ("created", "updated", "comments"),
          ("low", "medium", "high", "critical"), ("draft", "published", "archived"),
          ("json", "csv", "xml", "yaml"), ("daily", "weekly", "monthly"),
          ("merge", "squash", "rebase"), ("public", "private", "internal"),
          ("pending", "running", "succeeded", "failed", "cancelled", "skipped"))


def _sentence(r: random.Random) -> str:
    words = [r.choice(_WORDS) for _ in range(r.randint(3, 14))]
    roll = r.random()
    if roll < 0.08:
        words.insert(r.randrange(len(words)), f"`{r.choice(_NOUNS)}_{r.choice(('id', 'name', 'url'))}`")
    elif roll < 0.12:
        words.append(f"(see https://docs.example.com/{r.choice(_NOUNS)}s/{r.choice(_VERBS)})")
    elif roll < 0.16:
        words.insert(r.randrange(len(words)), str(r.choice((10, 30, 50, 100, 1000))))
    s = " ".join(words)
    return s[0].upper() + s[1:] + "."


def _text(r: random.Random, lo: int, hi: int) -> str:
    """Prose of a length in [lo, hi] (mostly short, as in real catalogs), made of sentences."""
    target = int(r.triangular(lo, hi, lo))
    parts: list[str] = []
    n = -1
    while n < target:
        s = _sentence(r)
        parts.append(s)
        n += len(s) + 1
    text = " ".join(parts)
    if len(text) > target:
        cut = text.rfind(" ", 0, target)
        if cut < lo:
            cut = text.find(" ", lo)
        if 0 <= cut < hi:
            text = text[:cut].rstrip(".,") + "."
    return text


def _title(s: str) -> str:
    return " ".join(w.capitalize() for w in s.replace("_", " ").split())


# --------------------------------------------------------------------------- schemas

class _Ctx:
    """Per-tool (or per-document) generation state."""

    def __init__(self, r: random.Random, ref_prefix: str, defs: list[str]) -> None:
        self.r = r
        self.ref_prefix = ref_prefix
        self.defs = defs  # names that can be referenced
        self.used: set[str] = set()
        self.counter = 0

    def prop_name(self) -> str:
        self.counter += 1
        r = self.r
        base = r.choice(_NOUNS) + r.choice(("", "_id", "_name", "_count", "_at", "_url", "s",
                                             "_type", "_state", ""))
        return f"{base}" if r.random() < 0.7 else f"{base}_{self.counter}"

    def ref(self) -> dict:
        name = self.r.choice(self.defs)
        self.used.add(name)
        return {"$ref": self.ref_prefix + name}


def _describe(ctx: _Ctx, node: dict, p: float = 0.6) -> dict:
    if ctx.r.random() < p:
        node["description"] = _text(ctx.r, 20, 200)
    return node


def _leaf(ctx: _Ctx) -> dict:
    r = ctx.r
    k = r.choices(("str", "enum", "fmt", "pat", "int", "num", "bool", "arr"),
                  (22, 12, 10, 6, 16, 5, 12, 8))[0]
    if k == "str":
        node: dict[str, Any] = {"type": "string"}
        if r.random() < 0.4:
            node["minLength"] = r.choice((1, 2, 3))
            node["maxLength"] = r.choice((64, 100, 255, 1000, 65536))
    elif k == "enum":
        vals = list(r.choice(_ENUMS))
        node = {"type": "string", "enum": vals}
        if r.random() < 0.4:
            node["default"] = vals[0]
    elif k == "fmt":
        node = {"type": "string", "format": r.choice(_FORMATS)}
    elif k == "pat":
        node = {"type": "string", "pattern": r.choice(_PATTERNS)}
        if r.random() < 0.4:
            node["examples"] = ["octo-cat"]
    elif k == "int":
        node = {"type": "integer"}
        if r.random() < 0.6:
            node["minimum"] = r.choice((0, 1))
            node["maximum"] = r.choice((100, 1000, 2147483647))
        if r.random() < 0.3:
            node["default"] = r.choice((1, 10, 30, 50))
    elif k == "num":
        node = {"type": "number"}
        if r.random() < 0.5:
            node["exclusiveMinimum"] = 0
            node["multipleOf"] = r.choice((0.01, 0.5, 1))
    elif k == "bool":
        node = {"type": "boolean"}
        if r.random() < 0.4:
            node["default"] = r.random() < 0.5
    else:
        node = {"type": "array", "items": {"type": "string"}}
        if r.random() < 0.5:
            node["items"]["enum"] = list(r.choice(_ENUMS))
        if r.random() < 0.5:
            node["maxItems"] = r.choice((10, 30, 100))
            node["uniqueItems"] = True
    if r.random() < 0.15:
        node["title"] = _title(r.choice(_NOUNS))
    return _describe(ctx, node)


def _object(ctx: _Ctx, depth: int, max_depth: int, force: bool) -> dict:
    """An object schema at nesting level ``depth`` (the tool's inputSchema is level 1)."""
    r = ctx.r
    n_props = r.randint(1, 6) if depth == 1 else r.randint(1, max(1, 4 - depth))
    props: dict[str, Any] = {}
    for i in range(n_props):
        name = ctx.prop_name()
        while name in props:
            name = ctx.prop_name()
        props[name] = _prop(ctx, depth, max_depth, force and i == 0)
    node: dict[str, Any] = {"type": "object", "properties": props}
    req = [k for k in props if r.random() < 0.35]
    if req:
        node["required"] = req
    if r.random() < 0.3:
        node["additionalProperties"] = False
    return node


def _prop(ctx: _Ctx, depth: int, max_depth: int, force: bool) -> dict:
    """A property schema of an object at level ``depth``; ``force`` reaches ``max_depth``."""
    r = ctx.r
    if depth >= max_depth:
        if ctx.defs and r.random() < 0.05:
            return ctx.ref()
        return _leaf(ctx)
    if force:
        k = r.choice(("obj", "arrobj", "obj"))
    else:
        k = r.choices(("leaf", "obj", "arrobj", "null", "oneof", "allof", "ref"),
                      (70, 7, 5, 8, 3, 3, 4 if ctx.defs else 0))[0]
    if k == "leaf":
        return _leaf(ctx)
    if k == "obj":
        node = _object(ctx, depth + 1, max_depth, force)
        if r.random() < 0.2:
            node["title"] = _title(r.choice(_NOUNS))
        return _describe(ctx, node)
    if k == "arrobj":
        node = {"type": "array", "items": _object(ctx, depth + 1, max_depth, force)}
        if r.random() < 0.4:
            node["minItems"] = 1
        if r.random() < 0.4:
            node["maxItems"] = r.choice((20, 100, 250))
        return _describe(ctx, node)
    if k == "null":
        inner = _leaf(ctx) if r.random() < 0.6 else _object(ctx, depth + 1, max_depth, False)
        inner.pop("description", None)
        return _describe(ctx, {"anyOf": [inner, {"type": "null"}]})
    if k == "oneof":
        branches = []
        for kind in r.sample(("email", "webhook", "slack", "sms", "push"), r.randint(2, 3)):
            b = _object(ctx, depth + 1, max_depth, False)
            b["properties"] = {"kind": {"const": kind}, **b["properties"]}
            b["required"] = ["kind"] + [x for x in b.get("required", ()) if x != "kind"]
            if r.random() < 0.5:
                b["title"] = _title(kind + " target")
            branches.append(b)
        return _describe(ctx, {"oneOf": branches})
    if k == "allof":
        first = ctx.ref() if ctx.defs and r.random() < 0.6 else _object(ctx, depth + 1,
                                                                        max_depth, False)
        second = _object(ctx, depth + 1, max_depth, False)
        return _describe(ctx, {"allOf": [first, second]})
    ref = ctx.ref()
    if r.random() < 0.3:
        ref["description"] = _text(r, 20, 200)  # 2020-12: keywords beside $ref
    return ref


def _defs(ctx_r: random.Random, names: list[str], recursive: str | None, ctx: _Ctx) -> dict:
    out: dict[str, Any] = {}
    for name in names:
        if name == recursive:
            node = {
                "type": "object",
                "title": _title(name),
                "properties": {
                    "name": _describe(ctx, {"type": "string", "minLength": 1}),
                    "value": _leaf(ctx),
                    "children": _describe(ctx, {"type": "array",
                                                "items": {"$ref": ctx.ref_prefix + name}}),
                },
                "required": ["name"],
            }
        else:
            saved, ctx.defs = ctx.defs, []  # plain defs reference nothing
            node = _object(ctx, 3, 4, False)
            ctx.defs = saved
            node["title"] = _title(name)
        out[name] = _describe(ctx, node, 0.6)
    return out


_DEF_NAMES = ("Address", "Label", "Money", "Actor", "Attachment", "Schedule", "Filter",
              "Reference", "Coordinates", "Permission")
_REC_NAMES = ("TreeNode", "Comment", "Expression", "Category", "MenuItem")


def gen_tool(seed: int, i: int) -> dict:
    """Tool number ``i`` of the series with ``seed`` (independent of N)."""
    r = random.Random(f"{seed}:mcp:{i}")
    verb, noun = r.choice(_VERBS), r.choice(_NOUNS)
    tool: dict[str, Any] = {"name": f"{verb}_{noun}_{i}"}
    if r.random() < 0.5:
        tool["title"] = _title(f"{verb} {noun}")
    tool["description"] = _text(r, 100, 600)
    defs: list[str] = []
    recursive = None
    if r.random() < 0.3:
        defs = r.sample(_DEF_NAMES, r.randint(1, 3))
        if r.random() < 0.34:
            recursive = r.choice(_REC_NAMES)
            defs.append(recursive)
    ctx = _Ctx(r, "#/$defs/", defs)
    max_depth = r.choices((2, 3, 4, 5), (45, 30, 15, 10))[0]
    schema = _object(ctx, 1, max_depth, True)
    if defs:
        for name in defs:  # every def is referenced at least once
            if name not in ctx.used:
                schema["properties"][name[0].lower() + name[1:]] = {"$ref": "#/$defs/" + name}
                ctx.used.add(name)
        schema["$defs"] = _defs(r, defs, recursive, ctx)
    tool["inputSchema"] = schema
    if r.random() < 0.25:
        out_ctx = _Ctx(r, "#/$defs/", [])
        out = _object(out_ctx, 1, r.randint(2, 4), True)
        tool["outputSchema"] = out
    if r.random() < 0.7:
        ro = verb in ("list", "get", "search", "find", "export")
        ann: dict[str, Any] = {}
        if r.random() < 0.5:
            ann["title"] = _title(f"{verb} {noun}")
        ann["readOnlyHint"] = ro
        if not ro:
            ann["destructiveHint"] = verb in ("delete", "remove", "close", "reject", "cancel")
            ann["idempotentHint"] = verb in ("update", "set", "delete", "remove")
        ann["openWorldHint"] = r.random() < 0.3
        tool["annotations"] = ann
    return tool


def gen_mcp(n: int, seed: int = DEFAULT_SEED) -> dict:
    return {"tools": [gen_tool(seed, i) for i in range(n)]}


# --------------------------------------------------------------------------- OpenAPI

def gen_openapi(n: int, seed: int = DEFAULT_SEED) -> dict:
    """An OpenAPI 3.1 document with ``n`` operations sharing components."""
    gr = random.Random(f"{seed}:oas:components")
    n_schemas = max(12, n // 10)
    names = [f"{_title(gr.choice(_NOUNS)).replace(' ', '')}{k}" for k in range(n_schemas)]
    schemas: dict[str, Any] = {}
    cctx = _Ctx(gr, "#/components/schemas/", [])
    for k, name in enumerate(names):
        cctx.defs = names[:k]  # refer only to earlier ones (acyclic)...
        node = _object(cctx, 2, gr.randint(3, 5), True)
        node["title"] = name
        schemas[name] = _describe(cctx, node, 0.7)
    schemas["TreeNode"] = {  # ...and one recursive schema
        "type": "object",
        "properties": {"name": {"type": "string"},
                       "children": {"type": "array",
                                    "items": {"$ref": "#/components/schemas/TreeNode"}}},
        "required": ["name"],
    }
    schemas["Error"] = {"type": "object", "required": ["code", "message"],
                        "properties": {"code": {"type": "integer", "format": "int32"},
                                       "message": {"type": "string"},
                                       "details": {"type": ["array", "null"],
                                                   "items": {"type": "string"}}}}
    all_names = names + ["TreeNode"]
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Synthetic API", "version": "1.0.0",
                 "description": _text(gr, 200, 400)},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": {},
        "components": {
            "schemas": schemas,
            "parameters": {
                "Limit": {"name": "limit", "in": "query", "description": "Page size.",
                          "schema": {"type": "integer", "minimum": 1, "maximum": 100,
                                     "default": 30}},
                "Cursor": {"name": "cursor", "in": "query",
                           "description": "Opaque cursor from the previous page.",
                           "schema": {"type": "string"}},
                "Id": {"name": "id", "in": "path", "required": True,
                       "description": "The identifier of the resource.",
                       "schema": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
            },
            "responses": {
                "NotFound": {"description": "Not found.", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Error"}}}},
                "BadRequest": {"description": "Invalid request.", "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            },
        },
    }
    paths = doc["paths"]
    for i in range(n):
        r = random.Random(f"{seed}:oas:{i}")
        group, kind = divmod(i, 4)
        noun = _NOUNS[group % len(_NOUNS)]
        base = f"/{noun}s{group}"
        path = base if kind < 2 else base + "/{id}"
        method = ("get", "post", "get", "patch")[kind]
        verb = ("list", "create", "get", "update")[kind]
        ctx = _Ctx(r, "#/components/schemas/", all_names)
        op: dict[str, Any] = {
            "operationId": f"{verb}{_title(noun).replace(' ', '')}{group}",
            "summary": _title(f"{verb} {noun}")[:60],
            "description": _text(r, 100, 600),
            "tags": [noun],
        }
        params: list[Any] = []
        if kind >= 2:
            params.append({"$ref": "#/components/parameters/Id"})
        if kind == 0:
            params += [{"$ref": "#/components/parameters/Limit"},
                       {"$ref": "#/components/parameters/Cursor"}]
            seen = {"limit", "cursor"}
            for _ in range(r.randint(0, 4)):
                leaf = _leaf(ctx)
                desc = leaf.pop("description", None)
                name = ctx.prop_name()
                while name in seen:
                    name = ctx.prop_name()
                seen.add(name)
                p: dict[str, Any] = {"name": name, "in": "query", "schema": leaf}
                if desc:
                    p["description"] = desc
                params.append(p)
        if params:
            op["parameters"] = params
        if kind in (1, 3):
            body = _object(ctx, 1, r.randint(2, 5), True)
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": body if r.random() < 0.6 else {"allOf": [ctx.ref(), body]}}}}
        item = ctx.ref()
        ok = {"type": "array", "items": item} if kind == 0 else item
        op["responses"] = {
            "200" if kind != 1 else "201": {
                "description": "Success.",
                "content": {"application/json": {"schema": ok}}},
            "400": {"$ref": "#/components/responses/BadRequest"},
        }
        if kind >= 2:
            op["responses"]["404"] = {"$ref": "#/components/responses/NotFound"}
        paths.setdefault(path, {})[method] = op
    return doc


# --------------------------------------------------------------------------- YAML out

_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9 _.,()/'-]*$")
_SPECIAL = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, str):
        if _PLAIN.match(v) and not v.endswith(" ") and v.lower() not in _SPECIAL:
            return v
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar
    raise TypeError(type(v))


def _yaml_lines(v: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(v, dict):
        for k, x in v.items():
            key = _scalar(str(k))
            if isinstance(x, dict) and x:
                out.append(f"{pad}{key}:")
                _yaml_lines(x, indent + 2, out)
            elif isinstance(x, list) and x:
                out.append(f"{pad}{key}:")
                _yaml_lines(x, indent, out)
            else:
                out.append(f"{pad}{key}: {_inline(x)}")
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, (dict, list)) and x:
                sub: list[str] = []
                _yaml_lines(x, indent + 2, sub)
                out.append(f"{pad}- {sub[0][indent + 2:]}")
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {_inline(x)}")


def _inline(x: Any) -> str:
    if isinstance(x, dict):
        return "{}"
    if isinstance(x, list):
        return "[]"
    return _scalar(x)


def to_yaml(doc: Any) -> str:
    """Block-style YAML for JSON data (plain scalars where safe, else double-quoted)."""
    out: list[str] = []
    _yaml_lines(doc, 0, out)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- files

def render(kind: str, n: int, seed: int = DEFAULT_SEED) -> bytes:
    return b"".join(render_parts(kind, n, seed))


def render_parts(kind: str, n: int, seed: int = DEFAULT_SEED):
    """The file's bytes in parts: an MCP catalog a tool at a time (the same bytes as
    ``json.dumps`` of the whole, which a million tools would not fit in memory for)."""
    if kind == "openapi":
        yield to_yaml(gen_openapi(n, seed)).encode("utf-8")
        return
    yield b'{"tools":['
    for i in range(n):
        item = json.dumps(gen_tool(seed, i), ensure_ascii=False, separators=(",", ":"))
        yield (b"," if i else b"") + item.encode("utf-8")
    yield b"]}"


def cache_path(kind: str, n: int, seed: int = DEFAULT_SEED, cache: Path | None = None) -> Path:
    ext = "openapi.yaml" if kind == "openapi" else "mcp.json"
    return (cache or CACHE) / f"synth-{n}-s{seed}-g{GEN_VERSION}.{ext}"


def write_atomic(path: Path, data: Any) -> None:
    """Write ``data`` (bytes, or an iterable of bytes parts) to ``path`` through a temp file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                for part in data:
                    f.write(part)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def ensure(kind: str, n: int, seed: int = DEFAULT_SEED, cache: Path | None = None) -> Path:
    """The cached file for ``(kind, n, seed)``, generated when missing."""
    p = cache_path(kind, n, seed, cache)
    if not p.exists():
        write_atomic(p, render_parts(kind, n, seed))
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, nargs="+", help="number of tools (or operations)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--openapi", action="store_true", help="emit the OpenAPI 3.1 YAML variant")
    ap.add_argument("--out", help="write here instead of the cache (one N only)")
    ap.add_argument("--cache", help=f"cache folder [default: {CACHE}]")
    a = ap.parse_args(argv)
    kind = "openapi" if a.openapi else "mcp"
    if a.out:
        if len(a.n) != 1:
            ap.error("--out takes one N")
        write_atomic(Path(a.out), render_parts(kind, a.n[0], a.seed))
        print(a.out)
        return 0
    for n in a.n:
        print(ensure(kind, n, a.seed, Path(a.cache) if a.cache else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
