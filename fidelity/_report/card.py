"""Contract cards: what a chain preserves, rewrites or refuses, per hazard family.

A :class:`Card` is the documented form of a survey: one row per (family, direction)
with its outcome, kinds and smallest examples; the run's facts; and every observation
in a byte-faithful form (text as base64 of its UTF-8 bytes, lone surrogates included;
non-string values typed). It renders as a Markdown section for a tool's contract card
and as versioned JSON (``schema_version``) that reads back exactly; ``drift`` lists
what changed against a committed card, and ``merge`` combines runs of one chain.

Every output is deterministic: rows in family and direction order, observations in a
canonical order, JSON with sorted keys.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._core.text import to_utf8
from fidelity._probe.observation import Direction, Hop, Observation
from fidelity._report.json_doc import (
    COLLECTION,
    RECORD,
    SCHEMA_VERSION,
    Malformed,
    check_version,
    direction,
    dump,
    int_field,
    is_int,
    list_field,
    load,
    object_value,
    status,
    str_field,
    strs_field,
)
from fidelity._report.markdown import FAILURES, cut, md, shown
from fidelity._report.outcomes import Entry, FamilyOutcome, family_key, is_example, summarize

__all__ = [
    "SCHEMA_VERSION",
    "Card",
    "CardExample",
    "CardFacts",
    "CardHop",
    "CardObservation",
    "CardRow",
    "CardValue",
    "cards_from_json",
    "cards_to_json",
]

#: In an observation's JSON, a value identical to the sent value is written as this string.
_SAME = "sent"
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _today() -> str:
    """The run's date (UTC), or the one ``SOURCE_DATE_EPOCH`` fixes for reproducible cards."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (
        datetime.datetime.fromtimestamp(int(epoch), datetime.UTC)
        if epoch.isdigit()
        else datetime.datetime.now(datetime.UTC)
    )
    return when.date().isoformat()


@dataclass(frozen=True, slots=True, kw_only=True)
class CardValue:
    """A value kept exactly: its ``type`` and ``data``.

    ``str``: ``data`` is base64 of the UTF-8 bytes (``surrogatepass``, so lone
    surrogates survive); ``bytes``: base64 of the bytes; ``int``/``float``/``bool``:
    the Python literal; ``null``: empty; any other type: its ``repr``.
    """

    type: str
    data: str

    @classmethod
    def of(cls, value: object) -> CardValue:
        """The exact form of ``value`` (a ``CardValue`` is returned as it is)."""
        if isinstance(value, CardValue):
            return value
        if isinstance(value, str):
            return cls(type="str", data=_b64(to_utf8(value)))
        if isinstance(value, (bytes, bytearray)):
            return cls(type="bytes", data=_b64(bytes(value)))
        if isinstance(value, bool):
            return cls(type="bool", data="true" if value else "false")
        if isinstance(value, int):
            return cls(type="int", data=str(value))
        if isinstance(value, float):
            return cls(type="float", data=repr(value))
        if value is None:
            return cls(type="null", data="")
        # Without the memory address a default repr carries, so cards compare run to run.
        return cls(type=type(value).__name__, data=_ADDRESS.sub("", repr(value)))

    def value(self) -> object:
        """The value itself; types other than str/bytes/numbers/bool/None give their repr."""
        if self.type == "str":
            return base64.b64decode(self.data).decode("utf-8", "surrogatepass")
        if self.type == "bytes":
            return base64.b64decode(self.data)
        if self.type == "bool":
            return self.data == "true"
        if self.type == "int":
            return int(self.data)
        if self.type == "float":
            return float(self.data)
        if self.type == "null":
            return None
        return self.data

    def display(self, limit: int = 40, *, markdown: bool = True) -> str:
        """A short, terminal-safe rendering (code points for text), Markdown-escaped or not."""
        if self.type == "str":
            text = self.value()
            assert isinstance(text, str)
            return shown(text, limit, markdown=markdown)
        if self.type == "bytes":
            data = base64.b64decode(self.data)
            head = data[:limit].hex(" ")
            more = f" … ({len(data)} bytes)" if len(data) > limit else ""
            return f"bytes {head}{more}"
        clipped = cut(self.data, limit)
        return f"{self.type} {md(clipped) if markdown else safe(clipped)}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, raw: object) -> CardValue:
        """Read the JSON form."""
        d = object_value(raw, "value")
        value = cls(type=str_field(d, "type"), data=str_field(d, "data"))
        if value.type in ("str", "bytes"):
            try:
                base64.b64decode(value.data, validate=True)
            except (binascii.Error, ValueError):
                raise Malformed("a value has invalid base64 data") from None
        if value.type == "str":
            try:
                value.value()
            except UnicodeDecodeError:
                raise Malformed("a str value is not UTF-8") from None
        return value


