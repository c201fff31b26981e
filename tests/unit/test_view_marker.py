"""An MCP compact view says it is one: `toolcat project` writes the result's
``_meta: {"toolcat/view": "compact"}`` after the tools, the MCP reader reads it back, and lint
then knows the schema prose went to the handbook on purpose (MR401 quiet; TC107 takes
``annotations.title`` as the title the dropped description repeated)."""

from __future__ import annotations

import json

from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.model import COMPACT, STANDARD

TOOLS = {"tools": [{
    "name": "navigate", "description": "Navigate to a URL",
    "annotations": {"title": "Navigate to a URL"},
    "inputSchema": {"type": "object", "properties": {
        "url": {"type": "string", "description": "The URL to open"}}, "required": ["url"]},
}]}


def _project(tmp_path, view: str, indent: int = 0):
    src = tmp_path / "server.json"
    src.write_text(json.dumps(TOOLS), encoding="utf-8")
    cats = load_catalogs([str(src)], LoadOptions(strict=True))
    proj = project_catalogs(cats, ProjectOptions(to="mcp", view=view, indent=indent))
    out = tmp_path / f"out-{view}-{indent}.json"
    out.write_bytes(proj.output_bytes())
    return out


def _codes(path, view=None) -> list[str]:
    cats = load_catalogs([str(path)], LoadOptions(strict=False))
    return sorted(f.code for f in lint(cats, Config(), None, view=view).findings)


def test_compact_output_declares_its_view_and_lints_as_one(tmp_path):
    for indent in (0, 2):
        out = _project(tmp_path, "compact", indent)
        doc = json.loads(out.read_bytes())
        assert list(doc) == ["tools", "_meta"]
        assert doc["_meta"] == {"toolcat/view": "compact"}
        # the description repeated annotations.title, the property's prose went: compact
        assert "description" not in doc["tools"][0]
        assert "description" not in doc["tools"][0]["inputSchema"]["properties"]["url"]
        (cat,) = load_catalogs([str(out)], LoadOptions(strict=False))
        assert cat.view == COMPACT
        assert "MR401" not in _codes(out) and "TC107" not in _codes(out)
        # --view standard still lints it as a standard view: both rules speak again
        assert {"MR401", "TC107"} <= set(_codes(out, view=STANDARD))


def test_standard_output_and_plain_files_carry_no_marker(tmp_path):
    out = _project(tmp_path, "standard")
    assert "_meta" not in json.loads(out.read_bytes())
    (cat,) = load_catalogs([str(out)], LoadOptions(strict=False))
    assert cat.view == STANDARD
    # a marker with another value, or in a non-object _meta, is not a declaration
    for meta in ({"toolcat/view": "tiny"}, ["toolcat/view"], {"other/view": "compact"}):
        p = tmp_path / "tools.json"
        p.write_text(json.dumps({**TOOLS, "_meta": meta}), encoding="utf-8")
        (cat,) = load_catalogs([str(p)], LoadOptions(strict=False))
        assert cat.view == STANDARD
    # a JSON-RPC response's result declares it too
    p = tmp_path / "response.json"
    p.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
        **TOOLS, "_meta": {"toolcat/view": "compact"}}}), encoding="utf-8")
    (cat,) = load_catalogs([str(p)], LoadOptions(strict=False))
    assert cat.view == COMPACT
