"""Proposal and verification: which kinds explain the differences of two texts.

The texts are aligned (:mod:`fidelity._compare.diff`), hunks are widened to whole grapheme
clusters, and value-wide kinds are recognised first (a byte order mark, a truncated
tail, stripped ends, a trailing line break, a scalar rewritten through a number). Every
remaining hunk is offered to the rules of :mod:`fidelity._compare.rules` in order of
preference, with a little common context when a rewrite needs it (``&amp;`` -> ``&``
aligns as the deletion of ``amp;``); a rule is kept only when its replay on the sent
segment reproduces the received segment. A hunk no single rule explains is tried with
two rules composed, then merged with a close neighbour, then realigned with its
neighbours by the rules' tokens (:mod:`fidelity._compare.realign`), and is otherwise
``unknown``. What stays unknown is last tried as one rewrite of the whole value, or the
received value read in another codec; in a long value such a rewrite is first tried on
windows around the unknown regions (:mod:`fidelity._compare.windows`).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, replace

from fidelity._compare.coerce import rendered_coercion
from fidelity._compare.decoding import encode as bytes_of
from fidelity._compare.decoding import is_escape
from fidelity._compare.diff import Hunk, common_prefix, common_suffix, hunks
from fidelity._compare.realign import realign
from fidelity._compare.rules import (
    LINE_BREAKS,
    RULES,
    RULES_BY_KIND,
    TAB_BY_EIGHT,
    Context,
    Rule,
    expands_tabs,
    reread,
    reread_codecs,
    rewrite_as,
    tab_expansions,
    whole_rewrites,
)
from fidelity._compare.windows import Window, windows
from fidelity._core.render import grapheme_pattern
from fidelity._core.text import to_utf8

__all__ = ["Finding", "classify"]

_CONTEXTS = ((0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (4, 4), (8, 8))
_COMPOSE_CONTEXTS = ((0, 0), (1, 1))
_CONTEXT_MAX = 8
_COMPOSE_MAX = 256  # longest segment (code points) tried with two composed rules
_COMPOSE_BUDGET = 400  # composition attempts per comparison (unrelated texts stay fast)
_REALIGN_MAX = 256  # longest region (code points, each side) realigned around an unknown
_REALIGN_STATES = 1 << 16  # states realignments may take per comparison, and as many
_REALIGN_PER_CHAR = 16  # more per code point of sent text (the work stays linear)
_REALIGN_PAD = 8  # equal code points on each side of the region that may be realigned too
_MERGE_GAP = 8  # neighbours this close are tried together when one is unexplained
# Rewrites whose output is never rewritten again in a way worth naming.
_LOSSY = frozenset(("encoding.replacement", "encoding.question_mark"))
_MATCH_MAX = 1 << 16  # longest segment offered to the token-by-token replay
_DENSE_MIN = 1 << 14  # values this long are first tried as one rewrite everywhere
_WINDOWED_MIN = 1 << 14  # values this long try a whole-value rewrite on windows first
_READING_SAMPLE = 1 << 16  # code points whose characters rank the readings of a value
_WHOLE_COMPOSE_MAX = 2048  # longest value tried with two whole-value rewrites composed
_AS_ONE_MAX = 4096  # longest differing span (both sides) replayed as one finding
_TRUNCATED_RESIDUE = 16  # longest short tail that may be called a truncation on its own
# Rewrites that undo each other: composing them explains nothing (``\x93`` escaped as
# ``&#147;`` and unescaped as ``“`` is not what a chain did to it).
_OPPOSITES = (
    ("quote.straighten", "quote.educate"),
    ("punct.straighten", "punct.educate"),
    ("unicode.nfc", "unicode.nfd"),
    ("unicode.nfkc", "unicode.nfkd"),
    ("escape.json", "unescape.json"),
    ("escape.html", "unescape.html"),
    ("escape.url", "unescape.url"),
    ("escape.backslash", "unescape.backslash"),
    ("path.backslash_to_slash", "path.slash_to_backslash"),
    ("newline.crlf_to_lf", "newline.lf_to_crlf"),
)
_INVERSES = frozenset(_OPPOSITES) | frozenset((b, a) for a, b in _OPPOSITES)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One explained (or unexplained) region: its kinds in the order they apply."""

    kinds: tuple[tuple[str, str], ...]  # (kind, detail); empty means unknown
    sent_start: int
    sent_end: int
    received_start: int
    received_end: int
    explained: bool


