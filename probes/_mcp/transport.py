"""The SDK's transports as a session uses them: Streamable HTTP bounded by the reply
limit, and every transport behind a check that the SDK can serialize each request.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

from probes._mcp.failures import UnencodableRequest
from probes._mcp.loop import REPLY_LIMIT

__all__ = ["FirstAnswer", "guard_transport", "legacy_sse", "streamable_http"]

#: The statuses of a refused ``initialize`` POST that do not mean "no Streamable HTTP
#: here": credentials, consent and pacing are the same on the legacy transport.
_NOT_A_FALLBACK = frozenset({401, 403, 407, 429})


class FirstAnswer:
    """The status of the first answer to a POST a Streamable HTTP transport sent (the
    handshake's), so a session that failed can tell "this URL does not speak Streamable
    HTTP" (a 4xx such as 404 or 405, the MCP spec's cue to try the legacy SSE transport)
    from any other failure."""

    def __init__(self) -> None:
        self.status: int | None = None

    async def __call__(self, response: Any) -> None:
        if self.status is None and response.request.method == "POST":
            self.status = int(response.status_code)

    @property
    def wants_sse(self) -> bool:
        """True when the handshake's POST got a 4xx that the legacy transport may not."""
        status = self.status
        return status is not None and 400 <= status < 500 and status not in _NOT_A_FALLBACK


@contextlib.asynccontextmanager
async def streamable_http(
    url: str, headers: Mapping[str, str] | None = None, first: FirstAnswer | None = None
) -> AsyncIterator[Any]:
    """The SDK's Streamable HTTP transport to ``url``, bounded by the session's reply limit.

    Entered in the session's task (where the limit is known); without a limit it is
    the SDK's transport as it comes. ``headers`` go with every request; ``first``
    notes the status of the first POST's answer (SDK 2.x). With SDK 1.x the transport
    is its ``streamable_http_client`` on an ``httpx`` client bounded the same way (the
    reply limit counts each event as it arrives).
    """
    from probes._mcp.sdk import sdk_major

    if sdk_major() < 2:
        async with _streamable_http_v1(url, headers) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    from probes._mcp.reply_limit import bounded_http_client

    limit = REPLY_LIMIT.get()
    async with contextlib.AsyncExitStack() as stack:
        if first is not None:
            client = await stack.enter_async_context(_http_client(headers, first))
            if limit is None:
                streams = await stack.enter_async_context(
                    streamable_http_client(url, http_client=client)
                )
            else:
                streams = await stack.enter_async_context(
                    streamable_http_client(url, http_client=client, max_sse_event_size=limit.limit)
                )
        elif limit is None and not headers:
            streams = await stack.enter_async_context(streamable_http_client(url))
        elif limit is None:
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = await stack.enter_async_context(create_mcp_http_client(dict(headers or {})))
            streams = await stack.enter_async_context(
                streamable_http_client(url, http_client=client)
            )
        else:
            client = await stack.enter_async_context(bounded_http_client(limit, headers))
            streams = await stack.enter_async_context(
                streamable_http_client(url, http_client=client, max_sse_event_size=limit.limit)
            )
        yield streams


def _http_client(headers: Mapping[str, str] | None, first: FirstAnswer | None = None) -> Any:
    """An HTTP client for an SDK transport: bounded by the session's reply limit when
    there is one, ``first`` told of every answer."""
    import importlib

    from probes._mcp.sdk import sdk_major

    limit = REPLY_LIMIT.get()
    if limit is not None:
        from probes._mcp.reply_limit import bounded_http_client

        http = "httpx" if sdk_major() < 2 else "httpx2"
        client = bounded_http_client(limit, headers, http=http)
    else:
        utils: Any = importlib.import_module("mcp.shared._httpx_utils")
        client = utils.create_mcp_http_client(dict(headers or {}))
    if first is not None:
        client.event_hooks["response"] = [*client.event_hooks["response"], first]
    return client


@contextlib.asynccontextmanager
async def legacy_sse(url: str, headers: Mapping[str, str] | None = None) -> AsyncIterator[Any]:
    """The SDK's client of the legacy HTTP+SSE transport (MCP 2024-11-05) to ``url``:
    a ``GET`` that opens the event stream, the ``endpoint`` event it waits for, and
    every message sent there by ``POST``; bounded by the session's reply limit."""
    from mcp.client.sse import sse_client

    def factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        return _http_client(headers)

    async with sse_client(url, headers=dict(headers or {}), httpx_client_factory=factory) as s:
        yield s


@contextlib.asynccontextmanager
async def _streamable_http_v1(
    url: str, headers: Mapping[str, str] | None
) -> AsyncIterator[tuple[Any, Any]]:
    """SDK 1.x's Streamable HTTP transport (its ``(read, write, session id)``, as the
    two streams), on an ``httpx`` client bounded by the reply limit when there is one."""
    import importlib

    from probes._mcp.reply_limit import bounded_http_client

    v1: Any = importlib.import_module("mcp.client.streamable_http")
    utils: Any = importlib.import_module("mcp.shared._httpx_utils")
    limit = REPLY_LIMIT.get()

    def client_for(given: Mapping[str, str] | None = None, *_: Any, **__: Any) -> Any:
        """A new HTTP client (not yet opened), bounded by the reply limit if there is one."""
        merged = {**dict(headers or {}), **dict(given or {})}
        if limit is None:
            return utils.create_mcp_http_client(merged)
        return bounded_http_client(limit, merged, http="httpx")

    async with contextlib.AsyncExitStack() as stack:
        opened = getattr(v1, "streamable_http_client", None)
        if opened is not None:
            client = await stack.enter_async_context(client_for())
            transport: Any = opened(url, http_client=client)
        else:  # before 1.24: the older transport opens the client its factory makes
            transport = v1.streamablehttp_client(
                url, headers=dict(headers or {}), httpx_client_factory=client_for
            )
        read, write, _ = await stack.enter_async_context(transport)
        yield read, write


class _GuardedWriteStream:
    """The transport's write stream, behind a check that the SDK can serialize each message.

    The SDK's transports serialize a message in their own writer task (stdio writes
    ``model_dump_json(by_alias=True, exclude_unset=True)``, the very call made here;
    Streamable HTTP encodes the same model as UTF-8 JSON, which fails on the same
    values). A failure there ends the transport's task group and so the session. Run
    first in the sender's task, the same serializer fails only the call that sent the
    message, as ``UnencodableRequest``, and the session stays up.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, item: Any, /) -> None:
        try:
            item.message.model_dump_json(by_alias=True, exclude_unset=True)
        except Exception as exc:  # pydantic's serialization error; nothing is sent
            raise UnencodableRequest(exc) from None
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _GuardedWriteStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return result


@contextlib.asynccontextmanager
async def guard_transport(
    transport: AbstractAsyncContextManager[tuple[Any, Any]],
    close_within: Callable[[], float] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Wrap an SDK transport so an unserializable request fails its call, not the session.

    ``close_within()``, asked when the session ends, bounds in seconds what the
    transport may still do on its way out (Streamable HTTP sends a ``DELETE``, which a
    server that stopped answering would hold for the HTTP client's 30 s); 0 skips it.
    The stdio transport's own shutdown is shielded from this bound: the session kills
    the server it abandons instead.
    """
    import anyio

    with anyio.CancelScope() as scope:
        async with transport as (read_stream, write_stream):
            try:
                yield read_stream, _GuardedWriteStream(write_stream)
            finally:
                if close_within is not None:
                    scope.deadline = anyio.current_time() + max(0.0, close_within())
