"""A strategy defined by a call: built on first use, shown as the call that made it.

Hypothesis validates arguments when a test runs, not when a module is imported, and a
strategy's repr reads like the call that built it. :class:`Defined` gives our public
strategies both: the builder (which checks arguments and raises ``InvalidArgument``)
runs when the strategy is first validated or drawn from, and ``repr`` is the call,
e.g. ``strategies.text(families=('quotes',))``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis.strategies import SearchStrategy

if TYPE_CHECKING:
    from hypothesis.internal.conjecture.data import ConjectureData

__all__ = ["Defined", "call_repr"]

T = TypeVar("T")

_UNSET: Any = object()


def call_repr(name: str, *args: object, **kwargs: object) -> str:
    """``strategies.name(arg, key=value)``; keywords whose value is ``_UNSET`` are left out."""
    shown = [repr(a) for a in args]
    shown += [f"{k}={v!r}" for k, v in kwargs.items() if v is not _UNSET]
    return f"strategies.{name}({', '.join(shown)})"


class Defined(SearchStrategy[T]):
    """A strategy that builds its wrapped strategy on first use and reprs as its call."""

    def __init__(self, representation: str, build: Callable[[], SearchStrategy[T]]) -> None:
        super().__init__()
        self._representation = representation
        self._build = build
        self._wrapped: SearchStrategy[T] | None = None

    @property
    def wrapped(self) -> SearchStrategy[T]:
        """The strategy this one stands for (built, and its arguments checked, once)."""
        if self._wrapped is None:
            self._wrapped = self._build()
        return self._wrapped

    def do_validate(self) -> None:
        self.wrapped.validate()

    def do_draw(self, data: ConjectureData) -> T:
        return data.draw(self.wrapped)

    def calc_is_empty(self, recur: Any) -> bool:
        return bool(recur(self.wrapped))

    def calc_has_reusable_values(self, recur: Any) -> bool:
        return bool(recur(self.wrapped))

    def calc_label(self) -> int:
        return self.wrapped.label

    def __repr__(self) -> str:
        return self._representation
