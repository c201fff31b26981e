"""The one table of JSON Schema keywords.

Every part of toolcat that needs to know what a "schema position" is (the walker, prose
stripping, lowering, lint rules, prose measurement) reads this table and nothing else.

Each keyword has a *shape* (what its value holds) and a *role*:

shape
    ``SCHEMA``          the value is one subschema (``not``, ``additionalProperties``)
    ``SCHEMA_MAP``      the value maps names to subschemas (``properties``, ``$defs``);
                        the names are data, never keywords
    ``SCHEMA_LIST``     the value is an array of subschemas (``allOf``, ``prefixItems``)
    ``SCHEMA_OR_LIST``  one subschema or an array of them (draft-07 ``items``)
    ``SCHEMA_OR_NAMES`` a map whose values are a subschema or an array of property
                        names (draft-07 ``dependencies``)
    ``DATA``            plain data, never walked (``enum``, ``const``, ``default``,
                        ``examples``, ``required``, ``type``...). Unknown keywords are data.

role
    ``PROSE``           annotation text for people and models; removable without changing
                        what the schema accepts (``description``, ``title``, ``$comment``,
                        ``examples``, ``example``; also every ``x-*`` extension)
    ``VALIDATION``      changes what the schema accepts
    ``CORE``            identifiers and references (``$ref``, ``$id``, ``$defs``...)
    ``ANNOTATION``      other annotations (``default``, ``readOnly``, ``format``...)
"""

from __future__ import annotations

from typing import Final

# shapes
SCHEMA: Final = "schema"
SCHEMA_MAP: Final = "map"
SCHEMA_LIST: Final = "list"
SCHEMA_OR_LIST: Final = "schema_or_list"
SCHEMA_OR_NAMES: Final = "schema_or_names"
DATA: Final = "data"

# roles
PROSE: Final = "prose"
VALIDATION: Final = "validation"
CORE: Final = "core"
ANNOTATION: Final = "annotation"

# dialects
DRAFT4: Final = "draft4"
DRAFT6: Final = "draft6"
DRAFT7: Final = "draft7"
DRAFT2019: Final = "2019-09"
DRAFT2020: Final = "2020-12"
DIALECTS: Final = (DRAFT4, DRAFT6, DRAFT7, DRAFT2019, DRAFT2020)

DIALECT_URIS: Final = {
    DRAFT4: "http://json-schema.org/draft-04/schema#",
    DRAFT6: "http://json-schema.org/draft-06/schema#",
    DRAFT7: "http://json-schema.org/draft-07/schema#",
    DRAFT2019: "https://json-schema.org/draft/2019-09/schema",
    DRAFT2020: "https://json-schema.org/draft/2020-12/schema",
}

#: dialect groups: before 2019-09 a `$ref` ignores its siblings (and `$id` beside it), there
#: are `definitions`, no `$anchor`; before 2020-12 `items` may be an array (tuple validation)
LEGACY_DIALECTS: Final = (DRAFT4, DRAFT6, DRAFT7)
MODERN_DIALECTS: Final = (DRAFT2019, DRAFT2020)
TUPLE_ITEMS_DIALECTS: Final = LEGACY_DIALECTS + (DRAFT2019,)
_ALL = DIALECTS

