"""Client MCP configurations read into :class:`ServerSpec` lists.

``--client NAME`` reads that client's documented configuration files (every scope it reads,
merged the way it merges them); ``--client-config FILE`` reads one file of any of these
formats. Each configured server becomes a spec named by its key in the file; an entry that
cannot be started (a missing variable, an input toolcat cannot prompt for, the SSE transport)
becomes a spec with a ``problem``, reported as that server's error while the others run;
``"disabled": true`` entries are left out. Values from the file (env values, header values)
are never part of a message.

=================  ===========================================================================
client             files (later ones win on a server name) and format
=================  ===========================================================================
claude-desktop     macOS ``~/Library/Application Support/Claude/claude_desktop_config.json``,
                   Windows ``%APPDATA%\\Claude\\claude_desktop_config.json``, Linux
                   ``$XDG_CONFIG_HOME/Claude/claude_desktop_config.json``; ``mcpServers``
                   with ``command``/``args``/``env`` (no variables).
                   https://modelcontextprotocol.io/quickstart/user
claude-code        ``~/.claude.json`` (``mcpServers``: user scope), the nearest ``.mcp.json``
                   from the current folder up (project scope), ``~/.claude.json``
                   ``projects[<folder>].mcpServers`` (local scope); ``type`` stdio/http/sse,
                   ``command``/``args``/``env``, ``url``/``headers``; ``${VAR}`` and
                   ``${VAR:-default}`` expanded. ``CLAUDE_CONFIG_DIR`` moves ``~/.claude.json``.
                   https://code.claude.com/docs/en/mcp
cursor             ``~/.cursor/mcp.json`` (global), ``.cursor/mcp.json`` (project);
                   ``mcpServers`` with ``command``/``args``/``env``/``envFile`` or
                   ``url``/``headers``; ``${env:NAME}``, ``${userHome}``,
                   ``${workspaceFolder}``... expanded. https://cursor.com/docs/mcp
vscode             user profile ``mcp.json`` (``~/.config/Code/User``, macOS
                   ``~/Library/Application Support/Code/User``, Windows
                   ``%APPDATA%\\Code\\User``), ``.vscode/mcp.json`` (workspace); ``servers``
                   with ``type`` stdio/http/sse, ``command``/``args``/``env``/``envFile``/``cwd``
                   or ``url``/``headers``, and ``inputs`` (``${input:id}`` cannot be prompted
                   for: that server is reported); JSON with comments. https://code.visualstudio
                   .com/docs/copilot/reference/mcp-configuration
windsurf           ``~/.codeium/windsurf/mcp_config.json``; ``mcpServers`` with
                   ``command``/``args``/``env`` or ``serverUrl``/``headers``; ``${env:NAME}``
                   expanded. https://docs.windsurf.com/windsurf/cascade/mcp
=================  ===========================================================================
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from toolcat.errors import InputError, UsageError
from toolcat.formats.live.spec import (
    HTTP,
    STDIO,
    ServerSpec,
    derive_url_name,
    header_problem,
    printable,
    url_problem,
)

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "windsurf")


@dataclass
class Location:
    path: str
    scope: str                       # "user", "project", "local", "workspace", "global"
    key: tuple[str, ...] = ()        # where the servers object is: ("mcpServers",) ...


@dataclass
class Context:
    """Where the client would run: home folder, working folder, platform, environment."""

    home: str
    cwd: str
    platform: str
    env: dict[str, str]

    @classmethod
    def current(cls) -> "Context":
        return cls(home=os.path.expanduser("~"), cwd=os.getcwd(), platform=sys.platform,
                   env=dict(os.environ))


def _appdata(ctx: Context) -> str:
    return ctx.env.get("APPDATA") or os.path.join(ctx.home, "AppData", "Roaming")


def _xdg(ctx: Context) -> str:
    return ctx.env.get("XDG_CONFIG_HOME") or os.path.join(ctx.home, ".config")


def _nearest(ctx: Context, *rel: str) -> str | None:
    d = os.path.abspath(ctx.cwd)
    while True:
        p = os.path.join(d, *rel)
        if os.path.isfile(p):
            return p
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def locations(client: str, ctx: Context | None = None) -> list[Location]:
    """The files ``client`` reads, lowest precedence first (existing or not)."""
    ctx = ctx or Context.current()
    mac, win = ctx.platform == "darwin", ctx.platform.startswith("win")
    if client == "claude-desktop":
        if mac:
            base = os.path.join(ctx.home, "Library", "Application Support", "Claude")
        elif win:
            base = os.path.join(_appdata(ctx), "Claude")
        else:
            base = os.path.join(_xdg(ctx), "Claude")
        return [Location(os.path.join(base, "claude_desktop_config.json"), "user",
                         ("mcpServers",))]
    if client == "claude-code":
        cfg_dir = ctx.env.get("CLAUDE_CONFIG_DIR")
        user = os.path.join(cfg_dir, ".claude.json") if cfg_dir else \
            os.path.join(ctx.home, ".claude.json")
        out = [Location(user, "user", ("mcpServers",))]
        proj = _nearest(ctx, ".mcp.json")
        if proj:
            out.append(Location(proj, "project", ("mcpServers",)))
        out.append(Location(user, "local", ("projects", os.path.abspath(ctx.cwd), "mcpServers")))
        return out
    if client == "cursor":
        out = [Location(os.path.join(ctx.home, ".cursor", "mcp.json"), "global",
                        ("mcpServers",))]
        proj = _nearest(ctx, ".cursor", "mcp.json")
        if proj:
            out.append(Location(proj, "project", ("mcpServers",)))
        return out
    if client == "vscode":
        if mac:
            base = os.path.join(ctx.home, "Library", "Application Support", "Code", "User")
        elif win:
            base = os.path.join(_appdata(ctx), "Code", "User")
        else:
            base = os.path.join(_xdg(ctx), "Code", "User")
        out = [Location(os.path.join(base, "mcp.json"), "user", ("servers",))]
        proj = _nearest(ctx, ".vscode", "mcp.json")
        if proj:
            out.append(Location(proj, "workspace", ("servers",)))
        return out
    if client == "windsurf":
        return [Location(os.path.join(ctx.home, ".codeium", "windsurf", "mcp_config.json"),
                         "user", ("mcpServers",))]
    raise UsageError(f"--client must be one of {', '.join(CLIENTS)} (got {client!r})")


# --------------------------------------------------------------------------- reading


def read_client(client: str, ctx: Context | None = None) -> list[ServerSpec]:
    """Every server ``client`` is configured with (no config file at all is an error)."""
    ctx = ctx or Context.current()
    locs = locations(client, ctx)
    found = [loc for loc in locs if os.path.isfile(loc.path)]
    if not found:
        tried = ", ".join(dict.fromkeys(printable(loc.path, 200) for loc in locs))
        raise InputError(f"--client {client}: no configuration file found (looked for {tried})")
    merged: dict[str, ServerSpec] = {}
    docs: dict[str, Any] = {}
    for loc in found:
        if loc.path not in docs:
            docs[loc.path] = load_jsonc(loc.path)
        servers = _dig(docs[loc.path], loc.key)
        if servers is None:
            continue
        if not isinstance(servers, dict):
            raise InputError(f"'{'.'.join(loc.key)}' is not an object", loc.path)
        inputs = docs[loc.path].get("inputs") if client == "vscode" and \
            isinstance(docs[loc.path], dict) else None
        for spec in _specs(servers, loc.path, client, ctx, loc.scope, inputs):
            merged[spec.name] = spec
    return list(merged.values())


def read_config_file(path: str, client: str | None = None,
                     ctx: Context | None = None) -> list[ServerSpec]:
    """``--client-config FILE``: ``servers`` (VS Code) or ``mcpServers`` (the others), or a
    ``~/.claude.json`` (its ``mcpServers`` and this folder's ``projects`` entry)."""
    ctx = ctx or Context.current()
    doc = load_jsonc(path)
    if not isinstance(doc, dict):
        raise InputError("not an MCP client configuration (expected a JSON object)", path)
    out: dict[str, ServerSpec] = {}
    keys: list[tuple[str, ...]] = []
    if "servers" in doc:
        keys.append(("servers",))
        client = client or "vscode"
    if "mcpServers" in doc:
        keys.append(("mcpServers",))
    if "projects" in doc and isinstance(doc["projects"], dict):
        keys.append(("projects", os.path.abspath(ctx.cwd), "mcpServers"))
        client = client or "claude-code"
    if not keys:
        raise InputError("not an MCP client configuration (no 'mcpServers' or 'servers' "
                         "object)", path)
    for key in keys:
        servers = _dig(doc, key)
        if servers is None:
            continue
        if not isinstance(servers, dict):
            raise InputError(f"'{key[0]}' is not an object", path)
        for spec in _specs(servers, path, client, ctx, "file", doc.get("inputs")):
            out[spec.name] = spec
    return list(out.values())


def _dig(doc: Any, key: tuple[str, ...]) -> Any:
    cur = doc
    for k in key:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


def load_jsonc(path: str, limits: Any = None) -> Any:
    """A client configuration file's data: JSON with comments and trailing commas (JSONC,
    as VS Code writes ``mcp.json``), through the one reader (``limits``: the run's)."""
    from toolcat.document.parse import decode_text, read_bytes

    text = decode_text(read_bytes(path, limits), path)
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", path, e.lineno, e.colno) from None
    except RecursionError:
        raise InputError("nesting too deep", path) from None


def strip_jsonc(text: str) -> str:
    """JSON with comments (``//``, ``/* */``) and trailing commas -> JSON, keeping every
    line and column where it was (comments become spaces)."""
    out: list[str] = []
    i, n = 0, len(text)
    pending_comma: int | None = None       # index in out of a comma that may be trailing
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            pending_comma = None
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j == -1 else j
            out.append(" " * (j - i))
            i = j
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == ",":
            pending_comma = len(out)
            out.append(c)
            i += 1
            continue
        if c in "]}" and pending_comma is not None:
            out[pending_comma] = " "
        if not c.isspace():
            pending_comma = None
        out.append(c)
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------- entries


class _Missing(Exception):
    pass


def _workspace(path: str, ctx: Context) -> str:
    """The workspace folder of a configuration file: DIR for a workspace's own file
    (DIR/.vscode/mcp.json, DIR/.cursor/mcp.json, DIR/.mcp.json), else the current folder
    (a user-level file: the editor's open workspace)."""
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if os.path.basename(parent) in (".vscode", ".cursor") \
            and os.path.dirname(parent) != os.path.abspath(ctx.home):
        return os.path.dirname(parent)
    if os.path.basename(path) == ".mcp.json":
        return parent
    return os.path.abspath(ctx.cwd)


def _expander(client: str | None, ctx: Context, inputs: Any, workspace: str | None = None) -> Any:
    """A function expanding the client's variables in one string (raises _Missing);
    ``${workspaceFolder}`` is ``workspace`` (default: the current folder)."""
    folder = os.path.abspath(ctx.cwd)
    ws = workspace or folder
    builtins = {"userHome": ctx.home, "workspaceFolder": ws,
                "workspaceFolderBasename": os.path.basename(ws),
                "pathSeparator": os.sep, "/": os.sep, "cwd": folder}
    editor = client in ("cursor", "vscode", "windsurf", None)
    claude = client in ("claude-code", None)

    def expand(value: str) -> str:
        def editor_var(m: re.Match) -> str:
            name = m.group(1)
            if name.startswith("env:"):
                var = name[4:]
                return ctx.env.get(var, "")   # as the editors do: an unset variable is empty
            if name.startswith("input:"):
                raise _Missing(f"asks for the input {name[6:]!r} (an ${{input:...}} variable), "
                               "which toolcat cannot prompt for")
            if name in builtins:
                return builtins[name]
            if claude and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(:-.*)?", name, re.S):
                return claude_var(name)
            raise _Missing(f"uses the variable ${{{printable(name, 40)}}}, which toolcat "
                           "does not know")

        def claude_var(name: str) -> str:
            var, sep, default = name.partition(":-")
            if var in ctx.env:
                return ctx.env[var]
            if sep:
                return default
            raise _Missing(f"needs the environment variable {var}, which is not set")

        if editor:
            return re.sub(r"\$\{([^}]*)\}", editor_var, value)
        if claude:
            return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?)\}",
                          lambda m: claude_var(m.group(1)), value)
        return value

    return expand


