"""The HTTP reflector's Starlette application.

Any path outside ``/_fidelity/`` *reflects*: the answer is a JSON object whose
``_fidelity`` member holds what arrived, every value armored (base64 of the exact
bytes plus code points, see :mod:`fidelity._core.armor`), for each place a client can put
a value, both as the ASGI server delivered the bytes (``raw``: the raw path, query
string, header bytes and body) and as Starlette decoded them (``decoded``, ``params``,
``form``, ``files``, ``json``). Nothing on the way back can alter that evidence.

With the control headers ``x-fidelity-place: SEND`` and ``x-fidelity-echo: PATH`` the
reflection also carries the value Starlette decoded at that send place (see
:mod:`probes._http.places`) as a plain JSON string at the dotted ``PATH``, so a client
reading ``json:PATH`` measures the round trip in the same request.

``POST /_fidelity/emit`` measures the response path alone: its JSON body
``{"value": ARMORED, "as": "json"|"text"|"header", "path": "a.b", "charset":
"utf-8"|null, "header": NAME}`` is answered with that value in a JSON body at
``path``, as a ``text/plain`` body (with the given charset parameter, or none), or in
the response header ``NAME``. A value the server stack cannot emit (a lone surrogate
in JSON, a header value outside latin-1 or refused by h11) is answered 500 with a
one-sentence JSON error.

Bounded by design: bodies over :data:`MAX_REQUEST` bytes are refused (413) before
they are read whole, so Starlette never spools an upload to disk; nothing is written
to files, and no code path acts on the payload beyond decoding and armoring it.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

import h11
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fidelity._core.armor import armor, unarmor
from fidelity._core.errors import UsageError
from fidelity._core.text import to_utf8
from probes._http.places import parse_send, put_path, server_values

__all__ = ["MAX_REQUEST", "REFLECTOR_HEADER", "app"]

#: Largest request body the reflector reads (below Starlette's 1 MiB upload spool limit).
MAX_REQUEST = 1024 * 1024 - 4096
#: Response header that marks the reflector's answers.
REFLECTOR_HEADER = "x-fidelity-reflector"
_IDENTITY = "param-fidelity http reflector"
_MARK = {REFLECTOR_HEADER: "1"}

Message = MutableMapping[str, Any]


class _TooLarge(Exception):
    pass


async def _read_body(request: Request) -> bytes:
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_REQUEST:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_REQUEST:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _replay(request: Request, body: bytes) -> Request:
    """A new request over the same scope whose body is ``body`` (already read)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(request.scope, receive)


def _armor_json(value: object) -> object:
    """The decoded JSON document with every string armored (keys kept as text)."""
    if isinstance(value, str):
        return armor(value)
    if isinstance(value, list):
        return [_armor_json(v) for v in value]
    if isinstance(value, dict):
        return {
            k.encode("utf-8", "backslashreplace").decode("utf-8"): _armor_json(v)
            for k, v in value.items()
        }
    return value


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_MARK)


async def _evidence(request: Request, body: bytes) -> dict[str, Any]:
    scope = request.scope
    replay = _replay(request, body)
    content_type = request.headers.get("content-type", "")
    out: dict[str, Any] = {
        "reflector": _IDENTITY,
        "method": request.method,
        "path": {"raw": armor(scope.get("raw_path") or b""), "decoded": armor(scope["path"])},
        "query": {
            "raw": armor(scope.get("query_string", b"")),
            "params": [
                {"name": armor(k), "value": armor(v)} for k, v in request.query_params.multi_items()
            ],
        },
        "headers": [
            {"name": armor(k), "raw": armor(v), "decoded": armor(v.decode("latin-1"))}
            for k, v in scope["headers"]
        ],
        "body": {"raw": armor(body), "content_type": armor(content_type)},
    }
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        try:
            out["json"] = {"value": _armor_json(await replay.json())}
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            out["json"] = {"error": f"not JSON: {exc}"}
    elif media in ("application/x-www-form-urlencoded", "multipart/form-data"):
        fields: list[dict[str, Any]] = []
        files: list[dict[str, Any]] = []
        try:
            async with replay.form(max_files=64, max_fields=256) as form:
                for name, value in form.multi_items():
                    if isinstance(value, UploadFile):
                        files.append(
                            {
                                "name": armor(name),
                                "filename": armor(value.filename or ""),
                                "content": armor(await value.read()),
                            }
                        )
                    else:
                        fields.append({"name": armor(name), "value": armor(value)})
        except Exception as exc:  # MultiPartException, and decoding errors of bad input
            out["form_error"] = f"{type(exc).__name__}: {exc}"
        out["form"] = fields
        out["files"] = files
    return out


