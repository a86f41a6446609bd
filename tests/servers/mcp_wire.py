"""What the two hand-written MCP test servers say alike, over stdio (mcp_hostile.py) and
over Streamable HTTP (mcp_http_hostile.py): the answers to every request but
``tools/call``, the ``echo`` tool, and the replies too large or too deep to parse.

Not a server: both import it (it sits beside them, so ``python tests/servers/X.py``
finds it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["ECHO", "PIECE", "answer", "big_reply", "deep_reply", "option"]

#: ``echo(text)``, without annotations (each server says how it is annotated).
ECHO: dict[str, Any] = {
    "name": "echo",
    "description": "Return the text.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}
#: How many bytes of an oversized reply are written at once.
PIECE = 65536


def option(argv: list[str], name: str) -> str | None:
    """The value after ``name`` in ``argv`` (None when the flag is not given)."""
    return argv[argv.index(name) + 1] if name in argv else None


def answer(message: dict[str, Any], tools: list[Any], server: str) -> dict[str, Any]:
    """The response to a request that is not ``tools/call``: ``initialize`` (the legacy
    handshake: the client's protocol version agreed to), ``tools/list`` (``tools``),
    ``ping``, and "method not found" for anything else (``server/discover`` too)."""
    method, mid = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": server, "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return {"jsonrpc": "2.0", "id": mid, "error": error}
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def big_reply(mid: object, size: int) -> Iterator[bytes]:
    """The response to call ``mid`` whose text is ``size`` bytes (``x``), in pieces of
    at most :data:`PIECE` bytes, so that no one ever holds it whole (no line end)."""
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text"}]}})
    yield head[: -len("}]}}")].encode("ascii") + b', "text": "'
    left = size
    while left > 0:
        yield b"x" * min(left, PIECE)
        left -= PIECE
    yield b'"}]}}'


def deep_reply(mid: object, depth: int) -> bytes:
    """The response to call ``mid`` whose ``structuredContent`` nests ``depth`` arrays
    (no line end)."""
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": []}})
    body = b'"structuredContent": {"v": ' + b"[" * depth + b"]" * depth + b"}"
    return head[:-2].encode("ascii") + b", " + body + b"}}"
