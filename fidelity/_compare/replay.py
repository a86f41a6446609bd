"""The rewrite behind every kind, as something that can be replayed.

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
received segment must pass before ``match`` is tried.
"""

from __future__ import annotations

import html
import html.entities
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from fidelity._compare.decoding import encode as bytes_of
from fidelity._core.text import to_utf8

__all__ = [
    "RULES",
    "Context",
    "Rule",
    "expands_tabs",
    "misreadings",
    "rereadings",
    "rewrite_as",
    "tab_expansions",
    "token_match",
    "whole_rewrites",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Where a segment sits: what a rewrite may need to know beyond the segment."""

    #: Column (in code points) of the received segment's first character on its line.
    column: int = 0
    #: The received text was bytes that are not UTF-8 (it holds escape code points).
    escapes: bool = False


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

    def gate(self, sent: str, received: str) -> bool:
        """Cheap test that the rule could apply to this pair at all."""
        if self.src is not None and self.src.search(sent) is None:
            return False
        return self.dst is None or self.dst.search(received) is not None


# --------------------------------------------------------------------------- tokens


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


def _cls(chars: Iterable[str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(c) for c in sorted(set(chars))) + "]")


def _table_rule(
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
        dst = _cls(outs) if "" not in {rep for reps in table.values() for rep in reps} else None
    return Rule(
        kind=kind,
        src=_cls(k[0] for k in table),
        dst=dst,
        match=match,
        apply=apply or default_apply,
    )


def _alts_rule(
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

    return Rule(kind=kind, src=src, dst=dst, match=match, apply=apply)


def _function_rule(
    kind: str,
    functions: Sequence[tuple[str, Callable[[str], str]]],
    *,
    src: re.Pattern[str] | None = None,
    dst: re.Pattern[str] | None = None,
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

    return Rule(kind=kind, src=src, dst=dst, match=match, apply=apply)


# --------------------------------------------------------------------------- quotes


#: Typographic quotes and what straighteners make of them. Guillemets are quotes
#: too (``«`` is a quotation mark in French, German, Russian...): a chain that turns
#: them into ``"`` or ``<<`` straightened a quote. Primes are punctuation.
STRAIGHT_QUOTES: dict[str, tuple[str, ...]] = {
    "\u2018": ("'", "`"),
    "\u2019": ("'",),
    "\u201a": ("'", ","),
    "\u201b": ("'",),
    "\u201c": ('"', "``"),
    "\u201d": ('"', "''"),
    "\u201e": ('"', ",,"),
    "\u201f": ('"',),
    "\u00ab": ('"', "<<"),
    "\u00bb": ('"', ">>"),
    "\u2039": ("'", "<"),
    "\u203a": ("'", ">"),
    "\u02bc": ("'",),
    "\u02bb": ("'",),
    "\u00b4": ("'",),
    "\u301d": ('"',),
    "\u301e": ('"',),
    "\u301f": ('"',),
    "\u275b": ("'",),
    "\u275c": ("'",),
    "\u275d": ('"',),
    "\u275e": ('"',),
}

EDUCATED_QUOTES: dict[str, tuple[str, ...]] = {
    "``": ("\u201c",),
    "''": ("\u201d",),
    "'": ("\u2019", "\u2018", "\u201a", "\u02bc", "\u2039", "\u203a", "\u201b"),
    '"': ("\u201c", "\u201d", "\u201e", "\u00ab", "\u00bb", "\u201f", "\u301d", "\u301e"),
    "`": ("\u2018",),
    "<<": ("\u00ab",),
    ">>": ("\u00bb",),
}

_OPENERS = frozenset(" \t\n\r([{<\u00a0-\u2014\u2013/")


def _educate(text: str) -> str:
    """Curl quotes the way smart-quote filters do: opening after space or bracket."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch in "'\"":
            opening = i == 0 or text[i - 1] in _OPENERS
            if ch == '"':
                out.append("\u201c" if opening else "\u201d")
            else:
                out.append("\u2018" if opening else "\u2019")
        else:
            out.append(ch)
    return "".join(out)


# --------------------------------------------------------------------------- punctuation

STRAIGHT_PUNCT: dict[str, tuple[str, ...]] = {
    "\u2014": ("--", "---", "-"),
    "\u2013": ("-", "--"),
    "\u2012": ("-",),
    "\u2015": ("--", "-"),
    "\u2010": ("-",),
    "\u2011": ("-",),
    "\u2212": ("-",),
    "\u2026": ("...", ". . ."),
    "\u2032": ("'",),
    "\u2033": ('"', "''"),
    "\u2034": ("'''",),
    "\u2035": ("`",),
    "\u2044": ("/",),
    "\u2022": ("*", "-"),
}

EDUCATED_PUNCT: dict[str, tuple[str, ...]] = {
    "---": ("\u2014",),
    "--": ("\u2014", "\u2013"),
    "...": ("\u2026",),
    ". . .": ("\u2026",),
    "-": ("\u2013", "\u2010", "\u2212"),
    "'": ("\u2032",),
    '"': ("\u2033",),
}

# --------------------------------------------------------------------------- whitespace

SPACES = (
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000"
)
LINE_BREAKS = ("\r\n", "\n", "\r", "\u2028", "\u2029", "\x85")

#: U+200B is a "space" to transliterators (unidecode, anyascii) although it is invisible.
TO_SPACE: dict[str, tuple[str, ...]] = dict.fromkeys(SPACES + "\t\x0b\x0c\u200b", (" ",))
NEWLINE_TO_SPACE: dict[str, tuple[str, ...]] = dict.fromkeys(LINE_BREAKS, (" ",))
SEPARATOR_TO_LF: dict[str, tuple[str, ...]] = {
    "\u2028": ("\n",),
    "\u2029": ("\n", "\n\n"),
    "\x85": ("\n",),
    "\x0b": ("\n",),
    "\x0c": ("\n",),
}

_WS = re.compile(r"\s+")
_HSPACE = frozenset(" \t" + SPACES)


def _collapse_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not s[i].isspace() or not r.startswith(" ", j):
        return ()
    end = i + 1
    while end < len(s) and s[end].isspace():
        end += 1
    return [(length, " ") for length in range(2, end - i + 1)]


def _line_strip_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if s[i] not in _HSPACE or (i > 0 and s[i - 1] in _HSPACE):
        return ()
    end = i + 1
    while end < len(s) and s[end] in _HSPACE:
        end += 1
    if end < len(s) and s[end] in "\r\n\u2028\u2029\x85":
        return ((end - i, ""),)
    return ()


def _line_strip(text: str) -> str:
    return re.sub(r"[ \t\u00a0\u2000-\u200a\u3000]+(?=\r\n|[\n\r\u2028\u2029\x85])", "", text)


def _column(r: str, j: int, ctx: Context) -> int:
    """Column of ``r[j]`` on its line (``expandtabs`` restarts at CR and at LF)."""
    k = max(r.rfind("\n", 0, j), r.rfind("\r", 0, j))
    return j - k - 1 if k >= 0 else ctx.column + j


def _tab_alts_for(size: int) -> Alternatives:
    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        if s[i] != "\t":
            return ()
        return ((1, " " * (size - _column(r, j, ctx) % size)),)

    return alts


def _tab_fixed_alts_for(width: int) -> Alternatives:
    rep = " " * width

    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
        return ((1, rep),) if s[i] == "\t" else ()

    return alts


_TAB_MAX = 32  # widest tab stop considered
_TAB_USUAL: dict[str, Alternatives] = {f"tabsize {n}": _tab_alts_for(n) for n in (8, 4, 2)}
_TAB_FIXED: dict[str, Alternatives] = {
    f"{w} spaces": _tab_fixed_alts_for(w) for w in (4, 8, 2, *range(3, _TAB_MAX + 1))
}
_TAB_RARE: dict[str, Alternatives] = {
    f"tabsize {n}": _tab_alts_for(n) for n in range(3, _TAB_MAX + 1) if n not in (4, 8)
}
#: Every expansion, in order of preference. Which of the usual tab stops (8, 4, 2) or
#: fixed widths applies depends on the column modulo 8 only; the rare tab stops come
#: last, so a verdict among the first ones holds at every column with that remainder.
_TAB_VARIANTS: dict[str, Alternatives] = {**_TAB_USUAL, **_TAB_FIXED, **_TAB_RARE}
#: The expansions whose verdict depends on the column modulo 8 only.
TAB_BY_EIGHT = frozenset((*_TAB_USUAL, *_TAB_FIXED))


def _tab_candidates(s: str, r: str, ctx: Context) -> list[str]:
    """Tab expansions consistent with the first tab of ``s``, most usual first.

    The first tab is where ``s`` and ``r`` first differ; the run of spaces there and
    its column leave only the tab stops (and fixed widths) that give that many spaces.
    """
    i = s.find("\t")
    if s[:i] != r[:i]:
        return list(_TAB_VARIANTS)
    width = len(r) - len(r[i:].lstrip(" ")) - i
    if width < 1:
        return []
    column = _column(r, i, ctx)
    fixed = f"{width} spaces"
    return [
        d
        for d in _TAB_VARIANTS
        if d == fixed or (d[0] == "t" and width == int(d[8:]) - column % int(d[8:]))
    ]


def _tab_match(s: str, r: str, ctx: Context) -> str | None:
    if len(r) <= len(s):  # every tab became one space at most: that is to_space
        return None
    for detail in _tab_candidates(s, r, ctx):
        alts = _TAB_VARIANTS[detail]
        if token_match(s, r, alts, ctx) and (detail.startswith("tabsize") or "\t" not in r):
            return detail
    return None


def tab_expansions() -> tuple[str, ...]:
    """The details of every tab expansion, in order of preference."""
    return tuple(_TAB_VARIANTS)


def expands_tabs(s: str, r: str, ctx: Context, detail: str) -> bool:
    """True when expansion ``detail`` turns ``s`` into ``r`` (a tab may give one space)."""
    return "\t" in s and "\t" not in r and token_match(s, r, _TAB_VARIANTS[detail], ctx)


def _tab_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.expandtabs(8), "tabsize 8"), (s.expandtabs(4), "tabsize 4"))


