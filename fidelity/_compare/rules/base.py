"""What a rule is: a kind's gates, replay check and concrete rewrite functions.

Each kind is a :class:`Rule` with two faces of the same rewrite:

``apply(text, ctx)``
    concrete rewrite functions (``unicodedata.normalize``, ``str.lower``, a codec
    round trip, ``html.escape``...), each with the ``detail`` it would report. These
    are what a chain does to a whole value, and what the classifier composes when one
    hunk holds two kinds.
``match(sent, received, ctx)``
    the replay check for a hunk: can ``received`` be produced from ``sent`` by this
    rewrite? Token rules answer with :func:`token_match`, which replays the rewrite
    token by token (each source token either kept or replaced by one of the outputs
    the rewrite gives it), so a chain that rewrote only some of the candidates (a
    smart-quote library that curls one quote and keeps a prime) is still recognised.
    It returns the ``detail`` to report, or ``None`` when the replay cannot reproduce
    ``received``.

``src``/``dst`` are cheap gates (compiled character classes) that the sent and the
received segment must pass before ``match`` is tried. ``alts``, when the rewrite works
token by token, offers each token's outputs: the classifier uses it to realign a region
the diff paired the wrong way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Alternatives",
    "Applier",
    "Context",
    "Matcher",
    "Rule",
    "alts_rule",
    "char_class",
    "function_rule",
    "table_rule",
    "token_match",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Where a segment sits: what a rewrite may need to know beyond the segment."""

    #: Column (in code points) of the received segment's first character on its line.
    column: int = 0
    #: The received text was bytes that are not UTF-8 (it holds escape code points).
    escapes: bool = False
    #: The whole sent value, when the segment is part of it or a rewrite of it (None: the
    #: segment is the whole value, as sent); a rewrite that only some values can come
    #: from reads it.
    sent: str | None = None
    #: The whole received value, when the segment is part of it (None: the segment is
    #: the whole value); a rewrite that treats the value's ends apart reads it.
    value: str | None = None
    #: Where the received segment starts in ``value``.
    start: int = 0


