"""Contract cards: what a chain preserves, rewrites or refuses, per hazard family.

A :class:`Card` is the documented form of a survey: one row per (family, direction)
with its outcome, kinds and smallest examples; the run's facts; and every observation
in a byte-faithful form (text as base64 of its UTF-8 bytes, lone surrogates included;
non-string values typed). A card is plain data: its renderers are functions of
:mod:`~fidelity._report.card_render` (a Markdown section for a tool's contract card,
versioned JSON (``schema_version``) that reads back exactly, an HTML report), which
its methods of the public API name; ``drift`` lists what changed against a committed
card, and ``merge`` combines runs of one chain.

Every output is deterministic: rows in family and direction order, observations in a
canonical order, JSON with sorted keys.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from fidelity._core.errors import UsageError, ended
from fidelity._core.kinds import Status
from fidelity._probe.observation import Direction, Observation
from fidelity._probe.setup import ProbeSetup
from fidelity._report.card_records import (
    CardFacts,
    CardObservation,
    CardRow,
)
from fidelity._report.card_render import (
    card_describe,
    card_dict,
    card_found,
    card_hints,
    card_html,
    card_json,
    card_markdown,
    card_notes,
)
from fidelity._report.clients import ClientsSection
from fidelity._report.environment import Environment
from fidelity._report.json_doc import (
    COLLECTION,
    RECORD,
    SCHEMA_VERSION,
    Malformed,
    card_name,
    check_derived,
    check_version,
    dump,
    list_field,
    load,
    str_field,
)
from fidelity._report.outcomes import (
    Entry,
    FamilyOutcome,
    failed_on_request,
    family_key,
    is_example,
    summarize,
)

if TYPE_CHECKING:
    from fidelity._report.hints import Hint
    from fidelity._report.rewrites import Rewrite

__all__ = ["SCHEMA_VERSION", "Card", "cards_from_json", "cards_to_json"]

_T = TypeVar("_T")


def _today() -> str:
    """The run's date (UTC), or the one ``SOURCE_DATE_EPOCH`` fixes for reproducible cards."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (
        datetime.datetime.fromtimestamp(int(epoch), datetime.UTC)
        if epoch.isdigit()
        else datetime.datetime.now(datetime.UTC)
    )
    return when.date().isoformat()


def _canonical(obs: CardObservation) -> tuple[tuple[int, str], str, str]:
    first = obs.families[0] if obs.families else ""
    return (family_key(first), obs.payload_id, json.dumps(obs.to_dict(), sort_keys=True))


