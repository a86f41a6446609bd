"""Shell quoting: words quoted so that a shell reads them back, and the quotes removed.

``escape.shell`` is a word (or the whole value) written as a shell would need it:
POSIX single quotes (``shlex.quote``, an embedded ``'`` as ``'"'"'``), Node's
``shell-quote`` package (single or double quotes, or a backslash before each
metacharacter). Each style is replayed on the sent word: the received token must be
exactly that style's quoting of it. A Windows command line
(``subprocess.list2cmdline``) is not one of them: its double quotes with ``\"`` are
what a JSON or quoted-string writer makes of most values, so it would be named where
those wrote the value.

The inverse, a shell parser removing the quotes around a word (``shlex.split``), is
part of ``unescape.backslash``: :func:`unquote_tokens` gives its tokens.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable

from fidelity._compare.rules.base import Context, Rule, token_match

__all__ = ["RULES", "shell_unquote", "unquote_tokens"]

_QUOTE_SPAN = 512  # longest quoted token (received code points) replayed

#: What JavaScript's ``\s`` matches (Node's ``shell-quote`` tests words with it).
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_BLANK_QUOTE = re.compile(f'["{_JS_SPACE}\\\\]')
_JS_ANY_QUOTE = re.compile(f"[\"'{_JS_SPACE}]")
_JS_DQ_ESCAPED = re.compile(r'(["\\$`])')
_JS_DQ_ESCAPED_18 = re.compile(r'(["\\$`!])')
_JS_META_18 = re.compile(r"([A-Za-z]:)?([#!\"$&'()*,:;<=>?@\[\\\]^`{|}])")
_JS_META = re.compile(r"([A-Za-z]:)?([#!\"$&'()*,:;<=>?@\[\\\]^`{|}~])")


def _node_quote(word: str) -> str:
    """One word as Node's ``shell-quote`` ``quote([word])`` writes it (verified with 1.12)."""
    if not word:
        return "''"
    if "'" in word and "!" in word:
        return "'" + word.replace("'", "'\"'\"'") + "'"
    if _JS_BLANK_QUOTE.search(word) and "'" not in word:
        return "'" + word + "'"
    if _JS_ANY_QUOTE.search(word):
        return '"' + _JS_DQ_ESCAPED.sub(r"\\\1", word) + '"'
    return _JS_META.sub(lambda m: (m.group(1) or "") + "\\" + m.group(2), word)


def _node_quote_18(word: str) -> str:
    """One word as ``shell-quote`` 1.8 writes it (``!`` escaped inside ``"..."``, no ``~``)."""
    if not word:
        return "''"
    if _JS_BLANK_QUOTE.search(word) and "'" not in word:
        return "'" + word + "'"
    if _JS_ANY_QUOTE.search(word):
        return '"' + _JS_DQ_ESCAPED_18.sub(r"\\\1", word) + '"'
    return _JS_META_18.sub(lambda m: (m.group(1) or "") + "\\" + m.group(2), word)


#: The quoting styles, by the detail reported: each gives a word's quoted form.
STYLES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("shlex.quote", shlex.quote),
    ("shell-quote", _node_quote),
    ("shell-quote", _node_quote_18),
)

_OPENERS = {"shlex.quote": "'", "shell-quote": "'\""}
_WORD_END = re.compile(r"[ \t\r\n]")


def _quoted_words(r: str, j: int, opener: str) -> Iterable[tuple[int, str]]:
    """(end, inner text) of every quoted token opening at ``r[j]`` (closing quote at end-1)."""
    limit = min(len(r), j + _QUOTE_SPAN)
    p = r.find(opener, j + 1, limit)
    while p != -1:
        yield p + 1, r[j + 1 : p]
        p = r.find(opener, p + 1, limit)


