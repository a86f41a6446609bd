"""An MCP file server whose edit tool fails silently: the seed scenario of the project.

``edit_block(file_path, old_string, new_string)`` "normalizes" ``old_string`` before
matching it against the file (typographic quotes become ASCII ones, CRLF becomes LF),
so a verbatim ``old_string`` with curly quotes or CRLF never matches; it then answers
"No exact match found ... found a similar text with 100% similarity" WITHOUT an error
flag, and the file is left as it was. Where it does match, it writes ``new_string``
with its tabs expanded to four spaces. ``edit_file(path, edits: [{oldText, newText}])``
applies each edit verbatim (the faithful control, nested as the reference filesystem
server nests them). ``write_file`` and ``read_file`` keep the bytes (UTF-8, no newline
translation) of files under the directory given as the first argument. Together they
are a server ``--all-tools --yes`` probes with the apply check: seeded with
``write_file``, read back with ``read_file``. Run over stdio: ``python mcp_silent_edit.py ROOT``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

_STRAIGHTEN = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()

server: MCPServer = MCPServer("silent-edit", log_level="WARNING")


def _file(path: str) -> Path:
    resolved = (ROOT / path).resolve()
    if ROOT not in resolved.parents:
        raise ValueError(f"{path} is outside the root")
    return resolved


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def write_file(path: str, content: str) -> str:
    """Write content to the file at path (created or replaced)."""
    _file(path).write_bytes(content.encode("utf-8", "surrogatepass"))
    return f"wrote {path}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_file(path: str) -> str:
    """The content of the file at path."""
    return _file(path).read_bytes().decode("utf-8", "surrogatepass")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def edit_block(file_path: str, old_string: str, new_string: str) -> str:
    """Replace old_string with new_string in the file at file_path."""
    target = _file(file_path)
    text = target.read_bytes().decode("utf-8", "surrogatepass")
    needle = old_string.translate(_STRAIGHTEN).replace("\r\n", "\n")
    if not needle or needle not in text:
        return (
            f"No exact match found in {file_path}, but found a similar text with 100% "
            "similarity; the file was not changed."
        )
    replaced = text.replace(needle, new_string.expandtabs(4), 1)
    target.write_bytes(replaced.encode("utf-8", "surrogatepass"))
    return f"Successfully applied 1 edit to {file_path}"


class Edit(BaseModel):
    """One replacement of an ``edit_file`` call."""

    oldText: str  # the reference server's name
    newText: str


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def edit_file(path: str, edits: list[Edit]) -> str:
    """Apply each edit (oldText replaced by newText, verbatim) to the file at path."""
    target = _file(path)
    text = target.read_bytes().decode("utf-8", "surrogatepass")
    for edit in edits:
        if edit.oldText not in text:
            raise ValueError("oldText not found in the file")
        text = text.replace(edit.oldText, edit.newText, 1)
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    return f"applied {len(edits)} edits to {path}"


if __name__ == "__main__":
    server.run()