# --------------------------------------------------------------------------- invisible / control


def _is_invisible(ch: str) -> bool:
    cp = ord(ch)
    if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or cp in (0x034F, 0x115F, 0x1160):
        return True
    return unicodedata.category(ch) == "Cf"


def _is_control(ch: str) -> bool:
    cp = ord(ch)
    return (cp < 0x20 and ch not in "\t\n\r") or 0x7F <= cp <= 0x9F


def _invisible_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    return ((1, ""),) if _is_invisible(s[i]) else ()


def _control_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    return ((1, ""),) if _is_control(s[i]) else ()


def _stand_ins(ch: str) -> tuple[str, ...]:
    cp = ord(ch)
    picture = chr(0x2400 + cp) if cp < 0x20 else ("\u2421" if cp == 0x7F else "")
    caret = "^" + chr(cp ^ 0x40) if cp < 0x20 or cp == 0x7F else ""
    return tuple(x for x in (" ", "?", "\ufffd", ".", "_", picture, caret) if x)


def _control_replaced_alts(
    s: str, i: int, r: str, j: int, ctx: Context
) -> Iterable[tuple[int, str]]:
    if not _is_control(s[i]):
        return ()
    return ((1, rep) for rep in _stand_ins(s[i]))


_INVISIBLE_RE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "\u0600-\u0605\u06dd\u070f\u08e2\U000110bd\U000110cd\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a]"
)
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

