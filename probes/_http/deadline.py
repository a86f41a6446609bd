"""A total deadline for one synchronous httpx exchange.

httpx's timeouts bound each socket operation, not the exchange: a server that drips a
byte a second never trips a read timeout. :class:`DeadlineTransport` is an
``httpx.HTTPTransport`` whose network layer caps every wait (name resolution,
connect, TLS handshake, every send and every receive) at the time left before the
deadline of the exchange running in the current thread (:func:`deadline`); once it
has passed, the next wait fails at once with the matching httpcore timeout, which
httpx raises as its own ``ConnectTimeout``, ``ReadTimeout`` or ``WriteTimeout``.

Each wait is a single blocking call given the time left (CPython's ``recv``, ``send``,
``connect`` and TLS handshake each honour the socket timeout as a total), so the
exchange ends by its deadline plus one scheduling slice, whatever the server does.
"""

from __future__ import annotations

import contextlib
import ipaddress
import queue
import socket
import ssl
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

import httpcore
import httpx

__all__ = ["DeadlineTransport", "deadline"]


class _Deadlines(threading.local):
    """The deadline (``time.monotonic()`` value) of this thread's exchange, if any."""

    at: float | None = None


_current = _Deadlines()


class deadline:
    """Bound every network wait in this thread to ``seconds`` from now, as a whole."""

    __slots__ = ("_previous", "_seconds")

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._previous: float | None = None

    def __enter__(self) -> None:
        self._previous = _current.at
        _current.at = time.monotonic() + self._seconds

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _current.at = self._previous


def _left(timeout: float | None, expired: type[httpcore.TimeoutException]) -> float | None:
    """``timeout`` capped at the time left before this thread's deadline."""
    at = _current.at
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("the total deadline of the exchange has passed")
    return left if timeout is None or timeout > left else timeout


def _resolve(host: str, port: int, timeout: float | None) -> list[str]:
    """The addresses of ``host``, looked up within ``timeout`` (a literal is itself)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return [host]
    answers: queue.SimpleQueue[list[str] | OSError] = queue.SimpleQueue()

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            answers.put([str(info[4][0]) for info in infos])
        except OSError as exc:
            answers.put(exc)

    # A daemon thread: a resolver that never answers must not hold up interpreter exit.
    threading.Thread(target=lookup, name="fidelity-resolve", daemon=True).start()
    try:
        answer = answers.get(timeout=timeout)
    except queue.Empty:
        raise httpcore.ConnectTimeout(f"no address for {host} within {timeout:g}s") from None
    if isinstance(answer, OSError):
        raise httpcore.ConnectError(f"cannot resolve {host} ({answer})")
    return list(dict.fromkeys(answer))


#: Bytes of request held back before they are sent without waiting for a read.
_COALESCE = 64 * 1024


class _DeadlineStream(httpcore.NetworkStream):
    """A connected stream whose every wait ends by the current thread's deadline.

    Writes are held back and sent together just before the next read (or once
    ``_COALESCE`` bytes are waiting): httpcore writes a request's head and body
    separately, and two sends cost two packets and two wake-ups of the server where
    one does. Nothing is reordered; an HTTP/1.1 client reads only after its request.
    """

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner
        self._held: list[bytes] = []
        self._size = 0

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held:
            # Like httpcore after a failed write: go on to read what the server said.
            with contextlib.suppress(httpcore.WriteError):
                self._flush(timeout)
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._held.append(buffer)
        self._size += len(buffer)
        if self._size >= _COALESCE:
            self._flush(timeout)

    def _flush(self, timeout: float | None) -> None:
        """Send the held bytes, one send per wait, each given the time left."""
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held.clear()
        self._size = 0
        # The inner stream's own loop would give every partial send the full timeout.
        sock: socket.socket = self._inner.get_extra_info("socket")
        view = memoryview(data)
        while view:
            left = _left(timeout, httpcore.WriteTimeout)
            try:
                sock.settimeout(left)
                sent = sock.send(view)
            except TimeoutError as exc:
                raise httpcore.WriteTimeout(str(exc) or "the write timed out") from None
            except OSError as exc:
                raise httpcore.WriteError(str(exc) or type(exc).__name__) from None
            view = view[sent:]

    def close(self) -> None:
        self._held.clear()
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        if self._held:
            self._flush(timeout)
        left = _left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's synchronous socket backend, every wait capped by the deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        options = list(socket_options or ())
        failure: httpcore.ConnectError | None = None
        for address in _resolve(host, port, _left(timeout, httpcore.ConnectTimeout)):
            left = _left(timeout, httpcore.ConnectTimeout)
            try:
                stream = self._inner.connect_tcp(address, port, left, local_address, options)
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _DeadlineStream(stream)
        raise failure or httpcore.ConnectError(f"no address to connect to for {host}")

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        left = _left(None, httpcore.PoolTimeout)
        time.sleep(seconds if left is None else min(seconds, left))


class DeadlineTransport(httpx.HTTPTransport):
    """An ``httpx.HTTPTransport`` (no proxy, no retry) bounded by :func:`deadline`.

    Outside a ``deadline`` block it behaves like a plain ``HTTPTransport``.
    """

    def __init__(self, *, limits: httpx.Limits, verify: ssl.SSLContext | bool = True) -> None:
        context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify)
        super().__init__(verify=context, limits=limits, trust_env=False)
        # httpx builds its pool over httpcore's default backend; this one is the same
        # pool over the deadline backend (HTTPTransport offers no backend parameter).
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )
