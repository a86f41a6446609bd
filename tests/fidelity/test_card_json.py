"""Cards: exact JSON round trips, versioning, and clear errors on bad input."""

from __future__ import annotations

import json

import pytest

import fidelity
import probes
from fidelity import Card, Payload, UsageError
from fidelity._report.card import cards_from_json, cards_to_json
from fidelity._report.card_records import CardValue

PAYLOADS = (
    Payload(id="surrogates/lone", text="a\ud800b", families=("surrogates",)),
    Payload(id="surrogates/low", text="\udc80", families=("surrogates",)),
    Payload(id="newlines/crlf", text="a\r\nb", families=("newlines",)),
    Payload(id="coercion/octal", text="010", families=("coercion",)),
    Payload(id="nul/mid", text="a\x00b", families=("nul",)),
    Payload(id="bidi/rlo", text="a\u202eb|`*", families=("bidi",)),
)


def _coerce(text: str) -> object:
    if text == "010":
        return 8
    if text.startswith("\udc80"):
        return b"\x80"
    if "\x00" in text:
        raise ValueError("embedded null byte")
    return text.replace("\r\n", "\n")


def _card(name: str = "tool.param") -> Card:
    return fidelity.survey(probes.function(_coerce, name="coerce"), PAYLOADS).card(name=name)


def test_json_round_trip_is_exact() -> None:
    card = _card()
    text = card.to_json()
    again = Card.from_json(text)
    assert again == card
    assert again.to_json() == text
    assert text.isascii()
    assert json.loads(text)["schema_version"] == 2


def test_values_are_byte_faithful_and_typed() -> None:
    card = _card()
    by_id = {o.payload_id: o for o in card.observations}
    assert by_id["surrogates/lone"].sent.value() == "a\ud800b"
    assert by_id["surrogates/low"].received == CardValue(type="bytes", data="gA==")
    octal = by_id["coercion/octal"].received
    assert octal is not None
    assert (octal.type, octal.value()) == ("int", 8)
    assert by_id["nul/mid"].received is None
    assert by_id["nul/mid"].error == "embedded null byte"
    for value in ("x", b"\xff", 8, 1.5, True, None, ("t",)):
        encoded = CardValue.of(value)
        assert CardValue.from_dict(encoded.to_dict()) == encoded
    assert CardValue.of(False).value() is False
    assert CardValue.of(2.5).value() == 2.5


def test_json_is_deterministic_and_sorted() -> None:
    first, second = _card(), _card()
    assert first.to_json() == second.to_json()
    document = json.loads(first.to_json())
    assert list(document) == sorted(document)
    rows = [(r["family"], r["direction"]) for r in document["rows"]]
    assert rows == [(r.family, r.direction) for r in first.rows]
    families = [r[0] for r in rows]
    assert families == [f for f in fidelity.FAMILIES if f in families]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "schema_version"),
        ('{"schema_version": 99}', "unsupported card schema_version 99"),
        ('{"schema_version": true}', "unsupported"),
        ('{"schema_version": 1, "name": 3}', "not a valid contract card"),
    ],
)
def test_bad_card_json_is_a_usage_error(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Card.from_json(text)


def test_tampered_fields_are_usage_errors() -> None:
    document = json.loads(_card().to_json())
    document["observations"][0]["status"] = "exploded"
    with pytest.raises(UsageError, match="unknown status"):
        Card.from_json(json.dumps(document))
    document = json.loads(_card().to_json())
    document["observations"][0]["sent"]["data"] = "***"
    with pytest.raises(UsageError, match="base64"):
        Card.from_json(json.dumps(document))
    document = json.loads(_card().to_json())
    del document["facts"]["complete"]
    with pytest.raises(UsageError, match="complete"):
        Card.from_json(json.dumps(document))


def test_collections_of_cards() -> None:
    one, two = _card("a"), _card("b")
    assert cards_from_json(cards_to_json([one, two])) == (one, two)
    assert cards_from_json(one.to_json()) == (one,)


def test_incomplete_cards_say_so() -> None:
    card = _card()
    assert card.complete
    partial = card.mark_incomplete()
    assert not partial.complete
    assert Card.from_json(partial.to_json()) == partial
    assert "incomplete run" in partial.to_markdown()


def test_markdown_examples_are_code_spans_not_quoted() -> None:
    payloads = (
        Payload(id="quotes/curly", text="“q”", families=("quotes",)),
        Payload(id="escapes/tick", text=" `a|b` ", families=("escapes",)),
    )
    card = fidelity.survey(lambda t: t.replace("“", '"').replace("”", '"'), payloads).card()
    markdown = card.to_markdown()
    assert 'U+201C U+0071 U+201D `“q”` → U+0022 U+0071 U+0022 `"q"`' in markdown
    assert "““q””" not in markdown  # the old, ambiguous quoting
    # Backticks and pipes inside the value: a longer fence, padding, an escaped pipe.
    from fidelity._report.display import code_span as _code_span

    assert _code_span(" `a|b` ") == "``  `a\\|b`  ``"
    assert _code_span("a") == "`a`"
    assert _code_span("   ") == "`   `"


def test_a_family_of_the_users_own_reads_back_but_markup_in_one_does_not() -> None:
    payload = Payload(id="mine/a", text="a", families=("my-family",))
    card = fidelity.survey(lambda t: t, payloads=[payload]).card(name="x")
    assert Card.from_json(card.to_json()) == card
    forged = card.to_json().replace('"my-family"', '"my-family\\n<!-- x -->"')
    with pytest.raises(UsageError, match="unknown family"):
        Card.from_json(forged)
