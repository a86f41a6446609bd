"""An MCP server with a prompt and a resource template (the official Python SDK).

``summarize(text, style)`` is a prompt that collapses every run of whitespace in
``text`` to one space (tabs, newlines and no-break spaces included: ``str.split``);
``notes://{name}`` is a resource template that answers the ``name`` it was given,
verbatim; ``echo_prompt(text)`` answers its argument untouched. Run over stdio:
``python mcp_prompts.py``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server: MCPServer = MCPServer("prompts", log_level="WARNING")


@server.prompt()
def summarize(text: str, style: str = "short") -> str:
    """Summarize a text (its whitespace collapsed first)."""
    return " ".join(text.split())


@server.prompt()
def echo_prompt(text: str) -> str:
    """The text itself."""
    return text


@server.resource("notes://{name}")
def note(name: str) -> str:
    """The note called name: its name, as the server received it."""
    return name


if __name__ == "__main__":
    server.run()
