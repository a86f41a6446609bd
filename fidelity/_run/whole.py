"""A whole survey of one target as a run, told as events: the form of the pytest fixture.

The fixture's ``fidelity.survey(target)`` has no ``--max-requests``, ``--rate`` or
breaker: every payload is sent, and a chain that breaks on some is a result, not a
target to stop. :func:`run_survey` (and :func:`run_clients`, one plan through several
MCP clients) runs it as the command line's forms run theirs: :class:`RunStarted`,
each observation as an :class:`ObservationMade`, the target's
:class:`ParameterDone`, then :class:`RunDone` with the run's card, which its
handlers record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from fidelity._run.events import Handler, ObservationMade, ParameterDone, RunDone, RunStarted

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.contract import Probe
    from fidelity._probe.observation import Observation
    from fidelity._survey.clients import ClientSurvey
    from fidelity._survey.result import Survey

__all__ = ["run_clients", "run_survey"]


def _observed(name: str, on_event: Handler, seen: list[int]) -> Callable[[Observation], None]:
    def observed(observation: Observation) -> None:
        seen[0] += 1
        on_event(ObservationMade(target=name, observation=observation))

    return observed


def run_survey(
    probe: Probe,
    *,
    payloads: Iterable[Payload] | None,
    examples: int,
    allow: Iterable[str],
    seed: int | None,
    families: Sequence[str] | None,
    name: str,
    on_event: Handler,
) -> Survey:
    """Survey ``probe`` (the catalogue of ``families``, or ``payloads``, and
    ``examples`` generated ones) and tell ``on_event`` of it; :class:`RunDone` carries
    the card (named ``name``, with the probe's setup) and the survey as its outcome."""
    from fidelity._survey.run import survey

    on_event(RunStarted(name=name, targets=(name,)))
    seen = [0]
    try:
        result = survey(
            probe,
            payloads=payloads,
            examples=examples,
            allow=allow,
            seed=seed,
            families=families,
            name=name,
            on_observation=_observed(name, on_event, seen),
        )
    except BaseException:
        on_event(RunDone(complete=False, failed=True))
        raise
    on_event(ParameterDone(target=name, observations=seen[0]))
    card = result.card(name=name).with_setup(probe.setup)  # the plan it was made with
    on_event(RunDone(complete=True, cards=(card,), outcome=result))
    return result


def run_clients(
    clients: Sequence[str],
    open_probe: Callable[[str, Probe | None], Probe],
    *,
    payloads: Iterable[Payload] | None,
    examples: int,
    allow: Iterable[str],
    seed: int | None,
    families: Sequence[str] | None,
    name: str,
    on_event: Handler,
) -> ClientSurvey:
    """The same plan through each of ``clients`` in turn (see
    :func:`~fidelity._survey.clients.survey_clients`), told to ``on_event``;
    :class:`RunDone` carries the first client's card with the clients section, and
    the surveys as its outcome."""
    from fidelity._survey.clients import survey_clients

    on_event(RunStarted(name=name, targets=tuple(clients)))
    try:
        result = survey_clients(
            clients,
            open_probe,
            payloads=payloads,
            examples=examples,
            allow=allow,
            seed=seed,
            families=families,
            name=name,
        )
    except BaseException:
        on_event(RunDone(complete=False, failed=True))
        raise
    on_event(RunDone(complete=True, cards=(result.card(name=name),), outcome=result))
    return result
