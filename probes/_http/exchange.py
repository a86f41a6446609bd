"""One bounded HTTP exchange over a synchronous httpx client.

An exchange sends one request and reads its response with every wait bounded: httpx's
connect/read/write/pool timeouts, plus a total deadline for the whole exchange
(httpx's read timeout is per read and never fires against a server that drips a byte
a second; :mod:`probes._http.deadline` caps every wait at the time left), and a cap
on the body size, read streaming (a 50 MiB body is never read whole). Failures
become :class:`ExchangeFailure` carrying the outcome status. An exchange is sent once:
:mod:`probes._http.retry` decides whether the probe sends it again (never after a
timeout, which may have taken effect).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from fidelity._core.kinds import Status
from fidelity._core.render import safe
from probes._http.deadline import deadline
from probes._http.decoding import BodyDecoder, BodyTooLarge, CodingRefused, DecodeFailed
from probes._http.places import ReadSpec, get_path
from probes._payload.placeholders import Filled

__all__ = ["EXCERPT", "ExchangeFailure", "Pacer", "Reply", "exchange"]

#: Code points of a response body kept in a ``rejected`` observation's error.
EXCERPT = 200


class ExchangeFailure(Exception):
    """An exchange that ended without a usable response: ``status`` says how."""

    def __init__(
        self,
        status: Status,
        error_type: str,
        error: str,
        *,
        client_side: bool = False,
        unanswered: bool = False,
    ) -> None:
        super().__init__(error)
        self.status = status
        self.error_type = error_type
        self.error = error
        self.client_side = client_side
        #: True when the connection failed before a byte of the response came back (a
        #: reset, a refused connection): a request that is safe to send again may be.
        self.unanswered = unanswered


class Reply:
    """A complete response: ``response`` holds the whole (capped) body for decoding.

    ``json()`` parses the body once and keeps the document (or the error). ``secrets``
    (the probe's credentials) are shown as ``***`` in the excerpt, should the server
    echo them.
    """

    __slots__ = ("_document", "_error", "note", "response", "secrets")

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._document: Any = None
        self._error: ValueError | None = None
        self.secrets: tuple[str, ...] = ()
        #: Why an answer "not now" (429, 503) stands: retried as often as allowed, or
        #: a write that is not sent twice (see :mod:`probes._http.retry`).
        self.note = ""

    def json(self) -> Any:
        """The body parsed as JSON (httpx's ``Response.json``), memoized."""
        if self._error is not None:
            raise self._error
        if self._document is None:
            try:
                self._document = self.response.json()
            except ValueError as exc:
                self._error = exc
                raise
        return self._document

    @property
    def status(self) -> int:
        """The HTTP status code."""
        return self.response.status_code

    def excerpt(self) -> str:
        """A bounded, terminal-safe excerpt of the body."""
        text = self.response.content[: EXCERPT * 4].decode("utf-8", "replace")
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return safe(text[:EXCERPT])

    def read(self, spec: ReadSpec, values: Filled | None = None) -> tuple[bool, object, str]:
        """``(found, value, why_not)``: the value at ``spec`` (``values`` fill the
        placeholders of a ``json:`` path). A ``json:`` read of a body that is not JSON
        raises ``ValueError``."""
        where, name = spec.where, spec.name
        response = self.response
        if where == "json":
            found, value = get_path(self.json(), name, values)
            return (
                (True, value, "")
                if found
                else (False, None, f"the response has no value at json:{name}.")
            )
        if where == "body":
            return True, response.text, ""
        if where == "header":
            header = response.headers.get(name)
            return (
                (True, header, "")
                if header is not None
                else (False, None, f"the response has no {name} header.")
            )
        match = spec.pattern.search(response.text)
        if match is None:
            return False, None, f"the pattern of read=regex:{name} does not match the response."
        return True, match.group(1), ""


class Pacer:
    """Spaces request starts at least ``1/rate`` seconds apart (``rate`` in requests/s).

    Shared by the probe's worker threads: each takes the next free slot.
    """

    def __init__(self, rate: float | None) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self.next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Wait for this request's slot."""
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self.next)
            self.next = slot + self.interval
        if slot > now:
            time.sleep(slot - now)


def _origin(request: httpx.Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc.decode('ascii', 'replace')}"


def _dropped(origin: str, exc: httpx.HTTPError) -> str:
    """One sentence for a connection that failed after it was made."""
    detail = str(exc).strip().rstrip(".")
    if detail:
        return f"the connection to {origin} failed mid-exchange ({detail})."
    return (
        f"the connection to {origin} failed mid-exchange: it was closed before a complete "
        f"answer arrived ({type(exc).__name__})."
    )


def _fits(response: httpx.Response, max_body: int) -> bool:
    """Whether the body is declared, unencoded and within ``max_body`` bytes."""
    headers = response.headers
    length = headers.get("content-length")
    return (
        length is not None
        and length.isdigit()
        and int(length) <= max_body
        and "content-encoding" not in headers
    )


def _decoded(response: httpx.Response, origin: str, max_body: int, ends: float) -> list[bytes]:
    """The body of ``response``, its content coding undone, read raw in chunks: at most
    ``max_body`` bytes decoded (see :mod:`probes._http.decoding`), and the deadline
    ``ends`` (a ``time.monotonic()`` value) kept over the decoding too."""
    try:
        decoder = BodyDecoder(response.headers.get("content-encoding"), max_body)
    except CodingRefused as exc:
        raise ExchangeFailure(
            Status.BROKEN, "ContentEncoding", f"the response from {origin} was not read: {exc}."
        ) from None
    chunks: list[bytes] = []
    try:
        for raw in response.iter_raw():
            chunks.append(decoder.feed(raw))
            if time.monotonic() > ends:
                raise httpx.ReadTimeout("the exchange's deadline passed while decoding")
        chunks.append(decoder.finish())
    except BodyTooLarge:
        raise ExchangeFailure(
            Status.BROKEN,
            "BodyTooLarge",
            f"the response from {origin} is larger than max_body={max_body} bytes"
            f"{' once decoded' if decoder.coding else ''}; it was not read further.",
        ) from None
    except DecodeFailed as exc:
        raise ExchangeFailure(
            Status.BROKEN,
            "DecodingError",
            f"the response from {origin} is not valid {decoder.coding} ({safe(str(exc))}).",
        ) from None
    return chunks


def exchange(
    transport: httpx.BaseTransport,
    request: httpx.Request,
    *,
    pacer: Pacer,
    timeout: float,
    max_body: int,
    default_encoding: str = "utf-8",
    sent: Callable[[], object] | None = None,
) -> Reply:
    """Send ``request`` once and read the whole response, or raise ``ExchangeFailure``.

    ``request`` comes from ``httpx.Client.build_request`` and goes straight to the
    client's transport: the probe uses none of what ``Client.send`` adds (auth,
    redirects, cookies, event hooks), and skipping it saves a fifth of the client's
    time per request. ``transport`` must be a
    :class:`~probes._http.deadline.DeadlineTransport` for ``timeout`` to bound the
    exchange as a whole. A text body without a charset is decoded with
    ``default_encoding``. ``sent`` is called once, just before the request goes out.
    """
    pacer.wait()
    origin = _origin(request)
    ends = time.monotonic() + timeout
    if sent is not None:
        sent()
    answered = False
    try:
        with deadline(timeout):
            response = transport.handle_request(request)
            answered = True
            response.request = request
            response.default_encoding = default_encoding
            try:
                if _fits(response, max_body):
                    response.read()  # h11 reads no more than the declared length
                    return Reply(response)
                chunks = _decoded(response, origin, max_body, ends)
            finally:
                response.close()
    except httpx.TimeoutException as exc:
        raise ExchangeFailure(
            Status.TIMEOUT,
            type(exc).__name__,
            f"no complete answer from {origin} within {timeout:g}s; the request may "
            "have taken effect and was not sent again.",
        ) from None
    except httpx.ConnectError as exc:
        raise ExchangeFailure(
            Status.BROKEN,
            "ConnectError",
            f"could not connect to {origin} ({exc}).",
            unanswered=True,
        ) from None
    except httpx.LocalProtocolError as exc:
        raise ExchangeFailure(
            Status.REJECTED,
            "LocalProtocolError",
            f"the HTTP client refused to send the request ({exc}).",
            client_side=True,
        ) from None
    except httpx.HTTPError as exc:  # RemoteProtocolError, ReadError, WriteError, ...
        raise ExchangeFailure(
            Status.BROKEN, type(exc).__name__, _dropped(origin, exc), unanswered=not answered
        ) from None
    headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-encoding"]
    whole = httpx.Response(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=request,
        default_encoding=response.default_encoding,
    )
    return Reply(whole)
