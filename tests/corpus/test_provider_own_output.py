"""Toolcat's output passes toolcat's lint: for every corpus catalog and every target,
`toolcat lint --profile P` of `toolcat project --to T` (P: the target's profile) reports no
error. The one error no rewrite can mend, more tools than a provider takes in one request
(PV506), must be what `project` warned about; a provider target renames a repeated name, the
MCP and OpenWOP targets keep it (TC101), and only where the input itself repeats it."""

from __future__ import annotations

import json

import pytest

from support.common import corpus
from toolcat.config import Config
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats import targets as tg
from toolcat.lint.engine import lint
from toolcat.project import ProjectOptions, project_catalogs


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


@pytest.mark.parametrize("to", tg.TARGETS)
def test_project_output_lints_clean_under_its_profile(to, tmp_path):
    target = tg.get(to)
    failures: list[str] = []
    linted = 0
    for path in _catalogs():
        cats = load_catalogs([path], LoadOptions(strict=True))
        # ids made unique as a user must (sendgrid has two operations named POST-design)
        proj = project_catalogs(cats, ProjectOptions(to=to, duplicate_ids="rename"))
        if not proj.tools:
            continue
        out = tmp_path / f"out.{to}.compact.json"
        out.write_bytes(proj.output_bytes())
        res = lint(load_catalogs([str(out)], LoadOptions(strict=False)), Config(),
                   target.profile)
        linted += 1
        for f in res.findings:
            if f.severity != "error":
                continue
            if f.code == "PV506" and any("in one request" in w for w in proj.warnings):
                continue
            if f.code == "TC101" and target.provider is None and _repeats(cats):
                continue
            failures.append(f"{path}: {f.code} {f.tool} {f.pointer}: {f.message}")
    assert linted > 20
    assert not failures, f"{len(failures)} errors:\n" + "\n".join(failures[:30])
