"""The event loop an MCP session runs on, and the server processes its task spawns.

:class:`EventLoopThread` hosts the loop in a daemon thread. On POSIX the loop notes
each subprocess a session task spawns (``SPAWNED``, set in that task's context) and
bounds the child's stdout by the session's reply limit (``REPLY_LIMIT``), so a session
can kill the very process it started and no stdout line outgrows the limit.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import os
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from probes._mcp.reply_limit import ReplyLimit
from probes._mcp.tool_cap import ToolCap

__all__ = ["REPLY_LIMIT", "SPAWNED", "EventLoopThread", "Spawned"]

_T = TypeVar("_T")
#: How long a cancelled session waits for the server it was starting, to end it.
_SPAWN_WAIT = 2.0

#: Where the event loop records the server processes the current session task spawns.
SPAWNED: contextvars.ContextVar[list[Spawned] | None] = contextvars.ContextVar(
    "fidelity_mcp_spawned", default=None
)


#: The reply limit of the session whose task is running (read where transports start).
REPLY_LIMIT: contextvars.ContextVar[ReplyLimit | None] = contextvars.ContextVar(
    "fidelity_mcp_reply_limit", default=None
)


class _RecordingLoop(asyncio.SelectorEventLoop):
    """The default POSIX event loop, noting each subprocess a session task spawns.

    The SDK's stdio client spawns the server through ``loop.subprocess_exec`` (via
    anyio) and keeps the process to itself; noted here, in the spawning task's
    context, the session can kill the very process it started when it lets it go.
    (On Windows the SDK spawns in a Job Object of its own; nothing is noted there and
    the SDK's shutdown applies.)
    """

    async def subprocess_exec(self, protocol_factory: Any, *args: Any, **kwargs: Any) -> Any:
        limit = REPLY_LIMIT.get()
        if limit is not None:
            protocol_factory = _bounded_stdout(protocol_factory, limit.lines(), limit.tool_cap)
        sink = SPAWNED.get()
        spawn = asyncio.ensure_future(super().subprocess_exec(protocol_factory, *args, **kwargs))
        try:
            transport, protocol = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            # Cancelled (the session let go: a signal, a timeout) while the process was
            # being started: it exists, or soon will. Note it all the same, so the
            # session ends it with its process group, then go on being cancelled.
            with contextlib.suppress(BaseException):
                transport, _ = await asyncio.wait_for(spawn, _SPAWN_WAIT)
                if sink is not None:
                    sink.append(Spawned(transport))
            raise
        if sink is not None:
            sink.append(Spawned(transport))
        return transport, protocol


def _bounded_stdout(
    protocol_factory: Callable[[], Any], admit: Callable[[bytes], bytes], cap: ToolCap
) -> Callable[[], Any]:
    """``protocol_factory``, its protocols passing the child's stdout through ``admit``,
    then whole lines only through ``cap`` (a last line without a break when it closes)."""

    def make() -> Any:
        protocol = protocol_factory()
        received = protocol.pipe_data_received
        lost = protocol.pipe_connection_lost

        def pipe_data_received(fd: int, data: bytes) -> None:
            if fd == 1:
                data = cap.feed(admit(data))
                if not data:
                    return
            received(fd, data)

        def pipe_connection_lost(fd: int, exc: BaseException | None) -> None:
            if fd == 1:
                rest = cap.flush()
                if rest:
                    received(fd, rest)
            lost(fd, exc)

        protocol.pipe_data_received = pipe_data_received
        protocol.pipe_connection_lost = pipe_connection_lost
        return protocol

    return make


class Spawned:
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
