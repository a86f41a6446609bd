"""Alignment of two texts by code point: the differing regions (hunks) between them.

The common case is a long value with a few scattered edits, so alignment is windowed:
equal stretches are skipped with slice comparisons (``memcmp`` speed), and each
region around a mismatch is bounded by an *anchor*, a short run of the sent text found
again in the received text near where it is expected. Only the small window between
two anchors goes to the compiled alignment (rapidfuzz's bit-parallel ``Indel``, an
exact longest common subsequence), which keeps the whole alignment near-linear in the
length of the texts. A region too large for it (large insertions, unrelated texts) is
split at runs found in both texts, within a bounded amount of searching, so a hostile
pair can never hang the comparison: what is left unsplit is reported as one hunk.
"""

from __future__ import annotations

from typing import cast

from rapidfuzz.distance import Indel

from fidelity._compare.myers import align

__all__ = ["Hunk", "common_prefix", "common_suffix", "hunks"]

#: One differing region: ``(sent_start, sent_end, received_start, received_end)``.
Hunk = tuple[int, int, int, int]

_WINDOW = 1024  # code points of sent text handed to the compiled alignment at a time
_ANCHOR = 16  # length of the run used to re-synchronise the two texts
_SLACKS = (32, 256, 2048, 16384)  # how far from the expected place an anchor may be
_CELLS = 1 << 26  # largest sent x received region aligned at once (its bit matrix: 8 MiB)
_NEAR = 8  # hunks closer than this (equal code points between) are aligned again together
_CLUSTER = 64  # longest cluster of hunks aligned again, on either side
_SEARCHED = 16  # characters searched for split points, per character of a large region
_CANDIDATES = 8  # runs of the sent text tried as a split point of a large region
_SAMPLED_MIN = 1 << 20  # remainders this long are sampled before they are searched
_SAMPLES = 16  # runs of the sent text looked for in the received text
_SHARED = 2  # runs found that make a remainder worth aligning


