"""OpenAPI 3.x and Swagger 2.0 documents into tools: one tool per operation.

The standard view built here is *lossless*: a request the operation accepts (parameters plus
body) validates against the tool's ``inputSchema`` and one it rejects does not.

* ``inputSchema`` is an object whose properties are the path, query, header (and, with
  ``--cookies``, cookie) parameters, then the request body: an object body whose keywords are
  only ``type/properties/required/additionalProperties`` (plus prose) is merged in when its
  names collide with no parameter and merging keeps "body absent" valid; any other body goes
  whole under ``body`` (``requestBody``... when that name is taken).
* ``outputSchema`` is the schema of the first 2xx response with a JSON media type.
* Schemas are converted to JSON Schema 2020-12 (:mod:`toolcat.formats.openapi.schema`) and bundled
  per tool as ``$defs`` (:mod:`toolcat.formats.openapi.refs`). Unresolvable references become
  :class:`~toolcat.model.Problem` entries (code SC302), never exceptions.
"""

from __future__ import annotations

import re
from typing import Any

from toolcat.document import pointer as jp
from toolcat.document.scalars import json_key_pattern
from toolcat.document.source import SourceText
from toolcat.errors import InputError
from toolcat.formats.openapi.refs import (
    BrokenRef,
    Bundler,
    Def,
    Doc,
    Resolver,
    Target,
    file_pointer,
    path_item_operations,
)
from toolcat.model import OPENAPI3, SWAGGER2, Catalog, Problem, Tool
from toolcat.schema.keywords import ANNOTATION, DRAFT2020, KEYWORDS, is_prose_key

# `querystring` (OpenAPI 3.2): the whole query string as one parameter (its `content` schema)
_LOC_RANK = {"path": 0, "query": 1, "querystring": 1, "header": 2, "cookie": 3}
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_ID_BAD = re.compile(r"[^A-Za-z0-9_-]+")
_UNDERSCORES = re.compile(r"_+")
_2XX = re.compile(r"2(?:\d\d|XX|xx)")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

# Swagger 2.0 parameter keywords that describe the value (the rest is serialization or prose)
_SW_VALUE_KEYS = ("type", "format", "items", "enum", "default", "maximum", "exclusiveMaximum",
                  "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
                  "minItems", "uniqueItems", "multipleOf", "x-nullable")

_KW = KEYWORDS[DRAFT2020]
_MERGE_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "xml",
                         "externalDocs"})
#: the inputSchema keys (prose: the compact view moves them to the handbook) that keep what
#: the spec says about the inputs a tool has no schema for: the parameters it leaves out
#: ([{name, in, description}]) and a merged request body's other annotations
OMITTED_KEY = "x-toolcat-omitted-parameters"
BODY_KEY = "x-toolcat-request-body"


def fallback_id(method: str, where: str) -> str:
    """``get /pets/{id}`` -> ``get_pets_id``."""
    s = _ID_BAD.sub("_", f"{method} {where}")
    return _UNDERSCORES.sub("_", s).strip("_") or method


def _json_true_key(word: str) -> re.Pattern:
    """A JSON text's member ``"word": true``: the key as written (:func:`json_key_pattern`),
    JSON's whitespace around the colon."""
    return re.compile(json_key_pattern(word) + r"[ \t\n\r]*:[ \t\n\r]*true")


def _media_base(mt: str) -> str:
    return mt.split(";", 1)[0].strip().lower()


def is_json_media(mt: str) -> bool:
    b = _media_base(mt)
    return b == "application/json" or b.endswith("+json") or b == "text/json"


def _mergeable_keys(schema: dict) -> bool:
    for k in schema:
        if k in _MERGE_KEYS or is_prose_key(k):
            continue
        kw = _KW.get(k)
        if kw is not None and kw.role == ANNOTATION and k != "format":
            continue
        return False
    return True


def _is_object_type(t: Any) -> bool:
    return t == "object" or t == ["object"]


