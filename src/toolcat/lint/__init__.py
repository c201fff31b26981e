"""`toolcat lint`: conformance and model-readiness rules for tool catalogs.

* :mod:`toolcat.lint.registry`  the rules (code, name, severity, doc, check)
* :mod:`toolcat.lint.rules`     the checks, in small units
* :mod:`toolcat.lint.profiles`  profiles and the provider-limits table
* :mod:`toolcat.lint.baseline`  ``--write-baseline`` / ``--baseline``
* :mod:`toolcat.lint.engine`    runs the rules, locates and de-duplicates findings
* :mod:`toolcat.lint.render`    text, json, sarif, github, junit

The configuration (``[tool.toolcat]`` / ``toolcat.toml``) is :mod:`toolcat.config`.
"""

from toolcat.config import Config, load_config

__all__ = ["Config", "load_config"]


# `toolcat.lint(...)` is the API function, also once this package is imported (toolcat.entry)
from toolcat.entry import callable_package

callable_package(__name__)
