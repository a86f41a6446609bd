"""Running ``fidelity probe``: open the target, survey it within budget, write the reports.

The survey's ``on_observation`` hook feeds the JSON result writer (so an interrupted
run keeps what it saw) and a circuit breaker: a target that never answered stops the
run after its first failure, one that stops answering after three consecutive
failures. Either way the observations made so far are written, marked incomplete,
and the command exits 3 with one sentence.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, suppress
from typing import TYPE_CHECKING, Any, NoReturn

from fidelity._cli.probe.arguments import plain_arguments
from fidelity._cli.probe.budget import (
    calls_per_payload,
    examples_note,
    generated,
    within_budget,
)
from fidelity._cli.probe.messages import as_options, one_line
from fidelity._cli.probe.outputs import write_reports
from fidelity._cli.probe.plan import ProbePlan, TargetKind
from fidelity._cli.probe.sweep import stop_note, sweep
from fidelity._cli.probe.verdict import broke, judge
from fidelity._core.errors import TargetError, UsageError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.card import Card
    from fidelity._survey.result import Survey

__all__ = [
    "RateLimited",
    "announce",
    "card_name",
    "catalogue_payloads",
    "execute",
    "open_target",
    "resolve",
    "run_card",
    "summary_line",
    "survey_of",
    "with_seed",
]

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE, EXIT_TARGET = 0, 1, 2, 3
_FAILED = (Status.BROKEN, Status.TIMEOUT)


class RateLimited(Probe):
    """Space the observations of ``inner`` so it sends at most ``rate`` calls a second.

    ``just_called``: calls were made around the limiter just before (the calibration
    call, another parameter's or client's run), so the first observation waits its
    interval too.
    """

    def __init__(
        self, inner: Probe, rate: float, calls_per_observation: int = 1, *, just_called: bool
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.interval = calls_per_observation / rate
        self._next = time.monotonic() + self.interval if just_called else 0.0

    def _wait(self) -> None:
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
        self._next = max(now, self._next) + self.interval

    def observe(self, text: str) -> Observation:
        self._wait()
        return self.inner.observe(text)

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        for text in texts:
            yield self.observe(text)

    @property
    def requests(self) -> int | None:
        return self.inner.requests

    @property
    def max_requests_per_observation(self) -> int:
        return self.inner.max_requests_per_observation

    @property
    def splits_directions(self) -> bool:
        return self.inner.splits_directions

    def close(self) -> None:
        self.inner.close()


def catalogue_payloads(plan: ProbePlan) -> tuple[Payload, ...]:
    from fidelity._core.siblings import load

    strategies = load("strategies")
    payloads: tuple[Payload, ...] = tuple(strategies.catalogue(plan.families))
    return payloads


def _open_probe(plan: ProbePlan, client: str | None = None) -> AbstractContextManager[Any]:
    if plan.kind is TargetKind.HTTP:
        from probes._http.probe import http

        kwargs: dict[str, Any] = {
            "timeout": plan.timeout,
            "concurrency": plan.concurrency,
            "read": plan.read,
            "read_url": plan.read_url,
            "id_from": plan.id_from,
            "max_body": plan.max_reply,
        }
        if plan.send is not None:
            kwargs["send"] = plan.send
        if plan.rate is not None:
            kwargs["rate"] = plan.rate
        assert isinstance(plan.target, str)
        return http(plan.target, **kwargs)
    from probes._mcp.probe import mcp

    target: list[str] | str = list(plan.target) if isinstance(plan.target, tuple) else plan.target
    return mcp(
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
    )


def open_target(
    plan: ProbePlan, client: str | None = None
) -> tuple[AbstractContextManager[Any], Any]:
    """Build and open the probe (MCP: through ``client``); its errors become one line in
    the options' words."""
    from probes._mcp.probe import DestructiveToolRefused

    try:
        manager = _open_probe(plan, client)
        return manager, manager.__enter__()
    except DestructiveToolRefused as exc:
        raise UsageError(exc.advice("--yes")) from None
    except UsageError as exc:
        raise UsageError(one_line(as_options(str(exc)))) from None
    except TargetError as exc:
        raise TargetError(one_line(str(exc))) from None


def resolve(plan: ProbePlan, probe: Any) -> ProbePlan:
    """The plan with what the open probe resolved: the payload's argument (its name in
    the card) and the read-back, located by a calibration call when not given."""
    import dataclasses

    updates: dict[str, Any] = {}
    if plan.is_mcp and plan.param is None:
        updates["param"] = probe.plan.label
    if probe.needs_calibration:
        try:
            updates["read"] = probe.calibrate()
        except UsageError as exc:
            raise UsageError(one_line(as_options(str(exc)))) from None
        except TargetError as exc:
            raise TargetError(one_line(str(exc))) from None
    return dataclasses.replace(plan, **updates) if updates else plan


