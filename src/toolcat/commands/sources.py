"""Where a command's catalogs come from: files and folders, and live MCP servers.

Every command that takes catalogs takes servers too, with the same options (issue 14). A
command takes them with the other shared options (:data:`toolcat.commands.common.SHARED`),
builds :class:`LiveOptions` with :func:`live_options` and loads everything with
:func:`load_sources`::

    @shared(*LOAD, *LIVE, *UI)          # toolcat.commands.options
    def mycommand(paths: Paths = None, ..., *, opts: Shared):
        live = opts.live()                  # live_options() of the shared options
        src = opts.sources(paths, live)     # load_sources(): files first, then servers
        for e in src.errors: ...            # servers that failed, one error each

``--server CMD`` (repeatable) runs a stdio server, ``--url URL`` (repeatable, with
``--header 'Name: value'``) reaches a Streamable HTTP one, ``--client NAME`` and
``--client-config FILE`` read every server of a client's configuration; ``--timeout S``
bounds each server from its start to its last ``tools/list`` page; ``-v`` shows the
servers' stderr. Servers are captured concurrently, before files are read; every process
toolcat started has ended when :func:`load_sources` returns. Nothing here imports the MCP
SDK, and nothing at all of the live layer is imported unless a live option is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from toolcat.errors import InputError
    from toolcat.formats.live.spec import ServerSpec
    from toolcat.model import Catalog

CLIENT_NAMES = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf")


#: What the commands say when neither a file nor a server was given.
NO_INPUT = ("missing argument: give a catalog file or folder (`-` reads stdin), or a server: "
            "--server CMD, --url URL, --client NAME or --client-config FILE")


@dataclass
class LiveOptions:
    """The live servers of one run (no server: :attr:`any` is false)."""

    specs: list["ServerSpec"] = field(default_factory=list)
    timeout: float = 10.0
    verbose: bool = False
    client: str | None = None          # --client NAME (its prefixing and providers)

    @property
    def any(self) -> bool:
        return bool(self.specs)


def live_options(server: list[str] | None = None, url: list[str] | None = None,
                 header: list[str] | None = None, timeout: float | None = None,
                 client: str | None = None, client_config: str | None = None,
                 verbose: bool = False) -> LiveOptions:
    """Check the live options and turn them into server specs (client configurations are
    read here: a missing or broken one is an input error). Imports nothing of the live
    layer when no live option is given."""
    from toolcat.errors import UsageError
    from toolcat.files import check_inputs

    check_inputs([("--client-config", client_config)])
    if timeout is not None and not timeout > 0:
        raise UsageError(f"--timeout must be more than 0 seconds (got {timeout:g})")
    if header and not url:
        raise UsageError("--header applies to --url servers: give --url URL")
    if client is not None and client not in CLIENT_NAMES:
        raise UsageError(f"--client must be one of {', '.join(CLIENT_NAMES)} (got {client!r})")
    if not (server or url or client or client_config):
        return LiveOptions(verbose=verbose)
    from toolcat.formats.live import clients, spec

    specs = [spec.from_command(c) for c in server or []]
    specs += [spec.from_url(u, list(header or [])) for u in url or []]
    if client_config:
        specs += clients.read_config_file(client_config, client)
    elif client:
        specs += clients.read_client(client)
    spec.unique_names(specs)
    return LiveOptions(specs=specs, timeout=timeout if timeout is not None
                       else spec.DEFAULT_TIMEOUT, verbose=verbose, client=client)


def require_inputs(paths: list[str] | None, live: LiveOptions) -> list[str]:
    """The paths given; a usage error when there is neither a path nor a server."""
    if not paths and not live.any:
        from toolcat.errors import UsageError

        raise UsageError(NO_INPUT)
    return list(paths or [])


def input_files(paths: list[str] | None, *others: str | None) -> Iterator[str]:
    """The files a command reads: the paths given, each folder's catalog files, and
    ``others`` (a client configuration, a baseline), for :func:`toolcat.files.check_outputs`
    (which reads them, and walks the folders, only when a file is to be written)."""
    import os

    from toolcat.formats.load import walk_folder

    for p in paths or ():
        if p != "-" and "\x00" not in p and os.path.isdir(p):
            yield from walk_folder(p)
        else:
            yield p
    yield from (p for p in others if p)


@dataclass
class Sources:
    """What :func:`load_sources` read."""

    catalogs: list["Catalog"] = field(default_factory=list)   # files first, then servers
    servers: list["Catalog"] = field(default_factory=list)    # the servers' catalogs
    errors: list["InputError"] = field(default_factory=list)  # servers that failed
    client: str | None = None

    def labels(self) -> dict[str, str]:
        """What reports call each server (and the setup): name -> what it is."""
        out = {c.file: f"MCP server, {c.meta.get('live', {}).get('transport', 'live')}"
               for c in self.servers}
        if self.servers:
            from toolcat.formats.live.capture import SETUP

            n = len(self.servers)
            out[f"{self.client} {SETUP}" if self.client else SETUP] = \
                f"setup: the tools of {n} server{'s' if n != 1 else ''} together"
        return out

    def setup(self) -> "Catalog | None":
        """The servers' tools as one catalog (what a client sends in one request), or None
        without servers. Each tool keeps its server (``tool.file``) and index. Its name in
        :meth:`labels` is the one key whose description starts with ``setup``."""
        if not self.servers:
            return None
        from toolcat.formats.live.capture import setup_catalog

        return setup_catalog(self.servers, self.client)


def capture_live(live: LiveOptions) -> tuple[list["Catalog"], list["InputError"]]:
    """Capture every server of ``live``: their catalogs, and one error per server that
    failed (in the order given). Every process started has ended on return."""
    if not live.any:
        return [], []
    from toolcat.formats.live import capture

    outcomes = capture.capture(live.specs, timeout=live.timeout, verbose=live.verbose)
    cats, errors = [], []
    for o in outcomes:
        if o.error is not None:
            errors.append(o.error)
            continue
        if live.verbose:
            capture.say_captured(o.capture)
        cats.append(capture.to_catalog(o.capture))
    return cats, errors


def load_sources(paths: list[str], lopts: Any, live: LiveOptions, *,
                 load_files: Any = None) -> Sources:
    """Servers first (they start before anything else is read), then ``paths`` with
    ``load_files(paths, lopts)`` (default: :func:`toolcat.load_all`, the API's).

    A server that fails is one error in :attr:`Sources.errors`; the others are still read.
    With ``lopts.merge``, file catalogs and server catalogs are merged into one."""
    servers, errors = capture_live(live)
    cats: list = []
    if paths:
        if load_files is None:
            import toolcat

            cats = toolcat.load_all(paths, settings=lopts)
        else:
            cats = list(load_files(paths, lopts))
    every = cats + servers
    if getattr(lopts, "merge", False) and servers and len(every) > 1:
        from toolcat.formats import merge_catalogs

        every = [merge_catalogs(every)]
    return Sources(catalogs=every, servers=servers, errors=errors, client=live.client)


def report_errors(errors: list) -> None:
    """Each input error on its own line on stderr (after what stdout got)."""
    import sys

    if not errors:
        return
    sys.stdout.flush()
    for e in errors:
        sys.stderr.write(e.render() + "\n")
    sys.stderr.flush()


def exit_on_errors(errors: list) -> None:
    """For commands that need every input (project, diff-toolids): any server that failed
    ends the run before anything is written: each error on its own line, exit 2."""
    if errors:
        import typer

        report_errors(errors)
        raise typer.Exit(2)


def setup_findings(src: Sources, config_path: str | None = None) -> list:
    """The setup rules (SU6xx) on the servers of ``src`` together, as ``lint`` runs them
    (the configuration's profile, ignores and severities apply): for commands that report a
    setup's limits without linting everything (``measure``). Empty without servers."""
    setup = src.setup()
    if setup is None:
        return []
    from toolcat.config import load_config
    from toolcat.features.lint.engine import lint, profile_names
    from toolcat.features.lint.profiles import PROFILES

    cfg = load_config(config_path, profiles=PROFILES)
    cfg.select = ["SU"]
    cfg.extend_select = []
    # a list of profiles in the configuration: each finding names its profiles, as in lint
    names = profile_names(cfg)
    return lint([], cfg, names if len(names) > 1 else names[0], setup=setup).findings