class _Loader:
    def __init__(self, doc: dict, src: SourceText, path: str, opts: Any, cat: Catalog) -> None:
        self.opts = opts
        self.cat = cat
        assert isinstance(cat.tools, list)     # a catalog being loaded: its tools are a list
        self.tools = cat.tools
        self.swagger = "openapi" not in doc
        version = cat.version or ""
        index_ids = not self.swagger and not version.startswith("3.0")
        # OpenAPI 3.2 (and a later version, read as 3.2): QUERY, additionalOperations
        self.modern = not self.swagger and not version.startswith(("3.0", "3.1"))
        self.broken_refs = getattr(opts, "broken_refs", None) or "fail"
        self.r = Resolver(doc, src, path, cat, index_ids, getattr(opts, "limits", None),
                          self.broken_refs, getattr(opts, "root", None))
        self.b = Bundler(self.r, self.swagger,
                         legacy_items=self.swagger or version.startswith("3.0"))
        self.root = self.r.root
        from toolcat.formats.openapi.check import RefChecker

        self.check = RefChecker(self.r, self.swagger, modern=index_ids)
        # OpenAPI 3.0 and Swagger 2.0: a required property marked readOnly is required in
        # responses only, one marked writeOnly (3.0) in requests only
        self.context_required = self.swagger or version.startswith("3.0")
        self._ctx_cache: dict[str, dict] = {"readOnly": {}, "writeOnly": {}}
        self._mentioned: dict[tuple[str, str], bool] = {}
        # per closure list (held, so that its id stays its own): its $defs map and origins
        self._defs_maps: dict[int, tuple[list, dict]] = {}
        self._origins: dict[tuple[int, str, str], tuple[list, list]] = {}
        self._def_entries: dict[tuple[str, str], dict[Def, tuple[str, str]]] = {}
        self._params: dict[tuple[int, str], tuple[Any, frozenset[str], Doc, str]] = {}
        self._param_broken: dict[tuple[int, str], tuple[BrokenRef, ...]] = {}

    def _mentions(self, word: str) -> bool:
        """Whether any document read so far may mark a schema ``word: true`` (a cheap gate:
        each document's text is searched once). A YAML text: whether it has ``word`` at all
        (a key may be written in many ways); a JSON text: whether it has a key spelling
        ``word`` (:func:`_json_true_key`) with the value ``true``, which Kubernetes' text,
        where readOnly is a property name and a word of the prose, does not."""
        seen = self._mentioned
        for uri, d in self.r.docs_by_uri.items():
            key = (word, uri)
            hit = seen.get(key)
            if hit is None:
                text = d.src.text
                hit = word in text
                if hit and d.src.syntax == "json":
                    hit = _json_true_key(word).search(text) is not None
                seen[key] = hit
            if hit:
                return True
        return False

    # ---------------------------------------------------------------- helpers
    def _tool_src(self, tool: Tool, doc: Doc, ptr: str) -> str:
        return ptr if doc.path == tool.file else file_pointer(doc.path, ptr)

    # ---------------------------------------------------------------- traversal
    def run(self) -> None:
        data = self.root.data
        paths = data.get("paths")
        if isinstance(paths, dict):
            for p, item in paths.items():
                self.path_item(item, self.root, "/paths/" + jp.escape(p), p, None)
        hooks = data.get("webhooks")
        if self.opts is not None and getattr(self.opts, "webhooks", False) and not self.swagger:
            if isinstance(hooks, dict):
                for name, item in hooks.items():
                    self.path_item(item, self.root, "/webhooks/" + jp.escape(name), None, name)
        elif not paths and isinstance(hooks, dict) and hooks and not self.swagger:
            self._webhooks_not_read(hooks)
        self.check.components()

    def _webhooks_not_read(self, hooks: dict) -> None:
        """TC114: a document whose only operations are webhooks, read without ``--webhooks``,
        is a catalog of no tools; say so rather than "no problems, 0 tools"."""
        n = len(hooks)
        self.cat.problems.append(Problem(
            code="TC114", file=self.cat.file, pointer="/webhooks", blocking=False,
            message=f"no tool: no operation under paths, only {n} webhook{'s' if n != 1 else ''}"
                    " (webhooks become tools with --webhooks)"))

    def path_item(self, item: Any, doc: Doc, ptr: str, http_path: str | None,
                  webhook: str | None) -> None:
        sink: list[BrokenRef] = []
        self.r.sink = sink
        t = self.r.follow(item, doc, ptr, None)
        self.r.sink = None
        if sink:     # no operation of it is known: they are all left out
            self._record_broken(None, ptr, sink, "omitted")
        if t is None or not isinstance(t.node, dict):
            return
        item, doc, ptr = t.node, t.doc, t.pointer
        shared = item.get("parameters")
        if isinstance(shared, list):
            from toolcat.formats.openapi.check import PARAMETER

            for i, p in enumerate(shared):
                self.check.walk(p, doc, f"{ptr}/parameters/{i}", PARAMETER)
        for m, suffix, op in list(path_item_operations(item, self.modern)):
            self.operation(op, doc, ptr + suffix, m, http_path, webhook,
                           shared if isinstance(shared, list) else None, ptr)

    # ---------------------------------------------------------------- one operation
    def operation(self, op: Any, item_doc: Doc, op_ptr: str, method: str,
                  http_path: str | None, webhook: str | None, shared: list | None,
                  item_ptr: str) -> None:
        sink: list[BrokenRef] = []
        self.r.sink = sink
        try:
            self._operation(op, item_doc, op_ptr, method, http_path, webhook, shared, item_ptr,
                            sink)
        finally:
            self.r.sink = None

    def _operation(self, op: Any, item_doc: Doc, op_ptr: str, method: str,
                   http_path: str | None, webhook: str | None, shared: list | None,
                   item_ptr: str, sink: list[BrokenRef]) -> None:
        doc = item_doc
        if isinstance(op, dict) and "$ref" in op:
            # not in the OpenAPI specification, but real specs (DigitalOcean's) keep each
            # operation in a file of its own: `get: {$ref: resources/x/list.yml}`
            t = self.r.follow(op, item_doc, op_ptr, None)
            if t is not None:
                op, doc, op_ptr = t.node, t.doc, t.pointer
            else:
                if sink:    # what the operation is is not known: it is left out
                    self._record_broken(fallback_id(
                        method, http_path if http_path is not None else webhook or ""),
                        op_ptr, sink, "omitted")
                    return
                op = {}
        if not isinstance(op, dict):
            op = {}
        oid = op.get("operationId")
        tid = oid if isinstance(oid, str) and oid else fallback_id(
            method, http_path if http_path is not None else webhook or "")
        self.b.tool = tid
        summary = op.get("summary") if isinstance(op.get("summary"), str) else None
        description = op.get("description") if isinstance(op.get("description"), str) else None
        tool = Tool(id=tid, title=summary, description=description or summary,
                    raw=op, file=doc.path, pointer=op_ptr, http_method=method,
                    http_path=http_path)
        origin = tool.origin
        origin.append(("", op_ptr))
        if summary is not None:
            origin.append(("/title", op_ptr + "/summary"))
        if description:
            origin.append(("/description", op_ptr + "/description"))
        elif summary is not None:
            origin.append(("/description", op_ptr + "/summary"))
        for key in ("x-annotations", "x-mcp-annotations"):
            if isinstance(op.get(key), dict):
                tool.annotations = op[key]
                origin.append(("/annotations", f"{op_ptr}/{key}"))
                break
        extra: dict = {}
        for k, v in op.items():
            if k in ("tags", "deprecated") or (k.startswith("x-") and k not in (
                    "x-annotations", "x-mcp-annotations")):
                extra[k] = v
        if webhook is not None:
            extra["webhook"] = webhook
        tool.extra = extra

        params = self._parameters(shared, item_doc, item_ptr, op, doc, op_ptr, tid, http_path)
        tool.input_schema = self._input(tool, op, doc, op_ptr, params)
        tool.output_schema = self._output(tool, op, doc, op_ptr)
        self.r.sink = None
        if sink and self._broken(tool, sink):
            self.tools.append(tool)
        elif not sink:
            self.tools.append(tool)
        self.check.operation(op, doc, op_ptr, tid)

    # ---------------------------------------------------------------- broken refs
    def _broken(self, tool: Tool, sink: list[BrokenRef]) -> bool:
        """``--broken-refs widen|omit``: record what became of ``tool``, built with the broken
        refs in ``sink``; whether the tool is kept (widen) or left out (omit)."""
        uniq = list({id(b): b for b in sink}.values())
        if self.broken_refs == "omit":
            self._record_broken(tool.id, tool.pointer, uniq, "omitted")
            return False
        where = self._widened_pointers(tool, uniq)
        notes = tool.notes
        for b in uniq:
            # a broken reference met through an OpenAPI object (a parameter, a body, a
            # response): the input or output as a whole is where it is wider
            for ptr in where.get(id(b.node)) or [
                    "/outputSchema" if "/responses/" in b.pointer else "/inputSchema"]:
                notes.append((ptr, "widened",
                              f"$ref {b.ref!r} does not resolve ({b.file}: {b.pointer}): "
                              "widened to {} (--broken-refs widen)"))
        self._record_broken(tool.id, tool.pointer, uniq, "widened")
        return True

    @staticmethod
    def _widened_pointers(tool: Tool, sink: list[BrokenRef]) -> dict[int, list[str]]:
        """Tool pointers of the nodes that stand in for broken refs (found by identity; a
        definition both schemas bundle is in each)."""
        from toolcat.schema.walker import iter_schemas

        want = {id(b.node) for b in sink if b.node is not None}
        found: dict[int, list[str]] = {}
        for role, schema in (("/inputSchema", tool.input_schema),
                             ("/outputSchema", tool.output_schema)):
            if not want or not isinstance(schema, (dict, bool)):
                continue
            for path, node, _d in iter_schemas(schema):
                if id(node) in want:
                    found.setdefault(id(node), []).append(role + jp.encode(path))
        return found

    def _record_broken(self, tool: str | None, where: str, sink: list[BrokenRef],
                       what: str) -> None:
        rec = self.cat.meta.setdefault("broken_refs", {"mode": self.broken_refs, "tools": []})
        rec["tools"].append({"id": tool, "where": where, "what": what,
                             "refs": [{"file": b.file, "pointer": b.pointer, "ref": b.ref}
                                      for b in sink]})

    def _parameters(self, shared: list | None, item_doc: Doc, item_ptr: str, op: dict,
                    doc: Doc, op_ptr: str, tid: str,
                    http_path: str | None = None) -> list[Target]:
        found: dict[tuple[str, str], Target] = {}
        unread = False
        for lst, ldoc, base in ((shared, item_doc, item_ptr), (op.get("parameters"), doc, op_ptr)):
            if not isinstance(lst, list):
                continue
            for i, p in enumerate(lst):
                t = self.r.follow(p, ldoc, f"{base}/parameters/{i}", tid)
                if t is None:
                    unread = True     # (SC302) it may be the path variable's parameter
                    continue
                if not isinstance(t.node, dict):
                    continue
                name, loc = t.node.get("name"), t.node.get("in")
                if not isinstance(name, str) or not isinstance(loc, str):
                    continue
                found[(name, loc)] = t   # operation level replaces path level, in place
        if http_path is not None and "{" in http_path and not unread:
            self._path_variables(http_path, found, doc, op_ptr, tid)
        return list(found.values())

    def _path_variables(self, http_path: str, found: dict[tuple[str, str], Target], doc: Doc,
                        op_ptr: str, tid: str) -> None:
        """TC113: each ``{name}`` of the path needs an ``in: path`` parameter; one declared
        in another location (reported at its ``in``) or not at all (at the operation) can
        never be filled."""
        in_path = {n for n, loc in found if loc == "path"}
        for var in dict.fromkeys(_TEMPLATE.findall(http_path)):
            if var in in_path:
                continue
            other = next(((loc, t) for (n, loc), t in found.items() if n == var), None)
            if other is not None:
                loc, t = other
                where, ptr = f"is declared `in: {loc}`, not `in: path`", t.pointer + "/in"
                file = t.doc.path
            else:
                where, ptr, file = "has no `in: path` parameter", op_ptr, doc.path
            self.cat.problems.append(Problem(
                code="TC113", file=file, pointer=ptr, tool=tid, blocking=False,
                message=f"path variable {{{var}}} of {http_path} {where}: the tool can never "
                        "fill its URL"))

    # ---------------------------------------------------------------- schemas
    def _param_schema(self, t: Target) -> tuple[Any, frozenset[str], Doc, str]:
        """The schema of parameter ``t`` with the parameter's prose, its def names and where
        it is written: built once per parameter (a spec's shared parameters are used by many
        operations; like the converted schemas, the result is never changed once built)."""
        key = (id(t.doc), t.pointer)
        got = self._params.get(key)
        sink = self.r.sink
        if got is None:
            start = len(sink) if sink is not None else 0
            got = self._params[key] = self._build_param_schema(t)
            if sink is not None and len(sink) > start:
                self._param_broken[key] = tuple(sink[start:])
        elif sink is not None and key in self._param_broken:
            sink.extend(self._param_broken[key])
        return got

    def _build_param_schema(self, t: Target) -> tuple[Any, frozenset[str], Doc, str]:
        node = t.node
        if self.swagger:
            built = _swagger_value_schema(node)
            schema, refs = self.b.convert(built, t.doc, t.pointer)
            sdoc, sptr = t.doc, t.pointer
        else:
            raw, sptr = None, t.pointer
            if "schema" in node:
                raw, sptr = node["schema"], t.pointer + "/schema"
            elif isinstance(node.get("content"), dict) and node["content"]:
                mt, media = next(iter(node["content"].items()))
                if isinstance(media, dict) and "schema" in media:
                    raw = media["schema"]
                    sptr = f"{t.pointer}/content/{jp.escape(mt)}/schema"
            if raw is None:
                schema, refs = {}, frozenset()
            else:
                schema, refs = self.b.convert(raw, t.doc, sptr)
            sdoc = t.doc
        deco: dict = {}
        if isinstance(node.get("description"), str):
            deco["description"] = node["description"]
        if not self.swagger:
            if "example" in node:
                deco["examples"] = [node["example"]]
            elif isinstance(node.get("examples"), dict):
                vals: list = []
                for name, ex in node["examples"].items():
                    if isinstance(ex, dict) and "$ref" in ex:   # an Example Object elsewhere
                        # (prose: a broken one is reported, the tool is still built)
                        et = self.r.follow(ex, t.doc, f"{t.pointer}/examples/{jp.escape(name)}",
                                           self.b.tool, blocking=False)
                        ex = et.node if et is not None else None
                    # the same value under several example names is listed once
                    if isinstance(ex, dict) and "value" in ex and not any(
                            v == ex["value"] and type(v) is type(ex["value"]) for v in vals):
                        vals.append(ex["value"])
                if vals:
                    deco["examples"] = vals
        if node.get("deprecated") is True:
            deco["deprecated"] = True
        if deco:
            schema = _decorate(schema, deco)
        return schema, refs, sdoc, sptr

    def _input(self, tool: Tool, op: dict, doc: Doc, op_ptr: str,
               params: list[Target]) -> dict:
        origin = tool.origin
        props: dict = {}
        required: list[str] = []
        refs: set[str] = set()
        top_extra: dict = {}
        origin.append(("/inputSchema", "\0" + op_ptr))

        body_param: Target | None = None
        form: list[Target] = []
        plain: list[tuple[int, int, Target]] = []
        omitted: list[Target] = []    # parameters the tool leaves out (their prose is kept)
        for i, t in enumerate(params):
            loc = t.node["in"]
            if loc == "body" and self.swagger:
                body_param = body_param or t
            elif loc == "formData" and self.swagger:
                form.append(t)
            elif loc in _LOC_RANK:
                if loc == "cookie" and not getattr(self.opts, "cookies", False) \
                        or loc == "header" and not self.swagger \
                        and t.node["name"].lower() in _IGNORED_HEADERS:
                    omitted.append(t)
                    continue
                plain.append((_LOC_RANK[loc], i, t))
        plain.sort(key=lambda x: (x[0], x[1]))

        for _rank, _i, t in plain:
            name, loc = t.node["name"], t.node["in"]
            prop = name
            if prop in props:
                prop = base = f"{loc}_{name}"
                n = 1
                while prop in props:
                    n += 1
                    prop = f"{base}_{n}"
            schema, srefs, sdoc, sptr = self._param_schema(t)
            props[prop] = schema
            refs |= srefs
            if loc == "path" or t.node.get("required") is True:
                required.append(prop)
            pp = "/inputSchema/properties/" + jp.escape(prop)
            origin.append((pp, self._tool_src(tool, sdoc, sptr)))
            if "description" in t.node:
                origin.append((pp + "/description",
                               self._tool_src(tool, t.doc, t.pointer + "/description")))

        # ---- the body
        param_names = frozenset(props)
        if self.swagger:
            if body_param is not None:
                bp = body_param.node
                if "schema" in bp:
                    self._body(tool, props, required, refs, top_extra, bp["schema"],
                               body_param.doc, body_param.pointer + "/schema",
                               bp.get("required") is True,
                               self._prose(bp, body_param.doc, body_param.pointer),
                               self._swagger_body_kind(op))
                else:
                    self._root_prose(tool, top_extra,
                                     [self._prose(bp, body_param.doc, body_param.pointer)])
            elif form:
                self._form_body(tool, props, required, refs, form)
        else:
            rb_t = None
            if "requestBody" in op:
                rb_t = self.r.follow(op["requestBody"], doc, op_ptr + "/requestBody", tool.id)
            if rb_t is not None and isinstance(rb_t.node, dict):
                rb = rb_t.node
                rb_prose = self._prose(rb, rb_t.doc, rb_t.pointer)
                picked = _pick_body_media(rb.get("content"))
                if picked is not None:
                    mt, media, kind = picked
                    mptr = f"{rb_t.pointer}/content/{jp.escape(mt)}"
                    if isinstance(media, dict) and "schema" in media:
                        snode, sptr = media["schema"], mptr + "/schema"
                    else:
                        snode, sptr = {}, mptr
                    self._body(tool, props, required, refs, top_extra, snode, rb_t.doc, sptr,
                               rb.get("required") is True, rb_prose, kind)
                else:   # a body without a media type: what it says is said of the input
                    self._root_prose(tool, top_extra, [rb_prose])

        if omitted:
            self._omitted(tool, top_extra, omitted)
        schema = {k: top_extra.pop(k) for k in ("title", "description") if k in top_extra}
        schema["type"] = "object"
        schema["properties"] = props
        if required:
            schema["required"] = required
        schema.update(top_extra)
        defs = self.b.closure(refs) if refs else []
        if defs:
            schema["$defs"] = self._defs_map(defs)
            self._def_origins(tool, "/inputSchema", defs)
        if self.context_required and self._mentions("readOnly"):
            schema = context_required(schema, "readOnly", keep=param_names,
                                      cache=self._ctx_cache["readOnly"])
        return schema

    def _defs_map(self, defs: list[Def]) -> dict:
        """``{name: schema}`` of a closure: the same object for the tools that bundle the same
        definitions (like the definitions themselves, never changed once built), so that a
        reader who remembers what it has seen (lint's secret scan, MC107) reads it once."""
        key = id(defs)
        got = self._defs_maps.get(key)
        if got is None or got[0] is not defs:
            got = self._defs_maps[key] = (defs, {d.name: d.schema for d in defs})
        return got[1]

    def _def_origins(self, tool: Tool, prefix: str, defs: list[Def]) -> None:
        # the same closure (Bundler.closure gives the same list) under the same prefix in the
        # same file has the same origin entries: built once, shared (they are tuples)
        file = tool.file
        key = (id(defs), prefix, file)
        got = self._origins.get(key)
        if got is None or got[0] is not defs:
            # each def's entry is the same in every closure that holds it: made once per
            # prefix and file (Stripe's 137 closures hold ~240 defs each, of ~1,000)
            entries = self._def_entries.get((prefix, file))
            if entries is None:
                entries = self._def_entries[(prefix, file)] = {}
            base = prefix + "/$defs/"

            def entry(d: Def) -> tuple[str, str]:
                e = entries[d] = (base + d.key, d.pointer if d.doc.path == file
                                  else file_pointer(d.doc.path, d.pointer))
                return e

            got = self._origins[key] = (defs, [entries.get(d) or entry(d) for d in defs])
        tool.origin.extend(got[1])

    def _prose(self, node: dict, doc: Doc, ptr: str) -> tuple[str, Doc, str] | None:
        """``node``'s ``description`` (when it says something) and where it is written."""
        d = node.get("description")
        if isinstance(d, str) and d.strip():
            return d, doc, ptr + "/description"
        return None

    def _root_prose(self, tool: Tool, top_extra: dict,
                    texts: list[tuple[str, Doc, str] | None]) -> None:
        """Put the texts (body prose with no schema of its own in the tool) in the
        inputSchema's ``description``, joined, the first one's position as its origin."""
        got = [t for t in texts if t is not None]
        text = _join_prose(*(t[0] for t in got))
        if text is None:
            return
        top_extra["description"] = _join_prose(top_extra.get("description"), text)
        tool.origin.append(("/inputSchema/description",
                            self._tool_src(tool, got[0][1], got[0][2])))

    def _omitted(self, tool: Tool, top_extra: dict, omitted: list[Target]) -> None:
        """What the spec says about the parameters the tool leaves out (Accept, Content-Type
        and Authorization headers; cookies without ``--cookies``): name, location and
        description, under ``x-toolcat-omitted-parameters`` (prose: the compact view keeps it
        in the handbook)."""
        out: list[dict] = []
        for t in omitted:
            d = self._prose(t.node, t.doc, t.pointer)
            if d is None:
                continue
            pp = f"/inputSchema/{OMITTED_KEY}/{len(out)}"
            out.append({"name": t.node["name"], "in": t.node["in"], "description": d[0]})
            tool.origin.append((pp, self._tool_src(tool, t.doc, t.pointer)))
            tool.origin.append((pp + "/description", self._tool_src(tool, d[1], d[2])))
        if out:
            top_extra[OMITTED_KEY] = out

    def _body(self, tool: Tool, props: dict, required: list, refs: set, top_extra: dict,
              snode: Any, sdoc: Doc, sptr: str, body_required: bool,
              desc: tuple[str, Doc, str] | None, kind: str) -> None:
        conv, crefs = self.b.convert(snode, sdoc, sptr)
        cand_refs: frozenset[str] | set[str]
        cand, cand_refs, cdoc, cptr = conv, crefs, sdoc, sptr
        d = self.b.resolve_def_root(conv)
        if d is not None:
            cand, cand_refs, cdoc, cptr = d.schema, d.refs, d.doc, d.pointer
        if kind != "other" and self._mergeable(cand, props, body_required, kind):
            # the body's own prose has no schema left in the tool: its description and title
            # describe the input; the rest (examples, externalDocs, x-*) is kept as written
            # under x-toolcat-request-body
            sd = cand.get("description")
            self._root_prose(tool, top_extra, [desc, (sd, cdoc, cptr + "/description")
                                                if isinstance(sd, str) and sd.strip() else None])
            if isinstance(cand.get("title"), str) and "title" not in top_extra:
                top_extra["title"] = cand["title"]
                tool.origin.append(("/inputSchema/title",
                                    self._tool_src(tool, cdoc, cptr + "/title")))
            rest = {k: v for k, v in cand.items() if k not in _MERGE_KEYS and k not in (
                "description", "title") or k == "externalDocs"}
            if rest:
                top_extra[BODY_KEY] = rest
                tool.origin.append((f"/inputSchema/{BODY_KEY}", self._tool_src(tool, cdoc, cptr)))
            bprops = cand.get("properties") or {}
            for name, s in bprops.items():
                props[name] = s
                tool.origin.append(("/inputSchema/properties/" + jp.escape(name),
                                    self._tool_src(tool, cdoc,
                                                   f"{cptr}/properties/{jp.escape(name)}")))
            for name in cand.get("required") or ():
                if name not in required:
                    required.append(name)
            if "additionalProperties" in cand:
                top_extra["additionalProperties"] = cand["additionalProperties"]
                tool.origin.append(("/inputSchema/additionalProperties",
                                    self._tool_src(tool, cdoc, cptr + "/additionalProperties")))
            refs |= cand_refs
            return
        name = "body"
        if name in props:
            name = "requestBody"
            n = 1
            while name in props:
                n += 1
                name = f"requestBody_{n}"
        pp = "/inputSchema/properties/" + name
        tool.origin.append((pp, self._tool_src(tool, sdoc, sptr)))
        if desc is not None and (conv is True or isinstance(conv, dict)):
            # the requestBody's (or Swagger body parameter's) description first, then the
            # body schema's own
            own = conv.get("description") if isinstance(conv, dict) else None
            text = _join_prose(desc[0], own if isinstance(own, str) else None)
            conv = _decorate(conv, {"description": text})
            if text == desc[0]:
                tool.origin.append((pp + "/description", self._tool_src(tool, *desc[1:])))
        props[name] = conv
        refs |= crefs
        if body_required:
            required.append(name)

    def _swagger_body_kind(self, op: dict) -> str:
        """Swagger 2.0: `consumes` (operation, else document) says whether the body is JSON."""
        consumes = op.get("consumes")
        if not isinstance(consumes, list):
            consumes = self.root.data.get("consumes")
        if not isinstance(consumes, list) or not consumes:
            return "json"
        types = [c for c in consumes if isinstance(c, str)]
        if any(is_json_media(c) for c in types):
            return "json"
        if any(_media_base(c) in _FORM_TYPES for c in types):
            return "form"
        return "other"

    def _mergeable(self, cand: Any, props: dict, body_required: bool, kind: str) -> bool:
        if not isinstance(cand, dict) or not _mergeable_keys(cand):
            return False
        t = cand.get("type")
        if not _is_object_type(t) and not (t is None and kind == "form"):
            return False
        bprops = cand.get("properties", {})
        req = cand.get("required", [])
        if not isinstance(bprops, dict) or not isinstance(req, list) \
                or not all(isinstance(x, str) for x in req):
            return False
        if any(n in props for n in bprops) or any(n in props for n in req):
            return False
        if req and not body_required:
            return False
        return True

    def _form_body(self, tool: Tool, props: dict, required: list, refs: set,
                   form: list[Target]) -> None:
        fprops: dict = {}
        freq: list[str] = []
        fsrc: dict[str, tuple[Doc, str]] = {}
        frefs: set[str] = set()
        for t in form:
            name = t.node["name"]
            if name in fprops:
                continue
            schema, srefs, sdoc, sptr = self._param_schema(t)
            fprops[name] = schema
            fsrc[name] = (sdoc, sptr)
            frefs |= srefs
            if t.node.get("required") is True:
                freq.append(name)
        if not any(n in props for n in fprops):
            for name, s in fprops.items():
                props[name] = s
                sdoc, sptr = fsrc[name]
                tool.origin.append(("/inputSchema/properties/" + jp.escape(name),
                                    self._tool_src(tool, sdoc, sptr)))
            required.extend(freq)
            refs |= frefs
            return
        name = "body"
        if name in props:
            name = "requestBody"
            n = 1
            while name in props:
                n += 1
                name = f"requestBody_{n}"
        body: dict = {"type": "object", "properties": fprops}
        if freq:
            body["required"] = freq
            required.append(name)
        props[name] = body
        refs |= frefs
        tool.origin.append(("/inputSchema/properties/" + name, "\0" + tool.pointer))
        for fname in fprops:
            sdoc, sptr = fsrc[fname]
            tool.origin.append((f"/inputSchema/properties/{name}/properties/{jp.escape(fname)}",
                                self._tool_src(tool, sdoc, sptr)))

    def _output(self, tool: Tool, op: dict, doc: Doc, op_ptr: str) -> Any:
        responses = op.get("responses")
        if not isinstance(responses, dict):
            return None
        for code, resp in responses.items():
            if not _2XX.fullmatch(str(code)):
                continue
            t = self.r.follow(resp, doc, f"{op_ptr}/responses/{jp.escape(code)}", tool.id)
            if t is None or not isinstance(t.node, dict):
                continue
            found: tuple[Any, str] | None = None
            if self.swagger:
                if "schema" in t.node:
                    found = (t.node["schema"], t.pointer + "/schema")
            else:
                content = t.node.get("content")
                if isinstance(content, dict):
                    for mt, media in content.items():
                        if not isinstance(media, dict):
                            continue
                        if is_json_media(mt) and "schema" in media:
                            found = (media["schema"],
                                     f"{t.pointer}/content/{jp.escape(mt)}/schema")
                            break
                        if self.modern and "itemSchema" in media and "schema" not in media:
                            # OpenAPI 3.2: a sequence (JSON Lines, json-seq, SSE...) of
                            # items; the tool's result is the list of them
                            found = (media["itemSchema"],
                                     f"{t.pointer}/content/{jp.escape(mt)}/itemSchema")
                            break
            if found is None:
                continue
            schema, refs = self.b.convert(found[0], t.doc, found[1])
            if found[1].endswith("/itemSchema"):
                schema = {"type": "array", "items": schema}
                tool.origin.append(("/outputSchema", "\0" + found[1]))
                tool.origin.append(("/outputSchema/items",
                                    self._tool_src(tool, t.doc, found[1])))
            else:
                tool.origin.append(("/outputSchema", self._tool_src(tool, t.doc, found[1])))
            defs = self.b.closure(refs) if refs else []
            if defs:
                schema = _attach_defs(schema, self._defs_map(defs))
                self._def_origins(tool, "/outputSchema", defs)
            if self.context_required and not self.swagger and self._mentions("writeOnly"):
                schema = context_required(schema, "writeOnly",
                                          cache=self._ctx_cache["writeOnly"])
            return schema
        return None


