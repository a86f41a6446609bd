"""An HTTP API whose operations answer malformed requests in every way the error
contract tells apart (``fidelity probe --openapi SPEC --errors``), served by uvicorn on
loopback with its OpenAPI document at ``/openapi.json`` (written by hand).

Run as ``python http_errors.py CALLS``: prints ``listening on URL`` and serves until
stopped; every request's ``METHOD /path`` is appended to CALLS. Operations:

- ``POST /notes`` (JSON: ``title`` string required, ``count`` integer): a bad body is
  422 ``{"error": "..."}`` naming the field and the problem (an extra field too);
- ``POST /crash``: every request is 500, an HTML page holding a Python traceback;
- ``POST /lenient``: every request is 200 ``{"ok": true}``;
- ``GET /vague?q=`` (``q`` required, ``n`` an integer): a bad query is 400 ``bad
  request``; a good one 200;
- ``GET /trace?n=`` (``n`` an integer, required): a bad query is 400 with a plain-text
  traceback;
- ``DELETE /notes/{id}``: 204 (never called without ``--yes``).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

CALLS = Path(sys.argv[1]) if len(sys.argv) > 1 else None
_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/api/app.py", line 40, in handler\n'
    "    n = int(request.query_params['n'])\n"
    "ValueError: invalid literal for int() with base 10: 'fidelity'"
)
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query(name: str, schema: dict[str, Any], required: bool) -> dict[str, Any]:
    return {"in": "query", "name": name, "required": required, "schema": schema}


NOTE = {
    "type": "object",
    "properties": {"title": _STRING, "count": _INTEGER},
    "required": ["title"],
}
DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "errors", "version": "1"},
    "paths": {
        "/notes": {"post": {"requestBody": _body(NOTE), "responses": {"201": {}}}},
        "/crash": {"post": {"requestBody": _body(NOTE), "responses": {"200": {}}}},
        "/lenient": {"post": {"requestBody": _body(NOTE), "responses": {"200": {}}}},
        "/vague": {
            "get": {
                "parameters": [_query("q", _STRING, True), _query("n", _INTEGER, False)],
                "responses": {"200": {}},
            }
        },
        "/trace": {"get": {"parameters": [_query("n", _INTEGER, True)], "responses": {"200": {}}}},
        "/notes/{id}": {
            "delete": {
                "parameters": [{"in": "path", "name": "id", "required": True, "schema": _STRING}],
                "responses": {"204": {}},
            }
        },
    },
}


def _problem(body: object) -> str:
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if "title" not in body:
        return "missing required field 'title'"
    for name, value in body.items():
        if name not in NOTE["properties"]:
            return f"unknown field '{name}'"
        kind = str if name == "title" else int
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"field '{name}' must be a {'string' if kind is str else 'integer'}"
    return ""


async def document(request: Request) -> Response:
    return JSONResponse(DOCUMENT)


async def notes(request: Request) -> Response:
    try:
        body = json.loads(await request.body())
    except ValueError:
        return JSONResponse({"error": "the body is not JSON"}, status_code=400)
    wrong = _problem(body)
    if wrong:
        return JSONResponse({"error": wrong}, status_code=422)
    return JSONResponse(body, status_code=201)


async def crash(request: Request) -> Response:
    return HTMLResponse(f"<html><body><pre>{_TRACE}</pre></body></html>", status_code=500)


async def lenient(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def vague(request: Request) -> Response:
    q, n = request.query_params.get("q"), request.query_params.get("n", "0")
    if q is None or not n.isdigit() or set(request.query_params) - {"q", "n"}:
        return PlainTextResponse("bad request", status_code=400)
    return JSONResponse({"q": q})


async def trace(request: Request) -> Response:
    n = request.query_params.get("n", "")
    if not n.isdigit() or set(request.query_params) - {"n"}:
        return PlainTextResponse(_TRACE, status_code=400)
    return JSONResponse({"n": int(n)})


async def delete(request: Request) -> Response:
    return Response(status_code=204)


async def record(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "http" and CALLS is not None:
        with CALLS.open("a", encoding="utf-8") as out:
            out.write(f"{scope['method']} {scope['path']}\n")
    await app(scope, receive, send)


app = Starlette(
    routes=[
        Route("/openapi.json", document),
        Route("/notes", notes, methods=["POST"]),
        Route("/crash", crash, methods=["POST"]),
        Route("/lenient", lenient, methods=["POST"]),
        Route("/vague", vague, methods=["GET"]),
        Route("/trace", trace, methods=["GET"]),
        Route("/notes/{id}", delete, methods=["DELETE"]),
    ]
)


def main() -> None:
    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(record, log_level="error", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
