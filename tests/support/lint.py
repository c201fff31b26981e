"""Helpers for the lint tests (no tests here).

Expected positions are derived from the text the test writes (the line holding a marker),
never from toolcat's own output.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.formats import LoadOptions, load_catalogs


def write(tmp_path: Path, data, name: str = "tools.json") -> Path:
    p = tmp_path / name
    if isinstance(data, str):
        p.write_text(data, encoding="utf-8")
    else:
        p.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return p


def run(path: Path | list, profile: str | None = None, config: Config | None = None,
        **opts):
    paths = [str(p) for p in path] if isinstance(path, list) else [str(path)]
    cats = load_catalogs(paths, LoadOptions(strict=False, **opts))
    return lint(cats, config or Config(), profile).findings


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def only(findings, code: str) -> list:
    return [f for f in findings if f.code == code]


def line_of(path: Path, marker: str, nth: int = 0) -> int:
    """1-based line of the ``nth`` line containing ``marker``."""
    hits = [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if marker in line]
    return hits[nth]


def mcp(*tools) -> dict:
    return {"tools": list(tools)}


def tool(name: str = "search", description: str = "Search the web for a query.",
         **props) -> dict:
    schema = {"type": "object",
              "properties": props or {"q": {"type": "string", "description": "The query."}}}
    return {"name": name, "description": description, "inputSchema": schema}
