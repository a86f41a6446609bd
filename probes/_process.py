"""Stopping the reflector subprocesses: a bounded wait, then a kill."""

from __future__ import annotations

import subprocess

__all__ = ["STOP_TIMEOUT", "stop_process"]

#: Seconds a reflector gets to exit after SIGTERM, and again after SIGKILL.
STOP_TIMEOUT = 5.0


def stop_process(proc: subprocess.Popen[bytes], *, timeout: float = STOP_TIMEOUT) -> None:
    """Terminate ``proc`` if it still runs, kill it if it does not exit in ``timeout``."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
    if proc.stdout is not None:
        proc.stdout.close()
