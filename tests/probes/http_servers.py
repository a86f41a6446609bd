"""HTTP servers for the HTTP probe's tests, run as ``python http_servers.py MODE``.

Prints ``listening on http://127.0.0.1:PORT/`` (flushed), then serves until killed.

Misbehaving raw-socket servers: ``silent`` (reads, never answers), ``drip`` (one body
byte every half second), ``garbage`` (200 ``application/json`` that is not JSON),
``huge`` (a 50 MiB body), ``drop`` (closes the connection without answering).
Starlette apps under uvicorn: ``quotes`` (the reference reflector behind a middleware
that straightens typographic quotes in the JSON body field ``text`` of every request),
``store`` (write-then-read: ``POST /items`` with ``{"text": ...}`` answers ``{"id": N}``,
``GET /items/N`` answers ``{"text": ...}``; in memory), ``counted`` (``quotes`` that also
counts the requests it gets; ``GET /_count`` answers ``{"count": N}`` and is not counted).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from typing import Any

HUGE = 50 * 1024 * 1024


def _drain(conn: socket.socket) -> None:
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk


def _handle(mode: str, conn: socket.socket) -> None:
    try:
        _drain(conn)
        if mode == "silent":
            time.sleep(3600)
        elif mode == "drip":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            conn.sendall(b"Content-Length: 100000\r\n\r\n")
            while True:
                conn.sendall(b" ")
                time.sleep(0.5)
        elif mode == "garbage":
            body = b"<html>\x1b[31mthis is not JSON\x00</html>"
            head = (
                f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
            )
            conn.sendall(head.encode() + b"\r\n\r\n" + body)
        elif mode == "huge":
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {HUGE}"
            conn.sendall(head.encode() + b"\r\n\r\n")
            block = b"x" * 65536
            for _ in range(HUGE // len(block)):
                conn.sendall(block)
        # drop: fall through and close
    except OSError:
        pass
    finally:
        conn.close()


def _raw(mode: str) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    print(f"listening on http://127.0.0.1:{server.getsockname()[1]}/", flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=_handle, args=(mode, conn), daemon=True).start()


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
    count = 0

    async def counter(scope: Any, receive: Any, send: Any) -> None:
        nonlocal count
        if scope["type"] == "http" and scope["path"] == "/_count":
            body = json.dumps({"count": count}).encode()
            headers = [(b"content-type", b"application/json")]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "http":
            count += 1
        await inner(scope, receive, send)

    return counter


def _store_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    items: list[str] = []

    async def create(request: Request) -> JSONResponse:
        items.append((await request.json())["text"])
        return JSONResponse({"id": len(items) - 1}, status_code=201)

    async def fetch(request: Request) -> JSONResponse:
        index = int(request.path_params["ident"])
        if index >= len(items):
            return JSONResponse({"error": "no such item"}, status_code=404)
        return JSONResponse({"text": items[index]})

    return Starlette(
        routes=[
            Route("/items", create, methods=["POST"]),
            Route("/items/{ident:int}", fetch, methods=["GET"]),
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


def main(mode: str) -> None:
    """Serve ``mode`` until killed."""
    if mode == "quotes":
        _asgi(_quotes_app())
    elif mode == "store":
        _asgi(_store_app())
    elif mode == "counted":
        _asgi(_counted_app())
    elif mode in ("silent", "drip", "garbage", "huge", "drop"):
        _raw(mode)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1])
