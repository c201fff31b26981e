"""toolcat benchmark harness: toolcat against parse floors and peer linters, in one run.

    python bench/run.py [--repeat N] [--json out.json] [--quick] [--only lint,measure]
                        [--targets openai,box] [--shared DIR] [--redocly PATH] [--spectral PATH]

Every figure is a whole-process invocation (a fresh interpreter or Node process, as a user or
pre-commit runs it): wall time is the median of N runs (after one untimed warm-up run),
peak RSS is that process's own high-water mark (``wait4`` rusage, the maximum over its runs;
children are forked by a small spawner so the harness's own memory never counts).
A cell whose first run takes long gets fewer runs (``--budget`` seconds per cell).

Rows: ``toolcat tools|lint|project|measure`` (``python -m toolcat`` from this interpreter) on
each target; floors (``python -c pass``, ``toolcat --version``, the fastest JSON and YAML parse
of the same files in a fresh process); peers (``redocly lint``, ``spectral lint`` with the
``spectral:oas`` ruleset) where installed. Then the scaling ratio of the synthetic series,
an in-process schema-walk micro-benchmark (ns per JSON value), and the targets of issue 7
with PASS/FAIL. A toolcat command that fails (not built yet, or broken) is recorded as
``failed (exit N)`` and the run goes on.

Exit code: 0 when the run completed (whatever the PASS/FAIL lines say), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
import gen_catalog  # noqa: E402

COMMANDS = ("tools", "lint", "project", "measure", "diff-toolids")
GROUPS = COMMANDS + ("diff", "base", "floors", "peers", "walk")
OK_CODES = (0, 1)  # 1 = findings / budget exceeded: the command ran to the end
SYNTH_ENV = {"TOOLCAT_MAX_FILE_SIZE": str(1 << 33)}  # the 50k+ catalogs are over the 64 MiB default
REDOCLY_ENV = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
SPECTRAL_RULESET = 'extends: ["spectral:oas"]\n'

# Token peers (issue 17: "measure of the 69 captures at least as fast as the fastest peer that
# counts exact o200k tokens"). Each runs once over all the captures in its own most efficient
# form (one process; the input prepared in the cache the way its docs take it). What each one
# counts is read from its own JSON report, not assumed: total, tokenizer, whether it says it
# approximates.
TOKEN_PEERS = ("toolism", "mcp-token-lint", "tool-tax")

# Issue 7 limits
LINT_VS_REDOCLY = 0.35
LINT_VS_FLOOR = 3.0
RSS_VS_REDOCLY = 0.5
SMALL_LINT_S = 0.150
VERSION_S = 0.050
MEASURE_NODE_S = 1.39          # mcp-context-cost's Node tool on the 69 captures (baselines note)
MEASURE_S = min(0.7, MEASURE_NODE_S / 2)
SCALING_MAX = 55.0
DIFF_VS_LINT = 2.0             # issue 16: diffing two versions of the largest corpus spec
# Issue 17 limits (toolcat at scale)
LARGE = (("stripe", "stripe-spec3-2023-09/openapi/spec3.yaml"),      # the outside cache
         ("k8s", "kubernetes-swagger/kubernetes/swagger.json.unprocessed"),
         ("github-rest", "github-rest-2020/descriptions/api.github.com/api.github.com.json"),
         ("pagerduty", "pagerduty-rest/reference/REST/openapiv3.json"))
# Issue 35 limits (work proportional to what is distinct), CPU time ratios
PROJECT35_KEYS = ("stripe", "k8s", "github-rest", "openai", "box")
PROJECT35_VS_TOOLS = 3.0       # project and measure (default options) vs `tools` on the spec
LINT35_KEYS = ("openai", "box", "twilio", "stripe", "k8s", "pagerduty")
LINT35_VS_REDOCLY = 0.25
LINT17_KEYS = ("openai", "box", "twilio", "stripe", "k8s")
LINT17_VS_REDOCLY = 0.25
PROJECT_VS_FLOOR = 5.0         # project and measure on the Stripe-sized spec
PROJECT_RSS_MIB = 300
TOOLIDS_VS_TOOLS = 1.5         # diff-toolids (one catalog) vs `tools` on the same input
MILLION_RSS_MIB = 2048         # lint and measure of 1,000,000 tools
DIFF_TARGET = "openai"         # ... takes no more than twice a lint of it
WALK_NS = 200.0                # "near the measured floor, about 200 ns per value"
WALK_SLACK = 1.5               # near = at most 1.5x max(200 ns, this run's bare-walk floor)


# --------------------------------------------------------------------------- data

@dataclass
class Target:
    key: str
    label: str
    paths: list[str]                  # arguments given to toolcat
    files: list[str]                  # the files those arguments read (for parse floors)
    syntax: str                       # json | yaml | mixed
    openapi: bool = False             # peers apply
    corpus: bool = False              # a real corpus file (spectral runs on these only)
    synthetic_n: int | None = None
    env: dict = field(default_factory=dict)
    project_args: list[str] = field(default_factory=list)   # e.g. --duplicate-ids rename

    @property
    def size(self) -> int:
        return sum(os.path.getsize(f) for f in self.files)


@dataclass
class Cell:
    group: str                        # toolcat | floor | peer | base
    command: str
    target: str
    argv: list[str]
    status: str = "ok"                # ok | failed (exit N) | absent | timeout | skipped
    runs: int = 0
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)   # user + system seconds per run
    cpu_s: float | None = None
    rss_kib: int | None = None
    median_s: float | None = None
    exit_codes: list[int] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.median_s is not None


# --------------------------------------------------------------------------- running

# The harness's own memory must not leak into a child's figure: on Linux a child's ru_maxrss
# starts from the high-water mark of the memory image it was forked from (the exec keeps the
# larger of the two), so a child forked from this process, after it generated the 50k catalog,
# reports at least that much. Children are therefore forked by a small spawner process started
# at the beginning of the run (before anything large is built): it forks, execs, waits and
# reports (wall, status, ru_maxrss) over a pipe.
_SPAWNER_CODE = r"""
import json, os, signal, sys, threading, time
rd, wr = sys.stdin.buffer, sys.stdout.buffer
for line in rd:
    job = json.loads(line)
    err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0); os.dup2(null, 1); os.dup2(err, 2)
            os.chdir(job["cwd"])
            os.execvpe(job["argv"][0], job["argv"], job["env"])
        finally:
            os._exit(127)
    os.close(err)
    timer = threading.Timer(job["timeout"], os.kill, (pid, signal.SIGKILL))
    timer.start()
    _pid, status, ru = os.wait4(pid, 0)
    timer.cancel()
    wall = time.perf_counter() - t0
    wr.write((json.dumps([wall, os.waitstatus_to_exitcode(status), ru.ru_maxrss,
                          ru.ru_utime + ru.ru_stime]) + "\n").encode())
    wr.flush()