def announce(plan: ProbePlan, resolved: ProbePlan, probe: Any) -> None:
    """Say in one line each what was found rather than given, so it can be pinned."""
    if plan.quiet:
        return
    import shlex

    stream = sys.stderr if plan.json == "-" else sys.stdout
    if plan.is_mcp and plan.param is None and probe.plan.param_found:
        stream.write(
            f"payload argument: {safe(resolved.param or '')} (the only free-form string "
            f"parameter of {safe(plan.tool)!r}; pin it with --param)\n"
        )
    if plan.read is None and probe.read_found:
        pinned = safe(shlex.quote(resolved.read or ""))
        stream.write(
            f"read back at: {pinned} (located by a calibration call; pin it with --read)\n"
        )
    stream.flush()


def card_name(plan: ProbePlan, probe: Any) -> str:
    """The card's name: the tool and the payload's place(s) for MCP (as a block name
    allows: ``edit_file.edits.0.oldText``), the send place for HTTP."""
    if plan.is_mcp:
        return readable_name(f"{plan.tool}.{probe.plan.block_label}")
    return plan.name


#: The longest card name a card document takes (``fidelity card`` reads it back).
_NAME_CHARS = 1000


_BADGE = re.compile(r"\[U\+([0-9A-F]{4,6}) [^\]]*\]")


def readable_name(name: str) -> str:
    """``name`` as a card may be named: a tool name holding ESC, BEL or a bidi override
    is written with each such code point as ``U+XXXX`` (``ecU+001Bho``: printable, and
    in the characters a card block's marker allows), cut to 1000 characters, so that
    ``fidelity card`` and ``--card`` read back what ``--json`` wrote."""
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
) -> Survey:
    from fidelity._survey.result import Survey

    return Survey.of(
        observations,
        name=name or plan.name,
        chain=probe_name,
        allow=plan.allow,
        seed=plan.seed if examples else None,
        examples=examples,
    )


def run_card(survey: Survey, setup: Any, *, complete: bool) -> Card:
    card = survey.card().with_setup(setup)
    return card if complete else card.mark_incomplete()


def summary_line(survey: Survey) -> str:
    counts = ", ".join(f"{n} {s.value}" for s, n in survey.statuses.items() if n)
    count = len(survey.observations)
    line = f"{count} payload{'' if count == 1 else 's'}: {counts or 'none'}"
    client = sum(1 for o in survey.observations if o.client_side)
    if client:
        line += f" ({client} failed in the client library before reaching the target)"
    return line


def _print_map(
    plan: ProbePlan, survey: Survey, note: str = "", warnings: Sequence[str] = ()
) -> None:
    from fidelity._report.terminal import render_map, use_color

    stream = sys.stderr if plan.json == "-" else sys.stdout
    if not plan.quiet:
        stream.write(render_map(survey.outcomes, color=use_color(stream)))
        stream.writelines(f"{hint.line()}\n" for hint in survey.hints())
    line = summary_line(survey)
    if survey.unexpected:
        line += f"; rewrites beyond --allow: {', '.join(sorted(survey.unexpected))}"
    if note:
        line += f"; {note}"
    stream.write(safe(line) + ".\n")
    for warning in warnings:
        stream.write(f"warning: {safe(warning)}\n")
    stream.flush()


# -- the command ------------------------------------------------------------------


def execute(plan: ProbePlan) -> int:
    """Run ``fidelity probe`` as planned; return the exit code."""
    if plan.list_tools:
        from fidelity._cli.probe.listing import list_tools

        return list_tools(plan)
    payloads = catalogue_payloads(plan)
    plan = with_seed(plan)
    if plan.dry_run:
        from fidelity._cli.probe.listing import dry_run

        return dry_run(plan, payloads)
    from fidelity._cli.probe.outputs import check_outputs

    check_outputs(plan)
    if plan.check is not None:
        from fidelity._cli.probe.check import read_document

        read_document(plan.check)

    manager, probe = open_target(plan)
    try:
        return _probe(plan, probe, payloads)
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


