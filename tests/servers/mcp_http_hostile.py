"""A misbehaving MCP server over Streamable HTTP, written by hand (Starlette, uvicorn).

Binds 127.0.0.1 on an OS-assigned port and prints ``listening on http://127.0.0.1:PORT/mcp``
(flushed). It speaks JSON-RPC over ``POST /mcp`` (legacy handshake, JSON bodies;
``server/discover`` is answered "method not found"; no session id, no ``GET`` stream:
what it says as mcp_hostile.py says it over stdio is in mcp_wire.py) and offers
``echo(text)``, annotated read-only. Flags:

- ``--big-reply N``: answer every call with a text of N bytes (``x``), streamed in
  pieces so the server never holds it whole; with ``--sse`` as one server-sent event,
  with ``--gzip`` compressed (a small body on the wire that inflates to N bytes);
- ``--deep-reply N``: answer every call with a ``structuredContent`` nesting N arrays;
- ``--tiny-tools N``: list N more tools (``t00000``...) of a few bytes each, all in the
  one ``tools/list`` answer (with ``--sse`` as one server-sent event);
- ``--gzip-bomb stacked|big``: answer every call with 2 GiB of zero bytes in gzip:
  ``Content-Encoding: gzip, gzip, gzip`` (under 300 bytes) or one layer (about 2 MB).
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import zlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from bombs import stacked_bomb, zeros_gzip
from mcp_wire import ECHO, answer, big_reply, deep_reply, option
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

_ECHO = {**ECHO, "annotations": {"readOnlyHint": True}}


def _big_body(mid: object, size: int, sse: bool, gzip: bool) -> Any:
    parts = big_reply(mid, size)
    if sse:
        parts = itertools.chain([b"event: message\ndata: "], parts, [b"\n\n"])

    async def pieces() -> AsyncIterator[bytes]:
        packer = zlib.compressobj(wbits=31) if gzip else None
        for chunk in parts:
            data = packer.compress(chunk) if packer is not None else chunk
            if data:
                yield data
        if packer is not None:
            yield packer.flush()

    headers = {"content-encoding": "gzip"} if gzip else {}
    media = "text/event-stream" if sse else "application/json"
    return StreamingResponse(pieces(), media_type=media, headers=headers)


def app(argv: list[str]) -> Starlette:
    big = int(option(argv, "--big-reply") or -1)
    deep = int(option(argv, "--deep-reply") or 0)
    bomb = option(argv, "--gzip-bomb")
    sse, gzip = "--sse" in argv, "--gzip" in argv
    count = int(option(argv, "--tiny-tools") or 0)
    tiny = [{"name": f"t{i:05d}", "inputSchema": {"type": "object"}} for i in range(count)]

    async def mcp(request: Request) -> Any:
        if request.method != "POST":
            return Response(status_code=405)
        message = json.loads(await request.body())
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            return Response(status_code=202)
        if method != "tools/call":
            listed = [_ECHO, *tiny]
            reply = answer(message, listed, "hostile-http")
            if sse and method == "tools/list":
                event = b"event: message\ndata: " + json.dumps(reply).encode() + b"\n\n"
                return Response(event, media_type="text/event-stream")
            return JSONResponse(reply)
        if big >= 0:
            return _big_body(mid, big, sse, gzip)
        if bomb == "stacked":
            return Response(
                stacked_bomb(),
                media_type="application/json",
                headers={"content-encoding": "gzip, gzip, gzip"},
            )
        if bomb == "big":
            return Response(
                zeros_gzip(), media_type="application/json", headers={"content-encoding": "gzip"}
            )
        if deep:
            body = deep_reply(mid, deep)
            return Response(body, media_type="application/json")
        text = ((message.get("params") or {}).get("arguments") or {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}], "isError": False}
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
