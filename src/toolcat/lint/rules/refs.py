"""SC302: `$ref`s that do not resolve inside a tool's own schema.

OpenAPI catalogs get SC302 from the loader (it resolves references across the document and
files next to it, and records the ones that fail as load problems); this rule checks the
schemas of every other format, where a tool's schema must stand alone: local JSON pointers
(``#/$defs/x``), ``$id``-based references and ``$anchor``s (draft-06/07 ``$id: "#name"``
too). A reference to anything outside the schema cannot be resolved from the catalog
(toolcat never fetches) and is reported as such.
"""

from __future__ import annotations

from typing import Any, Iterator
from urllib.parse import urldefrag, urljoin

from toolcat.document import pointer as jp
from toolcat.lint.registry import Hit, rule
from toolcat.model import ANTHROPIC, MCP, MCP_CAPTURE, OPENAI, OPENWOP
from toolcat.schema.keywords import DRAFT4, DRAFT6, DRAFT7
from toolcat.schema.walker import iter_schemas

_LEGACY = (DRAFT4, DRAFT6, DRAFT7)


class RefIndex:
    """Resources (`$id`s) and anchors of one schema, and the base URI of every node."""

    def __init__(self, root: Any, dialect: str) -> None:
        self.root = root
        self.resources: dict[str, Any] = {"": root}
        self.anchors: dict[tuple[str, str], Any] = {}
        self.bases: dict[tuple, str] = {}
        for path, node, d in iter_schemas(root, dialect):
            base = self._parent_base(path)
            if isinstance(node, dict):
                idkey = "id" if d == DRAFT4 else "$id"
                ident = node.get(idkey)
                if isinstance(ident, str):
                    if ident.startswith("#") and d in _LEGACY:
                        self.anchors[(base, ident[1:])] = node
                    else:
                        uri, frag = urldefrag(urljoin(base, ident))
                        base = uri
                        self.resources.setdefault(uri, node)
                        if frag and d in _LEGACY:
                            self.anchors[(uri, frag)] = node
                for akey in ("$anchor", "$dynamicAnchor"):
                    a = node.get(akey)
                    if isinstance(a, str):
                        self.anchors.setdefault((base, a), node)
            self.bases[path] = base

    def _parent_base(self, path: tuple) -> str:
        for cut in (1, 2):
            if len(path) >= cut and path[:-cut] in self.bases:
                return self.bases[path[:-cut]]
        return ""

    def resolve(self, path: tuple, ref: str) -> str | None:
        """None when ``ref`` at ``path`` resolves; else why not."""
        base = self.bases.get(path, "")
        # the node's own $id sets the base for its own $ref (2019-09+; legacy ignores siblings)
        target = urljoin(base, ref) if base else ref
        uri, frag = urldefrag(target)
        res = self.resources.get(uri)
        if res is None:
            if uri == "" or uri == base:
                res = self.resources.get(base)
            if res is None:
                return "points outside the tool's schema (toolcat never fetches references)"
        if not frag:
            return None
        if frag.startswith("/"):
            try:
                jp.resolve(res, jp.decode_fragment(frag))
            except (KeyError, ValueError):
                return f"target {frag} does not exist"
            return None
        if (uri, frag) in self.anchors:
            return None
        return f"anchor #{frag} is not defined"


def _index(ctx, tool, role: str, dialect: str) -> RefIndex:  # noqa: ANN001
    root = tool.input_schema if role == "input" else tool.output_schema
    key = ("refindex", id(tool), role)
    idx = ctx.cache.get(key)
    if idx is None or idx.root is not root:
        idx = ctx.cache[key] = RefIndex(root, tool.dialect or dialect)
    return idx


@rule("SC302", "unresolved-ref", "error", "a `$ref` that does not resolve", scope="node",
      schemas=("input", "output"),
      formats=(MCP, MCP_CAPTURE, OPENWOP, OPENAI, ANTHROPIC), keys=("$ref",))
def unresolved_ref(ctx, tool, n) -> Iterator[Hit]:
    """A `$ref` must point at a schema the validator can find. In a tool catalog each tool's
    schema travels alone, so a reference must resolve inside it: a JSON pointer to an
    existing node (`#/$defs/Address`), an `$id`, or an `$anchor`. For OpenAPI and Swagger
    documents the loader resolves references across the document (and files next to it) and
    reports the ones it cannot resolve under this code, with their position in the source."""
    node = n.node
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return
    why = _index(ctx, tool, n.role, n.dialect).resolve(n.path, ref)
    if why:
        yield Hit(f"$ref {ref!r} does not resolve: {why}", n.ptr("$ref"))
