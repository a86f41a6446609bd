"""One bounded HTTP exchange over httpx, and the event loop the HTTP probe runs on.

An exchange sends one request and reads its response with every wait bounded: httpx's
connect/read/write/pool timeouts, plus a total deadline for the whole exchange
(httpx's read timeout is per read and never fires against a server that drips a byte
a second), and a cap on the body size, read streaming (a 50 MiB body is never read
whole). Failures become :class:`ExchangeFailure` carrying the outcome status; nothing
is ever retried, since a request that timed out may have taken effect.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx

from fidelity._kinds import Status
from fidelity._render import safe

__all__ = ["EXCERPT", "ExchangeFailure", "LoopThread", "Pacer", "Reply", "exchange"]

#: Code points of a response body kept in a ``rejected`` observation's error.
EXCERPT = 200

T = TypeVar("T")


class ExchangeFailure(Exception):
    """An exchange that ended without a usable response: ``status`` says how."""

    def __init__(
        self, status: Status, error_type: str, error: str, *, client_side: bool = False
    ) -> None:
        super().__init__(error)
        self.status = status
        self.error_type = error_type
        self.error = error
        self.client_side = client_side


class Reply:
    """A complete response: ``response`` holds the whole (capped) body for decoding.

    ``json()`` parses the body once and keeps the document (or the error).
    """

    __slots__ = ("_document", "_error", "response")

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._document: Any = None
        self._error: ValueError | None = None

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
        text = self.response.content[: EXCERPT * 4].decode("utf-8", "replace")[:EXCERPT]
        return safe(text)


class Pacer:
    """Spaces request starts at least ``1/rate`` seconds apart (``rate`` in requests/s)."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self.next = 0.0

    async def wait(self) -> None:
        """Wait for this request's slot."""
        if not self.interval:
            return
        now = time.monotonic()
        slot = max(now, self.next)
        self.next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


def _origin(request: httpx.Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc.decode('ascii', 'replace')}"


async def exchange(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    slots: asyncio.Semaphore,
    pacer: Pacer,
    timeout: float,
    max_body: int,
) -> Reply:
    """Send ``request`` once and read the whole response, or raise ``ExchangeFailure``."""
    async with slots:
        await pacer.wait()
        origin = _origin(request)
        try:
            async with asyncio.timeout(timeout):
                response = await client.send(request, stream=True)
                try:
                    chunks: list[bytes] = []
                    size = 0
                    async for chunk in response.aiter_bytes():
                        size += len(chunk)
                        if size > max_body:
                            raise ExchangeFailure(
                                Status.BROKEN,
                                "BodyTooLarge",
                                f"the response from {origin} is larger than max_body="
                                f"{max_body} bytes; it was not read further.",
                            )
                        chunks.append(chunk)
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise ExchangeFailure(
                Status.TIMEOUT,
                type(exc).__name__,
                f"no complete answer from {origin} within {timeout:g}s; the request may "
                "have taken effect and was not sent again.",
            ) from None
        except httpx.ConnectError as exc:
            raise ExchangeFailure(
                Status.BROKEN, "ConnectError", f"could not connect to {origin} ({exc})."
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
                Status.BROKEN,
                type(exc).__name__,
                f"the connection to {origin} failed mid-exchange ({exc or 'dropped'}).",
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


class LoopThread:
    """An asyncio event loop running in a daemon thread, fed from synchronous code."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="fidelity-http", daemon=True
        )
        self.thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the loop and join the thread (bounded)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)
        if not self.thread.is_alive():
            self.loop.close()
