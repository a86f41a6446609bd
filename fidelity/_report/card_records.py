"""The records a contract card is made of: values, examples, rows, observations, facts.

Each has a JSON form (``to_dict``) and reads one back (``from_dict``) from a document
that is never trusted: a malformed field raises ``Malformed``.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._core.text import to_utf8
from fidelity._probe.observation import Hop, Observation
from fidelity._probe.setup import ProbeSetup
from fidelity._report.display import FAILURES, cut, md, shown
from fidelity._report.environment import Environment
from fidelity._report.json_doc import (
    Malformed,
    date,
    direction,
    example_key,
    families_field,
    family,
    int_field,
    is_int,
    kinds_field,
    list_field,
    object_value,
    outcome,
    status,
    str_field,
)
from fidelity._report.outcomes import FamilyOutcome

__all__ = [
    "EFFECTS",
    "CardExample",
    "CardFacts",
    "CardHop",
    "CardObservation",
    "CardRow",
    "CardValue",
]

#: In an observation's JSON, a value identical to the sent value is written as this string.
_SAME = "sent"
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
#: The data of a number as ``CardValue.of`` writes it (within int's digit limit).
_INT = re.compile(r"-?[0-9]{1,4300}")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


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
        if markdown:
            return f"{md(self.type)} {md(clipped)}"
        return f"{safe(self.type)} {safe(clipped)}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, raw: object) -> CardValue:
        """Read the JSON form."""
        d = object_value(raw, "value")
        value = cls(type=str_field(d, "type"), data=str_field(d, "data"))
        if not value.type.isidentifier() or len(value.type) > 100:
            raise Malformed("a value's type must be the name of a type")
        if not _data_fits(value.type, value.data):
            raise Malformed(f"a value of type {value.type} has data it cannot hold")
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


def _data_fits(kind: str, data: str) -> bool:
    """Whether ``data`` is what ``CardValue.of`` writes for a value of type ``kind``."""
    if kind == "bool":
        return data in ("true", "false")
    if kind == "null":
        return data == ""
    if kind == "int":
        return bool(_INT.fullmatch(data))
    if kind == "float":
        try:
            float(data)
        except ValueError:
            return False
        return len(data) <= 40
    return True


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
            key=example_key(str_field(d, "key")),
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
                or pair[1] < 0
            ):
                raise Malformed("a row's statuses must be [status, count] pairs")
            statuses.append((status(pair[0]), pair[1]))
        return cls(
            family=family(str_field(d, "family")),
            direction=direction(str_field(d, "direction")),
            outcome=outcome(str_field(d, "outcome")),
            count=int_field(d, "count"),
            statuses=tuple(statuses),
            kinds=kinds_field(d, "kinds"),
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
    client_side: bool = False
    effect: str = ""
    silent: bool = False

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
            client_side=obs.client_side,
            effect=obs.effect,
            silent=obs.silent,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; a value identical to ``sent`` is written as the string ``"sent"``.

        ``client_side``, ``effect`` and ``silent`` are written only when set, so a card
        without them reads as it always did.
        """
        out: dict[str, Any] = {
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
        if self.client_side:
            out["client_side"] = True
        if self.effect:
            out["effect"] = self.effect
        if self.silent:
            out["silent"] = True
        return out

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
            families=families_field(d, "families"),
            direction=direction(str_field(d, "direction")),
            status=status(str_field(d, "status")),
            sent=sent,
            received=value(received),
            kinds=kinds_field(d, "kinds"),
            error_type=str_field(d, "error_type"),
            error=str_field(d, "error"),
            blame=blame,
            hops=tuple(hops),
            parts=tuple(cls.from_dict(p) for p in list_field(d, "parts")),
            client_side=_flag(d, "client_side"),
            effect=_effect(d),
            silent=_flag(d, "silent"),
        )


#: What reading back once after a timed-out write can find (``Observation.effect``).
EFFECTS = ("landed", "absent", "unknown")


def _flag(d: dict[str, Any], key: str) -> bool:
    value = d.get(key, False)
    if not isinstance(value, bool):
        raise Malformed(f"an observation's {key} must be true or false")
    return value


def _effect(d: dict[str, Any]) -> str:
    value = d.get("effect", "")
    if value != "" and value not in EFFECTS:
        raise Malformed(f"an observation's effect must be one of {', '.join(EFFECTS)}")
    return str(value)


#: The longest warning a card's facts may hold.
_WARNING_CHARS = 1000


def _warnings(d: dict[str, Any]) -> tuple[str, ...]:
    """A run's warnings: printable one-line sentences (a result file is input)."""
    values = d.get("warnings", [])
    if not isinstance(values, list) or not all(
        isinstance(v, str) and len(v) <= _WARNING_CHARS and safe(v) == v for v in values
    ):
        raise Malformed(
            f"facts.warnings must be a list of printable sentences of at most "
            f"{_WARNING_CHARS} characters"
        )
    return tuple(values)


def _hop(h: Hop) -> CardHop:
    return CardHop(name=h.name, value=None if h.error else CardValue.of(h.value), error=h.error)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardFacts:
    """The facts of the run: tool version, date, chain, sizes, seed, allow list,
    completeness, and, when the run was a probe that records it, the probe's ``setup``
    (what was sent where and read back how: enough to repeat the run) and the
    ``warnings`` it printed (most rejected, a server's stdout not all JSON-RPC...)."""

    version: str
    date: str
    chain: str
    catalogue_size: int
    examples: int = 0
    seed: int | None = None
    allow: tuple[str, ...] = ()
    complete: bool = True
    setup: ProbeSetup | None = None
    warnings: tuple[str, ...] = ()
    environment: Environment | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``setup``, ``warnings`` and ``environment`` only when there
        are some, so older cards read the same)."""
        out: dict[str, Any] = {
            "version": self.version,
            "date": self.date,
            "chain": self.chain,
            "catalogue_size": self.catalogue_size,
            "examples": self.examples,
            "seed": self.seed,
            "allow": list(self.allow),
            "complete": self.complete,
        }
        if self.setup is not None:
            out["setup"] = self.setup.to_dict()
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.environment is not None:
            out["environment"] = self.environment.to_dict()
        return out

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
        setup = None
        if d.get("setup") is not None:
            try:
                setup = ProbeSetup.from_dict(d["setup"])
            except ValueError as exc:
                raise Malformed(f"facts.setup is malformed: {exc}") from None
        environment = None
        if d.get("environment") is not None:
            try:
                environment = Environment.from_dict(d["environment"])
            except ValueError as exc:
                raise Malformed(str(exc)) from None
        return cls(
            version=str_field(d, "version"),
            date=date(str_field(d, "date")),
            chain=str_field(d, "chain"),
            catalogue_size=int_field(d, "catalogue_size"),
            examples=int_field(d, "examples"),
            seed=seed,
            allow=kinds_field(d, "allow"),
            complete=complete,
            setup=setup,
            warnings=_warnings(d),
            environment=environment,
        )
