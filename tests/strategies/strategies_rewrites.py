"""Real rewriting functions, one or more per hazard family, shared by the strategy tests.

Each removes or rewrites its family's hazard the way a real layer does; a value shows
the hazard when at least one of its family's rewrites changes it.
"""

from __future__ import annotations

import ast
import html
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Callable
from datetime import date, datetime, time

import yaml
from ftfy.fixes import uncurl_quotes

from fidelity._text import to_utf8

Rewrite = Callable[[str], object]

_WS = "".join(c for c in map(chr, range(0x3001)) if unicodedata.category(c) == "Zs") + "\t"
_WS_RUN = re.compile(f"[{re.escape(_WS)}]+")
_BIDI = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_EXTRA_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0")
_SEPARATORS = re.compile("[\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e]")
_QUOTE_LIKE = frozenset(
    "\"'`\u201e\u201a\u201b\u201f\u300c\u300d\u300e\u300f\u301d\u301e\u301f\uff02\uff07"
)


def straighten_quotes(s: str) -> str:
    """ftfy's quote straightening."""
    return str(uncurl_quotes(s))


def drop_quotes(s: str) -> str:
    return "".join(
        c for c in s if c not in _QUOTE_LIKE and unicodedata.category(c) not in ("Pi", "Pf")
    )


def ascii_punctuation(s: str) -> str:
    s = re.sub(r"-{2,}|\.{3}", "-", s)
    return "".join("-" if not c.isascii() and unicodedata.category(c)[0] in "PS" else c for c in s)


def renormalize(s: str) -> str:
    nfc = unicodedata.normalize("NFC", s)
    return nfc if nfc != s else unicodedata.normalize("NFD", s)


def nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def change_case(s: str) -> str:
    return s.upper() if s.upper() != s else s.lower()


def ascii_fold(s: str) -> str:
    def fold(c: str) -> str:
        if 0xC0 <= ord(c) <= 0x24F or 0x1E00 <= ord(c) <= 0x1EFF:
            return unicodedata.normalize("NFKD", c).encode("ascii", "ignore").decode() or "?"
        return c

    return "".join(map(fold, s))


def squeeze_whitespace(s: str) -> str:
    s = re.sub(f"[{re.escape(_WS)}]+\n", "\n", s)
    return _WS_RUN.sub(" ", s).strip(_WS)


def drop_invisible(s: str) -> str:
    return "".join(
        c
        for c in s
        if unicodedata.category(c) != "Cf"
        and c not in _EXTRA_INVISIBLE
        and not 0xFE00 <= ord(c) <= 0xFE0F
        and not 0xE0100 <= ord(c) <= 0xE01EF
    )


def drop_bidi(s: str) -> str:
    return "".join(c for c in s if c not in _BIDI)


def drop_controls(s: str) -> str:
    return "".join(c for c in s if c in "\t\n\r" or unicodedata.category(c) != "Cc")


def drop_nul(s: str) -> str:
    return s.replace("\x00", "")


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


def windows_name(s: str) -> str:
    """Windows drops trailing dots of names and expands ``~``/variables in shells."""
    return re.sub(r"\.(?!\w)|^~|\$\w+|%\w+%", "", s)


def decode_backslashes(s: str) -> str:
    return re.sub(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", "\x00", s)


def unquote_plus(s: str) -> str:
    return urllib.parse.unquote_plus(s)


def escape_markup(s: str) -> str:
    return html.escape(s, quote=False).replace("%", "%25")


def fill_placeholders(s: str) -> str:
    return re.sub(r"%s|\{[^{}]*\}", "", s)


def cp1252_mojibake(s: str) -> str:
    return to_utf8(s).decode("cp1252", "replace")


def astral_to_question_mark(s: str) -> str:
    return "".join("?" if ord(c) > 0xFFFF else c for c in s)


def drop_emoji_presentation(s: str) -> str:
    """Variation selector 16 and the keycap mark vanish (plain-text emoji fallback)."""
    return s.replace("\ufe0f", "").replace("\u20e3", "")


def surrogates_to_replacement(s: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def drop_bom(s: str) -> str:
    return s.lstrip("\ufeff\ufffe")


def drop_all_boms(s: str) -> str:
    return s.replace("\ufeff", "")


_BOOLS = {"y": True, "yes": True, "on": True, "true": True, "n": False, "no": False}
_BOOLS |= {"off": False, "false": False}
_NONES = frozenset({"null", "none", "nil", "~", ""})


def coerce(s: str) -> object:
    """An eager parser: whatever looks like a number, boolean, null or date becomes one."""
    t = s.strip()
    if t.lower() in _BOOLS:
        return _BOOLS[t.lower()]
    if t.lower() in _NONES:
        return None
    parsers: list[Callable[[str], object]] = [
        yaml.safe_load,
        json.loads,
        ast.literal_eval,
        lambda v: int(v, 0),
        float,
        date.fromisoformat,
        time.fromisoformat,
        datetime.fromisoformat,
    ]
    for parse in parsers:
        try:
            value = parse(t)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, yaml.YAMLError):
            continue
        if not isinstance(value, str) or value != t:
            return value
    return s


def neutralize_formula(s: str) -> str:
    """CSV-injection sanitizers prefix a leading ``=``, ``+``, ``-`` or ``@`` with ``'``."""
    return "'" + s if s.startswith(("=", "+", "-", "@")) else s


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


def ascii_only(s: str) -> str:
    return s.encode("ascii", "replace").decode()


#: Per family, rewrites of which at least one changes every value with its hazard.
FAMILY_REWRITES: dict[str, tuple[Rewrite, ...]] = {
    "quotes": (drop_quotes,),
    "punctuation": (ascii_punctuation,),
    "normalization": (renormalize,),
    "compatibility": (nfkc,),
    "case": (change_case,),
    "diacritics": (ascii_fold,),
    "whitespace": (squeeze_whitespace,),
    "invisible": (drop_invisible,),
    "bidi": (drop_bidi,),
    "control": (drop_controls,),
    "nul": (drop_nul,),
    "newlines": (crlf_to_lf, lf_to_crlf),
    "separators": (separators_to_lf,),
    "paths": (backslash_to_slash, slash_to_backslash, windows_name),
    "escapes": (decode_backslashes, unquote_plus, escape_markup, fill_placeholders),
    "mojibake": (cp1252_mojibake,),
    "astral": (astral_to_question_mark, drop_emoji_presentation),
    "surrogates": (surrogates_to_replacement,),
    "bom": (drop_bom, drop_all_boms),
    "coercion": (coerce, neutralize_formula),
    "length": (truncate_bytes(250),),
    "scripts": (ascii_only,),
}
