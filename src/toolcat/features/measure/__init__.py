"""Before/after figures of a catalog, the breakdown of its bytes, budgets and baselines.

*Before* is the catalog's standard view in the target envelope (for MCP input: the raw
``tools`` array exactly as served), *after* is what ``toolcat project`` writes as the tools
array for the same options (the compact view). Both are measured on the canonical wire
bytes (:func:`toolcat.document.canonical.dumps`, i.e. the UTF-8 of JavaScript ``JSON.stringify``):
byte length, exact BPE token count (:mod:`toolcat.tokens`), and, for the before side, the
SHA-256 that the mcp-context-cost methodology publishes as ``canonicalSha256``.

The breakdown splits the before bytes into four parts that sum to the total:

``descriptions``
    each tool's own ``description`` entry (``"description":"..."`` plus its separating comma);
``schema_prose``
    every prose entry (``description``, ``title``, ``examples``, ``example``, ``$comment``,
    ``x-*``) of every schema node in ``inputSchema``/``outputSchema`` (schema positions only,
    found with :func:`toolcat.schema.walker.iter_schemas`), counted the same way;
``schema_shape``
    the rest of the schemas' bytes (what validation needs);
``other``
    everything else: names, titles, annotations, the keys ``"inputSchema":`` and the
    punctuation of the array.

An entry's share is exactly the number of bytes its removal saves, so the parts are additive.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import orjson

from toolcat.document import canonical
from toolcat.errors import InputError, UsageError
from toolcat.formats import targets
from toolcat.model import MCP_CAPTURE, Catalog
from toolcat.schema.keywords import APPLICATORS, DRAFT2020, SCHEMA_MAP, is_prose_key
from toolcat.schema.walker import node_dialect, sum_schemas

BREAKDOWN_KEYS = ("descriptions", "schema_prose", "schema_shape", "other")
#: the model-facing figures (name, description and input schema of each tool, as a model
#: receives them; output schemas, titles, annotations, icons and _meta apart)
MODEL_KEYS = ("bytes_before", "bytes_after", "tokens_before", "tokens_after")
#: the sides a budget can gate, and what each is. The default is "before": a budget is
#: about the catalog you give measure (the file a server serves, or the one you commit);
#: to gate what `toolcat project` would write from it, --gate after.
GATES = {"before": "the standard view: the catalog as given",
         "after": "the compact view toolcat project writes",
         "upfront": "what every request shows the model up front (--defer)"}
FIGURES = ("bytes", "tokens")
SIDES = ("before", "after")
TOKENIZER_ALIASES = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
BASELINE_VERSION = 1
#: the figures a baseline file records per catalog
BASELINE_KEYS = ("tools", "bytes_before", "bytes_after", "tokens_before", "tokens_after",
                 "sha256_before")

def tokenizer_name(name: str) -> str:
    from toolcat.tokens import ENCODINGS

    name = TOKENIZER_ALIASES.get(name, name)
    if name not in ENCODINGS:
        raise UsageError(f"--tokenizer must be one of {', '.join(ENCODINGS)} (got {name!r})")
    return name


# --------------------------------------------------------------------------- figures


@dataclass(slots=True)
class ToolFigures:
    file: str
    id: str | None
    bytes_before: int
    bytes_after: int
    tokens_before: int
    tokens_after: int

    def to_json(self) -> dict:
        return {"file": self.file, "id": self.id, "bytes_before": self.bytes_before,
                "bytes_after": self.bytes_after, "tokens_before": self.tokens_before,
                "tokens_after": self.tokens_after}


@dataclass(slots=True)
class CatalogFigures:
    file: str
    format: str
    target: str
    tools: int
    bytes_before: int
    bytes_after: int
    tokens_before: int
    tokens_after: int
    sha256_before: str | None     # None: not computed (measure_catalogs(digest=False))
    breakdown: dict[str, int]
    tool_figures: list[ToolFigures] = field(default_factory=list)
    unlowerable: list[str] = field(default_factory=list)  # ids --unlowerable fail stopped at
    without_input_schema: int = 0      # tools whose source gives no input schema
    input_schema_note: str | None = None
    # canonical bytes of the input / output schemas on each side (issue 12 item 12)
    schemas: dict[str, dict[str, int]] = field(default_factory=dict)
    # the saving split: "lossless" = what the exact rewrites save, "lossy" = what the
    # description cuts and relocated UI labels (and any widening) save; bytes and tokens
    bytes_lossless: int = 0
    tokens_lossless: int = 0
    tokens_middle: int = 0            # tokens of the lossless-only view (internal)
    output_schemas: bool = True       # both sides carry output schemas (not --no-output-schema)
    duplicate_note: str | None = None    # ids several tools have (Projection.duplicate_note)
    #: the entries left out (not a tool; a server or custom tool the target cannot send:
    #: project's left_out_note)
    left_out_note: str | None = None
    #: --defer: what the model reads up front and loads on demand (:mod:`.defer`)
    defer: Any = None
    # what a model reads of each side: name, description and input schema of every tool
    # (toolcat.features.project.prose.model_facing), bytes and tokens
    model_facing: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODEL_KEYS, 0))
    #: the description quality score of the catalog as given (toolcat.features.lint.quality, 0-100)
    description_score: float | None = None

    def get(self, figure: str, side: str) -> int:
        return getattr(self, f"{figure}_{side}")

    @property
    def bytes_upfront(self) -> int:
        """What every request shows the model (without deferral: the whole compact view)."""
        return self.defer.upfront_bytes if self.defer is not None else self.bytes_after

    @property
    def tokens_upfront(self) -> int:
        return self.defer.upfront_tokens if self.defer is not None else self.tokens_after

    def saved(self) -> dict[str, dict[str, int]]:
        """``{"bytes": {"total", "lossless", "lossy"}, "tokens": {...}}``: lossless + lossy
        = total (before - after)."""
        out = {}
        for figure in FIGURES:
            tot = self.get(figure, "before") - self.get(figure, "after")
            ll = getattr(self, f"{figure}_lossless")
            out[figure] = {"total": tot, "lossless": ll, "lossy": tot - ll}
        return out

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "target": self.target,
            "tools": self.tools,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "sha256_before": self.sha256_before,
            "saved": self.saved(),
            "schemas": {side: dict(v) for side, v in self.schemas.items()},
            "output_schemas": self.output_schemas,
            "breakdown": dict(self.breakdown),
            "tools_without_input_schema": self.without_input_schema,
            **({"upfront_bytes": self.bytes_upfront, "upfront_tokens": self.tokens_upfront,
                "deferral": self.defer.to_json()} if self.defer is not None else {}),
            "model_facing": dict(self.model_facing),
            "description_score": self.description_score,
        }


def total(figs: list[CatalogFigures]) -> dict:
    """The total row: sums of every figure (tokens summed per catalog, as sent)."""
    sums = {"tools": 0, "bytes_before": 0, "bytes_after": 0, "tokens_before": 0,
            "tokens_after": 0}
    breakdown = {k: 0 for k in BREAKDOWN_KEYS}
    saved = {fig: {"total": 0, "lossless": 0, "lossy": 0} for fig in FIGURES}
    schemas = {side: {"input": 0, "output": 0} for side in SIDES}
    for f in figs:
        for k in sums:
            sums[k] += getattr(f, k)
        for k in BREAKDOWN_KEYS:
            breakdown[k] += f.breakdown[k]
        for fig, parts in f.saved().items():
            for k, v in parts.items():
                saved[fig][k] += v
        for side, sizes in f.schemas.items():
            for k, n in sizes.items():
                schemas[side][k] += n
    out: dict[str, Any] = {**sums, "breakdown": breakdown}
    out["saved"] = saved
    out["schemas"] = schemas
    if any(f.defer is not None for f in figs):
        out["upfront_bytes"] = sum(f.bytes_upfront for f in figs)
        out["upfront_tokens"] = sum(f.tokens_upfront for f in figs)
    out["model_facing"] = {k: sum(f.model_facing[k] for f in figs) for k in MODEL_KEYS}
    scored = [(f.description_score, f.tools) for f in figs
              if f.description_score is not None and f.tools]
    n = sum(tools for _score, tools in scored)
    # over all the tools: each catalog's score weighted by its tools
    out["description_score"] = round(sum(score * tools for score, tools in scored) / n, 1) \
        if n else None
    return out


def saving_pct(before: int, after: int) -> float:
    """Percent saved from ``before`` to ``after`` (0 when before is 0)."""
    return (before - after) * 100.0 / before if before else 0.0


# --------------------------------------------------------------------------- breakdown


def _json_len(value: Any, memo: dict | None = None) -> int:
    """Length of the canonical bytes of ``value`` (strings without the float check; a
    container through :func:`~toolcat.document.canonical.canonical_size`, each shared part
    once, when a ``memo`` is given)."""
    if isinstance(value, str):
        try:
            return len(orjson.dumps(value))
        except MemoryError:   # never a best effort: one line, exit 2 (cli)
            raise
        except Exception:  # noqa: BLE001 - lone surrogates: the exact encoder
            pass
    elif memo is not None:
        return canonical.canonical_size(value, memo)
    return len(canonical.dumps(value))


def _entry_bytes(obj: dict, key: str, value: Any, jlen: Any = _json_len) -> int:
    """Bytes the entry ``"key":value`` takes in ``obj``, with its separating comma."""
    n = jlen(key) + 1 + jlen(value)
    return n + 1 if len(obj) > 1 else n


#: a schema key -> the bytes of ``"key":`` when it is prose (:func:`is_prose_key`), else 0
#: (what :func:`schema_prose_bytes` asks of every key of every node, once per key)
_PROSE_KEYS: dict[str, int] = {}
_PROSE_KEYS_MAX = 1 << 14


def _prose_key_bytes(key: Any) -> int:
    got = _PROSE_KEYS.get(key)
    if got is None:
        got = _json_len(key) + 1 if is_prose_key(key) else 0
        if len(_PROSE_KEYS) >= _PROSE_KEYS_MAX:
            _PROSE_KEYS.clear()
        _PROSE_KEYS[key] = got
    return got


def schema_prose_bytes(schema: Any, dialect: str = DRAFT2020, jlen: Any = _json_len,
                       memo: dict | None = None) -> int:
    """Bytes of the prose entries in the schema positions of ``schema`` (``memo``: kept
    across calls, each shared subtree is added up once: :func:`sum_schemas`); each entry
    as :func:`_entry_bytes` counts it."""
    keys = _PROSE_KEYS

    def own(node: dict) -> int:
        n = entries = 0
        for k, v in node.items():
            kb = keys.get(k)
            if kb is None:
                kb = _prose_key_bytes(k)
            if kb:
                # (an ASCII string: its bytes at once, as every jlen gives them)
                n += kb + (len(orjson.dumps(v)) if v.__class__ is str and v.isascii()
                           else jlen(v))
                entries += 1
        # (each entry's separating comma, when the node has another)
        return n + entries if entries and len(node) > 1 else n

    if memo is not None and schema.__class__ is dict:
        # a definitions map the tools share (an OpenAPI spec's bundled definitions: Stripe's
        # output schemas hold 150,955 entries in 137 maps), its entries added up once per map
        d = node_dialect(schema, dialect) if "$schema" in schema else dialect
        for key in ("$defs", "definitions"):
            entries = schema.get(key)
            if entries.__class__ is dict and APPLICATORS[d].get(key) == SCHEMA_MAP:
                mk = ("map", id(entries), d)
                got = memo.get(mk)
                if got is None or got[0] is not entries:
                    # (held: its id stays its own; and each entry, met in other maps too)
                    n = 0
                    for e in entries.values():
                        ek = ("entry", id(e), d)
                        one = memo.get(ek)
                        if one is None or one[0] is not e:
                            one = memo[ek] = (e, sum_schemas(e, own, d, memo))
                        n += one[1]
                    got = memo[mk] = (entries, n)
                rest = {k: v for k, v in schema.items() if k != key}
                # (the node's own entries as the node has them: their commas)
                return sum_schemas(rest, own, dialect, memo) - own(rest) + own(schema) + got[1]
    return sum_schemas(schema, own, dialect, memo)


#: a schema a descriptor does not hold (Target.get_schema's default)
_ABSENT: Any = object()


class _Breakdown:
    """Splits the canonical bytes of a view's arrays into :data:`BREAKDOWN_KEYS`, a batch of
    items at a time, and sizes their schemas; its memos (kept across the chunks of one
    :meth:`_Sums.add` call) make each object the items share (an OpenAPI spec's bundled
    definitions) cost its size once, not once per tool."""

    def __init__(self) -> None:
        self.sizes: dict = {}       # canonical_size's memo
        self.prose: dict = {}       # sum_schemas's memo
        self.known: dict[int, tuple[Any, int]] = {}   # id(schema) -> (schema, its bytes)
        self.wholes: dict[int, tuple[Any, int]] = {}  # the same, for whole_len

    def jlen(self, value: Any) -> int:
        got = self.known.get(id(value))
        if got is not None and got[0] is value:
            return got[1]
        return _json_len(value, self.sizes)

    def _learn(self, item: Any, size: int, envelope: Any) -> None:
        """Learn the bytes of the last schema of ``item`` (a descriptor that is its own
        body) from ``size``, the length of its canonical bytes: that less the length of the
        descriptor with that schema replaced by ``0`` (the bytes are compositional), plus
        that ``0``.
        A Stripe tool's output schema is 440 kB on average: sizing it node by node
        (:func:`~toolcat.document.canonical.canonical_size`) cost more than this one
        C-speed pass over the rest."""
        present = [(w, s) for w in range(len(envelope.schema_paths))
                   if (s := envelope.get_schema(item, w, _ABSENT)) is not _ABSENT]
        if not present or not isinstance(present[-1][1], (dict, list)):
            return
        last, schema = present[-1]
        rest = envelope.with_schema(item, 0, last)
        self.known[id(schema)] = (schema, size - len(canonical.dumps(rest)) + 1)

    def split(self, items: list, target: str, dialects: list[str] | None,
              total_bytes: int, sizes: list[int] | None = None,
              field_sizes: list[dict[str, int]] | None = None) -> dict[str, int]:
        """The four parts of the canonical array of ``items`` (``total_bytes`` long);
        ``sizes``: the length of each item's canonical bytes, when known (the schemas are
        sized from them); ``field_sizes``: the length of each item's schema fields, when
        known (:meth:`toolcat.features.project.parts.DescriptorParts.parts`: its schemas are
        not sized again)."""
        desc = prose = schema = 0
        envelope = targets.get(target)
        jlen = self.jlen
        self.known = {}
        fields = [p[0] if len(p) == 1 else None for p in envelope.schema_paths]
        for i, item in enumerate(items):
            body = envelope.body(item)
            if not isinstance(body, dict):
                continue
            known = field_sizes[i] if field_sizes is not None else None
            if known:
                for f in fields:
                    if f is not None and f in known:
                        s = body[f]
                        if s.__class__ is dict or s.__class__ is list:
                            self.known[id(s)] = (s, known[f])   # (held by the item)
            elif sizes is not None and body is item:
                self._learn(item, sizes[i], envelope)
            if "description" in body:
                desc += _entry_bytes(body, "description", body["description"], jlen)
            dialect = dialects[i] if dialects is not None and i < len(dialects) else DRAFT2020
            for w in range(len(envelope.schema_paths)):
                s = envelope.get_schema(body, w, _ABSENT)
                if s is not _ABSENT:
                    schema += jlen(s)
                    prose += schema_prose_bytes(s, dialect, jlen, self.prose)
        return {"descriptions": desc, "schema_prose": prose, "schema_shape": schema - prose,
                "other": total_bytes - desc - schema}

    def schema_sizes(self, envelope: Any, items: list, whole: bool = False) -> dict[str, int]:
        """Canonical bytes of the input schemas and of the output schemas of ``items``.
        ``whole``: each distinct schema object serialized whole, once (the compact view's:
        small, shared between tools as whole results, never as bundled definitions)."""
        out = {"input": 0, "output": 0}
        jlen = self.whole_len if whole else self.jlen
        for it in items:
            body = envelope.body(it)
            if not isinstance(body, dict):
                continue
            for which, side in enumerate(("input", "output")):
                s = envelope.get_schema(body, which, _ABSENT)
                if s is not _ABSENT:
                    out[side] += jlen(s)
        return out

    def whole_len(self, value: Any) -> int:
        if value.__class__ is not dict and value.__class__ is not list:
            return _json_len(value)
        got = self.wholes.get(id(value))
        if got is not None and got[0] is value:
            return got[1]
        n = len(canonical.dumps(value))
        self.wholes[id(value)] = (value, n)    # the value is held: its id stays its own
        return n


# --------------------------------------------------------------------------- projection


def default_target(cat: Catalog) -> str:
    """The name of the target ``cat`` is measured in when ``--to`` is not given: its own
    envelope (an OpenAI or Anthropic tool array as itself, so "before" is the file's own
    canonical bytes; a Responses API array as one), MCP for the formats no target writes
    (OpenAPI, Swagger, docker)."""
    from toolcat.formats.openai import responses_array

    if responses_array(cat):
        return "openai-responses"
    for name in targets.names():
        if cat.format in targets.get(name).native_formats:
            return name
    return targets.get("mcp").name


def project_one(cat: Catalog, popts: Any) -> Any:
    """The projection of ``cat`` that measure counts. Tools that share an id are measured
    as they are (measure writes no catalog) and named in a note, where ``project`` stops."""
    from dataclasses import replace

    from toolcat.features.project import project_catalogs

    if getattr(popts, "duplicate_ids", None) == "error":
        popts = replace(popts, duplicate_ids="keep")
    if getattr(popts, "to", None) is None:
        popts = replace(popts, to=default_target(cat))
    return project_catalogs([cat], popts)


def measure_catalogs(cats: list[Catalog], popts: Any, tokenizer: str = "o200k_base",
                     per_tool: bool = False, counter: Any = None,
                     on_catalog: Any = None, loaded: int = 5,
                     digest: bool = True) -> list[CatalogFigures]:
    """All figures of each catalog; ``popts`` are the projection options (ProjectOptions).

    Token counts go through ``counter`` (:func:`toolcat.tokens.counter`; made here when not
    given), so they may be computed on another core while the next catalog is projected;
    they are filled in once every text is submitted. ``loaded``: with deferral
    (``popts.defer``), the tools a session loads (the session estimate). ``digest``: the
    SHA-256 of each standard view (``sha256_before``, None without it: ``measure``'s table
    does not show it, and hashing a Kubernetes standard view, 54 MB, costs 35 ms).
    """
    from toolcat import tokens
    from toolcat.tokens import Tally

    counter = counter if counter is not None else tokens.counter(tokenizer)
    figs: list[CatalogFigures] = []
    # (object, attribute, counter index or the Tally of a text counted in pieces)
    slots: list[tuple[Any, str, Any]] = []
    try:
        from toolcat.errors import about

        for cat in cats:
            with about(cat.file):   # an error deep inside (a RecursionError) names the file
                figs.append(_measure_one(cat, popts, counter, per_tool, slots, loaded,
                                         digest))
            if on_catalog is not None:
                on_catalog(cat)
        counts = counter.results()
    finally:
        counter.close(kill=True)  # a no-op once results() returned
    for obj, attr, i in slots:
        # a Tally: the text was counted in pieces, which add up
        n = i.total(counts) if isinstance(i, Tally) else counts[i] if i >= 0 else 0
        if isinstance(obj, dict):
            obj[attr] = n
        else:
            setattr(obj, attr, n)
    for f in figs:
        f.tokens_lossless = f.tokens_before - f.tokens_middle
    return figs


def _score(cat: Catalog) -> float | None:
    """The catalog's description quality score (None for a catalog without tools)."""
    from toolcat.features.lint.quality import catalog_score

    return catalog_score(cat)


