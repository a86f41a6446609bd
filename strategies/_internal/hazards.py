"""The hazard tables: for every family, the short values that expose a rewrite.

Pure data, shared by the deterministic catalogue and the Hypothesis strategies, so the
two always exercise the same hazards. Each :class:`Hazard` is one isolated hazard: its
``text`` is the smallest value that shows it, ``places`` says where the catalogue puts
it in a benign context (``s`` start, ``m`` middle, ``e`` end; ``w`` means the hazard is
the whole value), and ``glued`` says whether it sits between words without spaces
(separators, invisibles, controls) or as a word of its own. Characters that must never
appear raw in source are written as escapes. Order matters: within a family the
simplest, most common hazard comes first, because the strategies shrink towards it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["HAZARDS", "Hazard"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hazard:
    """One isolated hazard of a family: a stable ``name`` and its minimal ``text``."""

    name: str
    text: str
    places: str = "m"
    glued: bool = False
    also: tuple[str, ...] = ()


def _h(name: str, text: str, places: str = "m", *, glued: bool = False, also: str = "") -> Hazard:
    return Hazard(name=name, text=text, places=places, glued=glued, also=tuple(also.split()))


def _g(name: str, text: str, places: str = "m", *, also: str = "") -> Hazard:
    return _h(name, text, places, glued=True, also=also)


_QUOTES = (
    _h("left-double", "\u201c", "sme"),
    _h("right-double", "\u201d", "m"),
    _h("left-single", "\u2018", "m"),
    _h("right-single", "\u2019", "sme"),
    _h("apostrophe-curly", "don\u2019t"),
    _h("curly-pair", "\u201cquoted\u201d"),
    _h("low-double", "\u201ebeta\u201c"),
    _h("guillemets", "\u00abbeta\u00bb"),
    _h("ascii-double", '"', "se"),
    _h("ascii-single", "'", "s"),
    _h("ascii-pair", '"quoted"'),
    _h("apostrophe-ascii", "don't"),
)

_PUNCTUATION = (
    _h("em-dash", "\u2014", "sme"),
    _h("en-dash", "\u2013", "m"),
    _h("ellipsis", "\u2026", "me"),
    _h("ascii-double-hyphen", "--"),
    _h("ascii-triple-hyphen", "---"),
    _h("ascii-ellipsis", "...", "me"),
    _h("prime", "5\u2032"),
    _h("double-prime", "5\u2033"),
    _h("minus-sign", "\u22121"),
    _h("hyphen", "co\u2010op"),
    _h("non-breaking-hyphen", "co\u2011op"),
)

_NORMALIZATION = (
    _h("nfd-e-acute", "e\u0301", "sme", also="diacritics"),
    _h("nfc-e-acute", "\u00e9", "m", also="diacritics"),
    _h("nfd-hangul", "\u1112\u1161\u11ab", also="scripts"),
    _h("nfc-hangul", "\ud55c", also="scripts"),
    _h("combining-order", "a\u0301\u0323"),
    _h("angstrom-sign", "\u212b"),
    _h("ohm-sign", "\u2126"),
    _h("kelvin-sign", "\u212a"),
    _h("greek-question-mark", "a\u037e"),
    _h("greek-ano-teleia", "a\u0387"),
    _h("cjk-compatibility-ideograph", "\uf900"),
)

_COMPATIBILITY = (
    _h("ligature-fi", "\ufb01le", "sme"),
    _h("fullwidth-latin", "\uff21\uff22\uff23", "m"),
    _h("superscript-two", "x\u00b2", "m"),
    _h("circled-one", "\u2460"),
    _h("subscript-two", "H\u20820"),
    _h("halfwidth-katakana", "\uff76\uff80\uff76\uff85", also="scripts"),
    _h("micro-sign", "5\u00b5m"),
    _h("vulgar-fraction", "\u00bd"),
    _h("math-bold", "\U0001d400\U0001d401", also="astral"),
    _h("long-s", "\u017fign"),
    _h("fullwidth-solidus", "a\uff0fb", also="paths"),
    _h("fullwidth-less-than", "\uff1cb\uff1e"),
)

_CASE = (
    _h("sharp-s", "Stra\u00dfe", "sme"),
    _h("ascii-mixed", "ReadMe", "m"),
    _h("dotted-capital-i", "\u0130stanbul"),
    _h("dotless-i", "\u0131"),
    _h("title-digraph", "\u01c5"),
    _h("greek-sigma", "\u03a3\u0391\u03a3"),
    _h("greek-final-sigma", "\u03bf\u03c2"),
    _h("ligature-ffi", "\ufb03"),
    _h("ascii-upper", "NULL"),
    _h("cherokee", "\u13a0\u13a1", also="scripts"),
)

_DIACRITICS = (
    _h("e-acute-word", "caf\u00e9", "sme"),
    _h("diaeresis", "na\u00efve"),
    _h("o-stroke", "\u00d8rsted"),
    _h("l-stroke", "\u0142\u00f3d\u017a"),
    _h("ae-ligature", "\u00e6ble"),
    _h("n-tilde", "a\u00f1o"),
    _h("c-cedilla", "gar\u00e7on"),
    _h("double-acute", "\u0151r"),
    _h("comma-below", "\u021bar\u0103"),
    _h("vietnamese-stacked", "\u1eed"),
)

_WHITESPACE = (
    _g("space", " ", "se"),
    _g("nbsp", "\u00a0", "sme"),
    _g("tab", "\t", "m"),
    _g("double-space", "  ", "m"),
    _g("space-run", "     ", "m"),
    _g("narrow-nbsp", "\u202f"),
    _g("em-space", "\u2003"),
    _g("figure-space", "\u2007"),
    _g("thin-space", "\u2009"),
    _g("hair-space", "\u200a"),
    _g("ideographic-space", "\u3000", "m"),
    _g("ogham-space", "\u1680"),
    _g("line-trailing-space", "  \n", also="newlines"),
    _g("line-trailing-tab", "\t\n", also="newlines"),
    _h("only-spaces", "   ", "w"),
)

_INVISIBLE = (
    _g("zero-width-space", "\u200b", "sme"),
    _g("zero-width-non-joiner", "\u200c"),
    _g("zero-width-joiner", "\u200d"),
    _g("word-joiner", "\u2060", "m"),
    _g("soft-hyphen", "\u00ad", "m"),
    _g("zero-width-no-break-space", "\ufeff", also="bom"),
    _g("variation-selector-text", "\u263a\ufe0e"),
    _g("variation-selector-emoji", "\u263a\ufe0f"),
    _g("invisible-times", "\u2062"),
    _g("mongolian-vowel-separator", "\u180e"),
    _g("combining-grapheme-joiner", "\u034f"),
    _g("tag-characters", "\U000e0041\U000e0042", also="astral"),
)

_BIDI = (
    _g("right-to-left-override", "\u202e", "sme"),
    _g("left-to-right-mark", "\u200e", "m"),
    _g("right-to-left-mark", "\u200f"),
    _g("left-to-right-embedding", "\u202abeta\u202c"),
    _g("right-to-left-embedding", "\u202bbeta\u202c"),
    _g("left-to-right-override", "\u202dbeta\u202c"),
    _g("left-to-right-isolate", "\u2066beta\u2069"),
    _g("right-to-left-isolate", "\u2067beta\u2069"),
    _g("first-strong-isolate", "\u2068beta\u2069"),
    _g("arabic-letter-mark", "\u061c"),
    _h("trojan-source", "/*\u202e } \u2066if (admin)\u2069 \u2066 begin */"),
)

_CONTROL = (
    _g("start-of-heading", "\x01", "sme"),
    _g("escape", "\x1b", "m"),
    _g("ansi-colour", "\x1b[31mred\x1b[0m"),
    _g("bell", "\x07"),
    _g("backspace", "\x08"),
    _g("delete", "\x7f"),
    _g("unit-separator", "\x1f"),
    _g("c1-padding", "\x80"),
    _g("c1-csi", "\x9b"),
    _g("osc-title", "\x1b]0;title\x07"),
)

_NUL = (
    _g("nul", "\x00", "sme"),
    _g("double-nul", "\x00\x00"),
    _g("nul-before-multibyte", "\x00\u00e9"),
    _h("nul-in-filename", "file.txt\x00.jpg", also="paths"),
    _h("nul-only", "\x00", "w"),
)

_NEWLINES = (
    _g("lf", "\n", "sme"),
    _g("crlf", "\r\n", "sme"),
    _g("cr", "\r", "m"),
    _g("blank-line", "\n\n"),
    _g("cr-cr-lf", "\r\r\n"),
    _g("mixed-endings", "\r\nbeta\nbeta\r"),
    _h("only-lf", "\n", "w"),
    _h("only-crlf", "\r\n", "w"),
)

_SEPARATORS = (
    _g("line-separator", "\u2028", "sme"),
    _g("paragraph-separator", "\u2029", "m"),
    _g("next-line", "\x85", "m"),
    _g("vertical-tab", "\x0b", "m"),
    _g("form-feed", "\x0c", "m"),
    _g("file-separator", "\x1c"),
    _g("group-separator", "\x1d"),
    _g("record-separator", "\x1e"),
)

_PATHS = (
    _h("windows", "C:\\Users\\me\\notes.txt", "sme"),
    _h("posix", "/home/me/notes.txt", "m"),
    _h("unc", "\\\\server\\share\\f.txt"),
    _h("windows-escape-like", "C:\\new\\table\\x.txt", also="escapes"),
    _h("dotdot-backslash", "..\\..\\secret.txt"),
    _h("dotdot-slash", "../../etc/passwd"),
    _h("mixed-separators", "src/lib\\mod.py"),
    _h("double-slash", "a//b.txt"),
    _h("trailing-slash", "dir/", "e"),
    _h("tilde", "~/notes.txt", "s"),
    _h("env-dollar", "$HOME/notes.txt", "s"),
    _h("env-percent", "%APPDATA%\\x.ini", "s"),
    _h("spaces-in-path", "C:\\Program Files\\app.exe"),
    _h("file-url", "file:///tmp/x.txt"),
    _h("trailing-dot", "dir\\file.", "e"),
)

_ESCAPES = (
    _h("literal-backslash-n", "\\n", "sme"),
    _h("literal-backslash-t", "\\t"),
    _h("literal-double-backslash", "\\\\"),
    _h("literal-unicode-escape", "\\u00e9", "m"),
    _h("literal-escaped-quote", '\\"'),
    _h("entity-amp", "&amp;", "m"),
    _h("entity-lt-gt", "&lt;b&gt;"),
    _h("entity-numeric", "&#8220;"),
    _h("raw-ampersand", "Tom & Jerry"),
    _h("html-tag", "<b>beta</b>"),
    _h("percent-20", "%20", "m"),
    _h("percent-2f", "a%2Fb"),
    _h("percent-utf8", "%E2%80%9C"),
    _h("plus", "a+b", "m"),
    _h("lone-percent", "100%"),
    _h("format-placeholder", "%s {0} {x}"),
    _h("template", "{{beta}} ${beta}"),
    _h("markdown-emphasis", "1_000 *beta* [x]"),
    _h("markdown-heading", "# beta", "s"),
)

_MOJIBAKE = (
    _h("apostrophe", "we\u2019ll", "sme", also="quotes"),
    _h("e-acute", "caf\u00e9", "m", also="diacritics"),
    _h("euro", "5\u20ac"),
    _h("umlaut", "M\u00fcller"),
    _h("en-dash", "1\u20132", also="punctuation"),
    _h("nbsp-latin1", "a\u00a0b", also="whitespace"),
    _h("already-mojibake", "Caf\u00c3\u00a9 we\u00e2\u20ac\u2122ll"),
    _h("cyrillic", "\u043f\u0440\u0438\u0432\u0435\u0442", also="scripts"),
    _h("japanese", "\u65e5\u672c\u8a9e", also="scripts"),
    _h("utf8-bom-as-text", "\u00ef\u00bb\u00bf", also="bom"),
)

_ASTRAL = (
    _h("emoji", "\U0001f600", "sme"),
    _h("zwj-family", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    _h("flag", "\U0001f1eb\U0001f1f7"),
    _h("skin-tone", "\U0001f44d\U0001f3fd"),
    _h("keycap", "1\ufe0f\u20e3"),
    _h("cjk-extension-b", "\U00020000\U0002a6d6", "m", also="scripts"),
    _h(
        "subdivision-flag", "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    ),
    _h("heart-vs16", "\u2764\ufe0f"),
    _h("private-use-plane-15", "\U000f0000"),
    _h("max-code-point", "\U0010ffff"),
)

_SURROGATES = (
    _g("lone-high", "\ud800", "sme"),
    _g("lone-low", "\udc00", "m"),
    _g("reversed-pair", "\udc00\ud800"),
    _g("pair-as-code-points", "\ud83d\ude00"),
    _g("high-last", "\udbff"),
    _g("low-last", "\udfff"),
)

_BOM = (
    _g("leading", "\ufeff", "s"),
    _g("double-leading", "\ufeff\ufeff", "s"),
    _g("leading-before-newline", "\ufeff\n", "s", also="newlines"),
    _g("trailing", "\ufeff", "e"),
    _h("only-bom", "\ufeff", "w"),
    _g("reversed-bom", "\ufffe", "s"),
)

_COERCION = (
    _h("octal-010", "010", "w"),
    _h("zero", "0", "w"),
    _h("leading-zeros", "007", "w"),
    _h("exponent", "1e3", "w"),
    _h("hex", "0x1F", "w"),
    _h("underscore-int", "1_000", "w"),
    _h("plus-sign", "+1", "w"),
    _h("float-trailing-zero", "1.10", "w"),
    _h("big-int", "9007199254740993", "w"),
    _h("infinity", "Infinity", "w"),
    _h("yaml-inf", ".inf", "w"),
    _h("nan", "NaN", "w"),
    _h("true-lower", "true", "w"),
    _h("true-title", "True", "w"),
    _h("yes", "yes", "w"),
    _h("no", "no", "w"),
    _h("norway", "NO", "w"),
    _h("on", "on", "w"),
    _h("off", "off", "w"),
    _h("null", "null", "w"),
    _h("none", "None", "w"),
    _h("tilde", "~", "w"),
    _h("empty", "", "w"),
    _h("sexagesimal-time", "12:30:00", "w"),
    _h("date", "2024-01-02", "w"),
    _h("json-string", '"beta"', "w", also="quotes"),
    _h("json-array", "[]", "w"),
    _h("padded-number", " 42 ", "w", also="whitespace"),
    _h("spreadsheet-formula", "=1+1", "w"),
)

_SCRIPTS = (
    _h("arabic", "\u0645\u0631\u062d\u0628\u0627", "sme"),
    _h("cjk", "\u6f22\u5b57", "m"),
    _h("hebrew", "\u05e9\u05dc\u05d5\u05dd"),
    _h("arabic-tashkeel", "\u0639\u064e\u0631\u064e\u0628\u0650\u064a\u0651"),
    _h("rtl-with-digits", "\u05e2\u05d1\u05e8\u05d9\u05ea 123 abc"),
    _h("kana", "\u3072\u3089\u304c\u306a\u30ab\u30bf\u30ab\u30ca"),
    _h("hangul", "\ud55c\uad6d\uc5b4"),
    _h("devanagari", "\u0928\u092e\u0938\u094d\u0924\u0947"),
    _h("thai", "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22"),
    _h("tibetan-stack", "\u0f56\u0f66\u0f92\u0fb2\u0f7c\u0f53"),
    _h("zalgo", "Z\u0337\u0322\u031ba\u0336l\u0338g\u0335o\u0334\u0327\u0360"),
    _h("cyrillic", "\u041f\u0440\u0438\u0432\u0435\u0442"),
    _h("georgian", "\u10e5\u10d0\u10e0\u10d7\u10e3\u10da\u10d8"),
    _h("ethiopic", "\u12a0\u121b\u122d\u129b"),
    _h("bengali", "\u09ac\u09be\u0982\u09b2\u09be"),
)

#: The hazard tables by family id, in the order of ``fidelity.FAMILIES``.
#: ``length`` has no table: its values are built by size (see the catalogue).
HAZARDS: MappingProxyType[str, tuple[Hazard, ...]] = MappingProxyType(
    {
        "quotes": _QUOTES,
        "punctuation": _PUNCTUATION,
        "normalization": _NORMALIZATION,
        "compatibility": _COMPATIBILITY,
        "case": _CASE,
        "diacritics": _DIACRITICS,
        "whitespace": _WHITESPACE,
        "invisible": _INVISIBLE,
        "bidi": _BIDI,
        "control": _CONTROL,
        "nul": _NUL,
        "newlines": _NEWLINES,
        "separators": _SEPARATORS,
        "paths": _PATHS,
        "escapes": _ESCAPES,
        "mojibake": _MOJIBAKE,
        "astral": _ASTRAL,
        "surrogates": _SURROGATES,
        "bom": _BOM,
        "coercion": _COERCION,
        "length": (),
        "scripts": _SCRIPTS,
    }
)
