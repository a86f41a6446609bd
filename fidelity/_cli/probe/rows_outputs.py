"""The outputs of a run over many rows (``--all-tools``, ``--openapi``): the JSON card
collection (kept current after each row), a ``--card`` block per row, the ``--html``
page with a section per tool (operation), the ``--junit`` cases; each written on its
own (:func:`~fidelity._cli.probe.outputs.write_each`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fidelity._cli.probe.plan import ProbePlan
    from fidelity._cli.probe.rows_model import ParamRun, Rows

__all__ = ["collection", "write_all", "write_progress"]


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
        "cards": [c.to_dict() for c in cards],
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


def write_all(plan: ProbePlan, inv: Rows, runs: Sequence[ParamRun], *, complete: bool) -> None:
    """Write the JSON collection, the --html page and a --card block per parameter,
    each on its own (as the single-tool form does; a card of a run that did not
    complete never replaces a complete block); the first failure is raised after."""
    from fidelity._cli.probe.outputs import write_card, write_each
    from fidelity._report.document import write as write_atomic

    steps: list[Any] = []
    if plan.json is not None:
        text = collection(inv, runs, complete=complete)
        if plan.json == "-":
            steps.append(lambda: (sys.stdout.write(text), sys.stdout.flush()))
        else:
            json_path = plan.json
            steps.append(lambda: write_atomic(json_path, text, "--json"))
    cards = [r.card for r in runs if r.card is not None]
    if plan.card is not None:
        steps += [lambda card=card: write_card(plan, card, None) for card in cards]
    if plan.html is not None:
        from fidelity._core.version import __version__
        from fidelity._report.html.tools import render_tools_html

        skipped = [(p.tool.name, str(p.path), p.skipped) for p in inv.skipped] + [
            (r.param.tool.name, str(r.param.path), r.skipped)
            for r in runs
            if r.card is None and r.skipped
        ]
        page = render_tools_html(
            plan.shown_target,
            [(r.param.tool.name, str(r.param.path), r.card) for r in runs if r.card is not None],
            skipped,
            version=__version__,
            order=[p.tool.name for p in inv.params],
        )
        html_path = plan.html
        steps.append(lambda: write_atomic(html_path, page, "--html"))
    if plan.junit is not None:
        from fidelity._cli.junit import write_junit

        junit_path = plan.junit
        steps.append(lambda: write_junit(junit_path, cards))
    write_each(steps)
