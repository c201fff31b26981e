"""What a live MCP server is: how to start or reach it, and how to name it without secrets.

A :class:`ServerSpec` is either a command to run (stdio: ``argv``, extra ``env``, ``cwd``)
or a Streamable HTTP endpoint (``url`` and ``headers``). Specs come from the command line
(:func:`from_command`, :func:`from_url`) or from a client's configuration
(:mod:`toolcat.formats.live.clients`). Nothing here imports the MCP SDK.

Secrets: header values, ``env`` values, userinfo and query values of a URL are never part of
:attr:`ServerSpec.label` or of any message built from a spec (:meth:`ServerSpec.describe`).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from toolcat.errors import UsageError

STDIO = "stdio"
HTTP = "streamable-http"

#: Default of ``--timeout``: seconds from start-up to the last ``tools/list`` page. Chosen
#: from cold starts: a first ``uvx mcp-server-time`` (download and install) took 12.4 s on a
#: busy machine, and on a 2-core machine at load 12-16 a warm ``mcp-server-time`` took 10.1 s
#: to its tools (toolcat's own SDK import 5.3 s of it), ``node`` server-everything 9.6 s and
#: ``npx`` of it 7.8 s: 10 s failed 4 of 7 servers of a real Claude Desktop setup. 30 s is
#: about twice the slowest cold start measured.
DEFAULT_TIMEOUT = 30.0

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str, limit: int = 200) -> str:
    """``text`` made safe for a terminal line: control characters escaped, cut at ``limit``."""
    out = _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100
                       else "\\u%04x" % ord(m.group()), text)
    return out if len(out) <= limit else out[: limit - 1] + "…"


@dataclass
class ServerSpec:
    """One MCP server to capture."""

    name: str                                   # what reports call it (config key or derived)
    transport: str                              # STDIO or HTTP
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)   # added to the inherited environment
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    origin: str = ""                            # where it came from: "--server", a config file
    inherit_env: bool = True                    # pass toolcat's whole environment on
    problem: str | None = None                  # a config entry that cannot be started, and why
    key: str | None = None                      # its name in a client configuration, as written

    @property
    def label(self) -> str:
        """The server's name in reports and file names (never a secret)."""
        return self.name

    def describe(self) -> str:
        """How it is reached, for messages: the command line or the URL, secrets left out."""
        if self.transport == HTTP:
            return redact_url(self.url or "")
        return printable(shlex.join(self.argv), 300)


