"""A busy service that answers "not now" a bounded number of times, run as
``python http_flaky.py``: for the retry tests.

Binds 127.0.0.1 on an OS-assigned port, prints ``listening on http://127.0.0.1:PORT/``
(flushed) and serves until killed (Starlette under uvicorn). Values are JSON
``{"text": ...}``; every request is written down (``GET /_log``: method, path and the
time it arrived, in order).

- ``PUT /items/KEY``: the first request for a KEY is answered ``503`` with
  ``Retry-After: 1`` (``429`` with ``Retry-After: 0`` for a KEY starting ``rate``);
  the next one stores the text and answers it. ``GET /items/KEY`` answers the text;
  its first request for a KEY is ``503`` with ``Retry-After: 0``.
- ``POST /notes``: the first request with a given text is ``503`` (``Retry-After:
  0``); the next one with the same text stores it and answers it.
- ``PUT /always/KEY``: always ``503`` with ``Retry-After: 0``.
- ``PUT /later/KEY``: always ``503`` with ``Retry-After: 60``.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any


def _app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    items: dict[str, str] = {}
    seen: set[str] = set()
    log: list[list[Any]] = []
    started = time.monotonic()

    def answer(document: Any, status: int = 200, retry_after: str | None = None) -> Response:
        headers = {"retry-after": retry_after} if retry_after is not None else None
        return Response(json.dumps(document), status, headers, media_type="application/json")

    def busy(status: int = 503, retry_after: str = "0") -> Response:
        return answer({"error": "busy, try again later"}, status, retry_after)

    def first(key: str) -> bool:
        fresh = key not in seen
        seen.add(key)
        return fresh

    async def text_of(request: Request) -> str | None:
        try:
            text = json.loads(await request.body())["text"]
        except (ValueError, KeyError, TypeError):
            return None
        return text if isinstance(text, str) else None

    async def item(request: Request) -> Response:
        key = request.path_params["key"]
        log.append([request.method, request.url.path, time.monotonic() - started])
        if request.method == "GET":
            if first(f"GET {key}"):
                return busy()
            return answer({"text": items[key]}) if key in items else answer({}, 404)
        if first(f"PUT {key}"):
            return busy(429, "0") if key.startswith("rate") else busy(503, "1")
        text = await text_of(request)
        if text is None:
            return answer({"error": "the body must be a JSON object with a text"}, 400)
        items[key] = text
        return answer({"text": text})

    async def notes(request: Request) -> Response:
        text = await text_of(request)
        log.append([request.method, request.url.path, time.monotonic() - started])
        if text is None:
            return answer({"error": "the body must be a JSON object with a text"}, 400)
        if first(f"POST {text}"):
            return busy()
        return answer({"text": text}, 201)

    async def always(request: Request) -> Response:
        log.append([request.method, request.url.path, time.monotonic() - started])
        return busy(503, "60" if request.url.path.startswith("/later/") else "0")

    async def written(request: Request) -> Response:
        return answer(log)

    return Starlette(
        routes=[
            Route("/items/{key}", item, methods=["GET", "PUT"]),
            Route("/notes", notes, methods=["POST"]),
            Route("/always/{key}", always, methods=["PUT"]),
            Route("/later/{key}", always, methods=["PUT"]),
            Route("/_log", written, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    config = uvicorn.Config(
        _app(), http="h11", lifespan="off", access_log=False, log_level="warning"
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