def _unquoted_candidates(inner: str, opener: str) -> set[str]:
    """Words whose quoting may have written ``inner`` between two ``opener`` quotes."""
    if opener == "'":
        return {inner.replace("'\"'\"'", "'"), inner}
    out = {re.sub(r'\\(["\\$`])', r"\1", inner)}
    out.add(re.sub(r'(\\*)\\"', lambda m: m.group(1)[: len(m.group(1)) // 2] + '"', inner))
    trail = len(inner) - len(inner.rstrip("\\"))
    if trail:
        out |= {w[: len(w) - trail] + "\\" * (trail // 2) for w in list(out)}
    return out


def _style_alts(name: str, quote: Callable[[str], str]) -> Callable[..., list[tuple[int, str]]]:
    openers = _OPENERS[name]

    def alts(s: str, i: int, r: str, j: int, ctx: Context) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        if j < len(r) and r[j] in openers:
            for _end, inner in _quoted_words(r, j, r[j]):
                for word in _unquoted_candidates(inner, r[j]):
                    if word and s.startswith(word, i):
                        q = quote(word)
                        if q != word and r.startswith(q, j):
                            out.append((len(word), q))
        if i == 0 or _WORD_END.match(s, i - 1):
            # A word written without quotes (backslashes before its metacharacters).
            m = _WORD_END.search(s, i)
            k = len(s) if m is None else m.start()
            if k > i:
                q = quote(s[i:k])
                if q != s[i:k] and q[0] not in "'\"" and r.startswith(q, j):
                    out.append((k - i, q))
        return out

    return alts


_STYLE_ALTS = tuple((name, _style_alts(name, quote)) for name, quote in STYLES)


def _shell_alts(s: str, i: int, r: str, j: int, ctx: Context) -> list[tuple[int, str]]:
    return [alt for _, alts in _STYLE_ALTS for alt in alts(s, i, r, j, ctx)]


def _shell_match(s: str, r: str, ctx: Context) -> str | None:
    for name, alts in _STYLE_ALTS:
        if token_match(s, r, alts, ctx):
            return name
    return None


_WORDS = re.compile(r"[^ \t\r\n]+")


def _shell_apply(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    """Each style on the whole value, then on each of its words."""
    out = []
    for name, quote in STYLES:
        out.append((quote(text), name))
        out.append((_quote_words(text, quote), name))
    return out


def _quote_words(text: str, quote: Callable[[str], str]) -> str:
    return _WORDS.sub(lambda m: quote(m.group()), text)


def unquote_tokens(s: str, i: int) -> list[tuple[int, str]]:
    """A quoted string at ``s[i]`` as a POSIX shell reads it: (length, its content).

    ``'...'`` keeps everything up to the next ``'``; ``"..."`` ends at the next
    unescaped ``"`` and a backslash inside escapes only ``"`` and ``\\`` (``shlex``).
    An empty pair (``''``) is not offered: removing it would explain any two quotes
    that vanished (a curly quote straightened as ``''``, then gone).
    """
    q = s[i]
    if q == "'":
        end = s.find("'", i + 1, i + _QUOTE_SPAN)
        return [] if end <= i + 1 else [(end - i + 1, s[i + 1 : end])]
    if q != '"':
        return []
    out: list[str] = []
    k = i + 1
    limit = min(len(s), i + _QUOTE_SPAN)
    while k < limit:
        c = s[k]
        if c == '"':
            return [(k - i + 1, "".join(out))] if out else []
        if c == "\\" and k + 1 < len(s) and s[k + 1] in '"\\':
            out.append(s[k + 1])
            k += 2
            continue
        out.append(c)
        k += 1
    return []


def shell_unquote(text: str) -> str:
    """``text`` with its quotes and backslash escapes removed as ``shlex`` reads words.

    The whitespace between words stays as it was; an unclosed quote stays too.
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            toks = unquote_tokens(text, i)
            if toks:
                length, inner = toks[0]
                out.append(inner)
                i += length
                continue
        elif c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


RULES: tuple[Rule, ...] = (
    Rule(
        kind="escape.shell",
        src=None,
        dst=re.compile("['\"\\\\]"),
        match=_shell_match,
        apply=_shell_apply,
        alts=_shell_alts,
    ),
)
