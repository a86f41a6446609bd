"""What a run tells its handlers, as it happens: typed, frozen events.

A front end's outputs are handlers of these: the JSON result kept current as each
observation arrives and written at the end, the ``--card`` blocks, the ``--html``
page, the ``--junit`` cases and the terminal map, each told :class:`RunStarted`, the
observations, each target's end and :class:`RunDone`. The run decides; the handlers
show and write, subscribed through one :class:`Dispatch`. A new input (an OpenAPI
operation, one server of a client config) is a new target of the same run and emits
the same events.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError

if TYPE_CHECKING:
    from fidelity._probe.observation import Observation
    from fidelity._report.card import Card

__all__ = [
    "Calibrated",
    "Dispatch",
    "Event",
    "Handler",
    "ObservationMade",
    "ParameterDone",
    "RunDone",
    "RunStarted",
    "TargetDone",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStarted:
    """The run is about to send its first payload: ``name`` (its card's, or the
    run's) and ``targets``, what it sweeps in order (a tool parameter, a client...)."""

    name: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibrated:
    """The read-back of ``target`` was located by a calibration call: ``read``."""

    target: str
    read: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ObservationMade:
    """A payload came back (or failed) through ``target``."""

    target: str
    observation: Observation


@dataclass(frozen=True, slots=True, kw_only=True)
class ParameterDone:
    """``target``'s sweep ended: ``stopped`` is the breaker's sentence when it was cut
    short (``""`` when it finished or the budget ended it)."""

    target: str
    observations: int
    stopped: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetDone:
    """One target of a run over many (a row of ``--all-tools``) ended; ``outcome`` is
    the front end's record of it (a row's run)."""

    target: str
    outcome: object


@dataclass(frozen=True, slots=True, kw_only=True)
class RunDone:
    """The run ended. ``complete``: every target finished; ``interrupted``: Ctrl-C or
    a signal ended it (nothing is printed then, what it saw is written); ``failed``:
    an error ended it (nothing is written but the JSON result of what it saw);
    ``cards``: its results; ``outcome``: what the front end's handlers show beyond
    the cards (the rows' runs, the clients' section)."""

    complete: bool
    interrupted: bool = False
    failed: bool = False
    cards: tuple[Card, ...] = ()
    outcome: object = None


Event = RunStarted | Calibrated | ObservationMade | ParameterDone | TargetDone | RunDone
Handler = Callable[[Event], None]


class Dispatch:
    """Tells each event to the run's handlers, in order: the ``writers`` each on its
    own (one that cannot write does not keep the others from writing; the first
    failure, one sentence, is raised once they all had the event), then the
    ``reporters`` (the terminal), which are told only when every writer succeeded."""

    def __init__(self, writers: Sequence[Handler] = (), reporters: Sequence[Handler] = ()) -> None:
        self.writers = tuple(writers)
        self.reporters = tuple(reporters)

    def __call__(self, event: Event) -> None:
        failures: list[UsageError] = []
        for writer in self.writers:
            try:
                writer(event)
            except UsageError as exc:
                failures.append(exc)
        if failures:
            raise failures[0]
        for reporter in self.reporters:
            reporter(event)