_KNOWN_VERSION = re.compile(r"3\.[012](?:\.\d+)?(?:-[0-9A-Za-z.-]+)?")

# keywords that give a schema a place of its own (a copy elsewhere would mean another thing)
_SCOPED = frozenset(("$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"))


def context_required(schema: Any, flag: str, keep: frozenset = frozenset(),
                     cache: dict | None = None) -> Any:
    """``schema`` with the names of properties marked ``flag: true`` (``readOnly`` for a
    request, ``writeOnly`` for a response) left out of ``required``, as OpenAPI 3.0 reads
    them ("the required will take effect on the response only"; Swagger 2.0: readOnly
    properties are not sent). A property is marked by its own schema or, through local
    ``$ref``s, by the schema it refers to (:func:`toolcat.schema.walker.flagged`). ``keep``: top-level
    names that stay required whatever they say (the operation's parameters).

    Nodes that change are copies: the input (whose definitions other tools share) is not
    mutated. ``cache`` (one per spec and flag) remembers which shared subschemas have nothing
    to change, so that each is scanned once, not once per tool that bundles it."""
    if not isinstance(schema, dict):
        return schema
    from toolcat.schema.keywords import APPLICATORS, SCHEMA_MAP
    from toolcat.schema.walker import (
        DESCEND,
        conjoined_properties,
        flagged_property,
        iter_schemas,
        local_target,
        node_dialect,
        subschemas,
        transform,
    )

    memo = cache if cache is not None else {}

    def left_of(node: dict, skip: frozenset, maps: list[dict] | None = None) -> list | None:
        """The new ``required`` of ``node`` (its names marked ``flag`` in the properties that
        apply to it, ``maps``: by default its own and its `allOf` branches'), or None."""
        req = node.get("required")
        if not isinstance(req, list) or not req:
            return None
        if maps is None:
            maps = conjoined_properties(node, schema)
        if not maps:
            return None
        left = [n for n in req if (isinstance(n, str) and n in skip)
                or not flagged_property(n, maps, flag, schema)]
        return None if len(left) == len(req) else left

    def without(node: dict, left: list) -> dict:
        return {k: (left if k == "required" else v) for k, v in node.items()
                if k != "required" or left}

    def lifted(node: dict, skip: frozenset) -> dict | None:
        """``node`` with its flagged names left out of ``required``, its own and those of
        its `allOf` branches (a branch's `required` may name a property that a sibling
        marks: the instance is one of both); None when nothing changes. A branch that is a
        bare ``$ref`` to a schema with such a `required` is replaced by that schema's copy
        without them (the definition itself is shared with other places)."""
        left = left_of(node, skip)
        branches = node.get("allOf")
        new_branches = None
        if isinstance(branches, list) and len(branches) > 1:
            maps = conjoined_properties(node, schema)
            for i, b in enumerate(branches):
                target = b
                if isinstance(b, dict) and len(b) == 1 and isinstance(b.get("$ref"), str):
                    target = local_target(b["$ref"], schema)
                    if not isinstance(target, dict) or target.keys() & _SCOPED:
                        continue
                if not isinstance(target, dict):
                    continue
                bl = left_of(target, skip, maps)
                if bl is not None:
                    if new_branches is None:
                        new_branches = list(branches)
                    new_branches[i] = without(target, bl)
        if left is None and new_branches is None:
            return None
        out = without(node, left) if left is not None else dict(node)
        if new_branches is not None:
            out["allOf"] = new_branches
        return out

    def needs(node: dict) -> bool:
        got = memo.get(id(node))
        if got is None or got[0] is not node:
            found = any(isinstance(n, dict) and lifted(n, frozenset()) is not None
                        for _p, n, _d in iter_schemas(node))
            got = memo[id(node)] = (node, found)   # the node is held: its id stays its own
        return got[1]

    def enter(node: Any, path: tuple, _d: str) -> Any:
        if path == () or (isinstance(node, dict) and needs(node)):
            return DESCEND
        return node

    def hook(node: Any, path: tuple, _d: str) -> Any:
        if not isinstance(node, dict):
            return node
        got = lifted(node, keep if path == () else frozenset())
        return node if got is None else got

    def needs_any(defs: dict) -> bool:
        """Whether an entry of a ``$defs`` map needs a change: remembered per map (the
        loader gives the tools that bundle the same definitions the same map), so that a
        tool's check reads its properties, not every bundled definition again."""
        key = ("$defs", id(defs))
        got = memo.get(key)
        if got is None or got[0] is not defs:
            got = memo[key] = (defs, any(isinstance(c, dict) and needs(c)
                                         for c in defs.values()))
        return got[1]

    # Nothing to change (the usual case: a spec whose "readOnly" is a property name or
    # prose): the schema itself, not a copy that rebuilds every container down to the
    # shared subschemas (the tool's bundled $defs map included, which then stays shared)
    d = node_dialect(schema, DRAFT2020) if "$schema" in schema else DRAFT2020
    if lifted(schema, frozenset()) is not None:
        return transform(schema, hook, enter=enter)
    defs = schema.get("$defs")
    if defs.__class__ is dict and APPLICATORS[d].get("$defs") == SCHEMA_MAP \
            and next(reversed(schema)) == "$defs":
        # the map's entries are the subschemas that subschemas() lists under it, last (as
        # the loader builds it): the same ones, read in the same order
        rest = {k: v for k, v in schema.items() if k != "$defs"}
        if not any(isinstance(c, dict) and needs(c) for _s, c in subschemas(rest, d)) \
                and not needs_any(defs):
            return schema
    elif not any(isinstance(c, dict) and needs(c) for _s, c in subschemas(schema, d)):
        return schema
    return transform(schema, hook, enter=enter)


