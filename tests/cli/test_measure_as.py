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


def _harmony_tokens(functions: list) -> int:
    """Tokens a developer message gains from these function tools, rendered by OpenAI's
    harmony package itself (independently of toolcat.features.measure.harmony)."""
    import os
    import tempfile

    import openai_harmony as oh

    from toolcat.tokens import rank_file_bytes

    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "o200k_base.tiktoken"), "wb") as fh:
            fh.write(rank_file_bytes("o200k_base"))
        os.environ["TIKTOKEN_ENCODINGS_BASE"] = d
        try:
            enc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
        finally:
            del os.environ["TIKTOKEN_ENCODINGS_BASE"]

    def render(dev):
        msg = oh.Message.from_role_and_content(oh.Role.DEVELOPER, dev)
        return enc.render_conversation(oh.Conversation.from_messages([msg]))

    tools = [oh.ToolDescription.new(f["name"], f.get("description", ""),
                                    parameters=f.get("parameters")) for f in functions]
    full = render(oh.DeveloperContent.new().with_function_tools(tools))
    text = enc.decode(full)
    assert "namespace functions {" in text and all(f"type {f['name']} =" in text
                                                   for f in functions)
    return len(full) - len(render(oh.DeveloperContent.new()))


def test_as_harmony_counts_the_rendering_gpt_oss_reads(tmp_path):
    import pytest

    pytest.importorskip("openai_harmony")
    path = corpus("mcp-context-cost", CAPTURE)
    got = _measure(path, "--as", "harmony")
    assert got["tokenizer"] == "o200k_harmony"
    assert got["as"] == {"provider": "harmony", "tokens": "exact"}
    fig = got["catalogs"][0]
    # bytes: the function tools the request carries (what --as openai counts)
    same = _measure(path, "--as", "openai")["catalogs"][0]
    assert (fig["bytes_before"], fig["bytes_after"]) == (same["bytes_before"],
                                                         same["bytes_after"])
    # tokens: the harmony rendering of exactly what `project --to openai` writes
    for view, key in (("compact", "tokens_after"), ("standard", "tokens_before")):
        out = tmp_path / f"{view}.json"
        r = run_toolcat("project", path, "--to", "openai", "--view", view, "-o", out, "-q")
        assert r.returncode == 0, r.stderr
        fns = [t["function"] for t in json.loads(out.read_bytes())]
        assert fig[key] == _harmony_tokens(fns) > 0
    # the rendering is not the JSON: the counts differ from --as openai's
    assert fig["tokens_before"] != same["tokens_before"]
    r = run_toolcat("measure", path, "--as", "harmony", "-t", "cl100k_base")
    assert r.returncode == 2 and b"leave out --tokenizer" in r.stderr
    r = run_toolcat("measure", path, "--as", "harmony", "--to", "mcp")
    assert r.returncode == 2 and b"counts the openai target" in r.stderr


def test_as_bedrock_counts_the_converse_tools(tmp_path):
    """``--as bedrock`` (listed because the bedrock target says ``counted_as``) counts the
    ``toolSpec`` entries ``project --to bedrock`` writes; the schema bytes are those of the
    schema under ``inputSchema.json`` (Target.get_schema), not of its wrapper."""
    p = tmp_path / "t.json"
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    p.write_text(json.dumps({"tools": [{"name": "a", "description": "Search things.",
                                        "inputSchema": schema}]}))
    r = run_toolcat("measure", str(p), "--as", "bedrock", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["as"]["provider"] == "bedrock"
    cat = doc["catalogs"][0]
    assert cat["schemas"]["after"]["input"] == len(json.dumps(schema, separators=(",", ":")))
