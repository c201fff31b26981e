#!/usr/bin/env python3
"""Golden outputs: record what every command prints and writes on every corpus catalog, and
compare two recordings byte for byte.

    python scripts/golden.py record OUTDIR [--jobs 2] [--only SUBSTRING] [--python PY]
    python scripts/golden.py compare A B        # exit 1 when anything differs
    python scripts/golden.py list               # the cases, one a line

A recording holds one folder per case: ``cmd`` (the argument vectors, one a line), and for each
step ``N.stdout``, ``N.stderr``, ``N.rc`` and the files the step wrote (``files/...``). Catalogs
come from ``$TOOLCAT_SHARED/corpus`` (every OpenAPI spec, every neo spec, every mcp-context-cost
capture, the github-mcp-server folder, the OpenWOP catalogs) and from the repository's
``samples/``, plus a few hand-made inputs (bad input, the draft-07 ``$id``-beside-``$ref`` case).

Every case runs ``python -m toolcat`` in a fresh working directory ``/tmp/toolcat-golden/<case>``
(the same path in every recording, so paths printed in outputs compare equal), with a fixed
environment (``NO_COLOR=1``, ``COLUMNS=120``, no config file upwards). The samples are copied to
``/tmp/toolcat-golden/_samples`` for the same reason. Use it before and after a change that
should not change behaviour:

    git archive OLD | tar -x -C /tmp/old           # the old commit's files
    python scripts/golden.py record /work/golden/before --pythonpath /tmp/old/src
    python scripts/golden.py record /work/golden/after      # at the new one
    python scripts/golden.py compare /work/golden/before /work/golden/after
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# TOOLCAT_GOLDEN_SCRATCH: another folder, for two recordings at once (each case's folder is
# fixed so that two recordings name the same paths)
SCRATCH = Path(os.environ.get("TOOLCAT_GOLDEN_SCRATCH") or "/tmp/toolcat-golden")
TARGETS = ("mcp", "openwop", "openai", "anthropic")
VIEWS = ("compact", "standard")
PROFILES = ("openwop-compact", "openai-strict", "anthropic", "gemini")

# Hand-made inputs: (file name, content).
EXTRA_INPUTS = {
    # issue 11: draft-07 ignores an $id beside a $ref; lint and project must agree.
    "draft07-id-ref.tools.json": (
        '{"tools":[{"name":"t","description":"d","inputSchema":{"$schema":'
        '"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":'
        '{"$id":"http://other.example/x","$ref":"#/definitions/b"}},"definitions":'
        '{"b":{"type":"string"}}}}]}\n'
    ),
    "bad-json.tools.json": '{"tools": [ {"name": "x", } ]}\n',
    "bad-yaml.openapi.yaml": "openapi: 3.0.0\ninfo:\n  title: x\n   version: 1\npaths: {}\n",
    "not-a-catalog.json": '{"hello": "world"}\n',
    "empty.json": "",
    "dup-keys.json": '{"tools": [], "tools": []}\n',
}


@dataclass
class Case:
    name: str
    steps: list[list[str]] = field(default_factory=list)
    stdin: list[str | None] = field(default_factory=list)

    def add(self, *argv: str, stdin: str | None = None) -> Case:
        self.steps.append(list(argv))
        self.stdin.append(stdin)
        return self


def shared() -> Path:
    return Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared")).resolve()


def catalogs() -> list[tuple[str, Path]]:
    """(case-name stem, path) of every catalog."""
    corpus = shared() / "corpus"
    out: list[tuple[str, Path]] = []
    for sub, pattern in (("openapi", "*"), ("neo", "**/*.yaml"), ("mcp-context-cost", "*.json"),
                         ("openwop", "*.json")):
        for p in sorted((corpus / sub).glob(pattern)):
            if p.is_file() and p.suffix in (".json", ".yaml", ".yml"):
                out.append((f"{sub}/{p.relative_to(corpus / sub)}", p))
    if (corpus / "github-mcp-server").is_dir():
        out.append(("github-mcp-server", corpus / "github-mcp-server"))
    for p in sorted((SCRATCH / "_samples").glob("*")):
        if p.suffix in (".json", ".yaml", ".yml"):
            out.append((f"samples/{p.name}", p))
    for p in sorted((SCRATCH / "_extra").glob("*")):
        out.append((f"extra/{p.name}", p))
    return out


def prepare() -> None:
    """The fixed-path copies of the samples and the hand-made inputs."""
    for sub in ("_samples", "_extra"):
        shutil.rmtree(SCRATCH / sub, ignore_errors=True)
        (SCRATCH / sub).mkdir(parents=True)
    for p in sorted((REPO / "samples").iterdir()):
        if p.suffix in (".json", ".yaml", ".yml"):
            shutil.copyfile(p, SCRATCH / "_samples" / p.name)
    for name, text in EXTRA_INPUTS.items():
        (SCRATCH / "_extra" / name).write_text(text, encoding="utf-8")


def cases() -> list[Case]:
    out: list[Case] = []
    glob = Case("global")
    glob.add("--version").add("--help").add("rule", "--all").add("rule", "--all", "-f", "json")
    glob.add("rule", "--all", "-f", "markdown").add("rule", "SC302").add("rule", "XX999")
    for cmd in ("tools", "lint", "project", "measure", "diff-toolids", "rule"):
        glob.add(cmd, "--help")
    out.append(glob)
    out.append(Case("errors").add("lint", "/nonexistent/x.json").add("project", "--to", "nope",
               "/nonexistent/x.json").add("measure", "--tokenizer", "nope", "x.json"))
    for stem, path in catalogs():
        p = str(path)
        base = stem.replace("/", "__")
        c = Case(f"{base}__read")
        c.add("tools", p).add("tools", "--format", "json", p)
        c.add("lint", p).add("lint", "--format", "json", p)
        for prof in PROFILES:
            c.add("lint", "--format", "json", "--profile", prof, p)
        out.append(c)
        for target in TARGETS:
            for view in VIEWS:
                c = Case(f"{base}__project__{target}__{view}")
                c.add("project", p, "--to", target, "--view", view, "-o", "out.json",
                      "--report", "report.json", "--handbook", "handbook.json")
                if view == "compact":
                    c.add("lint", "--format", "json", "out.json")
                out.append(c)
        c = Case(f"{base}__measure")
        c.add("measure", "--format", "json", p)
        for target in TARGETS:
            c.add("measure", "--format", "json", "--to", target, p)
        c.add("measure", p)
        out.append(c)
        c = Case(f"{base}__diff")
        for target in TARGETS:
            c.add("diff-toolids", "--format", "json", "--to", target, p)
        c.add("diff-toolids", p)
        out.append(c)
    # stdin and multi-input runs
    git = str(SCRATCH / "_samples" / "git.tools.json")
    pet = str(SCRATCH / "_samples" / "petstore.openapi.yaml")
    out.append(Case("stdin").add("tools", "-", stdin=git).add("lint", "-f", "json", "-", stdin=git)
               .add("project", "-", stdin=git).add("measure", "-f", "json", "-", stdin=pet))
    out.append(Case("multi").add("lint", "-f", "json", git, pet)
               .add("measure", "-f", "json", git, pet).add("diff-toolids", git, pet)
               .add("project", "--merge", git, str(SCRATCH / "_samples" / "file-system.openai.json")))
    return out


def run_case(case: Case, outdir: Path, python: str, pythonpath: str | None) -> tuple[str, float]:
    start = time.monotonic()
    work = SCRATCH / case.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    dest = outdir / case.name
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "COLUMNS": "120",
        "LINES": "50",
        "PYTHONHASHSEED": "0",
        "TERM": "dumb",
    }
    if "TOOLCAT_SHARED" in os.environ:
        env["TOOLCAT_SHARED"] = os.environ["TOOLCAT_SHARED"]
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with open(dest / "cmd", "w", encoding="utf-8") as f:
        for argv in case.steps:
            f.write(" ".join(argv) + "\n")
    for i, (argv, stdin) in enumerate(zip(case.steps, case.stdin)):
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
            proc = subprocess.run([python, "-m", "toolcat", *argv], cwd=work, env=env,
                                  stdin=inp, capture_output=True, timeout=900)
        (dest / f"{i}.stdout").write_bytes(proc.stdout)
        (dest / f"{i}.stderr").write_bytes(proc.stderr)
        (dest / f"{i}.rc").write_text(f"{proc.returncode}\n")
        for p in sorted(work.rglob("*")):
            if p.is_file():
                target = dest / "files" / str(i) / p.relative_to(work)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(p, target)
    shutil.rmtree(work, ignore_errors=True)
    return case.name, time.monotonic() - start


def record(args: argparse.Namespace) -> int:
    if not (shared() / "corpus").is_dir():
        print(f"golden.py: no corpus at {shared() / 'corpus'} (set TOOLCAT_SHARED)", file=sys.stderr)
        return 2
    prepare()
    outdir = Path(args.outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    todo = [c for c in cases() if not args.only or any(s in c.name for s in args.only)]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src"],
                           capture_output=True, text=True).stdout.strip()
    (outdir / "_meta").write_text(f"commit {head}{' (src modified)' if dirty else ''}\n"
                                  f"python {args.python}\npythonpath {args.pythonpath}\n"
                                  f"cases {len(todo)}\n")
    start = time.monotonic()
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_case, c, outdir, args.python, args.pythonpath) for c in todo]
        for fut in concurrent.futures.as_completed(futures):
            name, secs = fut.result()
            done += 1
            if secs > 10 or args.verbose:
                print(f"[{done}/{len(todo)}] {name} {secs:.1f}s", file=sys.stderr)
    print(f"recorded {len(todo)} cases in {outdir} ({time.monotonic() - start:.0f}s)",
          file=sys.stderr)
    return 0


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in root.rglob("*")
            if p.is_file() and p.name != "_meta"}


def _first_difference(a: bytes, b: bytes) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = a[:n].count(b"\n") + 1
    ctx_a = a[max(0, n - 40):n + 60]
    ctx_b = b[max(0, n - 40):n + 60]
    return (f"first difference at byte {n} (line {line}; sizes {len(a)} / {len(b)})\n"
            f"    A: {ctx_a!r}\n    B: {ctx_b!r}")


def compare(args: argparse.Namespace) -> int:
    a_root, b_root = Path(args.a), Path(args.b)
    a, b = _files(a_root), _files(b_root)
    if args.only:
        a = {k: v for k, v in a.items() if any(s in k for s in args.only)}
        b = {k: v for k, v in b.items() if any(s in k for s in args.only)}
    differences = 0
    for key in sorted(a.keys() - b.keys()):
        print(f"only in A: {key}")
        differences += 1
    for key in sorted(b.keys() - a.keys()):
        print(f"only in B: {key}")
        differences += 1
    for key in sorted(a.keys() & b.keys()):
        da, db = a[key].read_bytes(), b[key].read_bytes()
        if da != db:
            differences += 1
            if differences <= args.max:
                print(f"differs: {key}\n  {_first_difference(da, db)}")
    common = len(a.keys() & b.keys())
    if differences:
        print(f"{differences} differences ({common} files compared)")
        return 1
    digest = hashlib.sha256()
    for key in sorted(a):
        digest.update(key.encode() + b"\0" + a[key].read_bytes())
    print(f"identical: {common} files, sha256 {digest.hexdigest()[:16]}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run every case and store its outputs in OUTDIR")
    rec.add_argument("outdir")
    rec.add_argument("--jobs", type=int, default=2)
    rec.add_argument("--only", action="append", help="cases whose name contains this")
    rec.add_argument("--python", default=sys.executable)
    rec.add_argument("--pythonpath", help="PYTHONPATH for the runs, e.g. the src/ of an exported "
                     "older commit (git archive COMMIT | tar -x -C DIR)")
    rec.add_argument("-v", "--verbose", action="store_true")
    cmp_ = sub.add_parser("compare", help="print the differences of two recordings")
    cmp_.add_argument("a")
    cmp_.add_argument("b")
    cmp_.add_argument("--only", action="append", help="paths that contain this")
    cmp_.add_argument("--max", type=int, default=50, help="differences to describe")
    sub.add_parser("list", help="print the case names")
    args = parser.parse_args()
    if args.command == "record":
        return record(args)
    if args.command == "compare":
        return compare(args)
    prepare()
    for c in cases():
        print(c.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
