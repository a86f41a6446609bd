"""Keep Hypothesis's explanation of a failure about the user's code, not ours.

When a ``@given`` test fails, Hypothesis's *explain* phase traces the failing and the
passing examples and adds notes to the exception::

    Explanation:
        These lines were always and only run by failing test cases:
            /site-packages/fidelity/_classify.py:148
            ...

For a test that fails inside ``fidelity.check()`` those lines are param-fidelity's
classifier recognising the rewrite: true, but about our internals, never about the
user's chain (which runs the same lines for passing and failing examples). The plugin
does not touch the user's Hypothesis settings; it only drops, from the notes of the
exception being reported, the explanation lines that point into param-fidelity's own
packages, and the whole block when nothing else is left in it. Notes in any other
form are left exactly as they are.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["drop_internal_explanations"]

_STUB = "Explanation:"
_LOCATION = re.compile(r"^\s+(?P<path>.+):(?P<line>\d+)$")
_MORE = re.compile(r"^\s+\(and \d+ more with settings\.verbosity >= verbose\)$")
_PACKAGES = ("fidelity", "strategies", "probes")


def _our_directories() -> tuple[Path, ...]:
    out = []
    for name in _PACKAGES:
        module = sys.modules.get(name)
        if module is None or module.__file__ is None:
            continue
        if name != "fidelity" and not getattr(module, "__param_fidelity__", False):
            continue  # a user's own module of that name: its lines are theirs
        out.append(Path(module.__file__).resolve().parent)
    return tuple(out)


def _ours(path: str, directories: tuple[Path, ...]) -> bool:
    try:
        resolved = Path(path).resolve()
    except (OSError, ValueError):
        return False
    return any(resolved.is_relative_to(d) for d in directories)


def _is_heading(notes: list[str], i: int) -> bool:
    return (
        notes[i] == _STUB
        and i + 1 < len(notes)
        and notes[i + 1].strip().startswith("These lines were")
    )


def _filtered(notes: list[str], directories: tuple[Path, ...]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(notes):
        if not _is_heading(notes, i):
            out.append(notes[i])
            i += 1
            continue
        # The stub, its heading line, then location lines and an optional "(and N more)".
        end = i + 2
        while end < len(notes) and (_LOCATION.match(notes[end]) or _MORE.match(notes[end])):
            end += 1
        block = notes[i + 2 : end]
        locations = [m["path"] for n in block if (m := _LOCATION.match(n))]
        theirs = [path for path in locations if not _ours(path, directories)]
        if theirs or not locations:
            kept = [
                n
                for n in block
                if not ((m := _LOCATION.match(n)) and _ours(m["path"], directories))
            ]
            out.extend([*notes[i : i + 2], *kept])
        # Else every shown line was ours and the block goes, with its "(and N more)": when
        # param-fidelity is installed, Hypothesis sorts local files first, so the lines
        # it cut come after ours and are installed code too. (In an editable install a
        # cut line could be a local file sorting after ours; we accept that loss.)
        i = end
    return out


def drop_internal_explanations(exc: BaseException) -> None:
    """Remove explanation lines pointing into param-fidelity from ``exc``'s notes.

    Walks exception groups. Does nothing when there is no explanation block.
    """
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list) and _STUB in notes:
        directories = _our_directories()
        if directories:
            notes[:] = _filtered(notes, directories)
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            drop_internal_explanations(inner)
