"""The probe contract: take a payload's text, return an ``Observation``.

Like an httpx transport, a probe is one method (:meth:`Probe.observe`) plus
:meth:`Probe.close`. Probes that hold a connection are reused across payloads and are
context managers. :meth:`Probe.observe_many` is the batch entry point a survey uses;
probes that can overlap requests override it and still yield results in input order.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Self

from fidelity._kinds import Status
from fidelity._observation import Observation

__all__ = ["FunctionProbe", "Probe", "observe_value"]


class Probe(abc.ABC):
    """A chain that payload texts are pushed through.

    Subclasses set ``name`` (a short description of the chain, used in cards) and
    implement :meth:`observe`. ``observe`` never raises for a payload-specific failure:
    it returns an observation with status ``rejected``, ``lost``, ``timeout`` or
    ``broken``.
    """

    name: str = "probe"

    @abc.abstractmethod
    def observe(self, text: str) -> Observation:
        """Push ``text`` through the chain once and report what arrived."""

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        """Observe each text in turn; results come in the order of ``texts``."""
        for text in texts:
            yield self.observe(text)

    def close(self) -> None:
        """Release connections, sessions and subprocesses held by the probe."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def observe_value(sent: str, received: object, **fields: object) -> Observation:
    """Build the observation for a value that arrived: ``preserved`` or ``transformed``."""
    from fidelity._compare import compare

    comparison = compare(sent, received)
    status = Status.PRESERVED if comparison.faithful else Status.TRANSFORMED
    return Observation(
        sent=sent,
        status=status,
        received=received,
        comparison=comparison,
        **fields,  # type: ignore[arg-type]
    )


class FunctionProbe(Probe):
    """A probe over any callable ``str -> object``.

    An exception raised by the callable is the chain refusing that value: the
    observation is ``rejected`` with the exception's type and message kept.
    """

    def __init__(self, fn: Callable[[str], object], *, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", None) or repr(fn)

    def observe(self, text: str) -> Observation:
        try:
            received = self.fn(text)
        except Exception as exc:  # the chain's refusal of this payload
            return Observation(
                sent=text,
                status=Status.REJECTED,
                error_type=type(exc).__name__,
                error=str(exc),
            )
        return observe_value(text, received)
