"""toolcat's I/O and terminal output can be trusted whatever the input (issue 13; issue 12
items 16-18). One test (or a few) per item; every input is made here, devices and FIFOs in a
temporary folder (as root, which is who CI runs as, a device node can be made with mknod).

Each test is named for what it checks. Most run toolcat in a fresh process with a CPU bound
(what a hang or a runaway would look like to a user); see ``run`` below.
"""

from __future__ import annotations

import json
import os
import pty
import re
import resource
import select
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from support.common import SAMPLES

GIT = SAMPLES / "git.tools.json"
IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="mknod of a device needs root (CI runs as root)")
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")   # C0 (not \t \n), DEL, C1


def _write(p: Path, data) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, (dict, list)):
        p.write_text(json.dumps(data), encoding="utf-8")
    elif isinstance(data, str):
        p.write_text(data, encoding="utf-8")
    else:
        p.write_bytes(data)
    return p


def _mcp(*tools) -> dict:
    return {"tools": [dict({"description": "d", "inputSchema": {"type": "object",
                                                                "properties": {}}}, **t)
                      for t in tools]}


def _bounded(cpu: int):
    def pre():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    return pre


CPU_BOUND = 20   # seconds of CPU a run may take before it counts as a runaway


def run(*args, input=None, cwd=None, env=None, cpu: int | None = None, timeout: float = 120,
        stdin=None, fresh: bool = False) -> subprocess.CompletedProcess:
    """toolcat with a CPU bound of ``cpu`` seconds (default 20) and a wall-clock guard.

    In this process (support.fuzz_support.run_inprocess: ``toolcat.cli.run`` as ``main`` runs
    it) unless ``fresh``, ``env``, ``stdin`` or an explicit ``cpu`` is given (or
    ``TOOLCAT_TEST_FRESH=1`` is set, as for support.common.run_toolcat): then in a fresh
    process with RLIMIT_CPU (a runaway, even inside C code, is killed by SIGXCPU: a negative
    exit code). In this process a run over the bound gets that same exit code, and the
    wall-clock guard (``timeout``) ends a run that blocks."""
    if fresh or env or stdin is not None or cpu is not None or os.environ.get("TOOLCAT_TEST_FRESH"):
        e = dict(os.environ)
        e.pop("FORCE_COLOR", None)
        e.pop("TOOLCAT_DEBUG", None)
        e["NO_COLOR"] = "1"
        if env:
            e.update(env)
        return subprocess.run([sys.executable, "-m", "toolcat", *map(str, args)], input=input,
                              stdin=stdin, capture_output=True, cwd=cwd, env=e, timeout=timeout,
                              preexec_fn=_bounded(cpu or CPU_BOUND))
    from support.fuzz_support import run_inprocess

    argv = [str(a) for a in args]
    r = run_inprocess(argv, cwd=str(cwd) if cwd is not None else None, input=input,
                      timeout=timeout)
    if r.timed_out:
        raise subprocess.TimeoutExpired(["toolcat", *argv], timeout)
    code = -signal.SIGXCPU if r.cpu > CPU_BOUND else r.code
    return subprocess.CompletedProcess(["toolcat", *argv], code, r.out, r.err)


def one_error_line(r, *needles: str) -> str:
    """Exit 2 with exactly one ``toolcat: error:`` line (and at most a help hint), no
    traceback, no control character; returns the line."""
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 2, (r.returncode, err, r.stdout[:300])
    lines = err.splitlines()
    assert lines and lines[0].startswith("toolcat: error: "), err
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("Try '")), err
    assert "Traceback" not in err and "internal error" not in err, err
    assert not CONTROL.search(r.stderr), err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def no_temp_files(folder: Path) -> None:
    left = [p for p in folder.rglob("*") if p.name.startswith(".toolcat-")]
    assert not left, left


# ============================================================================ files, streams, signals, text

# ---- writing over a special file

WRITERS = {
    "project -o": lambda out, other: ["project", GIT, "-q", "-o", out],
    "project --handbook": lambda out, other: ["project", GIT, "-q", "-o", other,
                                              "--handbook", out],
    "project --report": lambda out, other: ["project", GIT, "-q", "-o", other, "--report", out],
    "lint -o": lambda out, other: ["lint", GIT, "-o", out],
    "lint --write-baseline": lambda out, other: ["lint", GIT, "-q", "--write-baseline", out],
    "measure --write-baseline": lambda out, other: ["measure", GIT, "-q", "--write-baseline",
                                                    out],
}
# Never the real /dev entries: a regression would replace them on the machine running the
# tests (as root, /dev/null became a regular file). Devices are mknod copies in tmp_path.


@needs_root
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_device_target_is_written_not_replaced(tmp_path: Path, writer: str) -> None:
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # a copy of /dev/null
    os.chmod(dev, 0o666)
    r = run(*WRITERS[writer](dev, tmp_path / "other.json"))
    assert r.returncode in (0, 1), r.stderr
    st = os.lstat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), writer
    assert stat.S_IMODE(st.st_mode) == 0o666
    no_temp_files(tmp_path)


