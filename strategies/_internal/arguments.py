"""Argument checks in the Hypothesis style: ``InvalidArgument`` naming ``name=value``.

Hypothesis is imported only when an argument is wrong, so the catalogue, which uses
these checks, stays cheap to import.
"""

from __future__ import annotations

from typing import NoReturn

from fidelity._core.kinds import FAMILIES

__all__ = ["check_families", "check_type", "invalid"]


def invalid(message: str) -> NoReturn:
    """Raise Hypothesis' ``InvalidArgument`` with ``message``."""
    from hypothesis.errors import InvalidArgument

    raise InvalidArgument(message)


def check_families(families: object, *, name: str = "families") -> tuple[str, ...]:
    """Return ``families`` as a tuple of known family ids, or raise ``InvalidArgument``.

    A single string is refused (it would be read as its characters), as is an empty
    selection; the message lists the valid ids.
    """
    if isinstance(families, str) or not isinstance(families, (list, tuple, set, frozenset)):
        invalid(
            f"{name}={families!r} must be a list or tuple of family ids, "
            f"e.g. {name}=('quotes',); valid families are: {', '.join(FAMILIES)}."
        )
    chosen = tuple(families)
    if not chosen:
        invalid(f"{name}={families!r} selects no family; leave it as None for all families.")
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        invalid(
            f"{name}={families!r} names unknown family id(s) "
            f"{', '.join(map(repr, unknown))}; valid families are: {', '.join(FAMILIES)}."
        )
    return tuple(dict.fromkeys(chosen))


def check_type(value: object, expected: type | tuple[type, ...], *, name: str) -> None:
    """Raise ``InvalidArgument`` unless ``value`` is an instance of ``expected``.

    ``bool`` is never accepted where an ``int`` is expected.
    """
    if isinstance(value, bool) and bool not in (
        expected if isinstance(expected, tuple) else (expected,)
    ):
        ok = False
    else:
        ok = isinstance(value, expected)
    if not ok:
        names = (
            " or ".join(t.__name__ for t in expected)
            if isinstance(expected, tuple)
            else expected.__name__
        )
        invalid(f"{name}={value!r} must be of type {names}, not {type(value).__name__}.")
