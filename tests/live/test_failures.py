"""Every way a server can fail gives one ``toolcat: error:`` line and exit 2, never a
traceback or a hang, and leaves no process behind (checked in the process table)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (the live extra)")
pytest.importorskip("toolcat.formats.live.capture",
                    reason="toolcat.formats is not a package in this install yet")

from live_support import (  # noqa: E402
    DRIVER,
    PY,
    SERVERS,
    catalog_cmd,
    catalog_http,  # noqa: F401 - a fixture
    drive,  # noqa: F401 - a fixture
    http_server,
    live_env,
    marked,
    raw_cmd,
    wait_gone,
)


# Cases that are not about the timeout get a long one: a machine starved by other work is
# no server failure.
SLACK = ("--timeout", "60")


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


def test_command_not_found(drive):
    line = one_error(drive(*SLACK, "--server", "toolcat-no-such-server --flag"),
                     "command not found", "toolcat-no-such-server")
    assert line.startswith("toolcat: error: toolcat-no-such-server: ")


def test_exits_before_answering(drive):
    one_error(drive(*SLACK, "--server", catalog_cmd("exit")),
              "exited with status 3 before answering")


@pytest.mark.parametrize("mode,shown", [("garbage", "catalog_server starting up"),
                                        ("not-jsonrpc", '{"hello": "world"}')])
def test_writes_what_is_not_json_rpc_to_stdout(drive, mode, shown):
    one_error(drive(*SLACK, "--server", catalog_cmd(mode)), "not JSON-RPC to stdout", shown)


def test_never_answers_is_killed_after_the_timeout(drive, tmp_path):
    # The server ignores SIGTERM, never exits when its stdin closes and leaves a child in its
    # process group: only SIGKILL to the group ends it.
    stamp, timings = tmp_path / "started", tmp_path / "timings"
    run = drive("--timeout", "3", "--server", catalog_cmd("hang"),
                env={"CATALOG_SERVER_STARTED": str(stamp), "TOOLCAT_TEST_TIMINGS": str(timings)})
    ended = time.time()
    one_error(run, "within 3 s", "process group was ended")
    started = float(stamp.read_text().split()[0])
    # The bound: the timeout plus 2 s, from the server's start to toolcat's exit.
    # The deadline counts from the server's start, toolcat's SDK import included, but leaves
    # the client at least MIN_BUDGET once it runs: an import slower than the timeout (a
    # machine under load) moves the deadline by what it overran, and only by that.
    from toolcat.formats.live.session import MIN_BUDGET

    overrun = max(0.0, float(timings.read_text().split()[0]) + MIN_BUDGET - 3)
    assert ended - started < 3 + 2 + overrun, (ended - started, overrun)


def test_answers_initialize_but_fails_tools_list(drive):
    one_error(drive(*SLACK, "--server", catalog_cmd("tools-error")),
              "answered tools/list with error -32603", "the tool registry is unavailable")


def test_hangs_on_the_second_page(drive):
    one_error(drive("--timeout", "8", "--server", catalog_cmd("hang-page2")),
              "tools/list (page 2)", "within 8 s")


def test_pages_that_never_end(drive):
    one_error(drive(*SLACK, "--server", catalog_cmd("loop")),
              "nextCursor 'again' was already given")


def test_invalid_tools_are_no_error(drive, tmp_path):
    run = drive(*SLACK, "-o", str(tmp_path), "--server", raw_cmd())
    assert run.rc == 0, run.err
    assert run.err == ""
    assert "4 tools, 1 pages" in run.out
    assert wait_gone(run.marker) == []


def test_one_failing_server_does_not_stop_the_others(drive, tmp_path):
    run = drive(*SLACK, "-o", str(tmp_path), "--server", catalog_cmd(), "--server",
                catalog_cmd("exit"))
    assert run.rc == 2
    assert len(run.err_lines) == 1 and "exited with status 3" in run.err
    assert "7 tools, 3 pages" in run.out
    assert wait_gone(run.marker) == []


def test_server_stderr_goes_to_its_log_not_to_toolcat_output(drive, tmp_path):
    run = drive(*SLACK, "--server", catalog_cmd())
    assert run.rc == 0
    assert "catalog_server: mode ok" not in run.err + run.out
    logs = list(tmp_path.rglob("catalog_server.log"))
    assert logs and "catalog_server: mode ok" in logs[0].read_text()
    shown = drive(*SLACK, "-v", "--server", catalog_cmd())
    assert shown.rc == 0
    assert "[catalog_server] catalog_server: mode ok" in shown.err


def test_env_values_are_never_echoed(drive):
    line = one_error(drive(*SLACK, "--server",
                           "API_TOKEN=hunter2-value toolcat-no-such-server"),
                     "command not found")
    assert "hunter2-value" not in line


# --------------------------------------------------------------------------- HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_connection_refused(drive):
    one_error(drive(*SLACK, "--url", f"http://127.0.0.1:{_free_port()}/mcp"), "cannot connect",
              "connection refused")


def test_http_never_answers(drive, tmp_path):
    timings = tmp_path / "timings"
    # a server of its own: the request it never answers stays pending there
    with http_server([PY, str(SERVERS / "catalog_server.py"), "--http", "0"], tmp_path,
                     path="/slow") as url:
        run = drive("--timeout", "2", "--url", url, env={"TOOLCAT_TEST_TIMINGS": str(timings)})
    one_error(run, "within 2 s")
    from toolcat.formats.live.session import MIN_BUDGET

    sdk_import, took = map(float, timings.read_text().split())
    # the capture itself ends within the timeout plus 2 s (see the stdio case for overrun)
    assert took < 2 + 2 + max(0.0, sdk_import + MIN_BUDGET - 2), (took, sdk_import)


def test_http_answers_with_html(drive, catalog_http):
    one_error(drive(*SLACK, "--url", catalog_http + "/html"), "an HTML page, not MCP")


def test_http_401_and_the_header_is_not_echoed(drive, catalog_http):
    one_error(drive(*SLACK, "--url", catalog_http + "/mcp"), "HTTP 401", "--header")
    line = one_error(drive(*SLACK, "--url", catalog_http + "/mcp?api_key=query-secret",
                           "--header",
                           "Authorization: Bearer wrong-secret-value"), "HTTP 401")
    assert "wrong-secret-value" not in line and "query-secret" not in line
    ok = drive(*SLACK, "--url", catalog_http + "/mcp", "--header",
               "Authorization: Bearer secret-token")
    assert ok.rc == 0 and "7 tools, 3 pages" in ok.out


def test_http_404(drive, catalog_http):
    one_error(drive(*SLACK, "--url", catalog_http + "/nothing-here"), "HTTP 404")


# --------------------------------------------------------------------------- signals


def _start_driver(tmp_path, *args: str):
    import uuid

    marker = uuid.uuid4().hex
    stamp = tmp_path / "started"
    p = subprocess.Popen([PY, str(DRIVER), *args], stdout=subprocess.PIPE,
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
    p, marker = _start_driver(tmp_path, "--timeout", "60", "--server", catalog_cmd("hang"))
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
