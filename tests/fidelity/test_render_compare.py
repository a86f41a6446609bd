"""Comparison.render(): compact, informative, and never raw hostile characters.

What counts as raw comes from the hand-written list in ``_support.terminal``, not from
the renderer's own ``is_unsafe``.
"""

from __future__ import annotations

import unicodedata

import regex
from _support.terminal import hostile_text, raw_forbidden
from hypothesis import given, settings

from fidelity import compare

_HOSTILE = "\x1b[2J\u202e\u200b\x00\x07\u2066\ufeff\x85\u2028\r\t\n\u0301\U000e0041\ud800"


def _no_raw_hostile(text: str) -> None:
    for line in text.split("\n"):
        assert not raw_forbidden(line), f"raw {raw_forbidden(line)} in {line!r}"
        for cluster in regex.findall(r"\X", line):
            assert unicodedata.category(cluster[0]) not in ("Mn", "Me"), line


def test_faithful_header() -> None:
    assert compare("a", "a").render().startswith("faithful")


def test_block_shows_kind_offsets_and_names() -> None:
    out = compare("say “hi” now", 'say "hi" now').render()
    lines = out.splitlines()
    assert lines[0] == "2 rewrites: quote.straighten (explained by replay)"
    assert "sent char 4 (byte 4)" in out
    assert "U+201C LEFT DOUBLE QUOTATION MARK" in out
    assert "U+0022 QUOTATION MARK" in out


def test_unknown_is_flagged_in_header() -> None:
    out = compare("abc", "xyz").render()
    assert "NOT fully explained" in out.splitlines()[0]
    assert "U+0061 LATIN SMALL LETTER A" in out


def test_hostile_text_is_badged() -> None:
    out = compare("ok " + _HOSTILE + " end", "ok end " + _HOSTILE[::-1]).render()
    _no_raw_hostile(out)
    assert "[U+202E RIGHT-TO-LEFT OVERRIDE]" in out
    assert "[U+001B ESCAPE]" in out


def test_grapheme_clusters_are_not_split() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    out = compare(f"a {family} b e\u0301", f"a {family} c e\u0301").render()
    assert family in out
    assert "e\u0301" in out


def test_many_edits_are_capped() -> None:
    sent = " ".join(["“x”"] * 200)
    out = compare(sent, sent.replace("“", '"').replace("”", '"')).render()
    assert "... and 388 more: quote.straighten x388" in out
    assert len(out.splitlines()) < 80


def test_long_segment_is_cut_at_a_cluster() -> None:
    out = compare("x", "e\u0301" * 500).render()
    # 500 clusters of two code points: 30 shown whole, the other 940 code points counted.
    assert "    received: \u27e6" + "e\u0301" * 30 + "...(+940 code points)\u27e7\n" in out
    _no_raw_hostile(out)


def test_invalid_bytes_are_shown_as_bytes() -> None:
    out = compare("é", b"\xe9").render()
    assert "[byte 0xE9]" in out
    assert "byte 0xE9 (not UTF-8)" in out


@given(hostile_text(max_size=30), hostile_text(max_size=30))
@settings(max_examples=200, deadline=None)
def test_render_is_always_terminal_safe(s: str, r: str) -> None:
    _no_raw_hostile(compare(s, r).render())
