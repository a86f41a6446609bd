"""The clients side by side: per family one column per client, differences marked.

:func:`render_client_map` is the terminal table of a :class:`ClientsSection` (what
``fidelity probe --clients`` prints), :func:`client_markdown` the same in a card's
Markdown block. Under the table, the payloads the clients disagree on are grouped by
family, direction and what each client did, with the smallest payload of each group
as code points. Everything shown is terminal-safe; colour only when asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fidelity._core.render import safe
from fidelity._core.text import utf8_len
from fidelity._probe.observation import Direction
from fidelity._report.card_records import CardRow
from fidelity._report.clients import ClientDifference, ClientOutcome, ClientRun, ClientsSection
from fidelity._report.display import FAILURES, code_span, md, points
from fidelity._report.markdown import outcome_text
from fidelity._report.outcomes import family_key

__all__ = ["DifferenceGroup", "client_markdown", "difference_groups", "render_client_map"]

_MAX_POINTS = 8
_MAX_CELL = 40
_COLORS = {"preserved": "32", "transformed": "33", "mixed": "35", "differ": "31"}
_DIRECTIONS = [d.value for d in Direction]


@dataclass(frozen=True, slots=True, kw_only=True)
class DifferenceGroup:
    """Differences of one family and direction where each client did the same thing:
    how many payloads, and the smallest of them."""

    family: str
    direction: str
    count: int
    allowed: bool
    example: ClientDifference


def _shape(outcome: ClientOutcome) -> tuple[str, bool, tuple[str, ...], str]:
    failed = outcome.status in FAILURES
    return (
        outcome.status,
        outcome.client_side,
        outcome.kinds,
        outcome.error_type if failed else "",
    )


def difference_groups(section: ClientsSection) -> tuple[DifferenceGroup, ...]:
    """The differences grouped by family, direction and each client's outcome."""
    groups: dict[tuple[str, str, tuple[object, ...]], list[ClientDifference]] = {}
    for difference in section.differences:
        first = difference.families[0] if difference.families else "unfiled"
        key = (first, difference.direction, tuple(_shape(o) for o in difference.outcomes))
        groups.setdefault(key, []).append(difference)
    out = []
    for (family, where, _), members in groups.items():
        smallest = min(members, key=lambda d: (utf8_len(_text(d)), d.payload_id))
        out.append(
            DifferenceGroup(
                family=family,
                direction=where,
                count=len(members),
                allowed=all(d.allowed for d in members),
                example=smallest,
            )
        )
    return tuple(sorted(out, key=lambda g: (family_key(g.family), _DIRECTIONS.index(g.direction))))


def _text(difference: ClientDifference) -> str:
    text = difference.sent.value()
    return text if isinstance(text, str) else ""


def _points(text: str) -> str:
    return points(text, _MAX_POINTS)


def _did(outcome: ClientOutcome) -> str:
    """What a client did with the payload, in a few words."""
    text = outcome.status
    if outcome.kinds:
        text += f" ({', '.join(outcome.kinds)})"
    if outcome.client_side:
        text += " in the client library"
    if outcome.error_type and outcome.status not in ("preserved", "transformed"):
        text += f" ({outcome.error_type})"
    return safe(text)


def _group_line(group: DifferenceGroup, split: bool) -> tuple[str, str]:
    """``(where, what)``: the family, direction (when the run measured several) and
    count; what each client did."""
    if group.direction == "round_trip":
        where = f"{group.family} (round trip)" if split else group.family
    else:
        where = f"{group.family} ({group.direction} path)"
    count = f"{group.count} payload{'' if group.count == 1 else 's'}"
    did = "; ".join(f"{safe(o.client)} {_did(o)}" for o in group.example.outcomes)
    return f"{safe(where)}, {count}", did


def _families(runs: Sequence[ClientRun]) -> list[str]:
    seen = {r.family for run in runs for r in run.rows}
    return sorted(seen, key=family_key)


def _cell(row: CardRow | None) -> str:
    if row is None:
        return "-"
    text = safe(row.outcome + (f" ({', '.join(row.kinds)})" if row.kinds else ""))
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 3] + "..."


def _counts(section: ClientsSection) -> dict[tuple[str, str], int]:
    """Differences per (family, direction)."""
    counts: dict[tuple[str, str], int] = {}
    for d in section.differences:
        for family in d.families or ("unfiled",):
            counts[(family, d.direction)] = counts.get((family, d.direction), 0) + 1
    return counts


def _payloads_per_family(section: ClientsSection) -> dict[str, int]:
    """Payloads with a difference in any direction, per family."""
    seen: dict[str, set[tuple[str, str]]] = {}
    for d in section.differences:
        for family in d.families or ("unfiled",):
            seen.setdefault(family, set()).add((d.payload_id, d.sent.data))
    return {family: len(ids) for family, ids in seen.items()}


