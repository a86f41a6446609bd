"""Line breaks: CRLF, CR, LF, the Unicode separators, breaks that became spaces or were
deleted, and breaks inserted to wrap the text at a width."""

from __future__ import annotations

import re
from collections.abc import Iterable

from fidelity._compare.rules.base import Context, Rule, alts_rule, table_rule

__all__ = ["LINE_BREAKS", "REMOVED", "RULES", "WRAP_WIDTHS", "wrap"]

LINE_BREAKS = ("\r\n", "\n", "\r", "\u2028", "\u2029", "\x85")
NEWLINE_TO_SPACE: dict[str, tuple[str, ...]] = dict.fromkeys(LINE_BREAKS, (" ",))
SEPARATOR_TO_LF: dict[str, tuple[str, ...]] = {
    "\u2028": ("\n",),
    "\u2029": ("\n", "\n\n"),
    "\x85": ("\n",),
    "\x0b": ("\n",),
    "\x0c": ("\n",),
}

#: The blanks a wrapper breaks a line at (``textwrap``, RFC 5322 folding: space and tab).
_BLANKS = " \t"
#: What is not part of a word to a wrapper: the blanks, and what breaks a line.
_NOT_WORD = frozenset(_BLANKS + "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

#: Widths the whole-value rewrite wraps at: ``textwrap``'s default, RFC 2045 lines,
#: RFC 5322's recommended line length (html2text's default body width), a terminal.
WRAP_WIDTHS = (70, 76, 78, 80)

_WORD = "[^" + re.escape("".join(sorted(_NOT_WORD))) + "]"
#: Blanks right after a word: where ``wrap`` may break a line, if a word follows them.
_BLANKS_AFTER_WORD = re.compile(f"(?<={_WORD})[ \t]+")


def _blank_run_end(s: str, i: int) -> int:
    end = i
    while end < len(s) and s[end] in _BLANKS:
        end += 1
    return end


def _inserted_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    """A line break where a wrapper breaks a line: after a character that is neither a
    blank nor a line break, either inserted (inside a word longer than the width, or
    before the blanks it folds at) or in place of the whole run of blanks between two
    words (a no-break or other Unicode space is part of a word to a wrapper).

    The break is LF, or CRLF where the received text has one there (RFC 5322 folding on
    the wire); a first step of a composition (no received text) only writes LF.
    """
    if i == 0 or s[i - 1] in _NOT_WORD or r[j - 1 : j] == "\n":  # one break at a time
        return ()
    brk = "\r\n" if r.startswith("\r\n", j) else "\n"
    if s[i] not in _BLANKS:
        return () if s[i] in _NOT_WORD else ((0, brk),)
    end = _blank_run_end(s, i)
    if end == len(s) or s[end] in _NOT_WORD:
        return ((0, brk),)
    return ((0, brk), (end - i, brk))


def _last_break(line: str, start: int, width: int) -> int:
    """Where the last run of blanks between two words starts in the ``width + 1``
    characters of ``line`` from ``start`` (``start`` if none): the line up to it fits."""
    cut = start
    for m in _BLANKS_AFTER_WORD.finditer(line, start + 1, start + width + 1):
        end = _blank_run_end(line, m.start())
        if end < len(line) and line[end] not in _NOT_WORD:
            cut = m.start()
    return cut


def wrap(text: str, width: int) -> str:
    """``text`` with its long lines wrapped at ``width``: nothing but line feeds added.

    Each line longer than ``width`` breaks at the last run of blanks that lets the line
    fit (the run gives way to the line feed, as ``textwrap`` drops it), or inside a word
    longer than the width; the other characters are kept as they are.
    """
    out: list[str] = []
    for line in text.split("\n"):
        start = 0
        while len(line) - start > width:
            cut = _last_break(line, start, width)
            if cut > start:
                out.append(line[start:cut])
                start = _blank_run_end(line, cut)
            else:
                out.append(line[start : start + width])
                start += width
        out.append(line[start:])
    return "\n".join(out)


def _wrap_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return [(wrap(s, width), "") for width in WRAP_WIDTHS]


def _followed_by_lf(s: str, i: int, r: str, ctx: Context) -> bool:
    """True when the CR at ``s[i]`` is followed by an LF: in ``s``, or, at its end, in
    the received value right after the segment ``r`` (the text after a hunk is common)."""
    if i + 1 < len(s):
        return s[i + 1] == "\n"
    if ctx.value is None:
        return False
    return ctx.value.startswith("\n", ctx.start + len(r))


def _removed_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    """A line break deleted inside the value: LF, CRLF, or a CR that no LF follows (a CR
    deleted before an LF that stays turned a CRLF into LF: ``newline.crlf_to_lf``)."""
    c = s[i]
    if c not in "\r\n" or _at_an_end(r, j, ctx) or (not r and _ends_sent(s, i, ctx)):
        return ()
    if c == "\n":
        return ((1, ""),)
    if s.startswith("\r\n", i):
        return ((2, ""),)
    return () if _followed_by_lf(s, i, r, ctx) else ((1, ""),)


def _ends_sent(s: str, i: int, ctx: Context) -> bool:
    """True when the break at ``s[i]`` is in a run of breaks at an end of the sent value
    (a first step of a composition, with no received text to place it by)."""
    head = ctx.start == 0 and not s[:i].strip("\r\n")
    tail = not s[i:].strip("\r\n") and (ctx.sent is None or ctx.sent.endswith(s))
    return head or tail


def _at_an_end(r: str, j: int, ctx: Context) -> bool:
    """True when received position ``j`` of segment ``r`` is an end of the value: a line
    break deleted there was stripped (``whitespace.strip``, ``newline.final_removed``)."""
    if ctx.value is None:
        return j in (0, len(r))
    at = ctx.start + j
    return at in (0, len(ctx.value))


_BREAK = re.compile("\r\n|\r|\n")
_LONE_CR = re.compile("\r(?!\n)")


def _removed_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    """Every line break deleted; every CR deleted that no LF follows (a sanitiser that
    deletes control characters but keeps LF and tab). Breaks at an end of the value
    stay: deleting them is a strip."""
    head = len(s) - len(s.lstrip("\r\n")) if ctx.value is None or ctx.start == 0 else 0
    ends = ctx.value is None or (ctx.sent is not None and ctx.sent.endswith(s))
    tail = len(s) - len(s.rstrip("\r\n")) if ends else 0
    if head + tail >= len(s):
        return []
    inner = s[head : len(s) - tail]
    return [
        (s[:head] + _BREAK.sub("", inner) + s[len(s) - tail :], ""),
        (s[:head] + _LONE_CR.sub("", inner) + s[len(s) - tail :], ""),
    ]


#: ``newline.removed``: a line break (LF, CR or CRLF) deleted with nothing in its
#: place. It comes after the whitespace rules (a run of blanks and breaks that became
#: one space is a collapse).
REMOVED = alts_rule(
    "newline.removed",
    _removed_alts,
    _removed_apply,
    src=re.compile("[\r\n]"),
    dst=None,
)


RULES: tuple[Rule, ...] = (
    table_rule("newline.crlf_to_lf", {"\r\n": ("\n",)}),
    table_rule("newline.cr_to_lf", {"\r": ("\n",)}),
    table_rule("newline.lf_to_crlf", {"\n": ("\r\n",)}, dst=re.compile("\r")),
    table_rule("newline.separator_to_lf", SEPARATOR_TO_LF),
    table_rule("newline.to_space", NEWLINE_TO_SPACE),
    alts_rule(
        "newline.inserted",
        _inserted_alts,
        _wrap_apply,
        src=re.compile(r"\S"),
        dst=re.compile("\n"),
    ),
)
