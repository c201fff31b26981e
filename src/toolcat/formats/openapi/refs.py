"""`$ref` resolution and per-tool schema bundling for OpenAPI / Swagger documents.

:class:`Resolver` turns a ``$ref`` found at a place of a document into the node it names:
local JSON pointers, OpenAPI 3.1 ``$id``/``$anchor`` references (indexed in schema positions
only, through the walker), and relative files next to the spec (real path inside the spec's own
folder tree, reached through no symbolic link, or refused). It never fetches a URL. A failure is a message, not an exception.

:class:`Bundler` converts each referenced schema ONCE per spec into a shared *def*
(``#/$defs/<name>`` references, tool-independent names) and gives each tool the transitive
closure of the defs it uses. Def schemas are shared between tools: never mutate them.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator
from urllib.parse import quote, unquote, urldefrag, urljoin, urlparse

from toolcat.document import pointer as jp
from toolcat.document.parse import Limits, load_file
from toolcat.document.source import SourceText
from toolcat.errors import InputError
from toolcat.formats.openapi.schema import TRIGGERS, convert_node, needs_conversion
from toolcat.model import FILE_MARK, Catalog, Problem
from toolcat.schema.keywords import DRAFT2020, is_prose_key
from toolcat.schema.walker import iter_schemas, transform

PROBLEM_CODE = "SC302"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NAME_BAD = re.compile(r"[^A-Za-z0-9._-]+")
_MISSING = object()


def _file_uri(real: str) -> str:
    return "file://" + quote(real)


def file_pointer(file: str, pointer: str) -> str:
    """An origin source pointer into another file than the tool's own (see Tool.source_pointer)."""
    return f"{FILE_MARK}{file}{FILE_MARK}{pointer}"


class Doc:
    """One parsed document (the spec, or a file it refers to)."""

    __slots__ = ("path", "real", "uri", "data", "src", "ids")

    def __init__(self, path: str, real: str | None, uri: str, data: Any, src: SourceText) -> None:
        self.path = path        # as shown to users (relative to the spec path as given)
        self.real = real        # real path on disk (None for stdin)
        self.uri = uri          # base URI
        self.data = data
        self.src = src
        self.ids: dict[str, str] = {}   # pointer of a node with `$id` -> its absolute URI


class BrokenRef:
    """A ``$ref`` that does not resolve, met while building a tool (``--broken-refs widen``
    or ``omit``): where it is written, what it says, and (in a schema, widened) the node
    that stands in for it in the converted schema (``{}`` plus the node's other keywords),
    by which the loader finds its tool pointer."""

    __slots__ = ("file", "pointer", "ref", "message", "node")

    def __init__(self, file: str, pointer: str, ref: str, message: str, node: Any = None) -> None:
        self.file = file
        self.pointer = pointer      # source pointer of the `$ref` member
        self.ref = ref
        self.message = message
        self.node = node


#: what the commands that need clean input do with a ``$ref`` that does not resolve
#: (``--broken-refs``): ``widen`` the schema there to ``{}`` (reported), ``omit`` the tools
#: that use it (reported), or ``fail`` (the whole catalog is an input error)
BROKEN_REFS = ("widen", "omit", "fail")


class Target:
    __slots__ = ("doc", "pointer", "node")

    def __init__(self, doc: Doc, pointer: str, node: Any) -> None:
        self.doc = doc
        self.pointer = pointer
        self.node = node


# --------------------------------------------------------------------------- schema positions

_MEDIA_HOLDERS = ("requestBodies", "responses")


