"""Toolcat's output passes toolcat's lint: for every corpus catalog and every target,
`toolcat lint --profile P` of `toolcat project --to T` (P: the target's profile) reports no
error. The one error no rewrite can mend, more tools than a provider takes in one request
(PV506), must be what `project` warned about; a provider target renames a repeated name, the
MCP and OpenWOP targets keep it (TC101), and only where the input itself repeats it. The
MCP target's compact view adds no warning either (below)."""

from __future__ import annotations

import json

import pytest

from support.common import corpus
from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.features.project import ProjectOptions, project_catalogs
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats import targets as tg


def _catalogs() -> list[str]:
    root = corpus()
    out = [str(root / "github-mcp-server")]
    for f in sorted((root / "mcp-context-cost").glob("*.json")):
        if isinstance(json.loads(f.read_text(encoding="utf-8")).get("rawToolsCapture"), list):
            out.append(str(f))
    out += [str(f) for f in sorted((root / "neo").glob("*.openapi.yaml"))]
    out += [str(f) for f in sorted((root / "openapi").glob("*.*")) if f.suffix != ".md"]
    return out


def _repeats(cats) -> bool:
    """Does the input repeat a tool id? (Counted here, not by lint.)"""
    ids = [t.id for c in cats for t in c.tools]
    return len(ids) != len(set(ids))


@pytest.mark.parametrize("to", tg.names())
def test_project_output_lints_clean_under_its_profile(to, tmp_path):
    """No error under the target's profile. The default MCP compact view (its profile is the
    default one), written under a name that says nothing (``tools.mcp.json``), reports no
    warning either that linting the source does not report itself (same code, same
    message): the view declares itself compact in the result's ``_meta``, so MR401 (schema
    prose that went to the handbook) and the OpenWOP compact-subset rules stay quiet; what is
    left is the source's own (a `required` name not among `properties`, a misspelt
    keyword), repeated where a component is bundled."""
    target = tg.get(to)
    failures: list[str] = []
    linted = inherited = 0
    for path in _catalogs():
        cats = load_catalogs([path], LoadOptions(strict=True))
        # ids made unique as a user must (sendgrid has two operations named POST-design)
        proj = project_catalogs(cats, ProjectOptions(to=to, duplicate_ids="rename"))
        if not proj.tools:
            continue
        out = tmp_path / f"tools.{to}.json"
        out.write_bytes(proj.output_bytes())
        res = lint(load_catalogs([str(out)], LoadOptions(strict=False)), Config(),
                   target.profile)
        linted += 1
        source = ({(f.code, f.message) for f in lint(cats, Config(), None).findings}
                  if to == "mcp" else set())
        for f in res.findings:
            if to == "mcp" and f.severity == "warning":
                if (f.code, f.message) in source and not f.code.startswith(("MR401", "CS2")):
                    inherited += 1
                else:
                    failures.append(f"{path}: {f.code} {f.tool} {f.pointer}: {f.message}")
                continue
            if f.severity != "error":
                continue
            if f.code == "PV506" and any("in one request" in w for w in proj.warnings):
                continue
            if f.code == "TC101" and target.provider is None and _repeats(cats):
                continue
            failures.append(f"{path}: {f.code} {f.tool} {f.pointer}: {f.message}")
    assert linted > 20
    # the corpus has source defects: the comparison of warnings is not vacuous
    assert inherited > 0 or to != "mcp"
    assert not failures, f"{len(failures)} errors:\n" + "\n".join(failures[:30])

