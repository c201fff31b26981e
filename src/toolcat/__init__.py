"""toolcat: lint, project, measure and diff LLM tool catalogs.

The Python API (everything else in the package is internal and may change)::

    import toolcat

    cat = toolcat.load("openapi.yaml")        # a file, a folder of one-tool files, or "-"
    proj = toolcat.project(cat, to="mcp", view="compact")
    proj.catalog()      # what `toolcat project` writes, as JSON data
    proj.handbook()     # {"tools": {id: standard descriptor}}: everything the view removed
    proj.report()       # {"digest", "target", "view", "tools": [{"id", "changes": [...]}]}
    result = toolcat.lint(cat, profile="openai-strict")
    result.findings     # [Finding(code, severity, message, file, tool, pointer, line, ...)]
    figures = toolcat.measure(cat, tokenizer="o200k_base")
    figures.json()      # what `toolcat measure --format json` prints, as data
    report = toolcat.diff(toolcat.load("v1.json"), toolcat.load("v2.json"))
    report.failed()     # a breaking change? (fail_on="unknown"... as --fail-on)
    report.json()       # what `toolcat diff --format json` prints, as data

Every function takes one catalog or a list of them (:func:`load_all`) and the options of
the command of the same name, as keywords. Problems with the input raise
:class:`InputError` (``file``, ``line``, ``column``, ``message``), bad options
:class:`UsageError`; both are :class:`ToolcatError`. Nothing is printed. The command line
is a thin layer over these functions: it builds one settings object from the configuration
file and its options and passes it as ``settings=``.

``import toolcat`` imports nothing else: each function loads what it needs when called.
"""

from __future__ import annotations

import sys as _sys


def _interrupted_at_start(kind, value, tb, _default=_sys.excepthook):
    """A Ctrl-C while the command line starts (from here until ``cli.main`` takes over):
    the one line and exit code of any other interruption, never a traceback."""
    if issubclass(kind, KeyboardInterrupt):
        try:
            _sys.stderr.write("toolcat: interrupted\n")
            _sys.stderr.flush()
        finally:
            import os

            os._exit(130)
    _default(kind, value, tb)


# Only when this import starts the command line: the `toolcat` launcher, or `python -m
# toolcat` (argv[0] is "-m" while the package is found). Never for the library's users.
if _sys.argv[:1] == ["-m"] or _sys.argv[:1] and \
        _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower() in ("toolcat", "toolcat.exe"):
    _sys.excepthook = _interrupted_at_start

from toolcat.api import diff, lint, load, load_all, load_data, measure, project  # noqa: E402 - after the hook
from toolcat.errors import InputError, ToolcatError, UsageError  # noqa: E402
from toolcat.version import __version__  # noqa: E402

# `typing` is not imported at run time: it costs `toolcat --version` (which imports this
# module) more than the whole of the rest of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from toolcat.features.diff.catalog import DiffReport
    from toolcat.features.lint.engine import LintResult
    from toolcat.features.measure import Measurement
    from toolcat.features.project import Projection
    from toolcat.model import Catalog, Finding, Tool

__all__ = [
    "__version__", "load", "load_all", "load_data", "project", "lint", "measure", "diff",
    "Catalog", "Tool", "Finding", "Projection", "LintResult", "Measurement", "DiffReport",
    "ToolcatError", "InputError", "UsageError",
]

def __getattr__(name: str) -> Any:
    """The result classes, imported when first asked for (``import toolcat`` stays cheap)."""
    if name in ("Catalog", "Tool", "Finding"):
        from toolcat import model

        return getattr(model, name)
    if name == "Projection":
        from toolcat.features.project import Projection

        return Projection
    if name == "LintResult":
        from toolcat.features.lint.engine import LintResult

        return LintResult
    if name == "Measurement":
        from toolcat.features.measure import Measurement

        return Measurement
    if name == "DiffReport":
        from toolcat.features.diff.catalog import DiffReport

        return DiffReport
    raise AttributeError(f"module 'toolcat' has no attribute {name!r}")
