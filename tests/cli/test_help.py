"""Help texts, colour and --quiet across every command.

* `toolcat --help` and `toolcat CMD --help` (and -h): a usage line, a one-line summary, the
  options, each option with a value showing its default ("[default: ...]") unless it is one of
  the options that do nothing when absent (NO_DEFAULT), and an "Examples:" epilog with at least
  two `toolcat ...` lines whose options exist.
* Colour: without a terminal no escape codes, whatever the environment; on a terminal (a pty)
  colour unless NO_COLOR is set or --no-color is given (before or after the command).
* --quiet (before or after the command): nothing on stderr; the results on stdout unchanged
  (lint's text report drops its closing summary line too).
"""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from support.common import REPO, run_toolcat

COMMANDS = ["tools", "project", "lint", "diff", "diff-toolids", "measure", "capture", "serve",
            "rule"]
# options whose absence means "not done": there is no default to show
NO_DEFAULT = {"--handbook", "--report", "--extend-select", "--ignore", "--baseline",
              "--write-baseline", "--output-file", "--ignore-file", "--server", "--url",
              "--header", "--client", "--client-config", "--http", "--catalog", "--eager"}
# capture reads a live server (the test server of tests/live; the MCP SDK is in the test extra)
CAPTURE_OUT = os.path.join(tempfile.gettempdir(), f"toolcat-test-help-{os.getpid()}.json")
# one ordinary run of each command on the samples
RUNS = {
    "tools": ["tools", "samples/petstore.openapi.yaml"],
    "project": ["project", "samples/petstore.openapi.yaml"],
    "lint": ["lint", "samples/broken.tools.json"],
    "measure": ["measure", "samples/git.tools.json"],
    "diff": ["diff", "samples/git.tools.json", "samples/git.tools.json"],
    "diff-toolids": ["diff-toolids", "samples/petstore.openapi.yaml"],
    "capture": ["capture", "-o", CAPTURE_OUT, shlex.join(
        [sys.executable, str(REPO / "tests" / "live" / "servers" / "catalog_server.py")])],
    # serve with stdin closed: serves, says so on stderr, and ends (the client is gone)
    "serve": ["serve", "--timeout", "60", shlex.join(
        [sys.executable, str(REPO / "tests" / "live" / "servers" / "catalog_server.py")])],
    "rule": ["rule", "TC101"],
}
ESC = b"\x1b["
# colour and text styles (SGR); a progress bar on a terminal also moves the cursor, which is
# not colour and stays with NO_COLOR
SGR = re.compile(rb"\x1b\[[0-9;]*m")
ENV = {"COLUMNS": "100"}


def _help(*args: str) -> str:
    r = run_toolcat(*args, env=ENV)
    assert r.returncode == 0, r.stderr.decode()
    assert not r.stderr
    return r.stdout.decode()


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    cmds = ["", *COMMANDS]
    with ThreadPoolExecutor(4) as pool:
        texts = pool.map(lambda c: _help(*([c] if c else []), "--help"), cmds)
    return dict(zip(cmds, texts))


def options_of(text: str) -> dict[str, str]:
    """Option name -> its whole (unwrapped) help entry, from the Options section."""
    section = text.split("\nOptions:\n", 1)[1]
    section = re.split(r"\n\S", section, maxsplit=1)[0]  # up to the next unindented line
    entries: dict[str, str] = {}
    current = None
    for line in section.splitlines():
        m = re.match(r"  (-\S.*?)(?:  +|$)(.*)", line)
        if m:
            names = re.findall(r"(?<![\w-])(--?[\w-]+)", m.group(1).split("<")[0])
            current = " ".join(names)
            entries[current] = line
        elif current and line.strip():
            entries[current] += " " + line.strip()
    return entries


def examples_of(text: str) -> list[str]:
    assert "Examples:" in text
    tail = text.split("Examples:", 1)[1]
    return [line.strip() for line in tail.splitlines() if line.strip().startswith("toolcat ")]


@pytest.mark.parametrize("cmd", ["", *COMMANDS])
def test_help_layout(helps, cmd):
    text = helps[cmd]
    lines = text.splitlines()
    assert lines[0].startswith(f"Usage: toolcat {cmd}".rstrip()), lines[0]
    summary = next(line for line in lines[1:] if line.strip())
    assert summary.startswith("  ") and summary.strip()[0].isupper(), summary
    assert "\nOptions:\n" in text
    if cmd and cmd != "rule":
        assert "\nArguments:\n" in text


