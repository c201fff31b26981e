"""`toolcat lint ...` without Typer (issue 17, "a small-catalog lint < 150 ms").

:func:`toolcat.commands.lint_run.parse` reads a lint command line the way Click does, for the
plain shapes it knows, and declines every other one (Typer then parses it, with its help and
messages). These tests hold it to the Click command Typer builds from the declaration in
toolcat.commands.lint: the option table is that command's, and every command line the fast
parser takes -- each option and spelling, with values Click could read otherwise (``-``,
``--``, ``-q``, ``""``, ``a=b``), interleaved with paths, repeated, after ``--``, behind the
root flags -- gives the command's work (:func:`lint_run.run`) the very values Typer gives it.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest
import typer.main

from support.common import REPO
from toolcat import cli, ui
from toolcat.commands import lint_run
from toolcat.commands.common import Shared

KINDS = {"StringParamType": "str", "IntParamType": "int", "FloatParamType": "float"}


@pytest.fixture(scope="module")
def group():
    return typer.main.get_command(cli.build_app("lint"))


def _kind(p) -> str:
    if p.is_flag:
        assert type(p.type).__name__ == "BoolParamType"
        return "flag"
    kind = KINDS[type(p.type).__name__]
    return "list" if p.multiple else kind


def test_the_option_table_is_the_typer_commands(group) -> None:
    cmd = group.commands["lint"]
    table = {}
    for p in cmd.params:
        if type(p).__name__ == "TyperArgument":
            assert (p.name, p.nargs, p.required) == ("paths", -1, False)
            continue
        # what parse assumes of every option: no secondary (--no-x) names, one value or a
        # flag, no value taken from the environment, no callback, no prompt, no optional value
        assert p.secondary_opts == [] and p.nargs == 1 and not p.count
        assert p.envvar is None and p.callback is None and not p.prompt and not p.required
        assert not getattr(p, "_flag_needs_value", False) and not p.is_eager
        assert p.default in (None, False)
        for opt in p.opts:
            table[opt] = (p.name, _kind(p))
    assert table == lint_run.OPTIONS
    # Click's parser settings parse relies on: options among paths, no unknown options
    # passed through, no token normalization; help is -h/--help (not in the table)
    ctx = cmd.make_context("lint", ["x"], parent=group.make_context("toolcat", ["lint"]))
    assert cmd.allow_interspersed_args and not cmd.ignore_unknown_options
    assert ctx.token_normalize_func is None and ctx.help_option_names == ["-h", "--help"]
    assert {opt for p in group.params for opt in p.opts if not p.is_eager
            and p.expose_value} >= set(lint_run.ROOT_FLAGS)
    assert set(lint_run.ROOT_FLAGS) == cli._ROOT_FLAGS
    run_params = list(lint_run.run.__code__.co_varnames[:lint_run.run.__code__.co_argcount])
    # run takes lint's own options, then the shared ones as one object (opts)
    assert run_params[-1] == "opts"
    assert run_params[:-1] + list(lint_run.SHARED_NAMES) == [p.name for p in cmd.params]


# --------------------------------------------------------------------------- equivalence

VALUES = ["x.json", "-", "", "--", "-q", "--format", "a=b", "json", "7", " 7", "1_000", "-3",
          "2.5", "nan", "1e3", "٣", "=", "--no-color"]
PATHS = ["a.json", "-", "dir/", "b c.yaml", ""]


def _spellings(opt: str, kind: str, value: str) -> list[list[str]]:
    """The ways to give ``opt`` (with ``value`` where it takes one) parse should take."""
    if kind == "flag":
        return [[opt]]
    out = [[opt, value]]
    if opt.startswith("--"):
        out.append([f"{opt}={value}"])
    return out


def _declined(opt: str, kind: str) -> list[list[str]]:
    """Spellings parse leaves to Typer (an error in Click, or a shape it does not read)."""
    if kind == "flag":
        return [[f"{opt}=1"]] if opt.startswith("--") else [[opt + "q"]]
    out = [[opt]]                                        # the value is missing
    if not opt.startswith("--"):
        out.append([opt + "x"])                          # a short option's attached value
        out.append([f"{opt}=x"])
    if kind in ("int", "float"):
        out.append([opt, "many"])                        # not a number
    return out


def _typer_params(group, monkeypatch, args: list[str]):
    """What Typer gives lint_run.run for ``toolcat ARGS``, and the root flags' ui state; or
    the Click exception it raises."""
    got = []
    monkeypatch.setattr(lint_run, "run", lambda **kw: got.append(kw) or 0)
    ui.reset()
    try:
        group.main(args=args, prog_name="toolcat", standalone_mode=False)
    except Exception as e:  # noqa: BLE001 - a usage error: reported to the caller
        return e
    finally:
        state = {"no_color": ui.state.no_color, "quiet": ui.state.quiet}
        ui.reset()
    assert len(got) == 1
    return state, got[0]


def _check(group, monkeypatch, args: list[str], *, taken: bool) -> None:
    fast = lint_run.parse(args)
    if not taken:
        assert fast is None, args
        return
    assert fast is not None, args
    root, params = fast
    typer_side = _typer_params(group, monkeypatch, args)
    assert not isinstance(typer_side, Exception), (args, typer_side)
    state, kwargs = typer_side
    assert {"no_color": False, "quiet": False, **root} == state, args
    assert set(params) == set(kwargs), args
    for name, value in kwargs.items():
        # by repr: a float nan is not equal to itself
        assert repr(params[name]) == repr(value) and type(params[name]) is type(value), \
            (args, name)


def _options():
    return [(opt, kind) for opt, (_, kind) in lint_run.OPTIONS.items()]


def _ok_value(kind: str, value: str) -> bool:
    if kind not in ("int", "float"):
        return True
    try:
        (int if kind == "int" else float)(value)
    except ValueError:
        return False
    return True


def test_every_option_alone_with_every_value(group, monkeypatch) -> None:
    n = 0
    for opt, kind in _options():
        for value in VALUES if kind != "flag" else [""]:
            for spelling in _spellings(opt, kind, value):
                _check(group, monkeypatch, ["lint", *spelling],
                       taken=_ok_value(kind, value))
                n += 1
        for spelling in _declined(opt, kind):
            _check(group, monkeypatch, ["lint", *spelling], taken=False)
    assert n > 300


def test_every_pair_of_options_among_paths(group, monkeypatch) -> None:
    rnd = random.Random(17)
    for (a, ka), (b, kb) in itertools.combinations(_options(), 2):
        va, vb = rnd.choice(["1", "x.json", "-", "--"]), rnd.choice(["2", "-q", "a=b", ""])
        sa, sb = rnd.choice(_spellings(a, ka, va)), rnd.choice(_spellings(b, kb, vb))
        args = ["lint", rnd.choice(PATHS), *sa, rnd.choice(PATHS), *sb]
        _check(group, monkeypatch, args, taken=_ok_value(ka, va) and _ok_value(kb, vb))


def test_random_command_lines(group, monkeypatch) -> None:
    rnd = random.Random(2026)
    opts = _options()
    for _ in range(1500):
        args, taken = [rnd.choice([[], ["-q"], ["--no-color"], ["--quiet", "--no-color"]])], True
        args = [*args[0], "lint"]
        for _ in range(rnd.randint(0, 7)):
            r = rnd.random()
            if r < 0.3:
                args.append(rnd.choice(PATHS))
                continue
            if r < 0.34:
                args.append("--")
                args.extend(rnd.sample(["x", "-q", "--format", "--", "-h"], rnd.randint(0, 3)))
                break
            opt, kind = rnd.choice(opts)
            if r < 0.38:
                args.extend(rnd.choice(_declined(opt, kind)))
                taken = False
                break
            value = rnd.choice(VALUES)
            taken = taken and (kind == "flag" or _ok_value(kind, value))
            args.extend(rnd.choice(_spellings(opt, kind, value)))
        _check(group, monkeypatch, args, taken=taken)


@pytest.mark.parametrize("args", [
    ["lint", "-h"], ["lint", "x", "--help"], ["lint", "--nope"], ["lint", "-qv"],
    ["lint", "--form", "json"], ["lint", "-fjson"], ["lint", "--statistics=yes"],
    ["-V", "lint"], [], ["--quiet=1", "lint"], ["lnt", "x"], ["tools", "x"],
])
def test_what_parse_leaves_to_typer(args) -> None:
    assert lint_run.parse(args) is None


def test_no_arguments_is_lints_usage_error(capfd) -> None:
    own = {n: (False if k == "flag" else None) for n, k in lint_run.OPTIONS.values()
           if n not in lint_run.SHARED_NAMES}
    assert lint_run.parse(["lint"]) == ({}, {**own, "paths": None, "opts": Shared()})
    assert cli.run(["lint"]) == 2
    assert "toolcat: error: missing argument" in capfd.readouterr().err


def test_a_lint_imports_no_typer() -> None:
    code = ("import sys\nfrom toolcat.cli import run\nrun(['-q', 'lint', '--format', 'json', "
            "'samples/git.tools.json'])\nsys.stdout.flush()\n"
            "sys.__stderr__.write(repr(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('typer', 'click'))))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    assert '"findings"' in r.stdout
    assert r.stderr.strip().splitlines()[-1] == "[]"
    # help still comes from Typer
    r = subprocess.run([sys.executable, "-m", "toolcat", "lint", "-h"], capture_output=True,
                       text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0 and "--write-baseline" in r.stdout
