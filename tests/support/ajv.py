"""Ajv, as the MCP TypeScript SDK configures it, as a second judge beside ``jsonschema``.

One long-running Node process (``tests/support/node/judge.mjs``) speaks JSON lines; this module
starts it once, sends batches, applies timeouts and restarts it when a request kills or hangs
it. Install the Node side once per clone (CI must run the same command)::

    npm ci --prefix tests/support/node

Use::

    from ajv import AjvJudge, skip_reason      # with tests/support on sys.path

    if (why := skip_reason()) is not None:
        pytest.skip(why)
    with AjvJudge() as judge:
        judge.compile({"type": "string"})                    # None, or Ajv's error message
        judge.validate({"type": "string"}, ["a", 1])         # Verdicts(error=None, valid=[True, False])
        judge.validate_many([(schema, instances), ...])      # one Verdicts per schema, batched
        judge.tools_list({"tools": [...]})                   # ListTools(ok, issues, client_error, ...)

Engines (``engine=``): ``"sdk"`` (default: @modelcontextprotocol/sdk 1.32.2's
``AjvJsonSchemaValidator``: Ajv's draft-07 class for every schema, ``$schema`` not read),
``"2020-12"`` (the same options on ``Ajv2020``), ``"sdk-v2"`` (@modelcontextprotocol/client
2.4.0's validator: one Ajv class per declared dialect, no ``$schema`` = 2020-12). ``ENGINES``
lists them. Numbers cross the pipe as JSON: integers beyond 2**53 reach Ajv rounded, as they
would reach a JavaScript client.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

NODE_DIR = Path(__file__).resolve().parent / "node"
JUDGE = NODE_DIR / "judge.mjs"
INSTALL_COMMAND = "npm ci --prefix tests/support/node"
ENGINES = ("sdk", "2020-12", "sdk-v2")
PACKAGES = ("@modelcontextprotocol/sdk", "@modelcontextprotocol/client",
            "@modelcontextprotocol/core", "ajv", "ajv-formats")
MIN_NODE = 20

_skip_cache: list[str | None] = []


class JudgeError(RuntimeError):
    """The judge could not answer (crashed, timed out, or refused the request itself)."""


class JudgeTimeout(JudgeError):
    pass


@dataclass
class Verdicts:
    """Ajv's answer for one schema: ``error`` is the compile error (then ``valid`` is empty);
    ``valid[i]`` is True/False, or None where the compiled validator threw on instance i
    (``exceptions[i]`` says what)."""

    error: str | None
    valid: list[bool | None] = field(default_factory=list)
    messages: list[str | None] | None = None
    exceptions: dict[int, str] = field(default_factory=dict)

    @property
    def compiled(self) -> bool:
        return self.error is None


@dataclass
class ListTools:
    """The SDK's reading of a ``tools/list`` result: ``ok`` is
    ``ListToolsResultSchema.safeParse(result).success``; ``issues`` its zod issues (``path`` a
    list); ``client_error`` what ``Client.listTools`` would throw (a refused parse, or the first
    outputSchema that does not compile); ``output_schemas``: every tool's outputSchema compiled
    as the client does, ``{"index", "name", "error"}``."""

    ok: bool
    issues: list[dict]
    client_error: str | None
    output_schemas: list[dict]


def _installed_version(pkg: str) -> str | None:
    try:
        return json.loads((NODE_DIR / "node_modules" / pkg / "package.json").read_text("utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return None


def _locked_versions() -> dict[str, str]:
    lock = json.loads((NODE_DIR / "package-lock.json").read_text("utf-8"))
    return {p: lock["packages"][f"node_modules/{p}"]["version"] for p in PACKAGES}


def install(timeout: float = 600) -> str | None:
    """Run the install command (``npm ci``) once, under a file lock (pytest-xdist workers
    share it); None on success, else what went wrong."""
    import fcntl

    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH"
    with open(NODE_DIR / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(_installed_version(p) == v for p, v in _locked_versions().items()):
            return None
        try:
            r = subprocess.run([npm, "ci", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund"],
                               capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.SubprocessError) as e:
            return f"{INSTALL_COMMAND} failed: {e}"
        if r.returncode != 0:
            return f"{INSTALL_COMMAND} failed: {r.stderr.strip()[-600:]}"
    _skip_cache.clear()
    return None


def skip_reason(node: str | None = None) -> str | None:
    """None when the judge can run here; else why not, with what to do about it.

    With ``TOOLCAT_AJV_INSTALL=1`` in the environment, a missing install is made first
    (:func:`install`), as tests/live does for its npm server."""
    if node is None and _skip_cache:
        return _skip_cache[0]
    if os.environ.get("TOOLCAT_AJV_INSTALL") == "1" and (node or shutil.which("node")) \
            and any(_installed_version(p) != v for p, v in _locked_versions().items()):
        failed = install()
        if failed is not None:
            return f"Ajv judge: {failed}"
    why = _skip_reason(node or shutil.which("node"))
    if node is None:
        _skip_cache.append(why)
    return why


def _skip_reason(node: str | None) -> str | None:
    if not node:
        return "Ajv judge: node is not on PATH (install Node.js >= 20)"
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30,
                             check=False)
        major = int(out.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return f"Ajv judge: {node} --version failed ({e})"
    if major < MIN_NODE:
        return f"Ajv judge: node {out.stdout.strip()} is older than {MIN_NODE}"
    locked = _locked_versions()
    for pkg, want in locked.items():
        have = _installed_version(pkg)
        if have != want:
            state = "not installed" if have is None else f"{have} installed, {want} locked"
            return f"Ajv judge: {pkg} {state} in {NODE_DIR}/node_modules; run: {INSTALL_COMMAND}"
    try:
        out = subprocess.run([node, str(JUDGE), "--check"], capture_output=True, text=True,
                             timeout=60, cwd=NODE_DIR, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return f"Ajv judge: {JUDGE} --check failed to run ({e})"
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"Ajv judge: {JUDGE} --check failed ({tail[0]}); run: {INSTALL_COMMAND}"
    return None


def needs_judge(item) -> bool:
    """Whether a collected test uses the Ajv judge (its id names Ajv, or it takes the
    ``ajv_judge`` fixture)."""
    return "ajv" in item.nodeid.lower() or "ajv_judge" in getattr(item, "fixturenames", ())


def prepare(items, say=print) -> str | None:
    """Before any test runs (conftest's ``pytest_collection_modifyitems``): where ``node`` and
    ``npm`` are on PATH, some collected test needs the judge and the locked packages are not
    installed, install them now (:func:`install`), so that a fresh clone's first run judges
    as every later one does. Returns what went wrong, or None; the tests then fail with it
    (:func:`require`), they are never skipped for it."""
    if not (shutil.which("node") and shutil.which("npm")):
        return None
    if all(_installed_version(p) == v for p, v in _locked_versions().items()):
        return None
    if not any(needs_judge(i) for i in items):
        return None
    say(f"toolcat tests: installing the Ajv judge's Node packages ({INSTALL_COMMAND})")
    return install()


def require() -> None:
    """For tests that judge with Ajv (the differential tests): skip only where ``node`` is
    absent; otherwise install the locked packages on first use (:func:`install`, ``npm ci``
    under a lock, as tests/live does for its npm server) and fail when the judge still cannot
    run."""
    import pytest

    if not shutil.which("node"):
        pytest.skip("Ajv judge: node is not on PATH (install Node.js >= 20)")
    if any(_installed_version(p) != v for p, v in _locked_versions().items()):
        failed = install()
        if failed is not None:
            pytest.fail(f"Ajv judge: {failed}")
    why = skip_reason()
    if why is not None:
        pytest.fail(why)


class AjvJudge:
    """A Node judge process, started on first use (or ``__enter__``) and stopped on
    ``close``/``__exit__``. ``timeout`` (seconds) bounds every round trip; a request that
    times out or kills the process raises :class:`JudgeError` and the next request starts a
    fresh process. Not thread-safe: one judge per thread."""

    def __init__(self, *, node: str | None = None, timeout: float = 120.0,
                 batch_size: int = 400) -> None:
        self.node = node or shutil.which("node")
        self.timeout = timeout
        self.batch_size = batch_size
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue | None = None
        self._stderr = None
        self._next_id = 0
        self.restarts = 0

    # -- process -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        why = skip_reason(self.node)
        if why is not None:
            raise JudgeError(why)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close() / _kill()
        self._proc = subprocess.Popen([self.node, str(JUDGE)], cwd=NODE_DIR, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0)
        lines: queue.Queue = queue.Queue()
        self._lines = lines
        out = self._proc.stdout

        def pump() -> None:
            for line in iter(out.readline, b""):
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, name="ajv-judge-stdout", daemon=True).start()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _kill(self) -> str:
        """Stop the process after a failure; returns the tail of its stderr."""
        proc, self._proc = self._proc, None
        tail = ""
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        if self._stderr is not None:
            try:
                self._stderr.seek(0)
                tail = self._stderr.read().decode("utf-8", "replace").strip()[-800:]
            finally:
                self._stderr.close()
                self._stderr = None
        self.restarts += 1
        return tail

    def request(self, op: str, timeout: float | None = None, **fields: Any) -> dict:
        """One round trip; returns the response object (``ok`` false with ``error`` for a
        compile error; :class:`JudgeError` for a request the judge refused, a crash or a
        timeout)."""
        self._next_id += 1
        rid = self._next_id
        line = json.dumps({"id": rid, "op": op, **fields}, allow_nan=False, separators=(",", ":"))
        resp = self._roundtrip(line.encode("ascii"), op, timeout)
        if resp.get("id") != rid:
            self._kill()
            raise JudgeError(f"Ajv judge answered request {resp.get('id')} for {rid}")
        if resp.get("request_error"):
            raise JudgeError(f"Ajv judge refused the request: {resp.get('error')}")
        return resp

    def raw(self, line: bytes, timeout: float | None = None) -> dict:
        """Send one line as it is (for tests of the judge's own robustness); its response."""
        return self._roundtrip(line.rstrip(b"\n"), "a raw line", timeout)

    def _roundtrip(self, line: bytes, what: str, timeout: float | None) -> dict:
        self.start()
        limit = self.timeout if timeout is None else timeout
        try:
            self._proc.stdin.write(line + b"\n")
            self._proc.stdin.flush()
        except OSError as e:
            raise JudgeError(f"Ajv judge died before reading {what} ({e}): {self._kill()}") from None
        try:
            raw = self._lines.get(timeout=limit)
        except queue.Empty:
            self._kill()
            raise JudgeTimeout(f"Ajv judge: no answer to {what} within {limit} s "
                               f"(process stopped; the next request starts another)") from None
        if raw is None:
            raise JudgeError(f"Ajv judge exited while serving {what}: {self._kill()}")
        return json.loads(raw)

    # -- operations ----------------------------------------------------------------------

    def versions(self) -> dict:
        return self.request("versions")

    def compile(self, schema: Any, engine: str = "sdk") -> str | None:
        """None when ``schema`` compiles under ``engine``; else Ajv's (or the SDK's) error."""
        resp = self.request("compile", schema=schema, engine=engine)
        return None if resp["ok"] else resp["error"]

    def validate(self, schema: Any, instances: list, engine: str = "sdk",
                 messages: bool = False) -> Verdicts:
        resp = self.request("validate", schema=schema, instances=list(instances), engine=engine,
                            messages=messages)
        return _verdicts(resp)

    def validate_many(self, items: Iterable[tuple[Any, list]], engine: str = "sdk",
                      messages: bool = False) -> list[Verdicts]:
        """``[(schema, instances), ...]`` -> one :class:`Verdicts` each, sent in batches of
        ``batch_size`` requests a round trip."""
        reqs = [{"op": "validate", "schema": s, "instances": list(insts), "engine": engine,
                 "messages": messages} for s, insts in items]
        return [_verdicts(r) for r in self._batch(reqs)]

    def compile_many(self, schemas: Iterable[Any], engine: str = "sdk") -> list[str | None]:
        reqs = [{"op": "compile", "schema": s, "engine": engine} for s in schemas]
        return [None if r["ok"] else r["error"] for r in self._batch(reqs)]

    def tools_list(self, result: Any, sdk: str = "v1") -> ListTools:
        resp = self.request("tools_list", result=result, sdk=sdk)
        return ListTools(resp["ok"], resp["issues"], resp["client_error"], resp["output_schemas"])

    def metaschema(self, schema: Any) -> dict[str, list[str] | None]:
        """Errors of ``schema`` against the draft-07 and 2020-12 metaschemas (Ajv's
        ``validateSchema``, which the SDK turns off): ``{"draft-07": None | [...], "2020-12": ...}``."""
        resp = self.request("metaschema", schema=schema)
        return {k: resp[k] for k in ("draft-07", "2020-12")}

    def metaschema_many(self, schemas: Iterable[Any]) -> list[dict[str, list[str] | None]]:
        reqs = [{"op": "metaschema", "schema": s} for s in schemas]
        return [{k: r[k] for k in ("draft-07", "2020-12")} for r in self._batch(reqs)]

    def _batch(self, reqs: list[dict]) -> list[dict]:
        out: list[dict] = []
        for i in range(0, len(reqs), self.batch_size):
            chunk = reqs[i:i + self.batch_size]
            resp = self.request("batch", requests=chunk)
            for r in resp["results"]:
                if r.get("request_error"):
                    raise JudgeError(f"Ajv judge refused a batched request: {r.get('error')}")
            out.extend(resp["results"])
        return out


def _verdicts(resp: dict) -> Verdicts:
    if not resp["ok"]:
        return Verdicts(error=resp["error"])
    return Verdicts(error=None, valid=resp["valid"], messages=resp.get("messages"),
                    exceptions={int(k): v for k, v in (resp.get("exceptions") or {}).items()})


def bench(judge: AjvJudge) -> list[str]:
    """Throughput on this machine: one schema x 100,000 instances, and 5,000 small schemas x 5."""
    import time

    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"type": "string", "format": "date"},
                             "b": {"type": "array", "items": {"type": "integer", "minimum": 0}}}}
    insts = [{"a": "2020-01-01", "b": list(range(i % 10))} if i % 3 else {"a": "x", "c": 1}
             for i in range(100_000)]
    t = time.perf_counter()
    judge.validate(schema, insts)
    lines = [f"one schema, {len(insts):,} instances: {len(insts) / (time.perf_counter() - t):,.0f} instances/s"]
    items = [({"type": "object", "properties": {f"x{k}": {"type": "integer", "maximum": k}}},
              [{f"x{k}": k}, {f"x{k}": k + 1}, 1, "s", None]) for k in range(5000)]
    for engine in ENGINES:
        t = time.perf_counter()
        judge.validate_many(items, engine=engine)
        dt = time.perf_counter() - t
        lines.append(f"{engine}: 5,000 schemas x 5 instances: {5000 / dt:,.0f} schemas/s "
                     f"({25000 / dt:,.0f} instances/s)")
    return lines


if __name__ == "__main__":  # python tests/support/ajv.py [--bench]: can the judge run here?
    import sys

    reason = skip_reason()
    if reason is not None:
        print(reason)
        raise SystemExit(1)
    with AjvJudge() as j:
        print(f"Ajv judge ready: {j.versions()}")
        if "--bench" in sys.argv:
            print("\n".join(bench(j)))
