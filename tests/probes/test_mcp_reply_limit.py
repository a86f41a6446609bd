"""probes.mcp bounds every message from a server (``max_reply``, 8 MiB by default).

The hostile servers answer with replies larger than the limit, over stdio
(tests/servers/mcp_hostile.py) and over Streamable HTTP (tests/servers/mcp_http_hostile.py:
a JSON body, one server-sent event, a gzip body that inflates past the limit). Each such
call ends ``broken`` with one sentence naming the limit; a reply within the limit is
read as before. A reply nested too deeply to parse is ``broken`` at once (a reply the
client library cannot parse: a protocol failure of the chain), not a timeout.
"""

from __future__ import annotations

import resource
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout

import pytest
from _needs import need_module
from _support.servers import HOSTILE_MCP, serving

import probes
from fidelity import Status, TargetError, UsageError
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, ReplyLimit

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

#: Just past the default limit.
PAST_DEFAULT = DEFAULT_MAX_REPLY + 1024


def _broken_by_size(observation: probes.Observation, limit: str) -> None:
    assert observation.status is Status.BROKEN, observation
    assert observation.error_type == "ReplyTooLarge"
    assert f"longer than the reply limit of {limit}" in observation.error
    assert observation.received is None


def test_a_stdio_reply_past_the_default_limit_is_broken() -> None:
    with probes.mcp([*HOSTILE_MCP, "--big-reply", str(PAST_DEFAULT)], timeout=20) as probe:
        observation = probe.observe("x")
    _broken_by_size(observation, "8 MiB")


def test_a_stdio_reply_within_a_configured_limit_is_read() -> None:
    with probes.mcp([*HOSTILE_MCP, "--big-reply", "60000"], max_reply=65536) as probe:
        within = probe.observe("x")
    assert within.status is Status.TRANSFORMED
    assert within.received == "x" * 60000


def test_a_stdio_reply_past_a_configured_limit_is_broken_and_the_next_call_reconnects() -> None:
    argv = [*HOSTILE_MCP, "--big-reply", "100000"]
    with probes.mcp(argv, timeout=10, max_reply=65536) as probe:
        first = probe.observe("x")
        second = probe.observe("y")  # a new session (the old server was let go)
    _broken_by_size(first, "64 KiB")
    _broken_by_size(second, "64 KiB")
    assert probe.requests == 2


def test_a_tool_listing_past_the_limit_fails_the_handshake_in_one_sentence() -> None:
    probe = probes.mcp([*HOSTILE_MCP, "--many-tools", "200"], max_reply=65536)
    with pytest.raises(TargetError, match=r"ReplyTooLarge: .*reply limit of 64 KiB"):
        probe.list_tools()
    probe.close()


def test_max_reply_must_be_a_whole_number_of_bytes_of_at_least_4096() -> None:
    for bad in (100, 4095.0, "8MiB", True):
        with pytest.raises(UsageError, match="max_reply="):
            probes.mcp([*HOSTILE_MCP], max_reply=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "flags",
    [(), ("--sse",), ("--gzip",)],
    ids=["json-body", "server-sent-event", "gzip-body"],
)
def test_a_streamable_http_reply_past_the_default_limit_is_broken(flags: tuple[str, ...]) -> None:
    need_module("uvicorn")
    with (
        serving("mcp_http_hostile.py", "--big-reply", str(PAST_DEFAULT), *flags) as url,
        probes.mcp(url, timeout=20) as probe,
    ):
        observation = probe.observe("x")
    _broken_by_size(observation, "8 MiB")


def test_a_streamable_http_reply_within_the_limit_is_read() -> None:
    need_module("uvicorn")
    with (
        serving("mcp_http_hostile.py", "--big-reply", "60000", "--gzip") as url,
        probes.mcp(url, timeout=10, max_reply=65536) as probe,
    ):
        observation = probe.observe("x")
    assert observation.status is Status.TRANSFORMED
    assert observation.received == "x" * 60000


