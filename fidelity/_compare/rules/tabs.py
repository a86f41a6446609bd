"""Tabs expanded to spaces, at any tab stop or as a fixed number of spaces."""

from __future__ import annotations

import re
from collections.abc import Iterable

from fidelity._compare.rules.base import Alternatives, Context, Rule, token_match

__all__ = ["RULES", "TAB_BY_EIGHT", "expands_tabs", "tab_expansions"]


def _column(r: str, j: int, ctx: Context) -> int:
    """Column of ``r[j]`` on its line (``expandtabs`` restarts at CR and at LF)."""
    k = max(r.rfind("\n", 0, j), r.rfind("\r", 0, j))
    return j - k - 1 if k >= 0 else ctx.column + j


def _tab_alts_for(size: int) -> Alternatives:
    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        if s[i] != "\t":
            return ()
        return ((1, " " * (size - _column(r, j, ctx) % size)),)

    return alts


def _tab_fixed_alts_for(width: int) -> Alternatives:
    rep = " " * width

    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        return ((1, rep),) if s[i] == "\t" else ()

    return alts


_TAB_MAX = 32  # widest tab stop considered
_TAB_USUAL: dict[str, Alternatives] = {f"tabsize {n}": _tab_alts_for(n) for n in (8, 4, 2)}
_TAB_FIXED: dict[str, Alternatives] = {
    f"{w} spaces": _tab_fixed_alts_for(w) for w in (4, 8, 2, *range(3, _TAB_MAX + 1))
}
_TAB_RARE: dict[str, Alternatives] = {
    f"tabsize {n}": _tab_alts_for(n) for n in range(3, _TAB_MAX + 1) if n not in (4, 8)
}
#: Every expansion, in order of preference. Which of the usual tab stops (8, 4, 2) or
#: fixed widths applies depends on the column modulo 8 only; the rare tab stops come
#: last, so a verdict among the first ones holds at every column with that remainder.
_TAB_VARIANTS: dict[str, Alternatives] = {**_TAB_USUAL, **_TAB_FIXED, **_TAB_RARE}
#: The expansions whose verdict depends on the column modulo 8 only.
TAB_BY_EIGHT = frozenset((*_TAB_USUAL, *_TAB_FIXED))


def _tab_candidates(s: str, r: str, ctx: Context) -> list[str]:
    """Tab expansions consistent with the first tab of ``s``, most usual first.

    The first tab is where ``s`` and ``r`` first differ; the run of spaces there and
    its column leave only the tab stops (and fixed widths) that give that many spaces.
    """
    i = s.find("\t")
    if s[:i] != r[:i]:
        return list(_TAB_VARIANTS)
    width = len(r) - len(r[i:].lstrip(" ")) - i
    if width < 1:
        return []
    column = _column(r, i, ctx)
    fixed = f"{width} spaces"
    return [
        d
        for d in _TAB_VARIANTS
        if d == fixed or (d[0] == "t" and width == int(d[8:]) - column % int(d[8:]))
    ]


def _tab_match(s: str, r: str, ctx: Context) -> str | None:
    if len(r) <= len(s):  # every tab became one space at most: that is to_space
        return None
    for detail in _tab_candidates(s, r, ctx):
        alts = _TAB_VARIANTS[detail]
        if token_match(s, r, alts, ctx) and (detail.startswith("tabsize") or "\t" not in r):
            return detail
    return None


def tab_expansions() -> tuple[str, ...]:
    """The details of every tab expansion, in order of preference."""
    return tuple(_TAB_VARIANTS)


def expands_tabs(s: str, r: str, ctx: Context, detail: str) -> bool:
    """True when expansion ``detail`` turns ``s`` into ``r`` (a tab may give one space)."""
    return "\t" in s and "\t" not in r and token_match(s, r, _TAB_VARIANTS[detail], ctx)


def _tab_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    """The usual expansions of a tab (tab stops of 8, 4 and 2; 8, 4 or 2 spaces)."""
    if s[i] != "\t":
        return ()
    column = _column(r, j, ctx)
    widths = {size - column % size for size in (8, 4, 2)} | {8, 4, 2}
    return [(1, " " * w) for w in sorted(widths, reverse=True)]


def _tab_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.expandtabs(8), "tabsize 8"), (s.expandtabs(4), "tabsize 4"))


RULES: tuple[Rule, ...] = (
    Rule(
        kind="whitespace.tab_expand",
        src=re.compile("\t"),
        dst=re.compile(" "),
        match=_tab_match,
        apply=_tab_apply,
        alts=_tab_alts,
    ),
)
