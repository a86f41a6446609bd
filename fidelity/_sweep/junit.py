"""``--junit FILE``: the JUnit XML of a run's cards, for ``fidelity probe``,
``fidelity survey`` and ``fidelity card``.

The cases are made from the cards a run writes (the same cards its ``--json`` holds),
and each is judged by the run layer's rules (:func:`fidelity._run.verdict.error_of`),
so the JUnit of a run and the JUnit of its ``--json`` parts joined by ``fidelity
card`` are the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fidelity._report.card import Card
from fidelity._report.junit import JUnitCase, JUnitSuite, card_case, family_cases, render_junit
from fidelity._run.verdict import error_of

__all__ = ["suites_of", "write_junit"]


def _cases(card: Card) -> tuple[JUnitCase, ...]:
    if card.facts.setup is None:  # a built-in chain of fidelity survey
        return family_cases(card)
    if card.clients is None:
        return (card_case(card, error=error_of(card.observations, complete=card.complete)),)
    cases = []
    for run in card.clients.runs:
        error = run.error if not run.complete and run.error else ""
        cases.append(
            card_case(
                card,
                name=f"{card.name} [{run.client}]",
                rows=run.rows,
                observations=run.observations,
                error=error or error_of(run.observations, complete=run.complete),
            )
        )
    return tuple(cases)


def suites_of(
    cards: Iterable[Card], failed: Sequence[tuple[str, str, str]] = ()
) -> tuple[JUnitSuite, ...]:
    """A suite per target (the server or endpoint the cards' setup names, in the order
    first seen), a case per card (per client with ``--clients``, per family for a
    survey's chain); ``failed``: (target, case name, sentence) of parameters whose run
    ended without a card."""
    order: dict[str, list[JUnitCase]] = {}
    for card in cards:
        # A survey's chain is its own target; a probe's cards share their server's.
        setup = card.facts.setup
        target = card.name if setup is None else setup.target
        order.setdefault(target, []).extend(_cases(card))
    for target, name, sentence in failed:
        order.setdefault(target, []).append(
            JUnitCase(name=name, error=(sentence.split(";")[0].strip(), sentence))
        )
    return tuple(JUnitSuite(name=target, cases=tuple(cases)) for target, cases in order.items())


def write_junit(
    path: str, cards: Iterable[Card], failed: Sequence[tuple[str, str, str]] = ()
) -> None:
    """Write the JUnit XML of ``cards`` to ``path``, atomically."""
    from fidelity._report import document

    document.write(path, render_junit(suites_of(cards, failed)), "--junit")
