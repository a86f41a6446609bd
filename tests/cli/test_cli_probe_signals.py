"""``fidelity probe`` ended by a signal: no server it started keeps running.

SIGTERM and SIGHUP (what CI sends when it cancels a job) end the command as Ctrl-C
does: the stdio server, which runs in its own process group, is stopped with the
child it started, and the results gathered so far are kept. The server
(tests/servers/mcp_hostile.py) writes its own pid and its child's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import FIDELITY
from _support.servers import HOSTILE_MCP

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(autouse=True)
def _sdk() -> None:
    need_module("mcp")


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"


def _wait_for(condition: object, bound: float = 30.0) -> bool:
    """Wait (at most ``bound`` seconds) until ``condition()`` holds."""
    deadline = time.monotonic() + bound
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _probe_until_called(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    """Start ``fidelity probe`` on a server that hangs on its first call, with a child;
    return the command once the call is in flight, and the server's and child's pids."""
    pid_file, call_file = tmp_path / "pids", tmp_path / "called"
    command = subprocess.Popen(
        [
            *FIDELITY, "probe", "--families", "quotes", "--read", "text", "--timeout", "60",
            "--json", str(tmp_path / "result.json"), *flags, "--mcp", "--", *HOSTILE_MCP,
            "--hang", "--child", "--pid-file", str(pid_file), "--call-file", str(call_file),
        ],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert _wait_for(call_file.exists), "the server got no call"
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) == 2
    assert all(_alive(p) for p in pids)
    return command, pids


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_that_ends_the_probe_ends_its_server_and_the_servers_child(
    tmp_path: Path, signum: int
) -> None:
    command, pids = _probe_until_called(tmp_path)
    command.send_signal(signum)
    _, stderr = command.communicate(timeout=60)
    expected = 130 if signum == signal.SIGINT else 128 + signum
    assert command.returncode == expected, stderr
    assert b"Traceback" not in stderr
    assert stderr.count(b"\n") == 1
    assert _wait_for(lambda: not any(_alive(p) for p in pids)), pids
    # What was gathered is kept, marked incomplete.
    assert json.loads((tmp_path / "result.json").read_text())["facts"]["complete"] is False


def test_a_signal_during_the_handshake_ends_the_server_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    command = subprocess.Popen(
        [*FIDELITY, "probe", "--timeout", "60", "--mcp", "--", *HOSTILE_MCP, "--stall",
         "--child", "--pid-file", str(pid_file)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert _wait_for(lambda: len(pid_file.read_text().split()) == 2 if pid_file.exists() else False)
    pids = [int(p) for p in pid_file.read_text().split()]
    command.send_signal(signal.SIGTERM)
    _, stderr = command.communicate(timeout=60)
    assert command.returncode == 128 + signal.SIGTERM, stderr
    assert b"stopped by SIGTERM" in stderr
    assert _wait_for(lambda: not any(_alive(p) for p in pids)), pids
