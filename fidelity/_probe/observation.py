"""What one probe saw for one payload: the immutable ``Observation`` record."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from fidelity._core.kinds import Status
from fidelity._core.records import fast_init

if TYPE_CHECKING:
    from fidelity._compare.api import Comparison

__all__ = ["SILENT_ANSWER", "Direction", "Hop", "Observation"]

#: What precedes the tool's answer in the ``error`` of a ``silent`` rejection.
SILENT_ANSWER = "it answered without an error flag: "


class Direction(StrEnum):
    """Which way through the chain an observation measured."""

    ROUND_TRIP = "round_trip"
    REQUEST = "request"
    RESPONSE = "response"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Hop:
    """The value after one hop of a multi-hop chain (``value`` is ``None`` if it failed)."""

    name: str
    value: object
    error: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """The outcome of pushing one payload text through a chain.

    ``status`` is one of the outcomes in ``fidelity.Status``. ``comparison`` is set
    whenever a value arrived (``preserved`` or ``transformed``). ``error_type`` and
    ``error`` keep the chain's own report for ``rejected``/``lost``/``timeout``/
    ``broken``. ``wire`` holds raw bytes when the probe could see them. ``hops`` lists
    the value after each hop of a chain, and ``blame`` names the first hop that
    changed it. ``parts`` holds separately measured directions (request path and
    response path) when the probe can tell them apart; the observation itself is the
    round trip. ``client_side`` marks a failure that happened in the client library
    before anything was sent. ``effect`` says, for a call that timed out on a tool that
    may write, whether reading back once afterwards found the value: ``landed``,
    ``absent`` or ``unknown`` (empty when there was no such read). ``silent`` marks a
    ``rejected`` payload whose calls all answered without an error flag but did not do
    what was asked (an edit whose ``{mark}`` never reached the read-back, see
    ``expect``); ``error`` then quotes the tool's answer.
    """

    sent: str
    status: Status
    received: object = None
    comparison: Comparison | None = None
    error_type: str = ""
    error: str = ""
    wire: bytes | None = None
    hops: tuple[Hop, ...] = ()
    blame: str | None = None
    direction: Direction = Direction.ROUND_TRIP
    parts: tuple[Observation, ...] = ()
    client_side: bool = False
    payload_id: str = ""
    families: tuple[str, ...] = ()
    effect: str = ""
    silent: bool = False

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds of the comparison (empty unless ``transformed``)."""
        return self.comparison.kinds if self.comparison is not None else frozenset()
