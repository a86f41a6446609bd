"""The in-process runner gives what the subprocess gives (the same words, the same exit
code), and leaves this process as it found it."""

from __future__ import annotations

import os
import signal
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
