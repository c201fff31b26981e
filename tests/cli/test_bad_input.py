"""Bad input: one line on stderr, ``toolcat: error: FILE[:LINE[:COL]]: what is wrong``, exit 2,
no traceback, in under 2 seconds of CPU, whatever the command.

The time bound is checked on the CPU time of the toolcat process (so that a loaded test
machine cannot fail it); a run that hangs is killed after HANG seconds (an error, not a
time measurement).

Every case runs through ``toolcat tools`` in a fresh process; the other commands run a
representative subset (add a command to COMMANDS and it is covered).
"""

from __future__ import annotations

import re
import resource
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.common import corpus, run_toolcat

# command -> extra arguments placed before the file
COMMANDS: dict[str, list[str]] = {
    "tools": [],
    "lint": [],
    "measure": [],
    "project": [],
    "diff-toolids": [],
    "diff": ["samples/git.tools.json"],      # OLD a good catalog, NEW the bad input
}
# cases every command runs (the full list runs through `tools`)
# (all commands load through the same code: a sample keeps the suite fast)
SUBSET = {"malformed-yaml", "binary-png", "deep-json-array", "tag-python-object", "duplicate-json",
          "not-a-catalog", "missing"}

TIME_LIMIT = 2.0      # seconds of CPU (user + system) in the toolcat process
HANG = 60.0           # a hang guard (the run is killed), not a time limit


class Timer:
    """CPU time the child process used (immune to a loaded machine)."""

    def __enter__(self):
        self.r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return self

    def __exit__(self, *exc):
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = (r1.ru_utime - self.r0.ru_utime) + (r1.ru_stime - self.r0.ru_stime)


@dataclass
class Case:
    name: str
    filename: str | None          # None: the path is a folder or missing (see make)
    content: bytes | None
    expect: tuple[str, ...]       # substrings of the message (case-insensitive)
    line: int | None = None       # expected line in FILE:LINE[:COL], when known
    at: str | None = None         # text the column must point at, on that line

    @property
    def col(self) -> int | None:
        if self.at is None:
            return None
        text = self.content.decode("utf-8", "replace").split("\n")[self.line - 1]
        return text.index(self.at) + 1


def _bomb() -> bytes:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghij"
    for prev, cur in zip(names, names[1:]):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return ("\n".join(lines) + "\n").encode()


CATALOG_HEAD = "tools:\n  - name: first\n    description: one\n"

