"""Finding where a value comes back: the marker of a calibration call, located.

Before a run whose read-back is not given, the probes send one plain ASCII marker
through the whole chain and look for it in what came back. These functions are the
looking: :func:`json_path_of` finds the marker as a whole string in a JSON document;
:func:`text_pattern` turns "the marker, with this text before and after it" into a
regular expression that finds the value of the next payloads.

Text around the marker is taken as constant, except what looks like it changes from
call to call: the part of the text before the marker is kept from after the last
word that holds a digit (an id, a hash, a time, a count, a per-payload ``{n}``), the
part after it up to the first such word. An anchor cut that way is no longer tied to
the start (or end) of the text; a value is then read up to the first occurrence of
the anchor after it (lazily), instead of to the end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "STALE_READ",
    "is_marker",
    "json_path_of",
    "marker_of",
    "regex_literal",
    "text_pattern",
]

_MARKER = re.compile(r"fidelity-marker-[0-9a-f]{8}")
#: Why a payload whose read-back returned a calibration marker is ``lost``.
STALE_READ = (
    "the read-back returned the calibration value, not this payload's: it reads an "
    "earlier entry (a list that keeps old values, say); read the entry this payload wrote"
)
_VARYING = re.compile(r"\w*\d\w*")
#: The ASCII characters that mean something in a pattern (outside a class).
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_MAX_NODES = 100_000


def json_path_of(document: object, marker: str) -> tuple[str | int, ...] | None:
    """The first path (document order) at which ``document`` holds exactly ``marker``."""
    for path, value in _leaves(document):
        if value == marker:
            return path
    return None


def _leaves(document: object) -> Iterator[tuple[tuple[str | int, ...], object]]:
    stack: list[tuple[tuple[str | int, ...], object]] = [((), document)]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            stack.extend(reversed([((*path, k), v) for k, v in node.items() if isinstance(k, str)]))
        elif isinstance(node, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(node)]))
        else:
            yield path, node


def regex_literal(text: str) -> str:
    """``text`` as a regular expression that matches it literally, on one printable line.

    ``re.escape`` leaves a line feed raw; here every control, separator and other
    invisible character is written as an escape (``\\n``, ``\\x00``, ``\\u2028``), so
    the pattern can be printed, recorded and pasted as a command-line argument.
    """
    out = []
    for char in text:
        code = ord(char)
        if char in "\n\r\t":
            out.append({"\n": r"\n", "\r": r"\r", "\t": r"\t"}[char])
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code < 0x80:
            out.append("\\" + char if char in _SPECIAL else char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def _head_anchor(before: str) -> tuple[str, bool]:
    """The constant end of the text before the value, and whether it reaches the start."""
    last = None
    for match in _VARYING.finditer(before):
        last = match
    if last is None:
        return before, True
    tail = before[last.end() :]
    if not tail.strip():
        return before, True  # nothing constant left to anchor on: keep it all
    return tail, False


def _tail_anchor(after: str) -> tuple[str, bool]:
    """The constant start of the text after the value, and whether it reaches the end."""
    first = _VARYING.search(after)
    if first is None:
        return after, True
    head = after[: first.start()]
    if not head.strip():
        return after, True
    return head, False


def text_pattern(text: str, marker: str, *, guess: bool = True) -> str | None:
    """A pattern with one group that finds, in texts like ``text``, what stands where
    ``marker`` stands in it (``None`` when ``marker`` is not in ``text``).

    With ``guess`` the text around the marker is trimmed to what looks constant (see
    the module); without, all of it is taken as constant. The pattern is checked on
    ``text``: it must give back exactly ``marker``, else the untrimmed one is returned.
    """
    at = text.find(marker)
    if at < 0:
        return None
    before, after = text[:at], text[at + len(marker) :]
    whole = rf"(?s)\A{regex_literal(before)}(.*){regex_literal(after)}\Z"
    if not guess:
        return whole
    head, at_start = _head_anchor(before)
    tail, at_end = _tail_anchor(after)
    group = "(.*)" if at_end else "(.*?)"
    pattern = (
        "(?s)"
        + (r"\A" if at_start else "")
        + regex_literal(head)
        + group
        + regex_literal(tail)
        + (r"\Z" if at_end else "")
    )
    match = re.search(pattern, text)
    if match is None or match.group(1) != marker:
        return whole
    return pattern


def marker_of(run_id: str) -> str:
    """The plain ASCII value a calibration call sends in place of a payload."""
    return f"fidelity-marker-{run_id}"


def is_marker(value: object) -> bool:
    """True when ``value`` is a calibration marker (of this run or an earlier one): no
    payload reads so, so a payload's read-back that returns one read a stale entry."""
    return isinstance(value, str) and _MARKER.fullmatch(value) is not None
