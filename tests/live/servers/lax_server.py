"""A test MCP server built with the MCP Python SDK's MCPServer (FastMCP's successor), whose
tools take what pydantic's lax mode takes, as most Python MCP servers do: ``"7"`` and
``true`` for an integer, unknown keys ignored. Over stdio.

Tools: ``repeat`` (text, times: integer), ``note`` (an object whose schema says
``additionalProperties: false`` while the model ignores unknown keys, as zod's default
object strips them), ``blob`` (kb: integer; a result of that many KiB of text),
``distinct`` (items: an array of objects with ``uniqueItems``; answers how many).
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field

server = MCPServer("lax_server")


@server.tool()
def repeat(text: str, times: int) -> str:
    """Repeat the text."""
    return text * times


class Note(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})
    title: str
    body: str


@server.tool()
def note(note: Note) -> str:
    """File a note."""
    return f"{note.title}: {note.body}"


@server.tool()
def blob(kb: int) -> str:
    """A text of kb KiB."""
    return "x" * (kb * 1024)


@server.tool()
def distinct(items: Annotated[list[dict], Field(json_schema_extra={"uniqueItems": True})]
             ) -> int:
    """How many items (all different)."""
    return len(items)


if __name__ == "__main__":
    server.run("stdio")
