"""Exceptions raised by param-fidelity.

Exception
├── AssertionError
│   └── FidelityError   a value did not survive; the message is the rendered diff
├── ValueError
│   └── UsageError      bad arguments or input (CLI exit code 2)
└── RuntimeError
    └── TargetError     target unreachable or protocol failure (CLI exit code 3)
"""

from __future__ import annotations

__all__ = ["FidelityError", "TargetError", "UsageError", "ended"]

# Shown as fidelity.FidelityError in tracebacks and pytest output: the public name.
_PUBLIC_MODULE = "fidelity"


class FidelityError(AssertionError):
    """A value was rewritten in a way that was not allowed.

    The message is the terminal-safe rendering of the comparison; ``comparison`` keeps
    the structured result.
    """

    def __init__(self, message: str, comparison: object = None) -> None:
        super().__init__(message)
        self.comparison = comparison


def ended(text: str) -> str:
    """``text`` as the end of a sentence: one full stop added, unless it already ends
    with ``.``, ``?`` or ``!`` (an exception's text may end with one: Python 3.13's
    ``TypeError`` adds "Did you mean 'allow'?")."""
    stripped = text.rstrip()
    return stripped if stripped.endswith((".", "?", "!")) else stripped + "."


class UsageError(ValueError):
    """Arguments or input that cannot be used: one sentence saying what and what to do."""


class TargetError(RuntimeError):
    """The target could not be reached or spoke something other than its protocol."""


for _cls in (FidelityError, UsageError, TargetError):
    _cls.__module__ = _PUBLIC_MODULE
