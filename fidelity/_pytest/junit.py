"""What the plugin adds to pytest's ``--junitxml`` report.

CI dashboards read the JUnit file, not the terminal. Two things would otherwise be
invisible there:

- card drift under ``--fidelity-check`` fails the run after the last test: each drifted
  (or missing, or unreadable) card becomes a failing test case of its own, named
  ``fidelity-check::CARD``, with the drift text inside;
- a fidelity failure's ``message`` attribute (which pytest cuts after a few lines) is
  one line: the kinds, then the allow line; the element text keeps the whole report,
  hint lines and all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["card_case", "fidelity_message", "report_card_failures"]

#: The class name of the test cases that stand for committed cards.
CHECK_CLASS = "fidelity-check"


def fidelity_message(text: str) -> str:
    """One line for a fidelity failure: its first line, then the allow line if any."""
    lines = text.splitlines() or [""]
    first = lines[0]
    allow = [line for line in lines[1:] if line.startswith("if these rewrites are accepted")]
    return "; ".join([first, *allow])


def card_case(card: str, lines: Sequence[str]) -> pytest.TestReport:
    """A failed test report that stands for one card and carries its problem lines."""
    text = "\n".join(lines)
    return pytest.TestReport(
        nodeid=f"{CHECK_CLASS}::{card}",
        location=(CHECK_CLASS, None, card),
        keywords={},
        outcome="failed",
        longrepr=text,
        when="call",
        duration=0.0,
        sections=[],
        user_properties=[],
    )


def report_card_failures(config: pytest.Config, failures: dict[str, list[str]]) -> None:
    """Add one failing test case per card to the JUnit report, when one is written.

    Nothing happens without ``--junitxml``; the terminal summary says the same anyway.
    """
    from _pytest.junitxml import xml_key

    xml = config.stash.get(xml_key, None)
    if xml is None or not failures:
        return
    for card, lines in sorted(failures.items()):
        xml.pytest_runtest_logreport(card_case(card, lines))
