"""`toolcat project`: a catalog's compact (or lossless standard) view in a target's envelope.

The API that ``project``, ``measure`` and ``diff-toolids`` share::

    from toolcat.features.project import ProjectOptions, project_catalogs, standard_array

    proj = project_catalogs(catalogs, ProjectOptions(to="openwop"))
    proj.output_bytes()    # the file `project` writes
    proj.array_bytes()     # the tools array alone, canonical bytes (what `measure` counts)
    proj.handbook()        # {"tools": {id: standard descriptor}}: everything removed
    proj.report()          # {"digest", "tools": [{"id", "changes": [...]}]}

What the compact view does to one tool, in order: keep the target's compact fields
(:mod:`.envelopes`); collapse and cut the description (:mod:`.describe`); for MCP, leave the
UI labels (``title``, ``annotations.title``) to the handbook when a description remains
(``keep_titles`` keeps them); strip prose from schema positions, remove validation no-ops
and lower the input schema to the RFC 0112 compact subset where that is exact, widening (or
omitting, keeping, failing) where it is not (:mod:`.lower`); for MCP, OpenAI and Anthropic,
factor repeated identical subschemas into ``$defs`` + ``$ref`` (:mod:`.factor`). Output is
canonical JSON (:mod:`toolcat.document.canonical`), byte-stable, tools in input order unless sorted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from toolcat.document import pointer as jp
from toolcat.document.canonical import dumps, sha256
from toolcat.errors import InputError, UsageError
from toolcat.features.project import describe, roots
from toolcat.features.project.defer import DEFAULT_THRESHOLD, DeferOptions, DeferPlan
from toolcat.formats import targets as tg
from toolcat.formats.mcp import MCP_HINT_DEFAULTS
from toolcat.formats.openwop import derive_safety_tier, derive_source
from toolcat.formats.targets import Target
from toolcat.formats.targets import names as target_names
from toolcat.model import COMPACT, OPENWOP_SOURCES, SAFETY_TIERS, Catalog, Tool
from toolcat.schema.lower import (
    EXACT,
    OMITTED,
    Change,
    Kind,
    LowerCache,
    content_key,
    lower_schema,
)

VIEWS = ("compact", "standard")
UNLOWERABLE = ("widen", "omit", "keep", "fail")
#: what to do when two tools have the same id in the target: stop with an error naming
#: both, or rename the later ones (``ID_2``, ``ID_3``... in input order); ``keep`` (for
#: ``measure``, which writes no catalog) records them in :attr:`Projection.duplicates`
DUPLICATE_IDS = ("error", "rename")
#: longest id the suffix of a renamed tool keeps an id within (MCP clients and providers
#: accept 64 characters; TC102)
ID_MAX = 64

__all__ = [
    "ProjectOptions", "options_from_cli", "Projection", "ProjectedTool", "Duplicate",
    "project_catalogs", "project_tool", "standard_array", "VIEWS", "UNLOWERABLE",
    "DUPLICATE_IDS",
]


@dataclass
class ProjectOptions:
    view: str = "compact"            # "compact" | "standard"
    to: str | None = None            # "mcp" | "openwop" | "openai" | "anthropic"; None: by input
    description_max: int = 120
    unlowerable: str = "widen"       # "widen" | "omit" | "keep" | "fail"
    # MCP target: the compact view's outputSchema: "full" (prose stripped, exact),
    # "bounded" (also widened below the levels a budget keeps: :mod:`.bound`) or "none";
    # None: "bounded", "full" with `lossless` (True and False: the former --no-output-schema
    # flag's values, "bounded" and "none")
    output_schema: str | bool | None = None
    sort: bool = False
    source: str | None = None        # override the OpenWOP source
    safety_tier: str | None = None   # override the OpenWOP safetyTier
    indent: int | None = None
    # Lower every inputSchema to the RFC 0112 compact subset (following `unlowerable`).
    # None: only for the openwop target (the subset is its rule); other targets then get
    # exact rewrites only.
    subset: bool | None = None
    # Move repeated identical subschemas into $defs + $ref where smaller (not with the
    # subset, which forbids $ref; never for the openwop target), in a schema that already
    # uses references (`$ref`, `$defs`, `definitions`): several clients strip or refuse
    # `$ref` (issue 33), so a tool without one never gets one unless `factor_all` says so.
    factor: bool = True
    factor_all: bool = False
    # MCP clients (keys of formats.providers.CLIENTS) whose schema rules the compact view
    # meets with rewrites, exact or reported (project.portable), e.g. ("claude-desktop",)
    for_clients: tuple = ()
    # the server's name in the clients' configuration (their tool-name prefix; None: the
    # catalog's, formats.providers.server_name), the plugin that brings it (Claude Code
    # names a plugin's servers' tools apart), and what is put before each name within the
    # client's prefix (toolcat serve's "<upstream>__" of several upstreams)
    server_name: str | None = None
    plugin: str | None = None
    name_prefix: str = ""
    # MCP target: keep `title` and `annotations.title` (UI labels) in the compact view even
    # when the tool has a description; by default they go to the handbook only.
    keep_titles: bool = False
    # two tools with the same id in the target: "error" (default), "rename", or "keep"
    # (internal: measure reports them as a note)
    duplicate_ids: str = "error"
    # what the model reads up front and what it loads on demand (:mod:`.defer`)
    defer: DeferOptions = field(default_factory=DeferOptions)
    # --lossless: no prose a model reads is cut (tool and schema descriptions whole, titles
    # kept); only the exact rewrites apply
    lossless: bool = False

    @property
    def output_policy(self) -> str:
        """The output-schema policy in force: ``full``, ``bounded`` or ``none``."""
        v = self.output_schema
        if v is None or v is True:
            return "full" if self.lossless else "bounded"
        if v is False:
            return "none"
        return v

    def check(self) -> None:
        from toolcat.features.project.bound import POLICIES

        if not (self.output_schema is None or isinstance(self.output_schema, bool)
                or self.output_schema in POLICIES):
            raise UsageError(f"--output-schema must be one of {', '.join(POLICIES)} "
                             f"(got {self.output_schema!r})")
        if self.view not in VIEWS:
            raise UsageError(f"--view must be one of {', '.join(VIEWS)} (got {self.view!r})")
        if self.to is not None and self.to not in target_names():
            raise UsageError(f"--to must be one of {', '.join(target_names())} (got {self.to!r})")
        if self.unlowerable not in UNLOWERABLE:
            raise UsageError(f"--unlowerable must be one of {', '.join(UNLOWERABLE)} "
                             f"(got {self.unlowerable!r})")
        if not isinstance(self.description_max, int) or self.description_max < 0:
            raise UsageError("--description-max must be a number >= 0")
        if self.source is not None and self.source not in OPENWOP_SOURCES:
            raise UsageError(f"--source must be one of {', '.join(OPENWOP_SOURCES)} "
                             f"(got {self.source!r})")
        if self.safety_tier is not None and self.safety_tier not in SAFETY_TIERS:
            raise UsageError(f"--safety-tier must be one of {', '.join(SAFETY_TIERS)} "
                             f"(got {self.safety_tier!r})")
        if self.indent is not None and (self.indent < 0 or self.indent > 16):
            raise UsageError("--indent must be between 0 and 16")
        if self.for_clients:
            from toolcat.features.project import portable

            portable.check(tuple(self.for_clients))
        for label, v in (("--server-name", self.server_name), ("--plugin", self.plugin)):
            if v is not None and not v.strip():
                raise UsageError(f"{label} must not be empty")
        if self.duplicate_ids not in DUPLICATE_IDS + ("keep",):
            raise UsageError(f"--duplicate-ids must be one of {', '.join(DUPLICATE_IDS)} "
                             f"(got {self.duplicate_ids!r})")
        self.defer.check()
        if self.defer.active and self.to is not None and not tg.get(self.to).defers:
            raise UsageError(f"--defer {self.defer.mode} needs a target that defers tools: "
                             f"--to {' or '.join(t for t in target_names() if tg.get(t).defers)}")


def options_from_cli(*, view: str = "compact", to: str | None = None,
                     description_max: int = 120, unlowerable: str | None = None,
                     subset: bool | None = None, output_schema: str | bool | None = None,
                     factor: bool = True, factor_all: bool = False,
                     for_clients: str | Iterable[str] = (), server_name: str | None = None,
                     plugin: str | None = None, keep_titles: bool = False, sort: bool = False,
                     source: str | None = None, safety_tier: str | None = None,
                     indent: int | None = None,
                     duplicate_ids: str = "error",
                     defer: str | DeferOptions | None = None,
                     eager: str | Iterable[str] = (), defer_threshold: int = DEFAULT_THRESHOLD,
                     search: str = "bm25",
                     lossless: bool = False) -> ProjectOptions:
    """The checked :class:`ProjectOptions` of the values of ``toolcat project``, ``toolcat
    measure`` and ``toolcat serve`` (the command line's and the API's keywords alike: one
    set of checks and messages, and measure's "after" is what project writes with the same
    options).

    ``unlowerable`` is None when ``--unlowerable`` was not given (then: widen). Given
    explicitly, it implies ``--subset`` (on a target other than openwop, where the subset is
    the default anyway) unless ``--subset``/``--no-subset`` says otherwise. ``defer`` is a
    mode (``none``, ``all``, ``auto``; with ``eager``, ``defer_threshold`` and ``search``)
    or checked :class:`~toolcat.features.project.defer.DeferOptions`. ``for_clients`` and
    ``eager``: one value or several; each ``for_clients`` value may list clients
    comma-separated (as ``--for`` does).
    """
    if not isinstance(defer, DeferOptions):
        eager = (eager,) if isinstance(eager, str) else tuple(eager or ())
        defer = DeferOptions(defer or "none", eager, defer_threshold, search)
    clients = (for_clients,) if isinstance(for_clients, str) else tuple(for_clients or ())
    opts = ProjectOptions(
        view=view, to=to, description_max=description_max,
        unlowerable=unlowerable or "widen", output_schema=output_schema, sort=sort,
        source=source, safety_tier=safety_tier, indent=indent,
        subset=subset if subset is not None else (True if unlowerable is not None else None),
        factor=factor, factor_all=factor_all,
        for_clients=tuple(x.strip() for v in clients for x in str(v).split(",") if x.strip()),
        server_name=server_name, plugin=plugin,
        keep_titles=keep_titles or lossless,
        duplicate_ids=duplicate_ids,
        defer=defer, lossless=lossless,
    )
    opts.check()
    return opts


@dataclass
class ProjectedTool:
    id: str
    descriptor: Any                  # what is written
    standard: Any                    # the lossless standard view, target shape
    changes: list[Change] = field(default_factory=list)
    conformant: bool = True          # inputSchema within the compact subset (when asked)
    failed: bool = False             # --unlowerable fail met an unlowerable construct
    file: str = ""
    # the source gives no input schema (MCP and Anthropic require one; where the target does,
    # the compact view writes {"type": "object", "properties": {}})
    no_input_schema: bool = False
    # --duplicate-ids rename: the id the tool had (another tool before it has that id)
    renamed_from: str | None = None
    #: a strict provider target: (the tool written without strict, the changes that
    #: variant makes, the changes the strict variant made), for providers.budget
    loose: tuple | None = field(default=None, repr=False)
    #: a provider's server tool, written as given (never deferred)
    server_tool: bool = False
    #: an OpenAI custom tool (free-form text input), written as given; deferred as a
    #: function is where the target defers (the Responses API's ``defer_loading``)
    custom: bool = False
    #: loaded on demand (the deferral plan's decision; the descriptor says so)
    deferred: bool = False

    def lossy(self) -> list[Change]:
        """Changes that alter what a schema accepts (or leave it outside the subset)."""
        return [c for c in self.changes if c.kind != EXACT
                and (c.pointer.startswith("/inputSchema") or c.pointer.startswith("/outputSchema"))
                and not (c.kind == OMITTED and c.pointer == "/outputSchema")]


@dataclass
class Projection:
    target: str                      # the target's name ("mcp", "openwop"...)
    view: str
    tools: list[ProjectedTool]
    options: ProjectOptions
    subset: bool = False
    # ids two or more tools have: [Duplicate] (in input order); renamed unless kept
    duplicates: list["Duplicate"] = field(default_factory=list)
    #: what the output breaks that no rewrite can mend (a provider's tool count per request)
    warnings: list[str] = field(default_factory=list)
    #: ``--broken-refs``: each tool widened or left out at a $ref that does not resolve
    #: ({"id", "where", "what", "refs": [{"file", "pointer", "ref"}]}; the report's
    #: ``broken_refs``)
    broken_refs: list[dict] = field(default_factory=list)
    #: the entries left out (not a tool; a server or custom tool the target cannot send:
    #: :func:`_left_out`): {"file", "line", "column", "where", "what"} (the report's
    #: ``left_out``)
    left_out: list[dict] = field(default_factory=list)
    #: the deferral plan (None: no --defer)
    plan: DeferPlan | None = None
    # serialized views, made once (output, digest, summary and report all want them)
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def envelope(self) -> Target:
        """The :class:`~toolcat.formats.targets.Target` the tools are written for."""
        return tg.get(self.target)

    def array(self) -> list:
        if self.plan is not None and self.plan.any:
            return self.envelope.deferred_array(self.tools, self.plan)
        return [t.descriptor for t in self.tools]

    def upfront_bytes(self) -> bytes:
        """What every request carries (canonical bytes): with tools deferred, the target's
        up-front part of the array (:meth:`Target.upfront`: the tool search tool, the eager
        tools; a deferred tool's schema loads on demand), else the whole array. The one
        figure of ``project``'s summary and ``measure --defer``."""
        arr = self.array()
        return dumps(self.envelope.upfront(arr) if self.plan is not None and self.plan.any
                     else arr)

    def catalog(self) -> Any:
        """What ``toolcat project`` writes, as JSON data (a fresh copy: change it freely)."""
        import json

        return json.loads(self.output_bytes())

    def _once(self, key: str, make: Any) -> Any:
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = make()
        return got

    def array_bytes(self) -> bytes:
        span = self._memo.get("array_span")      # (set only where "array" is not)
        if span is not None:
            return self._memo["output"][span]
        return self._once("array", lambda: dumps(self.array()))

    def output_bytes(self) -> bytes:
        return self._once("output", self._output)

    def _output(self) -> bytes:
        indent = self.options.indent or None
        env = self.envelope
        if env.enveloped:
            mark = env.view_meta if self.view == COMPACT else None
            if indent:
                return dumps({env.envelope_key: self.array(), **(mark or {})},
                             indent=indent) + b"\n"
            tail = b"," + dumps(mark)[1:-1] if mark else b""
            arr = self._memo.get("array")
            if arr is not None:
                return b'{' + dumps(env.envelope_key) + b':' + arr + tail + b"}"
            # one serialization, not the array's and then a copy of it inside the envelope
            # (a Stripe compact view is 49 MB); the array is a slice of it (array_view)
            out = dumps({env.envelope_key: self.array(), **(mark or {})})
            self._memo["array_span"] = slice(len(dumps(env.envelope_key)) + 2,
                                             len(out) - len(tail) - 1)
            return out
        if indent:
            return dumps(self.array(), indent=indent) + b"\n"
        return self.array_bytes()

    def array_view(self) -> bytes | memoryview:
        """:meth:`array_bytes`, as a view into :meth:`output_bytes` where the output holds
        them (no second copy of a large array)."""
        span = self._memo.get("array_span")
        if span is None:
            return self.array_bytes()
        return memoryview(self._memo["output"])[span]

    def standard_bytes(self) -> bytes:
        return self._once("standard", lambda: dumps([t.standard for t in self.tools]))

    def digest(self) -> str:
        return self._once("digest", lambda: "sha256:" + sha256(self.output_bytes()))

    def handbook(self) -> dict:
        from toolcat.features.project.handbook import build_handbook

        return build_handbook(self)

    def handbook_bytes(self) -> bytes:
        return dumps(self.handbook(), indent=self.options.indent or None) + (
            b"\n" if self.options.indent else b"")

    def report(self) -> dict:
        from toolcat.features.project.report import build_report

        return build_report(self)

    def report_bytes(self) -> bytes:
        return dumps(self.report(), indent=2) + b"\n"

    def exit_code(self) -> int:
        return 1 if any(t.failed for t in self.tools) else 0

    def renamed(self) -> list[ProjectedTool]:
        """The tools ``--duplicate-ids rename`` renamed."""
        return [t for t in self.tools if t.renamed_from is not None]

    def duplicate_note(self) -> str | None:
        """What to tell people about ids several tools share or that were renamed."""
        if not self.duplicates:
            return None
        ren = {t.renamed_from for t in self.renamed()}
        parts = [d.describe() for d in self.duplicates[:3]]
        more = f" (and {len(self.duplicates) - 3} more)" if len(self.duplicates) > 3 else ""
        if ren:
            return ("renamed duplicate tool ids: " + "; ".join(parts) + more)
        return ("duplicate tool ids: " + "; ".join(parts) + more + ": `toolcat project` "
                "refuses them (--duplicate-ids rename makes them unique)")

    def without_input_schema(self) -> list[str]:
        """Ids of the tools whose source gives no input schema."""
        return [t.id for t in self.tools if t.no_input_schema]

    def input_schema_note(self) -> str | None:
        """What to tell people about tools without an input schema (None: there are none)."""
        ids = self.without_input_schema()
        return input_schema_note(ids[:3], len(ids), len(self.tools), self.envelope, self.view)


def input_schema_note(first: list, n: int, total: int, env: Any, view: str | None) -> str | None:
    """The note on the ``n`` of ``total`` tools without an input schema (``first``: the ids
    of the first three of them); None when there are none."""
    if not n:
        return None
    fix = (" the compact view gives them {\"type\": \"object\", \"properties\": {}};"
           if env.requires_input_schema and view == "compact" else "")
    some = ", ".join(first[:3]) + (" ..." if n > 3 else "")
    return (f"{n} of {total} tool{'s' if total != 1 else ''} "
            f"{'have' if n != 1 else 'has'} no input schema ({some}):{fix} MCP and "
            "Anthropic require one (lint TC111)")


# ----------------------------------------------------------------------------- one tool

def _as_given(tool: Tool, fmt: str, target: Target) -> bool:
    """Does ``target`` write ``tool`` as given (both views): a provider's server tool in its
    own provider's target, an OpenAI custom tool (free-form text input, no schema to compact)
    in the target of its own API's form?"""
    custom = tool.extra.get("custom")
    if custom is not None:
        return custom == target.custom_form
    return tool.server_tool and fmt in target.server_tool_formats and tool.raw is not None


def _left_out(tool: Tool, cat: Catalog, target: Target) -> dict | None:
    """An entry the projection leaves out, as the report's ``left_out`` lists it (where it
    is and why); None for a tool it writes. Such an entry is left out, never the whole
    catalog:

    * an entry that is not a tool (not an object, no name; lint reports it: TC102, TC110);
    * a provider's server tool (``web_search_20250305``: the provider runs it) for a target
      that cannot send it: written as a function it would be a tool no one runs, offered
      to the model with no parameters (``"server_tool": true``);
    * an OpenAI custom tool (free-form text input) for a target without its form
      (``"custom_tool": true``);
    * a tool whose input schema is not a schema (a string, an array, a number: lint's
      MC101): every target's clients refuse the request or tools list that holds it."""
    what, flag = tool.invalid or (None if tool.id else "tool has no name/toolId"), None
    schema = tool.input_schema
    if what is None and schema is not None and not isinstance(schema, (dict, bool)):
        shape = "a string" if isinstance(schema, str) else \
            "an array" if isinstance(schema, list) else "a number"
        what, flag = (f"its input schema is {shape}, not a JSON Schema (an object or a "
                      "boolean)", "broken_schema")
    if what is None:
        if not (tool.server_tool or "custom" in tool.extra) \
                or _as_given(tool, cat.format, target):
            return None
        if tool.server_tool:
            kind = tool.raw.get("type") if isinstance(tool.raw, dict) else None
            why = (f"the {target} target writes function declarations only (send it beside "
                   "them as written)" if cat.format in target.native_formats
                   else f"the {target} target has none to write")
            what, flag = (f"{kind if isinstance(kind, str) else tool.id!r} is a server tool "
                          f"of the {cat.format} tools array (its provider runs it): {why}",
                          "server_tool")
        else:
            what, flag = (f"{tool.id!r} is a custom tool of the {cat.format} tools array "
                          f"(free-form text input, no JSON Schema): the {target} target has "
                          "none to write", "custom_tool")
    file, line, col = cat.tool_position(tool)
    out: dict = {"file": file, "line": line, "column": col, "where": tool.pointer or "/",
                 "what": what}
    if flag is not None:
        out[flag] = True
    return out


def left_out_note(left_out: list[dict]) -> str | None:
    """The warning line for the entries left out (:func:`_left_out`); None when none."""
    if not left_out:
        return None
    first = left_out[0]
    at = first["file"] + "".join(f":{first[k]}" for k in ("line", "column")
                                 if first[k] is not None)
    what = f"{at}: {first['where']}: {first['what']}"
    servers = sum(1 for e in left_out if e.get("server_tool") or e.get("custom_tool"))
    if not servers:
        if len(left_out) == 1:
            return f"{what}: left out (lint reports it)"
        kind = "entries that are not tools" if not any(e.get("broken_schema") for e in left_out) \
            else "entries that are not tools or whose input schema is not a schema"
        return f"{len(left_out):,} {kind} left out (lint reports them), the first {what}"
    if len(left_out) == 1:
        return f"{what}: left out"
    return (f"{len(left_out):,} entries left out ({servers:,} server or custom tools the "
            f"target cannot send), the first {what}")


_RELOCATED = ("UI label (MCP: titles are for display; the model reads name and description): "
              "relocated to the handbook (--keep-titles keeps it)")


def _compact_annotations(ann: dict, title: str | None, changes: list[Change],
                         drop_title: bool = False) -> dict | None:
    out: dict = {}
    for k, v in ann.items():
        if k in MCP_HINT_DEFAULTS and v is MCP_HINT_DEFAULTS[k]:
            changes.append(Change(jp.encode(("annotations", k)), EXACT,
                                  f"{k}: {str(v).lower()} is the MCP default"))
            continue
        if k == "title" and v == "":
            changes.append(Change("/annotations/title", EXACT, "empty title dropped"))
            continue
        if k == "title" and drop_title:
            changes.append(Change("/annotations/title", OMITTED, _RELOCATED))
            continue
        if k == "title" and title is not None and v == title:
            changes.append(Change("/annotations/title", EXACT, "repeats the tool's title"))
            continue
        out[k] = v
    return out or None


def _source_and_tier(tool: Tool, fmt: str, target: Target, opts: ProjectOptions
                     ) -> tuple[str, str]:
    """The tool's OpenWOP ``source`` and ``safetyTier`` (derived unless given), checked:
    an OpenWOP target refuses ``exec`` outside a host extension (RFC 0069)."""
    source = derive_source(tool, fmt, opts.source)
    tier = derive_safety_tier(tool, fmt, opts.safety_tier)
    if target.openwop_fields and tier == "exec" and source != "host-extension":
        raise UsageError(f"tool {tool.id}: safetyTier exec needs source host-extension "
                         "(RFC 0069); use --source host-extension")
    return source, tier


def project_tool(tool: Tool, fmt: str, target: Target | str, opts: ProjectOptions,
                 subset: bool, cat: Catalog | None = None,
                 cache: LowerCache | None = None) -> ProjectedTool:
    """Project one tool (the standard view always; the compact one when asked).

    ``cache``: shared between the tools of one run (see :class:`LowerCache`)."""
    if isinstance(target, str):
        target = tg.get(target)
    source, tier = _source_and_tier(tool, fmt, target, opts)
    tid = target.tool_id(tool, fmt, source)
    # the output schema's digest, for both memos of it (the standard view's, the compact's)
    digest = _Digest(tool.output_schema, cache)
    standard, fitted = _standard(target, tool, fmt, opts.source, opts.safety_tier, cache,
                                 digest)
    native = fmt in target.native_formats and tool.raw is not None
    if _as_given(tool, fmt, target):
        # a provider's server tool: the request names it, as given (both views); an OpenAI
        # custom tool (free-form text input, no schema to compact) likewise
        custom = "custom" in tool.extra
        return ProjectedTool(tid, tool.raw, tool.raw, file=tool.file, server_tool=not custom,
                             custom=custom)
    # what loading changed (a broken $ref widened): the same in every view
    noted = [Change(p, Kind(k), w) for p, k, w in tool.notes] if tool.notes else []
    if opts.view == "standard":
        return ProjectedTool(tid, standard, standard, noted + fitted, file=tool.file,
                             no_input_schema=tool.input_schema is None)
    changes: list[Change] = noted
    title = target.title_of(tool)
    # description
    description = None
    if tool.description is not None:
        shown_titles = [title]
        if target.annotations and isinstance(tool.annotations, dict):
            shown_titles.append(tool.annotations.get("title"))
        cut = describe.collapse(tool.description) if opts.lossless else \
            describe.tool_description(tool.description, opts.description_max)
        if target.drops_repeated_description and (
                describe.repeats(tool.description, *shown_titles)
                or describe.repeats(cut, *shown_titles)):
            changes.append(Change("/description", OMITTED, "only repeats the title"))
        else:
            description = cut
            full = describe.collapse(tool.description)
            if description != full:
                changes.append(Change(
                    "/description", OMITTED,
                    f"cut from {describe.length(full)} to {describe.length(description)} "
                    "characters (full text in the handbook)"))
            if description == "":
                description = None
    if title == "":
        changes.append(Change("/title", EXACT, "empty title dropped"))
        title = None
    # MCP titles are UI labels: with a description to read, the compact view leaves them to
    # the handbook; without one a title is the only prose left, and stays
    relocate_titles = target.ui_titles and not opts.keep_titles and description is not None
    if relocate_titles and title is not None:
        changes.append(Change("/title", OMITTED, _RELOCATED))
    # input schema
    conformant = True
    failed = False
    in_schema = tool.input_schema
    strict = None
    if in_schema is not None:
        in_schema, lowered, conformant, omitted = _input_schema(tool, target, opts, subset,
                                                               cat, cache)
        changes.extend(lowered)
        if subset and opts.unlowerable == "fail" and not conformant:
            failed = True
        if omitted:
            in_schema = None
    if in_schema is not None:
        in_schema, fit = roots.fit_input(in_schema, tool.dialect, typed=target.typed_object_roots,
                                         boolean_properties=target.boolean_property_schemas)
        changes.extend(fit)
        if opts.for_clients:
            from toolcat.features.project import portable

            in_schema = portable.fit(in_schema, tool.dialect, opts.for_clients, "/inputSchema",
                                     changes, original=tool.input_schema)
    loose = None
    extras = target.request_extras(tool.raw) if native else {}
    if target.provider is not None:
        in_schema, strict, loose = _adapt(target, target.provider, tool, in_schema, changes,
                                          extras.get("strict") is True)
    # output schema
    out_schema = None
    if target.compact_output_schema and tool.output_schema is not None:
        if opts.output_policy != "none":
            lowered, out_schema, fit = _output_schema(tool, target, opts, cache, digest)
            changes.extend(lowered)
            changes.extend(fit)
        else:
            changes.append(Change("/outputSchema", OMITTED, "dropped (--output-schema none; "
                                  "in the handbook)"))
    elif tool.output_schema is not None:
        changes.append(Change("/outputSchema", OMITTED,
                              f"not carried by the {target} compact view (in the handbook)"))
    # annotations
    ann = None
    if target.annotations and isinstance(tool.annotations, dict):
        ann = _compact_annotations(tool.annotations, title, changes, relocate_titles)
    # fields the compact view leaves out
    if fmt in target.native_formats:
        for k in target.dropped_fields(tool.raw):
            changes.append(Change(jp.encode(k), OMITTED,
                                  f"not carried by the {target} compact view (in the handbook)"))
    descriptor = target.descriptor(
        id=tid, title=None if relocate_titles else title, description=description,
        input_schema=in_schema, output_schema=out_schema, annotations=ann,
        source=source if target.openwop_fields else None,
        safety_tier=tier if target.openwop_fields else None,
        strict=strict if target.writes_strict else None,
    )
    if extras:      # the request's own fields (deferral, caching, examples), as given
        descriptor = _in_order_of(tool.raw, {**extras, **descriptor})
    out = ProjectedTool(tid, descriptor, standard, changes, conformant, failed, tool.file,
                        no_input_schema=tool.input_schema is None)
    if target.writes_strict and strict and loose is not None:
        # the same tool without strict (a per-request total may need it: providers.budget)
        out.loose = (target.descriptor(
            id=tid, title=None if relocate_titles else title, description=description,
            input_schema=loose[0], output_schema=out_schema, annotations=ann,
            strict=False), loose[1], loose[2])
        if extras:
            out.loose = (_in_order_of(tool.raw, {**extras, **out.loose[0]}), *out.loose[1:])
    return out


def _input_schema(tool: Tool, target: Target, opts: ProjectOptions, subset: bool,
                  cat: Catalog | None, cache: LowerCache | None
                  ) -> tuple[Any, list[Change], bool, bool]:
    """A tool's input schema lowered, with its kept descriptions written back
    (:func:`prose.restore`): (schema, changes, conformant, omitted). Memoized in ``cache``
    by the schema's content (:func:`content_key`) and what else the result depends on (the
    options, the catalog's tool names): Kubernetes' 1,123 operations have 475 distinct input
    schemas, each bundling its resource's definitions. The result is shared, never mutated."""
    key = None
    if cache is not None:
        digest = content_key(tool.input_schema, cache.digests)
        if digest is not None:
            key = ("inputSchema", digest, tool.dialect, subset, opts.unlowerable,
                   target.factors, opts.factor, opts.factor_all, opts.for_clients,
                   opts.lossless, opts.description_max, id(cat) if cat is not None else None)
            got = cache.inputs.get(key)
            if got is not None:
                return got
    in_schema = tool.input_schema
    inlined: list[Change] = []
    if subset and opts.unlowerable == "widen":   # (fail/keep/omit: what the user chose)
        in_schema, inlined = _bound_subset(in_schema, tool.dialect, cache)
    res = lower_schema(in_schema, tool.dialect, subset=subset,
                       unlowerable=opts.unlowerable, pointer="/inputSchema", cache=cache,
                       factor=target.factors and factors(opts, in_schema))
    changes = inlined + list(res.changes)
    in_schema = res.schema
    if in_schema is not None and not res.omitted:
        from toolcat.features.project import prose

        in_schema, kept = prose.restore(
            tool.input_schema, in_schema, tool.dialect,
            None if opts.lossless else opts.description_max,
            tools=prose.tool_names(cat), memo=cache.prose if cache is not None else None)
        changes.extend(kept)
    got = (in_schema, changes, res.conformant, res.omitted)
    if key is not None and cache is not None:
        cache.inputs[key] = got
    return got


def _bound_subset(schema: Any, dialect: str,
                  cache: LowerCache | None) -> tuple[Any, list[Change]]:
    """The input schema, bounded before it is lowered to the RFC 0112 subset, which writes a
    definition wherever a ``$ref`` names it: written that way it weighs at most what the
    standard schema does (its canonical JSON, definitions and prose included; at least
    :data:`~toolcat.features.project.bound.SUBSET_FLOOR` bytes), the levels beyond widened to ``{}``
    and reported (:func:`~toolcat.features.project.bound.bound_inlined`). So a compact tool is never
    larger than its standard one, and the lowering's work is bounded by the input's size."""
    if not isinstance(schema, dict):
        return schema, []
    import orjson

    from toolcat.features.project.bound import SUBSET_FLOOR, bound_inlined

    try:
        limit = max(SUBSET_FLOOR, len(orjson.dumps(schema)))
    except (TypeError, orjson.JSONEncodeError):
        return schema, []
    return bound_inlined(schema, dialect, limit, "/inputSchema",
                         cache.bounds if cache is not None else None,
                         f"--subset: written without $ref it would weigh over the {limit:,} "
                         "bytes of the standard schema")


def factors(opts: ProjectOptions, schema: Any) -> bool:
    """Are repeated subschemas of ``schema`` factored into ``$defs`` + ``$ref``? With
    ``opts.factor``, where ``schema`` already has a ``$ref``, ``$defs`` or ``definitions`` key
    (a text search: a property of that name counts too, which only allows an exact rewrite),
    or everywhere with ``opts.factor_all``."""
    if not opts.factor:
        return False
    if opts.for_clients:
        from toolcat.features.project import portable

        if any(c.refs for c in portable.clients(tuple(opts.for_clients))):
            return False
    if opts.factor_all:
        return True
    from toolcat.schema.lower import text_count

    count = text_count(schema)
    return count is not None and bool(count(b'"$ref":') or count(b'"$defs":')
                                      or count(b'"definitions":'))


def _in_order_of(raw: dict, d: dict) -> dict:
    """``d`` with its keys in the order ``raw`` has them (others after, as they are)."""
    return {**{k: d[k] for k in raw if k in d}, **{k: v for k, v in d.items() if k not in raw}}


class _Digest:
    """:func:`content_key` of one schema (a tool's output schema), made when first asked
    (:func:`_standard` and :func:`_output_schema` both key a memo by it)."""

    __slots__ = ("schema", "cache", "got")

    def __init__(self, schema: Any, cache: LowerCache | None) -> None:
        self.schema = schema
        self.cache = cache
        self.got: Any = _SAME

    def of(self, schema: Any) -> bytes | None:
        """The digest of ``schema`` (None: no memo keyed by it, or no cache)."""
        if self.cache is None:
            return None
        if schema is not self.schema:
            return content_key(schema, self.cache.digests)
        if self.got is _SAME:
            self.got = content_key(schema, self.cache.digests)
        return self.got


def _output_schema(tool: Tool, target: Target, opts: ProjectOptions,
                   cache: LowerCache | None, digest: _Digest | None = None
                   ) -> tuple[list[Change], Any, list[Change]]:
    """A tool's compact ``outputSchema``: the lowering's changes, the schema, the root fit's
    changes. Memoized in ``cache`` by the schema's content (:func:`content_key`): the
    operations of an OpenAPI spec that return the same type (Stripe: 468 tools, 229
    distinct output schemas, each bundling most components) are lowered and factored once,
    and share the result (never mutated: the tool's strict and loose descriptors share it
    already). The lowering is a function of the schema's content and these options."""
    key = None
    if cache is not None:
        dkey = (digest or _Digest(tool.output_schema, cache)).of(tool.output_schema)
        if dkey is not None:
            # (whether it is factored is a function of the content and the options)
            key = ("outputSchema", dkey, tool.dialect, opts.output_policy, opts.factor,
                   opts.factor_all,
                   opts.for_clients, target.typed_object_roots,
                   target.boolean_property_schemas, tool.http_method is not None)
            got = cache.outputs.get(key)
            if got is not None:
                return got
    schema = tool.output_schema
    bounded: list[Change] = []
    if opts.output_policy == "bounded":
        # before the lowering and factoring, which then see only what is kept (Stripe: a
        # few KB of each ~700 KB bundled response schema)
        from toolcat.features.project.bound import bound_output

        schema, bounded = bound_output(schema, tool.dialect, pointer="/outputSchema",
                                       memo=cache.bounds if cache is not None else None)
    res = lower_schema(schema, tool.dialect, subset=False, pointer="/outputSchema",
                       cache=cache, factor=factors(opts, schema))
    if bounded:
        res.changes[:0] = bounded
    # an OpenAPI tool's output is a response body, any JSON value (roots.fit_output)
    out_schema, fit = roots.fit_output(res.schema, tool.dialect, typed=target.typed_object_roots,
                                       boolean_properties=target.boolean_property_schemas,
                                       any_value=tool.http_method is not None,
                                       memo=cache.wraps if cache is not None else None)
    if opts.for_clients:
        from toolcat.features.project import portable

        fit = list(fit)
        out_schema = portable.fit(out_schema, tool.dialect, opts.for_clients, "/outputSchema",
                                  fit, root=False, original=tool.output_schema)
    if key is None or cache is None:
        return res.changes, out_schema, fit
    if opts.output_policy == "full":
        # kept for the run: its parts equal to other kept results' become theirs (memory: a
        # Stripe tool's whole response schema is ~700 KB; a bounded one is a few KB, where
        # this walk costs time and saves nothing: Stripe's peak RSS is the same)
        out_schema = cache.sharer.share(out_schema)
    got = cache.outputs[key] = (res.changes, out_schema, fit)
    return got


def _adapt(target: Target, provider: str, tool: Tool, schema: Any, changes: list[Change],
           asks_strict: bool = False) -> tuple[Any, Any, tuple | None]:
    """Adapt a lowered input schema to ``target``'s provider ``provider`` (see
    :mod:`toolcat.features.project.providers`): (schema, strict flag or None, the non-strict variant
    (schema, changes, the strict variant's changes) of a strict tool or None).

    ``asks_strict``: the tool says ``"strict": true`` itself (a native request field the
    target writes as given): its schema is adapted to the target's strict row where that
    row can hold it (else, as the source wrote it, to the target's own row)."""
    from toolcat.features.project import providers as pv
    from toolcat.formats.providers import PROVIDERS

    if schema is None:
        return None, (True if target.writes_strict else None), (None, [], [])
    r = PROVIDERS[provider]
    if asks_strict and not target.writes_strict and target.strict_provider:
        res = pv.adapt(schema, tool.dialect, PROVIDERS[target.strict_provider], "/inputSchema")
        if res.unexpressible is None:
            changes.extend(res.changes)
            return res.schema, None, None
    res = pv.adapt(schema, tool.dialect, r, "/inputSchema")
    if not target.writes_strict:
        changes.extend(res.changes)
        return res.schema, None, None
    loose = pv.adapt(schema, tool.dialect, PROVIDERS[target.loose_provider], "/inputSchema") \
        if target.loose_provider else pv.Adapted(schema)
    if res.unexpressible is None:
        res.unexpressible = pv.size_problem(res.schema, tool.dialect, r)
    if res.unexpressible is not None:
        changes.extend(loose.changes)
        changes.append(pv.unexpressible_change(res, target.name))
        return loose.schema, False, None
    changes.extend(res.changes)
    return res.schema, True, (loose.schema, loose.changes + [pv.unexpressible_change(
        pv.Adapted(None, unexpressible=("", "the request's strict totals are spent")),
        target.name)], res.changes)


# ----------------------------------------------------------------------------- catalogs

@dataclass
class Duplicate:
    """An id several tools have in the target: each one's ``(file, line, what)`` (``what``:
    the OpenAPI operation, else the tool's pointer), in input order, and the ids the later
    ones were renamed to (with ``--duplicate-ids rename``)."""

    id: str
    places: list[tuple[str, int | None, str]]
    renamed_to: list[str] = field(default_factory=list)

    def describe(self) -> str:
        where = [_place(p) for p in self.places]
        if self.renamed_to:
            return f"{self.id!r} at {where[0]}; " + ", ".join(
                f"{w} is now {n!r}" for w, n in zip(where[1:], self.renamed_to))
        return f"{self.id!r} at " + ", ".join(where)


def _place(p: tuple[str, int | None, str]) -> str:
    file, line, what = p
    return (f"{file}:{line}" if line else file) + (f" ({what})" if what else "")


def _what(tool: Tool) -> str:
    if tool.http_method and tool.http_path is not None:
        return f"{tool.http_method} {tool.http_path}"
    return tool.pointer or ""


def _renamed_id(tid: str, taken: set[str]) -> str:
    """``tid_2``, ``tid_3``... (the first not in ``taken``), cut to stay within
    :data:`ID_MAX` characters when ``tid`` is."""
    n = 2
    while True:
        suffix = f"_{n}"
        base = tid if len(tid) + len(suffix) <= ID_MAX or len(tid) > ID_MAX \
            else tid[:ID_MAX - len(suffix)]
        cand = base + suffix
        if cand not in taken:
            return cand
        n += 1


def _with_id(target: Target, item: Any, new: str) -> Any:
    """A copy of the descriptor ``item`` whose id is ``new`` (the item is not changed)."""
    if not isinstance(item, dict):
        return item
    body = target.body(item)
    key = "toolId" if target.openwop_fields else "name"
    if body is item:
        return {k: (new if k == key else v) for k, v in item.items()}
    return {k: (_with_id(target, v, new) if v is body else v) for k, v in item.items()}


def _rename(pt: ProjectedTool, target: Target, new: str) -> None:
    pt.renamed_from = pt.id
    pt.descriptor = _with_id(target, pt.descriptor, new)
    pt.standard = pt.descriptor if pt.standard is pt.descriptor else _with_id(
        target, pt.standard, new)
    if pt.loose is not None:        # a strict tool's non-strict variant (providers.budget)
        pt.loose = (_with_id(target, pt.loose[0], new), *pt.loose[1:])
    pt.id = new


def _duplicates(tools: list[ProjectedTool], sources: list[tuple[Tool, Catalog]],
                target: Target, mode: str) -> list[Duplicate]:
    """Find the ids several tools have; rename the later ones (``rename``), or raise the
    error that names where each is (``error``), or only list them (``keep``)."""
    first: dict[str, int] = {}
    dups: dict[str, list[int]] = {}
    for i, t in enumerate(tools):
        if t.id in first:
            dups.setdefault(t.id, [first[t.id]]).append(i)
        else:
            first[t.id] = i
    if not dups:
        return []

    def place(i: int) -> tuple[str, int | None, str]:
        tool, cat = sources[i]
        file, line, _col = cat.tool_position(tool)
        return file, line, _what(tool)

    out = [Duplicate(tid, [place(i) for i in idx]) for tid, idx in dups.items()]
    if mode == "error":
        d = out[0]
        tool, cat = sources[dups[d.id][1]]
        file, line, col = cat.tool_position(tool)
        what = _what(tool)
        more = len(out) - 1
        raise InputError(
            f"duplicate tool id {d.id!r}" + (f" ({what})" if what else "")
            + f": also at {_place(d.places[0])}"
            + (f" (and {more} more duplicate id{'s' if more != 1 else ''})" if more else "")
            + "; tool ids must be unique (--duplicate-ids rename makes them unique)",
            file, line, col)
    if mode == "rename":
        taken = set(first)
        for d in out:
            for i in dups[d.id][1:]:
                new = _renamed_id(d.id, taken)
                taken.add(new)
                _rename(tools[i], target, new)
                d.renamed_to.append(new)
    return out


def resolve_target(cats: list[Catalog], opts: ProjectOptions) -> Target:
    return tg.get(opts.to) if opts.to else tg.default_target([c.format for c in cats])


def _tool_ids(tool: Tool, fmt: str, target: Target, opts: ProjectOptions) -> ProjectedTool:
    """What :func:`project_tool` gives for the compact view's ids alone: a descriptor with the
    id (and the OpenWOP ``source``/``safetyTier``) and no schemas, after the same checks."""
    source, tier = _source_and_tier(tool, fmt, target, opts)
    tid = target.tool_id(tool, fmt, source)
    d = target.descriptor(id=tid, source=source if target.openwop_fields else None,
                          safety_tier=tier if target.openwop_fields else None)
    return ProjectedTool(tid, d, d, file=tool.file, no_input_schema=tool.input_schema is None)


def project_catalogs(cats: list[Catalog], opts: ProjectOptions | None = None, *,
                     ids_only: bool = False) -> Projection:
    """One projection of all ``cats`` (tools concatenated in input order unless sorted).

    ``ids_only``: the tools' ids (and OpenWOP ``source``/``safetyTier``) as the compact view
    writes them (the same checks, duplicate handling and renames), without projecting
    descriptions or schemas: each descriptor holds only those fields (``diff-toolids``)."""
    opts = opts or ProjectOptions()
    opts.check()
    target = resolve_target(cats, opts)
    subset = opts.subset if opts.subset is not None else target.subset_by_default
    tools: list[ProjectedTool] = []
    sources: list[tuple[Tool, Catalog]] = []
    left_out: list[dict] = []
    cache = LowerCache()   # the catalogs stay alive (and unchanged) for the whole run
    from contextlib import nullcontext

    from toolcat.errors import about
    from toolcat.schema.lower import text_memo

    for cat in cats:
        # (about: an error deep inside, a RecursionError, names the file)
        with about(cat.file), (text_memo(cache.texts) if cache is not None else nullcontext()):
            if not ids_only:
                from toolcat.features.project import prose

                # the names descriptions may refer to, read before the pass that projects
                # the tools: a streamed tools list cannot be read again inside that pass
                prose.tool_names(cat)
            for tool in cat.tools:
                bad = _left_out(tool, cat, target)
                if bad is not None:
                    left_out.append(bad)
                    continue
                tools.append(_tool_ids(tool, cat.format, target, opts) if ids_only
                             else project_tool(tool, cat.format, target, opts, subset, cat, cache))
                sources.append((tool, cat))
    dups = _duplicates(tools, sources, target, opts.duplicate_ids)
    if opts.view == "compact" or target.provider is None:
        from toolcat.features.project import providers as pv

        # MCP/OpenWOP: both views (the same ids); a provider target: its compact view
        pv.fix_names(tools, target, [cat.format in target.native_formats for _, cat in sources])
        if opts.view == "compact" and target.writes_strict:
            pv.budget(tools, target)
    shortened: list[str] = []
    if opts.for_clients and opts.view == "compact" and not ids_only:
        from toolcat.features.project import portable

        # the clients' name prefixes counted (Claude Code: mcp__<server>__<tool>, 64)
        shortened = portable.shorten_names(tools, [cat for _, cat in sources], target, opts)
    plan = None
    if opts.defer.active and not ids_only:
        plan = _defer(tools, sources, target, opts)
    if opts.sort:
        tools.sort(key=lambda t: t.id)
    warnings: list[str] = []
    from toolcat.formats.load import load_notes

    warnings.extend(load_notes(cats))
    note = left_out_note(left_out)
    if note:
        warnings.append(note)
    warnings.extend(shortened)
    if target.provider is not None:
        from toolcat.formats.providers import PROVIDERS

        row = PROVIDERS[target.provider]
        if row.max_tools is not None and len(tools) > row.max_tools:
            warnings.append(f"{len(tools):,} tools: {row.title} accepts at most "
                            f"{row.max_tools:,} in one request (send a subset of them)")
    if opts.for_clients:
        from toolcat.features.project import portable

        for c in portable.clients(tuple(opts.for_clients)):
            if c.max_tools is not None and len(tools) > c.max_tools:
                warnings.append(f"{len(tools):,} tools: {c.title} sends at most "
                                f"{c.max_tools:,} in one request (send a subset of them, "
                                "or defer them behind a tool search: --defer)")
    broken = [t for cat in cats for t in cat.meta.get("broken_refs", {}).get("tools", ())]
    return Projection(target.name, opts.view, tools, opts, subset, dups, warnings,
                      broken_refs=broken, plan=plan, left_out=left_out)


def _defer(tools: list[ProjectedTool], sources: list[tuple[Tool, Catalog]], target: Target,
           opts: ProjectOptions) -> DeferPlan:
    """Decide which tools are deferred (:mod:`.defer`) and write each one as deferred (its
    full description and, where the provider row holds it, its standard schema with its
    prose; see :mod:`.defer`) or as eager (the compact view without a deferral mark)."""
    from toolcat.features.project import defer as df

    if not target.defers:
        raise UsageError(f"--defer {opts.defer.mode}: the {target} target cannot defer tools")
    plan = df.decide(tools, opts.defer, lambda: dumps([t.descriptor for t in tools]))
    for pt, (tool, cat), deferred in zip(tools, sources, plan.deferred):
        if pt.server_tool:
            continue
        if not deferred or opts.view == "standard" or pt.custom:
            pt.descriptor = target.undefer(pt.descriptor)
            if deferred:
                pt.descriptor = target.defer(pt.descriptor)
                pt.deferred = True
            continue
        pt.deferred = True
        d = dict(pt.descriptor)
        keep = [c for c in pt.changes if c.pointer != "/description"]
        full = describe.collapse(tool.description) if tool.description else ""
        if full:
            d["description"] = full
        # (a target that defers writes flat descriptors: the descriptor is its own body)
        if tool.input_schema is not None and target.get_schema(d, default=_SAME) is not _SAME:
            standard, fitted = _standard(target, tool, cat.format)
            got = df.deferred_schema(target.get_schema(target.body(standard)), tool.dialect,
                                     target)
            if got is not None:
                target.set_schema(d, got[0])
                keep = [c for c in keep if not c.pointer.startswith("/inputSchema")]
                keep += [c for c in fitted if c.pointer.startswith("/inputSchema")] + got[1]
        pt.changes = keep
        pt.descriptor = target.defer(target.descriptor_order(d))
    if target.namespace_max:
        plan.groups = df.groups([(pt, *df.source_group(tool, cat))
                                 for pt, (tool, cat) in zip(tools, sources) if pt.deferred],
                                target.namespace_max)
    return plan


def _standard(target: Target, tool: Tool, fmt: str, source: str | None = None,
              safety_tier: str | None = None, cache: LowerCache | None = None,
              out_digest: _Digest | None = None) -> tuple[Any, list[Change]]:
    """The standard view of one tool, and the changes its schema roots needed to be what the
    target requires (:mod:`.roots`; none for a tool in the target's own format, whose standard
    view is the descriptor as written).

    ``cache``: the output schema's rewrites are memoized in it by the schema's content
    (:func:`content_key`; an OpenAPI spec's operations that return the same type share
    them, as their compact views do); a schema they leave as it is stays the tool's own."""
    standard = target.standard(tool, fmt, source, safety_tier)
    if fmt in target.native_formats and tool.raw is not None:
        return standard, []
    changes: list[Change] = []
    body = target.body(standard)       # a fresh descriptor (not the tool's own): changed in place
    for which in range(len(target.schema_paths)):
        new = target.get_schema(body, which, _SAME) if isinstance(body, dict) else _SAME
        if new is _SAME:
            continue
        role = "/outputSchema" if which == 1 else "/inputSchema"
        mkey = None
        if cache is not None and role == "/outputSchema":
            digest = (out_digest or _Digest(new, cache)).of(new)
            if digest is not None:
                mkey = (digest, tool.dialect, target.ajv_clients,
                        target.typed_object_roots, target.boolean_property_schemas,
                        tool.http_method is not None)
                got = cache.standards.get(mkey)
                if got is not None:
                    if got[0] is not _SAME:
                        target.set_schema(body, got[0], which)
                    changes.extend(got[1])
                    continue
        was = new
        start = len(changes)
        if target.ajv_clients:
            new, fixed = roots.fix_patterns(new, tool.dialect, role)
            changes.extend(fixed)
        if role == "/outputSchema":
            new, fitted = roots.fit_output(
                new, tool.dialect, typed=target.typed_object_roots,
                boolean_properties=target.boolean_property_schemas, pointer=role,
                any_value=tool.http_method is not None,
                memo=cache.wraps if cache is not None else None)
        else:
            new, fitted = roots.fit_input(new, tool.dialect, typed=target.typed_object_roots,
                                          boolean_properties=target.boolean_property_schemas,
                                          pointer=role)
        changes.extend(fitted)
        target.set_schema(body, new, which)
        if mkey is not None and cache is not None:
            cache.standards[mkey] = (_SAME if new is was else new, tuple(changes[start:]))
    return standard, changes


_SAME: Any = object()


def _standard_ids(target: Target, tool: Tool, fmt: str) -> Any:
    """The fields of the standard view of one tool that name it: its descriptor as written
    (a native tool), else one with the id (and OpenWOP ``source``/``safetyTier``) alone."""
    if fmt in target.native_formats and tool.raw is not None:
        return tool.raw
    src = derive_source(tool, fmt, None)
    return target.descriptor(
        id=target.tool_id(tool, fmt, src), source=src if target.openwop_fields else None,
        safety_tier=derive_safety_tier(tool, fmt, None) if target.openwop_fields else None)


def standard_array(cats: list[Catalog], target: Target | str | None = None, *,
                   ids_only: bool = False) -> list:
    """The lossless standard view of ``cats`` in ``target``'s shape (input order), without
    the server and custom tools the target leaves out and the tools whose input schema is
    not a schema (:func:`_left_out`), as ``project --view standard`` writes it.

    For MCP input and the ``mcp`` target these are the tool objects exactly as served
    (``Tool.raw``), so their canonical bytes are the ones mcp-context-cost hashes.
    ``ids_only``: descriptors that hold only what names each tool (:func:`_standard_ids`):
    the same ids, ``source`` and ``safetyTier``, without building schemas.
    """
    if isinstance(target, str):
        target = tg.get(target)
    target = target or tg.default_target([c.format for c in cats])
    out, ids, native = [], [], []
    for cat in cats:
        for tool in cat.tools:
            gone = _left_out(tool, cat, target)
            if gone is not None and ("server_tool" in gone or "custom_tool" in gone
                                     or "broken_schema" in gone):
                continue    # a server or custom tool this target cannot write, a tool
                            # whose input schema is not a schema (as project)
            out.append(_standard_ids(target, tool, cat.format) if ids_only
                       else _standard(target, tool, cat.format)[0])
            ids.append(tool.id)
            native.append(cat.format in target.native_formats)
    if target.provider is None:       # the names project writes (providers.fix_names)
        from toolcat.features.project.providers import renames

        for n, new, _why in renames(ids, target, native):
            out[n] = _with_id(target, out[n], new)
    return out
