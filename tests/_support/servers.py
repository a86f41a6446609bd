"""The test servers under ``tests/servers/``: paths, and running one in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

__all__ = ["HOSTILE_MCP", "PYTHON", "SERVERS", "http_server", "serving"]

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
