"""An MCP server over Streamable HTTP that answers only a request holding a header.

Built with the Python SDK's ``MCPServer``, served by uvicorn on 127.0.0.1 with an
OS-assigned port, announced on stdout as ``http://127.0.0.1:PORT/mcp``. Every request
without ``Authorization: Bearer TOKEN`` (TOKEN: the first argument) is answered 401,
so a client that does not send the configured header cannot even start a session. Its
``echo(text)`` tool, annotated read-only, answers the text as it came.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def echo(text: str) -> str:
    """Answer the text as it came."""
    return text


def main() -> int:
    expected = f"Bearer {sys.argv[1]}".encode()
    server = MCPServer("header", log_level="WARNING")
    server.add_tool(echo, name="echo", annotations=ToolAnnotations(read_only_hint=True))
    inner = server.streamable_http_app(host="127.0.0.1")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        # Lifespan events pass through: they start the SDK's session manager.
        if scope["type"] == "http" and (b"authorization", expected) not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no token"})
            return
        await inner(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    http.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
