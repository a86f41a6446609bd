"""Every family's strategy produces its hazard, named through ``fidelity.compare``."""

from __future__ import annotations

import random
import unicodedata

import hypothesis
import pytest
import strategies_rewrites as rw
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from strategies_rewrites import FAMILY_REWRITES, OVERLAPS, Kinds, Rewrite

import fidelity
import strategies

_FAST = settings(
    max_examples=25,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: ``find`` without the explain phase, which replays a dense value slot by slot.
_FIND = settings(database=None, max_examples=200, phases=(Phase.generate, Phase.shrink))


def _revealed(
    value: str, rewrites: tuple[tuple[Rewrite, Kinds], ...], *, isolated: bool = False
) -> bool:
    """Whether a rewrite changes ``value``; each one that does is named by its kinds.

    An ``isolated`` hazard (a catalogue payload: one hazard in a benign context) is
    named by the rewrite's kinds only. Around generated values, next to arbitrary
    text, the classifier may also split the edit differently (runs of similar
    characters realign; see tests/fidelity/test_compare_alignment.py): the rewrite's kinds
    must then be among those named, and nothing may be ``unknown``.
    """
    shown = False
    for rewrite, kinds in rewrites:
        received = rewrite(value)
        comparison = fidelity.compare(value, received)
        if comparison.faithful:
            continue
        shown = True
        if kinds is None:
            continue
        allowed = kinds | OVERLAPS.get(rewrite, frozenset())
        named = comparison.kinds
        name = getattr(rewrite, "__name__", repr(rewrite))
        message = f"{name} of {fidelity.safe(value)} named {sorted(named)}"
        if isolated:
            assert named, message
            assert named <= allowed, f"{message}, expected among {sorted(allowed)}"
        else:
            assert "unknown" not in named, message
            assert named & allowed, f"{message}, expected one of {sorted(allowed)}"
    return shown


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
        assert _revealed(payload.text, rewrites, isolated=True), payload.id


def _text(payload_id: str) -> str:
    (payload,) = (p for p in strategies.catalogue() if p.id == payload_id)
    return payload.text


@pytest.mark.parametrize(
    ("payload_id", "rewrite", "kinds"),
    [
        ("quotes/left-double-mid", rw.straighten_quotes, {"quote.straighten"}),
        ("quotes/guillemets-mid", rw.straighten_guillemets, {"quote.straighten"}),
        ("quotes/ascii-pair-mid", rw.educate_quotes, {"quote.educate"}),
        ("punctuation/em-dash-mid", rw.straighten_punctuation, {"punct.straighten"}),
        ("punctuation/ascii-ellipsis-mid", rw.educate_punctuation, {"punct.educate"}),
        ("normalization/nfd-e-acute-mid", rw.nfc, {"unicode.nfc"}),
        ("normalization/nfc-e-acute-mid", rw.nfd, {"unicode.nfd"}),
        ("compatibility/ligature-fi-mid", rw.nfkc, {"unicode.nfkc"}),
        ("case/sharp-s-mid", rw.change_case, {"unicode.case"}),
        ("diacritics/e-acute-word-mid", rw.strip_marks, {"unicode.ascii_fold"}),
        ("diacritics/o-stroke-mid", rw.transliterate, {"unicode.ascii_fold"}),
        ("whitespace/space-start", rw.strip, {"whitespace.strip"}),
        ("whitespace/nbsp-mid", rw.spaces_to_space, {"whitespace.to_space"}),
        ("whitespace/space-run-mid", rw.collapse_spaces, {"whitespace.collapse"}),
        ("whitespace/tab-mid", rw.expand_tabs, {"whitespace.tab_expand"}),
        ("whitespace/line-trailing-space-mid", rw.strip_line_ends, {"whitespace.line_strip"}),
        ("invisible/zero-width-space-mid", rw.drop_invisible, {"invisible.removed"}),
        ("bidi/right-to-left-override-mid", rw.drop_bidi, {"invisible.removed"}),
        ("control/start-of-heading-mid", rw.drop_controls, {"control.removed"}),
        ("control/start-of-heading-mid", rw.control_pictures, {"control.replaced"}),
        ("nul/nul-mid", rw.drop_nul, {"control.removed"}),
        ("nul/nul-mid", rw.cut_at_nul, {"truncate"}),
        ("newlines/crlf-mid", rw.crlf_to_lf, {"newline.crlf_to_lf"}),
        ("newlines/cr-mid", rw.crlf_to_lf, {"newline.cr_to_lf"}),
        ("newlines/lf-mid", rw.lf_to_crlf, {"newline.lf_to_crlf"}),
        ("separators/line-separator-mid", rw.separators_to_lf, {"newline.separator_to_lf"}),
        ("paths/windows-mid", rw.backslash_to_slash, {"path.backslash_to_slash"}),
        ("paths/posix-mid", rw.slash_to_backslash, {"path.slash_to_backslash"}),
        ("escapes/literal-backslash-n-mid", rw.decode_backslashes, {"unescape.json"}),
        ("escapes/entity-amp-mid", rw.unescape_html, {"unescape.html"}),
        ("escapes/percent-20-mid", rw.unquote_plus, {"unescape.url"}),
        ("escapes/entity-amp-mid", rw.escape_html, {"escape.html"}),
        ("escapes/percent-20-mid", rw.escape_percent, {"escape.url"}),
        ("mojibake/apostrophe-mid", rw.cp1252_mojibake, {"encoding.mojibake"}),
        ("astral/emoji-mid", rw.astral_to_question_mark, {"encoding.question_mark"}),
        ("astral/emoji-mid", rw.utf16_code_units, {"encoding.surrogate_split"}),
        ("astral/heart-vs16-mid", rw.drop_variation_selectors, {"invisible.removed"}),
        ("surrogates/lone-high-mid", rw.surrogates_to_replacement, {"encoding.replacement"}),
        ("bom/leading-start", rw.drop_bom, {"bom.removed"}),
        ("coercion/octal-010", rw.coerce, {"type.coerced"}),
        ("coercion/no", rw.coerce, {"type.coerced"}),
        ("scripts/arabic-mid", rw.ascii_only, {"encoding.question_mark"}),
    ],
)
def test_an_isolated_hazard_is_named_by_its_kind(
    payload_id: str, rewrite: Rewrite, kinds: set[str]
) -> None:
    text = _text(payload_id)
    comparison = fidelity.compare(text, rewrite(text))
    assert comparison.kinds == kinds
    assert comparison.explained


@pytest.mark.parametrize("payload_id", ["length/256-bytes", "length/straddle-256-two-byte"])
def test_a_length_payload_cut_at_255_bytes_is_a_truncation(payload_id: str) -> None:
    text = _text(payload_id)
    assert fidelity.compare(text, rw.truncate_bytes(255)(text)).kinds == {"truncate"}


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
        strategies.InvalidArgument,
        match=r"name=\['emoji'\] names unknown family id\(s\) 'emoji'; valid families are: quotes",
    ):
        strategy.validate()


