"""The smallest set of kinds that replays every finding of a value.

Each hunk is first named by the most specific rule that replays it, so two rewrites
applied to the whole value (NFKC, then ``casefold``) may come out as four kinds: an
em space that NFKC turned into a space is ``whitespace.to_space``, a full-width
apostrophe is ``unicode.ascii_fold``, an ohm sign lower-cased is ``unicode.case`` with
``unicode.nfc``. The kinds named, and the wider kinds that may stand for several of
them, are tried in sets smaller than the one named, smallest first; a set is kept
when every finding replays with one of its kinds, or two of them composed. Among sets
of the same size the narrower kinds win: a wider kind (``unicode.ascii_fold``, needed
for nothing but the blanks once ``casefold`` explains ``ß``) is given up for a narrower
one (``whitespace.to_space``) that replays the same findings.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from fidelity._compare.finding import Finding
from fidelity._compare.hunk_replay import (
    INVERSES,
    Classifier,
    adds_foreign,
    erases,
    then_dropped,
)
from fidelity._compare.rules import RULES, RULES_BY_KIND

__all__ = ["fewest_kinds"]

#: Kinds whose rewrite also does what the listed kinds do, on some text.
_WIDER: dict[str, tuple[str, ...]] = {
    "unicode.nfc": ("unicode.nfkc",),
    "unicode.nfd": ("unicode.nfkd",),
    "whitespace.to_space": ("unicode.nfkc", "unicode.nfkd", "unicode.ascii_fold"),
    "unicode.ascii_fold": ("unicode.nfkc", "unicode.nfkd", "unicode.case"),
    "newline.separator_to_lf": ("whitespace.collapse",),
    "invisible.removed": ("encoding.dropped",),
    "control.removed": ("encoding.dropped",),
    "encoding.surrogate_split": ("encoding.dropped",),
    "whitespace.collapse": (),
}
_MAX_FINDINGS = 64  # findings of one value that are named again
_MAX_SEGMENT = 256  # longest segment (code points, both sides) replayed again
_MAX_CANDIDATES = 7  # kinds tried in sets
_BUDGET = 4000  # replays per value
_ORDER = {rule.kind: n for n, rule in enumerate(RULES)}

Kinds = tuple[tuple[str, str], ...]


class _Replays:
    """Replays of segments by one kind or two composed, remembered, within a budget."""

    def __init__(self, clf: Classifier) -> None:
        self.clf = clf
        self.budget = _BUDGET
        self.memo: dict[tuple[int, tuple[str, ...]], Kinds | None] = {}

    def by(self, n: int, f: Finding, kinds: tuple[str, ...]) -> Kinds | None:
        """The (kind, detail) pairs of ``kinds`` that replay ``f``, one or two, or None."""
        key = (n, kinds)
        if key not in self.memo:
            self.memo[key] = self._by(f, kinds)
        return self.memo[key]

    def _by(self, f: Finding, kinds: tuple[str, ...]) -> Kinds | None:
        clf = self.clf
        for kind in kinds:
            self.budget -= 1
            detail = clf.explains(kind, f)
            if detail is not None:
                return ((kind, detail),)
        s = clf.a[f.sent_start : f.sent_end]
        r = clf.b[f.received_start : f.received_end]
        ctx = clf._context(f.received_start)
        for first in kinds:
            rule = RULES_BY_KIND[first]
            if rule.src is not None and rule.src.search(s) is None:
                continue
            for mid, detail1 in rule.apply(s, ctx):
                if mid in (s, r):
                    continue
                for second in kinds:
                    self.budget -= 1
                    if second == first or (first, second) in INVERSES:
                        continue
                    rule2 = RULES_BY_KIND[second]
                    if not rule2.gate(mid, r):
                        continue
                    if second == "encoding.dropped" and adds_foreign(s, mid, r):
                        continue  # it would drop what the first step wrote
                    if erases(s, mid, r):
                        continue  # nothing the first step wrote is left
                    detail2 = rule2.match(mid, r, ctx)
                    if detail2 is not None:
                        return ((first, detail1), (second, detail2))
        if "encoding.dropped" in kinds and len(kinds) > 2:
            # Two rewrites, then an encoder that drops the rest (NFKD, ``lower()``,
            # ``encode('ascii', 'ignore')``).
            self.budget -= len(kinds) ** 2
            return then_dropped(s, r, ctx, tuple(RULES_BY_KIND[k] for k in kinds))
        return None


def _named(findings: list[Finding]) -> list[int]:
    """The findings whose kinds may be named again: explained by rules, short enough."""
    return [
        n
        for n, f in enumerate(findings)
        if f.explained
        and all(k in RULES_BY_KIND for k, _ in f.kinds)
        and (f.sent_end - f.sent_start) + (f.received_end - f.received_start) <= _MAX_SEGMENT
    ]


def fewest_kinds(clf: Classifier, findings: list[Finding]) -> list[Finding]:
    """``findings`` named again with the smallest set of kinds that replays them all."""
    named = _named(findings)
    if not named or len(named) > _MAX_FINDINGS:
        return findings
    fixed = {k for n, f in enumerate(findings) if n not in named for k, _ in f.kinds}
    kinds = {k for n in named for k, _ in findings[n].kinds} - fixed
    if len(kinds) < 2:
        return findings
    replaceable = kinds
    if len(kinds | {w for k in kinds for w in _WIDER.get(k, ())}) > _MAX_CANDIDATES:
        # Too many to try in sets: only the kinds a wider one may stand for are given up.
        replaceable = {k for k in kinds if k in _WIDER}
    if not replaceable:
        return findings
    kept = tuple(sorted(kinds - replaceable, key=_ORDER.__getitem__))
    wider = {w for k in replaceable for w in _WIDER.get(k, ())}
    candidates = sorted(replaceable | wider, key=_ORDER.__getitem__)
    if len(candidates) > _MAX_CANDIDATES:
        return findings
    replays = _Replays(clf)
    for size in range(len(replaceable)):
        for extra in combinations(candidates, size):
            chosen = tuple(sorted((*kept, *extra), key=_ORDER.__getitem__))
            if len(set(chosen)) >= len(kinds):
                continue
            found = _named_with(replays, findings, named, chosen)
            if replays.budget <= 0:
                return findings
            if found is not None:
                return found
    return _narrowed(replays, findings, named, kinds)


#: Narrower kinds a named kind may be given up for, when they replay what it named.
_NARROWER: dict[str, tuple[str, ...]] = {
    wide: tuple(narrow for narrow, wides in _WIDER.items() if wide in wides)
    for wide in {w for wides in _WIDER.values() for w in wides}
}


def _narrowed(
    replays: _Replays, findings: list[Finding], named: list[int], kinds: set[str]
) -> list[Finding]:
    """``findings`` with each wider kind swapped for a narrower one, when that replays."""
    current = set(kinds)
    out = findings
    for wide in sorted(kinds, key=_ORDER.__getitem__, reverse=True):
        if wide not in current:
            continue
        for narrow in _NARROWER.get(wide, ()):
            if narrow in current or _ORDER[narrow] > _ORDER[wide]:
                continue
            chosen = tuple(sorted(current - {wide} | {narrow}, key=_ORDER.__getitem__))
            found = _named_with(replays, out, named, chosen)
            if replays.budget <= 0:
                return out
            # A narrower kind that needs a second one where the wider did it alone
            # (``\u2009ﬁ`` -> `` fi``: NFKC, not a space and a casefold) is no narrower.
            if found is not None and _composed(found) <= _composed(out):
                current, out = set(chosen), found
                break
    return out


def _composed(findings: list[Finding]) -> int:
    """How many findings two kinds composed replay."""
    return sum(len(f.kinds) > 1 for f in findings)


def _named_with(
    replays: _Replays, findings: list[Finding], named: list[int], chosen: tuple[str, ...]
) -> list[Finding] | None:
    """``findings`` with each named one replayed by ``chosen``; None if one is not."""
    out = list(findings)
    for n in named:
        f = findings[n]
        if all(k in chosen for k, _ in f.kinds):
            continue
        kinds = replays.by(n, f, chosen)
        if kinds is None or replays.budget <= 0:
            return None
        out[n] = replace(f, kinds=kinds)
    return out
