"""Automatic read-back location against replies shaped like the ones that misled it on
real servers (``tests/servers/mcp_truth.py``, over stdio with the official SDK).

Every tool but ``garble`` keeps every byte, so the bar is absolute: each payload is
``preserved`` (or refused by the client library before anything is sent), never a
kind, never ``lost``. Where no read can be proved, the calibration fails and says
what came back.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from _needs import need_module
from _support.mcp import catalogue, one_per_family
from _support.servers import SERVERS

import probes
from fidelity import Status
from probes._payload.calibration import CalibrationFailed

TRUTH = [sys.executable, str(SERVERS / "mcp_truth.py")]
#: Payloads that hold what a raw-JSON read, a lazy anchor or a line-based read gets
#: wrong: quotes, backslashes, JSON escapes, line breaks, the anchors' own text.
HARD = (
    'say "hi"\\n and \\u00e9 \\\\ done',
    "line one\nline two\r\nline three\n",
    "output=x\nend Job 7 RUNNING: y",
    "Posted to #x: y\nSaved /srv/notes/z.txt\n",
    '{"path": "/srv/notes/a.txt", "content": "nested"}',
    "fidelity-marker in the text",
    "",
    " ",
)


def _payloads() -> list[str]:
    return [*HARD, *(p.text for p in one_per_family(catalogue()))]


def _run(tool: str, **options: Any) -> tuple[str, list[Any]]:
    need_module("mcp")
    with probes.mcp(TRUTH, tool=tool, read=None, allow_destructive=True, **options) as probe:
        spec = probe.calibrate()
        return spec, [probe.observe(text) for text in _payloads()]


@pytest.mark.parametrize(
    ("tool", "options", "expected"),
    [
        # JSON text: read inside the decoded value, never with a pattern over the text.
        ("write_note", {"param": "content", "args": {"path": "/srv/notes/a.txt"}}, "json:content"),
        # The value twice, once inside a file name made from it: the one alone is read.
        ("save", {}, r"regex:(?s)txt\n(.*)\Z"),
        # A channel name made from the value: never part of an anchor.
        ("post", {}, r"regex:(?s): (.*)\Z"),
        # A status word that changes from call to call: never part of an anchor.
        ("run_job", {}, r"regex:(?s)output=(.*)\Z"),
        # Subject and body, and the whole message: the field holding it whole.
        ("commit_full", {}, "json:message"),
        # A reply keyed by the file's path, which holds {n}.
        (
            "put",
            {"param": "content", "args": {"path": "/srv/notes/f{n}.txt"}},
            'json:["/srv/notes/f{n}.txt"].content',
        ),
        # A reply listing every entry so far: this payload's is the last.
        ("append", {}, "json:entries[-1].text"),
    ],
)
def test_a_located_read_back_never_makes_a_finding(
    tool: str, options: dict[str, Any], expected: str
) -> None:
    spec, seen = _run(tool, **options)
    assert spec == expected
    wrong = [
        (o.sent, o.status.value, sorted(o.kinds), o.error)
        for o in seen
        if o.status is not Status.PRESERVED and not o.client_side
    ]
    assert not wrong, wrong
    assert sum(o.status is Status.PRESERVED for o in seen) >= len(HARD)


def test_a_value_split_across_fields_is_said_to_be() -> None:
    need_module("mcp")
    with probes.mcp(TRUTH, tool="commit", read=None, allow_destructive=True) as probe:
        with pytest.raises(CalibrationFailed) as failure:
            probe.calibrate()
        assert probe.requests == 3  # one call per marker: requests were sent
    assert "split across fields: its first line at subject, the rest at body" in str(failure.value)


def test_a_marker_that_comes_back_changed_is_named_with_its_kinds() -> None:
    need_module("mcp")
    garble = probes.mcp(TRUTH, tool="garble", read=None, allow_destructive=True)
    with garble as probe, pytest.raises(CalibrationFailed) as failure:
        probe.calibrate()
    message = str(failure.value)
    assert "the target changes even plain ASCII text: " in message
    assert "fidelity-mar\ufffdker-" in message  # what came back


def test_lost_says_what_the_tool_answered() -> None:
    need_module("mcp")
    with probes.mcp(
        TRUTH,
        tool="write_note",
        param="content",
        args={"path": "a"},
        read="json:missing",
        allow_destructive=True,
    ) as probe:
        seen = probe.observe("x")
    assert seen.status is Status.LOST
    assert seen.error.startswith("the JSON text content has no missing; what came back: {")
    assert '"content": "x"' in seen.error


def test_payloads_keep_their_numbers_after_calibration() -> None:
    need_module("mcp")
    with probes.mcp(
        TRUTH,
        tool="put",
        param="content",
        args={"path": "f{n}"},
        read=None,
        allow_destructive=True,
    ) as probe:
        assert probe.calibrate() == "json:f{n}.content"
        first = probe.observe("one")
        second = probe.observe("two")
    assert (first.status, second.status) == (Status.PRESERVED, Status.PRESERVED)
