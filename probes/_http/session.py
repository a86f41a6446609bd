"""A session an HTTP probe logs into before its first request, and the forms it sends.

:class:`Login` is the ``login=`` option checked: the URL of the login step, its form
fields (``application/x-www-form-urlencoded``) or JSON body, and where a CSRF token
comes from (``cookie:NAME``, or ``field:NAME``: a form field of the login page or a
``<meta name=NAME content=...>``; either way the login page is read with a ``GET``
first, and a token from a cookie is taken again after the login, which may rotate it) and where it
goes back (``header:NAME`` on every request, or ``form:NAME`` in the login form and in
every form the probe sends). :func:`log_in` runs the step and gives the
:class:`Session`: the cookies the service set (sent back on every request, as one
``Cookie`` header: the probe sends its requests past httpx's cookie jar) and the token.
The cookies' and the token's values are secrets: never shown, in an excerpt or
anywhere else.

:func:`form_fields` fills a form template: a value that is exactly ``{payload}`` is the
payload, ``{n}`` and ``{run}`` in a value are filled, any other brace is literal.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Callable, Mapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

import httpx

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.render import safe
from fidelity._core.secrets import looks_secret, remember
from probes._http.exchange import ExchangeFailure, Reply
from probes._payload.placeholders import Filled

__all__ = ["Login", "Session", "form_fields", "log_in", "with_etag"]

_PER_REQUEST = re.compile(r"\{(n|run)\}")
_INPUT = re.compile(r"<input\b[^>]*>", re.IGNORECASE)
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r"""([a-zA-Z_:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


def form_fields(form: Mapping[str, str], values: Filled) -> dict[str, str]:
    """The form ``form`` (a template) filled for one payload."""
    out: dict[str, str] = {}
    for name, value in form.items():
        if value == "{payload}":
            out[name] = values.payload
        else:
            out[name] = _PER_REQUEST.sub(lambda m: values.value(m.group(1)), value)
    return out


@dataclasses.dataclass(frozen=True)
class Login:
    """The login step, checked: ``url``, its ``form`` fields or JSON ``body`` (one of
    them), the token's source ``csrf_from`` and its place ``csrf_to``."""

    url: str
    form: Mapping[str, str] | None = None
    body: Mapping[str, Any] | None = None
    csrf_from: str | None = None
    csrf_to: str | None = None

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Login:
        """The login step of a ``login=`` mapping; a bad one is a ``UsageError``."""
        if not isinstance(value, Mapping):
            raise UsageError("login must be a mapping with url and form or body.")
        unknown = sorted(set(value) - {"url", "form", "body", "csrf_from", "csrf_to"})
        if unknown:
            raise UsageError(
                f"login has unknown keys {', '.join(map(repr, unknown))}; the keys are url, "
                "form, body, csrf_from and csrf_to."
            )
        url, form, body = value.get("url"), value.get("form"), value.get("body")
        if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
            raise UsageError(f"login url={safe(str(url))!r} must be an http(s) URL.")
        if form is not None and body is not None:
            raise UsageError("the login step sends a form or a JSON body, not both.")
        if form is not None and not (
            isinstance(form, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in form.items())
        ):
            raise UsageError("the login form must map field names to text.")
        if body is not None and not isinstance(body, Mapping):
            raise UsageError("the login body must be a JSON object.")
        csrf_from, csrf_to = value.get("csrf_from"), value.get("csrf_to")
        _check_place("csrf_from", csrf_from, ("cookie", "field"))
        _check_place("csrf_to", csrf_to, ("header", "form"))
        if (csrf_from is None) != (csrf_to is None):
            raise UsageError(
                "a CSRF token needs both where it comes from (cookie:NAME or field:NAME) and "
                "where it goes back (header:NAME or form:NAME)."
            )
        return cls(url, form, body, csrf_from, csrf_to)


def _check_place(key: str, value: object, kinds: tuple[str, str]) -> None:
    if value is None:
        return
    kind, sep, name = str(value).partition(":")
    if not isinstance(value, str) or not sep or kind not in kinds or not name:
        raise UsageError(f"{key}={safe(str(value))!r} must be {kinds[0]}:NAME or {kinds[1]}:NAME.")


@dataclasses.dataclass
class Session:
    """What a login left: the cookies to send back and the CSRF token, if any."""

    cookies: dict[str, str] = dataclasses.field(default_factory=dict)
    token: str | None = None
    token_to: str | None = None

    def headers(self) -> dict[str, str]:
        """The headers every request carries: ``Cookie``, and the token's header."""
        out: dict[str, str] = {}
        if self.cookies:
            out["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.token is not None and self.token_to and self.token_to.startswith("header:"):
            out[self.token_to.partition(":")[2]] = self.token
        return out

    def form(self) -> dict[str, str]:
        """The field every form carries: the token, when it goes in a form."""
        if self.token is not None and self.token_to and self.token_to.startswith("form:"):
            return {self.token_to.partition(":")[2]: self.token}
        return {}

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values no output may show: the cookies' and the token."""
        found = [*self.cookies.values(), *([self.token] if self.token else [])]
        return tuple(s for s in found if s)

    def keep(self, reply: Reply) -> None:
        """Keep the cookies ``reply`` sets."""
        for header in reply.response.headers.get_list("set-cookie"):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(header)
            except CookieError:
                continue
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value


def _field(text: str, name: str) -> str | None:
    """The value of the form field (or ``<meta>``) called ``name`` in an HTML page."""
    for pattern, key, value in ((_INPUT, "name", "value"), (_META, "name", "content")):
        for tag in pattern.findall(text):
            attrs = {
                m.group(1).lower(): m.group(2) or m.group(3) or m.group(4) or ""
                for m in _ATTR.finditer(tag)
            }
            if attrs.get(key) == name and value in attrs:
                return html.unescape(attrs[value])
    return None


def log_in(
    login: Login,
    client: httpx.Client,
    send: Callable[[httpx.Request], Reply],
) -> Session:
    """Run the login step with ``client``'s requests sent by ``send``; the session it
    opened. A login page or step that fails is a ``TargetError`` in one sentence."""
    # Every output of the run masks the login form's secret fields (its password, not
    # its user name), then the session's cookies and token once it has them.
    remember(*(v for k, v in (login.form or {}).items() if looks_secret(k)))
    session = Session(token_to=login.csrf_to)
    where = login.url
    kind, _, name = (login.csrf_from or "").partition(":")
    if kind:
        # The login page: its form field holds the token, or it sets the token's cookie.
        page = _send(send, client.build_request("GET", where), "the login page")
        session.keep(page)
        found = _field(page.response.text, name) if kind == "field" else None
        session.token = found if kind == "field" else session.cookies.get(name)
        if session.token is None and kind == "field":
            raise TargetError(
                f"the login page {safe(where)} has no form field or meta tag named "
                f"{safe(name)!r} to take the CSRF token from (--csrf-from field:{safe(name)})."
            )
    headers = session.headers()
    if login.body is not None:
        request = client.build_request(
            "POST",
            where,
            content=json.dumps(dict(login.body)).encode(),
            headers={**headers, "content-type": "application/json"},
        )
    else:
        fields = {**dict(login.form or {}), **session.form()}
        request = client.build_request("POST", where, data=fields, headers=headers)
    reply = _send(send, request, "the login")
    if reply.status >= 400:
        raise TargetError(
            f"the login at {safe(where)} was answered HTTP {reply.status} "
            f"{safe(reply.response.reason_phrase)}: {reply.excerpt()} (check --login-form or "
            "--login-body, and the CSRF token's --csrf-from and --csrf-to)."
        )
    session.keep(reply)
    if kind == "cookie":
        session.token = session.cookies.get(name)  # as the login left it (it may rotate)
        if session.token is None:
            raise TargetError(
                f"the login at {safe(where)} set no cookie named {safe(name)!r} to take the "
                f"CSRF token from (--csrf-from cookie:{safe(name)})."
            )
    if not session.cookies and session.token is None:
        raise TargetError(
            f"the login at {safe(where)} was answered HTTP {reply.status} but set no cookie: "
            "nothing keeps the session (check the login URL and its fields)."
        )
    remember(*session.secrets)
    return session


def _send(send: Callable[[httpx.Request], Reply], request: httpx.Request, what: str) -> Reply:
    try:
        return send(request)
    except ExchangeFailure as failure:
        raise TargetError(f"{what} failed: {failure.error}") from None


def with_etag(
    request: httpx.Request,
    reply: Reply,
    client: httpx.Client,
    send: Callable[[httpx.Request], Reply],
    headers: Mapping[str, str],
) -> Reply:
    """``request`` sent again with ``If-Match``: the ``ETag`` a ``GET`` of its URL
    answers (the service refused it with ``reply``, 412 or 428); ``reply`` itself, its
    note saying why, when no ``ETag`` can be had."""
    try:
        current = send(client.build_request("GET", request.url, headers=dict(headers)))
    except ExchangeFailure:
        current = None
    etag = current.response.headers.get("etag") if current is not None else None
    if current is None or current.status >= 400 or not etag:
        reply.note = "the service asked for If-Match, and a GET of the URL gave no ETag"
        return reply
    if request.headers.get("if-match") == etag:
        return reply
    request.headers["If-Match"] = etag
    return send(request)
