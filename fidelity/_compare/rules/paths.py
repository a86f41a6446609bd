"""File-name sanitizers: characters not allowed in a file name removed or replaced.

Three styles, each replayed exactly as the library does it (the style is the detail):

``secure_filename`` (Werkzeug's ``werkzeug.utils.secure_filename``, after its NFKD
step, which other kinds name: ``unicode.ascii_fold``, ``whitespace.to_space``...)
    non-ASCII characters are dropped, ``/`` and runs of ASCII whitespace become one
    ``_`` (none at the ends of the value), every other character outside
    ``[A-Za-z0-9_.-]`` is removed, and the value's leading and trailing ``.`` and
    ``_`` are stripped.
``get_valid_filename`` (Django's ``django.utils.text.get_valid_filename``)
    the value is stripped, each space becomes ``_``, and every character outside
    ``[-\\w.]`` (Unicode word characters) is removed.
``sanitize_filename`` (pathvalidate's ``sanitize_filename``)
    ``\\ / : * ? " < > |``, tab, line breaks and ASCII controls are removed; a value
    that then ends in spaces or dots loses them.

A hunk is named only when the whole received value is what the style can produce
(nothing outside its safe set, no stripped character at its ends: a value that keeps
a space is no ``secure_filename``), and when the value shows a file-name sanitizer at
work: a blank or a slash inside the sent value and an underscore in the received one,
or a character a file system refuses in the sent one. Dropped quotes, backslashes or
symbols alone are what a shell parser or a transliterator does too: not named here;
nor is a value that only lost its tail (a cut: ``truncate``).
Where the segment sits in the value comes from the context: the ends of the value are
stripped, the inside is not; a value whose hunks several styles replay names the first
that replays them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from fidelity._compare.rules.base import Context, Rule

__all__ = ["RULES", "STYLES", "one_style"]

_WERKZEUG_SAFE = re.compile(r"[A-Za-z0-9_.-]*")
_WERKZEUG_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_ASCII_RUN = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1f /]+")
_DJANGO_SAFE = re.compile(r"[-\w.]*")
_DJANGO_UNSAFE = re.compile(r"[^-\w.]")
_PATHVALIDATE_UNSAFE = re.compile('[\x00-\x1f\x7f/\\\\:*?"<>|]')
_RESERVED = re.compile("[/:?<>|]")
_INNER_BLANK = re.compile(r"[\s/]")


_RUN_CHARS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f /"


def _werkzeug(s: str, start: bool, end: bool) -> str:
    # What the ASCII step leaves: a non-ASCII character between two blanks goes first,
    # and the blanks become one run.
    s = s.encode("ascii", "ignore").decode("ascii")
    if start:
        s = s.lstrip(_RUN_CHARS)
    if end:
        s = s.rstrip(_RUN_CHARS)
    s = _WERKZEUG_UNSAFE.sub("", _ASCII_RUN.sub("_", s))
    if start:
        s = s.lstrip("._")
    if end:
        s = s.rstrip("._")
    return s


def _werkzeug_value(value: str) -> bool:
    if _WERKZEUG_SAFE.fullmatch(value) is None:
        return False
    return not value or (value[0] not in "._" and value[-1] not in "._")


def _django(s: str, start: bool, end: bool) -> str:
    if start:
        s = s.lstrip()
    if end:
        s = s.rstrip()
    return _DJANGO_UNSAFE.sub("", s.replace(" ", "_"))


def _django_value(value: str) -> bool:
    return value not in ("", ".", "..") and _DJANGO_SAFE.fullmatch(value) is not None


def _pathvalidate(s: str, start: bool, end: bool) -> str:
    out = _PATHVALIDATE_UNSAFE.sub("", s)
    if end and out.endswith((" ", ".")) and not (start and out in (".", "..")):
        out = out.rstrip(" ").rstrip(" .")
        if start:
            out = out.lstrip(" ")
    return out


def _pathvalidate_value(value: str) -> bool:
    if _PATHVALIDATE_UNSAFE.search(value) is not None:
        return False
    return value in (".", "..") or not value.endswith((" ", "."))


Style = tuple[str, Callable[[str, bool, bool], str], Callable[[str], bool]]

#: The sanitizers, in the order their name is preferred when several replay a hunk.
STYLES: tuple[Style, ...] = (
    ("secure_filename", _werkzeug, _werkzeug_value),
    ("get_valid_filename", _django, _django_value),
    ("sanitize_filename", _pathvalidate, _pathvalidate_value),
)


def _place(s: str, r: str, ctx: Context) -> tuple[str, str, bool, bool]:
    """The whole values, and whether the received segment ``r`` starts and ends its own.

    Without a received value the segments are the whole values; the sent value may
    still be given (a whole value's second rewrite replays the first one's output).
    """
    sent = s if ctx.sent is None else ctx.sent
    if ctx.value is None:
        return sent, r, True, True
    return sent, ctx.value, ctx.start == 0, ctx.start + len(r) == len(ctx.value)


def _file_name(sent: str, received: str | None) -> bool:
    """True when the value shows what only a file-name sanitizer does.

    A blank or a slash inside the sent value and an underscore in the received one (a
    blank or a separator replaced), or a character a file system refuses (``/ : ? < >
    |``) in the sent value. A value that only lost quotes, backslashes, symbols or
    non-ASCII letters may come from a shell parser, a Markdown renderer or a
    transliterator as well. Without a received value: whether one could show it.
    """
    if _RESERVED.search(sent) is not None:
        return True
    if received is not None and "_" not in received:
        return False
    return _INNER_BLANK.search(sent.strip()) is not None


@lru_cache(maxsize=4)
def _possible(sent: str, received: str) -> tuple[Style, ...]:
    """The styles that may have turned ``sent`` into ``received``.

    Strings keep their hash: the values of one comparison are read once, not once per
    hunk (a few pairs are kept, as one comparison classifies parts of its values).
    """
    if not _file_name(sent, received):
        return ()
    if len(received) < len(sent) and sent.startswith(received):
        # Only the tail is gone: a cut (``truncate``, at a NUL or a limit), whichever
        # sanitizer would also have removed what it held ("\x00|" -> "").
        return ()
    return tuple(style for style in STYLES if style[2](received))


def _match(s: str, r: str, ctx: Context) -> str | None:
    sent, value, start, end = _place(s, r, ctx)
    for name, sanitize, _ in _possible(sent, value):
        if sanitize(s, start, end) == r:
            return name
    return None


def _replays(style: Style, s: str, r: str, ctx: Context) -> bool:
    """True when ``style`` may have made the values and turns segment ``s`` into ``r``."""
    sent, value, start, end = _place(s, r, ctx)
    return style in _possible(sent, value) and style[1](s, start, end) == r


def one_style(segments: Iterable[tuple[str, str, Context]]) -> str | None:
    """The first style that replays every segment of a value, or None.

    Each hunk names the first style that replays it (a space that became ``_`` is
    Werkzeug's as much as Django's); the value is one sanitizer's work, named once.
    """
    todo = list(segments)
    for style in STYLES:
        if all(_replays(style, s, r, ctx) for s, r, ctx in todo):
            return style[0]
    return None


def _apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    sent = s if ctx.sent is None else ctx.sent
    if ctx.value is None:
        # The whole value: each style's output, where it shows a file-name sanitizer.
        if not _file_name(sent, None):
            return []
        outs = ((sanitize(s, True, True), name) for name, sanitize, _ in STYLES)
        return [(out, name) for out, name in outs if _file_name(sent, out)]
    styles = _possible(sent, ctx.value)
    return [(sanitize(s, ctx.start == 0, False), name) for name, sanitize, _ in styles]


RULES: tuple[Rule, ...] = (
    Rule(
        kind="path.sanitized",
        src=re.compile(r"[^A-Za-z0-9_.-]|^[._]|[._]$"),
        dst=None,
        match=_match,
        apply=_apply,
    ),
)
