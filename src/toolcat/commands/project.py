"""`toolcat project`: write a catalog's compact (or standard) view in a target's envelope."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from toolcat.commands.common import LIVE, LOAD, UI, Shared
from toolcat.commands.options import Paths, shared
from toolcat.commands.sources import exit_on_errors, input_files, require_inputs
from toolcat.formats.providers import CLIENTS
from toolcat.formats.targets import names as target_names

HELP = "Write the compact (or lossless standard) view of catalogs in a target's tool envelope."
SHORT = "Write the compact (or standard) view of catalogs."

EPILOG = """The compact view keeps each target's model-facing fields, cuts descriptions,
strips prose from schema positions (description, title, examples, $comment, x-*) and lowers
input schemas to the RFC 0112 compact subset where that is exactly equivalent. With --to
openwop (or --subset) what cannot be lowered exactly follows --unlowerable. Every change is
in --report; everything removed is in --handbook. Output is canonical JSON, byte-stable.
Exit codes: 0 written (or current with --check), 1 --check found OUT out of date or
--unlowerable fail met an unlowerable construct, 2 usage or input error.

Examples:

\b
  toolcat project openapi.yaml -o tools.compact.json --handbook handbook.json
  toolcat project tools.json --to openwop -o compact.json --check
  toolcat project tools.json --to openai-strict -o openai.json --report changes.json
  toolcat project --url http://127.0.0.1:8000/mcp -o tools.compact.json
  toolcat project tools.json --to anthropic --defer all --eager get_me -o anthropic.json
