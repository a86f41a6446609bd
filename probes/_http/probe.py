"""``probes.http``: push payloads through a real HTTP endpoint over httpx.

One synchronous ``httpx.Client`` (one connection pool) serves every payload of a
survey; ``observe_many`` runs up to ``concurrency`` observations at once in worker
threads (in the caller's thread when ``concurrency`` is 1) and yields results in input
order. Every exchange is bounded as a whole, not only per read (see
:mod:`probes._http.exchange` and :mod:`probes._http.deadline`); a "not now" answer
(429, 503) or a connection reset before the answer began is sent again only as
:mod:`probes._http.retry` allows; ``requests`` counts the requests sent.

Against the reference reflector (``reflector=True``, or detected from its answers) the
probe measures each direction on its own: the request path from the reflector's
armored evidence, the response path by having the reflector emit the sent value and
reading it back at ``read``; the round trip reads back the value the server decoded.
Both directions go in the observation's ``parts``; the request part's ``hops`` name
which layer changed the value: the bytes httpx put on the wire, the bytes the ASGI
server delivered, or Starlette's decoding.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import httpx

from fidelity._core.armor import armor
from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._probe.contract import Probe, factory, observe_value
from fidelity._probe.observation import Direction, Hop, Observation
from fidelity._probe.setup import ProbeSetup
from probes._http.calibrate import calibrate
from probes._http.credentials import credentials_of
from probes._http.deadline import DeadlineTransport
from probes._http.evidence import RequestEvidence, blame
from probes._http.exchange import ExchangeFailure, Pacer, Reply, exchange
from probes._http.options import DEFAULT_MAX_BODY, HttpOptions
from probes._http.places import (
    ReadSpec,
    SendSpec,
)
from probes._http.readback import ident_of, location_path, payload_segment, read_observation
from probes._http.request import RequestPlan, build_request
from probes._http.retry import RetryPolicy
from probes._http.session import Login, Session, log_in, with_etag
from probes._http.templated import fill_headers
from probes._http.url import shown_url
from probes._payload.expect import Expectation
from probes._payload.locate import CALIBRATION_CALLS
from probes._payload.placeholders import (
    Filled,
    TextTemplate,
    new_run_id,
    path_segment,
    payload_numbers,
)

__all__ = ["HttpProbe", "http"]

_REFLECTOR_HEADER = "x-fidelity-reflector"
_FORMS = ("form", "multipart")


class HttpProbe(Probe):
    """The HTTP probe built by :func:`http`; a context manager holding one client."""

    def __init__(
        self,
        url: str,
        send: str = "json:text",
        read: str | None = "json:text",
        *,
        method: str = "POST",
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
        read_url: str | None = None,
        id_from: str | None = None,
        concurrency: int = 1,
        rate: float | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        reflector: bool | None = None,
        default_encoding: str = "utf-8",
        emit_charset: str | None = "utf-8",
        body: Mapping[str, Any] | None = None,
        read_method: str = "GET",
        auth: tuple[str, str] | None = None,
        expect: str | None = None,
        retries: int = 2,
        retry_writes: bool = False,
        request_limit: int | None = None,
        form: Mapping[str, str] | None = None,
        multipart: bool = False,
        login: Mapping[str, Any] | None = None,
    ) -> None:
        options = HttpOptions(
            url, send, read, method=method, headers=headers, timeout=timeout,
            read_url=read_url, id_from=id_from, concurrency=concurrency, rate=rate,
            max_body=max_body, reflector=reflector, default_encoding=default_encoding,
            emit_charset=emit_charset, body=body, read_method=read_method, auth=auth,
            expect=expect, retries=retries, retry_writes=retry_writes, form=form,
            multipart=multipart, login=login,
        )  # fmt: skip
        self.options = options
        # Requests go to the URL without its credentials (they are a header); names
        # and records show it with the password as ***.
        self.url = options.request_url
        self.shown_url = options.shown_url
        self.read_method = str(read_method).upper()
        self.body = options.body_template
        self.send: SendSpec = options.send_spec
        # read=None: located by a calibration call (``calibrate``) before the first
        # payload; until then the default place stands in.
        self.read: ReadSpec = options.read_spec
        self.read_found = False
        self._calibrated = read is not None
        self.method = str(method).upper()
        self.timeout = float(timeout)
        self.concurrency = concurrency
        self.rate = rate
        self.max_body = max_body
        self.headers = dict(options.request_headers)
        self._server_header = ""
        self._secrets = credentials_of(options)
        self.default_encoding = default_encoding
        self.emit_charset = emit_charset
        self.place = options.place
        self._evidence = RequestEvidence(self.place, self.url)
        self.read_url = read_url
        self._read_url: TextTemplate | None = options.read_template
        self.id_from: str | None = id_from
        self._id_spec: ReadSpec | None = options.id_spec
        self.reflector = options.uses_reflector
        self._seen_reflector = bool(self.reflector)
        self._decided = self.reflector is not None
        # Set once an answer that is not the reflector's arrived (reflector=None):
        # from then on no answer is taken for the reflector's, so every observation
        # is measured the same way and costs one request.
        self._plain = False
        self._detecting = threading.Lock()
        self.emit_url = options.emit_url
        self.run_id = new_run_id()
        self._numbers = payload_numbers()
        self._numbering = threading.Lock()
        self.name = self._default_name = self._name()
        self._client: httpx.Client | None = None
        self._transport: DeadlineTransport | None = None
        self._workers: concurrent.futures.ThreadPoolExecutor | None = None
        self._pacer = Pacer(rate)
        self._closed = False
        self._starting = threading.Lock()
        self._counting = threading.Lock()
        self._requests = 0
        self._retry = RetryPolicy(retries, retry_writes, self.timeout)
        #: No retry is sent once this many requests went out (``--max-requests``).
        self.request_limit = request_limit
        #: How many requests were sent again (a "not now" answer, a reset connection).
        self.retried = 0
        self._form: dict[str, str] | None = dict(form) if form is not None else None
        #: The session the login step opened (``login=``), once the probe started.
        self.session: Session | None = None
        #: Each value read back with ``read_url``: its ``{n}`` and ``{id}``.
        self.reads: dict[str, tuple[int, str | None]] = {}

    # --- set-up ---------------------------------------------------------------------

    def _start(self) -> httpx.Client:
        with self._starting:
            if self._closed:
                raise UsageError("this HttpProbe is closed; create a new one.")
            if self._client is None:
                limits = httpx.Limits(
                    max_connections=self.concurrency,
                    max_keepalive_connections=self.concurrency,
                )
                # The client builds requests (and owns the pool); they are sent with
                # the transport directly (see probes._http.exchange.exchange).
                self._transport = DeadlineTransport(limits=limits)
                self._client = httpx.Client(
                    headers=self.headers,
                    timeout=httpx.Timeout(self.timeout),
                    transport=self._transport,
                    follow_redirects=False,
                    default_encoding=self.default_encoding,
                )
                if self.options.login_step is not None:
                    self._log_in(self.options.login_step, self._client)
            return self._client

    def _log_in(self, step: Login, client: httpx.Client) -> None:
        """Log in: the session's cookies and token go with every request, as secrets."""
        session = self.session = log_in(step, client, self._exchange)
        self.headers.update(session.headers())
        if session.form() and (self._form is not None or self.send.where in _FORMS):
            self._form = {**(self._form or {}), **session.form()}
        given = [*(step.form or {}).values(), *session.secrets]
        found = {*self._secrets, *(s for s in given if len(s) >= 4)}
        self._secrets = tuple(sorted(found, key=len, reverse=True))
        # Every output of the run masks them too: the session's cookies and token, and
        # the login form's secret-looking fields (its password, not its user name).
        from fidelity._core.secrets import looks_secret, remember

        remember(*session.secrets)
        remember(*(v for k, v in (step.form or {}).items() if looks_secret(k)))

    def close(self) -> None:
        """Stop the worker threads and close the client's connections."""
        with self._starting:
            if self._closed:
                return
            self._closed = True
        if self._workers is not None:
            # Queued observations never start; running ones end by their deadline.
            self._workers.shutdown(wait=False, cancel_futures=True)
        if self._client is not None:
            with contextlib.suppress(OSError, httpx.HTTPError, RuntimeError):
                self._client.close()

    # --- counting -------------------------------------------------------------------

    @property
    def requests(self) -> int:
        """How many requests this probe has sent, emits to the reflector included.

        A request is counted when it is handed to the connection, so one that the
        client then refuses to write (an invalid header value) counts too; one that
        cannot even be built (a lone surrogate in a JSON body) does not.
        """
        return self._requests

    @property
    def max_requests_per_observation(self) -> int:
        """The most requests one observation may send from now on.

        One per observation, two with ``read_url``; against the reference reflector,
        up to three (the request, then the reflector's emit for the round trip and for
        the response path), two once it echoes the value back in the first answer.
        Until the first answer shows whether the target is the reflector, the
        reflector's figure holds.
        """
        if self.read_url is not None:
            return 2
        if self.reflector is False or self._plain:
            return 1
        echoes = self.read.where == "json" and self.place.where != "path"
        return 2 if self._seen_reflector and echoes else 3

    def _count(self) -> None:
        with self._counting:
            self._requests += 1

    # --- the synchronous face -------------------------------------------------------

    def _budget(self) -> float:
        """An upper bound for one observation: up to four exchanges, each sent up to
        ``retries`` more times after a wait of at most the timeout, plus pacing."""
        sends = 4 * (self._retry.retries + 1)
        pacing = sends * 2.0 * self.concurrency / self.rate if self.rate else 0.0
        return sends * (2 * self.timeout + 1.0) + pacing + 5.0

    def _wait(self, text: str, future: concurrent.futures.Future[Observation]) -> Observation:
        try:
            return future.result(timeout=self._budget())
        except concurrent.futures.TimeoutError:
            future.cancel()
            return Observation(
                sent=text,
                status=Status.TIMEOUT,
                error_type="TimeoutError",
                error=f"no observation within {self._budget():g}s.",
            )

    def observe(self, text: str) -> Observation:
        """Send ``text`` once and report what came back (never raises for the payload)."""
        self._start()
        self._ready()
        return self._observe(text)

    def _ready(self) -> None:
        if not self._calibrated:
            self.calibrate()

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        """Observe every text with up to ``concurrency`` observations at once, in order.

        At most ``concurrency`` observations are under way at any time, so a caller
        that stops iterating leaves no more than ``concurrency - 1`` of them running
        (they end by their deadline) and none queued.
        """
        self._start()
        self._ready()
        if self.concurrency == 1:
            for text in texts:
                yield self._observe(text)
            return
        with self._starting:
            if self._workers is None:
                self._workers = concurrent.futures.ThreadPoolExecutor(
                    self.concurrency, thread_name_prefix="fidelity-http"
                )
            workers = self._workers
        window: deque[tuple[str, concurrent.futures.Future[Observation]]] = deque()
        try:
            for text in texts:
                window.append((text, workers.submit(self._observe, text)))
                if len(window) >= self.concurrency:
                    yield self._wait(*window.popleft())
            while window:
                yield self._wait(*window.popleft())
        finally:
            for _, future in window:
                future.cancel()

    # --- building the request -------------------------------------------------------

    def _build(self, text: str, *, echo: bool, n: int = 0) -> httpx.Request:
        """Build (and fully encode) the request, or fail as the client's refusal."""
        try:
            assert self._client is not None
            plan = RequestPlan(
                self.method, self.url, self.headers, self.send, self.read, self.place, self.body,
                self._form, self.options.multipart,
            )  # fmt: skip
            values = Filled(payload=text, n=n, run=self.run_id)
            request = build_request(self._client, plan, text, echo=echo, values=values)
            request.read()
        except (UnicodeError, ValueError, TypeError, httpx.InvalidURL) as exc:
            raise ExchangeFailure(
                Status.REJECTED,
                type(exc).__name__,
                f"the HTTP client refused to encode the value ({exc}).",
                client_side=True,
            ) from None
        return request

    # --- observing ------------------------------------------------------------------

    def _exchange(self, request: httpx.Request) -> Reply:
        """Send ``request`` and read its answer, sending it again as the retry policy
        allows (:mod:`probes._http.retry`); a write refused for want of ``If-Match``
        (428) or a stale one (412) goes again once with the ``ETag`` of its URL."""
        reply = self._sent(request)
        refused = reply.status in (412, 428) and request.method not in ("GET", "HEAD")
        if refused and self._client is not None and self._may_send_again():
            return with_etag(request, reply, self._client, self._sent, self.headers)
        return reply

    def _sent(self, request: httpx.Request) -> Reply:
        def retried() -> None:
            with self._counting:
                self.retried += 1

        once = lambda: self._exchange_once(request)  # noqa: E731
        return self._retry.send(request.method, once, self._may_send_again, retried)

    def _may_send_again(self) -> bool:
        limit = self.request_limit
        return limit is None or self._requests < limit

    def _exchange_once(self, request: httpx.Request) -> Reply:
        assert self._transport is not None
        reply = exchange(
            self._transport,
            request,
            pacer=self._pacer,
            timeout=self.timeout,
            max_body=self.max_body,
            default_encoding=self.default_encoding,
            sent=self._count,
        )
        if not self._server_header:
            self._server_header = reply.response.headers.get("server", "")
        reply.secrets = self._secrets
        return reply

    @property
    def environment(self) -> Mapping[str, str]:
        """The client library and the target's ``Server`` header (when it sends one)."""
        from importlib.metadata import version

        found = {"library": f"httpx {version('httpx')}", "http_server": self._server_header}
        return {k: v for k, v in found.items() if v}

    @staticmethod
    def _failed(text: str, failure: ExchangeFailure, **fields: Any) -> Observation:
        return Observation(
            sent=text,
            status=failure.status,
            error_type=failure.error_type,
            error=failure.error,
            client_side=failure.client_side,
            **fields,
        )

    @staticmethod
    def _rejected(text: str, reply: Reply, **fields: Any) -> Observation:
        reason = reply.response.reason_phrase
        note = f" ({reply.note})" if reply.note else ""
        return Observation(
            sent=text,
            status=Status.REJECTED,
            error_type=f"HTTP {reply.status}",
            error=f"HTTP {reply.status} {reason}{note}: {reply.excerpt()}",
            **fields,
        )

    def _is_reflection(self, reply: Reply) -> bool:
        if self.reflector is False or self._plain:
            return False
        if _REFLECTOR_HEADER not in reply.response.headers:
            return False
        try:
            document = reply.json()
        except ValueError:
            return False
        return isinstance(document, dict) and isinstance(document.get("_fidelity"), dict)

    def _observe(self, text: str) -> Observation:
        with self._numbering:
            n = next(self._numbers)
        if self.reflector is None and not self._decided:
            # Until one answer says whether this is the reflector, observe one at a time,
            # so every observation is measured the same way.
            with self._detecting:
                if not self._decided:
                    return self._observe_once(text, n)
        return self._observe_once(text, n)

    def _observe_once(self, text: str, n: int) -> Observation:
        wire: bytes | None = None
        try:
            request = self._build(text, echo=self._seen_reflector, n=n)
            wire = self._evidence.wire(request)
            reply = self._exchange(request)
        except ExchangeFailure as failure:
            observation = self._failed(text, failure, wire=wire)
            self._decided = self._decided or not failure.client_side
            if failure.client_side and self._seen_reflector:
                response = self._emit_and_read(text, text, Direction.RESPONSE)
                request_part = dataclasses.replace(observation, direction=Direction.REQUEST)
                return dataclasses.replace(observation, parts=(request_part, response))
            return observation
        reflection = self._is_reflection(reply)
        if not reflection and not self._seen_reflector and reply.status < 400:
            self._plain = True
        self._decided = True
        if reflection:
            self._seen_reflector = True
            return self._reflected(text, request, wire, reply)
        if reply.status >= 400:
            return self._rejected(text, reply, wire=wire)
        if self.read_url is not None:
            try:
                reply = self._read_back(reply, n, text)
            except ExchangeFailure as failure:
                return self._failed(text, failure, wire=wire)
            if reply.status >= 400:
                return self._rejected(text, reply, wire=wire)
        values = Filled(payload=text, n=n, run=self.run_id)
        return self._read_observation(
            text, reply, wire=wire, expected=self.options.expected, values=values
        )

    def _read_back(self, reply: Reply, n: int, text: str = "") -> Reply:
        """The second request of write-then-read: ``GET read_url``, its ``{id}`` taken
        from the write response at ``id_from``, its ``{n}`` and ``{run}`` filled, and
        ``{payload}`` as ``text`` percent-encoded as one path segment."""
        ident: str | None = None
        if self._id_spec is not None:
            ident = ident_of(reply, self._id_spec)
            if ident is None:
                raise ExchangeFailure(
                    Status.LOST,
                    "NoId",
                    f"the write response has no id at {self.id_from} to read back with.",
                )
            ident = location_path(reply, ident) if self._by_location else path_segment(ident)
        self.reads[text] = (n, ident)
        return self.read_back_again(n, ident, text)

    def read_back_again(self, n: int, ident: str | None, text: str) -> Reply:
        """The read-back of payload ``n`` (its ``{id}`` ``ident``), sent (again)."""
        assert self._read_url is not None
        assert self._client is not None
        segment = payload_segment(text) if "payload" in self._read_url.names else ""
        values = Filled(payload=segment, n=n, run=self.run_id, id=ident)
        url = self._read_url.fill(values)
        headers = fill_headers(self.headers, values)
        return self._exchange(self._client.build_request(self.read_method, url, headers=headers))

    @property
    def _by_location(self) -> bool:
        """Whether the id is a ``Location`` header: a URL, not one path segment."""
        spec = self._id_spec
        return spec is not None and spec.where == "header" and spec.name.lower() == "location"

    # --- locating the read-back -----------------------------------------------------

    def _name(self) -> str:
        name = f"http {self.method} {self.shown_url} send={self.send} read={self.read}"
        return f"{name} read_url={shown_url(self.read_url)}" if self.read_url is not None else name

    def requests_to_start(self, observations: int) -> int:
        """The calibration (while the read-back is still to be located), then
        ``observations`` observations. Until an answer shows whether the target is the
        reference reflector, the dearer of the two: the reflector locates itself with
        the first calibration request, then costs two or three per observation;
        another target is sent every calibration value, then costs one (two with
        ``read_url``)."""
        if self._calibrated:
            return observations * self.max_requests_per_observation
        per = 2 if self.read_url is not None else 1
        plain = CALIBRATION_CALLS * per + observations * per
        if self.reflector is False or self._plain:
            return plain
        echoes = self.read.where == "json" and self.place.where != "path"
        each = 2 if self.read_url is not None or echoes else 3
        reflector = 1 + observations * each
        return reflector if self.reflector else max(plain, reflector)

    @property
    def needs_calibration(self) -> bool:
        """True while the read-back is still to be located (``read=None``)."""
        return not self._calibrated

    def calibrate(self, pace: Callable[[], None] | None = None) -> str:
        """Locate the read-back with writes (and reads) carrying calibration markers.

        Returns the read specification (the one given when there was nothing to
        locate; against the reference reflector, its own, after one request). The
        markers are unique to the run; each is sent like a payload with ``{n}`` = 0,
        1000001, 1000002 (the payloads keep 1, 2, 3...) and counts in ``requests``.
        A marker that does not come back is a ``UsageError``; an
        endpoint that does not answer a ``TargetError``. The probe paces itself
        (``rate=``), so ``pace`` is not needed and not called.
        """
        return calibrate(self)

    @property
    def setup(self) -> ProbeSetup:
        """The plan of this probe, for the JSON result and the card."""
        return ProbeSetup(
            transport="http",
            target=self.shown_url,
            method=self.method,
            send=str(self.send),
            read=str(self.read),
            read_found=self.read_found,
            read_url=shown_url(self.read_url) if self.read_url else "",
            id_from=self.id_from or "",
            headers=tuple(str(k) for k in (self.options.headers or {})),
            auth=self.options.auth[0] if self.options.auth else "",
            body=self.body.to_json() if self.body is not None else "",
            read_method=self.read_method if self.read_url is not None else "",
            expect="" if self.options.expected.is_default else self.options.expected.source,
        )

    def _read_observation(
        self,
        text: str,
        reply: Reply,
        *,
        direction: Direction = Direction.ROUND_TRIP,
        expected: Expectation | None = None,
        values: Filled | None = None,
        **fields: Any,
    ) -> Observation:
        """Find the value at ``read`` in ``reply`` and compare it with ``text`` (with
        ``expected``: with what the read-back must equal)."""
        return read_observation(
            self.read,
            text,
            reply,
            direction=direction,
            expected=expected,
            values=values,
            **fields,
        )

    # --- against the reflector ------------------------------------------------------

    def _emit_and_read(self, sent: str, value: object, direction: Direction) -> Observation:
        """Have the reflector emit ``value`` and read it back at ``read``."""
        assert self._client is not None
        if not isinstance(value, (str, bytes)):
            return observe_value(sent, value, direction=direction)  # coerced on the way in
        where, name = self.read.where, self.read.name
        order: dict[str, Any] = {"value": armor(value), "charset": self.emit_charset}
        if where == "json":
            order.update({"as": "json", "path": name})
        elif where == "header":
            order.update({"as": "header", "header": name})
        else:
            order["as"] = "text"
        request = self._client.build_request("POST", self.emit_url, json=order)
        try:
            reply = self._exchange(request)
        except ExchangeFailure as failure:
            return self._failed(sent, failure, direction=direction)
        if reply.status >= 400:
            return self._rejected(sent, reply, direction=direction)
        return self._read_observation(sent, reply, direction=direction)

    def _reflected(
        self, text: str, request: httpx.Request, wire: bytes | None, reply: Reply
    ) -> Observation:
        document = reply.json()
        evidence: dict[str, Any] = document["_fidelity"]
        request_part = self._evidence.request_part(text, request, wire, evidence)
        echoed = "x-fidelity-echo" in request.headers
        if request_part.status not in (Status.PRESERVED, Status.TRANSFORMED):
            round_trip = dataclasses.replace(request_part, direction=Direction.ROUND_TRIP)
        elif echoed and "echo_error" in evidence:
            round_trip = Observation(
                sent=text,
                status=Status.REJECTED,
                error_type="EchoError",
                error=str(evidence["echo_error"]),
            )
        elif echoed:
            round_trip = self._read_observation(text, reply)
        else:
            round_trip = self._emit_and_read(text, request_part.received, Direction.ROUND_TRIP)
        if request_part.status is Status.PRESERVED and round_trip.status is not Status.LOST:
            response_part = dataclasses.replace(round_trip, direction=Direction.RESPONSE)
        else:
            response_part = self._emit_and_read(text, text, Direction.RESPONSE)
        hops = (
            *request_part.hops,
            Hop(name=f"httpx (read {self.read})", value=round_trip.received),
        )
        if round_trip.status in (Status.PRESERVED, Status.TRANSFORMED):
            round_trip = dataclasses.replace(round_trip, hops=hops, blame=blame(text, list(hops)))
        return dataclasses.replace(round_trip, wire=wire, parts=(request_part, response_part))


