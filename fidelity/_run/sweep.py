"""One target's payloads through one open probe, within its budget and its stop rules.

:func:`sweep` is the loop every form of a run goes through for each of its targets
(one tool; each tool parameter of ``--all-tools``; each client of ``--clients``; a
later form's operations or servers alike): the survey, paced by ``--rate``, with
every observation told to the run's handlers as an :class:`ObservationMade` event (so
an interrupted run keeps what it saw), to the ``--max-requests`` budget and to the
:class:`~fidelity._run.breaker.Breaker`, which stops a run whose target never
answered or stopped answering (timeouts follow the operation: see the breaker).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._core.secrets import known
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation
from fidelity._run.breaker import Breaker, Stopped
from fidelity._run.budget import Budget, BudgetSpent, calls_per_payload
from fidelity._run.events import Handler, ObservationMade, ParameterDone
from fidelity._run.masking import Masked
from fidelity._run.options import RunOptions
from fidelity._run.pacing import RateLimited

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._survey.result import Survey

__all__ = ["Swept", "sweep"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Swept:
    """How a sweep ended: ``result`` when the survey finished, ``None`` when the budget
    or the breaker (``stopped``, its sentence) cut it short; ``answered`` whether the
    target ever answered."""

    result: Survey | None
    stopped: str = ""
    answered: bool = True


def sweep(
    plan: RunOptions,
    probe: Probe,
    *,
    todo: Sequence[Payload],
    examples: int,
    name: str,
    calibrated: bool,
    seen: list[Observation],
    on_event: Handler | None = None,
    just_called: bool | None = None,
    breaker: Breaker | None = None,
    budget: Budget | None = None,
    drawn: Sequence[Payload] | None = None,
) -> Swept:
    """Survey ``todo`` (and ``examples``) through ``probe``, paced by ``plan.rate`` (an
    MCP target; an HTTP probe paces itself); every observation goes into ``seen`` and
    to ``on_event`` as it arrives.

    ``calibrated``: a calibration call came back (the target answers). ``just_called``:
    calls were made just before (default: ``calibrated``), so the pace starts now.
    ``breaker`` and ``budget`` default to the run's own (``--timeout``,
    ``--max-requests``); a caller that shares them out (one plan through several
    clients) passes its own. ``drawn``: the generated examples, when the caller drew
    them already (to count them), so they are not drawn twice.
    """
    from fidelity._survey.run import survey, survey_drawn

    if breaker is None:
        breaker = Breaker(plan.timeout, probe if plan.is_mcp else None)
    # A calibration call that came back shows the target answers.
    breaker.answered = calibrated
    if budget is None:
        budget = Budget(plan.max_requests, probe, plan.concurrency)
    target: Probe = probe
    if known():  # a server that echoes a credential: masked before anything sees it
        target = Masked(probe)
    if plan.rate is not None and plan.is_mcp:
        paced_from = calibrated if just_called is None else just_called
        per_payload = calls_per_payload(plan, probe)
        target = RateLimited(target, plan.rate, per_payload, just_called=paced_from)

    def observed(observation: Observation) -> None:
        seen.append(observation)
        if on_event is not None:
            on_event(ObservationMade(target=name, observation=observation))
        breaker(observation)
        budget(observation)

    def done(stopped: str = "") -> None:
        if on_event is not None:
            on_event(ParameterDone(target=name, observations=len(seen), stopped=stopped))

    try:
        if drawn is not None:
            result = survey_drawn(
                target,
                todo,
                drawn,
                allow=tuple(plan.allow),
                seed=plan.seed,
                families=plan.families,
                name=name,
                progress=not plan.quiet,
                on_observation=observed,
            )
        else:
            result = survey(
                target,
                payloads=todo,
                examples=examples,
                allow=plan.allow,
                seed=plan.seed,
                families=plan.families,
                name=name,
                progress=not plan.quiet,
                on_observation=observed,
            )
    except BudgetSpent:
        done()
        return Swept(result=None)
    except Stopped as exc:
        done(str(exc))
        return Swept(result=None, stopped=str(exc), answered=breaker.answered)
    done()
    return Swept(result=result)
