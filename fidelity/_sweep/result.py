"""What :func:`fidelity.sweep` returns: a :class:`Sweep`, one :class:`SweepRow` per
string parameter of the target (a tool parameter, an operation field), the exit code of
``fidelity probe`` for the same run, and the run's outputs as the CLI writes them: the
``--json`` document, the ``--card`` blocks, the ``--html`` page, the ``--junit`` cases.

The record is built by a handler of the run's events (:class:`Recorder`): the library's
listener, where the CLI's is its terminal. A sweep of a configuration file's servers is
built from how they ended (:func:`fleet_sweep`): its outputs are ``--config``'s.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from fidelity._core.errors import UsageError
from fidelity._run.events import Event, RunDone
from fidelity._sweep.rows_model import ParamRun

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._report.card import Card
    from fidelity._run.events import Handler
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import Rows
    from fidelity._sweep.servers import Fleet

__all__ = ["Recorder", "Sweep", "SweepRow", "fleet_sweep"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepRow:
    """One string parameter of the target and how it ended.

    ``name`` is ``TOOL.PARAM`` (``METHOD /path FIELD`` for an OpenAPI operation's field,
    ``SERVER.TOOL.PARAM`` for a server of a configuration file); ``card`` its contract
    card when it was surveyed, else ``None`` and ``skipped`` says why (constrained,
    needs ``yes``, no read-back...). ``unexpected`` holds the kinds of rewrite beyond
    ``allow``; ``failure`` the sentence of a run that broke and ``nothing`` that of one
    that measured nothing (both make the exit code 3, unless a finding of another row
    makes it 1).
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
    ``exit_code`` is the one ``fidelity probe`` exits with for the same run, by the
    one rule of every output (:func:`fidelity._run.verdict.exit_rule`): 1 when any
    finding beyond ``allow`` exists (a rewrite, a payload lost, an edit that never
    applied), even if other parameters measured nothing; 3 when nothing was found and
    the run broke or something measured nothing (``message`` says why in one
    sentence); 0 otherwise; ``complete`` is False when the run
    stopped before every parameter (the server went away); ``tools_without_strings``
    names the tools (operations) that have no string parameter. With ``config=``, the
    rows are every server's (cards first, in the file's order), ``failed`` lists the
    servers that could not be surveyed at all (server, sentence), and ``message`` is
    the sentence of a glob that matched no tool of any server reached (exit code 2).
    """

    rows: tuple[SweepRow, ...]
    exit_code: int
    message: str = ""
    complete: bool = True
    tools_without_strings: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    _outputs: _Outputs = field(repr=False, compare=False)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards of the parameters surveyed, in order."""
        return self._outputs.cards

    @property
    def beyond_allow(self) -> tuple[SweepRow, ...]:
        """The rows whose values came back rewritten beyond ``allow``."""
        return tuple(r for r in self.rows if r.unexpected)

    def to_json(self) -> str:
        """The JSON document ``fidelity probe --json`` writes for the same run (the card
        collection, the parameters not surveyed and why, the tools without a string
        parameter; with ``config=``, every server's cards and the servers that
        failed)."""
        return self._outputs.to_json()

    def write_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path`` (atomically, as ``--json FILE`` does)."""
        from fidelity._report.document import write

        write(path, self.to_json(), "--json")

    def write_card(self, path: str) -> None:
        """Write each card's block in the Markdown document ``path``, as ``--card DOC.md``
        does: the other text and blocks of the document are kept; a missing document is
        created."""
        self._outputs.write_card(path)

    def write_html(self, path: str) -> None:
        """Write the HTML page of the run, a section per tool, as ``--html FILE`` does
        (a ``config=`` sweep has none, as ``--config`` has no ``--html``: it raises
        :class:`UsageError`)."""
        self._outputs.write_html(path)

    def write_junit(self, path: str) -> None:
        """Write the cards' JUnit XML cases, as ``--junit FILE`` does (with ``config=``,
        a case per server that failed too)."""
        self._outputs.write_junit(path)


class _Outputs(Protocol):
    """What a sweep writes: of one target's rows, or of a configuration's servers."""

    @property
    def cards(self) -> tuple[Card, ...]: ...
    def to_json(self) -> str: ...
    def write_card(self, path: str) -> None: ...
    def write_html(self, path: str) -> None: ...
    def write_junit(self, path: str) -> None: ...


@dataclass(frozen=True, slots=True)
class _RowsOutputs:
    """The outputs of one target's run over its rows, as ``fidelity probe`` writes them."""

    plan: ProbePlan
    inv: Rows
    runs: tuple[ParamRun, ...]
    noun: str
    complete: bool

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(r.card for r in self.runs if r.card is not None)

    def to_json(self) -> str:
        from fidelity._sweep.rows_outputs import collection

        return collection(
            self.inv, self.runs, complete=self.complete, plan=self.plan, noun=self.noun
        )

    def write_card(self, path: str) -> None:
        from fidelity._sweep.outputs import CardBlocks

        CardBlocks(dataclasses.replace(self.plan, card=path))(self._done())

    def write_html(self, path: str) -> None:
        from fidelity._sweep.rows_outputs import RowsPage

        RowsPage(dataclasses.replace(self.plan, html=path), self.inv, self.noun)(self._done())

    def write_junit(self, path: str) -> None:
        # A case per card, and an <error> case per row surveyed that measured nothing.
        from fidelity._sweep.junit import write_junit
        from fidelity._sweep.rows_outputs import unmeasured_cases

        failed = unmeasured_cases(self.plan, self.inv, self.runs, self.noun)
        write_junit(path, list(self.cards), failed)

    def _done(self) -> RunDone:
        return RunDone(complete=self.complete, cards=self.cards, outcome=self.runs)


