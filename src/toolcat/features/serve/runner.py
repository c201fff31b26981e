"""The synchronous entry point of ``toolcat serve`` (no MCP SDK import until the upstream
process has been started: it boots while toolcat loads the SDK, as in every live command)."""

from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from toolcat.errors import InputError
from toolcat.formats.live import procs
from toolcat.formats.live.spec import STDIO, ServerSpec, printable


@dataclass
class ServeOptions:
    specs: list[ServerSpec]           # the upstreams (one: its tools' names as they are)
    settings: Any                     # toolcat.features.project.ProjectOptions (target mcp)
    handbook_tool: str
    timeout: float                    # start-up to the last tools/list page
    call_timeout: float | None        # one forwarded call; None: no limit
    verbose: bool = False
    quiet: bool = False
    log_dir: str | None = ""          # "": the default folder (toolcat.formats.live.capture)
    http: int | None = None           # --http PORT (0: any free port); None: stdio
    #: --validate: check arguments against the upstream's schema first and log what it
    #: refuses ("log"), refuse it ("strict"), or check nothing ("off")
    validate: str = "log"
    repair_args: bool = True          # parse JSON text where an object or array is wanted
    #: --catalog FILE: (name, catalog) served with no server behind them (testing hosts)
    catalogs: list = field(default_factory=list)
    #: --defer all|auto: toolcat.features.serve.defer.DeferOptions; None: every tool listed
    defer: Any = None
    #: --deny-poisoned: leave out the tools the TP rules flag (toolcat.features.serve.deny)
    deny_poisoned: bool = False


def prefixes(specs: list[ServerSpec]) -> list[str | None]:
    """The served-name prefix of each upstream: none for one upstream; with several, each
    server's name (its key in a client configuration, else derived from the command or the
    URL, as every report names it; made unique with -2, -3...; a --catalog file: its
    name)."""
    if len(specs) == 1:
        return [None]
    return [s.name for s in specs]


def serve(opts: ServeOptions) -> int:
    """Serve until the client goes away; 0, or 2 when an upstream ended while serving (said
    on stderr when it happened), or raise :class:`InputError` (an upstream could not be
    started or listed, or the tools cannot be projected or served under distinct names).
    Every process started has ended on return, whatever happens
    (:func:`toolcat.formats.live.procs.guard`)."""
    from toolcat.formats.live import capture as cap

    for spec in opts.specs:
        if spec.problem:
            raise InputError(spec.problem, spec.label)
    log_dir = cap.default_log_dir() if opts.log_dir == "" else opts.log_dir
    with procs.guard():
        started = time.perf_counter()
        procs_ = [procs.spawn(spec) if spec.transport == STDIO else None for spec in opts.specs]
        session = cap.import_sdk()
        session.quiet_sdk_logging(opts.verbose)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import anyio

            from toolcat.features.serve import proxy

        def gone(error: InputError) -> None:
            say(f"{error.render()} (while serving: every call now gets an MCP error)")

        statics = [proxy.CatalogUpstream(cat, name) for name, cat in opts.catalogs]
        names = prefixes([*opts.specs, *(u.spec for u in statics)])
        upstreams: list = [proxy.Upstream(spec, proc, opts.timeout, opts.call_timeout, started,
                                          log_dir, opts.verbose, on_gone=gone, prefix=prefix)
                           for spec, proc, prefix in zip(opts.specs, procs_, names)]
        for up, prefix in zip(statics, names[len(opts.specs):]):
            up.prefix = prefix
        upstreams += statics

        denied: list = []              # --deny-poisoned: what stderr said last
        unportable: list = []          # --for: the rewrites that are not exact, said last

        def make_view(ups: list) -> Any:
            from toolcat.features.serve.view import build_view

            view = build_view([u.catalog() for u in ups], opts.settings,
                              opts.handbook_tool, [u.prefix for u in ups],
                              [u.page_sizes for u in ups], opts.deny_poisoned)
            if opts.deny_poisoned and (not denied or denied[-1] != view.denied):
                from toolcat.features.serve.deny import line

                if denied or view.denied:
                    say(line(view.denied))
                denied.append(view.denied)
            lines = view.unportable()
            if lines != (unportable[-1] if unportable else []):
                # --for CLIENT: what could not be rewritten exactly, once per list served
                for text in lines:
                    say(text)
                unportable.append(lines)
            return view

        deferral = None
        if opts.defer is not None:
            from toolcat.features.serve.defer import Deferral

            deferral = Deferral(opts.defer)

        def announce(view: Any, url: str | None) -> None:
            every = [u.spec for u in upstreams]
            if url is not None:         # said even with -q: the client needs the URL
                say(started_line(every, view, url, deferral) if not opts.quiet
                    else f"toolcat: serving on {url}")
            elif not opts.quiet:
                say(started_line(every, view, None, deferral))

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                view = anyio.run(proxy.serve_wire, upstreams, make_view, announce, opts.http, say,
                                 opts.validate, opts.repair_args,
                                 (lambda line: None) if opts.quiet else say, deferral)
        except BaseExceptionGroup as group:
            mine = [e for e in _leaves(group) if isinstance(e, InputError)]
            if mine:
                raise mine[0] from None
            others = [e for e in _leaves(group) if not isinstance(e, Exception)]
            if others:          # KeyboardInterrupt, SystemExit: as they are
                raise others[0] from None
            raise _leaves(group)[0] from None
        if view is None:
            failed = [u.error for u in upstreams if u.error is not None]
            assert failed
            raise failed[0]
    # an upstream ended while serving (said when it happened): not a clean run
    return 2 if any(u.error is not None for u in upstreams) else 0


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for e in exc.exceptions:
            out.extend(_leaves(e))
        return out
    return [exc]


def started_line(specs: list[ServerSpec], view: Any, url: str | None = None,
                 deferral: Any = None) -> str:
    """What ``toolcat serve`` says on stderr once it serves (hosts keep it in their logs)."""
    from toolcat import tokens
    from toolcat.document.canonical import dumps

    before = sum(tokens.count(b) for b in view.standard_bytes())
    n = len(view.upstream)
    where = f", on {url}" if url else ""
    of = (printable(specs[0].label, 64) if len(specs) == 1 else
          f"{len(specs)} servers ({', '.join(printable(s.label, 40) for s in specs)})")
    if deferral is not None and deferral.active:
        after = tokens.count(dumps(deferral.tools(view)))
        e = len(deferral.eager)
        return (f"toolcat: serving {n} tool{'s' if n != 1 else ''} of {of} deferred: "
                f"{e} eager in the compact view, the others found by {deferral.search_name} "
                f"(at most {deferral.options.max_loaded} listed at once), called directly or "
                f"by {deferral.call_name}, and {view.handbook_name}{where}: tools/list "
                f"{before:,} -> {after:,} tokens ({tokens.DEFAULT_ENCODING}, the meta tools "
                "included)")
    after = tokens.count(dumps(view.tools))
    below = (f" (--defer auto: {after:,} tokens, not past --defer-threshold "
             f"{deferral.options.threshold:,})" if deferral is not None else "")
    return (f"toolcat: serving {n} tool{'s' if n != 1 else ''} of {of} "
            f"in the compact view{below}, and {view.handbook_name}{where}: tools/list "
            f"{before:,} -> {after:,} tokens ({tokens.DEFAULT_ENCODING}, the handbook tool "
            "included)")


def say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
