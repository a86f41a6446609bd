"""Every example of ``fidelity probe --help`` runs as written.

The examples are read from the help itself and run through bash, with three things
put in place: the directory is tests/servers, where the npm servers are installed
(so ``npx -y @modelcontextprotocol/server-...`` runs the installed package, offline,
as the help says npx does where a server is installed), the /tmp paths become this
test's temporary directory, ``127.0.0.1:8000`` becomes the test's write-then-read
endpoint (tests/servers/http_servers.py ``store``: ``POST /items`` answers its id), and
``127.0.0.1:8001`` the notes API behind auth (tests/servers/http_api.py, its token in
``API_TOKEN``).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _needs import need_executable, need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import NODE_MODULES, npm_server
from _support.servers import SERVERS, http_server, serving


def _examples() -> list[str]:
    """The commands of the help's examples, continuation lines joined, comments left out."""
    help_text = fidelity("probe", "--help").stdout
    section = help_text.split("\nexamples", 1)[1].split("\nexit codes", 1)[0]
    commands = []
    for block in re.split(r"\n\s*\n", section.split("\n", 1)[1]):
        lines = [line.strip() for line in block.strip().splitlines()]
        command = " ".join(line.rstrip("\\").strip() for line in lines if not line.startswith("#"))
        if command:
            commands.append(command)
    return commands


def test_the_help_has_the_examples_this_test_runs() -> None:
    examples = _examples()
    assert len(examples) == 10
    assert examples[0] == "fidelity probe --mcp -- npx -y @modelcontextprotocol/server-everything"
    assert all("fidelity probe " in e for e in examples)


@pytest.mark.parametrize("index", range(10))
def test_each_help_example_runs_as_written(index: int, tmp_path: Path) -> None:
    need_module("mcp")
    need_module("starlette")
    need_executable("npx")
    npm_server("everything")  # the npm servers are installed (skips or fails otherwise)
    command = _examples()[index]
    command = command.replace("/tmp/fidelity-root", str(tmp_path / "root"))
    command = command.replace("/tmp/fidelity-memory.jsonl", str(tmp_path / "memory.jsonl"))
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "npm_config_offline": "true",
        # The typescript client's SDK: the one installed for the tests (no install).
        "FIDELITY_NODE_MODULES": str(NODE_MODULES),
        "API_TOKEN": "help-token",
    }
    with contextlib.ExitStack() as servers:
        # Each endpoint is started for the examples that name it (a fresh one each).
        if "http://127.0.0.1:8000/" in command:
            url = servers.enter_context(http_server("store"))
            command = command.replace("http://127.0.0.1:8000/", url)
        if "http://127.0.0.1:8001/" in command:
            api = servers.enter_context(serving("http_api.py", "alice:secret", "help-token"))
            command = command.replace("http://127.0.0.1:8001/", api)
        assert "127.0.0.1:800" not in command
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=SERVERS,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert "Traceback" not in result.stderr
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if "--clients" in command:
        # Lone surrogates: the Python SDK cannot send them, the TypeScript SDK can.
        assert result.returncode == 1, result.stderr
        assert summary == "the clients disagree on 8 payloads beyond --allow."
    elif "edit_file" in command:
        # The identity edit finds the rewrite the filesystem server makes: exit 1.
        assert result.returncode == 1, result.stderr
        assert "rewrites beyond --allow: newline.crlf_to_lf" in summary
    elif "--all-tools" in command:
        # server-everything's prompt and resource parameters that measure nothing are said,
        # the others' results kept; args-prompt drops an empty state from its text (the
        # empty payload is lost), a finding, which outranks them: exit 1.
        assert result.returncode == 1, result.stderr
        assert "4 of the 9 tool parameters surveyed measured nothing" in result.stderr
        assert "1 lost" in summary
        assert "preserved" in summary
    else:
        assert result.returncode == 0, result.stderr
        assert "preserved" in summary
    if "server-memory" in command:
        assert (tmp_path / "memory.jsonl").stat().st_size > 0