_PAIRS: dict[tuple[str, str], bool] = {}


def _adds_foreign(sent: str, mid: str, received: str) -> bool:
    """True when a first rewrite (``sent`` -> ``mid``) wrote characters ``received`` lacks.

    A composition whose first step writes what the second removes again (a CR added
    by ``newline.lf_to_crlf`` and turned into LF) explains less than one that does not.
    """
    return any(c not in sent and c not in received for c in set(mid))


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


def _boundary(text: str, i: int) -> bool:
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


def _widen(a: str, b: str, hs: list[Hunk], lo: int, hi: int) -> list[Hunk]:
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
            while i > floor and not (_boundary(a, i) and _boundary(b, j)):
                i -= 1
                j -= 1
            if res and i == floor and not (_boundary(a, i) and _boundary(b, j)):
                pi, _, pj, _ = res.pop()
                i, j = pi, pj
        last = idx + 1 == len(hs)
        nxt = hi if last else hs[idx + 1][0]
        while ie < nxt and not (_boundary(a, ie) and _boundary(b, je)):
            ie += 1
            je += 1
        if not last and ie == nxt and not (_boundary(a, ie) and _boundary(b, je)):
            pending = (i, j)
            continue
        res.append((i, ie, j, je))
    return res


class _Classifier:
    """Classifies the hunks of one pair; remembers verdicts for repeated edits."""

    def __init__(self, a: str, b: str, escapes: bool) -> None:
        self.a = a
        self.b = b
        self.escapes = escapes
        self.cache: dict[tuple[object, ...], tuple[tuple[tuple[str, str], ...], int, int]] = {}
        self.verdicts: dict[tuple[object, ...], str | None] = {}
        self.compose_budget = _COMPOSE_BUDGET
        self.realign_budget = _REALIGN_STATES + _REALIGN_PER_CHAR * len(a)

    def _context(self, j: int) -> Context:
        line_start = self.b.rfind("\n", 0, j) + 1
        line_start = self.b.rfind("\r", line_start, j) + 1 or line_start
        return Context(column=j - line_start, escapes=self.escapes)

    def single(
        self, s: str, r: str, ctx: Context, rules: tuple[Rule, ...] = RULES
    ) -> tuple[tuple[str, str], ...] | None:
        if len(s) + len(r) > _MATCH_MAX:
            return None
        for rule in rules:
            if rule.gate(s, r):
                detail = rule.match(s, r, ctx)
                if detail is not None:
                    return ((rule.kind, detail),)
        return None

    def explains(self, kind: str, f: Finding) -> str | None:
        """The detail if rule ``kind`` alone replays finding ``f``'s segment, else None."""
        s = self.a[f.sent_start : f.sent_end]
        r = self.b[f.received_start : f.received_end]
        # Only a tab expansion depends on the column.
        tabs = kind == "whitespace.tab_expand" and "\t" in s
        column = self._context(f.received_start).column if tabs else 0
        key = (kind, s, r, column)
        if key in self.verdicts:
            return self.verdicts[key]
        rule = RULES_BY_KIND[kind]
        verdict = None
        if rule.gate(s, r):
            verdict = rule.match(s, r, self._context(f.received_start))
        self.verdicts[key] = verdict
        return verdict

    def composed(self, s: str, r: str, ctx: Context) -> tuple[tuple[str, str], ...] | None:
        if len(s) + len(r) > _COMPOSE_MAX or self.compose_budget <= 0:
            return None
        self.compose_budget -= 1
        fallback: tuple[tuple[str, str], ...] | None = None
        for first in RULES:
            if first.kind in _LOSSY or (first.src is not None and first.src.search(s) is None):
                continue
            for mid, detail1 in first.apply(s, ctx):
                if mid in (s, r):
                    continue
                for second in RULES:
                    if (
                        second is first
                        or (first.kind, second.kind) in _INVERSES
                        or not second.gate(mid, r)
                    ):
                        continue
                    detail2 = second.match(mid, r, ctx)
                    if detail2 is None:
                        continue
                    found = ((first.kind, detail1), (second.kind, detail2))
                    if not _adds_foreign(s, mid, r):
                        return found
                    if fallback is None:
                        fallback = found
        return fallback

    def hunk(self, h: Hunk, floor: int, ceil: int) -> tuple[tuple[tuple[str, str], ...], int, int]:
        """Kinds for hunk ``h`` and the context (left, right) the replay needed."""
        a, b = self.a, self.b
        i, ie, j, je = h
        left = min(_CONTEXT_MAX, i - floor)
        right = min(_CONTEXT_MAX, ceil - ie)
        core_s, core_r = a[i:ie], b[j:je]
        column = self._context(j).column if "\t" in core_s else 0
        # A verdict on a tab holds at every column with the same remainder modulo 8,
        # unless it needed a rare tab stop (or found none): then at that column only.
        plain = (core_s, core_r, column % 8)
        hit = self.cache.get(plain)
        if hit is not None:
            return hit
        exact = (core_s, core_r, column)
        hit = self.cache.get(exact)
        if hit is not None:
            return hit
        key = (a[i - left : i], core_s, core_r, a[ie : ie + right], column)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        result: tuple[tuple[tuple[str, str], ...], int, int] = ((), 0, 0)
        if len(core_s) + len(core_r) > _MATCH_MAX:
            return result  # too long to replay token by token, with or without context
        # A rule whose gate fails with the widest context fails with every narrower one.
        widest = (a[i - left : ie + right], b[j - left : je + right])
        rules = tuple(rule for rule in RULES if rule.gate(*widest))
        for lc, rc in _CONTEXTS:
            if lc > left or rc > right:
                continue
            found = self.single(
                a[i - lc : ie + rc], b[j - lc : je + rc], self._context(j - lc), rules
            )
            if found is not None:
                result = (found, lc, rc)
                break
        else:
            for lc, rc in _COMPOSE_CONTEXTS:
                if lc > left or rc > right:
                    continue
                found = self.composed(
                    a[i - lc : ie + rc], b[j - lc : je + rc], self._context(j - lc)
                )
                if found is not None:
                    result = (found, lc, rc)
                    break
        # A verdict without context holds wherever the same edit appears again.
        if result[0] and result[1:] == (0, 0):
            by_eight = not column or all(
                k != "whitespace.tab_expand" or d in TAB_BY_EIGHT for k, d in result[0]
            )
            self.cache[plain if by_eight else exact] = result
        else:
            self.cache[key] = result
        return result


