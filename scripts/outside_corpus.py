#!/usr/bin/env python3
"""The outside corpus: real catalogs from public repositories that are not in ../shared/.

Nothing fetched is committed. ``tests/outside/manifest.toml`` names each entry's repository,
commit, path(s), licence, size and SHA-256, and facts derived without toolcat (operation and
tool counts, ids). This script materializes the cache the tests read from git snapshots
(bare git directories, e.g. ``/work/.mirror/<owner>+<name>/repo`` as the search tool's
``fetch`` leaves them) and checks an existing cache:

    python scripts/outside_corpus.py repos                      # which repositories to fetch
    python scripts/outside_corpus.py build --mirrors /work/.mirror --out ../outside
    python scripts/outside_corpus.py check --cache ../outside
    python scripts/outside_corpus.py facts --cache ../outside   # re-derive facts (needs PyYAML)

Cache layout: ``OUT/<id>/<path in the repository>`` for an entry; ``OUT/<id>/old/...`` and
``OUT/<id>/new/...`` for a version pair. A multi-file spec is copied as its whole folder
(every blob under it at that commit). Files are copied byte for byte (``git cat-file blob
COMMIT:PATH``, the plumbing form of ``git show COMMIT:PATH``) and verified against the
manifest's size and SHA-256 (for a folder: file count, total size and a digest over the
sorted ``path NUL sha256`` lines) before they are moved into place.

Only the standard library is needed, except ``facts`` (PyYAML).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import posixpath
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Callable, Iterator

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "tests" / "outside" / "manifest.toml"


# ---------------------------------------------------------------- manifest
def load_manifest(path: Path = MANIFEST) -> list[dict]:
    with open(path, "rb") as f:
        return tomllib.load(f)["entry"]


def sides(entry: dict) -> Iterator[tuple[str, dict]]:
    """(sub-folder, record) for each version an entry holds: ('', entry) or ('old'|'new', ...)."""
    if entry["kind"] == "pair":
        yield "old", entry["old"]
        yield "new", entry["new"]
    else:
        yield "", entry


def side_dir(cache: Path, entry: dict, sub: str) -> Path:
    return cache / entry["id"] / sub if sub else cache / entry["id"]


def catalog_path(cache: Path, entry: dict, sub: str = "") -> Path:
    """The file or folder to hand toolcat for one version of an entry."""
    rec = entry[sub] if sub else entry
    return side_dir(cache, entry, sub) / rec["catalog"]


# ---------------------------------------------------------------- digests
def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder_digest(files: dict[str, str]) -> str:
    """files: repository path -> sha256 of its bytes."""
    h = hashlib.sha256()
    for p in sorted(files):
        h.update(f"{p}\0{files[p]}\n".encode())
    return h.hexdigest()


# ---------------------------------------------------------------- git
def git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for cand in (base / "repo", base):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def git(gd: Path, *args: str) -> bytes:
    r = subprocess.run(["git", "--git-dir", str(gd), *args], capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")
    return r.stdout


def blob(gd: Path, commit: str, path: str) -> bytes:
    return git(gd, "cat-file", "blob", f"{commit}:{path}")


def tree_blobs(gd: Path, commit: str, folder: str) -> list[str]:
    out = git(gd, "ls-tree", "-r", "-z", commit, "--", folder).decode()
    paths = []
    for rec in out.split("\0"):
        if rec:
            meta, path = rec.split("\t", 1)
            if meta.split()[1] == "blob":
                paths.append(path)
    return paths


# ---------------------------------------------------------------- build / check
def folders(rec: dict) -> list[str]:
    """The folders a multi-file record copies: ``folder``, or ``folders`` (a spec whose
    references reach a sibling tree, e.g. Azure's common-types); [] for a single file."""
    if "folders" in rec:
        return list(rec["folders"])
    return [rec["folder"]] if "folder" in rec else []


def _expect(rec: dict, got: dict[str, bytes]) -> list[str]:
    """Problems with the bytes of one version against its manifest record."""
    problems = []
    if folders(rec):
        name = ", ".join(folders(rec))
        digest = folder_digest({p: sha256(b) for p, b in got.items()})
        size = sum(len(b) for b in got.values())
        if len(got) != rec["file_count"]:
            problems.append(f"{name}: {len(got)} files, manifest says {rec['file_count']}")
        if size != rec["size"]:
            problems.append(f"{name}: {size} bytes, manifest says {rec['size']}")
        if digest != rec["sha256"]:
            problems.append(f"{name}: folder digest {digest}, manifest says {rec['sha256']}")
    else:
        b = got.get(rec["path"])
        if b is None:
            problems.append(f"{rec['path']}: missing")
        elif len(b) != rec["size"] or sha256(b) != rec["sha256"]:
            problems.append(f"{rec['path']}: {len(b)} bytes sha256 {sha256(b)}, manifest says "
                            f"{rec['size']} bytes sha256 {rec['sha256']}")
    return problems


def build(entries: list[dict], mirrors: Path, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed = missing = built = 0
    for e in entries:
        gd = git_dir(mirrors, e["repo"])
        if gd is None:
            print(f"skip  {e['id']}: no snapshot of {e['repo']} under {mirrors} (fetch github:{e['repo']})")
            missing += 1
            continue
        tmp = Path(tempfile.mkdtemp(prefix=f".{e['id']}.", dir=out))
        problems: list[str] = []
        try:
            for sub, rec in sides(e):
                try:
                    paths = ([p for f in folders(rec) for p in tree_blobs(gd, rec["commit"], f)]
                             if folders(rec) else [rec["path"]])
                    got = {p: blob(gd, rec["commit"], p) for p in paths}
                except RuntimeError as exc:
                    problems.append(str(exc))
                    continue
                problems += _expect(rec, got)
                for p, b in got.items():
                    dest = tmp / sub / p
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(b)
            if problems:
                failed += 1
                print(f"FAIL  {e['id']}: " + "; ".join(problems))
                continue
            final = out / e["id"]
            if final.exists():
                shutil.rmtree(final)
            os.replace(tmp, final)
            built += 1
            print(f"ok    {e['id']}")
        finally:
            if tmp.exists():
                shutil.rmtree(tmp)
    print(f"{built} built, {failed} failed, {missing} without a snapshot -> {out}")
    return 1 if failed or missing else 0


def _cached(cache: Path, e: dict, sub: str, rec: dict) -> dict[str, bytes]:
    base = side_dir(cache, e, sub)
    if folders(rec):
        out: dict[str, bytes] = {}
        for folder in folders(rec):
            root = base / folder
            if root.is_dir():
                out.update({(Path(folder) / f.relative_to(root)).as_posix(): f.read_bytes()
                            for f in root.rglob("*") if f.is_file()})
        return out
    f = base / rec["path"]
    return {rec["path"]: f.read_bytes()} if f.is_file() else {}


def check(entries: list[dict], cache: Path) -> int:
    bad = 0
    for e in entries:
        problems = []
        for sub, rec in sides(e):
            problems += _expect(rec, _cached(cache, e, sub, rec))
        if problems:
            bad += 1
            print(f"FAIL  {e['id']}: " + "; ".join(problems))
        else:
            print(f"ok    {e['id']}")
    print(f"{len(entries) - bad} of {len(entries)} entries match the manifest in {cache}")
    return 1 if bad else 0


# ---------------------------------------------------------------- independent facts (PyYAML)
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
IGNORED_HEADERS = {"accept", "content-type", "authorization"}


def parse(data: bytes, name: str) -> Any:
    import yaml  # only for `facts`
    if name.endswith(".json") or data.lstrip()[:1] in (b"{", b"["):
        try:
            return json.loads(data)
        except ValueError:
            pass
    return yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def ids_digest(ids: list[str]) -> str:
    return sha256("\n".join(sorted(ids)).encode())


class _Resolver:
    def __init__(self, reader: Callable[[str], bytes]):
        self.reader, self.docs = reader, {}

    def doc(self, path: str) -> Any:
        if path not in self.docs:
            self.docs[path] = parse(self.reader(path), path)
        return self.docs[path]

    def follow(self, node: Any, path: str) -> tuple[Any, str]:
        for _ in range(50):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                break
            f, _, frag = node["$ref"].partition("#")
            if f:
                path = posixpath.normpath(posixpath.join(posixpath.dirname(path), f))
            node = self.doc(path)
            for part in (p for p in frag.split("/") if p):
                part = part.replace("~1", "/").replace("~0", "~")
                node = node[int(part)] if isinstance(node, list) else node[part]
        return node, path


def _trivial(s: dict) -> bool:
    """An object schema that names no property and combines nothing."""
    rest = {k for k in s if k not in ("description", "title", "additionalProperties", "type",
                                      "properties")}
    return not rest and not s.get("properties") and s.get("type", "object") == "object"


def openapi_facts(reader: Callable[[str], bytes], root: str) -> dict:
    """Operations under `paths` (methods get/put/post/delete/options/head/patch/trace; in 3.2
    also query and additionalOperations), their
    operationIds, and how many take inputs (a path/query/header/formData/body parameter other
    than Accept/Content-Type/Authorization headers and cookies, or a request body whose first
    media type has no schema (any body) or one that is not an empty object)."""
    r = _Resolver(reader)
    doc = r.doc(root)
    ops, levels = [], {}

    def note(level: str, node: Any) -> None:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and not node["$ref"].startswith("#"):
            levels[level] = levels.get(level, 0) + 1

    v32 = str(doc.get("openapi", "")).startswith("3.2")
    for p, item in (doc.get("paths") or {}).items():
        note("path-item", item)
        item, ipath = r.follow(item, root)
        if not isinstance(item, dict):
            continue
        # OpenAPI 3.2: `query` and the methods of `additionalOperations` are operations too
        found = [(m, item[m]) for m in METHODS + (("query",) if v32 else ()) if m in item]
        if v32 and isinstance(item.get("additionalOperations"), dict):
            found += [(m.lower(), o) for m, o in item["additionalOperations"].items()]
        for m, raw in found:
            note("operation", raw)
            op, opath = r.follow(raw, ipath)
            inputs = 0
            for plist, base in ((item.get("parameters") or [], ipath), (op.get("parameters") or [], opath)):
                for prm in plist:
                    note("parameter", prm)
                    prm, _ = r.follow(prm, base)
                    loc = prm.get("in")
                    if loc in ("path", "query", "formData", "body") or (
                            loc == "header" and str(prm.get("name", "")).lower() not in IGNORED_HEADERS):
                        inputs += 1
            if "requestBody" in op:
                note("request-body", op["requestBody"])
                body, bpath = r.follow(op["requestBody"], opath)
                for media in (body.get("content") or {}).values():
                    sch, _ = r.follow((media or {}).get("schema"), bpath)
                    if sch is None or (isinstance(sch, dict) and not _trivial(sch)):
                        inputs += 1
                    break
            for resp in (op.get("responses") or {}).values():
                note("response", resp)
            oid = op.get("operationId")
            ops.append((m, p, oid if isinstance(oid, str) and oid else None, inputs))
    oids = [o[2] for o in ops if o[2]]
    dups = sorted({o for o in oids if oids.count(o) > 1})
    missing = [f"{m.upper()} {p}" for m, p, oid, _ in ops if not oid]
    facts: dict = {
        "version": str(doc.get("swagger") or doc.get("openapi")),
        "operations": len(ops),
        "operation_ids": len(oids),
        "operation_ids_sha256": ids_digest(oids),
        "operations_with_inputs": sum(1 for o in ops if o[3]),
        "operations_with_inputs_ids_sha256": ids_digest([o[2] for o in ops if o[3] and o[2]]),
        "duplicate_operation_ids": dups,
        "operations_without_id": missing if len(missing) <= 40 else len(missing),
        "files_read": len(r.docs),
    }
    if len(ops) <= 60:
        facts["operation_id_list"] = sorted(oids)
    if levels:
        facts["external_refs_by_level"] = dict(sorted(levels.items()))
    if "swagger" not in doc and isinstance(doc.get("webhooks"), dict):
        facts["webhooks"] = len(doc["webhooks"])
    return facts


def tools_facts(kind: str, files: dict[str, bytes], path: str) -> dict:
    if kind == "mcp-snap-folder":
        tools = [json.loads(b) for p, b in sorted(files.items()) if p.endswith(".snap")]
        return {"tools": len(tools), "names": sorted(t["name"] for t in tools)}
    data = parse(files[path], path)
    tools = data["tools"] if isinstance(data, dict) and "tools" in data else data
    if kind == "mcp":
        return {
            "tools": len(tools), "names": [t.get("name") for t in tools],
            "with_input_schema": sum(1 for t in tools if isinstance(t.get("inputSchema"), dict)),
            "with_output_schema": sum(1 for t in tools if isinstance(t.get("outputSchema"), dict)),
            "top_level_keys": sorted(data) if isinstance(data, dict) else [],
            "schema_dialects": sorted({str(t["inputSchema"]["$schema"]) for t in tools
                                       if isinstance(t.get("inputSchema"), dict) and "$schema" in t["inputSchema"]}),
        }
    if kind == "docker-tools":
        return {"tools": len(tools), "names": [t["name"] for t in tools],
                "arguments": {t["name"]: [a["name"] for a in t.get("arguments", [])] for t in tools},
                "tools_without_arguments": sum(1 for t in tools if not t.get("arguments")),
                "with_input_schema": sum(1 for t in tools if isinstance(t.get("inputSchema"), dict))}
    if kind == "openai":
        return {"tools": len(tools), "names": [t["function"]["name"] for t in tools],
                "with_parameters": sum(1 for t in tools if isinstance(t["function"].get("parameters"), dict))}
    if kind == "anthropic":
        return {"tools": len(tools), "names": [t["name"] for t in tools],
                "with_input_schema": sum(1 for t in tools if isinstance(t.get("input_schema"), dict))}
    if kind == "openai-responses":
        return responses_facts(data, tools)
    if kind == "gemini":
        decls = [d for t in (tools if isinstance(tools, list) else [tools])
                 for d in (t.get("functionDeclarations") or t.get("function_declarations") or [])]
        return {"tools": len(decls), "names": [d["name"] for d in decls],
                "with_parameters": sum(1 for d in decls if isinstance(d.get("parameters"), dict))}
    return {"json_type": type(data).__name__,
            "top_level_keys": sorted(data) if isinstance(data, dict) else [],
            "items": len(data) if isinstance(data, list) else 0}


#: the ``type`` of an OpenAI Responses API tool that is a function or groups functions; every
#: other type is a hosted tool the platform runs (web_search, tool_search, mcp...)
_OPENAI_OWN = ("function", "namespace", "custom")


def responses_facts(data: Any, tools: list) -> dict:
    """A Responses API request or response (``{"tools": [...]}``) or its tools array: each
    entry's name as the API names it (a function's or custom tool's ``name``; a hosted tool by
    its ``type``, a hosted MCP server as ``mcp:<server_label>``; a namespace's functions in its
    place, ``<namespace>__<name>`` where the name is not unique), which are hosted (``server_tools``) or custom (``custom_tools``), the namespaces."""
    names, server, custom, spaces = [], [], [], []

    def one(t: dict) -> None:
        kind = t.get("type")
        body = t["function"] if isinstance(t.get("function"), dict) else t
        if kind in _OPENAI_OWN or "function" in t:
            names.append(body["name"])
            if kind == "custom":
                custom.append(body["name"])
            return
        name = t.get("name") if isinstance(t.get("name"), str) else (
            f"{kind}:{t['server_label']}" if isinstance(t.get("server_label"), str) else kind)
        names.append(name)
        server.append(name)

    members: list[tuple[int, str]] = []     # (index in names, namespace)
    for t in tools:
        if t.get("type") == "namespace":
            spaces.append(t["name"])
            for f in t["tools"]:
                members.append((len(names), t["name"]))
                one(f)
        else:
            one(t)
    # a namespace's function is called by namespace and name: where its name is not unique
    # among the array's tools, it is named <namespace>__<name>
    for i, ns in members:
        if names.count(names[i]) > 1:
            names[i] = f"{ns}__{names[i]}"
    return {"tools": len(names), "names": names, "server_tools": server,
            "custom_tools": custom, "namespaces": spaces,
            "top_level_keys": sorted(data) if isinstance(data, dict) else []}


def derive(entry: dict, sub: str, rec: dict, cache: Path) -> dict:
    kind = entry["side_kind"] if entry["kind"] == "pair" else entry["kind"]
    files = _cached(cache, entry, sub, rec)
    if kind in ("openapi", "swagger"):
        base = side_dir(cache, entry, sub)
        return openapi_facts(lambda p: (base / p).read_bytes(), rec["catalog"])
    if kind in ("bad-input",):
        return rec["facts"]          # not parseable by design
    return tools_facts(kind, files, rec.get("path", ""))


def facts(entries: list[dict], cache: Path) -> int:
    bad = 0
    for e in entries:
        for sub, rec in sides(e):
            got = derive(e, sub, rec, cache)
            want = rec["facts"]
            diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
            label = f"{e['id']}{'/' + sub if sub else ''}"
            if diff:
                bad += 1
                print(f"FAIL  {label}: facts differ in {', '.join(diff)}")
            else:
                print(f"ok    {label}")
    return 1 if bad else 0


# ---------------------------------------------------------------- cli
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    sp = ap.add_subparsers(dest="cmd", required=True)
    b = sp.add_parser("build", help="copy every entry's files out of the git snapshots")
    b.add_argument("--mirrors", type=Path, required=True, help="folder holding <owner>+<name>/repo git dirs")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("ids", nargs="*", help="only these entries")
    c = sp.add_parser("check", help="verify an existing cache against the manifest")
    c.add_argument("--cache", type=Path, required=True)
    c.add_argument("ids", nargs="*")
    f = sp.add_parser("facts", help="re-derive each entry's facts from the cache (PyYAML) and compare")
    f.add_argument("--cache", type=Path, required=True)
    f.add_argument("ids", nargs="*")
    sp.add_parser("repos", help="list the repositories whose snapshots the build needs")
    a = ap.parse_args(argv)
    entries = load_manifest(a.manifest)
    if getattr(a, "ids", None):
        unknown = set(a.ids) - {e["id"] for e in entries}
        if unknown:
            print(f"unknown entry id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        entries = [e for e in entries if e["id"] in a.ids]
    if a.cmd == "build":
        return build(entries, a.mirrors, a.out)
    if a.cmd == "check":
        return check(entries, a.cache)
    if a.cmd == "facts":
        return facts(entries, a.cache)
    for repo in sorted({e["repo"] for e in entries}):
        print(f"github:{repo}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
