"""What several commands share: one declaration of the shared options (:data:`SHARED`:
where the catalogs come from, files and servers, the ui flags, and the projection's options
that project, measure and serve take alike), the typed object a command gets from them
(:class:`Shared`), and what it does with it (the ui, the load and live options, the sources,
the projection options). The Typer declarations built from :data:`SHARED` (help texts, and
:func:`toolcat.commands.options.shared`, which adds the groups to a command) are in
:mod:`toolcat.commands.options`; nothing here imports Typer (the fast ``toolcat lint`` path,
:mod:`toolcat.commands.lint_run`, reads :data:`SHARED` too)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolcat.commands.sources import LiveOptions, Sources
    from toolcat.features.project import ProjectOptions
    from toolcat.formats.load import LoadOptions

#: The shared options: parameter -> (option strings, kind). Kinds (as the fast lint path
#: reads them): "flag", "str", "int", "float" (one value) and "list" (repeatable).
SHARED: dict[str, tuple[tuple[str, ...], str]] = {
    # the load options (files)
    "from_format": (("--from",), "str"), "webhooks": (("--webhooks",), "flag"),
    "cookies": (("--cookies",), "flag"), "broken_refs": (("--broken-refs",), "str"),
    "root": (("--root",), "str"), "merge": (("--merge",), "flag"),
    "max_file_size": (("--max-file-size",), "int"),
    # the live options (servers)
    "server": (("--server",), "list"), "url": (("--url",), "list"),
    "header": (("--header",), "list"), "timeout": (("--timeout",), "float"),
    "client": (("--client",), "str"), "client_config": (("--client-config",), "str"),
    "verbose": (("--verbose", "-v"), "flag"),
    # the ui flags
    "no_color": (("--no-color",), "flag"), "quiet": (("--quiet", "-q"), "flag"),
    # the projection (project; measure's "after" and serve's list are what project writes)
    "to": (("--to",), "str"), "description_max": (("--description-max",), "int"),
    "lossless": (("--lossless",), "flag"), "keep_titles": (("--keep-titles",), "flag"),
    "unlowerable": (("--unlowerable",), "str"), "subset": (("--subset/--no-subset",), "flag"),
    "output_schema": (("--output-schema",), "str"),
    "no_output_schema": (("--no-output-schema",), "flag"),
    "no_factor": (("--no-factor",), "flag"), "factor_all": (("--factor-all",), "flag"),
    "source": (("--source",), "str"), "safety_tier": (("--safety-tier",), "str"),
    # the clients the projection is for
    "for_clients": (("--for",), "list"), "server_name": (("--server-name",), "str"),
    "plugin": (("--plugin",), "str"),
    # deferral through the provider's tool search (project, measure)
    "defer": (("--defer",), "str"), "eager": (("--eager",), "list"),
    "defer_threshold": (("--defer-threshold",), "int"), "search": (("--search",), "str"),
}
#: The groups of :data:`SHARED`, in the order commands list them.
LOAD = ("from_format", "webhooks", "cookies", "broken_refs", "root", "merge", "max_file_size")
LIVE = ("server", "url", "header", "timeout", "client", "client_config", "verbose")
UI = ("no_color", "quiet")
#: the projection options serve takes too (its target is mcp, it never lowers to the subset)
PROSE = ("description_max", "lossless", "keep_titles", "output_schema", "no_output_schema",
         "no_factor")
PROJECTION = ("to", *PROSE, "unlowerable", "subset", "factor_all", "source", "safety_tier")
FOR = ("for_clients", "server_name", "plugin")
DEFER = ("defer", "eager", "defer_threshold", "search")


@dataclass
class Shared:
    """The values of the shared options (a command that lacks one has its default here)."""

    from_format: str | None = None
    webhooks: bool = False
    cookies: bool = False
    broken_refs: str = "fail"
    root: str | None = None
    merge: bool = False
    max_file_size: int | None = None
    server: list[str] | None = None
    url: list[str] | None = None
    header: list[str] | None = None
    timeout: float | None = None
    client: str | None = None
    client_config: str | None = None
    verbose: bool = False
    no_color: bool = False
    quiet: bool = False
    to: str | None = None
    description_max: int = 120
    lossless: bool = False
    keep_titles: bool = False
    unlowerable: str | None = None
    subset: bool | None = None
    output_schema: str | None = None
    no_output_schema: bool = False
    no_factor: bool = False
    factor_all: bool = False
    source: str | None = None
    safety_tier: str | None = None
    for_clients: list[str] | None = None
    server_name: str | None = None
    plugin: str | None = None
    defer: str = "none"
    eager: list[str] | None = None
    defer_threshold: int = 20_000
    search: str = "bm25"

    def apply_ui(self) -> None:
        apply_ui(self.no_color, self.quiet)

    def live(self, server: list[str] | None = None,
             url: list[str] | None = None) -> LiveOptions:
        """The checked live options (``server``/``url``: instead of the options', for a
        command that also takes servers as arguments)."""
        from toolcat.commands.sources import live_options

        return live_options(self.server if server is None else server,
                            self.url if url is None else url, self.header, self.timeout,
                            self.client, self.client_config, self.verbose)

    def load(self, *, strict: bool = True, view: str | None = None,
             root: str | None = None) -> LoadOptions:
        """The checked load options (``root``: the default of --root, a configuration's)."""
        return load_options(self.from_format, self.webhooks, self.cookies, self.merge,
                            strict=strict, max_file_size=self.max_file_size, view=view,
                            broken_refs=self.broken_refs,
                            root=self.root if self.root is not None else root)

    def sources(self, paths: list[str] | None, live: LiveOptions, *,
                lopts: LoadOptions | None = None, load_files: Any = None) -> Sources:
        """Every catalog: files (``paths``; a usage error when there is neither a path nor a
        server) and servers, as :func:`toolcat.commands.sources.load_sources` reads them."""
        from toolcat.commands.sources import load_sources, require_inputs

        paths = require_inputs(paths, live)
        return load_sources(paths, lopts or self.load(), live, load_files=load_files)

    def projection(self, **own: Any) -> ProjectOptions:
        """The checked projection options of these values (``own``: the command's own
        options, e.g. ``view``, and any of these it sets itself, e.g. serve's ``to``), by
        the one builder the API uses too."""
        from toolcat.features.project import options_from_cli

        values = {"to": self.to, "description_max": self.description_max,
                  "lossless": self.lossless, "keep_titles": self.keep_titles,
                  "unlowerable": self.unlowerable, "subset": self.subset,
                  "output_schema": output_policy(self.output_schema, self.no_output_schema),
                  "factor": not self.no_factor, "factor_all": self.factor_all,
                  "source": self.source, "safety_tier": self.safety_tier,
                  "for_clients": self.for_clients or (), "server_name": self.server_name,
                  "plugin": self.plugin, "defer": self.defer, "eager": self.eager or (),
                  "defer_threshold": self.defer_threshold, "search": self.search}
        return options_from_cli(**{**values, **own})

    def values(self, names: tuple[str, ...]) -> dict[str, Any]:
        every = asdict(self)
        return {n: every[n] for n in names}


def load_options(from_format: str | None, webhooks: bool = False, cookies: bool = False,
                 merge: bool = False, strict: bool = True, max_file_size: int | None = None,
                 view: str | None = None, broken_refs: str = "fail", root: str | None = None):
    """The checked load options of the command-line values (the API's builder,
    :func:`toolcat.formats.load.load_options`: one set of limits and messages)."""
    from toolcat.formats.load import load_options as build

    return build(from_format=from_format, webhooks=webhooks, cookies=cookies, merge=merge,
                 strict=strict, view=view, max_file_size=max_file_size,
                 broken_refs=broken_refs, root=root)


def output_policy(output_schema: str | None, no_output_schema: bool) -> str | None:
    """The ``--output-schema`` value (None: the default) given ``--no-output-schema``,
    its older spelling of ``none``."""
    if no_output_schema:
        if output_schema not in (None, "none"):
            from toolcat.errors import UsageError

            raise UsageError(f"--no-output-schema is --output-schema none: leave out "
                             f"--output-schema {output_schema}")
        return "none"
    return output_schema


def warn_broken_refs(cats: list) -> None:
    """The lines saying what --broken-refs did and which document versions toolcat does not
    know (measure, tools, diff; project's summary has them), on stderr, unless --quiet."""
    from toolcat import ui
    from toolcat.formats.load import load_notes

    for note in load_notes(cats):
        if not ui.state.quiet:
            ui.err().print(f"toolcat: warning: {note}", markup=False, highlight=False)


def apply_ui(no_color: bool, quiet: bool) -> None:
    from toolcat import ui

    ui.configure(no_color=no_color, quiet=quiet)
