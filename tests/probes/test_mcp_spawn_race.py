"""A session let go while its server is being started still ends that server's
process group (the race behind the flaky signal-during-the-handshake test).

The cancel is scheduled to land on the very next turn of the loop, while the
subprocess is being set up: before, asyncio then killed the leader alone and the
session never learnt of the process, so a child of the server kept running.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

from _support.processes import gone, server_pids
from _support.servers import HOSTILE_MCP

from probes._mcp.loop import SPAWNED, EventLoopThread, Spawned


def test_a_spawn_cancelled_midway_is_still_noted_and_its_group_ended(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    noted: list[Spawned] = []
    thread = EventLoopThread("spawn-race")

    async def spawn() -> None:
        SPAWNED.set(noted)
        loop = asyncio.get_running_loop()
        await loop.subprocess_exec(
            asyncio.SubprocessProtocol,
            *HOSTILE_MCP, "--stall", "--child", "--pid-file", str(pid_file),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip

    async def cancelled_at_once() -> str:
        task = asyncio.ensure_future(spawn())
        asyncio.get_running_loop().call_soon(task.cancel)
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        return "finished"

    try:
        outcome = thread.run(cancelled_at_once(), timeout=30)
        assert outcome == "cancelled"
        assert len(noted) == 1, "the server being started when the session let go was not noted"
        pids = server_pids(pid_file, bound=30)
        assert noted[0].group
        noted[0].signal(signal.SIGKILL)
        assert gone(pids, bound=30), pids
    finally:
        for spawned in noted:
            spawned.signal(signal.SIGKILL)
        thread.stop()
