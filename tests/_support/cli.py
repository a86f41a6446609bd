"""Run the ``fidelity`` command as a user would: the installed script in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["FIDELITY", "fidelity"]

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
