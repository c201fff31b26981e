"""What `toolcat lint` does, without Typer: :func:`run` (the command's work, given its
parameters; :mod:`toolcat.commands.lint` declares them for Typer and calls it) and
:func:`parse`, which reads a ``toolcat lint ...`` command line the way Click does when it is
one of the plain shapes it knows, so that a small lint (a pre-commit hook) need not import
Typer (issue 17, "a small-catalog lint < 150 ms").

:data:`OPTIONS` is the lint command's option table: its own options (:data:`OWN`, whose
option strings the Typer declaration takes: declared once) and the shared ones of
:data:`SHARED_NAMES` from their one declaration, :data:`toolcat.commands.common.SHARED`;
tests/cli/test_lint_fast.py checks it against the Click command Typer builds, and that every
command line :func:`parse` takes gives :func:`run` the values Typer gives it.
"""

from __future__ import annotations

from typing import Any

from toolcat.commands.common import LIVE, SHARED, UI, Shared
from toolcat.commands.sources import input_files, load_sources, require_inputs

#: The shared options lint takes, in the order its help lists them (no --broken-refs: lint
#: reports every broken $ref, SC302).
SHARED_NAMES = ("from_format", "webhooks", "cookies", "merge", "max_file_size", "root",
                *LIVE, *UI)

#: lint's own options: parameter -> (option strings, kind), in the order its help lists them;
#: its Typer declaration (:mod:`toolcat.commands.lint`) takes the strings from here. Kinds:
#: "flag" (True when given, takes no value), "str", "int", "float" (one value: the next
#: argument, or after "=" in a long option; the last one given wins) and "list" (repeatable:
#: every value, in order).
OWN: dict[str, tuple[tuple[str, ...], str]] = {
    "fmt": (("--format", "-f"), "str"),
    "statistics": (("--statistics",), "flag"),
    "profile": (("--profile", "-p"), "str"),
    "mcp_version": (("--mcp-version",), "str"),
    "config_file": (("--config",), "str"),
    "select": (("--select",), "list"),
    "extend_select": (("--extend-select",), "list"),
    "ignore": (("--ignore",), "list"),
    "fail_on": (("--fail-on",), "str"),
    "min_score": (("--min-score",), "float"),
    "baseline": (("--baseline",), "str"),
    "write_baseline": (("--write-baseline",), "str"),
    "output_file": (("--output-file", "-o"), "str"),
    "description_max": (("--description-max",), "int"),
    "prose_max": (("--prose-max",), "int"),
    "view": (("--view",), "str"),
}
#: Option string -> (parameter, kind): lint's own options and its shared ones.
OPTIONS: dict[str, tuple[str, str]] = {
    opt: (name, kind) for table, names in ((OWN, tuple(OWN)), (SHARED, SHARED_NAMES))
    for name in names for opt in table[name][0] for kind in (table[name][1],)
}
#: The root options that may come before ``lint`` (:func:`toolcat.cli.command_of`).
ROOT_FLAGS: dict[str, str] = {"--no-color": "no_color", "--quiet": "quiet", "-q": "quiet"}
_CONVERT = {"int": int, "float": float}


def parse(args: list[str]) -> tuple[dict[str, bool], dict] | None:
    """``toolcat`` arguments ``args`` (root flags, ``lint``, lint's arguments) as the root
    flags given and :func:`run`'s parameters, or None when they are not plainly ones Click
    reads so: help, an unknown option, a flag with ``=value``, a missing or unconvertible
    value, a short option with its value attached or several short flags in one argument
    (then Typer parses them, with its messages). As in Click, options and paths may be
    interleaved, ``--`` ends the options, and ``-`` alone is a path."""
    root: dict[str, bool] = {}
    rest = iter(args)
    for arg in rest:
        if arg == "lint":
            break
        if arg not in ROOT_FLAGS:
            return None
        root[ROOT_FLAGS[arg]] = True
    else:
        return None
    params: dict = {name: (False if kind == "flag" else None) for name, kind in OPTIONS.values()}
    paths: list[str] = []
    value: str | None
    for arg in rest:
        if arg == "--":
            paths.extend(rest)
            break
        if arg[:1] != "-" or arg == "-":
            paths.append(arg)
            continue
        name, eq, value = arg.partition("=") if arg[:2] == "--" else (arg, "", "")
        spec = OPTIONS.get(name)
        if spec is None:
            return None
        param, kind = spec
        if kind == "flag":
            if eq:
                return None
            params[param] = True
            continue
        if not eq:
            value = next(rest, None)
            if value is None:
                return None
        if kind in _CONVERT:
            try:
                value = _CONVERT[kind](value)
            except ValueError:
                return None
        if kind == "list":
            params[param] = [*(params[param] or ()), value]
        else:
            params[param] = value
    params["paths"] = paths or None
    params["opts"] = Shared(**{n: params.pop(n) for n in SHARED_NAMES})
    return root, params


