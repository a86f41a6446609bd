"""``fidelity probe --mcp --clients LIST``: the same plan through several MCP clients.

The first client opens the target and finds out what was not given (the payload's
argument, the read-back by a calibration call); the plan is then pinned, so every
client sends the same payloads to the same tool with the same arguments, steps and
read-back. Each client runs in turn, with its own server process (stdio) or session
(Streamable HTTP), its own ``{run}`` (so a stateful server keeps each client's data
apart) and an equal share of ``--max-requests``. What each saw is printed side by
side (:func:`fidelity._report.client_map.render_client_map`); the JSON result and
the card hold the first client's map and a ``clients`` section with every client's
run and the payloads on which they disagree.

A client whose run cannot start, or whose target stops answering, does not stop the
others: its run is kept, marked incomplete, and the command ends with exit 3 once
every client had its turn. Otherwise the exit code is 1 when any client saw a rewrite
beyond ``--allow`` or the clients disagree beyond it, else 0.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from fidelity._cli.probe.messages import one_line
from fidelity._cli.probe.plan import ProbePlan
from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.observation import Observation
from probes._payload.locate import CALIBRATION_CALLS

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.card import Card
    from fidelity._report.clients import ClientResult, ClientsSection

__all__ = ["execute_clients"]

_FAILED = (Status.BROKEN, Status.TIMEOUT)


class _Run:
    """One client's turn: its observations, how it ended, what it reported."""

    def __init__(self, client: str) -> None:
        self.client = client
        self.observations: list[Observation] = []
        self.library = ""
        self.protocol_version = ""
        self.complete = False
        self.error = ""
        #: Stdout lines of a stdio server that were not JSON-RPC, and the first.
        self.noise: tuple[int, str] = (0, "")

    def result(self) -> ClientResult:
        from fidelity._report.clients import ClientResult

        return ClientResult(
            client=self.client,
            library=self.library,
            protocol_version=self.protocol_version,
            observations=tuple(self.observations),
            complete=self.complete,
            error=self.error,
        )


class _Matrix:
    """The runs so far, and the documents they make (also while a run goes on)."""

    def __init__(self, plan: ProbePlan, name: str, examples: int, setup: Any) -> None:
        self.plan = plan
        self.name = name
        self.examples = examples
        self.setup = setup
        self.chain = ""
        self.runs = [_Run(c) for c in plan.clients]

    def section(self) -> ClientsSection:
        from fidelity._report.clients import ClientsSection

        return ClientsSection.of([r.result() for r in self.runs], self.plan.allow)

    def card(self, *, complete: bool) -> Card:
        from fidelity._cli.probe.execute import run_card, survey_of

        first = self.runs[0]
        survey = survey_of(self.plan, self.chain, first.observations, self.examples, self.name)
        card = run_card(
            survey, self.setup, complete=complete and all(r.complete for r in self.runs)
        )
        return card.with_clients(self.section())


def _answering_breaker(timeout: float, probe: Any) -> Any:
    """The run's circuit breaker, told apart from a payload the server only ignored.

    A payload that timed out while the server went on answering (its health check
    passed: ``probe.answers`` went up) is that payload's outcome, not a target that
    stopped answering: through another client the same payload may be sent in a form
    a server silently drops (a lone surrogate's escape), payload after payload.
    """
    from fidelity._cli.probe.sweep import Breaker

    class Answering(Breaker):
        def __init__(self) -> None:
            super().__init__(timeout, probe)
            self.seen = probe.answers or 0

        def __call__(self, observation: Observation) -> None:
            answers = probe.answers or 0
            answered, self.seen = answers > self.seen, answers
            if answered and observation.status in _FAILED:
                self.answered = True
                self.streak = 0
                return
            super().__call__(observation)

    return Answering()