http = factory(
    HttpProbe,
    name="http",
    doc="""A probe that sends each payload to ``url`` and reads it back from the response.

    ``send`` places the payload in the request and ``read`` finds it in the response
    (forms in :mod:`probes._http.places`: ``json:PATH``, ``form:NAME``,
    ``multipart:NAME``, ``filename:NAME``, ``query:NAME``, ``path`` and ``url`` (``url``
    holds ``{value}``), ``header:NAME``, ``body``; reads ``json:PATH``, ``body``,
    ``header:NAME``, ``regex:PATTERN``; ``None``: located by one calibration request
    with a plain marker before the first payload, see ``calibrate()``). With
    ``read_url`` the value is read from a ``GET`` of that URL after the write; it may
    hold ``{id}`` (taken from the write response at ``id_from``: ``json:PATH``,
    ``header:NAME`` or ``regex:PATTERN``), ``{n}`` (a number unique to the payload)
    and ``{run}`` (an id unique to the run). An id from ``header:Location`` is a URL:
    ``{id}`` is its path and query, resolved against the write URL (``/items/3``), so
    ``read_url`` is then the origin and ``{id}``: ``http://host{id}``.

    ``timeout`` bounds each exchange as a whole (connect, send, every read, and the
    total). ``concurrency`` requests overlap at most; ``rate`` caps request starts per
    second; response bodies over ``max_body`` bytes are not read (``broken``).
    ``default_encoding`` decodes a text body that declares no charset (httpx's default
    is UTF-8; ``"latin-1"`` follows the HTTP/1.1 default). The probe's
    ``requests`` attribute counts the requests it has sent. ``reflector`` forces
    (``True``) or disables (``False``) the per-direction measurement against the
    reference reflector, which is otherwise detected;
    ``emit_charset`` is the charset the reflector declares when it emits a text body
    (``None``: no charset parameter). A ``429`` or ``503`` answer, or a connection
    reset before the answer began, is sent again up to ``retries`` times (default 2)
    for GET, HEAD, PUT, DELETE and OPTIONS, honouring ``Retry-After`` up to
    ``timeout`` seconds; a POST or PATCH only with ``retry_writes=True`` (otherwise its
    answer stands, saying the server refused it for now); no retry goes out once
    ``request_limit`` requests were sent. Bad arguments raise ``UsageError``.
    """,
)
