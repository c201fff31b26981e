"""Description quality (MR405-MR408): does each tool say what it does, how it differs from
its siblings and when to use it, and what its parameters mean? Info-level advice; the
analysis (word lists, the similarity measure, thresholds) and the score built from these
rules are :mod:`toolcat.features.lint.quality`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from toolcat.document import pointer as jp
from toolcat.features.lint import quality as q
from toolcat.features.lint.registry import Hit, rule

if TYPE_CHECKING:
    from toolcat.features.lint.engine import Context
    from toolcat.model import Tool


@rule("MR405", "purpose-unclear", "info",
      "the tool description does not say what the tool does (restates the name, names a "
      "tool rather than an action, or is under 3 words)")
def purpose_unclear(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a tool description that does not say what the tool does: a description whose words
    (function words and "tool", "function", "API"... aside, plurals folded) are all words of the
    name (`get_user`: "Gets a user."); one that names a kind of tool and no action ("Tool for
    Jira issues", "GitHub API wrapper"); and one of fewer than 3 words ("Search.").

    ## Why
    A model picks a tool by its description; one that only repeats the name adds nothing to it.

    ## Not reported
    A missing description (TC107's).

    ## Example
    ```json
    {"tools": [{"name": "get_user", "description": "Gets a user.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Say what the tool does, to what, and what it returns: `get_user`: "Get a user's profile
    (name, e-mail, teams) by login; returns 404 text when there is none".
    ```json
    {"tools": [{"name": "get_user",
                "description": "Get a user's profile (name, e-mail, teams) by login.",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```
    """
    msg = q.purpose_problem(tool.id, tool.description)
    if msg:
        yield Hit(msg + ": say what the tool does and returns", "/description")


def _sibling_hits(ctx: Context, minimum: float) -> Iterator[tuple[Tool, Tool, float]]:
    sib = q.siblings_of(ctx)
    for i, j, cos in sib.pairs:
        if cos >= minimum:
            yield sib.tools[i], sib.tools[j], cos


@rule("MR406", "ambiguous-siblings", "info",
      "two tools of a catalog whose names and descriptions are too alike to tell apart "
      "(TF-IDF cosine >= 0.80)", scope="catalog")
