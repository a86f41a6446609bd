"""Every process started within :func:`probes._process.contained` ends with it, however
it detached (Linux: the process is a child subreaper for the while)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _support.processes import alive, gone, wait_for

from probes._process import contained, descendants

_DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1] + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        time.sleep(300)
    os._exit(0)
os.wait()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper is Linux's")
def test_a_double_forked_setsid_daemon_ends_with_the_block(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    before = descendants()
    with contained() as held:
        assert held
        subprocess.run([sys.executable, "-c", _DAEMON, str(pid_file)], check=True, timeout=60)
        assert wait_for(pid_file.exists, bound=30), "no daemon"
        daemon = int(pid_file.read_text())
        assert alive(daemon)
        assert daemon in descendants()  # re-parented here, not to init
    assert gone([daemon], bound=10), daemon
    assert descendants() <= before  # nothing of the block's is left, reaped
