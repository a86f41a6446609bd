"""probes.mcp through each client library: the same situation is the same status.

The misbehaving server (tests/servers/mcp_hostile.py) is met through ``python`` (the
Python SDK, legacy handshake), ``python-2026`` (the same SDK, ``server/discover``
first) and ``typescript`` (the TypeScript SDK in its driver process): a crash, a
refusal, a call left unanswered, a server that goes mute or freezes, noise on its
stdout. Where the clients really differ (lone surrogates, a surrogate pair given as
two code points) the wire log the server keeps shows what each one sent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _needs import need_module
from _support.mcp import typescript_client
from _support.processes import gone, server_pids
from _support.servers import HOSTILE_MCP, SERVERS
from _support.text import js_string

import probes
from fidelity import Status, TargetError, UsageError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CLIENTS = ("python", "python-2026", "typescript")
TS_REFLECTOR = ["node", str(SERVERS / "mcp_reflector.mjs")]


@pytest.fixture(autouse=True)
def _clients(monkeypatch: pytest.MonkeyPatch) -> None:
    need_module("mcp")
    typescript_client(monkeypatch)


def _calls(log: Path) -> list[bytes]:
    """The raw ``tools/call`` lines the server received, in order."""
    return [line for line in log.read_bytes().splitlines() if b'"tools/call"' in line]


# -- the same situation, the same status ------------------------------------------------


@pytest.mark.parametrize("client", CLIENTS)
def test_a_crash_is_broken_then_the_session_is_re_established(client: str) -> None:
    with probes.mcp([*HOSTILE_MCP, "--crash-after", "2"], client=client, timeout=5) as probe:
        statuses = [probe.observe(f"v{i}“”").status for i in range(5)]
        assert probe.client_info.client == client
    assert statuses == [Status.PRESERVED] * 2 + [Status.BROKEN] + [Status.PRESERVED] * 2


@pytest.mark.parametrize("client", CLIENTS)
def test_a_refusal_is_rejected_with_the_servers_text(client: str) -> None:
    with probes.mcp([*HOSTILE_MCP, "--reject"], client=client, timeout=5) as probe:
        obs = probe.observe("no“")
    assert obs.status is Status.REJECTED
    assert obs.error_type == "isError"
    assert obs.error == "refused: no“"


@pytest.mark.parametrize("client", CLIENTS)
def test_an_unanswered_call_is_a_timeout_and_a_live_session_is_kept(client: str) -> None:
    argv = [*HOSTILE_MCP, "--hang-on", "SLOW"]
    with probes.mcp(argv, client=client, timeout=0.5) as probe:
        before = probe.observe("fast")
        answers = probe.answers
        slow = probe.observe("SLOW")
        assert probe.answers == answers + 1  # the health check after the timeout
        after = probe.observe("after")
    assert (before.status, slow.status, after.status) == (
        Status.PRESERVED,
        Status.TIMEOUT,
        Status.PRESERVED,
    )
    assert slow.error == "no answer within 0.5s; the effect on the server is unknown"
    assert probe.requests == 3


@pytest.mark.parametrize("client", CLIENTS)
def test_a_server_that_goes_mute_is_let_go(client: str) -> None:
    with probes.mcp([*HOSTILE_MCP, "--mute-on", "MUTE"], client=client, timeout=0.5) as probe:
        muted = probe.observe("MUTE")
        answers = probe.answers
        after = probe.observe("after")  # a new server process answers
    assert muted.status is Status.TIMEOUT
    assert answers == 0  # the health check got no answer either
    assert after.status is Status.PRESERVED


@pytest.mark.parametrize("client", CLIENTS)
def test_a_frozen_server_is_killed_with_its_process_group(client: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE_MCP, "--freeze-on", "FREEZE", "--pid-file", str(pid_file), "--child"]
    with probes.mcp(argv, client=client, timeout=0.5) as probe:
        pids = server_pids(pid_file)
        frozen = probe.observe("FREEZE")
        assert gone(pids), pids  # the server and its child, while the probe is open
        after = probe.observe("fine")
    assert frozen.status is Status.TIMEOUT
    assert after.status is Status.PRESERVED
    assert gone(server_pids(pid_file))


@pytest.mark.parametrize("client", CLIENTS)
def test_a_server_that_exits_leaving_a_child_on_its_stdout(client: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE_MCP, "--crash-after", "0", "--pid-file", str(pid_file), "--child"]
    with probes.mcp(argv, client=client, timeout=0.5) as probe:
        first = server_pids(pid_file)
        crashed = probe.observe("x")
        assert gone(first), first
    assert crashed.status is Status.BROKEN
    assert crashed.error_type == "ServerExited"
    assert "exited (status 3)" in crashed.error


@pytest.mark.parametrize("client", CLIENTS)
def test_noise_on_the_servers_stdout_is_skipped(client: str) -> None:
    with probes.mcp([*HOSTILE_MCP, "--noise"], client=client, timeout=5) as probe:
        obs = probe.observe("quiet")
    assert obs.status is Status.PRESERVED


@pytest.mark.parametrize("client", CLIENTS)
def test_a_server_that_never_completes_the_handshake(client: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    argv = [*HOSTILE_MCP, "--stall", "--pid-file", str(pid_file), "--child"]
    probe = probes.mcp(argv, client=client, timeout=0.5)
    with pytest.raises(TargetError, match=r"did not complete the handshake.* within 2\.5s"):
        probe.list_tools()
    assert gone(server_pids(pid_file))
    probe.close()


# -- where the clients differ -------------------------------------------------------------

LONE = ["a\ud800b", "\udc00", "x\udc00\ud800y", "alpha\udbffbeta"]


def test_the_typescript_client_sends_lone_surrogates_as_escapes(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    argv = [*HOSTILE_MCP, "--wire-log", str(log)]
    with probes.mcp(argv, client="typescript", timeout=5) as probe:
        observed = [probe.observe(text) for text in LONE]
    for text, obs in zip(LONE, observed, strict=True):
        assert obs.status is Status.PRESERVED, (text, obs.error)
        assert obs.received == text
    # The wire, apart from the probe: each call carried the escape, e.g. "a\ud800b".
    calls = _calls(log)
    assert len(calls) == len(LONE)
    for text, line in zip(LONE, calls, strict=True):
        assert b'"text":' + js_string(text) in line, line
    assert b'"a\\ud800b"' in calls[0]


@pytest.mark.parametrize("client", ["python", "python-2026"])
def test_the_python_client_sends_no_lone_surrogate(client: str, tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    argv = [*HOSTILE_MCP, "--wire-log", str(log)]
    with probes.mcp(argv, client=client, timeout=5) as probe:
        observed = [probe.observe(text) for text in LONE]
        after = probe.observe("after")
    for obs in observed:
        assert obs.status is Status.REJECTED
        assert obs.client_side
        assert "could not encode the value" in obs.error
    assert after.status is Status.PRESERVED  # the session stayed up
    assert len(_calls(log)) == 1  # only "after" reached the server


def test_a_pair_of_surrogate_code_points_leaves_the_typescript_client_as_one_character(
    tmp_path: Path,
) -> None:
    # A JavaScript string cannot hold U+D83D U+DE00 apart from U+1F600: the client
    # sends the 4 UTF-8 bytes of U+1F600, and that is what comes back.
    log = tmp_path / "wire.log"
    with probes.mcp([*HOSTILE_MCP, "--wire-log", str(log)], client="typescript") as probe:
        obs = probe.observe("alpha\ud83d\ude00beta")
    assert obs.status is Status.TRANSFORMED
    assert obs.received == "alpha\U0001f600beta"
    assert obs.kinds == {"encoding.surrogate_split"}
    assert b'"alpha\xf0\x9f\x98\x80beta"' in _calls(log)[0]


def test_the_typescript_client_is_byte_exact_both_ways(tmp_path: Path) -> None:
    # Every UTF-16 code unit (surrogates kept lone), astral characters, line and
    # paragraph separators, NUL, CR/LF, a BOM, JSON's specials: the wire bytes are
    # JSON.stringify's, and the echo (re-escaped by the server) comes back equal.
    every_unit = "".join(chr(u) + ("x" if 0xD800 <= u <= 0xDFFF else "") for u in range(0x10000))
    texts = [
        every_unit,
        "\U0001f600\U0001f468\u200d\U0001f469\u200d\U0001f467 \U00020000 \U0010ffff",
        "a\u2028b\u2029c\x85d",
        "nul\x00cr\rlf\ncrlf\r\n\ufeffbom",
        'quote" back\\slash \b\f\t \x1f \x7f',
        "e\u0301 \uffff\ufffe",
    ]
    log = tmp_path / "wire.log"
    with probes.mcp([*HOSTILE_MCP, "--wire-log", str(log)], client="typescript") as probe:
        observed = [probe.observe(text) for text in texts]
    for text, obs in zip(texts, observed, strict=True):
        assert obs.status is Status.PRESERVED
        assert obs.received == text
    for text, line in zip(texts, _calls(log), strict=True):
        assert b'"text":' + js_string(text) in line
        json.loads(line)  # one well-formed message per line


# -- what each client reports about itself ----------------------------------------------


def test_client_info_names_the_library_and_the_negotiated_version() -> None:
    from probes._mcp.reflector import reflector_argv

    seen = {}
    for client in CLIENTS:
        with probes.mcp(reflector_argv(), client=client, timeout=5) as probe:
            seen[client] = probe.client_info
    assert seen["python"].protocol_version == "2025-11-25"
    assert seen["python-2026"].protocol_version == "2026-07-28"  # the Python server speaks it
    assert seen["typescript"].protocol_version == "2025-11-25"
    assert seen["python"].library.startswith("mcp 2.")
    assert seen["typescript"].library.startswith("@modelcontextprotocol/sdk 1.32.2 (node ")
    with probes.mcp(TS_REFLECTOR, client="python-2026", timeout=5) as probe:
        # The TypeScript server answers server/discover "method not found": fallback.
        assert probe.client_info.protocol_version == "2025-11-25"


def test_with_client_keeps_the_options() -> None:
    probe = probes.mcp(TS_REFLECTOR, tool="echo", read="text", timeout=3)
    other = probe.with_client("typescript")
    assert (other.client, other.tool, other.timeout, other.reader) == (
        "typescript",
        "echo",
        3.0,
        probe.reader,
    )
    assert other.mode == "auto"  # the SDK's mode is not the TypeScript client's business
    assert probe.with_client("python").mode == "legacy"
    assert probe.with_client("python-2026", read="regex:(.*)").reader is not None
    for p in (probe, other):
        p.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"client": "java"}, "client='java' is not an MCP client; the clients are: python, "),
        ({"client": "python", "mode": "auto"}, "mode='auto' applies when no client is named"),
    ],
)
def test_bad_clients_are_usage_errors(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        probes.mcp(TS_REFLECTOR, **kwargs)  # type: ignore[arg-type]


# -- the reply limit holds for the TypeScript client too ----------------------------------


def _too_large(observation: probes.Observation) -> None:
    assert observation.status is Status.BROKEN, observation
    assert observation.error_type == "ReplyTooLarge"
    assert "longer than the reply limit of 64 KiB" in observation.error


def test_a_stdio_reply_past_the_limit_through_the_typescript_client() -> None:
    argv = [*HOSTILE_MCP, "--big-reply", "100000"]
    with probes.mcp(argv, client="typescript", timeout=10, max_reply=65536) as probe:
        first = probe.observe("x")
        second = probe.observe("y")  # a new session: the old one was let go
    _too_large(first)
    _too_large(second)
    within = [*HOSTILE_MCP, "--big-reply", "60000"]
    with probes.mcp(within, client="typescript", max_reply=65536) as probe:
        assert probe.observe("x").received == "x" * 60000


@pytest.mark.parametrize("flags", [(), ("--sse",), ("--gzip",)], ids=["json", "sse", "gzip"])
def test_a_streamable_http_reply_past_the_limit_through_the_typescript_client(
    flags: tuple[str, ...],
) -> None:
    from _support.servers import serving

    need_module("uvicorn")
    with (
        serving("mcp_http_hostile.py", "--big-reply", "100000", *flags) as url,
        probes.mcp(url, client="typescript", timeout=10, max_reply=65536) as probe,
    ):
        _too_large(probe.observe("x"))
    with (
        serving("mcp_http_hostile.py", "--big-reply", "60000", *flags) as url,
        probes.mcp(url, client="typescript", timeout=10, max_reply=65536) as probe,
    ):
        assert probe.observe("x").received == "x" * 60000


def test_a_tool_listing_past_the_limit_through_the_typescript_client() -> None:
    probe = probes.mcp([*HOSTILE_MCP, "--many-tools", "200"], client="typescript", max_reply=65536)
    with pytest.raises(TargetError, match=r"reply limit of 64 KiB"):
        probe.list_tools()
    probe.close()
