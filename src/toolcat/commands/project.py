"""`toolcat project`: write a catalog's compact (or standard) view in a target's envelope."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from toolcat.commands.common import DEFER, FOR, LIVE, LOAD, PROJECTION, UI, Shared
from toolcat.commands.options import Paths, shared
from toolcat.commands.sources import exit_on_errors, input_files, require_inputs

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


DuplicateIds = Annotated[str, typer.Option(
    "--duplicate-ids", help="Two tools with the same id: error (stop, naming both), or "
    "rename (the later ones become ID_2, ID_3... in input order; reported).")]


def register(app: typer.Typer) -> None:
    app.command("project", epilog=EPILOG, help=HELP, short_help=SHORT)(project)


@shared(*PROJECTION, *FOR, *DEFER, *LOAD, *LIVE, *UI)
def project(
    paths: Paths = None,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write here (atomically) [default: stdout].",
        show_default=False)] = None,
    view: Annotated[str, typer.Option("--view", help="compact or standard.")] = "compact",
    handbook: Annotated[Optional[str], typer.Option(
        "--handbook", help="Also write {\"tools\": {id: standard descriptor}} here.",
        show_default=False)] = None,
    report: Annotated[Optional[str], typer.Option(
        "--report", help="Also write the change report (JSON) here.", show_default=False)] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 when OUT (and --handbook/--report files) "
        "differ from what would be written.")] = False,
    indent: Annotated[Optional[int], typer.Option(
        "--indent", help="Pretty-print with N spaces [default: minified].",
        show_default=False)] = None,
    sort: Annotated[bool, typer.Option("--sort", help="Sort tools by id.")] = False,
    duplicate_ids: DuplicateIds = "error",
    *,
    opts: Shared,
) -> None:
    """Write the compact (or standard) view of catalogs in a target envelope."""
    import toolcat
    from toolcat import ui

    opts.apply_ui()
    _check_outputs(paths, output, handbook, report, check, opts.client_config)
    live = opts.live()
    require_inputs(paths, live)
    popts = opts.projection(view=view, sort=sort, indent=indent, duplicate_ids=duplicate_ids)
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
