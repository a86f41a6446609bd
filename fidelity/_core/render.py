"""Terminal-safe rendering of payload text.

Payloads are hostile to terminals: an ESC sequence can rewrite the screen, a bidi
override can reorder what a reader sees, an invisible character hides an edit. Every
piece of payload text that param-fidelity prints goes through :func:`safe`, which keeps
ordinary printable characters and shows everything else as a ``[U+XXXX NAME]`` badge.
Grapheme clusters are kept whole: a combining mark stays with its base character, and
only marks with nothing to attach to become badges. Letters and symbols that print
as nothing (the Hangul fillers, the blank braille pattern) are badges too, and so is a
stack of more than ``MAX_MARKS`` combining marks on one base (it would spill over the
lines around it): the base is kept, each mark shown as a badge. A variation selector
is raw only where it forms a variation sequence (:func:`selects`): one after each
letter of a word would otherwise hide bytes no reader sees.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

__all__ = [
    "INVISIBLE",
    "MAX_MARKS",
    "badge",
    "codepoints",
    "grapheme_pattern",
    "is_unsafe",
    "safe",
    "selects",
]


@functools.cache
def grapheme_pattern() -> regex.Pattern[str]:
    """The one compiled grapheme-cluster pattern (``\\X``); ``regex`` loads on first use."""
    import regex

    return regex.compile(r"\X", regex.DOTALL)


# Names for code points that unicodedata does not name (controls) or names unhelpfully.
_NAMES: dict[int, str] = {
    0x00: "NULL", 0x01: "START OF HEADING", 0x02: "START OF TEXT", 0x03: "END OF TEXT",
    0x04: "END OF TRANSMISSION", 0x05: "ENQUIRY", 0x06: "ACKNOWLEDGE", 0x07: "BELL",
    0x08: "BACKSPACE", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED",
    0x0B: "LINE TABULATION", 0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN",
    0x0E: "SHIFT OUT", 0x0F: "SHIFT IN", 0x10: "DATA LINK ESCAPE",
    0x11: "DEVICE CONTROL ONE", 0x12: "DEVICE CONTROL TWO", 0x13: "DEVICE CONTROL THREE",
    0x14: "DEVICE CONTROL FOUR", 0x15: "NEGATIVE ACKNOWLEDGE", 0x16: "SYNCHRONOUS IDLE",
    0x17: "END OF TRANSMISSION BLOCK", 0x18: "CANCEL", 0x19: "END OF MEDIUM",
    0x1A: "SUBSTITUTE", 0x1B: "ESCAPE", 0x1C: "FILE SEPARATOR", 0x1D: "GROUP SEPARATOR",
    0x1E: "RECORD SEPARATOR", 0x1F: "UNIT SEPARATOR", 0x7F: "DELETE",
    0x85: "NEXT LINE", 0x9B: "CONTROL SEQUENCE INTRODUCER",
}  # fmt: skip

# Categories whose characters are never printed raw.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

#: Letters, marks and symbols that print as nothing, outside the categories above: the
#: default-ignorable code points that are not format characters (but the variation
#: selectors, which choose the form of the character before them), and blank symbols.
INVISIBLE = frozenset({
    0x034F,  # COMBINING GRAPHEME JOINER
    0x115F, 0x1160,  # HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
    0x17B4, 0x17B5,  # KHMER VOWEL INHERENT AQ, AA
    0x2800,  # BRAILLE PATTERN BLANK
    0x3164,  # HANGUL FILLER
    0xFFA0,  # HALFWIDTH HANGUL FILLER
    0x16FE4,  # KHITAN SMALL SCRIPT FILLER
    0x1D159,  # MUSICAL SYMBOL NULL NOTEHEAD
})  # fmt: skip

#: Combining marks kept on one base; a longer stack is spelled out as badges.
MAX_MARKS = 4

#: Variation selectors: raw only right after a visible character whose form they can
#: choose (see :func:`selects`); anywhere else they choose nothing and print as
#: nothing, so one after each letter could hide data.
_SELECTORS = frozenset(
    {*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x180B, 0x180C, 0x180D, 0x180F}
)
#: The bases of FE00 in Unicode's StandardizedVariants.txt outside the scripts
#: :func:`selects` names whole: DIGIT ZERO (short diagonal stroke), EMPTY SET (zero
#: form), and the mathematical operators drawn with a slanted or vertical stroke.
_FE00_BASES = frozenset({
    0x0030, 0x2205, 0x2229, 0x222A, 0x2268, 0x2269, 0x2272, 0x2273, 0x228A, 0x228B,
    0x2293, 0x2294, 0x2295, 0x2297, 0x229C, 0x22DA, 0x22DB, 0x2A3C, 0x2A3D, 0x2A9D,
    0x2A9E, 0x2AAC, 0x2AAD, 0x2ACB, 0x2ACC,
})  # fmt: skip


@functools.cache
def _property(name: str) -> regex.Pattern[str]:
    import regex

    return regex.compile(rf"\p{{{name}}}")


def selects(base: str, selector: str) -> bool:
    """True when the variation selector ``selector`` right after ``base`` forms a
    variation sequence Unicode defines (or may define), so both are shown raw.

    The rule stands in for StandardizedVariants.txt, emoji-variation-sequences.txt and
    the Ideographic Variation Database, and errs towards a badge: U+FE0E and U+FE0F
    after a character with the Emoji property (the emoji sequences' bases are such
    characters: digits, ``#`` and ``*`` included, for keycaps); U+FE00 to U+FE02 and
    U+E0100 to U+E01EF after a CJK unified ideograph (the CJK compatibility variants,
    the registered ideographic sequences); U+FE00 after a letter of Myanmar, Phags-pa
    or Manichaean, or one of the few symbols of ``_FE00_BASES``; the Mongolian free
    variation selectors after a Mongolian letter. Any other pair (a selector after a
    Latin letter, a space, a mark or another selector) is a badge.
    """
    cp = ord(selector)
    if cp in (0xFE0E, 0xFE0F):
        return bool(_property("Emoji").match(base))
    ideographic = 0xE0100 <= cp <= 0xE01EF or 0xFE00 <= cp <= 0xFE02
    if ideographic and _property("Unified_Ideograph").match(base):
        return True
    if cp == 0xFE00:
        return ord(base) in _FE00_BASES or bool(
            _property("Script=Myanmar").match(base)
            or _property("Script=Phags_Pa").match(base)
            or _property("Script=Manichaean").match(base)
        )
    if cp in (0x180B, 0x180C, 0x180D, 0x180F):
        return bool(_property("Script=Mongolian").match(base))
    return False


def _name(cp: int) -> str:
    if cp in _NAMES:
        return _NAMES[cp]
    if 0xD800 <= cp <= 0xDFFF:
        return "LOW SURROGATE" if cp >= 0xDC00 else "HIGH SURROGATE"
    if 0x80 <= cp <= 0x9F:
        return "C1 CONTROL"
    try:
        return unicodedata.name(chr(cp))
    except ValueError:
        return "UNASSIGNED" if unicodedata.category(chr(cp)) == "Cn" else "UNNAMED"


def badge(char: str) -> str:
    """Return the badge for one code point, e.g. ``[U+200B ZERO WIDTH SPACE]``."""
    cp = ord(char)
    return f"[U+{cp:04X} {_name(cp)}]"


def codepoints(text: str) -> str:
    """Return ``text`` as space-separated ``U+XXXX`` code points (empty for ``""``)."""
    return " ".join(f"U+{ord(c):04X}" for c in text)


def is_unsafe(char: str) -> bool:
    """True when one code point must not reach a terminal raw.

    Controls (tab and line feed included), format and bidi characters, surrogates,
    private-use and unassigned code points, line and paragraph separators, every
    space other than U+0020 (an NBSP looks like a space but is not one), and the
    letters and symbols that print as nothing (``INVISIBLE``: U+3164 HANGUL FILLER,
    U+2800 BRAILLE PATTERN BLANK...).
    """
    cat = unicodedata.category(char)
    if cat in _UNSAFE_CATEGORIES or ord(char) in INVISIBLE:
        return True
    return cat == "Zs" and char != " "


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Me", "Mc")


def _stacked(cluster: str) -> bool:
    """True when ``cluster`` piles more than ``MAX_MARKS`` combining marks on its base."""
    return sum(1 for c in cluster if unicodedata.category(c) in ("Mn", "Me")) > MAX_MARKS


def safe(text: str) -> str:
    """Return ``text`` with every unsafe code point shown as a badge.

    Printable graphemes are kept whole; a grapheme whose base is unsafe, or that
    consists only of combining marks, is spelled out badge by badge. A variation
    selector is raw only right after a visible character it can select (:func:`selects`:
    an emoji before U+FE0F, an ideograph before an ideographic selector...); marks that
    follow an unsafe base are badges too, and so are the marks of a base that carries
    more than ``MAX_MARKS`` of them, and a zero width joiner that joins nothing. The
    result contains only printable characters and U+0020.
    """
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    for cluster in grapheme_pattern().findall(text):
        first = cluster[0]
        if is_unsafe(first) or _is_mark(first):
            out.extend(badge(c) for c in cluster)
            continue
        out.append(first)
        if len(cluster) > MAX_MARKS + 1 and _stacked(cluster):
            out.extend(badge(c) for c in cluster[1:])
            continue
        shown = True  # the previous code point of the cluster was shown raw
        for i, c in enumerate(cluster[1:], start=1):
            # A ZWJ joining two pictures inside one emoji sequence is part of the
            # picture (it follows a raw code point and a picture follows it, not a
            # mark); any other format character is shown, and so is a mark after it.
            after = cluster[i + 1] if i + 1 < len(cluster) else "\x00"
            joins = c == "\u200d" and shown and not (is_unsafe(after) or _is_mark(after))
            if ord(c) in _SELECTORS:
                shown = shown and selects(cluster[i - 1], c)
            else:
                shown = joins or not (is_unsafe(c) or (_is_mark(c) and not shown))
            out.append(c if shown else badge(c))
    return "".join(out)
