"""The in-process runner gives what the subprocess gives (the same words, the same exit
code), and leaves this process as it found it."""

from __future__ import annotations

import logging
import os
import signal
import warnings
from pathlib import Path

import pytest
from _support.cli import fidelity, fidelity_inprocess


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        [],
        ["compare", "--help"],
        ["compare", "a", "b"],
        ["probe", "--no-such-option"],
        ["compare", "say \u201chi\u201d", 'say "hi"'],
    ],
    ids=["version", "no-command", "help", "missing-files", "bad-option", "text"],
)
def test_the_same_as_a_subprocess(argv: list[str], tmp_path: Path) -> None:
    (tmp_path / "a").write_text("say \u201chi\u201d", encoding="utf-8")
    (tmp_path / "b").write_text('say "hi"', encoding="utf-8")
    inside = fidelity_inprocess(*argv, cwd=tmp_path)
    outside = fidelity(*argv, cwd=tmp_path)
    assert (inside.returncode, inside.stdout, inside.stderr) == (
        outside.returncode,
        outside.stdout,
        outside.stderr,
    )


def test_the_process_is_left_as_it_was(tmp_path: Path) -> None:
    cwd, environ = os.getcwd(), dict(os.environ)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    done = fidelity_inprocess("compare", "x", "y", cwd=tmp_path, env={"NO_COLOR": "1"})
    assert done.returncode == 2  # no such files in tmp_path
    assert "x" in done.stderr
    assert os.getcwd() == cwd
    assert dict(os.environ) == environ
    assert {s: signal.getsignal(s) for s in handlers} == handlers


def test_warnings_and_log_records_reach_its_stderr_as_in_a_fresh_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fidelity._cli

    def noisy(argv: list[str]) -> int:
        warnings.warn("a user warning", UserWarning, stacklevel=1)
        warnings.warn("hidden by default", DeprecationWarning, stacklevel=1)
        logging.getLogger("some.library").warning("a library's warning")
        logging.getLogger("some.library").info("below the last resort's level")
        return 0

    monkeypatch.setattr(fidelity._cli, "main", noisy)
    done = fidelity_inprocess("anything")
    assert done.returncode == 0
    assert "UserWarning: a user warning" in done.stderr
    assert "a library's warning\n" in done.stderr
    assert "hidden by default" not in done.stderr
    assert "below the last resort" not in done.stderr
    assert logging.getLogger().handlers  # pytest's own, given back
