"""Baselines: accept today's findings, fail only on new ones.

``--write-baseline FILE`` records every current finding by file, rule, tool and pointer (no
line numbers or messages, so editing other parts of a catalog does not invalidate it);
``--baseline FILE`` hides the findings recorded there and reports the rest. Identical
entries are counted: a baseline with one ``CS203`` at a pointer hides one such finding, not
two. Files are recorded relative to the baseline file's folder, so the baseline works from
any working directory; a live server (``--server``...) is recorded by its name, as reports
name it.

Format (JSON)::

    {"toolcat-baseline": 1,
     "findings": [{"file": "tools.json", "code": "CS203", "tool": "search",
                   "pointer": "/inputSchema/properties/q/oneOf", "count": 1}]}
"""

from __future__ import annotations

import json
import os
from collections import Counter

from toolcat.errors import UsageError
from toolcat.model import Finding

VERSION = 1


def _rel(file: str, base_dir: str) -> str:
    if file == "-":
        return "-"
    try:
        r = os.path.relpath(os.path.abspath(file), base_dir)
    except ValueError:  # another drive (Windows)
        r = os.path.abspath(file)
    return r.replace(os.sep, "/")


def _key(f: Finding, base_dir: str, servers: frozenset[str] | set[str] = frozenset()
         ) -> tuple[str, str, str, str]:
    file = f.file if f.file in servers else _rel(f.file, base_dir)
    return (file, f.code, f.tool or "", f.pointer or "")


def write_baseline(path: str, findings: list[Finding],
                   servers: frozenset[str] | set[str] = frozenset()) -> int:
    from toolcat.document.canonical import dumps
    from toolcat.ui import write_atomic

    base_dir = os.path.dirname(os.path.abspath(path))
    counts = Counter(_key(f, base_dir, servers) for f in findings)
    entries = [{"file": k[0], "code": k[1], "tool": k[2] or None, "pointer": k[3], "count": n}
               for k, n in sorted(counts.items())]
    write_atomic(path, dumps({"toolcat-baseline": VERSION, "findings": entries}, indent=2)
                 + b"\n")
    return len(findings)


def load_baseline(path: str) -> tuple[str, Counter]:
    from toolcat.document.parse import Limits
    from toolcat.features.lint.registry import redirect
    from toolcat.files import read_regular

    raw = read_regular(path, Limits.from_env().max_file_size, UsageError, what="baseline file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as err:
        raise UsageError(f"cannot read the baseline: {err}", path) from None
    if not isinstance(data, dict) or data.get("toolcat-baseline") != VERSION \
            or not isinstance(data.get("findings"), list):
        raise UsageError("not a toolcat lint baseline (expected {\"toolcat-baseline\": 1, "
                         "\"findings\": [...]})", path)
    counts: Counter = Counter()
    for i, e in enumerate(data["findings"]):
        if not isinstance(e, dict) or not isinstance(e.get("file"), str) \
                or not isinstance(e.get("code"), str) \
                or not isinstance(e.get("tool"), (str, type(None))) \
                or not isinstance(e.get("pointer"), (str, type(None))):
            raise UsageError(f"malformed baseline entry #{i + 1} (file and code are strings; "
                             "tool and pointer strings or null)", path)
        n = e.get("count", 1)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise UsageError(f"malformed count in baseline entry #{i + 1} (a positive integer)",
                             path)
        # a renamed rule's old code counts as its new one (registry.REDIRECTS, with a warning)
        code = redirect(e["code"], path)
        counts[(e["file"], code, e.get("tool") or "", e.get("pointer") or "")] += n
    return os.path.dirname(os.path.abspath(path)), counts


def apply_baseline(path: str, findings: list[Finding],
                   servers: frozenset[str] | set[str] = frozenset()
                   ) -> tuple[list[Finding], int]:
    """The findings not covered by the baseline, and how many were hidden (``servers``: the
    names of the live servers among the findings' files)."""
    base_dir, counts = load_baseline(path)
    out: list[Finding] = []
    hidden = 0
    for f in findings:
        k = _key(f, base_dir, servers)
        if counts.get(k, 0) > 0:
            counts[k] -= 1
            hidden += 1
        else:
            out.append(f)
    return out, hidden
