"""The rewrites a set of observations shows: each kind with its detail, the hop that
made it, the direction it was measured in and the code points it changed.

Hints (:mod:`fidelity._report.hints`) and the sentences for a model
(:mod:`fidelity._report.describe`) are built from these :class:`Rewrite` records. Live
observations carry their comparisons, so nothing is compared again; a card's
observations are compared once each (cached, so a result rewritten during a run pays
only for what is new), and a card built from live observations is handed their
comparisons (:func:`remember`). The hop is the first hop whose own output shows the kind: with
one kind or one hop that is the observation's ``blame``; otherwise each hop's output is
compared with its input.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._compare.api import compare
from fidelity._core.kinds import Status

if TYPE_CHECKING:
    from fidelity._compare.transformation import Transformation
    from fidelity._probe.observation import Observation
    from fidelity._report.card_records import CardObservation, CardValue

__all__ = [
    "Rewrite",
    "from_card",
    "from_observations",
    "mojibake_reversed",
    "ordered",
    "remember",
]

#: Code points of a changed segment kept per rewrite (enough to name what changed).
_SEGMENT = 16
_TRANSFORMED = Status.TRANSFORMED.value


@dataclass(frozen=True, slots=True, kw_only=True)
class Rewrite:
    """One kind as a chain showed it: ``detail`` as the comparison gave it, the ``hop``
    that made it (``None`` when the chain has no hops), the ``direction`` (a
    ``Direction`` value), and the start of the changed segments, ``sent`` and
    ``received`` (for ``type.coerced``, the received value's ``repr``)."""

    kind: str
    detail: str = ""
    hop: str | None = None
    direction: str = "round_trip"
    sent: str = ""
    received: str = ""


def mojibake_reversed(rewrite: Rewrite) -> bool:
    """True when an ``encoding.mojibake`` went the other way: text written in the
    detail's codec was read as UTF-8 (the sent text looked like mojibake, and the chain
    "repaired" it)."""
    codec, _, rest = rewrite.detail.partition(",")
    if rest.strip() == "reversed":
        return True
    try:
        return rewrite.sent.encode(codec.strip()).decode("utf-8") == rewrite.received
    except (UnicodeError, LookupError, ValueError):
        return False


def _of(
    changes: Iterable[Transformation], hops: dict[str, str], blame: str | None, direction: str
) -> Iterator[Rewrite]:
    for t in changes:
        yield Rewrite(
            kind=t.kind,
            detail=t.detail,
            hop=hops.get(t.kind, blame),
            direction=direction,
            sent=t.sent[:_SEGMENT],
            received=t.received[:_SEGMENT],
        )


def _hop_kinds(sent: object, values: Sequence[tuple[str, object]]) -> dict[str, str]:
    """Each kind of a multi-hop chain, with the first hop whose output shows it."""
    found: dict[str, str] = {}
    before = sent
    for name, value in values:
        if value is None:
            break
        if not (type(value) is type(before) and value == before):
            for kind in _kinds(before, value):
                found.setdefault(kind, name)
        before = value
    return found


def from_observations(observations: Iterable[Observation]) -> tuple[Rewrite, ...]:
    """The distinct rewrites of live observations (their parts included), in a
    deterministic order."""
    seen: set[Rewrite] = set()
    for obs in observations:
        for measured in (obs, *obs.parts):
            comparison = measured.comparison
            if comparison is None or measured.status is not Status.TRANSFORMED:
                continue
            hops: dict[str, str] = {}
            if len(measured.hops) > 1 and len(comparison.kinds) > 1:
                hops = _hop_kinds(measured.sent, [(h.name, h.value) for h in measured.hops])
            blame = measured.blame if measured.blame is not None else obs.blame
            direction = measured.direction.value
            seen.update(_of(comparison.transformations, hops, blame, direction))
    return ordered(seen)


def from_card(observations: Iterable[CardObservation]) -> tuple[Rewrite, ...]:
    """The distinct rewrites of a card's observations (their parts included).

    The kinds a card records are the authority: a kind the comparison of the recorded
    values does not give again (a value of an unusual type is recorded as its repr) is
    kept, without detail.
    """
    seen: set[Rewrite] = set()
    for obs in observations:
        for measured in (obs, *obs.parts):
            if measured.status != _TRANSFORMED or measured.received is None:
                continue
            recorded = frozenset(measured.kinds)
            changes = [t for t in _changes(measured.sent, measured.received) if t.kind in recorded]
            missing = recorded - {t.kind for t in changes}
            hops: dict[str, str] = {}
            if len(measured.hops) > 1 and len(measured.kinds) > 1:
                sent = measured.sent.value()
                values = [
                    (h.name, None if h.value is None else h.value.value()) for h in measured.hops
                ]
                hops = _hop_kinds(sent, values)
            blame = measured.blame if measured.blame is not None else obs.blame
            seen.update(_of(changes, hops, blame, measured.direction))
            seen.update(
                Rewrite(kind=k, hop=hops.get(k, blame), direction=measured.direction)
                for k in missing
            )
    return ordered(seen)


#: Transformations of a card's (sent, received) values, most recently used last.
_KNOWN: OrderedDict[tuple[CardValue, CardValue], tuple[Transformation, ...]] = OrderedDict()
_KNOWN_LOCK = threading.Lock()
_KNOWN_SIZE = 4096


def _keep(key: tuple[CardValue, CardValue], changes: tuple[Transformation, ...]) -> None:
    with _KNOWN_LOCK:
        _KNOWN[key] = changes
        _KNOWN.move_to_end(key)
        while len(_KNOWN) > _KNOWN_SIZE:
            _KNOWN.popitem(last=False)


def _changes(sent: CardValue, received: CardValue) -> tuple[Transformation, ...]:
    key = (sent, received)
    with _KNOWN_LOCK:
        found = _KNOWN.get(key)
        if found is not None:
            _KNOWN.move_to_end(key)
            return found
    text = sent.value()
    if not isinstance(text, str):  # a card's sent values are text; checked when read
        return ()
    changes = compare(text, received.value()).transformations
    _keep(key, changes)
    return changes


def remember(pairs: Iterable[tuple[Observation, CardObservation]]) -> None:
    """Keep the comparisons live observations already made, under their card records'
    values, so a card built from a run does not compare its values again."""
    for live, recorded in pairs:
        for measured, card in zip((live, *live.parts), (recorded, *recorded.parts), strict=True):
            comparison = measured.comparison
            if (
                comparison is None
                or card.received is None
                or measured.status is not Status.TRANSFORMED
            ):
                continue
            _keep((card.sent, card.received), comparison.transformations)


def _kinds(before: object, after: object) -> frozenset[str]:
    if not isinstance(before, str):
        return frozenset()
    return compare(before, after).kinds


def ordered(rewrites: Iterable[Rewrite]) -> tuple[Rewrite, ...]:
    """The distinct ``rewrites`` in a deterministic order."""

    def key(r: Rewrite) -> tuple[str, str, str, str, str, str]:
        return (r.kind, r.direction, r.hop or "", r.detail, r.sent, r.received)

    return tuple(sorted(set(rewrites), key=key))
