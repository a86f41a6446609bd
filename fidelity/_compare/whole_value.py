"""Rewrites of the whole value, tried where alignment finds no anchors."""

from __future__ import annotations

from dataclasses import replace

from fidelity._compare.decoding import is_escape
from fidelity._compare.finding import Finding, whole_finding
from fidelity._compare.hunk_replay import INVERSES, adds_foreign, erases
from fidelity._compare.rules import (
    LINE_BREAKS,
    RULES,
    RULES_BY_KIND,
    Context,
    Rule,
    rewrite_as,
    whole_rewrites,
)
from fidelity._compare.tails import truncate_detail
from fidelity._compare.windows import Window

__all__ = ["dense", "truncated_output", "whole_value"]

_WHOLE_COMPOSE_MAX = 2048  # longest value tried with two whole-value rewrites composed


def whole_value(a: str, b: str, escapes: bool, ws: list[Window]) -> list[Finding] | None:
    """Findings when one rewrite of the whole value (or two composed) gives ``b``.

    The fallback for dense rewrites, where alignment finds no anchors (every line's CRLF
    became LF, every letter changed case, a value misread in another codec) or aligns
    the output of a rewrite with look-alike sent characters: each rule's concrete
    rewrites run on the whole of ``a``; a result that ``b`` is a truncation of counts
    too (a value misread in another codec and cut). In a long value, a rewrite runs on
    the whole only when it fits the windows around the unexplained findings (``ws``).
    """
    ctx = Context(escapes=escapes, sent=a)
    small = len(a) + len(b) <= _WHOLE_COMPOSE_MAX
    outs: list[tuple[str, str, str]] = []
    for rule in RULES:
        rewrites = _rewrites(rule, a, b, ws, ctx)
        if rewrites is None:
            continue
        for out, detail in rewrites:
            if out == b:
                return [whole_finding(rule.kind, detail, a, b)]
            if out != a:
                outs.append((rule.kind, out, detail))
        if small and rule.gate(a, b):
            replayed = rule.match(a, b, ctx)
            if replayed is not None:
                return [whole_finding(rule.kind, replayed, a, b)]
    for kind, out, detail in outs:
        stripped = _then_stripped(a, b, (kind, detail), out)
        if stripped is not None:
            return stripped
    for kind, out, detail in outs:
        found = truncated_output(a, b, (kind, detail), out, escapes=escapes)
        if found is not None:
            return found
    return _composed(a, b, outs, ctx) if small else None


def _composed(
    a: str, b: str, outs: list[tuple[str, str, str]], ctx: Context
) -> list[Finding] | None:
    """The whole value when a second rule's rewrite of a first one's output ``mid`` is ``b``."""
    for kind, mid, detail in outs:
        for second in RULES:
            if (kind, second.kind) in INVERSES or not second.gate(mid, b):
                continue
            if second.kind == "encoding.dropped" and adds_foreign(a, mid, b):
                continue  # an encoder that drops what the first rewrite wrote
            if erases(a, mid, b):
                continue  # a second rewrite that erases all the first one wrote
            for out, detail2 in second.apply(mid, ctx):
                if out == b:
                    f = whole_finding(kind, detail, a, b)
                    return [replace(f, kinds=((kind, detail), (second.kind, detail2)))]
    return None


def _rewrites(
    rule: Rule, a: str, b: str, ws: list[Window], ctx: Context
) -> list[tuple[str, str]] | None:
    """``rule``'s rewrites of the whole of ``a`` (those that fit the windows ``ws`` of a
    long value), or None when its gate keeps ``a`` out."""
    if ws:
        return [
            (out, detail)
            for detail in _fitting(rule, a, b, ws, ctx)
            for out in rewrite_as(rule, detail, a, ctx)
        ]
    if rule.src is not None and rule.src.search(a) is None:
        return None
    return whole_rewrites(rule, a, b, ctx)


