"""fidelity.safe never lets a control, bidi or invisible character through raw."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from fidelity import safe
from fidelity._core.render import badge, codepoints, is_unsafe

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


def _raw_unsafe(text: str) -> list[str]:
    return [c for c in text if is_unsafe(c)]


def test_hostile_examples_are_badged() -> None:
    for text in HOSTILE:
        shown = safe(text)
        assert not _raw_unsafe(shown), (text, shown)
        assert "[U+" in shown


@given(st.text(alphabet=st.characters(codec=None)))
def test_safe_output_has_no_unsafe_character(text: str) -> None:
    shown = safe(text)
    assert not _raw_unsafe(shown)
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
    assert safe("a\u200d") == "a[U+200D ZERO WIDTH JOINER]"


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
        if cp not in selectors and ignorable.match(chr(cp)) and not is_unsafe(chr(cp))
    ]
    assert not missed
    # A variation selector chooses the form of the character before it: kept there,
    # a badge where it has nothing to select.
    assert safe("\u2764\ufe0f") == "\u2764\ufe0f"
    assert safe("\u8fbb\U000e0100") == "\u8fbb\U000e0100"
    assert safe("\ufe0f") == "[U+FE0F VARIATION SELECTOR-16]"


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
