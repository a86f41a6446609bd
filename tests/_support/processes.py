"""Processes a test watches from outside (a server, the child it started): whether a
pid still runs, waiting until some are gone, the pids a server wrote down; and waiting,
bounded, until anything holds."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["alive", "gone", "server_pids", "wait_for"]


def wait_for(condition: Callable[[], object], bound: float = 30.0) -> bool:
    """Wait (at most ``bound`` seconds) until ``condition()`` holds; whether it did."""
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"


def gone(pids: list[int], bound: float = 10.0) -> bool:
    """Wait (at most ``bound`` seconds) until none of ``pids`` runs; whether none does."""
    return wait_for(lambda: not any(alive(p) for p in pids), bound)


def server_pids(path: Path, bound: float = 10.0) -> list[int]:
    """The two pids ``mcp_hostile.py --pid-file PATH --child`` writes (its own, then its
    child's), once both are there; fails when they are not within ``bound`` seconds."""

    def written() -> bool:
        return path.exists() and len(path.read_text().split()) == 2

    assert wait_for(written, bound), f"the server wrote no pids to {path}"
    return [int(p) for p in path.read_text().split()]
