"""Real rewriting functions, several per hazard family, shared by the strategy tests.

Each removes or rewrites hazards of its family the way a real layer does. A value
shows its family's hazard when at least one of the family's rewrites changes it, and
``fidelity.compare`` must then name what happened: every rewrite comes with the kind
ids it is allowed to produce (``None`` for the few real rewrites that no kind of the
vocabulary describes, e.g. dropping quotes or filling format placeholders).
"""

from __future__ import annotations

import ast
import csv
import html
import json
import re
import textwrap
import unicodedata
import urllib.parse
from collections.abc import Callable
from datetime import date, datetime, time

import smartypants
import yaml
from ftfy.fixes import uncurl_quotes

from fidelity._core.text import to_utf8

Rewrite = Callable[[str], object]

_WS = "".join(c for c in map(chr, range(0x3001)) if unicodedata.category(c) == "Zs") + "\t"
_WS_RUN = re.compile(f"[{re.escape(_WS)}]{{2,}}")
_BIDI = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SEPARATORS = re.compile("[\u2028\u2029\x85\x0b\x0c]")
_QUOTE_LIKE = frozenset(
    "\"'`\u201e\u201a\u201b\u201f\u300c\u300d\u300e\u300f\u301d\u301e\u301f\uff02\uff07"
)
_GUILLEMETS = str.maketrans({"\u00ab": '"', "\u00bb": '"', "\u2039": "'", "\u203a": "'"})
_ASCII_PUNCT = str.maketrans(
    {
        "\u2014": "--",
        "\u2013": "-",
        "\u2012": "-",
        "\u2015": "--",
        "\u2010": "-",
        "\u2011": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u2032": "'",
        "\u2033": '"',
        "\u2034": "'''",
        "\u2022": "*",
        "\u2044": "/",
    }
)
#: Letters without a decomposition and their customary ASCII spelling (as unidecode does).
_TRANSLITERATE = str.maketrans(
    {"\u00f8": "o", "\u00d8": "O", "\u00e6": "ae", "\u00c6": "AE", "\u0142": "l", "\u0141": "L"}
    | {"\u00df": "ss", "\u0111": "d", "\u0110": "D", "\u00f0": "d", "\u00fe": "th", "\u0153": "oe"}
)


def straighten_quotes(s: str) -> str:
    """ftfy's quote straightening."""
    return str(uncurl_quotes(s))


def straighten_guillemets(s: str) -> str:
    return s.translate(_GUILLEMETS)


def _smartypants(s: str, attrs: int) -> str:
    # SmartyPants also reads backslashes as Markdown escapes (\\` -> &#96;), which no
    # kind names: values with a backslash are left alone.
    return s if "\\" in s else str(smartypants.smartypants(s, attrs | smartypants.Attr.u))


def educate_quotes(s: str) -> str:
    """SmartyPants' quote educating, with Unicode output."""
    return _smartypants(s, smartypants.Attr.q)


def drop_quotes(s: str) -> str:
    return "".join(
        c for c in s if c not in _QUOTE_LIKE and unicodedata.category(c) not in ("Pi", "Pf")
    )


def straighten_punctuation(s: str) -> str:
    return s.translate(_ASCII_PUNCT)


def educate_punctuation(s: str) -> str:
    """SmartyPants' dashes (``--`` en, ``---`` em) and ellipses, with Unicode output."""
    return _smartypants(s, smartypants.Attr.D | smartypants.Attr.e)


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def renormalize(s: str) -> str:
    """NFC when that changes the value, else NFD."""
    composed = nfc(s)
    return composed if composed != s else nfd(s)


def nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def change_case(s: str) -> str:
    return s.upper() if s.upper() != s else s.lower()


def strip_marks(s: str) -> str:
    """Diacritics dropped: NFD, combining marks removed, recomposed."""
    bare = "".join(c for c in nfd(s) if not unicodedata.combining(c))
    return nfc(bare)


def transliterate(s: str) -> str:
    return s.translate(_TRANSLITERATE)


def ascii_only(s: str) -> str:
    return s.encode("ascii", "replace").decode()


def strip(s: str) -> str:
    return s.strip()


def spaces_to_space(s: str) -> str:
    return re.sub(f"[{re.escape(_WS)}]", " ", s)


def collapse_spaces(s: str) -> str:
    return _WS_RUN.sub(" ", s)


def strip_line_ends(s: str) -> str:
    return re.sub(f"[{re.escape(_WS)}]+(?=\n)", "", s)


def expand_tabs(s: str) -> str:
    return s.expandtabs()


