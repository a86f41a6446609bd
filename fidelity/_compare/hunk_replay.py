"""The rules offered to one hunk: alone, with a little context, then two composed.

A rule is kept only when its replay on the sent segment reproduces the received one;
verdicts are remembered for edits that repeat.
"""

from __future__ import annotations

from fidelity._compare.diff import Hunk
from fidelity._compare.finding import Finding
from fidelity._compare.rules import RULES, RULES_BY_KIND, TAB_BY_EIGHT, Context, Rule
from fidelity._compare.rules.encoding import DROPPING_CODECS, drop_unencodable

__all__ = ["INVERSES", "Classifier", "adds_foreign", "erases", "then_dropped"]

_CONTEXTS = ((0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (4, 4), (8, 8))


_COMPOSE_CONTEXTS = ((0, 0), (1, 1))


_CONTEXT_MAX = 8


_COMPOSE_MAX = 256  # longest segment (code points) tried with two composed rules


_COMPOSE_BUDGET = 400  # composition attempts per comparison (unrelated texts stay fast)


_REALIGN_STATES = 1 << 16  # states realignments may take per comparison, and as many


_REALIGN_PER_CHAR = 16  # more per code point of sent text (the work stays linear)


# Rewrites whose output is never rewritten again in a way worth naming.
_LOSSY = frozenset(("encoding.replacement", "encoding.question_mark"))


_DROPPED = "encoding.dropped"


_BEFORE_DROPPING = ("unicode.", "whitespace.")


_MATCH_MAX = 1 << 16  # longest segment offered to the token-by-token replay


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
    ("escape.markdown", "unescape.backslash"),
    # Curly quotes straightened, then removed as a quoted string's quotes: a chain that
    # deleted the quotes (a file name sanitizer) is not what either rule does.
    ("quote.straighten", "unescape.backslash"),
    ("path.backslash_to_slash", "path.slash_to_backslash"),
    ("newline.crlf_to_lf", "newline.lf_to_crlf"),
    # CRs deleted (``\r\r\n`` -> ``\n``) read as a CR become LF next to a deleted CRLF:
    # a conversion and a deletion of breaks that the deletion of the CRs alone, with a
    # CRLF become LF, says as it happened.
    ("newline.cr_to_lf", "newline.removed"),
    # Likewise a separator (U+2028, NEL) that became LF next to a deleted LF: the
    # separator itself vanished.
    ("newline.separator_to_lf", "newline.removed"),
)


INVERSES = frozenset(_OPPOSITES) | frozenset((b, a) for a, b in _OPPOSITES)


def adds_foreign(sent: str, mid: str, received: str) -> bool:
    """True when a first rewrite (``sent`` -> ``mid``) wrote characters ``received`` lacks.

    A composition whose first step writes what the second removes again (a CR added
    by ``newline.lf_to_crlf`` and turned into LF) explains less than one that does not.
    """
    return any(c not in sent and c not in received for c in set(mid))


def erases(sent: str, mid: str, received: str) -> bool:
    """True when a second rewrite (``mid`` -> ``received``) erased the whole product of a
    first one (``sent`` -> ``mid``): it only deleted, and every character the first
    wrote is gone again.

    Such a pair names a kind whose work nobody can see (a tab "wrapped" into a line
    break that is then deleted, a CR "turned into a space" that a line strip removes):
    the kinds specification never reports it.
    """
    new = set(mid).difference(sent)
    if not new or not new.isdisjoint(received):
        return False
    # Deleted, not rewritten again (``É`` folded to ``E`` and lower-cased is still seen).
    rest = iter(mid)
    return all(c in rest for c in received)


_VARIANTS_MAX = 8  # longest segment whose token-by-token rewrites are all tried first
_VARIANTS = 16  # token-by-token rewrites of one segment tried as a first step


def _mids(rule: Rule, s: str, ctx: Context) -> list[tuple[str, str]]:
    """What a first step of ``rule`` may make of ``s``: its rewrites of the whole segment,
    then, for a short one, every choice of its tokens' outputs (a straight quote
    educated as an opening or a closing one, whichever the context made it)."""
    out = list(rule.apply(s, ctx))
    # An encoder drops every character its codec cannot carry, never a choice of them.
    if rule.alts is None or len(s) > _VARIANTS_MAX or rule.kind == _DROPPED:
        return out
    seen = {o for o, _ in out}
    detail = out[0][1] if out else ""
    partial = [("", 0)]
    while partial:
        text, i = partial.pop()
        if i == len(s):
            if text not in seen:
                seen.add(text)
                out.append((text, detail))
            continue
        options = [(1, s[i]), *rule.alts(s, i, "", 0, ctx)]
        for length, rep in options:
            if length >= 1 and len(seen) + len(partial) < _VARIANTS:
                partial.append((text + rep, i + length))
    return out


