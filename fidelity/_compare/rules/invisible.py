"""Invisible (format, bidi, zero-width) and control characters removed or replaced."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from fidelity._compare.rules.base import Context, Rule, alts_rule

__all__ = ["RULES"]


def _is_invisible(ch: str) -> bool:
    cp = ord(ch)
    if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or cp in (0x034F, 0x115F, 0x1160):
        return True
    return unicodedata.category(ch) == "Cf"


def _is_control(ch: str) -> bool:
    cp = ord(ch)
    return (cp < 0x20 and ch not in "\t\n\r") or 0x7F <= cp <= 0x9F


def _invisible_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    return ((1, ""),) if _is_invisible(s[i]) else ()


def _control_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    return ((1, ""),) if _is_control(s[i]) else ()


def _stand_ins(ch: str) -> tuple[str, ...]:
    cp = ord(ch)
    picture = chr(0x2400 + cp) if cp < 0x20 else ("\u2421" if cp == 0x7F else "")
    caret = "^" + chr(cp ^ 0x40) if cp < 0x20 or cp == 0x7F else ""
    return tuple(x for x in (" ", "?", "\ufffd", ".", "_", picture, caret) if x)


def _control_replaced_alts(
    s: str, i: int, r: str, j: int, ctx: Context
) -> Iterable[tuple[int, str]]:
    if not _is_control(s[i]):
        return ()
    return ((1, rep) for rep in _stand_ins(s[i]))


_INVISIBLE_RE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "\u0600-\u0605\u06dd\u070f\u08e2\U000110bd\U000110cd\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a]"
)
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

RULES: tuple[Rule, ...] = (
    alts_rule(
        "invisible.removed",
        _invisible_alts,
        lambda s, ctx: (("".join(c for c in s if not _is_invisible(c)), ""),),
        src=_INVISIBLE_RE,
        dst=None,
    ),
    alts_rule(
        "control.removed",
        _control_alts,
        lambda s, ctx: (("".join(c for c in s if not _is_control(c)), ""),),
        src=_CONTROL_RE,
        dst=None,
    ),
    alts_rule(
        "control.replaced",
        _control_replaced_alts,
        lambda s, ctx: (("".join(" " if _is_control(c) else c for c in s), ""),),
        src=_CONTROL_RE,
        dst=None,
    ),
)
