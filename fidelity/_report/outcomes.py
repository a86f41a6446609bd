"""The transformation map: per hazard family and direction, what a set of
observations shows.

Observations (or the records of a card) are flattened into :class:`Entry` tuples and
grouped per (family, direction) into :class:`FamilyOutcome` rows: ``preserved``,
``transformed`` (with kinds), ``rejected``, ``lost``, ``timeout``, ``broken``, or
``mixed``, each with the smallest example of every kind and failure. Surveys and cards
build their rows here, so both always agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

from fidelity._core.kinds import FAMILIES, Status
from fidelity._core.records import fast_init
from fidelity._core.text import utf8_len
from fidelity._probe.observation import Direction, Observation

__all__ = [
    "GENERATED",
    "MIXED",
    "SHRUNK",
    "Entry",
    "Example",
    "FamilyOutcome",
    "entries",
    "entry",
    "family_key",
    "is_example",
    "rows",
    "summarize",
]

#: The outcome of a family row whose observations ended in more than one status.
MIXED = "mixed"

_DIRECTIONS = tuple(Direction)
_STATUSES = tuple(Status)
_FAILURES = (Status.REJECTED, Status.LOST, Status.TIMEOUT, Status.BROKEN)
_FAILURE_KEYS = {s: s.value for s in _FAILURES}
_FAILURE_NAMES = tuple(_FAILURE_KEYS.values())
_NO_KINDS: frozenset[str] = frozenset()
_ROW_KEY = attrgetter("families", "direction", "status")
#: Payload ids of Hypothesis examples carry one of these markers after the family.
GENERATED = "/hypothesis-"
SHRUNK = "/shrunk-"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """The smallest payload that showed ``key`` (a kind id, or a failure status)."""

    key: str
    payload_id: str
    sent: str
    received: Any = None
    error_type: str = ""
    error: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyOutcome:
    """What a chain does to one hazard family in one direction.

    ``outcome`` is the status shared by every observation of the family, or ``mixed``;
    ``statuses`` counts them (in ``Status`` order, non-zero only); ``kinds`` is sorted;
    ``examples`` holds the smallest example of each kind (in ``kinds`` order) followed
    by the smallest example of each failure status.
    """

    family: str
    direction: Direction
    outcome: str
    count: int
    statuses: tuple[tuple[Status, int], ...]
    kinds: tuple[str, ...]
    examples: tuple[Example, ...]

    def example(self, key: str) -> Example | None:
        """The smallest example of a kind id or failure status, if there is one."""
        return next((e for e in self.examples if e.key == key), None)


class Entry(NamedTuple):
    """One measured value, flattened for grouping (observations and card records alike)."""

    payload_id: str
    families: tuple[str, ...]
    direction: Direction
    status: Status
    kinds: frozenset[str]
    sent: str
    received: Any
    error_type: str
    error: str


def is_example(payload_id: str) -> bool:
    """True for the id of a Hypothesis example (generated or shrunk), not a catalogue one."""
    return GENERATED in payload_id or SHRUNK in payload_id


def family_key(family: str) -> tuple[int, str]:
    """Sort key putting families in specification order, unknown ones after, by name."""
    try:
        return (FAMILIES.index(family), family)
    except ValueError:
        return (len(FAMILIES), family)


def _smallest(entry: Entry) -> tuple[int, str, str]:
    return (utf8_len(entry.sent), entry.payload_id, entry.sent)


def _example(key: str, entry: Entry) -> Example:
    return Example(
        key=key,
        payload_id=entry.payload_id,
        sent=entry.sent,
        received=entry.received,
        error_type=entry.error_type,
        error=entry.error,
    )


def summarize(entries: Iterable[Entry]) -> tuple[FamilyOutcome, ...]:
    """Group entries per (family, direction) into outcome rows, in a deterministic order."""
    counts: dict[tuple[tuple[str, ...], Direction, Status], int] = {}
    notable: list[Entry] = []
    for entry in entries:
        key = (entry.families, entry.direction, entry.status)
        counts[key] = counts.get(key, 0) + 1
        if entry.kinds or entry.status in _FAILURES:
            notable.append(entry)
    return rows(counts, notable)


def rows(
    counts: Mapping[tuple[tuple[str, ...], Direction, Status], int], notable: Iterable[Entry]
) -> tuple[FamilyOutcome, ...]:
    """The outcome rows of status counts per (families, direction) and the entries
    worth an example (those with kinds or a failure status)."""
    per_row: dict[tuple[str, Direction], dict[Status, int]] = {}
    for (families, direction, status), n in counts.items():
        for family in families or ("unfiled",):
            tally = per_row.setdefault((family, direction), {})
            tally[status] = tally.get(status, 0) + n
    smallest: dict[tuple[str, Direction], dict[str, tuple[tuple[int, str, str], Entry]]] = {}
    for entry in notable:
        rank = _smallest(entry)
        keys = list(entry.kinds)
        if entry.status in _FAILURE_KEYS:
            keys.append(_FAILURE_KEYS[entry.status])
        for family in entry.families or ("unfiled",):
            chosen = smallest.setdefault((family, entry.direction), {})
            for key in keys:
                best = chosen.get(key)
                if best is None or rank < best[0]:
                    chosen[key] = (rank, entry)
    rows = []
    for row_key in sorted(per_row, key=lambda k: (family_key(k[0]), _DIRECTIONS.index(k[1]))):
        tally = per_row[row_key]
        present = [s for s in _STATUSES if tally.get(s)]
        chosen = smallest.get(row_key, {})
        kinds = tuple(sorted(k for k in chosen if k not in _FAILURE_NAMES))
        failures = tuple(k for k in _FAILURE_NAMES if k in chosen)
        rows.append(
            FamilyOutcome(
                family=row_key[0],
                direction=row_key[1],
                outcome=str(present[0]) if len(present) == 1 else MIXED,
                count=sum(tally.values()),
                statuses=tuple((s, tally[s]) for s in present),
                kinds=kinds,
                examples=tuple(_example(k, chosen[k][1]) for k in kinds + failures),
            )
        )
    return tuple(rows)


def entry(obs: Observation, measured: Observation) -> Entry:
    comparison = measured.comparison
    return Entry(
        obs.payload_id,
        obs.families,
        measured.direction,
        measured.status,
        comparison.kinds if comparison is not None else _NO_KINDS,
        measured.sent,
        measured.received,
        measured.error_type,
        measured.error,
    )


def failed_on_request(obs: Any, split: bool) -> bool:
    """The rule for directions measured apart (``split``: some observation has parts):
    a value the client library refused before sending (``obs``, an observation or its
    card record) failed on the request path, whether or not it has a request part."""
    return split and bool(obs.client_side) and not obs.parts


def entries(observations: Iterable[Observation]) -> Iterator[Entry]:
    """The entries of ``observations``: each, its parts, and the request-path failure of
    a value refused before sending when directions were measured apart."""
    pool = tuple(observations)
    split = any(o.parts for o in pool)
    for obs in pool:
        for measured in (obs, *obs.parts):
            yield entry(obs, measured)
        if failed_on_request(obs, split):
            yield entry(obs, dataclasses.replace(obs, direction=Direction.REQUEST))
