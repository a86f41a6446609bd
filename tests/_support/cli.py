"""Run the ``fidelity`` command as a user would: the installed script in a subprocess,
to its end or until a signal stops it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["FIDELITY", "fidelity", "one_sentence", "start", "stop"]

_SCRIPT = Path(sys.executable).with_name("fidelity")
#: The installed command, or ``python -m fidelity`` where no script was installed.
FIDELITY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "fidelity"]


def fidelity(
    *args: str,
    timeout: float = 120,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``fidelity ARGS...`` (in ``cwd``, with ``env`` added to the environment); its
    output decoded as UTF-8 (odd bytes kept as escapes, so a test can assert that
    nothing raw reached the terminal)."""
    return subprocess.run(
        [*FIDELITY, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
    )


def one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    """The one line ``fidelity`` wrote to stderr, ``fidelity: ...``; fails when it wrote
    more or fewer lines, or a traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("fidelity: "), result.stderr
    return lines[0]


def start(*args: str) -> subprocess.Popen[str]:
    """Start ``fidelity ARGS...`` and leave it running: no stdin, its stdout thrown
    away, its stderr kept (decoded as :func:`fidelity` decodes it); end it with
    :func:`stop`."""
    return subprocess.Popen(
        [*FIDELITY, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
    )


def stop(command: subprocess.Popen[str], signum: int = signal.SIGINT) -> tuple[int, str]:
    """Send ``signum`` (Ctrl-C by default) to a command :func:`start` started; its exit
    code and stderr once it has ended (within a minute)."""
    command.send_signal(signum)
    _, stderr = command.communicate(timeout=60)
    return command.returncode, stderr
