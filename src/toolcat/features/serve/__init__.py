"""`toolcat serve`: an MCP server in front of one upstream MCP server, serving its tools in
the compact view, with the full descriptors one tool call away (issue 18).

* :mod:`.view` -- what is served: the upstream's tools projected as ``toolcat project --to
  mcp`` projects them (:func:`toolcat.features.project.project_catalogs`, the same options), the
  handbook (every tool's full standard descriptor, which for MCP is the tool exactly as the
  upstream sent it) and the added handbook tool. No MCP SDK import.
* :mod:`.proxy` -- the server (the MCP Python SDK's server API over stdio) and the upstream
  connection (:class:`toolcat.formats.live.session.LiveSession`, the client every live
  command uses); imports the SDK, so it is imported only by ``toolcat serve``.

The upstream is started and listed before the server answers anything: a server that cannot
be started or listed within ``--timeout`` ends ``toolcat serve`` with one error line (exit 2).
After that, ``tools/list`` is answered from the projection made once (byte-stable), calls of
the handbook tool are answered locally, and every other ``tools/call`` is forwarded to the
upstream as it came (``_meta`` aside) and its result or error returned as the upstream gave
it. The upstream's process group ends when the client goes away (stdin closed), on SIGTERM,
and on every other way out (:mod:`toolcat.formats.live.procs`).
"""

from __future__ import annotations

#: The added tool's default name (``--handbook-tool NAME``).
HANDBOOK_TOOL = "get_tool_handbook"

__all__ = ["HANDBOOK_TOOL"]
