"""Start-up: a run builds only the command it runs (issue 17, "a small-catalog lint < 150 ms").

`toolcat CMD ...` imports and registers CMD's module alone; the command it gets is the same
click command as in the whole app (help, options, defaults, choices), and everything that
needs the other commands (root help, completion, an unknown command and its suggestion, root
options other than --no-color/--quiet) builds the whole app as before.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer.main

from support.common import REPO
from toolcat import cli

COMMANDS = ["tools", "project", "lint", "diff", "diff-toolids", "measure", "capture", "serve",
            "rule"]


def test_every_command_has_its_module() -> None:
    full = typer.main.get_command(cli.build_app())
    assert list(full.commands) == COMMANDS == list(cli.COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_the_lazy_command_is_the_full_apps_command(name) -> None:
    full = typer.main.get_command(cli.build_app())
    lazy = typer.main.get_command(cli.build_app(name))
    assert name in lazy.commands
    a, b = full.commands[name], lazy.commands[name]
    ctx_a = a.make_context(name, ["--help"], parent=full.make_context("toolcat", [name]),
                           resilient_parsing=True)
    ctx_b = b.make_context(name, ["--help"], parent=lazy.make_context("toolcat", [name]),
                           resilient_parsing=True)
    assert b.get_help(ctx_b) == a.get_help(ctx_a)
    assert [_param(p) for p in b.params] == [_param(p) for p in a.params]
    # the root options are the same too (--no-color and --quiet before the command)
    assert [p.opts for p in lazy.params] == [p.opts for p in full.params]


def _param(p) -> tuple:
    kind = p.type
    return (type(p).__name__, p.name, p.opts, p.secondary_opts, type(kind).__name__,
            getattr(kind, "choices", None), p.required, repr(p.default), p.multiple, p.nargs,
            getattr(p, "is_flag", None), getattr(p, "count", None), getattr(p, "help", None),
            getattr(p, "hidden", None), p.envvar, p.is_eager, p.expose_value)


@pytest.mark.parametrize(("args", "want"), [
    (["lint", "x.json"], "lint"),
    (["-q", "lint"], "lint"),
    (["--no-color", "--quiet", "diff-toolids", "a"], "diff-toolids"),
    (["diff", "a", "b"], "diff"),
    (["measure", "--help"], "measure"),        # the command's own help is its own
    ([], None),
    (["--help"], None),
    (["-h", "lint"], None),
    (["--version"], None),
    (["lnt", "x"], None),                      # "Did you mean 'lint'?" needs every name
    (["--", "lint"], None),
    (["-qV", "lint"], None),
    (["--install-completion"], None),
    (["--nope", "lint"], None),
])
def test_command_of(args, want) -> None:
    assert cli.command_of(args) == want


def test_completion_builds_everything(monkeypatch) -> None:
    monkeypatch.setenv("_TOOLCAT_COMPLETE", "complete_bash")
    assert cli.command_of(["lint", "x"]) is None


def _toolcat_modules_after(args: list[str]) -> set[str]:
    code = ("import sys\nfrom toolcat.cli import run\nrun(%r)\nsys.stdout.flush()\n"
            "sys.__stderr__.write(' '.join(sorted(m for m in sys.modules "
            "if m.startswith('toolcat.commands.'))))\n" % (args,))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    return set(r.stderr.strip().splitlines()[-1].split())


@pytest.mark.parametrize(("args", "modules"), [
    (["lint", "samples/git.tools.json"], {"lint_run"}),     # no Typer: test_lint_fast.py
    (["-q", "measure", "samples/git.tools.json"], {"measure"}),  # options: common
    (["tools", "samples/petstore.openapi.yaml"], {"tools"}),
    (["rule", "TC101"], {"rule"}),
])
def test_a_run_imports_only_its_command(args, modules) -> None:
    got = {m.split(".")[2] for m in _toolcat_modules_after(args)}
    assert modules <= got <= modules | {"common", "sources", "options"}


def test_root_help_still_lists_every_command() -> None:
    assert _toolcat_modules_after(["--help"]) >= {f"toolcat.commands.{m}" for m in
                                                  set(cli.COMMANDS.values())}
