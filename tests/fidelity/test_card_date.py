"""A card's date honours SOURCE_DATE_EPOCH, so committed cards can be reproducible."""

from __future__ import annotations

import json

import pytest

import fidelity


def _card_date() -> str:
    payload = fidelity.Payload(id="quotes/x", text="\u201cx\u201d", families=("quotes",))
    card = fidelity.survey(lambda text: text, payloads=[payload], name="id").card()
    return str(json.loads(card.to_json())["facts"]["date"])


def test_source_date_epoch_fixes_the_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(86400 * 365))
    assert _card_date() == "1971-01-01"


def test_without_it_the_date_is_today(monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert _card_date() == datetime.datetime.now(datetime.UTC).date().isoformat()