def _split(section: ClientsSection) -> bool:
    return any(r.direction != "round_trip" for run in section.runs for r in run.rows)


def _about(run: ClientRun) -> str:
    parts = [run.library or "library unknown"]
    if run.protocol_version:
        parts.append(f"protocol {run.protocol_version}")
    if not run.complete:
        parts.append(f"incomplete: {run.error}" if run.error else "incomplete")
    return f"{run.client} = {', '.join(parts)}"


def render_client_map(section: ClientsSection, *, color: bool = False) -> str:
    """The terminal table: per family the round trip (or the only direction measured)
    through each client, whether they agree, then the differences grouped."""
    runs = section.runs
    counts = _payloads_per_family(section)
    split = _split(section)
    lines = [safe("clients: " + "; ".join(_about(r) for r in runs))]
    header = ["family", *(safe(r.client) for r in runs), "clients"]
    table: list[list[tuple[str, str]]] = []
    for family in _families(runs):
        cells = [(safe(family), "")]
        for run in runs:
            found = run.row(family) or next((r for r in run.rows if r.family == family), None)
            cells.append((_cell(found), found.outcome if found else ""))
        differ = counts.get(family, 0)
        cells.append(("agree", "") if not differ else (f"differ: {differ}", "differ"))
        table.append(cells)
    widths = [
        max(len(c) for c in [header[i], *(cells[i][0] for cells in table)])
        for i in range(len(header))
    ]
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    for cells in table:
        parts = []
        for (text, outcome), width in zip(cells, widths, strict=True):
            padded = text.ljust(width)
            code = _COLORS.get(outcome) if color else None
            parts.append(f"\x1b[{code}m{padded}\x1b[0m" if code else padded)
        lines.append("  ".join(parts).rstrip())
    groups = difference_groups(section)
    if groups:
        total = len({(d.payload_id, _text(d)) for d in section.differences})
        lines.append(f"the clients disagree on {total} payload{'' if total == 1 else 's'}:")
        for group in groups:
            where, did = _group_line(group, split)
            example = _points(_text(group.example))
            allowed = " (allowed kinds only)" if group.allowed else ""
            lines.append(f"  {where}{allowed}, e.g. {example}: {did}")
    return "\n".join(lines) + "\n"


def _row_text(row: CardRow | None) -> str:
    """A row's outcome and kinds in a Markdown cell."""
    if row is None:
        return "—"
    kinds = ", ".join(f"`{k}`" for k in row.kinds)
    return outcome_text(row) + (f" {kinds}" if kinds else "")


def _direction_rank(key: tuple[str, str]) -> tuple[tuple[int, str], int]:
    where = key[1]
    return (family_key(key[0]), _DIRECTIONS.index(where) if where in _DIRECTIONS else 9)


def client_markdown(section: ClientsSection) -> list[str]:
    """The clients part of a card's Markdown block: who they are, the rows where they
    differ (one column per client), and the differences grouped."""
    runs = section.runs
    counts = _counts(section)
    split = _split(section)
    every = {r.key for run in runs for r in run.rows}
    keys = sorted(
        (k for k in every if counts.get(k) or len({_row_text(run.row(*k)) for run in runs}) > 1),
        key=_direction_rank,
    )
    lines = [
        f"Clients: the same plan through each; the map above is {md(runs[0].client)}'s. "
        + md("; ".join(_about(r) for r in runs))
        + ".",
        "",
    ]
    if not keys:
        return [*lines, f"The clients agree on every row ({len(every)}).", ""]
    names = " | ".join(md(r.client) for r in runs)
    lines += [
        f"| family | direction | {names} | clients |",
        "|---|---|" + "---|" * len(runs) + "---|",
    ]
    for family, where in keys:
        cells = " | ".join(_row_text(run.row(family, where)) for run in runs)
        differ = counts.get((family, where), 0)
        verdict = f"**differ** ({differ})" if differ else "agree"
        lines.append(f"| {md(family)} | {where.replace('_', ' ')} | {cells} | {verdict} |")
    lines += ["", f"The clients agree on the other rows ({len(every) - len(keys)})."]
    groups = difference_groups(section)
    if groups:
        lines += ["", "Where the clients disagree (the smallest payload of each group):", ""]
        for group in groups:
            where_text, did = _group_line(group, split)
            allowed = " (allowed kinds only)" if group.allowed else ""
            example = f"{code_span(safe(group.example.payload_id))} {_points(_text(group.example))}"
            lines.append(f"- {md(where_text)}{allowed}, e.g. {example}: {md(did)}")
    lines.append("")
    return lines
