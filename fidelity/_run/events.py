"""What a run tells its handlers, as it happens: typed, frozen events.

A front end is a handler of these (today the JSON result kept current as each
observation arrives; the terminal map, the card and the HTML page are next): the run
layer decides, the handlers show and write. A new input (an OpenAPI operation, one
server of a client config) is a new target of the same run and emits the same events.
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
]


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


Event = Calibrated | ObservationMade | ParameterDone
Handler = Callable[[Event], None]
