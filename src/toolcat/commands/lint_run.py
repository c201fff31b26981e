"""What `toolcat lint` does, without Typer: :func:`run` (the command's work, given its
parameters; :mod:`toolcat.commands.lint` declares them for Typer and calls it) and
:func:`parse`, which reads a ``toolcat lint ...`` command line the way Click does when it is
one of the plain shapes it knows, so that a small lint (a pre-commit hook) need not import
Typer (issue 17, "a small-catalog lint < 150 ms").

:data:`OPTIONS` is the lint command's option table as the Typer declaration makes it;
tests/cli/test_lint_fast.py checks it against the Click command Typer builds, and that every
command line :func:`parse` takes gives :func:`run` the values Typer gives it.
"""

from __future__ import annotations

from toolcat.commands.common import apply_ui, load_options
from toolcat.commands.sources import input_files, live_options, load_sources, require_inputs

#: Option string -> (parameter, kind). Kinds: "flag" (True when given, takes no value),
#: "str", "int", "float" (one value: the next argument, or after "=" in a long option; the
#: last one given wins) and "list" (repeatable: every value, in order).
OPTIONS: dict[str, tuple[str, str]] = {
    "--format": ("fmt", "str"), "-f": ("fmt", "str"),
    "--statistics": ("statistics", "flag"),
    "--profile": ("profile", "str"), "-p": ("profile", "str"),
    "--mcp-version": ("mcp_version", "str"),
    "--config": ("config_file", "str"),
    "--select": ("select", "list"),
    "--extend-select": ("extend_select", "list"),
    "--ignore": ("ignore", "list"),
    "--fail-on": ("fail_on", "str"),
    "--min-score": ("min_score", "float"),
    "--baseline": ("baseline", "str"),
    "--write-baseline": ("write_baseline", "str"),
    "--output-file": ("output_file", "str"), "-o": ("output_file", "str"),
    "--description-max": ("description_max", "int"),
    "--prose-max": ("prose_max", "int"),
    "--view": ("view", "str"),
    "--from": ("from_format", "str"),
    "--webhooks": ("webhooks", "flag"),
    "--cookies": ("cookies", "flag"),
    "--merge": ("merge", "flag"),
    "--max-file-size": ("max_file_size", "int"),
    "--root": ("root", "str"),
    "--server": ("server", "list"),
    "--url": ("url", "list"),
    "--header": ("header", "list"),
    "--timeout": ("timeout", "float"),
    "--client": ("client", "str"),
    "--client-config": ("client_config", "str"),
    "--verbose": ("verbose", "flag"), "-v": ("verbose", "flag"),
    "--no-color": ("no_color", "flag"),
    "--quiet": ("quiet", "flag"), "-q": ("quiet", "flag"),
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
    from_format: str | None = None,
    webhooks: bool = False,
    cookies: bool = False,
    merge: bool = False,
    max_file_size: int | None = None,
    root: str | None = None,
    server: list[str] | None = None,
    url: list[str] | None = None,
    header: list[str] | None = None,
    timeout: float | None = None,
    client: str | None = None,
    client_config: str | None = None,
    verbose: bool = False,
    no_color: bool = False,
    quiet: bool = False,
) -> int:
    """`toolcat lint` with these parameters (each option's value; None where not given):
    the findings on stdout (or ``output_file``), the exit code returned."""
    import sys

    from toolcat import ui
    from toolcat.config import load_config
    from toolcat.errors import UsageError
    from toolcat.files import check_inputs, check_outputs
    from toolcat.lint.engine import check_selection, lint_with
    from toolcat.lint.profiles import PROFILES
    from toolcat.lint.render import FORMATS

    apply_ui(no_color, quiet)
    check_inputs([("--config", config_file), ("--baseline", baseline)])
    # the settings: the config file, with the command line on top
    cfg = load_config(config_file, profiles=PROFILES)
    fmt = fmt or cfg.format or "text"
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if statistics and fmt not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json (got --format {fmt})")
    # a selector that matches no rule is a typo, blamed where it was written: the command
    # line's here (on the command line), the config file's by check_selection below (on the
    # file); an empty one (an unset CI variable) is a usage error, not "no rules"
    for option, values in (("--select", select), ("--extend-select", extend_select),
                           ("--ignore", ignore)):
        if values is not None:
            _check_cli_codes(option, values)
    cfg = cfg.merged(profile=profile, fail_on=fail_on, select=select,
                     extend_select=extend_select, ignore=ignore,
                     description_max=description_max, prose_max=prose_max,
                     mcp_version=mcp_version, min_score=min_score)
    if baseline and write_baseline:
        raise UsageError("--baseline and --write-baseline cannot be used together")
    if view is not None and view not in ("compact", "standard"):
        raise UsageError(f"--view must be compact or standard (got {view!r})")
    check_selection(cfg)
    fail = cfg.fail_on or "error"

    check_outputs([("-o", output_file), ("--write-baseline", write_baseline)],
                  input_files(paths, client_config, baseline))
    live = live_options(server, url, header, timeout, client, client_config, verbose)
    paths = require_inputs(paths, live)
    opts = load_options(from_format, webhooks, cookies, merge, strict=False,
                        max_file_size=max_file_size, view=view,
                        root=root if root is not None else cfg.ref_root)
    # an input that cannot be read (a broken file among many, in a folder or given; a server
    # that fails) does not stop the others: each is one error line at the end, exit code 2
    opts.errors = input_errors = []
    opts.stream = True        # a large MCP tools list is linted a batch of tools at a time
    src = load_sources(paths, opts, live)
    input_errors.extend(src.errors)
    cats = src.catalogs
    if not cats and input_errors:
        _report_input_errors(input_errors)
        return 2
    # the API's lint, plus the setup rules on the servers' tools together
    result = lint_with(cats, cfg, view=view, setup=src.setup(), errors=input_errors)
    if not cats and input_errors:      # the only input was a streamed file found broken
        _report_input_errors(input_errors)
        return 2
    findings = result.findings
    labels = src.labels()

    if write_baseline:
        from toolcat.lint.baseline import write_baseline as write

        if input_errors:   # a baseline must cover every input: do not write a partial one
            _report_input_errors(input_errors)
            sys.stderr.write(f"toolcat: error: {write_baseline}: not written: "
                             f"{len(input_errors):,} input{'s' if len(input_errors) != 1 else ''}"
                             " could not be read\n")
            return 2
        n = write(write_baseline, findings, set(labels))
        if not ui.state.quiet:
            sys.stderr.write(f"toolcat: recorded {n:,} finding{'s' if n != 1 else ''} in "
                             f"{write_baseline}\n")
        return 0

    hidden = 0
    if baseline:
        from toolcat.lint.baseline import apply_baseline

        findings, hidden = apply_baseline(baseline, findings, set(labels))

    from toolcat.lint import registry
    from toolcat.lint.engine import reaches
    from toolcat.lint.render import Report, render

    quality = None
    if statistics or cfg.min_score is not None:
        from toolcat.lint.quality import score

        quality = score(cats)
    report = Report(findings=findings, files=result.files, tools=result.tools, fail_on=fail,
                    profile=result.profile, hidden=hidden, sources=result.sources,
                    rules=registry.all_rules(), profiles=result.profiles, matrix=result.matrix,
                    servers=labels, score=quality)
    to_file = output_file is not None and output_file != "-"
    color = fmt in ("text", "concise") and not to_file and ui.color_enabled(sys.stdout)
    text = render(fmt, report, color=color, quiet=ui.state.quiet, statistics=statistics)
    if not color and fmt in ("text", "concise", "github", "markdown"):
        from toolcat.terminal import guard

        text = guard(text)       # for people: no control character from the input
    if to_file:
        assert output_file is not None
        ui.write_atomic(output_file, text)
    else:
        ui.write_stdout(text)
    if input_errors:      # input errors win over findings (exit 2, like any input error)
        _report_input_errors(input_errors)
        return 2
    failed = any(reaches(f.severity, fail) for f in findings)
    if cfg.min_score is not None and quality is not None:
        under = [(f, s) for f, s, n in quality.catalogs if n and s < cfg.min_score]
        if under:
            sys.stdout.flush()
            for f, s in under:
                sys.stderr.write(f"toolcat: {f}: description score {s:.1f} is under "
                                 f"--min-score {cfg.min_score:g}\n")
            failed = True
    return 1 if failed else 0


def _report_input_errors(errors: list) -> None:
    import sys

    sys.stdout.flush()
    for e in errors:
        sys.stderr.write(e.render() + "\n")


def _check_cli_codes(option: str, values: list[str]) -> None:
    """The codes of a ``--select``-like option: not empty, each matching a rule."""
    from toolcat.errors import UsageError
    from toolcat.lint.registry import selects_nothing

    sels = [x.strip().upper() for v in values for x in v.split(",") if x.strip()]
    if not sels:
        raise UsageError(f"{option} is empty: give rule codes or prefixes (`toolcat rule "
                         "--all` lists them), or leave the option out")
    for s in sels:
        if selects_nothing(s):
            raise UsageError(f"{option}: {s!r} matches no rule (see `toolcat rule --all`)")