"""


# The projection options `toolcat measure` shares (its "after" is what project writes).
To = Annotated[Optional[str], typer.Option(
    "--to", help=f"Target: {', '.join(target_names())} (a provider target writes what that provider "
    "accepts; `toolcat lint --profile TARGET` checks it) [default: openwop for OpenWOP input, "
    "else mcp].",
    show_default=False)]
DescriptionMax = Annotated[int, typer.Option(
    "--description-max", help="Longest tool description, in characters; also caps the kept "
    "clauses of schema descriptions (60 at most). 0 drops every description (the handbook "
    "keeps them).")]
Lossless = Annotated[bool, typer.Option(
    "--lossless", help="Cut no prose a model reads: tool and schema descriptions whole, "
    "titles kept; only the exact rewrites (implies --keep-titles; --description-max is "
    "ignored).")]
Unlowerable = Annotated[Optional[str], typer.Option(
    "--unlowerable", help="What cannot be lowered exactly to the compact subset: widen, "
    "omit, keep or fail [default: widen]. Given with a target other than openwop, it "
    "implies --subset.", show_default=False)]
Subset = Annotated[Optional[bool], typer.Option(
    "--subset/--no-subset", help="Lower input schemas to the RFC 0112 compact subset "
    "[default: only with --to openwop].", show_default=False)]
OutputSchema = Annotated[Optional[str], typer.Option(
    "--output-schema", help="MCP target: the compact view's outputSchema: full (whole, "
    "prose stripped), bounded (also widened to {} below the levels that fit 4,096 bytes; "
    "each cut reported) or none [default: bounded; full with --lossless].",
    show_default=False)]
NoOutputSchema = Annotated[bool, typer.Option(
    "--no-output-schema", help="The same as --output-schema none.")]


def output_policy(output_schema: str | None, no_output_schema: bool) -> str | None:
    """The ``--output-schema`` value (None: the default) given ``--no-output-schema``,
    its older spelling of ``none``."""
    from toolcat.errors import UsageError

    if no_output_schema:
        if output_schema not in (None, "none"):
            raise UsageError(f"--no-output-schema is --output-schema none: leave out "
                             f"--output-schema {output_schema}")
        return "none"
    return output_schema
NoFactor = Annotated[bool, typer.Option(
    "--no-factor", help="Do not move repeated identical subschemas into $defs + $ref "
    "(done for mcp, openai and anthropic where it makes a schema smaller, in a schema that "
    "already uses $ref).")]
FactorAll = Annotated[bool, typer.Option(
    "--factor-all", help="Also factor schemas without $ref (several MCP clients strip or "
    "refuse $ref/$defs: by default a schema without one never gets one).")]
ForClients = Annotated[Optional[list[str]], typer.Option(
    "--for", help="Make the compact view acceptable to these MCP clients (repeatable or "
    f"comma-separated: {', '.join(CLIENTS)}) with exact rewrites: $ref inlined, "
    "draft-07 upgraded to 2020-12, properties: {} at the top; what cannot be done exactly is "
    "reported [default: none].", show_default=False)]
ServerName = Annotated[Optional[str], typer.Option(
    "--server-name", metavar="NAME", help="With --for: the server's name in the client's "
    "configuration, in the name the client sends each tool under (Claude Code: "
    "mcp__NAME__TOOL, 64 characters) [default: a live server's configured name, else the "
    "file name up to its first dot].", show_default=False)]
Plugin = Annotated[Optional[str], typer.Option(
    "--plugin", metavar="NAME", help="With --for: the plugin that brings the server (Claude "
    "Code sends its tools as mcp__plugin_NAME_SERVER__TOOL) [default: none].",
    show_default=False)]


def client_names(values: list[str] | None) -> tuple[str, ...]:
    """The client names of ``--for`` (repeatable, each comma-separated)."""
    return tuple(x.strip() for v in values or () for x in v.split(",") if x.strip())


KeepTitles = Annotated[bool, typer.Option(
    "--keep-titles", help="MCP target: keep title and annotations.title (UI labels) in the "
    "compact view [default: they go to the handbook when a description remains].")]
Source = Annotated[Optional[str], typer.Option(
    "--source", help="OpenWOP source for every tool (node-pack, workflow, mcp, connector, "
    "host-extension) [default: derived].", show_default=False)]
DuplicateIds = Annotated[str, typer.Option(
    "--duplicate-ids", help="Two tools with the same id: error (stop, naming both), or "
    "rename (the later ones become ID_2, ID_3... in input order; reported).")]
SafetyTier = Annotated[Optional[str], typer.Option(
    "--safety-tier", help="OpenWOP safetyTier for every tool (pure, read, write, exec) "
    "[default: derived].", show_default=False)]

# deferral (toolcat.features.project.defer), shared with `toolcat measure`
Defer = Annotated[str, typer.Option(
    "--defer", help="Tools loaded on demand through the provider's tool search: none, all "
    "(every tool but the --eager ones) or auto (all, once the eager catalog passes "
    "--defer-threshold tokens). Needs --to anthropic, anthropic-strict or openai-responses.")]
Eager = Annotated[Optional[list[str]], typer.Option(
    "--eager", help="With --defer: a tool name or shell-style pattern (fnmatch) read up front, "
    "never deferred. Repeatable.", show_default=False)]
DeferThreshold = Annotated[int, typer.Option(
    "--defer-threshold", help="--defer auto: defer once the eager compact catalog passes this "
    "many tokens (Claude Code's 10% of a 200k-token window).")]
Search = Annotated[str, typer.Option(
    "--search", help="With --defer, Anthropic: the tool search tool, bm25 or regex.")]


def defer_options(defer: str, eager: list[str] | None, threshold: int, search: str) -> Any:
    """The checked deferral options of the command-line values."""
    from toolcat.features.project.defer import DeferOptions

    opts = DeferOptions(defer, tuple(eager or ()), threshold, search)
    opts.check()
    if not opts.active and (eager or search != "bm25"):
        from toolcat.errors import UsageError

        raise UsageError("--eager and --search need --defer all or --defer auto")
    return opts


def register(app: typer.Typer) -> None:
    app.command("project", epilog=EPILOG, help=HELP, short_help=SHORT)(project)


@shared(*LOAD, *LIVE, *UI)
def project(
    paths: Paths = None,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write here (atomically) [default: stdout].",
        show_default=False)] = None,
    view: Annotated[str, typer.Option("--view", help="compact or standard.")] = "compact",
    to: To = None,
    handbook: Annotated[Optional[str], typer.Option(
        "--handbook", help="Also write {\"tools\": {id: standard descriptor}} here.",
        show_default=False)] = None,
    report: Annotated[Optional[str], typer.Option(
        "--report", help="Also write the change report (JSON) here.", show_default=False)] = None,
    description_max: DescriptionMax = 120,
    unlowerable: Unlowerable = None,
    subset: Subset = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 when OUT (and --handbook/--report files) "
        "differ from what would be written.")] = False,
    indent: Annotated[Optional[int], typer.Option(
        "--indent", help="Pretty-print with N spaces [default: minified].",
        show_default=False)] = None,
    sort: Annotated[bool, typer.Option("--sort", help="Sort tools by id.")] = False,
    duplicate_ids: DuplicateIds = "error",
    defer: Defer = "none",
    eager: Eager = None,
    defer_threshold: DeferThreshold = 20_000,
    search: Search = "bm25",
    output_schema: OutputSchema = None,
    no_output_schema: NoOutputSchema = False,
    no_factor: NoFactor = False,
    factor_all: FactorAll = False,
    for_clients: ForClients = None,
    server_name: ServerName = None,
    plugin: Plugin = None,
    keep_titles: KeepTitles = False,
    lossless: Lossless = False,
    source: Source = None,
    safety_tier: SafetyTier = None,
    *,
    opts: Shared,
) -> None:
    """Write the compact (or standard) view of catalogs in a target envelope."""
    import toolcat
    from toolcat import ui
    from toolcat.features.project import options_from_cli

    opts.apply_ui()
    _check_outputs(paths, output, handbook, report, check, opts.client_config)
    live = opts.live()
    require_inputs(paths, live)
    popts = options_from_cli(
        view=view, to=to, description_max=description_max, unlowerable=unlowerable,
        subset=subset, output_schema=output_policy(output_schema, no_output_schema),
        factor=not no_factor,
        factor_all=factor_all,
        for_clients=client_names(for_clients), server_name=server_name, plugin=plugin,
        keep_titles=keep_titles, sort=sort, source=source, safety_tier=safety_tier,
        indent=indent, duplicate_ids=duplicate_ids, lossless=lossless,
        defer=defer_options(defer, eager, defer_threshold, search))
    counter = None
    if not ui.state.quiet and not check:
        # the summary's token counts: a forked counter loads the tokenizer while we project
        from toolcat import tokens

        counter = tokens.counter()
    try:
        src = opts.sources(paths, live)
        exit_on_errors(src.errors)     # a server that failed: nothing is written
        proj = toolcat.project(src.catalogs, settings=popts)
        data = proj.output_bytes()     # first: the summary counts a view into it
        if counter is not None:
            from toolcat.features.project.report import start_counting

            start_counting(proj, counter)
        code = _write(proj, data, output, handbook, report, check)
    except BaseException:
        if counter is not None:   # the summary will not be printed: stop its child
            counter.close(kill=True)
        raise
    _finish(proj, data, code, output, report, counter)


def _check_outputs(paths: list[str] | None, output: str | None, handbook: str | None,
                   report: str | None, check: bool, client_config: str | None) -> None:
    from toolcat.errors import UsageError
    from toolcat.files import check_outputs

    if check and not output:
        raise UsageError("--check needs -o/--output (the file to compare)")
    if output == "-" and check:
        raise UsageError("--check cannot compare stdout")
    # --check reads -o, it does not write it: only the other outputs must not be inputs
    check_outputs([("-o", None if check else "-" if output is None else output),
                   ("--handbook", handbook),
                   ("--report", report)], input_files(paths, client_config))


def _write(proj: Any, data: bytes, output: str | None, handbook: str | None,
           report: str | None, check: bool) -> int:
    """Write the files (all or none), or compare them (--check); the exit code."""
    from toolcat import ui

    files: list[tuple[str, bytes]] = []
    if output and output != "-":
        files.append((output, data))
    if handbook:
        files.append((handbook, proj.handbook_bytes()))
    if report:
        files.append((report, proj.report_bytes()))
    code = proj.exit_code()
    if check:
        raise typer.Exit(_check(files))
    if code:
        # --unlowerable fail: nothing is written but the report (to say what failed)
        files = [(p, d) for p, d in files if p == report]
    ui.write_atomic_many(files)   # all or nothing: no output is replaced if one cannot be
    return int(code)


def _finish(proj: Any, data: bytes, code: int, output: str | None, report: str | None,
            counter: Any) -> None:
    """stdout, the warnings and the summary; exit with ``code``."""
    from toolcat import ui

    if code == 0 and (not output or output == "-"):
        ui.write_stdout(data)
    for w in proj.warnings:
        ui.err().print(f"toolcat: warning: {w}", markup=False, highlight=False)
    if not ui.state.quiet:
        from toolcat.features.project.report import print_summary

        if code == 0:
            label = output if output and output != "-" else "stdout"
        else:
            label = "nothing written" + (f" but the report, {report}" if report else "")
        print_summary(proj, label, counter, written=code == 0)
    raise typer.Exit(code)


def _check(files: list[tuple[str, bytes]]) -> int:
    from toolcat import ui

    stale = []
    from toolcat.document.parse import Limits
    from toolcat.errors import InputError
    from toolcat.files import read_if_exists

    limit = max([Limits.from_env().max_file_size] + [len(b) for _p, b in files])
    for path, blob in files:
        try:
            current = read_if_exists(path, limit, what="file to compare")
        except InputError as e:
            if e.kind in ("too-large", "unreadable"):
                current = b""  # over the limit or unreadable: not what would be written
            else:
                raise
        if current != blob:
            stale.append((path, "missing" if current is None else "out of date"))
    con = ui.err()
    if stale:
        if not ui.state.quiet:
            for path, why in stale:
                con.print(f"{path}: {why} (run toolcat project without --check to update)")
        return 1
    if not ui.state.quiet:
        con.print("up to date: " + ", ".join(p for p, _ in files))
    return 0