@pytest.mark.parametrize("writer", ["project -o", "lint -o", "measure --write-baseline"])
def test_a_fifo_target_is_written_not_replaced(tmp_path: Path, writer: str) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = bytearray()

    def reader():
        with open(fifo, "rb") as f:
            got.extend(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    r = run(*WRITERS[writer](fifo, tmp_path / "other.json"))
    t.join(30)
    assert r.returncode in (0, 1), r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert len(got) > 10
    if writer == "project -o":
        assert json.loads(got)["tools"]
    no_temp_files(tmp_path)


def test_a_fifo_without_reader_is_one_error_not_a_hang(tmp_path: Path) -> None:
    from toolcat.files import FIFO_WAIT

    fifo = tmp_path / "nobody.fifo"
    os.mkfifo(fifo)
    # a blocking open would never return: run()'s timeout fails the test then
    r = run("project", GIT, "-q", "-o", fifo, timeout=FIFO_WAIT + 100)
    one_error_line(r, str(fifo), "FIFO", "reader")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    no_temp_files(tmp_path)


@pytest.mark.fresh
def test_dev_stdout_style_link_reaches_stdout(tmp_path: Path) -> None:
    # /dev/stdout's shape (a link to /proc/self/fd/1), and /dev/fd/1's (a link through a
    # link), as copies: never the real /dev entries
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    fd = tmp_path / "fd"
    fd.symlink_to("/proc/self/fd")
    via = tmp_path / "via"
    via.symlink_to(fd / "1")
    for target in (link, via):   # a fresh process: /proc/self/fd/1 is its own stdout
        r = run("project", GIT, "-q", "-o", target, fresh=True)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["tools"], "the catalog must reach stdout"
        assert os.path.islink(target) and os.readlink(target) in ("/proc/self/fd/1",
                                                                  str(fd / "1"))
    no_temp_files(tmp_path)


def test_replaced_file_keeps_owner_and_mode(tmp_path: Path) -> None:
    real = _write(tmp_path / "data" / "out.json", b"old")
    os.chmod(real, 0o640)
    if IS_ROOT:
        os.chown(real, 4321, 4322)
    r = run("project", GIT, "-q", "-o", real)
    assert r.returncode == 0, r.stderr
    assert json.loads(real.read_bytes())["tools"]
    st = os.stat(real)
    assert stat.S_IMODE(st.st_mode) == 0o640
    if IS_ROOT:
        assert (st.st_uid, st.st_gid) == (4321, 4322)
    no_temp_files(tmp_path)
    # a new file gets the umask's mode; `-` is stdout
    r = run("project", GIT, "-q", "-o", "-")
    assert r.returncode == 0 and json.loads(r.stdout)["tools"]


@pytest.mark.parametrize("argv", [
    ("project", "-q", "-o", "{out}", GIT),
    ("project", "-q", "-o", "{new}", "--handbook", "{out}", GIT),
    ("project", "-q", "-o", "{new}", "--report", "{out}", GIT),
    ("lint", "-f", "sarif", "-o", "{out}", GIT),
    ("lint", "--write-baseline", "{out}", GIT),
    ("measure", "--write-baseline", "{out}", GIT),
], ids=["project", "handbook", "report", "lint-output", "lint-baseline", "measure-baseline"])
def test_an_output_that_is_a_link_to_a_file_is_refused(tmp_path: Path, argv) -> None:
    """A link planted where an output goes (out.json -> another file) is one error line: the
    file it names is neither replaced nor, for a link to nothing, made (issue 36)."""
    victim = _write(tmp_path / "victim.txt", b"precious\n")
    for name, target in (("out.json", victim), ("dangling.json", tmp_path / "made.txt")):
        link = tmp_path / name
        link.symlink_to(target)
        args = [str(a).format(out=link, new=tmp_path / "new.json") for a in argv]
        one_error_line(run(*args), name, "symbolic link")
        assert victim.read_bytes() == b"precious\n"
        assert not (tmp_path / "made.txt").exists() and not (tmp_path / "new.json").exists()
        assert os.path.islink(link)
    no_temp_files(tmp_path)


def test_a_socket_target_is_one_error(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        r = run("project", GIT, "-q", "-o", path)
        one_error_line(r, str(path), "socket")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        s.close()


# ---- patterns from the catalog never hang

@pytest.mark.fresh
def test_catastrophic_pattern_is_bounded(tmp_path: Path) -> None:
    f = _write(tmp_path / "redos.json", _mcp({"name": "t", "inputSchema": {
        "type": "object", "properties": {}, "required": ["a" * 40 + "!"],
        "patternProperties": {"^(a+)+$": {}}}}))
    r = run("lint", f, cpu=10)
    assert r.returncode == 0, (r.returncode, r.stderr)   # a warning: exit 0, not killed
    assert b"SC303" in r.stdout and b"not declared" in r.stdout
    for cmd in ("project", "measure", "tools"):
        assert run(cmd, f, "-q", cpu=10).returncode == 0


def test_unevaluable_pattern_is_a_finding_that_says_so(tmp_path: Path) -> None:
    f = _write(tmp_path / "look.json", _mcp({"name": "t", "inputSchema": {
        "type": "object", "properties": {}, "required": ["ab"],
        "patternProperties": {"^(?=a)ab$": {}, "a{99999999999}": {}}}}))
    r = run("lint", f, "-f", "json")
    assert r.returncode == 0, r.stderr
    msgs = [x["message"] for x in json.loads(r.stdout)["findings"] if x["code"] == "SC303"]
    assert msgs and "could not be checked" in msgs[0] and "lookahead" in msgs[0], msgs


def test_huge_repeat_counts_never_overflow(tmp_path: Path) -> None:
    f = _write(tmp_path / "rep.json", _mcp({"name": "t", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "string", "pattern": "a{99999999999}"},
                                         "b": {"type": "string", "pattern": "(a{3,2}"}},
        "required": ["zz"], "patternProperties": {"x{4294967296}": {}}}}))
    for args in (["lint", f], ["lint", "-f", "json", f], ["project", "-q", f],
                 ["project", "-q", "--to", "openwop", f], ["measure", f]):
        r = run(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr
    findings = json.loads(run("lint", "-f", "json", f).stdout)["findings"]
    sc301 = [x["pointer"] for x in findings if x["code"] == "SC301"]
    # a{99999999999} is valid ECMA-262; (a{3,2} is not
    assert any(p.endswith("/b/pattern") for p in sc301), findings
    assert not any(p.endswith("/a/pattern") for p in sc301), findings


@pytest.mark.fresh
def test_deeply_nested_groups_stay_in_bounded_memory(tmp_path: Path) -> None:
    # 30,000 nested capture groups: RE2 with captures allocated ~22 GB (the OOM killer
    # ended the run, exit 137). An address-space limit makes a regression a failure here,
    # not a machine out of memory.
    deep = "(" * 30000 + ")" * 30000
    f = _write(tmp_path / "t.json", _mcp({"name": "t", "inputSchema": {
        "type": "object", "properties": {"x": {"type": "string", "pattern": deep}},
        "patternProperties": {deep: {}}, "required": ["y" * 40 + "!"]}}))

    def limited():
        resource.setrlimit(resource.RLIMIT_CPU, (30, 31))
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    e = dict(os.environ, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "toolcat", "lint", "-f", "json", str(f)],
                       capture_output=True, env=e, timeout=300, preexec_fn=limited)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-500:])
    msgs = [x["message"] for x in json.loads(r.stdout)["findings"] if x["code"] == "SC303"]
    assert any("could not be checked" in m or "nests groups" in m for m in msgs), msgs


def test_regex_module_answers_as_ecma262() -> None:
    from toolcat.schema.regex import Unchecked, search, syntax_error

    cases = [("^a$", "a\n", False),          # $ is the end of the text (Python's re: True)
             (r"\d", "\u0663", False),       # \d is ASCII
             (r"^\s$", "\u00a0", True),      # \s is ECMA-262 white space
             (".", "\u2028", False),         # . stops at every line terminator
             ("^[^]$", "\n", True), ("[]", "a", False), (r"\u0041", "A", True),
             (r"\cA", "\x01", True), ("(?<n>a)b", "ab", True), ("x{", "x{", True),
             ("^(a+)+$", "a" * 5000 + "!", False)]
    for pat, text, want in cases:
        assert search(pat, text) is want, (pat, text)
    for pat in (r"(?=a)", r"(?<=a)b", r"(a)\1", "a{1001}"):
        assert isinstance(search(pat, "a"), Unchecked), pat
    assert isinstance(search("a", "\ud800"), Unchecked)
    for pat in ("a{99999999999}", r"\cC", r"\p{L}", "(?<=x)y"):
        assert syntax_error(pat) is None, pat
    for pat in ("(", "[a", "a{3,2}", "*a"):
        assert syntax_error(pat), pat


# ---- reading a FIFO never blocks; the same size limit everywhere

def test_fifos_are_refused_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "cat.json"
    os.mkfifo(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "x.json")
    _write(folder / "ok.json", GIT.read_bytes())
    spec = _write(tmp_path / "spec" / "openapi.yaml",
                  "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                  "      operationId: a\n      parameters:\n        - $ref: 'p.yaml'\n"
                  "      responses: {'200': {description: ok}}\n")
    os.mkfifo(tmp_path / "spec" / "p.yaml")
    for cmd in ("tools", "lint", "measure", "project"):
        one_error_line(run(cmd, fifo, timeout=60), "cat.json", "FIFO")
        one_error_line(run(cmd, link, timeout=60), "link.json", "FIFO")
    r = run("lint", folder, timeout=60)       # the other file is linted, then one error line
    assert r.returncode == 2 and b"x.json" in r.stderr and b"FIFO" in r.stderr
    r = run("lint", spec, timeout=60)          # a $ref to a FIFO: a finding, not a hang
    assert r.returncode == 1 and b"FIFO" in r.stdout and b"SC302" in r.stdout
    one_error_line(run("lint", GIT, "--baseline", fifo, timeout=60), "FIFO")
    one_error_line(run("measure", GIT, "--baseline", fifo, "--max-increase", "1",
                       timeout=60), "FIFO")
    one_error_line(run("project", GIT, "-o", fifo, "--check", timeout=60), "FIFO")


@needs_root
def test_zero_device_is_refused(tmp_path: Path) -> None:
    zero = tmp_path / "zero"
    os.mknod(zero, 0o666 | stat.S_IFCHR, os.makedev(1, 5))   # a copy of /dev/zero
    one_error_line(run("lint", zero, timeout=60), "character device")
    one_error_line(run("lint", GIT, "--baseline", zero, timeout=60), "character device")
    one_error_line(run("project", GIT, "-o", zero, "--check", timeout=60), "character device")


@pytest.mark.fresh
def test_check_and_baseline_files_have_the_size_limit(tmp_path: Path) -> None:
    big = _write(tmp_path / "big.json", b"[" + b"0," * 60_000 + b"0]")
    env = {"TOOLCAT_MAX_FILE_SIZE": "100000"}
    one_error_line(run("lint", GIT, "--baseline", big, env=env), "over the", "limit")
    one_error_line(run("measure", GIT, "--baseline", big, "--max-increase", "1", env=env),
                   "over the", "limit")
    r = run("project", GIT, "-q", "-o", big, "--check", env=env)
    assert r.returncode == 1          # over the limit: not what would be written


# ---- terminal injection

HOSTILE = "x\x1b]0;pwned\x07\x1b[2J\x1b[31mred\rCR\nLF\x00nul\x7f\u009b\u202eevil\u2028"


def _no_control(*streams: bytes) -> None:
    for s in streams:
        assert not CONTROL.search(s), s[:500]
        assert "\u202e".encode() not in s and "\u2028".encode() not in s


