"""Live MCP servers as a catalog source: a running server (a stdio command or a Streamable
HTTP URL) or a client's whole MCP setup, captured through the official MCP Python SDK.

Layers (the SDK is imported only by :mod:`.session`, and only when a server is captured):

* :mod:`.spec` -- :class:`ServerSpec`: what to start or reach, named without secrets;
* :mod:`.clients` -- client configurations (Claude Desktop, Claude Code, Cursor, VS Code,
  Windsurf, or ``--client-config FILE``) read into specs;
* :mod:`.procs` -- server processes in their own process groups, ended on every path;
* :mod:`.session` -- :class:`~.session.LiveSession`, one SDK connection (handshake, every
  ``tools/list`` page raw, any request raw), and :func:`~.session.capture_one`;
* :mod:`.capture` -- :func:`~.capture.capture` (many servers at once, synchronous), the
  capture file (:func:`~.capture.document`), its catalog (:func:`~.capture.to_catalog`) and
  :func:`~.capture.compare` for ``capture --check``.
"""

from toolcat.formats.live.spec import (
    DEFAULT_TIMEOUT,
    HTTP,
    STDIO,
    ServerSpec,
    from_command,
    from_url,
)

__all__ = ["DEFAULT_TIMEOUT", "HTTP", "STDIO", "ServerSpec", "from_command", "from_url"]