# --------------------------------------------------------------------------- escapes

_JSON_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
    "\x0b": "\\v",
    "\x07": "\\a",
    "'": "\\'",
    "\x00": "\\0",
}
_JSON_SHORT_DECODE = {v[1]: k for k, v in _JSON_SHORT.items()}
_BACKSLASH_TOKEN = re.compile(
    r"\\(?:u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|x([0-9a-fA-F]{2})"
    r"|U([0-9a-fA-F]{8})|u\{([0-9a-fA-F]{1,6})\}|([0-3][0-7]{2})|(.))",
    re.DOTALL,
)
#: One byte written as a backslash escape: ``\xHH`` (Python bytes, C) or ``\NNN`` (octal).
_BYTE_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|([0-3][0-7]{2}))")


def _byte_run(text: str, pos: int) -> list[tuple[int, str]]:
    """The character whose UTF-8 bytes are written as byte escapes at ``text[pos]``.

    ``b'\xc3\xa9'`` (a bytes repr) and ``$'\303\251'`` (``printf %q``) spell one
    character as the escapes of its UTF-8 bytes.
    """
    data = bytearray()
    end = pos
    while len(data) < 4:
        m = _BYTE_ESCAPE.match(text, end)
        if m is None:
            break
        data.append(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8) & 0xFF)
        end = m.end()
        if data[0] < 0xC2:
            return []
        try:
            return [(end - pos, bytes(data).decode("utf-8"))]
        except UnicodeDecodeError:
            continue
    return []


def _backslash_tokens(text: str, pos: int) -> list[tuple[int, str]]:
    """Decodings of the backslash escape at ``text[pos]``: (token length, text)."""
    m = _BACKSLASH_TOKEN.match(text, pos)
    if m is None:
        return []
    u4, low, x2, u8, ubrace, octal, other = m.groups()
    out: list[tuple[int, str]] = []
    if u4 is not None:
        hi = int(u4, 16)
        if low is not None:
            pair = (hi, int(low, 16))
            if 0xD800 <= hi <= 0xDBFF:
                joined = chr(0x10000 + ((pair[0] - 0xD800) << 10) + (pair[1] - 0xDC00))
                out.append((m.end() - pos, joined))
            out.append((m.end() - pos, chr(hi) + chr(pair[1])))
        out.append((6, chr(hi)))
    elif x2 is not None:
        out.extend(_byte_run(text, pos))
        out.append((4, chr(int(x2, 16))))
    elif octal is not None:
        out.extend(_byte_run(text, pos))
        out.append((m.end() - pos, chr(int(octal, 8))))
        if octal[0] == "0":
            out.append((2, "\x00"))
    elif u8 is not None or ubrace is not None:
        cp = int(u8 or ubrace or "0", 16)
        if cp <= 0x10FFFF:
            out.append((m.end() - pos, chr(cp)))
    elif other is not None and other in _JSON_SHORT_DECODE:
        out.append((2, _JSON_SHORT_DECODE[other]))
    return out


def _escape_json_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not r.startswith("\\", j):
        return ()
    return [
        (len(d), r[j : j + length]) for length, d in _backslash_tokens(r, j) if s.startswith(d, i)
    ]


def _unescape_json_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if s[i] != "\\":
        return ()
    return _backslash_tokens(s, i)


