"""UTF-8 read with another codec (mojibake), its repair, and rereading a received value."""

from __future__ import annotations

import functools
import re
from codecs import charmap_decode
from collections.abc import Iterable

from fidelity._compare.decoding import encode as bytes_of
from fidelity._compare.rules.base import Context, Rule
from fidelity._core.text import to_utf8

__all__ = [
    "MOJIBAKE_CODECS",
    "RULES",
    "chardet_codecs",
    "misread",
    "misreadings",
    "mojibake_apply",
    "repair",
    "reread",
    "reread_codecs",
]

#: Codecs whose misreading of UTF-8 bytes is checked, most frequent first. ``chardet``
#: adds the codecs it proposes for the received text.
MOJIBAKE_CODECS: tuple[str, ...] = (
    "cp1252",
    "latin-1",
    "cp1250",
    "cp437",
    "mac-roman",
    "cp1251",
    "cp850",
    "iso8859-2",
    "iso8859-15",
    "cp1253",
    "cp1254",
    "cp1257",
    "koi8-r",
    "cp866",
    "mac-cyrillic",
    "cp874",
    "shift_jis",
    "gbk",
    "euc-kr",
    "big5",
    "euc-jp",
    "utf-16-le",
    "utf-16-be",
    "utf-16",
)

_SINGLE_BYTE: dict[tuple[str, bool], str | None] = {}


def _byte_table(codec: str, sloppy: bool) -> str | None:
    """The 256 decodings of single bytes (character N for byte N), or None for a
    multi-byte codec.

    Bytes the codec leaves undefined become U+FFFD, or with ``sloppy`` the code point
    of the same number (as the "sloppy" decoders of browsers and ftfy do).
    """
    key = (codec, sloppy)
    if key in _SINGLE_BYTE:
        return _SINGLE_BYTE[key]
    try:
        probe = bytes(range(256)).decode(codec, "replace")
    except LookupError:
        probe = ""
    table: str | None = None
    if len(probe) == 256:
        table = "".join(chr(b) if sloppy and ch == "\ufffd" else ch for b, ch in enumerate(probe))
    _SINGLE_BYTE[key] = table
    return table


def _decode_table(data: bytes, table: str) -> str:
    """``data`` read one byte a character through a 256-character table."""
    return charmap_decode(data, "strict", table)[0]


def misread(text: str, codec: str, *, sloppy: bool = False) -> str:
    """``text``'s UTF-8 bytes read with ``codec`` (the mojibake a chain produces).

    Bytes the codec cannot decode become U+FFFD (``errors="replace"``), or with
    ``sloppy`` (single-byte codecs only) the code point of the same number.
    """
    data = to_utf8(text)
    table = _byte_table(codec, sloppy)
    if table is not None:
        return _decode_table(data, table)
    return data.decode(codec, "replace")


def _mojibake_match_codecs(s: str, r: str, codecs: Iterable[str], ctx: Context) -> str | None:
    tried: set[str] = set()
    for codec in codecs:
        if codec in tried:
            continue
        tried.add(codec)
        try:
            if r in (misread(s, codec), misread(s, codec, sloppy=True)):
                return codec
        except (UnicodeError, LookupError):
            pass
        # The received bytes are the sent text encoded with this codec (they may be
        # valid UTF-8 too: UTF-16 of ASCII text is ASCII with NULs).
        try:
            if s.encode(codec) == bytes_of(r):
                return codec
        except (UnicodeError, LookupError):
            pass
        try:
            # The reverse: the sent text was mojibake that a chain repaired.
            if s in (misread(r, codec), misread(r, codec, sloppy=True)):
                return f"{codec}, reversed"
        except (UnicodeError, LookupError):
            pass
        if ctx.escapes:
            # The reverse of bytes in another codec: the sent bytes were the received
            # text in this codec, and a chain decoded them with it.
            try:
                if bytes_of(s) == r.encode(codec):
                    return f"{codec}, reversed"
            except (UnicodeError, LookupError):
                pass
    return None


@functools.lru_cache(maxsize=64)
def chardet_codecs(r: str, ctx: Context) -> tuple[str, ...]:
    """Codecs ``chardet`` proposes for the received segment's bytes."""
    import chardet

    try:
        data = bytes_of(r) if ctx.escapes else r.encode("latin-1")
    except UnicodeError:
        try:
            data = r.encode("cp1252")
        except UnicodeError:
            return ()
    out = []
    for guess in chardet.detect_all(data)[:4]:
        name = guess.get("encoding")
        if isinstance(name, str):
            out.append(name.lower())
    return tuple(out)


#: Codecs that garble ASCII too (two bytes a character).
WIDE_CODECS: tuple[str, ...] = ("utf-16-le", "utf-16-be", "utf-16")


#: Characters without which a 7-bit codec (UTF-7, HZ, ISO-2022) writes only ASCII.
_SEVEN_BIT_SHIFTS = re.compile("[+~\x1b]")


