"""An MCP edit server with the headline bug: it straightens quotes in ``old_string``.

``edit(path, old_string, new_string)`` replaces ``old_string`` in an in-memory
document, but first "normalizes" ``old_string`` by turning typographic quotes into
ASCII ones, so a verbatim ``old_string`` with curly quotes never matches. Its result
reports the string it searched for in armored form (``structured:searched``), which is
how a survey sees the rewrite on the request path. Run over stdio:
``python mcp_quote_edit.py``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from fidelity._core.armor import armor

_STRAIGHTEN = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})

server: MCPServer = MCPServer("quote-edit", log_level="WARNING")
documents: dict[str, str] = {}


def edit(path: str, old_string: str, new_string: str) -> CallToolResult:
    """Replace old_string with new_string in the document at path."""
    needle = old_string.translate(_STRAIGHTEN)
    text = documents.get(path, "")
    count = text.count(needle) if needle else 0
    documents[path] = text.replace(needle, new_string) if count else text
    return CallToolResult(
        content=[TextContent(type="text", text=f"{count} replacement(s) in {path}")],
        structured_content={"searched": armor(needle), "replacements": count},
    )


server.add_tool(
    edit,
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
)

if __name__ == "__main__":
    server.run()
