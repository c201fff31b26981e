"""The implementation of the public API (:mod:`toolcat` re-exports it; see its docstring).

Light to import: every function imports what it needs when called. The features live in
``toolcat.features`` (``toolcat.features.project``, ...), so ``toolcat.project`` is always this
module's function, whatever has been imported before.
"""

from __future__ import annotations

from toolcat.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import os
    from typing import Any, Iterable, Union

    from toolcat.config import Config
    from toolcat.features.diff.catalog import Report
    from toolcat.features.lint.engine import LintResult
    from toolcat.features.measure import Measurement
    from toolcat.features.project import Projection, ProjectOptions
    from toolcat.formats.load import LoadOptions
    from toolcat.model import Catalog

    PathLike = Union[str, os.PathLike]
    Catalogs = Union[Catalog, Iterable[Catalog]]


def _catalogs(catalogs: Catalogs) -> list[Catalog]:
    from toolcat.model import Catalog

    if isinstance(catalogs, Catalog):
        return [catalogs]
    out = list(catalogs)
    if not out or not all(isinstance(c, Catalog) for c in out):
        raise UsageError("expected a Catalog or a non-empty list of them (toolcat.load...)")
    return out


def _load_options(format: str | None, webhooks: bool, cookies: bool, merge: bool,
                  view: str | None, max_file_size: int | None, strict: bool = True,
                  errors: list | None = None, broken_refs: str = "widen",
                  root: PathLike | None = None) -> LoadOptions:
    from toolcat.formats.load import load_options

    return load_options(from_format=format, webhooks=webhooks, cookies=cookies, merge=merge,
                        view=view, max_file_size=max_file_size, strict=strict, errors=errors,
                        broken_refs=broken_refs, root=None if root is None else str(root))


# ----------------------------------------------------------------------------- load

def load_all(paths: Iterable[PathLike], format: str | None = None, *, merge: bool = False,
             webhooks: bool = False, cookies: bool = False, view: str | None = None,
             max_file_size: int | None = None, broken_refs: str = "widen",
             root: PathLike | None = None,
             settings: LoadOptions | None = None) -> list[Catalog]:
    """Load catalogs from files, folders and ``"-"`` (stdin), in the order given.

    Each file is one catalog; a folder of one-tool MCP files is one catalog; any other folder
    gives each catalog file under it. ``format`` forces one (``openapi``, ``swagger``, ``mcp``,
    ``mcp-capture``, ``openwop``, ``openai``, ``anthropic``; default: detected from the
    content). ``merge``: all inputs are pages of one catalog. ``webhooks`` (OpenAPI 3.1) and
    ``cookies`` (OpenAPI) as the ``--webhooks``/``--cookies`` options; ``view`` forces an
    OpenWOP catalog's view; ``max_file_size`` in bytes (default 64 MiB or
    ``TOOLCAT_MAX_FILE_SIZE``); ``broken_refs`` (``widen``, the default, ``omit`` or ``fail``)
    and ``root`` as the ``--broken-refs``/``--root`` options. Raises :class:`InputError` for
    the first input that cannot be read or is no catalog (or holds a problem such as an
    unresolvable OpenAPI ``$ref`` with ``broken_refs="fail"``)."""
    from toolcat.formats import load_catalogs

    opts = settings or _load_options(format, webhooks, cookies, merge, view, max_file_size,
                                     broken_refs=broken_refs, root=root)
    names = [str(p) for p in paths]
    if not names:
        raise UsageError("no input given")
    return load_catalogs(names, opts)


def load(path: PathLike, format: str | None = None, *, webhooks: bool = False,
         cookies: bool = False, view: str | None = None,
         max_file_size: int | None = None, broken_refs: str = "widen",
         root: PathLike | None = None) -> Catalog:
    """Load one catalog (a file, a folder that is one catalog, or ``"-"``); options as in
    :func:`load_all`. A folder that holds several catalogs is a :class:`UsageError` (use
    :func:`load_all`, or ``load_all(..., merge=True)`` for pages of one)."""
    cats = load_all([path], format, webhooks=webhooks, cookies=cookies, view=view,
                    max_file_size=max_file_size, broken_refs=broken_refs, root=root)
    if len(cats) != 1:
        raise UsageError(f"{path} holds {len(cats)} catalogs: use toolcat.load_all()",
                         str(path))
    return cats[0]


def load_data(data: Any, format: str | None = None, *, name: str = "<data>",
              webhooks: bool = False, cookies: bool = False,
              view: str | None = None, broken_refs: str = "widen") -> Catalog:
    """A catalog from data already in memory (what ``json.load`` gives, e.g. a ``tools/list``
    result you received): detected or forced ``format`` as in :func:`load_all`. ``name``
    stands for the file in findings and errors. The data is copied, never changed. Findings
    on it have no line and column (there is no text). ``broken_refs`` as in :func:`load_all`."""
    from toolcat.formats.load import load_data as _load_data

    return _load_data(data, name, _load_options(format, webhooks, cookies, False, view, None,
                                                broken_refs=broken_refs))


