"""End of a pytest session: merge the cards, write them, check drift, sum up.

Runs in the process that reports (the serial run, or the xdist controller after every
worker sent its cards), and only when the session recorded something or a card option
was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fidelity._errors import UsageError
from fidelity._render import safe

if TYPE_CHECKING:
    from fidelity._card import Card
    from fidelity._plugin_session import Finding, SessionLog
    from fidelity._plugin_settings import PluginSettings

__all__ = ["SessionReport", "card_filename", "finish"]

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def card_filename(name: str) -> str:
    """The file stem for a card name: letters, digits, ``.``, ``_`` and ``-`` only."""
    return _UNSAFE_NAME.sub("_", name).strip("._") or "card"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionReport:
    """The summary lines, and ``failed``: cards drifted or could not be written."""

    lines: tuple[str, ...]
    failed: bool


def merged_cards(log: SessionLog) -> tuple[Card, ...]:
    """The session's cards, one per name (workers' and tests' cards merged), by name."""
    from fidelity._card import Card

    by_name: dict[str, list[Card]] = {}
    for text in log.cards:
        card = Card.from_json(text)
        by_name.setdefault(card.name, []).append(card)
    return tuple(Card.merge(cards, name=name) for name, cards in sorted(by_name.items()))


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
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for card in cards:
        stem = card_filename(card.name)
        (directory / f"{stem}.json").write_text(card.to_json(), encoding="utf-8", newline="")
        (directory / f"{stem}.md").write_text(card.to_markdown(), encoding="utf-8", newline="")
        written.append(stem)
    return written


def _check(cards: tuple[Card, ...], directory: Path) -> list[str]:
    from fidelity._card import Card

    problems = []
    for card in cards:
        path = directory / f"{card_filename(card.name)}.json"
        label = safe(card.name)
        if not path.is_file():
            problems.append(
                f"card {label!s} has no committed card {safe(str(path))!s}; "
                f"write it with --fidelity-cards {safe(str(directory))!s}"
            )
            continue
        try:
            committed = Card.from_json(path.read_text(encoding="utf-8"))
        except (UsageError, OSError, UnicodeDecodeError) as exc:
            problems.append(f"committed card {safe(str(path))!s} cannot be read: {safe(str(exc))}")
            continue
        changes = card.drift(committed)
        if changes:
            problems.append(f"card {label!s} drifted from {safe(str(path))!s}:")
            problems.extend(f"    {safe(line)!s}" for line in changes)
    return problems


def finish(log: SessionLog, settings: PluginSettings) -> SessionReport:
    """Merge, check, then write the session's cards; return the summary."""
    lines: list[str] = []
    notable = [f for f in log.findings() if f.kinds or any(s != "preserved" for s, _ in f.statuses)]
    if notable:
        lines.append("chains and rewrites found:")
        lines.extend(_finding_line(f) for f in notable)
    for worker in log.workers_lost:
        lines.append(f"worker {safe(worker)!s} sent no results: its cards are missing")
    cards = merged_cards(log) if log.cards else ()
    failed = False
    if settings.check_dir is not None:
        if not cards:
            lines.append("no cards were produced in this session: nothing to check")
        problems = _check(cards, Path(settings.check_dir))
        if problems:
            failed = True
            lines.append("card drift (the chains now behave differently):")
            lines.extend(problems)
        elif cards:
            lines.append(f"{len(cards)} card(s) match {safe(settings.check_dir)!s}")
    if settings.cards_dir is not None:
        try:
            stems = _write(cards, Path(settings.cards_dir))
        except OSError as exc:
            failed = True
            stems = []
            lines.append(f"cannot write cards to {safe(settings.cards_dir)!s}: {safe(str(exc))}")
        if stems:
            lines.append(
                f"cards written to {safe(settings.cards_dir)!s}: "
                + ", ".join(f"{s}.md/.json" for s in stems)
            )
        elif cards == ():
            lines.append("no cards were produced in this session: nothing written")
    return SessionReport(lines=tuple(lines), failed=failed)
