"""Reading back the map table of a contract card's Markdown block.

``fidelity card --check`` compares a document's block with a fresh result. The block
is the card's Markdown (``Card.to_markdown``): its table rows carry the family, the
direction, the outcome (with its counts, shown in drift messages) and the kinds in
backticks, which is all that drift is about; facts such as the date are ignored.
:func:`rows_from_markdown` reads those rows.
"""

from __future__ import annotations

import re

from fidelity._probe.observation import Direction
from fidelity._report.card_records import CardRow

__all__ = ["rows_from_markdown"]

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_KIND = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[a-z_]+")
_COUNT = re.compile(r"[a-z_]+ \((\d+)\)$")  # "preserved (14)"
_MIXED = re.compile(r"(\d+) ([a-z_]+)")  # "mixed: 8 preserved, 6 transformed"
_HEADER = ("family", "direction", "outcome", "kinds")
_DIRECTIONS = {d.value.replace("_", " "): d.value for d in Direction}


def _unescape(cell: str) -> str:
    return re.sub(r"\\(.)", r"\1", cell.strip())


def _counts(outcome: str, cell: str) -> tuple[int, tuple[tuple[str, int], ...]]:
    """The count and statuses an outcome cell shows (none when it shows none)."""
    if outcome == "mixed":
        statuses = tuple((s, int(n)) for n, s in _MIXED.findall(cell))
        return sum(n for _, n in statuses), statuses
    counted = _COUNT.match(cell)
    if counted is None:
        return 0, ()
    count = int(counted.group(1))
    return count, ((outcome, count),)


def rows_from_markdown(text: str) -> tuple[CardRow, ...] | None:
    """The rows of the card table in ``text``, or ``None`` when there is no such table."""
    rows: list[CardRow] = []
    in_table = False
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if not stripped.startswith("|"):
            if in_table:
                break
            continue
        cells = [c.strip() for c in _CELL_SPLIT.split(stripped.strip("|"))]
        if not in_table:
            if tuple(c.lower() for c in cells[:4]) == _HEADER:
                in_table = True
            continue
        if len(cells) < 4 or set(cells[0]) <= set("-: "):
            continue
        family = _unescape(cells[0])
        direction = _DIRECTIONS.get(cells[1].lower())
        outcome = _WORD.match(cells[2])
        if family in ("\u2014", "-") and direction is None:
            continue  # the "no payloads observed" row
        if direction is None or outcome is None:
            return None
        count, statuses = _counts(outcome.group(0), cells[2])
        rows.append(
            CardRow(
                family=family,
                direction=direction,
                outcome=outcome.group(0),
                count=count,
                statuses=statuses,
                kinds=tuple(_KIND.findall(cells[3])),
                examples=(),
            )
        )
    return tuple(rows) if in_table else None
