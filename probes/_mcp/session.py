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
import concurrent.futures
import json
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from fidelity._core.errors import TargetError
from probes._mcp.failures import RpcError, UnencodableRequest, UnparsableReply
from probes._mcp.loop import REPLY_LIMIT, SPAWNED, EventLoopThread, Spawned
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, ReplyLimit, ReplyTooLarge
from probes._mcp.server_output import SdkLogSink, StderrTail
from probes._mcp.session_failure import describe_failure, raw_input, top_level_keys
from probes._mcp.session_failure import top_level_keys as _top_level_keys  # noqa: F401 (tests)
from probes._mcp.tool_cap import MAX_TOOLS
from probes._mcp.transport import guard_transport, streamable_http

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
_MAX_TOOLS = MAX_TOOLS
#: A reply nested too deeply to be parsed, in one sentence whichever parser noticed it:
#: the SDK's (pydantic's reason holds ``_SDK_TOO_DEEP``) or ``json``'s (RecursionError).
_TOO_DEEP = "the JSON is nested too deeply to be read"
_SDK_TOO_DEEP = "recursion limit exceeded"


def handshake_bound(timeout: float) -> float:
    """Seconds allowed to spawn or reach a server and complete the MCP handshake."""
    return max(timeout + _HANDSHAKE_STARTUP, _HANDSHAKE_FLOOR)


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
        #: How many tools the server listed when that was more than the cap (``0``:
        #: every tool was read); only the first ``MAX_TOOLS`` are kept.
        self.tools_cut = 0
        #: The protocol version the handshake (or ``server/discover``) settled on.
        self.protocol_version = ""
        #: The server's ``serverInfo``, ``name version`` (empty when it sent none).
        self.server_info = ""
        self._dead = threading.Event()
        self._stop: asyncio.Event | None = None
        self._host: concurrent.futures.Future[None] | None = None
        self._current: asyncio.Task[Any] | None = None
        self._interrupted: UnparsableReply | ReplyTooLarge | None = None
        self._spawned: list[Spawned] = []
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
        SPAWNED.set(self._spawned)  # this task's own context: see _RecordingLoop
        REPLY_LIMIT.set(self._limit)  # read where the transport starts (stdio and HTTP)
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
                listed = max(self._limit.tool_cap.listed, len(self.tools))
                if listed > _MAX_TOOLS or (cursor is not None and listed >= _MAX_TOOLS):
                    self.tools_cut = max(listed, _MAX_TOOLS + 1)
                    del self.tools[_MAX_TOOLS:]
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
        self._too_large = ReplyTooLarge(self._limit.limit, self._limit.reason)
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
        raw, reason = raw_input(message)
        if raw is None:
            return
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        except RecursionError:  # nested deeper than any parser here goes
            parsed = dict.fromkeys(top_level_keys(raw))
            reason = _TOO_DEEP
        if _SDK_TOO_DEEP in reason:
            # The SDK's parser stops near 200 levels, json near 1000 (3.11) to 10000
            # (3.13): one sentence for the one cause, whichever parser noticed it.
            reason = _TOO_DEEP
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
        from probes._mcp.sdk import error_types, rpc_error

        async def call(client: Client) -> Any:
            return await client.call_tool(name, arguments, read_timeout_seconds=timeout)

        try:
            return self.call(call, bound)
        except error_types() as exc:
            raise RpcError(*rpc_error(exc)) from None

    def get_prompt(self, name: str, arguments: dict[str, Any], timeout: float, bound: float) -> Any:
        """One ``prompts/get`` within ``timeout`` seconds (``bound`` for the whole call):
        the ``GetPromptResult``; failures as for :meth:`call_tool`."""
        from probes._mcp.sdk import error_types, rpc_error

        async def get(client: Client) -> Any:
            return await client.get_prompt(name, {k: str(v) for k, v in arguments.items()})

        try:
            return self.call(get, min(timeout, bound))
        except error_types() as exc:
            raise RpcError(*rpc_error(exc)) from None

    def read_resource(self, uri: str, timeout: float, bound: float) -> Any:
        """One ``resources/read`` of ``uri``, bounded as :meth:`get_prompt`: the
        ``ReadResourceResult``; failures as for :meth:`call_tool`."""
        from probes._mcp.sdk import error_types, rpc_error

        async def read(client: Client) -> Any:
            return await client.read_resource(uri)

        try:
            return self.call(read, min(timeout, bound))
        except error_types() as exc:
            raise RpcError(*rpc_error(exc)) from None

    def prompts_and_templates(self, bound: float) -> tuple[list[Any], list[Any]]:
        """The prompts and resource templates the server lists (first page each; a
        server without the capability, or that does not answer within ``bound`` seconds,
        lists none)."""
        from probes._mcp.sdk import error_types

        async def prompts(client: Client) -> Any:
            return (await client.list_prompts()).prompts

        async def templates(client: Client) -> Any:
            return (await client.list_resource_templates()).resource_templates

        unanswered: tuple[type[BaseException], ...] = (
            *error_types(),
            TimeoutError,
            ConnectionError,
            ValueError,
        )
        found: list[list[Any]] = []
        for lister in (prompts, templates):
            try:
                found.append(list(self.call(lister, bound)))
            except unanswered:
                found.append([])  # not offered, or not answered: nothing to survey
        return found[0], found[1]

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
