"""Running ``fidelity probe``: build the inputs, run, dispatch.

The target is opened and prepared (:func:`fidelity._run.target.prepare`), swept
(:func:`fidelity._run.sweep.sweep`), and every event of the run goes to one
:class:`~fidelity._run.events.Dispatch`: the JSON result kept current with each
observation (so an interrupted run keeps what it saw), then at
:class:`~fidelity._run.events.RunDone` the HTML page, the card block, the JUnit cases
(:mod:`~fidelity._sweep.outputs`), then the caller's reporters (the CLI's terminal
map; the outcome they are shown is a :class:`~fidelity._sweep.terminal.Shown`). The
run's circuit breaker stops a target that never answered after its first failure, one
that stops answering after three consecutive failures; either way the observations
made so far are written, marked incomplete, and the command exits 3 with one sentence.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from typing import TYPE_CHECKING, Any, NoReturn

from fidelity._core.errors import ExitCode, TargetError, UsageError
from fidelity._core.render import safe
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation
from fidelity._report.card_render import card_json
from fidelity._run.breaker import stop_note
from fidelity._run.budget import examples_note
from fidelity._run.events import Dispatch, RunDone, RunStarted
from fidelity._run.messages import as_options, one_line
from fidelity._run.sweep import sweep
from fidelity._run.target import CalibrationFailure, Prepared, prepare
from fidelity._run.verdict import Verdict, broke, judge, not_applied
from fidelity._sweep.arguments import plain_arguments
from fidelity._sweep.outputs import refuse_other_target
from fidelity._sweep.plan import ProbePlan, TargetKind
from fidelity._sweep.request_options import mcp_headers, request_options
from fidelity._sweep.terminal import Shown

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.card import Card
    from fidelity._run.events import Handler
    from fidelity._survey.result import Survey

__all__ = [
    "announce",
    "calibration_failed",
    "card_name",
    "catalogue_payloads",
    "execute",
    "open_target",
    "resolve",
    "run_card",
    "survey_of",
    "with_seed",
]


def catalogue_payloads(plan: ProbePlan) -> tuple[Payload, ...]:
    from fidelity._core.siblings import load

    strategies = load("strategies")
    payloads: tuple[Payload, ...] = tuple(strategies.catalogue(plan.families))
    return payloads


def _open_probe(plan: ProbePlan, client: str | None = None) -> AbstractContextManager[Probe]:
    if plan.kind is TargetKind.HTTP:
        from fidelity._core.siblings import load

        http = load("probes").http  # ours, beside a local probes too

        kwargs: dict[str, Any] = {
            "timeout": plan.timeout,
            "concurrency": plan.concurrency,
            "read": plan.read,
            "read_url": plan.read_url,
            "id_from": plan.id_from,
            "max_body": plan.max_reply,
            **request_options(plan),
            "expect": plan.expect,
        }
        if plan.send is not None:
            kwargs["send"] = plan.send
        if plan.rate is not None:
            kwargs["rate"] = plan.rate
        assert isinstance(plan.target, str)
        opened: AbstractContextManager[Probe] = http(plan.target, **kwargs)
        return opened
    from fidelity._core.siblings import load

    mcp = load("probes").mcp  # ours, beside a local probes too

    target: list[str] | str = list(plan.target) if isinstance(plan.target, tuple) else plan.target
    from fidelity._sweep.isolation import spawn_options

    probe: AbstractContextManager[Probe] = mcp(
        target,
        tool=plan.tool,
        param=plan.param,
        args=plan.args,
        before=plan.before,
        read=plan.read,
        read_tool=plan.read_tool,
        read_args=plan.read_args,
        timeout=plan.timeout,
        allow_destructive=plan.yes,
        fill_args=plain_arguments,
        client=client,
        max_reply=plan.max_reply,
        **spawn_options(plan.sandbox, plan.env),
        headers=mcp_headers(plan),
        transport=plan.transport,
        expect=plan.expect,
        prompt=plan.prompt,
        resource=plan.resource,
    )
    return probe


def open_target(
    plan: ProbePlan, client: str | None = None
) -> tuple[AbstractContextManager[Probe], Probe]:
    """Build and open the probe (MCP: through ``client``); its errors become one line in
    the options' words."""
    from fidelity._core.siblings import load

    DestructiveToolRefused = load("probes").DestructiveToolRefused  # ours, beside a local one

    try:
        manager = _open_probe(plan, client)
        return manager, manager.__enter__()
    except DestructiveToolRefused as exc:
        raise UsageError(exc.advice("--yes")) from None
    except UsageError as exc:
        raise UsageError(one_line(as_options(str(exc)))) from None
    except TargetError as exc:
        raise TargetError(one_line(str(exc))) from None


