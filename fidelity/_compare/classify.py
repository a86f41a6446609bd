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
``unknown``. The value's findings are then named with the smallest set of kinds that
replays them all (:mod:`fidelity._compare.fewest`). Stripped ends are recognised by
their neighbours, or, when a rewrite changed the character next to them, by classifying
the inside alone. What stays unknown is last tried as one rewrite of the whole value
(then stripped, or cut), or the received value read in another codec; in a long value
such a rewrite is first tried on windows around the unknown regions
(:mod:`fidelity._compare.windows`). This module holds the value's stages; the hunks'
are in :mod:`fidelity._compare.by_hunks`.
"""

from __future__ import annotations

import json
from dataclasses import replace

from fidelity._compare.by_hunks import by_hunks
from fidelity._compare.coerce import rendered_coercion
from fidelity._compare.finding import (
    Finding,
    bom_finding,
    kind_count,
    strip_finding,
    unexplained,
    whole_finding,
)
from fidelity._compare.rules import (
    LINE_BREAKS,
    RULES_BY_KIND,
    Context,
    reread,
    reread_codecs,
)
from fidelity._compare.rules.encoding import DROPPING_CODECS
from fidelity._compare.rules.normpath import normalization
from fidelity._compare.shell_words import shell_words
from fidelity._compare.tails import tail_kind
from fidelity._compare.whole_value import dense, whole_value
from fidelity._compare.windows import Window, windows

__all__ = ["Finding", "classify"]


_STRIP_COMPOSED_MAX = 1 << 14  # longest value whose inside is classified apart from its ends
_DENSE_MIN = 1 << 14  # values this long are first tried as one rewrite everywhere


_WINDOWED_MIN = 1 << 14  # values this long try a whole-value rewrite on windows first


_READING_SAMPLE = 1 << 16  # code points whose characters rank the readings of a value


def _value_wide(a: str, b: str, escapes: bool) -> list[Finding] | None:
    """Findings when the whole difference is one value-wide rewrite, else None."""
    if len(a) <= 64 and "\n" not in a and a.strip() != b and not escapes:
        detail = rendered_coercion(a, b)
        if detail is not None:
            return [whole_finding("type.coerced", detail, a, b)]
    path = _normalized_path(a, b)
    if path is not None:
        return [path]
    if len(b) < len(a) and a.startswith(b):
        kind = tail_kind(a, b, len(b), len(b), escapes)
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
    if _leading_break(a, b):
        return [strip_finding(LEADING_BREAK, 0, len(a) - len(b), 0)]
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
                return [whole_finding("escape.json", "json.dumps, quoted", a, b)]
    return None


def _normalized_path(a: str, b: str) -> Finding | None:
    """The differing span as ``path.normalized`` when ``b`` is ``a`` normalised as a path.

    ``os.path.normpath`` or ``pathlib`` on the whole value: a trailing ``/`` dropped is no
    cut, ``x//y/./z`` -> ``x/y/z`` is one normalisation, not three edits.
    """
    detail = normalization(a, b)
    if detail is None:
        return None
    head = 0
    while head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return Finding(
        kinds=(("path.normalized", detail),),
        sent_start=head,
        sent_end=len(a) - tail,
        received_start=head,
        received_end=len(b) - tail,
        explained=True,
    )


#: One line break dropped at the start of the value, as an HTML parser drops the line
#: feed right after ``<pre>``, ``<textarea>`` or ``<listing>``: the closest kind is a
#: strip of the leading whitespace, with this detail (the hint says what it is).
LEADING_BREAK = ("whitespace.strip", "leading line break")


def _leading_break(a: str, b: str) -> bool:
    """True when ``b`` is ``a`` without its first line break and nothing else changed.

    A value of line breaks only keeps its reading as a final line break removed.
    """
    if not a or a[0] not in "\r\n" or not b.strip():
        return False
    k = 2 if a.startswith("\r\n") else 1
    return a[k:] == b


def classify(a: str, b: str, *, escapes: bool = False, reread: bool = True) -> list[Finding]:
    """Findings that account for every difference between ``a`` (sent) and ``b``."""
    if a.startswith("\ufeff") and not b.startswith("\ufeff"):
        bom = bom_finding("bom.removed", 0, 1, 0, 0)
    elif b.startswith("\ufeff") and not a.startswith("\ufeff"):
        bom = bom_finding("bom.added", 0, 0, 0, 1)
    else:
        return _classify(a, b, escapes, None, reread=reread)
    split = _classify(a, b, escapes, bom, reread=False)
    if all(f.explained for f in split):
        if "\ufeff" not in (a if bom.received_end else b):
            return _bom_as_invisible(a, b, split)
        # A U+FEFF on both sides may be the same character, moved by a rewrite around
        # it (a leading NBSP stripped): the reading with fewer kinds wins.
        whole = _classify(a, b, escapes, None, reread=False)
        if all(f.explained for f in whole) and kind_count(whole) < kind_count(split):
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
    return whole if unexplained(whole) < unexplained(split) else split


def _bom_as_invisible(a: str, b: str, findings: list[Finding]) -> list[Finding]:
    """A leading U+FEFF removed by what removed characters elsewhere in the value too.

    A sanitiser that deletes format characters (category Cf), or an encoder that drops
    what it cannot carry, deletes a leading U+FEFF with the rest: when a kind found
    elsewhere in the value replays its removal, ``bom.removed`` is one kind too many
    (the fewest kinds that replay win).
    """
    first = findings[0]
    if first.kinds != (("bom.removed", ""),):
        return findings
    ctx = Context(sent=a, value=b, start=0)
    for kind, detail in dict.fromkeys(k for f in findings[1:] for k in f.kinds):
        rule = RULES_BY_KIND.get(kind)
        if (
            rule is not None
            and rule.gate("\ufeff", "")
            and rule.match("\ufeff", "", ctx) is not None
        ):
            return [replace(first, kinds=((kind, detail),)), *findings[1:]]
    return findings


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
        wide = dense(core_a, core_b, escapes)
    if wide is None:
        wide = _stripped(core_a, core_b, escapes)
    if any(not f.explained for f in wide) and not escapes:
        words = shell_words(core_a, core_b, _inside)
        if words is not None:
            wide = words
    if any(not f.explained for f in wide):
        ws = _windows(core_a, core_b, wide)
        whole = whole_value(core_a, core_b, escapes, ws)
        if whole is None and reread:
            whole = _reread(core_a, core_b, escapes, ws) or _wrapped(core_a, core_b, escapes)
        if whole is not None:
            wide = whole
    for f in _one_name(_dropping_codec(core_a, core_b, wide)):
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


def _inside(a: str, b: str) -> list[Finding]:
    """A part of the value (a shell word) classified on its own."""
    return classify(a, b, reread=False)


def _one_name(findings: list[Finding]) -> list[Finding]:
    """No kind that another kind of the same value already explains by replay.

    A strip removes a final line break too: ``" a\\n"`` -> ``"A"`` names the leading
    blank and the line break as one ``whitespace.strip``, not a strip and a
    ``newline.final_removed``.
    """
    if not any(k == "whitespace.strip" for f in findings for k, _ in f.kinds):
        return findings
    return [
        replace(f, kinds=(("whitespace.strip", "trailing"),))
        if f.kinds == (("newline.final_removed", ""),)
        else f
        for f in findings
    ]


_DROPPED = "encoding.dropped"


def _dropping_codec(a: str, b: str, findings: list[Finding]) -> list[Finding]:
    """Characters dropped by an encoder, named with one codec that fits the whole value.

    Each hunk names the narrowest codec that drops its characters (``ascii`` for an
    emoji alone); an encoder that kept ``€`` elsewhere in the value was not ASCII: the
    first codec that carries every character the value kept unchanged, and drops what
    each such finding lost, is named for all of them. When none does (an emoji dropped
    here and kept there), no encoder did it: those findings are unknown.
    """
    drops = [n for n, f in enumerate(findings) if any(k == _DROPPED for k, _ in f.kinds)]
    if not drops:
        return findings
    kept: set[str] = set()
    start = 0
    for f in sorted(findings, key=lambda f: f.received_start):
        kept.update(b[start : f.received_start])
        start = max(start, f.received_end)
    kept.update(b[start:])
    wide = "".join(c for c in kept if c >= "\x80")
    for codec in DROPPING_CODECS:
        if not _carries(wide, codec):
            continue
        if all(_drops(a, b, findings[n], codec) for n in drops if len(findings[n].kinds) == 1):
            out = list(findings)
            for n in drops:
                if len(findings[n].kinds) == 1:
                    out[n] = replace(findings[n], kinds=((_DROPPED, codec),))
                elif not all(_carries(wide, d) for k, d in findings[n].kinds if k == _DROPPED):
                    out[n] = replace(findings[n], kinds=(), explained=False)
            return out
    out = list(findings)
    for n in drops:
        out[n] = replace(findings[n], kinds=(), explained=False)
    return out


def _carries(text: str, codec: str) -> bool:
    return text.encode(codec, "ignore").decode(codec) == text


def _drops(a: str, b: str, f: Finding, codec: str) -> bool:
    sent = a[f.sent_start : f.sent_end]
    return sent.encode(codec, "ignore").decode(codec) == b[f.received_start : f.received_end]


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
        return [replace(whole_finding(*kinds[0], a, b), kinds=tuple(kinds))]
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
    lead, end = _stripped_ends(a, b)
    composed = _strip_composed(a, b, escapes, lead, end)
    if composed is not None:
        return composed
    if not lead and end == len(a):
        return by_hunks(a, b, escapes)
    return _strip_and_inside(a, b, escapes, lead, end)


def _strip_composed(a: str, b: str, escapes: bool, lead0: int, end0: int) -> list[Finding] | None:
    """Findings when ``a``'s ends were stripped after (or before) a rewrite of its edges.

    ``normalize("NFC", v).strip()`` turns ``e U+0301 SPACE`` into ``é``: the received
    value does not end with the character before the stripped blanks, so the ends are
    not recognised by their neighbours (``lead0`` and ``end0`` are where they were, at
    one end or none); when ``b`` has no blank end where ``a`` has one, the inside is
    classified alone, and kept when every edit of it replays without a cut (a cut of
    the inside with a strip is one kind too many: a cut alone says it). ``" x E\t"``
    lower-cased and collapsed is a strip of both ends, though only the leading one
    keeps its neighbour.
    """
    if not b or len(a) > _STRIP_COMPOSED_MAX:
        return None
    lead = 0
    if not _is_blank(b[0]):
        while lead < len(a) and _is_blank(a[lead]):
            lead += 1
    end = len(a)
    if not _is_blank(b[-1]):
        while end > lead and _is_blank(a[end - 1]):
            end -= 1
    if (lead, end) == (lead0, end0) or (not lead and end == len(a)) or end == lead:
        return None
    found = _strip_and_inside(a, b, escapes, lead, end)
    if not all(f.explained and f.kinds[0][0] != "truncate" for f in found):
        return None
    if kind_count(found) > 1:
        # A cut inside a cluster (``a U+0301 SPACE`` -> ``a``) is one kind, not a
        # diacritic dropped and a strip: the fewest kinds win.
        if not lead0 and end0 == len(a):
            other = by_hunks(a, b, escapes)
        else:
            other = _strip_and_inside(a, b, escapes, lead0, end0)
        if all(f.explained for f in other) and kind_count(other) < kind_count(found):
            return other
    return found


def _strip_and_inside(a: str, b: str, escapes: bool, lead: int, end: int) -> list[Finding]:
    """The strip of ``a[:lead]`` and ``a[end:]``, and the findings of the inside."""
    inner = [
        replace(f, sent_start=f.sent_start + lead, sent_end=f.sent_end + lead)
        for f in by_hunks(a[lead:end], b, escapes)
    ]
    out: list[Finding] = []
    if lead:
        out.append(strip_finding(("whitespace.strip", "leading"), 0, lead, 0))
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
        out.append(strip_finding(kind, end, len(a), len(b)))
    return out


def _stripped_ends(a: str, b: str) -> tuple[int, int]:
    """Where the inside of ``a`` starts and ends when ``b`` looks like its ends stripped."""
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
    return lead, end


_LINE_BLANKS = frozenset(
    " \t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u3000"
)
