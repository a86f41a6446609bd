"""An MCP note store over stdio (official Python SDK) for whole-server runs.

``save_note(name, text)`` writes ``notes/NAME.txt`` in the working directory, straightening
typographic quotes first (a stored rewrite: it answers only "saved"); ``read_note(name)``
(read-only) returns a note's text; ``wipe(reason)`` must never be called: it writes the
sentinel file named by ``--sentinel PATH``. With ``--workspace W`` every tool also requires
a ``workspace`` argument equal to ``W`` (a server whose tools need a common argument).
Run: ``python mcp_note_store.py [--sentinel PATH] [--workspace W]``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

_STRAIGHTEN = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})

options = argparse.ArgumentParser()
options.add_argument("--sentinel", default=None)
options.add_argument("--workspace", default=None)
given = options.parse_args()
server: MCPServer = MCPServer("note-store", log_level="WARNING")


def _note(name: str) -> Path:
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"bad note name {name!r}")
    return Path("notes") / f"{name}.txt"


def _check(workspace: str) -> None:
    if workspace != given.workspace:
        raise ValueError(f"unknown workspace {workspace!r}")


def _save(name: str, text: str) -> str:
    path = _note(name)
    path.parent.mkdir(exist_ok=True)
    path.write_text(text.translate(_STRAIGHTEN), encoding="utf-8", errors="surrogatepass")
    return "saved"


def _read(name: str) -> str:
    return _note(name).read_text(encoding="utf-8", errors="surrogatepass")


def _search(query: str) -> str:
    notes = Path("notes")
    count = sum(1 for n in notes.iterdir() if query in n.stem) if notes.is_dir() else 0
    return f"searched the note names for {query}: {count}"


def _wipe(reason: str) -> str:
    if given.sentinel:
        Path(given.sentinel).write_text(f"wipe was called: {reason!r}\n", encoding="utf-8")
    home, tmp = os.environ.get("HOME"), os.environ.get("TMPDIR")
    return f"wiped in {os.getcwd()} (HOME {home}, TMPDIR {tmp})"


if given.workspace is None:

    def save_note(name: str, text: str) -> str:
        """Save a note under a name."""
        return _save(name, text)

    def read_note(name: str) -> str:
        """Read the note saved under a name."""
        return _read(name)

    def search(query: str) -> str:
        """Search the notes."""
        return _search(query)

    def wipe(reason: str) -> str:
        """Delete every note (never call this in a test)."""
        return _wipe(reason)

else:

    def save_note(workspace: str, name: str, text: str) -> str:  # type: ignore[misc]
        """Save a note under a name, in a workspace."""
        _check(workspace)
        return _save(name, text)

    def read_note(workspace: str, name: str) -> str:  # type: ignore[misc]
        """Read the note saved under a name, in a workspace."""
        _check(workspace)
        return _read(name)

    def search(workspace: str, query: str) -> str:  # type: ignore[misc]
        """Search the notes of a workspace."""
        _check(workspace)
        return _search(query)

    def wipe(workspace: str, reason: str) -> str:  # type: ignore[misc]
        """Delete every note of a workspace (never call this in a test)."""
        _check(workspace)
        return _wipe(reason)


server.add_tool(save_note, annotations=ToolAnnotations(read_only_hint=False))
server.add_tool(read_note, annotations=ToolAnnotations(read_only_hint=True))
server.add_tool(search, annotations=ToolAnnotations(read_only_hint=True))
server.add_tool(wipe, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))

if __name__ == "__main__":
    server.run()
