"""``text()`` and ``payloads()``: hazards of all (or the chosen) families, mixed.

A value is either a mix (usually) or a whole-value hazard (about one in eight). A mix
is a fixed row of slots: realistic surroundings at both ends, a run of arbitrary
``st.text()`` characters (with ``plain=True``) so that hazards nobody listed can still
turn up, and for every family a few slots (more for families whose hazards different
rewrites act on, at most ``max_pieces``), each empty or holding one hazard picked by a
single integer. Mixes are dense on purpose and cheap in Hypothesis choices, so even
Hypothesis' first, size-capped examples carry a hazard of every family: a rewrite of
any of them shows up within a handful of examples. Families whose hazards make many
chains refuse the whole value (lone surrogates, NUL) are in fewer values.

Everything shrinks by emptying slots and moving to earlier hazards of a family's
table. Families are laid out in reverse order, so when several slots show a failure
the one left is of the earliest family: ``find(text(), ...)`` on a quote-straightening
chain ends at ``“``, on NFC at ``e`` + U+0301. A whole-value hazard is a value that only
acts as a whole (``010``, ``null``, ``~``, a lone ``\\n``, a 256-byte string).
"""

from __future__ import annotations

import hashlib
from functools import cache

from hypothesis import strategies as st

from fidelity._core.kinds import FAMILIES
from fidelity._core.payload import Payload
from fidelity._core.text import to_utf8
from strategies._internal.arguments import check_families, check_type, invalid
from strategies._internal.catalogue import LENGTH_BOUNDARIES, length_value
from strategies._internal.generators import (
    LEADING,
    PREFIXES,
    SUFFIXES,
    slot_values,
    whole_values,
)
from strategies._internal.hazards import HAZARDS
from strategies._internal.lazy import _UNSET, Defined, call_repr

__all__ = ["payloads", "text"]

_Piece = tuple[tuple[str, ...], str]

#: Default number of hazards at most of one family in a value.
_MAX_PIECES = 4

#: Slots per family in a value (at most ``max_pieces``): families with many distinct
#: hazards that different rewrites act on (an entity, a tab, a CRLF) get more.
_SLOTS: dict[str, int] = {
    "quotes": 2,
    "punctuation": 2,
    "normalization": 2,
    "compatibility": 1,
    "case": 1,
    "diacritics": 1,
    "whitespace": 3,
    "invisible": 2,
    "bidi": 2,
    "control": 1,
    "nul": 1,
    "newlines": 2,
    "separators": 1,
    "paths": 1,
    "escapes": 3,
    "mojibake": 1,
    "astral": 1,
    "surrogates": 1,
    "bom": 1,
    "coercion": 0,
    "length": 1,
    "scripts": 1,
}

#: Out of this many draws, one is a whole-value hazard (when the families have any).
_WHOLE_ONE_IN = 8

_EDGES = ("", " ", "\n", "\t", "  ", "\u00a0")


def _checked(families: object, max_pieces: object, plain: object) -> tuple[str, ...]:
    chosen = FAMILIES if families is None else check_families(families, name="families")
    check_type(max_pieces, int, name="max_pieces")
    assert isinstance(max_pieces, int)
    if max_pieces < 1:
        invalid(f"max_pieces={max_pieces!r} must be at least 1.")
    check_type(plain, bool, name="plain")
    return tuple(sorted(chosen, key=FAMILIES.index))


@cache
def _context(edge: bool) -> st.SearchStrategy[str]:
    words = SUFFIXES if edge else PREFIXES
    return st.one_of(st.sampled_from(_EDGES), st.sampled_from(words), st.text(max_size=6))


def _fallback(families: tuple[str, ...]) -> _Piece:
    for family in families:
        if HAZARDS[family]:
            return (family,), HAZARDS[family][0].text
    return (families[0],), length_value(LENGTH_BOUNDARIES[1])


