"""``toolcat serve --deny-poisoned``: upstream tools that the poisoned-tool rules
(TP101-TP104, :mod:`toolcat.features.lint.rules.poison`) flag are not served: not listed, not in the
handbook nor a ``--defer`` search, and a call of one is refused with a tool error. Which
tools, and why, is said on stderr at start-up and whenever the list of denied tools changes
(an upstream's new tools, a rug pull). No MCP SDK here.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def codes(tool: Any, siblings: frozenset) -> list[str]:
    """The TP rules ``tool`` (a :class:`toolcat.model.Tool`) breaks, as ``lint`` reports
    them: TP101 in every string a model reads of it, TP102-TP104 in its prose."""
    from toolcat.features.lint.rules import poison

    found = {code for code, _, _ in poison.tool_findings(tool, siblings)}
    return sorted(found)


def split(cat: Any) -> tuple[Any, dict[str, list[str]]]:
    """``cat`` without its poisoned tools, and those tools' names -> the rules they break."""
    siblings = frozenset(t.id for t in cat.tools if isinstance(t.id, str))
    kept, denied = [], {}
    for t in cat.tools:
        got = codes(t, siblings)
        if got:
            denied[str(t.id)] = got
        else:
            kept.append(t)
    if not denied:
        return cat, {}
    return dataclasses.replace(cat, tools=kept), denied


def refusal(name: str, rules: list[str]) -> dict:
    """The result of a call of a denied tool (a ``CallToolResult`` as JSON data)."""
    return {"content": [{"type": "text", "text": (
        f"toolcat serve --deny-poisoned does not serve {name}: its description breaks "
        f"{', '.join(rules)} (a poisoned tool; see toolcat lint)")}], "isError": True}


def line(denied: dict[str, list[str]]) -> str:
    """What stderr says of the denied tools."""
    if not denied:
        return "toolcat: --deny-poisoned: no tool denied"
    which = ", ".join(f"{n} ({', '.join(r)})" for n, r in denied.items())
    return f"toolcat: --deny-poisoned: not serving {len(denied)} poisoned tools: {which}"