def _json_response(content: object, status: int = 200) -> Response:
    """Starlette's JSONResponse, or a 500 naming why the value cannot be emitted."""
    try:
        return JSONResponse(content, status_code=status, headers=_MARK)
    except (UnicodeEncodeError, ValueError) as exc:
        return _error(500, f"Starlette's JSONResponse cannot encode the value ({exc}).")


async def reflect(request: Request) -> Response:
    """Answer with the armored evidence of everything that arrived."""
    try:
        body = await _read_body(request)
    except _TooLarge:
        return _error(413, f"request body larger than {MAX_REQUEST} bytes.")
    evidence = await _evidence(request, body)
    content: dict[str, Any] = {"_fidelity": evidence}
    place, echo = request.headers.get("x-fidelity-place"), request.headers.get("x-fidelity-echo")
    if place and echo:
        try:
            _raw, decoded = server_values(evidence, parse_send(place))
        except (UsageError, ValueError) as exc:
            return _error(400, f"bad x-fidelity-place header ({exc}).")
        if decoded is not None and echo.split(".", 1)[0] != "_fidelity":
            if isinstance(decoded, bytes):
                decoded = decoded.decode("latin-1")  # never happens for Starlette's str
            echoed = {**content, **put_path(echo, decoded)}
            try:
                return JSONResponse(echoed, headers=_MARK)
            except (UnicodeEncodeError, ValueError) as exc:
                evidence["echo_error"] = f"Starlette's JSONResponse cannot encode it ({exc})."
    return JSONResponse(content, headers=_MARK)


async def emit(request: Request) -> Response:
    """Answer with an armored value in the form the request asks for."""
    try:
        order = json.loads(await _read_body(request))
        value = unarmor(order["value"])
        form = order.get("as", "json")
    except _TooLarge:
        return _error(413, f"request body larger than {MAX_REQUEST} bytes.")
    except (ValueError, KeyError, TypeError, UsageError) as exc:
        return _error(400, f"emit needs a JSON body with an armored 'value' ({exc}).")
    if form == "json":
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        return _json_response(put_path(str(order.get("path") or "text"), text))
    data = value if isinstance(value, bytes) else to_utf8(value)
    if form == "text":
        charset = order.get("charset")
        content_type = f"text/plain; charset={charset}" if charset else "text/plain"
        return Response(data, headers={"content-type": content_type, **_MARK})
    if form == "header":
        name = str(order.get("header") or "x-fidelity-value")
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        try:
            response = Response(b"", headers={name: text, **_MARK})
        except UnicodeEncodeError as exc:
            return _error(500, f"Starlette encodes header values as latin-1 and cannot ({exc}).")
        try:  # uvicorn serves with h11: ask h11 itself whether it will send this header
            h11.Response(status_code=200, headers=response.raw_headers)
        except h11.LocalProtocolError as exc:
            return _error(500, f"h11 refuses to send the header value ({exc}).")
        return response
    return _error(400, f"emit 'as' must be json, text or header, not {form!r}.")


async def _hello(request: Request) -> Response:
    return JSONResponse({"reflector": _IDENTITY}, headers=_MARK)


async def _reflect_anything(scope: Message, receive: Any, send: Any) -> None:
    """Reflect every request no route claims, whatever its path holds (newlines too)."""
    if scope["type"] != "http":
        return
    response = await reflect(Request(scope, receive))
    await response(scope, receive, send)


def _build() -> Starlette:
    application = Starlette(
        routes=[
            Route("/_fidelity/emit", emit, methods=["POST"]),
            Route("/_fidelity/hello", _hello, methods=["GET"]),
        ]
    )
    application.router.default = _reflect_anything
    return application


app = _build()
