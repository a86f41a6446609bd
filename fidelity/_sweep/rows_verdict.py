"""What a run over many rows says and how it ends: the map of the rows surveyed and a
fix per rewrite, what was not surveyed, not called, not reached, the warnings and
failures, the summary line; then the exit code by the one rule of every output
(:func:`fidelity._run.verdict.exit_rule`: 1 on any finding beyond ``--allow``, else 3
when something could not be measured, else 0)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import ExitCode, TargetError
from fidelity._core.kinds import FAMILIES, Status
from fidelity._core.render import safe
from fidelity._report.card_render import card_hints
from fidelity._run.verdict import exit_rule, measured_counts, not_applied, unmeasured
from fidelity._sweep.rows_model import ParamRun

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._probe.observation import Observation
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import Rows

__all__ = ["exit_code", "findings", "never_applied", "none_surveyed", "problem", "run_lines"]


def run_lines(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    payloads: Sequence[Payload],
    noun: str,
) -> str:
    """The map and the lines of the run, as the terminal shows them (terminal-safe)."""
    surveyed = [r for r in runs if r.card is not None]
    lines = (
        [] if plan.quiet else [*_map_lines(plan, surveyed, noun), *_left_out_lines(inv, runs, noun)]
    )
    lines += [f"paired: {r.paired}" for r in runs if r.paired and not plan.quiet]
    if not plan.quiet:
        from fidelity._report.silent import silent_note

        notes = (silent_note(r.param.tool.name, r.observations) for r in surveyed)
        lines += [n for n in notes if n]
    lines += _edit_lines(surveyed)
    for run in surveyed:
        if run.card is not None:
            lines += [
                f"warning: {safe(run.param.name)}: {safe(w)}" for w in run.card.facts.warnings
            ]
    lines += [f"failed: {safe(r.failure)}" for r in runs if r.failure]
    lines.append(_summary(plan, runs, payloads, noun))
    return "\n".join(lines) + "\n"


#: The kinds that say a read path turns line breaks into LF, and how a sentence says it.
_LINE_BREAKS = {"newline.crlf_to_lf": "CRLF into LF", "newline.cr_to_lf": "CR into LF"}


def _edit_lines(surveyed: Sequence[ParamRun]) -> list[str]:
    """A line per edit row with edits that never applied, linked to the rewrite of its
    read path when one was measured on the same server: "7 edits whose old text holds
    a CR never applied; read_note turns CRLF into LF"."""
    lines = []
    for run in surveyed:
        never = never_applied(run)
        if all(o.silent for o in never):
            continue  # none, or each told by the silent note already
        with_cr = sum(1 for o in never if "\r" in o.sent)
        parts = []
        if with_cr:
            parts.append(f"{with_cr} edit{'s' if with_cr != 1 else ''} whose old text holds a CR")
        if len(never) - with_cr:
            other = len(never) - with_cr
            parts.append(f"{other}{' other' if with_cr else ''} edit{'s' if other != 1 else ''}")
        line = f"{safe(run.param.name)}: {' and '.join(parts)} never applied"
        link = _line_break_link(run, surveyed) if with_cr else ""
        lines.append(line + (f"; {link}" if link else "") + ".")
    return lines


def _line_break_link(edit: ParamRun, surveyed: Sequence[ParamRun]) -> str:
    """``read_note turns CRLF into LF (newline.crlf_to_lf, measured on
    write_note.content)`` when a row read back by a tool of this server measured a
    line-break rewrite; ``""`` when none did."""
    for run in surveyed:
        if run is edit or run.card is None:
            continue
        kinds = {k for o in run.observations for k in o.kinds}
        for kind, said in _LINE_BREAKS.items():
            if kind in kinds:
                setup = run.card.facts.setup
                reader = setup.read_tool if setup is not None and setup.read_tool else None
                reader = reader or run.param.tool.name
                return f"{safe(reader)} turns {said} ({kind}, measured on {safe(run.param.name)})"
    return ""


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
    """The verdict of a run over many tool parameters (see ``--help``), by
    :func:`~fidelity._run.verdict.exit_rule`: 1 when any finding beyond ``--allow``
    exists (a rewrite, a payload lost, an edit that never applied), even if other
    parameters measured nothing or the server broke; else 3 when something could not be
    measured (its sentence raised); else 0. The terminal says what could not be measured
    either way (:class:`RowsPrinter`)."""
    surveyed = [r for r in runs if r.card is not None]
    problem_said = problem(inv, runs, surveyed, noun)
    code = exit_rule(findings=bool(findings(surveyed)), unmeasured=bool(problem_said))
    if code == ExitCode.TARGET:
        raise TargetError(problem_said)
    return ExitCode(code)


def findings(surveyed: Sequence[ParamRun]) -> list[str]:
    """What the rows surveyed found beyond ``--allow``, one phrase each: the rewrite
    kinds, the payloads lost among values that came back, the edits that never
    applied (silently or refused)."""
    found = sorted(set().union(*(r.unexpected for r in surveyed)))
    lost = sum(
        1
        for r in surveyed
        if not r.nothing and not r.failure
        for o in r.observations
        if o.status is Status.LOST and not o.client_side
    )
    if lost:
        found.append(f"{lost} lost")
    edits = sum(len(never_applied(r)) for r in surveyed)
    silent = sum(not_applied(r.observations) for r in surveyed if not r.edit)
    if edits + silent:
        found.append(f"{edits + silent} not applied")
    return found


def never_applied(run: ParamRun) -> list[Observation]:
    """The payloads of an edit row whose edit never applied: refused with an error
    flag, or answered without one and left the read-back without its mark."""
    if not run.edit:
        return []
    return [o for o in run.observations if o.status is Status.REJECTED and not o.client_side]


def problem(
    inv: Rows, runs: Sequence[ParamRun], surveyed: Sequence[ParamRun], noun: str = "tool parameter"
) -> str:
    """The sentence of what the run could not measure (``""`` when it measured all): the
    server unreachable, no row measuring anything, rows that broke or measured nothing."""
    fatal = next((r for r in runs if r.fatal), None)
    if fatal is not None:
        return fatal.failure
    if surveyed and all(r.nothing or r.failure for r in surveyed):
        return (
            f"nothing was measured: no payload sent to any of the {len(surveyed)} "
            f"{noun}s surveyed came back (the lines starting 'warning:' say why)."
        )
    if not surveyed:
        return f"nothing was measured: {none_surveyed(inv, noun)}"
    failures = [r for r in runs if r.failure]
    if failures:
        names = ", ".join(safe(r.param.name) for r in failures)
        return (
            f"{len(failures)} of the {len(runs)} {noun}s run broke ({names}); the "
            "lines starting 'failed:' say why, and the results are kept."
        )
    return unmeasured([r.param.name for r in _unmeasured(runs)], surveyed=len(runs), noun=noun)


def _unmeasured(runs: Sequence[ParamRun]) -> list[ParamRun]:
    """The parameters run that measured nothing: no read-back, arguments that could
    not be made, or every payload lost or rejected (a run that broke is counted apart)."""
    return [r for r in runs if not r.failure and (r.nothing or (r.card is None and r.skipped))]


def none_surveyed(inv: Rows, noun: str = "tool parameter") -> str:
    """Why no row was surveyed, in one sentence (the end of "nothing was measured: ")."""
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
    never = sum(len(never_applied(r)) for r in surveyed)
    if never:
        line += f"; {never} edit{'s' if never != 1 else ''} never applied"
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
