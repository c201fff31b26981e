"""The OpenAI judge of ``toolcat project --to openai-strict`` (issue 33: "every tool that the
OpenAI SDK's strict transform accepts is marked strict"), offline.

openai-python's strict transform (``openai.lib._pydantic._ensure_strict_json_schema``, what
``openai.pydantic_function_tool`` and ``to_strict_json_schema`` apply to a function's
parameters) is run on two schemas of each tool: the server's own ``inputSchema`` as it is, and
what ``--to openai`` (strict off) writes for it. A tool is a *candidate* when the transform
takes one of them and what it gives is a schema OpenAI's strict mode takes: ``lint --profile
openai-strict`` finds no PV error in it (the transform itself checks almost nothing: it closes
a map's object, keeps ``minLength``, a ``{}`` of no type...), and the transform did not close
an object that declares no properties (it would then accept only ``{}`` where the server takes
any object: narrowed, not strict). Every candidate must be written ``"strict": true``; every
tool that is not says why in the report (an ``omitted`` change naming ``strict: false``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any


def closes_a_free_object(before: Any, after: Any) -> bool:
    """Did the SDK close an object schema that declares no properties (it then accepts only
    ``{}`` where any object was accepted)?"""
    if isinstance(before, dict) and isinstance(after, dict):
        if after.get("additionalProperties") is False and before.get("additionalProperties") \
                is not False and not after.get("properties"):
            return True
        return any(closes_a_free_object(before.get(k), v) for k, v in after.items()
                   if k in before)
    if isinstance(before, list) and isinstance(after, list):
        return any(closes_a_free_object(b, a) for b, a in zip(before, after))
    return False


def _sdk_strict(schema: Any) -> dict | None:
    """The SDK's strict transform of ``schema`` (a copy), None where it refuses it or closes
    an object of any properties."""
    from openai.lib._pydantic import _ensure_strict_json_schema

    if not isinstance(schema, dict):
        return None
    mine = copy.deepcopy(schema)
    try:
        got = _ensure_strict_json_schema(mine, path=(), root=mine)
    except Exception:  # noqa: BLE001 - the SDK refuses it: it cannot be strict that way
        return None
    return None if closes_a_free_object(schema, got) else got


def judge(paths: list[str], tmp: Path) -> tuple[int, int, list[str]]:
    """(candidates, tools, failures) over the catalogs at ``paths``: a failure is a candidate
    not written strict, or a tool written without strict and without its reason."""
    from toolcat.config import Config
    from toolcat.features.lint.engine import lint
    from toolcat.features.project import ProjectOptions, project_catalogs
    from toolcat.formats import LoadOptions, load_catalogs
    from toolcat.formats import targets as tg

    target = tg.get("openai-strict")
    checked = total = 0
    bad: list[str] = []
    for path in paths:
        cats = load_catalogs([path], LoadOptions(strict=False))
        tools = [t for c in cats for t in c.tools]
        proj = project_catalogs(cats, ProjectOptions(to="openai-strict", duplicate_ids="rename"))
        plain = project_catalogs(cats, ProjectOptions(to="openai", duplicate_ids="rename"))
        entries: list[dict] = []
        owner: list[int] = []
        for i, (tool, p) in enumerate(zip(tools, plain.tools)):
            for s in (tool.input_schema, target.body(p.descriptor).get("parameters")):
                got = _sdk_strict(s)
                if got is not None:
                    entries.append({"type": "function", "function": {
                        "name": f"t{len(entries)}", "parameters": got, "strict": True}})
                    owner.append(i)
        f = tmp / "sdk.json"
        f.write_text(json.dumps(entries))
        refused = {x.tool for x in lint(load_catalogs([str(f)], LoadOptions(strict=False)),
                                        Config(), "openai-strict").findings
                   if x.code.startswith("PV") and x.severity == "error"}
        cand = sorted({owner[k] for k in range(len(entries)) if f"t{k}" not in refused})
        for i, t in enumerate(proj.tools):
            total += 1
            strict = target.body(t.descriptor).get("strict") is True
            if i in cand:
                checked += 1
                if not strict:
                    why = [c.what for c in t.changes if "strict: false" in c.what]
                    bad.append(f"{path} {t.id}: the SDK makes it strict; not strict: {why}")
            elif not strict and not any(c.kind == "omitted" and "strict: false" in c.what
                                        for c in t.changes):
                bad.append(f"{path} {t.id}: not strict, and the report does not say why")
    return checked, total, bad
