"""Load catalogs from files and folders into the internal model.

:func:`load_catalogs` is the one entry point the commands use. Each file given is its own
catalog; a folder of one-tool MCP files (like github-mcp-server's ``__toolsnaps__``) is one
catalog; any other folder is searched for catalog files, each its own catalog; ``merge=True``
joins everything into one catalog (pages of one ``tools/list``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from toolcat.document.parse import Limits, load_file
from toolcat.document.source import SourceText
from toolcat.errors import InputError
from toolcat.formats import registry
from toolcat.formats.detect import client_config, detect, misfit, server_records
from toolcat.model import MCP, MCP_CAPTURE, Catalog, Tool

CATALOG_EXTENSIONS = (".json", ".yaml", ".yml", ".snap")
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox",
              ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build"}


@dataclass
class LoadOptions:
    from_format: str | None = None   # force a format (--from)
    webhooks: bool = False           # OpenAPI 3.1: also make tools of `webhooks`
    cookies: bool = False            # OpenAPI: also map cookie parameters
    merge: bool = False              # join all inputs into one catalog
    strict: bool = True              # raise the first load problem as an input error
    view: str | None = None          # OpenWOP: force standard/compact
    # Not strict: when a list, each input that cannot be loaded (a file given, or one found
    # in a folder, that cannot be read or parsed, a folder without catalogs...) is appended
    # here as its InputError, and the other inputs load (lint reports them, then exits 2).
    # None: the first such error is raised (files in a folder: only when none loads).
    errors: list[InputError] | None = None
    # file size, nesting and alias limits of every file read (None: Limits.from_env())
    limits: Limits | None = None
    # the command reads tools one at a time (lint, measure): an MCP tools list in a JSON
    # file over the stream threshold is then streamed (formats.mcp.stream_catalog)
    stream: bool = False
    # OpenAPI: a `$ref` that does not resolve (formats.openapi.refs.BROKEN_REFS): "widen" the
    # schema there to {} (reported), "omit" the tools that use it (reported), "fail" (the
    # catalog is an input error). lint reports every one as SC302 whatever this says.
    broken_refs: str = "fail"
    # OpenAPI: the folder `$ref`s to other files may reach (--root; None: the spec's own)
    root: str | None = None


def load_options(*, from_format: str | None = None, webhooks: bool = False,
                 cookies: bool = False, merge: bool = False, strict: bool = True,
                 view: str | None = None, max_file_size: int | None = None,
                 broken_refs: str = "fail", root: str | None = None,
                 errors: list[InputError] | None = None) -> LoadOptions:
    """The one builder and validator of :class:`LoadOptions`, for the command line
    (:func:`toolcat.commands.common.load_options`) and the API's keywords
    (:func:`toolcat.api.load_all` ...): the same limits and messages, named by the options
    (a :class:`~toolcat.errors.UsageError`: exit 2 on the command line, raised by the API)."""
    from toolcat.document.parse import MAX_LIMIT
    from toolcat.errors import UsageError
    from toolcat.formats.openapi.refs import BROKEN_REFS

    if from_format is not None and from_format not in registry.keys():
        raise UsageError(f"--from must be one of {', '.join(registry.keys())} "
                         f"(got {from_format!r})")
    if view is not None and view not in ("compact", "standard"):
        raise UsageError(f"--view must be compact or standard (got {view!r})")
    if max_file_size is not None and (not isinstance(max_file_size, int)
                                      or isinstance(max_file_size, bool)
                                      or not 0 < max_file_size <= MAX_LIMIT):
        got = f"{max_file_size:,}" if isinstance(max_file_size, int) else repr(max_file_size)
        raise UsageError(f"--max-file-size must be a positive number of bytes up to "
                         f"{MAX_LIMIT:,} (got {got})")
    if broken_refs not in BROKEN_REFS:
        raise UsageError(f"--broken-refs must be one of {', '.join(BROKEN_REFS)} "
                         f"(got {broken_refs!r})")
    if root is not None and (not root or not os.path.isdir(root)):
        raise UsageError(f"--root must be a folder (got {root!r})")
    return LoadOptions(from_format=from_format, webhooks=webhooks, cookies=cookies,
                       merge=merge, strict=strict, view=view, errors=errors,
                       limits=Limits.from_env(max_file_size), broken_refs=broken_refs,
                       root=root)


def _from_doc(doc: Any, src: SourceText, path: str, opts: LoadOptions) -> Catalog:
    fmt = opts.from_format
    if fmt is not None:
        why = misfit(doc, fmt)
        if why is not None:
            raise InputError(f"--from {fmt}: {why}", path)
    elif server_records(doc):
        what = ("a list of MCP registry server records (server.json entries: servers with "
                "their packages and remotes)" if isinstance(doc, list) else
                "an MCP registry server record (server.json: a server with its packages and "
                "remotes)")
        raise InputError(f"{what}, not a tool catalog: a server's tools are what its tools/list "
                         f"returns (tried: {registry.tried()})", path)
    else:
        fmt = detect(doc)
    if fmt is None:
        if isinstance(doc, dict) and "jsonrpc" in doc and isinstance(doc.get("error"), dict):
            err = doc["error"]
            raise InputError(f"a JSON-RPC error response, not a tools/list result "
                             f"(error {err.get('code')}: {err.get('message')})", path)
        if client_config(doc):
            raise _client_config_error(path, f" (tried: {registry.tried()})")
        raise InputError(f"not a tool catalog (tried: {registry.tried()})", path)
    try:
        reader = registry.get(fmt).read
    except KeyError:  # pragma: no cover - guarded by the CLI and the API
        raise InputError(f"unknown format {fmt!r} (known: {', '.join(registry.keys())})",
                         path) from None
    cat = reader(doc, src, path, opts)
    cat.sources.setdefault(path, src)
    if cat.document is None:
        cat.document = doc
    return cat


def raise_problems(cat: Catalog) -> None:
    """Turn the first load problem into an input error (for commands that need clean input)."""
    problems = [p for p in cat.problems if p.blocking]
    if not problems:
        return
    p = problems[0]
    line, col = cat.locate(p.file, p.pointer)
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    where = f"{p.pointer}: " if p.pointer and line is None else ""
    hint = ("; --broken-refs widen or omit builds the tools anyway"
            if p.code == "SC302" else "")
    raise InputError(f"{where}{p.message}{more}{hint}", p.file, line, col)


def broken_refs_note(cats: list[Catalog]) -> str | None:
    """One line saying what ``--broken-refs`` did to the tools of ``cats`` (None: nothing)."""
    widened = omitted = 0
    refs: set[tuple[str, str]] = set()
    mode = None
    for cat in cats:
        rec = cat.meta.get("broken_refs")
        if not rec:
            continue
        mode = rec["mode"]
        for t in rec["tools"]:
            if t["what"] == "widened":
                widened += 1
            else:
                omitted += 1
            refs.update((r["file"], r["pointer"]) for r in t["refs"])
    if mode is None:
        return None
    n = len(refs)
    head = f"{n} $ref{'s' if n != 1 else ''} that do{'es' if n == 1 else ''} not resolve"
    if mode == "widen":
        return (f"{head}: {widened} tool{'s' if widened != 1 else ''} widened to {{}} there"
                + (f", {omitted} left out" if omitted else "")
                + " (see --report or lint; --broken-refs omit|fail)")
    return (f"{head}: {omitted} tool{'s' if omitted != 1 else ''} left out "
            "(see lint; --broken-refs widen|fail)")


def load_notes(cats: list[Catalog]) -> list[str]:
    """The warnings loading leaves for the commands that do not lint: what --broken-refs did,
    a document version toolcat does not know (TC112), a document of webhooks only read without
    --webhooks (TC114), what a format's reader left out (``Catalog.meta["notes"]``: Bedrock's
    cache points), one line each."""
    out = [f"{p.file}: {p.message}" for cat in cats for p in cat.problems
           if p.code in ("TC112", "TC114")]
    out += [f"{cat.file}: {n}" for cat in cats for n in cat.meta.get("notes", ())]
    note = broken_refs_note(cats)
    if note:
        out.append(note)
    return out


def load_data(data: Any, name: str, opts: LoadOptions) -> Catalog:
    """A catalog from data in memory (parsed JSON), named ``name``; the data is copied and
    normalized as a parsed file is (integral floats -> ints, the depth limit), never changed.
    Its findings have no line and column: the text they would point into is made up."""
    import copy

    from toolcat.document.canonical import dumps
    from toolcat.document.parse import normalize

    doc = normalize(copy.deepcopy(data), name, limits=opts.limits)
    try:
        text = dumps(doc).decode("utf-8", "replace")
    except (TypeError, ValueError) as e:
        raise InputError(f"not JSON data: {e}", name) from None
    cat = _from_doc(doc, SourceText(name, text, "json", positions=False), name, opts)
    if opts.strict:
        raise_problems(cat)
    return cat


def _streamed(path: str, opts: LoadOptions) -> Catalog | None:
    """The file as a streamed MCP catalog when the command can take one and the file is a
    large JSON tools list; else None (read whole)."""
    if not opts.stream or opts.merge or path == "-" or path.lower().endswith((".yaml", ".yml")):
        return None
    from toolcat.document.stream import threshold

    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return None             # the reader says what is wrong
    if size <= threshold():
        return None
    from toolcat.document.parse import Limits
    from toolcat.formats.mcp import stream_catalog

    lim = opts.limits or Limits.from_env()
    return stream_catalog(path, opts.from_format, lim.max_file_size, lim.max_depth)


def load_file_catalog(path: str, opts: LoadOptions) -> Catalog:
    cat = _streamed(path, opts)
    if cat is not None:
        return cat
    try:
        doc, src = load_file(path, limits=opts.limits)
    except InputError as e:
        if e.message.startswith("invalid JSON") and path != "-" and _commented_client_config(
                path, opts):
            raise _client_config_error(path, "", ", JSON with comments as VS Code writes "
                                       "it") from None
        raise
    cat = _from_doc(doc, src, path, opts)
    if opts.strict:
        raise_problems(cat)
    return cat


def _client_config_error(path: str, tried: str, written: str = "") -> InputError:
    """An MCP client configuration given as a catalog: what it is, and the option that reads
    the tools of its servers."""
    return InputError(f"an MCP client configuration (servers to start{written}), not a tool "
                      f"catalog: --client-config reads the tools its servers list{tried}", path)


def _commented_client_config(path: str, opts: LoadOptions) -> bool:
    """Is the file that is no JSON an MCP client configuration written with comments or
    trailing commas (JSONC: VS Code's ``mcp.json``), which ``--client-config`` reads?"""
    from toolcat.formats.live.clients import load_jsonc

    try:
        return client_config(load_jsonc(path, opts.limits))
    except InputError:
        return False


def walk_folder(root: str) -> list[str]:
    found: list[str] = []
    real_root = os.path.realpath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.lower().endswith(CATALOG_EXTENSIONS) and not name.startswith("."):
                full = os.path.join(dirpath, name)
                if os.path.islink(full):
                    # never read outside the folder given: a link out of it is not followed
                    target = os.path.realpath(full)
                    if os.path.commonpath([target, real_root]) != real_root:
                        continue
                found.append(full)
    return found


def load_folder(path: str, opts: LoadOptions) -> list[Catalog]:
    files = walk_folder(path)
    if not files:
        raise InputError("folder holds no .json, .yaml, .yml or .snap file", path)
    single: list[tuple[str, Any, SourceText]] = []
    catalogs: list[Catalog] = []
    errors: list[InputError] = []
    for f in files:
        try:
            doc, src = load_file(f, limits=opts.limits)
        except InputError as e:
            errors.append(e)
            continue
        fmt = opts.from_format or detect(doc)
        if fmt == MCP and isinstance(doc, dict) and "name" in doc and "tools" not in doc:
            single.append((f, doc, src))
            continue
        if fmt is None or (opts.from_format is None and (server_records(doc) or (isinstance(doc, list) and not doc))):
            continue  # not a catalog: folders hold other files too
        if fmt == MCP_CAPTURE and not isinstance(doc.get("rawToolsCapture"), list):
            continue  # a capture of a server that could not be measured: no tools to read
        try:
            cat = _from_doc(doc, src, f, opts)
            if opts.strict:
                raise_problems(cat)
        except InputError as e:
            errors.append(e)
            continue
        catalogs.append(cat)
    if single:
        from toolcat.formats.mcp import folder_catalog

        catalogs.insert(0, folder_catalog(path, single))
    if errors and not opts.strict and opts.errors is not None:
        opts.errors.extend(errors)     # the caller reports each one and goes on
        return catalogs
    if errors and (opts.strict or not catalogs):
        raise errors[0]
    if not catalogs:
        raise InputError(f"no tool catalog found in the folder (tried: {registry.tried()})", path)
    return catalogs


def load_catalogs(paths: list[str], opts: LoadOptions | None = None) -> list[Catalog]:
    """Load every path (file, folder or ``-``) into catalogs, in the order given."""
    opts = opts or LoadOptions()
    out: list[Catalog] = []
    collect = opts.errors if not opts.strict else None
    from toolcat.errors import about

    for p in paths:
        try:
            with about(p):
                _load_path(p, opts, out)
        except InputError as e:
            if collect is None:
                raise
            collect.append(e)
    if opts.merge and len(out) > 1:
        out = [merge_catalogs(out)]
    from toolcat.errors import set_inputs

    set_inputs([c.file for c in out])
    return out


def _load_path(p: str, opts: LoadOptions, out: list[Catalog]) -> None:
    if p != "-" and os.path.isdir(p):
        out.extend(load_folder(p, opts))
    else:
        out.append(load_file_catalog(p, opts))


def merge_catalogs(cats: list[Catalog]) -> Catalog:
    """Join catalogs as pages of one (formats must agree)."""
    fmts = {c.format for c in cats}
    if len(fmts) > 1:
        raise InputError(f"--merge needs catalogs of one format, got {', '.join(sorted(fmts))}",
                         cats[0].file)
    first = cats[0]
    tools: list[Tool] = []
    merged = Catalog(file=first.file, format=first.format, tools=tools, view=first.view,
                     version=first.version, meta=dict(first.meta, merged=[c.file for c in cats]))
    for c in cats:
        tools.extend(c.tools)
        merged.problems.extend(c.problems)
        merged.sources.update(c.sources)
    broken = [c.meta["broken_refs"] for c in cats if c.meta.get("broken_refs")]
    if broken:
        merged.meta["broken_refs"] = {"mode": broken[0]["mode"],
                                      "tools": [t for b in broken for t in b["tools"]]}
    return merged


__all__ = ["LoadOptions", "load_catalogs", "load_data", "load_file_catalog", "load_folder",
           "merge_catalogs", "raise_problems"]