def test_control_characters_are_escaped_everywhere(tmp_path: Path) -> None:
    f = _write(tmp_path / "evil.json", _mcp(
        {"name": HOSTILE, "title": HOSTILE, "description": HOSTILE,
         "inputSchema": {"type": "object", "properties": {HOSTILE: {"type": "string"}},
                         "required": [HOSTILE + "!"]}}))
    other = _write(tmp_path / "other.json", _mcp({"name": "b", "inputSchema": {"type": "object"}}))
    for args in (["tools", f], ["lint", f], ["lint", "-f", "github", f],
                 ["lint", "-f", "concise", f], ["lint", "--statistics", f],
                 ["measure", f, "--top", "3"], ["measure", "-f", "markdown", f, "--top", "1"],
                 ["project", f, "-o", tmp_path / "o.json"], ["diff-toolids", f, f],
                 ["diff-toolids", f, other], ["diff", f, other], ["diff", "--ids-only", f, other]):
        r = run(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        _no_control(r.stdout, r.stderr)
    out = run("tools", f).stdout.decode()
    assert "\\x1b]0;pwned\\x07" in out and "\\n" in out      # shown, escaped
    # machine formats stay exact
    data = json.loads(run("lint", "-f", "json", f).stdout)
    assert any(x["tool"] == HOSTILE for x in data["findings"])
    assert json.loads(run("tools", "-f", "json", f).stdout)["catalogs"][0]["tools"][0]["id"] \
        == HOSTILE


def test_error_lines_and_file_names_stay_one_line(tmp_path: Path) -> None:
    name = tmp_path / "a\nb\x1b[31m.json"
    _write(name, "{not json")
    for cmd in ("tools", "lint", "measure", "project"):
        line = one_error_line(run(cmd, name))
        assert "a\\nb\\x1b[31m.json" in line
    rpc = _write(tmp_path / "rpc.json", {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -1, "message": "bad\n\x1b]8;;http://x\x07link"}})
    one_error_line(run("tools", rpc), "JSON-RPC")
    tag = _write(tmp_path / "tag.yaml", "tools: !\x1b[31mevil []\n")
    one_error_line(run("tools", tag))


# ---- Rich markup

@pytest.mark.parametrize("name", ["[/]", "[bold]x[/bold]", "[link=http://evil.example]x[/link]",
                                  "[red]", "a[/b]"])