def run(
    paths: list[str] | None = None,
    fmt: str | None = None,
    statistics: bool = False,
    profile: str | None = None,
    mcp_version: str | None = None,
    config_file: str | None = None,
    select: list[str] | None = None,
    extend_select: list[str] | None = None,
    ignore: list[str] | None = None,
    fail_on: str | None = None,
    min_score: float | None = None,
    baseline: str | None = None,
    write_baseline: str | None = None,
    output_file: str | None = None,
    description_max: int | None = None,
    prose_max: int | None = None,
    view: str | None = None,
    opts: Shared | None = None,
) -> int:
    """`toolcat lint` with these parameters (each option's value; None where not given;
    ``opts``: the shared options): the findings on stdout (or ``output_file``), the exit
    code returned."""
    from toolcat.features.lint.engine import lint_with
    from toolcat.files import check_outputs

    opts = opts or Shared()
    opts.apply_ui()
    cfg, fmt = _settings(config_file, baseline, write_baseline, fmt, statistics, view,
                         profile=profile, fail_on=fail_on, select=select,
                         extend_select=extend_select, ignore=ignore,
                         description_max=description_max, prose_max=prose_max,
                         mcp_version=mcp_version, min_score=min_score,
                         client=opts.client)
    check_outputs([("-o", output_file), ("--write-baseline", write_baseline)],
                  input_files(paths, opts.client_config, baseline))
    live = opts.live()
    paths = require_inputs(paths, live)
    lopts = opts.load(strict=False, view=view, root=cfg.ref_root)
    # an input that cannot be read (a broken file among many, in a folder or given; a server
    # that fails) does not stop the others: each is one error line at the end, exit code 2
    lopts.errors = input_errors = []
    lopts.stream = True       # a large MCP tools list is linted a batch of tools at a time
    src = load_sources(paths, lopts, live)
    input_errors.extend(src.errors)
    cats = src.catalogs
    if not cats and input_errors:
        _report_input_errors(input_errors)
        return 2
    # the API's lint, plus the setup rules on the servers' tools together
    # one profile: a streamed catalog's findings are kept in a temporary file, not in memory
    result = lint_with(cats, cfg, view=view, setup=src.setup(), errors=input_errors,
                       spill=True)
    if not cats and input_errors:      # the only input was a streamed file found broken
        _report_input_errors(input_errors)
        return 2
    if write_baseline:
        return _write_baseline(write_baseline, result.findings, src.labels(), input_errors)
    return _report(cats, result, src.labels(), cfg, fmt, statistics, baseline, output_file,
                   input_errors)


def _settings(config_file: str | None, baseline: str | None, write_baseline: str | None,
              fmt: str | None, statistics: bool, view: str | None, client: str | None = None,
              **cli: Any) -> tuple:
    """The settings: the config file, with the command line (``cli``: Config.merged's
    keywords) on top, checked; and the output format. ``client`` (``--client NAME``): its
    profile (the client's schema rules, PV512-PV515, and its provider's) runs beside the
    profiles asked for (default ``mcp``), as one more column of the matrix."""
    from toolcat.config import load_config
    from toolcat.errors import UsageError
    from toolcat.features.lint.engine import check_selection
    from toolcat.features.lint.profiles import PROFILES
    from toolcat.features.lint.render import FORMATS
    from toolcat.files import check_inputs

    check_inputs([("--config", config_file), ("--baseline", baseline)])
    cfg = load_config(config_file, profiles=PROFILES)
    fmt = fmt or cfg.format or "text"
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if statistics and fmt not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json (got --format {fmt})")
    # a selector that matches no rule is a typo, blamed where it was written: the command
    # line's here (on the command line), the config file's by check_selection below (on the
    # file); an empty one (an unset CI variable) is a usage error, not "no rules"
    for option, key in (("--select", "select"), ("--extend-select", "extend_select"),
                        ("--ignore", "ignore")):
        if cli[key] is not None:
            _check_cli_codes(option, cli[key])
    cfg = cfg.merged(**cli)
    if client is not None and client in PROFILES:
        from toolcat.features.lint.engine import profile_names

        names = profile_names(cfg)
        if client not in names:
            cfg.profile = [*names, client]
    if baseline and write_baseline:
        raise UsageError("--baseline and --write-baseline cannot be used together")
    if view is not None and view not in ("compact", "standard"):
        raise UsageError(f"--view must be compact or standard (got {view!r})")
    check_selection(cfg)
    return cfg, fmt


