"""``toolcat serve --defer``: a served list that holds the eager tools and what a search
found, instead of every tool (issue 32). No MCP SDK here.

With deferral on, ``tools/list`` serves, in the compact view (:mod:`.view`):

* the eager tools (``--eager GLOB``, matched against the served name or the upstream's own
  name);
* the tools loaded by a search, at most ``--max-loaded`` of them: a call of
  ``search_tools`` ranks every tool (:class:`toolcat.search.ToolIndex` over the standard
  view: the upstream's own descriptors, as the handbook holds them) and answers the best
  ones, one line each; those not served yet are added to the list, the least recently used
  leave first (a search hit or a call of a loaded tool counts as a use), and every client is
  sent ``notifications/tools/list_changed`` (:meth:`toolcat.features.serve.proxy.Served.tell`): the
  next call is a typed call of the real tool, whose arguments the client can check;
* three meta tools: ``search_tools``, ``call_tool`` (a tool's name and its arguments: for
  clients that never list again; the arguments are checked against the tool's own schema
  as a direct call's are, then the call is forwarded as a direct call is) and the handbook
  tool.

A tool that is not in the list can still be called by its name: it is forwarded as every
call is (a proxy never refuses what its upstream would accept). Which tools are deferred is
decided by :func:`toolcat.features.project.defer.decide`, the rule of ``project --defer`` and
``measure --defer`` (the modes, the eager patterns, the threshold and its default):
``--defer auto`` defers only when the compact catalog of the upstream's tools (the handbook
tool not counted) passes ``--defer-threshold`` tokens; below it the list is what ``toolcat
serve`` serves without ``--defer``.

The loaded set is the server's, shared by every client of an ``--http`` server (one set,
one list, every client told when it changes).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from toolcat.errors import InputError
from toolcat.features.project import defer as plan

#: The meta tools' names.
SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"
#: The modes of --defer (project's); a bare --defer is "all".
MODES = plan.DEFER_MODES
#: --defer auto's default threshold (project's: Claude Code's rule).
DEFAULT_THRESHOLD = plan.DEFAULT_THRESHOLD
DEFAULT_MAX_LOADED = 20
#: Tools one search answers.
HITS = 5

SEARCH_DESCRIPTION = (
    "Find this server's tools for a task (most are not listed until found): the best matches "
    "are returned and added to your tool list; call them directly next, or through {call} if "
    "your list does not change.")
CALL_DESCRIPTION = (
    "Call a tool found by {search} by name, with its arguments (its schema: {handbook}).")


def search_tool(name: str, call: str) -> dict:
    return {
        "name": name,
        "description": SEARCH_DESCRIPTION.format(call=call),
        "inputSchema": {"type": "object", "properties": {"query": {
            "type": "string", "description": "The task, in a few words."}},
            "required": ["query"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    }


def call_tool(name: str, search: str, handbook: str) -> dict:
    return {
        "name": name,
        "description": CALL_DESCRIPTION.format(search=search, handbook=handbook),
        "inputSchema": {"type": "object", "properties": {
            "name": {"type": "string", "description": "The tool's name."},
            "arguments": {"type": "object", "description": "The tool's arguments."}},
            "required": ["name"]},
    }


@dataclass
class DeferOptions:
    mode: str = "all"                         # all | auto (none: no DeferOptions)
    eager: list[str] = field(default_factory=list)    # shell-style globs
    max_loaded: int = DEFAULT_MAX_LOADED
    threshold: int = DEFAULT_THRESHOLD        # --defer auto: tokens of the compact catalog

    @property
    def plan_options(self) -> plan.DeferOptions:
        """These options as ``project --defer``'s (which decide what is deferred)."""
        return plan.DeferOptions(self.mode, tuple(self.eager), self.threshold)