def test_catalog_text_is_never_markup(tmp_path: Path, name: str) -> None:
    f = _write(tmp_path / f"m{abs(hash(name))}.json",
               _mcp({"name": name, "title": name}, {"name": "ok"}))
    for args in (["tools", f], ["measure", f, "--top", "2"], ["lint", f],
                 ["project", f, "-o", tmp_path / "o.json"]):
        r = run(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        assert b"internal error" not in r.stderr
    out = run("tools", f).stdout.decode()
    assert name in out, out
    top = run("measure", f, "--top", "2").stdout.decode()
    assert name in top, top


def test_markup_in_file_names_is_literal(tmp_path: Path) -> None:
    f = _write(tmp_path / "[bold]x[/].json", GIT.read_bytes())
    r = run("tools", f)
    assert r.returncode == 0 and b"[bold]x[/].json" in r.stdout


# ---- secrets are not reprinted

def test_tc105_source_line_is_masked(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    f = _write(tmp_path / "s.yaml", "tools:\n  - name: t\n    description: d\n"
               "    inputSchema:\n      type: object\n      properties:\n        k:\n"
               f"          type: string\n          default: \"{token}\"\n"
               "          x-password: hunter2hunter2\n")
    r = run("lint", f, "--select", "TC105,MR401")
    assert r.returncode == 1 and b"TC105" in r.stdout, r.stdout
    assert token.encode() not in r.stdout and token[6:].encode() not in r.stdout
    assert b"hunter2hunter2" not in r.stdout and b"unter2hunter2" not in r.stdout
    assert b"ghp_" in r.stdout      # the start is shown, so the line can still be found
    for fmt in ("concise", "github", "json", "sarif", "junit"):
        assert token.encode() not in run("lint", "-f", fmt, f).stdout, fmt


# ---- a symlinked spec does not move the containment folder

def test_symlinked_spec_refs_stay_in_the_named_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _write(elsewhere / "spec.yaml",
           "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
           "      operationId: a\n      parameters:\n        - $ref: 'secret.yaml'\n"
           "      responses: {'200': {description: ok}}\n")
    _write(elsewhere / "secret.yaml", "name: q\nin: query\ndescription: TOPSECRET\n"
           "schema: {type: string}\n")
    given = tmp_path / "given"
    given.mkdir()
    (given / "spec.yaml").symlink_to(elsewhere / "spec.yaml")
    r = run("project", "-q", "--view", "standard", "--broken-refs", "fail", given / "spec.yaml")
    assert b"TOPSECRET" not in r.stdout
    one_error_line(r, "secret.yaml")
    # by default (--broken-refs widen) the tool is built without the parameter it cannot read
    r = run("project", "--view", "standard", given / "spec.yaml")
    assert r.returncode == 0 and b"TOPSECRET" not in r.stdout + r.stderr, r.stderr
    assert b"1 tool widened" in r.stderr
    r = run("lint", given / "spec.yaml")
    assert b"TOPSECRET" not in r.stdout and b"SC302" in r.stdout


def _planted_spec(tmp_path: Path, direct: bool) -> Path:
    """A spec whose operations a and b reach a parameter file through a link planted beside
    it (``planted.yaml``, a file link) and through a folder link on the way (``dir/p.yaml``);
    with ``direct``, operation c refers to the real file itself."""
    folder = tmp_path / "spec"
    _write(folder / "real" / "p.yaml", "name: q\nin: query\ndescription: TOPSECRET\n"
           "schema: {type: string}\n")
    (folder / "planted.yaml").symlink_to(folder / "real" / "p.yaml")
    (folder / "dir").symlink_to(folder / "real")
    ops = [("a", "planted.yaml"), ("b", "dir/p.yaml")] + ([("c", "real/p.yaml")] if direct else [])
    return _write(folder / "spec.yaml", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n"
                  + "".join(f"  /{op}:\n    get:\n      operationId: {op}\n      parameters:\n"
                            f"        - $ref: '{ref}'\n      responses: {{'200': {{description: ok}}}}\n"
                            for op, ref in ops))


def test_a_ref_through_a_link_beside_the_spec_is_not_read(tmp_path: Path) -> None:
    """A link planted beside the spec is never opened by a $ref, even one to a file inside
    the spec's folder, nor is a folder link on the way (issue 36): each reference is a
    finding (SC302), and the tool is widened there."""
    f = _planted_spec(tmp_path, direct=True)
    r = run("lint", "-f", "json", "--select", "SC302", f)
    found = [d for d in json.loads(r.stdout)["findings"] if d["code"] == "SC302"]
    assert sorted(d["message"].split("'")[1] for d in found) == ["dir/p.yaml", "planted.yaml"]
    assert all("symbolic link" in d["message"] for d in found), found
    r = run("project", "--view", "standard", f)
    assert r.returncode == 0 and b"2 tools widened" in r.stderr, r.stderr
    assert r.stdout.count(b"TOPSECRET") == 1      # tool c's own parameter, read directly
    one_error_line(run("project", "--broken-refs", "fail", f), "symbolic link")


def test_a_link_put_on_a_refs_way_after_the_check_is_not_followed(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """The check of a $ref's path (inside the folder, no link on the way) and its open are
    two steps: a link swapped in between (a file, or a folder on the way) must not be
    followed (issue 36, file hardening). Simulated in process: the check is made to see the
    links as plain names (realpath as normpath), as it would have before the swap; the open
    then meets them, and refuses (O_NOFOLLOW; the descriptor's own path)."""
    from toolcat.formats import LoadOptions, load_catalogs

    f = _planted_spec(tmp_path, direct=False)
    monkeypatch.setattr(os.path, "realpath", lambda p, **_k: os.path.normpath(
        os.path.join(os.getcwd(), p)))
    (cat,) = load_catalogs([str(f)], LoadOptions(broken_refs="widen"))
    text = json.dumps([t.input_schema for t in cat.tools])
    assert "TOPSECRET" not in text
    broken = cat.meta.get("broken_refs", {})
    assert sorted(t["id"] for t in broken.get("tools", ())) == ["a", "b"], broken
    said = " ".join(str(getattr(p, "message", p)) for p in cat.problems)
    assert said.count("symbolic link") == 2, said


# ---- one crafted value never kills the run

def test_nul_byte_in_a_ref_is_a_finding(tmp_path: Path) -> None:
    f = _write(tmp_path / "o" / "spec.yaml",
               "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
               "      operationId: a\n      parameters:\n        - $ref: 'x%00.json'\n"
               "      responses: {'200': {description: ok}}\n")
    r = run("lint", f)
    assert r.returncode == 1 and b"SC302" in r.stdout and b"NUL" in r.stdout, r.stderr
    one_error_line(run("project", "--broken-refs", "fail", f), "spec.yaml", "NUL")
    r = run("project", f)       # widened by default (issue 36 item 1), reported
    assert r.returncode == 0 and b"1 tool widened" in r.stderr, r.stderr


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "junit", "github"])
def test_lone_surrogate_in_every_lint_format(tmp_path: Path, fmt: str) -> None:
    f = _write(tmp_path / "sur.json",
               '{"tools":[{"name":"a\\ud800b","description":"x",'
               '"inputSchema":{"type":"object","properties":{}}}]}')
    r = run("lint", "-f", fmt, f)
    assert r.returncode == 1, r.stderr
    r.stdout.decode("utf-8")              # well-formed UTF-8
    if fmt in ("json", "sarif"):
        assert json.loads(r.stdout)
    if fmt == "junit":
        import xml.dom.minidom

        xml.dom.minidom.parseString(r.stdout)
    if fmt in ("text", "concise", "github"):
        assert b"a\\ud800b" in r.stdout


def test_lone_surrogate_in_tools_measure_project(tmp_path: Path) -> None:
    f = _write(tmp_path / "sur.json",
               '{"tools":[{"name":"a\\ud800b","description":"x\\udfff",'
               '"inputSchema":{"type":"object","properties":{}}}]}')
    for args in (["tools", f], ["tools", "-f", "json", f], ["measure", f, "--top", "1"],
                 ["measure", "-f", "json", f], ["project", f], ["diff-toolids", f, f]):
        r = run(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        r.stdout.decode("utf-8")
    assert json.loads(run("project", "-q", f).stdout)["tools"][0]["name"] == "a\ud800b"


def test_huge_yaml_integer_is_one_line(tmp_path: Path) -> None:
    # JSON refuses numbers of more than 4,300 digits (Python's int/str limit) in one line;
    # YAML's parser accepted them and `tools`, `measure`, `project` then died with an
    # internal ValueError when writing them
    big = "9" * 5000
    f = _write(tmp_path / "big.yaml", "tools:\n- name: t\n  description: d\n  inputSchema:\n"
               "    type: object\n    properties:\n      x: {type: integer, maximum: "
               + big + "}\n")
    for cmd in (["tools"], ["measure"], ["project", "-q"], ["lint"]):
        one_error_line(run(*cmd, f), f"{f}:7:", "4300 digits")
    ok = _write(tmp_path / "ok.yaml", f.read_text().replace(big, "9" * 4300))
    assert run("project", "-q", ok).returncode == 0


def test_non_utf8_file_name_in_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "ok.json").write_bytes(GIT.read_bytes())
    bad = os.fsencode(str(folder)) + b"/bad\xff.json"
    with open(bad, "wb") as fh:
        fh.write(b"{not json")
    r = run("lint", folder)
    assert r.returncode == 2 and b"bad\\xff.json" in r.stderr, r.stderr
    assert b"internal error" not in r.stderr and b"Traceback" not in r.stderr
    with open(bad, "wb") as fh:
        fh.write(json.dumps(_mcp({"name": "q r"})).encode())
    for fmt in ("text", "json", "sarif", "junit", "github", "concise"):
        r = run("lint", "-f", fmt, folder)
        assert r.returncode == 1 and b"internal error" not in r.stderr, (fmt, r.stderr)
        r.stdout.decode("utf-8")
    for cmd in ("tools", "measure", "project"):
        r = run(cmd, folder, "-q")
        assert r.returncode in (0, 2) and b"internal error" not in r.stderr, (cmd, r.stderr)


# ---- closed streams, Ctrl-C, SIGTERM

@pytest.mark.fresh
def test_closed_stdout_and_stdin(tmp_path: Path) -> None:
    for cmd, stdin_closed in (("lint", False), ("tools", False), ("measure", False),
                              ("lint", True)):
        args = [sys.executable, "-m", "toolcat", cmd, "-" if stdin_closed else GIT]
        shell = " ".join(f"'{a}'" for a in args) + (" <&-" if stdin_closed else " >&-")
        r = subprocess.run(["bash", "-c", shell], capture_output=True, timeout=120,
                           env=dict(os.environ, NO_COLOR="1"))
        assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr, r.stderr
        if stdin_closed:
            one_error_line(r, "standard input is closed")
        else:
            assert r.returncode in (0, 1), r.stderr


def _big_catalog(path: Path, n: int = 3000, prefix: str = "tool") -> Path:
    return _write(path, _mcp(*[{"name": f"{prefix}_{i}", "description": "word " * 40,
                                "inputSchema": {"type": "object", "properties": {
                                    f"p{j}": {"type": "string", "description": "x " * 30}
                                    for j in range(8)}}} for i in range(n)]))


def _loaded(pid: int, lib: str) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as f:
            return lib in f.read()
    except OSError:
        return False


@pytest.mark.fresh
def test_sigterm_removes_temp_files_and_exits_143(tmp_path: Path) -> None:
    src = _big_catalog(tmp_path / "big.json", 6000)
    out = tmp_path / "out" / "o.json"
    out.parent.mkdir()
    hit = False
    for _attempt in range(8):
        p = subprocess.Popen([sys.executable, "-m", "toolcat", "project", "--view", "standard",
                              "--indent", "8", "-q", src, "-o", out, "--handbook",
                              out.parent / "hb.json", "--report", out.parent / "r.json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, NO_COLOR="1"))
        t0 = time.monotonic()
        while p.poll() is None and time.monotonic() - t0 < 120:
            if any(x.name.startswith(".toolcat-") for x in out.parent.iterdir()):
                p.send_signal(signal.SIGTERM)
                hit = True
                break
        o, e = p.communicate(timeout=120)
        assert b"Traceback" not in e, e
        no_temp_files(out.parent)
        if hit:
            assert p.returncode == 143, (p.returncode, e)
            assert e.decode().strip() == "toolcat: terminated"
            break
    assert hit, "SIGTERM never landed while a temp file existed"


@pytest.mark.fresh
def test_early_ctrl_c_prints_no_traceback(tmp_path: Path) -> None:
    for sig, code, word in ((signal.SIGINT, 130, "interrupted"),
                            (signal.SIGTERM, 143, "terminated")):
        p = subprocess.Popen([sys.executable, "-m", "toolcat", "lint", GIT],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, NO_COLOR="1"))
        t0 = time.monotonic()
        # as soon as toolcat's own code runs (orjson is the first extension module it loads)
        while p.poll() is None and not _loaded(p.pid, "orjson") and time.monotonic() - t0 < 60:
            time.sleep(0.0005)
        p.send_signal(sig)
        o, e = p.communicate(timeout=120)
        assert b"Traceback" not in e and b"KeyboardInterrupt" not in e, e
        if p.returncode not in (0, 1):       # it may have finished first
            assert p.returncode == code and e.decode().strip() == f"toolcat: {word}", e


_LAUNCHER = """import importlib.abc, os, re, signal, sys
class SigintAt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == os.environ["SIGINT_AT"]:
            os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C while this module is imported
sys.meta_path.insert(0, SigintAt())
"""
# what pip's console-script launcher of `toolcat` runs
_PIP = """from toolcat.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


@pytest.mark.fresh
@pytest.mark.parametrize("how", ["launcher", "-m"])
@pytest.mark.parametrize("module", ["toolcat.api", "toolcat.errors", "toolcat.version",
                                    "toolcat.cli"])
def test_ctrl_c_while_toolcat_is_imported(tmp_path: Path, how, module) -> None:
    """A Ctrl-C from toolcat's first line of code until cli.main takes over (the imports of
    the package and of toolcat.cli): one line, exit 130, no KeyboardInterrupt traceback
    (before: Python's traceback through the launcher, exit by SIGINT)."""
    if how == "launcher":
        launcher = tmp_path / "bin" / "toolcat"
        launcher.parent.mkdir()
        launcher.write_text(_LAUNCHER + _PIP)
        argv = [sys.executable, str(launcher), "lint", str(GIT)]
    else:
        site = tmp_path / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(_LAUNCHER)
        argv = [sys.executable, "-m", "toolcat", "lint", str(GIT)]
    env = dict(os.environ, NO_COLOR="1", SIGINT_AT=module,
               PYTHONPATH=os.pathsep.join([str(tmp_path / "site")] + sys.path))
    # a Ctrl-C reaches toolcat as a user's shell leaves it: pytest-xdist's workers ignore
    # SIGINT, and an ignored signal is inherited
    r = subprocess.run(argv, capture_output=True, env=env, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    err = r.stderr.decode()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert (r.returncode, err) == (130, "toolcat: interrupted\n")


_KILLED_WRITE = """import os, signal, sys
from toolcat import files
where = sys.argv[2]
if where == "writing":          # SIGKILL once the data is written, before the rename
    real = files._write_fd
    def _write_fd(fd, data):
        real(fd, data)
        os.kill(os.getpid(), signal.SIGKILL)
    files._write_fd = _write_fd
else:                           # SIGKILL at the rename itself
    os.replace = lambda a, b: os.kill(os.getpid(), signal.SIGKILL)
files.write_outputs([(sys.argv[1], b"x" * 200000)])
"""


@pytest.mark.fresh
def test_sigkill_during_an_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    """SIGKILL while the output is written: nothing is left beside it (the temp file has no
    name until the rename: O_TMPFILE + linkat where the system has them); SIGKILL at the
    rename (or where a named temp is used): the next write to that folder removes the stale
    .toolcat-*.tmp, never one a running toolcat holds. Before: a .toolcat-*.tmp stayed."""
    out = tmp_path / "o" / "out.json"
    out.parent.mkdir()
    out.write_text("old\n")
    r = subprocess.run([sys.executable, "-c", _KILLED_WRITE, str(out), "writing"],
                       capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert out.read_text() == "old\n"
    no_temp_files(out.parent)
    r = subprocess.run([sys.executable, "-c", _KILLED_WRITE, str(out), "rename"],
                       capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert out.read_text() == "old\n"
    (stale,) = [p for p in out.parent.iterdir() if p.name.startswith(".toolcat-")]
    # a temp file another toolcat still writes (it holds the flock): left alone
    import fcntl

    held = out.parent / ".toolcat-held0000.tmp"
    held.write_text("in progress")
    os.utime(held, (0, 0))
    other = out.parent / ".toolcat-notmine.tmp.bak"      # not toolcat's name: left alone
    other.write_text("x")
    with open(held) as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        r = run("project", GIT, "-q", "-o", out.parent / "next.json")
        assert r.returncode == 0, r.stderr
    assert not stale.exists() and held.exists() and other.exists()
    assert json.loads((out.parent / "next.json").read_text())["tools"]


# ---- malformed config and environment values

@pytest.mark.parametrize("name,text,needle", [
    # (a list of profile names is valid since issue 15: several profiles in one run)
    ("toolcat.toml", 'profile = [["mcp"]]\n', "profile"),
    ("toolcat.toml", 'profile = 3\n', "profile"),
    ("toolcat.toml", 'mcp-version = ["2025-06-18"]\n', "mcp-version"),
    ("toolcat.toml", "[profile]\na = 1\n", "profile"),
    ("toolcat.toml", 'profile = "\xff"\n', "UTF-8"),
    ("pyproject.toml", '[tool.toolcat]\nprofile = "\xff"\n', "UTF-8"),
    ("toolcat.toml", 'fail-on = ["error"]\n', "fail-on"),
    ("toolcat.toml", "[severity]\nTC101 = 1\n", "severity"),
    ("toolcat.toml", "[budgets]\nmax-increase = nan\n", "max-increase"),
])
def test_malformed_config_values(tmp_path: Path, name: str, text: str,
                                        needle: str) -> None:
    (tmp_path / name).write_bytes(text.encode("latin-1"))
    for cmd in ("lint", "measure"):
        one_error_line(run(cmd, GIT, cwd=tmp_path), name, needle)


@pytest.mark.fresh
@pytest.mark.parametrize("env,args", [
    ({"TOOLCAT_MAX_FILE_SIZE": "abc"}, []), ({"TOOLCAT_MAX_FILE_SIZE": "1e9"}, []),
    ({"TOOLCAT_MAX_DEPTH": "abc"}, []), ({"TOOLCAT_MAX_FILE_SIZE": "-5"}, []),
    ({}, ["--max-file-size", "99999999999999999999999"]), ({}, ["--max-file-size", "0"]),
])
def test_malformed_limits(env: dict, args: list) -> None:
    for cmd in ("lint", "tools", "measure", "project"):
        one_error_line(run(cmd, GIT, *args, env=env))


@pytest.mark.parametrize("entry", [1, {"file": 3, "code": "TC101"},
                                   {"file": "a", "code": "TC101", "tool": [1]},
                                   {"file": "a", "code": "TC101", "pointer": {}},
                                   {"file": "a", "code": "TC101", "count": "2"}])
def test_malformed_baseline_entries(tmp_path: Path, entry) -> None:
    b = _write(tmp_path / "b.json", {"toolcat-baseline": 1, "findings": [entry]})
    one_error_line(run("lint", GIT, "--baseline", b), "baseline")


@pytest.mark.parametrize("entry", [1, 2.5, [1, 2], None, "x", True])
def test_measure_baseline_entry_that_is_no_object(tmp_path: Path, entry) -> None:
    """A catalog entry of a measure baseline that is a number, a list (...) is one error line
    naming the file and the entry (was: internal error: AttributeError: 'int' object has no
    attribute 'get')."""
    b = _write(tmp_path / "b.json", {"toolcat_baseline": 1, "tokenizer": "o200k_base",
                                     "catalogs": {str(GIT): entry}})
    line = one_error_line(run("measure", GIT, "--baseline", b), str(b))
    assert f'catalogs/"{GIT}"' in line and "internal error" not in line


# ---- the tokenizer cache

def _tokens(env: dict) -> int:
    r = run("measure", "-f", "json", GIT, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["catalogs"][0]["tokens_before"]


@pytest.mark.fresh
def test_tokenizer_cache_is_checked(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    want = _tokens(env)
    assert want == 1455
    # the ranks, and (when the counter forks its child) their split (tokens.load_split)
    caches = sorted((tmp_path / "cache" / "toolcat").glob("o200k_base-*"))
    assert caches[0].suffix == ".ranks" and {c.suffix for c in caches} <= {".ranks", ".split"}
    assert stat.S_IMODE(os.stat(caches[0].parent).st_mode) == 0o700
    import marshal

    fake = marshal.dumps({bytes([i]): i for i in range(256)} | {b"x" * k: 300 + k
                                                             for k in range(2, 2000)})
    for cache in caches:
        if cache.suffix == ".ranks" and cache.with_suffix(".split").exists():
            cache.with_suffix(".split").unlink()      # (else the split is read, not the ranks)
        blob = bytearray(cache.read_bytes())
        # a tampered payload (a rank changed): the hash fails, the cache is rebuilt
        blob[-1000] ^= 0x01
        cache.write_bytes(bytes(blob))
        assert _tokens(env) == want
        assert cache.read_bytes() != bytes(blob)       # rebuilt
        # a cache others may write is not trusted
        os.chmod(cache, 0o666)
        assert _tokens(env) == want
        # a cache file that is a link is never followed
        cache.unlink()
        target = _write(tmp_path / f"elsewhere{cache.suffix}", fake)
        cache.symlink_to(target)
        assert _tokens(env) == want
        assert target.read_bytes() == fake                # never written through
    no_temp_files(tmp_path)


# ---- two outputs to stdout

def test_two_outputs_to_stdout_is_a_usage_error(tmp_path: Path) -> None:
    one_error_line(run("project", GIT, "-o", "-", "--handbook", "-"), "stdout")
    one_error_line(run("project", GIT, "--handbook", "-"), "stdout")   # -o not given: stdout
    one_error_line(run("project", GIT, "-o", tmp_path / "a.json", "--handbook",
                       tmp_path / "a.json"), "same file")
    assert not (tmp_path / "a.json").exists()
    r = run("project", GIT, "-q", "-o", tmp_path / "a.json", "--handbook", "-")
    assert r.returncode == 0 and json.loads(r.stdout)["tools"]["git_status"]


# ---- an output that is an input: the source is never replaced by what was made of it

@pytest.mark.parametrize("option", ["-o", "--handbook", "--report"])
def test_project_output_naming_an_input_is_a_usage_error(tmp_path: Path,
                                                                 option: str) -> None:
    src = _write(tmp_path / "cat.json", GIT.read_bytes())
    before = src.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(src)
    for out in (src, link, Path(os.path.relpath(src))):   # the same file by any name
        args = ["project", src, "-q"] + ([] if option == "-o" else ["-o", tmp_path / "o.json"])
        one_error_line(run(*args, option, out), option, "reads", str(src))
    # a file found in a folder given is an input too
    one_error_line(run("project", tmp_path, "-q", option, src), option, "reads")
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.json", "link.json"]
    no_temp_files(tmp_path)


def test_lint_outputs_naming_an_input_are_usage_errors(tmp_path: Path) -> None:
    src = _write(tmp_path / "cat.json", GIT.read_bytes())
    before = src.read_bytes()
    one_error_line(run("lint", src, "-o", src), "-o", "reads")
    one_error_line(run("lint", src, "--write-baseline", src), "--write-baseline", "reads")
    base = tmp_path / "base.json"
    assert run("lint", src, "--write-baseline", base).returncode in (0, 1)
    baseline = base.read_bytes()
    one_error_line(run("lint", src, "--baseline", base, "-o", base), "-o", "reads")
    assert src.read_bytes() == before and base.read_bytes() == baseline


def test_measure_write_baseline_naming_an_input_is_a_usage_error(tmp_path: Path) -> None:
    src = _write(tmp_path / "cat.json", GIT.read_bytes())
    before = src.read_bytes()
    one_error_line(run("measure", src, "--write-baseline", src), "--write-baseline", "reads")
    assert src.read_bytes() == before
    base = tmp_path / "base.json"
    assert run("measure", src, "--write-baseline", base).returncode == 0 and base.exists()


@pytest.mark.parametrize("args,option", [
    (["project", GIT, "-o"], "-o"),
    (["lint", GIT, "--baseline"], "--baseline"),
    (["lint", GIT, "--config"], "--config"),
    (["measure", GIT, "--baseline"], "--baseline"),
    (["measure", GIT, "--write-baseline"], "--write-baseline"),
    (["tools", "--client-config"], "--client-config"),
    (["diff", GIT, GIT, "--ignore-file"], "--ignore-file"),
])
def test_an_empty_file_name_is_a_usage_error_naming_the_option(args, option) -> None:
    """An empty file name is never taken as "not given" (stdout, no baseline, no config):
    one error line naming the option."""
    r = run(*args, "")
    line = one_error_line(r, "the file name is empty")
    assert line.startswith(f"toolcat: error: {option}: "), line
    assert r.stdout == b""


def test_diff_ignore_entries_are_checked(tmp_path: Path) -> None:
    """An --ignore entry whose pointer is no JSON pointer (a '~' not followed by 0 or 1) is
    a usage error, from the command line and from --ignore-file (naming the file); valid
    escapes are taken."""
    one_error_line(run("diff", GIT, GIT, "--ignore", "git_status:/inputSchema/~2"),
                   "--ignore", "not a JSON pointer")
    f = _write(tmp_path / "ignore.txt", "git_status\ngit_diff:/inputSchema/~3x\n")
    one_error_line(run("diff", GIT, GIT, "--ignore-file", f), str(f), "not a JSON pointer")
    assert run("diff", GIT, GIT, "--ignore", "git_status:/a~1b/~0").returncode == 0


def test_an_infinite_budget_in_the_config_is_an_error_of_the_config(
        tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    assert run("measure", GIT, "--write-baseline", base).returncode == 0
    cfg = _write(tmp_path / "pyproject.toml", "[tool.toolcat.budgets]\nmax-increase = inf\n")
    line = one_error_line(run("measure", GIT, "--baseline", base, cwd=tmp_path),
                          "finite number")
    assert str(cfg) in line or "pyproject.toml" in line, line


def test_check_reads_its_output_and_other_outputs_still_work(tmp_path: Path) -> None:
    src = _write(tmp_path / "cat.json", GIT.read_bytes())
    out = tmp_path / "out.json"
    # --check compares -o with what would be written: -o naming the input is a comparison
    r = run("project", src, "-o", src, "--check")
    assert r.returncode == 1 and b"out of date" in r.stderr, r.stderr
    assert run("project", src, "-q", "-o", out).returncode == 0
    assert run("project", src, "-o", out, "--check").returncode == 0
    # outputs beside the input (another name in the same folder) are fine
    assert run("lint", src, "-o", tmp_path / "report.txt").returncode in (0, 1)
    assert (tmp_path / "report.txt").exists()


# ---- a closed pipe exits 0 for every command

@pytest.mark.fresh
@pytest.mark.parametrize("args", [["tools"], ["measure", "--top", "2000"], ["lint"],
                                  ["lint", "-f", "json"], ["project", "--indent", "2"],
                                  ["diff-toolids"], ["rule", "--all"]])
def test_closed_pipe_exits_0(tmp_path: Path, args: list) -> None:
    big = _big_catalog(tmp_path / "big.json", 300)
    cmd = args[:1] + ([] if args[0] == "rule" else [big]) + args[1:]
    if args[0] == "diff-toolids":
        other = _write(tmp_path / "other.json", _mcp({"name": "x"}))
        cmd = ["diff-toolids", big, other]
    p = subprocess.Popen([sys.executable, "-m", "toolcat", *map(str, cmd)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, NO_COLOR="1"))
    p.stdout.close()        # the reader is gone before toolcat writes: EPIPE on its first write
    e = p.stderr.read()
    p.wait(timeout=120)
    assert b"Traceback" not in e and b"internal error" not in e, e
    if args[0] == "rule":
        assert p.returncode == 0
    else:
        assert p.returncode == 0, (p.returncode, e)


# ---- Click's usage errors in one line

@pytest.mark.parametrize("args,needle", [
    (["lint", "--bogus", GIT], "no such option"), (["lint"], "missing argument"),
    (["measure", GIT, "--max-bytes", "-1"], "--max-bytes"),
    (["measure", GIT, "--top", "-1"], "--top"), (["rule", "TC101", "TC102"], "unexpected"),
    (["nocmd"], "no such command"), (["measure", GIT, "--top", "x"], "--top"),
    (["project", GIT, "--indent", "two"], "--indent"),
])
def test_usage_errors_are_one_line(args: list, needle: str) -> None:
    line = one_error_line(run(*args))
    assert needle in line.lower(), line


# ---- CR-only line endings

def test_cr_only_yaml_is_read_with_its_line_breaks(tmp_path: Path) -> None:
    lf = _write(tmp_path / "lf.yaml", "tools: []\n---\n{}\n")
    cr = _write(tmp_path / "cr.yaml", "tools: []\r---\r{}\r")
    a, b = one_error_line(run("tools", lf)), one_error_line(run("tools", cr))
    assert "more than one YAML document" in b and b.replace("cr.yaml", "lf.yaml") == a
    ok = _write(tmp_path / "ok.yaml", "tools:\r  - name: t\r    description: d\r"
                "    inputSchema: {type: object, properties: {}}\r")
    r = run("tools", "-f", "json", ok)
    assert r.returncode == 0 and json.loads(r.stdout)["catalogs"][0]["tools"][0]["id"] == "t"


# ---- an empty selection

def test_empty_select_is_a_usage_error() -> None:
    broken = SAMPLES / "broken.tools.json"
    for opt in ("--select", "--extend-select", "--ignore"):
        one_error_line(run("lint", opt, "", broken), opt, "empty")
        one_error_line(run("lint", opt, " , ", broken), opt, "empty")


# ---- JUnit is well-formed XML

def test_junit_is_well_formed_xml(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    f = _write(tmp_path / "nul.json", '{"tools":[{"name":"a\\u0000b\\u001bc\\ufffe",'
               '"description":"x\\u0001","inputSchema":{"type":"object","properties":{}}}]}')
    r = run("lint", "-f", "junit", f)
    assert r.returncode == 1
    root = ET.fromstring(r.stdout)
    names = [c.get("name") for c in root.iter("testcase")]
    assert any("a\\x00b\\x1bc\\ufffe" in n for n in names), names


# ---- SC302 quotes each spelling

def test_sc302_quotes_each_spelling_of_a_ref(tmp_path: Path) -> None:
    f = _write(tmp_path / "o" / "spec.yaml",
               "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
               "      operationId: a\n      parameters:\n        - $ref: 'missing.yaml'\n"
               "        - $ref: './missing.yaml'\n        - $ref: 'sub/../missing.yaml'\n"
               "      responses: {'200': {description: ok}}\n")
    msgs = [x["message"] for x in json.loads(run("lint", "-f", "json", f).stdout)["findings"]
            if x["code"] == "SC302"]
    assert len(msgs) == 3
    for spelling, msg in zip(("'missing.yaml'", "'./missing.yaml'", "'sub/../missing.yaml'"),
                             msgs):
        assert msg.startswith(f"$ref {spelling}:"), msgs


# ---- UTF-32

def test_utf32_is_named(tmp_path: Path) -> None:
    body = json.dumps(_mcp({"name": "t"}))
    le = _write(tmp_path / "le.json", b"\xff\xfe\x00\x00" + body.encode("utf-32-le"))
    be = _write(tmp_path / "be.json", b"\x00\x00\xfe\xff" + body.encode("utf-32-be"))
    for f in (le, be):
        one_error_line(run("tools", f), "UTF-32")


# ---- a $ref chain 3,000+ deep names the file

def test_deep_ref_chain_names_the_file(tmp_path: Path) -> None:
    n = 5000
    defs = {f"d{i}": {"$ref": f"#/components/schemas/d{i + 1}"} for i in range(n)}
    defs[f"d{n}"] = {"type": "string"}
    f = _write(tmp_path / "chain.json", {
        "openapi": "3.0.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "a", "parameters": [
            {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/d0"}}],
            "responses": {"200": {"description": "ok"}}}}},
        "components": {"schemas": defs}})
    for cmd in ("tools", "lint", "measure", "project"):
        r = run(cmd, f)
        if r.returncode == 2:
            one_error_line(r, "chain.json")
        else:
            assert r.returncode in (0, 1), r.stderr


# ============================================================================ terminal width, messages

def _pty_run(args: list, columns: int, env: dict | None = None) -> str:
    """toolcat on a pseudo-terminal ``columns`` wide (what a person sees)."""
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    e = dict(os.environ, NO_COLOR="1")
    e.pop("COLUMNS", None)
    e.update(env or {})
    p = subprocess.Popen([sys.executable, "-m", "toolcat", *map(str, args)], stdin=slave,
                         stdout=slave, stderr=subprocess.DEVNULL, env=e, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            r, _, _ = select.select([master], [], [], 60)
            if not r:
                break
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    p.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


LONG_IDS = [f"{w}_{'x' * (i % 7)}_operation_with_a_rather_long_identifier_{i}"
            for i, w in enumerate(["create", "delete", "list", "update"] * 3)]


def test_tools_piped_never_cuts_ids_or_titles(tmp_path: Path) -> None:
    f = _write(tmp_path / "long.json", _mcp(*[{"name": i, "title": "A title " * 12 + i}
                                              for i in LONG_IDS]))
    out = run("tools", f).stdout.decode()
    assert "…" not in out
    for i in LONG_IDS:
        assert i in out and ("A title " * 12).strip() in out


@pytest.mark.fresh
@pytest.mark.parametrize("args", [["tools"], ["measure", "--top", "5"], ["rule", "--all"]])
def test_narrow_terminal_layouts_fit(tmp_path: Path, args: list) -> None:
    folder = tmp_path / "a_folder_with_quite_a_long_name_for_catalogs"
    files = [_write(folder / f"{n}.catalog_with_a_long_file_name.json",
                    _mcp(*[{"name": i, "title": "Some title of the tool " + i} for i in LONG_IDS]))
             for n in ("first", "second")]
    cmd = args[:1] + ([] if args[0] == "rule" else [str(p) for p in files]) + args[1:]
    for cols in (80, 60):
        out = _pty_run(cmd, cols)
        assert "…" not in out and "Traceback" not in out, out
        words = set()
        for line in out.splitlines():
            words.update(line.split())
            tokens = line.split()
            # a line longer than the screen holds a single value (never two side by side)
            assert len(line) <= cols or len(tokens) <= 2, (cols, line)
        if args[0] != "rule":
            whole = [i for i in LONG_IDS if i in words]      # ids whole, never broken
            assert len(whole) >= (3 if args[0] == "measure" else len(LONG_IDS)), out
            assert any(Path(p).name in words or p in words for p in map(str, files)), out
        else:
            from toolcat.features.lint.registry import all_rules

            for r in all_rules():
                assert r.code in words and r.name in words
                for w in r.summary.split():
                    assert w in out, w              # words never broken across lines


# ---- messages that mislead

def test_select_typo_blames_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.toolcat]\nprofile = "mcp"\n')
    line = one_error_line(run("lint", "--select", "XX999", GIT, cwd=tmp_path), "--select")
    assert "pyproject.toml" not in line
    (tmp_path / "pyproject.toml").write_text('[tool.toolcat]\nselect = ["XX9"]\n')
    one_error_line(run("lint", GIT, cwd=tmp_path), "pyproject.toml", "XX9")


def test_unlowerable_fail_says_nothing_was_written(tmp_path: Path) -> None:
    f = _write(tmp_path / "u.json", {"tools": [{"name": "u", "inputSchema": {
        "type": "object", "properties": {"a": {"not": {"const": 1}}}}}]})
    out = tmp_path / "out.json"
    r = run("project", f, "--to", "openwop", "--unlowerable", "fail", "-o", out)
    assert r.returncode == 1 and not out.exists()
    err = r.stderr.decode()
    assert "->" not in err and "digest" not in err and "nothing written" in err, err


def test_tc102_says_too_long_and_never_cuts(tmp_path: Path) -> None:
    long_id = "a_" + "b" * 148      # MCP names: at most 128 characters
    f = _write(tmp_path / "t.json", _mcp({"name": long_id}, {"name": "has space"}))
    msgs = [x["message"] for x in json.loads(run("lint", "-f", "json", f).stdout)["findings"]
            if x["code"] == "TC102"]
    assert any("too long" in m and long_id in m and "150 characters" in m for m in msgs), msgs
    assert any("' ' not allowed" in m and "has space" in m for m in msgs), msgs
    assert not any("…" in m for m in msgs)


def test_description_cut_never_inside_an_html_tag() -> None:
    from toolcat.features.project.describe import truncate

    text = ('Returns the <a href="https://example.com/docs/a/very/long/path/to/the/page">'
            "documentation page</a> and more words after it")
    for limit in range(10, len(text)):
        cut = truncate(text, limit)
        assert cut.count("<") == cut.count(">"), (limit, cut)


def test_plurals(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.json", _mcp({"name": "t", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "string", "description": "x"}}}}))
    rep = tmp_path / "r.json"
    assert run("project", "-q", f, "-o", tmp_path / "o.json", "--report", rep).returncode == 0
    text = rep.read_text()
    assert "1 prose key removed" in text and "1 prose keys" not in text, text


# ---- many findings

def test_lint_statistics(tmp_path: Path) -> None:
    f = _write(tmp_path / "many.json", _mcp(*[{"name": f"bad name {i}", "description": ""}
                                              for i in range(30)]))
    r = run("lint", "--statistics", f)
    assert r.returncode == 1
    lines = r.stdout.decode().splitlines()
    assert any(re.match(r"^\s+30  TC102  error\s+tool-id-format$", x) for x in lines), lines
    counts_shown = [int(x.split()[0]) for x in lines if x.strip() and x.split()[0].isdigit()]
    assert counts_shown == sorted(counts_shown, reverse=True), lines     # most first
    data = json.loads(run("lint", "--statistics", "-f", "json", f).stdout)
    counts = {(x["code"], x["severity"]): x["count"] for x in data["statistics"]}
    full = json.loads(run("lint", "-f", "json", f).stdout)["findings"]
    from collections import Counter

    assert counts == dict(Counter((x["code"], x["severity"]) for x in full))
    one_error_line(run("lint", "--statistics", "-f", "sarif", f), "--statistics")


def test_lint_concise(tmp_path: Path) -> None:
    broken = SAMPLES / "broken.tools.json"
    r = run("lint", "-f", "concise", broken)
    assert r.returncode == 1
    full = json.loads(run("lint", "-f", "json", broken).stdout)["findings"]
    lines = [x for x in r.stdout.decode().splitlines() if x]
    assert len(lines) == len(full) + 1 and lines[-1].startswith("Found ")
    for line in lines[:-1]:
        assert re.match(r"^\S+:\d+:\d+: [A-Z]{2}\d{3} ", line), line
    assert {(x["line"], x["code"]) for x in full} == {
        (int(x.split(":")[1]), x.split(": ", 1)[1].split()[0]) for x in lines[:-1]}


# ============================================================================ readers, patterns, reports, URLs
# (hostile inputs the batteries above did not reach; ``test_h29_...``)

# ---- every file toolcat reads goes through the one reader (files.read_regular)

def _specials(tmp_path: Path) -> dict[str, Path]:
    """A FIFO (a read would block), a link to /dev/zero (a read would never end) and a file
    over a 1,000-byte limit, each a name in ``tmp_path``."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    big = _write(tmp_path / "big", "# " + "x" * 4000 + "\n")
    return {"FIFO": fifo, "character device": zero, "over the": big}


@pytest.mark.parametrize("what", ["FIFO", "character device", "over the"])
def test_diff_ignore_file_is_read_by_the_one_reader(tmp_path: Path, what: str) -> None:
    path = _specials(tmp_path)[what]
    small = _write(tmp_path / "t.json", _mcp({"name": "a"}))
    r = run("diff", small, small, "--ignore-file", path, "--max-file-size", "1000", timeout=60)
    one_error_line(r, str(path), what)


@pytest.mark.fresh
@pytest.mark.parametrize("what", ["FIFO", "character device", "over the"])
def test_client_config_env_file_is_read_by_the_one_reader(tmp_path: Path,
                                                               what: str) -> None:
    path = _specials(tmp_path)[what]
    cfg = _write(tmp_path / "mcp.json", {"mcpServers": {"a": {
        "command": sys.executable, "args": ["-c", "pass"], "envFile": str(path)}}})
    r = run("tools", "--client-config", cfg, env={"TOOLCAT_MAX_FILE_SIZE": "1000"}, timeout=60)
    one_error_line(r, "envFile", what)


def test_env_file_not_utf8_is_one_error_line(tmp_path: Path) -> None:
    env = _write(tmp_path / "x.env", b"A=1\nB=\xff\n")
    cfg = _write(tmp_path / "mcp.json", {"mcpServers": {"a": {
        "command": sys.executable, "args": ["-c", "pass"], "envFile": "x.env"}}})
    one_error_line(run("tools", "--client-config", cfg), "envFile", str(env), "UTF-8")


# ---- no catalog pattern runs on Python's backtracking re (diff's jsonschema checks included)

_EVIL = "^(a+)+$"
_LONG = "a" * 40 + "!"        # 2**40 ways for re to split the a's: hours


def _tool_schema(**kw) -> dict:
    return _mcp({"name": "t", "inputSchema": dict({"type": "object"}, **kw)})


@pytest.mark.fresh
@pytest.mark.parametrize("old,new", [
    # a pattern jsonschema checks candidates against
    ({"properties": {"k": {"type": "string", "pattern": _EVIL}}},
     {"properties": {"k": {"type": "string", "pattern": _EVIL, "enum": [_LONG]}}}),
    # patternProperties against a declared property's name (the routing and the check)
    ({"properties": {_LONG: {"type": "string"}}, "patternProperties": {_EVIL: {}}},
     {"properties": {_LONG: {"type": "number"}}, "patternProperties": {_EVIL: {}},
      "additionalProperties": False}),
    # a definition naming its own dialect (jsonschema's evolve took the stock class)
    ({"properties": {"k": {"$ref": "#/$defs/s"}}, "$defs": {"s": {
        "$schema": "http://json-schema.org/draft-07/schema#", "pattern": _EVIL}}},
     {"properties": {"k": {"$ref": "#/$defs/s"}}, "$defs": {"s": {
         "$schema": "http://json-schema.org/draft-07/schema#", "pattern": _EVIL,
         "enum": [_LONG]}}}),
], ids=["pattern", "patternProperties", "nested-$schema"])
def test_diff_runs_catalog_patterns_by_re2(tmp_path: Path, old: dict, new: dict) -> None:
    a = _write(tmp_path / "a.json", _tool_schema(**old))
    b = _write(tmp_path / "b.json", _tool_schema(**new))
    for fmt in ("text", "json"):
        r = run("diff", a, b, "-f", fmt, cpu=20)
        assert r.returncode == 1, (r.returncode, r.stderr[-400:])
        assert b"Traceback" not in r.stderr


# ---- catalog text is never markup in the Markdown reports (PR comments, the job summary)

_MD_NAME = "a|b`c<img src=x onerror=alert(1)>[l](http://e)<b>x</b>\\|"


def _md_tags(markdown: str) -> tuple[set, list[set]]:
    """The HTML tags a GFM renderer makes of ``markdown`` that the input could have
    written, and for each table the set of its rows' cell counts (one count: no cell split)."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    tags = set(re.findall(r"<(img|a|b|i|script)\b", html))
    tables = [{len(re.findall(r"<t[dh][ >]", r)) for r in re.findall(r"<tr>(.*?)</tr>", t, re.S)}
              for t in re.findall(r"<table>(.*?)</table>", html, re.S)]
    return tags, tables


def test_markdown_reports_never_render_catalog_text_as_markup(tmp_path: Path) -> None:
    folder = tmp_path / "d|`<b>x</b>[y](http://e)"
    old = _write(folder / "old.json", _mcp({"name": _MD_NAME, "description": "<i>d</i> `x",
                                            "inputSchema": {"type": "object", "properties": {
                                                "p|`<i>": {"type": "strnig"}}}}))
    new = _write(folder / "new.json", _mcp({"name": _MD_NAME, "inputSchema": {
        "type": "object", "properties": {"p|`<i>": {"type": "integer"}},
        "required": ["p|`<i>"]}}))
    for args in (["lint", "-f", "markdown", old], ["measure", "-f", "markdown", "--top", "2", old],
                 ["diff", "-f", "markdown", old, new]):
        r = run(*args)
        assert r.returncode in (0, 1), (args, r.stderr)
        tags, tables = _md_tags(r.stdout.decode())
        assert not tags, (args[0], tags, r.stdout.decode())
        assert tables and all(len(t) == 1 for t in tables), (args[0], tables)


# ---- a malformed server URL is one error line before any connection (--url and configs)

@pytest.mark.parametrize("url,needle", [
    ("http://127.0.0.1:99999/mcp", "port out of range"),
    ("http://127.0.0.1:abc/mcp", "port"),
    ("http://[::1/mcp", "ipv6"),
    ("http://127.0.0.1:1/\x1b[31m", "control character"),
    ("http://", "scheme and host"),
])
def test_malformed_server_url_is_one_error_line(tmp_path: Path, url: str,
                                                     needle: str) -> None:
    one_error_line(run("tools", "--url", url, "--timeout", "5"), "--url", needle)
    cfg = _write(tmp_path / "mcp.json", {"mcpServers": {"a": {"url": url}}})
    one_error_line(run("tools", "--client-config", cfg, "--timeout", "5"), "'url'", needle)


@pytest.mark.parametrize("name,value,needle", [
    ("X", "a\r\nInjected: b", "line break"),
    ("X", "caf\u00e9", "not ASCII"),
    ("X Y", "a", "no header name"),
])
def test_config_headers_are_checked_as_header_is(tmp_path: Path, name: str, value: str,
                                                     needle: str) -> None:
    """A client configuration's headers get --header's check (one header_problem): before,
    they went to the HTTP client unchecked (a UnicodeEncodeError in the handshake)."""
    cfg = _write(tmp_path / "mcp.json", {"mcpServers": {"a": {
        "url": "http://127.0.0.1:1/mcp", "headers": {name: value}}}})
    line = one_error_line(run("tools", "--client-config", cfg, "--timeout", "5"), "'headers'",
                          needle)
    assert "Injected" not in line and "caf" not in line       # values may be secrets
    one_error_line(run("tools", "--url", "http://127.0.0.1:1/mcp", "--header",
                       f"{name}: {value}", "--timeout", "5"), "--header", needle)
