"""toolcat configuration: ``[tool.toolcat]`` in ``pyproject.toml`` or a ``toolcat.toml``.

The file is found upwards from the current folder (in each folder ``toolcat.toml`` wins
over ``pyproject.toml``; a ``pyproject.toml`` without a ``[tool.toolcat]`` table is skipped);
``--config FILE`` names one explicitly. In ``toolcat.toml`` the keys sit at the top level
(a ``[tool.toolcat]`` table there is accepted too).

Keys (all optional)::

    profile = "mcp"                # mcp | openwop-compact | openai-strict | openai | anthropic |
                                   # anthropic-strict | gemini | gemini-json; or a list: ["openai-strict",
                                   # "gemini"] (each finding names its profiles; a matrix)
    mcp-version = "2026-07-28"     # the MCP revision the mcp profile checks (2025-06-18,
                                   # 2025-11-25, 2026-07-28)
    select = ["TC", "SC3"]         # codes or prefixes to run (default: the profile's rules)
    extend-select = ["MC"]         # added to select
    ignore = ["MR402"]             # codes or prefixes never reported
    fail-on = "error"              # error | warning | info | never
    description-max = 1024         # TC106: tool description length (characters)
    prose-max = 300                # SC304: prose of one schema node (characters)
    max-depth = 5                  # MR403: object/array nesting levels
    format = "text"                # default --format

    [tool.toolcat.severity]        # per-rule severity: error | warning | info | off
    TC106 = "error"

    [tool.toolcat.per-file-ignores]  # glob (relative to the config's folder) -> codes
    "generated/*.json" = ["TC106", "MR"]

    [tool.toolcat.budgets]         # read by `toolcat measure` (see Config.budgets)
    max-bytes = 200000             # gate: canonical bytes of a catalog
    max-tokens = 50000             # gate: tokens of a catalog
    max-increase = 5.0             # percent over the --baseline figures
    tokenizer = "o200k_base"       # o200k_base | cl100k_base
    gate = "before"                # before (standard view, as given) | after (compact view)

Unknown keys are an error (a misspelt key would otherwise be ignored silently).
"""

from __future__ import annotations

import os
from typing import Any, Collection, Iterable

from toolcat.errors import UsageError

FAIL_ON = ("error", "warning", "info", "never")
#: the MCP revisions lint knows (the last is the default; toolcat.features.lint.profiles.MCP_VERSIONS)
MCP_VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
SEVERITY_VALUES = ("error", "warning", "info", "off")

#: Budget keys `toolcat measure` understands, with their value types.
BUDGET_KEYS: dict[str, tuple[type[Any], ...]] = {
    "max-bytes": (int,),
    "max-tokens": (int,),
    "max-increase": (int, float),
    "tokenizer": (str,),
    "gate": (str,),
}

_KEYS = {"profile", "mcp-version", "select", "extend-select", "ignore", "fail-on", "description-max",
         "prose-max", "max-depth", "format", "severity", "per-file-ignores", "budgets", "root",
         "min-score"}


