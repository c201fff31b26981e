"""The hooks of .pre-commit-hooks.yaml, run by a real pre-commit against a temporary git repo.

pre-commit installs toolcat from a git repository at one commit. So that the test always checks
the current code (committed or not), it snapshots the working tree (tracked files and untracked
files that are not ignored) into a temporary git repository, commits there, and points
pre-commit at that commit. All runs share one PRE_COMMIT_HOME and go through `pre-commit run`
with a user's config naming every hook, so toolcat's hook environment is built once per session
(pip installs toolcat's dependencies from the package registry: most of this file's time).
`pre-commit try-repo` is not used: it builds a new hook environment on every call, and runs the
same manifest entries (`.pre-commit-hooks.yaml`, default args) as a config entry without args.

pre-commit itself comes from the current environment when importable, else from a temporary
venv (`pip install pre-commit`). Deselect with `-m "not precommit"`; `.ci/run` runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.common import REPO, SAMPLES, run_toolcat

pytestmark = pytest.mark.precommit

GIT_ENV = {
    "GIT_AUTHOR_NAME": "toolcat tests", "GIT_AUTHOR_EMAIL": "tests@toolcat.invalid",
    "GIT_COMMITTER_NAME": "toolcat tests", "GIT_COMMITTER_EMAIL": "tests@toolcat.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    r = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"git {' '.join(args)}: {r.stderr}"
    return r.stdout


def _snapshot(dest: Path) -> tuple[Path, str]:
    """Copy the working tree (tracked + untracked, not ignored) to a new repo; commit it."""
    r = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                       cwd=REPO, capture_output=True)
    if r.returncode == 0:
        listed = r.stdout.decode().split("\0")
    else:  # not a git checkout (an unpacked archive): the source tree without build litter
        skip = {".git", ".venv", "venv", "__pycache__", ".hypothesis", ".pytest_cache", "build",
                "dist", ".cache", "results"}
        listed = []
        for folder, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
            listed += [os.path.relpath(os.path.join(folder, f), REPO) for f in files
                       if not f.endswith(".pyc")]
    dest.mkdir()
    for rel in filter(None, listed):
        src = REPO / rel
        if not src.is_file():  # deleted in the working tree, or a submodule
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot of the working tree")
    return dest, _git(dest, "rev-parse", "HEAD").strip()


def _pre_commit_exe(tmp: Path) -> list[str]:
    try:
        import pre_commit  # noqa: F401
        return [sys.executable, "-m", "pre_commit"]
    except ImportError:
        pass
    venv = tmp / "pc-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "pre-commit"],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"pip install pre-commit failed (needs the registry):\n{r.stderr}"
    return [str(py), "-m", "pre_commit"]


class PreCommit:
    def __init__(self, tmp: Path) -> None:
        t0 = time.monotonic()
        self.exe = _pre_commit_exe(tmp)
        self.hooks_repo, self.rev = _snapshot(tmp / "toolcat-snapshot")
        self.env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp / "pre-commit-home"),
                    "NO_COLOR": "1", "PRE_COMMIT_COLOR": "never"}
        self.env.pop("FORCE_COLOR", None)
        self.env.pop("VIRTUAL_ENV", None)
        self.setup_seconds = time.monotonic() - t0

    def __call__(self, cwd: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*self.exe, *args], cwd=cwd, env=self.env, capture_output=True,
                              text=True, timeout=900)

    def run(self, cwd: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
        # `run` uses the config in cwd and the shared PRE_COMMIT_HOME (environment built once)
        return self(cwd, "run", hook, "--color", "never", "--verbose", "--files", *files)


def _tools(path: Path) -> list:
    return json.loads(path.read_text())["tools"]


def _wire_len(tools: list) -> int:
    # JSON.stringify bytes of a tools array without floats: compact separators, UTF-8 as is
    return len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False).encode())


def _user_repo(w: Path, pc: PreCommit) -> None:
    """A user's repository: a passing and a failing catalog for each hook."""
    _git(w, "init", "-q", "-b", "main")
    (w / "good").mkdir()
    (w / "bad").mkdir()
    shutil.copy(SAMPLES / "git.tools.json", w / "good" / "tools.json")
    shutil.copy(SAMPLES / "broken.tools.json", w / "bad" / "tools.json")
    # not a catalog name: the default `files:` pattern must leave it alone (it would fail lint)
    (w / "package.json").write_text('{"name": "x", "tools": 3}\n')
    # budget: the standard view (gate "before") of good/tools.json is exactly at the limit;
    # big/tools.json is the same catalog with one more tool
    tools = _tools(SAMPLES / "git.tools.json")
    limit = _wire_len(tools)
    (w / "big").mkdir()
    extra = dict(tools[0], name="git_status_again")
    (w / "big" / "tools.json").write_text(json.dumps({"tools": [*tools, extra]}, indent=2))
    (w / "toolcat.toml").write_text(f'[budgets]\nmax-bytes = {limit}\ngate = "before"\n')
    # project --check: a current compact catalog, and a stale one
    shutil.copy(SAMPLES / "petstore.openapi.yaml", w / "openapi.yaml")
    r = run_toolcat("-q", "project", "openapi.yaml", "-o", "tools.compact.json", cwd=w)
    assert r.returncode == 0, r.stderr
    (w / "stale").mkdir()
    stale = json.loads((w / "tools.compact.json").read_text())
    stale["tools"] = stale["tools"][:-1]
    (w / "stale" / "tools.compact.json").write_text(json.dumps(stale))
    # capture --check: a live MCP server built on the MCP SDK (run by the hook environment's
    # python), a current capture of it and a stale one
    shutil.copy(REPO / "tests" / "live" / "servers" / "catalog_server.py", w / "server.py")
    r = run_toolcat("-q", "capture", f"{sys.executable} server.py --mode single", "-o",
                    "server.tools.json", cwd=w)
    assert r.returncode == 0, r.stderr
    old = json.loads((w / "server.tools.json").read_text())
    old["tools"] = old["tools"][:-1]
    (w / "stale" / "server.tools.json").write_text(json.dumps(old))
    (w / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {pc.hooks_repo}\n  rev: {pc.rev}\n  hooks:\n"
        "  - id: toolcat-lint\n"
        "  - id: toolcat-budget\n"
        "  - id: toolcat-project-check\n    alias: current-check\n"
        "    args: [openapi.yaml, -o, tools.compact.json]\n"
        "  - id: toolcat-project-check\n    alias: stale-check\n"
        "    args: [openapi.yaml, -o, stale/tools.compact.json]\n"
        "  - id: toolcat-capture-check\n    alias: capture-current\n"
        "    args: [python server.py --mode single, -o, server.tools.json]\n"
        "  - id: toolcat-capture-check\n    alias: capture-stale\n"
        "    args: [python server.py --mode single, -o, stale/server.tools.json]\n")
    _git(w, "add", "-A")


