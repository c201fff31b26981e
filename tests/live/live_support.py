"""Helpers and fixtures of the live-server tests: real servers, test servers, an independent
SDK capture, and the process table. Each test module imports them (a conftest.py here would
shadow tests/conftest.py, which the other tests import by name).

Servers used (installed the way README says; see notes/live.md):

* PyPI ``mcp-server-time`` and ``mcp-server-git`` (the ``test`` extra), run from this
  interpreter's ``bin`` folder;
* npm ``@modelcontextprotocol/server-everything`` from ``tests/support/node`` (the one npm
  folder of the tests: ``npm ci --prefix tests/support/node``, committed
  ``package-lock.json``; run here once if it is not installed); tests that need it skip only
  where ``node`` is absent;
* npm ``@modelcontextprotocol/server-filesystem`` from the same folder;
* ``servers/lax_server.py`` (the SDK's MCPServer: pydantic's lax types);
* ``servers/catalog_server.py`` (the SDK's server API: 3 pages, misbehaviour modes, stdio or
  Streamable HTTP on 127.0.0.1) and ``servers/raw_server.py`` (hand-written, no SDK).

Every process a test starts carries ``TOOLCAT_TEST_MARK=<uuid>`` in its environment (servers
inherit it), so :func:`marked` finds whatever is left of a run in ``/proc``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVERS = HERE / "servers"
NODE_DIR = REPO / "tests" / "support" / "node"
LOOPBACK = SERVERS / "loopback.cjs"
PY = sys.executable
BIN = os.path.dirname(PY)
EVERYTHING_JS = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / \
    "dist" / "index.js"
FILESYSTEM_JS = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / \
    "dist" / "index.js"


def live_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    if extra:
        env.update(extra)
    return env


def catalog_cmd(mode: str = "ok", *extra: str) -> str:
    return shlex.join([PY, str(SERVERS / "catalog_server.py"), "--mode", mode, *extra])


def raw_cmd(*extra: str) -> str:
    return shlex.join([PY, str(SERVERS / "raw_server.py"), *extra])


def require_exe(name: str) -> str:
    path = shutil.which(name, path=BIN + os.pathsep + os.environ.get("PATH", ""))
    if path is None:
        pytest.fail(f"{name} is not installed (the test extra installs it: "
                    "pip install -e '.[test]')")
    return path


# --------------------------------------------------------------------------- process table


def marked(marker: str) -> list[tuple[int, str]]:
    """Live processes (not zombies) whose environment carries ``TOOLCAT_TEST_MARK=marker``."""
    needle = f"TOOLCAT_TEST_MARK={marker}".encode()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in env.split(b"\0") and state != b"Z":
            out.append((int(entry), cmd))
    return out


def wait_gone(marker: str, seconds: float = 3.0) -> list[tuple[int, str]]:
    """The marked processes still there after up to ``seconds`` (killed ones take a moment
    to leave the table)."""
    deadline = time.monotonic() + seconds
    left = marked(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = marked(marker)
    return left


def end_marked(marker: str) -> None:
    """Clean up after a failed test: SIGKILL whatever carries the marker (processes this
    test started, found by their marker, one id at a time)."""
    for pid, _ in marked(marker):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class Run:
    def __init__(self, proc: subprocess.CompletedProcess, elapsed: float, marker: str) -> None:
        self.rc = proc.returncode
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")
        self.elapsed = elapsed
        self.marker = marker

    @property
    def err_lines(self) -> list[str]:
        return [x for x in self.err.splitlines() if x.strip()]


def toolcat_argv(*args: str) -> list[str]:
    return [PY, "-m", "toolcat", *args]


@pytest.fixture
def cli(tmp_path):
    """Run ``toolcat ARGS`` in a process of its own, as users do (cwd and TMPDIR: the test's
    tmp_path, so server logs land there); every process it leaves is found by its marker
    (:attr:`Run.marker`) and ended after the test."""
    markers: list[str] = []

    def run(*args: str, timeout: float = 120, env: dict | None = None, cwd=None) -> Run:
        marker = uuid.uuid4().hex
        markers.append(marker)
        t = time.monotonic()
        p = subprocess.run(toolcat_argv(*args), capture_output=True, timeout=timeout,
                           env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path),
                                         **(env or {})}), cwd=cwd or tmp_path)
        return Run(p, time.monotonic() - t, marker)

    yield run
    for m in markers:
        end_marked(m)


# --------------------------------------------------------------------------- node servers


def _node_package(entry: Path, what: str) -> Path:
    """An npm server's entry point in tests/support/node (npm ci on first use, or when the
    lock gained a package the installed folder lacks)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"node is not installed ({what} is an npm package)")
    if not entry.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"node is installed but npm is not: cannot install {what}")
        with open(NODE_DIR / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)      # one pytest-xdist worker installs
            if not entry.is_file():
                r = subprocess.run([npm, "ci", "--prefix", str(NODE_DIR), "--no-audit",
                                    "--no-fund"], capture_output=True, timeout=600)
                if r.returncode != 0:
                    pytest.fail("npm ci --prefix tests/support/node failed:\n"
                                + r.stderr.decode(errors="replace")[-2000:])
    return entry


