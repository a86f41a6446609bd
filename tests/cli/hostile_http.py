"""A misbehaving HTTP server for the CLI's robustness tests.

Run as ``python hostile_http.py MODE``; it binds 127.0.0.1 on an OS-assigned port,
prints ``PORT`` on stdout, and serves until killed. Modes:

- ``silent``: reads the request and never answers;
- ``drip``: answers one byte every 0.2 s, headers included;
- ``garbage``: answers 200 with a body that is not JSON;
- ``huge``: answers 200 with a 50 MiB JSON body;
- ``drop``: reads the request and closes the connection without a word;
- ``slow-echo``: answers each JSON request with the same JSON after 0.15 s;
- ``echo``: answers each JSON request with the same JSON, immediately;
- ``straighten``: like ``echo``, with typographic quotes made ASCII (a real rewrite).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import sys

HUGE = 50 * 1024 * 1024


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    try:
        return await reader.readexactly(length) if length else b""
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def _response(body: bytes, content_type: bytes = b"application/json") -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type + b"\r\ncontent-length: "
        + str(len(body)).encode() + b"\r\n\r\n" + body
    )  # fmt: skip


async def _huge(writer: asyncio.StreamWriter) -> None:
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
        + str(HUGE).encode() + b"\r\n\r\n"
    )  # fmt: skip
    chunk = b'{"text": "' + b"a" * (1024 * 1024 - 10)
    sent = 0
    while sent < HUGE:
        piece = chunk[: HUGE - sent]
        writer.write(piece)
        sent += len(piece)
        await writer.drain()
        chunk = b"a" * (1024 * 1024)


async def _handle(mode: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            body = await _read_request(reader)
            if body is None:
                return
            if mode == "silent":
                await asyncio.sleep(3600)
            elif mode == "drop":
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            elif mode == "drip":
                for byte in _response(b'{"text": "' + b"x" * 4096 + b'"}'):
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(0.2)
            elif mode == "garbage":
                writer.write(_response(b"<html>\x00\xff\xfe not json {{{", b"application/json"))
            elif mode == "huge":
                await _huge(writer)
            elif mode == "slow-echo":
                await asyncio.sleep(0.15)
                writer.write(_response(body))
            elif mode == "straighten":
                document = json.loads(body)
                text = document.get("text", "")
                for curly, plain in (("\u201c", '"'), ("\u201d", '"'), ("\u2018", "'")):
                    text = text.replace(curly, plain)
                document["text"] = text.replace("\u2019", "'")
                writer.write(_response(json.dumps(document).encode()))
            else:
                writer.write(_response(body))
            await writer.drain()
    except (ConnectionError, OSError):
        return
    finally:
        writer.close()


async def _main(mode: str) -> None:
    server = await asyncio.start_server(
        lambda r, w: _handle(mode, r, w), "127.0.0.1", 0, limit=1 << 20
    )
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1]))