CASES = [
    Case("malformed-json", "bad.json", b'{"tools": [\n  {"name": "a",, }\n]}', ("invalid json",), 2, ", }"),
    Case("malformed-yaml", "bad.yaml", b"tools:\n  - name: a\n   bad: [\n", ("invalid yaml",), 3),
    Case("truncated-json", "cut.json", b'{"tools": [{"name": "a", "inputSchema": {"type": "obj',
         ("invalid json",), 1),
    Case("empty", "empty.json", b"", ("empty",)),
    Case("whitespace-only", "blank.yaml", b"  \n\n\t \n", ("empty",)),
    Case("comments-only-yaml", "comments.yaml", b"# nothing here\n---\n", ("no data",)),
    Case("binary-nul", "nul.json", b'{"a": "\x00"}', ("binary",), 1, "\x00"),
    Case("binary-png", "image.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", ("binary",)),
    Case("latin-1", "latin1.json", '{"tools": [{"name": "café"}]}'.encode("latin-1"),
         ("utf-8",), 1, "\ufffd"),
    Case("utf-16-bom", "utf16.json", '{"tools": []}'.encode("utf-16"), ("utf-16",)),
    Case("alias-bomb", "lol.yaml", _bomb(), ("alias",)),
    Case("deep-json-array", "deep.json", b"[" * 100_000 + b"]" * 100_000, ("nesting",), 1),
    Case("deep-json-object", "deepobj.json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
         ("nesting",), 1),
    Case("deep-yaml-flow-seq", "deepflow.yaml", b"[" * 100_000 + b"]" * 100_000, ("nesting",), 1),
    Case("deep-yaml-flow-map", "deepflowmap.yaml", b"{a: " * 100_000 + b"1" + b"}" * 100_000,
         ("nesting",), 1),
    Case("deep-yaml-block-seq", "deepblock.yaml", b"- " * 100_000 + b"a\n", ("nesting",), 1),
    Case("deep-yaml-block-map", "deepmap.yaml",
         "".join(" " * i + "a:\n" for i in range(1500)).encode() + b" " * 1500 + b"b: 1\n",
         ("nesting",), 1001),
    Case("deeper-than-limit-yaml", "deep300.yaml",
         "".join(" " * i + "a:\n" for i in range(300)).encode() + b" " * 300 + b"b: 1\n",
         ("nesting deeper than 256",), 257),
    Case("tag-python-object", "pyobj.yaml",
         (CATALOG_HEAD + "    inputSchema: !!python/object:os.system\n      x: 1\n").encode(),
         ("tag", "!!python/object:os.system"), 4, "!!"),
    Case("tag-python-name", "pyname.yaml",
         (CATALOG_HEAD + "    inputSchema: !!python/name:os.system\n").encode(),
         ("tag", "!!python/name:os.system"), 4, "!!"),
    Case("tag-ruby-object", "ruby.yaml",
         (CATALOG_HEAD + "  - !ruby/object:Gem::Requirement\n    name: b\n").encode(),
         ("tag", "!ruby/object"), 4, "!"),
    Case("tag-custom", "custom.yaml", (CATALOG_HEAD + "    annotations: !foo {x: 1}\n").encode(),
         ("tag", "!foo"), 4, "!"),
    Case("tag-after-anchor", "anchor.yaml", (CATALOG_HEAD + "    annotations: &a !foo\n      x: 1\n").encode(),
         ("tag", "!foo"), 4, "!"),
    Case("tag-in-flow", "flowtag.yaml", (CATALOG_HEAD + "    annotations: [1, !foo 2]\n").encode(),
         ("tag", "!foo"), 4, "!"),
    Case("tag-binary", "binary.yaml", (CATALOG_HEAD + "    x: !!binary aGVsbG8=\n").encode(),
         ("tag", "!!binary"), 4, "!"),
    Case("tag-set", "set.yaml", (CATALOG_HEAD + "    x: !!set {a, b}\n").encode(), ("tag", "!!set"), 4, "!"),
    Case("duplicate-yaml", "dup.yaml",
         (CATALOG_HEAD + "  - name: second\n    description: two\n    name: again\n").encode(),
         ("duplicate", "'name'"), 6, "name"),
    Case("duplicate-yaml-flow", "dupflow.yaml",
         (CATALOG_HEAD + "    annotations: {readOnlyHint: true, readOnlyHint: false}\n").encode(),
         ("duplicate", "'readOnlyHint'"), 4, "readOnlyHint: false"),
    Case("duplicate-json", "dup.json",
         b'{"tools": [\n  {"name": "first"},\n  {"name": "second",\n   "description": "x",\n'
         b'   "name": "again"}\n]}', ("duplicate", "'name'"), 5, '"name"'),
    Case("not-a-catalog", "other.json", b'{"hello": "world", "items": [1, 2]}',
         ("not a tool catalog", "openapi", "swagger", "mcp", "openwop", "openai", "anthropic")),
    Case("not-a-catalog-yaml-scalar", "scalar.yaml", b"just some words\n", ("not a tool catalog",)),
    Case("missing", None, None, ("no such file",)),
    Case("empty-folder", None, None, ("no .json, .yaml",)),
    Case("folder-without-catalog", None, None, ("no tool catalog found",)),
    Case("multi-document", "multi.yaml", b"tools: []\n---\ntools: []\n", ("more than one yaml document",), 2),
    Case("inf-value", "inf.yaml", (CATALOG_HEAD + "    inputSchema: {type: object, maximum: .inf}\n").encode(),
         ("cannot be represented in json", ".inf"), 4, ".inf"),
    Case("nan-value", "nan.yaml", (CATALOG_HEAD + "    inputSchema:\n      minimum: .nan\n").encode(),
         ("cannot be represented in json", ".nan"), 5, ".nan"),
    Case("nan-json", "nan.json", b'{"tools": [{"name": "a", "inputSchema": {"maximum": NaN}}]}',
         ("nan",), 1, "NaN"),
    Case("huge-number-json", "e999.json", b'{"tools": [{"name": "a", "x": 1e999}]}', ("range",), 1, "1e999"),
    Case("huge-integer-json", "digits.json", b'{"tools": [{"name": "a", "x": ' + b"7" * 5000 + b"}]}",
         ("digits",)),
    Case("mapping-key-clash", "clash.yaml", (CATALOG_HEAD + "    x: {1: a, '1': b}\n").encode(),
         ("same json key",), 4),
]
CASE_BY_NAME = {c.name: c for c in CASES}


def make(case: Case, tmp_path: Path) -> Path:
    if case.name == "missing":
        return tmp_path / "does-not-exist.json"
    if case.name == "empty-folder":
        d = tmp_path / "empty-folder"
        d.mkdir()
        (d / "notes.txt").write_text("no catalog here")
        return d
    if case.name == "folder-without-catalog":
        d = tmp_path / "no-catalog"
        d.mkdir()
        (d / "package.json").write_text('{"name": "x", "version": "1.0.0"}')
        (d / "config.yaml").write_text("a: 1\n")
        (d / "README.md").write_text("# hi\n")
        return d
    p = tmp_path / case.filename
    p.write_bytes(case.content)
    return p