"""


class Spawner:
    """A small long-lived process that runs each measured command (see _SPAWNER_CODE)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", _SPAWNER_CODE],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()

    def run(self, argv: list[str], env: dict, timeout: float, cwd: str, stderr: str):
        job = {"argv": argv, "env": env, "timeout": timeout, "cwd": cwd, "stderr": stderr}
        with self.lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError("bench: the spawner process died")
        wall, code, rss, cpu = json.loads(reply)
        return float(wall), int(code), int(rss), float(cpu)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


_SPAWNER: Spawner | None = None


def spawner() -> Spawner:
    """The run's spawner, started on first use: call it early (main does, before the targets)."""
    global _SPAWNER
    if _SPAWNER is None:
        _SPAWNER = Spawner()
    return _SPAWNER


def run_once(argv: list[str], env: dict, timeout: float, cwd: str
             ) -> tuple[float, int, int, str, float]:
    """(wall seconds, exit code, peak RSS KiB of that process, stderr tail, CPU seconds of
    it and the children it waited for: user + system, what a loaded machine inflates less)."""
    if shutil.which(argv[0], path=env.get("PATH")) is None:
        raise FileNotFoundError(f"no such program: {argv[0]}")
    fd, err_path = tempfile.mkstemp(prefix="toolcat-bench-", suffix=".err")
    os.close(fd)
    try:
        wall, code, rss, cpu = spawner().run(argv, env, timeout, cwd, err_path)
        with open(err_path, "rb") as f:
            f.seek(max(0, os.path.getsize(err_path) - 4000))
            tail = f.read().decode("utf-8", "replace")
    finally:
        os.unlink(err_path)
    if code < 0 and wall >= timeout:
        code = -9999
    return wall, code, rss, tail, cpu


def _first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower():
            return ln[:200]
    return lines[-1][:200] if lines else ""


class Runner:
    def __init__(self, args: argparse.Namespace) -> None:
        self.repeat = args.repeat
        self.warmup = args.warmup
        self.budget = args.budget
        self.timeout = args.timeout
        self.verbose = not args.quiet
        base = dict(os.environ)
        # PYTHONDONTWRITEBYTECODE: a source tree would recompile every module on every run,
        # which an installed toolcat (pip compiles at install) never does; the warm-up run
        # writes the bytecode instead.
        for k in ("FORCE_COLOR", "CLICOLOR_FORCE", "PYTHONPROFILEIMPORTTIME",
                  "PYTHONDONTWRITEBYTECODE"):
            base.pop(k, None)
        base["NO_COLOR"] = "1"
        self.base_env = base

    def measure(self, cell: Cell, env: dict | None = None, ok_codes=OK_CODES) -> Cell:
        self.measure_group([(cell, env, ok_codes)])
        return cell

    def measure_group(self, items: list[tuple[Cell, dict | None, tuple]]) -> None:
        """Time the cells of one target round-robin (run 1 of each, then run 2 of each...).

        Interleaving spreads any drift of the machine's load over all the cells that are
        compared with each other (toolcat, its parse floor, the peers), instead of letting it
        land on whichever cell happened to run during a busy minute.
        """
        states = []
        for cell, env, ok_codes in items:
            e = dict(self.base_env)
            if env:
                e.update(env)
            states.append({"cell": cell, "env": e, "ok": ok_codes, "spent": 0.0,
                           "samples": [], "done": False})
        for i in range(self.repeat + self.warmup):
            for st in states:
                if st["done"]:
                    continue
                cell: Cell = st["cell"]
                try:
                    wall, code, rss, tail, cpu = run_once(cell.argv, st["env"], self.timeout,
                                                          str(REPO))
                except FileNotFoundError as exc:
                    cell.status, cell.error = "absent", str(exc)
                    st["done"] = True
                    continue
                st["spent"] += wall
                cell.exit_codes.append(code)
                if code == -9999:
                    cell.status = f"timeout ({self.timeout:.0f} s)"
                    st["done"] = True
                    continue
                if code not in st["ok"]:
                    cell.status = f"failed (exit {code})"
                    cell.error = _first_error_line(tail)
                    st["done"] = True
                    continue
                warm = i < self.warmup and wall < 5.0  # a long run is its own warm-up: keep it
                if not warm:
                    st["samples"].append((wall, rss, cpu))
                if len(st["samples"]) >= self.repeat or (
                        st["samples"] and st["spent"] + wall > self.budget):
                    st["done"] = True
        for st in states:
            cell, samples = st["cell"], st["samples"]
            if samples:
                cell.walls = [w for w, _r, _c in samples]
                cell.cpus = [c for _w, _r, c in samples]
                cell.runs = len(samples)
                cell.median_s = statistics.median(cell.walls)
                cell.cpu_s = statistics.median(cell.cpus)
                cell.rss_kib = max(r for _w, r, _c in samples)
                if cell.status != "ok":  # failed after some good runs: report the flake
                    cell.error = (cell.error or "") + " (after good runs)"
            elif cell.status == "ok":
                cell.status = "failed (no run)"
            if self.verbose:
                msg = (f"{fmt_s(cell.median_s)}  {fmt_mib(cell.rss_kib)}  cpu {fmt_s(cell.cpu_s)}"
                       f"  ({cell.runs} runs)"
                       if cell.ok else cell.status + (f": {cell.error}" if cell.error else ""))
                sys.stderr.write(f"  {cell.command:<18} {cell.target:<14} {msg}\n")