def resolve(plan: ProbePlan, probe: Probe, ready: Prepared) -> ProbePlan:
    """The plan with what the open probe resolved: the payload's argument (its name in
    the card) and the read-back, located by the calibration call when not given."""
    import dataclasses

    updates: dict[str, Any] = {}
    place = probe.payload_place
    if plan.is_mcp and plan.param is None and place is not None:
        updates["param"] = place.label
    if ready.located:
        updates["read"] = ready.read
    return dataclasses.replace(plan, **updates) if updates else plan


def announce(plan: ProbePlan, resolved: ProbePlan, probe: Probe) -> None:
    """Say in one line each what was found rather than given, so it can be pinned
    (``--quiet`` keeps the line that says where the value is read back)."""
    import shlex

    stream = sys.stderr if plan.json == "-" else sys.stdout
    place = probe.payload_place
    found = place is not None and place.found
    if plan.is_mcp and plan.param is None and found and not plan.quiet:
        stream.write(
            f"payload argument: {safe(resolved.param or '')} (the only free-form string "
            f"parameter of {safe(plan.tool)!r}; pin it with --param)\n"
        )
    if plan.read is None and probe.read_found:
        pinned = safe(shlex.quote(resolved.read or ""))
        stream.write(f"read back at: {pinned} (located by calibration calls; pin it with --read)\n")
    stream.flush()


def card_name(plan: ProbePlan, probe: Probe) -> str:
    """The card's name: the tool and the payload's place(s) for MCP (as a block name
    allows: ``edit_file.edits.0.oldText``), the send place for HTTP."""
    place = probe.payload_place
    if plan.is_mcp and place is not None and plan.given_name is None:
        return readable_name(f"{plan.tool}.{place.block_label}")
    return plan.name


#: The longest card name a card document takes (``fidelity card`` reads it back).
_NAME_CHARS = 1000


_BADGE = re.compile(r"\[U\+([0-9A-F]{4,6}) [^\]]*\]")
_NOT_IN_BLOCK = re.compile(r"[^A-Za-z0-9._\-:/@+]")


def readable_name(name: str) -> str:
    """``name`` as a card may be named: a tool name holding ESC, BEL or a bidi override
    is written with each such code point as ``U+XXXX`` (``ecU+001Bho``: printable, and
    in the characters a card block's marker allows), cut to 1000 characters, so that
    ``fidelity card`` and ``--card`` read back what ``--json`` wrote."""
    if name.startswith("resource:"):  # a URI template: its braces and operators left out
        name = _NOT_IN_BLOCK.sub("", name)
    shown = _BADGE.sub(r"U+\1", safe(name))
    if len(shown) <= _NAME_CHARS:
        return shown
    cut = shown[:_NAME_CHARS]
    while cut and safe(cut) != cut:  # a cut inside a grapheme (a ZWJ left at the end)
        cut = cut[:-1]
    return cut


# -- outputs ----------------------------------------------------------------------


def survey_of(
    plan: ProbePlan,
    probe_name: str,
    observations: Sequence[Observation],
    examples: int = 0,
    name: str | None = None,
    *,
    target: Mapping[str, str] | None = None,
) -> Survey:
    from fidelity._survey.result import Survey

    return Survey.of(
        observations,
        name=name or plan.name,
        chain=probe_name,
        allow=plan.allow,
        seed=plan.seed if examples else None,
        examples=examples,
        target=target,
    )


def run_card(survey: Survey, setup: Any, *, complete: bool) -> Card:
    card = survey.card().with_setup(setup)
    return card if complete else card.mark_incomplete()


# -- the command ------------------------------------------------------------------


