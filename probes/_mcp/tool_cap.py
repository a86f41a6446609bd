"""The tool cap applied inside one ``tools/list`` page, before the SDK reads it.

A run reads at most ``MAX_TOOLS`` tools. Across pages the session stops asking; but
one page may hold any number within the reply limit (60,000 tools fit in 4 MiB), and
the SDK validates every one of them against the protocol's schema, twice, before the
session sees the first: a minute and half a gigabyte. :class:`ToolCap` sits on a
stdio server's stdout (after the reply limit), and on each Streamable HTTP response's
decoded bytes, and hands on whole lines only: a line (a JSON body, a server-sent
event's ``data:`` line) that answers ``tools/list`` with more than ``MAX_TOOLS`` tools
is handed on with the first ``MAX_TOOLS`` and no ``nextCursor``, and the count it
listed is kept (``listed``) so the session can say so in one sentence.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_TOOLS", "ToolCap"]

#: The most tools a session reads, all pages together.
MAX_TOOLS = 5000
#: A line shorter than this cannot list more than ``MAX_TOOLS`` tools (each tool is
#: an object with a name: ``{"name":""}``, ten bytes and a comma at the least).
_SHORTEST = 10 * MAX_TOOLS


class ToolCap:
    """Whole lines of a server's stdout, a ``tools/list`` page cut to ``MAX_TOOLS``."""

    def __init__(self) -> None:
        self._held: list[bytes] = []
        #: How many tools the page that was cut listed (0: none was cut).
        self.listed = 0

    def fresh(self) -> ToolCap:
        """A cap of its own for another stream (one HTTP response)."""
        return ToolCap()

    def feed(self, data: bytes) -> bytes:
        """The complete lines ``data`` ends (with what was held before it)."""
        end = data.rfind(b"\n")
        if end < 0:
            if data:
                self._held.append(data)
            return b""
        head, rest = data[: end + 1], data[end + 1 :]
        if self._held:
            head = b"".join((*self._held, head))
            self._held.clear()
        if rest:
            self._held.append(rest)
        if len(head) < _SHORTEST or b'"tools"' not in head:
            return head
        return b"".join(self._line(line) for line in head.splitlines(keepends=True))

    def flush(self) -> bytes:
        """What is held of a last line without a line break (the stream ended; a JSON
        body over HTTP is one such line), the page in it cut as any other."""
        held = b"".join(self._held)
        self._held.clear()
        return self._line(held) if held else held

    def _line(self, line: bytes) -> bytes:
        if len(line) < _SHORTEST or b'"tools"' not in line:
            return line
        prefix = b""
        if line.startswith(b"data:"):  # a server-sent event's data line
            prefix, line = b"data: ", line[5:].lstrip(b" ")
        try:
            message: Any = json.loads(line)
        except (ValueError, RecursionError):
            return prefix + line
        result = message.get("result") if isinstance(message, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(result, dict) or not isinstance(tools, list) or len(tools) <= MAX_TOOLS:
            return line
        self.listed = max(self.listed, len(tools))
        cut = {k: v for k, v in result.items() if k != "nextCursor"}
        cut["tools"] = tools[:MAX_TOOLS]
        end = b"\r\n" if line.endswith(b"\r\n") else b"\n" if line.endswith(b"\n") else b""
        return prefix + json.dumps({**message, "result": cut}, ensure_ascii=False).encode() + end