def from_command(command: str, env: dict[str, str] | None = None,
                 name: str | None = None) -> ServerSpec:
    """``--server 'CMD ARGS...'``: the command line is split as a POSIX shell splits words
    (quotes and backslashes; no expansion, no pipes). ``NAME=value`` words before the
    command are environment settings, as in a shell."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError as e:
        raise UsageError(f"--server {printable(command, 120)!r}: {e}") from None
    extra = dict(env or {})
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0], re.S):
        k, _, v = words.pop(0).partition("=")
        extra[k] = v
    if not words:
        raise UsageError("--server needs a command to run (got an empty command line)")
    return ServerSpec(name=name or derive_name(words), transport=STDIO, argv=words, env=extra,
                      origin="--server")


def from_url(url: str, headers: list[str] | dict[str, str] | None = None,
             name: str | None = None) -> ServerSpec:
    """``--url URL`` with ``--header 'Name: value'`` (repeatable)."""
    why = url_problem(url)
    if why is not None:
        raise UsageError(f"--url must be an http:// or https:// URL (got {redact_url(url)!r}: "
                         f"{why})")
    hdrs = parse_headers(headers) if isinstance(headers, list) else dict(headers or {})
    return ServerSpec(name=name or derive_url_name(url), transport=HTTP, url=url, headers=hdrs,
                      origin="--url")


def url_problem(url: str) -> str | None:
    """Why ``url`` is no server URL toolcat connects to (None: it is one). The one check of
    ``--url`` and of a client configuration's ``url``: a port out of range or not a number,
    an unclosed IPv6 bracket, a space or control character are said here, before any
    connection, not met as an exception of the HTTP client."""
    if re.search(r"[\x00-\x20\x7f]", url):
        return "it holds a space or control character"
    try:
        parts = urlsplit(url)
        parts.port                                   # noqa: B018 - raises when malformed
    except ValueError as e:
        return str(e)[:80].lower()
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "no http:// or https:// scheme and host"
    return None


def header_problem(name: str, value: str) -> str | None:
    """Why ``name: value`` is no HTTP header toolcat sends (None: it is one). The one check
    of ``--header`` and of a client configuration's ``headers``; the value may be a secret,
    so what is wrong is said without it."""
    if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
        return f"{printable(name, 40)!r} is no header name (letters, digits, !#$%&'*+.^_`|~-)"
    if any(c in value for c in "\r\n\0"):
        return f"{name!r}: the value has a line break or NUL"
    if not value.isascii():
        return f"{name!r}: the value is not ASCII (HTTP sends header values as bytes)"
    return None


def parse_headers(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        k, sep, val = v.partition(":")
        k = k.strip()
        if not sep or not k:
            # the value may be a secret: name only what the option looked like
            shown = printable(k, 40) if sep else "(no ':')"
            raise UsageError(f"--header must be 'Name: value' (got a header named {shown!r})")
        why = header_problem(k, val)
        if why is not None:
            raise UsageError(f"--header {why}")
        out[k] = val.strip()
    return out


_RUNNERS = {"npx", "bunx", "pnpx", "uvx", "pipx", "deno", "bun", "node", "python", "python3",
            "py", "uv", "pnpm", "yarn", "npm", "docker", "podman", "env", "exec", "run", "dlx",
            "tool", "-m", "-y", "--yes", "-i", "--rm", "-q", "--from", "start", "x"}
_GENERIC = {"index", "main", "server", "__main__", "cli", "app", "run", "start", "mcp"}
_BUILD_DIRS = {"dist", "build", "lib", "src", "bin", "out", "cmd"}


def derive_name(argv: list[str]) -> str:
    """A short name for a command: the package or script it runs.

    ``npx -y @scope/server-x@1.2`` -> ``server-x``; ``uvx mcp-server-time`` ->
    ``mcp-server-time``; ``mcp-server-git --repository .`` -> ``mcp-server-git``;
    ``python my_server.py`` -> ``my_server``; ``node pkg/dist/index.js`` -> ``pkg``;
    ``docker run -i --rm ghcr.io/org/img:tag`` -> ``img``."""
    def is_runner(w: str) -> bool:
        base = os.path.basename(w)
        return base in _RUNNERS or bool(re.fullmatch(r"(python|node|pip)[0-9.]*(\.exe)?", base))

    pick = argv[0]
    if is_runner(argv[0]):
        for w in argv[1:]:
            if w.startswith("-") or is_runner(w) or "=" in w:
                continue
            pick = w
            break
    path = pick.rstrip("/").replace("\\", "/")
    parts = [p for p in path.split("/") if p]
    base = parts[-1] if parts else pick
    stem = re.sub(r"\.(py|js|mjs|cjs|ts|exe|sh|jar)$", "", base)
    if stem in _GENERIC and len(parts) > 1:
        for parent in reversed(parts[:-1]):
            if parent not in _BUILD_DIRS:
                stem = parent
                break
    if not stem.startswith("@"):
        stem = re.sub(r"@[^@/]*$", "", stem) or stem      # npm version suffix
    stem = re.sub(r":[^:/]*$", "", stem) or stem           # docker tag
    return safe_name(stem)


def derive_url_name(url: str) -> str:
    try:
        p = urlsplit(url)
        host = p.hostname or "server"
        port = f"-{p.port}" if p.port else ""
    except ValueError:                               # malformed: url_problem says so
        return "server"
    return safe_name(f"{host}{port}")


def safe_name(name: str) -> str:
    """A name usable in a file name and a report: letters, digits, ``._-`` only."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "server"
    return s[:64]


def redact_url(url: str) -> str:
    """``url`` without userinfo, with query values replaced by ``***``, no fragment."""
    try:
        p = urlsplit(url)
    except ValueError:
        return "(an unparsable URL)"
    netloc = p.netloc.rpartition("@")[2]
    query = "&".join(q.partition("=")[0] + ("=***" if "=" in q else "")
                     for q in p.query.split("&")) if p.query else ""
    return printable(urlunsplit((p.scheme, netloc, p.path, query, "")), 300)


def unique_names(specs: list[ServerSpec]) -> None:
    """Give specs that share a name a ``-2``, ``-3``... suffix (reports name each apart)."""
    seen: dict[str, int] = {}
    for s in specs:
        n = seen.get(s.name, 0) + 1
        seen[s.name] = n
        if n > 1:
            s.name = f"{s.name}-{n}"
