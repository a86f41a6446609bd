"""Locating where a calibration marker came back, and the read forms that result.

The answers are shaped like the ones real servers give (server-everything's echo, mcp-server-
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
from probes._payload.locate import (
    is_marker,
    json_path_of,
    markers_of,
    regex_literal,
    structure_paths,
    text_patterns,
)
from probes._payload.paths import ParamPath, get
from probes._payload.placeholders import Filled

RUN = "0a1b2c3d"
MARKERS = markers_of(RUN)
MARKER = MARKERS[0]
VALUES = [Filled(payload=m, n=n, run=RUN) for n, m in enumerate(MARKERS)]
NEXT = "a\r\nb “q” \u2028 (x) Message: \n"
#: Payloads holding what a lazy anchor or a line-based read would cut at.
HARD = (NEXT, "x (y) z", "one\ntwo\n", 'say "hi" \\n', "", " ")


def _log(sha: str, when: str, message: str) -> str:
    return f"Commit history:\nCommit: {sha}\nAuthor: Probe User\nDate: {when}\nMessage: {message}\n"


def _reads_back(answer: object, pattern: str) -> None:
    assert callable(answer)
    for n, payload in enumerate(HARD, 3):
        match = re.search(pattern, answer(payload, n))
        assert match is not None, payload
        assert match.group(1) == payload


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda v, n: f"Echo: {v}", r"(?s)\AEcho: (.*)\Z"),
        # The hash and the time change per commit: only the line's own prefix anchors.
        (
            lambda v, n: _log(f"{n * 7:040x}", f"2026-12-0{n % 9 + 1} 10:00:00+00:00", v),
            r"(?s)Message: (.*)\n\Z",
        ),
        # A per-payload name before the value, a size after it: both as patterns, and
        # the value read to the end, so a payload holding " (" is not cut there.
        (
            lambda v, n: f"Wrote /root/f{n}.txt: {v} ({len(v.encode())} bytes)",
            r"(?s)txt: (.*) \(\w*\d\w* bytes\)\Z",
        ),
        # The value twice, once in a file name made from it: the one alone is read.
        (lambda v, n: f"Saved /srv/{v}.txt\n{v}", r"(?s)txt\n(.*)\Z"),
        # A status word that changes from call to call is a pattern, not a word.
        (
            lambda v, n: f"output: {v}\nstatus: {'RUNNING' if n % 2 else 'COMPLETED'}",
            r"(?s)\Aoutput: (.*)\nstatus: [A-Z][A-Z_]*\Z",
        ),
    ],
)
def test_text_patterns_read_every_marker_and_the_next_payloads(
    answer: object, expected: str
) -> None:
    assert callable(answer)
    texts = [answer(m, n) for n, m in enumerate(MARKERS)]
    patterns = text_patterns(texts, MARKERS)
    assert patterns[0] == expected
    _reads_back(answer, patterns[0])


def test_anchors_never_hold_text_made_from_the_marker() -> None:
    def answer(v: str, n: int) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", v.lower())
        return f"Posted to #{slug} as {slug}: {v}"

    texts = [answer(m, n) for n, m in enumerate(MARKERS)]
    patterns = text_patterns(texts, MARKERS)
    assert patterns
    for pattern in patterns:
        assert "fidelity" not in pattern
        assert RUN not in pattern
    _reads_back(answer, patterns[0])


def test_markers_have_the_shapes_a_wrong_read_gets_wrong() -> None:
    plain, quoted, lines = MARKERS
    assert plain.isascii()
    assert plain.isprintable()
    assert '"' in quoted
    assert "\\" in quoted
    assert "\n\n" in lines  # two paragraphs: a subject and a body, say
    assert all(is_marker(m) for m in MARKERS)
    assert not is_marker(plain + " and more")
    assert not is_marker("fidelity-marker-x")


def test_structure_paths_are_made_general_and_checked_on_every_reply() -> None:
    # Keyed by the file's path, which holds {n}.
    keyed = [{f"/srv/notes/f{n}.txt": {"content": m}} for n, m in enumerate(MARKERS)]
    assert [str(p) for p in structure_paths(keyed, MARKERS, VALUES)] == [
        '["/srv/notes/f{n}.txt"].content'
    ]
    # A log that lists every entry so far: the last one is this payload's.
    log = [{"entries": [{"text": m} for m in MARKERS[: n + 1]]} for n in range(3)]
    assert [str(p) for p in structure_paths(log, MARKERS, VALUES)] == ["entries[-1].text"]
    # Subject and body: no field holds the value with a line break.
    split = [dict(zip(("subject", "body"), [*m.split("\n"), ""], strict=False)) for m in MARKERS]
    assert structure_paths(split, MARKERS, VALUES) == []
    # Two fields hold it: the one named like the argument it was sent in comes first.
    both = [{"name": m, "content": m} for m in MARKERS]
    paths = structure_paths(both, MARKERS, VALUES, hint="content")
    assert str(paths[0]) == "content"
    # A key nothing predicts: the wildcard, first match.
    unknown = [{f"id-{n * 31}x": {"text": m}} for n, m in enumerate(MARKERS)]
    (wild,) = structure_paths(unknown, MARKERS, VALUES)
    assert str(wild) == "*.text"
    assert get({"zz": {"text": "v"}}, ParamPath.parse("*.text")) == "v"


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


def _locate(answer: object) -> tuple[str | None, str]:
    assert callable(answer)
    return locate([answer(m) for m in MARKERS], MARKERS, VALUES, hint=None)


def test_locate_prefers_the_whole_text_then_json_then_structured_then_a_pattern() -> None:
    assert _locate(_result) == ("text", "")

    def graph(m: str) -> dict[str, object]:
        return {"entities": [{"name": "e1", "entityType": "note", "observations": [m]}]}

    # server-memory's open_nodes: the graph as indented JSON text, and as structured content.
    found = _locate(lambda m: _result(json.dumps(graph(m), indent=2), structured=graph(m)))
    assert found == ("json:entities[0].observations[0]", "")
    found = _locate(lambda m: _result("done", structured={"content": m}))
    assert found == ("structured:content", "")
    assert _locate(lambda m: _result(f"Echo: {m}")) == (r"regex:(?s)\AEcho: (.*)\Z", "")
    assert _locate(lambda m: _result("nothing here", structured={"a": 1})) == (None, "")


def test_json_text_is_never_read_with_a_pattern() -> None:
    # The JSON text of a tool: a pattern over it would return the quote marker escaped.
    found = _locate(lambda m: _result(json.dumps({"path": "/srv/a.txt", "content": m})))
    assert found == ("json:content", "")
    # Inside a longer string of the JSON: not read at all, rather than read escaped.
    spec, _why = _locate(lambda m: _result(json.dumps({"result": f"Saved: {m}"})))
    assert spec is None


def test_a_split_value_and_a_changed_marker_are_said() -> None:
    def commit(m: str) -> SimpleNamespace:
        subject, _, body = m.partition("\n")
        return _result(json.dumps({"subject": subject, "body": body}))

    spec, why = _locate(commit)
    assert spec is None
    assert why == (
        "the value came back split across fields: its first line at subject, the rest at "
        "body; no field holds it whole"
    )
    spec, why = _locate(lambda m: _result("Echo: " + m.replace("-", "\u2010")))
    assert spec is None
    assert why.startswith("the target changes even plain ASCII text: ")
    spec, why = _locate(lambda m: _result("Echo: " + m.replace("\\", "\\\\")))
    assert spec is None
    assert why.startswith(
        "the value with a quote and a backslash came back changed (escape.backslash): "
    )


@pytest.mark.parametrize(
    ("rewrite", "expected"),
    [
        # A prompt that collapses whitespace (" ".join(text.split())).
        (lambda m: " ".join(m.split()), "text"),
        (lambda m: "Echo: " + m.replace("\n", "\r\n"), r"regex:(?s)\AEcho: (.*)\Z"),
        (lambda m: json.dumps({"text": m.replace("\n", "")}), "json:text"),
    ],
)
def test_a_chain_that_rewrites_line_breaks_is_located_and_left_to_the_payloads(
    rewrite: object, expected: str
) -> None:
    # The line-break marker comes back whole with its line break rewritten: the read
    # holds the value (both lines are there), so it is kept and the newline payloads
    # measure the rewrite, rather than the whole run failing at calibration.
    assert callable(rewrite)
    assert _locate(lambda m: _result(rewrite(m))) == (expected, "")


@pytest.mark.parametrize(
    "answer",
    [
        # Cut at the line break: the second line never came back.
        lambda m: _result("Echo: " + m.partition("\n")[0]),
        # The first line kept and the rest turned into a space.
        lambda m: _result(m.replace("\n\nsecond paragraph", " ")),
        # Something else than whitespace where the line break was.
        lambda m: _result(m.replace("\n", " / ")),
    ],
)
def test_a_line_break_marker_cut_or_changed_otherwise_is_not_located(answer: object) -> None:
    assert callable(answer)
    spec, why = _locate(answer)
    assert spec is None
    assert why.startswith("the value with a line break came back changed"), why


def test_a_commit_subject_that_joins_its_lines_is_not_taken_for_a_collapsing_chain() -> None:
    # git's %s is the first paragraph, its lines joined by spaces; %b the rest. A
    # marker of one line break would come back whole in the subject with its break
    # turned into a space, as a whitespace-collapsing chain's does; the blank line of
    # the marker puts its second paragraph in the body, so the split is seen instead
    # (and payloads with a blank line are not reported cut).
    def commit(m: str) -> SimpleNamespace:
        first, _, rest = m.partition("\n\n")
        return _result(json.dumps({"subject": " ".join(first.split("\n")), "body": rest}))

    spec, why = _locate(commit)
    assert spec is None
    assert why.startswith("the value came back split across fields: its first line at subject")


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
