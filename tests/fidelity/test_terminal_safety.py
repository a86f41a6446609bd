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
