"""SC301: is a schema valid JSON Schema for its dialect? (the metaschema, on the keyword table)

Checks the value of every keyword a schema node carries against what the dialect's
metaschema allows: schema positions hold schemas (objects, or booleans from draft-06 on),
lists of schemas are non-empty, `type` names the seven types, `required` lists unique
strings, counts are non-negative integers, `pattern` and `patternProperties` names are
regular expressions, and so on. It needs no jsonschema import (that costs ~100 ms, too much
for a pre-commit hook); a test compares its verdicts with jsonschema's `check_schema` over
the JSON-Schema-Test-Suite.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint.registry import Hit, rule
from toolcat.schema.keywords import (
    DATA,
    DRAFT4,
    DRAFT2019,
    DRAFT2020,
    KEYWORDS,
    SCHEMA,
    SCHEMA_LIST,
    SCHEMA_MAP,
    SCHEMA_OR_LIST,
    SCHEMA_OR_NAMES,
    python_kind,
)
from toolcat.schema.walker import iter_schemas

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Tool

TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_ANCHOR = re.compile(r"^[A-Za-z_][-A-Za-z0-9._]*$")
_NON_EMPTY_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_COUNTS = frozenset({"maxLength", "minLength", "maxItems", "minItems", "maxProperties",
                     "minProperties", "maxContains", "minContains"})
_NUMBERS = frozenset({"maximum", "minimum"})
_STRINGS = frozenset({"format", "title", "description", "$comment", "contentEncoding",
                      "contentMediaType", "$schema", "$ref", "$dynamicRef", "$recursiveRef",
                      "id"})
_BOOLEANS = frozenset({"uniqueItems", "readOnly", "writeOnly", "deprecated",
                       "$recursiveAnchor"})
# Per dialect, data keywords whose value is valid exactly when it has one type (the usual
# `description: "..."`, `readOnly: true`, `examples: [...]`): checked without the dispatch
# below. `type` is valid when it names one of TYPES (marked with the set itself).
_QUICK: dict[str, dict[str, Any]] = {}


def _quick(dialect: str) -> dict[str, Any]:
    got = _QUICK.get(dialect)
    if got is None:
        table = KEYWORDS[dialect]
        got = {}
        for keys, t in ((_STRINGS, str), (_BOOLEANS, bool), (("examples",), list),
                        (("type",), TYPES)):
            for k in keys:
                kw = table.get(k)
                if kw is not None and kw.shape == DATA:
                    got[k] = t
        _QUICK[dialect] = got
    return got


_kind = python_kind
_DICT_ONLY = frozenset((dict,))


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or \
        (isinstance(v, float) and v.is_integer())


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _ukey(v: Any) -> Any:
    """A hashable key equal for JSON-equal values (1 == 1.0, True != 1)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return (type(v).__name__, v)
    if isinstance(v, (int, float)):
        return ("n", v)            # 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(v, list):
        return ("a", tuple(_ukey(x) for x in v))
    if isinstance(v, dict):
        return ("o", frozenset((k, _ukey(x)) for k, x in v.items()))
    return ("?", repr(v))


def _unique(items: list) -> bool:
    if all(x.__class__ is str for x in items):   # `required`, `type`: the strings themselves
        return len(set(items)) == len(items)
    return len({_ukey(x) for x in items}) == len(items)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_num(a) and _is_num(b):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return a == b


