"""End of a pytest session: merge the cards, write them, check drift, sum up.

Runs in the process that reports (the serial run, or the xdist controller after every
worker sent its cards), and only when the session recorded something or a card option
was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._report.card_render import card_json, card_markdown

if TYPE_CHECKING:
    from fidelity._pytest.session import Finding, SessionLog
    from fidelity._pytest.settings import PluginSettings
    from fidelity._report.card import Card

__all__ = ["MergedCards", "SessionReport", "card_filename", "finish", "merged_cards"]

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
#: Largest committed card read (a card of the whole catalogue is far smaller).
_MAX_CARD_BYTES = 256 * 1024 * 1024
#: Where cards come from, for the messages that say there were none.
_WHERE = "cards come from fidelity.survey(); fidelity.check() records none"


def card_filename(name: str) -> str:
    """The file stem for a card name: letters, digits, ``.``, ``_`` and ``-`` only."""
    return _UNSAFE_NAME.sub("_", name).strip("._") or "card"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionReport:
    """The summary lines, and ``failed``: cards drifted or could not be written.

    ``card_failures`` maps each card that failed the check to its problem lines (the
    JUnit report gets one failing test case per card).
    """

    lines: tuple[str, ...]
    failed: bool
    card_failures: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class MergedCards:
    """The session's cards, one per name, and the names that could not be merged."""

    cards: tuple[Card, ...]
    problems: tuple[str, ...]


def _tests(nodeids: list[str]) -> str:
    shown = sorted(set(nodeids))
    more = f" and {len(shown) - 2} more" if len(shown) > 2 else ""
    return ", ".join(safe(n) for n in shown[:2]) + more


def merged_cards(log: SessionLog) -> MergedCards:
    """Merge the session's cards by name (workers' and tests' cards alike).

    A name whose surveys were of different chains, or two names that map to one file,
    cannot be merged: that name is left out and a problem line says which tests clash.
    """
    from fidelity._report.card import Card

    by_name: dict[str, list[tuple[str, Card]]] = {}
    for recorded in log.cards:
        card = Card.from_json(recorded.text)
        by_name.setdefault(card.name, []).append((recorded.nodeid, card))
    problems: list[str] = []
    merged: dict[str, Card] = {}
    for name, entries in sorted(by_name.items()):
        chains: dict[str, list[str]] = {}
        for nodeid, card in entries:
            chains.setdefault(card.facts.chain, []).append(nodeid)
        if len(chains) > 1:
            clash = "; ".join(
                f"{safe(chain)!s} in {_tests(ids)}" for chain, ids in sorted(chains.items())
            )
            problems.append(
                f"card {safe(name)!s} names different chains ({clash}): give each chain "
                "its own card name (@pytest.mark.fidelity(card=...) or survey(name=...))"
            )
            continue
        merged[name] = Card.merge([card for _, card in entries], name=name)
    stems: dict[str, list[str]] = {}
    for name in merged:
        stems.setdefault(card_filename(name), []).append(name)
    for stem, names in sorted(stems.items()):
        if len(names) > 1:
            problems.append(
                f"cards {', '.join(safe(n) for n in names)} would all be written to "
                f"{safe(stem)!s}.json: give them names that differ in letters or digits"
            )
            for name in names:
                del merged[name]
    return MergedCards(cards=tuple(merged.values()), problems=tuple(problems))


def _finding_line(finding: Finding) -> str:
    parts = []
    for kind in finding.kinds:
        parts.append(f"{kind} (allowed)" if kind in finding.allowed else f"{kind} (NOT allowed)")
    other = [f"{s} {n}" for s, n in finding.statuses if s not in ("preserved", "transformed")]
    if other:
        parts.append("outcomes: " + ", ".join(other))
    what = "; ".join(parts) if parts else "preserved"
    return f"  {safe(finding.chain)!s} [{finding.source} in {safe(finding.nodeid)!s}]: {what}"


def _write(cards: tuple[Card, ...], directory: Path) -> list[str]:
    """Write each card as NAME.json and NAME.md in ``directory``, atomically (never
    through a symbolic link that leads out of it, never over a read-only file)."""
    from fidelity._report.document import write as write_atomic

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for card in cards:
        stem = card_filename(card.name)
        write_atomic(directory / f"{stem}.json", card_json(card), "card")
        write_atomic(directory / f"{stem}.md", card_markdown(card), "card")
        written.append(stem)
    return written