def _mojibake_match(s: str, r: str, ctx: Context) -> str | None:
    if not ctx.escapes and r.isascii() and "\x00" not in r:
        # Every 8-bit codec reads ASCII as ASCII and writes or misreads anything else
        # as something that is not ASCII: only UTF-16 (two bytes a character), or a
        # 7-bit codec where its shift characters appear, can give an ASCII ``r``.
        if s.isascii() and "\x00" not in s:
            return None
        found = _mojibake_match_codecs(s, r, WIDE_CODECS, ctx)
        if found is None and len(r) >= 2 and _SEVEN_BIT_SHIFTS.search(r):
            found = _mojibake_match_codecs(s, r, chardet_codecs(r, ctx), ctx)
        return found
    if s.isascii() and not ctx.escapes:
        return _mojibake_match_codecs(s, r, WIDE_CODECS, ctx)
    found = _mojibake_match_codecs(s, r, MOJIBAKE_CODECS, ctx)
    if found is not None:
        return found
    if len(r) >= 2:
        found = _mojibake_match_codecs(s, r, chardet_codecs(r, ctx), ctx)
        if found is not None:
            return found
    # Double mojibake: the misread text misread again.
    for first in ("cp1252", "latin-1"):
        try:
            once = misread(s, first)
        except UnicodeError:
            continue
        for second in ("cp1252", "latin-1"):
            try:
                if misread(once, second) == r:
                    return f"{first}+{second}"
            except UnicodeError:
                continue
    return None


_INVERSE: dict[str, dict[str, int] | None] = {}


def _inverse_table(codec: str) -> dict[str, int] | None:
    """The byte each character of a single-byte codec (sloppy) stands for."""
    if codec not in _INVERSE:
        table = _byte_table(codec, True)
        _INVERSE[codec] = None if table is None else {ch: b for b, ch in enumerate(table)}
    return _INVERSE[codec]


def repair(text: str, codec: str) -> str | None:
    """Undo a mojibake: ``text`` encoded back with ``codec`` and read as UTF-8, or None."""
    inverse = _inverse_table(codec)
    if inverse is None:
        return None
    try:
        data = bytes(inverse[ch] for ch in text)
        return data.decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return None


def mojibake_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    out = []
    for codec in MOJIBAKE_CODECS[:5]:
        try:
            out.append((misread(s, codec), codec))
        except UnicodeError:
            continue
        repaired = repair(s, codec)
        if repaired is not None:
            out.append((repaired, f"{codec}, reversed"))
    return out


#: Codecs tried first when re-reading a whole received value (see :func:`reread_codecs`).
_REREAD_CODECS = ("cp1252", "latin-1")
_REREAD_CHARDET = 1 << 16  # bytes of the received value shown to ``chardet``


def _continuations() -> str:
    chars = {chr(b) for b in range(0x80, 0xC0)}
    for codec in _REREAD_CODECS:
        table = _byte_table(codec, True)
        assert table is not None
        chars.update(table[0x80:0xC0])
    return "".join(sorted(chars))


#: A UTF-8 lead byte then a continuation byte, both read as cp1252 or latin-1.
_MISREAD_PAIR = re.compile("[\u00c2-\u00f4][" + re.escape(_continuations()) + "]")


def reread_codecs(received: str, *, escapes: bool) -> list[str]:
    """The codecs that could have made ``received`` from UTF-8 text (see :func:`reread`).

    With ``escapes`` (the received bytes are not UTF-8): cp1252, latin-1 and the codecs
    ``chardet`` proposes; otherwise cp1252 and latin-1, when the value looks misread (a
    UTF-8 lead byte followed by a continuation byte, as those codecs show them).
    """
    if escapes:
        guessed = chardet_codecs(received[:_REREAD_CHARDET], Context(escapes=True))
        return list(dict.fromkeys((*_REREAD_CODECS, *guessed)))
    if _MISREAD_PAIR.search(received) is None:
        return []
    return list(_REREAD_CODECS)


def reread(received: str, codec: str, *, escapes: bool) -> str | None:
    """The received value read back as UTF-8 text through ``codec``, or None.

    With ``escapes`` the bytes are decoded with ``codec``, as if the far side wrote its
    text in that codec; otherwise the misread value is repaired. None when the codec
    cannot read it, or the reading changes nothing.
    """
    if escapes:
        data = bytes_of(received)
        table = _byte_table(codec, True)
        try:
            text = _decode_table(data, table) if table else data.decode(codec)
        except (UnicodeError, LookupError):
            return None
    else:
        repaired = repair(received, codec)
        if repaired is None:
            return None
        text = repaired
    return None if text == received else text


def misreadings(text: str, codec: str) -> list[str]:
    """``text`` misread with ``codec``: undefined bytes as U+FFFD, then as themselves."""
    out = []
    for sloppy in (False, True):
        try:
            out.append(misread(text, codec, sloppy=sloppy))
        except (UnicodeError, LookupError):
            continue
    return out


RULES: tuple[Rule, ...] = (
    Rule(
        kind="encoding.mojibake",
        src=None,
        dst=None,
        match=_mojibake_match,
        apply=mojibake_apply,
    ),
)