def drop_invisible(s: str) -> str:
    """Default-ignorable format characters, variation selectors and the CGJ removed."""
    return "".join(
        c
        for c in s
        if unicodedata.category(c) != "Cf"
        and c not in "\u034f\u115f\u1160"
        and not 0xFE00 <= ord(c) <= 0xFE0F
        and not 0xE0100 <= ord(c) <= 0xE01EF
    )


def drop_hangul_fillers(s: str) -> str:
    """U+3164 and U+FFA0, blank Hangul letters used as invisible names, removed."""
    return s.replace("\u3164", "").replace("\uffa0", "")


def drop_bidi(s: str) -> str:
    return "".join(c for c in s if c not in _BIDI)


def drop_controls(s: str) -> str:
    return "".join(c for c in s if c in "\t\n\r" or unicodedata.category(c) != "Cc")


def control_pictures(s: str) -> str:
    """C0 controls shown as their U+2400 control pictures (as terminals and editors do)."""
    return "".join(chr(0x2400 + ord(c)) if c < " " and c not in "\t\n\r" else c for c in s)


def drop_nul(s: str) -> str:
    return s.replace("\x00", "")


def cut_at_nul(s: str) -> str:
    """A C string: the value ends at the first NUL."""
    return s.split("\x00", 1)[0]


def crlf_to_lf(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\r", "\n")


def lf_to_crlf(s: str) -> str:
    return s.replace("\n", "\r\n")


def separators_to_lf(s: str) -> str:
    return _SEPARATORS.sub("\n", s)


def backslash_to_slash(s: str) -> str:
    return s.replace("\\", "/")


def slash_to_backslash(s: str) -> str:
    return s.replace("/", "\\")


_BACKSLASH_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[nrtbf0\"\\/])")
_SHORT = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "0": "\x00"}
_SHORT |= {'"': '"', "\\": "\\", "/": "/"}


def decode_backslashes(s: str) -> str:
    """JSON-style backslash escapes in the text decoded (a second, unwanted decode)."""

    def one(m: re.Match[str]) -> str:
        token = m.group(1)
        return chr(int(token[1:], 16)) if token[0] == "u" else _SHORT[token]

    return _BACKSLASH_ESCAPE.sub(one, s)


def unquote_plus(s: str) -> str:
    return urllib.parse.unquote_plus(s)


def unescape_html(s: str) -> str:
    return html.unescape(s)


def escape_html(s: str) -> str:
    return html.escape(s, quote=False)


def escape_percent(s: str) -> str:
    return s.replace("%", "%25")


def escape_markdown(s: str) -> str:
    """Text written as Markdown: every metacharacter gains a backslash (``markdownify``
    with ``escape_misc``, Turndown's ``escape``)."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~])", r"\\\1", s)


def fill_placeholders(s: str) -> str:
    return re.sub(r"%s|\{[^{}]*\}", "", s)


def cp1252_mojibake(s: str) -> str:
    return to_utf8(s).decode("cp1252", "replace")


def astral_to_question_mark(s: str) -> str:
    return "".join("?" if ord(c) > 0xFFFF else c for c in s)


def utf16_code_units(s: str) -> str:
    """Astral characters split into their UTF-16 surrogate code units (a UCS-2 bridge)."""
    data = s.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


def drop_variation_selectors(s: str) -> str:
    """Variation selectors 15/16 vanish (plain-text emoji fallback)."""
    return s.replace("\ufe0f", "").replace("\ufe0e", "")


def surrogates_to_replacement(s: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def drop_bom(s: str) -> str:
    return s.removeprefix("\ufeff")


def drop_all_boms(s: str) -> str:
    return s.replace("\ufeff", "")


def drop_noncharacters(s: str) -> str:
    """U+FFFE and U+FFFF removed, as sanitizers of noncharacters do."""
    return s.replace("\ufffe", "").replace("\uffff", "")


def coerce(s: str) -> object:
    """An eager parser: whatever YAML, JSON or Python reads as a number, boolean or
    null becomes one (``010`` -> 8, ``no`` -> False, ``~`` -> None).

    Padded values are left alone (``strip`` and ``json_decode_twice`` reach them).
    """
    if s != s.strip():
        return s
    if s in ("y", "Y", "n", "N"):  # YAML 1.1 booleans (go-yaml v2), not PyYAML's
        return s in ("y", "Y")
    parsers: list[Callable[[str], object]] = [
        yaml.safe_load,
        json.loads,
        ast.literal_eval,
        lambda v: int(v, 0),
        float,
    ]
    for parse in parsers:
        try:
            value = parse(s)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, yaml.YAMLError):
            continue
        if value is None or isinstance(value, (bool, int, float, complex)):
            return value
    return s


def parse_dates(s: str) -> object:
    """Dates and times become ``date``/``time``/``datetime`` objects (as YAML 1.1 does)."""
    for parse in (date.fromisoformat, time.fromisoformat, datetime.fromisoformat):
        try:
            return parse(s.strip())
        except ValueError:
            continue
    return s


def json_decode_twice(s: str) -> object:
    """A value that is a JSON document is decoded once more (``"beta"`` loses its quotes)."""
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        return s


def csv_field(s: str) -> str:
    """The value read back as one CSV field: a quoted value loses its quotes."""
    if "\n" in s or "\r" in s:
        return s
    row = next(csv.reader([s]), [])
    return row[0] if len(row) == 1 else s


def neutralize_formula(s: str) -> str:
    """CSV-injection sanitizers prefix a leading ``=``, ``+``, ``-``, ``@``, tab or CR
    with ``'`` (OWASP)."""
    return "'" + s if s.startswith(("=", "+", "-", "@", "\t", "\r")) else s


