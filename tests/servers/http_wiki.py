"""A wiki-like page store keyed by title, with ETags, run as ``python http_wiki.py FILE``.

Reproduces what a real wiki's JSON API does to a client, for the tests of ``{payload}``
in the URL, ``If-Match`` and ``--restart``. Binds 127.0.0.1 on an OS-assigned port,
prints ``listening on http://127.0.0.1:PORT/`` (flushed) and serves until killed
(Starlette under uvicorn).

- ``PUT /pages/TITLE`` ``{"text": ...}``: TITLE is one path segment, percent-decoded
  from the raw path (a ``/`` in a title is ``%2F``). A new page is created (201). An
  existing page is changed only with ``If-Match`` holding its current ``ETag``: 428
  without it, 412 with another one (as WebDAV servers and MediaWiki-like APIs answer).
  Answers ``{"title", "text"}`` with the new ``ETag``.
- ``GET /pages/TITLE``: ``{"title", "text"}`` and its ``ETag``; 404 when there is none.
- Every write saves the whole store to FILE (JSON, escapes kept). On start, and again on
  ``SIGHUP`` (a restart that keeps the port), the store is loaded from FILE, and, as the
  wiki does when it reloads from disk, a lone surrogate in a text becomes U+FFFD: a
  rewrite that only a read after a restart shows.
- ``GET /_writes``: how many PUTs were answered 428 and 412, how many changed a page,
  and the ``X-Request-Id`` header of every request that had one, in order; ``GET
  /_pid``: the server's process id (for a test's restart command).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import sys
from typing import Any
from urllib.parse import unquote


def _reloaded(text: str) -> str:
    """``text`` as the wiki reads it from disk: a lone surrogate becomes U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _app(path: str) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    pages: dict[str, str] = {}
    counts: dict[str, Any] = {"428": 0, "412": 0, "written": 0, "request_ids": []}

    def load() -> None:
        stored: dict[str, str] = {}
        if os.path.exists(path):
            with open(path, encoding="ascii") as f:
                stored = json.load(f)
        pages.clear()
        pages.update({_reloaded(k): _reloaded(v) for k, v in stored.items()})

    def save() -> None:
        with open(path + ".tmp", "w", encoding="ascii") as f:
            json.dump(pages, f)  # ensure_ascii: a lone surrogate kept as its escape
        os.replace(path + ".tmp", path)

    def etag(title: str) -> str:
        digest = hashlib.sha256(json.dumps([title, pages[title]]).encode("ascii")).hexdigest()
        return f'"{digest[:16]}"'

    def answer(document: Any, status: int = 200, tag: str | None = None) -> Response:
        headers = {"etag": tag} if tag else None
        body = json.dumps(document)
        return Response(body, status, headers=headers, media_type="application/json")

    def title_of(request: Request) -> str:
        raw = request.scope["raw_path"].decode("ascii").split("?", 1)[0]
        return unquote(raw.removeprefix("/pages/"))

    async def page(request: Request) -> Response:
        title = title_of(request)
        if "x-request-id" in request.headers:
            counts["request_ids"].append(request.headers["x-request-id"])
        if request.method == "GET":
            if title not in pages:
                return answer({"error": "no such page"}, 404)
            return answer({"title": title, "text": pages[title]}, tag=etag(title))
        try:
            document = json.loads(await request.body())
            text = document["text"]
            assert isinstance(text, str)
        except (ValueError, KeyError, TypeError, AssertionError):
            return answer({"error": 'the body must be {"text": "..."}'}, 400)
        status = 201
        if title in pages:
            given = request.headers.get("if-match")
            if given is None:
                counts["428"] += 1
                return answer({"error": "this page exists: send If-Match with its ETag"}, 428)
            if given != etag(title):
                counts["412"] += 1
                return answer({"error": "the page changed since you read it"}, 412)
            status = 200
        pages[title] = text
        counts["written"] += 1
        save()
        return answer({"title": title, "text": text}, status, tag=etag(title))

    async def writes(request: Request) -> Response:
        return answer(counts)

    async def pid(request: Request) -> Response:
        return answer(os.getpid())

    load()
    signal.signal(signal.SIGHUP, lambda *_: load())
    return Starlette(
        routes=[
            Route("/pages/{rest:path}", page, methods=["GET", "PUT"]),
            Route("/_writes", writes, methods=["GET"]),
            Route("/_pid", pid, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    app = _app(sys.argv[1])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    config = uvicorn.Config(app, http="h11", lifespan="off", access_log=False, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
