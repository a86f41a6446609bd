"""A value classified hunk by hunk: its ends first, then each hunk, then the value as one."""

from __future__ import annotations

from dataclasses import replace

from fidelity._compare.clusters import widen
from fidelity._compare.diff import Hunk, common_prefix, common_suffix, hunks
from fidelity._compare.fewest import fewest_kinds
from fidelity._compare.finding import Finding, kind_count, strip_finding
from fidelity._compare.hunk_replay import Classifier
from fidelity._compare.regions import MERGE_GAP, realigned
from fidelity._compare.rules import RULES, expands_tabs, one_style, tab_expansions
from fidelity._compare.tails import (
    TRUNCATED_RESIDUE,
    cut_then_newline,
    rule_explains_tail,
    tail_kind,
)

__all__ = ["by_hunks"]

_AS_ONE_MAX = 4096  # longest differing span (both sides) replayed as one finding


def by_hunks(a: str, b: str, escapes: bool) -> list[Finding]:
    """Findings for every hunk of ``a`` -> ``b``, its value-wide ends named first."""
    hs = hunks(a, b)
    clf = Classifier(a, b, escapes)
    lo, hi = 0, len(a)
    tail = _tail(clf, hs)
    if tail:
        hs.pop()
        hi = tail[0].sent_start
    head = _head(a, hs)
    if head:
        hs.pop(0)
        lo = head[0].sent_end
    hs = widen(a, b, hs, lo, hi)
    body = _classify_hunks(clf, hs, lo=lo, hi=hi)
    if any(not f.explained for f in body):
        # The tail (a strip, a final line break) may be part of the region realigned.
        both = realigned(clf, body + tail, lo=lo, hi=len(a))
        tail = [f for f in both if any(f is t for t in tail)]
        body = [f for f in both if not any(f is t for t in tail)]
    body = _one_style(clf, fewest_kinds(clf, _tab_stops(clf, _unify(clf, body))))
    if tail and tail[0].kinds[0][0] == "truncate" and any(not f.explained for f in body):
        f = tail[0]
        if f.sent_end - f.sent_start <= TRUNCATED_RESIDUE:
            # A few characters lost at the end, while the same chain lost or garbled
            # others inside: the end went the same way, nothing says it was a cut.
            tail = [replace(f, kinds=(), explained=False)]
    if any(not f.explained for f in body):
        whole = _as_one(clf, lo)
        if whole is not None:
            return [*head, whole]
    return head + _fewest_kinds(clf, body + tail, lo)


def _tail(clf: Classifier, hs: list[Hunk]) -> list[Finding]:
    """The last hunk as a value-wide kind (a cut, a strip, a final line break), if it is one."""
    a, b = clf.a, clf.b
    if not hs:
        return []
    i, ie, j, je = hs[-1]
    if ie != len(a) or je != len(b):
        return []
    kind = tail_kind(a, b, i, j, clf.escapes)
    if kind is not None and kind[0] == "truncate" and rule_explains_tail(clf, hs):
        kind = None
    kinds = (kind,) if kind is not None else cut_then_newline(clf, hs, clf.escapes)
    if not kinds:
        return []
    return [
        Finding(
            kinds=kinds,
            sent_start=i,
            sent_end=ie,
            received_start=j,
            received_end=je,
            explained=True,
        )
    ]


def _head(a: str, hs: list[Hunk]) -> list[Finding]:
    """The first hunk as a leading strip or a basename, if it is one."""
    if not hs:
        return []
    i, ie, j, je = hs[0]
    if i or j or je or ie >= len(a):
        return []
    seg = a[:ie]
    kind: tuple[str, str] | None = None
    # A strip leaves no leading whitespace, unless only spaces were stripped
    # (``strip(" ")``): "\r\nx" -> "\nx" is a CRLF losing its CR, not a strip.
    if seg.isspace() and (not a[ie : ie + 1].isspace() or (set(seg) <= {" "} and a[ie] != " ")):
        kind = ("whitespace.strip", "leading")
    elif seg[-1] in "/\\" and not any(c in "/\\" for c in a[ie:]):
        kind = ("path.basename", "")
    if kind is None:
        return []
    return [strip_finding(kind, 0, ie, 0)]


def _fewest_kinds(clf: Classifier, findings: list[Finding], lo: int) -> list[Finding]:
    """The hunks' findings, or the span they cover as one finding if it needs fewer kinds.

    Runs of similar characters align in several equally short ways (``\r\n\r\r`` ->
    ``\n\n\n`` pairs a CRLF with two LFs); the pairing the diff picked may need more, or
    odder, kinds than the rewrite that was applied. Among the explanations, the one
    with the fewest kinds wins.
    """
    if len(findings) < 2 or kind_count(findings) < 2:
        return findings
    if findings[-1].sent_end - findings[0].sent_start > _AS_ONE_MAX:
        return findings
    whole = _as_one(clf, lo)
    if whole is not None and kind_count([whole]) < kind_count(findings):
        return [whole]
    return findings


def _as_one(clf: Classifier, lo: int) -> Finding | None:
    """The whole differing span as one finding, when one or two kinds replay all of it.

    A minimal diff may align the wrong characters (``aaaÉaé`` -> ``AAAÉAÉ`` pairs the
    two ``É``), leaving edits no kind explains; the span between the common prefix and
    the common suffix, replayed as a whole, is the fallback.
    """
    a, b = clf.a, clf.b
    i = j = lo
    ie, je = len(a), len(b)
    tail = common_suffix(a, i, ie, b, j=0, je=je)
    ie, je = ie - tail, je - tail
    head = common_prefix(a, i, ie, b, j=j, je=je)
    i, j = i + head, j + head
    if (ie - i) + (je - j) > _AS_ONE_MAX:
        return None
    ((i, ie, j, je),) = widen(a, b, [(i, ie, j, je)], 0, len(a))
    kinds, lc, rc = clf.hunk((i, ie, j, je), 0, len(a))
    if not kinds:
        return None
    return Finding(
        kinds=kinds,
        sent_start=i - lc,
        sent_end=ie + rc,
        received_start=j - lc,
        received_end=je + rc,
        explained=True,
    )


