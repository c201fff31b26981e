"""`toolcat diff-toolids`: compare the toolId sets of two catalogs, or of one catalog's views."""

from __future__ import annotations

import re
from typing import Annotated, Any, NoReturn, Optional

import typer

from toolcat.commands.common import LIVE, LOAD, UI, Shared, warn_broken_refs
from toolcat.commands.options import shared
from toolcat.commands.sources import exit_on_errors, load_sources
from toolcat.features.diff import MAX_CHECKS, MAX_CHECKS_TOTAL

#: diff's shared options (no --merge: each side is its own catalog)
_SHARED = (*(n for n in LOAD if n != "merge"), *LIVE, *UI)

HELP = "Compare the toolId sets of two catalogs, or of one catalog's standard and compact views."
SHORT = "Compare the toolId sets of two catalogs or of two views."

EPILOG = """With A and B (any formats, e.g. an OpenWOP standard view and its ?view=compact
capture): compares the ids of their tools, and `source`/`safetyTier` of common ids where both
sides carry them (OpenWOP). With A alone: compares A's standard view with toolcat's own compact
projection of it, both in the same target envelope (A's own by default: openwop for OpenWOP
input, else mcp; --to picks another), i.e. RFC 0112 projection completeness: the compact view
must carry the same toolId set. Ids that differ only in case or by a namespace prefix
(`mcp:fs.read` vs `read`) are listed as likely renames, never matched. JSON adds
"likely_renames" to only_in_a, only_in_b, common and changed. Exit codes: 0 equal, 1 different,
2 usage or input error.

Servers (--server, --url, --client, --client-config) are one more catalog, after A and B:
`toolcat diff-toolids tools.capture.json --server 'python my_server.py'` compares a capture
with what the server lists now. Two servers and no file compare the first with the second;
otherwise the servers' tools together are one catalog.

Examples:

  toolcat diff-toolids catalog.json catalog.compact.json

  toolcat diff-toolids openapi.yaml --format json
"""

DIFF_HELP = ("What changed between two versions of a catalog, and whether it breaks the "
             "callers: removed or renamed tools, narrowed input schemas, outputs no longer "
             "guaranteed, rewritten descriptions, tools that became destructive.")
DIFF_SHORT = "What changed between two catalog versions, and whether it breaks callers."
DIFF_EPILOG = """OLD and NEW: any catalog formats (each detected, or --from for both). Tools are
paired by id; ids that differ only in case or by a namespace prefix are likely renames. Each
finding has a kind: breaking (a call valid against OLD's inputSchema is rejected by NEW's, a
result NEW may return is rejected by OLD's outputSchema, a tool removed or renamed), unknown
(no sound check decided it: say so, never guess), behavioural (descriptions, titles,
annotations, safety tier; a tool that became destructive or exec comes first), non-breaking
(NEW accepts more inputs: a new optional parameter, an enum value added, a bound relaxed).
Schemas are compared by what they accept, both normalized with the projection's exact
rewrites first; every breaking finding carries a witness instance checked with jsonschema.
A property only NEW declares, where OLD said nothing about other properties, counts as no
part of OLD's interface (a new optional parameter is non-breaking).

The search for witnesses is bounded by counting, so a report does not depend on the machine:
--max-checks jsonschema steps (each validation, each reference it follows) per tool and
--max-checks-total for the whole diff; past them the changes left undecided are unknown, and
their reason says which budget ran out.

--ignore TOOL or TOOL:POINTER (repeatable; --ignore-file: one a line, # comments) drops the
findings of a tool, or those at or below a pointer (the finding's canonical pointer, as
printed, or its pointer in either version); the json format gives each finding's "ignore".

Exit codes: 0 no finding of the --fail-on kinds (default: breaking; unknown = breaking or
unknown; behavioural = those and behavioural; any = any change), 1 there is one, 2 usage or
input error.

Examples:

  toolcat diff tools-v1.json tools-v2.json

  toolcat diff openapi-old.yaml openapi.yaml --format markdown > comment.md

  toolcat diff old.json new.json --fail-on behavioural --ignore search:/inputSchema/properties/q
"""


def _sides(given: list[str], live, lopts, whole_setup: bool) -> list[tuple[str, list]]:
    """The sides to compare, each one input with its label: a path, then the servers (each
    its own side; or, ``whole_setup``, every server together as one, a client's setup),
    captured before anything is compared (a server that fails: exit 2)."""
    import toolcat

    servers = []
    if live.any:
        src = load_sources([], lopts, live)
        exit_on_errors(src.errors)
        if not whole_setup:
            servers = [(c.file, [c]) for c in src.servers]
        else:
            servers = [(src.servers[0].file if len(src.servers) == 1
                        else next(k for k, v in src.labels().items()
                                  if v.startswith("setup")), src.servers)]
    return [(p, toolcat.load_all([p], settings=lopts)) for p in given] + servers


def register(app: typer.Typer) -> None:
    app.command("diff", epilog=DIFF_EPILOG, help=DIFF_HELP, short_help=DIFF_SHORT)(diff)
    app.command("diff-toolids", epilog=EPILOG, help=HELP, short_help=SHORT)(diff_toolids)


