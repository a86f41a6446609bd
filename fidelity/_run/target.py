"""One target of a run, from its open probe to the payloads it will be sent.

:func:`prepare` is what every form does between opening a target and sweeping it:
the budget checked before anything is sent (what the calibration and the first
payloads cost with this target), the read-back located by calibration calls when it
was not given (told as a :class:`~fidelity._run.events.Calibrated` event; a
calibration that failed after sending requests is a :class:`CalibrationFailure`, a
result with no observations), then the payloads and
generated examples that fit ``--max-requests``, the examples drawn once. A new input
(an OpenAPI operation, one server of a client config) is one more target prepared
and swept the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.payload import Payload
from fidelity._probe.contract import Probe
from fidelity._run.budget import calls_per_payload, check_start, generated, within_budget
from fidelity._run.events import Calibrated, Handler
from fidelity._run.messages import as_options, one_line
from fidelity._run.options import RunOptions
from fidelity._run.pacing import calibration_pace

__all__ = ["CalibrationFailure", "Prepared", "prepare"]


class CalibrationFailure(TargetError):
    """The calibration sent requests and did not locate the read-back: a result, not a
    usage error. The front end writes its outputs with no observations and this
    sentence as their warning, and the run exits 3 (the target failed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A target ready to sweep: ``read`` as given or located (``located``: by the
    calibration call); the payloads ``todo`` and ``examples`` that fit the budget, and
    the generated examples ``drawn`` (at most ``examples``: the families may hold fewer)."""

    read: str | None
    located: bool
    todo: tuple[Payload, ...]
    examples: int
    drawn: tuple[Payload, ...]


def prepare(
    options: RunOptions,
    probe: Probe,
    payloads: Sequence[Payload],
    *,
    target: str = "",
    shares: int = 1,
    on_event: Handler | None = None,
) -> Prepared:
    """Check the budget, calibrate ``probe`` when it must, and choose what it is sent.

    ``shares``: the runs the budget is shared by (one per client of ``--clients``).
    The probe's errors become one line in the options' words (``UsageError`` when the
    options are wrong, ``TargetError`` when the target is).
    """
    per_payload = calls_per_payload(options, probe) * shares
    located = probe.needs_calibration
    check_start(options, probe, per_payload, shares=shares)
    read = options.read
    if located:
        try:
            read = probe.calibrate(pace=calibration_pace(options, probe))
        except UsageError as exc:
            sentence = one_line(as_options(str(exc)))
            if probe.requests:
                raise CalibrationFailure(sentence) from None
            raise UsageError(sentence) from None  # nothing was sent: the options are at fault
        except TargetError as exc:
            if probe.requests:
                raise CalibrationFailure(one_line(str(exc))) from None
            raise TargetError(one_line(str(exc))) from None
        if on_event is not None:
            on_event(Calibrated(target=target, read=read))
    todo, examples = within_budget(options, payloads, per_payload, probe, spent=probe.requests or 0)
    return Prepared(
        read=read,
        located=located,
        todo=todo,
        examples=examples,
        drawn=generated(options, todo, examples),
    )
