"""What a click on a cell of the survey map opens: one chain and one hazard family.

The outcome in each direction the chain measured, the kinds seen, for a chain of
several hops the hop that first changed or refused each value, and the smallest example
of each kind and failure: sent and received side by side with the changed code points
highlighted (as the card's page shows them), then the value after each hop.

Only the examples are shown, not every observation: the page stays small for a survey
of every chain over the whole catalogue.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._report.display import FAILURES
from fidelity._report.html.parts import attr, changes, esc, pair, side, value
from fidelity._report.outcomes import family_key

if TYPE_CHECKING:
    from fidelity._report.card import Card
    from fidelity._report.card_records import CardExample, CardObservation, CardRow

__all__ = [
    "ChainIndex",
    "HopBlame",
    "blame_rows",
    "blame_table",
    "cell_detail",
    "cell_title",
    "direction_name",
]

_DIRECTIONS = ("round_trip", "request", "response")
_DIRECTION_NAMES = {
    "round_trip": "round trip",
    "request": "request path",
    "response": "response path",
}
#: Characters of an error message shown in an example.
_ERROR_CHARS = 300


def direction_name(direction: str) -> str:
    """``request path``, ``response path`` or ``round trip``."""
    return _DIRECTION_NAMES.get(direction, direction.replace("_", " "))


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainIndex:
    """What the cells of one chain need from its card, gathered in one pass.

    ``rows`` maps a family to its rows in direction order. ``hops`` names the hops of a
    chain of several hops, in order (empty otherwise); ``blamed`` holds the round-trip
    observations that a hop changed or refused, and ``trails`` finds the observation of
    an example (by payload id and sent value) to show the value after each hop.
    """

    card: Card
    rows: Mapping[str, tuple[CardRow, ...]]
    hops: tuple[str, ...]
    blamed: tuple[CardObservation, ...]
    trails: Mapping[tuple[str, str], CardObservation]

    @classmethod
    def of(cls, card: Card) -> ChainIndex:
        """Index ``card``."""
        rows: dict[str, list[CardRow]] = {}
        for row in card.rows:
            rows.setdefault(row.family, []).append(row)
        order = {d: i for i, d in enumerate(_DIRECTIONS)}
        with_hops = [o for o in card.observations if o.hops]
        hops: dict[str, None] = {}
        for obs in with_hops:
            hops.update(dict.fromkeys(h.name for h in obs.hops))
        return cls(
            card=card,
            rows={
                f: tuple(sorted(r, key=lambda r: order.get(r.direction, len(order))))
                for f, r in rows.items()
            },
            hops=tuple(hops),
            # A value refused by the first hop has one hop value (not kept) but a blame.
            blamed=tuple(o for o in card.observations if o.blame and o.status != "preserved"),
            trails={(o.payload_id, o.sent.data): o for o in with_hops},
        )

    def row(self, family: str) -> CardRow | None:
        """The round-trip row of ``family`` (the one the map's cell shows), if any."""
        found = self.rows.get(family, ())
        return next((r for r in found if r.direction == "round_trip"), None)

    def kinds(self, family: str) -> tuple[str, ...]:
        """Every kind seen for ``family``, in any direction."""
        return tuple(sorted({k for r in self.rows.get(family, ()) for k in r.kinds}))


def _counts(row: CardRow) -> str:
    return ", ".join(f"{n} {s}" for s, n in row.statuses)


def cell_title(chain: str, family: str, index: ChainIndex) -> str:
    """The cell's tooltip (plain text, not yet escaped): outcome, counts and kinds."""
    rows = index.rows.get(family, ())
    if not rows:
        return f"{chain} \u00d7 {family}: not surveyed"
    lines = []
    for row in rows:
        where = "" if row.direction == "round_trip" else f"{direction_name(row.direction)}: "
        lines.append(f"{where}{row.outcome} ({row.count} payloads: {_counts(row)})")
    kinds = index.kinds(family)
    if kinds:
        lines.append(f"kinds: {', '.join(kinds)}")
    return f"{chain} \u00d7 {family}\n" + "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class HopBlame:
    """One hop of a multi-hop chain: the values it was the first to change or refuse,
    counted per status (sorted by status)."""

    hop: str
    statuses: tuple[tuple[str, int], ...]
    kinds: tuple[str, ...]
    families: tuple[str, ...]


def blame_rows(index: ChainIndex, family: str | None = None) -> list[HopBlame]:
    """Per hop of a multi-hop chain, in order: how many values it was the first to
    change or refuse (by status), with the kinds and families; for ``family`` only, or
    over every family."""
    found: dict[str, tuple[Counter[str], set[str], set[str]]] = {
        h: (Counter(), set(), set()) for h in index.hops
    }
    for obs in index.blamed:
        if family is not None and family not in obs.families:
            continue
        assert obs.blame is not None
        statuses, kinds, families = found.setdefault(obs.blame, (Counter(), set(), set()))
        statuses[obs.status] += 1
        kinds.update(obs.kinds)
        families.update(obs.families)
    return [
        HopBlame(
            hop=hop,
            statuses=tuple(sorted(statuses.items())),
            kinds=tuple(sorted(kinds)),
            families=tuple(sorted(families, key=family_key)),
        )
        for hop, (statuses, kinds, families) in found.items()
    ]


def blame_table(rows: Sequence[HopBlame], *, families: bool) -> str:
    """The hops of a chain as a table: what each was first to change or refuse."""
    body = []
    for row in rows:
        told = ", ".join(f"{n} {s}" for s, n in row.statuses) or "nothing"
        chips = "".join(f'<span class="kind">{esc(k)}</span>' for k in row.kinds)
        where = f"<td>{esc(', '.join(row.families))}</td>" if families else ""
        body.append(
            f'<tr{" class=blamed" if row.statuses else ""}><td class="hop-name">{esc(row.hop)}</td>'
            f"<td>{esc(told)}</td><td>{chips}</td>{where}</tr>"
        )
    head = "<th>families</th>" if families else ""
    return (
        '<table class="blame"><thead><tr><th>hop</th><th>values it was the first to change '
        f"or refuse</th><th>kinds</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _blame(index: ChainIndex, family: str) -> str:
    rows = blame_rows(index, family)
    if not index.hops or not any(row.statuses for row in rows):
        return ""
    return f"<h4>Which hop changed the value</h4>{blame_table(rows, families=False)}"


def _trail(obs: CardObservation) -> str:
    """The value after each hop of one observation, changes against the previous hop marked."""
    before = obs.sent
    items = []
    for hop in obs.hops:
        name = f'<span class="hop-name">{esc(hop.name)}</span>'
        if hop.value is None:
            message = esc(hop.error[:_ERROR_CHARS])
            items.append(
                f'<li class="failed">{name} failed: <span class="error">{message}</span></li>'
            )
            break
        if hop.value == before:
            items.append(f'<li>{name} <span class="none">unchanged</span></li>')
            continue
        previous, now = before.value(), hop.value.value()
        marks = []
        if isinstance(previous, str) and isinstance(now, (str, bytes)):
            marks = [(t.received_byte_start, t.received_byte_end) for t in changes(previous, now)]
        blamed = " blamed" if hop.name == obs.blame else ""
        items.append(
            f'<li class="changed{blamed}">{name} <span class="text">{side(now, marks)}</span></li>'
        )
        before = hop.value
    return (
        f'<div class="trail"><div class="label">after each hop</div><ol>{"".join(items)}</ol></div>'
    )


def _example(example: CardExample, direction: str, split: bool, index: ChainIndex) -> str:
    sent = example.sent.value()
    text = sent if isinstance(sent, str) else str(sent)
    where = f'<span class="dir">{esc(direction_name(direction))}</span>' if split else ""
    failed = " failure" if example.key in FAILURES else ""
    head = (
        f'<h4><span class="kind{failed}">{esc(example.key)}</span> '
        f'<span class="id">{esc(example.payload_id or "(unnamed payload)")}</span>{where}</h4>'
    )
    if example.key in FAILURES or example.received is None:
        message = f"{example.error_type}: {example.error}" if example.error_type else example.error
        body = (
            '<div class="pair"><div class="side sent"><div class="label">sent</div>'
            f'<div class="text">{side(text, [])}</div></div>'
            f'<div class="side refused"><div class="label">{esc(example.key)}</div>'
            f'<div class="error">{esc(message[:_ERROR_CHARS]) or "(no message)"}</div></div></div>'
        )
    else:
        body, _ = pair(text, value(example.received))
    trail = index.trails.get((example.payload_id, example.sent.data))
    hops = _trail(trail) if trail is not None and direction == "round_trip" else ""
    return f'<div class="obs">{head}{body}{hops}</div>'


def _directions(rows: Sequence[CardRow]) -> str:
    body = []
    for row in rows:
        chips = "".join(f'<span class="kind">{esc(k)}</span>' for k in row.kinds)
        body.append(
            f"<tr><td>{esc(direction_name(row.direction))}</td>"
            f'<td><span class="outcome o-{attr([row.outcome])}">{esc(row.outcome)}</span></td>'
            f"<td>{row.count}: {esc(_counts(row))}</td>"
            f"<td>{chips or '<span class=none>none</span>'}</td></tr>"
        )
    return (
        '<table class="dirs"><thead><tr><th>direction</th><th>outcome</th><th>payloads</th>'
        f"<th>kinds</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def cell_detail(chain: str, family: str, index: ChainIndex, description: str) -> str:
    """The hidden section a click on the cell (``chain``, ``family``) shows."""
    rows = index.rows.get(family, ())
    row = index.row(family) or (rows[0] if rows else None)
    outcome = row.outcome if row is not None else "none"
    split = any(r.direction != "round_trip" for r in rows)
    examples: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for r in rows:
        for example in r.examples:
            key = (example.key, example.payload_id, example.sent.data)
            if key not in seen:
                seen.add(key)
                examples.append(_example(example, r.direction, split, index))
    if not rows:
        summary = '<p class="none">This family was not surveyed on this chain.</p>'
    elif examples:
        summary = f"<h4>Smallest example of each kind and failure</h4>{''.join(examples)}"
    else:
        assert row is not None
        every = "The payload" if row.count == 1 else f"All {row.count} payloads"
        summary = f'<p class="none">{every} arrived byte for byte.</p>'
    incomplete = (
        "" if index.card.complete else '<p class="warning">This chain\'s run was interrupted.</p>'
    )
    return (
        f'<section class="detail" data-chain="{esc(chain)}" data-family="{esc(family)}" hidden>'
        f"<h3>{esc(chain)} \u00d7 {esc(family)} "
        f'<span class="outcome o-{attr([outcome])}">{esc(outcome)}</span></h3>'
        f'<p class="facts">{esc(description)}</p>{incomplete}'
        f"{_directions(rows) if rows else ''}{_blame(index, family)}{summary}</section>"
    )
