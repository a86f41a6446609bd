"""Marked blocks in a contract-card document, rewritten in place.

A document holds the card of a chain between two marker lines::

    <!-- fidelity:begin edit_file.old_string -->
    ...the card's Markdown...
    <!-- fidelity:end edit_file.old_string -->

:func:`replace_block` swaps what lies between the markers and leaves every other byte
of the document as it was: its byte order mark, its line endings (the block is
written with the document's own), the text around the block, other blocks. The
document is handled as bytes, so nothing outside the block is ever re-encoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fidelity._core.errors import UsageError

__all__ = ["Block", "check_block_name", "find_block", "newline_of", "normalized", "replace_block"]

_NAME = re.compile(r"[A-Za-z0-9_.:/@+-][A-Za-z0-9_.:/@+ -]*")
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """Where a named block sits in a document, in bytes.

    ``start``/``end`` delimit the content between the end of the begin-marker line
    and the start of the end-marker line; ``content`` is that text.
    """

    name: str
    start: int
    end: int
    content: str


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name) or name != name.strip():
        raise UsageError(
            f"block name {name!r} cannot be used in a marker; "
            "use letters, digits and . _ - : / @ +."
        )


def check_block_name(name: str) -> None:
    """Raise ``UsageError`` (one sentence) when ``name`` cannot name a block."""
    _check_name(name)


def _marker(which: str, name: str) -> re.Pattern[bytes]:
    body = re.escape(name.encode("utf-8"))
    return re.compile(
        rb"^[ \t]*<!--[ \t]*fidelity:"
        + which.encode()
        + rb"[ \t]+"
        + body
        + rb"[ \t]*-->[ \t]*\r?$",
        re.MULTILINE,
    )


def _check_encoding(document: bytes) -> None:
    if document.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UsageError("the document is UTF-16; contract-card documents must be UTF-8.")
    try:
        document.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the document is not valid UTF-8 (byte {exc.start}); contract-card documents "
            "must be UTF-8."
        ) from None


def newline_of(document: bytes) -> bytes:
    """The document's line ending: CRLF when its first line break is CRLF, else LF."""
    first = document.find(b"\n")
    if first > 0 and document[first - 1 : first] == b"\r":
        return b"\r\n"
    return b"\n"


def find_block(document: bytes, name: str) -> Block | None:
    """Return the block named ``name`` in ``document``, or ``None`` when it is absent.

    A begin marker without its end marker, an end marker before its begin marker or
    a name used twice raise :class:`UsageError`.
    """
    _check_name(name)
    _check_encoding(document)
    begins = list(_marker("begin", name).finditer(document))
    ends = list(_marker("end", name).finditer(document))
    if not begins and not ends:
        return None
    if len(begins) > 1 or len(ends) > 1:
        raise UsageError(
            f"the document has more than one block named {name!r}; keep exactly one "
            f"<!-- fidelity:begin {name} --> ... <!-- fidelity:end {name} --> pair."
        )
    if not begins or not ends:
        missing = "end" if begins else "begin"
        raise UsageError(
            f"the document has no <!-- fidelity:{missing} {name} --> marker to pair with "
            f"the {'begin' if begins else 'end'} marker; add it or remove the other one."
        )
    begin, end = begins[0], ends[0]
    if end.start() < begin.end():
        raise UsageError(
            f"the end marker of block {name!r} comes before its begin marker; swap them."
        )
    start = begin.end()
    # Content starts after the begin line's line break.
    if document[start : start + 1] == b"\n":
        start += 1
    stop = max(end.start(), start)
    return Block(name=name, start=start, end=stop, content=document[start:stop].decode("utf-8"))


def _with_newlines(text: str, newline: bytes) -> bytes:
    lines = text.replace("\r\n", "\n").replace("\r", "\n")
    if lines and not lines.endswith("\n"):
        lines += "\n"
    return lines.encode("utf-8").replace(b"\n", newline)


def replace_block(document: bytes, name: str, content: str) -> bytes:
    """Return ``document`` with the block ``name`` holding ``content``.

    The block is created at the end of the document when absent. ``content`` is
    written with the document's line endings and always ends with one. Bytes outside
    the block are returned unchanged.
    """
    block = find_block(document, name)
    newline = newline_of(document)
    body = _with_newlines(content, newline)
    if block is not None:
        return document[: block.start] + body + document[block.end :]
    head = document
    if head and head != _UTF8_BOM and not head.endswith(b"\n"):
        head += newline
    if head and head != _UTF8_BOM:
        head += newline
    begin = f"<!-- fidelity:begin {name} -->".encode()
    end = f"<!-- fidelity:end {name} -->".encode()
    return head + begin + newline + body + end + newline


def normalized(text: str) -> str:
    """``text`` with LF line endings and exactly one final line break (for comparing)."""
    out = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    return out + "\n" if out else ""
