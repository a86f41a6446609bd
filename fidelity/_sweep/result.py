"""What :func:`fidelity.sweep` returns: a :class:`Sweep`, one :class:`SweepRow` per
string parameter of the target (a tool parameter, an operation field), the exit code of
``fidelity probe`` for the same run, and the run's outputs as the CLI writes them: the
``--json`` document, the ``--card`` blocks, the ``--html`` page, the ``--junit`` cases.

The record is built by a handler of the run's events (:class:`Recorder`): the library's
listener, where the CLI's is its terminal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fidelity._run.events import Event, RunDone
from fidelity._sweep.rows_model import ParamRun

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.card import Card
    from fidelity._run.events import Handler
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import Rows

__all__ = ["Recorder", "Sweep", "SweepRow"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepRow:
    """One string parameter of the target and how it ended.

    ``name`` is ``TOOL.PARAM`` (``METHOD /path FIELD`` for an OpenAPI operation's field);
    ``card`` its contract card when it was surveyed, else ``None`` and ``skipped`` says
    why (constrained, needs ``yes``, no read-back...). ``unexpected`` holds the kinds of
    rewrite beyond ``allow``; ``failure`` the sentence of a run that broke and
    ``nothing`` that of one that measured nothing (both make the exit code 3).
    """

    name: str
    tool: str
    param: str
    card: Card | None = None
    skipped: str = ""
    unexpected: frozenset[str] = frozenset()
    failure: str = ""
    nothing: str = ""
    paired: str = ""

    @property
    def surveyed(self) -> bool:
        """True when the parameter was measured (it has a card)."""
        return self.card is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Sweep:
    """The result of :func:`fidelity.sweep`: every string parameter of the target.

    ``rows`` lists the parameters run, in order (each with its card, or ``card``
    ``None`` and the reason it measured nothing), then those left out before the run
    (constrained, needing ``yes``, not matched by ``only_tools``...), then those the
    run did not reach;
    ``exit_code`` is the one ``fidelity probe`` exits with for the same run (0: every
    value came back; 1: rewrites beyond ``allow``; 3: the run broke or measured
    nothing, ``message`` says why in one sentence); ``complete`` is False when the run
    stopped before every parameter (the server went away); ``tools_without_strings``
    names the tools (operations) that have no string parameter.
    """

    rows: tuple[SweepRow, ...]
    exit_code: int
    message: str = ""
    complete: bool = True
    tools_without_strings: tuple[str, ...] = ()
    _plan: ProbePlan = field(repr=False, compare=False)
    _inv: Rows = field(repr=False, compare=False)
    _runs: tuple[ParamRun, ...] = field(repr=False, compare=False)
    _noun: str = field(default="tool parameter", repr=False, compare=False)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards of the parameters surveyed, in order."""
        return tuple(r.card for r in self._runs if r.card is not None)

    @property
    def beyond_allow(self) -> tuple[SweepRow, ...]:
        """The rows whose values came back rewritten beyond ``allow``."""
        return tuple(r for r in self.rows if r.unexpected)

    def to_json(self) -> str:
        """The JSON document ``fidelity probe --json`` writes for the same run (the card
        collection, the parameters not surveyed and why, the tools without a string
        parameter)."""
        from fidelity._sweep.rows_outputs import collection

        return collection(self._inv, self._runs, complete=self.complete)

    def write_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path`` (atomically, as ``--json FILE`` does)."""
        from fidelity._report.document import write

        write(path, self.to_json(), "--json")

    def write_card(self, path: str) -> None:
        """Write each card's block in the Markdown document ``path``, as ``--card DOC.md``
        does: the other text and blocks of the document are kept; a missing document is
        created."""
        from fidelity._sweep.outputs import CardBlocks

        CardBlocks(dataclasses.replace(self._plan, card=path))(self._done())

    def write_html(self, path: str) -> None:
        """Write the HTML page of the run, a section per tool, as ``--html FILE`` does."""
        from fidelity._sweep.rows_outputs import RowsPage

        RowsPage(dataclasses.replace(self._plan, html=path), self._inv, self._noun)(self._done())

    def write_junit(self, path: str) -> None:
        """Write the cards' JUnit XML cases, as ``--junit FILE`` does."""
        from fidelity._sweep.junit import write_junit

        write_junit(path, list(self.cards))

    def _done(self) -> RunDone:
        return RunDone(complete=self.complete, cards=self.cards, outcome=self._runs)


class Recorder:
    """The library's listener of a run over many rows: it keeps what the run found and
    how each row ended, and prints nothing (the CLI's listener is its terminal)."""

    def __init__(self) -> None:
        self.inv: Rows | None = None
        self.noun = "tool parameter"
        self.done: RunDone | None = None

    def listen(self, inv: Rows, payloads: Sequence[Payload], noun: str) -> Sequence[Handler]:
        """The handlers of the run: this recorder (see :data:`~fidelity._sweep.rows.Listen`)."""
        del payloads
        self.inv, self.noun = inv, noun
        return (self,)

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunDone):
            self.done = event

    def sweep(self, plan: ProbePlan, exit_code: int, message: str) -> Sweep:
        """The record of the run that ended (``exit_code`` and ``message`` by the CLI's
        verdict rules)."""
        assert self.inv is not None, "the run found no rows"
        assert self.done is not None, "the run did not end"
        inv, outcome = self.inv, self.done.outcome
        ended = outcome if isinstance(outcome, tuple) else ()
        runs = tuple(r for r in ended if isinstance(r, ParamRun))
        return Sweep(
            rows=_rows(inv, runs),
            exit_code=exit_code,
            message=message,
            complete=self.done.complete,
            tools_without_strings=tuple(t.name for t in inv.without_strings),
            _plan=plan,
            _inv=inv,
            _runs=runs,
            _noun=self.noun,
        )


def _rows(inv: Rows, runs: Sequence[ParamRun]) -> tuple[SweepRow, ...]:
    """A row per parameter: those run, in order, then those the inventory left out."""
    rows = [
        SweepRow(
            name=r.param.name,
            tool=r.param.tool.name,
            param=str(r.param.path),
            card=r.card,
            skipped=r.skipped if r.card is None else "",
            unexpected=r.unexpected,
            failure=r.failure,
            nothing=r.nothing,
            paired=r.paired,
        )
        for r in runs
    ]
    rows += [
        SweepRow(name=p.name, tool=p.tool.name, param=str(p.path), skipped=p.skipped)
        for p in inv.skipped
    ]
    done = {r.param.name for r in runs}
    rows += [
        SweepRow(name=p.name, tool=p.tool.name, param=str(p.path), skipped=_NOT_REACHED)
        for p in inv.surveyed
        if p.name not in done
    ]
    return tuple(rows)


_NOT_REACHED = "not reached (the run stopped first)"
