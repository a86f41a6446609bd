"""What may never reach a terminal raw, written out by hand.

The list is independent of ``fidelity._core.render.is_unsafe`` on purpose: a test that
checks the renderer's output with the renderer's own predicate cannot catch a bug in
that predicate. Each range below is typed from the Unicode character database's
documentation, not computed.

Two kinds of code points are allowed in one context only, because ``safe`` keeps
printable grapheme clusters whole: a zero width joiner between two visible characters
(inside an emoji ZWJ sequence) and a variation selector right after a character that
is allowed raw (an emoji or text presentation selector), but never after a letter of a
script that has no variation sequences (one selector after each Latin letter hides
bytes). Anywhere else they are forbidden too.
"""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

__all__ = ["FORBIDDEN", "JOINERS", "assert_terminal_safe", "hostile_text", "raw_forbidden"]


def _span(first: int, last: int) -> frozenset[int]:
    return frozenset(range(first, last + 1))


_NEVER: tuple[frozenset[int], ...] = (
    _span(0x00, 0x1F),  # C0 controls: ESC, NUL, BEL, tab, CR, LF... (all shown as badges)
    frozenset({0x7F}),  # DELETE
    _span(0x80, 0x9F),  # C1 controls: NEXT LINE, CONTROL SEQUENCE INTRODUCER...
    frozenset({0xAD}),  # SOFT HYPHEN
    _span(0x0600, 0x0605),  # ARABIC NUMBER SIGN... (prepended format characters)
    frozenset({0x061C}),  # ARABIC LETTER MARK (bidi)
    frozenset({0x06DD, 0x070F}),  # ARABIC END OF AYAH, SYRIAC ABBREVIATION MARK
    frozenset({0x0890, 0x0891, 0x08E2}),  # ARABIC POUND/PIASTRE MARK ABOVE, DISPUTED END
    frozenset({0x180E}),  # MONGOLIAN VOWEL SEPARATOR
    frozenset({0x200B, 0x200C}),  # ZERO WIDTH SPACE, ZERO WIDTH NON-JOINER
    frozenset({0x200E, 0x200F}),  # LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    _span(0x202A, 0x202E),  # bidi embeddings and overrides (LRE, RLE, PDF, LRO, RLO)
    frozenset({0x2028, 0x2029}),  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    _span(0x2060, 0x2064),  # WORD JOINER, invisible operators
    _span(0x2065, 0x2065),  # reserved default-ignorable
    _span(0x2066, 0x2069),  # bidi isolates (LRI, RLI, FSI, PDI)
    _span(0x206A, 0x206F),  # deprecated format characters (symmetric swapping...)
    frozenset({0xFEFF}),  # ZERO WIDTH NO-BREAK SPACE (BOM)
    _span(0xFFF9, 0xFFFB),  # interlinear annotation anchors
    frozenset({0x110BD, 0x110CD}),  # KAITHI NUMBER SIGN (and ABOVE)
    _span(0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    _span(0x1BCA0, 0x1BCA3),  # shorthand format controls
    _span(0x1D173, 0x1D17A),  # musical symbol format controls (BEGIN BEAM...)
    frozenset({0xE0001}),  # LANGUAGE TAG
    _span(0xE0020, 0xE007F),  # tag characters (TAG SPACE ... CANCEL TAG)
    # Letters, marks and symbols that print as nothing.
    frozenset({0x034F}),  # COMBINING GRAPHEME JOINER
    frozenset({0x115F, 0x1160, 0x3164, 0xFFA0}),  # Hangul fillers
    frozenset({0x17B4, 0x17B5}),  # KHMER VOWEL INHERENT AQ, AA
    frozenset({0x2800}),  # BRAILLE PATTERN BLANK
    frozenset({0x16FE4}),  # KHITAN SMALL SCRIPT FILLER
    frozenset({0x1D159}),  # MUSICAL SYMBOL NULL NOTEHEAD
    # Spaces that look like U+0020 and are not.
    frozenset({0xA0, 0x1680, 0x202F, 0x205F, 0x3000}),
    _span(0x2000, 0x200A),  # EN QUAD ... HAIR SPACE
    _span(0xD800, 0xDFFF),  # surrogates
    _span(0xE000, 0xF8FF),  # private use
    _span(0xF0000, 0xFFFFD),  # supplementary private use area A
    _span(0x100000, 0x10FFFD),  # supplementary private use area B
    _span(0xFDD0, 0xFDEF),  # noncharacters
    frozenset(plane * 0x10000 + low for plane in range(17) for low in (0xFFFE, 0xFFFF)),
)

#: Code points that must never appear raw in anything shown on a terminal.
FORBIDDEN: frozenset[int] = frozenset().union(*_NEVER)

#: Allowed only inside a printable grapheme: ZERO WIDTH JOINER between two visible
#: characters, one variation selector right after a visible character that is not a
#: mark (after a space or another selector it selects nothing and prints as nothing).
JOINERS: frozenset[int] = frozenset(
    {0x200D} | _span(0xFE00, 0xFE0F) | _span(0xE0100, 0xE01EF) | _span(0x180B, 0x180D) | {0x180F}
)


_SELECTORS = JOINERS - {0x200D}


def _base(char: str) -> bool:
    """A character a selector may follow: anything allowed raw on its own."""
    return ord(char) not in FORBIDDEN and ord(char) not in JOINERS


def _visible(char: str) -> bool:
    return _base(char) and char != " "


#: The scripts whose letters have variation sequences (by character name): the CJK
#: ideographs (compatibility variants, the Ideographic Variation Database), Myanmar,
#: Phags-pa, Manichaean (StandardizedVariants.txt), Mongolian (free variation
#: selectors); and the one letter that is an emoji (U+2139 INFORMATION SOURCE).
_SELECTED_LETTERS = ("CJK UNIFIED IDEOGRAPH", "MYANMAR", "PHAGS-PA", "MANICHAEAN", "MONGOLIAN")


def _selectable(char: str) -> bool:
    """False for a letter no variation sequence starts with (Latin, Greek, Cyrillic...)."""
    if not unicodedata.category(char).startswith("L"):
        return True
    name = unicodedata.name(char, "")
    return name == "INFORMATION SOURCE" or name.startswith(_SELECTED_LETTERS)


def raw_forbidden(text: str) -> list[str]:
    """The code points of ``text`` that must not be there, as ``U+XXXX`` (empty: safe).

    ``text`` is checked whole: a line feed counts too, so split a multi-line output on
    ``"\\n"`` only (``str.splitlines`` would swallow raw separators such as U+0085).
    """
    bad: list[str] = []
    for i, char in enumerate(text):
        cp = ord(char)
        if cp in FORBIDDEN:
            bad.append(f"U+{cp:04X}")
        elif cp in JOINERS:
            j = i - 1
            while j >= 0 and ord(text[j]) in _SELECTORS:  # a ZWJ may follow an emoji's selector
                j -= 1
            if cp == 0x200D:  # joins two pictures: a mark after it would sit on nothing
                after = text[i + 1] if i + 1 < len(text) else " "
                attached = j >= 0 and _visible(text[j]) and _visible(after)
                attached = attached and not unicodedata.category(after).startswith("M")
            else:  # one selector, right after the visible character it selects
                attached = j == i - 1 and j >= 0 and _visible(text[j])
                attached = attached and not unicodedata.category(text[j]).startswith("M")
                attached = attached and _selectable(text[j])
            if not attached:
                bad.append(f"U+{cp:04X}")
    return bad


def assert_terminal_safe(output: str) -> None:
    """Fail when any line of ``output`` (split on line feeds only) holds a forbidden
    code point raw."""
    for line in output.split("\n"):
        bad = raw_forbidden(line)
        assert not bad, f"raw {sorted(set(bad))} in output line {line!r}"


def hostile_text(*, max_size: int | None = None) -> st.SearchStrategy[str]:
    """Any text, with forbidden code points, joiners, marks and emoji drawn often (a
    uniform draw over all of Unicode would rarely hit one bidi control)."""
    hazards = sorted(FORBIDDEN | JOINERS)
    piece = st.one_of(
        st.characters(codec=None),
        st.sampled_from([chr(cp) for cp in hazards if cp < 0xE000 or cp % 61 == 0]),
        st.sampled_from(["\u200d", "\ufe0f", "\u0301", "\U0001f468", "a", " "]),
    )
    return st.lists(piece, max_size=max_size).map("".join)
