"""Deferred loading (DF701-DF705): tool arrays that send tools the model finds with a tool
search (Anthropic: ``"defer_loading": true`` and a tool search server tool; the OpenAI
Responses API: ``"defer_loading": true``, ``{"type": "tool_search"}`` and namespaces).

A tool is deferred when its descriptor says ``"defer_loading": true`` (``Tool.extra``); the
rules are quiet on catalogs without deferral."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from toolcat.features.lint.quality import vague_name
from toolcat.features.lint.registry import Hit, rule
from toolcat.model import ANTHROPIC, OPENAI

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context
    from toolcat.model import Tool

#: the functions a Responses API namespace should hold at most (OpenAI's tool search guide:
#: "fewer than 10 functions per namespace"; ``toolcat project`` writes at most 10)
NAMESPACE_MAX = 10
#: a description shorter than this does not make up for a name that says nothing
_SHORT = 20


def _deferred(tool: Any) -> bool:
    return tool.extra.get("defer_loading") is True and not tool.server_tool


def _defers(tool: Any) -> bool:
    """Does ``tool`` put tools behind a tool search: a deferred tool, a hosted MCP server of
    the Responses API with ``"defer_loading": true``, or Anthropic's ``mcp_toolset`` whose
    ``default_config`` (or a tool's entry of ``configs``) says so?"""
    if not tool.server_tool:
        return _deferred(tool)
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    if raw.get("type") == "mcp":
        return raw.get("defer_loading") is True
    if raw.get("type") == "mcp_toolset":
        configs = raw.get("configs")
        return any(isinstance(c, dict) and c.get("defer_loading") is True for c in (
            raw.get("default_config"), *(configs.values() if isinstance(configs, dict) else ())))
    return False


def _is_search(tool: Any) -> bool:
    t = tool.raw.get("type") if tool.server_tool and isinstance(tool.raw, dict) else None
    return isinstance(t, str) and (t == "tool_search" or t.startswith("tool_search_tool_"))


@rule("DF701", "deferred-tool-unfindable", "warning",
      "a deferred tool that a tool search cannot find (no description, a name that says "
      "nothing)", formats=(ANTHROPIC, OPENAI))
def deferred_unfindable(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a deferred tool that a tool search cannot find: one without a description, or with a
    name that says nothing (`run`, `execute`, `tool_2`) and a description of a few words.

    ## Why
    A deferred tool is not shown to the model: it only enters the context when a tool search
    (Anthropic's regex or BM25 search, OpenAI's `tool_search`) matches the model's query against
    its name and description (and parameter names and descriptions). Otherwise no query finds it
    and the tool is never used.

    ## Example
    ```json file=tools.anthropic.json
    [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
     {"name": "run", "description": "Runs it.", "defer_loading": true,
      "input_schema": {"type": "object", "properties": {}}}]
    ```

    ## Fix
    Give it a description that says what it does, or keep it eager:
    ```json file=tools.anthropic.json
    [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
     {"name": "run_tests", "description": "Run the project's unit tests and report failures.",
      "defer_loading": true, "input_schema": {"type": "object", "properties": {}}}]
    ```
    """
    if not _deferred(tool):
        return
    d = tool.description.strip() if isinstance(tool.description, str) else ""
    if not d:
        yield Hit("deferred tool has no description: a tool search matches names and "
                  "descriptions, and cannot find it by its name alone", "")
    elif vague_name(tool.id or "") and len(d) < _SHORT:
        yield Hit(f"deferred tool {tool.id!r}: its name says nothing a search could match "
                  f"and its description is {len(d)} characters", "/description")


@rule("DF702", "namespace-too-large", "warning",
      "a Responses API namespace holds more than 10 functions", scope="catalog",
      formats=(OPENAI,))
def namespace_too_large(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a Responses API namespace that holds more than 10 functions.

    ## Why
    OpenAI's tool search loads a namespace's functions together, and its guide advises fewer
    than 10 functions per namespace: a larger one loads schemas the model does not need, and its
    one description cannot say what each of them is for.

    ## Example
    ```json file=tools.openai.json
    [{"type": "tool_search"},
     {"type": "namespace", "name": "math", "description": "Arithmetic.", "tools": [
      {"type": "function", "name": "add", "description": "Add two numbers."},
      {"type": "function", "name": "subtract", "description": "Subtract two numbers."},
      {"type": "function", "name": "multiply", "description": "Multiply two numbers."},
      {"type": "function", "name": "divide", "description": "Divide two numbers."},
      {"type": "function", "name": "power", "description": "Raise a number to a power."},
      {"type": "function", "name": "root", "description": "Take a root."},
      {"type": "function", "name": "log", "description": "Take a logarithm."},
      {"type": "function", "name": "sine", "description": "Sine of an angle."},
      {"type": "function", "name": "cosine", "description": "Cosine of an angle."},
      {"type": "function", "name": "round", "description": "Round a number."},
      {"type": "function", "name": "modulo", "description": "Remainder of a division."}
     ]}]
    ```

    ## Fix
    Split it (`toolcat project --to openai-responses --defer all` writes namespaces of at most
    10).
    """
    for ns in ctx.catalog.meta.get("namespaces", ()):
        if ns.get("tools", 0) > NAMESPACE_MAX:
            yield Hit(f"namespace {ns.get('name')!r} holds {ns['tools']} functions (at most "
                      f"{NAMESPACE_MAX} advised)", ns["pointer"], None, file=ctx.catalog.file)


@rule("DF703", "deferred-without-search", "error",
      "deferred tools but no tool search tool in the array", scope="catalog",
      formats=(ANTHROPIC, OPENAI))
def deferred_without_search(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports deferred tools with no tool search tool in the array.

    ## Why
    A deferred tool is loaded only through a tool search: an Anthropic request with
    `"defer_loading": true` tools (or an `mcp_toolset` that defers its server's tools) needs a
    tool search server tool
    (`tool_search_tool_bm25_20251119` or `tool_search_tool_regex_20251119`), a Responses API
    request `{"type": "tool_search"}`. Without one the API refuses the request (or the tools can
    never be loaded).

    ## Example
    ```json file=tools.anthropic.json
    [{"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "defer_loading": true, "input_schema": {"type": "object", "properties": {}}}]
    ```

    ## Fix
    `toolcat project --defer` adds it:
    ```json file=tools.anthropic.json
    [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
     {"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "defer_loading": true, "input_schema": {"type": "object", "properties": {}}}]
    ```
    """
    tools = ctx.catalog.tools
    deferred = [t for t in tools if t.invalid is None and _defers(t)]
    if deferred and not any(_is_search(t) for t in tools if t.invalid is None):
        yield Hit(f"{len(deferred)} deferred tool{'s' if len(deferred) != 1 else ''} "
                  f"({', '.join(str(t.id) for t in deferred[:3])}"
                  f"{' ...' if len(deferred) > 3 else ''}) but no tool search tool",
                  "", deferred[0])


@rule("DF704", "search-tool-deferred", "error",
      "the tool search tool is itself deferred", scope="catalog", formats=(ANTHROPIC, OPENAI))
def search_tool_deferred(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a tool search tool that is itself deferred.

    ## Why
    The tool search tool is how the model finds deferred tools; deferred itself, it is never
    shown, and nothing can be found (Anthropic refuses a request whose tools are all deferred).

    ## Example
    ```json file=tools.anthropic.json
    [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25",
      "defer_loading": true},
     {"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "defer_loading": true, "input_schema": {"type": "object", "properties": {}}}]
    ```

    ## Fix
    Leave `defer_loading` off the tool search tool:
    ```json file=tools.anthropic.json
    [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
     {"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "defer_loading": true, "input_schema": {"type": "object", "properties": {}}}]
    ```
    """
    for t in ctx.catalog.tools:
        if t.invalid is None and _is_search(t) and t.raw.get("defer_loading") is True:
            yield Hit("the tool search tool has \"defer_loading\": true", "/defer_loading", t)


@rule("DF705", "input-example-refused", "error",
      "an `input_examples` entry that the tool's own `input_schema` refuses",
      formats=(ANTHROPIC,))
def input_example_refused(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports an `input_examples` entry that the tool's own `input_schema` refuses. Each example is
    checked with jsonschema against the schema, in its dialect.

    ## Why
    Anthropic's `input_examples` show the model well-formed calls of a tool; an example its own
    `input_schema` refuses teaches it a call that fails (and the API may reject the request).

    ## Example
    ```json file=tools.anthropic.json
    [{"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "input_schema": {"type": "object", "properties": {"a": {"type": "number"}},
                       "required": ["a"]},
      "input_examples": [{"a": 1}, {"a": "one"}]}]
    ```

    ## Fix
    Correct the example, or the schema if the example is right:
    ```json file=tools.anthropic.json
    [{"name": "add_to_ledger", "description": "Add a number to the running total of the ledger.",
      "input_schema": {"type": "object", "properties": {"a": {"type": "number"}},
                       "required": ["a"]},
      "input_examples": [{"a": 1}, {"a": 2.5}]}]
    ```
    """
    examples = tool.extra.get("input_examples")
    if not isinstance(examples, list) or not isinstance(tool.input_schema, (dict, bool)):
        return
    from toolcat.schema.validate import Checker

    check = Checker(tool.input_schema, tool.dialect)
    for i, ex in enumerate(examples):
        if not isinstance(ex, dict):
            yield Hit(f"input_examples[{i}] is not an object (a tool's input is one)",
                      f"/input_examples/{i}")
            continue
        why = check.why_not(ex)
        if why is not None:
            yield Hit(f"input_examples[{i}] is refused by the input_schema: {why}",
                      f"/input_examples/{i}")
