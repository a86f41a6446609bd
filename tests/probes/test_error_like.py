"""A calibration reply that says the value was not found is never a read-back.

:func:`probes._payload.calibration.error_like` reads how each reply begins, the
marker taken out: the answers third-party servers give for a thing that is not there
(with an error flag or without), and the replies that hold the value as it was stored.
"""

from __future__ import annotations

import pytest

from probes._payload.calibration import error_like

MARKER = "fidelity-marker-0123abcd"


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (f"File not found: {MARKER}", "not found"),
        (f"Note not found: {MARKER}", "not found"),
        (f"No task found matching '{MARKER}'", "No task found matching"),
        (f"No results for: {MARKER}", "No results"),
        ("No notes found", "No notes found"),
        (f"Vault not found: {MARKER}", "not found"),
        (f"{MARKER}: Error - ENOENT: no such file or directory", " : Error"),
        ('{\n  "status": "error",\n  "message": "Request not found"\n}', "not found"),
        ("Invalid arguments for tool plan_task: too_small", "Invalid"),
        (f"Error executing tool read_note: {MARKER}", "Error"),
        (f"The file {MARKER} does not exist", "does not exist"),
    ],
)
def test_an_answer_that_says_not_found_is_error_like(reply: str, words: str) -> None:
    assert error_like([reply], [MARKER]) == words


@pytest.mark.parametrize(
    "reply",
    [
        MARKER,
        f"Wrote {MARKER}",
        f"searched the note names for {MARKER}: 0",
        f'{{"name": "{MARKER}", "entityType": "note"}}',
        # A long document that speaks of invalid input further down is not an error.
        "## Reflection Results\n\n"
        + "Check the solution step by step. " * 10
        + f"Summary: {MARKER}\n\nReject invalid assumptions.",
    ],
)
def test_a_reply_that_holds_the_value_is_not_error_like(reply: str) -> None:
    assert error_like([reply], [MARKER]) == ""
