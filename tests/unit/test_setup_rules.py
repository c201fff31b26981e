"""The setup rules (SU601-SU605) on setup catalogs built from files (no server, no SDK): what
each counts, which providers and clients a run checks, and where a finding points."""

from __future__ import annotations

import json

import pytest

from toolcat.config import Config
from toolcat.features.lint.engine import lint
from toolcat.features.lint.profiles import CLIENTS, PROVIDERS
from toolcat.features.lint.rules.provider import strict_budget
from toolcat.formats import LoadOptions, load_catalogs
from toolcat.formats.live.capture import setup_catalog


def servers(tmp_path, **named: list) -> list:
    """One catalog per keyword (its name: the server's), tools as given."""
    cats = []
    for name, tools in named.items():
        f = tmp_path / name
        f.write_text(json.dumps({"tools": tools}))
        (cat,) = load_catalogs([str(f)], LoadOptions())
        cat.file = name                               # as a live server's catalog is named
        for t in cat.tools:
            t.file = name
        cat.meta["live"] = {"transport": "stdio", "key": name}
        cats.append(cat)
    return cats


def run(cats, client=None, profile="mcp", select=("SU",)):
    cfg = Config(select=list(select))
    setup = setup_catalog(cats, client)
    return lint(cats, cfg, profile, setup=setup).findings


def tool(name: str, description: str = "d", schema: dict | None = None) -> dict:
    return {"name": name, "description": description,
            "inputSchema": schema or {"type": "object"}}


def test_tool_count_is_per_request_over_every_server(tmp_path):
    a = [tool(f"a{i}") for i in range(100)]
    b = [tool(f"b{i}") for i in range(29)]
    found = run(servers(tmp_path, a=a, b=b))
    (f,) = [f for f in found if f.code == "SU601"]
    assert f.file == "setup" and f.tool is None and f.severity == "error"
    assert f.message == ("the setup sends 129 tools from 2 servers: more than OpenAI accepts "
                         "in one request (128)")
    assert not [f for f in run(servers(tmp_path, a=a, b=b[:28])) if f.code == "SU601"]


def test_gemini_declarations_and_the_profile_narrows_providers(tmp_path):
    cats = servers(tmp_path, a=[tool(f"t{i}") for i in range(513)])
    msgs = sorted(f.message for f in run(cats) if f.code == "SU601")
    assert msgs == ["the setup sends 513 tools from 1 server: more than Gemini accepts in one "
                    "request (512)",
                    "the setup sends 513 tools from 1 server: more than OpenAI accepts in one "
                    "request (128)"]
    only = [f.message for f in run(cats, profile="gemini") if f.code == "SU601"]
    assert only == [msgs[0]]
    # one server under its provider's profile: PV506 says it, once
    strict = run(cats, profile="openai-strict", select=("SU", "PV506"))
    assert [f.code for f in strict if f.message.endswith("(128)") or "128" in f.message] == \
        ["PV506"]


def test_a_client_names_its_providers(tmp_path):
    cats = servers(tmp_path, a=[tool(f"t{i}") for i in range(200)])
    assert {f.code for f in run(cats, client="cursor")} >= {"SU601"}
    # Claude Desktop and Claude Code talk to Anthropic, which has no tool-count limit
    assert not [f for f in run(cats, client="claude-desktop") if f.code == "SU601"]
    assert CLIENTS["claude-code"].providers == ("anthropic",)


def test_prefixed_name_length(tmp_path):
    cats = servers(tmp_path, **{"my.server": [tool("y" * 48), tool("y" * 49), tool("short")]})
    cats[0].meta["live"]["key"] = "my.server"
    found = [f for f in run(cats) if f.code == "SU602"]
    (f,) = found                                           # 16 + 48 = 64 is fine, 65 is not
    assert f.tool == "y" * 49 and f.pointer == "/name" and f.file == "my.server"
    assert f.source_pointer == "/tools/1/name"
    assert f.message == (f"Claude Code sends this tool as 'mcp__my_server__{'y' * 49}': 65 "
                         "characters, more than 64")
    assert CLIENTS["claude-code"].sent_name("my.server", "t") == "mcp__my_server__t"
    # a client that sends the tool's own name: nothing to say
    assert not [f for f in run(cats, client="windsurf") if f.code == "SU602"]


def test_description_cut(tmp_path):
    cats = servers(tmp_path, s=[tool("a", "x" * 2048), tool("b", "x" * 2049)])
    (f,) = [f for f in run(cats) if f.code == "SU603"]
    assert (f.tool, f.severity, f.pointer) == ("b", "warning", "/description")
    assert not [f for f in run(cats, client="vscode") if f.code == "SU603"]
    assert not [f for f in run(cats, profile="openai-strict") if f.code == "SU603"]


def test_strict_counts_every_level():
    schema = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": ["string", "null"]},                    # required, union
        "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]},   # optional, union
        "c": {"type": "object", "properties": {                # optional
            "d": {"type": "string"}, "e": {"type": ["integer", "null"]}}, "required": ["d"]},
    }}
    assert strict_budget(schema, "2020-12") == (3, 3)       # b, c, e optional; a, b, e unions
    assert strict_budget(True, "2020-12") == (0, 0)


