"""Issue 33: ``toolcat project --for claude-desktop`` writes only what Claude Desktop's
validator takes. The judge is the MCP TypeScript SDK's validator in its 2020-12-only mode
(Ajv2020 without the draft-07 metaschema: support/ajv.py engine ``2020-12``): every input and
output schema of every tool of the corpus compiles, where the corpus holds schemas it refuses
as they are (draft-07 ``$schema``, tuple ``items``...)."""

from __future__ import annotations

import glob
import json

import pytest

from support.common import CORPUS, or_absent
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs


def _paths() -> list:
    """The corpus catalogs judged (at collection: absent folders give no case; where none is
    found, one case skipped with the reason)."""
    out = [str(f) for f in sorted((CORPUS / "mcp-context-cost").glob("*.json"))
           if isinstance(json.loads(f.read_text()).get("rawToolsCapture"), list)]
    if (CORPUS / "github-mcp-server").is_dir():
        out.append(str(CORPUS / "github-mcp-server"))
    out += sorted(glob.glob(str(CORPUS / "openapi" / "*.yaml")) + glob.glob(
        str(CORPUS / "openapi" / "*.json")))[:12]
    out += sorted(glob.glob(str(CORPUS / "neo" / "*.openapi.yaml")))[:4]
    return or_absent(out, "mcp-context-cost")


@pytest.mark.parametrize("path", _paths(), ids=lambda p: str(p).rsplit("/", 1)[-1])
def test_for_claude_desktop_compiles_under_ajv2020(path, ajv_judge):
    cats = load_catalogs([path], LoadOptions(strict=False))
    opts = ProjectOptions(to="mcp", for_clients=("claude-desktop",), duplicate_ids="rename")
    proj = project_catalogs(cats, opts)
    bad = []
    for t in proj.tools:
        for key in ("inputSchema", "outputSchema"):
            s = t.descriptor.get(key)
            if s is None:
                continue
            err = ajv_judge.compile(s, engine="2020-12")
            kept = [c for c in t.changes if c.kind == "kept"]
            if err is not None and not kept:
                bad.append(f"{t.id} {key}: {err[:200]}")
            assert "$schema" not in s or "2020-12" in s["$schema"] or kept, (t.id, key)
    assert not bad, "\n".join(bad[:10])
