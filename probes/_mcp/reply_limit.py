"""The bound on one message from an MCP server, applied where its bytes arrive.

A hostile or broken server can answer with a reply of any size: over stdio one line
of 100 MB, over Streamable HTTP a 200 MB body. The SDK would read it whole (and its
stdio reader re-joins the line chunk by chunk). :class:`ReplyLimit` counts the bytes
of each message as the transport receives them and stops at ``limit``:

- stdio: the bytes of the current line of the server's stdout (:meth:`ReplyLimit.lines`
  filters the pipe before the SDK's reader sees it; complete lines before the long one
  pass, nothing after it does);
- Streamable HTTP: the decoded bytes of a JSON body, or of one server-sent event
  (:func:`bounded_http_client` wraps each response's byte iterator).

Past the limit ``on_exceeded`` runs once (on the event loop): the session fails the call
in flight with :class:`ReplyTooLarge` and lets the server go.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from probes._mcp.tool_cap import ToolCap

if TYPE_CHECKING:
    import httpx2

__all__ = [
    "DEFAULT_MAX_REPLY",
    "MIN_MAX_REPLY",
    "ReplyLimit",
    "ReplyTooLarge",
    "bounded_http_client",
    "size_text",
]

#: Bytes one message from a server may hold unless told otherwise (as the HTTP probe).
DEFAULT_MAX_REPLY = 8 * 1024 * 1024
#: The smallest limit accepted: a handshake must fit.
MIN_MAX_REPLY = 4096
#: The SDK's default HTTP timeouts (connect/write/pool, and read for event streams).
_HTTP_TIMEOUT = 30.0
_HTTP_READ_TIMEOUT = 300.0
#: Line breaks that end a server-sent event (a blank line), longest first.
_EVENT_ENDS = (b"\r\n\r\n", b"\n\n", b"\r\r")


def size_text(size: int) -> str:
    """``size`` bytes for a message: ``8 MiB``, ``512 KiB`` or ``5000 bytes``."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


class ReplyTooLarge(Exception):
    """A message from the server was longer than the reply limit; it was not read further."""

    def __init__(self, limit: int, reason: str = "") -> None:
        self.limit = limit
        super().__init__(
            f"the server sent a message that was not read: {reason}"
            if reason
            else f"the server sent a message longer than the reply limit of {size_text(limit)} "
            "(max_reply; --max-reply on the command line); it was not read further"
        )


class ReplyLimit:
    """The reply limit of one session: ``limit`` bytes per message, then ``on_exceeded``."""

    def __init__(self, limit: int, on_exceeded: Callable[[], None]) -> None:
        self.limit = limit
        self.tripped = False
        #: Why the message was not read, when not for its length (a refused coding).
        self.reason = ""
        self._on_exceeded = on_exceeded
        #: The tool cap of the session's stdio server (one ``tools/list`` page cut).
        self.tool_cap = ToolCap()

    def exceeded(self, reason: str = "") -> None:
        """Note that a message went past the limit (or was refused for ``reason``);
        ``on_exceeded`` runs the first time."""
        if not self.tripped:
            self.tripped = True
            self.reason = reason
            self._on_exceeded()

    def lines(self) -> Callable[[bytes], bytes]:
        """A filter for a stdio server's stdout: each call gets a chunk, returns what passes.

        Whole lines within the limit pass; from the first line longer than the limit on,
        nothing does (the session ends).
        """
        length = 0

        def admit(data: bytes) -> bytes:
            nonlocal length
            if self.tripped:
                return b""
            start = 0
            while True:
                newline = data.find(b"\n", start)
                end = len(data) if newline < 0 else newline
                length += end - start
                if length > self.limit:
                    self.exceeded()
                    return data[:start]
                if newline < 0:
                    return data
                length = 0
                start = newline + 1

        return admit

    def events(self, event_stream: bool, http: Any = None) -> Callable[[bytes], None]:
        """A counter for one HTTP response's decoded bytes: the whole body, or per event
        (``http``: the HTTP library whose error stops the read, ``httpx2`` by default)."""
        length = 0
        tail = b""

        def count(chunk: bytes) -> None:
            nonlocal length, tail
            if event_stream:
                window = tail + chunk
                end = max(
                    (window.rfind(e) + len(e) for e in _EVENT_ENDS if e in window), default=-1
                )
                length = len(window) - end if end >= 0 else length + len(chunk)
                tail = window[-3:]
            else:
                length += len(chunk)
            if length > self.limit:
                self.exceeded()
                raise _cut_error(self.limit, http)

        return count