def measure_catalog(cat: Catalog, popts: Any, tokenizer: str = "o200k_base",
                    per_tool: bool = False) -> CatalogFigures:
    """All figures of one catalog (counted in this process)."""
    from toolcat import tokens

    return measure_catalogs([cat], popts, tokenizer, per_tool,
                            counter=tokens.Counter(tokenizer))[0]


def _without_key(envelope: Any, item: Any, key: str) -> Any:
    """A copy of the descriptor ``item`` without ``key`` in its body."""
    body = envelope.body(item)
    if not isinstance(body, dict) or key not in body:
        return item
    if body is item:
        return {k: v for k, v in item.items() if k != key}
    return {k: (_without_key(envelope, v, key) if v is body else v) for k, v in item.items()}


def _with_body(envelope: Any, item: dict, body: dict) -> dict:
    if envelope.body(item) is item:
        return body
    old = envelope.body(item)
    return {k: (body if v is old else v) for k, v in item.items()}


#: the lossy changes the lossless-only view undoes: the description cut (or left out for
#: repeating the title) and the UI labels moved to the handbook
_UNDONE = ("/description", "/title", "/annotations/title")


def _same_name(envelope: Any, a: Any, b: Any) -> bool:
    """Whether descriptors ``a`` and ``b`` carry the same tool name."""
    ba, bb = envelope.body(a), envelope.body(b)
    key = envelope.id_key
    return isinstance(ba, dict) and isinstance(bb, dict) and key in ba and ba.get(key) == bb.get(key)


