"""Myers' O(ND) alignment by middle snakes, for the short regions the windows leave.

The bit-parallel alignment of ``diff.py`` finds *a* longest common subsequence; when
several exist, the one it returns can match a space with a space where a reader (and
the classifier's rules) would match the letters: ``"x   y\\tz"`` against ``"x y z"``.
Each short cluster of its hunks is therefore aligned again here, the way Myers'
divide-and-conquer chooses: trim the common ends, take a shorter text found whole in
the longer one, else split at the middle snake of the forward and reverse searches
and align both halves. Edits come out deletions first, equal runs as long and as
early as the search reaches them.
"""

from __future__ import annotations

__all__ = ["align"]

#: One differing region: ``(sent_start, sent_end, received_start, received_end)``.
Hunk = tuple[int, int, int, int]


def align(a: str, b: str, i: int, j: int, out: list[Hunk]) -> None:
    """Append the differing regions of ``a`` against ``b`` (offset by ``i``, ``j``)."""
    n, m = len(a), len(b)
    p = 0
    while p < n and p < m and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and s < m - p and a[n - 1 - s] == b[m - 1 - s]:
        s += 1
    a, b = a[p : n - s], b[p : m - s]
    i, j = i + p, j + p
    n, m = len(a), len(b)
    if not n or not m:
        if n or m:
            out.append((i, i + n, j, j + m))
        return
    if n > m:
        k = a.find(b)
        if k >= 0:
            _two(out, (i, i + k, j, j), (i + k + m, i + n, j + m, j + m))
            return
    else:
        k = b.find(a)
        if k >= 0:
            _two(out, (i, i, j, j + k), (i + n, i + n, j + k + n, j + m))
            return
    if n == 1 or m == 1:
        out.append((i, i + n, j, j + m))
        return
    x, y = _middle(a, b)
    if (x, y) in ((0, 0), (n, m)):
        out.append((i, i + n, j, j + m))
        return
    align(a[:x], b[:y], i, j, out)
    align(a[x:], b[y:], i + x, j + y, out)


def _two(out: list[Hunk], first: Hunk, second: Hunk) -> None:
    """Append the non-empty ones of two regions."""
    for h in (first, second):
        if h[0] < h[1] or h[2] < h[3]:
            out.append(h)


def _middle(a: str, b: str) -> tuple[int, int]:
    """Where the forward and reverse searches meet: a split point of an optimal path."""
    n, m = len(a), len(b)
    depth = (n + m + 1) // 2
    offset = depth
    forward = [-1] * (2 * depth + 2)
    reverse = [-1] * (2 * depth + 2)
    forward[offset + 1] = reverse[offset + 1] = 0
    delta = n - m
    odd = delta % 2 != 0
    f_lo = f_hi = r_lo = r_hi = 0
    for d in range(depth):
        for k in range(-d + f_lo, d + 1 - f_hi, 2):
            at = offset + k
            if k == -d or (k != d and forward[at - 1] < forward[at + 1]):
                x = forward[at + 1]
            else:
                x = forward[at - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            forward[at] = x
            if x > n:
                f_hi += 2
            elif y > m:
                f_lo += 2
            elif odd:
                other = offset + delta - k
                if 0 <= other < len(reverse) and reverse[other] != -1 and x >= n - reverse[other]:
                    return x, y
        for k in range(-d + r_lo, d + 1 - r_hi, 2):
            at = offset + k
            if k == -d or (k != d and reverse[at - 1] < reverse[at + 1]):
                x = reverse[at + 1]
            else:
                x = reverse[at - 1] + 1
            y = x - k
            while x < n and y < m and a[n - x - 1] == b[m - y - 1]:
                x += 1
                y += 1
            reverse[at] = x
            if x > n:
                r_hi += 2
            elif y > m:
                r_lo += 2
            elif not odd:
                other = offset + delta - k
                if 0 <= other < len(forward) and forward[other] != -1:
                    fx = forward[other]
                    if fx >= n - x:
                        return fx, offset + fx - other
    return 0, 0
