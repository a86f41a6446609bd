"""Grapheme cluster boundaries, and hunks widened to them on both sides."""

from __future__ import annotations

import unicodedata

from fidelity._compare.diff import Hunk
from fidelity._core.render import grapheme_pattern

__all__ = ["boundary", "widen"]

_PAIRS: dict[tuple[str, str], bool] = {}


def _context_free(before: str, after: str) -> bool:
    """True when the break between two code points does not depend on what surrounds them.

    Only emoji ZWJ sequences (GB11), regional indicator pairs (GB12/13) and Indic
    conjuncts (GB9c, a linker mark between consonants) look further.
    """
    if before == "\u200d" or "\U0001f1e6" <= before <= "\U0001f1ff":
        return False
    if "\U0001f1e6" <= after <= "\U0001f1ff":
        return False
    return unicodedata.category(before) not in ("Mn", "Mc")


def boundary(text: str, i: int) -> bool:
    """True when ``i`` is a grapheme cluster boundary of ``text``."""
    if i <= 0 or i >= len(text):
        return True
    before, after = text[i - 1], text[i]
    if before < "\u0300" and after < "\u0300":
        return not (before == "\r" and after == "\n")
    known = _PAIRS.get((before, after))
    if known is not None:
        return known
    if _context_free(before, after):
        verdict = len(grapheme_pattern().findall(before + after)) == 2
        if len(_PAIRS) < 1 << 16:
            _PAIRS[(before, after)] = verdict
        return verdict
    lo = max(0, i - 32)
    for m in grapheme_pattern().finditer(text, lo, min(len(text), i + 32)):
        start = m.start()
        if start == i:
            return True
        if start > i:
            return False
    return True


def widen(a: str, b: str, hs: list[Hunk], lo: int, hi: int) -> list[Hunk]:
    """Widen hunks to grapheme boundaries on both sides; join hunks that then overlap.

    Hunks that merely touch stay apart (an edit that ends where the next begins).
    """
    res: list[Hunk] = []
    pending: tuple[int, int] | None = None
    for idx, h in enumerate(hs):
        i, ie, j, je = h
        if pending is not None:
            i, j = pending
            pending = None
        else:
            floor = res[-1][1] if res else lo
            while i > floor and not (boundary(a, i) and boundary(b, j)):
                i -= 1
                j -= 1
            if res and i == floor and not (boundary(a, i) and boundary(b, j)):
                pi, _, pj, _ = res.pop()
                i, j = pi, pj
        last = idx + 1 == len(hs)
        nxt = hi if last else hs[idx + 1][0]
        while ie < nxt and not (boundary(a, ie) and boundary(b, je)):
            ie += 1
            je += 1
        if not last and ie == nxt and not (boundary(a, ie) and boundary(b, je)):
            pending = (i, j)
            continue
        res.append((i, ie, j, je))
    return res
