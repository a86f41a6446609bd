"""Escaping and unescaping: JSON/backslash, HTML/XML references, percent-encoding,
doubled backslashes, Markdown metacharacters escaped, backslashes dropped by
quoted-string or shell unescaping, and the path separators a chain swapped."""

from __future__ import annotations

import html
import html.entities
import re
from collections.abc import Iterable

from fidelity._compare.rules.base import Context, Rule, alts_rule, table_rule
from fidelity._compare.rules.shell import shell_unquote, unquote_tokens

__all__ = ["MARKDOWN_METACHARACTERS", "RULES"]

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
    out = [(len(d), r[j : j + length]) for length, d in _entity_tokens(r, j) if s.startswith(d, i)]
    if r.startswith("&amp;", j):
        # Escaped twice (``&`` -> ``&amp;amp;``, ``&#92;`` -> ``&amp;#92;``): a reference
        # whose ampersand was escaped again still spells the character.
        rest = "&" + r[j + 5 : j + 5 + 40]
        out.extend(
            (len(d), r[j : j + length + 4])
            for length, d in _entity_tokens(rest, 0)
            if s.startswith(d, i)
        )
    return out


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


def _unescape_backslash_alts(
    s: str, i: int, r: str, j: int, ctx: Context
) -> Iterable[tuple[int, str]]:
    # A quoted-pair (RFC 9110, RFC 5322) or a shell escape: the backslash goes and the
    # character after it stays, whatever it is; a shell drops an escaped line break too.
    # A shell (``shlex.split``) also drops the quotes around a quoted string.
    if s[i] in "'\"":
        return unquote_tokens(s, i)
    if s[i] != "\\" or i + 1 == len(s):
        return ()
    nxt = s[i + 1]
    if nxt == "\n":
        return ((2, nxt), (2, ""))
    return ((2, nxt),)


_QUOTED_PAIR = re.compile(r"\\(.)", re.DOTALL)


def _shell_pair(m: re.Match[str]) -> str:
    return "" if m.group(1) == "\n" else m.group(1)


def _backslash_unescapes(text: str, ctx: Context) -> Iterable[tuple[str, str]]:
    """What a quoted-string parser (``\\x`` -> ``x``) and a shell make of ``text``."""
    quoted = _QUOTED_PAIR.sub(r"\1", text)
    shell = _QUOTED_PAIR.sub(_shell_pair, text)
    out = [(quoted, "")] if shell == quoted else [(quoted, ""), (shell, "")]
    words = shell_unquote(text)
    if words not in (quoted, shell):
        out.append((words, ""))
    return out


#: What a Markdown writer escapes in text (CommonMark's ASCII punctuation that has a
#: meaning: emphasis, links, headings, code, lists, tables, HTML, strikethrough).
MARKDOWN_METACHARACTERS = "\\`*_{}[]()#+-.!|<>~"

RULES: tuple[Rule, ...] = (
    table_rule("path.backslash_to_slash", {"\\": ("/",)}),
    table_rule("path.slash_to_backslash", {"/": ("\\",)}),
    table_rule("escape.backslash", {"\\": ("\\\\",)}),
    table_rule("escape.markdown", {c: ("\\" + c,) for c in MARKDOWN_METACHARACTERS}),
    alts_rule(
        "escape.json",
        _escape_json_alts,
        _json_escapes,
        src=None,
        dst=re.compile(r"\\"),
    ),
    alts_rule(
        "escape.html",
        _escape_html_alts,
        _html_escapes,
        src=None,
        dst=re.compile("&"),
    ),
    alts_rule(
        "escape.url",
        _escape_url_alts,
        _url_escapes,
        src=None,
        dst=re.compile("[%+]"),
    ),
    alts_rule(
        "unescape.json",
        _unescape_json_alts,
        lambda s, ctx: ((_json_unescape(s), ""),),
        src=re.compile(r"\\"),
        dst=None,
    ),
    alts_rule(
        "unescape.html",
        _unescape_html_alts,
        lambda s, ctx: ((html.unescape(s), ""),),
        src=re.compile("&"),
        dst=None,
    ),
    alts_rule(
        "unescape.url",
        _unescape_url_alts,
        _url_unescapes,
        src=re.compile("[%+]"),
        dst=None,
    ),
    alts_rule(
        "unescape.backslash",
        _unescape_backslash_alts,
        _backslash_unescapes,
        src=re.compile(r"\\.|['\"]", re.DOTALL),
        dst=None,
    ),
)
