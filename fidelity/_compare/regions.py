"""Unknown findings and their close neighbours, aligned again by the rules' tokens."""

from __future__ import annotations

from fidelity._compare.clusters import widen
from fidelity._compare.finding import Finding
from fidelity._compare.hunk_replay import Classifier
from fidelity._compare.realign import realign
from fidelity._compare.rules import RULES

__all__ = ["MERGE_GAP", "realigned"]

_REALIGN_MAX = 256  # longest region (code points, each side) realigned around an unknown


_REALIGN_PAD = 8  # equal code points on each side of the region that may be realigned too


MERGE_GAP = 8  # neighbours this close are tried together when one is unexplained


def realigned(clf: Classifier, findings: list[Finding], *, lo: int, hi: int) -> list[Finding]:
    """Each unknown finding and its close neighbours, realigned by the rules' tokens.

    A run of repeated or look-alike characters aligns in several ways of equal cost,
    and the diff's choice may leave edits no kind explains (a tab that survived paired
    with the tab that became a space). The region around an unknown finding, with its
    neighbours closer than ``MERGE_GAP`` and a little equal text on each side, is
    aligned again by :func:`fidelity._compare.realign.realign`; its hunks replace the
    region's findings when every one of them replays.
    """
    out: list[Finding] = []  # the findings so far, realigned where it helped
    k = 0
    while k < len(findings):
        f = findings[k]
        if f.explained or clf.realign_budget <= 0:
            out.append(f)
            k += 1
            continue
        last = k
        while last + 1 < len(findings) and _close(findings[last], findings[last + 1], f):
            last += 1
        left = len(out)  # the close neighbours on the left are the last ones kept
        while left > 0 and _close(
            out[left - 1], out[left] if left < len(out) else f, findings[last]
        ):
            left -= 1
        first = out[left] if left < len(out) else f
        floor = out[left - 1].sent_end if left else lo
        found = _realign_region(clf, first, findings[last], floor, _ceil(findings, last, hi))
        tight = last
        if found is None:
            # A shift spans two unknown findings further apart (a word that moved
            # between look-alike neighbours): the region up to the next unknown one.
            nxt = _next_unknown(findings, last + 1, first.sent_start + _REALIGN_MAX)
            if nxt is not None:
                last = nxt
                while last + 1 < len(findings) and _close(
                    findings[last], findings[last + 1], first
                ):
                    last += 1
                found = _realign_region(
                    clf, first, findings[last], floor, _ceil(findings, last, hi)
                )
        if found is None:
            out.extend(findings[k : tight + 1])  # the next unknown one gets its own region
            k = tight + 1
            continue
        del out[left:]
        out.extend(found)
        k = last + 1
    return out


def _next_unknown(findings: list[Finding], start: int, end: int) -> int | None:
    """The index of the first unknown finding from ``start`` that ends by ``end``."""
    for q in range(start, len(findings)):
        if findings[q].sent_end > end:
            return None
        if not findings[q].explained:
            return q
    return None


def _ceil(findings: list[Finding], last: int, hi: int) -> int:
    return findings[last + 1].sent_start if last + 1 < len(findings) else hi


def _close(left: Finding, right: Finding, other_end: Finding) -> bool:
    """True when ``left`` and ``right`` are close and the region stays small enough."""
    if right.sent_start - left.sent_end > MERGE_GAP:
        return False
    start = min(left.sent_start, other_end.sent_start)
    end = max(right.sent_end, other_end.sent_end)
    return end - start <= _REALIGN_MAX


def _realign_region(
    clf: Classifier, first: Finding, last: Finding, floor: int, ceil: int
) -> list[Finding] | None:
    """Findings for the region from ``first`` to ``last``, realigned; None if one stays unknown."""
    a, b = clf.a, clf.b
    left = min(_REALIGN_PAD, first.sent_start - floor)
    right = min(_REALIGN_PAD, ceil - last.sent_end)
    x0, x1 = first.sent_start - left, last.sent_end + right
    y0, y1 = first.received_start - left, last.received_end + right
    if x1 - x0 > _REALIGN_MAX + 2 * _REALIGN_PAD or y1 - y0 > _REALIGN_MAX + 2 * _REALIGN_PAD:
        return None
    seg_a, seg_b = a[x0:x1], b[y0:y1]
    rules = [rule for rule in RULES if rule.alts is not None and rule.gate(seg_a, seg_b)]
    if not rules:
        return None
    found, used = realign(seg_a, seg_b, rules, clf._context(y0), limit=clf.realign_budget)
    clf.realign_budget -= used
    if not found:
        return None
    hs = widen(a, b, [(i + x0, ie + x0, j + y0, je + y0) for i, ie, j, je in found], x0, x1)
    out: list[Finding] = []
    for n, h in enumerate(hs):
        lower = out[-1].sent_end if out else x0
        upper = hs[n + 1][0] if n + 1 < len(hs) else x1
        kinds, lc, rc = clf.hunk(h, lower, upper)
        if not kinds:
            return None
        i, ie, j, je = h
        out.append(
            Finding(
                kinds=kinds,
                sent_start=i - lc,
                sent_end=ie + rc,
                received_start=j - lc,
                received_end=je + rc,
                explained=True,
            )
        )
    return out
