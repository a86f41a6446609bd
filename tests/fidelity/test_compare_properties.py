"""Properties of ``compare`` that hold for every text (Hypothesis)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from fidelity import compare
from fidelity._core.text import to_utf8

# Every code point, lone surrogates included.
_ANY = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=60)
_PROSE = st.text(
    alphabet=st.sampled_from(list("abcdeéÉüß xyz.,;-\n\t\u00a0\u201c\u201d\u2019e\u0301😀")),
    max_size=60,
)


@given(_ANY)
@settings(deadline=None)
def test_identical_is_faithful(s: str) -> None:
    c = compare(s, s)
    assert c.faithful
    assert c.explained
    assert c.transformations == ()
    assert compare(s, to_utf8(s)).faithful


@given(_ANY, _ANY)
@settings(max_examples=150, deadline=None)
def test_any_pair_is_classified_without_error(s: str, r: str) -> None:
    c = compare(s, r)
    assert c.faithful == (to_utf8(s) == to_utf8(r))
    if not c.faithful:
        assert c.transformations
        assert not ("unknown" in c.kinds and c.explained)
    c.render()


@given(_ANY, _ANY)
@settings(max_examples=150, deadline=None)
def test_segments_and_offsets_are_consistent(s: str, r: str) -> None:
    c = compare(s, r)
    for t in c.transformations:
        assert s[t.sent_start : t.sent_end] == t.sent
        assert r[t.received_start : t.received_end] == t.received
        assert len(to_utf8(s[: t.sent_start])) == t.sent_byte_start
        assert len(to_utf8(s[: t.sent_end])) == t.sent_byte_end
        assert len(to_utf8(r[: t.received_start])) == t.received_byte_start
        assert len(to_utf8(r[: t.received_end])) == t.received_byte_end


def _stitch(s: str, r: str) -> str:
    """Received text rebuilt from the sent text and the transformations' segments."""
    c = compare(s, r)
    out: list[str] = []
    pos = 0
    seen: set[tuple[int, int]] = set()
    for t in c.transformations:
        if (t.sent_start, t.sent_end) in seen:
            continue
        seen.add((t.sent_start, t.sent_end))
        out.append(s[pos : t.sent_start])
        out.append(t.received)
        pos = t.sent_end
    out.append(s[pos:])
    return "".join(out)


@given(_ANY, _ANY)
@settings(max_examples=150, deadline=None)
def test_transformations_partition_the_difference(s: str, r: str) -> None:
    if compare(s, r).faithful:
        return
    assert _stitch(s, r) == r


REWRITES: list[tuple[str, Callable[[str], str]]] = [
    ("unicode.nfd", lambda t: unicodedata.normalize("NFD", t)),
    ("unicode.nfc", lambda t: unicodedata.normalize("NFC", t)),
    ("unicode.case", str.upper),
    ("newline.lf_to_crlf", lambda t: t.replace("\n", "\r\n")),
    ("whitespace.to_space", lambda t: t.replace("\u00a0", " ")),
    ("quote.straighten", lambda t: t.translate({0x201C: '"', 0x201D: '"', 0x2019: "'"})),
    ("encoding.mojibake", lambda t: t.encode().decode("cp1252", "replace")),
]


@given(_PROSE, st.sampled_from(REWRITES))
@settings(max_examples=300, deadline=None)
def test_a_rewrite_is_named_and_explained(
    s: str, rewrite: tuple[str, Callable[[str], str]]
) -> None:
    kind, fn = rewrite
    r = fn(s)
    c = compare(s, r)
    if c.faithful:
        return
    assert c.explained, c.render()
    if kind == "encoding.mojibake":
        assert kind in c.kinds, c.render()
    else:
        assert c.kinds == {kind}, c.render()
