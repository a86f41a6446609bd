"""The rows of a survey over many targets, and the one loop that runs them.

A row is one tool parameter of ``--all-tools`` or one field of an ``--openapi``
operation: each is opened, calibrated and swept on its own (:func:`run_param`), within
its share of ``--max-requests``, and ends as a
:class:`~fidelity._sweep.rows_model.ParamRun`. :func:`run_rows` is
the loop both forms go through: the shares, the JSON result kept current after each
row, a server that could not be reached ending the run, an interrupted run keeping
what it saw; then the outputs and the verdict (:mod:`~fidelity._sweep.rows_outputs`,
:mod:`~fidelity._sweep.rows_verdict`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import TargetError, UsageError
from fidelity._run.breaker import stop_note
from fidelity._run.budget import calls_per_payload, within_budget
from fidelity._run.events import Dispatch, RunDone, RunStarted, TargetDone
from fidelity._run.messages import one_line
from fidelity._run.pacing import calibration_pace
from fidelity._run.sweep import sweep
from fidelity._run.verdict import Verdict, broke, judge
from fidelity._sweep.execute import card_name, run_card, run_warnings, survey_of
from fidelity._sweep.rows_model import Interrupted, ParamRun, Row, Rows
from fidelity._sweep.rows_outputs import rows_writers
from fidelity._sweep.rows_verdict import exit_code

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.contract import Probe
    from fidelity._probe.observation import Observation
    from fidelity._run.events import Handler
    from fidelity._sweep.plan import ProbePlan

__all__ = ["Listen", "SurveyOne", "run_param", "run_rows"]


def run_param(
    sub: ProbePlan, param: Row, probe: Probe, payloads: Sequence[Payload], *, name: str = ""
) -> ParamRun:
    """One row's run on its open probe: the calibration call, the payloads within the
    plan's budget, the verdict (``name`` the card's, else the single form's)."""
    from probes.frontend import CalibrationFailed

    per_payload = calls_per_payload(sub, probe)
    try:
        if probe.needs_calibration:
            probe.calibrate(pace=calibration_pace(sub, probe))
    except CalibrationFailed as exc:
        return ParamRun(
            param=param, skipped=f"no read-back: {exc.answer}", requests=probe.requests or 0
        )
    except UsageError as exc:
        return ParamRun(
            param=param, skipped=f"no read-back: {one_line(str(exc))}", requests=probe.requests or 0
        )
    except TargetError as exc:
        reason = one_line(str(exc)).rstrip(".")
        return ParamRun(
            param=param,
            skipped=f"not surveyed: {reason}",
            failure=f"{param.name}: {reason}",
            requests=probe.requests or 0,
        )
    spent = probe.requests or 0
    try:
        todo, examples = within_budget(sub, payloads, per_payload, probe, spent=spent)
    except UsageError:
        # The row's share, not the user's --max-requests: the run goes on without it (the
        # attempts are sized to their shares first; this keeps the results if one is not).
        return ParamRun(
            param=param, skipped=_over_share(sub.max_requests, spent, per_payload), requests=spent
        )
    name = name or card_name(sub, probe)
    seen: list[Observation] = []
    try:
        # The calibration call, or the parameter before, has just called the server.
        swept = sweep(
            sub, probe, todo=todo, examples=examples, name=name, calibrated=True, seen=seen
        )
    except KeyboardInterrupt as signal:
        cut = survey_of(sub, probe.name, seen, examples, name=name, target=probe.environment)
        card = run_card(cut, probe.setup, complete=False)
        run = ParamRun(param=param, card=card, outcomes=cut.outcomes, observations=cut.observations)
        raise Interrupted(run, signal) from None
    result = swept.result or survey_of(
        sub, probe.name, seen, examples, name=name, target=probe.environment
    )
    # The verdict, once (a run the breaker stopped is not judged: it did not finish).
    verdict = None if swept.stopped else judge(result.observations, read=None, read_found=True)
    warnings = run_warnings(probe, verdict)
    failure = _failure(param, swept.stopped, result.observations, verdict)
    nothing = verdict.failure if verdict is not None and not verdict.protocol else ""
    if nothing and not failure:
        # Kept with the parameter's card, as printed: a reader of the JSON sees it too.
        warnings = (*warnings, nothing)
    card = run_card(result, probe.setup, complete=not swept.stopped).with_warnings(warnings)
    return ParamRun(
        param=param,
        card=card,
        outcomes=result.outcomes,
        observations=result.observations,
        unexpected=result.unexpected,
        failure=failure,
        nothing=nothing,
        note=stop_note(seen) if swept.stopped else "",
        planned=len(payloads) + sub.examples,
        requests=probe.requests or 0,
    )