# --------------------------------------------------------------------------- targets

def catalog_files(folder: Path) -> list[str]:
    exts = (".json", ".yaml", ".yml", ".snap")
    return [str(p) for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in exts]


def captures(folder: Path) -> list[str]:
    """The mcp-context-cost files that carry a ``rawToolsCapture`` array."""
    out = []
    for p in sorted(folder.glob("*.json")):
        try:
            doc = json.loads(p.read_bytes())
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("rawToolsCapture"), list):
            out.append(str(p))
    return out


def syntax_of(path: str) -> str:
    return "yaml" if path.endswith((".yaml", ".yml")) else "json"


def build_targets(args: argparse.Namespace, shared: Path | None, notes: list[str]) -> list[Target]:
    targets: list[Target] = []
    corpus = shared / "corpus" if shared else None
    if corpus is None or not corpus.is_dir():
        notes.append(f"corpus ABSENT (looked in {corpus or '(none)'}): the corpus targets are "
                     "skipped; give --shared DIR or set TOOLCAT_SHARED")
        corpus = None

    if corpus and not args.quick:
        for key, name in (("openai", "openai.openapi.yaml"), ("box", "box.openapi.json"),
                          ("twilio", "twilio-api-v2010.openapi.yaml"),
                          ("sendgrid", "sendgrid-v3.swagger2.yaml")):
            p = corpus / "openapi" / name
            if p.exists():
                targets.append(Target(key, name, [str(p)], [str(p)], syntax_of(name),
                                      openapi=True, corpus=True))
            else:
                notes.append(f"corpus file absent: {p}")
        gh = corpus / "github-mcp-server"
        if gh.is_dir():
            targets.append(Target("github", "github-mcp-server/", [str(gh)], catalog_files(gh),
                                  "json"))
        else:
            notes.append(f"corpus folder absent: {gh}")
        mcc = corpus / "mcp-context-cost"
        caps = captures(mcc) if mcc.is_dir() else []
        if caps:
            # several captures are versions of one server (brave-search and its legacy one):
            # their ids repeat, which project refuses unless told, as a user must tell it
            targets.append(Target("captures", f"{len(caps)} captures", caps, caps, "json",
                                  project_args=["--duplicate-ids", "rename"]))
        else:
            notes.append(f"no mcp-context-cost captures under {mcc}")

    outside = Path(args.outside or os.environ.get("TOOLCAT_OUTSIDE") or REPO.parent / "outside")
    if not args.quick:
        for key, rel in LARGE:
            p = outside / rel
            if p.exists():   # spectral is not run on these (corpus=False): minutes per run
                targets.append(Target(key, rel.split("/")[0], [str(p)], [str(p)],
                                      "json" if key == "k8s" else syntax_of(rel), openapi=True))
            else:
                notes.append(f"large spec absent: {p} (tests/outside/manifest.toml; "
                             "TOOLCAT_OUTSIDE or --outside DIR)")

    sdir = REPO / "samples"
    samples = sorted(sdir.glob("*.json"), key=lambda p: (p.name != "git.tools.json",
                                                          "broken" in p.name, p.name)) \
        if sdir.is_dir() else []
    if samples:  # the README's first sample (a real 12-tool MCP server), never the broken one
        small = samples[0]
        targets.append(Target("small", f"samples/{small.name}", [str(small)], [str(small)], "json"))
    elif corpus and (corpus / "mcp-context-cost" / "time.json").exists():
        p = corpus / "mcp-context-cost" / "time.json"
        targets.append(Target("small", "mcp-context-cost/time.json", [str(p)], [str(p)], "json"))
    else:
        notes.append("no small catalog (samples/*.json or the corpus' time.json): small case skipped")

    cache = Path(args.cache) if args.cache else None
    for n in args.sizes:
        t0 = time.perf_counter()
        p = str(gen_catalog.ensure("mcp", n, args.seed, cache))
        dt = time.perf_counter() - t0
        if dt > 1 and not args.quiet:
            sys.stderr.write(f"generated {p} in {dt:.1f} s\n")
        targets.append(Target(f"synth-{_k(n)}", f"synthetic {n:,} tools", [p], [p], "json",
                              synthetic_n=n, env=dict(SYNTH_ENV)))
    for n in args.oas_sizes:
        p = str(gen_catalog.ensure("openapi", n, args.seed, cache))
        targets.append(Target(f"synth-oas-{_k(n)}", f"synthetic OpenAPI {n:,} ops", [p], [p],
                              "yaml", openapi=True, env=dict(SYNTH_ENV)))
    if args.targets:
        want = set(args.targets)
        unknown = want - {t.key for t in targets}
        if unknown:
            notes.append(f"unknown or unavailable targets: {', '.join(sorted(unknown))}")
        targets = [t for t in targets if t.key in want]
    return targets


def _k(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


# --------------------------------------------------------------------------- floors, peers

PARSERS = {
    "json": [
        ("json", "import json,sys\nfor f in sys.argv[1:]:\n json.load(open(f,'rb'))"),
        ("orjson", "import orjson,sys\nfor f in sys.argv[1:]:\n orjson.loads(open(f,'rb').read())"),
    ],
    "yaml": [
        ("yaml_rs", "import yaml_rs,sys\nfor f in sys.argv[1:]:\n"
                    " yaml_rs.loads(open(f,encoding='utf-8').read(),parse_datetime=False)"),
        ("pyyaml-c", "import yaml,sys\nfor f in sys.argv[1:]:\n"
                     " yaml.load(open(f,'rb'),Loader=yaml.CSafeLoader)"),
    ],
}


def importable(stmt: str) -> bool:
    return subprocess.run([sys.executable, "-c", stmt], capture_output=True).returncode == 0


def find_peer(name: str, given: str | None, notes: list[str], extra: str | None = None,
              ) -> str | None:
    if given:
        p = shutil.which(given) or (given if os.access(given, os.X_OK) else None)
        if not p:
            notes.append(f"{name}: --{name} {given} is not an executable")
        return p
    p = (shutil.which(name, path=extra) if extra else None) or shutil.which(name)
    if not p:
        how = "--peer-path DIR" if name in TOKEN_PEERS else f"--{name} PATH"
        notes.append(f"{name} ABSENT (not on PATH; install it or give {how})")
    return p


def peer_version(exe: str, env: dict) -> str:
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                           env={**os.environ, **env})
        return r.stdout.strip().splitlines()[0] if r.stdout.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# --------------------------------------------------------------------------- token peers