def check_error(proc, path: Path, case: Case, timer: Timer | None = None) -> None:
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "Traceback" not in proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    m = re.match(r"toolcat: error: (.+?)(?::(\d+))?(?::(\d+))?: (.+)$", line)
    assert m, line
    assert m.group(1) == str(path), line
    msg = m.group(4).lower()
    for want in case.expect:
        assert want.lower() in msg, (want, line)
    if case.line is not None:
        assert m.group(2) is not None and int(m.group(2)) == case.line, line
    if case.col is not None:
        assert m.group(3) is not None and int(m.group(3)) == case.col, line
    if timer is not None:
        assert timer.cpu < TIME_LIMIT, f"took {timer.cpu:.2f}s of CPU: {line}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_through_tools(case, tmp_path):
    path = make(case, tmp_path)
    with Timer() as t:
        proc = run_toolcat("tools", str(path), timeout=HANG)
    check_error(proc, path, case, t)


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "tools"])
@pytest.mark.parametrize("name", sorted(SUBSET))
def test_bad_input_through_other_commands(command, name, tmp_path):
    case = CASE_BY_NAME[name]
    path = make(case, tmp_path)
    with Timer() as t:
        proc = run_toolcat(command, *COMMANDS[command], str(path), timeout=HANG)
    check_error(proc, path, case, t)
    assert list(tmp_path.glob("**/*.tmp*")) == []  # no partial output file left behind


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_option_is_a_usage_error(command, tmp_path):
    f = tmp_path / "cat.json"
    f.write_text('{"tools": []}')
    proc = run_toolcat(command, "--no-such-option", str(f))
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "Traceback" not in err
    assert "--no-such-option" in err


def test_file_over_max_file_size(tmp_path):
    f = tmp_path / "cat.json"
    f.write_text('{"tools": [{"name": "a", "description": "' + "x" * 5000 + '"}]}')
    proc = run_toolcat("tools", "--max-file-size", "1000", str(f))
    check_error(proc, f, Case("size", None, None, ("limit", "--max-file-size")))
    ok = run_toolcat("tools", "--max-file-size", "100000", str(f))
    assert ok.returncode == 0, ok.stderr


def test_tag_like_text_is_not_a_tag(tmp_path):
    # "!" inside strings, block scalars and comments is text: the file loads
    f = tmp_path / "ok.yaml"
    f.write_text(
        "tools:\n  - name: a\n    description: 'Hello, !world: !x'\n    title: Wow, !great\n"
        "    annotations:\n      note: |\n        !not a tag\n        - !nor this\n"
        "      other: \"[!x, {a: !y}]\"\n# - !comment\n")
    proc = run_toolcat("tools", "--format", "json", str(f))
    assert proc.returncode == 0, proc.stderr
    assert b'"id":"a"' in proc.stdout.replace(b" ", b"")


def test_tag_in_a_big_file_is_found_fast(tmp_path):
    # a 3 MB spec with one tag at the very end: linear-time check, well under the limit
    text = corpus("openapi", "openai.openapi.yaml").read_text(encoding="utf-8")
    f = tmp_path / "big.yaml"
    f.write_text(text.rstrip("\n") + "\nx-extra: !!python/object:os.system {}\n")
    nlines = text.rstrip("\n").count("\n") + 2
    with Timer() as t:
        proc = run_toolcat("tools", str(f), timeout=HANG)
    case = Case("bigtag", None, f.read_bytes(), ("!!python/object:os.system",), nlines, "!!")
    check_error(proc, f, case, t)


def test_duplicate_key_in_a_big_file_is_placed(tmp_path):
    text = corpus("openapi", "box.openapi.json").read_text(encoding="utf-8")
    i = text.rindex("}")
    f = tmp_path / "big.json"
    f.write_text(text[:i].rstrip() + ',\n  "openapi": "3.0.0"\n}\n')
    line = text[:i].rstrip().count("\n") + 2
    with Timer() as t:
        proc = run_toolcat("tools", str(f), timeout=HANG)
    case = Case("bigdup", None, f.read_bytes(), ("duplicate", "'openapi'"), line, '"openapi"')
    check_error(proc, f, case, t)


def test_stdin_bad_input():
    proc = run_toolcat("tools", "-", input=b'{"tools": [')
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolcat: error: -:1:"), lines
