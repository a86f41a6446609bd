"""``fidelity probe --mcp --clients LIST``: the same plan through several MCP clients.

The first client opens the target and finds out what was not given (the payload's
argument, the read-back by calibration calls); the plan is then pinned, so every
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

from fidelity._core.errors import ExitCode, TargetError
from fidelity._core.render import safe
from fidelity._probe.observation import Observation
from fidelity._report.card_render import card_json
from fidelity._run.events import Dispatch, Event, RunDone, RunStarted
from fidelity._run.messages import one_line
from fidelity._sweep.plan import ProbePlan

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.contract import Probe
    from fidelity._report.card import Card
    from fidelity._report.clients import ClientResult, ClientsSection
    from fidelity._run.events import Handler
    from fidelity._run.target import Prepared
    from fidelity._run.verdict import Verdict

__all__ = ["execute_clients"]


class _Run:
    """One client's turn: its observations, how it ended, what it reported."""

    def __init__(self, client: str) -> None:
        self.client = client
        self.observations: list[Observation] = []
        self.library = ""
        self.protocol_version = ""
        self.target: dict[str, str] = {}
        self.complete = False
        self.error = ""
        #: Stdout lines of a stdio server that were not JSON-RPC, and the first.
        self.noise: tuple[int, str] = (0, "")
        self._verdict: Verdict | None = None

    def verdict(self, plan: ProbePlan) -> Verdict:
        """The verdict on this client's observations (judged once, when finished)."""
        if self._verdict is None:
            from fidelity._run.verdict import judge

            self._verdict = judge(self.observations, read=plan.read, read_found=plan.read is None)
        return self._verdict

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
        from fidelity._sweep.execute import run_card, survey_of

        # The map is the first client's that measured (a client that failed has none).
        first = next((r for r in self.runs if r.observations), self.runs[0])
        survey = survey_of(
            self.plan, self.chain, first.observations, self.examples, self.name, target=first.target
        )
        card = run_card(
            survey, self.setup, complete=complete and all(r.complete for r in self.runs)
        )
        return card.with_clients(self.section())


def _survey_one(
    plan: ProbePlan,
    run: _Run,
    probe: Probe,
    todo: Sequence[Payload],
    *,
    examples: int,
    name: str,
    limit: int | None,
    on_event: Handler | None,
    calibrated: bool,
    drawn: Sequence[Payload],
) -> None:
    """Survey ``todo`` through one client's open probe; fill ``run``."""
    from fidelity._run.breaker import Breaker
    from fidelity._run.budget import Budget
    from fidelity._run.sweep import sweep

    try:
        swept = sweep(
            plan,
            probe,
            todo=todo,
            examples=examples,
            name=name,
            calibrated=calibrated,
            seen=run.observations,
            on_event=on_event,
            # The clients run one after another: the one before (or the calibration) just called.
            just_called=True,
            breaker=Breaker(plan.timeout, probe, answering=True),
            budget=Budget(limit, probe),
            drawn=drawn,
        )
        run.complete = not swept.stopped
        run.error = swept.stopped
    finally:
        run.noise = probe.stdout_noise
        info = probe.client_info
        run.library = info.library if info is not None else ""
        run.protocol_version = info.protocol_version if info is not None else ""
        run.target = dict(probe.environment)


def _print(plan: ProbePlan, matrix: _Matrix, section: ClientsSection) -> None:
    from fidelity._report.client_map import render_client_map
    from fidelity._report.terminal import use_color
    from fidelity._sweep.execute import survey_of
    from fidelity._sweep.terminal import summary_line

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
    from fidelity._sweep.execute import noise_warning

    for run in matrix.runs:
        # A failure is the exit's sentence (see _exit_code); the warnings are said here.
        noise = [noise_warning(*run.noise)] if run.noise[0] else []
        warnings = [*run.verdict(plan).warnings, *noise]
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