def _survey_one(
    plan: ProbePlan,
    run: _Run,
    probe: Any,
    todo: Sequence[Payload],
    *,
    examples: int,
    name: str,
    limit: int | None,
    writer: Any,
    calibrated: bool,
) -> None:
    """Survey ``todo`` through one client's open probe; fill ``run``."""
    from fidelity._cli.probe.budget import Budget, calls_per_payload
    from fidelity._cli.probe.execute import RateLimited
    from fidelity._cli.probe.sweep import sweep

    target = probe
    if plan.rate is not None:
        # The clients run one after another: the one before (or the calibration) just called.
        target = RateLimited(probe, plan.rate, calls_per_payload(plan, probe), just_called=True)
    try:
        swept = sweep(
            plan,
            probe,
            target,
            todo=todo,
            examples=examples,
            name=name,
            writer=writer,
            calibrated=calibrated,
            seen=run.observations,
            breaker=_answering_breaker(plan.timeout, probe),
            budget=Budget(limit, probe),
        )
        run.complete = not swept.stopped
        run.error = swept.stopped
    finally:
        run.noise = getattr(probe, "stdout_noise", (0, ""))
        info = probe.client_info
        run.library = info.library if info is not None else ""
        run.protocol_version = info.protocol_version if info is not None else ""


def _print(plan: ProbePlan, matrix: _Matrix, section: ClientsSection) -> None:
    from fidelity._cli.probe.execute import summary_line, survey_of
    from fidelity._report.client_map import render_client_map
    from fidelity._report.terminal import use_color

    stream = sys.stderr if plan.json == "-" else sys.stdout
    if not plan.quiet:
        stream.write(render_client_map(section, color=use_color(stream)))
        # How to fix each kind, once, whichever clients saw it.
        from fidelity._report.hints import hints
        from fidelity._report.rewrites import from_observations

        seen = [o for run in matrix.runs for o in run.observations]
        stream.writelines(f"{hint.line()}\n" for hint in hints(from_observations(seen)))
    for run in matrix.runs:
        partial = survey_of(plan, matrix.chain, run.observations, matrix.examples, matrix.name)
        line = f"{run.client}: {summary_line(partial)}"
        if partial.unexpected:
            line += f"; rewrites beyond --allow: {', '.join(sorted(partial.unexpected))}"
        if not run.complete:
            line += f"; incomplete: {run.error.rstrip('.')}"
        stream.write(safe(line) + ".\n")
    from fidelity._cli.probe.execute import noise_warning
    from fidelity._cli.probe.verdict import judge

    for run in matrix.runs:
        judged = judge(run.observations, read=plan.read, read_found=plan.read is None)
        # A failure is the exit's sentence (see _exit_code); the warnings are said here.
        warnings = [*judged.warnings, *([noise_warning(*run.noise)] if run.noise[0] else [])]
        stream.writelines(safe(f"warning: {run.client}: {w}") + "\n" for w in warnings)
    beyond = len({(d.payload_id, d.sent) for d in section.disagreements})
    if len(matrix.runs) > 1:
        stream.write(
            f"the clients disagree on {beyond} payload{'' if beyond == 1 else 's'} beyond "
            "--allow.\n"
            if beyond
            else "the clients agree (beyond what --allow accepts).\n"
        )
    stream.flush()


def _preflight(plan: ProbePlan) -> None:
    """What a client needs on this machine, checked before anything is sent."""
    if "typescript" in plan.clients:
        import shutil

        from probes._mcp.node.setup import install_needed, typescript_client

        where = install_needed()
        if where and not plan.quiet and shutil.which("node") and shutil.which("npm"):
            sys.stderr.write(
                "installing @modelcontextprotocol/sdk for the typescript client (once, with "
                f"npm ci, into {safe(where)})\n"
            )
            sys.stderr.flush()
        typescript_client()


