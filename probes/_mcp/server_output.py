"""What an MCP server says besides its replies, kept bounded and terminal-safe.

:class:`StderrTail` keeps the end of a stdio server's stderr in memory (never our
terminal); :class:`SdkLogSink` keeps the SDK's log records about lines it could not
parse (which carry the raw line) instead of printing them.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import threading
import time

from fidelity._core.render import safe
from probes._mcp.session_failure import MESSAGE_CHARS

__all__ = ["SdkLogSink", "StderrTail"]

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
        self.messages.append(safe(message[:MESSAGE_CHARS]))

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
