"""The HTTP servers of the tests, run as ``python http_servers.py MODE``.

Each binds 127.0.0.1 on an OS-assigned port, prints ``listening on
http://127.0.0.1:PORT/`` (flushed) and serves until killed.

Misbehaving raw servers (asyncio streams, keep-alive):

- ``silent``: reads the request head, never the body, and never answers;
- ``drip``: answers one byte every 0.2 s, headers included;
- ``garbage``: answers 200 ``application/json`` with a body that is not JSON;
- ``huge``: answers 200 with a 50 MiB JSON body;
- ``drop``: reads the request and closes the connection without a word;
- ``slow-echo``: answers each JSON request with the same JSON after 0.15 s;
- ``echo``: answers each JSON request with the same JSON, immediately;
- ``straighten``: like ``echo``, with typographic quotes made ASCII (a real rewrite);
- ``error``: answers every request HTTP 500 with a JSON error (a broken backend);
- ``gzip-bomb``: answers ``Content-Encoding: gzip, gzip, gzip``, about 300 bytes that
  unpack to 2 GiB of zero bytes (three layers of gzip);
- ``gzip-big``: answers one layer of gzip that unpacks to 2 GiB of zero bytes;
- ``gzip-echo``: like ``echo``, the answer compressed with gzip (``Content-Encoding: gzip``).

Starlette apps under uvicorn: ``quotes`` (the reference reflector behind a middleware
that straightens typographic quotes in the JSON body field ``text`` of every request),
``store`` (write-then-read: ``POST /items`` with ``{"text": ...}`` answers ``{"id": N}``
with the id in the ``x-item-id`` header too, ``GET /items/N`` answers ``{"text": ...}``,
``GET /items/N.txt`` answers ``item N: TEXT`` as text/plain; in memory), ``counted``
(``quotes`` that also counts the requests it gets; ``GET /_count`` answers
``{"count": N, "arrivals": [...]}``, when each arrived by this process's
``time.monotonic()``, and is not counted), ``dots`` (write-then-read whose ids are dot
segments: ``POST /items`` answers ``{"id": ".."}`` then ``{"id": "."}`` in turn,
``GET /items/ID/view`` answers ``{"text": ...}`` for that id, and any other ``GET``
(``/view``, where ``/items/../view`` leads) answers ``{"text": "the wrong path"}``).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import struct
import sys
import time
from typing import Any

from bombs import stacked_bomb, zeros_gzip

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


def _response(
    body: bytes, content_type: bytes = b"application/json", status: bytes = b"200 OK"
) -> bytes:
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: " + content_type + b"\r\ncontent-length: "
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


def _encoded(body: bytes, encoding: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: " + encoding
        + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )  # fmt: skip


def _bomb(mode: str) -> bytes:
    """The answer of ``gzip-bomb`` or ``gzip-big``."""
    if mode == "gzip-big":
        return _encoded(zeros_gzip(), b"gzip")
    return _encoded(stacked_bomb(), b"gzip, gzip, gzip")


async def _handle(mode: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            if mode == "silent":  # reads the head only: a large body fills the socket
                await reader.readuntil(b"\r\n\r\n")
                await asyncio.sleep(3600)
            body = await _read_request(reader)
            if body is None:
                return
            if mode == "drop":
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            if mode == "drip":
                for byte in _response(b'{"text": "' + b"x" * 4096 + b'"}'):
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(0.2)
            elif mode == "garbage":
                writer.write(_response(b"<html>\x00\xff\xfe not json {{{", b"application/json"))
            elif mode == "huge":
                await _huge(writer)
            elif mode in ("gzip-bomb", "gzip-big"):
                writer.write(_bomb(mode))
            elif mode == "gzip-echo":
                writer.write(_encoded(gzip.compress(body), b"gzip"))
            elif mode == "error":
                error = b'{"error": "database is locked (SQLITE_BUSY)"}'
                writer.write(_response(error, status=b"500 Internal Server Error"))
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


def _straighten(text: str) -> str:
    return text.translate({0x201C: '"', 0x201D: '"', 0x2018: "'", 0x2019: "'"})


def _quotes_app() -> Any:
    from probes._http.app import app as reflector

    async def middleware(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_fidelity/"):
            await reflector(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            document = json.loads(body)
            document["text"] = _straighten(document["text"])
            body = json.dumps(document, ensure_ascii=False).encode("utf-8")
        except (ValueError, KeyError, TypeError):
            pass
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        done = False

        async def replay() -> dict[str, Any]:
            nonlocal done
            if done:
                return {"type": "http.disconnect"}
            done = True
            return {"type": "http.request", "body": body, "more_body": False}

        await reflector({**scope, "headers": headers}, replay, send)

    return middleware


def _counted_app() -> Any:
    inner = _quotes_app()
    arrivals: list[float] = []

    async def counter(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/_count":
            body = json.dumps({"count": len(arrivals), "arrivals": arrivals}).encode()
            headers = [(b"content-type", b"application/json")]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "http":
            arrivals.append(time.monotonic())
        await inner(scope, receive, send)

    return counter


def _store_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response
    from starlette.routing import Route

    items: list[str] = []

    async def create(request: Request) -> JSONResponse:
        items.append((await request.json())["text"])
        ident = len(items) - 1
        return JSONResponse({"id": ident}, status_code=201, headers={"x-item-id": str(ident)})

    async def fetch(request: Request) -> Response:
        index = int(request.path_params["ident"])
        if index >= len(items):
            return JSONResponse({"error": "no such item"}, status_code=404)
        if request.url.path.endswith(".txt"):
            return PlainTextResponse(f"item {index}: {items[index]}")
        # json.dumps escapes what is not ASCII: a lone surrogate goes back as its escape.
        return Response(json.dumps({"text": items[index]}), media_type="application/json")

    return Starlette(
        routes=[
            Route("/items", create, methods=["POST"]),
            Route("/items/{ident:int}", fetch, methods=["GET"]),
            Route("/items/{ident:int}.txt", fetch, methods=["GET"]),
        ]
    )


def _truth_app() -> Any:
    """Endpoints that keep every byte but answer in shapes that misled automatic
    read-back location: JSON echoes (of a JSON body, of a path segment), a log that
    lists every entry so far, a status word that changes from call to call."""
    import itertools

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    def JSONResponse(document: object) -> Response:
        # json.dumps escapes what is not ASCII: a lone surrogate (sent as its JSON
        # escape) goes back as its escape, as the request carried it.
        return Response(json.dumps(document), media_type="application/json")

    entries: list[dict[str, object]] = []
    jobs = itertools.count(1001)

    async def note(request: Request) -> Response:
        return JSONResponse({"path": "/srv/notes/a.txt", "content": (await request.json())["text"]})

    async def segment(request: Request) -> Response:
        value = request.path_params["value"]
        return JSONResponse({"path": f"/echo/{value}", "value": value})

    async def log(request: Request) -> Response:
        entries.append({"id": len(entries) + 1, "text": (await request.json())["text"]})
        return JSONResponse({"entries": entries})

    async def job(request: Request) -> PlainTextResponse:
        number = next(jobs)
        status = "RUNNING" if number % 2 else "COMPLETED"
        return PlainTextResponse(f"Job {number} {status}: output={(await request.json())['text']}")

    return Starlette(
        routes=[
            Route("/note", note, methods=["POST"]),
            Route("/echo/{value}", segment, methods=["GET"]),
            Route("/log", log, methods=["POST"]),
            Route("/job", job, methods=["POST"]),
        ]
    )


def _dots_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    items: dict[str, str] = {}
    ids = ("..", ".")

    async def create(request: Request) -> JSONResponse:
        ident = ids[len(items) % 2]
        items[ident] = (await request.json())["text"]
        return JSONResponse({"id": ident}, status_code=201)

    async def fetch(request: Request) -> JSONResponse:
        ident = request.path_params["ident"]
        if ident not in items:
            return JSONResponse({"error": "no such item"}, status_code=404)
        return JSONResponse({"text": items.pop(ident)})

    async def elsewhere(request: Request) -> JSONResponse:
        return JSONResponse({"text": "the wrong path"})

    return Starlette(
        routes=[
            Route("/items", create, methods=["POST"]),
            Route("/items/{ident}/view", fetch, methods=["GET"]),
            Route("/{rest:path}", elsewhere, methods=["GET"]),
        ]
    )


def _asgi(app: Any) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    config = uvicorn.Config(app, http="h11", lifespan="off", access_log=False, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


async def _serve_raw(mode: str) -> None:
    server = await asyncio.start_server(
        lambda r, w: _handle(mode, r, w), "127.0.0.1", 0, limit=1 << 20
    )
    print(f"listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}/", flush=True)
    async with server:
        await server.serve_forever()


_APPS = {
    "quotes": "_quotes_app",
    "store": "_store_app",
    "counted": "_counted_app",
    "truth": "_truth_app",
    "dots": "_dots_app",
}
_RAW = (
    "silent",
    "drip",
    "garbage",
    "huge",
    "drop",
    "slow-echo",
    "echo",
    "straighten",
    "error",
    "gzip-bomb",
    "gzip-big",
    "gzip-echo",
)


def main(mode: str) -> None:
    """Serve ``mode`` until killed."""
    if mode in _APPS:
        _asgi(globals()[_APPS[mode]]())
    elif mode in _RAW:
        asyncio.run(_serve_raw(mode))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1])
