"""What a run tells its handlers, as it happens: typed, frozen events.

A front end is a handler of these (the terminal map, the JSON result kept current,
the card, the HTML page, JUnit): the run layer decides, the handlers show and write.
A new input (an OpenAPI operation, one server of a client config) is a new target
of the same run and emits the same events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fidelity._probe.observation import Observation

__all__ = [
    "Calibrated",
    "Event",
    "Handler",
    "ObservationMade",
    "ParameterDone",
    "RunDone",
    "RunStarted",
    "RunWarning",
    "TargetOpened",
    "emit_to",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStarted:
    """A run begins: ``targets`` (one per tool parameter, client or server) with
    ``planned`` payloads each."""

    targets: tuple[str, ...]
    planned: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetOpened:
    """A target's probe is open (``client``: the MCP client through which, if named)."""

    target: str
    client: str = ""


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
class RunWarning:
    """One sentence a run says without changing its exit code."""

    target: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ParameterDone:
    """``target``'s sweep ended: ``stopped`` is the breaker's sentence when it was cut
    short (``""`` when it finished or the budget ended it)."""

    target: str
    observations: int
    stopped: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunDone:
    """The run ended: ``failure`` is the verdict's sentence when it must exit 3."""

    failure: str = ""


Event = (
    RunStarted | TargetOpened | Calibrated | ObservationMade | RunWarning | ParameterDone | RunDone
)
Handler = Callable[[Event], None]


def emit_to(*handlers: Handler | None) -> Handler:
    """One handler that hands each event to every one of ``handlers`` (``None`` skipped)."""
    kept = [h for h in handlers if h is not None]

    def emit(event: Event) -> None:
        for handler in kept:
            handler(event)

    return emit