@pytest.mark.parametrize("depth", [300, 3000, 100000])
def test_a_stdio_reply_nested_too_deeply_is_broken_at_once(depth: int) -> None:
    # The SDK's parser stops near 200 levels; json, which tells a reply from noise,
    # reads 300 on every Python, 3000 on 3.13 only, 100000 on none: one sentence for all.
    with probes.mcp([*HOSTILE_MCP, "--deep-reply", str(depth)], timeout=30) as probe:
        observation = probe.observe("x")
    assert observation.status is Status.BROKEN, observation
    assert observation.error_type == "UnparsableReply"
    assert observation.error == (
        "the MCP client library could not parse the server's reply "
        "(the JSON is nested too deeply to be read)"
    )


def test_a_streamable_http_reply_nested_too_deeply_is_broken() -> None:
    need_module("uvicorn")
    with (
        serving("mcp_http_hostile.py", "--deep-reply", "100000") as url,
        probes.mcp(url, timeout=30) as probe,
    ):
        observation = probe.observe("x")
    assert observation.status is Status.BROKEN, observation
    assert observation.error_type == "UnparsableReply"


def test_the_line_filter_passes_whole_lines_and_stops_at_the_first_long_one() -> None:
    tripped: list[bool] = []
    limit = ReplyLimit(10, lambda: tripped.append(True))
    admit = limit.lines()
    assert admit(b"short\nlin") == b"short\nlin"
    assert admit(b"e\nabc") == b"e\nabc"  # "line" and the start of the next one
    assert not tripped
    assert admit(b"defghijk\nnext\n") == b""  # "abcdefghijk": past 10 bytes
    assert tripped == [True]
    assert admit(b"more\n") == b""  # nothing passes once the limit was passed


def test_the_event_counter_counts_each_server_sent_event_apart() -> None:
    limit = ReplyLimit(20, lambda: None)
    count = limit.events(event_stream=True)
    for _ in range(10):
        count(b"data: 0123456789\n\n")  # 18 bytes per event: never past 20
    count(b"data: 0123456789\r\n")
    with pytest.raises(Exception, match="reply limit"):
        count(b"data: 0123456789\r\n")  # one event of 36 bytes
    assert limit.tripped


@pytest.mark.timeout(30)
def test_a_deep_reply_with_a_string_left_open_is_read_in_one_pass() -> None:
    # A line the SDK cannot parse and json cannot either (too deep) is read for its
    # top-level keys without recursion. A string that never closes, full of escaped
    # quotes, must not make that reading backtrack to every later quote: 400 KB of
    # them took hours that way, holding the event loop (pytest-timeout fails a hang).
    from probes._mcp.session import _top_level_keys

    assert _top_level_keys("[" * 1200 + '"' + '\\"' * 200_000) == set()
    reply = '{"jsonrpc": "2.0", "id": 3, "result": {"text": "a \\"b\\": c", "k": [{"x": 1}]}}'
    assert _top_level_keys(reply) == {"jsonrpc", "id", "result"}
    assert _top_level_keys('{"id": 1, "error": {"message": "open') == {"id", "error"}


@pytest.mark.parametrize(
    ("bomb", "words"),
    [
        ("stacked", "Content-Encoding 'gzip, gzip, gzip' stacks 3 codings"),
        ("big", "reply limit of 8 MiB"),
    ],
)
def test_a_streamable_http_gzip_bomb_is_not_unpacked(bomb: str, words: str) -> None:
    """2 GiB of zero bytes in gzip, in three stacked layers (under 300 bytes) or in one:
    the stacked coding is refused before anything is decoded, the single layer decoded
    no further than the limit; the call is broken within its timeout, in bounded memory."""
    need_module("uvicorn")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # (the pool is left last: the server and the probe are closed first, so a call
    # that hung ends and the failure below is reported instead of a hang)
    with (
        ThreadPoolExecutor(1) as pool,
        serving("mcp_http_hostile.py", "--gzip-bomb", bomb) as url,
        probes.mcp(url, timeout=5) as probe,
    ):
        call = pool.submit(probe.observe, "x")
        try:
            observation = call.result(timeout=45)
        except FuturesTimeout:
            pytest.fail("observe() was still waiting 45 s into a 5 s call: the bomb is unpacked")
    assert observation.status is Status.BROKEN, observation
    assert observation.error_type == "ReplyTooLarge"
    assert words in (observation.error or "")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 512 * 1024  # the bomb is 2 GiB unpacked