class Config:
    """The settings lint (and measure's budgets) read; defaults when no file is found."""

    def __init__(self, path: str | None = None, root: str = ".",
                 profile: str | list[str] | None = None,
                 select: list[str] | None = None, extend_select: list[str] | None = None,
                 ignore: list[str] | None = None, fail_on: str | None = None,
                 description_max: int = 1024, prose_max: int = 300, max_depth: int = 5,
                 format: str | None = None, severity: dict[str, str] | None = None,
                 per_file_ignores: dict[str, list[str]] | None = None,
                 budgets: dict[str, Any] | None = None) -> None:
        self.path = path                    # the file read (None: defaults)
        self.root = root                    # folder per-file-ignores globs are relative to
        self.profile = profile
        self.select = select                # None: the profile's rules
        self.extend_select = extend_select or []
        self.ignore = ignore or []
        self.fail_on = fail_on
        self.description_max = description_max
        self.prose_max = prose_max
        self.max_depth = max_depth
        self.format = format
        self.severity = severity or {}      # code -> error|warning|info|off
        self.per_file_ignores = per_file_ignores or {}
        self.budgets = budgets or {}        # see BUDGET_KEYS
        self.mcp_version: str | None = None  # lint: the MCP revision (None: the newest)
        # lint: the lowest description quality score a catalog may have (exit 1 under it;
        # toolcat.features.lint.quality); None: no gate
        self.min_score: float | None = None
        # OpenAPI: the folder `$ref`s may reach (`root`, relative to the config file's
        # folder; --root overrides it); None: each spec's own folder
        self.ref_root: str | None = None

    def merged(self, *, profile: str | None = None, select: Iterable[str] | None = None,
               extend_select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
               severity: dict[str, str] | None = None, fail_on: str | None = None,
               description_max: int | None = None, prose_max: int | None = None,
               format: str | None = None, mcp_version: str | None = None,
               min_score: float | None = None) -> Config:
        """This configuration with options on top (what the command line does to the file's):
        ``select`` replaces the selection, ``extend_select`` and ``ignore`` add to the
        file's, ``severity`` entries override, the rest replace where given. Codes are
        upper-cased; values are checked."""
        import copy

        out = copy.copy(self)
        out.extend_select = list(self.extend_select)
        out.ignore = list(self.ignore)
        out.severity = dict(self.severity)
        if profile is not None:
            out.profile = profile
        if select is not None:
            out.select = _split_codes(select)
        if extend_select is not None:
            out.extend_select += _split_codes(extend_select)
        if ignore is not None:
            out.ignore += _split_codes(ignore)
        for code, level in (severity or {}).items():
            if level not in SEVERITY_VALUES:
                raise UsageError(f"severity of {code} must be one of {', '.join(SEVERITY_VALUES)}")
            out.severity[code.upper()] = level
        if fail_on is not None:
            if fail_on not in FAIL_ON:
                raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
            out.fail_on = fail_on
        for name, val in (("--description-max", description_max), ("--prose-max", prose_max)):
            if val is not None and (isinstance(val, bool) or not isinstance(val, int) or val < 1):
                raise UsageError(f"{name} must be a positive integer")
        if description_max is not None:
            out.description_max = description_max
        if prose_max is not None:
            out.prose_max = prose_max
        if format is not None:
            out.format = format
        if min_score is not None:
            out.min_score = check_score(min_score, "--min-score")
        if mcp_version is not None:
            if mcp_version not in MCP_VERSIONS:
                raise UsageError(f"--mcp-version must be one of {', '.join(MCP_VERSIONS)} (got "
                                 f"{mcp_version!r})")
            out.mcp_version = mcp_version
        return out

    def ignored_for(self, file: str) -> list[str]:
        """Codes/prefixes per-file-ignores switch off for ``file``."""
        if not self.per_file_ignores:
            return []
        from fnmatch import fnmatchcase

        cands = {file.replace(os.sep, "/")}
        try:
            rel = os.path.relpath(os.path.abspath(file), os.path.abspath(self.root))
            cands.add(rel.replace(os.sep, "/"))
        except ValueError:
            pass
        cands.add(os.path.basename(file))
        out: list[str] = []
        for pat, codes in self.per_file_ignores.items():
            if any(fnmatchcase(c, pat) or fnmatchcase(c, pat.lstrip("./")) for c in cands):
                out.extend(codes)
        return out


def _split_codes(values: Iterable[str]) -> list[str]:
    """Codes from option values, each possibly a comma-separated list (``TC,SC3``)."""
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for v in values:
        out.extend(x.strip().upper() for x in v.split(",") if x.strip())
    return out


def _find(start: str) -> tuple[str, dict] | None:
    d = os.path.abspath(start)
    while True:
        for name in ("toolcat.toml", "pyproject.toml"):
            p = os.path.join(d, name)
            if os.path.isfile(p):
                if name == "pyproject.toml" and not _mentions_toolcat(p):
                    continue  # most pyproject.toml files have no [tool.toolcat]: skip parsing
                data = _read_toml(p)
                if name == "toolcat.toml":
                    return p, _table(data, toolcat_toml=True)
                tool = data.get("tool")
                if isinstance(tool, dict) and "toolcat" in tool:
                    return p, _table(data, toolcat_toml=False, path=p)
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


_MAX_CONFIG = 16 * 1024 * 1024


def _read(path: str) -> bytes:
    from toolcat.files import read_regular

    return read_regular(path, _MAX_CONFIG, UsageError, what="config file")


def _mentions_toolcat(path: str) -> bool:
    try:
        data = _read(path)
    except UsageError:
        return True  # let _read_toml report it
    return b"tool.toolcat" in data or (b"[tool]" in data and b"toolcat" in data)


def _read_toml(path: str) -> dict:
    import tomllib

    raw = _read(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise UsageError(f"not valid UTF-8 (byte 0x{raw[e.start]:02x} on line {line}); TOML "
                         "files are UTF-8", path) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"invalid TOML: {e}", path) from None
    except RecursionError:
        raise UsageError("invalid TOML: nests too deeply", path) from None


def _table(data: dict, toolcat_toml: bool, path: str | None = None) -> dict:
    tool = data.get("tool")
    if isinstance(tool, dict) and isinstance(tool.get("toolcat"), dict):
        return tool["toolcat"]
    if toolcat_toml:
        return data
    raise UsageError("[tool.toolcat] must be a table", path)


