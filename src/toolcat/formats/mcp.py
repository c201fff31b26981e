"""MCP ``tools/list``: ``{"tools": [...]}``, a JSON-RPC response, a bare array of MCP tools,
or one tool per file (a folder of them is one catalog)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcat.formats.arrays import (
    VIEW_META_KEY,
    declared_view,
    not_an_object,
    str_or_none,
    tool_list,
)
from toolcat.formats.registry import Format
from toolcat.formats.targets import Target, put
from toolcat.model import MCP, MCP_CAPTURE, Catalog, Tool, ToolStream

_MCP_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def mcp_tool(item: Any, file: str, pointer: str) -> Tool:
    if not isinstance(item, dict):
        return not_an_object(item, file, pointer)
    name = item.get("name")
    return Tool(
        id=name if isinstance(name, str) else None,
        title=str_or_none(item.get("title")),
        description=str_or_none(item.get("description")),
        input_schema=item.get("inputSchema"),
        output_schema=item.get("outputSchema"),
        annotations=item.get("annotations") if isinstance(item.get("annotations"), dict) else None,
        extra={k: v for k, v in item.items() if k not in _MCP_FIELDS},
        raw=item,
        file=file,
        pointer=pointer,
        origin=[("", pointer)],
    )


def load_mcp(doc: Any, path: str) -> Catalog:
    if isinstance(doc, dict) and "name" in doc and "tools" not in doc and "result" not in doc:
        # one tool per file (e.g. github-mcp-server's __toolsnaps__)
        return Catalog(file=path, format=MCP, tools=[mcp_tool(doc, path, "")], document=doc,
                       meta={"envelope": "tool"})
    tools, base = tool_list(doc, path)
    envelope = {"": "array", "/tools": "tools", "/result/tools": "jsonrpc"}[base]
    result = doc.get("result") if base == "/result/tools" else doc
    listed: list[Tool] = []
    cat = Catalog(file=path, format=MCP, tools=listed, document=doc,
                  view=declared_view(result, path), meta={"envelope": envelope})
    for i, item in enumerate(tools):
        listed.append(mcp_tool(item, path, f"{base}/{i}"))
    return cat


#: the most tools, and about the most characters of their text, in one batch of a stream
BATCH_TOOLS = 4096
#: tools of a streamed catalog between two full garbage collections in lint and measure: a
#: batch leaves reference cycles that the collector's thresholds let pile up (19 MB a batch of
#: 2,000 generated tools), but one collection costs with the whole heap, not with the batch, so
#: it runs once per this many tools, not after every small batch
GC_TOOLS = 2_000
BATCH_CHARS = 4 << 20


class StreamedTools(ToolStream):
    """The tools of a streamed MCP catalog (:func:`stream_catalog`): read from the file as
    they are used, never all held at once. :meth:`batches` is the first pass (each batch
    with the source of its elements, for positions); iterating again, ``len()`` and indexing
    work once it has ended (they read the file again)."""

    def __init__(self, stream: Any, path: str, source: Any) -> None:
        self.stream = stream
        self.path = path
        self.source = source

    def _tool(self, el: Any) -> Tool:
        return mcp_tool(el.value, self.path, f"{self.stream.base}/{el.index}")

    def batches(self) -> Iterator[tuple[list[Tool], Any]]:
        """``(tools, source)`` per batch of elements (at most :data:`BATCH_TOOLS` tools and
        about :data:`BATCH_CHARS` characters of text), in order."""
        from toolcat.document.stream import ElementsSource

        max_chars, max_tools = BATCH_CHARS, BATCH_TOOLS
        els: list = []
        chars = 0
        for el in self.stream.elements():
            els.append(el)
            chars += len(el.text)
            if chars >= max_chars or len(els) >= max_tools:
                yield [self._tool(e) for e in els], ElementsSource(self.source, els)
                els, chars = [], 0
        if els:
            yield [self._tool(e) for e in els], ElementsSource(self.source, els)

    def __iter__(self) -> Iterator[Tool]:
        for el in self.stream.elements():
            yield self._tool(el)

    def __len__(self) -> int:
        return len(self.stream)

    def __bool__(self) -> bool:
        return bool(self.stream.sample) if self.stream.count is None else self.stream.count > 0

    def __getitem__(self, i: int) -> Tool:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self._tool(self.stream.element(i))

    def load_whole(self) -> Catalog:
        """The catalog read whole, as a file under the stream threshold is (the same limits)."""
        from toolcat.document.parse import Limits, load_file

        s = self.stream
        s.close()
        doc, src = load_file(self.path, limits=Limits(max_file_size=s.max_size,
                                                       max_depth=s.max_depth))
        cat = load_mcp(doc, self.path)
        cat.sources.setdefault(self.path, src)
        return cat

    def view(self) -> str:
        """The view the whole envelope declares (known after the first pass)."""
        env = self.stream.envelope
        result = env.get("result") if self.stream.base == "/result/tools" else env
        return declared_view(result, self.path)


def stream_catalog(path: str, from_format: str | None, max_size: int,
                   max_depth: int) -> Catalog | None:
    """A streamed MCP catalog of the JSON file ``path`` (its tools read as they are used:
    :class:`StreamedTools`), or None when the file is no MCP tools list to stream (then it
    is read whole, which reports whatever else it is)."""
    from toolcat.document.stream import StreamSource, open_array
    from toolcat.formats.detect import detect, server_records

    s = open_array(path, max_size, max_depth)
    if s is None:
        return None
    env = s.envelope
    sample: Any = list(s.sample)
    if isinstance(env, dict):
        doc = dict(env)
        if s.base == "/result/tools":
            doc["result"] = dict(doc["result"], tools=sample)
        else:
            doc["tools"] = sample
    else:
        doc = sample
    from toolcat.formats.detect import misfit

    if from_format not in (None, MCP) or server_records(doc) or \
            (detect(doc) != MCP if from_format is None else misfit(doc, MCP) is not None):
        s.close()                 # not an MCP tools list: read whole instead
        return None
    src = StreamSource(s)
    envelope = {"": "array", "/tools": "tools", "/result/tools": "jsonrpc"}[s.base]
    result = env.get("result") if s.base == "/result/tools" else env
    tools = StreamedTools(s, path, src)
    return Catalog(file=path, format=MCP, tools=tools,
                   document=env, view=declared_view(result, path),
                   meta={"envelope": envelope, "streamed": True}, sources={path: src})


def folder_catalog(path: str, parts: list[tuple[str, Any, Any]]) -> Catalog:
    """One catalog from a folder of one-tool MCP files: ``parts`` is (file, doc, source)."""
    tools: list[Tool] = []
    cat = Catalog(file=path, format=MCP, tools=tools, meta={"envelope": "folder"})
    for file, doc, src in parts:
        tools.append(mcp_tool(doc, file, ""))
        cat.sources[file] = src
    return cat


#: the MCP annotation hints whose value here is the specification's default
MCP_HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                     "openWorldHint": True}


class McpTarget(Target):
    """``{"tools": [Tool]}``: name, title, description, inputSchema, outputSchema, annotations.
    Titles are UI labels (the model reads name and description)."""

    name = "mcp"
    enveloped = True
    native_formats = (MCP, MCP_CAPTURE)
    schema_paths = (("inputSchema",), ("outputSchema",))
    compact_fields = ("name", "title", "description", "inputSchema", "outputSchema",
                      "annotations")
    standard_output_schema = True
    compact_output_schema = True
    annotations = True
    title = "own"
    ui_titles = True
    drops_repeated_description = True
    requires_input_schema = True
    # the MCP TypeScript SDK's ToolSchema (1.x): inputSchema and outputSchema are objects with
    # type "object", every root `properties` value an object
    typed_object_roots = True
    boolean_property_schemas = False
    ajv_clients = True
    # MCP 2025-11-25 and later, server/tools "Tool Names": 1-128 characters of ASCII letters,
    # digits, `_`, `-` and `.` (lint TC102 checks the same: lint.profiles.MCP_NAME_PATTERN)
    name_pattern = r"^[A-Za-z0-9_.-]{1,128}$"
    # the result's `_meta` says a compact view is one (formats.arrays.VIEW_META_KEY)
    view_meta = {"_meta": {VIEW_META_KEY: "compact"}}

    def _fields(self, **f: Any) -> dict:
        d: dict = {}
        put(d, "name", f["id"])
        put(d, "title", f["title"])
        put(d, "description", f["description"])
        put(d, "inputSchema", f["input_schema"])
        put(d, "outputSchema", f["output_schema"])
        put(d, "annotations", f["annotations"])
        return d


MCP_TARGET = McpTarget()


#: MCP ``tools/list``: a descriptor with a name and an input schema, a description or
#: annotations is an MCP tool when no other format claims it
FORMATS = (Format(
    MCP, "MCP", "MCP tools/list",
    lambda doc, src, path, opts: load_mcp(doc, path),
    targets=(MCP_TARGET,),
    claims=lambda d: isinstance(d, dict) and "name" in d and "inputSchema" in d,
    item=lambda t: "name" in t and ("inputSchema" in t or "description" in t
                                   or "annotations" in t),
    fallback=True,
    one_tool=lambda d: "name" in d,
    mcp_server=True, canonical_descriptors=True),)