def _check(cards: tuple[Card, ...], directory: Path) -> dict[str, list[str]]:
    """Each card that does not match its committed card, with its problem lines."""
    from fidelity._report.card import Card
    from fidelity._report.document import read
    from fidelity._report.drift import around, drift_lines

    failures: dict[str, list[str]] = {}
    for card in cards:
        path = directory / f"{card_filename(card.name)}.json"
        label = safe(card.name)
        problems = failures.setdefault(card.name, [])
        if not path.exists():
            problems.append(
                f"card {label!s} has no committed card {safe(str(path))!s}; "
                f"write it with --fidelity-cards {safe(str(directory))!s}"
            )
            continue
        try:
            committed = Card.from_json(read(path, "card", limit=_MAX_CARD_BYTES))
        except (UsageError, OSError, UnicodeDecodeError) as exc:
            problems.append(f"committed card {safe(str(path))!s} cannot be read: {safe(str(exc))}")
            continue
        changes = drift_lines(card.rows, committed.rows)
        if changes:
            problems.append(f"card {label!s} drifted from {safe(str(path))!s}:")
            context = around(
                card.rows, committed.rows, card.facts.environment, committed.facts.environment
            )
            if context:
                problems.append(f"    environment changed: {context}")
            problems.extend(changes)
    return {name: lines for name, lines in failures.items() if lines}


def _findings_lines(log: SessionLog) -> list[str]:
    """The summary's first lines: the chains and rewrites found, the allows no test
    needed, and the workers that sent no results."""
    from fidelity._pytest.coverage import unused_allows

    lines: list[str] = []
    findings = log.findings()
    notable = [f for f in findings if f.kinds or any(s != "preserved" for s, _ in f.statuses)]
    if notable:
        lines.append("chains and rewrites found:")
        lines.extend(_finding_line(f) for f in notable)
    lines.extend(unused_allows(findings))
    for worker in log.workers_lost:  # xdist already fails the run for the crash
        lines.append(f"worker {safe(worker)!s} sent no results: its cards are missing")
    return lines


def _check_lines(
    lines: list[str], merged: MergedCards, check_dir: str, partial: str | None
) -> dict[str, list[str]]:
    """Check the merged cards against the committed ones in ``check_dir``, adding the
    summary's lines to ``lines``; the cards that drifted, with their problem lines."""
    from fidelity._pytest.coverage import unproduced_cards

    cards = merged.cards
    if not cards and not merged.problems:
        lines.append(f"no cards were produced in this session: nothing to check ({_WHERE})")
    card_failures = _check(cards, Path(check_dir))
    unproduced = unproduced_cards(
        Path(check_dir), {card_filename(c.name) for c in cards}, partial=partial
    )
    if partial is None:
        card_failures.update(unproduced.failures)
    if card_failures:
        lines.append("card drift (the chains now behave differently; the run fails):")
        lines.extend(line for problems in card_failures.values() for line in problems)
    matched = len(cards) - len(card_failures.keys() & {c.name for c in cards})
    if matched:
        lines.append(f"{matched} card(s) match {safe(check_dir)!s}")
    lines.extend(unproduced.notes)
    return card_failures


def _write_lines(lines: list[str], merged: MergedCards, cards_dir: str) -> bool:
    """Write the merged cards to ``cards_dir``, adding the summary's lines to ``lines``;
    True when they could not be written."""
    cards = merged.cards
    if not cards:
        if not merged.problems:
            lines.append(f"no cards were produced in this session: nothing written ({_WHERE})")
        return False
    try:
        stems = _write(cards, Path(cards_dir))
    except (OSError, UsageError) as exc:
        lines.append(f"cannot write cards to {safe(cards_dir)!s}: {safe(str(exc))}")
        return True
    lines.append(
        f"cards written to {safe(cards_dir)!s}: " + ", ".join(f"{s}.md/.json" for s in stems)
    )
    return False


def finish(
    log: SessionLog, settings: PluginSettings, *, partial: str | None = None
) -> SessionReport:
    """Merge, check, then write the session's cards; return the summary.

    ``partial`` says why this run was not the whole suite (tests deselected), or is
    None: committed cards that the run did not produce are then drift, else a note.
    Never raises for bad data: what cannot be merged, read or written becomes a line of
    the summary and fails the session.
    """
    lines = _findings_lines(log)
    failed = False
    card_failures: dict[str, list[str]] = {}
    try:
        merged = merged_cards(log)
    except (UsageError, ValueError) as exc:
        return SessionReport(
            lines=(*lines, f"the session's cards cannot be merged: {safe(str(exc))}"),
            failed=True,
        )
    if merged.problems:
        failed = True
        lines.append("cards left out:")
        lines.extend(f"  {p}" for p in merged.problems)
    if settings.check_dir is not None:
        card_failures = _check_lines(lines, merged, settings.check_dir, partial)
        failed = failed or bool(card_failures)
    if settings.cards_dir is not None:
        failed = _write_lines(lines, merged, settings.cards_dir) or failed
    return SessionReport(lines=tuple(lines), failed=failed, card_failures=card_failures)