def _join_prose(*texts: str | None) -> str | None:
    """The texts that say something, in order, each once (a text another one contains is
    left out), separated by a blank line."""
    got: list[str] = []
    for t in texts:
        if not isinstance(t, str) or not t.strip():
            continue
        norm = " ".join(t.split())
        if any(norm in " ".join(g.split()) for g in got):
            continue
        got = [g for g in got if " ".join(g.split()) not in norm]
        got.append(t)
    if len(got) == 1:
        return got[0]
    return "\n\n".join(g.strip() for g in got) if got else None


def _decorate(schema: Any, deco: dict) -> Any:
    """A copy of ``schema`` with parameter-level prose first (the schema is shared)."""
    if schema is True:
        return dict(deco)
    if not isinstance(schema, dict):
        return schema
    out = dict(deco)
    for k, v in schema.items():
        if k not in out:
            out[k] = v
    return out


def _attach_defs(schema: Any, defs: dict) -> Any:
    if isinstance(schema, bool):
        schema = {} if schema else {"not": {}}
    if not isinstance(schema, dict):
        return schema
    old = schema.get("$defs")
    if isinstance(old, dict) and old:
        merged = dict(defs)
        for k, v in old.items():
            name = k
            while name in merged:
                name += "_inline"   # nothing refers to it by pointer: refs were rewritten
            merged[name] = v
        defs = merged
    return {**schema, "$defs": defs}


