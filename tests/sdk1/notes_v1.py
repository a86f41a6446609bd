"""A tool author's notes server on the MCP SDK 1.x (``FastMCP``), for the CI step that
installs param-fidelity beside ``mcp<2`` (.ci/run): notes in an SQLite file named by
``DB_PATH``, a table made by ``init_db`` (what ``main()`` does before serving), and a
``save_note`` that "tidies" line endings."""

from __future__ import annotations

import os
import sqlite3

from mcp.server.fastmcp import FastMCP

app = FastMCP("notes-v1")


def _db() -> sqlite3.Connection:
    return sqlite3.connect(os.environ.get("DB_PATH", "notes.db"))


def init_db() -> None:
    """Make the notes table."""
    with _db() as db:
        db.execute("CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, body TEXT)")


@app.tool()
def save_note(key: str, body: str) -> str:
    """Save a note (and "tidy" its line endings)."""
    with _db() as db:
        db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, body.replace("\r\n", "\n")))
    return "saved"


@app.tool()
def read_note(key: str) -> str:
    """Read a note back."""
    with _db() as db:
        row = db.execute("SELECT body FROM notes WHERE key = ?", (key,)).fetchone()
    return str(row[0])


def main() -> None:
    """Serve over stdio, as the package's console script does."""
    init_db()
    app.run()


if __name__ == "__main__":
    main()
