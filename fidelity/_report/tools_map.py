"""A whole server's map on a terminal: one row per ``tool.param``, one column per family.

Each cell is the family's outcome over the round trip as one letter (the same letters
as ``fidelity survey``'s map), the last column the kinds seen; the families are
numbered in a legend above the table. Below it, each cell that is not ``preserved``
gets a line: its counts, kinds, and the smallest example (as code points, or the
failure's message). Only ASCII and terminal-safe text is printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._probe.observation import Direction
from fidelity._report.display import LEGEND, LETTERS, clip

if TYPE_CHECKING:
    from fidelity._report.outcomes import FamilyOutcome

__all__ = ["render_tools_map"]

_NAME_WIDTH = 48


def render_tools_map(
    params: Sequence[tuple[str, Sequence[FamilyOutcome]]],
    families: Sequence[str],
    *,
    header: str = "tool.param",
) -> str:
    """The table of ``params`` (``(tool.param, its survey's outcomes)``) over ``families``
    (the columns, in order), then a line per cell that is not preserved; ``header``
    heads the column of names (``operation field`` for ``--openapi``)."""
    from fidelity._report.terminal import example_text

    if not params:
        return ""
    numbers = {f: str(i) for i, f in enumerate(families, 1)}
    col = max(len(n) for n in numbers.values()) + 1
    names = [clip(safe(name), _NAME_WIDTH) for name, _ in params]
    width = max(len(header), *(len(n) for n in names))
    legend = "  ".join(f"{numbers[f]} {safe(f)}" for f in families)
    lines = [f"families: {legend}"]
    lines.append(
        f"{header:<{width}} " + "".join(f"{numbers[f]:>{col}}" for f in families) + "  kinds"
    )
    details: list[str] = []
    for name, (_, outcomes) in zip(names, params, strict=True):
        rows = {r.family: r for r in outcomes if r.direction is Direction.ROUND_TRIP}
        cells = "".join(
            f"{LETTERS.get(rows[f].outcome, '?') if f in rows else '-':>{col}}" for f in families
        )
        kinds = sorted({k for r in rows.values() for k in r.kinds})
        lines.append(f"{name:<{width}} {cells}  {', '.join(kinds) or '-'}")
        for family in families:
            row = rows.get(family)
            if row is None or row.outcome == "preserved":
                continue
            counts = ", ".join(f"{n} {s.value}" for s, n in row.statuses)
            example = example_text(row.examples[0]) if row.examples else ""
            line = f"  {name:<{width}}  {safe(family)}: {counts}"
            details.append(line + (f"; {example}" if example else ""))
    lines.append(f"  {LEGEND}")
    return "\n".join([*lines, *details]) + "\n"
