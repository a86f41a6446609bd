"""What ``fidelity probe`` prints of a run: the terminal is the CLI's listener of the
run's events. Of a run over many rows (``--all-tools``, ``--openapi``), the map and the
lines (:class:`RowsPrinter`; the library's :func:`fidelity.sweep` listens with a record
instead and prints nothing); of a one-tool run, its map, a fix per rewrite, the summary
line and the warnings (:class:`MapPrinter`); of one run through several MCP clients,
their maps side by side (:class:`ClientsPrinter`). Each prints on standard error when
the JSON result goes to standard output."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._run.events import Event, RunDone
from fidelity._sweep.terminal import Shown, summary_line

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.clients import ClientsSection
    from fidelity._run.events import Handler
    from fidelity._survey.result import Survey
    from fidelity._sweep.clients import Matrix
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows import Listen
    from fidelity._sweep.rows_model import Rows

__all__ = ["ClientsPrinter", "MapPrinter", "RowsPrinter", "terminal"]


class RowsPrinter:
    """The terminal of a run over many rows that is done (not of one interrupted): the
    map and the lines of the run (``noun`` names a row in the sentences), on stdout
    (stderr when ``--json -`` holds stdout)."""

    def __init__(self, plan: ProbePlan, inv: Rows, payloads: Sequence[Payload], noun: str) -> None:
        self.plan = plan
        self.inv = inv
        self.payloads = payloads
        self.noun = noun

    def __call__(self, event: Event) -> None:
        from fidelity._sweep.rows_model import ParamRun
        from fidelity._sweep.rows_verdict import findings, problem, run_lines

        if not isinstance(event, RunDone) or event.interrupted or event.failed:
            return
        outcome = event.outcome
        runs = [r for r in outcome if isinstance(r, ParamRun)] if isinstance(outcome, tuple) else []
        stream = sys.stderr if self.plan.json == "-" else sys.stdout
        stream.write(run_lines(self.plan, self.inv, runs, self.payloads, self.noun))
        stream.flush()
        # What could not be measured, said even when a finding makes the run exit 1 (exit
        # 3 says it as its error).
        surveyed = [r for r in runs if r.card is not None]
        said = problem(self.inv, runs, surveyed, self.noun)
        if said and findings(surveyed):
            sys.stderr.write(f"fidelity: {safe(said)}\n")
            sys.stderr.flush()


def terminal(plan: ProbePlan) -> Listen:
    """The terminal of a run over many rows: the map and the lines, when it is done."""

    def listen(inv: Rows, payloads: Sequence[Payload], noun: str) -> Sequence[Handler]:
        return (RowsPrinter(plan, inv, payloads, noun),)

    return listen


class MapPrinter:
    """Prints the map of a run that is done (not of one interrupted, nor of one whose
    target never answered: it has no :class:`Shown`)."""

    def __init__(self, plan: ProbePlan) -> None:
        self.plan = plan

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunDone) and not event.interrupted:
            shown = event.outcome
            if isinstance(shown, Shown):
                _print_map(self.plan, shown.survey, shown.note, shown.warnings)


def _print_map(
    plan: ProbePlan, survey: Survey, note: str = "", warnings: Sequence[str] = ()
) -> None:
    from fidelity._report.silent import silent_note
    from fidelity._report.terminal import render_map, use_color

    stream = sys.stderr if plan.json == "-" else sys.stdout
    if not plan.quiet:
        stream.write(render_map(survey.outcomes, color=use_color(stream)))
        note_line = silent_note(plan.tool, survey.observations)
        if note_line:
            stream.write(note_line + "\n")
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


def _print_clients(plan: ProbePlan, matrix: Matrix, section: ClientsSection) -> None:
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
        # A failure is the exit's sentence (clients._exit_code); the warnings are said here.
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


class ClientsPrinter:
    """The terminal of a run through several clients: their map side by side, a fix
    per rewrite, a line per client, the warnings, whether they agree (a handler of
    the run's :class:`~fidelity._run.events.RunDone`)."""

    def __init__(self, plan: ProbePlan, matrix: Matrix) -> None:
        self.plan = plan
        self.matrix = matrix

    def __call__(self, event: Event) -> None:
        from fidelity._report.clients import ClientsSection

        if isinstance(event, RunDone) and isinstance(event.outcome, ClientsSection):
            _print_clients(self.plan, self.matrix, event.outcome)
