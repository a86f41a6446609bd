"""The fixture's ``fidelity.sweep(server)``: every tool of a Python MCP server swept in
a test, its cards recorded as a survey's, the test failed with the rows rewritten
beyond the allowed kinds.

The server (written here) saves notes and turns CRLF into LF on the way; its reader is
annotated read-only, so the sweep pairs it with the writer. The truth is what the
server does, by hand: only save_note.body loses the CR.
"""

from __future__ import annotations

import json

import pytest
from _needs import need_module

SERVER = '''
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("notes")
notes = {}


@app.tool()
def save_note(key: str, body: str) -> str:
    """Save a note (and "tidy" its line endings)."""
    notes[key] = body.replace("\\r\\n", "\\n")
    return f"saved {key}"


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(key: str) -> str:
    """Read a note back."""
    return notes.get(key, f"no note {key}")
'''


def test_a_sweep_fails_on_the_rows_beyond_the_allowed_kinds_and_records_every_card(
    pytester: pytest.Pytester,
) -> None:
    need_module("mcp")
    pytester.makepyfile(tidy_notes=SERVER)
    pytester.makepyfile(
        test_sweep="""
        import sys

        import pytest

        import probes


        def test_strict(fidelity):
            fidelity.sweep(probes.mcp_module("tidy_notes:app"), yes=True, families=["newlines"])


        @pytest.mark.fidelity(allow=["newline.crlf_to_lf"])
        def test_allowed(fidelity):
            command = [sys.executable, "-m", "probes._mcp.serve_object", "tidy_notes:app"]
            swept = fidelity.sweep(command, yes=True, families=["newlines"])
            assert [r.name for r in swept.rows] == [
                "save_note.key", "save_note.body", "read_note.key"]
            assert swept.exit_code == 0
            assert swept.rows[1].paired == "save_note.body read back with read_note(key)"
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--fidelity-cards=cards")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       fidelity.FidelityError: the sweep found rewrites beyond the allowed kinds "
            "in 1 of 3 parameters surveyed:",
            "E         save_note.body  newline.crlf_to_lf",
            "E       if these rewrites are accepted: "
            '@pytest.mark.fidelity(allow=["newline.crlf_to_lf"])',
        ]
    )
    # Every parameter's card, as the fixture's surveys write theirs.
    written = sorted(p.name for p in (pytester.path / "cards").iterdir())
    assert written == [
        "read_note.key.json", "read_note.key.md", "save_note.body.json", "save_note.body.md",
        "save_note.key.json", "save_note.key.md",
    ]  # fmt: skip
    card = json.loads((pytester.path / "cards" / "save_note.body.json").read_text("utf-8"))
    assert card["name"] == "save_note.body"
    assert card["facts"]["setup"]["tool"] == "save_note"


def test_a_sweep_takes_a_server_not_a_function(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_wrong="""
        def test_wrong(fidelity):
            fidelity.sweep(len)
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       fidelity.UsageError: fidelity.sweep() takes an MCP server: its command as a "
            "list of words, its URL, or an MCP probe (probes.mcp, probes.mcp_module); not "
            "builtin_function_or_method."
        ]
    )
