"""The options of an HTTP probe, validated once: :class:`HttpOptions`.

The record keeps every option as given and, beside them, what they resolve to: the
send and read places, where the reflector's evidence holds the value, the ``read_url``
template and where the write response holds the id, the reflector switch and the
reflector's emit URL. A bad option is a ``UsageError`` in one sentence.
"""

from __future__ import annotations

import base64
import codecs
import dataclasses
from collections.abc import Mapping
from typing import Any

import httpx

from fidelity._core.errors import UsageError
from probes._http.body import body_template
from probes._http.evidence import PLACEHOLDER
from probes._http.places import ReadSpec, SendSpec, parse_read, parse_send
from probes._http.session import Login
from probes._http.templated import sample_url
from probes._http.url import check_url, shown_url
from probes._mcp.template import ArgumentTemplate
from probes._payload.expect import Expectation
from probes._payload.placeholders import PAYLOAD, TextTemplate

__all__ = ["DEFAULT_MAX_BODY", "HttpOptions"]

DEFAULT_MAX_BODY = 8 * 1024 * 1024
#: The placeholders of ``read_url`` (``{payload}`` as one path segment).
_READ_URL_NAMES = ("id", "n", "run")


@dataclasses.dataclass(frozen=True)
class HttpOptions:
    """The options of :func:`probes.http` as given, checked, and what they resolve to.

    The fields up to ``expect`` are the options as given; the rest are worked
    out from them. Creating one with a bad option raises ``UsageError``.
    """

    url: str
    send: str = "json:text"
    read: str | None = "json:text"
    method: str = "POST"
    headers: Mapping[str, str] | None = None
    timeout: float = 10.0
    read_url: str | None = None
    id_from: str | None = None
    concurrency: int = 1
    rate: float | None = None
    max_body: int = DEFAULT_MAX_BODY
    reflector: bool | None = None
    default_encoding: str = "utf-8"
    emit_charset: str | None = "utf-8"
    body: Mapping[str, Any] | None = None
    read_method: str = "GET"
    auth: tuple[str, str] | None = None
    expect: str | None = None
    retries: int = 2
    retry_writes: bool = False
    form: Mapping[str, str] | None = None
    multipart: bool = False
    login: Mapping[str, Any] | None = None
    send_spec: SendSpec = dataclasses.field(init=False)
    #: Where the value is read back (the default place until calibration, read=None).
    read_spec: ReadSpec = dataclasses.field(init=False)
    #: Where the reflector's evidence holds the value (``send='url'`` resolved).
    place: SendSpec = dataclasses.field(init=False)
    read_template: TextTemplate | None = dataclasses.field(init=False)
    id_spec: ReadSpec | None = dataclasses.field(init=False)
    #: The reflector switch in force: never with ``read_url``.
    uses_reflector: bool | None = dataclasses.field(init=False)
    emit_url: str = dataclasses.field(init=False)
    body_template: ArgumentTemplate | None = dataclasses.field(init=False)
    #: The URL as a template: ``{payload}`` standing for the send place of
    #: ``send='path'`` (as ``{value}``) when the URL holds no ``{value}``.
    template_url: str = dataclasses.field(init=False)
    #: The URL requests go to: without the credentials it held (they are in ``headers``).
    request_url: str = dataclasses.field(init=False)
    #: The URL as shown in names, records and messages: a password as ``***``.
    shown_url: str = dataclasses.field(init=False)
    #: The headers every request carries: those given, and basic auth from ``auth`` or
    #: the URL's credentials.
    request_headers: dict[str, str] = dataclasses.field(init=False)
    expected: Expectation = dataclasses.field(init=False)
    #: The login step (``login``) checked, or ``None``.
    login_step: Login | None = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        _check_url("url", self.url)
        self._resolve("send_spec", parse_send(self.send))
        self._resolve("template_url", self._template_url())
        self._resolve("read_spec", parse_read(self.read if self.read is not None else "json:text"))
        _positive("timeout", self.timeout)
        _positive("concurrency", self.concurrency, integer=True)
        _positive("max_body", self.max_body, integer=True)
        retries = self.retries
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise UsageError(f"retries={retries!r} must be a whole number from 0 to 10.")
        if self.rate is not None:
            _positive("rate", self.rate)
        _check_encoding(self.default_encoding)
        expected = Expectation.parse(self.expect, where="expect")
        if expected.uses_mark:
            raise UsageError(
                f"expect={self.expect!r} holds {{mark}}, but an HTTP probe sends the payload "
                "alone, so nothing carries the mark; expect text around {payload} only."
            )
        self._resolve("expected", expected)
        self._check_placeholder()
        self._resolve("place", self._evidence_place())
        self._check_read_url()
        if self.reflector and self.read_url is not None:
            raise UsageError("reflector=True measures one request; it cannot use read_url.")
        self._resolve("uses_reflector", False if self.read_url is not None else self.reflector)
        origin = httpx.URL(sample_url(self.url.replace(PLACEHOLDER, "v")))
        self._resolve("emit_url", str(origin.copy_with(raw_path=b"/_fidelity/emit")))
        if self.body is not None and self.send_spec.where in ("form", "multipart", "filename"):
            raise UsageError(
                f"body is a JSON body template; send={self.send!r} fills the body with a form."
            )
        self._resolve("body_template", body_template(self.body))
        self._check_form()
        self._resolve("login_step", Login.of(self.login) if self.login is not None else None)
        if self.body_template is not None and self.expect is None:
            self.body_template.refuse_embedded()
        self._resolve_credentials()

    def _resolve_credentials(self) -> None:
        headers = {str(k): str(v) for k, v in (self.headers or {}).items()}
        user, password, url = _credentials(self.template_url)
        if self.auth is not None:
            if not (isinstance(self.auth, tuple) and len(self.auth) == 2):
                raise UsageError("auth must be a (user, password) pair.")
            user, password = str(self.auth[0]), str(self.auth[1])
        shown = self.url
        if user is not None and password is not None:
            if not any(k.lower() == "authorization" for k in headers):
                token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
                headers["Authorization"] = f"Basic {token}"
            shown = shown_url(self.url)
        self._resolve("request_url", url)
        self._resolve("shown_url", shown)
        self._resolve("request_headers", headers)

    def _check_form(self) -> None:
        form = self.form
        if form is None:
            if self.multipart and self.send_spec.where not in ("multipart", "filename"):
                raise UsageError("multipart=True encodes the form; give form= (its fields).")
            return
        if not isinstance(form, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in form.items()
        ):
            raise UsageError("form must map field names to text (with {payload}, {n}, {run}).")
        if self.body is not None or self.send_spec.where in ("json", "body"):
            raise UsageError(
                f"form is the request body; send={self.send!r} and body= fill it with JSON or "
                "text: give send='form:NAME' (or 'multipart:NAME'), query:NAME, header:NAME or "
                "path."
            )

    def _resolve(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _template_url(self) -> str:
        url = self.url
        if self.send_spec.where == "path" and PLACEHOLDER not in url and url.count(PAYLOAD) == 1:
            return url.replace(PAYLOAD, PLACEHOLDER)
        return url

    def _check_placeholder(self) -> None:
        count = self.template_url.count(PLACEHOLDER)
        if self.send_spec.where in ("path", "url") and count != 1:
            raise UsageError(
                f"send={self.send!r} needs the URL to hold {PLACEHOLDER} exactly once, e.g. "
                f"'http://host/items/{PLACEHOLDER}'; url={shown_url(self.url)!r} holds it "
                f"{count} times."
            )
        if self.send_spec.where not in ("path", "url") and count:
            raise UsageError(
                f"url={shown_url(self.url)!r} holds {PLACEHOLDER}, which only send='path' or "
                "send='url' fills."
            )

    def _evidence_place(self) -> SendSpec:
        """Where the reflector's evidence holds the value (``url`` resolved)."""
        if self.send_spec.where != "url":
            return self.send_spec
        before = self.template_url.split(PLACEHOLDER, 1)[0]
        if "?" in before and before.endswith("="):
            query = before.split("?", 1)[1]
            name = query.rsplit("&", 1)[-1][:-1]
            if name:
                return SendSpec(where="query", name=name)
        return SendSpec(where="path")

    def _check_read_url(self) -> None:
        read_url, id_from = self.read_url, self.id_from
        template: TextTemplate | None = None
        if read_url is not None:
            if not isinstance(read_url, str):
                raise UsageError(f"read_url={read_url!r} must be a URL string.")
            template = TextTemplate.parse(
                read_url, allowed=(*_READ_URL_NAMES, "payload"), where="read_url"
            )
            # An id from a Location header is a path (/items/1), not one segment.
            location = (id_from or "").lower().replace(" ", "") == "header:location"
            sample = {"id": "/1" if location else "1", "n": "1", "run": "r", "payload": "v"}
            _check_url("read_url", template.fill(sample))
        self._resolve("read_template", template)
        self._resolve("id_spec", _id_spec(id_from) if id_from is not None else None)
        has_id = template is not None and "id" in template.names
        if template is not None and has_id != (id_from is not None):
            raise UsageError(
                "read_url with {id} needs id_from (json:PATH, header:NAME or regex:PATTERN: "
                "where the write response holds the id), and id_from needs a read_url that "
                "holds {id}."
            )
        if read_url is None and id_from is not None:
            raise UsageError("id_from is only used with read_url.")


def _credentials(url: str) -> tuple[str | None, str | None, str]:
    """The user and password a URL holds (percent-decoded) and the URL without them."""
    scheme, sep, rest = url.partition("://")
    authority, slash, tail = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if not (sep and at):
        return None, None, url
    from urllib.parse import unquote

    user, _, password = userinfo.partition(":")
    return unquote(user), unquote(password), f"{scheme}://{host}{slash}{tail}"


def _id_spec(id_from: str) -> ReadSpec:
    try:
        spec = parse_read(id_from)
    except UsageError:
        spec = ReadSpec(where="")
    if spec.where not in ("json", "header", "regex"):
        raise UsageError(
            f"id_from={id_from!r} must say where the write response holds the id: "
            "json:PATH, header:NAME or regex:PATTERN (one group)."
        )
    return spec


def _positive(name: str, value: object, *, integer: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        what = "a positive integer" if integer else "a positive number"
        raise UsageError(f"{name}={value!r} must be {what}.")


def _check_url(name: str, url: object) -> str:
    if not isinstance(url, str):
        raise UsageError(f"{name}={url!r} must be a URL string.")
    check_url(name, url, parse_as=sample_url(url.replace(PLACEHOLDER, "v")))
    return url


def _check_encoding(name: str) -> None:
    try:
        codecs.lookup(name)
    except (LookupError, TypeError):
        raise UsageError(f"default_encoding={name!r} is not a codec Python knows.") from None
