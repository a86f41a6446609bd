"""The deterministic payload catalogue: every hazard, isolated, with a stable id.

Built once from the hazard tables (see :mod:`strategies._internal.hazards`) and cached.
Importing this module imports neither Hypothesis nor anything heavy: the survey and
the CLI use the catalogue without paying for the generator.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from fidelity._core.kinds import FAMILIES
from fidelity._core.payload import Payload
from strategies._internal.arguments import check_families
from strategies._internal.hazards import HAZARDS, Hazard

__all__ = ["HEAD", "LENGTH_BOUNDARIES", "TAIL", "catalogue", "length_value", "place"]

#: The benign words around an isolated hazard: ``alpha <hazard> beta``.
HEAD = "alpha"
TAIL = "beta"

#: UTF-8 byte limits that real chains cut at.
LENGTH_BOUNDARIES: tuple[int, ...] = (255, 256, 4096, 65536)

_FILLER = "abcdefghijklmnopqrstuvwxyz0123456789"
_POSITIONS = {"s": "start", "m": "mid", "e": "end"}


def place(hazard: str, position: str, *, glued: bool) -> str:
    """Put ``hazard`` at the ``position`` (``s``, ``m``, ``e`` or ``w``) of the benign context."""
    sep = "" if glued else " "
    if position == "s":
        return f"{hazard}{sep}{TAIL}"
    if position == "m":
        return f"{HEAD}{sep}{hazard}{sep}{TAIL}"
    if position == "e":
        return f"{HEAD}{sep}{hazard}"
    return hazard


def length_value(total: int, boundary_char: str = "") -> str:
    """ASCII filler of ``total`` UTF-8 bytes, or filler up to ``total - 1`` bytes then
    ``boundary_char``, so that a multi-byte character starts on the last byte before
    the boundary and straddles it."""
    size = total - 1 if boundary_char else total
    filler = (_FILLER * (size // len(_FILLER) + 1))[:size]
    return filler + boundary_char


def _length_payloads() -> Iterable[tuple[str, str]]:
    yield "255-bytes", length_value(255)
    yield "256-bytes", length_value(256)
    yield "straddle-255-three-byte", length_value(255, "\u20ac")
    yield "straddle-256-two-byte", length_value(256, "\u00e9")
    yield "255-chars-two-byte", "\u00e9" * 255
    yield "4096-bytes", length_value(4096)
    yield "straddle-4096-four-byte", length_value(4096, "\U0001f600")
    yield "65536-bytes", length_value(65536)
    yield "straddle-65536-three-byte", length_value(65536, "\u20ac")


def _hazard_payloads(family: str, hazard: Hazard) -> Iterable[Payload]:
    families = (family, *hazard.also)
    if hazard.places == "w":
        yield Payload(id=f"{family}/{hazard.name}", text=hazard.text, families=families)
        return
    for position in hazard.places:
        yield Payload(
            id=f"{family}/{hazard.name}-{_POSITIONS[position]}",
            text=place(hazard.text, position, glued=hazard.glued),
            families=families,
        )


@cache
def _full_catalogue() -> tuple[Payload, ...]:
    payloads: list[Payload] = []
    for family in FAMILIES:
        if family == "length":
            payloads.extend(
                Payload(id=f"length/{name}", text=text, families=("length",))
                for name, text in _length_payloads()
            )
            continue
        for hazard in HAZARDS[family]:
            payloads.extend(_hazard_payloads(family, hazard))
    return tuple(payloads)


@cache
def _selected(families: tuple[str, ...]) -> tuple[Payload, ...]:
    chosen = frozenset(families)
    return tuple(p for p in _full_catalogue() if p.families[0] in chosen)


def catalogue(families: Iterable[str] | None = None) -> tuple[Payload, ...]:
    """Return the fixed, ordered payload catalogue (at most 300 payloads).

    Each payload isolates one hazard: alone when the hazard is a whole value (``010``,
    a 256-byte string), otherwise in the benign context ``alpha … beta`` at the start,
    middle and/or end, so that a ``strip`` is told apart from an internal rewrite.
    Ids are ``family/name`` (``quotes/left-double-mid``) and never change meaning.
    ``families`` restricts the catalogue to payloads filed under those family ids
    (``fidelity.FAMILIES``); unknown ids raise ``InvalidArgument``. The catalogue is
    built once and cached.
    """
    if families is None:
        return _full_catalogue()
    chosen = check_families(families, name="families")
    return _selected(tuple(sorted(chosen, key=FAMILIES.index)))
