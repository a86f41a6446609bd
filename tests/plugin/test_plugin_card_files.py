"""The plugin's card files are input and output like any other: a committed card nested
100k deep is one line of the summary, and ``--fidelity-cards`` writes atomically,
never through a symbolic link that leads out of the cards directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SURVEY_TESTS = """
import pytest
import tool

@pytest.mark.fidelity(allow=["quote.straighten"], card="edit_file.old_string")
def test_edit_survey(fidelity):
    fidelity.survey(tool.send)
"""
FAMILIES = "--fidelity-families=quotes"


def test_a_committed_card_nested_100k_deep_is_one_line_not_a_traceback(
    tool_repo: pytest.Pytester,
) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    committed = tool_repo.path / "committed"
    committed.mkdir()
    (committed / "edit_file.old_string.json").write_text("[" * 100_000 + "]" * 100_000)
    result = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["committed card *edit_file.old_string.json cannot be read: *nested too deeply*"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*RecursionError*")
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


def test_a_committed_card_that_is_a_fifo_is_one_line_not_a_hang(
    tool_repo: pytest.Pytester,
) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    committed = tool_repo.path / "committed"
    committed.mkdir()
    os.mkfifo(committed / "edit_file.old_string.json")
    result = tool_repo.runpytest(FAMILIES, "--fidelity-check=committed")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["committed card * cannot be read: *is a FIFO, not a regular file*"]
    )


def test_a_card_linked_out_of_the_cards_directory_is_not_written_through(
    tool_repo: pytest.Pytester,
) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    outside = tool_repo.path / "outside.md"
    outside.write_text("# someone else's file\n")
    cards = tool_repo.path / "cards"
    cards.mkdir()
    (cards / "edit_file.old_string.md").symlink_to(outside)
    result = tool_repo.runpytest(FAMILIES, "--fidelity-cards=cards")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["cannot write cards to cards: card *edit_file.old_string.md is a symbolic link to *"]
    )
    assert outside.read_text() == "# someone else's file\n"
    assert (cards / "edit_file.old_string.md").is_symlink()


def test_a_card_linked_within_the_cards_directory_is_written_through_the_link(
    tool_repo: pytest.Pytester,
) -> None:
    tool_repo.makepyfile(test_tool=SURVEY_TESTS)
    cards = tool_repo.path / "cards"
    (cards / "v1").mkdir(parents=True)
    real = cards / "v1" / "edit.md"
    real.write_text("old\n")
    (cards / "edit_file.old_string.md").symlink_to(Path("v1") / "edit.md")
    result = tool_repo.runpytest(FAMILIES, "--fidelity-cards=cards")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert (cards / "edit_file.old_string.md").is_symlink()
    assert "Parameter transformations: edit\\_file.old\\_string" in real.read_text()
    assert not [p for p in (cards / "v1").iterdir() if p.name != "edit.md"]  # no temporary left
