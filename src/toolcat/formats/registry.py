"""The catalog formats toolcat reads: one :class:`Format` record each, in detection order.

Each format's module declares its record(s) (``FORMATS``): its name, how messages name it,
how to recognise a document or one tools-array entry of it, how to read it, and the facts the
features ask about a catalog of it (where its descriptors keep the input schema, whether its
tools are an MCP server's or an API's operations...). Detection, loading, ``--from``'s
choices, the "tried: ..." texts and the lint, measure and project lookups read the records;
nobody compares a format's name. Adding a format is one module with its record(s), imported
once in :func:`formats` (the place gives its rank in listings and in detection).

Detection (:func:`toolcat.formats.detect.detect`) asks, in this order: each record's
``claims`` (the whole document is one of its kind: an OpenAPI document, a Gemini ``Tool``, a
single descriptor...), then, for a tools array, each record's ``item`` test on its entries
(the first record whose test an entry passes is that entry's format, a ``fallback`` record's
test last; the majority of the entries wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from toolcat.document.source import SourceText
    from toolcat.formats.load import LoadOptions
    from toolcat.model import Catalog



@dataclass(frozen=True, slots=True, eq=False)
class Format:
    """One catalog format (see the module doc)."""

    #: ``Catalog.format`` and the value of ``--from``
    key: str
    #: what names it in messages ("an MCP tool")
    title: str
    #: what names its documents in the list of formats tried ("MCP tools/list")
    described: str
    #: read a parsed document: ``read(doc, source, path, options) -> Catalog``
    read: Callable[[Any, "SourceText", str, "LoadOptions"], "Catalog"]
    #: the whole document is of this format (tried before any tools-array entry is)
    claims: Callable[[Any], bool] | None = None
    #: one tools-array entry (an object) is a descriptor of this format
    item: Callable[[dict], bool] | None = None
    #: :attr:`item` is tried after every other format's (it takes what none of them claims)
    fallback: bool = False
    #: why the document cannot be read as this format under ``--from`` (None: it can); None
    #: here: it must hold a tools array none of whose entries is another format's descriptor
    misfit: Callable[[Any], str | None] | None = None
    #: under ``--from``, an object that is one descriptor of this format (one tool per file)
    one_tool: Callable[[dict], bool] | None = None
    #: the descriptor field, as the format writes it, that holds the input schema
    schema_key: str = "inputSchema"
    #: the pointer, in a descriptor, of what names the tool
    id_pointer: str = "/name"
    #: an API description: each tool is an operation (a method and a path)
    spec: bool = False
    #: its tools are an MCP server's tools (their OpenWOP ``source`` is ``mcp``)
    mcp_server: bool = False
    #: its descriptors are MCP-shaped objects whose keys are the canonical tool pointers
    #: (``/inputSchema``, ``/description``...): a descriptor is scanned as written
    canonical_descriptors: bool = False
    #: its schemas are OpenAPI 3.0 Schema objects (``nullable`` is a keyword), not JSON Schema
    openapi_schemas: bool = False
    #: its ids are scoped (``<scope>:<id>``, OpenWOP): no tool-name grammar applies
    scoped_ids: bool = False
    #: its compact view is a format of its own (RFC 0112's CompactToolDescriptor), checked
    #: as such whatever the profile
    compact_descriptors: bool = False
    #: the targets ``project --to`` writes in this format (:class:`toolcat.formats.targets.
    #: Target` objects), in the order the CLI lists them
    targets: tuple[Any, ...] = ()


_ALL: tuple[Format, ...] = ()
_BY_KEY: dict[str, Format] = {}


def formats() -> tuple[Format, ...]:
    """Every format, in detection order."""
    global _ALL
    if not _ALL:
        from toolcat.formats import (
            anthropic,
            bedrock,
            capture,
            docker,
            gemini,
            mcp,
            openai,
            openapi,
            openwop,
        )

        # the order of listings (--from, README's table, "tried: ..."), and of detection
        every = (*openapi.FORMATS, *mcp.FORMATS, *capture.FORMATS, *openwop.FORMATS,
                 *openai.FORMATS, *anthropic.FORMATS, *docker.FORMATS, *gemini.FORMATS,
                 *bedrock.FORMATS)
        # (the table by key first, in one step: a thread that finds either filled finds
        # every format in both)
        _BY_KEY.update({f.key: f for f in every})
        _ALL = every
    return _ALL


def get(key: str) -> Format:
    """The format called ``key``; KeyError for any other."""
    if not _BY_KEY:
        formats()
    return _BY_KEY[key]


def tried() -> str:
    """What an unknown document was tried as, for messages."""
    return ", ".join(f.described for f in formats())


def keys() -> tuple[str, ...]:
    """The format names (``--from``'s choices), in listing order."""
    return tuple(f.key for f in formats())
