"""The circuit breaker: when a run stops because its target stopped answering.

Timeouts follow the operation. A timeout means the effect on the far side is unknown.
For a run whose every tool is annotated ``readOnlyHint`` or ``idempotentHint`` true,
that is harmless: the timeout is recorded, the probe checks (bounded) that the session
still answers, and the run goes on; the payload is never sent again. For any other
tool the run stops at the first timeout, saying whether reading back once afterwards
found the write (``effect``: landed, absent or unknown).

Every form of a run (one tool, every tool's parameters, several clients) goes
through this one breaker, so a rule holds in all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation
from fidelity._run.messages import one_line
from fidelity._run.verdict import REPLY_TOO_LARGE, UNPARSABLE

__all__ = ["Breaker", "Stopped", "stop_note"]

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
    the run stops at once, in every form of the run.

    ``answering`` (a run through one of several clients): a payload that failed while
    the server went on answering (its health check passed: ``probe.answers`` went up)
    is that payload's outcome, not a target that stopped answering: through another
    client the same payload may be sent in a form a server silently drops (a lone
    surrogate's escape), payload after payload. A timeout on a tool that may write
    still stops the run first.
    """

    def __init__(
        self, timeout: float, probe: Probe | None = None, *, answering: bool = False
    ) -> None:
        self.timeout = timeout
        self.answered = False
        self.streak = 0
        self.probe = probe
        self.timeouts = 0
        self.answering = answering and probe is not None
        self._answers = (probe.answers or 0) if probe is not None else 0

    def __call__(self, observation: Observation) -> None:
        if observation.status is not Status.TIMEOUT:
            self.timeouts = 0
        server_answered = self._server_answered()
        if observation.error_type == UNPARSABLE and not observation.client_side:
            self._went_on()
            return
        timed_out = observation.status is Status.TIMEOUT and not observation.client_side
        if timed_out and self._goes_on(observation, server_answered=server_answered):
            return
        if observation.status not in _FAILED or observation.client_side or server_answered:
            self._went_on()
            return
        self.streak += 1
        if not self.answered or self.streak >= _CONSECUTIVE:
            raise Stopped(self._sentence(observation))

    def _went_on(self) -> None:
        self.answered = True
        self.streak = 0

    def _server_answered(self) -> bool:
        """With ``answering``: whether the server answered anything since the last
        observation (its count of answers went up)."""
        if not self.answering or self.probe is None:
            return False
        answers = self.probe.answers or 0
        went_up, self._answers = answers > self._answers, answers
        return went_up

    def _sentence(self, observation: Observation) -> str:
        reason = one_line(safe(observation.error or observation.error_type or "no detail"))
        reason = reason.rstrip(". ")
        if observation.status is Status.TIMEOUT:
            what = f"did not answer within {self.timeout:g}s"
        else:
            what = f"failed ({reason})"
        if not self.answered:
            return f"the target {what}; nothing more was sent."
        if observation.error_type == REPLY_TOO_LARGE:
            # The target answered: its answers were larger than the run reads.
            return (
                f"{self.streak} replies in a row were larger than --max-reply "
                f"({reason}); nothing more was sent."
            )
        return (
            f"the target stopped answering: {self.streak} payloads in a row {what}; "
            "nothing more was sent."
        )

    def _goes_on(self, observation: Observation, *, server_answered: bool) -> bool:
        """Apply the tool's timeout rule: True when the run goes on, False when the
        streak rules decide; a tool that may write stops the run (``Stopped``)."""
        tolerates = self.probe.tolerates_timeouts if self.probe is not None else None
        if tolerates is None or self.probe is None:
            return False  # not an MCP tool probe: the streak rules as ever
        if not tolerates:
            effect = _EFFECTS.get(observation.effect, "its effect on the server is unknown")
            raise Stopped(
                f"payload {safe(observation.payload_id)} got no answer within "
                f"{self.timeout:g}s; {effect}; tool {safe(self.probe.operation)!r} is not "
                "annotated readOnlyHint or idempotentHint true, so the run stops here: "
                "nothing more was sent."
            )
        if server_answered:
            return True  # (see the class) the payload's outcome, not the server's
        if self.probe.connected:
            # Read-only or idempotent, and the session answered its health check: the
            # timeout is recorded (never resent) and the run goes on.
            self.timeouts += 1
            if self.timeouts >= _TIMEOUTS_IN_A_ROW:
                raise Stopped(
                    f"the tool answered none of {self.timeouts} payloads in a row within "
                    f"{self.timeout:g}s (each timeout was recorded and the payload not sent "
                    "again, as the tool is read-only or idempotent); nothing more was sent."
                )
            self._went_on()
            return True
        return False


def stop_note(seen: Sequence[Observation]) -> str:
    """The summary's note on a run the breaker stopped: after a timed-out write, what
    reading back once found."""
    last = seen[-1] if seen else None
    if last is not None and last.status is Status.TIMEOUT and last.effect:
        return f"incomplete: stopped at a timeout (the write's effect: {last.effect})"
    return "incomplete"