def execute(plan: ProbePlan, reporters: Sequence[Handler] = ()) -> int:
    """Run ``fidelity probe`` as planned (one tool, one endpoint); return the exit code.
    ``reporters`` hear the run's events after the outputs (the CLI's terminal map).
    (``--list-tools`` and ``--dry-run`` send nothing: the CLI prints them.)"""
    payloads = catalogue_payloads(plan)
    plan = with_seed(plan)
    from fidelity._sweep.outputs import check_outputs

    check_outputs(plan)
    checked = None
    if plan.check is not None:
        from fidelity._sweep.check import read_document

        # Read once, before anything is sent: the block is looked up in these bytes
        # and the run's card checked against them.
        checked = read_document(plan.check)

    manager, probe = open_target(plan)
    try:
        return _probe(plan, probe, payloads, checked, reporters)
    finally:
        with suppress(Exception):
            manager.__exit__(None, None, None)


def with_seed(plan: ProbePlan) -> ProbePlan:
    """The plan with a seed drawn now when examples are generated without one.

    A seed fixed before the run is recorded in every result, an interrupted one too,
    so any run's generated payloads can be drawn again.
    """
    if not plan.examples or plan.seed is not None:
        return plan
    import dataclasses
    import random

    return dataclasses.replace(plan, seed=random.SystemRandom().randrange(2**32))


def _probe(
    plan: ProbePlan,
    probe: Probe,
    payloads: Sequence[Payload],
    checked: bytes | None,
    reporters: Sequence[Handler],
) -> int:
    plan = with_seed(plan)
    from fidelity._sweep.outputs import check_outputs

    # The card's block name is known once the probe is open, before any call is made.
    check_outputs(plan, card_name(plan, probe))
    if plan.kind is TargetKind.HTTP and probe.setup is not None:
        refuse_other_target(plan, card_name(plan, probe), probe.setup.target)
    try:
        ready = prepare(plan, probe, payloads, target=plan.name)
    except CalibrationFailure as exc:
        calibration_failed(plan, probe, str(exc))
    resolved = resolve(plan, probe, ready)
    announce(plan, resolved, probe)
    todo, examples = ready.todo, ready.examples
    drawn = len(ready.drawn)
    # Asked for: the catalogue and the examples, less those the families do not hold.
    planned = len(payloads) + plan.examples - (examples - drawn)
    name = card_name(resolved, probe)
    if plan.check is not None:
        from fidelity._sweep.check import require_block

        require_block(plan.check, name, checked)
    setup = probe.setup

    def partial(seen: Sequence[Observation]) -> Survey:
        return survey_of(plan, probe.name, seen, examples, name=name, target=probe.environment)

    dispatch = _handlers(
        plan, lambda seen: run_card(partial(seen), setup, complete=False), reporters
    )
    dispatch(RunStarted(name=name, targets=(name,)))
    seen: list[Observation] = []
    try:
        swept = sweep(
            plan,
            probe,
            todo=todo,
            examples=examples,
            name=name,
            calibrated=ready.located,
            seen=seen,
            on_event=dispatch,
            drawn=ready.drawn,
        )
    except KeyboardInterrupt:
        cut = run_card(partial(seen), setup, complete=False)
        with suppress(Exception):
            dispatch(RunDone(complete=False, interrupted=True, cards=(cut,)))
        raise
    except BaseException:
        with suppress(Exception):
            dispatch(RunDone(complete=False, failed=True))
        raise
    if swept.stopped:
        cut_survey = partial(seen)
        warnings = run_warnings(probe, None)
        card = run_card(cut_survey, setup, complete=False).with_warnings(warnings)
        # A target that never answered has no map to show.
        shown = Shown(survey=cut_survey, note=stop_note(seen), warnings=warnings)
        dispatch(RunDone(complete=False, cards=(card,), outcome=shown if swept.answered else None))
        raise TargetError(swept.stopped)
    result = swept.result or partial(seen)
    if plan.restart is not None or plan.read_after_restart:
        from probes.frontend import read_after_restart

        again = read_after_restart(probe, plan.restart, result.observations)
        result = survey_of(plan, probe.name, again, examples, name=name, target=probe.environment)
    # The verdict, once: its warnings go into the card, its failure into the exit.
    verdict = judge(result.observations, read=plan.read, read_found=probe.read_found)
    warnings = run_warnings(probe, verdict)
    card = run_card(result, setup, complete=True).with_warnings(warnings)
    notes = (
        examples_note(examples, drawn, plan.seed),
        _unsent(plan, planned, len(result.observations)),
        _restarted(plan, result.observations),
    )
    shown = Shown(survey=result, note="; ".join(n for n in notes if n), warnings=warnings)
    dispatch(RunDone(complete=True, cards=(card,), outcome=shown))
    return _exit_code(plan, result, verdict, card, checked)


