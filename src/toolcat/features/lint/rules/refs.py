"""SC302: `$ref`s that do not resolve inside a tool's own schema.

OpenAPI catalogs get SC302 from the loader (it resolves references across the document and
files next to it, and records the ones that fail as load problems); this rule checks the
schemas of every other format, where a tool's schema must stand alone: local JSON pointers
(``#/$defs/x``), ``$id``-based references and ``$anchor``s (draft-06/07 ``$id: "#name"``
too), resolved by the one reference index (:class:`toolcat.schema.refs.RefIndex`) that
``toolcat project`` lowers with, so both agree on every reference (a draft-07 ``$id`` beside
a ``$ref`` is ignored, as draft-07 says). A reference to anything outside the schema cannot
be resolved from the catalog (toolcat never fetches) and is reported as such.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from toolcat.features.lint.registry import Hit, rule
from toolcat.model import ANTHROPIC, MCP, MCP_CAPTURE, OPENAI, OPENWOP
from toolcat.schema.keywords import DRAFT2020
from toolcat.schema.refs import RefIndex

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Tool


def _index(ctx: Context, tool: Tool, role: str) -> RefIndex:
    """The reference index of the tool's input or output schema (one per schema and run)."""
    root = tool.input_schema if role == "input" else tool.output_schema
    key = ("refindex", id(tool), role)
    idx = ctx.cache.get(key)
    if idx is None or idx.root is not root:
        idx = ctx.cache[key] = RefIndex(root, tool.dialect or DRAFT2020)
    return idx


@rule("SC302", "unresolved-ref", "error", "a `$ref` that does not resolve", scope="node",
      schemas=("input", "output"),
      formats=(MCP, MCP_CAPTURE, OPENWOP, OPENAI, ANTHROPIC), keys=("$ref",))
def unresolved_ref(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a `$ref` that does not resolve. In a tool catalog each tool's schema travels alone,
    so a reference must resolve inside it: a JSON pointer to an existing node
    (`#/$defs/Address`), an `$id`, or an `$anchor`. For OpenAPI and Swagger documents the loader
    resolves references across the document (and files next to it) and reports the ones it
    cannot resolve under this code, with their position in the source.

    ## Why
    A `$ref` must point at a schema the validator can find; validators refuse the schema
    otherwise, and a model is left without the parameter's shape.

    ## Example
    ```json
    {"tools": [{"name": "ship", "description": "Ship an order to an address.",
                "inputSchema": {"type": "object", "properties": {
                  "to": {"$ref": "#/$defs/Address"}}}}]}
    ```

    ## Fix
    Define the target in the tool's own schema:
    ```json
    {"tools": [{"name": "ship", "description": "Ship an order to an address.",
                "inputSchema": {"type": "object", "properties": {
                  "to": {"$ref": "#/$defs/Address"}},
                  "$defs": {"Address": {"type": "string"}}}}]}
    ```
    """
    node = n.node
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return
    info = _index(ctx, tool, n.role).refs.get(n.path)
    if info is not None and info.problem is not None:
        yield Hit(f"$ref {ref!r} does not resolve: {info.why}", n.ptr("$ref"))
