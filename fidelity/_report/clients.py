"""The ``clients`` section of a card: the same plan through several MCP clients.

When a probe runs through several client libraries (``fidelity probe --clients``,
``fidelity.survey(..., clients=...)`` in the pytest plugin), the card's map is the
first client's, and :class:`ClientsSection` adds what each client saw
(:class:`ClientRun`: the library, the protocol version the session settled on, its
rows and observations) and every payload on which the clients disagree
(:class:`ClientDifference`). Clients disagree on a payload, in a direction, when the
status, the kinds, the value received, or whether the failure happened in the client
library before anything was sent, differ. A difference is *allowed* when every client
delivered the value and every kind seen is in the run's allow list; the others make
the run fail.

Like the other card records, each has a JSON form that reads back exactly, from a
document that is never trusted (a malformed field raises ``Malformed``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fidelity._core.kinds import Status
from fidelity._probe.observation import Direction, Observation
from fidelity._report.card_records import CardObservation, CardRow, CardValue
from fidelity._report.json_doc import (
    Malformed,
    direction,
    families_field,
    kinds_field,
    list_field,
    object_value,
    status,
    str_field,
)
from fidelity._report.outcomes import entries as outcome_entries
from fidelity._report.outcomes import family_key, summarize

__all__ = ["ClientDifference", "ClientOutcome", "ClientResult", "ClientRun", "ClientsSection"]

_ARRIVED = (Status.PRESERVED, Status.TRANSFORMED)
_DIRECTIONS = tuple(d.value for d in Direction)


def _bool_field(d: Mapping[str, Any], key: str) -> bool:
    value = d.get(key)
    if not isinstance(value, bool):
        raise Malformed(f"field {key!r} must be true or false")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientResult:
    """What one client's run gave, before it becomes a record: its observations (in the
    order surveyed), the library, the protocol version, and whether it ran through."""

    client: str
    library: str = ""
    protocol_version: str = ""
    observations: tuple[Observation, ...] = ()
    complete: bool = True
    error: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientRun:
    """One client's run: ``client`` (its name), ``library`` (with its version),
    ``protocol_version`` (what the session settled on), ``complete`` (every planned
    payload observed), ``error`` (why not, in a sentence), the map ``rows`` and the
    byte-faithful ``observations``."""

    client: str
    library: str
    protocol_version: str
    complete: bool
    error: str
    rows: tuple[CardRow, ...]
    observations: tuple[CardObservation, ...]

    @classmethod
    def of(cls, result: ClientResult) -> ClientRun:
        """The record of a client's result."""
        return cls(
            client=result.client,
            library=result.library,
            protocol_version=result.protocol_version,
            complete=result.complete,
            error=result.error,
            rows=tuple(CardRow.of(o) for o in summarize(outcome_entries(result.observations))),
            observations=tuple(CardObservation.of(o) for o in result.observations),
        )

    def row(self, family: str, where: str = Direction.ROUND_TRIP.value) -> CardRow | None:
        """The row of ``family`` in direction ``where``, if there is one."""
        return next((r for r in self.rows if r.key == (family, where)), None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "client": self.client,
            "library": self.library,
            "protocol_version": self.protocol_version,
            "complete": self.complete,
            "error": self.error,
            "rows": [r.to_dict() for r in self.rows],
            "observations": [o.to_dict() for o in self.observations],
        }

    @classmethod
    def from_dict(cls, raw: object) -> ClientRun:
        """Read the JSON form."""
        d = object_value(raw, "client run")
        client = str_field(d, "client")
        if not client:
            raise Malformed("a client run needs the client's name")
        return cls(
            client=client,
            library=str_field(d, "library"),
            protocol_version=str_field(d, "protocol_version"),
            complete=_bool_field(d, "complete"),
            error=str_field(d, "error"),
            rows=tuple(CardRow.from_dict(r) for r in list_field(d, "rows")),
            observations=tuple(CardObservation.from_dict(o) for o in list_field(d, "observations")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientOutcome:
    """How one payload ended through one client, in one direction."""

    client: str
    status: str
    client_side: bool
    kinds: tuple[str, ...]
    received: CardValue | None
    error_type: str = ""
    error: str = ""

    @classmethod
    def of(cls, client: str, measured: Observation) -> ClientOutcome:
        """The outcome of an observation (or one of its directions) through ``client``."""
        arrived = measured.status in _ARRIVED
        return cls(
            client=client,
            status=measured.status.value,
            client_side=measured.client_side,
            kinds=tuple(sorted(measured.kinds)),
            received=CardValue.of(measured.received) if arrived else None,
            error_type=measured.error_type,
            error=measured.error,
        )

    @property
    def key(self) -> tuple[str, bool, tuple[str, ...], CardValue | None]:
        """What two clients must share to agree: status, where a failure happened,
        kinds, the value received."""
        return (self.status, self.client_side, self.kinds, self.received)

    def delivered(self, allow: Iterable[str]) -> bool:
        """True when the value arrived, rewritten by allowed kinds at most."""
        return self.status in ("preserved", "transformed") and set(self.kinds) <= set(allow)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "client": self.client,
            "status": self.status,
            "client_side": self.client_side,
            "kinds": list(self.kinds),
            "received": None if self.received is None else self.received.to_dict(),
            "error_type": self.error_type,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, raw: object) -> ClientOutcome:
        """Read the JSON form."""
        d = object_value(raw, "client outcome")
        received = d.get("received")
        return cls(
            client=str_field(d, "client"),
            status=status(str_field(d, "status")),
            client_side=_bool_field(d, "client_side"),
            kinds=kinds_field(d, "kinds"),
            received=None if received is None else CardValue.from_dict(received),
            error_type=str_field(d, "error_type"),
            error=str_field(d, "error"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientDifference:
    """A payload, in one direction, on which the clients disagree: each one's outcome
    (in the clients' order); ``allowed`` when every client delivered it, rewritten by
    allowed kinds at most."""

    payload_id: str
    families: tuple[str, ...]
    direction: str
    sent: CardValue
    outcomes: tuple[ClientOutcome, ...]
    allowed: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "payload_id": self.payload_id,
            "families": list(self.families),
            "direction": self.direction,
            "sent": self.sent.to_dict(),
            "outcomes": [o.to_dict() for o in self.outcomes],
            "allowed": self.allowed,
        }

    @classmethod
    def from_dict(cls, raw: object) -> ClientDifference:
        """Read the JSON form."""
        d = object_value(raw, "client difference")
        sent = CardValue.from_dict(d.get("sent"))
        if sent.type != "str":
            raise Malformed("a client difference's sent value must be text")
        outcomes = tuple(ClientOutcome.from_dict(o) for o in list_field(d, "outcomes"))
        if len(outcomes) < 2:
            raise Malformed("a client difference needs the outcomes of two clients or more")
        return cls(
            payload_id=str_field(d, "payload_id"),
            families=families_field(d, "families"),
            direction=direction(str_field(d, "direction")),
            sent=sent,
            outcomes=outcomes,
            allowed=_bool_field(d, "allowed"),
        )


def _measured(obs: Observation) -> dict[str, Observation]:
    return {m.direction.value: m for m in (obs, *obs.parts)}


def _differences(
    results: Sequence[ClientResult], allow: frozenset[str]
) -> tuple[ClientDifference, ...]:
    """Every (payload, direction) that all clients observed and on which they disagree."""
    seen = [{(o.payload_id, o.sent): o for o in r.observations} for r in results]
    found: list[ClientDifference] = []
    for key, first in seen[0].items():
        if not all(key in other for other in seen[1:]):
            continue  # a run that ended early: its payloads are not compared
        per_client = [_measured(s[key]) for s in seen]
        for where in _DIRECTIONS:
            if not all(where in measured for measured in per_client):
                continue
            outcomes = tuple(
                ClientOutcome.of(r.client, m[where])
                for r, m in zip(results, per_client, strict=True)
            )
            if len({o.key for o in outcomes}) == 1:
                continue
            found.append(
                ClientDifference(
                    payload_id=first.payload_id,
                    families=tuple(first.families),
                    direction=where,
                    sent=CardValue.of(first.sent),
                    outcomes=outcomes,
                    allowed=all(o.delivered(allow) for o in outcomes),
                )
            )

    def order(d: ClientDifference) -> tuple[Any, ...]:
        family = d.families[0] if d.families else ""
        return (family_key(family), d.payload_id, _DIRECTIONS.index(d.direction))

    return tuple(sorted(found, key=order))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientsSection:
    """Each client's run, in the order given (the first is the card's own map), and the
    payloads on which they disagree."""

    runs: tuple[ClientRun, ...]
    differences: tuple[ClientDifference, ...]

    @classmethod
    def of(cls, results: Sequence[ClientResult], allow: Iterable[str] = ()) -> ClientsSection:
        """The section of the clients' results, compared with ``allow``ed kinds."""
        if not results:
            raise ValueError("a clients section needs one client's result or more")
        return cls(
            runs=tuple(ClientRun.of(r) for r in results),
            differences=_differences(results, frozenset(allow)) if len(results) > 1 else (),
        )

    @property
    def clients(self) -> tuple[str, ...]:
        """The clients' names, in order."""
        return tuple(r.client for r in self.runs)

    @property
    def disagreements(self) -> tuple[ClientDifference, ...]:
        """The differences beyond the allowed kinds (those that fail a run)."""
        return tuple(d for d in self.differences if not d.allowed)

    def run(self, client: str) -> ClientRun | None:
        """The run of ``client``, if it took part."""
        return next((r for r in self.runs if r.client == client), None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "runs": [r.to_dict() for r in self.runs],
            "differences": [d.to_dict() for d in self.differences],
        }

    @classmethod
    def from_dict(cls, raw: object) -> ClientsSection:
        """Read the JSON form; the differences must name the runs' clients, in order."""
        d = object_value(raw, "clients section")
        runs = tuple(ClientRun.from_dict(r) for r in list_field(d, "runs"))
        if not runs:
            raise Malformed("the clients section lists no client run")
        names = tuple(r.client for r in runs)
        if len(set(names)) != len(names):
            raise Malformed("the clients section lists a client twice")
        differences = tuple(ClientDifference.from_dict(x) for x in list_field(d, "differences"))
        for difference in differences:
            if tuple(o.client for o in difference.outcomes) != names:
                raise Malformed("a client difference must give one outcome per client, in order")
        return cls(runs=runs, differences=differences)
