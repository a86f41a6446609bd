"""Realignment by replay: a region's differences as tokens that the rules rewrite.

A minimal diff pairs equal characters wherever it can, and among the alignments of
equal cost it picks one without knowing what chains do: in ``\\t\\tas`` -> `` \\tAS``
the tab that survived can be paired with the first tab, which leaves edits no kind
explains. The rules know which tokens they rewrite into what (``Rule.alts``): this
module aligns a region token by token, each sent token either copied or replaced by an
output some rule gives it, and returns the rewritten tokens as hunks, one per run of
tokens the same rule rewrote. The classifier verifies each hunk by replay as usual;
the alignment only says which characters go together.
"""

from __future__ import annotations

from collections.abc import Sequence

from fidelity._compare.diff import Hunk
from fidelity._compare.rules import Context, Rule

__all__ = ["realign"]

_COPY = -1
_STATES_PER_CHAR = 16  # reachable received positions kept per sent position, on average


def realign(
    sent: str, received: str, rules: Sequence[Rule], ctx: Context, *, limit: int
) -> tuple[list[Hunk] | None, int]:
    """Hunks of an alignment of ``sent`` with ``received`` made of the rules' tokens.

    Every sent token is copied or replaced by one of the outputs ``rules`` give it
    (``Rule.alts``); a copy is preferred where both reach the same place. The hunks are
    None when no such alignment covers both texts exactly, or when finding one would
    take more than ``limit`` states (positions reached); the second value is the number
    of states the search took.
    """
    n, m = len(sent), len(received)
    alts = [(index, rule.alts) for index, rule in enumerate(rules) if rule.alts is not None]
    # back[i][j]: how position j of ``received`` was reached with i sent characters
    # consumed: (previous i, previous j, rule index or _COPY).
    back: list[dict[int, tuple[int, int, int]] | None] = [None] * (n + 1)
    back[0] = {0: (0, 0, _COPY)}
    budget = limit = min(limit, _STATES_PER_CHAR * (n + 1))
    for i in range(n):
        states = back[i]
        if not states:
            continue
        ch = sent[i]
        for j in list(states):
            if j < m and received[j] == ch:
                nxt = back[i + 1]
                if nxt is None:
                    back[i + 1] = nxt = {}
                if j + 1 not in nxt:
                    nxt[j + 1] = (i, j, _COPY)
                    budget -= 1
            for index, offer in alts:
                for length, rep in offer(sent, i, received, j, ctx):
                    if length < 1 or not received.startswith(rep, j):
                        continue
                    k, jj = i + length, j + len(rep)
                    target = back[k]
                    if target is None:
                        back[k] = target = {}
                    if jj not in target:
                        same = rep == sent[i:k]
                        target[jj] = (i, j, _COPY if same else index)
                        budget -= 1
        if budget < 0:
            return None, limit - budget
    used = limit - budget
    final = back[n]
    if final is None or m not in final:
        return None, used
    return _hunks(back, n, m), used


def _hunks(back: list[dict[int, tuple[int, int, int]] | None], n: int, m: int) -> list[Hunk]:
    """The hunks of the alignment ``back`` reached: consecutive tokens of a rule joined."""
    steps: list[tuple[int, int, int, int, int]] = []
    i, j = n, m
    while i > 0:
        states = back[i]
        assert states is not None
        pi, pj, how = states[j]
        steps.append((pi, i, pj, j, how))
        i, j = pi, pj
    steps.reverse()
    out: list[Hunk] = []
    last_rule = _COPY
    for i0, i1, j0, j1, how in steps:
        if how == _COPY:
            last_rule = _COPY
            continue
        if how == last_rule and out and out[-1][1] == i0 and out[-1][3] == j0:
            out[-1] = (out[-1][0], i1, out[-1][2], j1)
        else:
            out.append((i0, i1, j0, j1))
        last_rule = how
    return out
