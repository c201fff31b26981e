"""Schema correctness beyond the metaschema: SC303-SC308."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from toolcat.features.lint.registry import Hit, rule
from toolcat.formats import registry
from toolcat.schema.keywords import (
    DIALECTS,
    KEYWORDS,
    LEGACY_DIALECTS,
    VALIDATION,
    python_kind,
)
from toolcat.schema.walker import conjoined_properties, flagged_property, local_target

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context, Node
    from toolcat.model import Tool

_PROSE_TEXT = ("title", "description", "$comment")


class _Unknown(Exception):
    """A branch whose properties cannot be known (an unresolvable reference)."""


_NAMES_DEPTH = 16


def _names(node: Any, root: Any, depth: int, seen: set) -> set[str]:
    """Property names ``node`` declares: its `properties`, and those of its
    allOf/anyOf/oneOf/then/else branches and local `$ref` targets (up to ``depth`` levels:
    deeper is unknown, not empty). Each node is read once (``seen``)."""
    if not isinstance(node, dict) or id(node) in seen:
        return set()
    if depth < 0:
        raise _Unknown("nested too deeply")
    seen.add(id(node))
    names: set[str] = set()
    props = node.get("properties")
    if isinstance(props, dict):
        names.update(props)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = local_target(ref, root)
        if target is None:
            raise _Unknown(ref)
        names |= _names(target, root, depth - 1, seen)
    for key in ("allOf", "anyOf", "oneOf"):
        lst = node.get(key)
        if isinstance(lst, list):
            for sub in lst:
                names |= _names(sub, root, depth - 1, seen)
    for key in ("then", "else"):
        names |= _names(node.get(key), root, depth - 1, seen)
    return names


def _at(root: Any, path: tuple) -> Any:
    node = root
    for tok in path:
        node = node[tok]
    return node


def _declared_names(n: Node, root: Any) -> set[str] | None:
    """Names the object at ``n`` declares, with its branches, and, for a branch of `allOf`,
    `anyOf` or `oneOf` (the same instance), its parent's and siblings' (None when ``n``
    declares no `properties`, itself or through its branches and references, or when they
    are unknown)."""
    node = n.node
    path = n.path
    try:
        names = _names(node, root, _NAMES_DEPTH, set())
        own = isinstance(node.get("properties"), dict) or bool(names)
        if len(path) >= 2 and path[-2] == "allOf":
            # an allOf branch is the same instance as its parent (and the parent's, up a
            # chain of allOf): a required-only branch is checked when they declare names
            top = _allof_top(path)
            names |= _names(_at(root, top), root, _NAMES_DEPTH, set())
            if not own and not names:
                return None
        elif not own:
            return None   # declares no properties, itself or through allOf/$ref: an idiom
        elif len(path) >= 2 and path[-2] in ("anyOf", "oneOf"):
            parent = _at(root, path[:-2])
            names |= _names(parent, root, _NAMES_DEPTH, set())
    except _Unknown:
        return None
    return names


def _allof_top(path: tuple) -> tuple:
    """The path of the schema a chain of `allOf` branches ending at ``path`` starts from."""
    while len(path) >= 2 and path[-2] == "allOf":
        path = path[:-2]
    return path


def _referenced_required(node: dict, root: Any) -> Iterator[tuple[str, dict]]:
    """``(fragment, definition)`` for each `allOf` branch of ``node`` that is a local
    reference to a definition with a `required` list: that list meets the branch's siblings
    here, not where the definition is written."""
    branches = node.get("allOf")
    if not (isinstance(branches, list) and len(branches) > 1):
        return
    for b in branches:
        ref = b.get("$ref") if isinstance(b, dict) else None
        if isinstance(ref, str) and ref.startswith("#/"):
            target = local_target(ref, root)
            if isinstance(target, dict) and isinstance(target.get("required"), list):
                yield ref[1:], target


def _reported(ctx: Context, code: str, tool: Tool) -> set:
    """The pointers ``code`` reported for ``tool`` so far (one rule run at a time)."""
    got = ctx.cache.get(code)
    if got is None or got[0] is not tool:
        got = ctx.cache[code] = (tool, set())
    return got[1]


@rule("SC303", "required-not-declared", "warning",
      "a `required` name that is not among `properties`", scope="node",
      schemas=("input", "output"), keys=("required", "allOf"))
def required_not_declared(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a name in `required` that no `properties` entry declares (on the same object, in its
    `allOf`/`anyOf`/`oneOf`/`then`/`else` branches or local `$ref` targets, or beside it when it
    is a branch of `allOf`/`anyOf`/`oneOf`).

    ## Why
    It is almost always a typo or a renamed parameter: the model is told the argument is
    mandatory but not what it is, and if `additionalProperties` is false no call can ever be
    valid.

    ## Not reported
    Objects that declare no `properties` at all, neither themselves nor through their branches
    and references, are not checked (a `required`-only subschema is a common idiom), unless they
    are joined by `allOf` (inline, or a referenced definition) to schemas that do: the instance
    is one object, and a name none of them declares is reported where the `required` is
    written.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}},
                                "required": ["qeury"]}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}},
                                "required": ["query"]}}]}
    ```
    """
    node = n.node
    if not isinstance(node, dict):
        return
    root = tool.input_schema if n.role == "input" else tool.output_schema
    req = node.get("required")
    if isinstance(req, list):
        names = _declared_names(n, root)
        if names is not None:
            yield from _undeclared(req, names, node, n.ptr("required"))
    if "allOf" in node:
        # a referenced definition that only requires (no properties of its own: not checked
        # where it is written) meets the names its siblings declare here
        names = None
        done = _reported(ctx, "SC303", tool)
        for frag, target in _referenced_required(node, root):
            try:
                if _names(target, root, _NAMES_DEPTH, set()):
                    continue
                if names is None:
                    names = _names(_at(root, _allof_top(n.path)), root, _NAMES_DEPTH, set())
            except _Unknown:
                return
            if not names:
                return
            at = n.base + frag + "/required"
            for hit in _undeclared(target["required"], names, target, at):
                if hit.pointer not in done:
                    done.add(hit.pointer)
                    yield hit


