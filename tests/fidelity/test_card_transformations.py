"""A card stores its transformations with the engine's version: reports made from a
card read back never compare its values again."""

from __future__ import annotations

import json

import pytest

import fidelity
import probes
from fidelity import Payload
from fidelity._report import rewrites
from fidelity._report.card import Card

PAYLOADS = (
    Payload(id="quotes/x", text="a \u201cb\u201d c", families=("quotes",)),
    Payload(id="newlines/crlf", text="a\r\nb", families=("newlines",)),
)


def _card() -> Card:
    chain = probes.chain(
        probes.hop("quotes", lambda v: v.replace("\u201c", '"').replace("\u201d", '"'), str),
        probes.hop("lines", lambda v: v.replace("\r\n", "\n"), str),
    )
    return fidelity.survey(chain, PAYLOADS, name="t.p").card(name="t.p")


@pytest.fixture
def no_compare(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any comparison from here on fails the test (the cache of known ones emptied)."""

    def refuse(*_: object, **__: object) -> object:
        raise AssertionError("compare() ran again")

    monkeypatch.setattr(rewrites, "compare", refuse)
    monkeypatch.setattr(rewrites, "_KNOWN", type(rewrites._KNOWN)())


def test_the_json_holds_the_rewrites_with_the_engine_version() -> None:
    stored = json.loads(_card().to_json())["transformations"]
    assert stored["engine"] == fidelity.__version__
    kinds = {r["kind"] for r in stored["rewrites"]}
    assert kinds == {"quote.straighten", "newline.crlf_to_lf"}
    assert {r["hop"] for r in stored["rewrites"]} == {"quotes", "lines"}


def test_reports_of_a_card_read_back_compare_nothing(no_compare: None) -> None:
    text = _card().to_json()
    card = Card.from_json(text)
    assert {h.kind for h in card.hints()} == {"quote.straighten", "newline.crlf_to_lf"}
    assert "quote.straighten" in card.to_markdown()
    assert card.describe()
    assert card.to_html()
    assert card.to_json() == text


def test_stored_rewrites_of_another_engine_are_computed_again() -> None:
    raw = json.loads(_card().to_json())
    raw["transformations"]["engine"] = "0.0.0-other"
    card = Card.from_json(json.dumps(raw))
    assert card.rewrites is None
    assert {h.kind for h in card.hints()} == {"quote.straighten", "newline.crlf_to_lf"}


def test_stored_rewrites_that_disagree_with_the_observations_are_not_trusted() -> None:
    raw = json.loads(_card().to_json())
    raw["transformations"]["rewrites"][0]["kind"] = "unicode.nfc"
    card = Card.from_json(json.dumps(raw))
    assert card.rewrites is None
    assert "unicode.nfc" not in {h.kind for h in card.hints()}


@pytest.mark.parametrize(
    "forged",
    [[], {"engine": fidelity.__version__}, {"engine": fidelity.__version__, "rewrites": [3]}],
)
def test_malformed_transformations_are_one_sentence(forged: object) -> None:
    raw = json.loads(_card().to_json())
    raw["transformations"] = forged
    with pytest.raises(fidelity.UsageError, match="not a valid contract card"):
        Card.from_json(json.dumps(raw))


def test_merged_cards_keep_their_stored_rewrites() -> None:
    a, b = _card(), Card.from_json(_card().to_json())
    merged = Card.merge([a, b])
    assert merged.rewrites == a.rewrites