def _restarted(plan: ProbePlan, observations: Sequence[Observation]) -> str:
    """The note of ``--restart``: how many values read back differently only then."""
    if plan.restart is None and not plan.read_after_restart:
        return ""
    changed = sum(1 for o in observations if o.blame == "the restart")
    lost = sum(1 for o in observations if o.error_type == "AfterRestart")
    return (
        f"read again after a restart: {changed} value{'s' if changed != 1 else ''} changed only "
        f"then, {lost} could no longer be read back"
    )


def _handlers(
    plan: ProbePlan,
    snapshot: Callable[[Sequence[Observation]], Card],
    reporters: Sequence[Handler] = (),
) -> Dispatch:
    """The outputs of a one-card run as handlers of its events: the JSON result (kept
    current with ``snapshot``, the card of the observations so far), the HTML page, the
    card block, the JUnit cases; then ``reporters`` (the CLI's terminal map)."""
    from fidelity._sweep.outputs import card_writers

    writer = None
    if plan.json is not None:
        from fidelity._report.results import ResultWriter

        writer = ResultWriter(plan.json, lambda seen: card_json(snapshot(seen)))
    return Dispatch(card_writers(plan, writer), reporters=tuple(reporters))


def _exit_code(
    plan: ProbePlan, result: Survey, verdict: Verdict, card: Card, checked: bytes | None
) -> int:
    """The exit of a one-tool run that finished, by the verdict rules (and ``--check``)."""
    broken = broke(result.observations)
    if broken:
        raise TargetError(f"{broken}; their statuses are in the results.")
    if verdict.failure:
        raise TargetError(verdict.failure)
    if plan.check is not None:
        from fidelity._sweep.check import check_card

        out = sys.stderr if plan.json == "-" else sys.stdout
        return check_card(plan.check, card, out, checked)
    found = result.unexpected or not_applied(result.observations)
    return ExitCode.DIFFERENT if found else ExitCode.OK


def calibration_failed(plan: ProbePlan, probe: Probe, sentence: str) -> NoReturn:
    """A calibration that failed after sending requests is a result: the outputs are
    written with no observations and the failure sentence as their warning, and the
    run ends as one the target failed (exit 3)."""
    empty = survey_of(plan, probe.name, [], plan.examples, name=card_name(plan, probe))
    card = run_card(empty, probe.setup, complete=False).with_warnings((sentence,))
    dispatch = _handlers(plan, lambda _seen: card)
    dispatch(RunStarted(name=card.name))
    dispatch(RunDone(complete=False, cards=(card,)))
    raise TargetError(sentence)


def run_warnings(probe: Probe, verdict: Verdict | None) -> tuple[str, ...]:
    """The warnings of a run: the verdict's (``None``: the run did not finish, so it
    was not judged) and a stdio server's stdout lines that are not its protocol."""
    warnings = list(verdict.warnings) if verdict is not None else []
    lines, first = probe.stdout_noise
    if lines:
        warnings.append(noise_warning(lines, first))
    cut = getattr(probe, "tools_cut", 0)
    if cut:
        from fidelity._sweep.listing import tools_cut_warning

        warnings.append(tools_cut_warning(cut))
    return tuple(warnings)


def noise_warning(lines: int, first: str) -> str:
    """The warning for ``lines`` stdout lines of a stdio server that are not JSON-RPC."""
    shown = one_line(safe(first), limit=120)
    return (
        f"the server wrote {lines} line{'s' if lines != 1 else ''} to stdout that "
        f"{'are' if lines != 1 else 'is'} not JSON-RPC (first: {shown!r}); this client "
        "skips them, stricter clients fail on them: a stdio server should log to stderr."
    )


def _unsent(plan: ProbePlan, planned: int, sent: int) -> str:
    """The summary's note on payloads that ``--max-requests`` kept from being sent."""
    if plan.max_requests is None or sent >= planned:
        return ""
    return f"{planned - sent} not sent within --max-requests {plan.max_requests}"