def tiktoken_cache(folder: Path, shared: Path | None) -> Path | None:
    """A TIKTOKEN_CACHE_DIR holding o200k/cl100k from ../shared/tokenizers (no network)."""
    import gzip
    import hashlib

    src = shared / "tokenizers" if shared else None
    if src is None or not src.is_dir():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("o200k_base", "cl100k_base"):
        gz = src / f"{name}.tiktoken.gz"
        if not gz.is_file():
            continue
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        out = folder / hashlib.sha1(url.encode()).hexdigest()
        if not out.exists():
            gen_catalog.write_atomic(out, gzip.decompress(gz.read_bytes()))
    return folder


def token_peer_inputs(caps: list[str], folder: Path) -> dict[str, str]:
    """The 69 captures as each peer takes them: one MCP tools file (toolism), one
    {server: tools} file (mcp-token-lint), a folder of MCP tools files (tool-tax)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_server = {}
    for f in caps:
        by_server[Path(f).stem] = json.loads(Path(f).read_bytes())["rawToolsCapture"]
    every = [t for tools in by_server.values() for t in tools]
    one = folder / "all.tools.json"
    gen_catalog.write_atomic(one, json.dumps({"tools": every}).encode())
    servers = folder / "by-server.json"
    gen_catalog.write_atomic(servers, json.dumps(by_server).encode())
    each = folder / "captures"
    each.mkdir(exist_ok=True)
    for name, tools in by_server.items():
        gen_catalog.write_atomic(each / f"{name}.json", json.dumps({"tools": tools}).encode())
    return {"one": str(one), "servers": str(servers), "folder": str(each)}


def token_peer_argv(name: str, exe: str, inputs: dict[str, str], report: str) -> list[str]:
    if name == "toolism":
        return [exe, "measure", inputs["one"], "-f", "json", "-o", report]
    if name == "mcp-token-lint":   # --json goes to stdout: a shell keeps it for the count
        return ["/bin/sh", "-c", 'exec "$0" check --tools-json "$1" --json > "$2"', exe,
                inputs["servers"], report]
    return [exe, "scan", inputs["folder"], "--format", "json", "--out", report]


def token_peer_count(name: str, report: str) -> dict:
    """{tokens, tokenizer, approximate} from the peer's own report."""
    try:
        doc = json.loads(Path(report).read_bytes())
    except (OSError, ValueError) as exc:
        return {"error": f"no readable report: {exc}"}
    if name in ("toolism", "mcp-token-lint"):   # the same three fields in both reports
        return {"tokens": doc.get("total_tokens"), "tokenizer": doc.get("tokenizer"),
                "approximate": bool(doc.get("approximate"))}
    summ = doc.get("summary", {})
    return {"tokens": summ.get("total_tax_tokens"), "tokenizer": "estimate (tool-tax heuristic)",
            "approximate": True}


def exact_captures_tokens(caps: list[str]) -> int:
    """The published o200k totals of the captures (mcp-context-cost's methodology: the
    canonical JSON of each tools array), which toolcat measure reproduces."""
    return sum(int(json.loads(Path(f).read_bytes()).get("totalTokens") or 0) for f in caps)


# --------------------------------------------------------------------------- report

def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 10:
        return f"{s * 1000:,.1f} ms"
    return f"{s:,.2f} s"


def fmt_mib(kib: int | None) -> str:
    return "-" if kib is None else f"{kib / 1024:,.0f} MiB"


def fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def ratio(a: Cell | None, b: Cell | None) -> float | None:
    """``a`` over ``b``: their median CPU times (user + system of the process and its
    children) where both have one, else their median wall times."""
    if a is None or b is None or not a.ok or not b.ok or not b.median_s:
        return None
    if a.cpu_s and b.cpu_s:
        return a.cpu_s / b.cpu_s
    return a.median_s / b.median_s