def test_strict_limits(tmp_path):
    p = PROVIDERS["anthropic-strict"]
    assert (p.max_strict_tools, p.max_optional, p.max_unions) == (20, 24, 16)
    opt = {"type": "object", "properties": {f"p{i}": {"type": ["string", "null"]}
                                            for i in range(5)}}
    cats = servers(tmp_path, s=[tool(f"t{i}", schema=opt) for i in range(5)])
    msgs = sorted(f.message for f in run(cats) if f.code == "SU604")
    assert msgs == ["sent with strict: true, the setup's 25 optional parameters exceed "
                    "Anthropic's 24 per request",
                    "sent with strict: true, the setup's 25 union-typed parameters exceed "
                    "Anthropic's 16 per request"]
    assert all(f.severity == "info" for f in run(cats) if f.code == "SU604")


def test_duplicate_names_across_servers(tmp_path):
    cats = servers(tmp_path, a=[tool("search"), tool("fetch")], b=[tool("other"), tool("search")],
                   c=[tool("fetch"), tool("fetch")])
    found = [f for f in run(cats) if f.code == "SU605"]
    assert [(f.file, f.tool, f.source_pointer) for f in found] == [
        ("b", "search", "/tools/1/name"), ("c", "fetch", "/tools/0/name"),
        ("c", "fetch", "/tools/1/name")]
    assert found[0].severity == "error"
    assert found[0].message == (
        "Claude Desktop, Cursor, VS Code Copilot, Windsurf, GitHub Copilot CLI, Kiro, opencode "
        "and Amazon Bedrock AgentCore send this tool as 'search', the name of a's tool #0 too: "
        "Anthropic rejects a request with two tools of one name")
    # every tool whose name an earlier server's tool already has; c's own two: TC101 too
    assert [f.tool for f in run(cats, select=("TC101",)) if f.code == "TC101"] == ["fetch"]
    one = [f.message for f in run(cats, client="cursor") if f.code == "SU605"]
    assert len(one) == 3 and one[0].startswith("Cursor sends this tool as 'search'")
    # Claude Code prefixes the server: no collision ...
    assert not [f for f in run(cats, client="claude-code") if f.code == "SU605"]
    # ... unless two server names are one once made [A-Za-z0-9_-]
    cats = servers(tmp_path, **{"my.srv": [tool("t")], "my_srv": [tool("t")]})
    cats[0].meta["live"]["key"] = "my.srv"
    (f,) = [f for f in run(cats, client="claude-code") if f.code == "SU605"]
    assert f.message.startswith("Claude Code sends this tool as 'mcp__my_srv__t', the name of "
                                "my.srv's tool #0 too")
    # a provider that takes duplicates: nothing (OpenAI's profile checks OpenAI only)
    assert not [f for f in run(servers(tmp_path, a=[tool("s")], b=[tool("s")]),
                               profile="openai-strict") if f.code == "SU605"]
    assert PROVIDERS["anthropic"].unique_names and not PROVIDERS["openai"].unique_names


def test_setup_rules_need_a_setup(tmp_path):
    cats = servers(tmp_path, s=[tool(f"t{i}", "x" * 3000) for i in range(200)])
    cfg = Config(select=["SU"])
    assert lint(cats, cfg, "mcp").findings == []          # files: no setup, no SU finding
    # and a setup gets only the setup rules (its tools were linted one server at a time)
    assert {f.code[:2] for f in lint(cats, Config(select=["ALL"]), "mcp",
                                     setup=setup_catalog(cats)).findings
            if f.file == "setup"} == {"SU"}


@pytest.mark.parametrize("code", ["SU601", "SU602", "SU603", "SU604", "SU605"])
def test_ignore_and_severity_apply(tmp_path, code):
    many = [tool("z" * 70, "x" * 3000, {"type": "object",
                                        "properties": {f"p{i}": {"type": ["string", "null"]}
                                                       for i in range(30)}})
            for _ in range(130)]
    cats = servers(tmp_path, s=many, t=many[:1])
    assert code in {f.code for f in run(cats)}
    cfg = Config(select=["SU"], ignore=[code])
    assert code not in {f.code for f in lint(cats, cfg, "mcp", setup=setup_catalog(cats))
                        .findings}
    cfg = Config(select=["SU"], severity={code: "warning"})
    assert {f.severity for f in lint(cats, cfg, "mcp", setup=setup_catalog(cats)).findings
            if f.code == code} == {"warning"}


def test_a_named_client_is_held_to_its_own_tool_count(tmp_path):
    """Issue 33 (a client profile's "tool count"): Windsurf's Cascade takes 100 tools in all,
    Cursor 40, VS Code Copilot 128 per request (each cited in the client table). A setup of a
    named client over its limit is an SU601; the same setup without --client is not held to
    every client's limit (only the providers': none here)."""
    cats = servers(tmp_path, a=[tool(f"a{i}") for i in range(30)],
                   b=[tool(f"b{i}") for i in range(11)])
    assert [f.message for f in run(cats, "cursor") if f.code == "SU601"] == [
        "the setup sends 41 tools from 2 servers: more than Cursor sends in one request (40; "
        + " ".join(CLIENTS["cursor"].cites["max_tools"]) + ")"]
    assert not [f for f in run(cats) if f.code == "SU601"]
    assert not [f for f in run(cats, "windsurf") if f.code == "SU601"]
    assert not [f for f in run(servers(tmp_path, a=[tool(f"a{i}") for i in range(40)]),
                               "cursor") if f.code == "SU601"]