def _error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class Deferral:
    """What ``serve --defer`` serves now: made once, :meth:`rebuild` for every view (at
    start-up and after an upstream's list changed); the loaded tools outlive views."""

    def __init__(self, options: DeferOptions) -> None:
        self.options = options
        self.search_name = SEARCH_TOOL
        self.call_name = CALL_TOOL
        self.active = False                   # deferring (auto: the list passed the threshold)
        self.eager: set[str] = set()
        self.loaded: OrderedDict[str, None] = OrderedDict()   # least recently used first
        self.index: Any = None
        self.full_tokens = 0                  # tokens of the compact catalog (no meta tool)
        self.searches = 0

    def rebuild(self, view: Any) -> None:
        """Take ``view`` (a :class:`toolcat.features.serve.view.View`): the eager set, the search
        index; loaded tools the view no longer has leave. A tool of the upstream named as a
        meta tool is an :class:`InputError` (as the handbook tool's name is)."""
        from toolcat import tokens
        from toolcat.document.canonical import dumps
        from toolcat.search import ToolIndex

        for meta in (self.search_name, self.call_name):
            if meta in view.routes:
                raise InputError(f"a tool would be served as {meta!r}, the name of the search "
                                 "tool of --defer: serve this server without --defer",
                                 "toolcat serve")
        names = [t["name"] for t in view.tools if t["name"] in view.routes]
        tools = [SimpleNamespace(id=n, server_tool=False, aliases=(view.routes[n][1],))
                 for n in names]
        upstream = [t for t in view.tools if t["name"] in view.routes]
        decided = plan.decide(tools, self.options.plan_options, lambda: dumps(upstream))
        self.full_tokens = decided.eager_tokens if decided.eager_tokens is not None \
            else tokens.count(decided.eager_bytes)
        self.active = decided.deferring
        self.eager = {n for n, d in zip(names, decided.deferred) if not d}
        for gone in [n for n in self.loaded
                     if n not in view.routes or (self.active and n in self.eager)]:
            del self.loaded[gone]
        self.index = ToolIndex(view.handbook[n] for n in names)

    def tools(self, view: Any) -> list[dict]:
        """``tools/list``: the eager and loaded tools in the view's order, then the meta
        tools (search, call, handbook); the view's list when not deferring."""
        if not self.active:
            return view.tools
        shown = [t for t in view.tools
                 if t["name"] in self.eager or t["name"] in self.loaded]
        return [*shown, search_tool(self.search_name, self.call_name),
                call_tool(self.call_name, self.search_name, view.handbook_name),
                *view.tools[-1:]]

    def used(self, name: str) -> None:
        """A call of ``name``: a loaded tool becomes the most recently used."""
        if name in self.loaded:
            self.loaded.move_to_end(name)

    def search(self, view: Any, arguments: Any) -> tuple[dict, bool]:
        """A call of the search tool: its result, and whether the served list changed."""
        query = arguments.get("query") if isinstance(arguments, dict) else None
        if not isinstance(query, str) or not query.strip():
            return _error(f"{self.search_name} needs the argument query: the task, in "
                          "words"), False
        self.searches += 1
        hits = self.index.search(query, HITS)
        if not hits:
            return {"content": [{"type": "text", "text": (
                "No tool matches those words: try other words for the task (a verb and "
                "the thing it acts on).")}], "isError": False}, False
        before = list(self.loaded)
        for hit in reversed(hits[:self.options.max_loaded]):  # the best: the most recent
            if hit.name in self.eager:
                continue
            self.loaded[hit.name] = None
            self.loaded.move_to_end(hit.name)
        while len(self.loaded) > self.options.max_loaded:
            self.loaded.popitem(last=False)
        changed = set(before) != set(self.loaded)
        lines = [f"{h.name}: {h.summary}" if h.summary else h.name for h in hits]
        listed = [h.name for h in hits if h.name in self.loaded or h.name in self.eager]
        tail = (f"\n\nThese are in your tool list now: call them directly (if your list did not "
                f"change, through {self.call_name}; {view.handbook_name} gives a tool's full "
                "schema).") if listed else ""
        return {"content": [{"type": "text", "text": "\n".join(lines) + tail}],
                "isError": False}, changed

    def target(self, view: Any, arguments: Any) -> tuple[str, Any] | dict:
        """A call of the call tool: (the served name of the tool to call, its arguments),
        or a tool error to answer."""
        if not isinstance(arguments, dict) or not isinstance(arguments.get("name"), str):
            return _error(f"{self.call_name} needs the argument name: the name of one of this "
                          f"server's tools (found by {self.search_name})")
        name = arguments["name"]
        args = arguments.get("arguments", {})
        if name in (self.call_name, self.search_name):
            return _error(f"{self.call_name} calls this server's tools; call {name} directly")
        if not isinstance(args, dict):
            return _error(f"{self.call_name}: arguments must be an object (the arguments of "
                          f"{name})")
        return name, args
