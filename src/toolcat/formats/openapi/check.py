"""Every `$ref` of an OpenAPI / Swagger document resolves, or is a problem.

The loader follows the references a tool is built from (path items, operations, parameters,
request bodies, the first 2xx response, their schemas). :class:`RefChecker` walks the rest of
each operation by OpenAPI object type, wherever the specification allows a Reference Object
(parameters, request bodies, responses, headers, examples, links, callbacks and the path
items in them, media types and their encodings) and every schema reached from them, and the
document's ``components`` (``definitions``, ``parameters``, ``responses`` in Swagger 2.0):
each reference must resolve (a local pointer, an ``$id``/``$anchor`` in 3.1, or a file next
to the spec). One that does not is a :class:`~toolcat.model.Problem` (SC302), reported where
it is written. Nothing is converted or copied: this only resolves. ``$ref`` inside ``x-``
extensions is data (OpenAPI gives it no meaning) and is not followed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolcat.document import pointer as jp
from toolcat.document.scalars import json_key_pattern
from toolcat.formats.openapi.refs import Doc, Resolver, Target, path_item_operations
from toolcat.schema.keywords import DRAFT7, DRAFT2020
from toolcat.schema.walker import iter_schemas

# OpenAPI object types (what a position holds)
PATH_ITEM, OPERATION, PARAMETER, HEADER, REQUEST_BODY, RESPONSE, MEDIA, EXAMPLE, LINK, \
    CALLBACK, SCHEMA, ENCODING, RESPONSES = range(13)

_MAPS_3 = {   # type -> (key, type of each value in that map)
    PARAMETER: (("content", MEDIA), ("examples", EXAMPLE)),
    HEADER: (("content", MEDIA), ("examples", EXAMPLE)),
    REQUEST_BODY: (("content", MEDIA),),
    MEDIA: (("examples", EXAMPLE), ("encoding", ENCODING)),
    ENCODING: (("headers", HEADER),),
    RESPONSE: (("headers", HEADER), ("content", MEDIA), ("links", LINK)),
    CALLBACK: (),
}
_COMPONENTS_3 = (("schemas", SCHEMA), ("responses", RESPONSE), ("parameters", PARAMETER),
                 ("examples", EXAMPLE), ("requestBodies", REQUEST_BODY), ("headers", HEADER),
                 ("links", LINK), ("callbacks", CALLBACK), ("pathItems", PATH_ITEM))
_COMPONENTS_2 = (("definitions", SCHEMA), ("parameters", PARAMETER), ("responses", RESPONSE))


class RefChecker:
    """Resolve every reference of the parts of a document that toolcat does not convert."""

    def __init__(self, resolver: Resolver, swagger: bool, modern: bool) -> None:
        self.r = resolver
        self.swagger = swagger
        self.dialect = DRAFT2020 if modern else DRAFT7
        self.done: set[tuple[str, str, int]] = set()
        self.tool: str | None = None
        # nothing to find: every reference of the document resolves (local_refs_resolve)
        self.clean = local_refs_resolve(resolver)

    # ---------------------------------------------------------------- entry points
    def operation(self, op: Any, doc: Doc, ptr: str, tool: str | None) -> None:
        if self.clean:
            return
        self.tool = tool
        self.walk(op, doc, ptr, OPERATION)

    def components(self) -> None:
        if self.clean:
            return
        root = self.r.root
        data = root.data
        self.tool = None
        if self.swagger:
            groups = [(f"/{k}", data.get(k), t) for k, t in _COMPONENTS_2]
        else:
            comps = data.get("components")
            if not isinstance(comps, dict):
                return
            groups = [(f"/components/{k}", comps.get(k), t) for k, t in _COMPONENTS_3]
        for base, group, kind in groups:
            if isinstance(group, dict):
                for name, node in group.items():
                    self.walk(node, root, f"{base}/{jp.escape(name)}", kind)

    # ---------------------------------------------------------------- the walk
    def walk(self, node: Any, doc: Doc, ptr: str, kind: int) -> None:
        if self.clean:
            return
        stack = [(node, doc, ptr, kind)]
        while stack:
            node, doc, ptr, kind = stack.pop()
            if kind == SCHEMA:
                self._schema(node, doc, ptr, stack)
                continue
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                t = self.r.follow(node, doc, ptr, self.tool, blocking=False)   # a problem if it fails
                if t is None:
                    continue
                node, doc, ptr = t.node, t.doc, t.pointer
            key = (doc.uri, ptr, kind)
            if key in self.done or not isinstance(node, dict):
                continue
            self.done.add(key)
            self._children(node, doc, ptr, kind, stack.append)

    def _children(self, node: dict, doc: Doc, ptr: str, kind: int, push: Any) -> None:
        def each(key: str, sub: int) -> None:
            group = node.get(key)
            if isinstance(group, dict):
                for name, v in group.items():
                    push((v, doc, f"{ptr}/{key}/{jp.escape(name)}", sub))

        def items(key: str, sub: int) -> None:
            group = node.get(key)
            if isinstance(group, list):
                for i, v in enumerate(group):
                    push((v, doc, f"{ptr}/{key}/{i}", sub))

        if kind == PATH_ITEM:
            items("parameters", PARAMETER)
            for _m, suffix, op in path_item_operations(node, not self.swagger):
                push((op, doc, ptr + suffix, OPERATION))
        elif kind == OPERATION:
            items("parameters", PARAMETER)
            if "requestBody" in node:
                push((node["requestBody"], doc, ptr + "/requestBody", REQUEST_BODY))
            if "responses" in node:
                push((node["responses"], doc, ptr + "/responses", RESPONSES))
            each("callbacks", CALLBACK)
        elif kind == RESPONSES:
            for code, v in node.items():
                push((v, doc, f"{ptr}/{jp.escape(str(code))}", RESPONSE))
        elif kind == CALLBACK:
            for expr, v in node.items():
                if not str(expr).startswith("x-"):
                    push((v, doc, f"{ptr}/{jp.escape(str(expr))}", PATH_ITEM))
        else:
            for key in ("schema", "itemSchema"):     # itemSchema: OpenAPI 3.2 media types
                if key in node:
                    push((node[key], doc, f"{ptr}/{key}", SCHEMA))
            if self.swagger:
                if kind in (PARAMETER, HEADER) and isinstance(node.get("items"), dict):
                    push((node["items"], doc, ptr + "/items", SCHEMA))
                if kind == RESPONSE:
                    each("headers", HEADER)
                return
            for key, sub in _MAPS_3.get(kind, ()):
                each(key, sub)

    def _schema(self, node: Any, doc: Doc, ptr: str, stack: list) -> None:
        """Every ``$ref`` in the schema at ``ptr`` resolves; the schemas it names are walked."""
        key = (doc.uri, ptr, SCHEMA)
        if key in self.done or not isinstance(node, dict):
            return
        self.done.add(key)
        for path, sub, _d in iter_schemas(node, self.dialect):
            if not isinstance(sub, dict):
                continue
            ref = sub.get("$ref")
            if not isinstance(ref, str):
                continue
            t = self.r.resolve_at(ref, doc, ptr, path)
            if isinstance(t, str):
                self.r.problem(t, doc, ptr + jp.encode(path) + "/$ref", self.tool,
                               blocking=False)
                continue
            stack.append((t.node, t.doc, t.pointer, SCHEMA))


# a JSON text's `$ref` member holding a string (group 1, as written): the key spelled plainly,
# or (_JSON_REF_ANY: where the text has such escapes) each character itself or a \\u escape
_STRING = r'[ \t\n\r]*:[ \t\n\r]*("[^"\\]*(?:\\.[^"\\]*)*")'
_JSON_REF = re.compile(r'"\$ref"' + _STRING)
_JSON_REF_ANY = re.compile(json_key_pattern("$ref") + _STRING)
_REF_ESCAPES = re.compile(r"\\u(?i:0024|0072|0065|0066)")
# _JSON_REF on the UTF-8 text orjson writes
_JSON_REF_BYTES = re.compile(_JSON_REF.pattern.encode())


def local_refs_resolve(r: Resolver) -> bool:
    """True when the checker can find nothing: the document is the only one read, its local
    references are answered wherever they are written (no ``$id``), and every ``$ref``
    member that holds a string (the checker reads no other) is a local reference that
    resolves, and no chain of references (followed as :meth:`Resolver.follow` does) comes
    back to itself. Each distinct reference is resolved once (Kubernetes: 9,852 ``$ref``
    members, 819 distinct) instead of the walk over every operation, response and schema.
    Anything else: False (walked). The references: :func:`_ref_strings`."""
    doc = r.root
    if doc.ids or any(d is not doc for d in r.docs_by_uri.values()):
        return False
    refs = _ref_strings(doc)
    if refs is None:
        return False
    ends: set[int] = set()      # targets whose chain was followed to an end
    for ref in refs:
        t = r.local(ref, doc) if ref.startswith("#") else None
        chain: set[int] = set()
        while True:
            if not isinstance(t, Target):
                return False
            node = t.node
            if id(node) in ends or not (isinstance(node, dict)
                                        and isinstance(node.get("$ref"), str)):
                break
            if id(node) in chain:
                return False    # a cycle: follow reports it
            chain.add(id(node))
            nxt = node["$ref"]
            t = r.local(nxt, doc) if nxt.startswith("#") else None
        ends |= chain
    return True


def _ref_strings(doc: Doc) -> set[str] | None:
    """Every string a ``$ref`` member of ``doc`` holds (and maybe more: each only adds a
    reference to check), or None where one cannot be read. A JSON document: from its text,
    in one expression (in JSON a ``"$ref"`` outside every string is a key; inside a string
    its quotes are escaped, and a match spans no key). Any other (YAML, where a key may be
    written in many ways): from the parsed data written as JSON by orjson, searched the same
    way (Stripe: 9 ms with orjson's import, where a walk over its 29,285 mappings took 20);
    where orjson cannot write it, every mapping of the data visited once, level by level."""
    if doc.src.syntax == "json":
        text = doc.src.text
        return _json_ref_strings(text, _JSON_REF_ANY if _REF_ESCAPES.search(text) else _JSON_REF)
    written = _as_json(doc.data)
    if written is not None:
        # the parsed data written as JSON: one search instead of a walk over every mapping
        # (Stripe: 21 ms to 9); orjson writes every key plainly ("$ref" unescaped)
        return _json_ref_strings(written, _JSON_REF_BYTES)
    refs: set[str] = set()
    maps: list[dict] = [doc.data] if isinstance(doc.data, dict) else []
    seqs: list[list] = [doc.data] if isinstance(doc.data, list) else []
    while maps or seqs:
        next_maps: list[dict] = []
        next_seqs: list[list] = []
        for m in maps:
            ref = m.get("$ref")
            if isinstance(ref, str):
                refs.add(ref)
            for v in m.values():
                if isinstance(v, dict):
                    next_maps.append(v)
                elif isinstance(v, list):
                    next_seqs.append(v)
        for seq in seqs:
            for v in seq:
                if isinstance(v, dict):
                    next_maps.append(v)
                elif isinstance(v, list):
                    next_seqs.append(v)
        maps, seqs = next_maps, next_seqs
    return refs


def _json_ref_strings(text: Any, pat: re.Pattern) -> set[str] | None:
    """The strings of the ``$ref`` members that ``pat`` finds in a JSON ``text`` (a str, or
    UTF-8 bytes with a bytes pattern; None when one cannot be read)."""
    found: set[str] = set()
    for raw in set(pat.findall(text)):
        if raw.__class__ is bytes:
            raw = raw.decode()
        try:
            found.add(json.loads(raw) if "\\" in raw else raw[1:-1])
        except ValueError:
            return None
    return found


def _as_json(data: Any) -> bytes | None:
    """``data`` written as JSON (UTF-8) by orjson (the same members, each ``$ref`` key
    written ``"$ref"``), or None where orjson cannot write it (a key that is no string, an
    integer beyond 64 bits, nesting deeper than it goes, a cycle): then the data is walked."""
    import orjson

    try:
        return orjson.dumps(data)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        return None
