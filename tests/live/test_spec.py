"""Server specs from the command line: shell-like splitting, headers, names, redaction."""

from __future__ import annotations

import pytest

from toolcat.errors import UsageError
from toolcat.formats.live import spec


def test_command_is_split_like_a_shell():
    s = spec.from_command("python 'my server.py' --name \"a b\" x\\ y")
    assert s.argv == ["python", "my server.py", "--name", "a b", "x y"]
    assert s.transport == spec.STDIO and s.name == "my-server"


def test_env_assignments_before_the_command():
    s = spec.from_command("API_KEY=abc DEBUG=1 npx -y @scope/server-x@1.2.3")
    assert s.env == {"API_KEY": "abc", "DEBUG": "1"}
    assert s.argv == ["npx", "-y", "@scope/server-x@1.2.3"]
    assert s.name == "server-x"
    assert "abc" not in s.describe()


@pytest.mark.parametrize("bad", ["", "   ", "A=1", "python 'unclosed"])
def test_bad_command_lines(bad):
    with pytest.raises(UsageError):
        spec.from_command(bad)


@pytest.mark.parametrize("cmd,name", [
    ("uvx mcp-server-time", "mcp-server-time"),
    ("mcp-server-git --repository /r", "mcp-server-git"),
    ("node /x/server-everything/dist/index.js stdio", "server-everything"),
    ("docker run -i --rm ghcr.io/org/img:tag", "img"),
    ("python -m mcp_server_time", "mcp_server_time"),
    ("/usr/bin/python3.11 srv.py", "srv"),
])
def test_names(cmd, name):
    assert spec.from_command(cmd).name == name


def test_headers():
    assert spec.parse_headers(["Authorization: Bearer x:y", "X-A:b "]) == {
        "Authorization": "Bearer x:y", "X-A": "b"}
    for bad in ["no colon here", ": v", "bad name: v", "K: a\nb"]:
        with pytest.raises(UsageError, match="--header"):
            spec.parse_headers([bad])


def test_header_value_is_never_in_the_message():
    with pytest.raises(UsageError) as e:
        spec.parse_headers(["Bearer s3cr3t-token-value"])
    assert "s3cr3t" not in e.value.render()


def test_url_redaction_and_names():
    s = spec.from_url("https://user:pw@example.com:8443/mcp?key=abc&x", ["A: b"])
    assert s.describe() == "https://example.com:8443/mcp?key=***&x"
    assert s.name == "example.com-8443"
    with pytest.raises(UsageError):
        spec.from_url("ftp://example.com/")


def test_printable_escapes_control_characters():
    assert spec.printable("a\x1b[31mb\nc") == "a\\x1b[31mb\\x0ac"
    assert spec.printable("x" * 300, 10) == "x" * 9 + "…"


def test_unique_names():
    specs = [spec.from_command("uvx a"), spec.from_command("uvx a"), spec.from_command("uvx b")]
    spec.unique_names(specs)
    assert [s.name for s in specs] == ["a", "a-2", "b"]