def _swagger_value_schema(param: dict) -> dict:
    """A JSON Schema from a Swagger 2.0 non-body parameter's own keywords (or an Items object)."""
    out: dict = {}
    for k in _SW_VALUE_KEYS:
        if k in param:
            v = param[k]
            if k == "items" and isinstance(v, dict):
                v = _swagger_value_schema(v) if "$ref" not in v else v
            out[k] = v
    return out


def _pick_body_media(content: Any) -> tuple[str, Any, str] | None:
    if not isinstance(content, dict) or not content:
        return None
    for mt, media in content.items():
        if _media_base(mt) == "application/json":
            return mt, media, "json"
    for mt, media in content.items():
        if is_json_media(mt):
            return mt, media, "json"
    for mt, media in content.items():
        if _media_base(mt) in _FORM_TYPES:
            return mt, media, "form"
    mt, media = next(iter(content.items()))
    return mt, media, "other"


def load_openapi(doc: dict, src: SourceText, path: str, opts: Any) -> Catalog:
    """Load an OpenAPI 3.x / Swagger 2.0 document: one tool per operation."""
    swagger = "openapi" not in doc
    version = doc.get("swagger") if swagger else doc.get("openapi")
    cat = Catalog(file=path, format=SWAGGER2 if swagger else OPENAPI3,
                  version=str(version) if version is not None else None, document=doc)
    cat.sources[path] = src
    if not swagger and not (isinstance(version, str) and _KNOWN_VERSION.fullmatch(version)):
        cat.problems.append(Problem(
            code="TC112", file=path, pointer="/openapi", blocking=False,
            message=f"openapi {version!r} is not a version toolcat knows (3.0.x, 3.1.x, 3.2.x): "
                    "read as 3.2; what a later version adds may be left out"))
    try:
        _Loader(doc, src, path, opts, cat).run()
    except RecursionError:
        raise InputError("schemas are nested too deeply to convert",
                         path) from None
    return cat