def wrap_lines(s: str) -> str:
    """Long lines wrapped at 40 columns (``textwrap.fill``): line breaks inserted."""
    return textwrap.fill(s, 40)


def truncate_bytes(limit: int) -> Callable[[str], str]:
    """Cut at ``limit`` UTF-8 bytes, on a character boundary."""

    def cut(s: str) -> str:
        total = 0
        for i, c in enumerate(s):
            total += len(to_utf8(c))
            if total > limit:
                return s[:i]
        return s

    cut.__name__ = f"truncate_{limit}_bytes"
    return cut


Kinds = frozenset[str] | None


def _k(*kinds: str) -> frozenset[str]:
    return frozenset(kinds)


#: Per family, real rewrites with the kinds each may produce (``None``: no kind
#: describes it); at least one of a family's rewrites changes every value with its hazard.
FAMILY_REWRITES: dict[str, tuple[tuple[Rewrite, Kinds], ...]] = {
    "quotes": (
        (straighten_quotes, _k("quote.straighten")),
        (straighten_guillemets, _k("quote.straighten")),
        (educate_quotes, _k("quote.educate")),
        (nfkc, _k("unicode.nfkc")),
        (drop_quotes, None),
    ),
    "punctuation": (
        (straighten_punctuation, _k("punct.straighten")),
        (educate_punctuation, _k("punct.educate")),
        (ascii_only, _k("encoding.question_mark")),
    ),
    "normalization": ((nfc, _k("unicode.nfc")), (nfd, _k("unicode.nfd"))),
    "compatibility": ((nfkc, _k("unicode.nfkc")),),
    "case": ((change_case, _k("unicode.case")),),
    "diacritics": (
        (strip_marks, _k("unicode.ascii_fold")),
        (transliterate, _k("unicode.ascii_fold")),
        (ascii_only, _k("encoding.question_mark")),
    ),
    "whitespace": (
        (strip, _k("whitespace.strip")),
        (spaces_to_space, _k("whitespace.to_space")),
        (collapse_spaces, _k("whitespace.collapse")),
        (strip_line_ends, _k("whitespace.line_strip")),
        (expand_tabs, _k("whitespace.tab_expand")),
    ),
    "invisible": ((drop_invisible, _k("invisible.removed")), (drop_hangul_fillers, None)),
    "bidi": ((drop_bidi, _k("invisible.removed")),),
    "control": (
        (drop_controls, _k("control.removed")),
        (control_pictures, _k("control.replaced")),
    ),
    "nul": ((drop_nul, _k("control.removed")), (cut_at_nul, _k("truncate"))),
    "newlines": (
        (crlf_to_lf, _k("newline.crlf_to_lf", "newline.cr_to_lf")),
        (lf_to_crlf, _k("newline.lf_to_crlf")),
    ),
    "separators": (
        (separators_to_lf, _k("newline.separator_to_lf")),
        (drop_controls, _k("control.removed")),
    ),
    "paths": (
        (backslash_to_slash, _k("path.backslash_to_slash")),
        (slash_to_backslash, _k("path.slash_to_backslash")),
    ),
    "escapes": (
        (decode_backslashes, _k("unescape.json")),
        (unquote_plus, _k("unescape.url")),
        (unescape_html, _k("unescape.html")),
        (escape_html, _k("escape.html")),
        (escape_percent, _k("escape.url")),
        (escape_markdown, _k("escape.markdown", "escape.backslash")),
        (fill_placeholders, None),
    ),
    "mojibake": ((cp1252_mojibake, _k("encoding.mojibake")),),
    "astral": (
        (astral_to_question_mark, _k("encoding.question_mark")),
        (utf16_code_units, _k("encoding.surrogate_split")),
        (drop_variation_selectors, _k("invisible.removed")),
    ),
    "surrogates": ((surrogates_to_replacement, _k("encoding.replacement")),),
    "bom": (
        (drop_bom, _k("bom.removed")),
        (drop_all_boms, _k("bom.removed", "invisible.removed")),
        (drop_noncharacters, None),
    ),
    "coercion": (
        (coerce, _k("type.coerced")),
        (strip, _k("whitespace.strip")),
        (parse_dates, None),
        (json_decode_twice, None),
        (csv_field, None),
        (neutralize_formula, None),
    ),
    "length": ((truncate_bytes(250), _k("truncate")), (wrap_lines, _k("newline.inserted"))),
    "scripts": ((ascii_only, _k("encoding.question_mark")),),
}