def _rows(observations: Iterable[CardObservation]) -> tuple[CardRow, ...]:
    pool = tuple(observations)
    split = any(o.parts for o in pool)

    def request(obs: CardObservation) -> tuple[CardObservation, ...]:
        if failed_on_request(obs, split):
            return (dataclasses.replace(obs, direction=Direction.REQUEST.value),)
        return ()

    def entries() -> Iterable[Entry]:
        for obs in pool:
            for measured in (obs, *obs.parts, *request(obs)):
                sent = measured.sent.value()
                assert isinstance(sent, str)
                yield Entry(
                    payload_id=obs.payload_id,
                    families=obs.families,
                    direction=Direction(measured.direction),
                    status=Status(measured.status),
                    kinds=frozenset(measured.kinds),
                    sent=sent,
                    received=measured.received,
                    error_type=measured.error_type,
                    error=measured.error,
                )

    return tuple(CardRow.of(outcome) for outcome in summarize(entries()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Card:
    """The contract card of one chain: rows per (family, direction), facts, observations,
    and, when the run went through several MCP clients, their ``clients`` section (the
    rows and observations are then the first client's)."""

    name: str
    facts: CardFacts
    rows: tuple[CardRow, ...]
    observations: tuple[CardObservation, ...]
    clients: ClientsSection | None = None
    #: The rewrites of the observations as the engine named them when the card was
    #: made (stored in its JSON with the engine's version), so that reports do not
    #: compare the values again; ``None``: computed from the observations when needed.
    rewrites: tuple[Rewrite, ...] | None = dataclasses.field(default=None, compare=False)

    # -- building ------------------------------------------------------------------

    @classmethod
    def of(
        cls,
        observations: Iterable[Observation],
        *,
        name: str,
        chain: str,
        outcomes: Iterable[FamilyOutcome],
        catalogue_size: int,
        examples: int = 0,
        seed: int | None = None,
        allow: Iterable[str] = (),
        complete: bool = True,
        environment: Environment | None = None,
    ) -> Card:
        """The card of a run: its observations, the rows they gave, and the run's facts,
        with where it was measured (``environment``; this process's by default, with the
        libraries the chain's name and hops name)."""
        from fidelity._core.version import __version__
        from fidelity._report.environment import here
        from fidelity._report.rewrites import from_card, remember

        live = tuple(observations)
        if environment is None:
            hops = dict.fromkeys(h.name for o in live[:64] for h in o.hops)
            environment = here((chain, *hops))
        recorded = [CardObservation.of(o) for o in live]
        remember(zip(live, recorded, strict=True))

        return cls(
            name=name,
            facts=CardFacts(
                version=__version__,
                date=_today(),
                chain=chain,
                catalogue_size=catalogue_size,
                examples=examples,
                seed=seed,
                allow=tuple(sorted(allow)),
                complete=complete,
                environment=environment,
            ),
            rows=tuple(CardRow.of(o) for o in outcomes),
            observations=tuple(sorted(recorded, key=_canonical)),
            rewrites=from_card(recorded),
        )

    @classmethod
    def merge(cls, cards: Iterable[Card], *, name: str | None = None) -> Card:
        """Combine cards of the same chain (several runs or workers) into one.

        Observations are pooled (exact duplicates once) and the rows recomputed; the
        result does not depend on the order of ``cards``. Cards of different chains, or
        of different names without ``name=``, are a ``UsageError``.
        """
        pool = tuple(cards)
        chain, merged_name = _merge_target(pool, name)
        observations = tuple(sorted({o for c in pool for o in c.observations}, key=_canonical))
        return cls(
            name=merged_name,
            facts=_merged_facts(pool, chain, observations),
            rows=_rows(observations),
            observations=observations,
            clients=_sole({c.clients for c in pool}),
            rewrites=_pooled(c.rewrites for c in pool),
        )

    @property
    def complete(self) -> bool:
        """False when the run was interrupted before every payload was observed."""
        return self.facts.complete

    def mark_incomplete(self) -> Card:
        """This card, marked as the result of an interrupted run."""
        return dataclasses.replace(self, facts=dataclasses.replace(self.facts, complete=False))

    def with_setup(self, setup: ProbeSetup | None) -> Card:
        """This card, recording how the probe sent and read back each payload."""
        return dataclasses.replace(self, facts=dataclasses.replace(self.facts, setup=setup))

    def with_warnings(self, warnings: Iterable[str]) -> Card:
        """This card, recording the warnings the run printed (one sentence each)."""
        kept = tuple(dict.fromkeys(warnings))
        return dataclasses.replace(self, facts=dataclasses.replace(self.facts, warnings=kept))

    def with_environment(self, environment: Environment | None) -> Card:
        """This card, recording where it was measured."""
        return dataclasses.replace(
            self, facts=dataclasses.replace(self.facts, environment=environment)
        )

    def with_clients(self, clients: ClientsSection | None) -> Card:
        """This card, with the section of the MCP clients it was run through."""
        return dataclasses.replace(self, clients=clients)

    def row(self, family: str, direction: str | Direction = Direction.ROUND_TRIP) -> CardRow | None:
        """The row of ``family`` in ``direction``, if the card has one."""
        wanted = (family, Direction(direction).value)
        return next((r for r in self.rows if r.key == wanted), None)

    @property
    def kinds(self) -> frozenset[str]:
        """Every kind any row shows."""
        return frozenset(k for r in self.rows for k in r.kinds)

    def hints(self) -> tuple[Hint, ...]:
        """How to fix each kind the card's observations show: one :class:`Hint` per
        kind, in the order of ``KINDS``, refined by the hop that changed the value and
        naming the paths (request, response) it was seen on."""
        return card_hints(self)

    def notes(self) -> tuple[str, ...]:
        """Sentences beside the map: the payloads whose edit did not apply although the
        tool answered without an error flag (``silent`` rejections), if any."""
        return card_notes(self)

    def describe(self) -> str:
        """What happens to this parameter, in a few plain sentences for a model (to
        paste into the tool's description): the rewrites it goes through and the
        families it refuses, at most 299 characters with its name; ``""`` when the
        parameter is faithful, or when no value came back (nothing was measured). The
        name is the probed parameter, else the card's; with a read tool or a read URL,
        the chain from the parameter to it (``between write_file.content and
        read_file``): a rewrite there may be the reader's."""
        return card_describe(self)

    def found(self) -> tuple[Rewrite, ...]:
        """The rewrites of this card's observations: the stored ones, else computed
        from the recorded values."""
        return card_found(self)

    # -- JSON ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this card (with ``schema_version``), with its hints and the
        sentence for the model (derived from the observations), and ``clients`` only when
        there were several clients (so other cards read as before)."""
        return card_dict(self)

    def to_json(self) -> str:
        """Versioned, deterministic JSON (sorted keys, ASCII, trailing newline)."""
        return card_json(self)

    @classmethod
    def from_dict(cls, raw: object) -> Card:
        """Read a card's JSON object; anything malformed is a ``UsageError``."""
        check_version(raw)
        assert isinstance(raw, dict)
        try:
            if raw.get("record", RECORD) != RECORD:
                raise Malformed(f"record is {raw.get('record')!r}, not {RECORD!r}")
            # Derived from the observations, so computed again rather than trusted.
            check_derived(raw)
            observations = tuple(
                CardObservation.from_dict(o) for o in list_field(raw, "observations")
            )
            return cls(
                name=card_name(str_field(raw, "name")),
                facts=CardFacts.from_dict(raw.get("facts")),
                rows=tuple(CardRow.from_dict(r) for r in list_field(raw, "rows")),
                observations=observations,
                clients=(
                    None if raw.get("clients") is None else ClientsSection.from_dict(raw["clients"])
                ),
                rewrites=_stored(raw.get("transformations"), observations),
            )
        except Malformed as exc:
            raise UsageError(f"not a valid contract card: {ended(str(exc))}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> Card:
        """Read :meth:`to_json` output back exactly; malformed input is a ``UsageError``."""
        return cls.from_dict(load(text))

    def to_html(self) -> str:
        """A standalone HTML report of this card."""
        return card_html(self)

    def to_markdown(self) -> str:
        """A Markdown section for a tool's contract card: the table, how to fix each
        rewrite, and the facts."""
        return card_markdown(self)

    def drift(self, committed: Card) -> tuple[str, ...]:
        """One line per row that changed against ``committed`` (empty when none did).

        A kind that appears or disappears, an outcome that changes, a row that is new or
        missing. Facts such as date and version are ignored.
        """
        from fidelity._report.drift import row_changes

        return row_changes(self.rows, committed.rows)

    # -- drift ---------------------------------------------------------------------


def _stored(raw: object, observations: tuple[CardObservation, ...]) -> tuple[Rewrite, ...] | None:
    from fidelity._core.version import __version__
    from fidelity._report.card_rewrites import read_rewrites

    return read_rewrites(raw, observations, __version__)


def _pooled(stored: Iterable[tuple[Rewrite, ...] | None]) -> tuple[Rewrite, ...] | None:
    """The stored rewrites of merged cards: every card's, once each (``None`` when one
    card has none)."""
    pool = tuple(stored)
    if any(r is None for r in pool):
        return None
    from fidelity._report.rewrites import ordered

    return ordered(r for rewrites in pool if rewrites is not None for r in rewrites)


def cards_to_json(cards: Iterable[Card]) -> str:
    """Several cards (e.g. every chain of ``fidelity survey``) as one versioned document."""
    return dump(
        {
            "schema_version": SCHEMA_VERSION,
            "record": COLLECTION,
            "cards": [card_dict(c) for c in cards],
        }
    )


def cards_from_json(text: str | bytes) -> tuple[Card, ...]:
    """Read a single card or a :func:`cards_to_json` document."""
    raw = load(text)
    check_version(raw)
    assert isinstance(raw, dict)
    if raw.get("record") == COLLECTION:
        items = raw.get("cards")
        if not isinstance(items, list):
            raise UsageError("not a valid card collection: 'cards' must be a list.")
        return tuple(Card.from_dict(item) for item in items)
    return (Card.from_dict(raw),)


def _sole(values: set[_T]) -> _T | None:
    """The one value every merged card agrees on, else ``None``."""
    return values.pop() if len(values) == 1 else None


def _merge_target(pool: tuple[Card, ...], name: str | None) -> tuple[str, str]:
    """The chain and the name of the card merging ``pool``; a ``UsageError`` when
    ``pool`` is empty, holds other objects, mixes chains, or mixes names without
    ``name``."""
    if not pool or not all(isinstance(c, Card) for c in pool):
        raise UsageError("Card.merge needs one or more Card objects.")
    chains = sorted({c.facts.chain for c in pool})
    if len(chains) > 1:
        raise UsageError(
            f"cannot merge cards of different chains ({', '.join(map(repr, chains))})."
        )
    names = sorted({c.name for c in pool})
    if name is None and len(names) > 1:
        raise UsageError(
            f"the cards have different names ({', '.join(map(repr, names))}); pass name=."
        )
    return chains[0], name or names[0]


def _merged_facts(
    pool: tuple[Card, ...], chain: str, observations: tuple[CardObservation, ...]
) -> CardFacts:
    """The facts of the card merging ``pool``: what the runs agree on, pooled counts."""
    catalogue = {(o.payload_id, o.sent) for o in observations if not is_example(o.payload_id)}
    return CardFacts(
        version=", ".join(sorted({c.facts.version for c in pool})),
        date=max(c.facts.date for c in pool),
        chain=chain,
        catalogue_size=len(catalogue),
        examples=sum(c.facts.examples for c in pool),
        seed=_sole({c.facts.seed for c in pool}),
        allow=tuple(sorted({k for c in pool for k in c.facts.allow})),
        complete=all(c.facts.complete for c in pool),
        setup=_sole({c.facts.setup for c in pool}),
        warnings=tuple(dict.fromkeys(w for c in pool for w in c.facts.warnings)),
        environment=_sole({c.facts.environment for c in pool}),
    )
