"""Remove prose from schema positions (description, title, examples, example, $comment, x-*).

The walker decides what a schema position is: property names, ``$defs`` names and the values
of ``enum``/``const``/``default`` are data and never touched. :func:`strip_node` is the
per-node step the lowering hook uses.
"""

from __future__ import annotations

from typing import Callable

from toolcat.schema.keywords import KEYWORDS, is_prose_key

#: keys that are never prose: the keywords of every dialect but the prose ones, and a few
#: OpenAPI keys a converted schema keeps (a node whose keys all are is left as it is, told
#: in one C-speed subset test: most nodes hold no prose)
_NOT_PROSE = frozenset(k for k in {*(k for table in KEYWORDS.values() for k in table),
                                   "nullable", "discriminator", "xml", "externalDocs"}
                       if not is_prose_key(k))


def strip_node(node: dict, keep: Callable[[str], bool] | None = None) -> tuple[dict, list[str]]:
    """``node`` without its prose keys; ``keep(key)`` spares a key (a ``$ref`` target)."""
    if node.keys() <= _NOT_PROSE:
        return node, []
    removed = [k for k in node if k not in _NOT_PROSE and is_prose_key(k)
               and not (keep is not None and keep(k))]
    if not removed:
        return node, removed
    return {k: v for k, v in node.items() if k not in removed}, removed