@pytest.mark.parametrize("seed", [0, 1])
def test_text_shrinks_a_quote_straightening_to_one_curly_quote(seed: int) -> None:
    found = hypothesis.find(
        strategies.text(),
        lambda s: not fidelity.compare(s, rw.straighten_quotes(s)).faithful,
        settings=_FIND,
        random=random.Random(seed),
    )
    assert found in ("\u201c", "\u201d", "\u2018", "\u2019")
    assert fidelity.compare(found, rw.straighten_quotes(found)).kinds == {"quote.straighten"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_text_shrinks_an_nfc_rewrite_to_e_and_a_combining_acute(seed: int) -> None:
    found = hypothesis.find(
        strategies.text(),
        lambda s: unicodedata.normalize("NFC", s) != s,
        settings=_FIND,
        random=random.Random(seed),
    )
    assert found == "e\u0301"
    assert fidelity.compare(found, rw.nfc(found)).kinds == {"unicode.nfc"}


@pytest.mark.parametrize("seed", [0, 1])
def test_text_shrinks_a_renormalization_to_one_character(seed: int) -> None:
    # NFC where it changes the value, else NFD: a composed letter decomposes too, so
    # the smallest value is one character (or e + U+0301), never a word of kana.
    found = hypothesis.find(
        strategies.text(max_pieces=2),
        lambda s: not fidelity.compare(s, rw.renormalize(s)).faithful,
        settings=_FIND,
        random=random.Random(seed),
    )
    assert len(found) <= 2, fidelity.safe(found)
    assert fidelity.compare(found, rw.renormalize(found)).kinds <= {"unicode.nfc", "unicode.nfd"}


@_FAST
@given(strategies.text(families=["paths", "escapes"], plain=False))
def test_text_restricted_to_families_carries_their_hazards(value: str) -> None:
    rewrites = FAMILY_REWRITES["paths"] + FAMILY_REWRITES["escapes"]
    assert _revealed(value, rewrites)


def test_decoded_escaped_backslashes_are_a_known_overlap() -> None:
    # Found by Hypothesis through the test above: named unescape.backslash only.
    assert _revealed("\\\\\\\\ ", FAMILY_REWRITES["escapes"])


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


def test_classifier_survives_a_character_reference_that_decodes_to_nothing() -> None:
    # Found by strategies.text() through SmartyPants: html.unescape("&#14") is "", a
    # zero-length token that once crashed fidelity._compare.replay.token_match.
    sent = "e\u2019ll\\\\&#14"  # SmartyPants: a backslash escape next to an invalid reference
    received = "e\u2019ll&#92;&#14"
    assert fidelity.compare(sent, received).kinds == {"escape.html", "unescape.json"}