def _lossless_only(envelope: Any, pt: Any, before_item: Any) -> Any:
    """The descriptor of one tool with the exact rewrites of its compact view only: the
    compact descriptor with the cut description and the relocated titles put back. A tool
    with another change that is not exact (a widened or omitted schema, a field the target
    does not carry) is taken as it was before: all of its saving counts as lossy."""
    from toolcat.features.project import describe
    from toolcat.schema.lower import EXACT

    after_item = pt.descriptor
    # a rename written in both views (MCP, OpenWOP: the standard one too) is no saving
    renamed_both = _same_name(envelope, after_item, before_item)
    lossy = [c for c in pt.changes if c.kind != EXACT and c.pointer != "/outputSchema"
             and not (renamed_both and c.pointer == "/name")]
    if not lossy:
        return after_item
    if any(c.pointer not in _UNDONE for c in lossy):
        return before_item
    body, std = envelope.body(after_item), envelope.body(before_item)
    if not isinstance(body, dict) or not isinstance(std, dict):
        return before_item
    body = dict(body)
    for c in lossy:
        if c.pointer == "/annotations/title":
            ann = std.get("annotations")
            if isinstance(ann, dict) and "title" in ann:
                body["annotations"] = {**(body.get("annotations") or {}), "title": ann["title"]}
        else:
            key = c.pointer[1:]
            if key in std:
                v = std[key]
                # the compact view collapses whitespace (exact for a model): only the cut
                # is undone
                body[key] = describe.collapse(v) if key == "description" and isinstance(
                    v, str) else v
    # the keys in the order the descriptor writes them (the standard's), which the tokens
    # depend on
    body = {**{k: body[k] for k in std if k in body}, **body}
    return _with_body(envelope, after_item, body)