def _json_escapes(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    import json

    return (
        (json.dumps(text)[1:-1], "json.dumps"),
        (json.dumps(text, ensure_ascii=False)[1:-1], "json.dumps"),
        (json.dumps(text), "json.dumps, quoted"),
        (json.dumps(text, ensure_ascii=False), "json.dumps, quoted"),
    )


def _json_unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            toks = _backslash_tokens(text, i)
            if toks:
                length, d = toks[0]
                out.append(d)
                i += length
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


def _entity_tokens(text: str, pos: int) -> list[tuple[int, str]]:
    m = _ENTITY.match(text, pos)
    if m is None:
        return []
    token = m.group()
    decoded = html.unescape(token)
    if decoded == token:
        return []
    # html.unescape decodes a legacy name without ';' and keeps the rest.
    if not token.endswith(";"):
        for k in range(len(token) - 1, 1, -1):
            part = html.unescape(token[:k])
            if part != token[:k] and decoded == part + token[k:]:
                return [(k, part)]
    return [(len(token), decoded)]


def _escape_html_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not r.startswith("&", j):
        return ()
    return [(len(d), r[j : j + length]) for length, d in _entity_tokens(r, j) if s.startswith(d, i)]


def _unescape_html_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if s[i] != "&":
        return ()
    return _entity_tokens(s, i)


def _html_escapes(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return (
        (html.escape(text), ""),
        (html.escape(text, quote=False), ""),
        (html.escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii"), ""),
    )


_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2})+")
#: JavaScript's ``escape()`` writes a code unit above U+00FF as ``%uXXXX``.
_PERCENT_U = re.compile(r"%[uU]([0-9a-fA-F]{4})(?:%[uU]([dD][c-fC-F][0-9a-fA-F]{2}))?")


def _percent_units(m: re.Match[str]) -> list[tuple[int, str]]:
    """Decodings of ``%uXXXX`` (a surrogate pair of them is one astral character)."""
    unit = int(m.group(1), 16)
    out: list[tuple[int, str]] = []
    if m.group(2) is not None and 0xD800 <= unit <= 0xDBFF:
        low = int(m.group(2), 16)
        out.append((m.end() - m.start(), chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))))
    out.append((6, chr(unit)))
    return out


