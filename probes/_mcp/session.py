"""One MCP client session on a private event loop, driven from synchronous code.

The official SDK client is async and its transports run inside anyio task groups: a
fault in a transport task (a server that exits, bytes that are not UTF-8, a value the
SDK itself cannot encode) cancels the whole session. ``McpSession`` hosts the
``mcp.Client`` in a task of its own on a background event loop, so such a death is
caught, kept as ``failure`` and reported, and a new session can be opened.

Four traps of the SDK are closed here: a stdio server's stderr goes to a bounded
in-memory tail (never to our terminal); the SDK's log records for lines it cannot
parse (which carry the raw line, tracebacks included) are kept, bounded and rendered
terminal-safe, instead of being printed; a request the SDK cannot serialize (a
lone surrogate in an argument) fails the one call that sent it (``guard_transport``)
instead of the transport task, which would take the whole session down; and every
message from the server is bounded (``max_reply`` bytes, see ``reply_limit``: a stdio
line, an HTTP body or event), so a reply of any size costs at most that much memory
and ends its call with :class:`ReplyTooLarge`.

Every wait is bounded. The handshake gets ``handshake_bound(timeout)``: the per-request
timeout plus half a second, and never less than 2.5 s, which leaves a cold interpreter
room to start (a Python SDK server takes 0.5-1 s here, a Node one 0.2 s; ``npx``
fetching a package needs a larger timeout). A session that is let go (a failed
handshake, a failed health check, a dead transport) is abandoned at once: the server
process this session spawned is terminated, then killed, with its process group,
instead of being given the SDK's two-second grace after its stdin closes; a Streamable
HTTP session skips its closing ``DELETE``. A session closed in good order keeps the
SDK's grace, and its ``DELETE`` is bounded.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import contextvars
import json
import logging
import os
import re
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from fidelity._core.errors import TargetError
from fidelity._core.render import safe
from probes._mcp.failures import RpcError, UnencodableRequest, UnparsableReply
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, ReplyLimit, ReplyTooLarge

if TYPE_CHECKING:
    from mcp import Client

__all__ = [
    "EventLoopThread",
    "McpSession",
    "ReplyTooLarge",
    "SdkLogSink",
    "StderrTail",
    "UnencodableRequest",
    "UnparsableReply",
    "describe_failure",
    "guard_transport",
    "handshake_bound",
    "streamable_http",
]

_T = TypeVar("_T")

#: SDK loggers that print raw peer bytes (unparsable lines, failed responses).
_SDK_LOGGERS = (
    "client",  # the logger of mcp.client.session: its message handler failures
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.client.session",
    "mcp.client.client",
    "mcp.client.caching",
    "mcp.shared.dispatcher",
    "mcp.shared.jsonrpc_dispatcher",
    "mcp.shared.tool_name_validation",
)
_TAIL_BYTES = 16384
_MESSAGE_CHARS = 300
#: The handshake (spawn, negotiation, ``tools/list``) gets the request timeout plus
#: this much for process start-up, and never less than ``_HANDSHAKE_FLOOR`` seconds.
_HANDSHAKE_STARTUP = 0.5
_HANDSHAKE_FLOOR = 2.5
#: An abandoned server gets this long after SIGTERM before SIGKILL.
_KILL_GRACE = 0.3
#: How long to wait for an abandoned session's task to end (its server is killed).
_ABANDON_WAIT = 3.0
#: A session closed in good order: the SDK's own grace (2 s after stdin closes, then
#: SIGTERM) plus a little; after that it is abandoned. Also bounds an HTTP ``DELETE``.
_CLOSE_WAIT = 3.0
_DELETE_BOUND = 2.0
#: A paginated tool listing is read for at most this many pages, and no further page
#: once this many tools arrived (each page is bounded by the reply limit).
_MAX_PAGES = 100
_MAX_TOOLS = 5000

#: Where the event loop records the server processes the current session task spawns.
_SPAWNED: contextvars.ContextVar[list[_Spawned] | None] = contextvars.ContextVar(
    "fidelity_mcp_spawned", default=None
)
#: The reply limit of the session whose task is running (read where transports start).
_LIMIT: contextvars.ContextVar[ReplyLimit | None] = contextvars.ContextVar(
    "fidelity_mcp_reply_limit", default=None
)


def handshake_bound(timeout: float) -> float:
    """Seconds allowed to spawn or reach a server and complete the MCP handshake."""
    return max(timeout + _HANDSHAKE_STARTUP, _HANDSHAKE_FLOOR)


class _RecordingLoop(asyncio.SelectorEventLoop):
    """The default POSIX event loop, noting each subprocess a session task spawns.

    The SDK's stdio client spawns the server through ``loop.subprocess_exec`` (via
    anyio) and keeps the process to itself; noted here, in the spawning task's
    context, the session can kill the very process it started when it lets it go.
    (On Windows the SDK spawns in a Job Object of its own; nothing is noted there and
    the SDK's shutdown applies.)
    """

    async def subprocess_exec(self, protocol_factory: Any, *args: Any, **kwargs: Any) -> Any:
        limit = _LIMIT.get()
        if limit is not None:
            protocol_factory = _bounded_stdout(protocol_factory, limit.lines())
        transport, protocol = await super().subprocess_exec(protocol_factory, *args, **kwargs)
        sink = _SPAWNED.get()
        if sink is not None:
            sink.append(_Spawned(transport))
        return transport, protocol


def _bounded_stdout(
    protocol_factory: Callable[[], Any], admit: Callable[[bytes], bytes]
) -> Callable[[], Any]:
    """``protocol_factory``, its protocols passing the child's stdout through ``admit``."""

    def make() -> Any:
        protocol = protocol_factory()
        received = protocol.pipe_data_received

        def pipe_data_received(fd: int, data: bytes) -> None:
            if fd == 1:
                data = admit(data)
                if not data:
                    return
            received(fd, data)

        protocol.pipe_data_received = pipe_data_received
        return protocol

    return make


@contextlib.asynccontextmanager
async def streamable_http(url: str) -> AsyncIterator[Any]:
    """The SDK's Streamable HTTP transport to ``url``, bounded by the session's reply limit.

    Entered in the session's task (where the limit is known); without a limit it is
    the SDK's transport as it comes.
    """
    from mcp.client.streamable_http import streamable_http_client

    from probes._mcp.reply_limit import bounded_http_client

    limit = _LIMIT.get()
    async with contextlib.AsyncExitStack() as stack:
        if limit is None:
            streams = await stack.enter_async_context(streamable_http_client(url))
        else:
            client = await stack.enter_async_context(bounded_http_client(limit))
            streams = await stack.enter_async_context(
                streamable_http_client(url, http_client=client, max_sse_event_size=limit.limit)
            )
        yield streams


class _Spawned:
    """A server process a session started, and whether it leads its own process group.

    The SDK starts a stdio server in a new session, so the server's children (``npx``
    runs ``node``) share its group and are signalled with it, even after the leader
    itself exited (a child holding its stdout open keeps the session waiting).
    """

    def __init__(self, transport: asyncio.SubprocessTransport) -> None:
        self.transport = transport
        self.pid = transport.get_pid()
        try:
            self.group = os.getpgid(self.pid) == self.pid and self.pid != os.getpgrp()
        except (OSError, AttributeError):  # gone already, or no process groups here
            self.group = False

    @property
    def returncode(self) -> int | None:
        """The leader's exit status once it exited, else ``None``."""
        return self.transport.get_returncode()

    def running(self) -> bool:
        """True while the leader, or any member of its group but a zombie, runs.

        Orphaned members that died wait as zombies until the system reaps them; on
        Linux ``/proc`` tells them apart, elsewhere a zombie counts as running.
        """
        if not self.signal(0):
            return False
        if not self.group or not os.path.isdir("/proc/self"):
            return True
        pgid = str(self.pid)
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rpartition(")")[2].split()
            except OSError:
                continue
            if len(fields) > 2 and fields[2] == pgid and fields[0] not in ("Z", "X"):
                return True
        return False

    def signal(self, signum: int) -> bool:
        """Send ``signum`` to the group (or the lone process); False when nothing is left."""
        try:
            if self.group:
                os.killpg(self.pid, signum)
            elif self.returncode is None:
                os.kill(self.pid, signum)
            else:
                return False
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # a member we may not signal; the rest got it
        return True


class EventLoopThread:
    """An asyncio event loop running in a daemon thread; coroutines are submitted to it."""

    def __init__(self, name: str = "fidelity-mcp") -> None:
        self.loop: asyncio.AbstractEventLoop = (
            asyncio.new_event_loop() if sys.platform == "win32" else _RecordingLoop()
        )
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        """Schedule ``coro`` on the loop; return its future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, _T], timeout: float) -> _T:
        """Run ``coro`` on the loop and wait at most ``timeout`` seconds.

        Raises ``TimeoutError`` (after cancelling the coroutine) when the bound runs out.
        """
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g}s") from None

    def stop(self) -> None:
        """Stop the loop and join its thread (bounded)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self.loop.close()


class StderrTail:
    """A pipe whose write end is a server's stderr; keeps only the last bytes written."""

    def __init__(self, limit: int = _TAIL_BYTES) -> None:
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._read = read_fd
        self._buffer = bytearray()
        self._written = 0
        self._limit = limit
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="mcp-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._read, 65536)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self._written += len(chunk)
                self._buffer += chunk
                del self._buffer[: -self._limit]
        with contextlib.suppress(OSError):
            os.close(self._read)

    def settle(self, quiet: float = 0.05, bound: float = 0.5) -> None:
        """Wait (at most ``bound`` seconds) until nothing new arrived for ``quiet`` seconds."""
        deadline = time.monotonic() + bound
        last = -1
        while time.monotonic() < deadline:
            with self._lock:
                size = self._written
            if size == last:
                return
            last = size
            time.sleep(quiet)

    def text(self, chars: int = 400) -> str:
        """The last ``chars`` characters written, terminal-safe, on one line (``...``
        before them when there was more)."""
        with self._lock:
            data = bytes(self._buffer)
        text = data.decode("utf-8", "replace").strip()
        tail = text[-chars:]
        shown = safe(" | ".join(line.strip() for line in tail.splitlines() if line.strip()))
        return "..." + shown if len(text) > chars else shown

    def close(self) -> None:
        """Close our write end; the drain thread ends when the servers' copies close."""
        with contextlib.suppress(OSError):
            self.file.close()


class SdkLogSink:
    """Swallow the SDK's warning and error records while a probe is open; keep them.

    The SDK logs a full traceback, raw line included, for every stdout line it cannot
    parse. While any sink is installed those records are not printed; each installed
    sink counts them and keeps the last few messages, bounded and terminal-safe, as
    evidence for a ``broken`` or ``lost`` report.
    """

    def __init__(self) -> None:
        self.count = 0
        self.messages: collections.deque[str] = collections.deque(maxlen=5)

    def keep(self, record: logging.LogRecord) -> None:
        """Record one swallowed SDK message."""
        self.count += 1
        try:
            message = record.getMessage()
        except Exception:  # a malformed record must not break the probe
            message = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            message = f"{message}: {type(exc).__name__}: {exc}"
        self.messages.append(safe(message[:_MESSAGE_CHARS]))

    def install(self) -> None:
        """Start swallowing the SDK's records (shared by all open probes)."""
        _FORWARD.add(self)

    def uninstall(self) -> None:
        """Stop, once no open probe needs it."""
        _FORWARD.remove(self)


class _Forward(logging.Filter):
    """The one filter on the SDK loggers: hands records to every installed sink."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._sinks: list[SdkLogSink] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        for sink in list(self._sinks):
            sink.keep(record)
        return False

    def add(self, sink: SdkLogSink) -> None:
        with self._lock:
            self._sinks.append(sink)
            if len(self._sinks) == 1:
                for name in _SDK_LOGGERS:
                    logging.getLogger(name).addFilter(self)

    def remove(self, sink: SdkLogSink) -> None:
        with self._lock:
            if sink in self._sinks:
                self._sinks.remove(sink)
            if not self._sinks:
                for name in _SDK_LOGGERS:
                    logging.getLogger(name).removeFilter(self)


_FORWARD = _Forward()


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


def _raw_input(exc: Exception) -> tuple[str | None, str]:
    """The raw line inside the SDK's parse error, and the parser's reason."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None, ""
    try:
        first = errors()[0]
    except Exception:  # not a pydantic ValidationError after all
        return None, ""
    raw = first.get("input") if isinstance(first, dict) else None
    reason = str(first.get("msg", "")) if isinstance(first, dict) else ""
    return (raw if isinstance(raw, str) else None), reason


#: A string (one left open runs to the end of the text: matching it costs one pass, where
#: backtracking to every later quote would cost the square of a hostile line's length),
#: or a run of brackets.
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.?)*+)(?:"|\Z)\s*(:)?|([{\[]+)|([}\]]+)', re.DOTALL)


def _top_level_keys(raw: str) -> set[str]:
    """The keys of the outermost JSON object in ``raw``, found without recursion.

    For a text too deeply nested to be parsed: tells a JSON-RPC reply (``id`` with
    ``result`` or ``error``) from any other message. Escapes in keys are not decoded.
    """
    keys: set[str] = set()
    depth = 0
    for token in _JSON_TOKEN.finditer(raw):
        key, colon, opening, closing = token.groups()
        if opening:
            depth += len(opening)
        elif closing:
            depth -= len(closing)
        elif depth == 1 and colon:
            keys.add(key)
    return keys


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside ``exc``: groups flattened, causes and contexts followed."""
    out: list[BaseException] = []
    stack = [exc]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
            continue
        out.append(item)
        for linked in (item.__cause__, item.__context__):
            if linked is not None:
                stack.append(linked)
    return out


def _is_cancel(exc: BaseException) -> bool:
    return isinstance(exc, asyncio.CancelledError) or type(exc).__name__ == "Cancelled"


def describe_failure(exc: BaseException) -> tuple[str, str, bool]:
    """Name what killed a session: ``(error_type, message, client_side)``.

    ``client_side`` is true when the SDK in this process failed to encode the value
    (a lone surrogate cannot be written as UTF-8 JSON), i.e. before anything was sent.
    """
    leaves = [e for e in _leaves(exc) if not _is_cancel(e)] or [exc]
    for leaf in leaves:
        text = str(leaf)
        if isinstance(leaf, UnicodeEncodeError) or (
            type(leaf).__name__ == "PydanticSerializationError" and "UnicodeEncodeError" in text
        ):
            return (
                type(leaf).__name__,
                "the MCP client library could not encode the value "
                f"({safe(text[:_MESSAGE_CHARS])}); the session died before it was sent",
                True,
            )
    for leaf in leaves:
        if isinstance(leaf, UnicodeDecodeError):
            return (
                "UnicodeDecodeError",
                f"the server wrote bytes that are not UTF-8 ({safe(str(leaf)[:_MESSAGE_CHARS])}); "
                "the session died",
                False,
            )
    leaf = leaves[0]
    return type(leaf).__name__, safe(str(leaf)[:_MESSAGE_CHARS]) or type(leaf).__name__, False


class McpSession:
    """One ``mcp.Client`` held open in its own task on ``loop``.

    ``start()`` connects (bounded by ``timeout``) and lists the tools; ``call()`` runs
    one ``tools/call``; ``failure`` is what ended the session, once ``dead`` is set.
    A message from the server longer than ``max_reply`` bytes ends the session: the
    call in flight (or the handshake) fails with :class:`ReplyTooLarge` and the server
    is let go (see :meth:`abandon`).
    """

    def __init__(
        self,
        loop: EventLoopThread,
        make_client: Callable[[Callable[[object], Awaitable[None]], Callable[[], float]], Client],
        *,
        timeout: float,
        on_noise: Callable[[str], None] | None = None,
        max_reply: int = DEFAULT_MAX_REPLY,
    ) -> None:
        self._loop = loop
        self._make_client = make_client
        self._timeout = timeout
        self._on_noise = on_noise
        self.client: Client | None = None
        self.failure: BaseException | None = None
        self.tools: list[Any] = []
        #: The protocol version the handshake (or ``server/discover``) settled on.
        self.protocol_version = ""
        #: The server's ``serverInfo``, ``name version`` (empty when it sent none).
        self.server_info = ""
        self._dead = threading.Event()
        self._stop: asyncio.Event | None = None
        self._host: concurrent.futures.Future[None] | None = None
        self._current: asyncio.Task[Any] | None = None
        self._interrupted: UnparsableReply | ReplyTooLarge | None = None
        self._spawned: list[_Spawned] = []
        self._abandoned = False
        self._abandoned_at: float | None = None
        self._limit = ReplyLimit(max_reply, self._reply_too_large)
        self._too_large: ReplyTooLarge | None = None

    @property
    def dead(self) -> bool:
        """True once the session ended, by a failure or by ``close()``."""
        return self._dead.is_set()

    def wait_dead(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the session to end; return whether it did."""
        return self._dead.wait(timeout)

    def start(self) -> None:
        """Connect and list the tools, within ``handshake_bound(timeout)``.

        Raise ``TargetError`` when that fails; the server is then abandoned.
        """
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._host = self._loop.submit(self._hold(ready))
        bound = handshake_bound(self._timeout)
        try:
            ready.result(bound)
        except concurrent.futures.TimeoutError:
            self.abandon()
            raise TargetError(
                f"the MCP server did not complete the handshake within {bound:g}s "
                "(a server that starts slowly needs a longer timeout)."
            ) from None
        except BaseException as exc:
            self.abandon()
            if isinstance(exc, KeyboardInterrupt):  # Ctrl-C, or a signal that ends us
                raise
            error_type, message, _ = describe_failure(exc)
            raise TargetError(f"could not open an MCP session ({error_type}: {message}).") from None

    async def _hold(self, ready: concurrent.futures.Future[None]) -> None:
        self._stop = asyncio.Event()
        _SPAWNED.set(self._spawned)  # this task's own context: see _RecordingLoop
        _LIMIT.set(self._limit)  # read where the transport starts (stdio and HTTP)
        try:
            async with self._make_client(self._on_message, self._close_within) as client:
                self.client = client
                self.protocol_version = str(client.protocol_version)
                info = client.server_info
                if info is not None:
                    self.server_info = f"{info.name} {info.version}".strip()
                listing = await client.list_tools()
                self.tools = list(listing.tools)
                cursor = listing.next_cursor
                pages = 0
                while cursor is not None and pages < _MAX_PAGES and len(self.tools) < _MAX_TOOLS:
                    listing = await client.list_tools(cursor=cursor)
                    self.tools.extend(listing.tools)
                    cursor = listing.next_cursor
                    pages += 1
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # the host task is outermost: keep what ended it
            self.failure = self._too_large or exc
            if not ready.done():
                ready.set_exception(self.failure)
        finally:
            self.client = None
            self._dead.set()

    def _reply_too_large(self) -> None:
        """(On the loop.) A message went past the reply limit: fail the call, end the session."""
        self._too_large = ReplyTooLarge(self._limit.limit)
        if self._current is not None:
            self._interrupted = self._too_large
            self._current.cancel()
        self.abandon(wait=False)

    def _close_within(self) -> float:
        """What the transport may still spend on its way out (see ``guard_transport``)."""
        return 0.0 if self._abandoned else min(self._timeout, _DELETE_BOUND)

    async def _on_message(self, message: object) -> None:
        """Fail the call in flight at once when its reply reached us but the SDK dropped it.

        The SDK's stdio client hands each line it cannot parse to the message handler
        and otherwise ignores it: the call would wait for its timeout. A line that is
        a JSON-RPC reply (by the standard ``json`` module, which is laxer, e.g. about
        lone surrogate escapes) is the answer to the one call in flight. A line that is
        not JSON-RPC at all (a banner, a log line, bytes that are not UTF-8) goes to
        ``on_noise``: this client skips it, a stricter one fails on it.
        """
        if not isinstance(message, Exception):
            return
        raw, reason = _raw_input(message)
        if raw is None:
            return
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        except RecursionError:  # nested deeper than any parser here goes
            parsed = dict.fromkeys(_top_level_keys(raw))
            reason = "the JSON is nested too deeply to be read"
        if not isinstance(parsed, dict) or "jsonrpc" not in parsed:
            if self._on_noise is not None and raw.strip():
                self._on_noise(raw)
            return
        if self._current is None:
            return
        if "id" in parsed and ("result" in parsed or "error" in parsed):
            self._interrupted = UnparsableReply(reason, raw)
            self._current.cancel()

    def call(self, coro_fn: Callable[[Client], Awaitable[_T]], timeout: float) -> _T:
        """Run ``coro_fn(client)`` on the loop, bounded by ``timeout`` seconds.

        Raises ``ConnectionError`` when the session is already dead, ``TimeoutError``
        when the bound runs out, ``UnparsableReply`` when the reply arrived but the
        SDK could not parse it and ``ReplyTooLarge`` when a message went past the limit.
        """
        client = self.client
        if client is None or self.dead:
            raise ConnectionError("the MCP session is closed")
        self._interrupted = None

        async def run() -> _T:
            self._current = asyncio.current_task()
            try:
                return await coro_fn(client)
            except asyncio.CancelledError:
                if self._interrupted is not None:
                    raise self._interrupted from None
                raise
            finally:
                self._current = None

        return self._loop.run(run(), timeout)

    def call_tool(self, name: str, arguments: dict[str, Any], timeout: float, bound: float) -> Any:
        """One ``tools/call`` with the SDK's own ``timeout``, all of it within ``bound``.

        The ``CallToolResult``; failures as in :mod:`probes._mcp.failures` (the SDK's
        ``MCPError`` as ``RpcError``).
        """
        from mcp import MCPError

        async def call(client: Client) -> Any:
            return await client.call_tool(name, arguments, read_timeout_seconds=timeout)

        try:
            return self.call(call, bound)
        except MCPError as exc:
            raise RpcError(exc.code, str(exc.message)) from None

    def ping(self, bound: float) -> None:
        """A health check (``tools/list``) within ``bound`` seconds; raises when it fails."""

        async def ping(client: Client) -> Any:
            return await client.list_tools()

        self.call(ping, bound)

    def close(self, *, wait: bool = True) -> None:
        """End the session in good order: the server gets the SDK's grace to exit.

        Bounded: a session not over within a few seconds is abandoned. With
        ``wait=False`` the shutdown is only started; a later ``close()`` waits for it.
        """
        stop = self._stop
        if stop is not None and not self.dead:
            self._loop.loop.call_soon_threadsafe(stop.set)
        if not wait:
            return
        if self._host is not None and not self._dead.wait(_CLOSE_WAIT):
            self.abandon()
        self._sweep()

    def abandon(self, *, wait: bool = True) -> None:
        """Let the session go at once: kill the server it spawned, cancel its task.

        The server process (and its process group) gets SIGTERM, then SIGKILL after
        a short grace; a Streamable HTTP session skips its closing ``DELETE``. With
        ``wait=False`` this only starts it; ``close()`` waits for the end (bounded).
        """
        self._abandoned = True
        if self._abandoned_at is None:
            self._abandoned_at = time.monotonic()
        if not self._loop.loop.is_closed():
            self._loop.loop.call_soon_threadsafe(self._signal_spawned, signal.SIGTERM)
        host = self._host
        if host is not None:
            host.cancel()
        if wait:
            self._dead.wait(_ABANDON_WAIT)
            self._sweep()

    def _sweep(self) -> None:
        """Stop what is left in the spawned servers' process groups (bounded).

        A server that exited, in good order or not, can leave children behind (they
        may even hold its stdout open); the SDK, seeing the server gone, leaves them
        running. They are ours: SIGTERM, then SIGKILL after a short grace.
        """
        if self._abandoned_at is None:
            left = [p for p in self._spawned if p.signal(signal.SIGTERM)]
            deadline = time.monotonic() + _KILL_GRACE
        else:  # SIGTERM went out when the session was abandoned; its grace runs from then
            left = [p for p in self._spawned if p.running()]
            deadline = self._abandoned_at + _KILL_GRACE
        while left and time.monotonic() < deadline:
            time.sleep(0.02)
            left = [p for p in left if p.running()]
        for spawned in left:
            spawned.signal(_SIGKILL)

    def _signal_spawned(self, signum: int) -> None:
        """(On the loop.) Signal each spawned server still there; escalate to SIGKILL."""
        signalled = [p for p in self._spawned if p.signal(signum)]
        if signalled and signum != _SIGKILL:
            self._loop.loop.call_later(_KILL_GRACE, self._signal_spawned, _SIGKILL)

    @property
    def exit_code(self) -> int | None:
        """The exit status of the server process this session spawned, once it exited."""
        codes = [p.returncode for p in self._spawned if p.returncode is not None]
        return codes[0] if codes else None


_SIGKILL: int = getattr(signal, "SIGKILL", signal.SIGTERM)