def ambiguous_siblings(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports two tools of a catalog whose names and descriptions are too alike to tell apart
    (TF-IDF cosine >= 0.80). The measure: each tool is the words and word pairs of its name
    (counted twice) and description, weighted by TF-IDF within the catalog, compared by cosine; a
    pair at or above 0.80 is reported on the second tool, naming the first. The candidates come
    from an inverted index, so a catalog of 10,000 tools is fine.

    ## Why
    Two tools whose names and descriptions say nearly the same thing look interchangeable to a
    model, which then picks one by chance. The threshold was chosen on the MCP corpora (README,
    "Description quality"): at 0.80 the pairs differ by one word (`list_ip_groups` and
    `list_ip_groups_lite`, "List IP groups" and "List IP groups in lite format"); below 0.70 most
    pairs are members of a family a model tells apart (`get_x`/`list_x`).

    ## Not reported
    Pairs with the same description (TC108's), a pair where one description names the other
    tool, names that differ only in their first word (a namespace: `zia_list_groups`,
    `ztw_list_groups`) and names with different verbs (`create_rule`, `update_rule`: the request
    says which).

    ## Example
    ```json
    {"tools": [{"name": "list_ip_groups", "description": "List the IP groups of the account",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "list_ip_groups_lite",
                "description": "List the IP groups of the account, lite",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "get_weather", "description": "Get the weather forecast for a city",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "send_email", "description": "Send an e-mail to a recipient",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "create_event", "description": "Create a calendar event",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Say in each what it does that the other does not, and when to use which (MR407).
    """
    for a, b, cos in _sibling_hits(ctx, q.SAME):
        if q.same_text(a.description, b.description) or q.told_apart(a, b):
            continue
        yield Hit(f"name and description are {cos:.0%} like tool {a.id!r} (cosine; "
                  f">= {q.SAME:.0%} reported): say what tells them apart", "/description", b)


@rule("MR407", "no-usage-guidance", "info",
      "a tool with a close sibling (cosine >= 0.75) whose description says nothing of when "
      "to use it (\"use when\", \"instead of\", \"only for\"...)", scope="catalog",
      prose=True)
def no_usage_guidance(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a tool whose closest sibling has a name and description at or above 0.75 cosine
    (MR406's measure) and whose description has no phrase of guidance -- "use this
    when/for/to/instead", "instead of", "rather than", "only for/when", "prefer", "do not use",
    "not for", "best/useful for", "unlike", "when you/the user", "for example" -- naming the
    sibling.

    ## Why
    When a catalog holds tools that do nearly the same thing (`search_issues` and
    `list_issues`, `list_directory` and `list_directory_with_sizes`), the model needs to know
    which to call.

    ## Example
    ```json
    {"tools": [{"name": "get_issue", "description": "Get an issue of a repository by number",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "get_issue_details",
                "description": "Get an issue of a repository by number, with details",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "get_weather", "description": "Get the weather forecast for a city",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "send_email", "description": "Send an e-mail to a recipient",
                "inputSchema": {"type": "object", "properties": {}}},
               {"name": "create_event", "description": "Create a calendar event",
                "inputSchema": {"type": "object", "properties": {}}}]}
    ```

    ## Fix
    Add a sentence: "Use this instead of `list_issues` to search across repositories by
    keyword".
    """
    sib = q.siblings_of(ctx)
    for i, (j, cos) in sorted(sib.best.items()):
        t = sib.tools[i]
        if cos < q.CLOSE or q.guided(t.description) or q.told_apart(t, sib.tools[j]):
            continue
        yield Hit(f"tool {sib.tools[j].id!r} is close ({cos:.0%} cosine): say when to use "
                  "this one (\"use this when...\", \"instead of ...\")", "/description", t)


@rule("MR408", "parameter-meaning-unknown", "info",
      "a top-level parameter whose meaning is nowhere: no description, enum, format, "
      "pattern or title, and a name that says nothing (`value`, `data`, `payload`)", prose=True)
def parameter_meaning_unknown(ctx: Context, tool: Tool) -> Iterator[Hit]:
    """## What it does
    Reports a top-level parameter whose meaning is nowhere: no description, no `title`, `enum`,
    `const`, `format`, `pattern`, `examples`, `$ref` or sub-schema, and a name made only of words
    that say nothing (`value`, `data`, `args`, `payload`, `params`, one letter...). A generic
    name (`id`, `key`, `name`, `input`, `q`, `query`, `text`, `body`...) counts only when the
    tool's name says nothing either (`run(id)`; `get_issue(id)` is an issue's id,
    `search_code(q)` the search's), or when it is an object or array of a shape nothing
    gives. MR401 asks for a description on every
    parameter; this rule reports the ones where nothing else makes up for it either.

    ## Why
    A model fills such an argument by guessing.

    ## Not reported
    Not checked on compact views (see MR401).

    ## Example
    ```json
    {"tools": [{"name": "search_jira", "description": "Search Jira issues with JQL.",
                "inputSchema": {"type": "object", "properties": {
                  "payload": {"type": "string"}}}}]}
    ```

    ## Fix
    Describe it (units, format, an example), rename it (`query` -> `jql_query`), or constrain
    it (`enum`, `format`, `pattern`):
    ```json
    {"tools": [{"name": "search_jira", "description": "Search Jira issues with JQL.",
                "inputSchema": {"type": "object", "properties": {
                  "jql_query": {"type": "string"}}}}]}
    ```
    """
    s = tool.input_schema
    props = s.get("properties") if isinstance(s, dict) else None
    if not isinstance(props, dict):
        return
    for name, p in props.items():
        if q.opaque_parameter(tool.id, str(name), p):
            yield Hit(f"parameter {name!r}: its name, type and schema say nothing of what it "
                      "is, and it has no description", "/inputSchema/properties/" +
                      jp.escape(str(name)))