def _add_array(view: Any, batch: bytes) -> None:
    """Add the items of ``batch`` (their canonical array) to the array ``view``."""
    inner = memoryview(batch)[1:-1]     # (a view: the chunk is not copied)
    if len(inner):
        if view.size > 1:
            view.add(b",")
        view.add(inner)


#: the tools whose views are serialized at once when measuring (about this many bytes of
#: the before view): a Stripe spec's standard view is 206 MB, never held whole
_CHUNK_BYTES = 1 << 20


class _Sums:
    """The figures of one catalog summed over its projected tools, a chunk at a time:
    the before (standard), after (compact) and lossless-only views' bytes, SHA-256 and
    tokens (:class:`toolcat.tokens.Tally`: each distinct piece counted once, the
    definitions entries the standard descriptors bundle serialized once and never joined
    into the whole text), the byte breakdown, schema sizes and per-tool figures."""

    def __init__(self, counter: Any, envelope: Any, popts: Any, per_tool: bool, file: str,
                 slots: list, digest: bool = True) -> None:
        self.counter, self.envelope, self.per_tool, self.file = counter, envelope, per_tool, file
        self.slots = slots
        self.out_key = envelope.output_field
        self.no_output = self.out_key is not None and \
            getattr(popts, "output_policy", "bounded") == "none"
        from toolcat.features.project.parts import DescriptorParts
        from toolcat.tokens import Seen, Tally

        #: the distinct pieces the views submitted (they repeat each other)
        self.seen = Seen()
        self.before = Tally(counter, self.seen, hash=digest)
        self.after, self.middle = Tally(counter, self.seen), Tally(counter, self.seen)
        self.model_before, self.model_after = Tally(counter, self.seen), Tally(counter, self.seen)
        for view in self._views():
            view.add(b"[")
        self.desc = self.prose = self.schema = 0
        #: the standard descriptors' bytes in parts (each definitions entry once)
        self.writer = DescriptorParts(envelope)
        self.sizes = {"before": {"input": 0, "output": 0}, "after": {"input": 0, "output": 0}}
        self.tools = 0
        self.unlowerable: list[str] = []
        self.tool_figures: list[ToolFigures] = []

    def _views(self) -> tuple:
        return (self.before, self.after, self.middle, self.model_before, self.model_after)

    def add(self, pts: list, dialects: list[str] | None) -> None:
        """Add projected tools (``ProjectedTool`` s in output order) and their dialects, in
        chunks of about :data:`_CHUNK_BYTES` of the before view (the tools' sizes vary 1000x:
        a chunk ends after the tool that fills it)."""
        env = self.envelope
        start = size = 0
        befores: list[tuple[Any, list, int, dict[str, int]]] = []
        # one for the call (its memos hold the objects they measured): a streamed catalog's
        # batches come one call each, memory stays that of a batch
        breakdown = _Breakdown()
        from toolcat.features.project.parts import size as parts_size

        for i, t in enumerate(pts):
            item = t.standard
            if self.out_key is not None and self.no_output:
                # --no-output-schema: like with like, the before side leaves them out too
                item = _without_key(env, item, self.out_key)
            fields: dict[str, int] = {}
            parts = self.writer.parts(item, fields)
            n = parts_size(parts)
            befores.append((item, parts, n, fields))
            size += n
            if size >= _CHUNK_BYTES or i == len(pts) - 1:
                self._chunk(pts[start:i + 1], dialects[start:i + 1]
                            if dialects is not None else None, befores, breakdown)
                start, size, befores = i + 1, 0, []

    def _chunk(self, pts: list, dialects: list[str] | None,
               befores: list[tuple[Any, list, int, dict[str, int]]],
               parts_of: "_Breakdown") -> None:
        env = self.envelope
        before_items = [item for item, _, _, _ in befores]
        after_items = [t.descriptor for t in pts]
        a = canonical.dumps(after_items)
        from toolcat.features.project.parts import add_item

        for t, (bi, bparts, _n, _f) in zip(pts, befores):
            add_item(self.before, bparts)
            # the lossless-only descriptor is often the before one (a widened output
            # schema): its parts are known
            lo = _lossless_only(env, t, bi)
            add_item(self.middle, bparts if lo is bi else [canonical.dumps(lo)])
        _add_array(self.after, a)
        from toolcat.features.project.prose import model_facing

        for bi in before_items:
            add_item(self.model_before, self.writer.parts(model_facing(env, bi)))
        _add_array(self.model_after, canonical.dumps([model_facing(env, i) for i in after_items]))
        sizes = [n for _, _, n, _ in befores]
        # the canonical bytes are compositional: an array's are its items' joined
        parts = parts_of.split(before_items, env.name, dialects, sum(sizes) + len(sizes) + 1,
                               sizes, [f for _, _, _, f in befores])
        self.desc += parts["descriptions"]
        self.prose += parts["schema_prose"]
        self.schema += parts["schema_prose"] + parts["schema_shape"]
        for side, items in (("before", before_items), ("after", after_items)):
            for k, v in parts_of.schema_sizes(env, items, whole=side == "after").items():
                self.sizes[side][k] += v
        parts_of.known = {}
        self.unlowerable.extend(t.id for t in pts if getattr(t, "failed", False))
        self.tools += len(pts)
        if self.per_tool:
            from toolcat.tokens import Tally

            for (bi, bparts, bn, _f), ai in zip(befores, after_items):
                ab = canonical.dumps(ai)
                tf = ToolFigures(file=self.file, id=env.item_id(bi), bytes_before=bn,
                                 bytes_after=len(ab), tokens_before=0, tokens_after=0)
                one = Tally(self.counter, self.seen)
                one.add_parts(bparts)
                one.close()
                self.slots.append((tf, "tokens_before", one))
                self.slots.append((tf, "tokens_after", self.counter.submit(ab)))
                self.tool_figures.append(tf)

    def batch_done(self) -> None:
        """The tools added so far are not met again (a streamed catalog's batch: the next
        ones are other objects): forget the definitions entries and groups met (the memos of
        :class:`DescriptorParts` and of the shared :class:`Seen`, which hold their objects),
        which would otherwise grow with the catalog, not with a batch. The same figures: a
        memo is keyed by an object, and no later tool holds these."""
        from toolcat.features.project.parts import DescriptorParts

        self.writer = DescriptorParts(self.envelope)
        self.seen.groups.clear()

    def figures(self, cat: Catalog, *, without_input_schema: int, input_schema_note: str | None,
                duplicate_note: str | None) -> CatalogFigures:
        for view in self._views():
            view.add(b"]")
            view.close()
        before = self.before
        fig = CatalogFigures(
            file=cat.file,
            format=cat.format,
            target=self.envelope.name,
            tools=self.tools,
            bytes_before=before.size,
            bytes_after=self.after.size,
            tokens_before=0,
            tokens_after=0,
            sha256_before=before.hash.hexdigest() if before.hash is not None else None,
            breakdown={"descriptions": self.desc, "schema_prose": self.prose,
                       "schema_shape": self.schema - self.prose,
                       "other": before.size - self.desc - self.schema},
            tool_figures=self.tool_figures,
            unlowerable=self.unlowerable,
            without_input_schema=without_input_schema,
            input_schema_note=input_schema_note,
            duplicate_note=duplicate_note,
            schemas=self.sizes,
            bytes_lossless=before.size - self.middle.size,
            output_schemas=not self.no_output,
        )
        self.slots.append((fig, "tokens_before", before))
        self.slots.append((fig, "tokens_after", self.after))
        self.slots.append((fig, "tokens_middle", self.middle))
        fig.model_facing["bytes_before"] = self.model_before.size
        fig.model_facing["bytes_after"] = self.model_after.size
        self.slots.append((fig.model_facing, "tokens_before", self.model_before))
        self.slots.append((fig.model_facing, "tokens_after", self.model_after))
        return fig


