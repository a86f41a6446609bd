"""probes.mcp against misbehaving and real servers: statuses, recovery, discovery,
reading, and nothing raw on our terminal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _needs import need_module
from _support.servers import HOSTILE_MCP, QUOTE_EDIT_MCP

import probes
from fidelity import Direction, Status, UsageError
from probes._mcp.probe import DestructiveToolRefused

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

HOSTILE = HOSTILE_MCP
RAW = ("\x1b", "\u202e", "\ufffd", "\udc80")


@pytest.fixture(scope="module")
def reflector_url() -> Iterator[str]:
    """One Python reflector over Streamable HTTP for the module (sessions start fast)."""
    need_module("mcp")
    need_module("uvicorn")
    with probes.mcp_reflector("http") as url:
        assert isinstance(url, str)
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/mcp")
        yield url


def _assert_terminal_clean(text: str) -> None:
    for raw in RAW:
        assert raw not in text


def test_crash_after_n_calls_is_broken_then_the_session_is_re_established(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with probes.mcp([*HOSTILE, "--crash-after", "2"], timeout=5) as probe:
        statuses = [probe.observe(f"v{i}“”").status for i in range(5)]
    assert statuses[:2] == [Status.PRESERVED, Status.PRESERVED]
    assert statuses[2] is Status.BROKEN
    assert statuses[3:] == [Status.PRESERVED, Status.PRESERVED]
    _assert_terminal_clean(capfd.readouterr().err)


def test_broken_observation_says_what_happened() -> None:
    with probes.mcp([*HOSTILE, "--crash-after", "0", "--log-stderr"], timeout=5) as probe:
        obs = probe.observe("a\u202eb\x1b[31m")
    assert obs.status is Status.BROKEN
    assert not obs.client_side
    assert "closed the connection" in obs.error
    # The server logged the payload raw to its stderr; we show it only badge-rendered.
    assert "[U+202E RIGHT-TO-LEFT OVERRIDE]" in obs.error
    _assert_terminal_clean(obs.error)


def test_noise_and_invalid_utf8_on_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    with probes.mcp([*HOSTILE, "--noise", "--log-stderr"], timeout=5) as probe:
        first = probe.observe("alpha “x” beta")
        second = probe.observe("alpha \u202e beta")
    # Non-protocol lines (an ESC sequence, a bidi override, bytes that are not UTF-8)
    # are skipped; the real replies arrive intact.
    assert first.status is Status.PRESERVED
    assert second.status is Status.PRESERVED
    captured = capfd.readouterr()
    _assert_terminal_clean(captured.err + captured.out)
    assert "Traceback" not in captured.err


def test_lone_surrogate_escape_in_a_reply_is_broken_without_waiting() -> None:
    # A reply the client library cannot parse is a failure of the chain's protocol,
    # not the tool's refusal of the value.
    with probes.mcp([*HOSTILE, "--surrogate-reply"], timeout=60) as probe:
        obs = probe.observe("plain")
        after = probe.observe("plain")
    assert obs.status is Status.BROKEN
    assert obs.error_type == "UnparsableReply"
    assert "could not parse" in obs.error
    assert obs.wire is not None
    assert b"\\ud800" in obs.wire
    assert after.status is Status.BROKEN  # the session survived: its own answer again
    assert after.error_type == "UnparsableReply"


def test_lone_surrogate_payload_is_a_client_side_failure() -> None:
    # The server exits on the third call it receives: only a session that survived the
    # surrogate (nothing sent, no restart) reaches it with the fourth observation.
    with probes.mcp([*HOSTILE, "--crash-after", "2"], timeout=5) as probe:
        before = probe.observe("ok")
        obs = probe.observe("a\ud800b")
        after = probe.observe("ok")
        sent = probe.requests
        third = probe.observe("ok")
    assert sent == 2  # the surrogate call was not sent
    # Refused by the client library, as in the HTTP probe; the session survived.
    assert obs.status is Status.REJECTED
    assert obs.client_side
    assert "client library could not encode" in obs.error
    assert "nothing was sent" in obs.error
    assert [before.status, after.status] == [Status.PRESERVED, Status.PRESERVED]
    assert third.status is Status.BROKEN
    assert not third.client_side


def test_timeout_is_not_retried_and_a_live_session_is_kept() -> None:
    # The server ignores the HANG call but keeps answering, and exits on its third call.
    with probes.mcp([*HOSTILE, "--hang-on", "HANG", "--crash-after", "2"], timeout=0.5) as probe:
        hung = probe.observe("HANG")
        calls = probe.requests
        after = probe.observe("fine")
        third = probe.observe("fine")
    assert hung.status is Status.TIMEOUT
    assert calls == 1
    assert after.status is Status.PRESERVED
    assert third.status is Status.BROKEN  # the same server process: the session was kept


def test_a_server_that_stops_answering_is_let_go_after_a_timeout() -> None:
    # After MUTE the server answers nothing, not even the health check: the session is
    # dropped (the server stopped in the background) and the next payload gets a new one.
    with probes.mcp([*HOSTILE, "--mute-on", "MUTE"], timeout=0.5) as probe:
        hung = probe.observe("MUTE")
        after = probe.observe("fine")
        calls = probe.requests
    assert hung.status is Status.TIMEOUT
    assert "effect on the server is unknown" in hung.error
    assert after.status is Status.PRESERVED
    assert calls == 2  # the timed-out call was not retried


def test_unknown_tool_names_the_available_tools() -> None:
    probe = probes.mcp(HOSTILE, tool="edit")
    try:
        # list_tools() looks at the server before choosing: no check of the tool.
        assert [t.name for t in probe.list_tools()] == ["echo", "store", "ping_tool"]
        with pytest.raises(
            UsageError, match=r"tool='edit' is not offered.*its tools are: echo, ping_tool, store"
        ):
            _ = probe.tools
    finally:
        probe.close()


def test_unknown_param_names_the_arguments() -> None:
    with (
        pytest.raises(UsageError, match="its arguments are: text"),
        probes.mcp(HOSTILE, param="body"),
    ):
        pass


def test_destructive_tool_is_refused_but_listed() -> None:
    # With allow_destructive=True the same tool is surveyed in test_mcp_quote_edit.
    target = QUOTE_EDIT_MCP
    args = {"path": "doc.txt", "new_string": "x"}
    probe = probes.mcp(target, tool="edit", param="old_string", args=args)
    try:
        (info,) = probe.list_tools()
        with pytest.raises(DestructiveToolRefused) as refused:
            probe.open()
    finally:
        probe.close()
    assert info.name == "edit"
    assert info.destructive
    assert info.annotations["destructiveHint"] is True
    assert set(info.properties) == {"path", "old_string", "new_string"}
    error = refused.value
    assert isinstance(error, UsageError)
    assert error.tool == "edit"
    assert str(error).startswith(
        "tool 'edit' (payload tool; annotated destructiveHint: true) may change or delete data"
    )
    assert "only when the server annotates it readOnlyHint: true" in str(error)
    assert str(error).endswith("pass allow_destructive=True to proceed.")
    assert "--" not in str(error)  # the API's switch; a CLI names its own:
    assert error.advice("--yes").endswith("pass --yes to proceed.")


def test_a_destructive_read_tool_is_refused_too() -> None:
    # echo is annotated read-only, store destructive: the read step would call store.
    store = {"path": "x", "content": "stored"}
    probe = probes.mcp(HOSTILE, read_tool="store", read_args=store)
    with pytest.raises(DestructiveToolRefused) as refused, probe:
        pass
    assert refused.value.tool == "store"
    allowed = probes.mcp(HOSTILE, read_tool="store", read_args=store, allow_destructive=True)
    with allowed:
        assert allowed.observe("a“b").received == "stored"  # store answers its content


def test_tool_discovery_lists_schemas_and_annotations(reflector_url: str) -> None:
    with probes.mcp(reflector_url) as probe:
        tools = {t.name: t for t in probe.tools}
        assert set(tools) == {"echo", "reflect", "emit"}
        assert tools["echo"].annotations["readOnlyHint"] is True
        assert tools["emit"].input_schema["required"] == ["value"]
        assert not probe.tool_info.destructive


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ("text", "YeKAnGI="),
        ("structured:base64", "YeKAnGI="),
        ("structured:codepoints.1", 8220),
        ("regex:^(YeKA)", "YeKA"),
    ],
)
def test_read_modes(reflector_url: str, read: str, expected: object) -> None:
    with probes.mcp(reflector_url, tool="reflect", read=read) as probe:
        assert probe.max_requests_per_observation == 1
        obs = probe.observe("a“b")
    assert obs.received == expected
    assert obs.parts == ()  # only the echo tool is split into directions


def test_armored_read_measures_the_request_path(reflector_url: str) -> None:
    with probes.mcp(reflector_url, tool="reflect", read="armored:$") as probe:
        missing = probe.observe("x")
    assert missing.status is Status.LOST
    assert missing.direction is Direction.REQUEST


def test_lost_when_the_value_is_not_where_read_expects_it(reflector_url: str) -> None:
    with probes.mcp(reflector_url, read="regex:Echo: (.*)") as probe:
        obs = probe.observe("hello")
    assert obs.status is Status.LOST
    assert "no text content matches" in obs.error


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"read": "xml:text"}, "is not understood"),
        ({"read": "json:a..b"}, "has no path it can read after json:"),
        ({"read": "json:"}, "needs a path after json:"),
        ({"param": "edits[0"}, "is not a path"),
        ({"args": {"x": "{nope}"}}, "unknown placeholder"),
        ({"args": {"x": "say {payload}"}}, "whole string value"),
        ({"before": [("write_file", {"p": "{"})]}, "lone"),
        ({"before": ["write_file"]}, "pair with a tool name"),
        ({"read": "regex:(a)(b)"}, "exactly one capture group"),
        ({"read_args": {"path": "x"}}, "without read_tool"),
        ({"timeout": 0}, "timeout"),
        ({"transport": "http"}, "does not fit the target"),
    ],
)
def test_bad_arguments_are_usage_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        probes.mcp(HOSTILE, **kwargs)  # type: ignore[arg-type]


def test_a_shell_string_is_not_a_target() -> None:
    with pytest.raises(UsageError, match="argv list"):
        probes.mcp("python server.py")


def test_unreachable_url_is_a_target_error() -> None:
    from fidelity import TargetError

    probe = probes.mcp("http://127.0.0.1:9/mcp", timeout=2)
    with pytest.raises(TargetError):
        probe.open()
    probe.close()


def test_the_library_finds_the_argument_and_the_read_back_like_the_command() -> None:
    from _support.mcp import npm_server

    with probes.mcp([npm_server("everything")], read=None) as probe:
        assert probe.param == "message"  # echo's only free-form string parameter
        assert probe.needs_calibration
        assert probe.requests == 0
        assert probe.calibrate() == r"regex:(?s)\AEcho: (.*)\Z"
        assert probe.requests == 3  # one call per calibration marker
        observation = probe.observe("a\r\n“b”\u2028")
        setup = probe.setup
    assert observation.status is Status.PRESERVED
    assert (setup.tool, setup.param, setup.param_found) == ("echo", "message", True)
    assert (setup.read, setup.read_found, setup.allow_destructive) == (
        r"regex:(?s)\AEcho: (.*)\Z",
        True,
        False,
    )


def test_arguments_are_the_ones_sent_besides_the_payload() -> None:
    args = {"path": "doc-{n}.txt"}
    with probes.mcp(
        HOSTILE, tool="store", param="content", args=args, allow_destructive=True
    ) as probe:
        assert probe.arguments == {"path": "doc-1.txt"}
        assert probe.observe("x").status is Status.PRESERVED  # the server echoes content
