"""The internal model every loader produces and every command consumes.

Formats live at the edges (``toolcat.formats`` reads them, ``toolcat.envelopes`` writes
them); everything in between works on :class:`Catalog`, :class:`Tool` and :class:`Finding`.

Pointers inside a tool are *tool pointers*: JSON pointers into the tool's canonical form
(``/inputSchema/properties/q``, ``/description``), whatever the source format spelled them
(``/function/parameters`` in OpenAI, ``/input_schema`` in Anthropic, a parameter in
OpenAPI). :meth:`Tool.source_pointer` maps a tool pointer back to a pointer into the file the
tool came from, and :meth:`Catalog.locate` turns that into a line and column, lazily: nothing
is computed until a finding needs it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# Catalog formats (the `format` of a Catalog, and the values of `--from`).
OPENAPI3 = "openapi"          # OpenAPI 3.0.x / 3.1.x
SWAGGER2 = "swagger"          # Swagger 2.0
MCP = "mcp"                   # MCP tools/list (object, JSON-RPC response, array, folder)
MCP_CAPTURE = "mcp-capture"   # mcp-context-cost measurement file (rawToolsCapture)
OPENWOP = "openwop"           # OpenWOP ToolDescriptor / CompactToolDescriptor catalog
OPENAI = "openai"             # OpenAI tool array
ANTHROPIC = "anthropic"       # Anthropic tool array
DOCKER = "docker"             # docker/mcp-registry tools.json (`arguments`, no inputSchema)
GEMINI = "gemini"             # Gemini function declarations {"functionDeclarations": [...]}

# Each format's facts (detection, reading, the input-schema key...) are its record in
# toolcat.formats.registry; the list of formats is the registry's.

STANDARD = "standard"
COMPACT = "compact"

# OpenWOP enumerations (tool-descriptor.schema.json)
OPENWOP_SOURCES = ("node-pack", "workflow", "mcp", "connector", "host-extension")
SAFETY_TIERS = ("pure", "read", "write", "exec")
OPENWOP_HEAVY_FIELDS = ("outputSchema", "auth", "egress", "approval", "replayPolicy",
                        "costHint", "latencyHint")
#: An origin source pointer may name another file than the tool's own:
#: ``FILE_MARK + file + FILE_MARK + pointer`` (OpenAPI `$ref`s into files next to the spec).
FILE_MARK = "\x01"

OPENWOP_COMPACT_FIELDS = ("toolId", "source", "safetyTier", "title", "description",
                          "inputSchema")


@dataclass(slots=True)
class Tool:
    """One tool, whatever format it came from."""

    id: str | None
    title: str | None = None
    description: str | None = None
    input_schema: Any = None
    output_schema: Any = None
    annotations: dict | None = None
    source: str | None = None          # OpenWOP `source`, when given
    safety_tier: str | None = None     # OpenWOP `safetyTier`, when given
    extra: dict = field(default_factory=dict)   # every other field, verbatim, in order
    # Why the entry is no tool descriptor (a tools-array entry that is not an object: lint
    # TC110 reports it, project refuses it); None for a real tool.
    invalid: str | None = None
    # A provider's server tool, run by the provider, not by the client (Anthropic: an entry
    # with a ``type`` and no ``input_schema``, e.g. ``web_search_20250305`` or the tool
    # search tool): written as given to its own format, never linted as a client tool.
    server_tool: bool = False
    raw: Any = None                    # the descriptor object exactly as in the file
    file: str = ""                     # file the tool is defined in
    pointer: str = ""                  # JSON pointer of the tool in that file
    # (tool pointer prefix, source pointer) pairs, longest prefix wins; see source_pointer()
    origin: list[tuple[str, str]] = field(default_factory=list)
    http_method: str | None = None     # OpenAPI: the operation's method (lower case)
    http_path: str | None = None       # OpenAPI: the operation's path
    dialect: str = "2020-12"           # JSON Schema dialect of input/output schemas
    # what loading changed in the tool as written, each (tool pointer, kind, what): e.g. a
    # `$ref` that does not resolve, widened to {} (--broken-refs widen); every view reports it
    notes: list[tuple[str, str, str]] = field(default_factory=list)
    # source_pointer()'s lookup table: (origin list, its length, {prefix: source pointer})
    _origin_index: Any = field(default=None, repr=False, compare=False)

    @property
    def display_title(self) -> str | None:
        """The tool's title for people: ``title``, else a non-empty string
        ``annotations.title`` (MCP puts UI labels there), else None."""
        if self.title:
            return self.title
        ann = self.annotations
        if isinstance(ann, dict) and isinstance(ann.get("title"), str) and ann["title"]:
            return ann["title"]
        return None

    @property
    def parameter_count(self) -> int:
        s = self.input_schema
        if isinstance(s, dict) and isinstance(s.get("properties"), dict):
            return len(s["properties"])
        return 0

    def source_pointer(self, tool_pointer: str) -> tuple[str, str]:
        """Map a tool pointer to ``(file, pointer in that file)``.

        Uses the longest origin prefix of ``tool_pointer`` and appends the rest, so a
        pointer deep inside a schema lands on the matching node of the source document
        (or on the nearest ancestor the source has).
        """
        origin = self.origin
        idx = self._origin_index
        if idx is None or idx[0] is not origin or idx[1] != len(origin):
            # a later pair for the same prefix wins, as in a scan keeping the last longest one
            idx = self._origin_index = (origin, len(origin), dict(origin))
        table = idx[2]
        # the prefixes that can match: the pointer itself, then each ancestor (cut at a "/"),
        # longest first; "" matches every pointer
        best_prefix, best_src = tool_pointer, table.get(tool_pointer)
        cut = len(tool_pointer)
        while best_src is None and cut > 0:
            cut = max(tool_pointer.rfind("/", 0, cut), 0)
            best_prefix = tool_pointer[:cut]
            best_src = table.get(best_prefix)
        if best_src is None:
            best_prefix, best_src = "", self.pointer
        rest = tool_pointer[len(best_prefix):]
        file = self.file
        if best_src.startswith(FILE_MARK):  # "\x01<file>\x01<pointer>": defined in another file
            _, file, best_src = best_src.split(FILE_MARK, 2)
        if best_src.startswith("\0"):  # synthesized node: no source beyond the prefix
            return file, best_src[1:]
        return file, best_src + rest


@dataclass(slots=True)
class Problem:
    """Something wrong found while loading, kept so `lint` can report it as a finding.

    Commands other than `lint` turn the first problem into an input error (exit 2).
    """

    code: str                 # a lint rule code, e.g. "SC302"
    message: str
    file: str
    pointer: str = ""         # source pointer
    tool: str | None = None
    # False for a problem in a part of the document no tool is built from (an unused
    # component, an error response): lint reports it; the other commands go on.
    blocking: bool = True


class ToolStream(ABC):
    """The tools of a catalog read from its file as they are used, never all held at once
    (a large MCP tools list: ``formats.mcp.StreamedTools``). A read-only sequence of tools:
    :meth:`batches` is the first pass; iterating again, ``len()`` and indexing work once it
    has ended (they read the file again). A catalog's :attr:`Catalog.stream` says whether
    its tools are one; features that work a batch at a time ask it, the others read
    :attr:`Catalog.tools` as a sequence."""

    __slots__ = ()

    @abstractmethod
    def batches(self) -> Iterator[tuple[list[Tool], Any]]:
        """``(tools, source)`` per batch of elements, in order: the source holds the texts
        of the batch's elements (for positions)."""

    @abstractmethod
    def load_whole(self) -> Catalog:
        """The catalog read whole, as a file under the stream threshold is."""

    @abstractmethod
    def view(self) -> str:
        """The view the whole envelope declares (known after the first pass)."""

    @abstractmethod
    def __iter__(self) -> Iterator[Tool]: ...

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def __getitem__(self, i: int) -> Tool: ...


