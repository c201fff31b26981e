"""The lint checks, one small module per family; importing this package registers them."""

from toolcat.features.lint.rules import (  # noqa: F401
    catalog,
    compact,
    deferral,
    mcp,
    metaschema,
    openapi,
    openwop,
    poison,
    provider,
    quality,
    readiness,
    refs,
    schema,
    secrets,
    setup,
)
