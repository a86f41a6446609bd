"""A card's renderers, as functions of its data: the JSON object and text, the Markdown
section of a tool's contract card, the standalone HTML report, and the views they share
(the rewrites found, how to fix each kind, the sentence for the model, the notes beside
the map).

:class:`~fidelity._report.card.Card` is plain data; its ``to_json``, ``to_markdown``,
``to_html``... are the public API's names for these. The rewrites are the card's stored
ones when it has them (so a report never compares the values again), else computed
once from the recorded values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from fidelity._report.json_doc import RECORD, SCHEMA_VERSION, dump

if TYPE_CHECKING:
    from fidelity._report.card_records import CardFacts, CardObservation, CardRow
    from fidelity._report.clients import ClientsSection
    from fidelity._report.hints import Hint
    from fidelity._report.rewrites import Rewrite

__all__ = [
    "CardData",
    "card_describe",
    "card_dict",
    "card_found",
    "card_hints",
    "card_html",
    "card_json",
    "card_markdown",
    "card_notes",
]


class CardData(Protocol):
    """What the renderers read of a card."""

    @property
    def name(self) -> str: ...
    @property
    def facts(self) -> CardFacts: ...
    @property
    def rows(self) -> tuple[CardRow, ...]: ...
    @property
    def observations(self) -> tuple[CardObservation, ...]: ...
    @property
    def clients(self) -> ClientsSection | None: ...
    @property
    def rewrites(self) -> tuple[Rewrite, ...] | None: ...


def card_found(card: CardData) -> tuple[Rewrite, ...]:
    """The rewrites of ``card``'s observations: the stored ones, else computed from the
    recorded values."""
    if card.rewrites is not None:
        return card.rewrites
    from fidelity._report.rewrites import from_card

    return from_card(card.observations)


def card_hints(card: CardData) -> tuple[Hint, ...]:
    """How to fix each kind ``card``'s observations show: one hint per kind, in the
    order of ``KINDS``, refined by the hop that changed the value and naming the paths
    (request, response) it was seen on."""
    from fidelity._report.hints import hints

    return hints(card_found(card))


def card_notes(card: CardData) -> tuple[str, ...]:
    """Sentences beside the map: the payloads whose edit did not apply although the
    tool answered without an error flag (``silent`` rejections), if any."""
    from fidelity._report.silent import silent_note

    setup = card.facts.setup
    tool = setup.tool if setup is not None and setup.tool else card.name.split(".")[0]
    note = silent_note(tool, card.observations)
    return (note,) if note else ()


def card_describe(card: CardData, found: tuple[Rewrite, ...] | None = None) -> str:
    """What happens to ``card``'s parameter, in a few plain sentences for a model (see
    :meth:`fidelity.Card.describe`); ``found``: its rewrites, when known already."""
    from fidelity._report.describe import describe, refused_families
    from fidelity._report.outcomes import family_key
    from fidelity._report.silent import unapplied_families

    if found is None:
        found = card_found(card)
    setup = card.facts.setup
    name = setup.param if setup is not None and setup.param else card.name
    if setup is not None and setup.read_tool:
        # The value was read back by another tool: a rewrite may be either's doing.
        name = f"between {setup.tool}.{name} and {setup.read_tool}"
    elif setup is not None and setup.read_url:
        # An --openapi row's card is named for its operation and field
        # (POST:/items:body.name): that says more than the send place alone.
        sent = card.name if ":/" in card.name else setup.send or name
        name = f"between {sent} and GET {setup.read_url}"
    refused = refused_families(
        (o.families, "silent" if o.silent else o.status) for o in card.observations
    )
    unapplied = unapplied_families(card.observations)
    return describe(name, found, sorted(refused, key=family_key), sorted(unapplied, key=family_key))


def card_dict(card: CardData) -> dict[str, Any]:
    """The JSON object of ``card`` (with ``schema_version``), with its hints and the
    sentence for the model (derived from the observations), and ``clients`` only when
    there were several clients (so other cards read as before)."""
    from fidelity._core.version import __version__
    from fidelity._report.card_rewrites import rewrites_to_dict
    from fidelity._report.hints import hints

    found = card_found(card)
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "record": RECORD,
        "name": card.name,
        "facts": card.facts.to_dict(),
        "rows": [r.to_dict() for r in card.rows],
        "observations": [o.to_dict() for o in card.observations],
        "hints": [h.to_dict() for h in hints(found)],
        "describe": card_describe(card, found),
        "transformations": rewrites_to_dict(__version__, found),
    }
    if card.clients is not None:
        out["clients"] = card.clients.to_dict()
    return out


def card_json(card: CardData) -> str:
    """``card`` as versioned, deterministic JSON (sorted keys, ASCII, trailing newline)."""
    return dump(card_dict(card))


def card_html(card: CardData) -> str:
    """A standalone HTML report of ``card``."""
    from fidelity._report.html.card import render_html

    html: str = render_html(
        card.name,
        card.facts,
        card.rows,
        card.observations,
        card_hints(card),
        notes=card_notes(card),
    )
    return html


def card_markdown(card: CardData) -> str:
    """A Markdown section for a tool's contract card: the table, how to fix each
    rewrite, and the facts (and the clients side by side, when there were several)."""
    from fidelity._report.markdown import render_markdown

    text = render_markdown(card.name, card.rows, card.facts, card_hints(card), card_notes(card))
    if card.clients is None:
        return text
    from fidelity._report.client_map import client_markdown

    return text + "\n" + "\n".join(client_markdown(card.clients))
