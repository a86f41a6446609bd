"""``fidelity probe`` ended by a signal: no server it started keeps running.

SIGTERM and SIGHUP (what CI sends when it cancels a job) end the command as Ctrl-C
does: the stdio server, which runs in its own process group, is stopped with the
child it started, and the results gathered so far are kept. The server
(tests/servers/mcp_hostile.py) writes its own pid and its child's.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import start, stop
from _support.processes import alive, gone, server_pids, wait_for
from _support.servers import HOSTILE_MCP

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]


def _probe_until_called(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[str], list[int]]:
    """Start ``fidelity probe`` on a server that hangs on its first call, with a child;
    return the command once the call is in flight, and the server's and child's pids."""
    pid_file, call_file = tmp_path / "pids", tmp_path / "called"
    command = start(
        "probe", "--families", "quotes", "--read", "text", "--timeout", "60",
        "--json", str(tmp_path / "result.json"), *flags, "--mcp", "--", *HOSTILE_MCP,
        "--hang", "--child", "--pid-file", str(pid_file), "--calls", str(call_file),
    )  # fmt: skip
    assert wait_for(call_file.exists), "the server got no call"
    pids = server_pids(pid_file)
    assert all(alive(p) for p in pids)
    return command, pids


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_that_ends_the_probe_ends_its_server_and_the_servers_child(
    tmp_path: Path, signum: int
) -> None:
    command, pids = _probe_until_called(tmp_path)
    returncode, stderr = stop(command, signum)
    expected = 130 if signum == signal.SIGINT else 128 + signum
    assert returncode == expected, stderr
    assert "Traceback" not in stderr
    assert stderr.count("\n") == 1
    assert gone(pids, bound=30), pids
    # What was gathered is kept, marked incomplete.
    assert json.loads((tmp_path / "result.json").read_text())["facts"]["complete"] is False


def test_a_signal_during_the_handshake_ends_the_server_too(tmp_path: Path) -> None:
    # The server stalls before the handshake, so the signal lands while the session
    # waits for it (the race of a signal while the server is still being started is
    # pinned without timing in tests/probes/test_mcp_spawn_race.py). The handshake's
    # bound (--timeout 120) is far beyond the wait for the pids: on a loaded machine a
    # slow start fails here, saying so, instead of the handshake ending first.
    pid_file = tmp_path / "pids"
    command = start(
        "probe", "--timeout", "120", "--mcp", "--", *HOSTILE_MCP, "--stall",
        "--child", "--pid-file", str(pid_file),
    )  # fmt: skip
    try:
        pids = server_pids(pid_file, bound=90)
    finally:
        returncode, stderr = stop(command, signal.SIGTERM)
    assert returncode == 128 + signal.SIGTERM, stderr
    assert "stopped by SIGTERM" in stderr
    assert gone(pids, bound=30), pids


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_http_reflector_quietly(signum: int) -> None:
    # The Streamable HTTP reflector serves inside a task group, which wraps what ends
    # it in an exception group (on 3.11 that printed a traceback): SIGTERM and Ctrl-C
    # stop it as they stop uvicorn, exit 0 and nothing said, on every Python.
    import select

    need_module("mcp")
    command = start("reflect", "mcp", "--transport", "http")
    assert command.stderr is not None
    ready, _, _ = select.select([command.stderr], [], [], 60)
    assert ready, "the reflector did not say where it listens within 60 s"
    assert command.stderr.readline().startswith("mcp reflector listening on http://127.0.0.1:")
    assert stop(command, signum) == (0, "")
