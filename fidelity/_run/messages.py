"""Messages of ``fidelity probe`` as one line that speaks the command line's language.

The probes raise errors in the words of their Python API (``tool='x' is not offered``,
``read='y' is not understood``) and pass on what the libraries under them said, which
can run to several lines (a pydantic validation report, the same reason three times
over). :func:`as_options` renames the API arguments to the options a user typed, and
:func:`one_line` folds a message onto one bounded line. Neither makes text
terminal-safe: the dispatcher does that when it prints.
"""

from __future__ import annotations

import re

__all__ = ["MAX_MESSAGE", "as_options", "one_line"]

#: The longest message printed, in code points.
MAX_MESSAGE = 300

_OPTIONS = {
    "tool": "--tool",
    "param": "--param",
    "args": "--args",
    "read": "--read",
    "read_tool": "--read-tool",
    "read_args": "--read-args",
    "read_url": "--read-url",
    "id_from": "--id-from",
    "before": "--before",
    "send": "--send",
    "timeout": "--timeout",
    "clients": "--clients",
    "body": "--body",
    "headers": "--header",
    "auth": "--auth",
    "method": "--method",
    "expect": "--expect",
}
# An API argument as the probes quote it: ``name=`` right before its repr.
_API_ARGUMENT = re.compile(r"\b(" + "|".join(_OPTIONS) + r"|url|target)=(?=['\"\[{(0-9-])")
_SPACES = re.compile(r"\s+")
# Line breaks that an earlier step already turned into badges.
_BREAK_BADGES = re.compile(r"\[U\+(?:000A|000D|0085|2028|2029) [A-Z -]+\]")


def _rename(match: re.Match[str]) -> str:
    name = match.group(1)
    if name == "url":
        return "the URL "
    if name == "target":
        return "the target "
    return _OPTIONS[name] + " "


def as_options(message: str) -> str:
    """``message`` with the probes' API argument names (``read_tool=``) as options."""
    return _API_ARGUMENT.sub(_rename, message)


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` on one line: line breaks (raw or badged) and runs of spaces folded.

    A reason after `` | `` whose start was already said is dropped; the result is cut
    to ``limit`` code points with ``...``.
    """
    text = _SPACES.sub(" ", _BREAK_BADGES.sub(" ", message)).strip()
    parts: list[str] = []
    for part in text.split(" | "):
        if len(part) < 20 or not any(part[:40] in seen for seen in parts):
            parts.append(part)
    text = " | ".join(parts)
    if len(text) <= limit:
        return text
    return text[: limit - 3].rstrip() + "..."
