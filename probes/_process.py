"""Stopping processes: a reflector subprocess (a bounded wait, then a kill), and every
process a run started, however it detached (:func:`contained`)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

__all__ = ["STOP_TIMEOUT", "contained", "descendants", "end_descendants", "stop_process"]

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


# -- every process a run started, ended with it --------------------------------------

#: prctl(2) options: make this process the reaper of its orphaned descendants.
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
#: What a descendant left at the end gets after SIGTERM before SIGKILL, and how long
#: the killed ones are waited for.
_END_GRACE = 0.5
_END_WAIT = 5.0


def _prctl(option: int, value: int) -> int | None:
    """``prctl(option, value)`` through libc (Linux); ``None`` where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    if option == _PR_GET_CHILD_SUBREAPER:
        flag = ctypes.c_int(0)
        got = libc.prctl(option, ctypes.addressof(flag), 0, 0, 0)
        return None if got != 0 else flag.value
    return None if prctl(option, value, 0, 0, 0) != 0 else 0


def _parents() -> dict[int, int]:
    """Every process's parent, from ``/proc`` (empty where there is none)."""
    found: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1].isdigit():
            found[int(name)] = int(fields[1])
    return found


def descendants(pid: int | None = None) -> set[int]:
    """The processes below ``pid`` (this process by default), at any depth (Linux)."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def _signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


@contextlib.contextmanager
def contained() -> Iterator[bool]:
    """Within this block, no process started from it outlives it (Linux).

    This process becomes a child subreaper (``PR_SET_CHILD_SUBREAPER``), so a process
    started below it that detaches (double fork, ``setsid``: a daemon) is re-parented
    here instead of to init, and stays a descendant. When the block ends, every
    descendant that was not there when it began gets SIGTERM, then SIGKILL after a short
    grace, and those left to this process are reaped. Yields whether the containment
    holds (False where ``prctl`` is not available: macOS, Windows, a sandbox that
    forbids it; there a daemon that left its process group is not followed).
    """
    before = _prctl(_PR_GET_CHILD_SUBREAPER, 0)
    held = before is not None and _prctl(_PR_SET_CHILD_SUBREAPER, 1) is not None
    existing = descendants() if held else set()
    try:
        yield held
    finally:
        if held:
            end_descendants(existing)
            if not before:
                _prctl(_PR_SET_CHILD_SUBREAPER, 0)


def end_descendants(keep: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """End every descendant of this process but ``keep`` (SIGTERM, then SIGKILL); reap
    the ones that are this process's own children once they died. Returns the pids ended."""
    left = descendants() - set(keep)
    if not left:
        return set()
    ended = set(left)
    _signal_all(left, signal.SIGTERM)
    deadline = time.monotonic() + _END_GRACE
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = {p for p in left if not _zombie(p)}
    # Whatever they started meanwhile is ended too.
    more = descendants() - set(keep) - ended
    ended |= more
    _signal_all(left | more, _SIGKILL)
    deadline = time.monotonic() + _END_WAIT
    pending = set(ended)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            if not _zombie(pid):
                continue
            try:  # a child waited for elsewhere (an asyncio watcher) is reaped there
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not ours to reap, or reaped already
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.02)
    return ended


_SIGKILL: int = getattr(signal, "SIGKILL", signal.SIGTERM)
