"""The records of a run over many rows: a :class:`Row` (a tool parameter of
``--all-tools``, a field of an ``--openapi`` operation), the :class:`Rows` found, and
how each row's run ended (:class:`ParamRun`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fidelity._probe.observation import Observation
    from fidelity._report.card import Card
    from fidelity._report.outcomes import FamilyOutcome

__all__ = ["Interrupted", "ParamRun", "Row", "Rows"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class Row(Protocol):
    """One row of a survey: a tool parameter, or a field of an HTTP operation."""

    @property
    def name(self) -> str: ...
    @property
    def tool(self) -> _Named: ...
    @property
    def path(self) -> object: ...
    @property
    def skipped(self) -> str: ...


class Rows(Protocol):
    """The rows found: surveyed or skipped, and the tools (operations) without one."""

    @property
    def params(self) -> Sequence[Row]: ...
    @property
    def surveyed(self) -> Sequence[Row]: ...
    @property
    def skipped(self) -> Sequence[Row]: ...
    @property
    def without_strings(self) -> Sequence[_Named]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamRun:
    """How one tool parameter's run ended.

    ``card`` and ``outcomes`` when it was surveyed; ``skipped`` says why it was not
    (no read-back, arguments that could not be made); ``failure`` is the sentence of a
    run that broke (stopped, a protocol failure: exit 3); ``nothing`` that of one that
    measured nothing (every payload rejected or lost: a warning, since tools of one
    server often refuse what another left behind); ``fatal`` when the server itself
    could not be reached, which ends the whole run.
    """

    param: Row
    card: Card | None = None
    outcomes: tuple[FamilyOutcome, ...] = ()
    observations: tuple[Observation, ...] = ()
    unexpected: frozenset[str] = frozenset()
    skipped: str = ""
    failure: str = ""
    nothing: str = ""
    note: str = ""
    paired: str = ""
    planned: int = 0
    requests: int = 0
    fatal: bool = False


class Interrupted(Exception):
    """A parameter's run was interrupted (``signal``: Ctrl-C, or the signal that ended
    the command, raised again once what it saw is kept)."""

    def __init__(self, run: ParamRun, signal: KeyboardInterrupt) -> None:
        super().__init__("interrupted")
        self.run = run
        self.signal = signal
