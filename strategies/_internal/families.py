"""One public strategy per hazard family, named as the family id.

Each returns a ``SearchStrategy[str]`` of values that embed one hazard of the family
in realistic surroundings (prose, code, paths, JSON-ish fragments or arbitrary text)
at the start, middle or end. The hazard is drawn first and the surroundings are
optional, so values shrink to the bare hazard, and the family's best-known hazard
comes first (``quotes()`` shrinks towards ``“``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from fidelity._core.kinds import FAMILIES
from strategies._internal.arguments import check_families, invalid
from strategies._internal.generators import family_values
from strategies._internal.lazy import Defined, call_repr

__all__ = [
    "astral",
    "bidi",
    "bom",
    "case",
    "coercion",
    "compatibility",
    "control",
    "diacritics",
    "escapes",
    "family",
    "invisible",
    "length",
    "mojibake",
    "newlines",
    "normalization",
    "nul",
    "paths",
    "punctuation",
    "quotes",
    "scripts",
    "separators",
    "surrogates",
    "whitespace",
]


def _family(name: str) -> st.SearchStrategy[str]:
    return Defined(call_repr(name), lambda: family_values(name))


def quotes() -> st.SearchStrategy[str]:
    """Values with typographic quotes (“ ” ‘ ’ „ « »…) and ASCII quotes that educating rewrites
    turn curly."""
    return _family("quotes")


def punctuation() -> st.SearchStrategy[str]:
    """Values with typographic dashes, ellipses, primes and minus signs, and the ASCII sequences
    (``--``, ``...``) that educate into them."""
    return _family("punctuation")


def normalization() -> st.SearchStrategy[str]:
    """Values with decomposed (NFD) and composed (NFC) sequences, Hangul jamo, singletons (Å, Ω,
    K) and out-of-order combining marks."""
    return _family("normalization")


def compatibility() -> st.SearchStrategy[str]:
    """Values with compatibility characters that NFKC rewrites: ligatures, fullwidth and
    halfwidth forms, super/subscripts, circled and math letters."""
    return _family("compatibility")


def case() -> st.SearchStrategy[str]:
    """Values with letters whose case mappings are special: ß, İ, ı, ǅ, final sigma, ligatures,
    and ASCII mixed case."""
    return _family("case")


def diacritics() -> st.SearchStrategy[str]:
    """Values with Latin letters with diacritics or without an ASCII decomposition (é, ø, ł, æ,
    ő, ț)."""
    return _family("diacritics")


def whitespace() -> st.SearchStrategy[str]:
    """Values with leading, trailing and repeated spaces, tabs, NBSP, the U+2000..U+200A spaces,
    U+3000, spaces before line ends."""
    return _family("whitespace")


def invisible() -> st.SearchStrategy[str]:
    """Values with zero-width and format characters: ZWSP, ZWJ, ZWNJ, word joiner, soft hyphen,
    mid-text U+FEFF, variation selectors, tags."""
    return _family("invisible")


def bidi() -> st.SearchStrategy[str]:
    """Values with bidirectional controls: marks, embeddings, overrides and isolates (Trojan
    Source)."""
    return _family("bidi")


def control() -> st.SearchStrategy[str]:
    """Values with C0 and C1 control characters other than tab, LF and CR, ANSI escape
    sequences."""
    return _family("control")


def nul() -> st.SearchStrategy[str]:
    """Values with U+0000, alone, doubled, in a file name."""
    return _family("nul")


def newlines() -> st.SearchStrategy[str]:
    """Values with LF, CRLF and lone CR, blank lines, mixed endings, a final newline."""
    return _family("newlines")


def separators() -> st.SearchStrategy[str]:
    """Values with line breaks other than LF and CR: U+2028, U+2029, NEL, VT, FF, FS/GS/RS."""
    return _family("separators")


def paths() -> st.SearchStrategy[str]:
    """Values with Windows, POSIX and UNC paths, ``..`` segments, ``~`` and environment
    variables, mixed separators."""
    return _family("paths")


def escapes() -> st.SearchStrategy[str]:
    """Values with literal escape sequences that decoders act on: ``\\n``, ``\\u00e9``,
    ``&amp;``, ``%20``, ``+``, format placeholders."""
    return _family("escapes")


def mojibake() -> st.SearchStrategy[str]:
    """Values with text whose UTF-8 bytes read as other text in legacy codecs (’ é € ü), and
    text that already looks like mojibake."""
    return _family("mojibake")


def astral() -> st.SearchStrategy[str]:
    """Values with characters beyond the BMP: emoji, ZWJ sequences, flags, skin tones, keycaps,
    CJK extension B, plane 15/16."""
    return _family("astral")


def surrogates() -> st.SearchStrategy[str]:
    """Values with lone surrogate code points (U+D800..U+DFFF), reversed and split pairs."""
    return _family("surrogates")


def bom() -> st.SearchStrategy[str]:
    """Values with U+FEFF byte order marks leading the value (and trailing, doubled, alone).

    The mark leads the value; the surroundings only follow it."""
    return _family("bom")


def coercion() -> st.SearchStrategy[str]:
    """Values with whole values that parsers read as numbers, booleans, null or dates: ``010``,
    ``1e3``, ``0x1F``, ``no``, ``null``, ``True``, ``~``, ``12:30:00``, ``2024-01-02``.

    The hazard is the whole value (inside prose it would no longer be read as one);
    it is sometimes padded with whitespace."""
    return _family("coercion")


def length() -> st.SearchStrategy[str]:
    """Values with values around 255/256, 4096 and 65536 UTF-8 bytes, some with a multi-byte
    character straddling the limit.

    The hazard is the whole value (inside prose it would no longer be read as one);
    it is sometimes padded with whitespace."""
    return _family("length")


def scripts() -> st.SearchStrategy[str]:
    """Values with non-Latin text: Arabic and Hebrew (RTL), CJK, Hangul, Indic and Thai,
    combining-heavy (Zalgo) text."""
    return _family("scripts")


def family(name: str) -> st.SearchStrategy[str]:
    """The strategy of the family ``name`` (an id of ``fidelity.FAMILIES``).

    ``strategies.family("quotes")`` is ``strategies.quotes()``. An unknown id raises
    ``InvalidArgument`` when the strategy is first used.
    """
    if isinstance(name, str) and name in FAMILIES:
        return _family(name)

    def fail() -> st.SearchStrategy[str]:
        if not isinstance(name, str):
            invalid(f"name={name!r} must be a family id (a string), e.g. name='quotes'.")
        check_families((name,), name="name")  # raises: name is not a family id
        raise AssertionError("unreachable")  # pragma: no cover

    return Defined(call_repr("family", name), fail)