def _tail_kind(a: str, b: str, i: int, j: int, escapes: bool) -> tuple[str, str] | None:
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
        return ("truncate", _truncate_detail(a, i, "", escapes))
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
        return ("truncate", _truncate_detail(a, i, seg_b, escapes))
    return None


def _truncate_detail(a: str, cut: int, residue: str, escapes: bool) -> str:
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


def _whole(kind: str, detail: str, a: str, b: str) -> Finding:
    return Finding(
        kinds=((kind, detail),),
        sent_start=0,
        sent_end=len(a),
        received_start=0,
        received_end=len(b),
        explained=True,
    )


def _value_wide(a: str, b: str, escapes: bool) -> list[Finding] | None:
    """Findings when the whole difference is one value-wide rewrite, else None."""
    if len(a) <= 64 and "\n" not in a and a.strip() != b and not escapes:
        detail = rendered_coercion(a, b)
        if detail is not None:
            return [_whole("type.coerced", detail, a, b)]
    if len(b) < len(a) and a.startswith(b):
        kind = _tail_kind(a, b, len(b), len(b), escapes)
        if kind is not None and kind[0] == "truncate" and len(a) - len(b) <= 16:
            kind = None  # the hunk path tries the rules first (a removed control)
        if kind is not None and (kind[0] != "whitespace.strip" or b == b.rstrip()):
            return [
                Finding(
                    kinds=(kind,),
                    sent_start=len(b),
                    sent_end=len(a),
                    received_start=len(b),
                    received_end=len(b),
                    explained=True,
                )
            ]
    if b and b == a.strip():
        lead = len(a) - len(a.lstrip())
        out = []
        if lead:
            out.append(
                Finding(
                    kinds=(("whitespace.strip", "leading"),),
                    sent_start=0,
                    sent_end=lead,
                    received_start=0,
                    received_end=0,
                    explained=True,
                )
            )
        end = lead + len(b)
        if end < len(a):
            out.append(
                Finding(
                    kinds=(("whitespace.strip", "trailing"),),
                    sent_start=end,
                    sent_end=len(a),
                    received_start=len(b),
                    received_end=len(b),
                    explained=True,
                )
            )
        return out
    if b.startswith('"') and len(b) >= 2 and not a.startswith('"'):
        for ascii_only in (True, False):
            if json.dumps(a, ensure_ascii=ascii_only) == b:
                return [_whole("escape.json", "json.dumps, quoted", a, b)]
    return None