def _media_schemas(obj: Any, ptr: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(obj, dict):
        return
    if "schema" in obj:
        yield ptr + "/schema", obj["schema"]
    content = obj.get("content")
    if isinstance(content, dict):
        for mt, media in content.items():
            if isinstance(media, dict):
                for key in ("schema", "itemSchema"):    # itemSchema: OpenAPI 3.2 sequences
                    if key in media:
                        yield f"{ptr}/content/{jp.escape(mt)}/{key}", media[key]
    headers = obj.get("headers")
    if isinstance(headers, dict):
        for name, h in headers.items():
            yield from _media_schemas(h, f"{ptr}/headers/{jp.escape(name)}")


def _operation_schemas(op: Any, ptr: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(op, dict):
        return
    params = op.get("parameters")
    if isinstance(params, list):
        for i, p in enumerate(params):
            yield from _media_schemas(p, f"{ptr}/parameters/{i}")
    yield from _media_schemas(op.get("requestBody"), ptr + "/requestBody")
    responses = op.get("responses")
    if isinstance(responses, dict):
        for code, r in responses.items():
            yield from _media_schemas(r, f"{ptr}/responses/{jp.escape(code)}")
    callbacks = op.get("callbacks")
    if isinstance(callbacks, dict):
        for name, cb in callbacks.items():
            if isinstance(cb, dict):
                for expr, item in cb.items():
                    yield from _path_item_schemas(
                        item, f"{ptr}/callbacks/{jp.escape(name)}/{jp.escape(expr)}")


METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: OpenAPI 3.2: the QUERY method is a fixed field of a path item, and any other method is an
#: entry of its ``additionalOperations`` map
METHODS_32 = METHODS + ("query",)
ADDITIONAL = "additionalOperations"


def path_item_operations(item: dict, modern: bool = True) -> Iterator[tuple[str, str, Any]]:
    """(method, pointer suffix, operation) of a path item: the fixed methods, and with
    ``modern`` (OpenAPI 3.2 and later) ``query`` and the ``additionalOperations``."""
    methods = METHODS_32 if modern else METHODS
    for m, op in item.items():        # in the document's order
        if m in methods:
            yield m, "/" + m, op
        elif m == ADDITIONAL and modern and isinstance(op, dict):
            for name, aop in op.items():
                if isinstance(name, str) and name:
                    yield name.lower(), f"/{ADDITIONAL}/{jp.escape(name)}", aop


def _path_item_schemas(item: Any, ptr: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(item, dict):
        return
    params = item.get("parameters")
    if isinstance(params, list):
        for i, p in enumerate(params):
            yield from _media_schemas(p, f"{ptr}/parameters/{i}")
    for _m, suffix, op in path_item_operations(item):
        yield from _operation_schemas(op, ptr + suffix)


def openapi_schema_roots(data: Any) -> Iterator[tuple[str, Any]]:
    """Every schema root of an OpenAPI 3.x document (or a bare schema file) with its pointer."""
    if not isinstance(data, dict):
        return
    if not any(k in data for k in ("openapi", "paths", "components", "webhooks")):
        yield "", data  # a file holding one schema
        return
    comps = data.get("components")
    if isinstance(comps, dict):
        schemas = comps.get("schemas")
        if isinstance(schemas, dict):
            for name, s in schemas.items():
                yield f"/components/schemas/{jp.escape(name)}", s
        for kind in ("parameters", "headers") + _MEDIA_HOLDERS:
            group = comps.get(kind)
            if isinstance(group, dict):
                for name, obj in group.items():
                    yield from _media_schemas(obj, f"/components/{kind}/{jp.escape(name)}")
        items = comps.get("pathItems")
        if isinstance(items, dict):
            for name, item in items.items():
                yield from _path_item_schemas(item, f"/components/pathItems/{jp.escape(name)}")
        cbs = comps.get("callbacks")
        if isinstance(cbs, dict):
            for name, cb in cbs.items():
                if isinstance(cb, dict):
                    for expr, item in cb.items():
                        yield from _path_item_schemas(
                            item, f"/components/callbacks/{jp.escape(name)}/{jp.escape(expr)}")
    for top in ("paths", "webhooks"):
        group = data.get(top)
        if isinstance(group, dict):
            for key, item in group.items():
                yield from _path_item_schemas(item, f"/{top}/{jp.escape(key)}")


# --------------------------------------------------------------------------- resolver

class Resolver:
    """Resolve ``$ref`` strings; load referenced files (inside the spec's folder only)."""

    def __init__(self, data: Any, src: SourceText, path: str, catalog: Catalog,
                 index_ids: bool, limits: Limits | None = None,
                 broken_refs: str = "fail", root: str | None = None) -> None:
        self.catalog = catalog
        # --broken-refs widen|omit: a reference that does not resolve blocks no command; the
        # tool being built collects it in `sink` (the loader decides what becomes of it)
        self.lenient = broken_refs != "fail"
        self.sink: list[BrokenRef] | None = None
        self.limits = limits
        self.index_ids = index_ids
        self.rooted = root is not None
        if path == "-":
            self.folder = None
            real = None
            uri = "file:///%3Cstdin%3E"
        else:
            # refs stay inside the folder the user named (resolved once): a spec that is a
            # symbolic link does not move that folder to wherever the link points; --root
            # names a wider one (Azure's specs share ../../../../../common-types)
            self.spec_dir = os.path.realpath(os.path.dirname(os.path.abspath(path)))
            self.folder = os.path.realpath(root) if root is not None else self.spec_dir
            real = os.path.join(self.spec_dir, os.path.basename(path))
            uri = _file_uri(real)
        # OpenAPI 3.2 `$self`: the document's own URI, the base of its references; a
        # reference under the folder it names is the file under the spec's folder
        self.self_base: tuple[str, str] | None = None
        file_uri = uri
        own = data.get("$self") if isinstance(data, dict) and "openapi" in data else None
        if isinstance(own, str) and own and "#" not in own:
            uri = urljoin(file_uri, own)
            if uri != file_uri:
                self.self_base = (uri.rsplit("/", 1)[0] + "/", file_uri.rsplit("/", 1)[0] + "/")
        self.root = Doc(path, real, uri, data, src)
        self.given_dir = os.path.dirname(path) if path != "-" else ""
        self.docs_by_uri: dict[str, Doc] = {uri: self.root, file_uri: self.root}
        self.failed: dict[str, str] = {}
        self.reported: dict[tuple[str, str, str], Problem] = {}
        self.id_index: dict[str, tuple[Doc, str]] = {}
        self.anchors: dict[tuple[str, str], tuple[Doc, str]] = {}
        # local references ("#/...") of documents without $id: the answer depends only on
        # the document and the reference (a spec spells each one many times)
        self._local: dict[tuple[int, str], Target | str] = {}
        if index_ids and ("$id" in src.text or "$anchor" in src.text):
            self._index(self.root)

    # ---- $id / $anchor (schema positions only)
    def _index(self, doc: Doc) -> None:
        for root_ptr, schema in openapi_schema_roots(doc.data):
            for path, node, _d in iter_schemas(schema):
                if not isinstance(node, dict):
                    continue
                sid = node.get("$id")
                anchor = node.get("$anchor")
                if not isinstance(sid, str) and not isinstance(anchor, str):
                    continue
                ptr = root_ptr + jp.encode(path)
                if isinstance(sid, str):
                    uri = urldefrag(urljoin(self.base_uri(doc, ptr, inclusive=False), sid))[0]
                    doc.ids[ptr] = uri
                    self.id_index.setdefault(uri, (doc, ptr))
                if isinstance(anchor, str):
                    base = self.base_uri(doc, ptr)
                    self.anchors.setdefault((base, anchor), (doc, ptr))

    def base_uri(self, doc: Doc, at: str, inclusive: bool = True) -> str:
        """Base URI in force at pointer ``at`` (the nearest enclosing ``$id``)."""
        if not doc.ids:
            return doc.uri
        best, best_uri = -1, doc.uri
        for p, uri in doc.ids.items():
            if (inclusive and at == p) or at.startswith(p + "/"):
                if len(p) > best:
                    best, best_uri = len(p), uri
        return best_uri

    def resource_root(self, uri: str) -> tuple[Doc, str] | None:
        hit = self.id_index.get(uri)
        if hit is not None:
            return hit
        doc = self.docs_by_uri.get(uri)
        return (doc, "") if doc is not None else None

    # ---- files
    def _load(self, uri: str, ref: str) -> Doc | str:
        """The document at ``uri`` (loaded once), or why it cannot be: a message quoting
        ``ref`` as this reference spells it (a failure is remembered per file, not per
        spelling)."""
        if uri not in self.failed:
            loaded = self._load_file(uri)
            if isinstance(loaded, Doc):
                return loaded
            self.failed[uri] = loaded
        return self.failed[uri].format(ref=repr(ref))

    def _load_file(self, uri: str) -> Doc | str:
        local = unquote(urlparse(uri).path)
        if self.folder is None:
            return "$ref {ref} names a file, but the spec was read from stdin (no folder)"
        if "\x00" in local:
            return "$ref {ref} names a file whose name holds a NUL byte; not read"
        real = os.path.realpath(local)
        if os.path.commonpath([self.folder, real]) != self.folder:
            return ("$ref {ref} points outside the " + ("--root" if self.rooted else "spec's")
                    + " folder (" + self.folder.replace("{", "{{").replace("}", "}}")
                    + "); not read (--root DIR names a folder references may reach)")
        if real != os.path.normpath(local):
            # the folder and the referring document's own path are real paths: a name that
            # resolves elsewhere passes a symbolic link a spec's folder holds (one an attacker
            # may have planted beside the spec), even to a file inside the folder
            return ("$ref {ref} names a file through a symbolic link; not read (toolcat opens "
                    "no file a $ref reaches through a link)")
        rel = os.path.relpath(real, self.spec_dir)
        shown = os.path.normpath(os.path.join(self.given_dir, rel))
        try:
            # exact: the file opened is the one checked here, not one a link put on its way
            # since then leads to (O_NOFOLLOW, and the descriptor's own path where known)
            data, src = load_file(real, limits=self.limits, exact=True)
        except InputError as e:
            return ("$ref {ref}: cannot load " + shown.replace("{", "{{").replace("}", "}}")
                    + ": " + e.message.replace("{", "{{").replace("}", "}}"))
        doc = Doc(shown, real, _file_uri(real), data, src)
        self.docs_by_uri[uri] = doc
        self.docs_by_uri[doc.uri] = doc
        self.catalog.sources.setdefault(shown, src)
        if self.index_ids and ("$id" in src.text or "$anchor" in src.text):
            self._index(doc)
        return doc

    # ---- references
    def resolve(self, ref: str, doc: Doc, at: str) -> Target | str:
        """Resolve ``ref`` found at pointer ``at`` of ``doc``: a Target or an error message."""
        got = self.local(ref, doc)
        return got if got is not None else self._resolve(ref, doc, None, "", "", at)

    def resolve_at(self, ref: str, doc: Doc, base: str, path: tuple) -> Target | str:
        """:meth:`resolve` of ``ref`` found at ``path`` below pointer ``base`` of ``doc``, the
        pointer of the place built only when the answer depends on it (:meth:`local`)."""
        got = self.local(ref, doc)
        return got if got is not None else self._resolve(ref, doc, None, "", "",
                                                         base + jp.encode(path))

    def local(self, ref: str, doc: Doc) -> Target | str | None:
        """What :meth:`resolve` answers for ``ref`` in ``doc`` wherever it is written (a local
        reference of a document without ``$id``), or None when that depends on the place:
        then call :meth:`resolve` with it (callers that would build the pointer of the place
        for nothing ask this first)."""
        if ref.startswith("#") and not doc.ids:
            key = (id(doc), ref)
            got = self._local.get(key)
            if got is None:
                got = self._local[key] = self._resolve(ref, doc, doc, "", ref[1:])
            return got
        return None

    def _resolve(self, ref: str, doc: Doc, tdoc: Doc | None, rptr: str, frag: str,
                 at: str = "") -> Target | str:
        if tdoc is None:
            full = urljoin(self.base_uri(doc, at), ref)
            uri, frag = urldefrag(full)
            hit = self.resource_root(uri)
            if hit is None and ref.startswith("#"):
                hit = (doc, "")
            mapped = False
            if hit is None and self.self_base is not None and uri.startswith(self.self_base[0]):
                # under the folder `$self` names: the file at that place under the spec's
                uri = self.self_base[1] + uri[len(self.self_base[0]):]
                hit = self.resource_root(uri)
                mapped = True
            if hit is None:
                if (_SCHEME.match(ref) and not mapped) or urlparse(uri).scheme != "file":
                    return f"$ref {ref!r} is a URL; toolcat never fetches URLs"
                loaded = self._load(uri, ref)
                if isinstance(loaded, str):
                    return loaded
                hit = (loaded, "")
            tdoc, rptr = hit
        if frag == "" or frag.startswith("/"):
            try:
                tokens = jp.decode_fragment(frag)
            except ValueError:
                return f"$ref {ref!r} has a malformed JSON pointer"
            base_node = jp.resolve(tdoc.data, jp.decode(rptr), None) if rptr else tdoc.data
            node = jp.resolve(base_node, tokens, _MISSING)
            if node is _MISSING:
                where = jp.encode(tokens) or "/"
                return f"$ref {ref!r} does not resolve (no {where!r} in {tdoc.path})"
            return Target(tdoc, rptr + jp.encode(tokens), node)
        name = unquote(frag)
        res_uri = tdoc.ids.get(rptr, tdoc.uri)
        hit2 = self.anchors.get((res_uri, name))
        if hit2 is None:
            return f"$ref {ref!r} does not resolve (no $anchor {name!r})"
        adoc, aptr = hit2
        return Target(adoc, aptr, jp.resolve(adoc.data, jp.decode(aptr)))

    def problem(self, message: str, doc: Doc, pointer: str, tool: str | None,
                blocking: bool = True) -> None:
        """Record a problem once; ``blocking``: a tool is built from the part it is in
        (commands other than lint stop on it)."""
        key = (doc.path, pointer, message)
        p = self.reported.get(key)
        if p is not None:
            p.blocking = p.blocking or blocking
            return
        p = self.reported[key] = Problem(code=PROBLEM_CODE, message=message, file=doc.path,
                                         pointer=pointer, tool=tool, blocking=blocking)
        self.catalog.problems.append(p)

    def follow(self, obj: Any, doc: Doc, ptr: str, tool: str | None,
               blocking: bool = True) -> Target | None:
        """Follow an OpenAPI-level ``$ref`` chain (parameters, bodies, responses, path items)."""
        seen: set[tuple[int, str]] = set()
        while isinstance(obj, dict) and isinstance(obj.get("$ref"), str):
            key = (id(doc), ptr)
            if key in seen:
                self.problem(f"$ref cycle with no object in it at {ptr or '/'}", doc,
                             ptr + "/$ref", tool, blocking)
                return None
            seen.add(key)
            t = self.resolve(obj["$ref"], doc, ptr)
            if isinstance(t, str):
                self.problem(t, doc, ptr + "/$ref", tool, blocking and not self.lenient)
                if self.sink is not None and self.lenient:
                    self.sink.append(BrokenRef(doc.path, ptr + "/$ref", obj["$ref"], t))
                return None
            obj, doc, ptr = t.node, t.doc, t.pointer
        return Target(doc, ptr, obj)


# --------------------------------------------------------------------------- bundling

class Def:
    __slots__ = ("name", "key", "doc", "pointer", "node", "schema", "refs", "converting",
                 "broken")

    def __init__(self, name: str, doc: Doc, pointer: str, node: Any) -> None:
        self.name = name
        self.key = jp.escape(name)     # the name as a pointer token
        self.doc = doc
        self.pointer = pointer
        self.node = node
        self.schema: Any = None
        self.refs: frozenset[str] | set[str] = frozenset()
        self.converting = False
        self.broken: tuple[BrokenRef, ...] = ()   # its own broken refs (widened)


def _pure_ref(node: Any) -> bool:
    """A node that is only a reference (plus prose): it adds no schema of its own."""
    if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
        return False
    return all(k == "$ref" or is_prose_key(k) for k in node)


def _tuple_items(n: dict, path: tuple, hook: Any) -> dict:
    """Draft-4 tuple ``items: [...]`` (+ ``additionalItems``) as 2020-12 ``prefixItems``
    (+ ``items``)."""
    out: dict = {}
    for k, v in n.items():
        if k == "items":
            out["prefixItems"] = [transform(x, hook, DRAFT2020, path + ("items", i))
                                  if isinstance(x, (dict, bool)) else x for i, x in enumerate(v)]
            if "additionalItems" in n:
                extra = n["additionalItems"]
                out["items"] = (transform(extra, hook, DRAFT2020, path + ("additionalItems",))
                                if isinstance(extra, (dict, bool)) else extra)
        elif k != "additionalItems":
            out[k] = v
    return out


def sanitize_name(s: str) -> str:
    return _NAME_BAD.sub("_", s).strip("_") or "def"


class Bundler:
    """Convert referenced schemas once per spec; hand each tool its closure of defs."""

    def __init__(self, resolver: Resolver, swagger: bool, legacy_items: bool = False) -> None:
        self.r = resolver
        self.swagger = swagger
        # Swagger 2.0 / OpenAPI 3.0 schemas come from draft 4: `items: [...]` is a tuple
        self.legacy_items = legacy_items
        # keys that make a schema node need the hook (anything else is kept as built)
        self._hook_keys = TRIGGERS | {"$ref", "discriminator"} \
            | ({"items"} if legacy_items else set()) | ({"type"} if swagger else set())
        self.comp_tokens = ("definitions",) if swagger else ("components", "schemas")
        self.defs: dict[tuple[int, str], Def] = {}
        self.by_name: dict[str, Def] = {}
        self.inline: dict[tuple[int, str], tuple[Any, frozenset[str]]] = {}
        self.chains: dict[tuple[int, str], str | None] = {}
        # root components keep their own names; others get names that avoid them
        self.reserved: dict[str, str] = {}   # name -> pointer
        self.reserved_by_ptr: dict[str, str] = {}
        group = jp.resolve(resolver.root.data, self.comp_tokens, None)
        if isinstance(group, dict):
            base = "/" + "/".join(self.comp_tokens) + "/"
            for name in group:
                n = sanitize_name(name)
                ptr = base + jp.escape(name)
                if n not in self.reserved:
                    self.reserved[n] = ptr
                    self.reserved_by_ptr[ptr] = n
        self.tool: str | None = None
        self._closures: dict[frozenset[str], list[Def]] = {}
        # per converted schema (the inline key): the broken refs widened in it
        self.broken: dict[tuple[int, str], tuple[BrokenRef, ...]] = {}

    # ---- naming
    def _name(self, doc: Doc, ptr: str) -> str:
        if doc is self.r.root:
            n = self.reserved_by_ptr.get(ptr)
            if n is not None:
                return n
        toks = jp.decode(ptr)
        if len(toks) >= 3 and toks[0] == "components" and toks[1] == "schemas":
            toks = toks[2:]
        elif len(toks) >= 2 and toks[0] == "definitions":
            toks = toks[1:]
        base = sanitize_name("_".join(toks))
        if doc is not self.r.root:
            stem = sanitize_name(os.path.splitext(os.path.basename(doc.path))[0])
            base = stem if not toks else (base if len(toks) == 1 else f"{stem}_{base}")
        n, i = base, 1
        while n in self.by_name or n in self.reserved:
            i += 1
            n = f"{base}_{i}"
        return n

    def _def_for(self, t: Target) -> Def:
        key = (id(t.doc), t.pointer)
        d = self.defs.get(key)
        if d is None:
            d = Def(self._name(t.doc, t.pointer), t.doc, t.pointer, t.node)
            self.defs[key] = d
            self.by_name[d.name] = d
        return d

    # ---- references inside schemas
    def _ref_target(self, ref: str, doc: Doc, base: str, path: tuple) -> Target | None:
        """The schema ``ref`` names, found at ``path`` below pointer ``base`` of ``doc`` (the
        pointer of the place is built only when needed: to resolve there, for a problem)."""
        t = self.r.resolve_at(ref, doc, base, path)
        if isinstance(t, str):
            err: str | None = t
        elif not isinstance(t.node, (dict, bool)):
            err = f"$ref {ref!r} points at a {type(t.node).__name__}, not a schema"
        else:
            err = self._chain_error(t)
        if err is not None:
            self.r.problem(err, doc, base + jp.encode(path) + "/$ref", self.tool,
                           not self.r.lenient)
            return None
        assert not isinstance(t, str)     # (a str is an error, returned above)
        return t

    def _chain_error(self, t: Target) -> str | None:
        """A cycle of references with no schema in it never ends: report it."""
        key = (id(t.doc), t.pointer)
        if key in self.chains:
            return self.chains[key]
        seen: list[tuple[int, str]] = []
        names: list[str] = []
        cur: Target | str = t
        err: str | None = None
        while isinstance(cur, Target) and _pure_ref(cur.node):
            k = (id(cur.doc), cur.pointer)
            if k in self.chains:
                err = self.chains[k]
                break
            if k in seen:
                names.append(cur.pointer)
                err = "$ref cycle with no schema in it: " + " -> ".join(names)
                break
            seen.append(k)
            names.append(cur.pointer)
            cur = self.r.resolve(cur.node["$ref"], cur.doc, cur.pointer)
        # a broken link further down is reported where it is written, not here
        for k in seen:
            self.chains[k] = err
        self.chains[key] = err
        return err

    def convert(self, node: Any, doc: Doc, ptr: str) -> tuple[Any, frozenset[str]]:
        """Convert the schema at ``ptr`` of ``doc`` (cached); returns (schema, def names used)."""
        key = (id(doc), ptr)
        hit = self.inline.get(key)
        if hit is None:
            broken: list[BrokenRef] = []
            hit = self.inline[key] = self._convert(node, doc, ptr, broken)
            if broken:
                self.broken[key] = tuple(broken)
        sink = self.r.sink
        if sink is not None and key in self.broken:
            sink.extend(self.broken[key])
        return hit

    def _convert(self, node: Any, doc: Doc, ptr: str,
                 broken: list[BrokenRef]) -> tuple[Any, frozenset[str]]:
        refs: set[str] = set()
        lenient = self.r.lenient
        swagger = self.swagger
        tuples = self.legacy_items
        encode = jp.encode
        wanted = self._hook_keys

        def hook(n: Any, path: tuple, _dialect: str) -> Any:
            if n.__class__ is not dict or wanted.isdisjoint(n):
                return n
            if tuples and isinstance(n.get("items"), list):
                n = _tuple_items(n, path, hook)
            ref = n.get("$ref")
            gone = None
            if isinstance(ref, str):
                t = self._ref_target(ref, doc, ptr, path)
                if t is not None:
                    d = self._def_for(t)
                    n["$ref"] = "#/$defs/" + jp.escape(d.name)
                    refs.add(d.name)
                elif lenient:
                    # widened: the reference is one conjunct of the node; without it the
                    # node accepts a superset ({} where it stood alone)
                    at = ptr + encode(path) + "/$ref"
                    why = self.r.resolve_at(ref, doc, ptr, path)
                    gone = BrokenRef(doc.path, at, ref,
                                     why if isinstance(why, str) else "does not name a schema")
                    del n["$ref"]
                    broken.append(gone)
            disc = n.get("discriminator")
            if isinstance(disc, dict) and isinstance(disc.get("mapping"), dict):
                n["discriminator"] = self._mapping(disc, doc, ptr + encode(path), refs)
            if needs_conversion(n, swagger):
                n = convert_node(n, swagger)
            if gone is not None:
                gone.node = n
            return n

        return transform(node, hook), frozenset(refs)

    def _mapping(self, disc: dict, doc: Doc, at: str, refs: set[str]) -> dict:
        """Point discriminator mapping entries at the bundled defs (annotation: no problems)."""
        mapping = {}
        for k, v in disc["mapping"].items():
            if isinstance(v, str) and ("#" in v or "/" in v):
                t = self.r.resolve(v, doc, at)
                if isinstance(t, Target) and isinstance(t.node, (dict, bool)) \
                        and self._chain_error(t) is None:
                    d = self._def_for(t)
                    refs.add(d.name)
                    v = "#/$defs/" + jp.escape(d.name)
            mapping[k] = v
        return {**disc, "mapping": mapping}

    def ensure(self, d: Def) -> None:
        if d.schema is not None or d.converting:
            return
        d.converting = True
        schema, refs = self.convert(d.node, d.doc, d.pointer)
        if isinstance(schema, dict) and ("$schema" in schema or "$vocabulary" in schema):
            schema = {k: v for k, v in schema.items() if k not in ("$schema", "$vocabulary")}
        d.schema = schema
        d.refs = refs
        d.broken = self.broken.get((id(d.doc), d.pointer), ())
        d.converting = False

    def closure(self, names: frozenset[str] | set[str]) -> list[Def]:
        """Every def reachable from ``names`` (converted), ordered by name. The same list for
        the same names (many operations of a spec bundle the same ones): do not change it."""
        key = names if isinstance(names, frozenset) else frozenset(names)
        got = self._closures.get(key)
        if got is None:
            got = self._closures[key] = self._closure(key)
        sink = self.r.sink
        if sink is not None and self.broken:
            for d in got:
                sink.extend(d.broken)
        return got

    def _closure(self, names: frozenset[str]) -> list[Def]:
        seen: set[str] = set()
        stack = list(names)
        by_name = self.by_name
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            d = by_name[n]
            if d.schema is None:
                self.ensure(d)
            for m in d.refs:
                if m not in seen:
                    stack.append(m)
        return [by_name[n] for n in sorted(seen)]

    def resolve_def_root(self, schema: Any) -> Def | None:
        """The def a converted schema merely points at (``{"$ref": "#/$defs/X"}`` + prose)."""
        seen: set[str] = set()
        d = None
        while _pure_ref(schema) and schema["$ref"].startswith("#/$defs/"):
            name = jp.unescape(schema["$ref"][len("#/$defs/"):])
            if name in seen or name not in self.by_name:
                return None
            seen.add(name)
            d = self.by_name[name]
            self.ensure(d)
            schema = d.schema
        return d
