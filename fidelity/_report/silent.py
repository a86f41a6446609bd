"""Edits that did not apply although the tool answered without an error flag.

A payload ``rejected`` with ``silent`` set (see ``expect`` and ``{mark}`` in the
probes) is the seed scenario of this project: the call answered as if it worked, but
the read-back shows the edit never happened. :func:`silent_note` says so in one
sentence for the map, the card and the HTML report ("edit_block did not apply the
edit for 2 newlines payloads; it answered "No match found" without an error flag.");
:func:`unapplied_families` lists the families it happened to, for the sentence for the
model. Observations and card records both work: anything with ``status``,
``silent``, ``families`` and ``error``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from fidelity._core.render import safe
from fidelity._probe.observation import SILENT_ANSWER

__all__ = ["silent_note", "unapplied_families"]

_ANSWER = 120


class _Measured(Protocol):
    @property
    def silent(self) -> bool: ...

    @property
    def families(self) -> Sequence[str]: ...

    @property
    def error(self) -> str: ...


def unapplied_families(measured: Iterable[_Measured]) -> tuple[str, ...]:
    """The families (each payload's first) with a payload whose edit did not apply."""
    return tuple(dict.fromkeys(m.families[0] for m in measured if m.silent and m.families))


def silent_note(tool: str, measured: Iterable[_Measured]) -> str:
    """One sentence on the payloads whose edit did not apply, per family, with the first
    answer quoted; ``""`` when there were none."""
    silent = [m for m in measured if m.silent]
    if not silent:
        return ""
    counts: dict[str, int] = {}
    for m in silent:
        family = m.families[0] if m.families else "other"
        counts[family] = counts.get(family, 0) + 1
    parts = [f"{n} {safe(f)} payload{'s' if n != 1 else ''}" for f, n in counts.items()]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    answer = silent[0].error.partition(SILENT_ANSWER)[2].strip()
    if len(answer) > _ANSWER:
        answer = answer[:_ANSWER].rstrip() + "..."
    said = f'"{safe(answer)}"' if answer else "without text"
    return (
        f"{safe(tool)} did not apply the edit for {listed}; it answered {said} without an "
        "error flag."
    )