def _undeclared(req: list, names: set, node: dict, at: str) -> Iterator[Hit]:
    """SC303's findings for the names of ``req`` not in ``names`` nor matched by ``node``'s
    patternProperties (``at``: the pointer of the list)."""
    pats = node.get("patternProperties")
    for i, name in enumerate(req):
        if isinstance(name, str) and name not in names:
            unchecked = None
            if isinstance(pats, dict):
                matched, unchecked = _matches_any(name, pats)
                if matched:
                    continue
            if unchecked is not None:
                pat, why = unchecked
                yield Hit(f"required property {name!r} is not declared in properties, and "
                          f"whether patternProperties {pat!r} matches it could not be checked "
                          f"(the pattern {why})", f"{at}/{i}")
                continue
            yield Hit(f"required property {name!r} is not declared in properties",
                      f"{at}/{i}")


def _matches_any(name: str, pats: dict) -> tuple[bool, tuple[str, str] | None]:
    """Whether a ``patternProperties`` name matches ``name`` (with a bound: RE2, linear time),
    and the first pattern that could not be evaluated, with why."""
    from toolcat.schema.regex import Unchecked, search

    unchecked = None
    for p in pats:
        hit = search(p, name)
        if hit is True:
            return True, None
        if isinstance(hit, Unchecked) and unchecked is None:
            unchecked = (p if len(p) <= 80 else p[:79] + "…", hit.reason)
    return False, unchecked


@rule("SC304", "prose-too-long", "info",
      "a schema node's prose is longer than the configured maximum (default 300 characters)",
      scope="node", schemas=("input", "output"), keys=_PROSE_TEXT, pure=True)
