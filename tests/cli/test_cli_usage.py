"""Usage errors of every subcommand end as one sentence and exit code 2."""

from __future__ import annotations

import pytest

from fidelity._cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["--bogus"],
        ["nosuch"],
        ["probe", "--timeout"],
        ["probe", "--bogus", "http://127.0.0.1:1/"],
        ["survey", "--chains"],
        ["compare", "only-one-file"],
        ["reflect", "ftp"],
        ["card"],
    ],
)
def test_usage_error_is_one_sentence(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fidelity: ")
    assert "--help" in lines[0]
    assert "usage:" not in err


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "survey" in capsys.readouterr().err