# ----------------------------------------------------------------------------- project

def project(catalogs: Catalogs, to: str | None = None, view: str = "compact", *,
            description_max: int = 120, unlowerable: str | None = None,
            subset: bool | None = None, output_schema: str | bool | None = None,
            factor: bool = True,
            factor_all: bool = False, keep_titles: bool = False, sort: bool = False, source: str | None = None,
            safety_tier: str | None = None, indent: int | None = None,
            duplicate_ids: str = "error", defer: str = "none",
            eager: Iterable[str] = (), defer_threshold: int = 20_000, search: str = "bm25",
            for_clients: Iterable[str] = (), server_name: str | None = None,
            plugin: str | None = None,
            settings: ProjectOptions | None = None) -> Projection:
    """The compact (or ``view="standard"``) view of the catalogs in target ``to``'s envelope
    (``mcp``, ``openwop``, ``openai``, ``anthropic``; default: ``openwop`` for OpenWOP input,
    else ``mcp``), as ``toolcat project`` writes it; every option is that command's (see
    ``toolcat project --help``). The result's :meth:`~toolcat.features.project.Projection.catalog`,
    :meth:`~toolcat.features.project.Projection.handbook` and
    :meth:`~toolcat.features.project.Projection.report` are JSON data; its ``tools`` list each tool's
    descriptor and :class:`~toolcat.schema.lower.Change` s. ``defer``, ``eager``,
    ``defer_threshold``, ``search``: the deferral plan (:mod:`toolcat.features.project.defer`).
    ``for_clients`` (``--for``): MCP clients whose rules the compact view meets
    (:mod:`toolcat.features.project.portable`); ``server_name``, ``plugin``: their name prefix."""
    from toolcat.features.project import options_from_cli, project_catalogs

    opts = settings or options_from_cli(
        view=view, to=to, description_max=description_max, unlowerable=unlowerable,
        subset=subset, output_schema=output_schema, factor=factor, factor_all=factor_all,
        keep_titles=keep_titles, sort=sort, source=source, safety_tier=safety_tier, indent=indent,
        duplicate_ids=duplicate_ids, for_clients=for_clients, server_name=server_name,
        plugin=plugin, defer=defer, eager=eager, defer_threshold=defer_threshold, search=search)
    return project_catalogs(_catalogs(catalogs), opts)


# ----------------------------------------------------------------------------- lint

def lint(catalogs: Catalogs, profile: str | Iterable[str] | None = None, *,
         select: Iterable[str] | None = None,
         extend_select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
         severity: dict[str, str] | None = None, description_max: int | None = None,
         prose_max: int | None = None, view: str | None = None,
         mcp_version: str | None = None,
         config: PathLike | None = None, settings: Config | None = None) -> LintResult:
    """Lint the catalogs as ``toolcat lint`` does: ``profile`` (``mcp`` default, or any of
    ``toolcat lint --help``'s; several as a list or ``"a,b"``: each finding then names its
    profiles and the result has the tools x profiles ``matrix``), ``mcp_version`` (the MCP
    revision the ``mcp`` profile checks; default the newest), rule codes or
    prefixes to ``select`` (replaces the profile's), ``extend_select``, ``ignore``,
    per-rule ``severity`` (``error``/``warning``/``info``/``off``), ``description_max``
    (TC106), ``prose_max`` (SC304), ``view`` (lint every input as a ``compact`` or
    ``standard`` view). ``config``: a ``toolcat.toml`` / ``pyproject.toml`` to start from
    (default: none; the keywords override it). The result's ``findings`` are sorted by file
    and position; :meth:`~toolcat.features.lint.engine.LintResult.json` is ``lint --format json``'s
    data, :meth:`~toolcat.features.lint.engine.LintResult.failed` the exit code's verdict."""
    from toolcat.config import Config, load_config
    from toolcat.features.lint.engine import lint_with
    from toolcat.features.lint.profiles import PROFILES

    if settings is None:
        base = load_config(str(config), profiles=PROFILES) if config is not None else Config()
        if profile is not None and not isinstance(profile, str):
            profile = ",".join(profile)
        settings = base.merged(profile=profile, select=select, extend_select=extend_select,
                               ignore=ignore, severity=severity,
                               description_max=description_max, prose_max=prose_max,
                               mcp_version=mcp_version)
    return lint_with(_catalogs(catalogs), settings, view=view)


# ----------------------------------------------------------------------------- measure