class _Printer:
    """The terminal of a run through several clients: their map side by side, a fix
    per rewrite, a line per client, the warnings, whether they agree (a handler of
    the run's :class:`~fidelity._run.events.RunDone`)."""

    def __init__(self, plan: ProbePlan, matrix: _Matrix) -> None:
        self.plan = plan
        self.matrix = matrix

    def __call__(self, event: Event) -> None:
        from fidelity._report.clients import ClientsSection

        if isinstance(event, RunDone) and isinstance(event.outcome, ClientsSection):
            _print(self.plan, self.matrix, event.outcome)


def _preflight(plan: ProbePlan) -> None:
    """What a client needs on this machine, checked before anything is sent."""
    if "typescript" in plan.clients:
        import shutil

        from probes.frontend import install_needed, typescript_client

        where = install_needed()
        if where and not plan.quiet and shutil.which("node") and shutil.which("npm"):
            sys.stderr.write(
                "installing @modelcontextprotocol/sdk for the typescript client (once, with "
                f"npm ci, into {safe(where)})\n"
            )
            sys.stderr.flush()
        typescript_client()


def _open_first(plan: ProbePlan) -> tuple[int, Any, Probe, dict[str, str]]:
    """Open the target through the first client that can (it calibrates the run for
    all); the clients before it that could not, with why."""
    from fidelity._sweep.execute import open_target

    unopened: dict[str, str] = {}
    for index, client in enumerate(plan.clients):
        try:
            manager, probe = open_target(plan, client)
        except TargetError as exc:
            unopened[client] = str(exc).rstrip(".")
            continue
        return index, manager, probe, unopened
    reasons = "; ".join(f"{c}: {safe(e)}" for c, e in unopened.items())
    raise TargetError(f"no client could open the target ({reasons})")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _First:
    """What the first client found out for all: the plan ``resolved``, the target
    ``ready``, the card's ``name`` and ``setup``, the calls it ``spent``, each
    client's ``share`` of ``--max-requests``."""

    resolved: ProbePlan
    ready: Prepared
    name: str
    setup: Any
    spent: int
    share: int | None


def _calibrate_first(
    plan: ProbePlan, probe: Probe, payloads: Sequence[Payload], checked: bytes | None
) -> _First:
    """Check the outputs, calibrate through the first client and pin what it found."""
    from fidelity._run.target import CalibrationFailure, prepare
    from fidelity._sweep.execute import announce, calibration_failed, card_name, resolve
    from fidelity._sweep.outputs import check_outputs

    count = len(plan.clients)
    # The card's block name is known once the probe is open, before any call is made.
    check_outputs(plan, card_name(plan, probe))
    try:
        ready = prepare(plan, probe, payloads, target=plan.name, shares=count)
    except CalibrationFailure as exc:
        calibration_failed(plan, probe, str(exc))
    resolved = resolve(plan, probe, ready)
    announce(plan, resolved, probe)
    spent = probe.requests or 0
    name = card_name(resolved, probe)
    if plan.check is not None:
        from fidelity._sweep.check import require_block

        require_block(plan.check, name, checked)
    setup = probe.setup
    if setup is not None:
        setup = dataclasses.replace(setup, clients=plan.clients)
    return _First(
        resolved=resolved,
        ready=ready,
        name=name,
        setup=setup,
        spent=spent,
        share=None if plan.max_requests is None else (plan.max_requests - spent) // count,
    )


def _each_client(
    plan: ProbePlan,
    matrix: _Matrix,
    opened: tuple[int, Any, Probe],
    found: _First,
    dispatch: Handler,
) -> None:
    """Run every client in turn (``opened``: the first one that opened the target, its
    session and probe); one that breaks keeps its error, the others go on."""
    from fidelity._sweep.execute import open_target

    first, manager, probe = opened
    # Every later client gets the read-back the first one located (no calibration call
    # of its own); the payload's argument, when not given, it finds in the same schema.
    pinned = dataclasses.replace(plan, read=found.resolved.read)
    share, spent = found.share, found.spent
    for index, run in enumerate(matrix.runs):
        if index < first:
            continue  # it could not open the target: its error is kept
        if index > first:
            try:
                manager, probe = open_target(pinned, run.client)
            except TargetError as exc:
                run.error = str(exc).rstrip(".")
                continue
        try:
            _survey_one(
                plan,
                run,
                probe,
                found.ready.todo,
                examples=found.ready.examples,
                name=found.name,
                limit=None if share is None else share + (spent if index == first else 0),
                on_event=dispatch,
                drawn=found.ready.drawn,
                calibrated=found.ready.located and index == first,
            )
        except TargetError as exc:
            # One client broke: the others' results stand; the exit names it.
            run.complete = False
            run.error = str(exc)
        finally:
            with suppress(Exception):
                manager.__exit__(None, None, None)


