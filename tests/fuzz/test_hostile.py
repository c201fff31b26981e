"""A hostile-input battery: generated files, as an attacker would write them, through every
command (issue 13's acceptance).

Each case makes a folder of inputs (catalogs full of control characters, Rich markup, lone
surrogates, bidi overrides, catastrophic and enormous regular expressions, deep nesting and
``$ref`` chains, refs that escape the folder or name a FIFO or hold a NUL byte, byte order
marks, CR-only line endings, FIFOs, devices, links to them, names that are not UTF-8 or hold
a newline) and runs commands on it. Every run must:

* exit 0, 1 or 2; on 2, print only ``toolcat: error:`` lines (and Click's help hint);
* print no traceback and no "internal error";
* stay within a CPU and a memory bound (RLIMIT_CPU and RLIMIT_AS; the CPU time is checked
  too), with a wall-clock guard only against blocking (a FIFO read would block, using no
  CPU);
* leave no ``.toolcat-*`` temp file and touch no file outside its output folder;
* print no control character on a stream for people (stderr always; stdout for the text
  formats).

CI runs ``CASES`` seeds with a few commands each; ``TOOLCAT_HOSTILE_CASES=N`` (or the
``long`` Hypothesis profile, see support/fuzz_profile.py) runs more, every command each.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import resource
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from support.fuzz_profile import is_long

# every run is a child with RLIMIT_CPU and RLIMIT_AS: a runaway fails its case, not the machine
pytestmark = pytest.mark.fresh
CASES = int(os.environ.get("TOOLCAT_HOSTILE_CASES", "0")) or (400 if is_long() else 36)
COMMANDS_PER_CASE = None if is_long() or os.environ.get("TOOLCAT_HOSTILE_CASES") else 3
CPU_LIMIT = 15            # seconds of CPU per run (RLIMIT_CPU kills past it)
MEM_LIMIT = 4 << 30       # bytes of address space per run (RLIMIT_AS)
WALL_GUARD = 180          # seconds: only a blocked process gets near this
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]"
                     rb"|\xe2\x81[\xa6-\xa9]")
IS_ROOT = os.geteuid() == 0

NASTY = ["\x1b[31m", "\x1b]0;title\x07", "\x1b]8;;http://x\x07", "\x07", "\x00", "\r", "\n",
         "\x7f", "\u009b", "\u202e", "\u2028", "\u2066", "\ud800", "\udfff", "[/]",
         "[bold]", "[link=http://evil]", "%0A", "::error::", "<!--", "]]>", "\\", "'", '"',
         "\ufeff", "\ufffe", "é", "𝕏", "　"]
PATTERNS = ["^(a+)+$", "(a|aa)+$", "(.*a){20}", "a{99999999999}", "x{4294967296,}",
            "(?=a)a", "(?<=a)b", r"(a)\1", r"\p{Script=Greek}", "[", "(", "a{3,2}", "\\",
            "[^]", "[]", "(?<n>a)\\k<n>", "a" * 2000, "(" * 300 + ")" * 300,
            "(" * 30000 + ")" * 30000]


def _s(rng: random.Random, n: int = 3) -> str:
    parts = [rng.choice(NASTY) for _ in range(rng.randint(1, n))]
    return "t" + "".join(parts) + rng.choice(["", "x" * rng.randint(1, 90)])


def _schema(rng: random.Random, depth: int) -> dict:
    props: dict = {}
    for _ in range(rng.randint(0, 3)):
        k = _s(rng) if rng.random() < 0.5 else f"p{rng.randint(0, 9)}"
        if depth > 0 and rng.random() < 0.4:
            props[k] = _schema(rng, depth - 1)
        else:
            props[k] = rng.choice([
                {"type": "string", "pattern": rng.choice(PATTERNS)},
                {"type": "string", "description": _s(rng, 6)},
                {"enum": [_s(rng), 2**70, -0.0, 1e308]},
                {"type": ["integer", "integer"]},
                {"$ref": rng.choice(["#/$defs/nope", "#/$defs/d0", "x%00.json", "#/%24defs/d0",
                                     "http://127.0.0.1:1/x", "../../etc/passwd"])},
                {"type": "string", "default": "ghp_" + "A1b2" * 9},
                {"not": {}}, {"allOf": [{"type": "string"}, {"type": "integer"}]}, True, False])
    s: dict = {"type": "object", "properties": props,
               "required": [_s(rng) for _ in range(rng.randint(0, 2))]}
    if rng.random() < 0.5:
        s["patternProperties"] = {rng.choice(PATTERNS): {}}
    if rng.random() < 0.2:
        s["propertyNames"] = {"pattern": rng.choice(PATTERNS)}
    return s


def _mcp(rng: random.Random) -> dict:
    tools = []
    for i in range(rng.randint(1, 4)):
        t = {"name": _s(rng) if rng.random() < 0.7 else f"tool_{i}",
             "description": _s(rng, 8), "inputSchema": _schema(rng, 3)}
        if rng.random() < 0.3:
            t["title"] = _s(rng)
        if rng.random() < 0.2:
            t["annotations"] = {"title": _s(rng)}
        tools.append(t)
    if rng.random() < 0.3:
        n = rng.choice([50, 3500])
        defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(n)}
        defs[f"d{n}"] = {"type": "string"}
        tools[0]["inputSchema"]["$defs"] = defs
        tools[0]["inputSchema"]["properties"]["chain"] = {"$ref": "#/$defs/d0"}
    if rng.random() < 0.1:
        deep: dict = {"type": "string"}
        for _ in range(rng.choice([60, 120, 3000])):
            deep = {"type": "object", "properties": {"a": deep}}
        tools[0]["inputSchema"]["properties"]["deep"] = deep
    return {"tools": tools}


def _openapi(rng: random.Random) -> str:
    ref = rng.choice(["'p.yaml'", "'x%00.json'", "'../outside.yaml'", "'fifo.yaml'",
                      "'link.yaml'", "'p.yaml#/nope'", "'./p.yaml'", "'http://127.0.0.1:1/p'",
                      "'p.yaml#/%ZZ'"])
    name = json.dumps(_s(rng))
    return ("openapi: 3.0.0\ninfo: {title: " + json.dumps(_s(rng)) + ", version: '1'}\n"
            "paths:\n  /a:\n    get:\n      operationId: " + name + "\n"
            "      description: " + json.dumps(_s(rng, 8)) + "\n"
            "      parameters:\n        - $ref: " + ref + "\n"
            "        - {name: q, in: query, schema: {type: string, pattern: "
            + json.dumps(rng.choice(PATTERNS)) + "}}\n"
            "      responses: {'200': {description: ok}}\n")


def _bytes_case(rng: random.Random, body: bytes) -> bytes:
    kind = rng.choice(["bom8", "bom16", "bom32le", "bom32be", "cr", "crlf", "trunc", "nul",
                       "latin1", "plain", "tag", "twodocs"])
    if kind == "bom8":
        return b"\xef\xbb\xbf" + body
    if kind == "bom16":
        return b"\xff\xfe" + body.decode("utf-8", "replace").encode("utf-16-le")
    if kind == "bom32le":
        return b"\xff\xfe\x00\x00" + body.decode("utf-8", "replace").encode("utf-32-le")
    if kind == "bom32be":
        return b"\x00\x00\xfe\xff" + body.decode("utf-8", "replace").encode("utf-32-be")
    if kind == "cr":
        return body.replace(b"\n", b"\r")
    if kind == "crlf":
        return body.replace(b"\n", b"\r\n")
    if kind == "trunc":
        return body[:rng.randint(1, max(1, len(body) - 1))]
    if kind == "nul":
        i = rng.randint(0, len(body))
        return body[:i] + b"\x00" + body[i:]
    if kind == "latin1":
        return body + b"\n# \xff\xfe caf\xe9\n"
    if kind == "tag":
        return b"tools: !!python/object:os.system [\"\x1b[31m\"]\n"
    if kind == "twodocs":
        return b"tools: []\r---\r{}\r"
    return body


def _dump(doc) -> bytes:
    # json.dumps writes lone surrogates as \ud800 escapes (valid JSON, as attackers write it);
    # its pure-Python encoder (check_circular off) nests as deep as the recursion limit allows
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 50_000))
    try:
        return json.JSONEncoder(check_circular=False).encode(doc).encode("utf-8")
    finally:
        sys.setrecursionlimit(old)


def make_case(seed: int, root: Path) -> list[str]:
    """Write case ``seed``'s inputs under ``root``; return the input arguments."""
    rng = random.Random(seed)
    inp = root / "in"
    inp.mkdir()
    (root / "outside.yaml").write_text("name: q\nin: query\ndescription: OUTSIDE\n")
    (inp / "p.yaml").write_text("name: p\nin: query\nschema: {type: string}\n")
    kind = seed % 8
    args: list[str] = []
    if kind in (0, 1):
        f = inp / rng.choice(["tools.json", "a b.json", "x\x1b[1m.json", "[bold]y[-].json",
                              "new\nline.json"])
        f.write_bytes(_dump(_mcp(rng)))
        args = [str(f)]
    elif kind == 2:
        f = inp / "spec.yaml"
        f.write_text(_openapi(rng), encoding="utf-8", errors="surrogatepass")
        os.mkfifo(inp / "fifo.yaml")
        (inp / "link.yaml").symlink_to(root / "outside.yaml")
        args = [str(f)]
    elif kind == 3:
        body = _dump(_mcp(rng)) if rng.random() < 0.5 else _openapi(rng).encode(
            "utf-8", "surrogatepass")
        f = inp / rng.choice(["b.json", "b.yaml", "b.yml"])
        f.write_bytes(_bytes_case(rng, body))
        args = [str(f)]
    elif kind == 4:
        # special files as inputs
        fifo = inp / "f.json"
        os.mkfifo(fifo)
        link = inp / "l.json"
        link.symlink_to(fifo)
        choice = rng.choice(["fifo", "link", "zero", "dir", "null"])
        if choice == "zero" and IS_ROOT:
            os.mknod(inp / "z.json", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
            args = [str(inp / "z.json")]
        elif choice == "null" and IS_ROOT:
            os.mknod(inp / "n.json", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
            args = [str(inp / "n.json")]
        elif choice == "dir":
            (inp / "ok.json").write_bytes(_dump(_mcp(rng)))
            args = [str(inp)]
        else:
            args = [str(fifo if choice == "fifo" else link)]
    elif kind == 5:
        # a folder: files with names that are not UTF-8, one-tool files, junk
        for i in range(rng.randint(1, 4)):
            name = os.fsencode(str(inp)) + b"/t" + bytes([0x80 + rng.randint(0, 0x7f)]) \
                + str(i).encode() + b".json"
            tool = _mcp(rng)["tools"][0]
            with open(name, "wb") as fh:
                fh.write(_dump(tool if rng.random() < 0.5 else {"tools": [tool]}))
        (inp / "junk.json").write_bytes(rng.choice([b"{", b"\xff\xfe", b"[]", b"null"]))
        args = [str(inp)]
    elif kind == 6:
        # two catalogs, one of them broken (lint goes on past it)
        a = inp / "a.json"
        a.write_bytes(_dump(_mcp(rng)))
        b = inp / "b.yaml"
        b.write_bytes(_bytes_case(rng, _openapi(rng).encode("utf-8", "surrogatepass")))
        args = [str(a), str(b)]
    else:
        # OpenAI / Anthropic arrays and a JSON-RPC error with a hostile message
        t = _mcp(rng)["tools"][0]
        doc = rng.choice([
            [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                               "parameters": t["inputSchema"]}}],
            [{"name": t["name"], "description": t["description"],
              "input_schema": t["inputSchema"]}],
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": _s(rng, 8)}}])
        f = inp / "arr.json"
        f.write_bytes(_dump(doc))
        args = [str(f)]
    return args


def commands(inputs: list[str], out: Path) -> list[tuple[str, list[str], bool]]:
    """(label, argv, stdout is for people)."""
    first = inputs[:1]
    return [
        ("tools", ["tools", *inputs], True),
        ("tools-json", ["tools", "-f", "json", *inputs], False),
        ("lint", ["lint", *inputs], True),
        ("lint-concise", ["lint", "-f", "concise", *inputs], True),
        ("lint-github", ["lint", "-f", "github", *inputs], True),
        ("lint-stats", ["lint", "--statistics", *inputs], True),
        ("lint-json", ["lint", "-f", "json", *inputs], False),
        ("lint-sarif", ["lint", "-f", "sarif", "-o", str(out / "l.sarif"), *inputs], True),
        ("lint-junit", ["lint", "-f", "junit", *inputs], False),
        ("lint-baseline", ["lint", "--write-baseline", str(out / "b.json"), *inputs], True),
        ("measure", ["measure", "--top", "3", *inputs], True),
        ("measure-md", ["measure", "-f", "markdown", *inputs], True),
        ("measure-json", ["measure", "-f", "json", "--write-baseline", str(out / "m.json"),
                          *inputs], False),
        ("project", ["project", *first, "-o", str(out / "o.json"), "--handbook",
                     str(out / "h.json"), "--report", str(out / "r.json")], True),
        ("project-openwop", ["project", "-q", "--to", "openwop", "--unlowerable", "fail",
                             *first, "-o", str(out / "w.json")], True),
        ("project-stdout", ["project", "-q", "--indent", "2", *first], False),
        ("diff", ["diff-toolids", *first, *first], True),
    ]


def _tree(root: Path, skip: Path) -> dict:
    """Every entry under ``root`` except ``skip``: kind, and the hash of a regular file."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(os.fsencode(str(root))):
        if os.fsencode(str(skip)) == dirpath:
            dirnames[:] = []
            continue
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    out[p] = ("file", hashlib.sha256(fh.read()).hexdigest(), st.st_mode)
            else:
                out[p] = (stat.S_IFMT(st.st_mode), st.st_mode,
                          os.readlink(p) if stat.S_ISLNK(st.st_mode) else None)
    return out


def _limit():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 1))
    # memory too: a runaway allocation is a failure of this case, not an OOM-killed machine
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


def run_bounded(argv: list[str], cwd: Path) -> tuple[int, bytes, bytes, float, bool]:
    env = dict(os.environ, NO_COLOR="1", XDG_CACHE_HOME=str(cwd / "out" / ".cache"))
    env.pop("FORCE_COLOR", None)
    env.pop("TOOLCAT_DEBUG", None)
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen([sys.executable, "-m", "toolcat", *argv], stdin=subprocess.DEVNULL,
                             stdout=fo, stderr=fe, cwd=cwd, env=env, preexec_fn=_limit)
        deadline = time.monotonic() + WALL_GUARD
        blocked = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                blocked = True
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        fo.seek(0)
        fe.seek(0)
        return (os.waitstatus_to_exitcode(status), fo.read(), fe.read(),
                ru.ru_utime + ru.ru_stime, blocked)


@pytest.mark.parametrize("seed", range(CASES))
def test_hostile_inputs(tmp_path: Path, seed: int) -> None:
    inputs = make_case(seed, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    cmds = commands(inputs, out)
    if COMMANDS_PER_CASE is not None:
        rng = random.Random(seed * 7919)
        cmds = rng.sample(cmds, COMMANDS_PER_CASE)
    before = _tree(tmp_path, out)
    for label, argv, people in cmds:
        code, o, e, cpu, blocked = run_bounded(argv, tmp_path)
        what = (f"seed {seed} {label}: toolcat {' '.join(map(repr, argv))}\n exit {code}, "
                f"cpu {cpu:.2f}s\n stderr: {e[-1500:]!r}\n stdout: {o[:300]!r}")
        assert not blocked, "blocked (wall-clock guard):\n" + what
        assert code in (0, 1, 2), "exit code (negative: killed, e.g. SIGXCPU):\n" + what
        assert cpu < CPU_LIMIT, "CPU bound:\n" + what
        assert b"Traceback" not in e and b"internal error" not in e, what
        if code == 2:
            lines = e.decode("utf-8", "replace").splitlines()
            assert lines and lines[0].startswith("toolcat: error: "), what
            assert all(x.startswith(("toolcat: error: ", "Try '")) for x in lines), what
            if not argv[0] == "lint":
                assert len([x for x in lines if x.startswith("toolcat:")]) == 1, what
        assert not CONTROL.search(e), "control character on stderr:\n" + what
        if people:
            assert not CONTROL.search(o), "control character on stdout:\n" + what
        e.decode("utf-8")
        o.decode("utf-8")
        left = [p for p in tmp_path.rglob(".toolcat-*")]
        assert not left, f"temp files left: {left}\n" + what
        assert _tree(tmp_path, out) == before, "a file outside the outputs changed:\n" + what
        if label == "project" and code == 0:
            json.loads((out / "o.json").read_bytes())
