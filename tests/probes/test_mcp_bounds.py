"""probes.mcp lets hostile servers go at once: the handshake is bounded by the request
timeout (plus start-up room), and a server it abandons is killed with its process group.

How long each case takes is measured in benchmarks/bench_mcp.py (``--bounds``); here
the outcomes are checked: the status or error, the bound named, no process left over.
"""

from __future__ import annotations

import select
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.mcp import silent_port
from _support.processes import gone, server_pids
from _support.servers import HOSTILE_MCP, PYTHON, SERVERS

import probes
from fidelity import Status, TargetError
from probes._mcp.session import handshake_bound

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

HOSTILE = HOSTILE_MCP


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A loopback HTTP port that accepts connections and never answers."""
    with silent_port() as url:
        yield url


@pytest.fixture
def freezing_url() -> Iterator[str]:
    """The URL of tests/servers/mcp_http_freeze.py: it freezes whole on its first call."""
    need_module("uvicorn")
    proc = subprocess.Popen(
        [PYTHON, str(SERVERS / "mcp_http_freeze.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "the freezing server did not announce its URL"
        yield proc.stdout.readline().strip()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_handshake_bound_is_the_timeout_plus_start_up_room() -> None:
    assert handshake_bound(0.5) == 2.5  # never less: a cold interpreter needs ~1 s
    assert handshake_bound(2) == 2.5
    assert handshake_bound(10) == 10.5


def test_a_stdio_server_that_never_completes_the_handshake_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE, "--stall", "--pid-file", str(pid_file), "--child"]
    probe = probes.mcp(argv, timeout=0.5)
    with pytest.raises(TargetError, match=r"did not complete the handshake within 2\.5s"):
        probe.list_tools()
    pids = server_pids(pid_file)
    # The server and the child in its process group are gone (not just the leader: the
    # SDK, seeing the leader dead, would leave the child running).
    assert gone(pids), pids
    probe.close()


def test_an_http_server_that_never_answers_fails_the_handshake(silent_url: str) -> None:
    probe = probes.mcp(silent_url, timeout=0.5)
    with pytest.raises(TargetError, match=r"did not complete the handshake within 2\.5s"):
        probe.list_tools()
    probe.close()


def test_a_frozen_server_is_killed_after_its_health_check(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE, "--freeze-on", "FREEZE", "--pid-file", str(pid_file), "--child"]
    with probes.mcp(argv, timeout=0.5) as probe:
        pids = server_pids(pid_file)
        frozen = probe.observe("FREEZE")
        # Killed while the probe is still open (it ignores a closed stdin), group and all.
        assert gone(pids), pids
        after = probe.observe("fine")
    assert frozen.status is Status.TIMEOUT
    assert after.status is Status.PRESERVED  # a new server process took over
    assert probe.requests == 2
    # The new server exited in good order when its stdin closed; the child it left
    # behind is stopped too.
    assert gone(server_pids(pid_file)), server_pids(pid_file)


def test_a_server_that_exits_leaving_a_child_on_its_stdout_is_broken(tmp_path: Path) -> None:
    # The child keeps the server's stdout open: the SDK never sees the connection
    # close, so the call runs into its timeout; the dead server makes it broken, not a
    # timeout, and the orphaned child is killed with its process group.
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE, "--crash-after", "0", "--pid-file", str(pid_file), "--child"]
    with probes.mcp(argv, timeout=0.5) as probe:
        first = server_pids(pid_file)
        pid_file.unlink()
        crashed = probe.observe("x")
        assert gone(first), first
        after = probe.observe("y")  # a new server, which exits again
        second = server_pids(pid_file)
    assert crashed.status is Status.BROKEN
    assert crashed.error_type == "ServerExited"
    assert "exited (status 3)" in crashed.error
    assert after.status is Status.BROKEN
    assert gone(second), second


def test_an_http_server_that_freezes_after_the_handshake(freezing_url: str) -> None:
    # Nothing answers any more, the health check and the closing DELETE included: the
    # payload is a timeout, the session is abandoned without its DELETE, close() ends.
    # (The legacy handshake gives the session an id, hence a DELETE to skip.)
    with probes.mcp(freezing_url, timeout=0.5, mode="legacy") as probe:
        frozen = probe.observe("x")
    assert frozen.status is Status.TIMEOUT
    assert probe.requests == 1
