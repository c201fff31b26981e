"""`toolcat rule CODE` renders a rule's doc sections (text, markdown, json), and the
redirect table for renamed codes (`registry.REDIRECTS`) is honoured by `toolcat rule OLD`,
--select/--ignore, the configuration and `# toolcat: ignore[OLD]` comments, each with a
warning naming the new code. No rule was ever renamed (git log -S on the codes finds none),
so the redirects here are fixture entries onto real rules, linted on corpus files."""

from __future__ import annotations

import json

import pytest

from support.common import corpus, run_toolcat
from toolcat.features.lint import registry


def github():
    return corpus("mcp-context-cost", "github.json")       # TC106 x1, SC304 x6 by default


def fs_yaml():
    return corpus("neo", "file-system.openapi.yaml")       # MC103 x1 at line 32


def codes(r) -> list[str]:
    return [f["code"] for f in json.loads(r.stdout)["findings"]]


def test_rule_text_has_the_sections_and_the_example():
    r = run_toolcat("rule", "PV514")
    assert r.returncode == 0
    out = r.stdout.decode()
    for title in ("What it does", "Why", "Example", "Fix"):
        assert f"\n\n{title}\n" in out
    assert "(--profile copilot-cli)\n" in out
    assert '\n    {"tools": [{"name": "ping", "description": "Check that the server answers.",'\
        in out


def test_rule_markdown_and_json_carry_the_sections():
    md = run_toolcat("rule", "MC103", "--format", "markdown").stdout.decode()
    assert md.startswith("# MC103 no-parameters-open\n\n## What it does\n")
    assert "## Fix\n```json\n" in md
    (data,) = json.loads(run_toolcat("rule", "PV506", "-f", "json").stdout)
    assert list(data["sections"]) == ["What it does", "Why", "Example", "Fix"]
    assert data["example"]["options"] == {"profile": "openai", "repeat": "129"}
    assert data["formerly"] == [] and "```" not in data["doc"]


def test_client_profile_selects_its_client_rules():
    # found by PV514's Example: a client profile without a provider of its own was refused
    # ("selects provider rules, which need a provider profile") though it runs PV512-PV514
    r = run_toolcat("lint", str(corpus("mcp-context-cost", "airbnb.json")), "--profile",
                    "copilot-cli", "--select", "PV512,PV513,PV514", "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    assert set(codes(r)) <= {"PV512", "PV513", "PV514"}


@pytest.fixture
def renamed(monkeypatch):
    """Two fixture renames onto real rules: TC198 -> TC106, MC198 -> MC103."""
    monkeypatch.setattr(registry, "REDIRECTS", {"TC198": "TC106", "MC198": "MC103"})
    monkeypatch.setattr(registry, "_WARNED", set())


def test_rule_old_code_explains_the_new_rule(renamed):
    r = run_toolcat("rule", "tc198")
    assert r.returncode == 0
    out = r.stdout.decode()
    assert out.startswith("TC106 description-too-long\n") and "\nFormerly: TC198\n" in out
    (data,) = json.loads(run_toolcat("rule", "TC198", "-f", "json").stdout)
    assert data["code"] == "TC106" and data["formerly"] == ["TC198"]


def test_select_and_ignore_take_the_old_code(renamed):
    r = run_toolcat("lint", str(github()), "--select", "TC198", "--format", "json")
    assert r.returncode == 0 and codes(r) == ["TC106"]      # a warning: exit 0
    assert "toolcat: warning: TC198 is now TC106 (renamed rule); write TC106" in \
        r.stderr.decode()
    r = run_toolcat("lint", str(github()), "--ignore", "TC198", "--format", "json")
    assert r.returncode == 0 and "TC106" not in codes(r) and "SC304" in codes(r)


def test_config_takes_the_old_code(renamed, tmp_path):
    cfg = tmp_path / "toolcat.toml"
    cfg.write_text('select = ["TC198", "SC3"]\n[severity]\nTC198 = "info"\n')
    r = run_toolcat("lint", str(github()), "--config", str(cfg), "--format", "json")
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout)["findings"]
    assert [(f["code"], f["severity"]) for f in found if f["code"] == "TC106"] == \
        [("TC106", "info")]
    assert "TC198 is now TC106" in r.stderr.decode()
    cfg.write_text('[per-file-ignores]\n"github.json" = ["TC198"]\n')
    r = run_toolcat("lint", str(github()), "--config", str(cfg), "--format", "json")
    assert "TC106" not in codes(r) and "SC304" in codes(r)


def test_ignore_comment_takes_the_old_code(renamed, tmp_path):
    lines = fs_yaml().read_text(encoding="utf-8").split("\n")
    assert codes(run_toolcat("lint", str(fs_yaml()), "--format", "json")) == ["MC103"]
    lines[31] += "  # toolcat: ignore[MC198]"
    p = tmp_path / "file-system.openapi.yaml"
    p.write_text("\n".join(lines), encoding="utf-8")
    r = run_toolcat("lint", str(p), "--format", "json")
    assert r.returncode == 0 and codes(r) == []
    assert "MC198 is now MC103" in r.stderr.decode()


def test_baseline_takes_the_old_code(renamed, tmp_path):
    base = tmp_path / "baseline.json"
    r = run_toolcat("lint", str(github()), "--write-baseline", str(base))
    assert r.returncode == 0, r.stderr
    data = json.loads(base.read_text())
    assert [e["code"] for e in data["findings"] if e["code"].startswith("TC1")] == ["TC106"]
    for e in data["findings"]:
        e["code"] = e["code"].replace("TC106", "TC198")      # written before a rename
    base.write_text(json.dumps(data))
    r = run_toolcat("lint", str(github()), "--baseline", str(base), "--format", "json")
    assert r.returncode == 0 and codes(r) == []
    assert "TC198 is now TC106" in r.stderr.decode()


def test_without_a_redirect_an_unknown_code_is_still_refused():
    r = run_toolcat("lint", str(github()), "--select", "TC198")
    assert r.returncode == 2 and b"matches no rule" in r.stderr
    assert run_toolcat("rule", "TC198").returncode == 2
