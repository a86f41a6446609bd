"""Every family's strategy produces its hazard, shown through ``fidelity.compare``."""

from __future__ import annotations

import random

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_rewrites import FAMILY_REWRITES, Rewrite

import fidelity
import strategies

_FAST = settings(
    max_examples=25,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _revealed(value: str, rewrites: tuple[Rewrite, ...]) -> bool:
    return any(not fidelity.compare(value, rewrite(value)).faithful for rewrite in rewrites)


@pytest.mark.parametrize("family", fidelity.FAMILIES)
def test_family_strategy_produces_its_hazard(family: str) -> None:
    strategy = getattr(strategies, family)()
    assert repr(strategy) == f"strategies.{family}()"
    rewrites = FAMILY_REWRITES[family]

    @_FAST
    @given(strategy)
    def check(value: str) -> None:
        assert isinstance(value, str)
        assert _revealed(value, rewrites), fidelity.safe(value)

    check()


@pytest.mark.parametrize("family", fidelity.FAMILIES)
def test_every_catalogue_payload_shows_its_family_hazard(family: str) -> None:
    rewrites = FAMILY_REWRITES[family]
    for payload in strategies.catalogue(families=[family]):
        assert _revealed(payload.text, rewrites), payload.id


@pytest.mark.parametrize("family", ["quotes", "bidi", "coercion"])
def test_family_looks_up_the_same_strategy(family: str) -> None:
    strategy = strategies.family(family)
    assert repr(strategy) == f"strategies.{family}()"
    strategy.validate()
    assert strategy.wrapped is getattr(strategies, family)().wrapped  # type: ignore[attr-defined]


def test_family_rejects_unknown_ids_at_use_time() -> None:
    strategy = strategies.family("emoji")
    assert repr(strategy) == "strategies.family('emoji')"
    with pytest.raises(
        strategies.InvalidArgument, match=r"name='emoji'.*valid families are: quotes"
    ):
        strategy.validate()


def test_text_shrinks_a_quote_straightening_to_one_curly_quote() -> None:
    from strategies_rewrites import straighten_quotes

    found = hypothesis.find(
        strategies.text(),
        lambda s: not fidelity.compare(s, straighten_quotes(s)).faithful,
        settings=settings(database=None, max_examples=200),
        random=random.Random(0),
    )
    assert found in ("\u201c", "\u201d", "\u2018", "\u2019")
    assert fidelity.compare(found, straighten_quotes(found)).kinds <= {
        "quote.straighten",
        "unknown",
    }


def test_text_shrinks_an_nfc_rewrite_to_one_short_hazard() -> None:
    from strategies_rewrites import renormalize

    found = hypothesis.find(
        strategies.text(max_pieces=2),
        lambda s: s != renormalize(s) and not fidelity.compare(s, renormalize(s)).faithful,
        settings=settings(database=None, max_examples=200),
        random=random.Random(0),
    )
    assert len(found) <= 8  # one short hazard, e.g. e + U+0301 or a kana word


@_FAST
@given(strategies.text(families=["paths", "escapes"], plain=False))
def test_text_restricted_to_families_carries_their_hazards(value: str) -> None:
    rewrites = FAMILY_REWRITES["paths"] + FAMILY_REWRITES["escapes"]
    assert _revealed(value, rewrites)


@_FAST
@given(strategies.payloads(families=("quotes", "bidi")))
def test_payloads_are_labelled_records(payload: fidelity.Payload) -> None:
    family, _, digest = payload.id.removeprefix("generated/").partition("/")
    assert payload.id.startswith("generated/")
    assert family == payload.families[0]
    assert set(payload.families) <= {"quotes", "bidi"}
    assert len(digest) == 10
    assert all(c in "0123456789abcdef" for c in digest)


@_FAST
@given(st.data())
def test_equal_generated_texts_get_equal_ids(data: st.DataObject) -> None:
    a = data.draw(strategies.payloads(families=["nul"], max_pieces=1, plain=False))
    b = data.draw(strategies.payloads(families=["nul"], max_pieces=1, plain=False))
    assert (a.id == b.id) == (a.text == b.text)
