"""`toolcat lint`: conformance and model-readiness rules for tool catalogs.

* :mod:`toolcat.features.lint.registry`  the rules (code, name, severity, doc, check)
* :mod:`toolcat.features.lint.rules`     the checks, in small units
* :mod:`toolcat.features.lint.profiles`  profiles and the provider-limits table
* :mod:`toolcat.features.lint.baseline`  ``--write-baseline`` / ``--baseline``
* :mod:`toolcat.features.lint.engine`    runs the rules, locates and de-duplicates findings
* :mod:`toolcat.features.lint.render`    text, json, sarif, github, junit

The configuration (``[tool.toolcat]`` / ``toolcat.toml``) is :mod:`toolcat.config`.
"""

from toolcat.config import Config, load_config

__all__ = ["Config", "load_config"]