def then_dropped(
    s: str, r: str, ctx: Context, rules: tuple[Rule, ...] = RULES
) -> tuple[tuple[str, str], ...] | None:
    """Two rewrites, then an encoder that drops what it cannot carry (``errors='ignore'``).

    The "remove accents" recipe (NFKD, then ``encode('ascii', 'ignore')``) followed by
    ``lower()`` is three rewrites in one hunk: ``Ã©`` -> ``a``. The encoder comes last,
    so only its codec's characters may remain.
    """
    # Only the steps such recipes take before the encoder: forms, case and blanks.
    rules = tuple(rule for rule in rules if rule.kind.startswith(_BEFORE_DROPPING))
    for codec in DROPPING_CODECS:
        if not _carries(r, codec) or _carries(s, codec):
            continue
        for first in rules:
            if not _reads(first, s):
                continue
            for mid, detail1 in first.apply(s, ctx):
                if mid == s:
                    continue
                for second in rules:
                    if second is first or (first.kind, second.kind) in INVERSES:
                        continue
                    if not _reads(second, mid):
                        continue
                    for out, detail2 in second.apply(mid, ctx):
                        if out == mid or drop_unencodable(out, codec) != r:
                            continue
                        # The encoder must not drop what the two steps wrote.
                        if not adds_foreign(s, out, r):
                            return (
                                (first.kind, detail1),
                                (second.kind, detail2),
                                (_DROPPED, codec),
                            )
    return None


def _reads(rule: Rule, s: str) -> bool:
    """True when ``rule``'s gate on the sent side lets ``s`` through."""
    return rule.src is None or rule.src.search(s) is not None


def _carries(text: str, codec: str) -> bool:
    return drop_unencodable(text, codec) == text


def _run_context(
    a: str, i: int, core_s: str, core_r: str, left: int
) -> tuple[tuple[int, int], ...]:
    """The run a pure insertion of its own character extends, as left context.

    ``\\\\'`` -> ``\\\\\\\\'``: the diff inserts the two new backslashes after the run,
    and one character of context each side would read ``\\'`` -> ``\\\\\\'`` as JSON escaping;
    the whole run on the left shows each backslash doubled.
    """
    if core_s or not core_r or i == 0 or core_r.strip(a[i - 1]):
        return ()
    run = 1
    while run < left and a[i - run - 1] == a[i - 1]:
        run += 1
    return ((run, 0),) if run > 1 else ()


class Classifier:
    """Classifies the hunks of one pair; remembers verdicts for repeated edits."""

    def __init__(self, a: str, b: str, escapes: bool) -> None:
        self.a = a
        self.b = b
        self.escapes = escapes
        self.cache: dict[tuple[object, ...], tuple[tuple[tuple[str, str], ...], int, int]] = {}
        self.verdicts: dict[tuple[object, ...], str | None] = {}
        self.contexts: dict[int, Context] = {}
        self.compose_budget = _COMPOSE_BUDGET
        self.realign_budget = _REALIGN_STATES + _REALIGN_PER_CHAR * len(a)

    def _context(self, j: int) -> Context:
        ctx = self.contexts.get(j)
        if ctx is None:
            line_start = self.b.rfind("\n", 0, j) + 1
            line_start = self.b.rfind("\r", line_start, j) + 1 or line_start
            ctx = self.contexts[j] = Context(
                column=j - line_start, escapes=self.escapes, sent=self.a, value=self.b, start=j
            )
        return ctx

    def _ends(self, j: int, je: int) -> tuple[bool, bool]:
        """Whether the received segment ``b[j:je]`` starts and ends the value."""
        return j == 0, je == len(self.b)

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
        key = (kind, s, r, column, self._ends(f.received_start, f.received_end))
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
            for mid, detail1 in _mids(first, s, ctx):
                if mid in (s, r):
                    continue
                for second in RULES:
                    if (
                        second is first
                        or (first.kind, second.kind) in INVERSES
                        or not second.gate(mid, r)
                    ):
                        continue
                    detail2 = second.match(mid, r, ctx)
                    if detail2 is None:
                        continue
                    found = ((first.kind, detail1), (second.kind, detail2))
                    if not adds_foreign(s, mid, r):
                        return found
                    # An encoder that drops what the first step wrote explains nothing,
                    # nor does any second step that erases all of it.
                    if fallback is None and second.kind != _DROPPED and not erases(s, mid, r):
                        fallback = found
        return fallback or then_dropped(s, r, ctx)

    def hunk(self, h: Hunk, floor: int, ceil: int) -> tuple[tuple[tuple[str, str], ...], int, int]:
        """Kinds for hunk ``h`` and the context (left, right) the replay needed."""
        a, b = self.a, self.b
        i, ie, j, je = h
        left = min(_CONTEXT_MAX, i - floor)
        right = min(_CONTEXT_MAX, ceil - ie)
        core_s, core_r = a[i:ie], b[j:je]
        column = self._context(j).column if "\t" in core_s else 0
        # A rewrite may treat the ends of the value apart (a sanitizer strips them).
        ends = self._ends(j, je)
        # A verdict on a tab holds at every column with the same remainder modulo 8,
        # unless it needed a rare tab stop (or found none): then at that column only.
        plain = (core_s, core_r, column % 8, ends)
        hit = self.cache.get(plain)
        if hit is not None:
            return hit
        exact = (core_s, core_r, column, ends)
        hit = self.cache.get(exact)
        if hit is not None:
            return hit
        key = (a[i - left : i], core_s, core_r, a[ie : ie + right], column, ends)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        result: tuple[tuple[tuple[str, str], ...], int, int] = ((), 0, 0)
        if len(core_s) + len(core_r) > _MATCH_MAX:
            return result  # too long to replay token by token, with or without context
        # A rule whose gate fails with the widest context fails with every narrower one.
        widest = (a[i - left : ie + right], b[j - left : je + right])
        rules = tuple(rule for rule in RULES if rule.gate(*widest))
        for lc, rc in _run_context(a, i, core_s, core_r, left) + _CONTEXTS:
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
