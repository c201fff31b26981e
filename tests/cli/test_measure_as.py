"""`toolcat measure --as PROVIDER`: what that provider's request carries for the tools."""

from __future__ import annotations

import json

from support.common import corpus, run_toolcat

CAPTURE = "airtable.json"   # an mcp-context-cost capture whose tools have outputSchema


def _js(value) -> bytes:
    """JSON.stringify's bytes (no whitespace, keys as given, UTF-8), written here."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _measure(*args) -> dict:
    r = run_toolcat("measure", *args, "-f", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_as_anthropic_drops_exactly_the_fields_anthropic_does_not_receive():
    path = corpus("mcp-context-cost", CAPTURE)
    raw = json.loads(path.read_text(encoding="utf-8"))["rawToolsCapture"]
    assert any("outputSchema" in t for t in raw)
    default = _measure(path)["catalogs"][0]["bytes_before"]
    got = _measure(path, "--as", "anthropic")
    assert got["as"] == {"provider": "anthropic", "tokens": "estimate"}
    assert default == len(_js(raw))     # the default counts the tools array as captured
    # Anthropic receives name, description and input_schema; every other field of a tool
    # (outputSchema, annotations, title, _meta...) is not sent
    dropped = sum(len(_js(k)) + 1 + len(_js(v)) + 1 for t in raw for k, v in t.items()
                  if k not in ("name", "description", "inputSchema"))
    renamed = sum(len("input_schema") - len("inputSchema") for t in raw if "inputSchema" in t)
    assert dropped > 0
    assert got["catalogs"][0]["bytes_before"] == default - dropped + renamed


def test_as_openai_is_exact_with_o200k_and_implies_the_target():
    path = corpus("mcp-context-cost", CAPTURE)
    got = _measure(path, "--as", "openai")
    assert got["as"] == {"provider": "openai", "tokens": "exact"}
    same = _measure(path, "--to", "openai")["catalogs"][0]
    assert got["catalogs"][0]["bytes_before"] == same["bytes_before"]
    assert _measure(path, "--as", "openai", "-t", "cl100k_base")["as"]["tokens"] == "estimate"
    r = run_toolcat("measure", path, "--as", "openai", "--to", "mcp")
    assert r.returncode == 2 and r.stderr.startswith(b"toolcat: error: ")
    r = run_toolcat("measure", path, "--as", "bing")
    assert r.returncode == 2 and b"--as must be one of" in r.stderr
