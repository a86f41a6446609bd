"""The transformation map as a terminal table.

One row per hazard family: the outcome and kinds (one column per direction when the
target measured the request and response paths apart) and the smallest example of
the first rewrite or failure, as ``U+XXXX`` code points. Only ASCII and
terminal-safe text is printed; colour only on a terminal and never with ``NO_COLOR``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from fidelity._core.render import safe
from fidelity._probe.observation import Direction
from fidelity._report.display import FAILURES, clip, points

if TYPE_CHECKING:
    from fidelity._report.outcomes import Example, FamilyOutcome

__all__ = ["example_text", "render_map", "use_color"]

_COLORS = {
    "preserved": "32",
    "transformed": "33",
    "mixed": "35",
    "rejected": "31",
    "lost": "31",
    "timeout": "31",
    "broken": "31",
}
_DIRECTION_TITLES = {
    Direction.ROUND_TRIP: "round trip",
    Direction.REQUEST: "request path",
    Direction.RESPONSE: "response path",
}
_MAX_POINTS = 6
_MAX_CELL = 48
#: A failure's message in the example column: its first line, up to this long.
_MAX_REASON = 200


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, never with ``NO_COLOR`` set or ``TERM=dumb``."""
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def _points(text: str) -> str:
    return points(text, _MAX_POINTS)


def example_text(example: Example) -> str:
    """The example as code points: the changed segment, or the failure's message."""
    if example.key in FAILURES:
        message = f"{example.error_type}: {example.error}" if example.error_type else example.error
        # The first line in full (up to a bound): the cause is often past its start.
        first = next((line.strip() for line in message.splitlines() if line.strip()), "")
        return f"{_points(example.sent)}: {clip(safe(first) or example.key, _MAX_REASON)}"
    from fidelity._compare.api import compare

    received = example.received
    changes = compare(example.sent, received).transformations
    change = next((t for t in changes if t.kind == example.key), None)
    if change is None:
        return _points(example.sent)
    if not isinstance(received, (str, bytes)):
        return f"{_points(example.sent)} -> {clip(safe(repr(received)), 24)}"
    return f"{_points(change.sent)} -> {_points(change.received)}"


def _cell(row: FamilyOutcome | None) -> str:
    if row is None:
        return "-"
    if row.kinds:
        return f"{row.outcome} ({', '.join(row.kinds)})"
    return row.outcome


def _paint(text: str, outcome: str, color: bool) -> str:
    code = _COLORS.get(outcome)
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def render_map(rows: Sequence[FamilyOutcome], *, color: bool = False) -> str:
    """The table of ``rows`` (a survey's ``outcomes``), one line per family."""
    if not rows:
        return "no observations.\n"
    directions = [d for d in Direction if any(r.direction is d for r in rows)]
    split = directions != [Direction.ROUND_TRIP]
    families: dict[str, dict[Direction, FamilyOutcome]] = {}
    for row in rows:
        families.setdefault(row.family, {})[row.direction] = row
    header = ["family", *(_DIRECTION_TITLES[d] for d in directions)] if split else [
        "family", "outcome", "kinds"
    ]  # fmt: skip
    header.append("smallest example")
    table: list[tuple[list[str], list[str]]] = []
    for family, by_direction in families.items():
        cells = [safe(family)]
        outcomes = [""]
        if split:
            for direction in directions:
                found = by_direction.get(direction)
                cells.append(_cell(found))
                outcomes.append(found.outcome if found else "")
        else:
            only = by_direction[Direction.ROUND_TRIP]
            cells += [only.outcome, ", ".join(only.kinds) or "-"]
            outcomes += [only.outcome, ""]
        example = next(
            (e for d in directions if (r := by_direction.get(d)) for e in r.examples), None
        )
        cells.append(example_text(example) if example else "")
        outcomes.append("")
        table.append((cells, outcomes))
    widths = [
        min(max(len(c[i]) for c in [header, *(cells for cells, _ in table)]), 60)
        for i in range(len(header))
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for cells, outcomes in table:
        parts = []
        for cell, outcome, width in zip(cells, outcomes, widths, strict=True):
            padded = cell.ljust(width)
            parts.append(_paint(padded, outcome, color) if outcome else padded)
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"
