"""Characters a codec could not carry: U+FFFD, ``?``, dropped, and UTF-16 surrogate halves."""

from __future__ import annotations

import re
from collections.abc import Iterable

from fidelity._compare.rules.base import Context, Rule, alts_rule
from fidelity._core.text import to_utf8

__all__ = ["DROPPING_CODECS", "RULES", "drop_unencodable"]

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SURROGATE_OR_ASTRAL = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


def _units16(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def _replacement_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not r.startswith("\ufffd", j) or s[i] == "\ufffd":
        return ()
    ch = s[i]
    # One U+FFFD per character, per UTF-16 unit or per UTF-8 byte; a character whose
    # bytes a chunked decoder saw in two or three pieces (Node's ``chunk.toString()``,
    # ``bytes.decode(errors="replace")`` per chunk) gives one per piece, and each piece
    # after the first is one per byte: any count from one to its UTF-8 length.
    counts = {_units16(ch), *range(1, len(to_utf8(ch)) + 1)}
    return [(1, "\ufffd" * k) for k in sorted(counts)]


def _question_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    if ch < "\x80" or not r.startswith("?", j):
        return ()
    counts = {1, _units16(ch), len(to_utf8(ch))}
    return [(1, "?" * k) for k in sorted(counts)]


def _surrogate_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    cp = ord(ch)
    if cp > 0xFFFF:
        v = cp - 0x10000
        hi, lo = chr(0xD800 + (v >> 10)), chr(0xDC00 + (v & 0x3FF))
        return ((1, hi + lo), (1, hi), (1, lo))
    if 0xD800 <= cp <= 0xDBFF and i + 1 < len(s) and "\udc00" <= s[i + 1] <= "\udfff":
        joined = chr(0x10000 + ((cp - 0xD800) << 10) + (ord(s[i + 1]) - 0xDC00))
        return ((2, joined), (1, ""))
    if 0xD800 <= cp <= 0xDFFF and not ctx.escapes:
        return ((1, ""),)
    return ()


def _surrogate_detail(s: str, r: str) -> str:
    if any(ord(c) > 0xFFFF for c in r) and not any(ord(c) > 0xFFFF for c in s):
        return "joined"
    return ""


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(m: re.Match[str]) -> str:
    v = ord(m.group()) - 0x10000
    return chr(0xD800 + (v >> 10)) + chr(0xDC00 + (v & 0x3FF))


def _surrogate_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    # UTF-16 code units taken for code points (Java, JavaScript, UCS-2 readers).
    return ((_ASTRAL.sub(_split_astral, s), ""),)


def _replacement_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.encode("ascii", "replace").decode("ascii").replace("?", "\ufffd"), ""),)


def _question_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.encode("ascii", "replace").decode("ascii"), ""),)


#: The codecs an ``errors='ignore'`` encoder is tried with, narrowest first.
DROPPING_CODECS = ("ascii", "latin-1", "cp1252")


def _dropped_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    # A token of the replay: a non-ASCII character may be dropped. The hunk's verdict
    # (``_dropped_match``) then asks one codec to drop exactly the ones it cannot carry.
    return ((1, ""),) if s[i] >= "\x80" else ()


def drop_unencodable(s: str, codec: str) -> str:
    """``s`` encoded with ``codec``, what it cannot carry dropped (``errors='ignore'``)."""
    return s.encode(codec, "ignore").decode(codec)


def _dropped_match(s: str, r: str, ctx: Context) -> str | None:
    # Exact replay: the segment encoded with the codec, unencodable characters ignored
    # (``errors='ignore'``), is the received segment.
    if ctx.escapes:
        return None
    for codec in DROPPING_CODECS:
        if drop_unencodable(s, codec) == r:
            return codec if _drops_more_than_blanks(s, codec) else None
    return None


def _drops_more_than_blanks(s: str, codec: str) -> bool:
    # Blanks that vanished are a whitespace rewrite's (a collapse next to them), or a
    # cut; an encoder's drop is named where it dropped something else too.
    return any(not c.isspace() for c in s if drop_unencodable(c, codec) != c)


def _dropped_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return [
        (drop_unencodable(s, codec), codec)
        for codec in DROPPING_CODECS
        if _drops_more_than_blanks(s, codec)
    ]


RULES: tuple[Rule, ...] = (
    alts_rule(
        "encoding.surrogate_split",
        _surrogate_alts,
        _surrogate_apply,
        src=_SURROGATE_OR_ASTRAL,
        dst=None,
        detail=_surrogate_detail,
    ),
    alts_rule(
        "encoding.replacement",
        _replacement_alts,
        _replacement_apply,
        src=None,
        dst=re.compile("\ufffd"),
    ),
    alts_rule(
        "encoding.question_mark",
        _question_alts,
        _question_apply,
        src=_NON_ASCII,
        dst=re.compile(r"\?"),
    ),
    Rule(
        kind="encoding.dropped",
        src=_NON_ASCII,
        dst=None,
        match=_dropped_match,
        apply=_dropped_apply,
        alts=_dropped_alts,
    ),
)
