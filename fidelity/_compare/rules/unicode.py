"""Unicode forms: normalization (NFC, NFD, NFKC, NFKD), case, and folding to ASCII."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from fidelity._compare.rules.base import (
    Alternatives,
    Context,
    Rule,
    alts_rule,
    function_rule,
    token_match,
)
from fidelity._compare.rules.romanize import ROMANIZATIONS

__all__ = ["RULES"]

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _case_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    out = []
    for variant in (ch.lower(), ch.upper(), ch.casefold(), ch.title()):
        if variant != ch:
            out.append((1, variant))
    if ch == "\u03a3":  # str.lower() writes a word-final capital sigma as final sigma
        out.append((1, "\u03c2"))
    locale = _LOCALE_CASE.get(ch)
    if locale is not None:
        out.append((1, locale))
    return out


#: Case mappings of the Turkish and Azeri locales (``toLocaleLowerCase("tr")``,
#: ICU, ``LANG=tr_TR``): dotted and dotless i keep their dot through a case change.
_LOCALE_CASE = {"I": "\u0131", "i": "\u0130", "\u0130": "i", "\u0131": "I"}


def _case_match(s: str, r: str, ctx: Context) -> str | None:
    # ASCII letters change case only into ASCII letters of the same name (a Turkish
    # locale writes I as dotless ı, which is not ASCII): a cheap test first.
    if s.isascii() and r.isascii() and s.lower() != r.lower():
        return None
    if not token_match(s, r, _case_alts, ctx):
        return None
    return _case_detail(s, r)


def _case_detail(s: str, r: str) -> str:
    for name, fn in (
        ("lower", str.lower),
        ("upper", str.upper),
        ("casefold", str.casefold),
        ("title", str.title),
        ("swapcase", str.swapcase),
        ("lower, tr", _lower_tr),
        ("upper, tr", _upper_tr),
    ):
        if fn(s) == r:
            return name
    return "mixed"


def _lower_tr(text: str) -> str:
    return text.replace("I", "\u0131").replace("\u0130", "i").lower()


def _upper_tr(text: str) -> str:
    return text.replace("i", "\u0130").replace("\u0131", "I").upper()


def _case_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    out = [(s.lower(), "lower"), (s.upper(), "upper"), (s.casefold(), "casefold")]
    if "I" in s or "\u0130" in s:
        out.append((_lower_tr(s), "lower, tr"))
    if "i" in s or "\u0131" in s:
        out.append((_upper_tr(s), "upper, tr"))
    return out


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _spelled(c: str) -> str:
    """``c`` in ASCII by its first spelling, or without its marks."""
    if c in ROMANIZATIONS:
        return ROMANIZATIONS[c][0]
    plain = _strip_marks(c)
    return ROMANIZATIONS[plain][0] if plain in ROMANIZATIONS else plain


def _fold_char(text: str) -> str:
    return "".join(_spelled(c) for c in text)


_SPELLED_MAX = 2  # letters (each with its marks) a spelling may cover: ELOT's ``μπ``


def _bases(s: str, i: int) -> list[tuple[int, str]]:
    """The next letters from ``i`` without their marks: (end, letters) for one, then two."""
    out: list[tuple[int, str]] = []
    pos, base = i, ""
    while pos < len(s) and len(out) < _SPELLED_MAX:
        end = pos + 1
        while end < len(s) and unicodedata.combining(s[end]):
            end += 1
        base += _strip_marks(s[pos:end])
        pos = end
        out.append((pos, base))
    return out


def _fold_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    if ch < "\x80":
        return ()
    out: list[tuple[int, str]] = []
    if unicodedata.combining(ch):
        out.append((1, ""))
    for rep in ROMANIZATIONS.get(ch, ()):
        out.append((1, rep))
    bases = _bases(s, i)
    end, stripped = bases[0]
    if stripped.isascii() and stripped != s[i:end]:
        out.append((end - i, stripped))
    one = _strip_marks(ch)
    if one.isascii() and one != ch:
        out.append((1, one))
    for end, base in bases:
        if base != s[i:end] or len(base) > 1:
            out.extend((end - i, rep) for rep in ROMANIZATIONS.get(base, ()))
    return out


def _fold_marks_first(text: str) -> str:
    """Marks stripped; only letters with no decomposition are transliterated."""
    out = []
    for c in text:
        plain = _strip_marks(c)
        if plain.isascii() or c not in ROMANIZATIONS:
            out.append(_spelled(plain) if plain in ROMANIZATIONS else plain)
        else:
            out.append(ROMANIZATIONS[c][0])
    return "".join(out)


def _fold_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    # unidecode and anyascii write ``Ü`` as ``U``; German-style folding as ``Ue``; the
    # common "remove accents" recipe (NFKD, drop the marks) leaves ``ł`` as it is, for
    # an ASCII encoder to replace next.
    return ((_fold_marks_first(s), ""), (_fold_char(s), ""), (_strip_marks(s), ""))


def _normalizer(form: str) -> Callable[[str], str]:
    def run(text: str) -> str:
        return unicodedata.normalize(form, text)  # type: ignore[arg-type]

    return run


def _normal_alts(form: str) -> Alternatives:
    """A character, or a character and the marks after it, in normalization ``form``."""
    run = _normalizer(form)

    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        if s[i] < "\xa0" and not (i + 1 < len(s) and unicodedata.combining(s[i + 1])):
            return ()
        end = i + 1
        while end < len(s) and unicodedata.combining(s[end]):
            end += 1
        out = []
        for k in dict.fromkeys((i + 1, end)):
            rep = run(s[i:k])
            if rep != s[i:k]:
                out.append((k - i, rep))
        return out

    return alts


RULES: tuple[Rule, ...] = (
    function_rule("unicode.nfc", (("", _normalizer("NFC")),), alts=_normal_alts("NFC")),
    function_rule(
        "unicode.nfd", (("", _normalizer("NFD")),), src=_NON_ASCII, alts=_normal_alts("NFD")
    ),
    function_rule(
        "unicode.nfkc", (("", _normalizer("NFKC")),), src=_NON_ASCII, alts=_normal_alts("NFKC")
    ),
    function_rule(
        "unicode.nfkd", (("", _normalizer("NFKD")),), src=_NON_ASCII, alts=_normal_alts("NFKD")
    ),
    # A fold before case: ``ß`` -> ``ss`` keeps the letters' case (transliteration),
    # although ``casefold`` gives it too.
    alts_rule(
        "unicode.ascii_fold",
        _fold_alts,
        _fold_apply,
        src=_NON_ASCII,
        dst=None,
    ),
    Rule(
        kind="unicode.case",
        src=None,
        dst=None,
        match=_case_match,
        apply=_case_apply,
        alts=_case_alts,
    ),
)
