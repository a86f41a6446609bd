"""The test servers under ``tests/servers/``: paths, and running one in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

__all__ = ["HOSTILE_MCP", "PYTHON", "SERVERS", "assert_paced", "http_server", "serving"]

SERVERS = Path(__file__).resolve().parent.parent / "servers"
PYTHON = sys.executable
#: The misbehaving MCP stdio server (``tests/servers/mcp_hostile.py``), flags appended.
HOSTILE_MCP = [sys.executable, str(SERVERS / "mcp_hostile.py")]


def _first_line(proc: subprocess.Popen[bytes], deadline: float) -> str:
    assert proc.stdout is not None
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline and proc.poll() is None:
        chunk = proc.stdout.read1(256)  # type: ignore[attr-defined]
        if not chunk:
            break
        line += chunk
    return line.split(b"\n", 1)[0].decode("utf-8", "replace")


@contextmanager
def serving(script: str, *args: str, start: float = 20) -> Iterator[str]:
    """Run ``tests/servers/SCRIPT ARGS...``, which prints ``listening on URL`` first;
    yield the URL, and stop the server (its whole process) on exit."""
    from probes._process import stop_process

    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / script), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        banner = _first_line(proc, time.monotonic() + start)
        assert banner.startswith("listening on "), f"test server {script} {args} did not start"
        yield banner.removeprefix("listening on ").strip()
    finally:
        stop_process(proc)


def http_server(mode: str) -> AbstractContextManager[str]:
    """One of the modes of ``tests/servers/http_servers.py``; yields its base URL."""
    return serving("http_servers.py", mode)


def assert_paced(arrivals: list[float], rate: float) -> None:
    """Requests sent at most ``rate`` a second, as a test server saw them arrive.

    N requests whose starts are spaced at least 1/R apart span at least (N-1)/R at the
    server. The first request also sets up the connection and may arrive later than it
    left: one interval of slack covers it, so the bound is (N-2)/R. A lower bound only,
    never an upper one: a slow machine cannot fail it. Unpaced, the same requests arrive
    within a few milliseconds.
    """
    count = len(arrivals)
    assert count >= 5, f"too few requests to tell a pace: {arrivals}"
    span = max(arrivals) - min(arrivals)
    assert span >= (count - 2) / rate, f"{count} requests arrived within {span:.3f}s"
