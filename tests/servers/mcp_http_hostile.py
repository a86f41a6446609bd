"""A misbehaving MCP server over Streamable HTTP, written by hand (Starlette, uvicorn).

Binds 127.0.0.1 on an OS-assigned port and prints ``listening on http://127.0.0.1:PORT/mcp``
(flushed). It speaks JSON-RPC over ``POST /mcp`` (legacy handshake, JSON bodies;
``server/discover`` is answered "method not found"; no session id, no ``GET`` stream)
and offers ``echo(text)``, annotated read-only. Flags:

- ``--big-reply N``: answer every call with a text of N bytes (``x``), streamed in
  pieces so the server never holds it whole; with ``--sse`` as one server-sent event,
  with ``--gzip`` compressed (a small body on the wire that inflates to N bytes);
- ``--deep-reply N``: answer every call with a ``structuredContent`` nesting N arrays.
"""

from __future__ import annotations

import json
import socket
import sys
import zlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

_PIECE = 65536
_ECHO = {
    "name": "echo",
    "description": "Return the text.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "annotations": {"readOnlyHint": True},
}


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def _big_body(mid: object, size: int, sse: bool, gzip: bool) -> Any:
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text"}]}})
    opening = head[: -len("}]}}")].encode("ascii") + b', "text": "'
    closing = b'"}]}}'
    if sse:
        opening = b"event: message\ndata: " + opening
        closing += b"\n\n"

    async def pieces() -> AsyncIterator[bytes]:
        packer = zlib.compressobj(wbits=31) if gzip else None
        left = size
        for part in (opening, None, closing):
            chunks: list[bytes] = []
            if part is not None:
                chunks.append(part)
            else:
                while left > 0:
                    chunks.append(b"x" * min(left, _PIECE))
                    left -= _PIECE
            for chunk in chunks:
                data = packer.compress(chunk) if packer is not None else chunk
                if data:
                    yield data
        if packer is not None:
            yield packer.flush()

    headers = {"content-encoding": "gzip"} if gzip else {}
    media = "text/event-stream" if sse else "application/json"
    return StreamingResponse(pieces(), media_type=media, headers=headers)


def _deep_body(mid: object, depth: int) -> Response:
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": []}})
    body = b'"structuredContent": {"v": ' + b"[" * depth + b"]" * depth + b"}"
    return Response(head[:-2].encode("ascii") + b", " + body + b"}}", media_type="application/json")


def app(argv: list[str]) -> Starlette:
    big = int(_option(argv, "--big-reply") or -1)
    deep = int(_option(argv, "--deep-reply") or 0)
    sse, gzip = "--sse" in argv, "--gzip" in argv

    async def mcp(request: Request) -> Any:
        if request.method != "POST":
            return Response(status_code=405)
        message = json.loads(await request.body())
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            return Response(status_code=202)
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-http", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": [_ECHO]}
        elif method == "ping":
            result = {}
        elif method == "tools/call" and big >= 0:
            return _big_body(mid, big, sse, gzip)
        elif method == "tools/call" and deep:
            return _deep_body(mid, deep)
        elif method == "tools/call":
            text = (params.get("arguments") or {}).get("text", "")
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            return JSONResponse({"jsonrpc": "2.0", "id": mid, "error": error})
        return JSONResponse({"jsonrpc": "2.0", "id": mid, "result": result})

    return Starlette(routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])])


def main(argv: list[str]) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app(argv), log_level="warning", lifespan="off"))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
