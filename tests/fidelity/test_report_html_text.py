"""Payload text as HTML, unit by unit: UTF-8 byte spans from the encoding's definition
(1 byte below U+0080, 2 below U+0800, 3 below U+10000, else 4), bytes that are not
UTF-8 shown as badges, changed byte ranges marked, and long values shown around their
edits with the elided code points counted."""

from __future__ import annotations

import re

from fidelity._report.html.parts import pair
from fidelity._report.html.text import render_units, units_of

GAP = '<span class="gap">\u2026 {} code points \u2026</span>'
MARK = '<mark class="chg">{}</mark>'


def _spans(value: str | bytes) -> list[tuple[str, int | None, int, int]]:
    return [(u.text, u.byte, u.start, u.end) for u in units_of(value)]


def test_code_points_take_their_utf8_length() -> None:
    text = "\x7f\x80\u07ff\u0800\uffff\U00010000"
    assert _spans(text) == [
        ("\x7f", None, 0, 1),
        ("\x80", None, 1, 3),
        ("\u07ff", None, 3, 5),
        ("\u0800", None, 5, 8),
        ("\uffff", None, 8, 11),
        ("\U00010000", None, 11, 15),
    ]
    assert _spans(text.encode("utf-8")) == _spans(text)


def test_bytes_that_are_not_utf8_are_units_of_one_byte() -> None:
    # a stray continuation byte, a lead byte cut short, a byte no UTF-8 has
    assert _spans(b"a\x80\xe2\x82b\xff") == [
        ("a", None, 0, 1),
        ("", 0x80, 1, 2),
        ("", 0xE2, 2, 3),
        ("", 0x82, 3, 4),
        ("b", None, 4, 5),
        ("", 0xFF, 5, 6),
    ]
    assert _spans(b"") == []
    assert render_units(b"\xff", []) == (
        '<span class="cp bad" title="byte 0xFF, not UTF-8">\\xFF</span>'
    )


def test_a_changed_byte_range_is_marked_unit_by_unit() -> None:
    assert render_units("abc", [(1, 2)]) == "a" + MARK.format("b") + "c"
    # a range inside a two-byte character marks the character
    assert render_units("a\u00e9c", [(2, 3)]) == "a" + MARK.format("\u00e9") + "c"
    assert render_units("abcd", [(0, 1), (2, 4)]) == MARK.format("a") + "b" + MARK.format("cd")
    assert render_units("", []) == '<span class="empty">(empty)</span>'


def test_a_long_value_is_shown_around_its_edit() -> None:
    # 500 units: more than the 400 shown whole. Shown: the first 60, and 60 on each
    # side of the edit at 250; the rest counted.
    html = render_units("a" * 500, [(250, 251)])
    assert html == (
        "a" * 60 + GAP.format(130) + "a" * 60 + MARK.format("a") + "a" * 60 + GAP.format(189)
    )
    assert render_units("a" * 400, []) == "a" * 400


def test_each_change_is_listed_with_its_detail_only_when_it_has_one() -> None:
    html, kinds = pair("a\u201cb", 'a"b')
    assert kinds == ("quote.straighten",)
    assert (
        '<li><span class="kind">quote.straighten</span> <code>U+201C</code> \u2192 '
        "<code>U+0022</code> <span>code points 1\u20132 \u2192 1\u20132, bytes 1\u20134 "
        "\u2192 1\u20132</span></li>"
    ) in html
    assert "()" not in html
    # UTF-8 read as a one-byte codec: the codec is the change's detail
    html, _ = pair("caf\u00e9", "caf\u00c3\u00a9")
    assert re.search(
        r'<li><span class="kind">encoding\.mojibake</span> \((cp1252|latin-1)\) '
        r"<code>U\+00E9</code> \u2192 <code>U\+00C3 U\+00A9</code>",
        html,
    ), html