def _cut_error(limit: int, http: Any = None) -> Exception:
    """The error that stops the SDK reading a response (one it handles as a failed read)."""
    if http is None:
        import httpx2 as http

    error: Exception = http.StreamError(
        f"the response went past the reply limit ({size_text(limit)})"
    )
    return error


def bounded_http_client(
    limit: ReplyLimit, headers: Mapping[str, str] | None = None, *, http: str = "httpx2"
) -> httpx2.AsyncClient:
    """An HTTP client for the SDK's Streamable HTTP transport, its responses bounded.

    The SDK reads a body with ``aread()`` and an event stream with ``aiter_text()``;
    both draw on the response's ``aiter_bytes()``, which is replaced here for every
    response: it reads the raw bytes and undoes their content coding itself, each step
    bounded by the limit (httpx unpacks a chunk whole, every stacked layer of it, before
    anything could count it), so a compressed body counts at its real size and a bomb
    is never unpacked. A stacked or unknown coding is refused. ``http`` names the HTTP
    library the SDK speaks through: ``httpx2`` (SDK 2.x) or ``httpx`` (SDK 1.x), whose
    clients have the same surface.
    """
    import importlib

    lib: Any = importlib.import_module(http)

    from probes._http.decoding import BodyDecoder, CodingRefused, DecodeFailed

    async def bound(response: Any) -> None:
        kind = response.headers.get("content-type", "").lower()
        count = limit.events(kind.startswith("text/event-stream"), lib)
        original = response.aiter_bytes
        try:
            decoder = BodyDecoder(
                response.headers.get("content-encoding"), limit.limit, per_piece=True
            )
        except CodingRefused as exc:
            refused = str(exc)
        else:
            refused = ""

        async def aiter_bytes(chunk_size: int | None = None) -> AsyncGenerator[bytes, None]:
            if hasattr(response, "_content"):  # read already: as it comes
                async with contextlib.aclosing(original(chunk_size)) as chunks:
                    async for chunk in chunks:
                        yield chunk
                return
            if refused:
                limit.exceeded(refused)
                raise _cut_error(limit.limit, lib)
            cap = limit.tool_cap.fresh()  # this response's lines: a page cut to the cap
            try:
                async with contextlib.aclosing(response.aiter_raw()) as raw:
                    async for chunk in raw:
                        for piece in decoder.pieces(chunk):
                            count(piece)
                            whole = cap.feed(piece)
                            if cap.listed:
                                limit.tool_cap.listed = max(limit.tool_cap.listed, cap.listed)
                            if whole:
                                yield whole
                rest = decoder.finish()
            except DecodeFailed as exc:  # as httpx says a body is not valid in its coding
                raise lib.DecodingError(str(exc)) from None
            count(rest)
            rest = cap.feed(rest) + cap.flush()
            limit.tool_cap.listed = max(limit.tool_cap.listed, cap.listed)
            if rest:
                yield rest

        response.aiter_bytes = aiter_bytes

    hooks: dict[str, list[Callable[..., Any]]] = {"response": [bound]}
    client: httpx2.AsyncClient = lib.AsyncClient(
        timeout=lib.Timeout(_HTTP_TIMEOUT, read=_HTTP_READ_TIMEOUT),
        event_hooks=hooks,
        headers=dict(headers or {}),
    )
    return client
