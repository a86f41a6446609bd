"""A small authenticated notes API for the request options' tests, run as
``python http_api.py USER:PASSWORD TOKEN``.

Binds 127.0.0.1 on an OS-assigned port, prints ``listening on http://127.0.0.1:PORT/``
(flushed) and serves until killed (Starlette under uvicorn). Every route but
``/_bodies`` wants basic auth with USER:PASSWORD or ``Authorization: Bearer TOKEN``
(401 otherwise, echoing the ``Authorization`` header it got, and the part after its
scheme alone, as careless servers do).
Answers are JSON with non-ASCII escaped (as ``json.dumps`` writes it),
so a lone surrogate the client sent as an escape comes back as one.

- ``POST /notes`` ``{"title": ..., "owner": ...}``: ``owner`` is required (422 "Field
  required" without it); answers the note ``{"id", "title", "owner"}`` (201);
- ``GET /notes/ID``: the note; ``PATCH /notes/ID``: changes the fields given;
  ``PUT /notes/ID``: replaces the note (title and owner required); note 1 is there
  from the start;
- ``GET /search?scope=notes&title=...``: a filter, ``{"title": ..., "hits": [ids]}``
  (422 without ``scope=notes``);
- ``GET /_bodies``: every request body received so far, as Latin-1 text (no auth).
"""

from __future__ import annotations

import base64
import json
import socket
import sys
from typing import Any


def _app(basic: str, token: str) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    notes: dict[int, dict[str, Any]] = {1: {"id": 1, "title": "seed", "owner": "ops"}}
    bodies: list[str] = []
    good = {
        "Basic " + base64.b64encode(basic.encode()).decode(),
        "Bearer " + token,
    }

    def answer(document: object, status: int = 200) -> Response:
        return Response(json.dumps(document), status, media_type="application/json")

    async def guarded(request: Request) -> tuple[Response | None, Any]:
        raw = await request.body()
        bodies.append(raw.decode("latin-1"))
        got = request.headers.get("authorization")
        if got not in good:
            # Careless, as some servers are: the credentials it got, echoed back, and
            # the part after the scheme alone (the token, the base64 of user:password).
            token = (got or "").partition(" ")[2]
            return answer({"detail": "Not authenticated", "got": got, "token": token}, 401), None
        if not raw:
            return None, None
        try:
            return None, json.loads(raw)
        except ValueError:
            return answer({"detail": "body is not JSON"}, 400), None

    def missing(document: Any, *fields: str) -> Response | None:
        if not isinstance(document, dict):
            return answer({"detail": "a JSON object is required"}, 422)
        for field in fields:
            if not isinstance(document.get(field), str):
                return answer({"detail": [{"loc": ["body", field], "msg": "Field required"}]}, 422)
        return None

    async def create(request: Request) -> Response:
        refused, document = await guarded(request)
        refused = refused or missing(document, "title", "owner")
        if refused is not None:
            return refused
        ident = max(notes) + 1
        notes[ident] = {"id": ident, "title": document["title"], "owner": document["owner"]}
        return answer(notes[ident], 201)

    async def one(request: Request) -> Response:
        refused, document = await guarded(request)
        if refused is not None:
            return refused
        ident = int(request.path_params["ident"])
        if ident not in notes:
            return answer({"detail": "Not found"}, 404)
        if request.method == "PUT":
            refused = missing(document, "title", "owner")
            if refused is not None:
                return refused
            notes[ident] = {"id": ident, "title": document["title"], "owner": document["owner"]}
        elif request.method == "PATCH":
            if not isinstance(document, dict):
                return answer({"detail": "a JSON object is required"}, 422)
            notes[ident].update({k: v for k, v in document.items() if k in ("title", "owner")})
        return answer(notes[ident])

    async def search(request: Request) -> Response:
        refused, _ = await guarded(request)
        if refused is not None:
            return refused
        if request.query_params.get("scope") != "notes":
            return answer({"detail": [{"loc": ["query", "scope"], "msg": "Field required"}]}, 422)
        title = request.query_params.get("title", "")
        hits = [n["id"] for n in notes.values() if n["title"] == title]
        return answer({"title": title, "hits": hits})

    async def recorded(request: Request) -> Response:
        return answer(bodies)

    return Starlette(
        routes=[
            Route("/notes", create, methods=["POST"]),
            Route("/notes/{ident:int}", one, methods=["GET", "PATCH", "PUT"]),
            Route("/search", search, methods=["GET"]),
            Route("/_bodies", recorded, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    basic, token = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    config = uvicorn.Config(
        _app(basic, token), http="h11", lifespan="off", access_log=False, log_level="warning"
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
