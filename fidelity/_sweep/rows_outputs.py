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

__all__ = ["RowsJson", "RowsPage", "collection", "rows_writers", "write_progress"]


def collection(inv: Rows, runs: Sequence[ParamRun], *, complete: bool) -> str:
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
    }
    return dump(document)


def write_progress(plan: ProbePlan, inv: Rows, runs: Sequence[ParamRun], *, complete: bool) -> None:
    """Keep the JSON result file current after each parameter (not ``-``: stdout gets
    the final result only)."""
    from fidelity._report.document import write as write_atomic

    if plan.json is not None and plan.json != "-":
        write_atomic(plan.json, collection(inv, runs, complete=complete), "--json")


def _runs(event: RunDone) -> list[ParamRun]:
    outcome = event.outcome
    return [r for r in outcome if isinstance(r, ParamRun)] if isinstance(outcome, tuple) else []


class RowsJson:
    """``--json`` of a run over many rows: the card collection, kept current after each
    row (not ``-``: stdout gets the final result only), written whole when it is done."""

    def __init__(self, plan: ProbePlan, inv: Rows) -> None:
        self.plan = plan
        self.inv = inv
        self.runs: list[ParamRun] = []

    def __call__(self, event: Event) -> None:
        from fidelity._report.document import write as write_atomic

        json_path = self.plan.json
        if json_path is None:
            return
        if isinstance(event, TargetDone) and isinstance(event.outcome, ParamRun):
            self.runs.append(event.outcome)
            write_progress(self.plan, self.inv, self.runs, complete=False)
        elif isinstance(event, RunDone) and not event.failed:
            text = collection(self.inv, _runs(event), complete=event.complete)
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


def rows_writers(plan: ProbePlan, inv: Rows, noun: str) -> tuple[Handler, ...]:
    """The handlers that write a run over many rows, in order: the JSON collection, a
    --card block per row (a card of a run that did not complete never replaces a
    complete block), the --html page, the --junit cases."""
    from fidelity._sweep.outputs import CardBlocks, JunitCases

    return (RowsJson(plan, inv), CardBlocks(plan), RowsPage(plan, inv, noun), JunitCases(plan))
