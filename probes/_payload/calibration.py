"""Keeping a located read only when it proves itself, and saying why none did.

The probes derive candidate reads from the replies their calibration markers got
(:mod:`probes._payload.locate`); :func:`proven` keeps the first that reads every marker
back exactly from its own reply. When none does, :func:`miss` says what came back in
one clause: a marker that came back changed is named with its kinds (the target
changes even plain ASCII text), a value split across fields is said to be so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes._payload.locate import MARKER_SHAPES

__all__ = [
    "CalibrationFailed",
    "Read",
    "error_like",
    "line_break_rewritten",
    "miss",
    "proven",
    "proven_or_rewritten",
]

#: How a candidate read is applied to reply ``i``: ``(found, value)``.
Read = Callable[[str, int], tuple[bool, object]]
_SHOWN = 80


class CalibrationFailed(UsageError):
    """The calibration call did not show where the value comes back (it failed, or the
    marker was not in the answer); ``answer`` says what came back instead, in one
    clause without advice (terminal-safe). Requests were sent, so a run reports it as
    a result (exit 3), with no observations; a call that got no answer at all is a
    ``TargetError``."""

    def __init__(self, message: str, *, answer: str) -> None:
        super().__init__(message)
        self.answer = answer


#: What a reply that is an error says, whatever flag it carries ("File not found: X",
#: "No task found matching 'X'", "Invalid arguments", "does not exist").
_ERROR_LIKE = re.compile(
    r"\b(?:not\s+found|does\s*n[o']t\s+exist|doesn't\s+exist|no\s+such|not\s+exist"
    r"|failed|invalid|cannot|can't|could\s+not|unable\s+to"
    r"|no\s+\w+(?:\s+\w+)?\s+(?:found|matching|matches)"
    r"|no\s+(?:results?|match(?:es)?|entries|items|notes|records|documents|files|tasks)"
    r"|nothing\s+(?:found|matched)|0\s+results?)\b"
    r"|\A\W*(?:error|exception)\b|\btoo_small\b|\btoo_big\b",
    re.IGNORECASE,
)


#: How much of a reply's beginning says whether it is an error.
_HEAD = 200


def error_like(texts: Sequence[str], markers: Sequence[str]) -> str:
    """The words of ``texts[i]`` (a calibration reply, ``markers[i]`` taken out of it)
    that say it is an error (a thing not found, that does not exist, a call that
    failed, an argument invalid), with or without an error flag; ``""`` when no reply
    says so. Such a reply echoes the value it was given, not what was stored: it is
    never a read-back."""
    for text, marker in zip(texts, markers, strict=False):
        rest = text.replace(marker, " ") if marker else text
        # How a reply begins says whether it is an error: a long text (a document, a
        # prompt) that speaks of invalid input further down is not one.
        found = _ERROR_LIKE.search(rest[:_HEAD])
        if found is not None:
            return found.group(0)
    return ""


def proven(candidates: Sequence[str], read: Read, markers: Sequence[str]) -> str | None:
    """The first of ``candidates`` that reads ``markers[i]`` exactly from reply ``i``."""
    for spec in candidates:
        if all(_reads(read, spec, i) == (True, marker) for i, marker in enumerate(markers)):
            return spec
    return None


def line_break_rewritten(marker: str, value: object) -> bool:
    """True when ``value`` is the line-break ``marker`` whole, its line breaks alone
    rewritten (a space, CRLF, a collapsed run, nothing): both paragraphs are there, so the
    read holds the whole value and the rewrite is the chain's, which the payloads
    measure. A value cut at the line break, or split across fields, is not."""
    if not isinstance(value, str) or value == marker or "\n" not in marker:
        return False
    head, tail = marker[: marker.index("\n")], marker[marker.rindex("\n") + 1 :]
    if len(value) < len(head) + len(tail):
        return False
    middle = value[len(head) : len(value) - len(tail)]
    return value.startswith(head) and value.endswith(tail) and (middle == "" or middle.isspace())


def proven_or_rewritten(
    candidates: Callable[[int], Sequence[str]], read: Read, markers: Sequence[str]
) -> str | None:
    """The read :func:`proven` keeps among ``candidates(len(markers))``; failing that,
    when the chain rewrites line breaks (a prompt collapsing whitespace, say), the
    first of ``candidates(len(markers) - 1)`` (found with the other markers) that
    reads every other marker exactly and the line-break marker whole with only its
    line break rewritten (:func:`line_break_rewritten`). ``candidates(k)``: the reads
    derived from the first ``k`` replies."""
    spec = proven(candidates(len(markers)), read, markers)
    if spec is not None:
        return spec
    last = len(markers) - 1
    if last < 1 or "\n" not in markers[last]:
        return None
    for spec in candidates(last):
        if all(_reads(read, spec, i) == (True, marker) for i, marker in enumerate(markers[:last])):
            found, value = _reads(read, spec, last)
            if found and line_break_rewritten(markers[last], value):
                return spec
    return None


def _reads(read: Read, spec: str, i: int) -> tuple[bool, object]:
    try:
        return read(spec, i)
    except ValueError:
        return False, None


def _kinds(marker: str, value: object) -> str:
    from fidelity._probe.contract import observe_value

    seen = observe_value(marker, value)
    kinds = sorted(seen.kinds) if seen.comparison is not None else []
    return ", ".join(kinds) if kinds else seen.status.value


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = safe(text)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def miss(
    candidates: Sequence[str],
    read: Read,
    markers: Sequence[str],
    *,
    near: Sequence[str | None] = (),
    split: tuple[str, ...] = (),
) -> str:
    """Why no candidate proved itself, in one clause (terminal-safe), or ``""`` when
    nothing came back that looks like a marker.

    ``near[i]`` is what looks like marker ``i`` came back changed (see
    :func:`probes._payload.locate.near_value`); ``split`` the fields the value with a
    line break came back split across.
    """
    if split:
        return (
            f"the value came back split across fields: its first line at {safe(split[0])}, "
            f"the rest at {safe(split[1])}; no field holds it whole"
        )
    for spec in candidates:
        if _reads(read, spec, 0) != (True, markers[0]):
            continue
        for i, marker in enumerate(markers[1:], 1):
            found, value = _reads(read, spec, i)
            if (found, value) == (True, marker):
                continue
            shape = MARKER_SHAPES[i] if i < len(MARKER_SHAPES) else f"marker {i + 1}"
            if not found:
                return f"read at {safe(spec)}, the value with {shape} did not come back"
            if value in markers[:i]:
                return (
                    f"read at {safe(spec)}, the value with {shape} came back as the one sent "
                    "before it: the read returns an earlier entry, not the one each call wrote"
                )
            return (
                f"read at {safe(spec)}, the value with {shape} came back changed "
                f"({_kinds(marker, value)}): {_shown(value)!r}"
            )
    for i, (marker, value) in enumerate(zip(markers, near, strict=False)):
        if value is None or value == marker:
            continue
        if value in markers[:i]:
            shape = MARKER_SHAPES[i] if i < len(MARKER_SHAPES) else f"marker {i + 1}"
            return (
                f"the value with {shape} came back as the one sent before it: the read "
                "returns an earlier entry, not the one each call wrote"
            )
        kinds = _kinds(marker, value)
        if i == 0:
            return f"the target changes even plain ASCII text: {kinds} ({_shown(value)!r})"
        shape = MARKER_SHAPES[i] if i < len(MARKER_SHAPES) else f"marker {i + 1}"
        return f"the value with {shape} came back changed ({kinds}): {_shown(value)!r}"
    if near and near[0] == markers[0]:
        for i, value in enumerate(near[1 : len(markers)], 1):
            if value is None:
                shape = MARKER_SHAPES[i] if i < len(MARKER_SHAPES) else f"marker {i + 1}"
                return (
                    f"the plain value came back, the value with {shape} did not: each call "
                    "must write an entry of its own (a name holding {n} or {run}, say)"
                )
    return ""