def classify(a: str, b: str, *, escapes: bool = False, reread: bool = True) -> list[Finding]:
    """Findings that account for every difference between ``a`` (sent) and ``b``."""
    if a.startswith("\ufeff") and not b.startswith("\ufeff"):
        bom = _bom("bom.removed", 0, 1, 0, 0)
    elif b.startswith("\ufeff") and not a.startswith("\ufeff"):
        bom = _bom("bom.added", 0, 0, 0, 1)
    else:
        return _classify(a, b, escapes, None, reread=reread)
    split = _classify(a, b, escapes, bom, reread=False)
    if all(f.explained for f in split):
        if "\ufeff" not in (a if bom.received_end else b):
            return split
        # A U+FEFF on both sides may be the same character, moved by a rewrite around
        # it (a leading NBSP stripped): the reading with fewer kinds wins.
        whole = _classify(a, b, escapes, None, reread=False)
        if all(f.explained for f in whole) and _kind_count(whole) < _kind_count(split):
            return whole
        return split
    # The BOM may be part of a wider rewrite (a whole value read as latin-1 turns
    # U+FEFF into "ï»¿"): keep the reading that explains everything, if one does.
    whole = _classify(a, b, escapes, None, reread=reread)
    if all(f.explained for f in whole):
        return whole
    if reread:
        reread_split = _classify(a, b, escapes, bom, reread=True)
        if all(f.explained for f in reread_split):
            return reread_split
    # Neither explains everything: the reading that leaves less unexplained wins (text
    # put before a leading BOM leaves the BOM where it was: only the insertion is
    # unknown), the BOM's own reading on a tie.
    return whole if _unexplained(whole) < _unexplained(split) else split


def _unexplained(findings: list[Finding]) -> int:
    """Code points (both sides) that the findings leave unexplained."""
    return sum(
        f.sent_end - f.sent_start + f.received_end - f.received_start
        for f in findings
        if not f.explained
    )


def _classify(
    a: str, b: str, escapes: bool, bom: Finding | None, *, reread: bool = True
) -> list[Finding]:
    """Classify ``a`` -> ``b`` after the (optional) BOM finding, which covers its prefix."""
    findings: list[Finding] = [] if bom is None else [bom]
    sa, sb = (0, 0) if bom is None else (bom.sent_end, bom.received_end)
    core_a, core_b = (a[sa:], b[sb:]) if sa or sb else (a, b)
    if core_a == core_b:
        return findings
    wide = _value_wide(core_a, core_b, escapes)
    if wide is None and len(core_a) > _DENSE_MIN:
        wide = _dense(core_a, core_b, escapes)
    if wide is None:
        wide = _stripped(core_a, core_b, escapes)
    if any(not f.explained for f in wide):
        ws = _windows(core_a, core_b, wide)
        whole = _whole_value(core_a, core_b, escapes, ws)
        if whole is None and reread:
            whole = _reread(core_a, core_b, escapes, ws) or _wrapped(core_a, core_b, escapes)
        if whole is not None:
            wide = whole
    for f in wide:
        findings.append(
            Finding(
                kinds=f.kinds,
                sent_start=f.sent_start + sa,
                sent_end=f.sent_end + sa,
                received_start=f.received_start + sb,
                received_end=f.received_end + sb,
                explained=f.explained,
            )
        )
    return findings