def _optional_value(value: CardValue | None) -> dict[str, Any] | None:
    return None if value is None else value.to_dict()


@dataclass(frozen=True, slots=True, kw_only=True)
class CardExample:
    """The smallest payload that showed ``key`` (a kind id or a failure status)."""

    key: str
    payload_id: str
    sent: CardValue
    received: CardValue | None
    error_type: str = ""
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "key": self.key,
            "payload_id": self.payload_id,
            "sent": self.sent.to_dict(),
            "received": _optional_value(self.received),
            "error_type": self.error_type,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, raw: object) -> CardExample:
        """Read the JSON form."""
        d = object_value(raw, "example")
        received = d.get("received")
        return cls(
            key=str_field(d, "key"),
            payload_id=str_field(d, "payload_id"),
            sent=CardValue.from_dict(d.get("sent")),
            received=None if received is None else CardValue.from_dict(received),
            error_type=str_field(d, "error_type"),
            error=str_field(d, "error"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRow:
    """One row of the map: what the chain does to ``family`` in ``direction``."""

    family: str
    direction: str
    outcome: str
    count: int
    statuses: tuple[tuple[str, int], ...]
    kinds: tuple[str, ...]
    examples: tuple[CardExample, ...]

    @classmethod
    def of(cls, outcome: FamilyOutcome) -> CardRow:
        """The row of a survey's family outcome."""
        return cls(
            family=outcome.family,
            direction=outcome.direction.value,
            outcome=outcome.outcome,
            count=outcome.count,
            statuses=tuple((s.value, n) for s, n in outcome.statuses),
            kinds=outcome.kinds,
            examples=tuple(
                CardExample(
                    key=e.key,
                    payload_id=e.payload_id,
                    sent=CardValue.of(e.sent),
                    received=None if e.key in FAILURES else CardValue.of(e.received),
                    error_type=e.error_type,
                    error=e.error,
                )
                for e in outcome.examples
            ),
        )

    @property
    def key(self) -> tuple[str, str]:
        """``(family, direction)``."""
        return (self.family, self.direction)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "family": self.family,
            "direction": self.direction,
            "outcome": self.outcome,
            "count": self.count,
            "statuses": [[s, n] for s, n in self.statuses],
            "kinds": list(self.kinds),
            "examples": [e.to_dict() for e in self.examples],
        }

    @classmethod
    def from_dict(cls, raw: object) -> CardRow:
        """Read the JSON form."""
        d = object_value(raw, "row")
        statuses = []
        for pair in list_field(d, "statuses"):
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not isinstance(pair[0], str)
                or not is_int(pair[1])
            ):
                raise Malformed("a row's statuses must be [status, count] pairs")
            statuses.append((pair[0], pair[1]))
        return cls(
            family=str_field(d, "family"),
            direction=direction(str_field(d, "direction")),
            outcome=str_field(d, "outcome"),
            count=int_field(d, "count"),
            statuses=tuple(statuses),
            kinds=strs_field(d, "kinds"),
            examples=tuple(CardExample.from_dict(e) for e in list_field(d, "examples")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CardHop:
    """The value after one hop of a chain (``None`` when the hop failed)."""

    name: str
    value: CardValue | None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"name": self.name, "value": _optional_value(self.value), "error": self.error}


@dataclass(frozen=True, slots=True, kw_only=True)
class CardObservation:
    """One observation, byte-faithful: what was sent, what arrived, how it ended."""

    payload_id: str
    families: tuple[str, ...]
    direction: str
    status: str
    sent: CardValue
    received: CardValue | None
    kinds: tuple[str, ...]
    error_type: str = ""
    error: str = ""
    blame: str | None = None
    hops: tuple[CardHop, ...] = ()
    parts: tuple[CardObservation, ...] = ()

    @classmethod
    def of(cls, obs: Observation) -> CardObservation:
        """The exact form of an observation."""
        arrived = obs.status in (Status.PRESERVED, Status.TRANSFORMED)
        return cls(
            payload_id=obs.payload_id,
            families=tuple(obs.families),
            direction=obs.direction.value,
            status=obs.status.value,
            sent=CardValue.of(obs.sent),
            received=CardValue.of(obs.received) if arrived else None,
            kinds=tuple(sorted(obs.kinds)),
            error_type=obs.error_type,
            error=obs.error,
            blame=obs.blame,
            # A one-hop chain's only hop value is the received value: not repeated.
            hops=tuple(_hop(h) for h in obs.hops) if len(obs.hops) > 1 else (),
            parts=tuple(cls.of(p) for p in obs.parts),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; a value identical to ``sent`` is written as the string ``"sent"``."""
        return {
            "payload_id": self.payload_id,
            "families": list(self.families),
            "direction": self.direction,
            "status": self.status,
            "sent": self.sent.to_dict(),
            "received": self._ref(self.received),
            "kinds": list(self.kinds),
            "error_type": self.error_type,
            "error": self.error,
            "blame": self.blame,
            "hops": [
                {"name": h.name, "value": self._ref(h.value), "error": h.error} for h in self.hops
            ],
            "parts": [p.to_dict() for p in self.parts],
        }

    def _ref(self, value: CardValue | None) -> dict[str, Any] | str | None:
        return _SAME if value == self.sent else _optional_value(value)

    @classmethod
    def from_dict(cls, raw: object) -> CardObservation:
        """Read the JSON form."""
        d = object_value(raw, "observation")
        received = d.get("received")
        blame = d.get("blame")
        if blame is not None and not isinstance(blame, str):
            raise Malformed("an observation's blame must be a string or null")
        sent = CardValue.from_dict(d.get("sent"))
        if sent.type != "str":
            raise Malformed("an observation's sent value must be text")

        def value(raw: object) -> CardValue | None:
            if raw == _SAME:
                return sent
            return None if raw is None else CardValue.from_dict(raw)

        hops = []
        for raw_hop in list_field(d, "hops"):
            h = object_value(raw_hop, "hop")
            hops.append(
                CardHop(
                    name=str_field(h, "name"),
                    value=value(h.get("value")),
                    error=str_field(h, "error"),
                )
            )
        return cls(
            payload_id=str_field(d, "payload_id"),
            families=strs_field(d, "families"),
            direction=direction(str_field(d, "direction")),
            status=status(str_field(d, "status")),
            sent=sent,
            received=value(received),
            kinds=strs_field(d, "kinds"),
            error_type=str_field(d, "error_type"),
            error=str_field(d, "error"),
            blame=blame,
            hops=tuple(hops),
            parts=tuple(cls.from_dict(p) for p in list_field(d, "parts")),
        )


def _hop(h: Hop) -> CardHop:
    return CardHop(name=h.name, value=None if h.error else CardValue.of(h.value), error=h.error)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardFacts:
    """The facts of the run: tool version, date, chain, sizes, seed, allow list, completeness."""

    version: str
    date: str
    chain: str
    catalogue_size: int
    examples: int = 0
    seed: int | None = None
    allow: tuple[str, ...] = ()
    complete: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "version": self.version,
            "date": self.date,
            "chain": self.chain,
            "catalogue_size": self.catalogue_size,
            "examples": self.examples,
            "seed": self.seed,
            "allow": list(self.allow),
            "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, raw: object) -> CardFacts:
        """Read the JSON form."""
        d = object_value(raw, "facts")
        seed = d.get("seed")
        if seed is not None and not is_int(seed):
            raise Malformed("facts.seed must be an integer or null")
        complete = d.get("complete")
        if not isinstance(complete, bool):
            raise Malformed("facts.complete must be true or false")
        return cls(
            version=str_field(d, "version"),
            date=str_field(d, "date"),
            chain=str_field(d, "chain"),
            catalogue_size=int_field(d, "catalogue_size"),
            examples=int_field(d, "examples"),
            seed=seed,
            allow=strs_field(d, "allow"),
            complete=complete,
        )


def _canonical(obs: CardObservation) -> tuple[tuple[int, str], str, str]:
    first = obs.families[0] if obs.families else ""
    return (family_key(first), obs.payload_id, json.dumps(obs.to_dict(), sort_keys=True))


def _rows(observations: Iterable[CardObservation]) -> tuple[CardRow, ...]:
    def entries() -> Iterable[Entry]:
        for obs in observations:
            for measured in (obs, *obs.parts):
                sent = measured.sent.value()
                assert isinstance(sent, str)
                yield Entry(
                    payload_id=obs.payload_id,
                    families=obs.families,
                    direction=Direction(measured.direction),
                    status=Status(measured.status),
                    kinds=frozenset(measured.kinds),
                    sent=sent,
                    received=measured.received,
                    error_type=measured.error_type,
                    error=measured.error,
                )

    return tuple(CardRow.of(outcome) for outcome in summarize(entries()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Card:
    """The contract card of one chain: rows per (family, direction), facts, observations."""

    name: str
    facts: CardFacts
    rows: tuple[CardRow, ...]
    observations: tuple[CardObservation, ...]

    # -- building ------------------------------------------------------------------

    @classmethod
    def of(
        cls,
        observations: Iterable[Observation],
        *,
        name: str,
        chain: str,
        outcomes: Iterable[FamilyOutcome],
        catalogue_size: int,
        examples: int = 0,
        seed: int | None = None,
        allow: Iterable[str] = (),
        complete: bool = True,
    ) -> Card:
        """The card of a run: its observations, the rows they gave, and the run's facts."""
        from fidelity._core.version import __version__

        return cls(
            name=name,
            facts=CardFacts(
                version=__version__,
                date=_today(),
                chain=chain,
                catalogue_size=catalogue_size,
                examples=examples,
                seed=seed,
                allow=tuple(sorted(allow)),
                complete=complete,
            ),
            rows=tuple(CardRow.of(o) for o in outcomes),
            observations=tuple(sorted(map(CardObservation.of, observations), key=_canonical)),
        )

    @classmethod
    def merge(cls, cards: Iterable[Card], *, name: str | None = None) -> Card:
        """Combine cards of the same chain (several runs or workers) into one.

        Observations are pooled (exact duplicates once) and the rows recomputed; the
        result does not depend on the order of ``cards``. Cards of different chains, or
        of different names without ``name=``, are a ``UsageError``.
        """
        pool = tuple(cards)
        if not pool or not all(isinstance(c, Card) for c in pool):
            raise UsageError("Card.merge needs one or more Card objects.")
        chains = sorted({c.facts.chain for c in pool})
        if len(chains) > 1:
            raise UsageError(
                f"cannot merge cards of different chains ({', '.join(map(repr, chains))})."
            )
        names = sorted({c.name for c in pool})
        if name is None and len(names) > 1:
            raise UsageError(
                f"the cards have different names ({', '.join(map(repr, names))}); pass name=."
            )
        observations = tuple(sorted({o for c in pool for o in c.observations}, key=_canonical))
        seeds = {c.facts.seed for c in pool}
        catalogue = {(o.payload_id, o.sent) for o in observations if not is_example(o.payload_id)}
        return cls(
            name=name or names[0],
            facts=CardFacts(
                version=", ".join(sorted({c.facts.version for c in pool})),
                date=max(c.facts.date for c in pool),
                chain=chains[0],
                catalogue_size=len(catalogue),
                examples=sum(c.facts.examples for c in pool),
                seed=seeds.pop() if len(seeds) == 1 else None,
                allow=tuple(sorted({k for c in pool for k in c.facts.allow})),
                complete=all(c.facts.complete for c in pool),
            ),
            rows=_rows(observations),
            observations=observations,
        )

    @property
    def complete(self) -> bool:
        """False when the run was interrupted before every payload was observed."""
        return self.facts.complete

    def mark_incomplete(self) -> Card:
        """This card, marked as the result of an interrupted run."""
        return dataclasses.replace(self, facts=dataclasses.replace(self.facts, complete=False))

    def row(self, family: str, direction: str | Direction = Direction.ROUND_TRIP) -> CardRow | None:
        """The row of ``family`` in ``direction``, if the card has one."""
        wanted = (family, Direction(direction).value)
        return next((r for r in self.rows if r.key == wanted), None)

    @property
    def kinds(self) -> frozenset[str]:
        """Every kind any row shows."""
        return frozenset(k for r in self.rows for k in r.kinds)

    # -- JSON ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this card (with ``schema_version``)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "record": RECORD,
            "name": self.name,
            "facts": self.facts.to_dict(),
            "rows": [r.to_dict() for r in self.rows],
            "observations": [o.to_dict() for o in self.observations],
        }

    def to_json(self) -> str:
        """Versioned, deterministic JSON (sorted keys, ASCII, trailing newline)."""
        return dump(self.to_dict())

    @classmethod
    def from_dict(cls, raw: object) -> Card:
        """Read a card's JSON object; anything malformed is a ``UsageError``."""
        check_version(raw)
        assert isinstance(raw, dict)
        try:
            if raw.get("record", RECORD) != RECORD:
                raise Malformed(f"record is {raw.get('record')!r}, not {RECORD!r}")
            return cls(
                name=str_field(raw, "name"),
                facts=CardFacts.from_dict(raw.get("facts")),
                rows=tuple(CardRow.from_dict(r) for r in list_field(raw, "rows")),
                observations=tuple(
                    CardObservation.from_dict(o) for o in list_field(raw, "observations")
                ),
            )
        except Malformed as exc:
            raise UsageError(f"not a valid contract card: {exc}.") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> Card:
        """Read :meth:`to_json` output back exactly; malformed input is a ``UsageError``."""
        return cls.from_dict(load(text))

    def to_html(self) -> str:
        """A standalone HTML report of this card."""
        from fidelity._report.html import render_html

        html: str = render_html(self)
        return html

    def to_markdown(self) -> str:
        """A Markdown section for a tool's contract card: the table and the facts."""
        from fidelity._report.markdown import render_markdown

        return render_markdown(self)

    def drift(self, committed: Card) -> tuple[str, ...]:
        """One line per row that changed against ``committed`` (empty when none did).

        A kind that appears or disappears, an outcome that changes, a row that is new or
        missing. Facts such as date and version are ignored.
        """
        from fidelity._report.drift import row_changes

        return row_changes(self, committed)

    # -- drift ---------------------------------------------------------------------


def cards_to_json(cards: Iterable[Card]) -> str:
    """Several cards (e.g. every chain of ``fidelity survey``) as one versioned document."""
    return dump(
        {
            "schema_version": SCHEMA_VERSION,
            "record": COLLECTION,
            "cards": [c.to_dict() for c in cards],
        }
    )


def cards_from_json(text: str | bytes) -> tuple[Card, ...]:
    """Read a single card or a :func:`cards_to_json` document."""
    raw = load(text)
    check_version(raw)
    assert isinstance(raw, dict)
    if raw.get("record") == COLLECTION:
        items = raw.get("cards")
        if not isinstance(items, list):
            raise UsageError("not a valid card collection: 'cards' must be a list.")
        return tuple(Card.from_dict(item) for item in items)
    return (Card.from_dict(raw),)