def _probe(plan: ProbePlan, probe: Probe, payloads: Sequence[Payload]) -> int:
    from fidelity._report.results import ResultWriter
    from probes._payload.locate import CALIBRATION_CALLS

    plan = with_seed(plan)
    per_payload = calls_per_payload(plan, probe)
    from fidelity._cli.probe.outputs import check_outputs

    # The card's block name is known once the probe is open, before any call is made.
    check_outputs(plan, card_name(plan, probe))
    calibrating = probe.needs_calibration
    # Checked before anything is sent: each calibration call costs what a payload does.
    spent = CALIBRATION_CALLS * per_payload if calibrating else 0
    within_budget(plan, payloads, per_payload, probe, spent=spent)
    try:
        resolved = resolve(plan, probe)
    except (UsageError, TargetError) as exc:
        if not probe.requests:
            raise  # nothing was sent: the arguments are at fault
        calibration_failed(plan, probe, str(exc))
    announce(plan, resolved, probe)
    todo, examples = within_budget(plan, payloads, per_payload, probe, spent=probe.requests or 0)
    drawn = len(generated(plan, todo, examples))
    # Asked for: the catalogue and the examples, less those the families do not hold.
    planned = len(payloads) + plan.examples - (examples - drawn)
    name = card_name(resolved, probe)
    if plan.check is not None:
        from fidelity._cli.probe.check import require_block

        require_block(plan.check, name)
    setup = probe.setup
    target: Probe = probe
    if plan.rate is not None and plan.is_mcp:
        target = RateLimited(probe, plan.rate, per_payload, just_called=calibrating)

    def partial(seen: Sequence[Observation]) -> Survey:
        return survey_of(plan, probe.name, seen, examples, name=name)

    writer = None
    if plan.json is not None:
        writer = ResultWriter(
            plan.json, lambda seen: run_card(partial(seen), setup, complete=False).to_json()
        )
        writer.start()
    seen: list[Observation] = []
    try:
        swept = sweep(
            plan,
            probe,
            target,
            todo=todo,
            examples=examples,
            name=name,
            writer=writer,
            calibrated=calibrating,
            seen=seen,
        )
    except KeyboardInterrupt:
        cut = partial(seen)
        with suppress(Exception):
            write_reports(plan, run_card(cut, setup, complete=False), writer)
        raise
    except BaseException:
        if writer is not None:
            with suppress(Exception):
                writer.checkpoint()
        raise
    if swept.stopped:
        cut = partial(seen)
        warnings = run_warnings(probe, cut.observations, plan, judged=False)
        write_reports(plan, run_card(cut, setup, complete=False).with_warnings(warnings), writer)
        if swept.answered:
            _print_map(plan, cut, note=stop_note(seen), warnings=warnings)
        raise TargetError(swept.stopped)
    result = swept.result or partial(seen)
    warnings = run_warnings(probe, result.observations, plan)
    card = run_card(result, setup, complete=True).with_warnings(warnings)
    write_reports(plan, card, writer)
    notes = (
        examples_note(examples, drawn, plan.seed),
        _unsent(plan, planned, len(result.observations)),
    )
    _print_map(plan, result, note="; ".join(n for n in notes if n), warnings=warnings)
    broken = broke(result.observations)
    if broken:
        raise TargetError(f"{broken}; their statuses are in the results.")
    failure = judge(result.observations, read=plan.read, read_found=False).failure
    if failure:
        raise TargetError(failure)
    if result.observations and all(
        o.status in _FAILED and not o.client_side for o in result.observations
    ):
        raise TargetError("the target answered none of the payloads.")
    if plan.check is not None:
        from fidelity._cli.probe.check import check_card

        return check_card(plan.check, card, sys.stderr if plan.json == "-" else sys.stdout)
    return EXIT_DIFFERENT if result.unexpected else EXIT_OK


def calibration_failed(plan: ProbePlan, probe: Any, sentence: str) -> NoReturn:
    """A calibration that failed after sending requests is a result: the outputs are
    written with no observations and the failure sentence as their warning, and the
    run ends as one the target failed (exit 3)."""
    empty = survey_of(plan, probe.name, [], plan.examples, name=card_name(plan, probe))
    card = run_card(empty, probe.setup, complete=False).with_warnings((sentence,))
    writer = None
    if plan.json is not None:
        from fidelity._report.results import ResultWriter

        writer = ResultWriter(plan.json, lambda _seen: card.to_json())
        writer.start()
    write_reports(plan, card, writer)
    raise TargetError(sentence)


def run_warnings(
    probe: Any, observations: Sequence[Observation], plan: ProbePlan, *, judged: bool = True
) -> tuple[str, ...]:
    """The warnings of a run: the verdict's (when ``judged``: the run finished) and a
    stdio server's stdout lines that are not JSON-RPC."""
    warnings: list[str] = []
    if judged:
        warnings += judge(observations, read=plan.read, read_found=probe.read_found).warnings
    from probes._mcp.probe import McpProbe

    lines, first = probe.stdout_noise if isinstance(probe, McpProbe) else (0, "")
    if lines:
        warnings.append(noise_warning(lines, first))
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