def _windows(a: str, b: str, found: list[Finding]) -> list[Window]:
    """Windows around the unexplained findings of a long value (none for a short one)."""
    if len(a) + len(b) <= _WINDOWED_MIN:
        return []
    regions = [(f.sent_start, f.sent_end, f.received_start, f.received_end) for f in found]
    unexplained = [n for n, f in enumerate(found) if not f.explained]
    return windows(regions, unexplained, len(a), len(b))


def _reread(a: str, b: str, escapes: bool, ws: list[Window]) -> list[Finding] | None:
    """The whole value as one finding when ``b`` is another codec's view of a rewrite of ``a``.

    A dense rewrite (every CRLF became LF) next to text written in latin-1 leaves no
    place where the two values align; reading ``b`` back in the codec that wrote it
    and classifying that reading separates the two: the kinds it needs, then
    ``encoding.mojibake`` with the codec, replay ``a`` into ``b``. In a long value, a
    codec is first tried on the windows around the unexplained findings (``ws``).
    """
    # Each reading is as long as the value: read one at a time, and again when tried.
    ranked: list[tuple[float, int, str]] = []
    sample = set(a[:_READING_SAMPLE])
    for codec in reread_codecs(b, escapes=escapes):
        if ws and not all(_reads_in(a, b, w, codec, escapes) for w in ws):
            continue
        text = reread(b, codec, escapes=escapes)
        if text is not None:
            # The reading that shares most characters with the sent value goes first.
            chars = set(text[:_READING_SAMPLE])
            ranked.append((-len(chars & sample) / (len(chars) or 1), len(ranked), codec))
        del text
    for _, _, codec in sorted(ranked):
        text = reread(b, codec, escapes=escapes)
        assert text is not None
        found = classify(a, text, reread=False)
        if not all(f.explained for f in found):
            continue
        kinds = list(dict.fromkeys(k for f in found for k in f.kinds))
        kinds.append(("encoding.mojibake", codec))
        return [replace(_whole(*kinds[0], a, b), kinds=tuple(kinds))]
    return None


def _reads_in(a: str, b: str, w: Window, codec: str, escapes: bool) -> bool:
    """True when window ``w`` of ``b``, read through ``codec``, is a rewrite of ``a``'s.

    A prefix window (a region too long for a window) tells nothing here: the reading
    may explain it with several kinds, whose lengths no prefix can follow.
    """
    if w.prefix:
        return True
    text = reread(b[w.received_start : w.received_end], codec, escapes=escapes)
    if text is None:
        return False
    found = classify(a[w.sent_start : w.sent_end], text, reread=False)
    return all(f.explained for f in found)


def _wrapped(a: str, b: str, escapes: bool) -> list[Finding] | None:
    """Findings when ``b`` is a rewrite of ``a`` put between quotes (a repr, ``printf %q``).

    ``b'\\xc3\\xa9'``, ``$'caf\\303\\251'`` or a quoted cookie value: a short prefix
    ending in a quote and the same quote at the end, around text the rules explain.
    The quotes themselves are no rewrite of the text: they stay ``unknown``.
    """
    for p in (1, 2, 3):
        q = b[p - 1 : p]
        if (
            q not in ("'", '"')
            or len(b) < p + 1
            or not b.endswith(q)
            or not all(c.isalpha() or c == "$" for c in b[: p - 1])
            or a.startswith(q)
        ):
            continue
        inner = classify(a, b[p:-1], escapes=escapes, reread=False)
        if not all(f.explained for f in inner):
            continue
        out = [
            Finding(
                kinds=(),
                sent_start=0,
                sent_end=0,
                received_start=0,
                received_end=p,
                explained=False,
            )
        ]
        out.extend(
            replace(f, received_start=f.received_start + p, received_end=f.received_end + p)
            for f in inner
        )
        out.append(
            Finding(
                kinds=(),
                sent_start=len(a),
                sent_end=len(a),
                received_start=len(b) - 1,
                received_end=len(b),
                explained=False,
            )
        )
        return out
    return None


def _is_blank(c: str) -> bool:
    """Whitespace as ``strip`` functions see it (JavaScript's ``trim`` drops U+FEFF too)."""
    return c.isspace() or c == "\ufeff"