def _specs(servers: dict, path: str, client: str | None, ctx: Context, scope: str,
           inputs: Any) -> list[ServerSpec]:
    expand = _expander(client, ctx, inputs, _workspace(path, ctx))
    out = []
    for name, entry in servers.items():
        spec = _entry(str(name), entry, path, client, ctx, expand)
        if spec is not None:
            spec.key = str(name)
            spec.origin = f"{path} ({scope})" if scope != "file" else path
            out.append(spec)
    return out


def _entry(name: str, entry: Any, path: str, client: str | None, ctx: Context,
           expand: Any) -> ServerSpec | None:
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:64] or "server"

    def problem(msg: str, transport: str = STDIO) -> ServerSpec:
        return ServerSpec(name=label, transport=transport, problem=msg)

    if not isinstance(entry, dict):
        return problem(f"the entry in {path} is not an object")
    if entry.get("disabled") is True or entry.get("enabled") is False:
        return None
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url", entry.get("serverUrl"))
    try:
        if kind == "sse":
            return problem("uses the SSE transport (deprecated since MCP 2025-03-26); toolcat "
                           "captures stdio and Streamable HTTP servers", HTTP)
        if url is not None or kind in ("http", "streamable-http", "streamablehttp"):
            if not isinstance(url, str) or not url:
                return problem(f"has no 'url' string ({path})", HTTP)
            headers = entry.get("headers") or {}
            if not isinstance(headers, dict) or not all(isinstance(v, str)
                                                        for v in headers.values()):
                return problem("'headers' must be an object of strings", HTTP)
            u = expand(url)
            why = url_problem(u)
            if why is not None:
                return problem(f"'url' is not an http:// or https:// URL ({why})", HTTP)
            hdrs = {str(k): expand(v) for k, v in headers.items()}
            for k, v in hdrs.items():
                why = header_problem(k, v)
                if why is not None:
                    return problem(f"'headers': {why}", HTTP)
            return ServerSpec(name=label or derive_url_name(u), transport=HTTP, url=u,
                              headers=hdrs)
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            return problem(f"has neither a 'command' nor a 'url' ({path})")
        args = entry.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            return problem("'args' must be an array of strings")
        env_in = entry.get("env") or {}
        if not isinstance(env_in, dict):
            return problem("'env' must be an object")
        env: dict[str, str] = {}
        env_file = entry.get("envFile")
        if isinstance(env_file, str) and env_file:
            env.update(_dotenv(expand(env_file), path))
        for k, v in env_in.items():
            if v is None:
                continue
            env[str(k)] = expand(v if isinstance(v, str) else json.dumps(v))
        cwd = entry.get("cwd")
        argv = [expand(command)] + [expand(str(a)) for a in args]
        return ServerSpec(name=label, transport=STDIO, argv=argv, env=env,
                          cwd=expand(cwd) if isinstance(cwd, str) and cwd else None)
    except _Missing as e:
        return problem(str(e), HTTP if url is not None else STDIO)


def _dotenv(path: str, config: str) -> dict[str, str]:
    from toolcat.document.parse import Limits
    from toolcat.files import read_regular

    base = os.path.dirname(os.path.abspath(config))
    full = path if os.path.isabs(path) else os.path.join(base, path)

    def error(msg: str, where: str) -> InputError:
        return InputError(f"envFile: {msg}", where)

    # the one reader: a FIFO or device (/dev/zero) is refused, never a blocked or endless read
    data = read_regular(full, Limits.from_env().max_file_size, error, what="envFile")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})",
                    full) from None
    out: dict[str, str] = {}
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        k, _, v = line.removeprefix("export ").partition("=")
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        out[k.strip()] = v
    return out
