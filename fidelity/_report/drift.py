"""The drift message of the pytest plugin: for every changed row, the old and new rows.

``Card.drift`` decides what counts as drift (a kind appears or disappears, an outcome
changes, a row is new or missing); this module shows it so that a reviewer sees, per
changed row, what the committed card said, what the chain does now, and the smallest
payload of each kind that appeared. Everything shown is terminal-safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fidelity._core.render import codepoints, safe

if TYPE_CHECKING:
    from fidelity._report.card import Card, CardExample, CardRow, CardValue

__all__ = ["drift_lines"]

#: Code points of an example's text shown in a drift message.
_EXAMPLE_LIMIT = 16


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


def drift_lines(card: Card, committed: Card, *, indent: str = "    ") -> tuple[str, ...]:
    """The drift of ``card`` from ``committed``: per changed row, what changed, then
    the committed row, the new row and an example of each kind (or refusal) that
    appeared.

    Empty when the card matches.
    """
    changes = card.drift(committed)
    if not changes:
        return ()
    old = {_where(r): r for r in committed.rows}
    new = {_where(r): r for r in card.rows}
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
