"""Argument checks in the Hypothesis style: ``InvalidArgument`` naming ``name=value``.

Hypothesis is imported only when an argument is wrong, so the catalogue, which uses
these checks, stays cheap to import.
"""

from __future__ import annotations

from typing import NoReturn

from fidelity._core import kinds

__all__ = ["check_families", "check_type", "invalid"]


def invalid(message: str) -> NoReturn:
    """Raise Hypothesis' ``InvalidArgument`` with ``message``."""
    from hypothesis.errors import InvalidArgument

    raise InvalidArgument(message)


def check_families(families: object, *, name: str = "families") -> tuple[str, ...]:
    """``fidelity``'s one check of family ids (:func:`fidelity._core.kinds.check_families`),
    its ``UsageError`` raised as Hypothesis' ``InvalidArgument``."""
    from fidelity._core.errors import UsageError

    try:
        return kinds.check_families(families, name=name)
    except UsageError as exc:
        invalid(str(exc))


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