class Session:
    """The snapshot, the user's repository and its hook environment (`install-hooks`: built
    once, shared by every `run`)."""

    def __init__(self, tmp: Path) -> None:
        self.t0 = time.monotonic()
        self.pc = PreCommit(tmp)
        self.work = tmp / "user-repo"
        self.work.mkdir()
        _user_repo(self.work, self.pc)
        r = self.pc(self.work, "install-hooks")
        assert r.returncode == 0, _ok(r)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    s = Session(tmp_path_factory.mktemp("precommit"))
    yield s
    print(f"\npre-commit tests: setup {s.pc.setup_seconds:.1f} s, all "
          f"{time.monotonic() - s.t0:.1f} s")


def _ok(r: subprocess.CompletedProcess) -> str:
    return f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"


def test_lint_hook(session):
    pc, work = session.pc, session.work
    bad = pc.run(work, "toolcat-lint", "bad/tools.json")
    assert bad.returncode == 1, _ok(bad)
    assert "Failed" in bad.stdout
    for code in ("TC101", "TC102", "SC302"):  # the findings reach the user, with the file
        assert code in bad.stdout, _ok(bad)
    assert "bad/tools.json" in bad.stdout
    good = pc.run(work, "toolcat-lint", "good/tools.json", "package.json")
    assert good.returncode == 0, _ok(good)
    assert "Passed" in good.stdout, _ok(good)
    # only package.json: it does not match the default pattern, so the hook is skipped
    skipped = pc.run(work, "toolcat-lint", "package.json")
    assert skipped.returncode == 0, _ok(skipped)
    assert "no files to check" in skipped.stdout and "Skipped" in skipped.stdout, _ok(skipped)
    again = pc.run(work, "toolcat-lint", "good/tools.json", "bad/tools.json")
    assert again.returncode == 1 and "TC101" in again.stdout, _ok(again)


def test_budget_hook(session):
    pc, work = session.pc, session.work
    bad = pc.run(work, "toolcat-budget", "big/tools.json")
    assert bad.returncode == 1, _ok(bad)
    assert "budget exceeded" in bad.stdout and "big/tools.json" in bad.stdout, _ok(bad)
    good = pc.run(work, "toolcat-budget", "good/tools.json")  # exactly at the limit
    assert good.returncode == 0, _ok(good)
    assert "Passed" in good.stdout, _ok(good)
    over = pc.run(work, "toolcat-budget", "good/tools.json", "big/tools.json")
    assert over.returncode == 1, _ok(over)


def test_capture_check_hook(session):
    # the hook's own environment (toolcat and the MCP SDK) runs the server
    pc, work = session.pc, session.work
    current = pc.run(work, "capture-current", "server.py")
    assert current.returncode == 0, _ok(current)
    assert "server.tools.json: up to date" in current.stdout, _ok(current)
    stale = pc.run(work, "capture-stale", "server.py")
    assert stale.returncode == 1, _ok(stale)
    assert "stale/server.tools.json: out of date (tool noop added)" in stale.stdout, _ok(stale)


def test_project_check_hook(session):
    # try-repo cannot pass args, and this hook needs them (INPUT -o OUT): a config as users
    # write it, one entry per generated file (told apart by alias)
    pc, work = session.pc, session.work
    current = pc.run(work, "current-check", "openapi.yaml")
    assert current.returncode == 0, _ok(current)
    assert "up to date: tools.compact.json" in current.stdout, _ok(current)
    stale = pc.run(work, "stale-check", "openapi.yaml")
    assert stale.returncode == 1, _ok(stale)
    assert "stale/tools.compact.json: out of date" in stale.stdout, _ok(stale)
    # no JSON or YAML file among the changed files: skipped
    (work / "notes.txt").write_text("x\n")
    skipped = pc.run(work, "current-check", "notes.txt")
    assert skipped.returncode == 0 and "Skipped" in skipped.stdout, _ok(skipped)
