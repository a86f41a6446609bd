"""An MCP server over Streamable HTTP behind a bearer token, run as
``python mcp_http_auth.py TOKEN``.

Built with the Python SDK's ``MCPServer`` (one read-only ``echo`` tool), served by
uvicorn on 127.0.0.1 with an OS-assigned port, announced on stdout as
``listening on http://127.0.0.1:PORT/mcp``. Every request without
``Authorization: Bearer TOKEN`` is answered 401.
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


def guarded(app: Any, token: str) -> Any:
    wanted = f"Bearer {token}".encode()

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != wanted:
            body = b'{"error": "unauthorized"}'
            headers = [(b"content-type", b"application/json")]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return guard


def main() -> int:
    server = MCPServer("guarded", log_level="WARNING")
    server.add_tool(echo, name="echo", annotations=ToolAnnotations(read_only_hint=True))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    app = guarded(server.streamable_http_app(host="127.0.0.1"), sys.argv[1])
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    http.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