def _measure_streamed(cat: Catalog, popts: Any, counter: Any, per_tool: bool,
                      slots: list, digest: bool = True) -> CatalogFigures | None:
    """:func:`_measure_one` of a streamed catalog (formats.mcp.StreamedTools), a batch of
    tools at a time: the same figures, exactly (lengths, hashes and token counts add up over
    the batches). None when the projection of the batches is not the projection of the
    whole: ids repeated or renamed across batches, a provider target or sorted output
    (then the catalog is measured whole)."""
    from dataclasses import replace

    from toolcat.features.project import input_schema_note

    if getattr(popts, "to", None) is None:
        popts = replace(popts, to=default_target(cat))
    envelope = targets.get(popts.to)
    if envelope.provider is not None or getattr(popts, "sort", False):
        return None
    sums = _Sums(counter, envelope, popts, per_tool, cat.file, slots, digest)
    ids: set = set()
    no_input: list[str] = []
    no_input_count = 0
    view = None
    stream = cat.stream
    assert stream is not None         # (_measure_one's condition)
    from toolcat.formats.mcp import GC_TOOLS

    uncollected = 0
    for tools, _source in stream.batches():
        part = Catalog(file=cat.file, format=cat.format, tools=tools, view=cat.view,
                       version=cat.version, meta=cat.meta)
        proj = project_one(part, popts)
        if proj.duplicates or proj.renamed() or proj.warnings or \
                any(t.id in ids for t in proj.tools):
            return None
        ids.update(t.id for t in proj.tools)
        view = proj.view
        sums.add(proj.tools, [t.dialect for t in tools])
        sums.batch_done()
        missing = proj.without_input_schema()
        no_input.extend(missing[:max(0, 3 - len(no_input))])
        no_input_count += len(missing)
        uncollected += len(tools)
        del part, proj
        if uncollected >= GC_TOOLS:   # the batches' reference cycles (formats.mcp.GC_TOOLS)
            gc.collect()
            uncollected = 0
    if not sums.tools:
        return None
    fig = sums.figures(cat, without_input_schema=no_input_count, duplicate_note=None,
                       input_schema_note=input_schema_note(no_input, no_input_count,
                                                           sums.tools, envelope, view))
    # every text is submitted: the pieces met are not needed again (they would stay held
    # by the views' tallies while the description score reads the catalog again)
    sums.seen.forget()
    return fig


