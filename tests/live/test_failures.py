"""Every way a server can fail gives one ``toolcat: error:`` line and exit 2, never a
traceback or a hang, and leaves no process behind (checked in the process table), whichever
command read the server; the other servers of the run are still read."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")

from live_support import (  # noqa: E402
    PY,
    SERVERS,
    catalog_cmd,
    catalog_http,  # noqa: F401 - a fixture
    cli,  # noqa: F401 - a fixture
    http_server,
    live_env,
    marked,
    raw_cmd,
    toolcat_argv,
    wait_gone,
)

# Cases that are not about the timeout get a long one: a machine starved by other work is
# no server failure.
SLACK = ("--timeout", "60")

#: Every command that reads catalogs, as it is run on servers only (its other arguments).
COMMANDS = {
    "tools": ["tools"],
    "lint": ["lint"],
    "project": ["project", "-o", "out.json"],
    "measure": ["measure"],
    "diff-toolids": ["diff-toolids"],
    "capture": ["capture", "-o", "out.json"],
}


def one_error(run, *needles: str) -> str:
    assert run.rc == 2, (run.rc, run.out, run.err)
    lines = run.err_lines
    assert len(lines) == 1, run.err
    line = lines[0]
    assert line.startswith("toolcat: error: "), line
    assert "Traceback" not in run.err
    for n in needles:
        assert n in line, line
    assert wait_gone(run.marker) == [], "server processes left running"
    return line


def sdk_seconds(run) -> float:
    """The seconds ``-v`` says the MCP SDK took to load in that run."""
    m = re.search(r"^toolcat: MCP SDK \(mcp [^)]*\) loaded in ([0-9.]+) s$", run.err, re.M)
    assert m, run.err
    return float(m.group(1))


def test_command_not_found(cli):
    line = one_error(cli("capture", *SLACK, "toolcat-no-such-server --flag"),
                     "command not found", "toolcat-no-such-server")
    assert line.startswith("toolcat: error: toolcat-no-such-server: ")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_exits_before_answering_whatever_the_command(cli, tmp_path, command):
    run = cli(*COMMANDS[command], *SLACK, "--server", catalog_cmd("exit"))
    one_error(run, "catalog_server: exited with status 3 before answering")
    assert run.out == ""
    assert not (tmp_path / "out.json").exists()      # nothing written


@pytest.mark.parametrize("mode,shown", [("garbage", "catalog_server starting up"),
                                        ("not-jsonrpc", '{"hello": "world"}')])
def test_writes_what_is_not_json_rpc_to_stdout(cli, mode, shown):
    one_error(cli("capture", *SLACK, catalog_cmd(mode)), "not JSON-RPC to stdout", shown)


def test_never_answers_is_killed_after_the_timeout(cli, tmp_path):
    # The server ignores SIGTERM, never exits when its stdin closes and leaves a child in its
    # process group: only SIGKILL to the group ends it.
    stamp = tmp_path / "started"
    run = cli("tools", "-v", "--timeout", "3", "--server", catalog_cmd("hang"),
              env={"CATALOG_SERVER_STARTED": str(stamp)})
    ended = time.time()
    assert run.rc == 2
    errors = [x for x in run.err_lines if x.startswith("toolcat: error: ")]
    assert len(errors) == 1 and "within 3 s" in errors[0] \
        and "process group was ended" in errors[0], run.err
    assert wait_gone(run.marker) == []
    started = float(stamp.read_text().split()[0])
    # The bound: the timeout plus 2 s, from the server's start to toolcat's exit.
    # The deadline counts from the server's start, toolcat's SDK import included, but leaves
    # the client at least MIN_BUDGET once it runs: an import slower than the timeout (a
    # machine under load) moves the deadline by what it overran, and only by that.
    from toolcat.formats.live.session import MIN_BUDGET

    overrun = max(0.0, sdk_seconds(run) + MIN_BUDGET - 3)
    assert ended - started < 3 + 2 + overrun, (ended - started, overrun)


def test_answers_the_handshake_but_fails_tools_list(cli):
    one_error(cli("lint", *SLACK, "--server", catalog_cmd("tools-error")),
              "answered tools/list with error -32603", "the tool registry is unavailable")


def test_hangs_on_the_second_page(cli):
    one_error(cli("measure", "--timeout", "8", "--server", catalog_cmd("hang-page2")),
              "tools/list (page 2)", "within 8 s")


def test_pages_that_never_end(cli):
    one_error(cli("tools", *SLACK, "--server", catalog_cmd("loop")),
              "nextCursor 'again' was already given")


def test_invalid_tools_are_lint_findings_not_an_error(cli):
    # raw_server serves tools without inputSchema, with a non-object schema, with an unknown
    # field: the SDK's client refuses them; toolcat reads them as sent and lint reports them
    run = cli("lint", *SLACK, "-f", "json", "--server", raw_cmd())
    assert run.rc == 1, run.err
    assert run.err == ""
    report = json.loads(run.out)
    assert report["summary"]["servers"] == 1 and report["summary"]["files"] == 0
    found = {(f["code"], f["tool"], f["index"]) for f in report["findings"]}
    # MC101: the MCP specification's inputSchema rules (CS201 is for OpenWOP compact views)
    assert {("TC102", "missing schema", 0), ("TC111", "missing schema", 0),
            ("MC101", "missing schema", 0), ("SC301", "bad_type", 1),
            ("MC101", "not_object", 2)} <= found
    assert {(f["server"], f["line"]) for f in report["findings"]} == {("raw_server", None)}
    assert wait_gone(run.marker) == []


@pytest.mark.parametrize("command", ["tools", "lint", "measure"])
def test_one_failing_server_does_not_stop_the_others(cli, command):
    run = cli(*COMMANDS[command], *SLACK, "--server", catalog_cmd(), "--server",
              catalog_cmd("exit"), "--server", "toolcat-no-such-server")
    assert run.rc == 2
    errors = run.err_lines
    assert len(errors) == 2 and all(x.startswith("toolcat: error: ") for x in errors), run.err
    assert "catalog_server-2: exited with status 3" in errors[0]
    assert "toolcat-no-such-server: command not found" in errors[1]
    assert "catalog_server" in run.out            # the good one was read and reported
    assert wait_gone(run.marker) == []


def test_capture_writes_the_servers_that_answered(cli, tmp_path):
    run = cli("capture", *SLACK, "-o", "caps", catalog_cmd(), catalog_cmd("exit"))
    assert run.rc == 2
    errors = [x for x in run.err_lines if x.startswith("toolcat: error: ")]
    assert len(errors) == 1 and "catalog_server-2: exited with status 3" in errors[0], run.err
    assert "Traceback" not in run.err
    assert json.loads((tmp_path / "caps" / "catalog_server.tools.json").read_text())["tools"]
    assert not (tmp_path / "caps" / "catalog_server-2.tools.json").exists()


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_capture_never_reads_a_fifo_or_device_target(cli, tmp_path, kind):
    """capture reads the file it may replace (to say "up to date"): through the one reader,
    so a FIFO there (which a plain open blocks on) or a link to /dev/zero (an endless read)
    is written to, as every output is; with --check it is one error line."""
    target = tmp_path / "t.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    run = cli("capture", *SLACK, "-o", str(target), "--check", raw_cmd(), timeout=60)
    errors = [x for x in run.err_lines if x.startswith("toolcat: error: ")]
    assert run.rc == 2 and len(errors) == 1 and "not a regular capture file" in errors[0], \
        run.err
    if kind == "zero":
        run = cli("capture", *SLACK, "-o", str(target), raw_cmd(), timeout=60)
        assert run.rc == 0 and "4 tools of raw_server" in run.err, run.err
        assert target.is_symlink()
        return
    import threading

    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(target.read_bytes()))
    reader.start()
    run = cli("capture", *SLACK, "-o", str(target), raw_cmd(), timeout=60)
    reader.join(30)
    assert run.rc == 0, run.err
    assert len(json.loads(got[0])["tools"]) == 4


@pytest.mark.parametrize("value,said", [("NaN", "NaN"), ("Infinity", "infinite"),
                                        ("1e400", "infinite")])
def test_a_number_json_has_no_value_for_is_an_error_not_null(cli, tmp_path, value, said):
    """The SDK's parser reads NaN, Infinity and 1e400 as floats, which written back are
    null: `maximum: NaN` became `maximum: null` in project's output and in the capture, a
    schema silently changed. A file holding them is invalid JSON; so is a server's page."""
    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "a", "inputSchema": {"type": "object", "properties": {"n": '
                     '{"type": "number", "maximum": %s}}}}]' % value)
    for args in (["project"], ["capture", "-o", str(tmp_path / "cap.json")]):
        run = cli(*args, *SLACK, "--server", raw_cmd(str(tools)), timeout=60)
        errors = [x for x in run.err_lines if x.startswith("toolcat: error: ")]
        assert run.rc == 2 and len(errors) == 1, run.err
        assert said in errors[0] and "/tools/0/inputSchema/properties/n/maximum" in errors[0]
        assert "null" not in run.out
    assert not (tmp_path / "cap.json").exists()


def test_server_stderr_goes_to_its_log_not_to_toolcat_output(cli, tmp_path):
    run = cli("tools", *SLACK, "--server", catalog_cmd())
    assert run.rc == 0
    assert "catalog_server: mode ok" not in run.err + run.out
    logs = list(tmp_path.rglob("catalog_server.*.log"))
    assert logs and "catalog_server: mode ok" in logs[0].read_text()
    shown = cli("tools", *SLACK, "-v", "--server", catalog_cmd())
    assert shown.rc == 0
    assert "[catalog_server] catalog_server: mode ok" in shown.err
    assert "catalog_server: mode ok" not in shown.out


def test_server_logs_never_follow_a_planted_link(cli, tmp_path):
    """Another local user who made $TMPDIR/toolcat-UID first (open to all) with a link at
    NAME.log: the victim's file is neither truncated nor written, and the log goes to a
    folder of the user's own (mode 0700). Before, the link was followed and the file
    overwritten with the server's stderr."""
    base = tmp_path / f"toolcat-{os.getuid()}"
    (base / "servers").mkdir(parents=True)
    base.chmod(0o777)
    (base / "servers").chmod(0o777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (base / "servers" / "catalog_server.log").symlink_to(victim)
    run = cli("tools", *SLACK, "--server", catalog_cmd())
    assert run.rc == 0, run.err
    assert victim.read_text() == "precious\n"
    logs = [p for p in tmp_path.rglob("catalog_server.*.log") if not p.is_symlink()]
    assert len(logs) == 1 and "catalog_server: mode ok" in logs[0].read_text()
    assert base not in logs[0].parents
    assert logs[0].parent.stat().st_mode & 0o777 == 0o700


def test_runs_never_share_a_log_and_old_logs_do_not_pile_up(tmp_path):
    from toolcat.formats.live import logs

    folder = str(tmp_path / "servers")
    a, pa = logs.open_log(folder, "srv")
    b, pb = logs.open_log(folder, "srv")          # a concurrent run: its own file
    assert pa != pb
    a.write(b"run a\n")
    a.close()
    os.utime(pa, (0, 0))                          # an earlier run, over
    c, pc = logs.open_log(folder, "srv")          # the next run removes what no run holds
    assert not os.path.exists(pa) and os.path.exists(pb) and os.path.exists(pc)
    b.close()
    c.close()
    os.symlink(tmp_path / "elsewhere", os.path.join(folder, "other.abcdefgh.log"))
    d, pd = logs.open_log(folder, "other")       # a link is never followed nor removed
    d.close()
    assert os.path.islink(os.path.join(folder, "other.abcdefgh.log"))


def test_env_values_are_never_echoed(cli):
    line = one_error(cli("capture", *SLACK, "API_TOKEN=hunter2-value toolcat-no-such-server"),
                     "command not found")
    assert "hunter2-value" not in line


# --------------------------------------------------------------------------- HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_connection_refused(cli):
    one_error(cli("tools", *SLACK, "--url", f"http://127.0.0.1:{_free_port()}/mcp"),
              "cannot connect", "connection refused")


def test_http_never_answers(cli, tmp_path):
    # a server of its own: the request it never answers stays pending there
    with http_server([PY, str(SERVERS / "catalog_server.py"), "--http", "0"], tmp_path,
                     path="/slow") as url:
        t = time.monotonic()
        run = cli("tools", "-v", "--timeout", "2", "--url", url)
        took = time.monotonic() - t
    assert run.rc == 2
    errors = [x for x in run.err_lines if x.startswith("toolcat: error: ")]
    assert len(errors) == 1 and "within 2 s" in errors[0], run.err
    from toolcat.formats.live.session import MIN_BUDGET

    # toolcat's whole run ends within the timeout plus 2 s, plus what starting Python and
    # loading the SDK took beyond the budget (see the stdio case)
    overrun = max(0.0, sdk_seconds(run) + MIN_BUDGET - 2)
    assert took < 2 + 2 + overrun + _python_start(), (took, overrun)


def _python_start() -> float:
    """Seconds this machine takes to start a Python that imports toolcat's CLI (measured
    now: a loaded machine is no server failure)."""
    t = time.monotonic()
    subprocess.run([PY, "-c", "import toolcat.cli, typer"], check=True)
    return time.monotonic() - t


def test_http_answers_with_html(cli, catalog_http):
    one_error(cli("capture", *SLACK, catalog_http + "/html"), "an HTML page, not MCP")


def test_http_401_and_the_header_is_not_echoed(cli, catalog_http):
    one_error(cli("tools", *SLACK, "--url", catalog_http + "/mcp"), "HTTP 401", "--header")
    line = one_error(cli("lint", *SLACK, "--url", catalog_http + "/mcp?api_key=query-secret",
                         "--header", "Authorization: Bearer wrong-secret-value"), "HTTP 401")
    assert "wrong-secret-value" not in line and "query-secret" not in line
    ok = cli("tools", *SLACK, "--url", catalog_http + "/mcp", "--header",
             "Authorization: Bearer secret-token")
    assert ok.rc == 0 and "7 tools" in ok.out
    assert "secret-token" not in ok.out + ok.err


def test_http_404(cli, catalog_http):
    one_error(cli("measure", *SLACK, "--url", catalog_http + "/nothing-here"), "HTTP 404")


# --------------------------------------------------------------------------- signals


def _start(tmp_path, *args: str):
    import uuid

    marker = uuid.uuid4().hex
    stamp = tmp_path / "started"
    p = subprocess.Popen(toolcat_argv(*args), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path,
                         env=live_env({"TOOLCAT_TEST_MARK": marker, "TMPDIR": str(tmp_path),
                                       "CATALOG_SERVER_STARTED": str(stamp)}))
    deadline = time.monotonic() + 60
    # wait until the server runs and toolcat has its client up (the SDK imported)
    while time.monotonic() < deadline and not (stamp.exists() and len(marked(marker)) >= 3):
        time.sleep(0.05)
    time.sleep(1.5)
    return p, marker


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupted_toolcat_leaves_no_server(tmp_path, sig):
    p, marker = _start(tmp_path, "lint", "--timeout", "60", "--server", catalog_cmd("hang"))
    try:
        assert len(marked(marker)) >= 3      # toolcat, the server and the server's child
        p.send_signal(sig)
        out, err = p.communicate(timeout=20)
        if sig == signal.SIGINT:
            assert p.returncode == 130, err
            assert err.decode().strip() == "toolcat: interrupted"
        else:
            assert p.returncode == -signal.SIGTERM, err
            assert b"Traceback" not in err
        assert wait_gone(marker) == []
    finally:
        if p.poll() is None:
            p.kill()
        for pid, _ in marked(marker):
            os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------- message limits


def _nested(depth: int) -> dict:
    s: dict = {"type": "string"}
    for _ in range(depth - 4):        # the tool list around it holds 4 more levels
        s = {"type": "array", "items": s}
    return s


@pytest.mark.parametrize("depth", [205, 300])
def test_a_deep_schema_reads_live_as_in_a_file(cli, tmp_path, depth):
    """One nesting limit and one message for a server and a file: ~205 levels are read
    both ways (live, it was 'wrote something that is not JSON-RPC'); past the file limit
    (256) both say 'nesting deeper than 256 levels'."""
    tools = tmp_path / "deep.json"
    tools.write_text(json.dumps({"tools": [{"name": "deep", "inputSchema": {
        "type": "object", "properties": {"x": _nested(depth)}}}]}))
    live = cli("tools", *SLACK, "--server", raw_cmd(str(tools)))
    file = cli("tools", str(tools))
    if depth < 256:
        assert (live.rc, file.rc) == (0, 0), live.err + file.err
        assert "deep" in live.out and "deep" in file.out
    else:
        assert "nesting deeper than 256 levels" in one_error(live)
        assert file.rc == 2 and "nesting deeper than 256 levels" in file.err


class _HugeHTTP:
    """A hostile Streamable HTTP server (127.0.0.1): a plain 2025-06-18 handshake, then a
    tools/list answer of ``size`` bytes as a JSON body (with or without Content-Length) or
    as one SSE event."""

    def __init__(self, size: int, how: str) -> None:
        import http.server
        import threading

        owner = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_DELETE(self):
                self.do_GET()

            def do_POST(self):
                msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if "id" not in msg:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if msg["method"] == "initialize":
                    body = {"jsonrpc": "2.0", "id": msg["id"], "result": {
                        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "huge", "version": "1"}}}
                elif msg["method"] == "tools/list":
                    pad = "x" * size
                    body = {"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [
                        {"name": "big", "description": pad, "inputSchema": {"type": "object"}}]}}
                else:
                    body = {"jsonrpc": "2.0", "id": msg["id"],
                            "error": {"code": -32601, "message": "Method not found"}}
                data = json.dumps(body).encode()
                self.send_response(200)
                if owner.how == "sse" and msg["method"] == "tools/list":
                    self.send_header("Content-Type", "text/event-stream")
                    data = b"event: message\ndata: " + data + b"\n\n"
                else:
                    self.send_header("Content-Type", "application/json")
                if owner.how == "chunked" or owner.how == "sse":
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for i in range(0, len(data), 65536):
                        part = data[i:i + 65536]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.how = how
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mcp"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("how", ["length", "chunked", "sse"])
def test_http_bodies_have_the_size_limit_of_stdio_lines(cli, how):
    """Streamable HTTP bodies (an SSE stream: each event) get the one size limit of a
    message (TOOLCAT_MAX_FILE_SIZE, as a stdio line and a file): past it one error line,
    the body not read further. Before, any size was read (300 MB took 1.9 GB)."""
    srv = _HugeHTTP(300_000, how)
    try:
        small = {"TOOLCAT_MAX_FILE_SIZE": "200000"}
        line = one_error(cli("tools", *SLACK, "--url", srv.url, env=small), "larger than 195 KiB",
                         "TOOLCAT_MAX_FILE_SIZE")
        assert ("SSE event" if how == "sse" else "HTTP body") in line
        ok = cli("tools", *SLACK, "--url", srv.url)     # under the default limit: read
        assert ok.rc == 0 and "big" in ok.out, ok.err
    finally:
        srv.close()


