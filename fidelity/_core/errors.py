"""Exceptions raised by param-fidelity.

Exception
├── AssertionError
│   └── FidelityError   a value did not survive; the message is the rendered diff
├── ValueError
│   └── UsageError      bad arguments or input (CLI exit code 2)
└── RuntimeError
    └── TargetError     target unreachable or protocol failure (CLI exit code 3)

ExitCode names every exit code of the command line (as pytest's ``ExitCode``).
"""

from __future__ import annotations

import enum

__all__ = ["ExitCode", "FidelityError", "TargetError", "UsageError", "ended"]

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


class ExitCode(enum.IntEnum):
    """The exit codes of ``fidelity``: every exit of the command goes through these."""

    #: The values came back, and no rewrite beyond ``--allow`` (no drift with ``--check``).
    OK = 0
    #: Rewrites beyond ``--allow``, clients that disagree, drift from a card.
    DIFFERENT = 1
    #: A usage error, in one sentence; nothing was sent (but after a ``--config`` run
    #: whose ``--skip-tool``/``--only-tool`` glob matched no server's tool: its results kept).
    USAGE = 2
    #: The target is unreachable or broke, or nothing was measured.
    TARGET = 3
    #: An internal error (a bug of ours: the sentence asks for a report).
    INTERNAL = 4
    #: Ctrl-C (SIGINT): 128 + 2, as a shell reports it.
    INTERRUPTED = 130

    @staticmethod
    def for_signal(signum: int) -> int:
        """The exit code of a command ended by signal ``signum``: 128 + its number."""
        return 128 + signum


for _cls in (FidelityError, UsageError, TargetError, ExitCode):
    _cls.__module__ = _PUBLIC_MODULE
