"""A classic issue tracker: a login form, a session cookie and a form token, run as
``python http_tracker.py USER:PASSWORD``.

Reproduces what a real tracker asks of a client, for the tests of ``--login`` and
``--form``. Binds 127.0.0.1 on an OS-assigned port, prints ``listening on
http://127.0.0.1:PORT/`` (flushed) and serves until killed (Starlette under uvicorn).

- ``GET /login``: an HTML login form with a hidden ``csrf_token`` field; the same token
  is set as the ``csrftoken`` cookie (a new one each time).
- ``POST /login`` (a form: ``username``, ``password``, and ``csrf_token`` or the
  ``X-CSRFToken`` header): the token must match the ``csrftoken`` cookie (403
  otherwise), the credentials USER:PASSWORD (401 otherwise); sets the ``session``
  cookie and answers ``303`` to ``/issues``.
- ``POST /issues`` (a form, urlencoded or multipart: ``title``, ``body``, and the
  session's token as the ``csrf_token`` field or the ``X-CSRFToken`` header): 401
  without a session; 403 without the right token, the page quoting the cookies it got,
  as careless frameworks' debug pages do; else it files the issue and answers ``303``
  to ``/issues/N`` with ``{"id": N}``.
- ``GET /api/issues/N`` (with a session): ``{"id", "title", "body"}``, the title with
  its surrounding whitespace stripped, as the tracker's form handling does.
- ``GET /_log``: the content type of every ``POST /issues`` and the sessions opened.
"""

from __future__ import annotations

import json
import secrets
import socket
import sys
from typing import Any


def _app(user: str, password: str) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route

    sessions: dict[str, str] = {}  # session id -> its CSRF token
    issues: dict[int, dict[str, Any]] = {}
    log: dict[str, list[str]] = {"content_types": [], "sessions": []}

    def answer(document: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return Response(json.dumps(document), status, headers, media_type="application/json")

    async def login_page(request: Request) -> Response:
        token = secrets.token_urlsafe(16)
        page = (
            "<html><body><form method='post' action='/login'>"
            f'<input type="hidden" name="csrf_token" value="{token}">'
            '<input name="username"><input name="password" type="password">'
            "</form></body></html>"
        )
        response = HTMLResponse(page)
        response.set_cookie("csrftoken", token, httponly=True)
        return response

    async def login(request: Request) -> Response:
        form = await request.form()
        token = request.cookies.get("csrftoken")
        given = form.get("csrf_token") or request.headers.get("x-csrftoken")
        if not token or given != token:
            return answer({"error": "CSRF verification failed"}, 403)
        if (form.get("username"), form.get("password")) != (user, password):
            return answer({"error": "wrong user name or password"}, 401)
        session = secrets.token_urlsafe(24)
        sessions[session] = token
        log["sessions"].append(session)
        response = Response(status_code=303, headers={"location": "/issues"})
        response.set_cookie("session", session, httponly=True)
        return response

    async def file_issue(request: Request) -> Response:
        session = request.cookies.get("session")
        if session not in sessions:
            return answer({"error": "log in first"}, 401)
        log["content_types"].append(request.headers.get("content-type", "").split(";")[0])
        form = await request.form()
        token = form.get("csrf_token") or request.headers.get("x-csrftoken")
        if token != sessions[session]:
            cookies = request.headers.get("cookie", "")
            return answer({"error": f"CSRF token missing or wrong (cookies: {cookies})"}, 403)
        title, body = form.get("title"), form.get("body", "")
        if not isinstance(title, str) or not isinstance(body, str):
            return answer({"error": "title and body are text fields"}, 400)
        ident = len(issues) + 1
        issues[ident] = {"id": ident, "title": title.strip(), "body": body}
        return answer({"id": ident}, 303, {"location": f"/issues/{ident}"})

    async def read_issue(request: Request) -> Response:
        if request.cookies.get("session") not in sessions:
            return answer({"error": "log in first"}, 401)
        ident = int(request.path_params["ident"])
        return answer(issues[ident]) if ident in issues else answer({"error": "none"}, 404)

    async def written(request: Request) -> Response:
        return answer(log)

    return Starlette(
        routes=[
            Route("/login", login_page, methods=["GET"]),
            Route("/login", login, methods=["POST"]),
            Route("/issues", file_issue, methods=["POST"]),
            Route("/api/issues/{ident:int}", read_issue, methods=["GET"]),
            Route("/_log", written, methods=["GET"]),
        ]
    )


def main() -> None:
    import uvicorn

    user, _, password = sys.argv[1].partition(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    config = uvicorn.Config(
        _app(user, password), http="h11", lifespan="off", access_log=False, log_level="warning"
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
