"""Per-family hazard generators: the table's hazards first, then generated ones.

Every family's hazard strategy is ``one_of(sampled_from(table), generated...)``: the
hand-picked hazards of :mod:`strategies._internal.hazards` come first, so values
shrink towards the simplest, best-known hazard of the family (``“`` for quotes), and
the generated branches (drawn from Unicode tables, built lazily on first use) reach
hazards that no table lists. :func:`family_values` puts a hazard in realistic
surroundings (prose, code, paths, JSON-ish fragments, or arbitrary text) at the
start, middle or end of the value; the surroundings are drawn after the hazard and
shrink to nothing. :func:`slot_values` is one slot of a ``text()`` mix: a hazard
picked by a single integer, cheap in Hypothesis choices.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Callable
from datetime import date, time
from functools import cache

from hypothesis import strategies as st

from strategies._internal.catalogue import LENGTH_BOUNDARIES, length_value
from strategies._internal.hazards import HAZARDS

__all__ = [
    "LEADING",
    "PREFIXES",
    "SUFFIXES",
    "family_values",
    "hazard_values",
    "mixable_values",
    "slot_values",
    "whole_values",
]

#: Realistic text that goes before and after a hazard.
PREFIXES = (
    "Please review ",
    "the user said ",
    "print(",
    "if value == ",
    "src/main.py:12: ",
    '{"key": "',
    "SELECT * FROM t WHERE name = '",
    "# ",
    "- [ ] ",
    "old_string: ",
)
SUFFIXES = (
    " and reply.",
    ")",
    " # note",
    '"}',
    "';",
    " please",
    ": done",
    " -> ok",
)

#: Where a family's hazard goes: anywhere in the value, leading it, or alone.
LEADING = frozenset({"bom"})
_WHOLE = frozenset({"coercion", "length"})

_WORD = string.ascii_letters + string.digits
_CLUSTER = 12


@cache
def _prefix() -> st.SearchStrategy[str]:
    return st.one_of(st.just(""), st.sampled_from(PREFIXES), st.text(max_size=6))


@cache
def _suffix() -> st.SearchStrategy[str]:
    return st.one_of(st.just(""), st.sampled_from(SUFFIXES), st.text(max_size=6))


def _bmp_chars(keep: Callable[[str], bool], *ranges: tuple[int, int]) -> tuple[str, ...]:
    spans = ranges or ((0x00A0, 0xFFFF),)
    return tuple(
        c
        for lo, hi in spans
        for c in map(chr, range(lo, hi + 1))
        if not 0xD800 <= ord(c) <= 0xDFFF and keep(c)
    )


@cache
def _composable() -> tuple[str, ...]:
    """Composed characters whose NFD form NFC composes back (no exclusions, no Hangul)."""

    def keep(c: str) -> bool:
        d = unicodedata.normalize("NFD", c)
        return d != c and unicodedata.normalize("NFC", d) == c

    return _bmp_chars(keep, (0x00C0, 0x1FFF), (0x2000, 0xABFF))


@cache
def _compatibility() -> tuple[str, ...]:
    def keep(c: str) -> bool:
        return unicodedata.normalize("NFKC", c) != unicodedata.normalize("NFC", c)

    return _bmp_chars(keep, (0x00A8, 0xFFEF), (0x1D400, 0x1D7FF), (0x1F100, 0x1F1FF))


@cache
def _special_case() -> tuple[str, ...]:
    """Letters whose case mappings change length or do not round-trip."""

    def keep(c: str) -> bool:
        if not unicodedata.category(c).startswith("L"):
            return False
        up, low = c.upper(), c.lower()
        return (
            len(up) != 1
            or len(low) != 1
            or c.casefold() != low
            or (c != up and up.lower() != c)
            or (c != low and low.upper() != c)
        )

    return _bmp_chars(keep, (0x00C0, 0xFFFF))


@cache
def _latin_letters() -> tuple[str, ...]:
    def keep(c: str) -> bool:
        return unicodedata.category(c).startswith("L")

    return _bmp_chars(keep, (0x00C0, 0x024F), (0x1E00, 0x1EFF))


def _chars(alphabet: str, *, min_size: int = 1, max_size: int = 3) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)


_QUOTE_CHARS = (
    "\u201c\u201d\u2018\u2019\u201e\u201a\u201b\u201f\u00ab\u00bb\u2039\u203a"
    "\u300c\u300d\u301d\u301e\uff02\uff07\"'`"
)
_PUNCT_CHARS = (
    "\u2010\u2011\u2012\u2013\u2014\u2015\u2026\u2032\u2033\u2034\u2212\u2022"
    "\u00b7\u2044\u2030\u00a1\u00bf"
)
_WHITESPACE_CHARS = (
    " \t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u202f\u205f\u3000"
)
_INVISIBLE_CHARS = (
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u00ad\ufeff\u034f\u180e"
    "\ufe00\ufe0e\ufe0f\u115f\u3164"
)
_BIDI_CHARS = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SEPARATOR_CHARS = "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"
_MOJIBAKE_CHARS = (
    "".join(map(chr, range(0xA0, 0x100)))
    + "\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d"
    + "\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178"
)
_SCRIPT_RANGES = (
    (0x0621, 0x064A),  # Arabic letters
    (0x05D0, 0x05EA),  # Hebrew
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0x0900, 0x097F),  # Devanagari
    (0x0E01, 0x0E5B),  # Thai
    (0x0391, 0x03C9),  # Greek
    (0x0410, 0x044F),  # Cyrillic
    (0x3041, 0x30FF),  # Kana
    (0x0300, 0x036F),  # Combining diacritical marks
)
#: Words that parsers read as booleans, null or floats in any of their three cases.
_BOOL_WORDS = ("true", "false", "yes", "no", "on", "off", "null", "nan", "inf", "y", "n")
_PATH_ROOTS = ("C:\\", "/", "", "\\\\server\\", "~/", "./", "../", "..\\", "D:")
_ENTITIES = ("amp", "lt", "gt", "quot", "apos", "nbsp", "copy", "eacute", "hellip")


def _generated_paths() -> st.SearchStrategy[str]:
    segment = st.text(alphabet=_WORD + "._- ", min_size=1, max_size=8)
    return st.builds(
        lambda root, parts, sep: root + sep.join(parts),
        st.sampled_from(_PATH_ROOTS),
        st.lists(segment, min_size=2, max_size=4),
        st.sampled_from(("\\", "/")),
    )


def _generated_escapes() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from('nrtbf0"\\/').map(lambda c: "\\" + c),
        st.integers(0x80, 0xFFFF).map(lambda n: f"\\u{n:04x}"),
        st.sampled_from(_ENTITIES).map(lambda n: f"&{n};"),
        st.integers(0x22, 0x1FFFF).map(lambda n: f"&#{n};"),
        st.integers(0, 255).map(lambda n: f"%{n:02X}"),
        st.text(alphabet=_WORD, min_size=1, max_size=4).map(lambda w: f"{w}+{w}"),
        st.tuples(st.sampled_from("_*[]#"), st.text(alphabet=_WORD, min_size=1, max_size=4)).map(
            _markdown
        ),
    )


def _markdown(drawn: tuple[str, str]) -> str:
    """A word marked up with a Markdown metacharacter, as text often is (``*beta*``)."""
    mark, word = drawn
    if mark == "#":
        return f"# {word}"
    if mark == "[":
        return f"[{word}]"
    if mark == "]":
        return f"{word}]"
    return f"{mark}{word}{mark}" if mark == "*" else f"1{mark}{word}"


def _generated_coercion() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 9999).map(lambda n: f"0{n}"),
        st.integers(-(2**70), 2**70).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.sampled_from(_BOOL_WORDS).flatmap(lambda w: st.sampled_from((w, w.upper(), w.title()))),
        st.sampled_from(("None", "~")),
        st.integers(0, 255).map(lambda n: f"0x{n:X}"),
        st.dates().map(date.isoformat),
        st.times().map(lambda t: time.isoformat(t, "seconds")),
    )


def _generated_astral() -> st.SearchStrategy[str]:
    emoji = st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)
    regional = st.characters(min_codepoint=0x1F1E6, max_codepoint=0x1F1FF)
    return st.one_of(
        emoji,
        st.lists(emoji, min_size=2, max_size=4).map("\u200d".join),
        st.tuples(regional, regional).map("".join),
        st.characters(min_codepoint=0x20000, max_codepoint=0x2A6DF),
        st.characters(min_codepoint=0x10000, exclude_categories=["Cs"]),
    )


def _generated_scripts() -> st.SearchStrategy[str]:
    return st.sampled_from(_SCRIPT_RANGES).flatmap(
        lambda r: st.text(
            alphabet=st.characters(min_codepoint=r[0], max_codepoint=r[1]),
            min_size=1,
            max_size=6,
        )
    )


def _generated_normalization() -> st.SearchStrategy[str]:
    composed = st.sampled_from(_composable())
    return st.one_of(
        composed.map(lambda c: unicodedata.normalize("NFD", c)),
        composed,
        st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3).map(
            lambda c: unicodedata.normalize("NFD", c)
        ),
    )


def _generated_length(largest: int = LENGTH_BOUNDARIES[-1]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda boundary, offset, char: length_value(boundary + offset, char),
        st.sampled_from([b for b in LENGTH_BOUNDARIES if b <= largest]),
        st.integers(0, 2),
        st.sampled_from(("", "\u00e9", "\u20ac", "\U0001f600")),
    )


_GENERATED: dict[str, Callable[[], st.SearchStrategy[str]]] = {
    "quotes": lambda: _chars(_QUOTE_CHARS),
    "punctuation": lambda: _chars(_PUNCT_CHARS),
    "normalization": _generated_normalization,
    "compatibility": lambda: st.sampled_from(_compatibility()),
    "case": lambda: st.sampled_from(_special_case()),
    "diacritics": lambda: st.text(
        alphabet=st.sampled_from(_latin_letters()), min_size=1, max_size=4
    ),
    "whitespace": lambda: _chars(_WHITESPACE_CHARS, max_size=4),
    "invisible": lambda: _chars(_INVISIBLE_CHARS),
    "bidi": lambda: _chars(_BIDI_CHARS),
    "control": lambda: st.characters(
        categories=["Cc"], exclude_characters="\t\n\r\x00" + _SEPARATOR_CHARS
    ),
    "nul": lambda: _chars("\x00"),
    "newlines": lambda: _chars("\r\n", max_size=4),
    "separators": lambda: _chars(_SEPARATOR_CHARS),
    "paths": _generated_paths,
    "escapes": _generated_escapes,
    "mojibake": lambda: _chars(_MOJIBAKE_CHARS, max_size=4),
    "astral": _generated_astral,
    "surrogates": lambda: st.lists(
        st.integers(0xD800, 0xDFFF).map(chr), min_size=1, max_size=2
    ).map("".join),
    "bom": lambda: st.just("\ufeff"),
    "coercion": _generated_coercion,
    "length": _generated_length,
    "scripts": _generated_scripts,
}


@cache
def hazard_values(family: str) -> st.SearchStrategy[str]:
    """The bare hazards of ``family``: clusters from its table first, then generated ones."""
    table = tuple(h.text for h in HAZARDS[family])
    generated = _GENERATED[family]()
    if not table:
        return generated
    if family in _WHOLE:
        return st.one_of(st.sampled_from(table), generated)
    # A cluster of the family's hazards: several per value, so that a rewrite of any
    # one of them shows up within a few examples; it shrinks to the one that matters.
    cluster = st.lists(st.sampled_from(table), min_size=1, max_size=_CLUSTER).map("".join)
    return st.one_of(cluster, generated)


@cache
def family_values(family: str) -> st.SearchStrategy[str]:
    """Values of ``family``: a hazard, then optional surroundings before and after it."""
    hazards = hazard_values(family)
    if family in _WHOLE:
        padding = st.sampled_from(("", " ", "\n", "\t", "  "))
        return st.one_of(hazards, st.builds(lambda h, a, b: a + h + b, hazards, padding, padding))
    if family in LEADING:
        return st.builds(lambda h, b: h + b, hazards, _suffix())
    if family == "whitespace":
        # A single space is a hazard only at an edge of the value (strip).
        inner = hazards.filter(lambda h: h != " ")
        edge = st.builds(
            lambda text, leading: " " + text if leading else text + " ",
            st.one_of(st.just(""), st.sampled_from(PREFIXES + SUFFIXES)),
            st.booleans(),
        )
        return st.one_of(edge, st.builds(lambda h, a, b: a + h + b, inner, _prefix(), _suffix()))
    return st.builds(lambda h, a, b: a + h + b, hazards, _prefix(), _suffix())


@cache
def mixable_values(family: str) -> st.SearchStrategy[str]:
    """Values of ``family`` to mix with others: long values stay at most 4 KiB or so."""
    if family == "length":
        return _generated_length(largest=4096)
    return family_values(family)


@cache
def whole_values(families: tuple[str, ...]) -> st.SearchStrategy[tuple[str, str]] | None:
    """Hazards that only act as a whole value (``010``, ``~``, ``\\n``, a 256-byte
    string), as ``(family, text)``; ``None`` when the families have none."""
    pool = [(family, h.text) for family in families for h in HAZARDS[family] if h.places == "w"]
    options: list[st.SearchStrategy[tuple[str, str]]] = []
    if pool:
        options.append(st.sampled_from(pool))
    if "length" in families:
        options.append(_generated_length().map(lambda t: ("length", t)))
    if "coercion" in families:
        options.append(_generated_coercion().map(lambda t: ("coercion", t)))
    return st.one_of(options) if options else None


#: In a mix, how many index values of a family's slot stand for "no hazard here" on top
#: of 0 (which is what values shrink to), as a share of its hazards: families whose
#: hazards make many chains refuse the whole value (lone surrogates, NUL) or make it
#: long are present in fewer values, so the other hazards still get through those chains.
_ABSENT: dict[str, float] = {"surrogates": 2.0, "nul": 1.5, "length": 3.0}


@cache
def slot_values(family: str, *, head: bool = False) -> st.SearchStrategy[str]:
    """One slot of a mix: nothing, one hazard of ``family``'s table, or a generated one.

    A single integer picks the hazard (``0`` is "nothing", so a slot shrinks away; ``1``
    is the family's best-known hazard, then the table in order, then generated hazards),
    so a dense value costs Hypothesis few choices and even its early, size-capped
    examples carry every family. A ``head`` slot draws only the family's best-known
    hazards (those the catalogue places at the start, middle and end), so each of them
    is in most values. Whole-value hazards (``010``, a lone ``\\n``) are left to
    :func:`whole_values`.
    """
    hazards = [h for h in HAZARDS[family] if h.places != "w"]
    if head:
        hazards = [h for h in hazards if set(h.places) >= set("sme")] or hazards[:1]
    table = tuple(h.text for h in hazards)
    n = len(table)
    spare = 0 if head and n else max(1, n // 3)
    absent = round((n + spare) * _ABSENT.get(family, 0.0))
    top = n + spare + absent
    generated = mixable_values(family) if family in _WHOLE else _GENERATED[family]()
    index = st.integers(0, top)

    @st.composite
    def slot(draw: st.DrawFn) -> str:
        i = draw(index)
        if i == 0 or i > n + spare:
            return ""
        if i <= n:
            return table[i - 1]
        return draw(generated)

    return slot()
