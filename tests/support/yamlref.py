"""A YAML 1.2 core-schema reference for the tests, from ruamel.yaml's pure-Python parser.

ruamel.yaml's "1.2" implicit resolvers are wider than the YAML 1.2.2 core schema (they read
``2024-10-01`` as a timestamp, ``0b1``, ``1_000`` and ``012`` as integers). Here the plain
scalars are resolved with exactly the core schema's regular expressions (YAML 1.2.2 §10.3.2),
plus the merge key ``<<`` (which toolcat applies), and constructed accordingly.

:func:`compose` parses once (cached per text) and gives both the node graph, whose marks
are the position reference, and the constructed data, the data reference. Used by
``test_positions.py`` and ``test_yaml_reference.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver

from toolcat.document.pointer import escape
from toolcat.document.scalars import js_key

_CORE = [
    ("tag:yaml.org,2002:null", r"(?:null|Null|NULL|~|)"),
    ("tag:yaml.org,2002:bool", r"(?:true|True|TRUE|false|False|FALSE)"),
    ("tag:yaml.org,2002:int", r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)"),
    ("tag:yaml.org,2002:float",
     r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?(?:\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN)"),
    ("tag:yaml.org,2002:merge", r"<<"),
]
_CORE_RE = [(tag, re.compile(pat + r"\Z")) for tag, pat in _CORE]


class CoreResolver(VersionedResolver):
    @property
    def versioned_resolver(self) -> Any:
        class _All(dict):
            def get(self, _key, default=None):  # every first character: all resolvers
                return list(_CORE_RE)

        return _All()


class CoreConstructor(SafeConstructor):
    def construct_yaml_int(self, node: Any) -> int:
        s = self.construct_scalar(node)
        if s.startswith("0o"):
            return int(s[2:], 8)
        if s.startswith("0x"):
            return int(s[2:], 16)
        return int(s, 10)

    def construct_yaml_float(self, node: Any) -> float:
        s = self.construct_scalar(node).lower()
        if s.endswith(".inf"):
            return float("-inf") if s.startswith("-") else float("inf")
        if s == ".nan":
            return float("nan")
        return float(s)


CoreConstructor.add_constructor("tag:yaml.org,2002:int", CoreConstructor.construct_yaml_int)
CoreConstructor.add_constructor("tag:yaml.org,2002:float", CoreConstructor.construct_yaml_float)


def loader() -> YAML:
    y = YAML(typ="safe", pure=True)
    y.Resolver = CoreResolver
    y.Constructor = CoreConstructor
    return y


@lru_cache(maxsize=8)
def compose(text: str) -> tuple[Any, Any, Any]:
    """(root node, constructed data, constructor) of a one-document YAML text."""
    y = loader()
    node = y.compose(text)
    constructor = y.constructor
    data = constructor.construct_document(node)
    return node, data, constructor


def positions(text: str) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Every pointer -> 1-based (line, column) of its node's start mark.

    Empty nodes (``key:`` with nothing after it) are returned apart, with the line of their
    key: ruamel marks them at the next token, toolcat just after the ``:``.
    """
    node, _data, constructor = compose(text)
    out: dict[str, tuple[int, int]] = {}
    empty: dict[str, int] = {}

    def is_empty(n: Any) -> bool:
        return isinstance(n, ScalarNode) and n.tag == "tag:yaml.org,2002:null" and n.value == "" \
            and n.style is None

    def walk(n: Any, ptr: str, depth: int, seen: frozenset) -> None:
        out[ptr] = (n.start_mark.line + 1, n.start_mark.column + 1)
        if depth > 64 or id(n) in seen:
            return
        if isinstance(n, MappingNode):
            seen = seen | {id(n)}
            children: dict[str, tuple[Any, Any]] = {}
            for k, v in n.value:  # merged pairs first, own pairs after: own ones win
                children[js_key(constructor.construct_object(k, deep=True))] = (k, v)
            for key, (k, v) in children.items():
                p = ptr + "/" + escape(key)
                if is_empty(v):
                    empty[p] = k.start_mark.line + 1
                walk(v, p, depth + 1, seen)
        elif isinstance(n, SequenceNode):
            seen = seen | {id(n)}
            for i, v in enumerate(n.value):
                walk(v, f"{ptr}/{i}", depth + 1, seen)

    walk(node, "", 0, frozenset())
    return out, empty


def data(text: str) -> Any:
    return compose(text)[1]