def _unify(clf: Classifier, findings: list[Finding]) -> list[Finding]:
    """Name each edit with as few kinds as the whole value needs.

    A hunk is first given the most specific kind that replays it; when another kind
    found elsewhere in the value replays it too (a ligature that both NFKC and NFKD
    decompose, next to a letter only NFKD explains), the kind that covers more hunks
    wins, so one rewrite applied to the whole value is reported as one kind.
    """
    order = {rule.kind: n for n, rule in enumerate(RULES)}
    present = sorted(
        {f.kinds[0][0] for f in findings if f.explained and len(f.kinds) == 1},
        key=order.__getitem__,
    )
    if len(present) < 2:
        return findings
    options: list[dict[str, str]] = []
    counts = dict.fromkeys(present, 0)
    for f in findings:
        found: dict[str, str] = {}
        if f.explained and len(f.kinds) == 1:
            for kind in present:
                detail = f.kinds[0][1] if kind == f.kinds[0][0] else clf.explains(kind, f)
                if detail is not None:
                    found[kind] = detail
                    counts[kind] += 1
        options.append(found)
    ranked = sorted(present, key=lambda k: (-counts[k], order[k]))
    out: list[Finding] = []
    for f, found in zip(findings, options, strict=True):
        kind = next((k for k in ranked if k in found), "")
        if kind and kind != f.kinds[0][0]:
            out.append(replace(f, kinds=((kind, found[kind]),)))
        else:
            out.append(f)
    return out


_TAB_KINDS = ("whitespace.tab_expand", "whitespace.to_space")


def _tab_stops(clf: Classifier, findings: list[Finding]) -> list[Finding]:
    """Give every expanded tab of the value the one tab stop that explains them all.

    Each hunk names the first expansion that replays it (a tab at column 4 that became
    two spaces fits tab stops of 2, 3 and 6); ``expandtabs(3)`` is only recognised from
    all the tabs together, including those that became a single space.
    """
    tabs = [
        n
        for n, f in enumerate(findings)
        if f.explained
        and len(f.kinds) == 1
        and f.kinds[0][0] in _TAB_KINDS
        and "\t" in clf.a[f.sent_start : f.sent_end]
    ]
    labels = {findings[n].kinds[0] for n in tabs}
    if len(labels) < 2 or all(k != "whitespace.tab_expand" for k, _ in labels):
        return findings
    segments = [
        (
            clf.a[findings[n].sent_start : findings[n].sent_end],
            clf.b[findings[n].received_start : findings[n].received_end],
            clf._context(findings[n].received_start),
        )
        for n in tabs
    ]
    for detail in tab_expansions():
        if all(expands_tabs(s, r, ctx, detail) for s, r, ctx in segments):
            out = list(findings)
            for n in tabs:
                out[n] = replace(out[n], kinds=(("whitespace.tab_expand", detail),))
            return out
    return findings


def _one_style(clf: Classifier, findings: list[Finding]) -> list[Finding]:
    """Name one file-name sanitizer for every ``path.sanitized`` finding of the value."""
    sanitized = [
        n for n, f in enumerate(findings) if f.explained and f.kinds[0][0] == "path.sanitized"
    ]
    if len(sanitized) < 2 or len({findings[n].kinds for n in sanitized}) < 2:
        return findings
    if any(len(findings[n].kinds) > 1 for n in sanitized):
        return findings
    style = one_style(
        (
            clf.a[f.sent_start : f.sent_end],
            clf.b[f.received_start : f.received_end],
            clf._context(f.received_start),
        )
        for f in (findings[n] for n in sanitized)
    )
    if style is None:
        return findings
    out = list(findings)
    for n in sanitized:
        out[n] = replace(out[n], kinds=(("path.sanitized", style),))
    return out


def _classify_hunks(clf: Classifier, hs: list[Hunk], *, lo: int, hi: int) -> list[Finding]:
    out: list[Finding] = []
    k = 0
    while k < len(hs):
        h = hs[k]
        floor = out[-1].sent_end if out else lo
        ceil = hs[k + 1][0] if k + 1 < len(hs) else hi
        kinds, lc, rc = clf.hunk(h, floor, ceil)
        if not kinds and k + 1 < len(hs) and hs[k + 1][0] - h[1] <= MERGE_GAP:
            nxt = hs[k + 1]
            merged = (h[0], nxt[1], h[2], nxt[3])
            ceil2 = hs[k + 2][0] if k + 2 < len(hs) else hi
            kinds2, lc2, rc2 = clf.hunk(merged, floor, ceil2)
            if kinds2:
                h, kinds, lc, rc = merged, kinds2, lc2, rc2
                k += 1
        if not kinds and out and h[0] - floor <= MERGE_GAP:
            prev = out[-1]
            merged = (prev.sent_start, h[1], prev.received_start, h[3])
            prev_floor = out[-2].sent_end if len(out) > 1 else lo
            kinds2, lc2, rc2 = clf.hunk(merged, prev_floor, ceil)
            if kinds2:
                out.pop()
                h, kinds, lc, rc = merged, kinds2, lc2, rc2
        i, ie, j, je = h
        out.append(
            Finding(
                kinds=kinds,
                sent_start=i - lc,
                sent_end=ie + rc,
                received_start=j - lc,
                received_end=je + rc,
                explained=bool(kinds),
            )
        )
        k += 1
    return out