def execute_clients(plan: ProbePlan) -> int:
    """Run ``fidelity probe --clients`` as planned; return the exit code."""
    from fidelity._report.results import ResultWriter
    from fidelity._sweep.execute import catalogue_payloads, with_seed
    from fidelity._sweep.outputs import card_writers, check_outputs

    payloads = catalogue_payloads(plan)
    check_outputs(plan)
    checked = None
    if plan.check is not None:
        from fidelity._sweep.check import read_document

        # Read once, before anything is sent: the block is looked up in these bytes
        # and the run's card checked against them.
        checked = read_document(plan.check)
    _preflight(plan)
    plan = with_seed(plan)
    first, manager, probe, unopened = _open_first(plan)
    try:
        found = _calibrate_first(plan, probe, payloads, checked)
    except BaseException:
        with suppress(Exception):
            manager.__exit__(None, None, None)
        raise
    matrix = _Matrix(plan, found.name, found.ready.examples, found.setup)
    matrix.chain = probe.name
    for run in matrix.runs:
        run.error = unopened.get(run.client, "")
    writer = None
    if plan.json is not None:
        writer = ResultWriter(plan.json, lambda _: card_json(matrix.card(complete=False)))
    dispatch = Dispatch(card_writers(plan, writer), reporters=(_Printer(plan, matrix),))
    dispatch(RunStarted(name=found.name, targets=plan.clients))
    try:
        _each_client(plan, matrix, (first, manager, probe), found, dispatch)
    except KeyboardInterrupt:
        cut = matrix.card(complete=False)
        with suppress(Exception):
            dispatch(RunDone(complete=False, interrupted=True, cards=(cut,)))
        raise
    except BaseException:
        with suppress(Exception):
            dispatch(RunDone(complete=False, failed=True))
        raise
    card = matrix.card(complete=True)
    section = card.clients
    assert section is not None
    dispatch(RunDone(complete=card.complete, cards=(card,), outcome=section))
    code = _exit_code(plan, matrix, section)
    if plan.check is not None:
        # --check judges drift of the card's map (the first client's), not rewrites.
        from fidelity._sweep.check import check_card

        out = sys.stderr if plan.json == "-" else sys.stdout
        return check_card(plan.check, card, out, checked)
    return code


def _exit_code(plan: ProbePlan, matrix: _Matrix, section: ClientsSection) -> int:
    stopped = [r for r in matrix.runs if not r.complete]
    if stopped:
        first = stopped[0]
        reason = one_line(safe(first.error or "it did not finish")).rstrip(". ")
        names = ", ".join(r.client for r in stopped)
        raise TargetError(
            f"the run through {names} did not finish ({first.client}: {reason}); the "
            "results hold what every client saw."
        )
    from fidelity._run.verdict import broke, not_applied

    for run in matrix.runs:
        broken = broke(run.observations, through=run.client)
        if broken:
            raise TargetError(f"{broken}; their statuses are in the results.")

    for run in matrix.runs:
        # The same rule as one client's run: a client through which nothing was
        # measured makes the comparison empty, whatever the others saw.
        failure = run.verdict(plan).failure
        if failure:
            raise TargetError(f"through {run.client}: {failure}")
    from fidelity._sweep.execute import survey_of

    unexpected = any(
        survey_of(plan, matrix.chain, r.observations, matrix.examples, matrix.name).unexpected
        or not_applied(r.observations)
        for r in matrix.runs
    )
    return ExitCode.DIFFERENT if unexpected or section.disagreements else ExitCode.OK