@pytest.mark.parametrize("cmd", ["", *COMMANDS])
def test_help_has_two_examples_that_parse(helps, cmd):
    examples = examples_of(helps[cmd])
    assert len(examples) >= 2, examples
    for ex in examples:
        words = ex.split()
        sub = words[1] if not cmd else cmd
        if cmd:
            assert words[1] == cmd, ex
        known = set()
        for entry in options_of(helps[sub]):
            known.update(entry.split())
        for w in words[2:]:
            if w.startswith("-") and w != "-":
                assert w.split("=")[0] in known, (ex, w)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_option_with_a_value_shows_its_default(helps, cmd):
    import typer.main

    from toolcat.cli import build_app

    click_cmd = typer.main.get_command(build_app()).commands[cmd]
    entries = options_of(helps[cmd])
    for p in click_cmd.params:
        if p.param_type_name != "option" or p.hidden:
            continue
        entry = next(v for k, v in entries.items() if p.opts[0] in k.split())
        if p.is_flag and not p.secondary_opts:
            continue  # a flag: off unless given
        if p.opts[0] in NO_DEFAULT:
            assert "[default:" not in entry
            continue
        assert "[default:" in entry, (cmd, p.opts, entry)
        if p.default is not None and p.show_default is not False and not p.is_flag:
            assert re.search(rf"\[default: {re.escape(str(p.default))}[];]", entry), (
                cmd, p.opts, entry)


def test_root_lists_every_command_untruncated(helps):
    section = helps[""].split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    listed = {line.split()[0]: line for line in section.splitlines() if line.startswith("  ")
              and not line.startswith("   ")}
    assert list(listed) == COMMANDS
    assert not any(line.rstrip().endswith("...") for line in section.splitlines())


def test_short_help_flag():
    assert _help("lint", "-h") == _help("lint", "--help")


# -- colour ---------------------------------------------------------------------------------

def _clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(ENV, **extra)
    return env


def test_no_escape_codes_without_a_terminal():
    def one(args):
        r = subprocess.run([sys.executable, "-m", "toolcat", *args], capture_output=True,
                           cwd=REPO, env=_clean_env(), timeout=60, stdin=subprocess.DEVNULL)
        return args, r

    runs = [*RUNS.values(), ["--help"], ["lint", "--help"], ["lint", "no-such-file.json"]]
    with ThreadPoolExecutor(4) as pool:
        for args, r in pool.map(one, runs):
            assert ESC not in r.stdout and ESC not in r.stderr, args
            assert r.stdout or r.stderr, args


def _pty_run(args: list[str], **env: str) -> bytes:
    """Run toolcat with stdout and stderr on a pseudo-terminal; return what it wrote."""
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "toolcat", *args], stdout=slave, stderr=slave,
                         stdin=subprocess.DEVNULL, cwd=REPO, env=_clean_env(**env))
    os.close(slave)
    out = b""
    try:
        while select.select([master], [], [], 60)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        p.wait(timeout=60)
    return out


@pytest.mark.parametrize("cmd", ["tools", "project", "lint", "measure"])
def test_colour_on_a_terminal_and_how_to_turn_it_off(cmd):
    args = RUNS[cmd]
    with ThreadPoolExecutor(4) as pool:
        plain, no_color_env, flag_before, flag_after = pool.map(
            lambda a: _pty_run(a[0], **a[1]),
            [(args, {}), (args, {"NO_COLOR": "1"}), (["--no-color", *args], {}),
             ([*args, "--no-color"], {})])
    assert SGR.search(plain), plain[:300]
    for out in (no_color_env, flag_before, flag_after):
        assert not SGR.search(out), out[:300]
        assert out.strip()


# -- --quiet ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", COMMANDS)
def test_quiet(cmd):
    args = RUNS[cmd]
    with ThreadPoolExecutor(3) as pool:
        loud, q_before, q_after = pool.map(
            lambda a: run_toolcat(*a, cwd=REPO, env=ENV, input=b""),
            [args, ["--quiet", *args], [*args, "-q"]])
    assert loud.returncode == q_before.returncode == q_after.returncode
    assert q_before.stdout == q_after.stdout
    for q in (q_before, q_after):
        assert q.stderr == b"", q.stderr.decode()
    if cmd == "lint":
        # the findings stay; the closing "Found ..." summary goes
        assert (q_before.stdout.decode().rstrip()
                == loud.stdout.decode().split("\nFound ")[0].rstrip())
    else:
        assert q_before.stdout == loud.stdout
    if cmd == "project":
        assert b"digest sha256:" in loud.stderr  # there was a summary to silence


def test_profile_and_for_help_list_the_profiles_and_clients_tables():
    """--profile and --for list what the tables hold (lint.profiles.PROFILES,
    formats.providers.CLIENTS), not names written by hand: a client added to the table is in
    both help texts."""
    code = (
        "import sys\n"
        "from toolcat.formats.providers import CLIENTS, Client\n"
        "from toolcat.features.lint import profiles\n"
        "CLIENTS['zz-client'] = Client('zz-client', 'ZZ', ())\n"
        "profiles.PROFILES['zz-client'] = profiles.Profile('zz-client', 's', (), client='zz-client')\n"
        "from toolcat.cli import run\n"
        "sys.exit(run(sys.argv[1:]))\n")
    for cmd, option in (("lint", "--profile"), ("project", "--for")):
        r = subprocess.run([sys.executable, "-c", code, cmd, "--help"], capture_output=True,
                           text=True, cwd=REPO, env={**os.environ, "COLUMNS": "300"},
                           timeout=120)
        assert r.returncode == 0, r.stderr
        text = re.sub(r"(?<=\w-) ", "", " ".join(r.stdout.split()))   # words cut at a "-"
        assert re.search(rf"{option}\b.*?codex, zz-client", text), (cmd, text)