def _over_share(share: int | None, spent: int, per_payload: int) -> str:
    """Why a row whose share of ``--max-requests`` cannot pay for one payload was not
    measured (``spent`` of it went to the calibration calls)."""
    calibrating = f"; {spent} spent locating the read-back" if spent else ""
    return (
        f"not surveyed: its share of --max-requests ({share} calls{calibrating}) leaves "
        f"too few for one payload ({per_payload} calls); raise --max-requests"
    )


def _failure(
    param: Row, stopped: str, observations: Sequence[Observation], verdict: Verdict | None
) -> str:
    """The sentence of a parameter whose run failed (as the single-tool form's exit 3)."""
    if stopped:
        return f"{param.name}: {stopped}"
    broken = broke(observations)
    if broken:
        return f"{param.name}: {broken}."
    return f"{param.name}: {verdict.failure}" if verdict is not None and verdict.protocol else ""


#: Runs one row within its share of ``--max-requests`` (``None``: no limit).
SurveyOne = Callable[[Row, "int | None"], ParamRun]
#: Who hears a run over many rows, given the rows found, the payloads and the noun of a
#: row: the terminal ``fidelity probe`` subscribes (the lines of
#: :class:`~fidelity._sweep.rows_verdict.RowsPrinter`), the record :func:`fidelity.sweep`
#: returns; nobody when none is given. They are told after the writers.
Listen = Callable[[Rows, "Sequence[Payload]", str], "Sequence[Handler]"]


def run_rows(
    plan: ProbePlan,
    inv: Rows,
    survey_one: SurveyOne,
    payloads: Sequence[Payload],
    *,
    noun: str,
    listen: Listen | None = None,
) -> int:
    """Run every row ``inv`` surveys through ``survey_one``, each within its share of
    what is left of ``--max-requests``; keep the JSON result current after each; stop
    at a row whose server could not be reached. Then write every output and return
    the exit code by the run's verdict rules (``noun`` names a row in the sentences).
    An interrupted run writes what it saw, marked incomplete, and is raised again."""
    surveyed = inv.surveyed
    writers = rows_writers(plan, inv, noun)
    reporters = () if listen is None else listen(inv, payloads, noun)
    dispatch = Dispatch(writers, reporters=reporters)
    dispatch(RunStarted(name=plan.name, targets=tuple(row.name for row in surveyed)))
    runs: list[ParamRun] = []
    spent = 0
    try:
        for i, row in enumerate(surveyed):
            share = None
            if plan.max_requests is not None:
                # What is left, spread over the rows still to come.
                share = (plan.max_requests - spent) // (len(surveyed) - i)
            run = survey_one(row, share)
            spent += run.requests
            runs.append(run)
            dispatch(TargetDone(target=row.name, outcome=run))
            if run.fatal:
                break
    except Interrupted as cut:
        runs.append(cut.run)
        dispatch(_done(runs, complete=False, interrupted=True))
        raise cut.signal from None
    except KeyboardInterrupt:
        dispatch(_done(runs, complete=False, interrupted=True))
        raise
    dispatch(_done(runs, complete=not any(r.fatal for r in runs)))
    return exit_code(inv, runs, noun)


def _done(runs: Sequence[ParamRun], *, complete: bool, interrupted: bool = False) -> RunDone:
    cards = tuple(r.card for r in runs if r.card is not None)
    return RunDone(complete=complete, interrupted=interrupted, cards=cards, outcome=tuple(runs))
