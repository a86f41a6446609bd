"""compare on the awkward values: bytes, invalid UTF-8, surrogates, empty, huge, non-text."""

from __future__ import annotations

import json
import random
import unicodedata

import pytest

from fidelity import Comparison, FidelityError, UsageError, assert_faithful, compare


def test_bytes_and_str_compare_as_utf8() -> None:
    assert compare("café", "café".encode()).faithful
    assert compare("café".encode(), "café").faithful
    assert compare("a\ud800", "a\ud800".encode("utf-8", "surrogatepass")).faithful


def test_comparison_is_immutable() -> None:
    c = compare("a", "b")
    assert isinstance(c, Comparison)
    with pytest.raises(AttributeError):
        c.faithful = True  # type: ignore[misc]
    assert isinstance(c.transformations, tuple)


def test_invalid_utf8_received_is_classified() -> None:
    c = compare("naïve café", "naïve café".encode("latin-1"))
    assert c.kinds == {"encoding.mojibake"}
    assert {t.detail for t in c.transformations} <= {"latin-1", "cp1252"}
    assert c.explained
    assert "[byte 0xEF]" in c.render()


def test_invalid_utf8_truncated_mid_character() -> None:
    sent = "x" * 254 + "€"
    c = compare(sent, sent.encode()[:255])
    assert c.kinds == {"truncate"}
    (t,) = c.transformations
    assert t.detail == "254 chars, 255 UTF-8 bytes, 254 UTF-16 units"
    assert t.sent_byte_start == 254
    assert t.received_byte_end == 255


def test_truncate_detail_names_nul() -> None:
    c = compare("ab\x00cd", "ab")
    (t,) = c.transformations
    assert t.kind == "truncate"
    assert t.detail.endswith(", nul")


def test_truncate_detail_counts_the_half_of_a_pair_left_at_a_utf16_cut() -> None:
    # A UTF-16 string cut between the two units of a pair keeps the high surrogate:
    # the cut is after 2 characters, 2 UTF-8 bytes, and 3 UTF-16 units.
    sent = "ab\U0001f600cd"
    received = sent.encode("utf-16-le")[:6].decode("utf-16-le", "surrogatepass")
    assert received == "ab\ud83d"
    c = compare(sent, received)
    (t,) = c.transformations
    assert t.kind == "truncate"
    assert t.detail == "2 chars, 2 UTF-8 bytes, 3 UTF-16 units"


def test_lone_surrogates_on_both_sides() -> None:
    assert compare("a\udc80b", "a\udc80b").faithful
    c = compare("a\ud83db", "a\ufffdb")
    assert c.kinds == {"encoding.replacement"}
    c = compare("x\ud83d\ude00y", "x😀y")
    assert c.kinds == {"encoding.surrogate_split"}
    c = compare("a😀b", "a\ud83db")
    assert c.kinds == {"encoding.surrogate_split"}


def test_empty_values() -> None:
    assert compare("", "").faithful
    assert compare("", b"").faithful
    c = compare("abc", "")
    assert c.kinds == {"truncate"}
    c = compare("", "abc")
    assert c.kinds == {"unknown"}
    assert not c.explained


@pytest.mark.parametrize(
    ("sent", "received", "kind"),
    [
        ("010", 8, "type.coerced"),
        ("no", False, "type.coerced"),
        ("null", None, "type.coerced"),
        ("1e3", 1000.0, "type.coerced"),
        ("True", True, "type.coerced"),
        ("12", 12, "type.coerced"),
    ],
)
def test_non_string_received(sent: str, received: object, kind: str) -> None:
    c = compare(sent, received)
    assert c.kinds == {kind}
    assert c.explained
    assert c.transformations[0].received == repr(received)


def test_non_string_that_no_coercion_gives_is_unknown() -> None:
    c = compare("abc", 42)
    assert c.kinds == {"unknown"}
    assert not c.explained


def test_several_kinds_in_one_value() -> None:
    sent = "  Cafe\u0301 \u201cok\u201d\r\nline two\r\n  "
    received = unicodedata.normalize("NFC", sent).replace("\r\n", "\n").strip()
    received = received.replace("\u201c", '"').replace("\u201d", '"')
    c = compare(sent, received)
    assert c.kinds == {"unicode.nfc", "newline.crlf_to_lf", "whitespace.strip", "quote.straighten"}
    assert c.explained


def test_bom_with_other_rewrites() -> None:
    c = compare("\ufeffa\r\nb", "a\nb")
    assert c.kinds == {"bom.removed", "newline.crlf_to_lf"}
    assert c.explained


def test_json_round_trip_through_the_engine() -> None:
    sent = 'tab\there "q" \\ é'
    c = compare(sent, json.dumps(sent))
    assert c.kinds == {"escape.json"}


def test_multi_mib_value_with_scattered_edits() -> None:
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "epsilon"] * 8 + ["\u201cq\u201d"]
    sent = " ".join(rng.choice(words) for _ in range(600_000))
    assert len(sent) > 3 * 1024 * 1024
    received = sent.replace("\u201c", '"').replace("\u201d", '"')
    c = compare(sent, received)
    assert c.kinds == {"quote.straighten"}
    assert c.explained
    big = compare(sent, sent[: 1 << 20])
    assert big.kinds == {"truncate"}


def test_unrelated_large_values_end() -> None:
    a = "".join(random.Random(1).choice("abc") for _ in range(50_000))
    b = "".join(random.Random(2).choice("xyz") for _ in range(50_000))
    c = compare(a, b)
    assert c.kinds == {"unknown"}


def test_assert_faithful_allows_and_raises() -> None:
    assert_faithful("a\r\nb", "a\nb", allow=["newline.crlf_to_lf"])
    assert_faithful("same", "same")
    with pytest.raises(FidelityError) as info:
        assert_faithful("“a”", '"a"', allow=["newline.crlf_to_lf"])
    assert isinstance(info.value, AssertionError)
    assert isinstance(info.value.comparison, Comparison)
    assert "quote.straighten" in str(info.value)


def test_assert_faithful_rejects_unknown_kind_ids() -> None:
    with pytest.raises(UsageError, match=r"quote\.straighten"):
        assert_faithful("a", "b", allow=["quote.straight"])
    with pytest.raises(UsageError):
        assert_faithful("a", "b", allow="quote.straighten")


def test_lone_low_surrogates_count_three_bytes() -> None:
    c = compare("a\udc80b", "a\udcffb")
    (t,) = c.transformations
    assert (t.sent_byte_start, t.sent_byte_end) == (1, 4)
    assert (t.received_byte_start, t.received_byte_end) == (1, 4)
    c = compare("a\udc80b", b"a\x80b")
    (t,) = c.transformations
    assert t.kind == "unknown"
    assert (t.sent_byte_end, t.received_byte_end) == (5, 3)


@pytest.mark.parametrize("codec", ["shift_jis", "euc-jp", "gbk"])
def test_bytes_of_a_multibyte_codec_cut_mid_character_are_classified(codec: str) -> None:
    # Reading them back in the codec chardet guesses fails on the cut character: that
    # reading is no explanation, and no error either.
    sent = "日本語のテキストです。これは長い文章です。"
    c = compare(sent, sent.encode(codec)[:-1])
    assert not c.faithful
    assert c.transformations
    assert "[byte 0x" in c.render()
