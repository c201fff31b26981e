"""The ``toolcat`` command line: thin Typer commands over the core.

Exit codes (like ruff): 0 clean, 1 findings / budget exceeded / difference found,
2 usage or input error. No traceback ever reaches the user: input problems print
``toolcat: error: FILE[:LINE[:COL]]: message``; an internal error prints one line too
(set ``TOOLCAT_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import errno
import os
import sys
from types import ModuleType

from toolcat.version import __version__

# `typing` is not imported at run time (start-up; see toolcat/__init__.py)
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def _fast_version(argv: list[str]) -> bool:
    # `toolcat --version` answers without importing Typer (pre-commit and shells call it often).
    if argv in (["--version"], ["-V"]):
        sys.stdout.write(f"toolcat {__version__}\n")
        return True
    return False


# Each command's module, in the order `toolcat --help` lists them (a module may register two).
COMMANDS: dict[str, str] = {
    "tools": "tools", "project": "project", "lint": "lint", "diff": "diff",
    "diff-toolids": "diff", "measure": "measure", "capture": "capture", "serve": "serve",
    "rule": "rule",
}
_ROOT_FLAGS = frozenset(("--no-color", "--quiet", "-q"))


def command_of(args: list[str]) -> str | None:
    """The command ``args`` run when nothing but that command's own parsing needs the others:
    only the root's plain flags come before it, and no shell completion is asking. Else None
    (the whole app is built: help, completion, usage errors and suggestions see every command).
    """
    if os.environ.get("_TOOLCAT_COMPLETE"):
        return None
    for arg in args:
        if arg in _ROOT_FLAGS:
            continue
        return arg if arg in COMMANDS else None
    return None


def build_app(only: str | None = None):  # typer.Typer
    """The Typer app; with ``only`` (a command name), only that command's module is imported
    and registered (start-up: building every command's options costs more than a small lint)."""
    import typer

    app = typer.Typer(
        name="toolcat",
        help=(
            "Lint, project and measure LLM tool catalogs: MCP tools/list, OpenAPI 3.x and "
            "Swagger 2.0, OpenWOP, OpenAI and Anthropic tool arrays, and live MCP servers "
            "(--server, --url, --client).\n\n"
            "Exit codes: 0 clean, 1 findings / budget exceeded / difference found, "
            "2 usage or input error."
        ),
        epilog=(
            "Examples:\n\n"
            "  toolcat lint openapi.yaml\n\n"
            "  toolcat measure tools.json --max-tokens 20000\n\n"
            "  toolcat project openapi.yaml -o tools.compact.json --handbook handbook.json\n\n"
            "  toolcat measure --server 'uvx mcp-server-time' --client claude-desktop\n\n"
            "  toolcat serve 'uvx mcp-server-time'"
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

    modules = [COMMANDS[only]] if only is not None else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        _command_module(name).register(app)
    return app


def _command_module(name: str) -> ModuleType:
    """The module of ``commands/`` that registers ``name``'s command(s): ordinary imports,
    each only when its command is built (the import contract sees them all)."""
    if name == "tools":
        from toolcat.commands import tools

        return tools
    elif name == "project":
        from toolcat.commands import project

        return project
    elif name == "lint":
        from toolcat.commands import lint

        return lint
    elif name == "diff":
        from toolcat.commands import diff

        return diff
    elif name == "measure":
        from toolcat.commands import measure

        return measure
    elif name == "capture":
        from toolcat.commands import capture

        return capture
    elif name == "serve":
        from toolcat.commands import serve

        return serve
    elif name == "rule":
        from toolcat.commands import rule

        return rule
    raise KeyError(name)  # pragma: no cover - COMMANDS names only the modules above


class Terminated(BaseException):
    """SIGTERM (what ``timeout`` and CI cancellation send): ends the run like Ctrl-C does."""


def _on_sigterm(signum, frame):
    raise Terminated()


def _standard_streams() -> None:
    """A closed stdin/stdout/stderr (``toolcat lint x >&-``) is reopened on /dev/null before
    any file is opened, so no output file can land on descriptor 1 and nothing prints a
    traceback; a closed stdin then reads as closed (``toolcat.files.stdin_closed``)."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
    if not closed:
        return
    for fd in closed:
        got = os.open(os.devnull, os.O_RDWR)
        if got != fd:          # pragma: no cover - the lowest free descriptor is fd
            os.dup2(got, fd)
            os.close(got)
    import io

    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if fd in closed or getattr(sys, name) is None:
            mode = "r" if fd == 0 else "w"
            stream = io.TextIOWrapper(io.FileIO(fd, mode + "b", closefd=False),
                                      encoding="utf-8", errors="backslashreplace")
            if fd == 0:
                stream.toolcat_closed = True  # type: ignore[attr-defined]
            setattr(sys, name, stream)


def main(argv: list[str] | None = None) -> None:
    code = 2
    try:
        _standard_streams()
        args = sys.argv[1:] if argv is None else argv
        if _fast_version(args):   # first: nothing else imported (start-up matters)
            _exit(0)
        import signal

        signal.signal(signal.SIGTERM, _on_sigterm)
        from toolcat.ui import GuardedStderr

        sys.stderr = GuardedStderr(sys.stderr)   # all of stderr is for people
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        # A short-lived process over acyclic JSON data: the cyclic collector only costs time
        # (one full pass over a parsed 3 MB spec is ~30 ms) and frees nothing worth having.
        import gc

        gc.disable()
        code = run(args)
    except KeyboardInterrupt:      # before run() took over (the first milliseconds)
        code = _interrupted(130)
    except Terminated:
        code = _interrupted(143)
    _exit(code)


def _exit(code: int) -> None:
    # Leave without the interpreter's teardown, which frees every object of a parsed spec one
    # by one (25-65 ms after a 3 MB spec): output files are written and closed by now, and
    # the standard streams are flushed here (a reader gone away is not an error).
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def _interrupted(code: int) -> int:
    """Ctrl-C (130) or SIGTERM (143): temp files removed, one line, no traceback."""
    try:
        from toolcat.files import remove_temps

        remove_temps()
        _say(f"toolcat: {'interrupted' if code == 130 else 'terminated'}")
    except BaseException:  # noqa: BLE001 - a second signal while cleaning up: still leave
        pass
    return code


def _say(line: str) -> None:
    """One line on stderr (stdout flushed first, so the order holds)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _click_exceptions():
    try:
        from typer._click import exceptions  # typer >= 0.26 vendors Click
    except ImportError:  # pragma: no cover - older typer
        from click import exceptions
    return exceptions


def _abort_class() -> type[BaseException]:
    try:
        from typer.exceptions import Abort  # typer >= 0.26
    except ImportError:  # pragma: no cover - older typer
        from click.exceptions import Abort  # type: ignore[assignment]
    return Abort


#: options users reach for that are spelled otherwise here (with --to): what they mean
_MEANT = {"--strict": "strict mode is a target: --to openai-strict or --to anthropic-strict"}


def _usage_error(e: Any) -> int:
    """Click's usage errors (unknown option or command, missing argument, bad value, extra
    arguments) as one ``toolcat: error:`` line, and a second line with the help hint."""
    from toolcat.terminal import shown

    ce = _click_exceptions()
    if isinstance(e, ce.NoArgsIsHelpError):
        e.show()
        return 2
    msg = " ".join(shown(e.format_message()).split())
    if msg[:1].isupper() and msg[1:2].islower():
        msg = msg[0].lower() + msg[1:]
    ctx = getattr(e, "ctx", None)
    cmd = ctx.command_path if ctx is not None else "toolcat"
    where = cmd[len("toolcat "):] + ": " if cmd.startswith("toolcat ") else ""
    if isinstance(e, ce.NoSuchOption) and ctx is not None:
        meant = _MEANT.get(e.option_name)
        if meant is not None and any("--to" in getattr(p, "opts", ())
                                     for p in ctx.command.params):
            msg = f"no such option: {e.option_name} ({meant})"
    _say(f"toolcat: error: {where}{msg}")
    hint = f"Try '{cmd} -h' for help." if ctx is not None else "Try 'toolcat -h' for help."
    _say(hint)
    return getattr(e, "exit_code", 2) or 2


def run(args: list[str]) -> int:
    """Run the CLI with ``args``; return the exit code (never raises, never a traceback)."""
    from toolcat.files import ReaderGone

    try:
        return _run(args)
    except ReaderGone:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return _interrupted(130)
    except Terminated:
        return _interrupted(143)


def _run(args: list[str]) -> int:
    from toolcat import errors, ui
    from toolcat.errors import ToolcatError
    from toolcat.terminal import shown

    ui.reset()
    errors.reset()
    code: str | int | None
    try:
        command = command_of(args)
        if command == "serve":          # a bare --defer (Click has no optional values)
            from toolcat.commands.serve import bare_defer

            args = bare_defer(args)
        if command == "lint":
            code = _lint_without_typer(args)
            if code is not None:
                return code
        app = build_app(command)
        ce = _click_exceptions()
        try:
            code = app(args=args, prog_name="toolcat", standalone_mode=False)
        except ce.ClickException as e:
            if isinstance(e, ce.UsageError):
                return _usage_error(e)
            _say(f"toolcat: error: {' '.join(shown(e.format_message()).split())}")
            return getattr(e, "exit_code", 2) or 2
        except _abort_class():
            return _interrupted(130)
        except SystemExit as e:
            code = e.code
            if code is None:
                return 0
            if not isinstance(code, int):
                _say(shown(str(code)))
                return 2
        # Typer turns Ctrl-C into exit 130 without a word: raised, or (standalone_mode off)
        # returned
        if code == 130:
            return _interrupted(130)
        return code if isinstance(code, int) else 0
    except ToolcatError as e:
        _say(e.render())
        return e.exit_code
    except BrokenPipeError:
        # the reader went away (`toolcat tools x | head`): not an error worth a message
        _quiet_stdout()
        return 0
    except OSError as e:
        if e.errno == errno.EPIPE:
            _quiet_stdout()
            return 0
        # a file toolcat writes (or a stream) failed: one line naming it
        where = f"{shown(e.filename)}: " if e.filename else ""
        action = getattr(e, "toolcat_action", None)
        what = " ".join(shown(e.strerror or e).split())
        _say(f"toolcat: error: {where}{action + ': ' if action else ''}{what}")
        return 2
    except RecursionError as e:
        _say(errors.InputError("input nests too deeply to process", errors.file_of(e)).render())
        return 2
    except MemoryError as e:
        _say(errors.InputError("out of memory while processing the input",
                               errors.file_of(e)).render())
        return 2
    except Exception as e:  # the last line of defence: one line, never a traceback
        if os.environ.get("TOOLCAT_DEBUG"):
            raise
        msg = " ".join(shown(e).split())[:300]
        at = errors.file_of(e)
        _say(f"toolcat: error: {shown(at) + ': ' if at else ''}internal error: "
             f"{type(e).__name__}: {msg} (please report it; TOOLCAT_DEBUG=1 shows the traceback)")
        return 2


def _lint_without_typer(args: list[str]) -> int | None:
    """``toolcat lint ...`` run without Typer when :func:`toolcat.commands.lint_run.parse`
    reads ``args`` (else None: Typer parses them). Done here as Typer's main does it around
    a command: an EOFError is an abort (a newline on stderr, then "interrupted", 130) and an
    OSError EPIPE that no writer turned into ReaderGone is exit 1."""
    from toolcat.commands import lint_run

    parsed = lint_run.parse(args)
    if parsed is None:
        return None
    root, params = parsed
    from toolcat import ui

    ui.configure(**root)
    try:
        return lint_run.run(**params)
    except EOFError:
        sys.stderr.write("\n")
        return _interrupted(130)
    except OSError as e:
        if e.errno == errno.EPIPE:
            return 1
        raise


def _quiet_stdout() -> None:
    """After EPIPE: nothing more reaches the closed pipe (not even the final flush)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
