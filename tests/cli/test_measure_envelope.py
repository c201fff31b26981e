"""`measure` measures what the user ships (issue 12 item 14): a catalog in its own envelope
by default (an OpenAI or Anthropic tool array is not re-enveloped as MCP, so "before" is the
file's own canonical bytes), and a budget gates the standard view (the catalog as given)
unless --gate after, with every budget message naming its side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.common import SAMPLES, run_toolcat
from toolcat.document.canonical import dumps


def _measure(*args: str, cwd: Path | None = None) -> tuple[int, dict, str]:
    r = run_toolcat("measure", "-f", "json", *args, cwd=cwd)
    return r.returncode, json.loads(r.stdout or b"{}"), r.stderr.decode()


@pytest.mark.parametrize("to", ["openai", "anthropic", "openwop", "mcp"])
def test_a_catalog_is_measured_in_its_own_envelope(tmp_path: Path, to: str) -> None:
    p = tmp_path / f"tools.{to}.json"
    r = run_toolcat("-q", "project", "--view", "standard", "--to", to,
                    str(SAMPLES / "git.tools.json"), "-o", str(p))
    assert r.returncode == 0, r.stderr
    doc = json.loads(p.read_bytes())
    items = doc["tools"] if isinstance(doc, dict) else doc
    code, out, err = _measure(str(p))
    assert code == 0, err
    (c,) = out["catalogs"]
    assert c["target"] == to
    # before: the tools array of the file, canonical, not the MCP re-envelope of it
    assert c["bytes_before"] == len(dumps(items))
    # --to still measures both sides in another envelope
    other = "mcp" if to != "mcp" else "openai"
    code, out, _ = _measure("--to", other, str(p))
    assert out["catalogs"][0]["target"] == other


def test_openapi_is_measured_as_mcp() -> None:
    code, out, err = _measure(str(SAMPLES / "petstore.openapi.yaml"))
    assert code == 0, err
    assert out["catalogs"][0]["target"] == "mcp"


def test_a_budget_gates_the_catalog_as_given(tmp_path: Path) -> None:
    f = str(SAMPLES / "git.tools.json")
    _, out, _ = _measure(f)
    c = out["catalogs"][0]
    before, after = c["tokens_before"], c["tokens_after"]
    assert after < before
    # a server over budget as served fails, although its compact view would fit
    (tmp_path / "toolcat.toml").write_text(f"[budgets]\nmax-tokens = {before - 1}\n")
    code, _, err = _measure(f, cwd=tmp_path)
    assert code == 1
    assert (f"tokens_before (the standard view: the catalog as given) {before:,} is over "
            f"the limit {before - 1:,}") in err
    # --gate after gates the compact view, and says so
    code, _, err = _measure(f, "--gate", "after", "--max-tokens", str(after - 1), cwd=tmp_path)
    assert code == 1
    assert "tokens_after (the compact view toolcat project writes)" in err
    code, _, err = _measure(f, "--gate", "after", cwd=tmp_path)
    assert code == 0, err


def test_baseline_messages_name_the_side(tmp_path: Path) -> None:
    f = str(SAMPLES / "git.tools.json")
    base = tmp_path / "base.json"
    code, _, err = _measure(f, "--write-baseline", str(base))
    assert code == 0, err
    doc = json.loads(base.read_text())
    (entry,) = doc["catalogs"].values()
    entry["tokens_before"] -= 10
    base.write_text(json.dumps(doc))
    code, _, err = _measure(f, "--baseline", str(base))
    assert code == 1
    assert "tokens_before (the standard view: the catalog as given) grew" in err
