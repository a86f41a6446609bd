"""The outputs of a run over many rows (``--all-tools``, ``--openapi``): the JSON card
collection (kept current after each row), a ``--card`` block per row, the ``--html``
page with a section per tool (operation), the ``--junit`` cases; each written on its
own: handlers of the run's events (:mod:`fidelity._run.events`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._report.card_render import card_dict
from fidelity._run.events import Event, RunDone, TargetDone
from fidelity._sweep.rows_model import ParamRun

if TYPE_CHECKING:
    from fidelity._run.events import Handler
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import Rows

__all__ = [
    "RowsJson",
    "RowsJunit",
    "RowsPage",
    "collection",
    "rows_writers",
    "unmeasured_cases",
    "verdict",
    "write_progress",
]


def unmeasured_cases(
    plan: ProbePlan, inv: Rows, runs: Sequence[ParamRun], noun: str
) -> list[tuple[str, str, str]]:
    """The JUnit ``<error>`` cases of a run over many rows, (target, case, sentence): each
    row surveyed that ended without a card (it broke, its read-back or arguments could
    not be made, the run stopped before it), and, when no row got a card and none of
    those was, the run itself: it measured nothing."""
    from fidelity._sweep.rows_verdict import none_surveyed

    target = plan.shown_target
    cases = [
        (target, _case_name(r.param), r.failure or r.skipped or r.nothing)
        for r in runs
        if r.card is None and (r.failure or r.skipped or r.nothing)
    ]
    done = {r.param.name for r in runs}
    cases += [
        (target, _case_name(p), f"not measured: the run stopped before this {noun}")
        for p in inv.surveyed
        if p.name not in done
    ]
    if not cases and not any(r.card is not None for r in runs):
        cases.append((target, plan.name, f"nothing was measured: {none_surveyed(inv, noun)}"))
    return cases


def _case_name(row: object) -> str:
    """A row's case name: the name its card would have had."""
    return str(getattr(row, "block_name", None) or getattr(row, "name", ""))


def collection(
    inv: Rows,
    runs: Sequence[ParamRun],
    *,
    complete: bool,
    plan: ProbePlan | None = None,
    noun: str = "tool parameter",
) -> str:
    """The JSON collection of a run over many rows; with ``plan``, its ``unmeasured_rows``
    cases too (what ``fidelity card --junit`` makes ``<error>`` cases of)."""
    from fidelity._report.json_doc import COLLECTION, SCHEMA_VERSION, dump

    cards = [r.card for r in runs if r.card is not None]
    done = {r.param.name for r in runs}
    skipped = [
        {"tool": p.tool.name, "param": str(p.path), "reason": p.skipped} for p in inv.skipped
    ] + [
        {"tool": r.param.tool.name, "param": str(r.param.path), "reason": r.skipped}
        for r in runs
        if r.card is None and r.skipped
    ]
    document = {
        "schema_version": SCHEMA_VERSION,
        "record": COLLECTION,
        "cards": [card_dict(c) for c in cards],
        "not_surveyed": skipped,
        "not_reached": [p.name for p in inv.surveyed if p.name not in done],
        "paired": [r.paired for r in runs if r.paired],
        "tools_without_string_parameters": [t.name for t in inv.without_strings],
        "complete": complete,
        "verdict": verdict(inv, runs),
    }
    if plan is not None:
        document["unmeasured_rows"] = [
            {"target": target, "case": case, "error": error}
            for target, case, error in unmeasured_cases(plan, inv, runs, noun)
        ]
    return dump(document)


def verdict(inv: Rows, runs: Sequence[ParamRun]) -> dict[str, object]:
    """The run's verdict as the JSON result holds it, by the exit rule the terminal
    follows: ``exit_code``, the ``findings`` beyond ``--allow`` (rewrite kinds, ``N
    lost``, ``N not applied``) and the sentence of what was ``unmeasured``."""
    from fidelity._run.verdict import exit_rule
    from fidelity._sweep.rows_verdict import findings, problem

    surveyed = [r for r in runs if r.card is not None]
    found = findings(surveyed)
    unmeasured = problem(inv, runs, surveyed)
    code = exit_rule(findings=bool(found), unmeasured=bool(unmeasured))
    return {"exit_code": code, "findings": found, "unmeasured": unmeasured}


