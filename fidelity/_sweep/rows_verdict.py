"""What a run over many rows prints and how it ends: the map of the rows surveyed and a
fix per rewrite, what was not surveyed, not called, not reached, the warnings and
failures, the summary line; then the exit code by the run's verdict rules (exit 3
when the server or a row's run broke or nothing was measured, else 1 on rewrites
beyond ``--allow``, else 0)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import ExitCode, TargetError
from fidelity._core.kinds import FAMILIES, Status
from fidelity._core.render import safe
from fidelity._report.card_render import card_hints
from fidelity._run.events import Event, RunDone
from fidelity._run.verdict import measured_counts, not_applied, unmeasured
from fidelity._sweep.rows_model import ParamRun

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.observation import Observation
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import Rows

__all__ = ["RowsPrinter", "exit_code"]


class RowsPrinter:
    """The terminal of a run over many rows that is done (not of one interrupted): the
    map and the lines of the run (``noun`` names a row in the sentences)."""

    def __init__(self, plan: ProbePlan, inv: Rows, payloads: Sequence[Payload], noun: str) -> None:
        self.plan = plan
        self.inv = inv
        self.payloads = payloads
        self.noun = noun

    def __call__(self, event: Event) -> None:
        if not isinstance(event, RunDone) or event.interrupted or event.failed:
            return
        outcome = event.outcome
        runs = [r for r in outcome if isinstance(r, ParamRun)] if isinstance(outcome, tuple) else []
        _print_lines(self.plan, self.inv, runs, self.payloads, self.noun)


def _print_lines(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    noun: str,
) -> None:
    """Print the map and the lines of the run."""
    stream = sys.stderr if plan.json == "-" else sys.stdout
    surveyed = [r for r in runs if r.card is not None]
    lines = (
        [] if plan.quiet else [*_map_lines(plan, surveyed, noun), *_left_out_lines(inv, runs, noun)]
    )
    lines += [f"paired: {r.paired}" for r in runs if r.paired and not plan.quiet]
    if not plan.quiet:
        from fidelity._report.silent import silent_note

        notes = (silent_note(r.param.tool.name, r.observations) for r in surveyed)
        lines += [n for n in notes if n]
    for run in surveyed:
        if run.card is not None:
            lines += [
                f"warning: {safe(run.param.name)}: {safe(w)}" for w in run.card.facts.warnings
            ]
    lines += [f"failed: {safe(r.failure)}" for r in runs if r.failure]
    lines.append(_summary(plan, runs, payloads, noun))
    stream.write("\n".join(lines) + "\n")
    stream.flush()


def _map_lines(
    plan: ProbePlan, surveyed: Sequence[ParamRun], noun: str = "tool parameter"
) -> list[str]:
    """The map of the parameters surveyed, and a fix per rewrite (once)."""
    from fidelity._report.tools_map import render_tools_map

    if not surveyed:
        return []
    seen = {r.family for run in surveyed for r in run.outcomes}
    families = [f for f in (plan.families or FAMILIES) if f in seen]
    header = "tool.param" if noun == "tool parameter" else noun
    table = render_tools_map(
        [(r.param.name, r.outcomes) for r in surveyed], families, header=header
    )
    # How to fix each rewrite, once per line however many parameters show it.
    hints = (h.line() for r in surveyed if r.card is not None for h in card_hints(r.card))
    return [table.rstrip("\n"), *dict.fromkeys(hints)]


def _not_surveyed(inv: Rows, runs: Sequence[ParamRun]) -> list[tuple[str, str]]:
    """The parameters left out, and why: by the inventory, or by their own run."""
    return [(p.name, p.skipped) for p in inv.skipped] + [
        (r.param.name, r.skipped) for r in runs if r.card is None and r.skipped
    ]


def _left_out_lines(inv: Rows, runs: Sequence[ParamRun], noun: str = "tool parameter") -> list[str]:
    """What was not surveyed, not called, not reached."""
    lines: list[str] = []
    not_surveyed = _not_surveyed(inv, runs)
    if not_surveyed:
        width = max(len(safe(n)) for n, _ in not_surveyed)
        lines.append(f"not surveyed ({len(not_surveyed)}):")
        lines += [f"  {safe(n):<{width}}  {safe(why)}" for n, why in not_surveyed]
    if inv.without_strings:
        names = ", ".join(safe(t.name) for t in inv.without_strings)
        group, _, thing = noun.partition(" ")
        lines.append(f"{group}s without a string {thing} (not called): {names}")
    done = {r.param.name for r in runs}
    unreached = [p.name for p in inv.surveyed if p.name not in done]
    if unreached:
        lines.append(f"not reached (the run stopped first): {', '.join(map(safe, unreached))}")
    return lines


def exit_code(inv: Rows, runs: Sequence[ParamRun], noun: str = "tool parameter") -> int:
    """The verdict of a run over many tool parameters (see ``--help``): exit 3 when
    the server or a parameter's run broke or nothing was measured, else 1 on rewrites
    beyond ``--allow``, else 0."""
    surveyed = [r for r in runs if r.card is not None]
    _check_measured(inv, runs, surveyed, noun)
    failures = [r for r in runs if r.failure]
    if failures:
        names = ", ".join(safe(r.param.name) for r in failures)
        raise TargetError(
            f"{len(failures)} of the {len(runs)} {noun}s run broke ({names}); the "
            "lines starting 'failed:' say why, and the results are kept."
        )
    nothing = unmeasured([r.param.name for r in _unmeasured(runs)], surveyed=len(runs), noun=noun)
    if nothing:
        raise TargetError(nothing)
    unexpected = set().union(*(r.unexpected for r in surveyed))
    silent = any(not_applied(r.observations) for r in surveyed)
    return ExitCode.DIFFERENT if unexpected or silent else ExitCode.OK


def _check_measured(
    inv: Rows, runs: Sequence[ParamRun], surveyed: Sequence[ParamRun], noun: str
) -> None:
    """Exit 3 when the server could not be reached, or when no row measured anything."""
    fatal = next((r for r in runs if r.fatal), None)
    if fatal is not None:
        raise TargetError(fatal.failure)
    if surveyed and all(r.nothing or r.failure for r in surveyed):
        raise TargetError(
            f"nothing was measured: no payload sent to any of the {len(surveyed)} "
            f"{noun}s surveyed came back (the lines starting 'warning:' say why)."
        )
    if not surveyed:
        raise TargetError(f"nothing was measured: {_none_surveyed(inv, noun)}")


def _unmeasured(runs: Sequence[ParamRun]) -> list[ParamRun]:
    """The parameters run that measured nothing: no read-back, arguments that could
    not be made, or every payload lost or rejected (a run that broke is counted apart)."""
    return [r for r in runs if not r.failure and (r.nothing or (r.card is None and r.skipped))]


def _none_surveyed(inv: Rows, noun: str = "tool parameter") -> str:
    tools = len({p.tool.name for p in inv.params})
    params = len(inv.params)
    group, _, thing = noun.partition(" ")  # tool parameter, operation field
    which = (
        f"the one string {thing} ({safe(inv.params[0].name)})"
        if params == 1
        else f"none of the {params} string {thing}s (of {tools} {group}{'s' if tools != 1 else ''})"
    )
    verb = "could not be surveyed" if params == 1 else "could be surveyed"
    return f"{which} {verb} (see 'not surveyed' above for why)."


def _summary(
    plan: ProbePlan,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    noun: str = "tool parameter",
) -> str:
    surveyed = [r for r in runs if r.card is not None]
    observations = [o for r in surveyed for o in r.observations]
    counts: dict[Status, int] = {}
    for obs in observations:
        counts[obs.status] = counts.get(obs.status, 0) + 1
    shown = ", ".join(f"{counts[s]} {s.value}" for s in Status if counts.get(s))
    line = (
        f"{len(observations)} payload{'s' if len(observations) != 1 else ''} to "
        f"{len(surveyed)} {noun}{'s' if len(surveyed) != 1 else ''}: {shown or 'none'}"
    )
    line += _asides(observations)
    unexpected = sorted(set().union(*(r.unexpected for r in surveyed)))
    if unexpected:
        line += f"; rewrites beyond --allow: {', '.join(unexpected)}"
    unsent = sum(max(0, r.planned - len(r.observations)) for r in surveyed if not r.failure)
    if plan.max_requests is not None and unsent:
        line += f"; {unsent} not sent within --max-requests {plan.max_requests}"
    empty = len(_unmeasured(runs))
    measured = sum(1 for r in surveyed if not r.nothing and not r.failure)
    line += "; " + measured_counts(measured, empty, noun.partition(" ")[2])
    return safe(line) + "."


def _asides(observations: Sequence[Observation]) -> str:
    """The summary's asides: edits not applied without an error flag, payloads the
    client library refused before reaching the target."""
    line = ""
    silent = not_applied(observations)
    if silent:
        line += f" ({silent} not applied, without an error flag)"
    client = sum(1 for o in observations if o.client_side)
    if client:
        line += f" ({client} failed in the client library before reaching the target)"
    return line
