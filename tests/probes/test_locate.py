"""Locating where a calibration marker came back, and the read forms that result.

The answers are the ones the real servers give (server-everything's echo, mcp-server-
git's git_log, server-memory's open_nodes, server-filesystem's write_file), so each
derived pattern is checked on the answer to the next payload as well: it must give
that payload back exactly, whatever it holds.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from probes._mcp.read import locate, parse_read
from probes._payload.locate import json_path_of, regex_literal, text_pattern

MARKER = "fidelity-marker-0a1b2c3d"
NEXT = "a\r\nb “q” \u2028 (x) Message: \n"


def _log(sha: str, when: str, message: str) -> str:
    return f"Commit history:\nCommit: {sha}\nAuthor: Probe User\nDate: {when}\nMessage: {message}\n"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda v: f"Echo: {v}", r"(?s)\AEcho: (.*)\Z"),
        # The hash and the time change per commit: only the line's own prefix anchors.
        (
            lambda v: _log(f"{len(v) * 7:040x}", f"2026-12-0{len(v) % 9 + 1} 10:00:00+00:00", v),
            r"(?s)\nMessage: (.*)\n\Z",
        ),
    ],
)
def test_text_patterns_find_the_next_payload(answer: object, expected: str) -> None:
    assert callable(answer)
    pattern = text_pattern(answer(MARKER), MARKER)
    assert pattern == expected
    match = re.search(pattern, answer(NEXT))
    assert match is not None
    assert match.group(1) == NEXT


def test_a_varying_suffix_anchors_lazily() -> None:
    # A per-payload name before the value, a size after it: the anchors stop at them,
    # and the value is read up to the first " (" after it.
    def answer(v: str) -> str:
        return f"Wrote /root/f{len(v)}.txt: {v} ({len(v.encode())} bytes)"

    pattern = text_pattern(answer(MARKER), MARKER)
    assert pattern == r"(?s)\.txt: (.*?) \("
    match = re.search(pattern, answer("a\r\nb “q”"))
    assert match is not None
    assert match.group(1) == "a\r\nb “q”"
    # A payload that holds the anchor itself is cut there: such a chain needs --read.
    cut = re.search(pattern, answer("x (y) z"))
    assert cut is not None
    assert cut.group(1) == "x"
    # Without guessing, everything around the marker is taken as constant.
    assert text_pattern(answer(MARKER), MARKER, guess=False) == (
        r"(?s)\AWrote /root/f24\.txt: (.*) \(24 bytes\)\Z"
    )


def test_regex_literal_is_printable_and_exact() -> None:
    text = "a.b\n\t\x00\u2028é😀(|)"
    literal = regex_literal(text)
    assert literal.isprintable()
    assert literal.isascii()
    assert re.fullmatch(literal, text)


def test_json_paths_in_document_order() -> None:
    document = {"entities": [{"name": "n", "observations": ["o", MARKER]}], "x": MARKER}
    assert json_path_of(document, MARKER) == ("entities", 0, "observations", 1)
    assert json_path_of(document, "absent") is None


def _result(*texts: str, structured: object = None) -> SimpleNamespace:
    blocks = [SimpleNamespace(type="text", text=t) for t in texts]
    return SimpleNamespace(content=blocks, structured_content=structured, is_error=False)


def test_locate_prefers_the_whole_text_then_json_then_structured_then_a_pattern() -> None:
    assert locate(_result(MARKER), MARKER) == "text"
    graph = {"entities": [{"name": "e1", "entityType": "note", "observations": [MARKER]}]}
    # server-memory's open_nodes: the graph as indented JSON text, and as structured content.
    answer = _result(json.dumps(graph, indent=2), structured=graph)
    assert locate(answer, MARKER) == "json:entities[0].observations[0]"
    assert locate(_result("done", structured={"content": MARKER}), MARKER) == ("structured:content")
    assert locate(_result(f"Echo: {MARKER}"), MARKER) == r"regex:(?s)\AEcho: (.*)\Z"
    assert locate(_result("nothing here", structured={"a": 1}), MARKER) is None


def test_the_json_read_parses_the_text_content() -> None:
    reader = parse_read("json:entities[0].name")
    value = "a\u2028b\r\n\x00"
    found, got, _ = reader.read(_result("[]", json.dumps({"entities": [{"name": value}]})))
    assert (found, got) == (True, value)
    found, _, why = reader.read(_result("plain text"))
    assert not found
    assert why == "no text content is a JSON document"
    found, _, why = reader.read(_result('{"entities": []}'))
    assert not found
    assert "has no entities[0].name" in why