def _stripped(a: str, b: str, escapes: bool) -> list[Finding]:
    """Findings when the ends of ``a`` were stripped and its inside rewritten as well.

    Whitespace at an end of ``a`` counts as stripped when the received value starts
    (ends) with the first (last) character that follows (precedes) it, so a strip is
    told apart from a rewrite of the whitespace itself (``\r\nx`` -> ``\nx``). The
    inside is classified alone; the trailing part is named with the fewest kinds: a
    lone line break is ``newline.final_removed``, trailing blanks removed next to
    ``whitespace.line_strip`` are that, and both ends stripped are one strip.
    """
    lead = 0
    while lead < len(a) and _is_blank(a[lead]):
        lead += 1
    if not lead or lead == len(a) or not b or a[lead] != b[0] or _is_blank(b[0]):
        lead = 0
    end = len(a)
    while end > lead and _is_blank(a[end - 1]):
        end -= 1
    if end == len(a) or end == lead or not b or a[end - 1] != b[-1] or _is_blank(b[-1]):
        end = len(a)
    if not lead and end == len(a):
        return _by_hunks(a, b, escapes)
    inner = [
        replace(f, sent_start=f.sent_start + lead, sent_end=f.sent_end + lead)
        for f in _by_hunks(a[lead:end], b, escapes)
    ]
    out: list[Finding] = []
    if lead:
        out.append(_strip_finding(("whitespace.strip", "leading"), 0, lead, 0))
    out.extend(inner)
    if end < len(a):
        gone = a[end:]
        kind = ("whitespace.strip", "trailing")
        if not lead and gone in LINE_BREAKS:
            kind = ("newline.final_removed", "")
        elif (
            not lead
            and set(gone) <= _LINE_BLANKS
            and any(k == "whitespace.line_strip" for f in inner for k, _ in f.kinds)
        ):
            kind = ("whitespace.line_strip", "")
        out.append(_strip_finding(kind, end, len(a), len(b)))
    return out


_LINE_BLANKS = frozenset(
    " \t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u3000"
)


def _strip_finding(kind: tuple[str, str], s0: int, s1: int, r: int) -> Finding:
    return Finding(
        kinds=(kind,),
        sent_start=s0,
        sent_end=s1,
        received_start=r,
        received_end=r,
        explained=True,
    )


def _whole_value(a: str, b: str, escapes: bool, ws: list[Window]) -> list[Finding] | None:
    """Findings when one rewrite of the whole value (or two composed) gives ``b``.

    The fallback for dense rewrites, where alignment finds no anchors (every line's CRLF
    became LF, every letter changed case, a value misread in another codec) or aligns
    the output of a rewrite with look-alike sent characters: each rule's concrete
    rewrites run on the whole of ``a``; a result that ``b`` is a truncation of counts
    too (a value misread in another codec and cut). In a long value, a rewrite runs on
    the whole only when it fits the windows around the unexplained findings (``ws``).
    """
    ctx = Context(escapes=escapes)
    small = len(a) + len(b) <= _WHOLE_COMPOSE_MAX
    outs: list[tuple[str, str, str]] = []
    for rule in RULES:
        if ws:
            rewrites = [
                (out, detail)
                for detail in _fitting(rule, a, b, ws, ctx)
                for out in rewrite_as(rule, detail, a, ctx)
            ]
        elif rule.src is not None and rule.src.search(a) is None:
            continue
        else:
            rewrites = whole_rewrites(rule, a, b, ctx)
        for out, detail in rewrites:
            if out == b:
                return [_whole(rule.kind, detail, a, b)]
            if out != a:
                outs.append((rule.kind, out, detail))
        if small and rule.gate(a, b):
            replayed = rule.match(a, b, ctx)
            if replayed is not None:
                return [_whole(rule.kind, replayed, a, b)]
    for kind, out, detail in outs:
        found = _truncated_output(a, b, (kind, detail), out, escapes=escapes)
        if found is not None:
            return found
    if not small:
        return None
    for kind, mid, detail in outs:
        for second in RULES:
            if (kind, second.kind) in _INVERSES or not second.gate(mid, b):
                continue
            for out, detail2 in second.apply(mid, ctx):
                if out == b:
                    f = _whole(kind, detail, a, b)
                    return [replace(f, kinds=((kind, detail), (second.kind, detail2)))]
    return None


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