def write_progress(
    plan: ProbePlan,
    inv: Rows,
    runs: Sequence[ParamRun],
    *,
    complete: bool,
    noun: str = "tool parameter",
) -> None:
    """Keep the JSON result file current after each parameter (not ``-``: stdout gets
    the final result only)."""
    from fidelity._report.document import write as write_atomic

    if plan.json is not None and plan.json != "-":
        text = collection(inv, runs, complete=complete, plan=plan, noun=noun)
        write_atomic(plan.json, text, "--json")


def _runs(event: RunDone) -> list[ParamRun]:
    outcome = event.outcome
    return [r for r in outcome if isinstance(r, ParamRun)] if isinstance(outcome, tuple) else []


class RowsJson:
    """``--json`` of a run over many rows: the card collection, kept current after each
    row (not ``-``: stdout gets the final result only), written whole when it is done."""

    def __init__(self, plan: ProbePlan, inv: Rows, noun: str = "tool parameter") -> None:
        self.plan = plan
        self.inv = inv
        self.noun = noun
        self.runs: list[ParamRun] = []

    def __call__(self, event: Event) -> None:
        from fidelity._report.document import write as write_atomic

        json_path = self.plan.json
        if json_path is None:
            return
        if isinstance(event, TargetDone) and isinstance(event.outcome, ParamRun):
            self.runs.append(event.outcome)
            write_progress(self.plan, self.inv, self.runs, complete=False, noun=self.noun)
        elif isinstance(event, RunDone) and not event.failed:
            text = collection(
                self.inv, _runs(event), complete=event.complete, plan=self.plan, noun=self.noun
            )
            if json_path == "-":
                sys.stdout.write(text)
                sys.stdout.flush()
            else:
                write_atomic(json_path, text, "--json")


class RowsPage:
    """``--html`` of a run over many rows: a section per tool (operation)."""

    def __init__(self, plan: ProbePlan, inv: Rows, noun: str) -> None:
        self.plan = plan
        self.inv = inv
        self.noun = noun

    def __call__(self, event: Event) -> None:
        if self.plan.html is None or not isinstance(event, RunDone) or event.failed:
            return
        from fidelity._core.version import __version__
        from fidelity._report.document import write as write_atomic
        from fidelity._report.html.tools import render_tools_html

        runs, inv = _runs(event), self.inv
        skipped = [(p.tool.name, str(p.path), p.skipped) for p in inv.skipped] + [
            (r.param.tool.name, str(r.param.path), r.skipped)
            for r in runs
            if r.card is None and r.skipped
        ]
        page = render_tools_html(
            self.plan.shown_target,
            [(r.param.tool.name, str(r.param.path), r.card) for r in runs if r.card is not None],
            skipped,
            version=__version__,
            order=[p.tool.name for p in inv.params],
            noun=self.noun,
        )
        write_atomic(self.plan.html, page, "--html")


class RowsJunit:
    """``--junit`` of a run over many rows: a case per card, judged by the run layer, and
    an ``<error>`` case for every row surveyed that ended without one (it broke, its
    read-back or arguments could not be made, the run stopped before it), so the file
    and the exit code agree: a run that measured nothing is never ``tests=0``, green."""

    def __init__(self, plan: ProbePlan, inv: Rows, noun: str) -> None:
        self.plan = plan
        self.inv = inv
        self.noun = noun

    def __call__(self, event: Event) -> None:
        if self.plan.junit is None or not isinstance(event, RunDone) or event.failed:
            return
        from fidelity._sweep.junit import write_junit

        failed = unmeasured_cases(self.plan, self.inv, _runs(event), self.noun)
        write_junit(self.plan.junit, list(event.cards), failed)


def rows_writers(plan: ProbePlan, inv: Rows, noun: str) -> tuple[Handler, ...]:
    """The handlers that write a run over many rows, in order: the JSON collection, a
    --card block per row (a card of a run that did not complete never replaces a
    complete block), the --html page, the --junit cases."""
    from fidelity._sweep.outputs import CardBlocks

    return (
        RowsJson(plan, inv, noun),
        CardBlocks(plan),
        RowsPage(plan, inv, noun),
        RowsJunit(plan, inv, noun),
    )
