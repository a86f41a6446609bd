"""A value split into shell words and joined again (``shlex.join(shlex.split(v))``).

A chain that parses its input as a shell does and writes the words back quotes a word
with unsafe characters, drops the quotes and backslashes the sent text had, and
writes one space between words (a line break, a tab or a run of blanks). Aligned
character by character, the quotes of the two sides pair with the wrong characters;
aligned word by word, each rewrite replays on its own: the words are paired in order,
each named by the quoting it lost (``unescape.backslash``), the rewrite of the word
itself and the quoting it gained (``escape.shell``), each gap between words by the
whitespace kind that replays it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from fidelity._compare.finding import Finding
from fidelity._compare.rules import RULES_BY_KIND, Context
from fidelity._compare.rules.shell import STYLES

__all__ = ["shell_words"]

_SHELL_MAX = 1 << 17  # longest value (code points) split into words
_BLANKS = " \t\r\n"  # what separates words (``shlex``'s whitespace)
_NOT_SPACE = re.compile(r"\S+")
_GAP_KINDS = ("newline.to_space", "whitespace.to_space", "whitespace.collapse")

Word = tuple[int, int, str]  # start, end, the word a shell reads there
Kinds = tuple[tuple[str, str], ...]
#: How a word rewritten on its own is classified (the engine, given by the caller).
Inside = Callable[[str, str], list[Finding]]


def _words(text: str) -> list[Word] | None:
    """The words of ``text`` as ``shlex.split`` reads them, with where each was written."""
    out: list[Word] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _BLANKS:
            i += 1
            continue
        start, chars = i, []
        while i < n and text[i] not in _BLANKS:
            c = text[i]
            if c == "\\":
                if i + 1 == n:
                    return None
                chars.append(text[i + 1])
                i += 2
            elif c == "'":
                end = text.find("'", i + 1)
                if end == -1:
                    return None
                chars.append(text[i + 1 : end])
                i = end + 1
            elif c == '"':
                i += 1
                while i < n and text[i] != '"':
                    if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\':
                        i += 1
                    chars.append(text[i])
                    i += 1
                if i == n:
                    return None
                i += 1
            else:
                chars.append(c)
                i += 1
        out.append((start, i, "".join(chars)))
    return out


def _as_shlex(text: str, words: list[Word]) -> bool:
    """True when ``shlex.split`` reads the same words (the replay of the split itself)."""
    try:
        return shlex.split(text) == [w for _, _, w in words]
    except ValueError:
        return False


def _quoting(word: str, written: str) -> tuple[str, str] | None:
    """``escape.shell`` with its style when ``written`` is a quoting of ``word``."""
    for name, quote in STYLES:
        if quote(word) == written:
            return ("escape.shell", name)
    return None


def _word_kinds(
    raw_s: str, word: str, raw_r: str, got: str, inside: Inside
) -> list[tuple[str, str]] | None:
    """The kinds that replay ``raw_s`` (read as ``word``) into ``raw_r`` (read as ``got``)."""
    kinds: list[tuple[str, str]] = []
    if raw_s != word:
        kinds.append(("unescape.backslash", ""))
    quoted = _quoting(word, raw_r)
    if quoted is not None:
        return [*kinds, quoted]
    if raw_r == word:
        return kinds
    inner = inside(word, got)
    if not all(f.explained for f in inner):
        return None
    kinds.extend(k for f in inner for k in f.kinds if k not in kinds)
    if raw_r != got:
        quoted = _quoting(got, raw_r)
        if quoted is None:
            return None
        kinds.append(quoted)
    return kinds


def _gap_kinds(gap_s: str, gap_r: str, edge: str, inside: Inside) -> Kinds | None:
    """The kinds of the whitespace between two words (``edge``: before the first word,
    after the last, or neither)."""
    if edge:
        if gap_r:
            return None
        if edge == "trailing" and gap_s in ("\n", "\r\n"):
            return (("newline.final_removed", ""),)
        return (("whitespace.strip", edge),)
    for kind in _GAP_KINDS:
        rule = RULES_BY_KIND[kind]
        if rule.gate(gap_s, gap_r):
            detail = rule.match(gap_s, gap_r, Context())
            if detail is not None:
                return ((kind, detail),)
    found = inside(gap_s, gap_r)
    if not found or not all(f.explained for f in found):
        return None
    return tuple(dict.fromkeys(k for f in found for k in f.kinds))


def shell_words(a: str, b: str, inside: Inside) -> list[Finding] | None:
    """Findings when ``b`` is ``a``'s words, each kept or rewritten, shell-quoted, joined.

    The words of ``a`` are those ``shlex.split`` reads, or those ``str.split`` cuts at
    any whitespace; ``inside`` classifies a word (or a gap) rewritten on its own
    (``unicodedata.normalize`` before the split). None unless both values have as many
    words, some word gained shell quoting, and every word and gap replays.
    """
    if len(a) > _SHELL_MAX or len(b) > _SHELL_MAX or not any(q in b for q in "'\"\\"):
        return None
    got = _words(b)
    if not got:
        return None
    shell = _words(a)
    for sent in (shell if shell and _as_shlex(a, shell) else None, _plain_words(a)):
        if sent is not None and len(sent) == len(got):
            found = _paired(a, b, sent, got, inside)
            if found is not None:
                return found
    return None


def _plain_words(text: str) -> list[Word]:
    """The words ``str.split()`` cuts ``text`` into, with where each was written."""
    return [(m.start(), m.end(), m.group()) for m in _NOT_SPACE.finditer(text)]


def _paired(
    a: str, b: str, sent: list[Word], got: list[Word], inside: Inside
) -> list[Finding] | None:
    """Findings of the words of ``a`` paired in order with those of ``b``, and the gaps."""
    out: list[Finding] = []
    quoted = False
    ps = pr = 0
    for n, ((s0, s1, word), (r0, r1, rword)) in enumerate(zip(sent, got, strict=True)):
        gap = _gap(a, b, (ps, s0), (pr, r0), edge="leading" if n == 0 else "", inside=inside)
        if gap is None:
            return None
        out.extend(gap)
        if a[s0:s1] != b[r0:r1]:
            kinds = _word_kinds(a[s0:s1], word, b[r0:r1], rword, inside)
            if not kinds:
                return None
            quoted = quoted or any(k == "escape.shell" for k, _ in kinds)
            out.append(
                Finding(
                    kinds=tuple(kinds),
                    sent_start=s0,
                    sent_end=s1,
                    received_start=r0,
                    received_end=r1,
                    explained=True,
                )
            )
        ps, pr = s1, r1
    gap = _gap(a, b, (ps, len(a)), (pr, len(b)), edge="trailing", inside=inside)
    if gap is None or not quoted:
        return None
    out.extend(gap)
    return out


def _gap(
    a: str, b: str, sent: tuple[int, int], received: tuple[int, int], *, edge: str, inside: Inside
) -> list[Finding] | None:
    """The finding of one gap (none when it is unchanged), or None when nothing replays it."""
    (s0, s1), (r0, r1) = sent, received
    gap_s, gap_r = a[s0:s1], b[r0:r1]
    if gap_s == gap_r:
        return []
    kinds = _gap_kinds(gap_s, gap_r, edge, inside)
    if kinds is None:
        return None
    return [
        Finding(
            kinds=kinds,
            sent_start=s0,
            sent_end=s1,
            received_start=r0,
            received_end=r1,
            explained=True,
        )
    ]