def regex_error(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid ECMA-262 regular expression (None when it is): the
    schema layer's bounded check (:func:`toolcat.schema.regex.syntax_error`)."""
    from toolcat.schema.regex import syntax_error

    return syntax_error(pattern)


def node_problems(node: Any, dialect: str) -> Iterator[tuple[tuple, str]]:
    """``(relative path, message)`` for each metaschema violation of one schema node's own
    keywords (its subschemas are checked when the walk reaches them)."""
    if isinstance(node, bool):
        if dialect == DRAFT4:
            yield (), "boolean schemas are not allowed in draft-04"
        return
    if not isinstance(node, dict):
        yield (), f"a schema must be an object{'' if dialect == DRAFT4 else ' or a boolean'}, " \
                  f"not {_kind(node)}"
        return
    table = KEYWORDS[dialect]
    booleans_ok = dialect != DRAFT4
    what = "an object" if not booleans_ok else "a schema (object or boolean)"

    def schema_ok(v: Any) -> bool:
        return isinstance(v, dict) or (booleans_ok and isinstance(v, bool))

    quick = _quick(dialect)
    for key, v in node.items():
        q = quick.get(key)
        if q is not None:
            if q is TYPES:
                if v.__class__ is str and v in TYPES:
                    continue
            elif v.__class__ is q:
                continue
        kw = table.get(key)
        if kw is None:
            continue
        shape = kw.shape
        if shape == SCHEMA:
            if not schema_ok(v):
                yield (key,), f"`{key}` must be {what}, not {_kind(v)}"
        elif shape == SCHEMA_MAP:
            if not isinstance(v, dict):
                yield (key,), f"`{key}` must be an object mapping names to schemas, not {_kind(v)}"
                continue
            # every entry an object is the usual case (a spec's bundled $defs are hundreds):
            # one C-level pass over the value types tells, instead of a check per entry
            if not set(map(type, v.values())) <= _DICT_ONLY:
                for name, sub in v.items():
                    if not schema_ok(sub):
                        yield (key, name), \
                            f"`{key}` entry {name!r} must be {what}, not {_kind(sub)}"
            if key == "patternProperties":
                for name in v:
                    e = regex_error(name)
                    if e:
                        yield (key, name), f"patternProperties name {name!r} is not a valid " \
                                           f"regular expression ({e})"
        elif shape == SCHEMA_LIST:
            if not isinstance(v, list):
                yield (key,), f"`{key}` must be an array of schemas, not {_kind(v)}"
                continue
            if not v and key in _NON_EMPTY_LISTS:
                yield (key,), f"`{key}` must not be empty"
            for i, sub in enumerate(v):
                if not schema_ok(sub):
                    yield (key, i), f"`{key}` item {i} must be {what}, not {_kind(sub)}"
        elif shape == SCHEMA_OR_LIST:
            if isinstance(v, list):
                if not v:
                    yield (key,), f"`{key}` must not be an empty array"
                for i, sub in enumerate(v):
                    if not schema_ok(sub):
                        yield (key, i), f"`{key}` item {i} must be {what}, not {_kind(sub)}"
            elif not schema_ok(v):
                yield (key,), f"`{key}` must be {what} or an array of schemas, not {_kind(v)}"
        elif shape == SCHEMA_OR_NAMES:
            if not isinstance(v, dict):
                yield (key,), f"`{key}` must be an object, not {_kind(v)}"
                continue
            for name, sub in v.items():
                if isinstance(sub, list):
                    if not all(isinstance(x, str) for x in sub) or not _unique(sub) or \
                            (dialect == DRAFT4 and not sub):
                        yield (key, name), f"`{key}` entry {name!r} must list unique " \
                                           "property names"
                elif not schema_ok(sub):
                    yield (key, name), f"`{key}` entry {name!r} must be {what} or an array " \
                                       "of property names"
        else:
            msg = _data_problem(key, v, dialect, node)
            if msg:
                yield (key,), msg


def _data_problem(key: str, v: Any, dialect: str, node: dict) -> str | None:
    if key == "type":
        if isinstance(v, str):
            return None if v in TYPES else f"`type` {v!r} is not a JSON Schema type " \
                                           f"({', '.join(sorted(TYPES))})"
        if isinstance(v, list):
            if not v:
                return "`type` must not be an empty array"
            bad = [x for x in v if not isinstance(x, str) or x not in TYPES]
            if bad:
                return f"`type` lists {bad[0]!r}, not a JSON Schema type"
            if not _unique(v):
                return "`type` lists a type twice"
            return None
        return f"`type` must be a type name or an array of them, not {_kind(v)}"
    if key == "enum":
        if not isinstance(v, list):
            return f"`enum` must be an array, not {_kind(v)}"
        if dialect == DRAFT4:
            if not v:
                return "`enum` must not be empty (draft-04)"
            if not _unique(v):
                return "`enum` values must be unique (draft-04)"
        return None
    if key in _COUNTS:
        if not _is_int(v) or v < 0:
            return f"`{key}` must be a non-negative integer, not {v!r}"
        return None
    if key in _NUMBERS:
        return None if _is_num(v) else f"`{key}` must be a number, not {_kind(v)}"
    if key in ("exclusiveMaximum", "exclusiveMinimum"):
        if dialect == DRAFT4:
            if not isinstance(v, bool):
                return f"`{key}` must be a boolean in draft-04, not {_kind(v)}"
            base = "maximum" if key == "exclusiveMaximum" else "minimum"
            if base not in node:
                return f"`{key}` needs `{base}` next to it (draft-04)"
            return None
        return None if _is_num(v) else f"`{key}` must be a number, not {_kind(v)}"
    if key == "multipleOf":
        if not _is_num(v) or v <= 0:
            return f"`multipleOf` must be a number greater than 0, not {v!r}"
        return None
    if key == "pattern":
        if not isinstance(v, str):
            return f"`pattern` must be a string, not {_kind(v)}"
        e = regex_error(v)
        return f"`pattern` is not a valid regular expression ({e})" if e else None
    if key == "required":
        if not isinstance(v, list):
            return f"`required` must be an array of property names, not {_kind(v)}"
        if not all(isinstance(x, str) for x in v):
            return "`required` must list strings"
        if not _unique(v):
            return "`required` lists a name twice"
        if dialect == DRAFT4 and not v:
            return "`required` must not be empty (draft-04)"
        return None
    if key == "dependentRequired":
        if not isinstance(v, dict):
            return f"`dependentRequired` must be an object, not {_kind(v)}"
        for name, lst in v.items():
            if not isinstance(lst, list) or not all(isinstance(x, str) for x in lst) \
                    or not _unique(lst):
                return f"`dependentRequired` entry {name!r} must list unique property names"
        return None
    if key in _STRINGS:
        return None if isinstance(v, str) else f"`{key}` must be a string, not {_kind(v)}"
    if key in _BOOLEANS:
        return None if isinstance(v, bool) else f"`{key}` must be a boolean, not {_kind(v)}"
    if key == "$id":
        if not isinstance(v, str):
            return f"`$id` must be a string, not {_kind(v)}"
        if dialect in (DRAFT2019, DRAFT2020) and "#" in v and not v.endswith("#"):
            return "`$id` must not have a fragment (use $anchor)"
        return None
    if key in ("$anchor", "$dynamicAnchor"):
        if not isinstance(v, str) or not _ANCHOR.match(v):
            return f"`{key}` must be a name matching ^[A-Za-z_][-A-Za-z0-9._]*$"
        return None
    if key == "$vocabulary":
        if not isinstance(v, dict) or not all(isinstance(x, bool) for x in v.values()):
            return "`$vocabulary` must map URIs to booleans"
        return None
    if key == "examples":
        return None if isinstance(v, list) else f"`examples` must be an array, not {_kind(v)}"
    return None


def schema_problems(schema: Any, dialect: str = DRAFT2020) -> list[tuple[str, str]]:
    """``(pointer, message)`` for every metaschema violation in ``schema`` (for tests/tools)."""
    out: list[tuple[str, str]] = []
    if not isinstance(schema, (dict, bool)):
        return [("", f"a schema must be an object or a boolean, not {_kind(schema)}")]
    for path, node, d in iter_schemas(schema, dialect):
        for rel, msg in node_problems(node, d):
            out.append((jp.encode(path + rel), msg))
    return out


@rule("SC301", "invalid-schema", "warning",
      "schema is not valid JSON Schema for its dialect (metaschema check)", scope="node",
      schemas=("input", "output"), pure=True)
def invalid_schema(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Checks every schema against its dialect's metaschema (the `$schema` it declares; 2020-12
    when none; OpenAPI schemas are converted to 2020-12 on load): subschema positions hold
    schemas (objects, or booleans from draft-06 on), `allOf`/`anyOf`/`oneOf` are non-empty arrays
    of schemas, `type` names JSON Schema types, `required` lists unique strings, length and count
    keywords are non-negative integers, `multipleOf` is positive, `pattern` and
    `patternProperties` names are regular expressions.

    ## Why
    Every schema must be valid against its dialect's metaschema: validators and providers reject
    or misread invalid schemas; models guess.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "text", "minLength": -1}}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string", "minLength": 1}}}}]}
    ```
    """
    for rel, msg in node_problems(n.node, n.dialect):
        if n.is_root and rel == ():
            msg = f"{n.role}Schema is not a schema: " + msg
        yield Hit(msg, n.ptr(*rel))