# (keyword, shape, role, dialects)
_TABLE: Final = [
    # applicators holding one subschema
    ("not", SCHEMA, VALIDATION, _ALL),
    ("additionalProperties", SCHEMA, VALIDATION, _ALL),
    ("propertyNames", SCHEMA, VALIDATION, (DRAFT6, DRAFT7) + MODERN_DIALECTS),
    ("contains", SCHEMA, VALIDATION, (DRAFT6, DRAFT7) + MODERN_DIALECTS),
    ("if", SCHEMA, VALIDATION, (DRAFT7,) + MODERN_DIALECTS),
    ("then", SCHEMA, VALIDATION, (DRAFT7,) + MODERN_DIALECTS),
    ("else", SCHEMA, VALIDATION, (DRAFT7,) + MODERN_DIALECTS),
    ("unevaluatedItems", SCHEMA, VALIDATION, MODERN_DIALECTS),
    ("unevaluatedProperties", SCHEMA, VALIDATION, MODERN_DIALECTS),
    ("contentSchema", SCHEMA, ANNOTATION, MODERN_DIALECTS),
    ("additionalItems", SCHEMA, VALIDATION, TUPLE_ITEMS_DIALECTS),
    ("items", SCHEMA, VALIDATION, (DRAFT2020,)),
    ("items", SCHEMA_OR_LIST, VALIDATION, TUPLE_ITEMS_DIALECTS),
    # maps of subschemas
    ("properties", SCHEMA_MAP, VALIDATION, _ALL),
    ("patternProperties", SCHEMA_MAP, VALIDATION, _ALL),
    ("dependentSchemas", SCHEMA_MAP, VALIDATION, MODERN_DIALECTS),
    ("$defs", SCHEMA_MAP, CORE, MODERN_DIALECTS),
    # `definitions` is draft-07 vocabulary, but real 2020-12 schemas still keep their
    # reusable parts there and point at them with $ref; treat it as a schema map everywhere.
    ("definitions", SCHEMA_MAP, CORE, _ALL),
    ("dependencies", SCHEMA_OR_NAMES, VALIDATION, LEGACY_DIALECTS),
    # arrays of subschemas
    ("allOf", SCHEMA_LIST, VALIDATION, _ALL),
    ("anyOf", SCHEMA_LIST, VALIDATION, _ALL),
    ("oneOf", SCHEMA_LIST, VALIDATION, _ALL),
    ("prefixItems", SCHEMA_LIST, VALIDATION, (DRAFT2020,)),
    # core
    ("$ref", DATA, CORE, _ALL),
    ("$dynamicRef", DATA, CORE, (DRAFT2020,)),
    ("$recursiveRef", DATA, CORE, (DRAFT2019,)),
    ("$id", DATA, CORE, (DRAFT6, DRAFT7) + MODERN_DIALECTS),
    ("id", DATA, CORE, (DRAFT4,)),
    ("$schema", DATA, CORE, _ALL),
    ("$anchor", DATA, CORE, MODERN_DIALECTS),
    ("$dynamicAnchor", DATA, CORE, (DRAFT2020,)),
    ("$recursiveAnchor", DATA, CORE, (DRAFT2019,)),
    ("$vocabulary", DATA, CORE, MODERN_DIALECTS),
    # validation data
    ("type", DATA, VALIDATION, _ALL),
    ("enum", DATA, VALIDATION, _ALL),
    ("const", DATA, VALIDATION, (DRAFT6, DRAFT7) + MODERN_DIALECTS),
    ("multipleOf", DATA, VALIDATION, _ALL),
    ("maximum", DATA, VALIDATION, _ALL),
    ("exclusiveMaximum", DATA, VALIDATION, _ALL),
    ("minimum", DATA, VALIDATION, _ALL),
    ("exclusiveMinimum", DATA, VALIDATION, _ALL),
    ("maxLength", DATA, VALIDATION, _ALL),
    ("minLength", DATA, VALIDATION, _ALL),
    ("pattern", DATA, VALIDATION, _ALL),
    ("maxItems", DATA, VALIDATION, _ALL),
    ("minItems", DATA, VALIDATION, _ALL),
    ("uniqueItems", DATA, VALIDATION, _ALL),
    ("maxContains", DATA, VALIDATION, MODERN_DIALECTS),
    ("minContains", DATA, VALIDATION, MODERN_DIALECTS),
    ("maxProperties", DATA, VALIDATION, _ALL),
    ("minProperties", DATA, VALIDATION, _ALL),
    ("required", DATA, VALIDATION, _ALL),
    ("dependentRequired", DATA, VALIDATION, MODERN_DIALECTS),
    # `format` is an annotation by default but validators may assert it: never dropped.
    ("format", DATA, VALIDATION, _ALL),
    # annotations that are not prose
    ("default", DATA, ANNOTATION, _ALL),
    ("readOnly", DATA, ANNOTATION, (DRAFT7,) + MODERN_DIALECTS),
    ("writeOnly", DATA, ANNOTATION, (DRAFT7,) + MODERN_DIALECTS),
    ("deprecated", DATA, ANNOTATION, MODERN_DIALECTS),
    ("contentEncoding", DATA, ANNOTATION, (DRAFT7,) + MODERN_DIALECTS),
    ("contentMediaType", DATA, ANNOTATION, (DRAFT7,) + MODERN_DIALECTS),
    # prose
    ("title", DATA, PROSE, _ALL),
    ("description", DATA, PROSE, _ALL),
    ("$comment", DATA, PROSE, (DRAFT7,) + MODERN_DIALECTS),
    ("examples", DATA, PROSE, (DRAFT6, DRAFT7) + MODERN_DIALECTS),
    # OpenAPI's singular `example` (converted to `examples` on load, but seen in MCP captures)
    ("example", DATA, PROSE, _ALL),
]


class Keyword:
    __slots__ = ("name", "shape", "role")

    def __init__(self, name: str, shape: str, role: str) -> None:
        self.name = name
        self.shape = shape
        self.role = role

    def __repr__(self) -> str:  # pragma: no cover
        return f"Keyword({self.name!r}, {self.shape}, {self.role})"


