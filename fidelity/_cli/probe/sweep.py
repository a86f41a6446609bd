"""One plan's payloads through one open probe, within its budget and its stop rules.

:func:`sweep` is the loop ``fidelity probe`` runs for a tool (and ``--all-tools`` for
each tool parameter): the survey, with every observation fed to the result writer (so
an interrupted run keeps what it saw), to the ``--max-requests`` budget and to the
:class:`Breaker`, which stops a run whose target never answered or stopped answering.

Timeouts follow the operation. A timeout means the effect on the far side is unknown.
For a run whose every tool is annotated ``readOnlyHint`` or ``idempotentHint`` true,
that is harmless: the timeout is recorded, the probe checks (bounded) that the session
still answers, and the run goes on; the payload is never sent again. For any other
tool the run stops at the first timeout, saying whether reading back once afterwards
found the write (``effect``: landed, absent or unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fidelity._cli.probe.budget import Budget, BudgetSpent
from fidelity._cli.probe.messages import one_line
from fidelity._cli.probe.plan import ProbePlan
from fidelity._cli.probe.verdict import UNPARSABLE
from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation
from probes._mcp.reply_limit import ReplyTooLarge

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._survey.result import Survey

__all__ = ["Breaker", "Stopped", "Swept", "stop_note", "sweep"]

_FAILED = (Status.BROKEN, Status.TIMEOUT)
_CONSECUTIVE = 3
#: A tool that tolerates timeouts still stops the run after this many in a row: each
#: costs the whole timeout, and a tool that answers none would take the run with it.
_TIMEOUTS_IN_A_ROW = 5
_EFFECTS = {
    "landed": "reading back once found the value: the write landed",
    "absent": "reading back once did not find the value: the write had not landed",
    "unknown": "reading back once could not tell whether the write landed",
}


class Stopped(TargetError):
    """The circuit breaker stopped the run: the target stopped answering."""


class Breaker:
    """Stop a run whose target never answered, or stopped answering.

    A failure is a ``broken`` or ``timeout`` observation that is not the client's own
    fault. Before any success, one failure stops the run; after a success, three in a
    row do. A reply the client library could not parse is an answer (the verdict at
    the end judges those). A timeout follows the operation (see the module): with a
    ``probe`` that tolerates timeouts (every tool read-only or idempotent) and still
    answers, the run goes on (until five timeouts in a row); with one that does not,
    the run stops at once.
    """

    def __init__(self, timeout: float, probe: Probe | None = None) -> None:
        self.timeout = timeout
        self.answered = False
        self.streak = 0
        self.probe = probe
        self.timeouts = 0

    def __call__(self, observation: Observation) -> None:
        if observation.status is not Status.TIMEOUT:
            self.timeouts = 0
        if observation.error_type == UNPARSABLE and not observation.client_side:
            self.answered = True
            self.streak = 0
            return
        timed_out = observation.status is Status.TIMEOUT and not observation.client_side
        if timed_out and self._goes_on(observation):
            return
        if observation.status not in _FAILED or observation.client_side:
            self.answered = True
            self.streak = 0
            return
        self.streak += 1
        if not self.answered or self.streak >= _CONSECUTIVE:
            reason = one_line(safe(observation.error or observation.error_type or "no detail"))
            reason = reason.rstrip(". ")
            if observation.status is Status.TIMEOUT:
                what = f"did not answer within {self.timeout:g}s"
            else:
                what = f"failed ({reason})"
            if not self.answered:
                raise Stopped(f"the target {what}; nothing more was sent.")
            if observation.error_type == ReplyTooLarge.__name__:
                # The target answered: its answers were larger than the run reads.
                raise Stopped(
                    f"{self.streak} replies in a row were larger than --max-reply "
                    f"({reason}); nothing more was sent."
                )
            raise Stopped(
                f"the target stopped answering: {self.streak} payloads in a row {what}; "
                "nothing more was sent."
            )

    def _goes_on(self, observation: Observation) -> bool:
        """Apply the tool's timeout rule: True when the run goes on, False when the
        streak rules decide; a tool that may write stops the run (``Stopped``)."""
        tolerates = self.probe.tolerates_timeouts if self.probe is not None else None
        if tolerates is None:
            return False  # not an MCP tool probe: the streak rules as ever
        if not tolerates:
            effect = _EFFECTS.get(observation.effect, "its effect on the server is unknown")
            from probes._mcp.probe import McpProbe

            tool = safe(self.probe.tool) if isinstance(self.probe, McpProbe) else "?"
            raise Stopped(
                f"payload {safe(observation.payload_id)} got no answer within "
                f"{self.timeout:g}s; {effect}; tool {tool!r} is not annotated readOnlyHint or "
                "idempotentHint true, so the run stops here: nothing more was sent."
            )
        if self.probe is not None and self.probe.connected:
            # Read-only or idempotent, and the session answered its health check: the
            # timeout is recorded (never resent) and the run goes on.
            self.timeouts += 1
            if self.timeouts >= _TIMEOUTS_IN_A_ROW:
                raise Stopped(
                    f"the tool answered none of {self.timeouts} payloads in a row within "
                    f"{self.timeout:g}s (each timeout was recorded and the payload not sent "
                    "again, as the tool is read-only or idempotent); nothing more was sent."
                )
            self.answered = True
            self.streak = 0
            return True
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class Swept:
    """How a sweep ended: ``result`` when the survey finished, ``None`` when the budget
    or the breaker (``stopped``, its sentence) cut it short; ``answered`` whether the
    target ever answered."""

    result: Survey | None
    stopped: str = ""
    answered: bool = True


def sweep(
    plan: ProbePlan,
    probe: Probe,
    target: Probe,
    *,
    todo: Sequence[Payload],
    examples: int,
    name: str,
    writer: Any,
    calibrated: bool,
    seen: list[Observation],
    breaker: Breaker | None = None,
    budget: Budget | None = None,
) -> Swept:
    """Survey ``todo`` (and ``examples``) through ``target`` (``probe``, maybe rate
    limited); every observation goes into ``seen`` as it arrives.

    ``breaker`` and ``budget`` default to the run's own (``--timeout``,
    ``--max-requests``); a caller that shares them out (one plan through several
    clients) passes its own.
    """
    from fidelity._survey.run import survey

    if breaker is None:
        breaker = Breaker(plan.timeout, probe if plan.is_mcp else None)
    # A calibration call that came back shows the target answers.
    breaker.answered = calibrated
    if budget is None:
        budget = Budget(plan.max_requests, probe, plan.concurrency)

    def observed(observation: Observation) -> None:
        seen.append(observation)
        if writer is not None:
            writer.add(observation)
        breaker(observation)
        budget(observation)

    try:
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
        return Swept(result=None)
    except Stopped as exc:
        return Swept(result=None, stopped=str(exc), answered=breaker.answered)
    return Swept(result=result)


def stop_note(seen: Sequence[Observation]) -> str:
    """The summary's note on a run the breaker stopped: after a timed-out write, what
    reading back once found."""
    last = seen[-1] if seen else None
    if last is not None and last.status is Status.TIMEOUT and last.effect:
        return f"incomplete: stopped at a timeout (the write's effect: {last.effect})"
    return "incomplete"
