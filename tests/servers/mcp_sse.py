"""An MCP server over the legacy HTTP+SSE transport only, run as ``python mcp_sse.py``.

Built with the Python SDK's ``MCPServer`` (one read-only ``echo`` tool) and its SSE
app: ``GET /sse`` opens the event stream and sends the ``endpoint`` event, messages are
POSTed to ``/messages/?session_id=...``; a POST to ``/sse`` (a Streamable HTTP
handshake) is answered 405, as the SDK's app answers it. Served by uvicorn on
127.0.0.1 with an OS-assigned port, announced on stdout as
``listening on http://127.0.0.1:PORT/sse``.
"""

from __future__ import annotations

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def echo(text: str) -> str:
    """Answer the text as it came."""
    return text


def main() -> int:
    server = MCPServer("sse-echo", log_level="WARNING")
    server.add_tool(echo, name="echo", annotations=ToolAnnotations(read_only_hint=True))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    app = server.sse_app(host="127.0.0.1")
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/sse", flush=True)
    http.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
