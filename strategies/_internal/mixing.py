"""``text()`` and ``payloads()``: hazards of all (or the chosen) families, mixed.

A value is either a mix (usually) or a whole-value hazard (about one in eight). A mix
is a list of up to five groups of up to ``max_pieces`` pieces each; a piece is a cluster of
hazards of a family drawn with equal odds, in realistic surroundings, or, with
``plain=True``, a short run of arbitrary ``st.text()`` characters so that hazards
nobody listed can still turn up. Mixes are dense on purpose: a rewrite of any one of
a few hundred hazards shows up within a handful of examples. A whole-value hazard is
a value that only acts as a whole (``010``, ``null``, ``~``, a lone ``\\n``, a
256-byte string). Everything shrinks by deleting groups, pieces, hazards and
surroundings and by moving to earlier hazards: ``find(text(), ...)`` on a
quote-straightening chain ends at ``“``.
"""

from __future__ import annotations

import hashlib
from functools import cache

from hypothesis import strategies as st

from fidelity._kinds import FAMILIES
from fidelity._payload import Payload
from fidelity._text import to_utf8
from strategies._internal.arguments import check_families, check_type, invalid
from strategies._internal.generators import LEADING, mixable_values, whole_values
from strategies._internal.lazy import _UNSET, Defined, call_repr

__all__ = ["payloads", "text"]

_Piece = tuple[tuple[str, ...], str]

#: Default number of pieces at most in one value.
_MAX_PIECES = 8

#: Groups of pieces at most in one value.
_GROUPS = 5

#: Out of this many draws, one is a whole-value hazard (when the families have any).
_WHOLE_ONE_IN = 8


def _checked(families: object, max_pieces: object, plain: object) -> tuple[str, ...]:
    chosen = FAMILIES if families is None else check_families(families, name="families")
    check_type(max_pieces, int, name="max_pieces")
    assert isinstance(max_pieces, int)
    if max_pieces < 1:
        invalid(f"max_pieces={max_pieces!r} must be at least 1.")
    check_type(plain, bool, name="plain")
    return tuple(sorted(chosen, key=FAMILIES.index))


def _tagged(family: str) -> st.SearchStrategy[_Piece]:
    return mixable_values(family).map(lambda s: ((family,), s))


@cache
def _pieces(families: tuple[str, ...], max_pieces: int, plain: bool) -> st.SearchStrategy[_Piece]:
    tagged = [_tagged(f) for f in families]
    plain_runs = st.text(min_size=1, max_size=8).map(lambda s: ((), s))
    choices = len(tagged) + (1 if plain else 0)

    @st.composite
    def piece(draw: st.DrawFn) -> _Piece:
        # An index rather than one_of: every family is equally likely however many
        # branches its own strategy has, and it still shrinks towards the first.
        i = draw(st.integers(0, choices - 1))
        return draw(tagged[i] if i < len(tagged) else plain_runs)

    def join(drawn: list[_Piece]) -> _Piece:
        drawn = sorted(drawn, key=lambda p: not (p[0] and p[0][0] in LEADING))
        seen = dict.fromkeys(f for fams, _ in drawn for f in fams)
        return tuple(seen), "".join(s for _, s in drawn)

    # Lists of lists: Hypothesis keeps a list's average size small, and a dense value
    # (a few dozen hazards) reveals a rewrite of any one of them within a few examples.
    groups = st.lists(
        st.lists(piece(), min_size=1, max_size=max_pieces), min_size=1, max_size=_GROUPS
    )
    mix = groups.map(lambda gs: join([p for g in gs for p in g]))

    whole = whole_values(families)
    if whole is None:
        return mix

    @st.composite
    def value(draw: st.DrawFn) -> _Piece:
        if draw(st.integers(0, _WHOLE_ONE_IN - 1)) == _WHOLE_ONE_IN - 1:
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

    Most values are dense mixes: up to five groups of up to ``max_pieces`` pieces, each piece a
    cluster of hazards of a randomly chosen family in realistic surroundings or, with
    ``plain=True`` (the default), a short run of arbitrary ``st.text()`` characters;
    pieces of families that act at the start of a value (``bom``) lead it. About one
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