#: ``alts(sent, i, received, j)`` -> (length of the sent token at ``i``, replacement).
Alternatives = Callable[[str, int, str, int, Context], Iterable[tuple[int, str]]]
Applier = Callable[[str, Context], Iterable[tuple[str, str]]]
Matcher = Callable[[str, str, Context], str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One kind's rewrite: gates, replay check and concrete rewrite functions."""

    kind: str
    src: re.Pattern[str] | None
    dst: re.Pattern[str] | None
    match: Matcher
    apply: Applier
    #: The outputs the rewrite gives the token at a position, for rewrites that work
    #: token by token (None for those that only work on a whole segment).
    alts: Alternatives | None = None

    def gate(self, sent: str, received: str) -> bool:
        """Cheap test that the rule could apply to this pair at all."""
        if self.src is not None and self.src.search(sent) is None:
            return False
        return self.dst is None or self.dst.search(received) is not None


def token_match(sent: str, received: str, alts: Alternatives, ctx: Context) -> bool:
    """True when ``received`` is ``sent`` with at least one token rewritten by ``alts``.

    Each position of ``sent`` is either copied or, where ``alts`` offers a token, the
    token is replaced by one of its outputs; the search keeps every reachable position
    of ``received`` (a small set in practice), so ambiguous outputs (``--`` for an em
    dash or for an en dash) are followed both ways.
    """
    n, m = len(sent), len(received)
    reach: list[dict[int, bool] | None] = [None] * (n + 1)
    reach[0] = {0: False}
    for i in range(n):
        states = reach[i]
        if not states:
            continue
        ch = sent[i]
        # A token that consumes nothing of ``sent`` (an insertion) adds states at this
        # same position: a worklist, so they are followed too, each at most twice
        # (unchanged, then changed).
        pending = list(states.items())
        while pending:
            j, changed = pending.pop()
            if j < m and received[j] == ch:
                nxt = reach[i + 1]
                if nxt is None:
                    reach[i + 1] = {j + 1: changed}
                elif not nxt.get(j + 1, False):
                    nxt[j + 1] = changed
            for length, rep in alts(sent, i, received, j, ctx):
                if not received.startswith(rep, j):
                    continue
                k = i + length
                jj = j + len(rep)
                now = changed or rep != sent[i:k]
                target = reach[k]
                if target is None:
                    target = reach[k] = {}
                if jj not in target or (now and not target[jj]):
                    target[jj] = now
                    if k == i:
                        pending.append((jj, now))
    final = reach[n]
    return bool(final and final.get(m, False))


def _table_alts(table: dict[str, tuple[str, ...]]) -> Alternatives:
    keys_by_first: dict[str, list[str]] = {}
    for key in table:
        keys_by_first.setdefault(key[0], []).append(key)
    for keys in keys_by_first.values():
        keys.sort(key=len, reverse=True)

    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        keys = keys_by_first.get(s[i])
        if keys is None:
            return ()
        out: list[tuple[int, str]] = []
        for key in keys:
            if s.startswith(key, i):
                out.extend((len(key), rep) for rep in table[key])
        return out

    return alts


def _translate(table: dict[str, tuple[str, ...]]) -> Callable[[str], str]:
    singles = {k: v[0] for k, v in table.items() if len(k) == 1}
    multi = sorted((k for k in table if len(k) > 1), key=len, reverse=True)
    trans = str.maketrans(singles)

    def run(text: str) -> str:
        for key in multi:
            text = text.replace(key, table[key][0])
        return text.translate(trans)

    return run


def char_class(chars: Iterable[str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(c) for c in sorted(set(chars))) + "]")


def table_rule(
    kind: str,
    table: dict[str, tuple[str, ...]],
    *,
    apply: Applier | None = None,
    dst: re.Pattern[str] | None = None,
    detail: str = "",
) -> Rule:
    alts = _table_alts(table)
    run = _translate(table)

    def match(s: str, r: str, ctx: Context) -> str | None:
        return detail if token_match(s, r, alts, ctx) else None

    def default_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
        return ((run(s), detail),)

    if dst is None:
        outs = {c for reps in table.values() for rep in reps for c in rep}
        dst = (
            char_class(outs) if "" not in {rep for reps in table.values() for rep in reps} else None
        )
    return Rule(
        kind=kind,
        src=char_class(k[0] for k in table),
        dst=dst,
        match=match,
        apply=apply or default_apply,
        alts=alts,
    )


def alts_rule(
    kind: str,
    alts: Alternatives,
    apply: Applier,
    *,
    src: re.Pattern[str] | None,
    dst: re.Pattern[str] | None,
    detail: Callable[[str, str], str] | None = None,
) -> Rule:
    def match(s: str, r: str, ctx: Context) -> str | None:
        if not token_match(s, r, alts, ctx):
            return None
        return detail(s, r) if detail is not None else ""

    return Rule(kind=kind, src=src, dst=dst, match=match, apply=apply, alts=alts)


def function_rule(
    kind: str,
    functions: Sequence[tuple[str, Callable[[str], str]]],
    *,
    src: re.Pattern[str] | None = None,
    dst: re.Pattern[str] | None = None,
    alts: Alternatives | None = None,
) -> Rule:
    def match(s: str, r: str, ctx: Context) -> str | None:
        for detail, fn in functions:
            try:
                if fn(s) == r:
                    return detail
            except (UnicodeError, ValueError):
                continue
        return None

    def apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
        out = []
        for detail, fn in functions:
            try:
                out.append((fn(s), detail))
            except (UnicodeError, ValueError):
                continue
        return out

    return Rule(kind=kind, src=src, dst=dst, match=match, apply=apply, alts=alts)
