"""Windows around unexplained regions, where a whole-value rewrite is tried first.

When reading a long value hunk by hunk leaves a region unexplained, the classifier
tries rewrites of the whole value (every CRLF became LF, a value misread in another
codec...). Such a rewrite must reproduce every region, the unexplained one included,
and outside the differing regions the two values are equal: so it is first applied
to a small window around each unexplained region, its edges in equal text, and only a
rewrite whose output there holds the received text of the region (with a little
context) is applied to the whole value. The values stay linear to compare however long
they are, and a rewrite that changes the value everywhere shows in its windows too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Window", "windows"]

#: One region: ``(sent_start, sent_end, received_start, received_end)``.
Region = tuple[int, int, int, int]

_CONTEXT = 32  # equal code points on each side of a region inside its window
_KEEP = 16  # context kept around the region's received text in the check
_RESIDUE = 4  # code points at the very end a cut may have garbled (U+FFFD, bytes)
_LONGEST = 4096  # longest window (code points of sent text)
_COUNT = 8  # unexplained regions a rewrite is checked on


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """A stretch of the sent value and the received stretch it must become.

    ``sent_start``/``sent_end`` and ``received_start``/``received_end`` lie in equal
    text (or at the ends of the values), so a rewrite of the whole value gives, for
    ``sent[sent_start:sent_end]``, a text that holds ``received[core_start:core_end]``.
    A ``prefix`` window starts in equal text but ends inside a region too long for a
    window: the rewritten stretch, but for its last few code points, is what the
    received value holds from ``received_start`` on.
    """

    sent_start: int
    sent_end: int
    received_start: int
    received_end: int
    core_start: int
    core_end: int
    prefix: bool = False

    def holds(self, rewritten: str, received: str) -> bool:
        """True when ``rewritten`` (the window's sent text, rewritten) fits the received one."""
        if self.prefix:
            keep = len(rewritten) - _CONTEXT
            return keep <= 0 or received.startswith(rewritten[:keep], self.received_start)
        return received[self.core_start : self.core_end] in rewritten


def windows(
    regions: Sequence[Region], unexplained: Sequence[int], sent_len: int, received_len: int
) -> list[Window]:
    """Windows around the first unexplained regions (indices into ``regions``).

    ``regions`` are the differing regions of the two values in order; between two of
    them, and before the first and after the last, the values are equal. A region whose
    window would be longer than a few KiB gets a prefix window.
    """
    out: list[Window] = []
    for k in unexplained:
        window = _window(regions, k, sent_len, received_len)
        if window is not None:
            out.append(window)
            if len(out) == _COUNT:
                break
    return out


def _window(regions: Sequence[Region], k: int, sent_len: int, received_len: int) -> Window | None:
    s0, s1, r0, r1 = regions[k]
    # Left edge: _CONTEXT code points before the region, moved further left past every
    # region it would fall into, so that it lies in equal text.
    first, x0 = k, s0 - _CONTEXT
    while first > 0 and regions[first - 1][1] > x0:
        first -= 1
        x0 = min(x0, regions[first][0] - _CONTEXT)
    if x0 <= 0:
        x0 = y0 = 0
    else:
        before = regions[first - 1] if first else None
        y0 = x0 + (before[3] - before[1] if before else 0)
    last, x1 = k, s1 + _CONTEXT
    while last + 1 < len(regions) and regions[last + 1][0] < x1:
        last += 1
        x1 = max(x1, regions[last][1] + _CONTEXT)
    if x1 >= sent_len:
        x1, y1 = sent_len, received_len
    else:
        y1 = x1 + regions[last][3] - regions[last][1]
    if not 0 <= y0 <= y1 <= received_len:
        return None
    if x1 - x0 > _LONGEST:
        return Window(
            sent_start=x0,
            sent_end=x0 + _LONGEST,
            received_start=y0,
            received_end=min(received_len, y0 + 2 * _LONGEST),
            core_start=y0,
            core_end=y0,
            prefix=True,
        )
    c0 = max(y0, r0 - _KEEP)
    c1 = min(y1, r1 + _KEEP)
    if y1 == received_len:
        # A rewrite and then a cut: the last few code points may be what the cut left.
        c1 = max(c0, min(c1, received_len - _RESIDUE))
    return Window(
        sent_start=x0,
        sent_end=x1,
        received_start=y0,
        received_end=y1,
        core_start=c0,
        core_end=c1,
    )
