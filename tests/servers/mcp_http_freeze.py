"""An MCP server over Streamable HTTP that freezes whole on its first tool call.

Built with the Python SDK's ``MCPServer``, served by uvicorn on 127.0.0.1 with an
OS-assigned port, announced on stdout as ``http://127.0.0.1:PORT/mcp``. Its ``echo``
tool stops the server process (SIGSTOP) before answering: from then on nothing
answers, not the call, not ``tools/list``, not the session's closing ``DELETE``; the
connections stay open. Stop it with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def echo(text: str) -> str:
    """Freeze this whole process; never answer."""
    os.kill(os.getpid(), signal.SIGSTOP)
    return text


def main() -> int:
    server = MCPServer("freezer", log_level="WARNING")
    # Read-only, so the probe calls it without allow_destructive (it only freezes).
    server.add_tool(echo, name="echo", annotations=ToolAnnotations(read_only_hint=True))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections wait in the backlog until uvicorn accepts them
    app = server.streamable_http_app(host="127.0.0.1")
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    http.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
