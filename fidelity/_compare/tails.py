"""Value-wide kinds at the ends of a value: a truncated or stripped tail, a final line break."""

from __future__ import annotations

from fidelity._compare.decoding import encode as bytes_of
from fidelity._compare.decoding import is_escape
from fidelity._compare.diff import Hunk
from fidelity._compare.hunk_replay import Classifier
from fidelity._compare.rules import LINE_BREAKS
from fidelity._core.text import to_utf8

__all__ = [
    "TRUNCATED_RESIDUE",
    "cut_then_newline",
    "rule_explains_tail",
    "tail_kind",
    "truncate_detail",
]

TRUNCATED_RESIDUE = 16  # longest short tail that may be called a truncation on its own


def tail_kind(a: str, b: str, i: int, j: int, escapes: bool) -> tuple[str, str] | None:
    """A value-wide kind for the tail ``a[i:]`` -> ``b[j:]`` that reaches both ends."""
    seg_a, seg_b = a[i:], b[j:]
    if not seg_a:
        if seg_b in LINE_BREAKS:
            return ("newline.final_added", "")
        return None
    if not seg_b:
        if seg_a in LINE_BREAKS:
            return ("newline.final_removed", "")
        if seg_a.isspace():
            # A strip leaves no character it strips before the cut: "   " -> " " is not one.
            if j and b[j - 1] in seg_a:
                return None
            return ("whitespace.strip", "trailing")
        return ("truncate", truncate_detail(a, i, "", escapes))
    first = seg_a[0]
    residue = False
    if escapes and all(is_escape(c) for c in seg_b):
        full = to_utf8(first)
        part = bytes_of(seg_b)
        residue = len(part) < len(full) and full.startswith(part)
    elif len(seg_b) == 1 and ord(first) > 0xFFFF:
        high = chr(0xD800 + ((ord(first) - 0x10000) >> 10))
        residue = seg_b == high
    if not residue and seg_b == "\ufffd" and len(seg_a) > 1:
        residue = True
    if residue:
        return ("truncate", truncate_detail(a, i, seg_b, escapes))
    return None


def truncate_detail(a: str, cut: int, residue: str, escapes: bool) -> str:
    kept = a[:cut]
    chars = len(kept)
    nbytes = len(to_utf8(kept))
    units = len(kept.encode("utf-16-le", "surrogatepass")) // 2
    if residue:
        if escapes and all(is_escape(c) for c in residue):
            nbytes += len(residue)
        elif "\ud800" <= residue[0] <= "\udbff":
            units += 1
    detail = f"{chars} chars, {nbytes} UTF-8 bytes, {units} UTF-16 units"
    if cut < len(a) and a[cut] == "\x00":
        detail += ", nul"
    return detail


def cut_then_newline(clf: Classifier, hs: list[Hunk], escapes: bool) -> tuple[tuple[str, str], ...]:
    """A tail cut (or stripped) and then ended with a line break, as ``head -c N; echo`` do.

    The last hunk reaches both ends and the received one ends with a line break that
    the sent value has not there; only tried when no rule explains the hunk.
    """
    a, b = clf.a, clf.b
    i, ie, j, je = hs[-1]
    for nl in ("\r\n", "\n"):
        if b.endswith(nl, j) and not a.endswith(nl):
            break
    else:
        return ()
    kind = tail_kind(a, b[: je - len(nl)], i, j, escapes)
    if kind is None or kind[0] not in ("truncate", "whitespace.strip"):
        return ()
    floor = hs[-2][1] if len(hs) > 1 else 0
    if clf.hunk(hs[-1], floor, ie)[0]:
        return ()
    return (kind, ("newline.final_added", ""))


def rule_explains_tail(clf: Classifier, hs: list[Hunk]) -> bool:
    """True when a short tail is a rule's work (a removed control, ``%E9`` -> U+FFFD)."""
    i, ie, j, je = hs[-1]
    if je - j > 1 or ie - i > TRUNCATED_RESIDUE:
        return False
    floor = hs[-2][1] if len(hs) > 1 else 0
    kinds, _, _ = clf.hunk(hs[-1], floor, ie)
    if any(k == "encoding.dropped" for k, _ in kinds):
        # Characters an encoder dropped, or a cut that fell before them: a cut, unless
        # the same encoder dropped characters inside the value too.
        return _dropped_inside(clf, hs[:-1])
    return bool(kinds)


_DROPPED_LOOK = 64  # hunks before the tail looked at for characters dropped inside


def _dropped_inside(clf: Classifier, hs: list[Hunk]) -> bool:
    """True when one of the hunks ``hs`` (before a tail) is characters dropped."""
    floor = 0
    for n, h in enumerate(hs[:_DROPPED_LOOK]):
        ceil = hs[n + 1][0] if n + 1 < len(hs) else h[1]
        kinds, _, _ = clf.hunk(h, floor, ceil)
        if any(k == "encoding.dropped" for k, _ in kinds):
            return True
        floor = h[1]
    return False