def _build() -> dict[str, dict[str, Keyword]]:
    tables: dict[str, dict[str, Keyword]] = {d: {} for d in DIALECTS}
    for name, shape, role, dialects in _TABLE:
        for d in dialects:
            tables[d][name] = Keyword(name, shape, role)
    return tables


KEYWORDS: Final[dict[str, dict[str, Keyword]]] = _build()

#: For each dialect, keyword -> shape, for the keywords whose value holds subschemas.
APPLICATORS: Final[dict[str, dict[str, str]]] = {
    d: {k: kw.shape for k, kw in table.items() if kw.shape != DATA} for d, table in KEYWORDS.items()
}

#: Keywords that refer to another schema (``$ref`` everywhere; the dynamic ones in 2019-09 and
#: 2020-12), and the dynamic ones alone.
REFERENCE_KEYWORDS: Final = ("$ref", "$dynamicRef", "$recursiveRef")
DYNAMIC_REFERENCE_KEYWORDS: Final = ("$dynamicRef", "$recursiveRef")
#: Keywords that name a resource (its base URI: ``$id``, draft-04's ``id``) or a location in
#: one (an anchor); what a reference can point at besides a JSON pointer.
RESOURCE_KEYWORDS: Final = ("$id", "id")
ANCHOR_KEYWORDS: Final = ("$anchor", "$dynamicAnchor", "$recursiveAnchor")
IDENTIFIER_KEYWORDS: Final = RESOURCE_KEYWORDS + ANCHOR_KEYWORDS
#: The identifiers plus what declares a schema's meaning (``$schema``, ``$vocabulary``):
#: keywords no merge of two schemas may change.
DECLARATION_KEYWORDS: Final = IDENTIFIER_KEYWORDS + ("$schema", "$vocabulary")

#: Prose keywords, the same in every dialect (plus every ``x-*`` key).
PROSE_KEYWORDS: Final = frozenset(
    name for name, _shape, role, _d in _TABLE if role == PROSE
)

#: The keywords RFC 0112 forbids at any depth of a compact inputSchema.
COMPACT_FORBIDDEN: Final = ("$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties",
                            "dependentSchemas")

#: Keywords a compact view has to lower (lint CS205).
COMPACT_LOWERED: Final = ("$defs", "definitions", "if", "then", "else", "dependencies")


def is_prose_key(key: str) -> bool:
    """True for keys that are prose in a schema position (``x-*`` extensions included)."""
    return key in PROSE_KEYWORDS or key.startswith("x-")


def keyword(dialect: str, name: str) -> Keyword | None:
    return KEYWORDS[dialect].get(name)


def validation_keywords(dialect: str) -> frozenset[str]:
    """Keywords that change what a schema accepts, in this dialect."""
    return frozenset(k for k, kw in KEYWORDS[dialect].items() if kw.role == VALIDATION)


#: the ``$schema`` URIs of each dialect: the metaschema's own id, over http or https, with or
#: without the empty fragment (what the MCP SDK v2 recognises; python-jsonschema knows the
#: spellings of :data:`CANONICAL_URIS` only). Any other URI is no dialect toolcat knows.
_URI_DIALECTS: Final = {
    f"{scheme}://json-schema.org/{path}{hash_}": d
    for d, path in ((DRAFT4, "draft-04/schema"), (DRAFT6, "draft-06/schema"),
                    (DRAFT7, "draft-07/schema"), (DRAFT2019, "draft/2019-09/schema"),
                    (DRAFT2020, "draft/2020-12/schema"))
    for scheme in ("http", "https") for hash_ in ("", "#")
}
#: the spellings every reader (python-jsonschema, Ajv, the MCP SDKs) takes for the dialect:
#: the scheme its metaschema's id has, with or without the empty fragment
CANONICAL_URIS: Final = frozenset(
    u for d, base in DIALECT_URIS.items() for u in (base.rstrip("#"), base.rstrip("#") + "#"))


def dialect_from_uri(uri: object, default: str = DRAFT2020) -> str:
    """Map a ``$schema`` URI to a dialect name; absent, or any URI but a dialect's own
    metaschema URI (:data:`_URI_DIALECTS`: a custom metaschema such as
    ``https://example.com/draft2020-12/strict.json`` is not 2020-12), gives ``default``."""
    if not isinstance(uri, str):
        return default
    return _URI_DIALECTS.get(uri, default)


def python_kind(v: object) -> str:
    """The JSON type name of a parsed value by its Python type (a float is always "number").

    Callers that follow a dialect's integer rule (``1.0`` is an integer after draft-04) refine
    "number" themselves.
    """
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"
