"""Showing values in reports: code points, then the text as a code span with
[U+XXXX NAME] badges; Markdown escaping; cutting long text."""

from __future__ import annotations

import re

from fidelity._core.render import codepoints, safe

__all__ = ["FAILURES", "LEGEND", "LETTERS", "clip", "code_span", "cut", "md", "points", "shown"]

#: The statuses of a payload that did not arrive.
FAILURES = frozenset({"rejected", "lost", "timeout", "broken"})

#: One letter per outcome in the maps printed on a terminal (``fidelity survey``, the
#: ``--all-tools`` map), and the line that explains them.
LETTERS = {
    "preserved": ".",
    "transformed": "T",
    "rejected": "R",
    "lost": "L",
    "timeout": "!",
    "broken": "X",
    "mixed": "M",
}
LEGEND = "  ".join(f"{letter} {name}" for name, letter in LETTERS.items()) + "  - family not sent"


def points(text: str, most: int) -> str:
    """The first ``most`` code points of ``text`` as ``U+XXXX``, then its length when
    there are more; ``(empty)`` for ``""``."""
    shown = codepoints(text[:most])
    if len(text) > most:
        shown += f" ... ({len(text)} code points)"
    return shown or "(empty)"


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with ``...`` (ASCII, for terminals)."""
    return text if len(text) <= width else text[: width - 3] + "..."


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` code points, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(text: str, limit: int, *, markdown: bool = True) -> str:
    """Code points, then the safe text as a code span, both abbreviated for long values.

    A code span, not quotation marks: typographic or ASCII quotes around the text
    would be mistaken for part of it (the quotes family is about exactly those).
    """
    if len(text) <= limit:
        cps, part = codepoints(text) or "(empty)", text
    else:
        cps = f"{codepoints(text[:12])} … {codepoints(text[-4:])} ({len(text)} code points)"
        part = text[: limit - 8] + "…" + text[-4:]
    if not part:
        return cps
    return f"{cps} {code_span(safe(part)) if markdown else '`' + safe(part) + '`'}"


def code_span(text: str) -> str:
    """``text`` as a Markdown code span that shows it literally, inside a table cell too."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both ends have one: pad so that
    # a leading or trailing space or backtick of the text survives.
    pad = " " if (text[0] in " `" or text[-1] in " `") and text.strip(" ") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


_MD_SPECIAL = set("\\`*_[]<>|&#~")


def md(text: str) -> str:
    """Terminal-safe text with Markdown and table syntax escaped."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in safe(text))