# a JSON pointer (RFC 6901): "/"-separated tokens, "~" only as ~0 or ~1
_POINTER = re.compile(r"(?:/(?:[^~/]|~[01])*)*")


def _check_ignore(entry: str, where: str, file: str | None = None) -> None:
    """A usage error for an entry that is neither TOOL nor TOOL:POINTER (the pointer, after
    the first ``:/``, must be a JSON pointer: a ``~`` escapes only ``0`` or ``1``)."""
    from toolcat.errors import UsageError

    if not entry or entry.startswith(":"):
        raise UsageError(f"{where} needs TOOL or TOOL:POINTER (got {entry!r})", file)
    tool, sep, ptr = entry.partition(":/")
    if sep and not _POINTER.fullmatch("/" + ptr):
        raise UsageError(f"{where}: {entry!r}: the pointer is not a JSON pointer (a '~' must "
                         "be followed by 0 or 1: ~0 is '~', ~1 is '/')", file)


def _ignore_file(path: str, limit: int) -> list[str]:
    from toolcat.errors import InputError
    from toolcat.files import read_regular

    # the one reader: a FIFO or device is refused (never a blocked read), the size is limited
    data = read_regular(path, limit, what="ignore file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("ignore file is not UTF-8 text", path) from None
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if line:
            out.append(line)
    return out


# the options of diff (its own; the shared ones: commands/options.py)
Old = Annotated[Optional[str], typer.Argument(
    help="The old catalog (file, folder or `-`) [default: the first server].",
    show_default=False)]
New = Annotated[Optional[str], typer.Argument(
    help="The new catalog [default: the servers: --server, --url, --client...].",
    show_default=False)]
Fmt = Annotated[str, typer.Option("--format", "-f",
                                 help="Output: text, json, markdown or github.")]
FailOn = Annotated[str, typer.Option(
    "--fail-on", help="Exit 1 on findings of this kind or worse: breaking, unknown, "
    "behavioural or any.")]
Ignore = Annotated[Optional[list[str]], typer.Option(
    "--ignore", help="TOOL or TOOL:POINTER: accepted changes to leave out (repeatable).",
    show_default=False)]
IgnoreFile = Annotated[Optional[str], typer.Option(
    "--ignore-file", help="A file of --ignore entries, one a line (# comments).",
    show_default=False)]
IdsOnly = Annotated[bool, typer.Option(
    "--ids-only", help="Compare the toolId sets only (what diff-toolids does).")]
MaxChecks = Annotated[int, typer.Option(
    "--max-checks", help="jsonschema steps (validations, references followed) for the "
    "checks of one tool; past them its undecided changes are unknown.")]
MaxChecksTotal = Annotated[int, typer.Option(
    "--max-checks-total", help="The same, for the whole diff.")]


@shared(*_SHARED)
def diff(
    old: Old = None,
    new: New = None,
    fmt: Fmt = "text",
    fail_on: FailOn = "breaking",
    ignore: Ignore = None,
    ignore_file: IgnoreFile = None,
    ids_only: IdsOnly = False,
    max_checks: MaxChecks = MAX_CHECKS,
    max_checks_total: MaxChecksTotal = MAX_CHECKS_TOTAL,
    *,
    opts: Shared,
) -> int:
    """Compare two catalog versions; exit 1 when a finding of the --fail-on kinds is found."""
    from toolcat.files import check_inputs

    opts.apply_ui()
    _check_diff_args(fmt, fail_on, ids_only, max_checks, max_checks_total, old, new)
    check_inputs([("--ignore-file", ignore_file)])
    entries = list(ignore or [])
    for e in entries:
        _check_ignore(e, "--ignore")
    live = opts.live()
    given = [p for p in (old, new) if p is not None]
    pair = not given and not (opts.client or opts.client_config) and len(live.specs) == 2
    if len(given) + (2 if pair else live.any) != 2:
        from toolcat.errors import UsageError

        raise UsageError("diff compares two catalogs: OLD and NEW, OLD and the servers "
                         "(--server, --url, --client, --client-config; together one side), "
                         "or two servers (--server/--url twice)")
    lopts = opts.load()
    if ignore_file is not None:
        assert lopts.limits is not None      # (the builder sets them)
        more = _ignore_file(ignore_file, lopts.limits.max_file_size)
        for e in more:
            _check_ignore(e, "--ignore-file", ignore_file)
        entries += more
    (old, cats_old), (new, cats_new) = _sides(given, live, lopts, whole_setup=not pair)
    warn_broken_refs(cats_old + cats_new)
    if ids_only:
        from toolcat.features.diff.toolids import diff_sides, side_from_catalogs

        _write_ids(diff_sides(side_from_catalogs(cats_old, old),
                              side_from_catalogs(cats_new, new)), fmt)
    import toolcat
    from toolcat.ui import write_stdout

    rep = toolcat.api.diff(cats_old, cats_new, ignore=entries, max_checks=max_checks,
                           max_checks_total=max_checks_total, old_label=old, new_label=new)
    write_stdout(rep.render(fmt, fail_on))
    raise typer.Exit(rep.exit_code(fail_on))


def _check_diff_args(fmt: str, fail_on: str, ids_only: bool, max_checks: int,
                     max_checks_total: int, old: str | None, new: str | None) -> None:
    """Usage errors of diff's own options (before anything is read)."""
    from toolcat.errors import UsageError
    from toolcat.features.diff.catalog import FAIL_ON
    from toolcat.features.diff.render import FORMATS

    if ids_only:
        if fmt not in ("text", "json"):
            raise UsageError(f"--format must be text or json with --ids-only (got {fmt!r})")
    elif fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    for name, n in (("--max-checks", max_checks), ("--max-checks-total", max_checks_total)):
        if n <= 0:
            raise UsageError(f"{name} must be positive (got {n})")
    if old == "-" and new == "-":
        raise UsageError("only one of OLD and NEW can be stdin (-)")


def _write_ids(result: Any, fmt: str) -> NoReturn:
    """A toolId comparison on stdout (json, or text for people: control characters
    escaped); exits 0 when the sets are equal, else 1."""
    from toolcat.ui import write_stdout, write_text

    if fmt == "json":
        from toolcat.document.canonical import dumps

        write_stdout(dumps(result.to_json(), indent=2) + b"\n")
    else:
        from toolcat.features.diff.toolids import render_text

        write_text(render_text(result))
    raise typer.Exit(0 if result.equal else 1)


@shared(*_SHARED)
def diff_toolids(
    a: Annotated[Optional[str], typer.Argument(
        help="First catalog (file, folder or `-`) [default: the servers].",
        show_default=False)] = None,
    b: Annotated[Optional[str], typer.Argument(
        help="Second catalog [default: A's own compact projection].", show_default=False)
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output: text or json.")] = "text",
    to: Annotated[Optional[str], typer.Option(
        "--to", help="With A alone: the target envelope of both views: mcp, openwop, openai "
        "or anthropic [default: openwop for OpenWOP input, else mcp].", show_default=False)
    ] = None,
    source: Annotated[Optional[str], typer.Option(
        "--source", help="With A alone: OpenWOP `source` for tools that have none "
        "[default: derived].", show_default=False)] = None,
    safety_tier: Annotated[Optional[str], typer.Option(
        "--safety-tier", help="With A alone: OpenWOP `safetyTier` for tools that have none "
        "[default: derived].", show_default=False)] = None,
    *,
    opts: Shared,
) -> int:
    """Compare toolId sets; exit 0 when equal, 1 when different."""
    from toolcat.errors import UsageError

    opts.apply_ui()
    if fmt not in ("text", "json"):
        raise UsageError(f"--format must be text or json (got {fmt!r})")
    from toolcat.formats.targets import names

    if to is not None and to not in names():
        raise UsageError(f"--to must be one of {', '.join(names())} (got {to!r})")
    if a == "-" and b == "-":
        raise UsageError("only one of A and B can be stdin (-)")
    live = opts.live()
    given = [p for p in (a, b) if p is not None]
    # two servers (--server/--url) and no file: A is the first, B the second; otherwise the
    # servers together (a client's whole setup) are one side
    pair = not given and not (opts.client or opts.client_config) and len(live.specs) == 2
    if len(given) + live.any > 2:
        raise UsageError("diff-toolids compares two catalogs: A and B, or one of them and the "
                         "servers (--server, --url, --client, --client-config)")
    if not given and not live.any:
        from toolcat.commands.sources import NO_INPUT

        raise UsageError(NO_INPUT)
    if (pair or len(given) + live.any == 2) and (to is not None or source is not None
                                       or safety_tier is not None):
        raise UsageError("--to, --source and --safety-tier apply only with a single catalog")
    from toolcat.features.diff.toolids import diff_sides, side_from_catalogs

    sides = _sides(given, live, opts.load(), whole_setup=not pair)
    warn_broken_refs([c for _label, cs in sides for c in cs])
    if len(sides) == 2:
        (a, cats_a), (b, cats_b) = sides
        _write_ids(diff_sides(side_from_catalogs(cats_a, a), side_from_catalogs(cats_b, b)),
                   fmt)
    _write_ids(diff_sides(*_views(sides[0], to, source, safety_tier)), fmt)


def _views(side: tuple[str, list], to: str | None, source: str | None,
           safety_tier: str | None) -> tuple[Any, Any]:
    """The toolId sides of one catalog's standard view and its own compact projection."""
    from toolcat.features.diff.toolids import side_from_items
    from toolcat.features.project import options_from_cli, project_catalogs, standard_array

    label, cats = side
    # ids only: no description or schema is projected (as fast as `tools`)
    popts = options_from_cli(to=to, source=source, safety_tier=safety_tier)
    proj = project_catalogs(list(cats), popts, ids_only=True)
    target = proj.target
    return (side_from_items(standard_array(cats, target, ids_only=True), target,
                            f"{label} (standard view, {target})"),
            side_from_items(proj.array(), target, f"{label} (compact view, {target})"))