def _measure_one(cat: Catalog, popts: Any, counter: Any, per_tool: bool,
                 slots: list, loaded: int = 5, digest: bool = True) -> CatalogFigures:
    defer = getattr(popts, "defer", None)
    stream = cat.stream
    if stream is not None and not (defer and defer.active):
        mark = len(slots)
        fig = _measure_streamed(cat, popts, counter, per_tool, slots, digest)
        if fig is not None:
            fig.description_score = _score(cat)
            return fig
        del slots[mark:]          # (what was submitted is counted and left unused)
        # from here on the catalog read whole (the stream is closed: never read it again)
        cat = stream.load_whole()
    proj = project_one(cat, popts)
    sums = _Sums(counter, targets.get(proj.target), popts, per_tool, cat.file, slots, digest)
    # the standard view as the projection built it: standard_array([cat], target), with
    # --source/--safety-tier applied where the target is not the input's own format
    sums.add(proj.tools, [t.dialect for t in cat.tools]
             if len(cat.tools) == len(proj.tools) else None)
    fig = sums.figures(cat, without_input_schema=len(proj.without_input_schema()),
                       input_schema_note=proj.input_schema_note(),
                       duplicate_note=proj.duplicate_note())
    if proj.left_out:
        from toolcat.features.project import left_out_note

        fig.left_out_note = left_out_note(proj.left_out)
    if proj.plan is not None:
        from toolcat.features.measure.defer import defer_figures

        fig.defer = defer_figures(proj, counter, slots, loaded)
    fig.description_score = _score(cat)
    return fig