@dataclass(slots=True, weakref_slot=True)
class Catalog:
    """The tools of one catalog (one file, a folder of one-tool files, or merged pages)."""

    file: str                          # path as given on the command line
    format: str
    # a list, or a ToolStream for a streamed catalog (see `stream`)
    tools: list[Tool] | ToolStream = field(default_factory=list)
    view: str = STANDARD               # OpenWOP: "compact" when every descriptor is compact
    version: str | None = None         # OpenAPI/Swagger version string
    meta: dict = field(default_factory=dict)   # capture figures, envelope details...
    problems: list[Problem] = field(default_factory=list)
    sources: dict[str, Any] = field(default_factory=dict)  # file -> SourceText (positions)
    document: Any = None               # the parsed root document (single-file catalogs)

    @property
    def stream(self) -> ToolStream | None:
        """The tools when they are streamed from the file (:class:`ToolStream`), else None
        (they are a list)."""
        tools = self.tools
        return tools if isinstance(tools, ToolStream) else None

    def locate(self, file: str, pointer: str) -> tuple[int | None, int | None]:
        """1-based line and column of the node at ``pointer`` in ``file`` (lazy)."""
        src = self.sources.get(file)
        if src is None:
            return None, None
        pos = src.locate(pointer)
        return pos if pos is not None else (None, None)

    def tool_position(self, tool: Tool, tool_pointer: str = "") -> tuple[str, int | None, int | None]:
        file, ptr = tool.source_pointer(tool_pointer)
        line, col = self.locate(file, ptr)
        return file, line, col


SEVERITIES = ("error", "warning", "info")


@dataclass(slots=True)
class Finding:
    code: str
    severity: str
    message: str
    file: str
    tool: str | None = None
    pointer: str = ""                  # tool pointer (or source pointer when tool is None)
    line: int | None = None
    column: int | None = None
    source_pointer: str | None = None  # pointer in `file`, used for positions and baselines
    profiles: tuple[str, ...] = ()     # with several lint profiles: those reporting it

    def sort_key(self) -> tuple:
        # no line (a live server's tool): in the order of the tools, /tools/<index>/...
        idx = 0
        if self.line is None and self.source_pointer and self.source_pointer.startswith("/tools/"):
            head = self.source_pointer[7:].split("/", 1)[0]
            idx = int(head) + 1 if head.isdigit() else 0
        return (self.file, self.line or 0, self.column or 0, idx, self.code, self.tool or "",
                self.pointer)
