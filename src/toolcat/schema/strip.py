"""Remove prose from schema positions (description, title, examples, example, $comment, x-*).

The walker decides what a schema position is: property names, ``$defs`` names and the values
of ``enum``/``const``/``default`` are data and never touched. :func:`strip_node` is the
per-node step the lowering hook uses.
"""

from __future__ import annotations

from typing import Callable

from toolcat.schema.keywords import is_prose_key


def strip_node(node: dict, keep: Callable[[str], bool] | None = None) -> tuple[dict, list[str]]:
    """``node`` without its prose keys; ``keep(key)`` spares a key (a ``$ref`` target)."""
    removed = [k for k in node if is_prose_key(k) and not (keep is not None and keep(k))]
    if not removed:
        return node, removed
    return {k: v for k, v in node.items() if k not in removed}, removed