def _write_baseline(path: str, findings: list, labels: dict, input_errors: list) -> int:
    """--write-baseline: record the findings (not when an input could not be read)."""
    import sys

    from toolcat import ui
    from toolcat.features.lint.baseline import write_baseline as write

    if input_errors:   # a baseline must cover every input: do not write a partial one
        _report_input_errors(input_errors)
        sys.stderr.write(f"toolcat: error: {path}: not written: "
                         f"{len(input_errors):,} input{'s' if len(input_errors) != 1 else ''}"
                         " could not be read\n")
        return 2
    n = write(path, findings, set(labels))
    if not ui.state.quiet:
        sys.stderr.write(f"toolcat: recorded {n:,} finding{'s' if n != 1 else ''} in "
                         f"{path}\n")
    return 0


def _report(cats: list, result: Any, labels: dict, cfg: Any, fmt: str, statistics: bool,
            baseline: str | None, output_file: str | None, input_errors: list) -> int:
    """The report (stdout or ``output_file``), then the input errors; the exit code."""
    import sys

    from toolcat import ui
    from toolcat.features.lint import registry
    from toolcat.features.lint.render import Report, chunks, render

    findings, hidden = result.findings, 0
    if baseline:
        from toolcat.features.lint.baseline import apply_baseline

        findings, hidden = apply_baseline(baseline, findings, set(labels))
    quality = None
    if statistics or cfg.min_score is not None:
        from toolcat.features.lint.quality import score

        quality = score(cats)
    fail = cfg.fail_on or "error"
    report = Report(findings=findings, files=result.files, tools=result.tools, fail_on=fail,
                    profile=result.profile, hidden=hidden, sources=result.sources,
                    rules=registry.all_rules(), profiles=result.profiles, matrix=result.matrix,
                    servers=labels, score=quality)
    to_file = output_file is not None and output_file != "-"
    color = fmt in ("text", "concise") and not to_file and ui.color_enabled(sys.stdout)
    guarded = not color and fmt in ("text", "concise", "github", "markdown")
    if to_file or not hasattr(findings, "counts"):
        text = render(fmt, report, color=color, quiet=ui.state.quiet, statistics=statistics)
        if guarded:
            from toolcat.terminal import guard

            text = guard(text)       # for people: no control character from the input
        if to_file:
            assert output_file is not None
            ui.write_atomic(output_file, text)
        else:
            ui.write_stdout(text)
    else:
        # a streamed catalog's findings (kept in a temporary file): the report is written
        # a part at a time as they are read back, never made whole
        from toolcat.terminal import guard

        for part in chunks(fmt, report, color=color, quiet=ui.state.quiet,
                           statistics=statistics):
            ui.write_stdout(guard(part) if guarded else part)
    if input_errors:      # input errors win over findings (exit 2, like any input error)
        _report_input_errors(input_errors)
        return 2
    return 1 if _failed(findings, fail, cfg.min_score, quality) else 0


def _failed(findings: list, fail: str, min_score: float | None, quality: Any) -> bool:
    """A finding reaches --fail-on, or a catalog scores under --min-score (said)."""
    import sys

    from toolcat.features.lint.engine import counts_of, reaches

    failed = any(n and reaches(sev, fail) for sev, n in counts_of(findings).items())
    if min_score is not None and quality is not None:
        under = [(f, s) for f, s, n in quality.catalogs if n and s < min_score]
        if under:
            sys.stdout.flush()
            for f, s in under:
                sys.stderr.write(f"toolcat: {f}: description score {s:.1f} is under "
                                 f"--min-score {min_score:g}\n")
            failed = True
    return failed


def _report_input_errors(errors: list) -> None:
    import sys

    sys.stdout.flush()
    for e in errors:
        sys.stderr.write(e.render() + "\n")


def _check_cli_codes(option: str, values: list[str]) -> None:
    """The codes of a ``--select``-like option: not empty, each matching a rule."""
    from toolcat.errors import UsageError
    from toolcat.features.lint.registry import selects_nothing

    sels = [x.strip().upper() for v in values for x in v.split(",") if x.strip()]
    if not sels:
        raise UsageError(f"{option} is empty: give rule codes or prefixes (`toolcat rule "
                         "--all` lists them), or leave the option out")
    for s in sels:
        if selects_nothing(s):
            raise UsageError(f"{option}: {s!r} matches no rule (see `toolcat rule --all`)")