def common_prefix(a: str, i: int, ie: int, b: str, *, j: int, je: int) -> int:
    """Length of the common prefix of ``a[i:ie]`` and ``b[j:je]`` (galloping + bisection)."""
    limit = min(ie - i, je - j)
    lo = 0
    step = 16
    # Gallop: double the compared block while it matches.
    while lo < limit:
        hi = min(limit, lo + step)
        if a[i + lo : i + hi] != b[j + lo : j + hi]:
            break
        lo = hi
        step *= 2
    else:
        return limit
    # Bisect inside the first mismatching block [lo, hi).
    while hi - lo > 8:
        mid = (lo + hi) // 2
        if a[i + lo : i + mid] == b[j + lo : j + mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[i + lo] == b[j + lo]:
        lo += 1
    return lo


def common_suffix(a: str, i: int, ie: int, b: str, *, j: int, je: int) -> int:
    """Length of the common suffix of ``a[i:ie]`` and ``b[j:je]``."""
    limit = min(ie - i, je - j)
    lo = 0
    step = 16
    while lo < limit:
        hi = min(limit, lo + step)
        if a[ie - hi : ie - lo] != b[je - hi : je - lo]:
            break
        lo = hi
        step *= 2
    else:
        return limit
    while hi - lo > 8:
        mid = (lo + hi) // 2
        if a[ie - mid : ie - lo] == b[je - mid : je - lo]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[ie - lo - 1] == b[je - lo - 1]:
        lo += 1
    return lo


def _compiled(a: str, b: str, h: Hunk, out: list[Hunk]) -> None:
    """Align ``a[i:ie]`` with ``b[j:je]``; append the differing regions to ``out``.

    A region small enough goes whole to the compiled alignment; a larger one is first
    split at runs found in both texts (`_split`).
    """
    i, ie, j, je = h
    if i == ie or j == je:
        out.append((i, ie, j, je))
        return
    if (ie - i) * (je - j) > _CELLS:
        _split(a, b, h, out)
        return
    found: list[Hunk] = []
    start: tuple[int, int] | None = None
    x = y = 0
    ops = cast("list[tuple[str, int, int, int, int]]", Indel.opcodes(a[i:ie], b[j:je]).as_list())
    for tag, x0, x1, y0, y1 in ops:
        if tag == "equal":
            if start is not None:
                found.append((i + start[0], i + x, j + start[1], j + y))
                start = None
            continue
        if start is None:
            start = (x0, y0)
        x, y = x1, y1
    if start is not None:
        found.append((i + start[0], i + x, j + start[1], j + y))
    _realigned(a, b, found, out)


def _realigned(a: str, b: str, found: list[Hunk], out: list[Hunk]) -> None:
    """Append ``found``, each cluster of nearby hunks aligned again by `myers.align`.

    Of the equally long alignments of a cluster, the bit-parallel one may match a
    space with a space where Myers' search matches the letters; the rules were written
    against Myers' choices.
    """
    k = 0
    while k < len(found):
        first = last = found[k]
        k += 1
        while (
            k < len(found)
            and found[k][0] - last[1] < _NEAR
            and found[k][1] - first[0] <= _CLUSTER
            and found[k][3] - first[2] <= _CLUSTER
        ):
            last = found[k]
            k += 1
        if last is first:
            out.append(first)
        else:
            align(a[first[0] : last[1]], b[first[2] : last[3]], first[0], first[2], out)


def _split(a: str, b: str, h: Hunk, out: list[Hunk]) -> None:
    """Align a region too large for one compiled alignment, divide and conquer.

    A run of the sent text near the middle of the region, found in the received text
    (the occurrence nearest to where it is expected), and the equal text around it
    split the region in two, and each part is aligned in turn. The searching is
    bounded by ``_SEARCHED`` characters per character of the region: a part left when
    it runs out, or in which no run is found, is reported as one hunk.
    """
    i, ie, j, je = h
    budget = _SEARCHED * (ie - i + je - j)
    todo = [h]
    while todo:
        i, ie, j, je = todo.pop()
        p = common_prefix(a, i, ie, b, j=j, je=je)
        i, j = i + p, j + p
        s = common_suffix(a, i, ie, b, j=j, je=je)
        ie, je = ie - s, je - s
        if i == ie or j == je:
            if i < ie or j < je:
                out.append((i, ie, j, je))
            continue
        if (ie - i) * (je - j) <= _CELLS:
            _compiled(a, b, (i, ie, j, je), out)
            continue
        found = ai = -1
        if ie - i >= _ANCHOR and budget > 0:
            step = max(_ANCHOR, (ie - i) // (4 * _CANDIDATES))
            middle = (i + ie - _ANCHOR) // 2
            for k in range(_CANDIDATES):
                ai = middle + (k + 1) // 2 * step * (1 if k % 2 else -1)
                if ai < i or ai + _ANCHOR > ie:
                    continue
                expected = j + (ai - i) * (je - j) // (ie - i)
                budget -= je - j
                found = _anchor(a, ai, b, expected, j=j, je=je, slack=je - j)
                if found >= 0 or budget <= 0:
                    break
        if found < 0:
            out.append((i, ie, j, je))
            continue
        left = common_suffix(a, i, ai, b, j=j, je=found)
        right = common_prefix(a, ai + _ANCHOR, ie, b, j=found + _ANCHOR, je=je)
        # Last in, first out: the right part is pushed first so the output stays in order.
        todo.append((ai + _ANCHOR + right, ie, found + _ANCHOR + right, je))
        todo.append((i, ai - left, j, found - left))


def _unanchored(a: str, b: str, h: Hunk, out: list[Hunk]) -> None:
    """Align a large region without anchors; an unrelated region stays one hunk.

    With no anchor in reach the texts have little in common there: when the alignment
    finds only scattered coincidences (more than one hunk per 16 code points), the
    region is reported whole instead of as thousands of one-letter edits. A region of
    MiBs is first sampled: when hardly any run of its sent text is found anywhere in
    the received text, it is reported whole without searching it for split points.
    """
    i, ie, j, je = h
    if max(ie - i, je - j) > _SAMPLED_MIN and not _shares_runs(a, b, h):
        out.append(h)
        return
    found: list[Hunk] = []
    _compiled(a, b, h, found)
    if len(found) * 16 > max(ie - i, je - j):
        out.append(h)
    else:
        out.extend(found)


def _shares_runs(a: str, b: str, h: Hunk) -> bool:
    """True when a few runs sampled across ``a[i:ie]`` occur in ``b[j:je]``."""
    i, ie, j, je = h
    if ie - i < _SAMPLES * _ANCHOR:
        return True
    step = (ie - i - _ANCHOR) // (_SAMPLES - 1)
    found = 0
    for k in range(_SAMPLES):
        start = i + k * step
        if b.find(a[start : start + _ANCHOR], j, je) >= 0:
            found += 1
            if found >= _SHARED:
                return True
    return False


def _anchor(a: str, ai: int, b: str, expected: int, *, j: int, je: int, slack: int) -> int:
    """Where ``a[ai:ai+_ANCHOR]`` occurs in ``b[j:je]`` within ``slack`` of ``expected``.

    The occurrence nearest to ``expected`` wins; -1 when there is none.
    """
    needle = a[ai : ai + _ANCHOR]
    lo = max(j, expected - slack)
    hi = min(je, expected + slack + _ANCHOR)
    after = b.find(needle, max(lo, expected), hi)
    before = b.rfind(needle, lo, min(hi, expected + _ANCHOR - 1))
    if after < 0:
        return before
    if before < 0:
        return after
    return after if after - expected < expected - before else before


def hunks(a: str, b: str) -> list[Hunk]:
    """The differing regions of ``a`` (sent) and ``b`` (received), in order.

    Regions never touch: between two hunks there is at least one equal code point.
    """
    n, m = len(a), len(b)
    p = common_prefix(a, 0, n, b, j=0, je=m)
    if p == n and p == m:
        return []
    s = common_suffix(a, p, n, b, j=p, je=m)
    out: list[Hunk] = []
    i, ie, j, je = p, n - s, p, m - s
    while True:
        k = common_prefix(a, i, ie, b, j=j, je=je)
        i += k
        j += k
        if i >= ie or j >= je:
            if i < ie or j < je:
                out.append((i, ie, j, je))
            break
        if ie - i <= 2 * _WINDOW or je - j <= _WINDOW // 2:
            _compiled(a, b, (i, ie, j, je), out)
            break
        found = ai = -1
        # Near places first, then further ones; several anchors per distance, since
        # an anchor may itself hold an edit.
        for slack in _SLACKS:
            for ai in range(i + _WINDOW, min(ie - _ANCHOR, i + 2 * _WINDOW), 4 * _ANCHOR):
                found = _anchor(a, ai, b, j + (ai - i), j=j, je=je, slack=slack)
                if found >= 0:
                    break
            if found >= 0:
                break
        if found < 0:
            _unanchored(a, b, (i, ie, j, je), out)
            break
        _compiled(a, b, (i, ai, j, found), out)
        i, j = ai, found
    return _merge_touching(out)


def _merge_touching(out: list[Hunk]) -> list[Hunk]:
    """Join hunks that touch (windows may split one edit at their border)."""
    if len(out) < 2:
        return out
    merged: list[Hunk] = [out[0]]
    for h in out[1:]:
        last = merged[-1]
        if h[0] == last[1] and h[2] == last[3]:
            merged[-1] = (last[0], h[1], last[2], h[3])
        else:
            merged.append(h)
    return merged