@cache
def _pieces(families: tuple[str, ...], max_pieces: int, plain: bool) -> st.SearchStrategy[_Piece]:
    # Slots in the order they appear in the value, as (family, strategy); the family
    # is "" for the plain st.text() slot and None for the surroundings.
    # Families come in reverse order of FAMILIES: when several slots show a failure,
    # shrinking keeps the last one, so values shrink towards the earliest family.
    slots: list[tuple[str | None, st.SearchStrategy[str]]] = []
    slots += [(f, slot_values(f)) for f in families if f in LEADING]
    slots.append((None, _context(edge=False)))
    if plain:
        slots.append(("", st.text(max_size=8)))
    for family in reversed(families):
        if family in LEADING:
            continue
        count = min(max_pieces, _SLOTS[family] or (1 if len(families) == 1 else 0))
        if not count:
            continue  # whole-value hazards only (coercion): see whole_values()
        # The family's best-known hazards get a slot of their own, the last one: a
        # value shrinks to it when it shows the failure.
        slots += [(family, slot_values(family))] * (count - 1)
        slots.append((family, slot_values(family, head=True)))
    slots.append((None, _context(edge=True)))
    # Whitespace ending the value, for chains that strip it (the start has the BOM).
    slots.append((None, st.sampled_from(_EDGES)))

    fallback = _fallback(families)

    def join(drawn: tuple[str, ...]) -> _Piece:
        filled = [f for (f, _), s in zip(slots, drawn, strict=True) if f is not None and s]
        if not filled:
            # No hazard at all (the simplest value is every slot empty): the earliest
            # family's best-known hazard instead, so every value carries one.
            return fallback
        return tuple(dict.fromkeys(f for f in filled if f)), "".join(drawn)

    # A fixed sequence of slots rather than lists: every value is dense (a rewrite of
    # any hazard shows up within a few examples, even in Hypothesis' early, size-capped
    # examples), and it shrinks by emptying slots, down to one hazard.
    mix = st.tuples(*(s for _, s in slots)).map(join)

    whole = whole_values(families)
    if whole is None:
        return mix

    which = st.integers(0, _WHOLE_ONE_IN - 1)

    @st.composite
    def value(draw: st.DrawFn) -> _Piece:
        if draw(which) == _WHOLE_ONE_IN - 1:
            family, text = draw(whole)
            return (family,), text
        return draw(mix)

    return value()


def text(
    *,
    families: tuple[str, ...] | list[str] | None = None,
    max_pieces: int = _MAX_PIECES,
    plain: bool = True,
) -> st.SearchStrategy[str]:
    """Strings carrying hazards of ``families`` (default: every family), mixed.

    Most values are dense mixes: up to ``max_pieces`` hazards of every family (each
    family has a few slots, one of them for its best-known hazards), between realistic
    surroundings and, with ``plain=True`` (the default), a short run of arbitrary
    ``st.text()`` characters; hazards of families that act at the start of a value
    (``bom``) lead it. Every value carries at least one hazard or plain run. About one
    value in eight is a hazard that only acts as a whole value (``010``, ``null``,
    ``~``, a 256-byte string).
    Values shrink towards a single hazard of the earliest family that still shows
    the failure, without surroundings: a single ``“`` rather than a paragraph.
    """
    representation = call_repr(
        "text",
        families=_UNSET if families is None else families,
        max_pieces=_UNSET if max_pieces == _MAX_PIECES and type(max_pieces) is int else max_pieces,
        plain=_UNSET if plain is True else plain,
    )

    def build() -> st.SearchStrategy[str]:
        chosen = _checked(families, max_pieces, plain)
        assert isinstance(max_pieces, int)
        return _pieces(chosen, max_pieces, plain).map(lambda piece: piece[1])

    return Defined(representation, build)


def _labelled(piece: _Piece) -> bool:
    return bool(piece[0])


def _payload(piece: _Piece) -> Payload:
    families, value = piece
    digest = hashlib.sha256(to_utf8(value)).hexdigest()[:10]
    return Payload(id=f"generated/{families[0]}/{digest}", text=value, families=families)


def payloads(
    *,
    families: tuple[str, ...] | list[str] | None = None,
    max_pieces: int = _MAX_PIECES,
    plain: bool = True,
) -> st.SearchStrategy[Payload]:
    """The values of :func:`text` as ``Payload`` records.

    ``id`` is ``generated/<family>/<hash>`` (the family of the first hazard in the
    value and ten hex digits of the SHA-256 of its UTF-8 bytes, so equal texts get
    equal ids); ``families`` lists every family whose hazard the value carries, in
    order of appearance. Values without any hazard (only ``st.text()`` runs) are left
    out. Shrinks like :func:`text`.
    """
    representation = call_repr(
        "payloads",
        families=_UNSET if families is None else families,
        max_pieces=_UNSET if max_pieces == _MAX_PIECES and type(max_pieces) is int else max_pieces,
        plain=_UNSET if plain is True else plain,
    )

    def build() -> st.SearchStrategy[Payload]:
        chosen = _checked(families, max_pieces, plain)
        assert isinstance(max_pieces, int)
        return _pieces(chosen, max_pieces, plain).filter(_labelled).map(_payload)

    return Defined(representation, build)
