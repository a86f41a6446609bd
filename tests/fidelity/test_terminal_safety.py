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
