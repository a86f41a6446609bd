"""What the pytest plugin gathers over a session: marker contexts, findings and cards.

Loaded when a test uses the plugin (a ``fidelity`` marker or fixture). Cards are kept
as their JSON text with the test that surveyed them, so a serial run and an xdist run
(whose workers ship their cards to the controller as text) merge exactly the same
inputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fidelity._core.kinds import check_kinds

if TYPE_CHECKING:
    import pytest

__all__ = ["Finding", "MarkContext", "RecordedCard", "SessionLog", "marker_context"]

#: Version of the text a worker sends to the controller (``workeroutput``).
WIRE_VERSION = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkContext:
    """The running test: its node id and what its ``fidelity`` markers declare."""

    nodeid: str
    allow: tuple[str, ...] = ()
    card: str | None = None


def _marker_arguments(allow: object = (), card: object = None) -> tuple[object, object]:
    return allow, card


def marker_context(item: pytest.Item) -> MarkContext:
    """Read the ``fidelity`` markers of ``item`` (closest first); raise ``UsageError``.

    ``allow`` lists of all markers on the item (function, class, module) are united;
    ``card`` comes from the closest marker that names one.
    """
    from fidelity._core.errors import UsageError, ended

    allow: dict[str, None] = {}
    card: str | None = None
    for mark in item.iter_markers("fidelity"):
        try:
            kinds, name = _marker_arguments(*mark.args, **mark.kwargs)
        except TypeError as exc:
            reason = str(exc).replace(f"{_marker_arguments.__name__}()", "it")
            raise UsageError(
                f"@pytest.mark.fidelity takes (allow=[kind ids], card='name'): {ended(reason)}"
            ) from None
        try:
            checked = check_kinds(kinds, name="allow")
        except UsageError as exc:
            raise UsageError(f"@pytest.mark.fidelity: {exc}") from None
        for kind in checked:
            allow.setdefault(kind, None)
        if name is not None and not (isinstance(name, str) and name.strip()):
            raise UsageError(f"@pytest.mark.fidelity: card={name!r} must be a non-empty string.")
        if card is None and isinstance(name, str):
            card = name
    return MarkContext(nodeid=item.nodeid, allow=tuple(allow), card=card)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """What one test saw of one chain: rewrites found, allowed and not, and outcomes.

    ``source`` is ``check`` (single payloads, e.g. Hypothesis examples) or ``survey``.
    ``statuses`` pairs each outcome with its count, sorted.
    """

    chain: str
    nodeid: str
    source: str
    kinds: tuple[str, ...]
    allowed: tuple[str, ...]
    unexpected: tuple[str, ...]
    statuses: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedCard:
    """One survey's card (its JSON text) and the test that surveyed it."""

    nodeid: str
    text: str


@dataclass(slots=True)
class _Tally:
    kinds: set[str] = field(default_factory=set)
    allowed: set[str] = field(default_factory=set)
    statuses: dict[str, int] = field(default_factory=dict)


class SessionLog:
    """The findings and cards of one pytest process (a worker, or a serial run)."""

    def __init__(self) -> None:
        self._tallies: dict[tuple[str, str, str], _Tally] = {}
        self.cards: list[RecordedCard] = []
        self.workers_lost: list[str] = []

    def note(
        self,
        *,
        chain: str,
        nodeid: str,
        source: str,
        kinds: frozenset[str],
        allowed: tuple[str, ...],
        statuses: dict[str, int],
    ) -> None:
        """Add what one check or survey of ``chain`` in test ``nodeid`` saw."""
        tally = self._tallies.setdefault((chain, nodeid, source), _Tally())
        tally.kinds.update(kinds)
        tally.allowed.update(allowed)
        for status, count in statuses.items():
            tally.statuses[status] = tally.statuses.get(status, 0) + count

    def add_card(self, card_json: str, *, nodeid: str) -> None:
        """Keep one card (its JSON text) of test ``nodeid`` for the end of the session."""
        self.cards.append(RecordedCard(nodeid=nodeid, text=card_json))

    def findings(self) -> tuple[Finding, ...]:
        """Every finding, sorted by chain, test and source."""
        out = []
        for (chain, nodeid, source), t in sorted(self._tallies.items()):
            out.append(
                Finding(
                    chain=chain,
                    nodeid=nodeid,
                    source=source,
                    kinds=tuple(sorted(t.kinds)),
                    allowed=tuple(sorted(t.allowed)),
                    unexpected=tuple(sorted(t.kinds - t.allowed)),
                    statuses=tuple(sorted(t.statuses.items())),
                )
            )
        return tuple(out)

    def to_wire(self) -> str:
        """Everything gathered, as JSON text for an xdist worker's ``workeroutput``."""
        tallies = [
            [chain, nodeid, source, sorted(t.kinds), sorted(t.allowed), t.statuses]
            for (chain, nodeid, source), t in self._tallies.items()
        ]
        cards = [[c.nodeid, c.text] for c in self.cards]
        return json.dumps({"version": WIRE_VERSION, "tallies": tallies, "cards": cards})

    def absorb(self, wire: str) -> None:
        """Add what a worker sent (the text from :meth:`to_wire`)."""
        data: dict[str, Any] = json.loads(wire)
        if data.get("version") != WIRE_VERSION:
            raise ValueError(f"unknown plugin wire version {data.get('version')!r}")
        for chain, nodeid, source, kinds, allowed, statuses in data["tallies"]:
            self.note(
                chain=chain,
                nodeid=nodeid,
                source=source,
                kinds=frozenset(kinds),
                allowed=tuple(allowed),
                statuses=statuses,
            )
        self.cards.extend(RecordedCard(nodeid=n, text=t) for n, t in data["cards"])
