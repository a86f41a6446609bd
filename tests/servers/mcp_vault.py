"""An unannotated MCP note vault over stdio (official Python SDK): what a newcomer meets.

No tool carries annotations. The vault is a directory of text files (the working
directory, or the first argument), stored as a text-mode program stores them:
``write_note(path, content)`` writes the bytes of ``content`` as given, but every read
opens the file in text mode, so a CRLF or a lone CR reads back as LF (the seed
scenario: a note read with CRLF as LF, then an edit whose old text holds the CR can
never apply). The tools:

- ``write_note(path, content)``: create or replace a note; answers "Wrote PATH".
- ``read_note(path)``: the note's text; a note that does not exist answers
  ``File not found: PATH`` WITHOUT an error flag (an error-like echo of the argument).
- ``replace_note(path, content)``: replace the whole content of an existing note
  (``Note not found: PATH`` without an error flag when it does not exist).
- ``edit_note(path, search_text, replacement_text)``: replace the first occurrence in
  the note as read (text mode); search text not found is an error (isError).
- ``move_note(src, dst)``: rename a note; "File not found: SRC" without an error flag.
- ``search_notes(query)``: every note whose name or text holds the query, ranked by name
  (several entries, most recent first), as ``PATH: TEXT`` lines.

Run: ``python mcp_vault.py [ROOT]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
server: MCPServer = MCPServer("vault", log_level="WARNING")


def _file(path: str) -> Path:
    resolved = (ROOT / path).resolve()
    if resolved != ROOT and ROOT not in resolved.parents:
        raise ValueError(f"{path} is outside the vault")
    return resolved


def _read(target: Path) -> str:
    # Text mode: universal newlines turn CRLF and CR into LF.
    with open(target, encoding="utf-8", errors="surrogatepass") as handle:
        return handle.read()


def _write(target: Path, content: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode("utf-8", "surrogatepass"))


@server.tool()
def write_note(path: str, content: str) -> str:
    """Write a note (created or replaced) at a path of the vault."""
    _write(_file(path), content)
    return f"Wrote {path}"


@server.tool()
def read_note(path: str) -> str:
    """Read the note at a path of the vault."""
    target = _file(path)
    if not target.is_file():
        return f"File not found: {path}"
    return _read(target)


@server.tool()
def replace_note(path: str, content: str) -> str:
    """Replace the whole content of an existing note."""
    target = _file(path)
    if not target.is_file():
        return f"Note not found: {path}"
    _write(target, content)
    return f"Replaced {path}"


@server.tool()
def edit_note(path: str, search_text: str, replacement_text: str) -> str:
    """Replace the first occurrence of search_text by replacement_text in a note."""
    target = _file(path)
    text = _read(target)
    if not search_text or search_text not in text:
        raise ValueError(f"Search text not found in {path}")
    _write(target, text.replace(search_text, replacement_text, 1))
    return f"Edited {path}"


@server.tool()
def move_note(src: str, dst: str) -> str:
    """Move (rename) a note."""
    source, target = _file(src), _file(dst)
    if not source.is_file():
        return f"File not found: {src}"
    target.parent.mkdir(parents=True, exist_ok=True)
    source.rename(target)
    return f"Moved {src} to {dst}"


@server.tool()
def search_notes(query: str) -> str:
    """Search the notes: every note whose path or text holds the query, one per line."""
    found = []
    for target in sorted(ROOT.rglob("*"), key=lambda p: p.stat().st_mtime_ns, reverse=True):
        if not target.is_file():
            continue
        name = target.relative_to(ROOT).as_posix()
        text = _read(target)
        if query in name or query in text:
            found.append(f"{name}: {text}")
    return "\n".join(found) if found else "No notes found"


if __name__ == "__main__":
    server.run()