def prose_too_long(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a schema node whose prose (`description`, `title` or `$comment`) is longer than
    `prose-max` characters.

    ## Why
    `description`, `title` and `$comment` inside a schema are sent to the model with the tool on
    every turn. Longer text is usually documentation that belongs elsewhere.

    ## Example
    ```json prose-max=40
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string",
                        "description": "The query, in any language; quotes make a phrase."}}}}]}
    ```

    ## Fix
    Shorten it; `toolcat project` can trim or drop schema prose in the compact view.

    ## Options
    `prose-max` (default 300; config or `--prose-max`).
    """
    node = n.node
    if not isinstance(node, dict):
        return
    limit = ctx.config.prose_max
    for key in _PROSE_TEXT:
        v = node.get(key)
        if isinstance(v, str) and len(v) > limit:
            yield Hit(f"{key} is {len(v):,} characters (max {limit:,})", n.ptr(key))


@rule("SC305", "ref-siblings-ignored", "warning",
      "validation keywords next to `$ref` are ignored in draft-04/06/07", scope="node",
      schemas=("input", "output"), keys=("$ref",), pure=True)
def ref_siblings(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports validation keywords next to `$ref` in draft-04/06/07 schemas.

    ## Why
    Before 2019-09, a schema object with `$ref` is replaced by the referenced schema: every other
    keyword beside it is ignored. A `type`, `minimum` or `enum` written next to a `$ref` in a
    draft-07 schema therefore constrains nothing, though models and readers assume it does.

    ## Example
    ```json
    {"tools": [{"name": "order", "description": "Order some items.",
                "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                                "type": "object", "properties": {
                                  "count": {"$ref": "#/definitions/Count", "maximum": 10}},
                                "definitions": {"Count": {"type": "integer"}}}}]}
    ```

    ## Fix
    Wrap them with the reference in an `allOf`, or move the schema to 2020-12:
    ```json
    {"tools": [{"name": "order", "description": "Order some items.",
                "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                                "type": "object", "properties": {
                                  "count": {"allOf": [{"$ref": "#/definitions/Count"},
                                                      {"maximum": 10}]}},
                                "definitions": {"Count": {"type": "integer"}}}}]}
    ```
    """
    node = n.node
    if not isinstance(node, dict) or n.dialect not in LEGACY_DIALECTS or "$ref" not in node:
        return
    table = KEYWORDS[n.dialect]
    ignored = [k for k in node if k != "$ref" and k in table and table[k].role == VALIDATION]
    if ignored:
        yield Hit(f"ignored next to $ref in {n.dialect}: {', '.join(ignored)}", n.ptr("$ref"))


_KNOWN_EXTRA = frozenset({
    "nullable", "discriminator", "xml", "externalDocs", "example", "propertyOrdering",
    "markdownDescription", "errorMessage", "enumDescriptions", "enumNames", "optional",
})
_ALL_KEYWORDS = frozenset(k for d in DIALECTS for k in KEYWORDS[d])


def _near(a: str, b: str) -> bool:
    """Edit distance exactly 1 (one insertion, deletion, substitution or transposition)."""
    if a == b:
        return False
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
            and a[diff[1]] == b[diff[0]]
    if la > lb:
        a, b = b, a
    for i in range(len(b)):
        if b[:i] + b[i + 1:] == a:
            return True
    return False


_SUGGEST: dict[str, str | None] = {}


def _suggest(key: str) -> str | None:
    if key in _SUGGEST:
        return _SUGGEST[key]
    hit = None
    if len(key) >= 5 and not key.startswith(("x-", "$")) or key.startswith("$") and len(key) >= 4:
        low = key.lower()
        for kw in sorted(_ALL_KEYWORDS):
            if len(kw) >= 5 and (low == kw.lower() or _near(low, kw.lower())):
                hit = kw
                break
    if len(_SUGGEST) < 10000:
        _SUGGEST[key] = hit
    return hit


def _allows_null(t: Any) -> bool:
    return t == "null" or (isinstance(t, list) and "null" in t)


@rule("SC306", "keyword-no-effect", "warning",
      "a keyword that JSON Schema ignores: OpenAPI's `nullable`, or a misspelt keyword",
      scope="node", schemas=("input", "output"), pure=True)
def keyword_no_effect(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a keyword that JSON Schema ignores: OpenAPI 3.0's `nullable: true` in a JSON Schema
    (MCP, OpenAI, Anthropic tools), or a misspelt keyword (`requried`, `descripton`,
    `minLenght`).

    ## Why
    Unknown keywords are legal in JSON Schema and silently ignored, which hides two common
    mistakes: `nullable` does not make `null` valid, and misspelt keywords constrain or describe
    nothing.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string", "minLenght": 1}}}}]}
    ```

    ## Fix
    Spell the keyword; write `"type": ["string", "null"]` for `nullable`:
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "q": {"type": "string", "minLength": 1}}}}]}
    ```
    """
    node = n.node
    if not isinstance(node, dict):
        return
    table = KEYWORDS[n.dialect]
    for key in node:
        if key in table or key.startswith("x-"):
            continue
        if key == "nullable":
            if registry.get(ctx.catalog.format).openapi_schemas:
                continue   # Gemini's Schema object is OpenAPI 3.0's: nullable is its keyword
            if node[key] is True and not _allows_null(node.get("type")):
                yield Hit("`nullable` is an OpenAPI 3.0 keyword that JSON Schema ignores: null "
                          "is not accepted (add \"null\" to `type`)", n.ptr(key))
            continue
        if key in _ALL_KEYWORDS or key in _KNOWN_EXTRA:
            continue
        s = _suggest(key)
        if s is not None and s in table:
            yield Hit(f"unknown keyword {key!r} has no effect (did you mean {s!r}?)", n.ptr(key))


def json_type(v: Any) -> str:
    """The JSON type of a value, with an integral float as "integer" (draft-06 and later)."""
    k = python_kind(v)
    return "integer" if k == "number" and v.is_integer() else k


def _type_ok(v: Any, types: list[str]) -> bool:
    t = json_type(v)
    return t in types or (t == "integer" and "number" in types)


def _types_of(node: Any, root: Any, depth: int, memo: dict) -> list[str] | None:
    """The JSON types ``node`` can accept, as far as they are known: its own `type`, else the
    union of its `anyOf`/`oneOf` branches' (each known, local `$ref`s followed), else its
    `$ref` target's; None when unknown (a value of another type is then not judged).
    (memo: id -> result, None while a node is looked at: each node once.)"""
    if not isinstance(node, dict) or depth < 0:
        return None
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return t if all(isinstance(x, str) for x in t) else None
    if t is not None or id(node) in memo:
        return memo.get(id(node))
    memo[id(node)] = None
    got: list[str] | None = None
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            union: list[str] = []
            for b in branches:
                bt = _types_of(b, root, depth - 1, memo)
                if bt is None:
                    union = []
                    break
                union += [x for x in bt if x not in union]
            got = union or None
            break
    else:
        ref = node.get("$ref")
        if isinstance(ref, str):
            got = _types_of(local_target(ref, root), root, depth - 1, memo)
    memo[id(node)] = got
    return got


_APPLICATORS = ("allOf", "anyOf", "oneOf")


def _mismatches(node: dict, types: list[str]) -> Iterator[tuple[str, str, tuple]]:
    """(kind, message, pointer tokens below ``node``) for its `default`, `const` and first
    `enum` value that ``types`` excludes."""
    shown = "/".join(types)
    if "default" in node and not _type_ok(node["default"], types):
        yield "default", f"default is {json_type(node['default'])} but type is {shown}", \
            ("default",)
    if "const" in node and not _type_ok(node["const"], types):
        yield "const", f"const is {json_type(node['const'])} but type is {shown}", ("const",)
    enum = node.get("enum")
    if isinstance(enum, list):
        for i, v in enumerate(enum):
            if not _type_ok(v, types):
                yield "enum", f"enum value {v!r} is {json_type(v)} but type is {shown}", \
                    ("enum", i)
                break


def _branch_mismatches(node: dict, types: list[str], root: Any) -> Iterator[tuple[str, str]]:
    """(kind, message) for the values of the schemas an instance of ``node`` must also meet
    (its `allOf`/`anyOf`/`oneOf` branches, theirs, and the local `$ref` targets of each, up
    to 16 levels and 256 schema objects, each read once) that ``node``'s own ``types``
    exclude: such a value can never be valid. A value its own schema's type already excludes
    is left to that schema's check."""
    seen: set[int] = set()
    stack = [(b, 16) for key in reversed(_APPLICATORS) if isinstance(node.get(key), list)
             for b in reversed(node[key])]
    while stack and len(seen) < 256:
        b, depth = stack.pop()
        if not isinstance(b, dict) or id(b) in seen or depth < 0:
            continue
        seen.add(id(b))
        own = _types_of(b, root, 16, {})
        excluded = set() if own is None else {k for k, _m, _p in _mismatches(b, own)}
        for kind, msg, _at in _mismatches(b, types):
            if kind not in excluded:
                yield kind, msg
        for key in reversed(_APPLICATORS):
            if isinstance(b.get(key), list):
                stack.extend((x, depth - 1) for x in reversed(b[key]))
        ref = b.get("$ref")
        if isinstance(ref, str):
            stack.append((local_target(ref, root), depth - 1))


@rule("SC307", "value-type-mismatch", "warning",
      "`default`, `const` or an `enum` value does not match the schema's own `type`",
      scope="node", schemas=("input", "output"),
      keys=("default", "const", "enum", *_APPLICATORS))
def value_type_mismatch(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a `default`, `const` or `enum` value that does not match the schema's own `type`.
    Only the JSON type is compared (integer values count as numbers); a schema without `type`
    is judged by the types its `anyOf`/`oneOf` branches (or its local `$ref`) allow, when every
    branch says. A schema with a `type` also judges the values of its `allOf`/`anyOf`/`oneOf`
    branches (through local `$ref`s): `{"type": "object", "oneOf": [{"$ref": "#/$defs/Status"},
    {"type": "null"}]}` with a string enum in Status accepts none of its values (reported at that
    `type`, with the message a view that merged the branches into the schema gets).

    ## Why
    A `default` of `"10"` on an `integer` parameter, or an `enum` of strings on a `number`,
    contradicts the schema: a model that copies the default sends an invalid call, and an enum
    value of the wrong type can never be valid.

    ## Example
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "limit": {"type": "integer", "default": "10"}}}}]}
    ```

    ## Fix
    ```json
    {"tools": [{"name": "search", "description": "Search the web for a query.",
                "inputSchema": {"type": "object", "properties": {
                  "limit": {"type": "integer", "default": 10}}}}]}
    ```
    """
    node = n.node
    if not isinstance(node, dict):
        return
    root = tool.input_schema if n.role == "input" else tool.output_schema
    types = _types_of(node, root, 16, {})
    if types is None:
        return
    if node.get("nullable") is True and registry.get(ctx.catalog.format).openapi_schemas:
        types = [*types, "null"]   # Gemini's Schema object (OpenAPI 3.0): nullable adds null
    own = set()
    for kind, msg, at in _mismatches(node, types):
        own.add(kind)
        yield Hit(msg, n.ptr(*at))
    if "type" in node and any(isinstance(node.get(k), list) for k in _APPLICATORS):
        for kind, msg in _branch_mismatches(node, types, root):
            if kind not in own:
                own.add(kind)
                yield Hit(msg, n.ptr("type"))


@rule("SC308", "required-read-only", "warning",
      "a required property that the other side owns: `readOnly` in an input, `writeOnly` in "
      "an output", scope="node", schemas=("input", "output"), keys=("required", "allOf"))
def required_read_only(ctx: Context, tool: Tool, n: Node) -> Iterator[Hit]:
    """## What it does
    Reports a required property that the other side owns: `readOnly` in an input, `writeOnly`
    in an output. A property is marked by its own schema (through `$ref`s and composition) or by
    any schema whose properties apply to the same instance: the `allOf` branches of the node with
    the `required`, and their siblings when that node is itself a branch (a base schema that
    marks `id` readOnly, joined with a branch that requires it).

    ## Why
    A property marked `readOnly` is set by the server (an id, a creation time); listed in an
    inputSchema's `required`, it makes the model invent a value on every call, and a client that
    validates arguments rejects the calls that leave it out. The same holds for a `writeOnly`
    property (a password) required in an outputSchema.

    ## Not reported
    OpenAPI 3.0 and Swagger 2.0 say such a property is required in responses only, and
    toolcat's loader applies that; OpenAPI 3.1 and MCP schemas keep JSON Schema's meaning (the
    keywords are annotations), so the `required` stands as written.

    ## Example
    ```json
    {"tools": [{"name": "update_pet", "description": "Update a pet.",
                "inputSchema": {"type": "object", "properties": {
                  "id": {"type": "string", "readOnly": true},
                  "name": {"type": "string"}}, "required": ["id", "name"]}}]}
    ```

    ## Fix
    Drop the name from `required`, or use separate request and response schemas.
    """
    node = n.node
    if not isinstance(node, dict):
        return
    flag = "readOnly" if n.role == "input" else "writeOnly"
    root = tool.input_schema if n.role == "input" else tool.output_schema
    done = _reported(ctx, "SC308", tool)
    req = node.get("required")
    if isinstance(req, list) and req:
        # a branch of allOf: its siblings' properties apply too
        top = _at(root, _allof_top(n.path))
        yield from _required_flagged(req, conjoined_properties(top, root), flag, root,
                                     n.ptr("required"), done)
    if "allOf" in node:
        maps = None
        for frag, target in _referenced_required(node, root):
            maps = maps if maps is not None else conjoined_properties(node, root)
            yield from _required_flagged(target["required"], maps, flag, root,
                                         n.base + frag + "/required", done)


def _required_flagged(req: list, maps: list[dict], flag: str, root: Any, at: str,
                      done: set) -> Iterator[Hit]:
    """SC308's findings for the names of ``req`` marked ``flag`` in ``maps`` (``at``: the
    pointer of the list; ``done``: the pointers reported for this tool already)."""
    for i, name in enumerate(req):
        ptr = f"{at}/{i}"
        if ptr not in done and flagged_property(name, maps, flag, root):
            done.add(ptr)
            side = "an input the server sets" if flag == "readOnly" else \
                "an output the server never returns"
            yield Hit(f"required property {name!r} is {flag}: {side}", ptr)
