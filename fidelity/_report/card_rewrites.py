"""The transformations a card stores: each rewrite of its observations, with the
version of the engine that named them, so reports never compare the values again.

A card made from a run holds the rewrites its live comparisons gave; its JSON keeps
them under ``transformations`` (``engine``: the param-fidelity version, ``rewrites``).
A card read back uses them when the engine is this one and they agree with the
observations (every rewrite's kind is a kind the observations record in that
direction, its hop one of theirs); otherwise they are recomputed from the values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fidelity._core.render import safe
from fidelity._report.card_records import CardObservation
from fidelity._report.json_doc import Malformed, direction, object_value
from fidelity._report.rewrites import Rewrite

__all__ = ["read_rewrites", "rewrites_to_dict"]

#: Longest detail, hop and segment read back (segments are 16 code points when written).
_TEXT = 400


def rewrites_to_dict(engine: str, rewrites: Iterable[Rewrite]) -> dict[str, Any]:
    """The JSON form of a card's transformations."""
    return {
        "engine": engine,
        "rewrites": [
            {
                "kind": r.kind,
                "detail": r.detail,
                "hop": r.hop,
                "direction": r.direction,
                "sent": r.sent,
                "received": r.received,
            }
            for r in rewrites
        ],
    }


def _seen(observations: Iterable[CardObservation]) -> tuple[set[tuple[str, str]], set[str]]:
    """The (kind, direction) pairs and the hop names the observations record."""
    kinds: set[tuple[str, str]] = set()
    hops: set[str] = set()
    for obs in observations:
        for measured in (obs, *obs.parts):
            kinds.update((k, measured.direction) for k in measured.kinds)
            hops.update(h.name for h in measured.hops)
            for blame in (measured.blame, obs.blame):
                if blame is not None:
                    hops.add(blame)
    return kinds, hops


def _text(d: Mapping[str, Any], key: str) -> str:
    value = d.get(key, "")
    if not isinstance(value, str) or len(value) > _TEXT:
        raise Malformed(f"a stored rewrite's {key!r} must be text of at most {_TEXT} characters")
    return value


def read_rewrites(
    raw: object, observations: Iterable[CardObservation], engine: str
) -> tuple[Rewrite, ...] | None:
    """The stored rewrites of a card's JSON ``transformations``, or ``None`` when there
    are none, another engine named them, or they do not agree with the observations
    (then they are recomputed). A malformed field raises ``Malformed``."""
    if raw is None:
        return None
    d = object_value(raw, "transformations")
    items = d.get("rewrites")
    if not isinstance(items, list):
        raise Malformed("field 'transformations.rewrites' must be a list")
    if d.get("engine") != engine:
        return None
    kinds, hops = _seen(observations)
    found = []
    for item in items:
        r = object_value(item, "stored rewrite")
        hop = r.get("hop")
        if hop is not None and not isinstance(hop, str):
            raise Malformed("a stored rewrite's 'hop' must be text or null")
        rewrite = Rewrite(
            kind=_text(r, "kind"),
            detail=_text(r, "detail"),
            hop=hop,
            direction=direction(_text(r, "direction")),
            sent=_text(r, "sent"),
            received=_text(r, "received"),
        )
        if (rewrite.kind, rewrite.direction) not in kinds or (hop is not None and hop not in hops):
            return None  # not what the observations say: computed again from them
        if safe(rewrite.detail) != rewrite.detail:
            return None
        found.append(rewrite)
    return tuple(found)