def _dense(a: str, b: str, escapes: bool) -> list[Finding] | None:
    """One rewrite of a large value everywhere, recognised before aligning it.

    Aligning a value whose every line changed finds no anchor and costs the diff's
    whole time limit; a rule whose rewrite of the first KiB is how ``b`` starts is
    replayed on the whole value first.
    """
    ctx = Context(escapes=escapes)
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
                    return [_whole(rule.kind, detail, a, b)]
    return None


def _truncated_output(
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
            kinds=(("truncate", _truncate_detail(a, lo, residue, escapes)),),
            sent_start=lo,
            sent_end=len(a),
            received_start=len(head),
            received_end=len(b),
            explained=True,
        ),
    ]


def _bom(kind: str, s0: int, s1: int, r0: int, r1: int) -> Finding:
    return Finding(
        kinds=((kind, ""),),
        sent_start=s0,
        sent_end=s1,
        received_start=r0,
        received_end=r1,
        explained=True,
    )


def _by_hunks(a: str, b: str, escapes: bool) -> list[Finding]:
    hs = hunks(a, b)
    clf = _Classifier(a, b, escapes)
    head: list[Finding] = []
    tail: list[Finding] = []
    lo, hi = 0, len(a)
    if hs:
        i, ie, j, je = hs[-1]
        if ie == len(a) and je == len(b):
            kind = _tail_kind(a, b, i, j, escapes)
            if kind is not None and kind[0] == "truncate" and _rule_explains_tail(clf, hs):
                kind = None
            tail_kinds = (kind,) if kind is not None else _cut_then_newline(clf, hs, escapes)
            if tail_kinds:
                tail.append(
                    Finding(
                        kinds=tail_kinds,
                        sent_start=i,
                        sent_end=ie,
                        received_start=j,
                        received_end=je,
                        explained=True,
                    )
                )
                hs.pop()
                hi = i
    if hs:
        i, ie, j, je = hs[0]
        if i == 0 and j == 0 and je == 0 and ie < len(a):
            seg = a[:ie]
            kind2: tuple[str, str] | None = None
            # A strip leaves no leading whitespace, unless only spaces were stripped
            # (``strip(" ")``): "\r\nx" -> "\nx" is a CRLF losing its CR, not a strip.
            if seg.isspace() and (
                not a[ie : ie + 1].isspace() or (set(seg) <= {" "} and a[ie] != " ")
            ):
                kind2 = ("whitespace.strip", "leading")
            elif seg[-1] in "/\\" and not any(c in "/\\" for c in a[ie:]):
                kind2 = ("path.basename", "")
            if kind2 is not None:
                head.append(
                    Finding(
                        kinds=(kind2,),
                        sent_start=0,
                        sent_end=ie,
                        received_start=0,
                        received_end=0,
                        explained=True,
                    )
                )
                hs.pop(0)
                lo = ie
    hs = _widen(a, b, hs, lo, hi)
    body = _classify_hunks(clf, hs, lo=lo, hi=hi)
    if any(not f.explained for f in body):
        # The tail (a strip, a final line break) may be part of the region realigned.
        both = _realigned(clf, body + tail, lo=lo, hi=len(a))
        tail = [f for f in both if any(f is t for t in tail)]
        body = [f for f in both if not any(f is t for t in tail)]
    body = _tab_stops(clf, _unify(clf, body))
    if tail and tail[0].kinds[0][0] == "truncate" and any(not f.explained for f in body):
        f = tail[0]
        if f.sent_end - f.sent_start <= _TRUNCATED_RESIDUE:
            # A few characters lost at the end, while the same chain lost or garbled
            # others inside: the end went the same way, nothing says it was a cut.
            tail = [replace(f, kinds=(), explained=False)]
    if any(not f.explained for f in body):
        whole = _as_one(clf, lo)
        if whole is not None:
            return [*head, whole]
    return head + _fewest_kinds(clf, body + tail, lo)


def _kind_count(findings: list[Finding]) -> int:
    return len({kind for f in findings for kind, _ in f.kinds})


