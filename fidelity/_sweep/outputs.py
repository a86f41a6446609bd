"""The outputs of ``fidelity probe`` (``--json``, ``--card``, ``--html``): checked before
anything is sent, written at the end, each on its own.

:func:`check_outputs` runs before the first request: every output path must be one
that may be replaced (see :func:`fidelity._report.results.writable`), and the card's
document must be readable, UTF-8, with well-formed markers, and the block name usable in
a marker. The outputs are handlers of the run's events (:mod:`fidelity._run.events`):
:class:`JsonResult` keeps the result file current as observations arrive,
:class:`CardBlocks`, :class:`CardPage` and :class:`JunitCases` write the run's cards
when it is done, each output atomically; one that fails does not keep the others
from being written, and its error is raised once they are (:func:`write_reports`:
the same for one card). A run that did not end in good order (interrupted, stopped
by the circuit breaker) never replaces a complete card block: the block stays as it
was and a note says where the partial result is.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._report.card_render import card_html, card_json, card_markdown
from fidelity._run.events import Dispatch, Event, ObservationMade, RunDone, RunStarted
from fidelity._sweep.plan import ProbePlan

if TYPE_CHECKING:
    from fidelity._report.card import Card
    from fidelity._report.results import ResultWriter
    from fidelity._run.events import Handler

__all__ = [
    "MAX_CARD_DOCUMENT",
    "CardBlocks",
    "CardPage",
    "JsonResult",
    "JunitCases",
    "card_writers",
    "check_outputs",
    "refuse_other_target",
    "write_card",
    "write_each",
    "write_reports",
]

#: Largest document --card rewrites (a card block is a few KiB).
MAX_CARD_DOCUMENT = 64 * 1024 * 1024


def _outputs(plan: ProbePlan) -> tuple[tuple[str, str], ...]:
    given = (
        ("--json", plan.json),
        ("--card", plan.card),
        ("--html", plan.html),
        ("--junit", plan.junit),
    )
    return tuple((option, path) for option, path in given if path is not None and path != "-")


def _document(plan: ProbePlan) -> bytes:
    from fidelity._report import document

    assert plan.card is not None
    return document.read(plan.card, "--card", limit=MAX_CARD_DOCUMENT, missing=b"")


def check_outputs(plan: ProbePlan, name: str | None = None, *, more: Sequence[str] = ()) -> None:
    """Raise :class:`UsageError` for an output that could not be written; send nothing.

    ``name`` is the card's block name once the open probe resolved it (the payload's
    argument may be found from the tool's schema); the plan's own name until then;
    ``more``: other block names the run writes (one per tool parameter), checked in
    the same reading of the document.
    """
    from fidelity._report import document

    for option, path in _outputs(plan):
        document.writable(path, option)
    if plan.card is not None:
        data = _document(plan)
        for block_name in (name or plan.name, *more):
            document.find(data, block_name, what=f"--card {safe(plan.card)}")


def _recorded_target(content: str) -> str | None:
    """The target of the command a card block says it was probed with (``None``: the
    block records none)."""
    import shlex

    lines = content.splitlines()
    for at, line in enumerate(lines):
        if line.startswith("Probed with") and at + 3 < len(lines):
            try:
                words = shlex.split(lines[at + 3])
            except ValueError:
                return None
            if "--" in words:
                return shlex.join(words[words.index("--") + 1 :])
            if "--mcp" in words and words.index("--mcp") + 1 < len(words):
                return words[words.index("--mcp") + 1]
            return words[2] if len(words) > 2 and words[:2] == ["fidelity", "probe"] else None
    return None


def refuse_other_target(plan: ProbePlan, name: str, target: str) -> None:
    """Refuse a ``--card`` document that holds a block ``name`` of another HTTP target
    (the URL as the block records it), unless ``--name`` gave the name."""
    from fidelity._report.block import find_block

    if plan.card is None or plan.given_name is not None:
        return
    block = find_block(_document(plan), name)
    recorded = _recorded_target(block.content) if block is not None else None
    if recorded is not None and recorded != target:
        raise UsageError(
            f"--card {safe(plan.card)} already holds a block {safe(name)!r} of another target "
            f"({safe(recorded)}); give this one its own --name, or --name {safe(name)!r} to "
            "replace that block."
        )


def write_card(plan: ProbePlan, card: Card, writer: Any) -> None:
    """Write ``card``'s block in the --card document, under the document's lock (other
    writers of the same document keep their blocks). A card of a run that did not
    complete never replaces a complete block: a note says where the partial result is."""
    from fidelity._report import document
    from fidelity._report.markdown import is_incomplete

    assert plan.card is not None
    kept = False

    def edit(text: bytes) -> bytes | None:
        nonlocal kept
        if not card.complete:
            block = document.find(text, card.name)
            if block is not None and not is_incomplete(block.content):
                kept = True
                return None
        return document.replace(text, card.name, card_markdown(card))

    document.update(plan.card, edit, "--card", limit=MAX_CARD_DOCUMENT)
    if not kept:
        return
    if writer is None:
        where = "was not kept (pass --json FILE to keep one)"
    elif writer.to_stdout:
        where = "is the JSON on standard output"
    else:
        where = f"is in {safe(plan.json or '')}"
    print(
        f"fidelity: note: the run did not complete, so the complete block "
        f"{safe(card.name)} in {safe(plan.card)} was kept as it was; "
        f"the partial result {where}.",
        file=sys.stderr,
    )


class JsonResult:
    """``--json`` of a run with one card: the result file written when the run starts,
    kept current with each observation, and the card's JSON when it is done (a run
    that ended by an error keeps the observations it saw)."""

    def __init__(self, writer: ResultWriter | None) -> None:
        self.writer = writer

    def __call__(self, event: Event) -> None:
        writer = self.writer
        if writer is None:
            return
        if isinstance(event, RunStarted):
            writer.start()
        elif isinstance(event, ObservationMade):
            writer.add(event.observation)
        elif isinstance(event, RunDone):
            if event.failed or not event.cards:
                writer.checkpoint()
            else:
                writer.finish(card_json(event.cards[0]))


class CardBlocks:
    """``--card``: each card's block in the document, each on its own, when the run is
    done (``json``: the run's JSON result, which the note of a kept block names)."""

    def __init__(self, plan: ProbePlan, json: JsonResult | None = None) -> None:
        self.plan = plan
        self.json = json

    def __call__(self, event: Event) -> None:
        if self.plan.card is None or not isinstance(event, RunDone) or event.failed:
            return
        writer = self.json.writer if self.json is not None else None
        write_each([functools.partial(write_card, self.plan, card, writer) for card in event.cards])


class CardPage:
    """``--html`` of a run with one card: the card's report page."""

    def __init__(self, plan: ProbePlan) -> None:
        self.plan = plan

    def __call__(self, event: Event) -> None:
        from fidelity._report.document import write as write_atomic

        if self.plan.html is None or not isinstance(event, RunDone):
            return
        if event.failed or not event.cards:
            return
        write_atomic(self.plan.html, card_html(event.cards[0]), "--html")


class JunitCases:
    """``--junit``: the cards' cases, judged by the run layer."""

    def __init__(self, plan: ProbePlan) -> None:
        self.plan = plan

    def __call__(self, event: Event) -> None:
        if self.plan.junit is None or not isinstance(event, RunDone) or event.failed:
            return
        from fidelity._sweep.junit import write_junit

        write_junit(self.plan.junit, list(event.cards))


def card_writers(plan: ProbePlan, writer: ResultWriter | None) -> tuple[Handler, ...]:
    """The handlers that write a one-card run's outputs, in order: the JSON result
    (through ``writer``), the HTML page, the card block, the JUnit cases."""
    json = JsonResult(writer)
    return (json, CardPage(plan), CardBlocks(plan, json), JunitCases(plan))


def write_reports(plan: ProbePlan, card: Card, writer: Any) -> None:
    """Write the JSON result (through ``writer``), the HTML report and the card block.

    Each is written even when another fails; the first failure is raised afterwards.
    """
    Dispatch(card_writers(plan, writer))(RunDone(complete=card.complete, cards=(card,)))


def write_each(steps: Sequence[Callable[[], object]]) -> None:
    """Run every writing step, each on its own: one that cannot write does not keep the
    others from writing; then raise the first failure (one sentence)."""
    failures: list[UsageError] = []
    for step in steps:
        try:
            step()
        except UsageError as exc:
            failures.append(exc)
    if failures:
        raise failures[0]
