"""A small progress bar on stderr for long work.

It draws only when the stream is a terminal and the caller did not ask for quiet; it
redraws at most ten times a second and erases itself when done, so piped or captured
output never contains it. Labels go through ``fidelity._core.render.safe``.
"""

from __future__ import annotations

import shutil
import sys
import time
from types import TracebackType
from typing import Self, TextIO

from fidelity._core.render import safe

__all__ = ["Progress"]

_INTERVAL = 0.1


class Progress:
    """A progress bar: ``with Progress(total, label=...) as bar: bar.advance()``.

    ``enabled`` asks for the bar (``False`` when quiet); it is drawn only when
    ``stream`` (default stderr) is also a terminal. ``total`` may grow with
    :meth:`add`; progress past the total is shown as complete.
    """

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        enabled: bool = True,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.active = bool(enabled and isatty is not None and isatty())
        self.total = max(0, total)
        self.done = 0
        self.label = label
        self._drawn_at = 0.0
        self._width = 0

    def __enter__(self) -> Self:
        self._draw(force=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def add(self, count: int) -> None:
        """Grow the total by ``count`` units of work."""
        self.total += max(0, count)
        self._draw()

    def advance(self, count: int = 1, *, label: str | None = None) -> None:
        """Record ``count`` finished units (and switch the label, when given)."""
        self.done += count
        if not self.active:
            return
        if label is not None:
            self.label = label
            self._draw(force=True)
        else:
            self._draw()

    def close(self) -> None:
        """Erase the bar."""
        if self.active and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
        self.active = False

    def _draw(self, *, force: bool = False) -> None:
        if not self.active:
            return
        now = time.monotonic()
        if not force and now - self._drawn_at < _INTERVAL and self.done < self.total:
            return
        self._drawn_at = now
        columns = shutil.get_terminal_size((80, 24)).columns - 1
        done = min(self.done, self.total)
        counter = f" {done}/{self.total} "
        cells = max(10, min(30, columns // 3))
        filled = cells * done // self.total if self.total else cells
        bar = "[" + "#" * filled + "-" * (cells - filled) + "]"
        label = safe(self.label)
        room = max(0, columns - len(bar) - len(counter))
        if len(label) > room:
            label = label[: max(0, room - 1)] + "…" if room else ""
        line = f"{bar}{counter}{label}"
        pad = " " * max(0, self._width - len(line))
        self.stream.write("\r" + line + pad)
        self.stream.flush()
        self._width = len(line)