_WHITESPACE_KINDS = _k(
    "whitespace.strip",
    "whitespace.collapse",
    "whitespace.to_space",
    "whitespace.tab_expand",
    "whitespace.line_strip",
)

#: Runs of spaces, tabs and line ends realign across the line break.
_WHITESPACE_RUNS = _WHITESPACE_KINDS | _k("newline.lf_to_crlf", "newline.to_space")

#: Kinds a rewrite may also be reported as in generated values, where hazards sit next
#: to arbitrary surroundings and more than one kind replays the same edit.
OVERLAPS: dict[Rewrite, frozenset[str]] = {
    # NFKC maps NBSP and U+2000..U+200A to U+0020, an ellipsis to "...", fullwidth
    # quotes to ASCII ones: the more specific kinds replay it too; a math digit to "6"
    # also reads as text rewritten through int(); what NFC already changes
    # (compatibility ideographs, singletons) is named unicode.nfc.
    nfkc: _k(
        "whitespace.to_space", "type.coerced", "punct.straighten", "quote.straighten", "unicode.nfc"
    ),
    # ASCII encoding with "?" for a C1 control: control.replaced replays it too; a
    # literal "?" next to replaced characters realigns.
    ascii_only: _k("control.replaced", "encoding.mojibake", "truncate"),
    # A singleton (U+2126 OHM SIGN -> U+03A9) is rewritten alike by NFC and NFD.
    nfd: _k("unicode.nfc"),
    # "NULL" lowered to "null" also reads as text rewritten through a YAML null.
    change_case: _k("type.coerced"),
    # A run of mixed whitespace next to an edge or a line end can be named by several
    # whitespace kinds.
    strip: _WHITESPACE_KINDS | _k("newline.final_removed"),
    spaces_to_space: _WHITESPACE_RUNS | _k("unicode.nfkc"),
    collapse_spaces: _WHITESPACE_KINDS,
    strip_line_ends: _WHITESPACE_KINDS,
    expand_tabs: _WHITESPACE_RUNS,
    # A U+FEFF leading the value is a byte order mark; JavaScript's trim() strips one
    # ending it.
    drop_invisible: _k("bom.removed", "whitespace.strip", "truncate"),
    # Removing what ends the value leaves a prefix of it, which replays as a cut.
    drop_bidi: _k("truncate"),
    # FS/GS/RS/US count as whitespace in Python (str.isspace) and NEL ends a line, so
    # removing one at an edge of the value replays as strip or final_removed.
    drop_controls: _k("whitespace.strip", "newline.final_removed", "truncate"),
    # A NUL ending the value: removal and the C-string cut are the same edit; a cut
    # that drops NULs and a soft hyphen names both removals.
    cut_at_nul: _k("control.removed", "invisible.removed"),
    drop_nul: _k("truncate"),
    # Marks stripped from a letter that stays non-ASCII (U+01FD -> U+00E6) replay as
    # NFD followed by the fold of the mark; the recomposition changes what NFC changes
    # (a compatibility ideograph) on its own.
    strip_marks: _k("unicode.nfd", "unicode.nfc"),
    # A CRLF ending the value, or leading it, removed by a strip replays as that.
    crlf_to_lf: _k("whitespace.strip", "newline.final_removed"),
    # A backslash leading the value dropped also replays as a basename; "\\\\" decoded
    # to "\\" leaves a prefix of the value, which replays as a cut, and a "\\n" ending it
    # decoded reads as a final newline added.
    # Escaped backslashes decoded with nothing JSON-only around them (four backslashes
    # and a space become two and a space) read as a plain backslash unescape as well
    # (found by Hypothesis).
    decode_backslashes: _k(
        "path.basename", "truncate", "newline.final_added", "unescape.backslash"
    ),
    # A slash next to backslashes (and the reverse) realigns as a doubled backslash and
    # a decoded "\\/".
    slash_to_backslash: _k("escape.backslash", "unescape.json"),
    backslash_to_slash: _k("escape.backslash", "unescape.json"),
    # Two leading marks: the second one is mid-text; JavaScript's trim() strips U+FEFF;
    # marks ending the value removed replay as a cut.
    drop_bom: _k("invisible.removed"),
    drop_all_boms: _k("whitespace.strip", "truncate"),
}