def test_stdio_lines_have_the_same_size_limit(cli, tmp_path):
    tools = tmp_path / "big.json"
    tools.write_text(json.dumps({"tools": [{"name": "big", "description": "x" * 300_000,
                                            "inputSchema": {"type": "object"}}]}))
    one_error(cli("tools", *SLACK, "--server", raw_cmd(str(tools)),
                  env={"TOOLCAT_MAX_FILE_SIZE": "200000"}), "larger than 195 KiB",
              "TOOLCAT_MAX_FILE_SIZE")


def test_a_daemonised_grandchild_does_not_outlive_toolcat(cli):
    """A server that starts a daemon (fork, setsid, fork: it leaves the server's process
    group): toolcat, subreaper of its orphans on Linux, ends it at the end of the run. Before,
    it outlived toolcat (reparented to init)."""
    run = cli("tools", *SLACK, "--server", catalog_cmd("daemon"))
    assert run.rc == 0, run.err
    assert wait_gone(run.marker) == [], "the daemonised grandchild outlived toolcat"


def test_the_default_timeout_lets_a_cold_start_finish(cli):
    """The default --timeout is chosen from measured cold starts (a first uvx mcp-server-time
    took 12.4 s): a server that takes 12.5 s to start is read without --timeout (before, the
    10 s default ended it)."""
    run = cli("tools", "--server", catalog_cmd("slow-start"))
    assert run.rc == 0, run.err
    assert "catalog_server" in run.out