@dataclass(frozen=True, slots=True)
class _FleetOutputs:
    """The outputs of a configuration's servers, as ``fidelity probe --config`` writes
    them."""

    cards: tuple[Card, ...]
    failed: tuple[tuple[str, str], ...]

    def to_json(self) -> str:
        from fidelity._sweep.joined import collection

        return collection(self.cards, self.failed)

    def write_card(self, path: str) -> None:
        from fidelity._sweep.joined import write_cards

        write_cards(self.cards, card_path=path)

    def write_html(self, path: str) -> None:
        del path
        raise UsageError(
            "a sweep of a configuration file has no HTML page (--config has no --html); "
            "write its cards with write_card() or write_junit()."
        )

    def write_junit(self, path: str) -> None:
        from fidelity._sweep.joined import write_cards

        write_cards(self.cards, junit_path=path, failed=self.failed)


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
        verdict rules; an empty ``message`` becomes what could not be measured, if
        anything)."""
        assert self.inv is not None, "the run found no rows"
        assert self.done is not None, "the run did not end"
        inv, outcome = self.inv, self.done.outcome
        ended = outcome if isinstance(outcome, tuple) else ()
        runs = tuple(r for r in ended if isinstance(r, ParamRun))
        if not message:
            # What could not be measured, said even when a finding makes it exit 1.
            from fidelity._sweep.rows_verdict import problem

            message = problem(inv, runs, [r for r in runs if r.card is not None], self.noun)
        return Sweep(
            rows=_rows(inv, runs),
            exit_code=exit_code,
            message=message,
            complete=self.done.complete,
            tools_without_strings=tuple(t.name for t in inv.without_strings),
            _outputs=_RowsOutputs(plan, inv, runs, self.noun, self.done.complete),
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


def fleet_sweep(fleet: Fleet) -> Sweep:
    """The record of a configuration's servers that ended: a row per card
    (``SERVER.TOOL.PARAM``, in the file's order), then a row per parameter a server's
    part says was not surveyed, then not reached; the exit code and outputs are
    ``--config``'s."""
    from fidelity._sweep.execute import readable_name

    rows = [
        SweepRow(
            name=card.name,
            tool=card.facts.setup.tool if card.facts.setup is not None else "",
            param=card.facts.setup.param if card.facts.setup is not None else "",
            card=card,
            unexpected=card.kinds - frozenset(card.facts.allow),
        )
        for card in fleet.cards
    ]
    parts = [(server, _part(text)) for server, text in fleet.parts]
    rows += [
        SweepRow(
            name=readable_name(f"{server}.{item['tool']}.{item['param']}"),
            tool=str(item["tool"]),
            param=str(item["param"]),
            skipped=str(item["reason"]),
        )
        for server, part in parts
        for item in _items(part, "not_surveyed")
        if isinstance(item, dict) and {"tool", "param", "reason"} <= set(item)
    ]
    rows += [
        SweepRow(
            name=readable_name(f"{server}.{name}"),
            tool=str(name).partition(".")[0],
            param=str(name).partition(".")[2],
            skipped=_NOT_REACHED,
        )
        for server, part in parts
        for name in _items(part, "not_reached")
    ]
    return Sweep(
        rows=tuple(rows),
        exit_code=fleet.exit_code,
        message=fleet.unmatched,
        complete=all(part.get("complete", True) is True for _, part in parts),
        tools_without_strings=tuple(
            readable_name(f"{server}.{name}")
            for server, part in parts
            for name in _items(part, "tools_without_string_parameters")
        ),
        failed=fleet.failed,
        _outputs=_FleetOutputs(fleet.cards, fleet.failed),
    )


def _part(text: str) -> dict[str, Any]:
    """A server's part as its child wrote it (``{}``: none, or not JSON)."""
    try:
        raw = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _items(part: dict[str, Any], key: str) -> list[Any]:
    items = part.get(key, [])
    return items if isinstance(items, list) else []
