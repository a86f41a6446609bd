"""The TypeScript client's driver process (probes/_mcp/node/driver.mjs) against hostile
servers: what it cannot write, what floods it, and whose stderr is whose.

A reply nested 200,000 arrays deep is parsed by the SDK but cannot be written on: it is
an unparsable reply, never a crash with Node's stack frames quoted as the server's
stderr. Ten thousand or a million stdout lines that are not JSON-RPC are counted in the
driver and reported as one summary, so the driver's memory stays bounded (it grew by
about a kilobyte a line when each became a record).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import typescript_client
from _support.servers import HOSTILE_MCP
from _support.terminal import assert_terminal_safe

import probes
from fidelity import Status

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CLIENTS = ("python", "python-2026", "typescript")
#: Node frames as Node prints them, which must never reach a sentence.
STACK_MARKS = ("node:internal", "driver.mjs", " at async ", "Node.js v")


@pytest.fixture(autouse=True)
def _clients(monkeypatch: pytest.MonkeyPatch) -> None:
    need_module("mcp")
    typescript_client(monkeypatch)


def test_a_reply_too_deep_to_write_on_is_unparsable_not_a_crash() -> None:
    with probes.mcp([*HOSTILE_MCP, "--deep-reply", "200000"], client="typescript", timeout=20) as p:
        first, second = p.observe("deep“"), p.observe("again“")
    for obs in (first, second):  # the session lives on: the second call is answered too
        assert obs.status is Status.BROKEN
        assert obs.error_type == "UnparsableReply"
        assert "nested too deeply" in (obs.error or "")
        assert not any(mark in (obs.error or "") for mark in STACK_MARKS), obs.error


def test_where_replies_stop_being_readable_does_not_depend_on_the_python() -> None:
    # The driver writes no record nested deeper than 900 levels, which every supported
    # Python's json reads (3.11's stops near 990, 3.13's near 10000). A record holds the
    # arrays three levels in (record, result, structuredContent): 897 arrays are read,
    # 898 are an unparsable reply, on every Python alike.
    observed = {}
    for depth in (897, 898):
        argv = [*HOSTILE_MCP, "--deep-reply", str(depth)]
        with probes.mcp(argv, client="typescript", timeout=20) as probe:
            observed[depth] = probe.observe("deep")
    assert observed[897].status is Status.LOST, observed[897]  # no text came back
    assert observed[898].status is Status.BROKEN
    assert observed[898].error_type == "UnparsableReply"
    assert "the reply is nested too deeply to be read" in (observed[898].error or "")


def test_the_cli_says_one_sentence_without_stack_frames_for_a_deep_reply() -> None:
    result = fidelity(
        "probe", "--mcp", "--clients", "typescript", "--read", "text", "--families", "quotes",
        "--max-requests", "2", "--", *HOSTILE_MCP, "--deep-reply", "200000", timeout=120,
    )  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    text = result.stdout + result.stderr
    assert "Traceback" not in text
    assert not any(mark in text for mark in STACK_MARKS), text
    assert "server stderr" not in text
    assert "nested too deeply to be read" in result.stderr
    assert result.stderr.count("\n") == 1
    assert_terminal_safe(text)


def test_the_servers_stderr_is_still_quoted_as_the_servers() -> None:
    # The driver's stderr and the server's are two streams now: the server's reaches
    # the sentence, through a descriptor the driver hands on.
    argv = [*HOSTILE_MCP, "--log-stderr", "--crash-after", "0"]
    with probes.mcp(argv, client="typescript", timeout=5) as probe:
        obs = probe.observe("said on stderr")
    assert obs.status is Status.BROKEN
    assert "server stderr: received: said on stderr" in (obs.error or ""), obs.error


@pytest.mark.parametrize("client", CLIENTS)
def test_noise_lines_are_counted_with_the_first_one_through_every_client(client: str) -> None:
    with probes.mcp([*HOSTILE_MCP, "--noise"], client=client, timeout=5) as probe:
        for i in range(3):
            assert probe.observe(f"quiet{i}").status is Status.PRESERVED
        lines, first = probe.stdout_noise
    assert lines == 9  # three lines before each of three answers
    assert first == "this is not JSON-RPC"


def test_a_flood_of_noise_keeps_the_driver_small() -> None:
    # 300,000 lines: the driver peaked at 412 MB when each line became a record (1.3 GB
    # for a million); counted, it stays near Node's own 100 MB. The bound is generous.
    argv = [
        sys.executable, "-m", "fidelity", "probe", "--mcp", "--clients", "typescript",
        "--read", "text", "--families", "quotes", "--max-requests", "1", "--timeout", "60",
        "--", *HOSTILE_MCP, "--flood", "300000",
    ]  # fmt: skip
    code = (
        "import resource, subprocess, sys; "
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=170); "
        "sys.stdout.write(r.stdout); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, r.returncode)"
    )
    # A fresh interpreter measures, so that this test process's own children do not count.
    result = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    *shown, last = result.stdout.strip().splitlines()
    peak, returncode = (int(word) for word in last.split())
    assert returncode == 0, result.stdout + result.stderr
    assert "1 payload: 1 preserved." in "\n".join(shown)
    assert (
        "warning: typescript: the server wrote 300000 lines to stdout that are not JSON-RPC "
        "(first: 'noise: not a JSON-RPC message');"
    ) in "\n".join(shown)
    assert peak < 250, f"peak resident memory {peak} MB"


def test_whatever_escapes_the_driver_is_one_record_without_a_stack() -> None:
    # A command that is JSON but not an object reaches code that does not expect it:
    # the driver reports it as one record and leaves (70), with nothing on stderr (no
    # Node stack to be mistaken for the server's).
    from probes._mcp.node.setup import typescript_client

    client = typescript_client()
    done = subprocess.run(
        [client.node, client.driver], input=b"null\n", capture_output=True, timeout=30, check=False
    )
    assert done.returncode == 70
    assert done.stderr == b""
    (line,) = done.stdout.splitlines()
    record = json.loads(line)
    assert record["type"] == "fatal"
    assert record["error"]["class"] == "TypeError"
    assert "stack" not in record["error"]
