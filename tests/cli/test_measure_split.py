"""measure compares like with like and says what its figures are made of: input and output
schemas apart in `tools` and `measure` (issue 12 item 12: a Stripe tool showed "schema bytes
418,319" for a 1,019-byte inputSchema; `--no-output-schema` compared a before with output
schemas to an after without), and every saving split into what exact rewrites save and what
the lossy cuts save (item 15: okta's "62.3% saved" is 35.2% without the description cut)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from support.common import SAMPLES, run_toolcat
from toolcat.document.canonical import dumps

PETSTORE = str(SAMPLES / "petstore.openapi.yaml")
GIT = str(SAMPLES / "git.tools.json")


def _json(*args: str) -> dict:
    r = run_toolcat(*args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _standard(path: str, *args: str) -> list[dict]:
    return _json("-q", "project", "--view", "standard", path, *args)["tools"]


def test_tools_shows_input_and_output_apart() -> None:
    """`tools` lists the catalog as loaded: each schema's canonical bytes, input and output
    apart (the standard view may differ: an MCP target types and wraps output roots)."""
    import toolcat

    (cat,) = _json("tools", "--format", "json", PETSTORE)["catalogs"]
    loaded = {t.id: t for t in toolcat.load(PETSTORE).tools}
    assert [t["id"] for t in cat["tools"]] == list(loaded)
    for t in cat["tools"]:
        src = loaded[t["id"]]
        assert t["input_schema_bytes"] == len(dumps(src.input_schema))
        assert t["output_schema_bytes"] == (None if src.output_schema is None
                                            else len(dumps(src.output_schema)))
    assert any(t["output_schema_bytes"] for t in cat["tools"])
    r = run_toolcat("tools", PETSTORE)
    head = next(ln for ln in r.stdout.decode().splitlines() if ln.startswith("tool "))
    assert "input bytes" in head and "output bytes" in head


def test_measure_schema_figures_per_side() -> None:
    (c,) = _json("measure", "-f", "json", PETSTORE)["catalogs"]
    before = _standard(PETSTORE)
    after = _json("-q", "project", PETSTORE)["tools"]

    def sizes(items: list[dict]) -> dict:
        return {"input": sum(len(dumps(t["inputSchema"])) for t in items),
                "output": sum(len(dumps(t["outputSchema"])) for t in items if "outputSchema" in t)}

    assert c["schemas"] == {"before": sizes(before), "after": sizes(after)}
    assert c["schemas"]["before"]["output"] > 0 and c["output_schemas"] is True


def test_no_output_schema_leaves_them_out_of_both_sides() -> None:
    (c,) = _json("measure", "-f", "json", "--no-output-schema", PETSTORE)["catalogs"]
    before = [{k: v for k, v in t.items() if k != "outputSchema"} for t in _standard(PETSTORE)]
    after = _json("-q", "project", "--no-output-schema", PETSTORE)["tools"]
    assert c["bytes_before"] == len(dumps(before))
    assert c["bytes_after"] == len(dumps(after))
    assert c["schemas"]["before"]["output"] == 0 == c["schemas"]["after"]["output"]
    assert c["output_schemas"] is False
    r = run_toolcat("measure", "--no-output-schema", PETSTORE)
    assert "output schemas left out of both sides" in r.stdout.decode()


def _compact_tokens(path: str, *args: str) -> tuple[int, int]:
    (c,) = _json("measure", "-f", "json", path, *args)["catalogs"]
    return c["bytes_after"], c["tokens_after"]


def test_saving_split_lossless_and_lossy(tmp_path: Path) -> None:
    """The lossless part is exactly what the compact view saves without its lossy steps
    (no description cut, UI labels kept), measured independently with those options."""
    long = "Shows the working tree status. " * 10
    tools = [
        {"name": "a", "title": "A", "description": long,
         "inputSchema": {"type": "object", "properties": {"x": {
             "type": "string", "description": "an x", "title": "X"}},
             "additionalProperties": True}},
        {"name": "b", "description": "short", "inputSchema": {"type": "object", "required": []}},
    ]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"tools": tools}))
    (c,) = _json("measure", "-f", "json", str(p))["catalogs"]
    mid_bytes, mid_tokens = _compact_tokens(str(p), "--description-max", "100000",
                                            "--keep-titles")
    saved = c["saved"]
    assert saved["bytes"]["total"] == c["bytes_before"] - c["bytes_after"]
    assert saved["bytes"]["lossless"] == c["bytes_before"] - mid_bytes
    assert saved["bytes"]["lossy"] == mid_bytes - c["bytes_after"]
    assert saved["tokens"]["lossless"] == c["tokens_before"] - mid_tokens
    assert saved["tokens"]["lossy"] == mid_tokens - c["tokens_after"]
    assert saved["bytes"]["lossy"] > 0 and saved["bytes"]["lossless"] > 0
    # nothing cut: all of it is lossless
    (c,) = _json("measure", "-f", "json", str(p), "--description-max", "100000",
                 "--keep-titles")["catalogs"]
    assert c["saved"]["bytes"]["lossy"] == 0 == c["saved"]["tokens"]["lossy"]


def test_a_widened_schema_counts_as_lossy(tmp_path: Path) -> None:
    tools = [{"name": "w", "description": "d", "inputSchema": {
        "type": "object", "properties": {"n": {"type": "integer", "not": {"const": 3}}}}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"tools": tools}))
    r = run_toolcat("-q", "project", str(p), "--subset", "--report", str(tmp_path / "r.json"))
    assert r.returncode == 0, r.stderr
    kinds = {ch["kind"] for t in json.loads((tmp_path / "r.json").read_text())["tools"]
             for ch in t["changes"]}
    assert "widened" in kinds
    (c,) = _json("measure", "-f", "json", str(p), "--subset")["catalogs"]
    assert c["saved"]["bytes"]["lossless"] == 0
    assert c["saved"]["bytes"]["lossy"] == c["bytes_before"] - c["bytes_after"]


def test_the_split_is_in_every_format() -> None:
    out = _json("measure", "-f", "json", GIT, PETSTORE)
    tot = out["total"]
    for fig in ("bytes", "tokens"):
        for part in ("total", "lossless", "lossy"):
            assert tot["saved"][fig][part] == sum(c["saved"][fig][part] for c in out["catalogs"])
    rows = list(csv.DictReader(io.StringIO(run_toolcat(
        "measure", "-f", "csv", GIT, PETSTORE).stdout.decode())))
    for row, c in zip(rows, out["catalogs"]):
        assert int(row["bytes_saved_lossless"]) == c["saved"]["bytes"]["lossless"]
        assert int(row["tokens_saved_lossy"]) == c["saved"]["tokens"]["lossy"]
        assert int(row["output_schema_bytes_before"]) == c["schemas"]["before"]["output"]
    md = run_toolcat("measure", "-f", "markdown", PETSTORE).stdout.decode()
    assert "| lossless | lossy |" in md
    table = run_toolcat("measure", PETSTORE).stdout.decode()
    assert "lossless" in table and "Schema bytes" in table


@pytest.mark.parametrize("to", ["openai", "anthropic", "openwop"])
def test_schema_figures_in_other_envelopes(to: str) -> None:
    (c,) = _json("measure", "-f", "json", "--to", to, PETSTORE)["catalogs"]
    assert c["schemas"]["before"]["input"] > 0
    if to != "openwop":   # OpenAI and Anthropic tools carry no output schema
        assert c["schemas"]["before"]["output"] == 0
