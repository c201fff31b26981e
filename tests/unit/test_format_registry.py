"""The format records (toolcat.formats.registry): every format is detected from a document of
its own, read under ``--from`` its own name, and refused under every other name that its
content does not fit; the listings (--from, "tried: ...") are the registry's."""

from __future__ import annotations

import pytest

from toolcat.errors import InputError
from toolcat.formats import LoadOptions, registry
from toolcat.formats.detect import detect, item_format, misfit
from toolcat.formats.load import load_data

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}

#: one small document of each format
DOCS = {
    "openapi": {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {"/a": {"get": {"operationId": "getA",
                                         "responses": {"200": {"description": "ok"}}}}}},
    "swagger": {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                "paths": {"/a": {"get": {"operationId": "getA",
                                         "responses": {"200": {"description": "ok"}}}}}},
    "mcp": {"tools": [{"name": "a", "description": "d", "inputSchema": SCHEMA}]},
    "mcp-capture": {"rawToolsCapture": [{"name": "a", "inputSchema": SCHEMA}],
                    "methodologyVersion": "1", "canonicalSha256": "0" * 64},
    "openwop": {"tools": [{"toolId": "mcp:a", "source": "mcp", "safetyTier": "read",
                           "inputSchema": SCHEMA}]},
    "openai": [{"type": "function", "function": {"name": "a", "parameters": SCHEMA}}],
    "anthropic": [{"name": "a", "description": "d", "input_schema": SCHEMA}],
    "docker": [{"name": "a", "description": "d",
                "arguments": [{"name": "q", "type": "string", "desc": "q"}]}],
    "gemini": {"functionDeclarations": [{"name": "a", "description": "d",
                                         "parameters": {"type": "OBJECT"}}]},
    "bedrock": {"modelId": "m", "toolConfig": {"tools": [
        {"toolSpec": {"name": "a", "description": "d", "inputSchema": {"json": SCHEMA}}},
        {"cachePoint": {"type": "default"}}]}},
}


def test_every_format_has_a_sample_here():
    assert set(DOCS) == set(registry.keys())
    assert len(set(registry.keys())) == len(registry.keys())


@pytest.mark.parametrize("key", sorted(DOCS))
def test_detected_and_read_as_itself(key):
    doc = DOCS[key]
    assert detect(doc) == key
    assert misfit(doc, key) is None
    for from_format in (None, key):
        cat = load_data(doc, "doc.json", LoadOptions(from_format=from_format))
        assert cat.format == key
        assert [t.id for t in cat.tools] in (["a"], ["getA"], ["mcp:a"])


#: (document's format, --from) pairs that read: a docker tools.json's entries are MCP tools
#: without an inputSchema (lint TC111 says so)
SAME_SHAPE = {("docker", "mcp")}


@pytest.mark.parametrize("key", sorted(DOCS))
def test_refused_under_another_name(key):
    """--from OTHER on a document of KEY is an input error saying why, except where the
    other format reads the same shape."""
    doc = DOCS[key]
    for other in registry.keys():
        if other == key or (key, other) in SAME_SHAPE:
            continue
        why = misfit(doc, other)
        assert why, (key, other)
        with pytest.raises(InputError, match=f"--from {other}: "):
            load_data(doc, "doc.json", LoadOptions(from_format=other))


def test_items_take_the_first_format_that_claims_them():
    # an OpenWOP descriptor with MCP's fields is OpenWOP (toolId); a Responses function
    # with a description is OpenAI, not MCP; a flat {name, parameters} is OpenAI, and MCP
    # when it also has a description (as before the registry)
    assert item_format({"toolId": "a", "name": "a", "description": "d"}) == "openwop"
    assert item_format({"type": "function", "name": "a", "description": "d"}) == "openai"
    assert item_format({"name": "a", "parameters": {}}) == "openai"
    assert item_format({"name": "a", "parameters": {}, "description": "d"}) == "mcp"
    assert item_format({"name": "a", "input_schema": {}, "description": "d"}) == "anthropic"
    assert item_format({"name": "a"}) is None


def test_messages_list_the_registry():
    with pytest.raises(InputError) as e:
        load_data({"x": 1}, "doc.json", LoadOptions())
    for f in registry.formats():
        assert f.described in str(e.value)


def test_facts_features_read():
    assert registry.get("anthropic").schema_key == "input_schema"
    assert registry.get("mcp").schema_key == "inputSchema"
    assert {f.key for f in registry.formats() if f.spec} == {"openapi", "swagger"}
    assert {f.key for f in registry.formats() if f.mcp_server} == {"mcp", "mcp-capture",
                                                                    "docker"}
    assert registry.get("gemini").openapi_schemas


@pytest.mark.parametrize("doc", [
    # Claude Desktop / Claude Code / Cursor
    {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
                    "web": {"type": "http", "url": "https://example.com/mcp"}}},
    # VS Code (.vscode/mcp.json, as in 0GiS0/youtube-mcp-server without its comments)
    {"servers": {"remote-mcp": {"type": "sse", "url": "http://localhost:3001/sse"},
                 "stdio-mcp": {"type": "stdio", "command": "node", "args": ["build/index.js"]}},
     "inputs": [{"type": "promptString", "id": "key", "password": True}]},
])
def test_a_client_configuration_names_the_option_that_reads_it(doc):
    """An MCP client configuration given as a catalog (a .mcp.json, a .vscode/mcp.json) is
    refused in one line that says what it is and that --client-config reads its servers'
    tools. Before: "not a tool catalog" alone."""
    with pytest.raises(InputError) as e:
        load_data(doc, "mcp.json", LoadOptions())
    msg = str(e.value)
    assert "MCP client configuration" in msg and "--client-config" in msg


def test_a_client_configuration_with_comments_names_the_option_too(tmp_path):
    """VS Code writes ``.vscode/mcp.json`` as JSON with comments (and trailing commas), which
    ``--client-config`` reads: given as a catalog it gets the same one line. A catalog that
    is no JSON otherwise keeps its syntax error with the place. Before: "invalid JSON:
    Expecting property name" at the comment."""
    from toolcat.formats import load_file_catalog

    d = tmp_path / ".vscode"
    d.mkdir()
    f = d / "mcp.json"
    f.write_text('{\n  // the servers\n  "servers": {\n    "fs": {"command": "npx",\n'
                 '      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],},\n'
                 '  },\n}\n')
    with pytest.raises(InputError) as e:
        load_file_catalog(str(f), LoadOptions())
    assert "MCP client configuration" in e.value.message and "--client-config" in \
        e.value.message and e.value.line is None
    bad = tmp_path / "tools.json"
    bad.write_text('{"tools": [ // none\n]}')
    with pytest.raises(InputError) as e:
        load_file_catalog(str(bad), LoadOptions())
    assert e.value.message.startswith("invalid JSON") and (e.value.line, e.value.column) == (1, 13)


def test_a_gemini_tool_with_mcp_servers_is_no_client_configuration():
    """Gemini's Tool has a field ``mcpServers`` too (a list): it stays a Gemini tool."""
    doc = {"functionDeclarations": [{"name": "f", "parameters": {"type": "object"}}],
           "mcpServers": [{"name": "x"}]}
    assert detect(doc) == "gemini"