class Measurement:
    """What :func:`toolcat.measure` gives: each catalog's :class:`CatalogFigures` (in input
    order) and the tokenizer they were counted with."""

    def __init__(self, catalogs: list[CatalogFigures], tokenizer: str) -> None:
        self.catalogs = catalogs
        self.tokenizer = tokenizer

    def total(self) -> dict:
        """The sums of every figure (the total row)."""
        return total(self.catalogs)

    def top(self, n: int) -> list[ToolFigures]:
        """The ``n`` heaviest tools (measured with ``per_tool=True``)."""
        return top_tools(self.catalogs, n)

    def json(self, top: int = 0) -> dict:
        """What ``toolcat measure --format json [--top N]`` prints, as data."""
        from toolcat.features.measure.render import json_data

        return json_data(self.catalogs, self.tokenizer, self.top(top) if top > 0 else None)


def top_tools(figs: list[CatalogFigures], n: int) -> list[ToolFigures]:
    """The ``n`` heaviest tools of all catalogs (by before tokens, then bytes)."""
    allt = [t for f in figs for t in f.tool_figures]
    allt.sort(key=lambda t: (-t.tokens_before, -t.bytes_before, t.file, t.id or ""))
    return allt[:n]


# --------------------------------------------------------------------------- loading


def uncaptured_status(path: str, limits: Any = None) -> str | None:
    """If ``path`` is an mcp-context-cost capture without tools, its status; else None."""
    from toolcat.document.parse import load_file
    from toolcat.formats.detect import detect

    try:
        doc, _src = load_file(path, limits=limits)
    except InputError:
        return None
    if isinstance(doc, dict) and detect(doc) == MCP_CAPTURE \
            and not isinstance(doc.get("rawToolsCapture"), list):
        return str(doc.get("status", "unknown"))
    return None


def load_for_measure(paths: list[str], opts: Any, on_file: Any = None
                     ) -> tuple[list[Catalog], list[tuple[str, str]]]:
    """Load ``paths``; captures without tools are skipped when other catalogs remain.

    Returns the catalogs and the skipped ``(file, status)`` pairs. A shell glob over the
    mcp-context-cost folder names servers that could not be measured (``auth-required``,
    ``timeout``...): they hold nothing to measure, so they are skipped with a note instead of
    failing the whole run. When nothing else is left, the first such file is an input error.
    """
    import dataclasses

    from toolcat.formats import load_catalogs, merge_catalogs

    merge = bool(getattr(opts, "merge", False))
    one = dataclasses.replace(opts, merge=False) if merge else opts
    cats: list[Catalog] = []
    skipped: list[tuple[str, str]] = []
    first_err: InputError | None = None
    for p in paths:
        try:
            cats.extend(load_catalogs([p], one))
        except InputError as e:
            status = None
            if p != "-" and not os.path.isdir(p) and (one.from_format in (None, MCP_CAPTURE)):
                status = uncaptured_status(p, one.limits)
            if status is None:
                raise
            skipped.append((p, status))
            first_err = first_err or e
        if on_file is not None:
            on_file(p)
    if not cats:
        if first_err is not None:
            raise first_err
        raise InputError("nothing to measure")
    if merge and len(cats) > 1:
        cats = [merge_catalogs(cats)]
    return cats, skipped


# --------------------------------------------------------------------------- gates


@dataclass(slots=True)
class Budget:
    max_bytes: int | None = None
    max_tokens: int | None = None
    gate: str = "before"                   # side the limits apply to (GATES)
    baseline: dict | None = None           # parsed baseline file
    baseline_file: str | None = None
    max_increase: Fraction | None = None   # percent

    def active(self) -> bool:
        return self.max_bytes is not None or self.max_tokens is not None or self.baseline is not None


