"""Drift: what changed between a card and the committed one, row by row.

:func:`row_changes` decides what counts as drift (a kind appears or disappears, an
outcome changes, a row is new or missing); :func:`drift_lines` shows it so that a
reviewer sees, per changed row, what the committed card said, what the chain does now,
and the smallest payload of each kind that appeared. Everything shown is terminal-safe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fidelity._core.render import codepoints, safe
from fidelity._probe.observation import Direction
from fidelity._report.card_records import CardExample, CardRow, CardValue
from fidelity._report.environment import Environment, differences
from fidelity._report.markdown import outcome_text
from fidelity._report.outcomes import family_key

__all__ = ["around", "drift_lines", "row_changes"]

#: Code points of an example's text shown in a drift message.
_EXAMPLE_LIMIT = 16


def row_changes(rows: Sequence[CardRow], committed: Sequence[CardRow]) -> tuple[str, ...]:
    """One line per row of ``rows`` that changed against the ``committed`` rows (empty
    when none did): a kind that appears or disappears, an outcome that changes, a row that is new
    or missing. Facts such as date and version are ignored.
    """
    old = {r.key: r for r in committed}
    new = {r.key: r for r in rows}
    lines: list[str] = []
    order = {r.key: i for i, r in enumerate((*rows, *committed))}
    for key in sorted(old.keys() | new.keys(), key=lambda k: _row_order(k, order)):
        where = f"{key[0]} ({key[1].replace('_', ' ')})"
        before, after = old.get(key), new.get(key)
        if before is None:
            assert after is not None
            lines.append(f"{where}: new row, {outcome_text(after)}")
            continue
        if after is None:
            lines.append(f"{where}: no longer surveyed (was {outcome_text(before)})")
            continue
        if before.outcome != after.outcome:
            lines.append(f"{where}: outcome {before.outcome} -> {after.outcome}")
        for kind in sorted(set(after.kinds) - set(before.kinds)):
            lines.append(f"{where}: kind {kind} appeared")
        for kind in sorted(set(before.kinds) - set(after.kinds)):
            lines.append(f"{where}: kind {kind} disappeared")
    return tuple(lines)


def _row_order(key: tuple[str, str], order: Mapping[tuple[str, str], int]) -> tuple[Any, ...]:
    directions = [d.value for d in Direction]
    rank = directions.index(key[1]) if key[1] in directions else len(directions)
    return (family_key(key[0]), rank, key[1], order[key])


def _where(row: CardRow) -> str:
    return f"{row.family} ({row.direction.replace('_', ' ')})"


def _outcome(row: CardRow | None) -> str:
    if row is None:
        return "(no row)"
    if row.outcome == "mixed":
        counts = ", ".join(f"{n} {s}" for s, n in row.statuses)
    else:
        counts = str(row.count)
    kinds = ", ".join(row.kinds) or "none"
    return f"{row.outcome} ({counts}); kinds: {kinds}"


def _value(value: CardValue) -> str:
    raw = value.value()
    if not isinstance(raw, str):
        return value.display(_EXAMPLE_LIMIT, markdown=False)
    shown = raw[:_EXAMPLE_LIMIT]
    more = f"... ({len(raw) - len(shown)} more)" if len(raw) > len(shown) else ""
    return f"{safe(shown)!s}{more} [{codepoints(shown)}]" if shown else "(empty)"


def _example(example: CardExample) -> str:
    sent = _value(example.sent)
    if example.received is not None:
        return f"{sent} -> {_value(example.received)}"
    error = f"{example.error_type}: {example.error}".strip(": ")
    return f"{sent} ({safe(error[:80])!s})"


def _keys(row: CardRow) -> set[str]:
    """The kinds and the non-delivering outcomes (``rejected``...) of a row."""
    statuses = {s for s, n in row.statuses if n and s not in ("preserved", "transformed")}
    return set(row.kinds) | statuses


def drift_lines(
    rows: Sequence[CardRow], committed: Sequence[CardRow], *, indent: str = "    "
) -> tuple[str, ...]:
    """The drift of ``rows`` from the ``committed`` rows: per changed row, what changed, then
    the committed row, the new row and an example of each kind (or refusal) that
    appeared.

    Empty when the card matches.
    """
    changes = row_changes(rows, committed)
    if not changes:
        return ()
    old = {_where(r): r for r in committed}
    new = {_where(r): r for r in rows}
    grouped: dict[str, list[str]] = {}
    for change in changes:
        where, _, what = change.partition(": ")
        grouped.setdefault(where, []).append(what)
    lines: list[str] = []
    for where, whats in grouped.items():
        before, after = old.get(where), new.get(where)
        lines.append(f"{indent}{safe(where)!s}: {safe('; '.join(whats))!s}")
        lines.append(f"{indent}    committed: {safe(_outcome(before))!s}")
        lines.append(f"{indent}    now:       {safe(_outcome(after))!s}")
        if after is None:
            continue
        seen = _keys(before) if before is not None else set()
        appeared = _keys(after) - seen
        for example in after.examples:
            if example.key in appeared:
                lines.append(f"{indent}    e.g. {safe(example.key)!s}: {_example(example)}")
    return tuple(lines)


def around(
    rows: Sequence[CardRow],
    committed: Sequence[CardRow],
    environment: Environment | None,
    committed_environment: Environment | None,
) -> str:
    """What changed around a drift, to show before it: the differences of the
    environment, then each row whose outcome changed (``Python 3.11.7 -> 3.13.0;
    newlines: transformed -> preserved``). Empty when the rows did not drift (an
    environment change with no behaviour change is not drift) or the environment is
    the same (or unknown on one side)."""
    changed = differences(committed_environment, environment)
    if not changed or not row_changes(rows, committed):
        return ""
    old = {r.key: r for r in committed}
    outcomes = []
    for row in rows:
        before = old.get(row.key)
        if before is not None and before.outcome != row.outcome:
            where = row.family
            if row.direction != Direction.ROUND_TRIP.value:
                where += f" ({row.direction.replace('_', ' ')})"
            outcomes.append(f"{where}: {before.outcome} -> {row.outcome}")
    return safe("; ".join((*changed, *outcomes)))