def table(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for ln in Path("/proc/meminfo").read_text().splitlines():
            if ln.startswith("MemTotal"):
                mem = int(ln.split()[1]) // 1024
    except OSError:
        pass
    commit = None
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "mem_mib": mem, "os": platform.platform(),
            "loadavg": load,
            "python": platform.python_version(), "executable": sys.executable, "commit": commit}


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per cell [5; quick: 1]")
    ap.add_argument("--warmup", type=int, default=None, help="untimed runs first [1; quick: 0]")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds per cell before cutting the repeats short [60]")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds per process [300]; a command that times out on a synthetic "
                         "catalog is not run on the larger ones")
    ap.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: tiny synthetic catalogs and the small case, no peers")
    ap.add_argument("--only", help=f"comma list of groups: {','.join(GROUPS)}")
    ap.add_argument("--targets", help="comma list of target keys (openai,box,twilio,sendgrid,"
                                      "github,captures,small,synth-1k,...)")
    ap.add_argument("--shared", help="the shared folder holding corpus/ [$TOOLCAT_SHARED or "
                                     "../shared]")
    ap.add_argument("--sizes", help="synthetic MCP series [1000,10000,50000; quick: 20,200]")
    ap.add_argument("--oas-sizes", help="synthetic OpenAPI sizes [1000,5000; quick: none]")
    ap.add_argument("--seed", type=int, default=gen_catalog.DEFAULT_SEED)
    ap.add_argument("--cache", help="folder for generated catalogs [bench/.cache]")
    ap.add_argument("--outside", help="the outside corpus cache (stripe, k8s) [$TOOLCAT_OUTSIDE, else ../outside]")
    ap.add_argument("--redocly", help="redocly executable [redocly on PATH]")
    ap.add_argument("--spectral", help="spectral executable [spectral on PATH]")
    ap.add_argument("--peers", default="redocly,spectral," + ",".join(TOKEN_PEERS),
                    help="which peers to run when installed [redocly,spectral,"
                         + ",".join(TOKEN_PEERS) + "]")
    ap.add_argument("--peer-path", metavar="DIRS",
                    help="extra folders (os.pathsep list) searched for peers before PATH, e.g. "
                         "a venv's bin holding toolism, mcp-token-lint, tool-tax")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    a = ap.parse_args(argv)
    a.repeat = a.repeat if a.repeat is not None else (1 if a.quick else 5)
    a.warmup = a.warmup if a.warmup is not None else (0 if a.quick else 1)
    if a.repeat < 1 or a.warmup < 0:
        ap.error("--repeat must be >= 1 and --warmup >= 0")

    def ints(s: str | None, default: list[int]) -> list[int]:
        if s is None:
            return default
        try:
            return [int(x) for x in s.split(",") if x.strip()]
        except ValueError:
            ap.error(f"expected a comma list of integers, got {s!r}")
        return default

    a.sizes = ints(a.sizes, [20, 200] if a.quick else [1000, 10000, 50000])
    a.oas_sizes = ints(a.oas_sizes, [] if a.quick else [1000, 5000])
    a.only = set(a.only.split(",")) if a.only else set(GROUPS)
    bad = a.only - set(GROUPS)
    if bad:
        ap.error(f"--only: unknown group(s) {', '.join(sorted(bad))} (known: {', '.join(GROUPS)})")
    if a.quick:
        a.only.discard("peers")
    a.targets = [t for t in a.targets.split(",") if t] if a.targets else None
    a.peers = {p for p in a.peers.split(",") if p}
    if a.peers - {"redocly", "spectral", *TOKEN_PEERS}:
        ap.error("--peers: known peers are redocly, spectral, " + ", ".join(TOKEN_PEERS))
    return a


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    spawner()  # before anything large is built in this process (see _SPAWNER_CODE)
    notes: list[str] = []
    shared_s = args.shared or os.environ.get("TOOLCAT_SHARED") or str(REPO.parent / "shared")
    shared = Path(shared_s).resolve()
    started = time.time()
    try:
        load_start = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load_start = None
    targets = build_targets(args, shared, notes)
    runner = Runner(args)
    py = sys.executable
    tc = [py, "-m", "toolcat"]
    cells: list[Cell] = []
    by: dict[tuple[str, str], Cell] = {}

    pending: list[tuple[Cell, dict | None, tuple]] = []

    def add(cell: Cell, env: dict | None = None, ok_codes=OK_CODES) -> Cell:
        pending.append((cell, env, ok_codes))
        cells.append(cell)
        by[(cell.command, cell.target)] = cell
        return cell

    def flush() -> None:
        if pending:
            runner.measure_group(list(pending))
            pending.clear()

    def skipped(cell: Cell, why: str) -> None:
        cell.status, cell.error = why, None
        cells.append(cell)
        by[(cell.command, cell.target)] = cell

    # toolcat version (also tells whether toolcat is importable at all)
    ver = subprocess.run(tc + ["--version"], capture_output=True, text=True, cwd=str(REPO))
    toolcat_version = ver.stdout.strip() if ver.returncode == 0 else None
    if toolcat_version is not None:
        # bytecode written once, as pip does at install: a source tree run with
        # PYTHONDONTWRITEBYTECODE (or a fresh checkout) would time compilation otherwise
        subprocess.run([py, "-c", "import compileall, os, toolcat; compileall.compile_dir("
                        "os.path.dirname(toolcat.__file__), quiet=1)"], capture_output=True,
                       cwd=str(REPO), env=runner.base_env)
    if toolcat_version is None:
        notes.append(f"toolcat is not runnable from {py}: {_first_error_line(ver.stderr)}")

    # peers
    redocly = spectral = None
    peer_versions: dict[str, str] = {}
    ruleset = None
    if "peers" in args.only and any(t.openapi for t in targets):
        redocly = find_peer("redocly", args.redocly, notes) if "redocly" in args.peers else None
        spectral = find_peer("spectral", args.spectral, notes) if "spectral" in args.peers \
            else None
        if redocly:
            peer_versions["redocly"] = peer_version(redocly, REDOCLY_ENV)
        if spectral:
            peer_versions["spectral"] = peer_version(spectral, {})
            rs_dir = Path(args.cache) if args.cache else gen_catalog.CACHE
            rs_dir.mkdir(parents=True, exist_ok=True)
            ruleset = rs_dir / "spectral-oas.yaml"
            ruleset.write_text(SPECTRAL_RULESET)
    token_peers: dict[str, str] = {}
    token_env: dict[str, str] = {}
    tp_inputs: dict[str, str] = {}
    tp_dir = (Path(args.cache) if args.cache else gen_catalog.CACHE) / "token-peers"
    caps_t = next((t for t in targets if t.key == "captures"), None)
    if "peers" in args.only and caps_t is not None:
        for name in TOKEN_PEERS:
            exe = find_peer(name, None, notes, args.peer_path) if name in args.peers else None
            if exe:
                token_peers[name] = exe
                peer_versions[name] = peer_version(exe, {})
        if token_peers:
            tk = tiktoken_cache(tp_dir / "tiktoken", shared)
            if tk is None:
                notes.append("no ../shared/tokenizers: the tiktoken peers need the network "
                             "to load their vocabulary and may fail")
            token_env = {"TIKTOKEN_CACHE_DIR": str(tk)} if tk else {}
            tp_inputs = token_peer_inputs(caps_t.files, tp_dir)

    have = {name: importable(f"import {mod}") for name, mod in
            (("orjson", "orjson"), ("yaml_rs", "yaml_rs"), ("pyyaml-c", "yaml; yaml.CSafeLoader"))}
    have["json"] = True

    if not args.quiet:
        sys.stderr.write(f"toolcat bench: {len(targets)} targets, repeat {args.repeat}, "
                         f"python {platform.python_version()}\n")
    if "base" in args.only:
        add(Cell("base", "python -c pass", "-", [py, "-c", "pass"]), ok_codes=(0,))
        add(Cell("base", "toolcat --version", "-", tc + ["--version"]), ok_codes=(0,))
        flush()

    timed_out: dict[str, str] = {}
    for t in targets:
        if not args.quiet:
            sys.stderr.write(f"{t.label} ({t.size / 1e6:,.2f} MB in {len(t.files)} file"
                             f"{'s' if len(t.files) != 1 else ''})\n")
        if "floors" in args.only and t.syntax in PARSERS:
            for name, code in PARSERS[t.syntax]:
                c = Cell("floor", f"parse {name}", t.key, [py, "-c", code, *t.files])
                if have.get(name):
                    add(c, ok_codes=(0,))
                else:
                    skipped(c, "absent")
        if "peers" in args.only and t.openapi:
            c = Cell("peer", "redocly lint", t.key, [redocly or "redocly", "lint", *t.paths])
            if redocly:
                add(c, REDOCLY_ENV)
            else:
                skipped(c, "absent" if "redocly" in args.peers else "not run (--peers)")
            c = Cell("peer", "spectral lint", t.key,
                     [spectral or "spectral", "lint", "-r", str(ruleset), *t.paths])
            if spectral and t.corpus:
                add(c)
            else:
                skipped(c, "not run (--peers)" if "spectral" not in args.peers else
                        "absent" if not spectral else "not run (synthetic)")
        if t is caps_t:
            for name, exe in token_peers.items():
                report = str(tp_dir / f"{name}.report.json")
                add(Cell("peer", f"{name} (tokens)", t.key,
                         token_peer_argv(name, exe, tp_inputs, report)), token_env)
        for cmd in COMMANDS:
            if cmd not in args.only:
                continue
            c = Cell("toolcat", cmd, t.key, tc + [cmd, *t.paths,
                                                  *(t.project_args if cmd == "project" else [])])
            if cmd == "diff-toolids" and len(t.paths) != 1:
                skipped(c, "n/a (compares one catalog with its projection)")
                continue
            if t.synthetic_n and cmd in timed_out:
                skipped(c, f"skipped (timed out on {timed_out[cmd]})")
                continue
            add(c, t.env)
        if "diff" in args.only and t.key == DIFF_TARGET and len(t.paths) == 1:
            # OLD: the spec; NEW: a second version with a release's edits (second_version.py)
            import second_version

            newer = Path(tempfile.mkdtemp(prefix="toolcat-bench-")) / Path(t.paths[0]).name
            try:
                second_version.make(t.paths[0], str(newer))
                add(Cell("toolcat", "diff", t.key, tc + ["diff", t.paths[0], str(newer)]), t.env)
            except SystemExit as e:
                skipped(Cell("toolcat", "diff", t.key, []), f"not run: {e}")
        flush()
        for cmd in COMMANDS:
            c = by.get((cmd, t.key))
            if t.synthetic_n and c is not None and c.status.startswith("timeout"):
                timed_out.setdefault(cmd, t.key)

    walk = None
    synth = [t for t in targets if t.synthetic_n]
    if "walk" in args.only and synth:
        big = max(synth, key=lambda t: t.synthetic_n or 0)
        if not args.quiet:
            sys.stderr.write(f"schema walk micro-benchmark on {big.label}\n")
        r = subprocess.run([py, str(BENCH / "walk_bench.py"), big.files[0],
                            "--rounds", "1" if args.quick else "3"],
                           capture_output=True, text=True, cwd=str(REPO))
        if r.returncode == 0:
            walk = json.loads(r.stdout)
            walk["target"] = big.key
        else:
            notes.append(f"walk micro-benchmark failed: {_first_error_line(r.stderr)}")

    # ------------------------------------------------------------ derived figures
    def floor_of(key: str) -> Cell | None:
        fl = [c for c in cells if c.group == "floor" and c.target == key and c.ok]
        return min(fl, key=lambda c: c.median_s) if fl else None

    rows = []
    for c in cells:
        fl = floor_of(c.target) if c.group in ("toolcat", "peer") else None
        xf = ratio(c, fl) if c.group == "toolcat" else None
        xr = ratio(c, by.get(("redocly lint", c.target))) if c.command == "lint" else None
        xs = ratio(c, by.get(("spectral lint", c.target))) if c.command == "lint" else None
        if c.group == "peer" and c.ok and fl:
            xf = ratio(c, fl)
        c_ratios = {"vs_floor": xf, "vs_redocly": xr, "vs_spectral": xs,
                    "floor": fl.command if fl else None}
        c.__dict__["ratios"] = c_ratios
        label = c.command if c.group != "toolcat" else f"toolcat {c.command}"
        rows.append([label, c.target, str(c.runs or "-"), fmt_s(c.cpu_s), fmt_s(c.median_s),
                     fmt_mib(c.rss_kib), fmt_x(xf), fmt_x(xr), fmt_x(xs),
                     c.status + (f": {c.error[:70]}" if c.error and not c.ok else "")])

    scaling = {}
    if len(synth) >= 2:
        lo = min(synth, key=lambda t: t.synthetic_n or 0)
        hi = max(synth, key=lambda t: t.synthetic_n or 0)
        for cmd in COMMANDS:
            a, b = by.get((cmd, hi.key)), by.get((cmd, lo.key))
            r = ratio(a, b)
            mid = {t.key: ratio(by.get((cmd, t.key)), b) for t in synth}
            scaling[cmd] = {"from": lo.key, "to": hi.key, "size_ratio": hi.synthetic_n / lo.synthetic_n,
                            "ratio": r, "series": mid}

    # ------------------------------------------------------------ targets
    checks: list[dict] = []

    def check(name: str, value: float | None, limit: float, unit: str, why: str = "",
              verdict: str | None = None) -> None:
        if verdict is not None:
            pass
        elif value is None:
            verdict = "n/a"
        else:
            verdict = "PASS" if value <= limit else "FAIL"
        checks.append({"target": name, "value": value, "limit": limit, "unit": unit,
                       "verdict": verdict, "note": why})

    for key in ("openai", "box", "twilio"):
        lint = by.get(("lint", key))
        red = by.get(("redocly lint", key))
        fl = floor_of(key)
        why = "" if lint and lint.ok else f"lint {lint.status if lint else 'not run'}"
        check(f"lint {key} <= {LINT_VS_REDOCLY}x redocly", ratio(lint, red), LINT_VS_REDOCLY, "x",
              why or ("" if red and red.ok else "redocly not measured"))
        check(f"lint {key} <= {LINT_VS_FLOOR:g}x parse floor", ratio(lint, fl), LINT_VS_FLOOR, "x",
              why or ("" if fl else "no parse floor"))
        rss = (lint.rss_kib / red.rss_kib) if (lint and lint.ok and red and red.ok
                                                and red.rss_kib) else None
        check(f"lint {key} peak RSS <= {RSS_VS_REDOCLY}x redocly", rss, RSS_VS_REDOCLY, "x",
              why or ("" if red and red.ok else "redocly not measured"))
    dl, ln = by.get(("diff", DIFF_TARGET)), by.get(("lint", DIFF_TARGET))
    check(f"diff {DIFF_TARGET} (two versions) <= {DIFF_VS_LINT:g}x its lint", ratio(dl, ln),
          DIFF_VS_LINT, "x", "" if dl and dl.ok and ln and ln.ok else "diff or lint not measured")
    sm = by.get(("lint", "small"))
    check("small lint < 150 ms", sm.median_s if sm and sm.ok else None, SMALL_LINT_S, "s",
          "" if sm and sm.ok else f"lint {sm.status if sm else 'not run'}")
    v = by.get(("toolcat --version", "-"))
    check("toolcat --version < 50 ms", v.median_s if v and v.ok else None, VERSION_S, "s")
    ms = by.get(("measure", "captures"))
    check(f"measure 69 captures <= {MEASURE_S:.3f} s (half of Node's {MEASURE_NODE_S} s)",
          ms.median_s if ms and ms.ok else None, MEASURE_S, "s",
          "" if ms and ms.ok else f"measure {ms.status if ms else 'not run'}")
    token_counts: dict[str, dict] = {}
    if caps_t is not None and token_peers:
        exact = exact_captures_tokens(caps_t.files)
        token_counts["toolcat measure"] = {"tokens": exact, "tokenizer": "o200k_base",
                                           "approximate": False, "exact_o200k": True}
        for name in token_peers:
            got = token_peer_count(name, str(tp_dir / f"{name}.report.json"))
            label = str(got.get("tokenizer") or "")
            got["exact_o200k"] = "o200k" in label and "estimate" not in label
            token_counts[name] = got
        exact_peers = [by.get((f"{n} (tokens)", "captures")) for n in token_peers
                       if token_counts[n].get("exact_o200k")]
        exact_peers = [c for c in exact_peers if c and c.ok]
        fastest = min(exact_peers, key=lambda c: c.median_s) if exact_peers else None
        check("17: measure 69 captures <= the fastest exact-o200k peer"
              + (f" ({fastest.command.split()[0]})" if fastest else ""), ratio(ms, fastest), 1.0,
              "x", "" if fastest and ms and ms.ok else "no exact-o200k peer measured")
    for cmd, s in scaling.items():
        limit = SCALING_MAX * (s["size_ratio"] / 50) if s["size_ratio"] != 50 else SCALING_MAX
        name = f"scaling {cmd} {s['to']}/{s['from']} <= {limit:g}x"
        slow = [t.key for t in synth if (by.get((cmd, t.key)) or Cell("", "", "", [])).status
                .startswith("timeout")]
        if s["ratio"] is None and slow:
            check(name, None, limit, "x", f"timed out (> {args.timeout:g} s) on {slow[0]}",
                  verdict="FAIL")
        else:
            check(name, s["ratio"], limit, "x",
                  "" if s["ratio"] is not None else "not measured on both ends")
    # issue 17
    for key in LINT17_KEYS:
        lint, red, fl = by.get(("lint", key)), by.get(("redocly lint", key)), floor_of(key)
        why = "" if lint and lint.ok else f"lint {lint.status if lint else 'not run'}"
        if key in ("stripe", "k8s"):      # openai/box/twilio: the floor check is above
            check(f"17: lint {key} <= {LINT_VS_FLOOR:g}x parse floor", ratio(lint, fl),
                  LINT_VS_FLOOR, "x", why or ("" if fl else "no parse floor"))
        check(f"17: lint {key} <= {LINT17_VS_REDOCLY}x redocly", ratio(lint, red),
              LINT17_VS_REDOCLY, "x", why or ("" if red and red.ok else "redocly not measured"))
    # issue 35: project and measure within 3x `tools`, lint within a quarter of Redocly (CPU)
    for key in PROJECT35_KEYS:
        t = by.get(("tools", key))
        for cmd in ("project", "measure"):
            c = by.get((cmd, key))
            check(f"35: {cmd} {key} <= {PROJECT35_VS_TOOLS:g}x tools (CPU)", ratio(c, t),
                  PROJECT35_VS_TOOLS, "x", "" if c and c.ok and t and t.ok else "not measured")
    for key in LINT35_KEYS:
        lint, red = by.get(("lint", key)), by.get(("redocly lint", key))
        check(f"35: lint {key} <= {LINT35_VS_REDOCLY}x redocly (CPU)", ratio(lint, red),
              LINT35_VS_REDOCLY, "x", "" if lint and lint.ok and red and red.ok
              else "not measured")
    for cmd in ("project", "measure"):
        c, fl = by.get((cmd, "stripe")), floor_of("stripe")
        why = "" if c and c.ok else f"{cmd} {c.status if c else 'not run'} on stripe"
        check(f"17: {cmd} stripe <= {PROJECT_VS_FLOOR:g}x parse floor", ratio(c, fl),
              PROJECT_VS_FLOOR, "x", why or ("" if fl else "no parse floor"))
        check(f"17: {cmd} stripe peak RSS < {PROJECT_RSS_MIB} MiB",
              c.rss_kib / 1024 if c and c.ok and c.rss_kib else None, PROJECT_RSS_MIB, "MiB",
              why)
    for t in targets:
        a, b = by.get(("diff-toolids", t.key)), by.get(("tools", t.key))
        if a is None or not a.status or a.status.startswith("n/a"):
            continue
        check(f"17: diff-toolids {t.key} <= {TOOLIDS_VS_TOOLS}x tools", ratio(a, b),
              TOOLIDS_VS_TOOLS, "x", "" if a.ok and b and b.ok else "not measured")
    big = max(synth, key=lambda t: t.synthetic_n or 0) if synth else None
    if big is not None and (big.synthetic_n or 0) >= 1_000_000:
        for cmd in ("lint", "measure"):
            c = by.get((cmd, big.key))
            check(f"17: {cmd} {big.key} peak RSS < {MILLION_RSS_MIB} MiB",
                  c.rss_kib / 1024 if c and c.ok and c.rss_kib else None, MILLION_RSS_MIB,
                  "MiB", "" if c and c.ok else f"{cmd} {c.status if c else 'not run'}")
    else:
        check(f"17: lint and measure of 1,000,000 tools < {MILLION_RSS_MIB} MiB", None,
              MILLION_RSS_MIB, "MiB", "not run (--sizes 10000,1000000; the 110x linearity "
              "is the scaling row)")
    if walk:
        limit = WALK_SLACK * max(WALK_NS, walk["floor"]["ns_per_value"])
        check(f"schema walk ns/value <= {limit:.0f} (1.5x max(200, bare walk))",
              walk["iter_schemas"]["ns_per_value"], limit, "ns")

    # ------------------------------------------------------------ print
    out = sys.stdout
    mi = machine_info()
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out.write(f"toolcat bench  {stamp}  {toolcat_version or 'toolcat ?'}  commit {mi['commit']}\n")
    out.write(f"machine: {mi['cpu']}, {mi['cores']} cores, {mi['mem_mib']} MiB; "
              f"Python {mi['python']}; peers: "
              f"{', '.join(f'{k} {v}' for k, v in peer_versions.items()) or 'none'}\n")
    if load_start and mi["loadavg"]:
        busy = load_start[0] > 0.75  # the harness itself adds about 1 while it runs
        out.write(f"load average at start {load_start[0]}, at end {mi['loadavg'][0]}"
                  f"{' (BUSY machine: absolute times are inflated, ratios less so)' if busy else ''}\n")
    out.write(f"median of up to {args.repeat} runs (+{args.warmup} warm-up): CPU (user+sys) "
              "and wall time apart, peak RSS per process; xfloor = / fastest parse of the same "
              "files, xredocly/xspectral = lint vs peer lint; every ratio is of CPU times\n\n")
    out.write(table(rows, ["command", "target", "runs", "cpu", "wall", "peak RSS", "xfloor",
                           "xredocly", "xspectral", "status"], {2, 3, 4, 5, 6, 7, 8}) + "\n")
    out.write("\ntargets: " + ", ".join(f"{t.key} = {t.label} ({t.size / 1e6:,.2f} MB)"
                                        for t in targets) + "\n")
    if scaling:
        out.write("\nscaling (median / median of the smallest synthetic catalog):\n")
        srows = [[cmd] + [fmt_x(s["series"].get(t.key)) for t in synth] for cmd, s in
                 scaling.items()]
        out.write(table(srows, ["command"] + [t.key for t in synth],
                        set(range(1, len(synth) + 1))) + "\n")
    if walk:
        out.write(f"\nschema walk ({walk['target']}: {walk['tools']:,} tools, {walk['schemas']:,} "
                  f"schemas, {walk['values']:,} JSON values, {walk['schema_nodes']:,} schema "
                  "nodes; best of {0} in-process):\n".format(walk["rounds"]))
        for k in ("floor", "iter_schemas", "transform"):
            w = walk[k]
            out.write(f"  {k:<13} {w['seconds'] * 1000:9.1f} ms  {w['ns_per_value']:7.1f} ns/value\n")
    if token_counts:
        out.write("\ntoken counts on the captures (what each tool reports counting; toolcat's is "
                  "the published o200k total of mcp-context-cost's canonical JSON):\n")
        trows = []
        for name, got in token_counts.items():
            c = by.get(("measure", "captures")) if name == "toolcat measure" else \
                by.get((f"{name} (tokens)", "captures"))
            tok = got.get("tokens")
            trows.append([name, fmt_s(c.median_s if c and c.ok else None),
                          f"{tok:,}" if isinstance(tok, int) else "-",
                          str(got.get("tokenizer") or got.get("error") or "-"),
                          "yes" if got.get("exact_o200k") else "no",
                          "yes" if got.get("approximate") else "no"])
        out.write(table(trows, ["tool", "median", "tokens", "tokenizer", "exact o200k BPE",
                                "says approximate"], {1, 2}) + "\n")
    out.write("\nissue 7 targets (and issue 17's, prefixed \"17:\"):\n")
    crows = []
    for ch in checks:
        val = ch["value"]
        shown = "-" if val is None else (fmt_s(val) if ch["unit"] == "s" else
                                         f"{val:.0f} ns" if ch["unit"] == "ns" else
                                         f"{val:,.0f} MiB" if ch["unit"] == "MiB" else f"{val:.2f}x")
        crows.append([ch["verdict"], ch["target"], shown, ch["note"]])
    out.write(table(crows, ["verdict", "target", "value", "note"], {2}) + "\n")
    if notes:
        out.write("\nnotes:\n" + "".join(f"  - {n}\n" for n in notes))
    elapsed = time.time() - started
    out.write(f"\n(run took {elapsed:,.0f} s)\n")

    if args.json:
        doc = {
            "date": stamp,
            "machine": {**mi, "loadavg_start": load_start},
            "toolcat_version": toolcat_version,
            "peers": peer_versions,
            "settings": {"repeat": args.repeat, "warmup": args.warmup, "budget_s": args.budget,
                         "quick": args.quick, "shared": str(shared), "seed": args.seed},
            "targets": [{**asdict(t), "bytes": t.size} for t in targets],
            "cells": [{**asdict(c), "ratios": c.__dict__.get("ratios")} for c in cells],
            "scaling": scaling,
            "walk": walk,
            "checks": checks,
            "token_counts": token_counts,
            "notes": notes,
            "elapsed_s": elapsed,
        }
        gen_catalog.write_atomic(Path(args.json), (json.dumps(doc, indent=2) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