@dataclass(slots=True)
class GateFailure:
    file: str
    figure: str          # e.g. "tokens_after"
    limit: int | float
    value: int
    baseline: int | None = None   # set for baseline growth
    pct: Fraction | None = None   # the allowed growth in percent

    @property
    def side(self) -> str:
        """What the gated side is, in words (the figure names it as ``_before``/``_after``)."""
        return GATES[self.figure.rsplit("_", 1)[-1]]

    def message(self) -> str:
        if self.baseline is None:
            return (f"{self.file}: {self.figure} ({self.side}) {self.value:,} is over the "
                    f"limit {int(self.limit):,} (by {self.value - int(self.limit):,})")
        grew = ("from 0" if self.baseline == 0
                else f"+{float(Fraction(self.value - self.baseline, self.baseline) * 100):.2f}%")
        return (f"{self.file}: {self.figure} ({self.side}) grew {grew} over its baseline "
                f"({self.baseline:,} -> {self.value:,}); limit +{_fmt_pct(self.pct)}% "
                f"= {self.limit:,}")


def _fmt_pct(p: Fraction | None) -> str:
    if p is None:
        return "0"
    f = float(p)
    return f"{f:g}"


def pct_fraction(value: float | str) -> Fraction:
    """The exact percent a user typed (``10.1`` is 101/10, not the nearest double)."""
    try:
        fr = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--max-increase must be a number of percent (got {value!r})") from None
    if fr < 0:
        raise UsageError("--max-increase must not be negative")
    return fr


def _norm(path: str) -> str:
    return os.path.normpath(path) if path != "-" else path


def baseline_entry(baseline: dict, file: str) -> dict | None:
    """The baseline figures of ``file``: same path, else the one entry with the same name."""
    cats = baseline.get("catalogs", {})
    e = cats.get(_norm(file))
    if e is not None:
        return e
    base = os.path.basename(_norm(file))
    hits = [v for k, v in cats.items() if os.path.basename(k) == base]
    return hits[0] if len(hits) == 1 else None


def check_gates(figs: list[CatalogFigures], budget: Budget) -> tuple[list[GateFailure], list[str]]:
    """Failures (in catalog order) and notes (catalogs missing from the baseline)."""
    fails: list[GateFailure] = []
    notes: list[str] = []
    side = budget.gate
    for f in figs:
        for figure, limit in (("bytes", budget.max_bytes), ("tokens", budget.max_tokens)):
            if limit is not None and f.get(figure, side) > limit:
                fails.append(GateFailure(f.file, f"{figure}_{side}", limit, f.get(figure, side)))
        if budget.baseline is not None:
            entry = baseline_entry(budget.baseline, f.file)
            if entry is None:
                notes.append(f"{f.file}: not in the baseline {budget.baseline_file}; not gated")
                continue
            pct = budget.max_increase if budget.max_increase is not None else Fraction(0)
            for figure in FIGURES:
                key = f"{figure}_{side}"
                base = entry.get(key)
                if not isinstance(base, int) or isinstance(base, bool):
                    continue
                value = f.get(figure, side)
                # exact: value <= base * (1 + pct/100)
                allowed = Fraction(base) * (1 + pct / 100)
                if value > allowed:
                    lim = int(allowed) if allowed.denominator == 1 else float(allowed)
                    fails.append(GateFailure(f.file, key, lim, value, base, pct))
    return fails, notes


def baseline_doc(figs: list[CatalogFigures], tokenizer: str) -> dict:
    cats: dict[str, dict] = {}
    for f in figs:
        d = f.to_json()
        cats[_norm(f.file)] = {k: d[k] for k in BASELINE_KEYS}
    return {"toolcat_baseline": BASELINE_VERSION, "tokenizer": tokenizer, "catalogs": cats}


def write_baseline(path: str, figs: list[CatalogFigures], tokenizer: str) -> None:
    from toolcat.ui import write_atomic

    try:
        write_atomic(path, canonical.dumps(baseline_doc(figs, tokenizer), indent=2) + b"\n")
    except OSError as e:
        raise InputError(f"cannot write the baseline: {e.strerror or e}", path) from None


def read_baseline(path: str, tokenizer: str) -> dict:
    import json

    from toolcat.document.parse import Limits
    from toolcat.files import read_regular

    raw = read_regular(path, Limits.from_env().max_file_size, what="baseline file")
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise InputError(f"the baseline is not JSON: {e}", path) from None
    if not (isinstance(doc, dict) and doc.get("toolcat_baseline") == BASELINE_VERSION
            and isinstance(doc.get("catalogs"), dict)):
        raise InputError("not a toolcat baseline (write one with --write-baseline)", path)
    for key, entry in doc["catalogs"].items():
        if not isinstance(entry, dict):
            kind = "a list" if isinstance(entry, list) else "null" if entry is None else \
                f"a {type(entry).__name__}" if not isinstance(entry, (int, float)) else "a number"
            raise InputError(f"catalogs/{json.dumps(key)} is {kind} where the catalog's figures "
                             "(an object) are expected (write the baseline with --write-baseline)",
                             path)
    if doc.get("tokenizer") != tokenizer:
        raise UsageError(f"{path}: the baseline counts tokens with {doc.get('tokenizer')}; "
                         f"pass --tokenizer {doc.get('tokenizer')} to compare with it")
    return doc


__all__ = [
    "BREAKDOWN_KEYS", "Budget", "CatalogFigures", "GateFailure", "Measurement", "ToolFigures",
    "baseline_doc",
    "breakdown", "check_gates", "default_target", "load_for_measure",
    "measure_catalog", "read_baseline", "schema_prose_bytes", "top_tools", "total",
    "write_baseline",
]
