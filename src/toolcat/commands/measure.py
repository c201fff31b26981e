"""`toolcat measure`: bytes and tokens of the standard view against the compact view."""

from __future__ import annotations

import sys
import threading
from typing import Annotated, Any, Optional

import typer

from toolcat.commands.common import (
    DEFER,
    FOR,
    LIVE,
    LOAD,
    PROJECTION,
    UI,
    Shared,
    warn_broken_refs,
)
from toolcat.commands.options import Paths, shared
from toolcat.commands.sources import (
    input_files,
    load_sources,
    report_errors,
    require_inputs,
    setup_findings,
)

HELP = "Measure bytes and tokens of each catalog's standard view against its compact view."
SHORT = "Measure bytes and tokens, standard view against compact view."

EPILOG = """Before = the standard view in the catalog's own envelope (MCP, OpenAI, Anthropic
or OpenWOP input: the tools array as given; OpenAPI, Swagger and docker: as MCP tools), after =
what `toolcat project` writes with the same options (the compact view; --to measures both in
another envelope); both as canonical JSON bytes (JavaScript JSON.stringify) and exact BPE
tokens. Limits apply to each catalog, on the standard view unless --gate after. Captures
of mcp-context-cost servers that hold no tools (auth-required, timeout...) are skipped with a
note on stderr when other catalogs remain. Exit codes: 0 within budget, 1 a budget or the
baseline is exceeded (each failure names the catalog, figure, limit and value), 2 input error.

With servers (--server, --url, --client, --client-config): one row per server, the total
is what the client sends with every request, and the setup rules (SU6xx, as `toolcat lint`
runs them) list the per-request limits of providers and clients the servers break together.
A server that fails is reported and the others are measured (exit 2 at the end).

Examples:

  toolcat measure tools.json --max-tokens 20000 -f markdown

  toolcat measure servers/*.json --baseline base.json --max-increase 5

  toolcat measure --server 'uvx mcp-server-time' --server 'python my_server.py'

  toolcat measure --client claude-desktop

  toolcat measure tools.json --as anthropic --defer all --gate upfront --max-tokens 2000
"""

FORMATS = ("table", "json", "markdown", "csv")


