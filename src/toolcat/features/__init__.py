"""The features: what the commands and the API do with a loaded catalog.

``lint`` (rules and their engine), ``project`` (views and targets: compaction, deferral,
portability rewrites), ``measure`` (token figures), ``diff`` (breaking changes with witnesses)
and ``serve`` (the MCP proxy). They sit above ``formats``, ``schema`` and ``document`` and
below ``api`` and ``commands`` (the layer contract in pyproject.toml). They live in their own
package so that their names never shadow the public functions ``toolcat.lint``,
``toolcat.project``, ``toolcat.measure`` and ``toolcat.diff`` (a submodule import sets an
attribute of its parent package): every import is an ordinary one the contract sees.
"""