def _percent_tokens(text: str, pos: int) -> list[tuple[int, str]]:
    """Decodings of percent sequences at ``text[pos]``: one character's UTF-8 bytes."""
    m = _PERCENT.match(text, pos)
    if m is None:
        mu = _PERCENT_U.match(text, pos)
        return [] if mu is None else _percent_units(mu)
    run = m.group()
    out: list[tuple[int, str]] = []
    for k in range(1, min(4, len(run) // 3) + 1):
        data = bytes(int(run[3 * t + 1 : 3 * t + 3], 16) for t in range(k))
        try:
            ch = data.decode("utf-8")
        except UnicodeDecodeError:
            if k == 1:
                # Not UTF-8: decoded with replacement, or percent-encoded in latin-1
                # (``quote(text, encoding="latin-1")``, old form encoders).
                out.append((3, "\ufffd"))
                out.append((3, data.decode("latin-1")))
                # ... or in cp1252 (``quote(text, encoding="cp1252")``: ``%93`` is “).
                legacy = data.decode("cp1252", "replace")
                if legacy not in ("\ufffd", data.decode("latin-1")):
                    out.append((3, legacy))
            continue
        out.append((3 * k, ch))
        break
    return out


def _escape_url_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if r.startswith("+", j) and s[i] == " ":
        return ((1, "+"),)
    if not r.startswith("%", j):
        return ()
    return [
        (len(d), r[j : j + length]) for length, d in _percent_tokens(r, j) if s.startswith(d, i)
    ]


def _unescape_url_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if s[i] == "+":
        return ((1, " "),)
    if s[i] != "%":
        return ()
    return _percent_tokens(s, i)


def _url_escapes(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    from urllib.parse import quote, quote_plus

    out = []
    for fn in (lambda t: quote(t, safe=""), quote, quote_plus):
        try:
            out.append((fn(text), ""))
        except UnicodeError:
            continue
    return out


def _url_unescapes(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    from urllib.parse import unquote, unquote_plus

    return ((unquote(text), ""), (unquote_plus(text), ""))


# --------------------------------------------------------------------------- unicode


def _case_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    out = []
    for variant in (ch.lower(), ch.upper(), ch.casefold(), ch.title()):
        if variant != ch:
            out.append((1, variant))
    if ch == "\u03a3":  # str.lower() writes a word-final capital sigma as final sigma
        out.append((1, "\u03c2"))
    locale = _LOCALE_CASE.get(ch)
    if locale is not None:
        out.append((1, locale))
    return out


#: Case mappings of the Turkish and Azeri locales (``toLocaleLowerCase("tr")``,
#: ICU, ``LANG=tr_TR``): dotted and dotless i keep their dot through a case change.
_LOCALE_CASE = {"I": "\u0131", "i": "\u0130", "\u0130": "i", "\u0131": "I"}


def _case_detail(s: str, r: str) -> str:
    for name, fn in (
        ("lower", str.lower),
        ("upper", str.upper),
        ("casefold", str.casefold),
        ("title", str.title),
        ("swapcase", str.swapcase),
        ("lower, tr", _lower_tr),
        ("upper, tr", _upper_tr),
    ):
        if fn(s) == r:
            return name
    return "mixed"


def _lower_tr(text: str) -> str:
    return text.replace("I", "\u0131").replace("\u0130", "i").lower()


def _upper_tr(text: str) -> str:
    return text.replace("i", "\u0130").replace("\u0131", "I").upper()


def _case_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    out = [(s.lower(), "lower"), (s.upper(), "upper"), (s.casefold(), "casefold")]
    if "I" in s or "\u0130" in s:
        out.append((_lower_tr(s), "lower, tr"))
    if "i" in s or "\u0131" in s:
        out.append((_upper_tr(s), "upper, tr"))
    return out


#: Letters that carry no decomposition but have a customary ASCII spelling.
TRANSLITERATIONS: dict[str, tuple[str, ...]] = {
    "ß": ("ss", "s"),
    "ẞ": ("SS", "Ss"),
    "æ": ("ae",),
    "Æ": ("AE", "Ae"),
    "ø": ("o", "oe"),
    "Ø": ("O", "Oe"),
    "ł": ("l",),
    "Ł": ("L",),
    "đ": ("d", "dj"),
    "Đ": ("D", "Dj"),
    "ð": ("d", "dh"),
    "Ð": ("D", "Dh"),
    "þ": ("th",),
    "Þ": ("Th", "TH"),
    "œ": ("oe",),
    "Œ": ("OE", "Oe"),
    "ı": ("i",),
    "ĸ": ("k", "q"),
    "ŋ": ("n", "ng"),
    "Ŋ": ("N", "NG"),
    "ħ": ("h",),
    "Ħ": ("H",),
    "ŧ": ("t",),
    "Ŧ": ("T",),
    "ſ": ("s",),
    "ƒ": ("f",),
    "ä": ("ae",),
    "ö": ("oe",),
    "ü": ("ue",),
    "Ä": ("Ae", "AE"),
    "Ö": ("Oe", "OE"),
    "Ü": ("Ue", "UE"),
    "å": ("aa",),
    "Å": ("Aa", "AA"),
}


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _fold_char(text: str) -> str:
    out = []
    for c in text:
        if c in TRANSLITERATIONS:
            out.append(TRANSLITERATIONS[c][0])
        else:
            out.append(_strip_marks(c))
    return "".join(out)


def _fold_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    if ch < "\x80":
        return ()
    out: list[tuple[int, str]] = []
    end = i + 1
    while end < len(s) and unicodedata.combining(s[end]):
        end += 1
    if unicodedata.combining(ch):
        out.append((1, ""))
    for rep in TRANSLITERATIONS.get(ch, ()):
        out.append((1, rep))
    stripped = _strip_marks(s[i:end])
    if stripped.isascii() and stripped != s[i:end]:
        out.append((end - i, stripped))
    one = _strip_marks(ch)
    if one.isascii() and one != ch:
        out.append((1, one))
    return out


def _fold_marks_first(text: str) -> str:
    """Marks stripped; only letters with no decomposition are transliterated."""
    out = []
    for c in text:
        plain = _strip_marks(c)
        if plain.isascii() or c not in TRANSLITERATIONS:
            out.append(plain)
        else:
            out.append(TRANSLITERATIONS[c][0])
    return "".join(out)


def _fold_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    # unidecode and anyascii write ``Ü`` as ``U``; German-style folding as ``Ue``; the
    # common "remove accents" recipe (NFKD, drop the marks) leaves ``ł`` as it is, for
    # an ASCII encoder to replace next.
    return ((_fold_marks_first(s), ""), (_fold_char(s), ""), (_strip_marks(s), ""))


def _normalizer(form: str) -> Callable[[str], str]:
    def run(text: str) -> str:
        return unicodedata.normalize(form, text)  # type: ignore[arg-type]

    return run


# --------------------------------------------------------------------------- encoding

#: Codecs whose misreading of UTF-8 bytes is checked, most frequent first. ``chardet``
#: adds the codecs it proposes for the received text.
MOJIBAKE_CODECS: tuple[str, ...] = (
    "cp1252",
    "latin-1",
    "cp1250",
    "cp437",
    "mac-roman",
    "cp1251",
    "cp850",
    "iso8859-2",
    "iso8859-15",
    "cp1253",
    "cp1254",
    "cp1257",
    "koi8-r",
    "cp866",
    "mac-cyrillic",
    "cp874",
    "shift_jis",
    "gbk",
    "euc-kr",
    "big5",
    "euc-jp",
    "utf-16-le",
    "utf-16-be",
    "utf-16",
)

_SINGLE_BYTE: dict[tuple[str, bool], tuple[str, ...] | None] = {}


def _byte_table(codec: str, sloppy: bool) -> tuple[str, ...] | None:
    """256 decodings of single bytes, or None for a multi-byte codec.

    Bytes the codec leaves undefined become U+FFFD, or with ``sloppy`` the code point
    of the same number (as the "sloppy" decoders of browsers and ftfy do).
    """
    key = (codec, sloppy)
    if key in _SINGLE_BYTE:
        return _SINGLE_BYTE[key]
    try:
        probe = bytes(range(256)).decode(codec, "replace")
    except LookupError:
        probe = ""
    table: tuple[str, ...] | None = None
    if len(probe) == 256:
        table = tuple(chr(b) if sloppy and ch == "\ufffd" else ch for b, ch in enumerate(probe))
    _SINGLE_BYTE[key] = table
    return table


def misread(text: str, codec: str, *, sloppy: bool = False) -> str:
    """``text``'s UTF-8 bytes read with ``codec`` (the mojibake a chain produces).

    Bytes the codec cannot decode become U+FFFD (``errors="replace"``), or with
    ``sloppy`` (single-byte codecs only) the code point of the same number.
    """
    data = to_utf8(text)
    table = _byte_table(codec, sloppy)
    if table is not None:
        return "".join([table[b] for b in data])
    return data.decode(codec, "replace")


def _mojibake_match_codecs(s: str, r: str, codecs: Iterable[str], ctx: Context) -> str | None:
    tried: set[str] = set()
    for codec in codecs:
        if codec in tried:
            continue
        tried.add(codec)
        try:
            if r in (misread(s, codec), misread(s, codec, sloppy=True)):
                return codec
        except (UnicodeError, LookupError):
            pass
        # The received bytes are the sent text encoded with this codec (they may be
        # valid UTF-8 too: UTF-16 of ASCII text is ASCII with NULs).
        try:
            if s.encode(codec) == bytes_of(r):
                return codec
        except (UnicodeError, LookupError):
            pass
        try:
            # The reverse: the sent text was mojibake that a chain repaired.
            if s in (misread(r, codec), misread(r, codec, sloppy=True)):
                return f"{codec}, reversed"
        except (UnicodeError, LookupError):
            pass
    return None


def _chardet_codecs(r: str, ctx: Context) -> list[str]:
    """Codecs ``chardet`` proposes for the received segment's bytes."""
    import chardet

    try:
        data = bytes_of(r) if ctx.escapes else r.encode("latin-1")
    except UnicodeError:
        try:
            data = r.encode("cp1252")
        except UnicodeError:
            return []
    out = []
    for guess in chardet.detect_all(data)[:4]:
        name = guess.get("encoding")
        if isinstance(name, str):
            out.append(name.lower())
    return out


#: Codecs that garble ASCII too (two bytes a character).
WIDE_CODECS: tuple[str, ...] = ("utf-16-le", "utf-16-be", "utf-16")


def _mojibake_match(s: str, r: str, ctx: Context) -> str | None:
    if s.isascii() and not ctx.escapes:
        return _mojibake_match_codecs(s, r, WIDE_CODECS, ctx)
    found = _mojibake_match_codecs(s, r, MOJIBAKE_CODECS, ctx)
    if found is not None:
        return found
    if len(r) >= 2:
        found = _mojibake_match_codecs(s, r, _chardet_codecs(r, ctx), ctx)
        if found is not None:
            return found
    # Double mojibake: the misread text misread again.
    for first in ("cp1252", "latin-1"):
        try:
            once = misread(s, first)
        except UnicodeError:
            continue
        for second in ("cp1252", "latin-1"):
            try:
                if misread(once, second) == r:
                    return f"{first}+{second}"
            except UnicodeError:
                continue
    return None


_INVERSE: dict[str, dict[str, int] | None] = {}


def _inverse_table(codec: str) -> dict[str, int] | None:
    """The byte each character of a single-byte codec (sloppy) stands for."""
    if codec not in _INVERSE:
        table = _byte_table(codec, True)
        _INVERSE[codec] = None if table is None else {ch: b for b, ch in enumerate(table)}
    return _INVERSE[codec]


def repair(text: str, codec: str) -> str | None:
    """Undo a mojibake: ``text`` encoded back with ``codec`` and read as UTF-8, or None."""
    inverse = _inverse_table(codec)
    if inverse is None:
        return None
    try:
        data = bytes(inverse[ch] for ch in text)
        return data.decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return None


def _mojibake_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    out = []
    for codec in MOJIBAKE_CODECS[:5]:
        try:
            out.append((misread(s, codec), codec))
        except UnicodeError:
            continue
        repaired = repair(s, codec)
        if repaired is not None:
            out.append((repaired, f"{codec}, reversed"))
    return out


def whole_rewrites(rule: Rule, text: str, received: str, ctx: Context) -> list[tuple[str, str]]:
    """``rule``'s concrete rewrites of a whole value, with their details.

    For ``encoding.mojibake`` every known codec is tried (and those ``chardet``
    proposes for ``received``), not only the most frequent ones.
    """
    if rule.kind != "encoding.mojibake":
        return list(rule.apply(text, ctx))
    out = list(_mojibake_apply(text, ctx))
    for codec in dict.fromkeys((*MOJIBAKE_CODECS[5:], *_chardet_codecs(received[:4096], ctx))):
        out.extend((o, codec) for o in misreadings(text, codec))
    return out


#: Codecs tried first when re-reading a whole received value (see :func:`rereadings`).
_REREAD_CODECS = ("cp1252", "latin-1")
_REREAD_CHARDET = 1 << 16  # bytes of the received value shown to ``chardet``


def _continuations() -> str:
    chars = {chr(b) for b in range(0x80, 0xC0)}
    for codec in _REREAD_CODECS:
        table = _byte_table(codec, True)
        assert table is not None
        chars.update(table[0x80:0xC0])
    return "".join(sorted(chars))


#: A UTF-8 lead byte then a continuation byte, both read as cp1252 or latin-1.
_MISREAD_PAIR = re.compile("[\u00c2-\u00f4][" + re.escape(_continuations()) + "]")


def rereadings(received: str, *, escapes: bool) -> list[tuple[str, str]]:
    """The received value read back as UTF-8 text, for each codec that could have made it.

    With ``escapes`` (the received bytes are not UTF-8) the bytes are decoded with each
    codec, as if the far side wrote its text in that codec; otherwise a value that
    looks misread (a UTF-8 lead byte followed by a continuation byte, as cp1252 or
    latin-1 show them) is repaired. Each reading comes with the codec that explains
    it; readings equal to ``received`` are left out.
    """
    out: list[tuple[str, str]] = []
    if escapes:
        data = bytes_of(received)
        codecs = (
            *_REREAD_CODECS,
            *_chardet_codecs(received[:_REREAD_CHARDET], Context(escapes=True)),
        )
        for codec in dict.fromkeys(codecs):
            table = _byte_table(codec, True)
            try:
                text = "".join([table[b] for b in data]) if table else data.decode(codec)
            except (UnicodeError, LookupError):
                continue
            if text != received:
                out.append((text, codec))
        return out
    if _MISREAD_PAIR.search(received) is None:
        return out
    for codec in _REREAD_CODECS:
        repaired = repair(received, codec)
        if repaired is not None and repaired != received:
            out.append((repaired, codec))
    return out


def misreadings(text: str, codec: str) -> list[str]:
    """``text`` misread with ``codec``: undefined bytes as U+FFFD, then as themselves."""
    out = []
    for sloppy in (False, True):
        try:
            out.append(misread(text, codec, sloppy=sloppy))
        except (UnicodeError, LookupError):
            continue
    return out


def rewrite_as(rule: Rule, detail: str, text: str, ctx: Context) -> list[str]:
    """The outputs of ``rule`` on ``text`` that carry ``detail``."""
    if rule.kind == "encoding.mojibake" and "," not in detail and "+" not in detail:
        return misreadings(text, detail)
    return [o for o, d in rule.apply(text, ctx) if d == detail]


def _units16(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def _replacement_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    if not r.startswith("\ufffd", j) or s[i] == "\ufffd":
        return ()
    ch = s[i]
    counts = {1, _units16(ch), len(to_utf8(ch))}
    return [(1, "\ufffd" * k) for k in sorted(counts)]


def _question_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    if ch < "\x80" or not r.startswith("?", j):
        return ()
    counts = {1, _units16(ch), len(to_utf8(ch))}
    return [(1, "?" * k) for k in sorted(counts)]


def _surrogate_alts(s: str, i: int, r: str, j: int, ctx: Context) -> Iterable[tuple[int, str]]:
    ch = s[i]
    cp = ord(ch)
    if cp > 0xFFFF:
        v = cp - 0x10000
        hi, lo = chr(0xD800 + (v >> 10)), chr(0xDC00 + (v & 0x3FF))
        return ((1, hi + lo), (1, hi), (1, lo))
    if 0xD800 <= cp <= 0xDBFF and i + 1 < len(s) and "\udc00" <= s[i + 1] <= "\udfff":
        joined = chr(0x10000 + ((cp - 0xD800) << 10) + (ord(s[i + 1]) - 0xDC00))
        return ((2, joined), (1, ""))
    if 0xD800 <= cp <= 0xDFFF and not ctx.escapes:
        return ((1, ""),)
    return ()


def _surrogate_detail(s: str, r: str) -> str:
    if any(ord(c) > 0xFFFF for c in r) and not any(ord(c) > 0xFFFF for c in s):
        return "joined"
    return ""


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(m: re.Match[str]) -> str:
    v = ord(m.group()) - 0x10000
    return chr(0xD800 + (v >> 10)) + chr(0xDC00 + (v & 0x3FF))


def _surrogate_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    # UTF-16 code units taken for code points (Java, JavaScript, UCS-2 readers).
    return ((_ASTRAL.sub(_split_astral, s), ""),)


def _replacement_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.encode("ascii", "replace").decode("ascii").replace("?", "\ufffd"), ""),)


def _question_apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    return ((s.encode("ascii", "replace").decode("ascii"), ""),)


# --------------------------------------------------------------------------- the rules


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SURROGATE_OR_ASTRAL = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")

#: Every rule, in order of preference: the most specific explanation comes first.
RULES: tuple[Rule, ...] = (
    _table_rule("newline.crlf_to_lf", {"\r\n": ("\n",)}),
    _table_rule("newline.cr_to_lf", {"\r": ("\n",)}),
    _table_rule("newline.lf_to_crlf", {"\n": ("\r\n",)}, dst=re.compile("\r")),
    _table_rule("newline.separator_to_lf", SEPARATOR_TO_LF),
    _table_rule("newline.to_space", NEWLINE_TO_SPACE),
    Rule(
        kind="whitespace.tab_expand",
        src=re.compile("\t"),
        dst=re.compile(" "),
        match=_tab_match,
        apply=_tab_apply,
    ),
    _table_rule("whitespace.to_space", TO_SPACE),
    _alts_rule(
        "whitespace.line_strip",
        _line_strip_alts,
        lambda s, ctx: ((_line_strip(s), ""),),
        src=re.compile(r"[ \t\u00a0\u2000-\u200a\u3000]"),
        dst=None,
    ),
    _alts_rule(
        "whitespace.collapse",
        _collapse_alts,
        lambda s, ctx: ((_WS.sub(" ", s), ""),),
        src=re.compile(r"\s\s"),
        dst=re.compile(" "),
    ),
    _table_rule("quote.straighten", STRAIGHT_QUOTES),
    _table_rule(
        "quote.educate",
        EDUCATED_QUOTES,
        apply=lambda s, ctx: ((_educate(s), ""),),
    ),
    _table_rule("punct.straighten", STRAIGHT_PUNCT),
    _table_rule("punct.educate", EDUCATED_PUNCT),
    _table_rule("path.backslash_to_slash", {"\\": ("/",)}),
    _table_rule("path.slash_to_backslash", {"/": ("\\",)}),
    _table_rule("escape.backslash", {"\\": ("\\\\",)}),
    _alts_rule(
        "escape.json",
        _escape_json_alts,
        _json_escapes,
        src=None,
        dst=re.compile(r"\\"),
    ),
    _alts_rule(
        "escape.html",
        _escape_html_alts,
        _html_escapes,
        src=None,
        dst=re.compile("&"),
    ),
    _alts_rule(
        "escape.url",
        _escape_url_alts,
        _url_escapes,
        src=None,
        dst=re.compile("[%+]"),
    ),
    _alts_rule(
        "unescape.json",
        _unescape_json_alts,
        lambda s, ctx: ((_json_unescape(s), ""),),
        src=re.compile(r"\\"),
        dst=None,
    ),
    _alts_rule(
        "unescape.html",
        _unescape_html_alts,
        lambda s, ctx: ((html.unescape(s), ""),),
        src=re.compile("&"),
        dst=None,
    ),
    _alts_rule(
        "unescape.url",
        _unescape_url_alts,
        _url_unescapes,
        src=re.compile("[%+]"),
        dst=None,
    ),
    _alts_rule(
        "invisible.removed",
        _invisible_alts,
        lambda s, ctx: (("".join(c for c in s if not _is_invisible(c)), ""),),
        src=_INVISIBLE_RE,
        dst=None,
    ),
    _alts_rule(
        "control.removed",
        _control_alts,
        lambda s, ctx: (("".join(c for c in s if not _is_control(c)), ""),),
        src=_CONTROL_RE,
        dst=None,
    ),
    _alts_rule(
        "control.replaced",
        _control_replaced_alts,
        lambda s, ctx: (("".join(" " if _is_control(c) else c for c in s), ""),),
        src=_CONTROL_RE,
        dst=None,
    ),
    _function_rule("unicode.nfc", (("", _normalizer("NFC")),)),
    _function_rule("unicode.nfd", (("", _normalizer("NFD")),), src=_NON_ASCII),
    _function_rule("unicode.nfkc", (("", _normalizer("NFKC")),), src=_NON_ASCII),
    _function_rule("unicode.nfkd", (("", _normalizer("NFKD")),), src=_NON_ASCII),
    # A fold before case: ``ß`` -> ``ss`` keeps the letters' case (transliteration),
    # although ``casefold`` gives it too.
    _alts_rule(
        "unicode.ascii_fold",
        _fold_alts,
        _fold_apply,
        src=_NON_ASCII,
        dst=None,
    ),
    _alts_rule(
        "unicode.case",
        _case_alts,
        _case_apply,
        src=None,
        dst=None,
        detail=_case_detail,
    ),
    _alts_rule(
        "encoding.surrogate_split",
        _surrogate_alts,
        _surrogate_apply,
        src=_SURROGATE_OR_ASTRAL,
        dst=None,
        detail=_surrogate_detail,
    ),
    _alts_rule(
        "encoding.replacement",
        _replacement_alts,
        _replacement_apply,
        src=None,
        dst=re.compile("\ufffd"),
    ),
    _alts_rule(
        "encoding.question_mark",
        _question_alts,
        _question_apply,
        src=_NON_ASCII,
        dst=re.compile(r"\?"),
    ),
    Rule(
        kind="encoding.mojibake",
        src=None,
        dst=None,
        match=_mojibake_match,
        apply=_mojibake_apply,
    ),
)

#: Rules by kind id.
RULES_BY_KIND: dict[str, Rule] = {rule.kind: rule for rule in RULES}