def execute_clients(plan: ProbePlan) -> int:
    """Run ``fidelity probe --clients`` as planned; return the exit code."""
    from fidelity._cli.probe.budget import calls_per_payload, within_budget
    from fidelity._cli.probe.execute import (
        announce,
        card_name,
        catalogue_payloads,
        open_target,
        resolve,
        with_seed,
    )
    from fidelity._cli.probe.outputs import check_outputs, write_reports
    from fidelity._report.results import ResultWriter

    payloads = catalogue_payloads(plan)
    check_outputs(plan)
    if plan.check is not None:
        from fidelity._cli.probe.check import read_document

        read_document(plan.check)
    _preflight(plan)
    plan = with_seed(plan)
    count = len(plan.clients)
    manager, probe = open_target(plan, plan.clients[0])
    try:
        # The card's block name is known once the probe is open, before any call is made.
        check_outputs(plan, card_name(plan, probe))
        per_payload = calls_per_payload(plan, probe)
        calibrating = probe.needs_calibration
        spent = CALIBRATION_CALLS * per_payload if calibrating else 0
        within_budget(plan, payloads, per_payload * count, probe, spent=spent)
        resolved = resolve(plan, probe)
        announce(plan, resolved, probe)
        spent = probe.requests or 0
        todo, examples = within_budget(plan, payloads, per_payload * count, probe, spent=spent)
        share = None if plan.max_requests is None else (plan.max_requests - spent) // count
        name = card_name(resolved, probe)
        if plan.check is not None:
            from fidelity._cli.probe.check import require_block

            require_block(plan.check, name)
        setup = dataclasses.replace(probe.setup, clients=plan.clients)
    except BaseException:
        with suppress(Exception):
            manager.__exit__(None, None, None)
        raise
    matrix = _Matrix(plan, name, examples, setup)
    matrix.chain = probe.name
    writer = None
    if plan.json is not None:
        writer = ResultWriter(plan.json, lambda _: matrix.card(complete=False).to_json())
        writer.start()
    # Every later client gets the read-back the first one located (no calibration call
    # of its own); the payload's argument, when not given, it finds in the same schema.
    pinned = dataclasses.replace(plan, read=resolved.read)
    try:
        for index, run in enumerate(matrix.runs):
            if index:
                try:
                    manager, probe = open_target(pinned, run.client)
                except TargetError as exc:
                    run.error = str(exc)
                    continue
            try:
                limit = None if share is None else share + (spent if index == 0 else 0)
                _survey_one(
                    plan,
                    run,
                    probe,
                    todo,
                    examples=examples,
                    name=name,
                    limit=limit,
                    writer=writer,
                    calibrated=calibrating and index == 0,
                )
            finally:
                with suppress(Exception):
                    manager.__exit__(None, None, None)
    except KeyboardInterrupt:
        with suppress(Exception):
            write_reports(plan, matrix.card(complete=False), writer)
        raise
    except BaseException:
        if writer is not None:
            with suppress(Exception):
                writer.checkpoint()
        raise
    card = matrix.card(complete=True)
    write_reports(plan, card, writer)
    section = card.clients
    assert section is not None
    _print(plan, matrix, section)
    code = _exit_code(plan, matrix, section)
    if plan.check is not None:
        # --check judges drift of the card's map (the first client's), not rewrites.
        from fidelity._cli.probe.check import check_card

        return check_card(plan.check, card, sys.stderr if plan.json == "-" else sys.stdout)
    return code


def _exit_code(plan: ProbePlan, matrix: _Matrix, section: ClientsSection) -> int:
    from fidelity._cli.probe.execute import EXIT_DIFFERENT, EXIT_OK

    stopped = [r for r in matrix.runs if not r.complete]
    if stopped:
        first = stopped[0]
        reason = one_line(safe(first.error or "it did not finish")).rstrip(". ")
        names = ", ".join(r.client for r in stopped)
        raise TargetError(
            f"the run through {names} did not finish ({first.client}: {reason}); the "
            "results hold what every client saw."
        )
    from fidelity._cli.probe.verdict import broke, judge

    for run in matrix.runs:
        broken = broke(run.observations, through=run.client)
        if broken:
            raise TargetError(f"{broken}; their statuses are in the results.")

    for run in matrix.runs:
        # The same rule as one client's run: a client through which nothing was
        # measured makes the comparison empty, whatever the others saw.
        failure = judge(run.observations, read=plan.read, read_found=plan.read is None).failure
        if failure:
            raise TargetError(f"through {run.client}: {failure}")
    from fidelity._cli.probe.execute import survey_of

    unexpected = any(
        survey_of(plan, matrix.chain, r.observations, matrix.examples, matrix.name).unexpected
        for r in matrix.runs
    )
    return EXIT_DIFFERENT if unexpected or section.disagreements else EXIT_OK
