"""Remove prose from schema positions (description, title, examples, example, $comment, x-*).

The walker decides what a schema position is: property names, ``$defs`` names and the values
of ``enum``/``const``/``default`` are data and never touched. :func:`strip_node` is the
per-node step the lowering hook uses; :func:`strip_prose` is the whole-schema pass (for
estimates and for callers that want the prose strip alone).
"""

from __future__ import annotations

from typing import Any, Callable

from toolcat.schema.keywords import DRAFT2020, is_prose_key
from toolcat.schema.walker import transform


def strip_node(node: dict, keep: Callable[[str], bool] | None = None) -> tuple[dict, list[str]]:
    """``node`` without its prose keys; ``keep(key)`` spares a key (a ``$ref`` target)."""
    removed = [k for k in node if is_prose_key(k) and not (keep is not None and keep(k))]
    if not removed:
        return node, removed
    return {k: v for k, v in node.items() if k not in removed}, removed


def strip_prose(schema: Any, dialect: str = DRAFT2020) -> Any:
    """The schema with every prose key in a schema position removed (no other change)."""

    def hook(node: Any, _path: tuple, _d: str) -> Any:
        if isinstance(node, dict):
            return strip_node(node)[0]
        return node

    return transform(schema, hook, dialect)
