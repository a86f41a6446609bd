"""Whitespace: non-space whitespace to spaces, trailing spaces at line ends, runs collapsed."""

from __future__ import annotations

import re
from collections.abc import Iterable

from fidelity._compare.rules.base import Context, Rule, alts_rule, table_rule

__all__ = ["RULES", "SPACES"]

SPACES = (
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000"
)

#: U+200B is a "space" to transliterators (unidecode, anyascii) although it is invisible.
TO_SPACE: dict[str, tuple[str, ...]] = dict.fromkeys(SPACES + "\t\x0b\x0c\u200b", (" ",))

_WS = re.compile(r"\s+")
_HSPACE = frozenset(" \t" + SPACES)


def _collapse_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not s[i].isspace() or not r.startswith(" ", j):
        return ()
    end = i + 1
    while end < len(s) and s[end].isspace():
        end += 1
    return [(length, " ") for length in range(2, end - i + 1)]


def _line_strip_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if s[i] not in _HSPACE or (i > 0 and s[i - 1] in _HSPACE):
        return ()
    end = i + 1
    while end < len(s) and s[end] in _HSPACE:
        end += 1
    if end < len(s) and s[end] in "\r\n\u2028\u2029\x85":
        return ((end - i, ""),)
    return ()


def _line_strip(text: str) -> str:
    return re.sub(r"[ \t\u00a0\u2000-\u200a\u3000]+(?=\r\n|[\n\r\u2028\u2029\x85])", "", text)


RULES: tuple[Rule, ...] = (
    table_rule("whitespace.to_space", TO_SPACE),
    alts_rule(
        "whitespace.line_strip",
        _line_strip_alts,
        lambda s, ctx: ((_line_strip(s), ""),),
        src=re.compile(r"[ \t\u00a0\u2000-\u200a\u3000]"),
        dst=None,
    ),
    alts_rule(
        "whitespace.collapse",
        _collapse_alts,
        lambda s, ctx: ((_WS.sub(" ", s), ""),),
        src=re.compile(r"\s\s"),
        dst=re.compile(" "),
    ),
)
