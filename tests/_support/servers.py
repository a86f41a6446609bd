"""The test servers under ``tests/servers/``: their commands, running one in a subprocess,
the tools the hostile MCP server is told to list, and the calls it wrote down."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from _support.cli import fidelity_inprocess

__all__ = [
    "HOSTILE_MCP",
    "PYTHON",
    "QUOTE_EDIT_MCP",
    "SERVERS",
    "assert_paced",
    "called",
    "calls_made",
    "http_server",
    "key_value_store",
    "listed_tool",
    "listing",
    "probe_listing",
    "serving",
]

SERVERS = Path(__file__).resolve().parent.parent / "servers"
PYTHON = sys.executable
#: The misbehaving MCP stdio server (``tests/servers/mcp_hostile.py``), flags appended.
HOSTILE_MCP = [sys.executable, str(SERVERS / "mcp_hostile.py")]
#: The edit server with the headline bug (``tests/servers/mcp_quote_edit.py``).
QUOTE_EDIT_MCP = [sys.executable, str(SERVERS / "mcp_quote_edit.py")]
_TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def listed_tool(
    name: str, annotations: dict[str, Any] | None, schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One entry of a ``tools/list`` answer: ``name`` taking ``schema`` (by default one
    required string, ``text``), with ``annotations`` (None: the key is left out)."""
    listed: dict[str, Any] = {"name": name, "inputSchema": schema or _TEXT}
    if annotations is not None:
        listed["annotations"] = annotations
    return listed


def listing(tools: list[dict[str, Any]], calls: Path) -> list[str]:
    """The hostile server's command when it lists exactly ``tools`` and writes each call
    down in the file ``calls`` (read back with :func:`calls_made` or :func:`called`)."""
    return [*HOSTILE_MCP, "--tools", json.dumps(tools), "--calls", str(calls)]


def probe_listing(
    tools: list[dict[str, Any]], calls: Path, *options: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``fidelity probe --mcp OPTIONS...`` (in this process) against the hostile
    server listing ``tools`` and writing each call down in ``calls``; fails on a
    traceback."""
    result = fidelity_inprocess(
        "probe", "--mcp", *options, "--", *listing(tools, calls), timeout=timeout
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def key_value_store(calls: Path, *flags: str) -> list[str]:
    """The hostile server's command when it is a key-value store (``--store``: ``put``,
    ``put_idempotent``, ``get``, ``echo``) that writes each call down in the file
    ``calls``, with more of its ``flags``."""
    return [*HOSTILE_MCP, "--store", "--calls", str(calls), *flags]


def calls_made(path: Path) -> list[tuple[str, str]]:
    """The ``tools/call`` requests a test server wrote down in ``path``, in order: the
    tool's name and the call's text (``mcp_hostile.py --calls`` writes both, the text
    JSON-encoded; ``mcp_tee.py`` the name alone, read with the text ``""``). None
    before the first call has arrived; a line still being written is left for later."""
    if not path.exists():
        return []
    made = []
    for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
        name, _, text = line.partition(" ")
        made.append((name, json.loads(text) if text else ""))
    return made


def called(path: Path) -> list[str]:
    """The names of the tools called, as :func:`calls_made` reads them, in order."""
    return [name for name, _ in calls_made(path)]


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