def check_score(v: Any, name: str, path: str | None = None) -> float:
    """A ``min-score`` value: a number from 0 to 100."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or not 0 <= v <= 100:
        raise UsageError(f"{name} must be a number from 0 to 100 (got {v!r})", path)
    return float(v)


def load_config(path: str | None = None, start: str | None = None,
                profiles: Collection[str] | None = None) -> Config:
    """The configuration: ``path`` when given, else the nearest one upwards from ``start``
    (default: the current folder), else the defaults. ``profiles``: the profile names a
    ``profile`` value must be one of (the lint profiles; this module knows no feature)."""
    if path is not None:
        if not os.path.isfile(path):
            raise UsageError("config file not found", path)
        data = _read_toml(path)
        table = _table(data, toolcat_toml=not path.endswith("pyproject.toml"), path=path)
        found: tuple[str, dict] | None = (path, table)
    else:
        found = _find(start or os.getcwd())
    if found is None:
        return Config()
    return parse_config(found[1], found[0], profiles)


def _codes(v: Any, key: str, path: str) -> list[str]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise UsageError(f"{key} must be a list of rule codes or prefixes", path)
    return [x.strip().upper() for x in v]


def _int(v: Any, key: str, path: str, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise UsageError(f"{key} must be an integer >= {minimum}", path)
    return v


def parse_config(table: dict, path: str, profiles: Collection[str] | None = None) -> Config:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise UsageError(f"unknown key(s) in the toolcat config: {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(_KEYS))})", path)
    cfg = Config(path=path, root=os.path.dirname(os.path.abspath(path)))
    if "profile" in table:
        prof = table["profile"]
        names = [prof] if isinstance(prof, str) else prof
        if not isinstance(names, list) or not names or \
                not all(isinstance(x, str) for x in names):
            raise UsageError("profile must be a profile name or a list of them", path)
        for x in names:
            if profiles is not None and x not in profiles:
                raise UsageError(f"profile must be one of {', '.join(profiles)} (got {x!r})",
                                 path)
        cfg.profile = prof if isinstance(prof, str) else list(dict.fromkeys(names))
    if "mcp-version" in table:
        v = table["mcp-version"]
        if v not in MCP_VERSIONS:
            raise UsageError(f"mcp-version must be one of {', '.join(MCP_VERSIONS)} (got "
                             f"{v!r})", path)
        cfg.mcp_version = v
    if "select" in table:
        cfg.select = _codes(table["select"], "select", path)
    if "extend-select" in table:
        cfg.extend_select = _codes(table["extend-select"], "extend-select", path)
    if "ignore" in table:
        cfg.ignore = _codes(table["ignore"], "ignore", path)
    if "fail-on" in table:
        if not isinstance(table["fail-on"], str) or table["fail-on"] not in FAIL_ON:
            raise UsageError(f"fail-on must be one of {', '.join(FAIL_ON)}", path)
        cfg.fail_on = table["fail-on"]
    if "description-max" in table:
        cfg.description_max = _int(table["description-max"], "description-max", path)
    if "prose-max" in table:
        cfg.prose_max = _int(table["prose-max"], "prose-max", path)
    if "max-depth" in table:
        cfg.max_depth = _int(table["max-depth"], "max-depth", path)
    if "min-score" in table:
        cfg.min_score = check_score(table["min-score"], "min-score", path)
    if "root" in table:
        v = table["root"]
        if not isinstance(v, str) or not v:
            raise UsageError("root must be a folder name", path)
        full = os.path.normpath(os.path.join(cfg.root, v))
        if not os.path.isdir(full):
            raise UsageError(f"root {v!r} is not a folder ({full})", path)
        cfg.ref_root = full
    if "format" in table:
        if not isinstance(table["format"], str):
            raise UsageError("format must be a string", path)
        cfg.format = table["format"]
    sev = table.get("severity", {})
    if not isinstance(sev, dict):
        raise UsageError("[severity] must be a table of CODE = \"error|warning|info|off\"", path)
    for code, level in sev.items():
        if not isinstance(level, str) or level not in SEVERITY_VALUES:
            raise UsageError(f"severity of {code} must be one of {', '.join(SEVERITY_VALUES)}",
                             path)
        cfg.severity[code.upper()] = level
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise UsageError("[per-file-ignores] must be a table of \"glob\" = [codes]", path)
    for pat, codes in pfi.items():
        cfg.per_file_ignores[pat] = _codes(codes, f"per-file-ignores {pat!r}", path)
    budgets = table.get("budgets", {})
    if not isinstance(budgets, dict):
        raise UsageError("[budgets] must be a table", path)
    for k, v in budgets.items():
        types = BUDGET_KEYS.get(k)
        if types is None:
            raise UsageError(f"unknown budget {k!r} (known: {', '.join(BUDGET_KEYS)})", path)
        if isinstance(v, bool) or not isinstance(v, types):
            raise UsageError(f"budget {k} must be a {types[0].__name__}, not {v!r}", path)
        if k in ("max-bytes", "max-tokens") and v < 1:
            raise UsageError(f"budget {k} must be a positive integer, not {v!r}", path)
        if k == "max-increase" and v < 0:
            raise UsageError(f"budget {k} must be a percentage >= 0, not {v!r}", path)
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            raise UsageError(f"budget {k} must be a finite number, not {v!r}", path)
        if k == "tokenizer" and v not in ("o200k_base", "cl100k_base"):
            raise UsageError(f"budget {k} must be o200k_base or cl100k_base, not {v!r}", path)
        if k == "gate" and v not in ("after", "before"):
            raise UsageError(f"budget {k} must be after or before, not {v!r}", path)
        cfg.budgets[k] = v
    return cfg