def __getattr__(name: str) -> Any:
    """``UNLOWERABLE``: the projection's own (scripts/gen_completions.py reads it here),
    imported only when asked for (the project package is not loaded at startup)."""
    if name == "UNLOWERABLE":
        import toolcat.features.project as project

        return getattr(project, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PROGRESS_DELAY = 1.0  # seconds before a progress bar appears


def register(app: typer.Typer) -> None:
    app.command("measure", epilog=EPILOG, help=HELP, short_help=SHORT)(measure)


class DelayedProgress:
    """A Rich progress bar on stderr that only appears once a run has taken ``delay`` s."""

    def __init__(self, enabled: bool, total: int, delay: float = PROGRESS_DELAY) -> None:
        self.enabled = enabled
        self._lock = threading.Lock()
        self._done = False
        self._started = False
        if not enabled:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

        from toolcat import ui

        self._p = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                           MofNCompleteColumn(), console=ui.err(), transient=True)
        self._task = self._p.add_task("loading", total=total)
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True
        self._timer.start()

    def _start(self) -> None:
        with self._lock:
            if not self._done:
                self._p.start()
                self._started = True

    def update(self, description: str, advance: int = 0, total: int | None = None) -> None:
        if self.enabled:
            self._p.update(self._task, description=description, advance=advance, total=total)

    def stop(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._done = True
            self._timer.cancel()
            if self._started:
                self._p.stop()


def want_progress(fmt: str, quiet: bool, stream: Any = None) -> bool:
    """Progress only for human formats, and only when stderr is a terminal."""
    if fmt in ("json", "csv") or quiet:
        return False
    stream = stream or sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# the options of measure (its own; the shared ones: commands/options.py)
Tokenizer = Annotated[Optional[str], typer.Option(
    "--tokenizer", "-t", help="BPE encoding: o200k_base or cl100k_base [default: "
    "o200k_base, or tokenizer of [tool.toolcat.budgets]].", show_default=False)]
Fmt = Annotated[str, typer.Option("--format", "-f",
                                 help="Output: table, json, markdown or csv.")]
Top = Annotated[int, typer.Option("--top", help="Also list the N heaviest tools "
                                 "(table, json, markdown).", min=0)]
MaxBytes = Annotated[Optional[int], typer.Option(
    "--max-bytes", help="Fail (exit 1) when a catalog's gated side has more bytes "
    "[default: none, or max-bytes of [tool.toolcat.budgets]].", show_default=False, min=0)
]
MaxTokens = Annotated[Optional[int], typer.Option(
    "--max-tokens", help="Fail (exit 1) when a catalog's gated side has more tokens "
    "[default: none, or max-tokens of [tool.toolcat.budgets]].", show_default=False, min=0)
]
Gate = Annotated[Optional[str], typer.Option(
    "--gate", help="Side the limits and the baseline apply to: before (the standard "
    "view: the catalog as given), after (the compact view toolcat project writes) or "
    "upfront (with --defer: what every request shows the model) "
    "[default: before, or gate of [tool.toolcat.budgets]].",
    show_default=False)]
Config = Annotated[Optional[str], typer.Option(
    "--config", help="Read budgets from this toolcat.toml or pyproject.toml [default: the "
    "nearest one upwards from the current folder].", show_default=False)]
Baseline = Annotated[Optional[str], typer.Option(
    "--baseline", help="Compare with the figures of a file written by --write-baseline.",
    show_default=False)]
MaxIncrease = Annotated[Optional[float], typer.Option(
    "--max-increase", help="With --baseline: allowed growth of bytes and tokens per "
    "catalog, in percent [default: 0, or max-increase of [tool.toolcat.budgets]].",
    show_default=False)]
WriteBaseline = Annotated[Optional[str], typer.Option(
    "--write-baseline", help="Record each catalog's figures to FILE (atomic).",
    show_default=False)]
AsProvider = Annotated[Optional[str], typer.Option(
    "--as", help="Count what this provider's request carries for the tools: openai (the "
    "function objects), anthropic (name, description, input_schema: no outputSchema, "
    "annotations, title or _meta), gemini (the function declarations), harmony (the openai function tools rendered "
    "as OpenAI's open-weight gpt-oss models read them; needs openai-harmony), "
    "openai-responses (Responses API function tools), bedrock (Converse tools); implies "
    "--to. Tokens are exact for openai with o200k_base and for harmony, an estimate "
    "otherwise [default: the tools array as written].",
    show_default=False)]
Loaded = Annotated[int, typer.Option(
    "--loaded", help="With --defer: the tools a session loads on demand, for the "
    "session estimate (up front + K x the median on-demand tokens).", min=0)]


@shared(*PROJECTION, *FOR, *DEFER, *LOAD, *LIVE, *UI)
def measure(
    paths: Paths = None,
    tokenizer: Tokenizer = None,
    fmt: Fmt = "table",
    top: Top = 0,
    max_bytes: MaxBytes = None,
    max_tokens: MaxTokens = None,
    gate: Gate = None,
    config: Config = None,
    baseline: Baseline = None,
    max_increase: MaxIncrease = None,
    write_baseline: WriteBaseline = None,
    as_provider: AsProvider = None,
    loaded: Loaded = 5,
    *,
    opts: Shared,
) -> int:
    """Measure bytes and tokens of each catalog's standard view against its compact view."""
    from toolcat.errors import UsageError
    from toolcat.features.measure.settings import Settings
    from toolcat.files import check_inputs, check_outputs

    opts.apply_ui()
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    check_inputs([("--baseline", baseline)])
    check_outputs([("--write-baseline", write_baseline)],
                  input_files(paths, opts.client_config, baseline))
    ms = Settings.read(config, gate, tokenizer, opts.to, as_provider, opts.defer)
    # the options `toolcat project` builds from the same values (checked here, early)
    popts = opts.projection(to=ms.to)
    budget = ms.budget(popts, max_bytes, max_tokens, baseline, max_increase)
    live = opts.live()
    paths = require_inputs(paths, live)
    lopts = opts.load(root=ms.root)
    lopts.stream = True       # a large MCP tools list is measured a batch of tools at a time
    # the SHA-256 of each standard view: in the JSON and CSV figures and a baseline only
    digest = fmt in ("json", "csv") or write_baseline is not None
    src, figs = _measure(paths, live, lopts, ms, popts, fmt, top, loaded, opts.quiet, digest)
    return _report(src, figs, budget, ms, fmt, top, config, write_baseline, opts.quiet)


def _measure(paths: list[str], live: Any, lopts: Any, ms: Any, popts: Any, fmt: str,
             top: int, loaded: int, quiet: bool, digest: bool = True) -> tuple[Any, list]:
    """Load and measure, with a progress bar on a terminal; the sources and the figures."""
    import toolcat
    from toolcat import tokens
    from toolcat.features.measure import load_for_measure

    # Started first: the tokenizer loads (in a child process where possible) while the
    # catalogs are read and projected.
    counter: tokens.TokenCounter
    if ms.as_provider == "harmony":
        from toolcat.features.measure.harmony import HarmonyCounter

        counter = HarmonyCounter()
    else:
        counter = tokens.counter(ms.tok)
    inputs = len(paths) + len(live.specs)
    progress = DelayedProgress(want_progress(fmt, quiet), total=inputs * 2)
    skipped: list = []
    try:
        def on_file(path: str) -> None:
            progress.update(f"loading {path}", advance=1)

        def load_files(ps: list[str], opts: Any) -> list:
            got, skip = load_for_measure(ps, opts, on_file=on_file)
            skipped.extend(skip)
            return got

        if live.any:
            progress.update(f"starting {len(live.specs)} server"
                            f"{'s' if len(live.specs) != 1 else ''}")
        src = load_sources(paths, lopts, live, load_files=load_files)
        cats = src.catalogs
        warn_broken_refs(cats)
        if not cats:        # every server failed, and no file was given
            report_errors(src.errors)
            raise typer.Exit(2)
        progress.update("measuring", total=inputs + len(cats))

        def on_catalog(cat: Any) -> None:
            progress.update(f"measured {cat.file}", advance=1)

        figs = toolcat.measure(cats, ms.tok, per_tool=top > 0, settings=popts,
                               counter=counter, on_catalog=on_catalog, loaded=loaded,
                               digest=digest).catalogs
    finally:
        counter.close(kill=True)  # a no-op once the counts are in; frees the child on errors
        progress.stop()
    if not quiet:
        for file, status in skipped:
            sys.stderr.write(f"toolcat: note: {file}: skipped, the capture holds no tools "
                             f"(status: {status})\n")
    return src, figs


def _report(src: Any, figs: list, budget: Any, ms: Any, fmt: str, top: int,
            config: str | None, write_baseline: str | None, quiet: bool) -> int:
    """The figures (stdout), the baseline file, the notes and failures (stderr); the exit
    code (raised)."""
    from toolcat.features.measure import check_gates, top_tools

    fails, notes = check_gates(figs, budget)
    tops = top_tools(figs, top) if top > 0 else None
    setup = None
    if src.servers:
        labels = src.labels()
        setup = {"name": next(k for k, v in labels.items() if v.startswith("setup")),
                 "servers": [c.file for c in src.servers],
                 "findings": setup_findings(src, config), "labels": labels}
    missing = [{"server": e.file or "", "error": e.message} for e in src.errors]
    _render(fmt, figs, ms.tok_label, tops, {(f.file, f.figure) for f in fails},
            ms.as_provider, setup, missing)
    if write_baseline is not None:
        from toolcat.features.measure import write_baseline as _write

        _write(write_baseline, figs, ms.tok_label)
    if not quiet:
        for n in notes:
            sys.stderr.write(f"toolcat: note: {n}\n")
        for f in figs:
            if f.input_schema_note:
                sys.stderr.write(f"toolcat: note: {f.file}: {f.input_schema_note}\n")
            if f.duplicate_note:
                sys.stderr.write(f"toolcat: note: {f.file}: {f.duplicate_note}\n")
            if f.left_out_note:
                sys.stderr.write(f"toolcat: warning: {f.left_out_note}\n")
    for fail in fails:
        sys.stderr.write(f"toolcat: budget exceeded: {fail.message()}\n")
    stuck = [f for f in figs if f.unlowerable]
    for f in stuck:
        k = len(f.unlowerable)
        sys.stderr.write(f"toolcat: {f.file}: {k} tool{'s' if k != 1 else ''} cannot be lowered "
                         f"exactly to the compact subset (--unlowerable fail): "
                         f"{', '.join(f.unlowerable[:5])}{' ...' if k > 5 else ''}\n")
    if src.errors:      # servers that failed: reported last, and they win (exit 2)
        report_errors(src.errors)
        raise typer.Exit(2)
    if fails or stuck:
        sys.stderr.flush()
        raise typer.Exit(1)
    return 0


def _render(fmt: str, figs: list, tok: str, tops: list | None, failed: set,
            as_provider: str | None = None, setup: dict | None = None,
            missing: list | None = None) -> None:
    from toolcat.features.measure import render as r
    from toolcat.ui import write_stdout, write_text

    if fmt == "json":
        write_stdout(r.render_json(figs, tok, tops, as_provider, setup, missing))
    elif fmt == "csv":
        write_stdout(r.render_csv(figs, tok))
    elif fmt == "markdown":
        md = r.render_markdown(figs, tok, tops, as_provider, setup)
        if missing:
            md = md.rstrip("\n") + f"\n\n**Partial**: {r.partial_note(missing)}.\n"
        write_text(md)
    else:
        r.render_table(figs, tok, tops, failed, as_provider=as_provider, setup=setup)
        if missing:
            write_text(f"Partial: {r.partial_note(missing)}.\n")
