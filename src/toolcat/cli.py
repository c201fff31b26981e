"""The ``toolcat`` command line: thin Typer commands over the core.

Exit codes (like ruff): 0 clean, 1 findings / budget exceeded / difference found,
2 usage or input error. No traceback ever reaches the user: input problems print
``toolcat: error: FILE[:LINE[:COL]]: message``; an internal error prints one line too
(set ``TOOLCAT_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import os
import sys

from toolcat.version import __version__


def _fast_version(argv: list[str]) -> bool:
    # `toolcat --version` answers without importing Typer (pre-commit and shells call it often).
    if argv in (["--version"], ["-V"]):
        sys.stdout.write(f"toolcat {__version__}\n")
        return True
    return False


def build_app():  # typer.Typer
    import typer

    from toolcat.commands import diff as diff_cmd
    from toolcat.commands import lint as lint_cmd
    from toolcat.commands import measure as measure_cmd
    from toolcat.commands import project as project_cmd
    from toolcat.commands import rule as rule_cmd
    from toolcat.commands import tools as tools_cmd

    app = typer.Typer(
        name="toolcat",
        help=(
            "Lint, project and measure LLM tool catalogs: MCP tools/list, OpenAPI 3.x and "
            "Swagger 2.0, OpenWOP, OpenAI and Anthropic tool arrays.\n\n"
            "Exit codes: 0 clean, 1 findings / budget exceeded / difference found, "
            "2 usage or input error."
        ),
        epilog=(
            "Examples:\n\n"
            "  toolcat lint openapi.yaml\n\n"
            "  toolcat measure tools.json --max-tokens 20000\n\n"
            "  toolcat project openapi.yaml -o tools.compact.json --handbook handbook.json"
        ),
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )

    def _version(value: bool) -> None:
        if value:
            sys.stdout.write(f"toolcat {__version__}\n")
            raise typer.Exit(0)

    @app.callback()
    def _root(
        version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                     help="Print the version and exit."),
        no_color: bool = typer.Option(False, "--no-color", help="No colours (also: NO_COLOR=1)."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No summaries on stderr."),
    ) -> None:
        from toolcat import ui

        ui.configure(no_color=no_color, quiet=quiet)

    tools_cmd.register(app)
    project_cmd.register(app)
    lint_cmd.register(app)
    diff_cmd.register(app)
    measure_cmd.register(app)
    rule_cmd.register(app)
    return app


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if _fast_version(args):
        sys.exit(0)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    # A short-lived process over acyclic JSON data: the cyclic collector only costs time
    # (one full pass over a parsed 3 MB spec is ~30 ms) and frees nothing worth having.
    import gc

    gc.disable()
    code = run(args)
    # Leave without the interpreter's teardown, which frees every object of a parsed spec one
    # by one (25-65 ms after a 3 MB spec): output files are written and closed by now, and
    # the standard streams are flushed here (a reader gone away is not an error).
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def run(args: list[str]) -> int:
    """Run the CLI with ``args``; return the exit code (never raises, never a traceback)."""
    from toolcat import ui
    from toolcat.errors import ToolcatError

    ui.reset()
    try:
        app = build_app()
        try:
            app(args=args, prog_name="toolcat", standalone_mode=True)
        except SystemExit as e:
            code = e.code
            if code is None:
                return 0
            if isinstance(code, int):
                return code
            sys.stderr.write(f"{code}\n")
            return 2
        return 0
    except ToolcatError as e:
        sys.stdout.flush()
        sys.stderr.write(e.render() + "\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("toolcat: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (`toolcat tools x | head`): not an error worth a message
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
    except OSError as e:
        # a file toolcat writes (or a stream) failed: one line naming it
        where = f"{e.filename}: " if e.filename else ""
        action = getattr(e, "toolcat_action", None)
        what = " ".join(str(e.strerror or e).split())
        sys.stderr.write(f"toolcat: error: {where}{action + ': ' if action else ''}{what}\n")
        return 2
    except RecursionError:
        sys.stderr.write("toolcat: error: input nests too deeply to process\n")
        return 2
    except MemoryError:
        sys.stderr.write("toolcat: error: out of memory while processing the input\n")
        return 2
    except Exception as e:  # the last line of defence: one line, never a traceback
        if os.environ.get("TOOLCAT_DEBUG"):
            raise
        msg = " ".join(str(e).split())[:300]
        sys.stderr.write(
            f"toolcat: error: internal error: {type(e).__name__}: {msg} "
            "(please report it; TOOLCAT_DEBUG=1 shows the traceback)\n")
        return 2