@pytest.fixture(scope="session")
def everything_js() -> Path:
    """server-everything's entry point (npm ci on first use when node_modules is missing)."""
    return _node_package(EVERYTHING_JS, "server-everything")


@pytest.fixture(scope="session")
def filesystem_js() -> Path:
    """@modelcontextprotocol/server-filesystem's entry point (zod schemas: it strips keys
    its schema does not declare, though the schema says additionalProperties false)."""
    return _node_package(FILESYSTEM_JS, "server-filesystem")


def everything_cmd(js: Path) -> str:
    return shlex.join(["node", str(js), "stdio"])


def filesystem_cmd(js: Path, root: Path) -> str:
    return shlex.join(["node", str(js), str(root)])


# --------------------------------------------------------------------------- HTTP servers


@contextlib.contextmanager
def http_server(argv: list[str], tmp: Path, env: dict | None = None, path: str = "/mcp"):
    """Start a Streamable HTTP server on 127.0.0.1 (any free port, written to a port file),
    yield its URL, end its process group."""
    port_file = tmp / f"port-{uuid.uuid4().hex}"
    log = open(tmp / f"http-{port_file.name}.log", "wb")  # noqa: SIM115
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         env=live_env({"TOOLCAT_PORT_FILE": str(port_file), "PORT": "0",
                                       **(env or {})}),
                         start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not port_file.is_file():
            if p.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError("the HTTP test server did not start: "
                                   + (tmp / f"http-{port_file.name}.log").read_text()[-1000:])
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text().strip()}{path}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def catalog_http(tmp_path_factory):
    """The catalog test server over Streamable HTTP (its base URL); its ``/mcp`` wants
    ``Authorization: Bearer secret-token``."""
    tmp = tmp_path_factory.mktemp("catalog-http")
    with http_server([PY, str(SERVERS / "catalog_server.py"), "--http", "0", "--token",
                      "secret-token"], tmp, path="") as url:
        yield url


@pytest.fixture(scope="module")
def everything_http(everything_js, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("everything-http")
    with http_server(["node", "--require", str(LOOPBACK), str(everything_js),
                      "streamableHttp"], tmp) as url:
        yield url


# --------------------------------------------------------------------------- SDK capture


def sdk_list_tools(server: str | list[str], headers: dict | None = None) -> dict:
    """An independent capture with the MCP SDK's own client: ``Client.list_tools()`` over
    every page, each tool as the SDK parsed it (fields the server set). ``server`` is a URL
    or an argv."""
    import anyio
    import httpx2
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    async def run() -> dict:
        if isinstance(server, str):
            from mcp.client.streamable_http import streamable_http_client

            target = streamable_http_client(server, http_client=httpx2.AsyncClient(
                headers=headers or {}, trust_env=False))
        else:
            target = StdioServerParameters(command=server[0], args=server[1:],
                                           env=live_env())
        pages = 0
        tools = []
        async with Client(target) as client:
            cursor = None
            while True:
                res = await client.list_tools(cursor=cursor)
                pages += 1
                tools += [t.model_dump(by_alias=True, mode="json", exclude_unset=True)
                          for t in res.tools]
                cursor = res.next_cursor
                if cursor is None:
                    break
            info = client.server_info
            return {"tools": tools, "pages": pages, "protocolVersion": client.protocol_version,
                    "serverInfo": info.model_dump(by_alias=True, mode="json", exclude_none=True)
                    if info else None}

    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        return anyio.run(run)
