"""The terminal of a one-tool run: its map, a fix per rewrite, the summary line and the
warnings, printed by :class:`MapPrinter`, a handler of the run's
:class:`~fidelity._run.events.RunDone` (on standard error when the JSON result goes
to standard output)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._run.events import Event, RunDone

if TYPE_CHECKING:
    from fidelity._survey.result import Survey
    from fidelity._sweep.plan import ProbePlan

__all__ = ["MapPrinter", "Shown", "summary_line"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """What a one-tool run shows: its ``survey`` (a cut one when it stopped), the
    summary's ``note`` and the run's ``warnings``."""

    survey: Survey
    note: str = ""
    warnings: tuple[str, ...] = ()


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


def summary_line(survey: Survey) -> str:
    counts = ", ".join(f"{n} {s.value}" for s, n in survey.statuses.items() if n)
    count = len(survey.observations)
    line = f"{count} payload{'' if count == 1 else 's'}: {counts or 'none'}"
    client = sum(1 for o in survey.observations if o.client_side)
    if client:
        line += f" ({client} failed in the client library before reaching the target)"
    silent = sum(1 for o in survey.observations if o.silent)
    if silent:
        line += f" ({silent} not applied, without an error flag)"
    return line


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
