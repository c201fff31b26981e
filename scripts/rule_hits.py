#!/usr/bin/env python3
"""The hits of lint rules on the MCP corpora, for measuring false positives by hand.

The catalogs: the 69 mcp-context-cost captures and GitHub's server (``$TOOLCAT_SHARED``,
default ``../shared``), neo, and the outside corpus's MCP entries (``kind = "mcp"`` and
``"docker-tools"`` of tests/outside/manifest.toml, under ``$TOOLCAT_OUTSIDE``, default
``../outside``).

    python scripts/rule_hits.py hits TP MR405        # every hit of these codes or prefixes
    python scripts/rule_hits.py count TP MR405       # tools, tools hit, hits per code
    python scripts/rule_hits.py exits                # lint's exit code per catalog (error,
                                                     # warning)
    python scripts/rule_hits.py score                # each catalog's description score
    python scripts/rule_hits.py count TP --everything   # OpenAPI specs and the rest too

``hits`` prints one line per finding (``file  tool  code  pointer  message``), the lines a
reader classifies as true or false positives (README, "Description quality", gives the
figures measured so).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TOOLCAT_SHARED", REPO.parent / "shared"))
OUTSIDE = Path(os.environ.get("TOOLCAT_OUTSIDE", REPO.parent / "outside"))


def paths(everything: bool = False) -> list[str]:
    """Every MCP catalog of the corpora that exists here; ``everything``: every catalog of
    the shared corpus (OpenAPI specs included) and of the outside corpus (every kind but
    bad input, non-catalogs and the old/new pairs)."""
    c = SHARED / "corpus"
    if everything:
        out = sorted(os.path.join(d, f) for d, _s, fs in os.walk(c) for f in fs
                     if f.endswith((".json", ".yaml", ".yml")) and "json-schema-test-suite"
                     not in d and "github-mcp-server" not in d)
        out.append(str(c / "github-mcp-server"))
    else:
        out = sorted(glob.glob(str(c / "mcp-context-cost" / "*.json")))
        if (c / "github-mcp-server").exists():
            out.append(str(c / "github-mcp-server"))
        out += sorted(glob.glob(str(c / "neo" / "*.yaml")))
    spec = importlib.util.spec_from_file_location("outside_corpus",
                                                  REPO / "scripts" / "outside_corpus.py")
    oc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oc)
    kinds = ("mcp", "docker-tools") if not everything else (
        "mcp", "docker-tools", "openapi", "swagger", "openai", "anthropic")
    for e in oc.load_manifest():
        if e.get("kind") in kinds:
            p = oc.catalog_path(OUTSIDE, e, "")
            if p.exists():
                out.append(str(p))
    return out


def catalogs(everything: bool = False) -> list:
    from toolcat import api

    out = []
    for p in paths(everything):
        try:
            out += api.load_all([p])
        except Exception as e:  # noqa: BLE001 -- a corpus file that is no catalog
            print(f"# skipped {p}: {str(e)[:200]}", file=sys.stderr)
    return out


def lint(cats: list, codes: list[str]) -> list:
    """The findings of ``codes`` (default: the profile's rules), one catalog at a time."""
    from toolcat import api

    out = []
    for c in cats:
        out += (api.lint([c], select=codes) if codes else api.lint([c])).findings
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("hits", "count", "exits", "score"))
    ap.add_argument("codes", nargs="*")
    ap.add_argument("--everything", action="store_true",
                    help="every catalog of both corpora (OpenAPI specs too), not only MCP")
    a = ap.parse_args(argv)
    cats = catalogs(a.everything)
    tools = sum(len(c.tools) for c in cats)
    if a.what == "exits":
        from toolcat import api

        for c in cats:
            res = api.lint([c])
            print(f"{int(res.failed('error'))} {int(res.failed('warning'))}  {c.file}")
        return 0
    if a.what == "score":
        from toolcat.features.lint.quality import score

        for c in cats:
            s = score([c])
            print(f"{s.score:5.1f}  {len(c.tools):4}  {c.file}")
        s = score(cats)
        print(f"{s.score:5.1f}  {tools:4}  (all {len(cats)} catalogs)")
        return 0
    found = lint(cats, a.codes)
    if a.what == "hits":
        for f in found:
            print(f"{os.path.relpath(f.file, REPO.parent)}\t{f.tool}\t{f.code}\t{f.pointer}\t"
                  f"{f.message}")
        return 0
    from collections import Counter

    per = Counter(f.code for f in found)
    hit_tools = {(f.file, f.tool) for f in found}
    print(f"{len(cats)} catalogs, {tools} tools; {len(hit_tools)} tools hit "
          f"({100 * len(hit_tools) / max(tools, 1):.1f}%)")
    for code, n in sorted(per.items()):
        t = len({(f.file, f.tool) for f in found if f.code == code})
        print(f"  {code}  {n} hits on {t} tools")
    return 0


if __name__ == "__main__":
    sys.exit(main())