def measure(catalogs: Catalogs, tokenizer: str = "o200k_base", *, per_tool: bool = False,
            to: str | None = None, description_max: int = 120,
            unlowerable: str | None = None, subset: bool | None = None,
            output_schema: str | bool | None = None, factor: bool = True,
            factor_all: bool = False, keep_titles: bool = False,
            source: str | None = None, safety_tier: str | None = None,
            defer: str = "none", eager: Iterable[str] = (), defer_threshold: int = 20_000,
            search: str = "bm25", for_clients: Iterable[str] = (),
            server_name: str | None = None, plugin: str | None = None,
            settings: ProjectOptions | None = None, counter: Any = None,
            on_catalog: Any = None, loaded: int = 5, digest: bool = True) -> Measurement:
    """Bytes and exact BPE tokens (``o200k_base`` or ``cl100k_base``) of each catalog's
    standard view against the compact view ``toolcat project`` writes with the same options,
    as ``toolcat measure`` counts them. ``per_tool``: also each tool's figures (for
    :meth:`~toolcat.features.measure.Measurement.top`). ``counter``: a
    :func:`toolcat.tokens.counter` started earlier (the CLI starts one before loading, so
    that the tokenizer loads meanwhile); ``on_catalog(catalog)`` is called as each catalog is
    done (progress). :meth:`~toolcat.features.measure.Measurement.json` is ``measure --format json``'s
    data. ``loaded``: with deferral (``settings.defer``), the tools a session loads (the
    session estimate). The projection keywords are :func:`project`'s (``for_clients``: the
    view those MCP clients get, as ``measure --for``). ``digest``: each catalog's
    ``sha256_before`` (None without it: hashing the standard view is left out)."""
    from toolcat.features.measure import Measurement, measure_catalogs, tokenizer_name
    from toolcat.features.project import options_from_cli

    opts = settings or options_from_cli(
        to=to, description_max=description_max, unlowerable=unlowerable, subset=subset,
        output_schema=output_schema, factor=factor, factor_all=factor_all,
        keep_titles=keep_titles, source=source, safety_tier=safety_tier,
        defer=defer, eager=eager, defer_threshold=defer_threshold, search=search,
        for_clients=for_clients, server_name=server_name, plugin=plugin)
    tok = tokenizer_name(tokenizer)
    figs = measure_catalogs(_catalogs(catalogs), opts, tok, per_tool=per_tool, counter=counter,
                            on_catalog=on_catalog, loaded=loaded, digest=digest)
    return Measurement(figs, tok)


# ----------------------------------------------------------------------------- diff

def _label(cats: list[Catalog]) -> str:
    files = list(dict.fromkeys(c.file for c in cats))
    return files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} more)"


def diff(old: Catalogs, new: Catalogs, *, ignore: Iterable[str] | None = None,
         max_checks: int | None = None, max_checks_total: int | None = None,
         old_label: str | None = None, new_label: str | None = None) -> Report:
    """What changed from ``old`` to ``new`` (each a catalog or a list of them) and whether
    it breaks the callers, as ``toolcat diff`` reports it. ``ignore``: ``TOOL`` or
    ``TOOL:POINTER`` entries (``--ignore``); ``max_checks`` / ``max_checks_total``: the
    check budgets per tool and for the whole diff (``--max-checks``, default 20,000;
    ``--max-checks-total``, default 500,000); ``old_label`` / ``new_label`` stand for the
    inputs in the report (default: the catalogs' files). The
    :class:`~toolcat.features.diff.catalog.Report` has ``tools`` (each a ``ToolDiff``: ``old_id``,
    ``new_id``, ``status``, ``findings``), :meth:`~toolcat.features.diff.catalog.Report.findings`,
    :meth:`~toolcat.features.diff.catalog.Report.counts`,
    :meth:`~toolcat.features.diff.catalog.Report.failed` (``fail_on``: ``breaking``, ``unknown``,
    ``behavioural`` or ``any``), :meth:`~toolcat.features.diff.catalog.Report.json` (what
    ``diff --format json`` prints) and :meth:`~toolcat.features.diff.catalog.Report.render`
    (``text``, ``json``, ``markdown``, ``github``)."""
    from toolcat.features.diff.catalog import Options, diff_catalogs

    entries = [ignore] if isinstance(ignore, str) else list(ignore or [])
    for e in entries:
        if not isinstance(e, str) or not e or e.startswith(":"):
            raise UsageError(f"--ignore needs TOOL or TOOL:POINTER (got {e!r})")
    for name, n in (("--max-checks", max_checks), ("--max-checks-total", max_checks_total)):
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n <= 0):
            raise UsageError(f"{name} must be positive (got {n!r})")
    a, b = _catalogs(old), _catalogs(new)
    return diff_catalogs(a, b, old_label if old_label is not None else _label(a),
                         new_label if new_label is not None else _label(b),
                         Options(ignore=entries, max_checks=max_checks,
                                 max_checks_total=max_checks_total))
