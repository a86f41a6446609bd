"""Alignment of two texts by code point: the differing regions (hunks) between them.

The common case is a long value with a few scattered edits, so alignment is windowed:
equal stretches are skipped with slice comparisons (``memcmp`` speed), and each
region around a mismatch is bounded by an *anchor*, a short run of the sent text found
again in the received text near where it is expected. Only the small window between
two anchors goes to the compiled diff (``fast_diff_match_patch``), which keeps the
whole alignment near-linear in the length of the texts. When no anchor can be found
(large insertions, unrelated texts) the remainder goes to the compiled diff with a
time limit, so a hostile pair can never hang the comparison.
"""

from __future__ import annotations

import fast_diff_match_patch

__all__ = ["Hunk", "common_prefix", "common_suffix", "hunks"]

#: One differing region: ``(sent_start, sent_end, received_start, received_end)``.
Hunk = tuple[int, int, int, int]

_WINDOW = 1024  # code points of sent text handed to the compiled diff at a time
_ANCHOR = 16  # length of the run used to re-synchronise the two texts
_SLACKS = (32, 256, 2048, 16384)  # how far from the expected place an anchor may be
_TIME_LIMIT = 0.25  # seconds granted to the compiled diff on a remainder without anchors
_SAMPLED_MIN = 1 << 20  # remainders this long are sampled before the compiled diff
_SAMPLES = 16  # runs of the sent text looked for in the received text
_SHARED = 2  # runs found that make a remainder worth the compiled diff


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


def _compiled(a: str, b: str, h: Hunk, out: list[Hunk], time_limit: float) -> None:
    """Diff ``a[i:ie]`` against ``b[j:je]`` with the compiled diff; append its hunks."""
    i, ie, j, je = h
    if i == ie or j == je:
        out.append((i, ie, j, je))
        return
    ops = fast_diff_match_patch.diff(
        a[i:ie], b[j:je], timelimit=time_limit, cleanup="No", counts_only=True
    )
    x, y = i, j
    start: tuple[int, int] | None = None
    for op, count in ops:
        if not count:
            continue  # the compiled diff may report an empty insertion
        if op == "=":
            if start is not None:
                out.append((start[0], x, start[1], y))
                start = None
            x += count
            y += count
            continue
        if start is None:
            start = (x, y)
        if op == "-":
            x += count
        else:
            y += count
    if start is not None:
        out.append((start[0], x, start[1], y))


def _unanchored(a: str, b: str, h: Hunk, out: list[Hunk]) -> None:
    """Diff a large region without anchors; an unrelated region stays one hunk.

    With no anchor in reach the texts have little in common there: when the compiled
    diff finds only scattered coincidences (more than one hunk per 16 code points),
    the region is reported whole instead of as thousands of one-letter edits. A region
    of MiBs is first sampled: when hardly any run of its sent text is found anywhere in
    the received text, it is reported whole without the compiled diff (which holds
    both texts several times over in memory, and outruns its time limit on them).
    """
    i, ie, j, je = h
    if max(ie - i, je - j) > _SAMPLED_MIN and not _shares_runs(a, b, h):
        out.append(h)
        return
    found: list[Hunk] = []
    _compiled(a, b, h, found, _TIME_LIMIT)
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
            _compiled(a, b, (i, ie, j, je), out, _TIME_LIMIT)
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
        _compiled(a, b, (i, ai, j, found), out, 0.0)
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