def _then_stripped(a: str, b: str, rewrite: tuple[str, str], out: str) -> list[Finding] | None:
    """Rewrite ``(kind, detail)`` of ``a`` (giving ``out``), then the ends of that stripped.

    The whitespace a strip removes may be the rewrite's own output (a no-break space
    read as cp1252 ends in one): the missing tail is a strip, not a cut.
    """
    if not b or b[0].isspace() or b[-1].isspace() or out == b:
        return None
    if out.strip() != b or erases(a, out, b):
        return None  # not stripped, or stripped of all the rewrite wrote
    stripped = ("whitespace.strip", "")
    if out.startswith(b) and out[len(b) :] in LINE_BREAKS:
        stripped = ("newline.final_removed", "")  # as a strip of that alone is named
    elif out.rstrip() == out or out.lstrip() == out:
        stripped = ("whitespace.strip", "leading" if out.rstrip() == out else "trailing")
    return [replace(whole_finding(*rewrite, a, b), kinds=(rewrite, stripped))]


def _fitting(rule: Rule, a: str, b: str, ws: list[Window], ctx: Context) -> list[str]:
    """The details of ``rule``'s whole-value rewrites whose output fits every window."""
    details: dict[str, None] | None = None
    for w in ws:
        text = a[w.sent_start : w.sent_end]
        if rule.src is not None and rule.src.search(text) is None:
            fits: dict[str, None] = {}  # the rewrite leaves this window as it is
        else:
            fits = {d: None for out, d in whole_rewrites(rule, text, b, ctx) if w.holds(out, b)}
        details = fits if details is None else {d: None for d in details if d in fits}
        if not details:
            return []
    return list(details or ())


def dense(a: str, b: str, escapes: bool) -> list[Finding] | None:
    """One rewrite of a large value everywhere, recognised before aligning it.

    Aligning a value whose every line changed finds no anchor and costs the diff's
    whole time limit; a rule whose rewrite of the first KiB is how ``b`` starts is
    replayed on the whole value first.
    """
    ctx = Context(escapes=escapes, sent=a)
    head = a[:1024]
    for rule in RULES:
        if rule.src is not None and rule.src.search(head) is None:
            continue
        # Only the rewrites whose output for the head is how ``b`` starts run on the
        # whole value (each output of a long value is as long as the value).
        details = {
            detail: None
            for out, detail in whole_rewrites(rule, head, b[:4096], ctx)
            if out != head and len(out) > 16 and b.startswith(out[:-16])
        }
        for detail in details:
            for whole in rewrite_as(rule, detail, a, ctx):
                if whole == b:
                    return [whole_finding(rule.kind, detail, a, b)]
    return None


def truncated_output(
    a: str, b: str, rewrite: tuple[str, str], out: str, *, escapes: bool
) -> list[Finding] | None:
    """Rewrite ``(kind, detail)`` of ``a`` (giving ``out``) then cut: ``b`` is a prefix.

    A cut character may leave part of its rewrite, U+FFFD or undecodable bytes.
    """
    kind, detail = rewrite
    if not b or len(b) >= len(out):
        return None
    keep = len(b) - min(len(b), 4)
    if out[:keep] != b[:keep]:
        return None
    rule = RULES_BY_KIND[kind]
    ctx = Context(escapes=escapes)

    def rewritten(k: int) -> str | None:
        # The longest output of the rewrite of a[:k] that b starts with.
        fits = [o for o in rewrite_as(rule, detail, a[:k], ctx) if b.startswith(o)]
        return max(fits, key=len) if fits else None

    lo, hi = 0, len(a)  # a[:lo] rewritten is a prefix of b; find the largest such lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if rewritten(mid) is not None:
            lo = mid
        else:
            hi = mid - 1
    head = rewritten(lo)
    if not lo or head is None:
        return None
    residue = b[len(head) :]
    cut = rewrite_as(rule, detail, a[: lo + 1], ctx)
    if residue and not (
        (len(residue) <= 4 and set(residue) <= {"\ufffd"})
        or (escapes and all(is_escape(c) for c in residue))
        or any(o[len(head) :].startswith(residue) for o in cut)
    ):
        return None
    return [
        Finding(
            kinds=((kind, detail),),
            sent_start=0,
            sent_end=lo,
            received_start=0,
            received_end=len(head),
            explained=True,
        ),
        Finding(
            kinds=(("truncate", truncate_detail(a, lo, residue, escapes)),),
            sent_start=lo,
            sent_end=len(a),
            received_start=len(head),
            received_end=len(b),
            explained=True,
        ),
    ]
