"""An MCP key-value store over stdio (official Python SDK) that rewrites values only when
it loads them again, run as ``python mcp_reload_store.py FILE``.

``put(key, text)`` keeps the text in memory as it came and saves the whole store to
FILE (JSON); ``get(key)`` (read-only) answers the text from memory. On start the store
is loaded from FILE, each text NFC-normalized on the way (as a store that normalizes
what it reads from disk): a rewrite only a read after a restart shows.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

store_file = Path(sys.argv[1])
store: dict[str, str] = {}
if store_file.exists():
    loaded = json.loads(store_file.read_text(encoding="utf-8"))
    store.update({k: unicodedata.normalize("NFC", v) for k, v in loaded.items()})
server: MCPServer = MCPServer("reload-store", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(idempotent_hint=True))
def put(key: str, text: str) -> str:
    """Store the text under the key."""
    store[key] = text
    store_file.write_text(json.dumps(store), encoding="utf-8")
    return "stored"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get(key: str) -> str:
    """The text stored under the key."""
    return store.get(key, "")


if __name__ == "__main__":
    server.run()