def _fewest_kinds(clf: _Classifier, findings: list[Finding], lo: int) -> list[Finding]:
    """The hunks' findings, or the span they cover as one finding if it needs fewer kinds.

    Runs of similar characters align in several equally short ways (``\r\n\r\r`` ->
    ``\n\n\n`` pairs a CRLF with two LFs); the pairing the diff picked may need more, or
    odder, kinds than the rewrite that was applied. Among the explanations, the one
    with the fewest kinds wins.
    """
    if len(findings) < 2 or _kind_count(findings) < 2:
        return findings
    if findings[-1].sent_end - findings[0].sent_start > _AS_ONE_MAX:
        return findings
    whole = _as_one(clf, lo)
    if whole is not None and _kind_count([whole]) < _kind_count(findings):
        return [whole]
    return findings


def _as_one(clf: _Classifier, lo: int) -> Finding | None:
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
    ((i, ie, j, je),) = _widen(a, b, [(i, ie, j, je)], 0, len(a))
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


def _cut_then_newline(
    clf: _Classifier, hs: list[Hunk], escapes: bool
) -> tuple[tuple[str, str], ...]:
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
    kind = _tail_kind(a, b[: je - len(nl)], i, j, escapes)
    if kind is None or kind[0] not in ("truncate", "whitespace.strip"):
        return ()
    floor = hs[-2][1] if len(hs) > 1 else 0
    if clf.hunk(hs[-1], floor, ie)[0]:
        return ()
    return (kind, ("newline.final_added", ""))


def _rule_explains_tail(clf: _Classifier, hs: list[Hunk]) -> bool:
    """True when a short tail is a rule's work (a removed control, ``%E9`` -> U+FFFD)."""
    i, ie, j, je = hs[-1]
    if je - j > 1 or ie - i > _TRUNCATED_RESIDUE:
        return False
    floor = hs[-2][1] if len(hs) > 1 else 0
    kinds, _, _ = clf.hunk(hs[-1], floor, ie)
    return bool(kinds)


def _unify(clf: _Classifier, findings: list[Finding]) -> list[Finding]:
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


def _tab_stops(clf: _Classifier, findings: list[Finding]) -> list[Finding]:
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


def _classify_hunks(clf: _Classifier, hs: list[Hunk], *, lo: int, hi: int) -> list[Finding]:
    out: list[Finding] = []
    k = 0
    while k < len(hs):
        h = hs[k]
        floor = out[-1].sent_end if out else lo
        ceil = hs[k + 1][0] if k + 1 < len(hs) else hi
        kinds, lc, rc = clf.hunk(h, floor, ceil)
        if not kinds and k + 1 < len(hs) and hs[k + 1][0] - h[1] <= _MERGE_GAP:
            nxt = hs[k + 1]
            merged = (h[0], nxt[1], h[2], nxt[3])
            ceil2 = hs[k + 2][0] if k + 2 < len(hs) else hi
            kinds2, lc2, rc2 = clf.hunk(merged, floor, ceil2)
            if kinds2:
                h, kinds, lc, rc = merged, kinds2, lc2, rc2
                k += 1
        if not kinds and out and h[0] - floor <= _MERGE_GAP:
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


def _realigned(clf: _Classifier, findings: list[Finding], *, lo: int, hi: int) -> list[Finding]:
    """Each unknown finding and its close neighbours, realigned by the rules' tokens.

    A run of repeated or look-alike characters aligns in several ways of equal cost,
    and the diff's choice may leave edits no kind explains (a tab that survived paired
    with the tab that became a space). The region around an unknown finding, with its
    neighbours closer than ``_MERGE_GAP`` and a little equal text on each side, is
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
    if right.sent_start - left.sent_end > _MERGE_GAP:
        return False
    start = min(left.sent_start, other_end.sent_start)
    end = max(right.sent_end, other_end.sent_end)
    return end - start <= _REALIGN_MAX


def _realign_region(
    clf: _Classifier, first: Finding, last: Finding, floor: int, ceil: int
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
    hs = _widen(a, b, [(i + x0, ie + x0, j + y0, je + y0) for i, ie, j, je in found], x0, x1)
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
