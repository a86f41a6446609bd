"""Reading a value back from an MCP tool result: each ``read`` form, what it says when
the value is not there, the forms it refuses, and the bounded text of a result shown in
an error. Results are shaped like ``CallToolResult`` (content blocks, structured
content), built by hand."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace
from typing import Any

import pytest

from fidelity import UsageError
from fidelity._probe.observation import Direction
from probes._mcp.read import Reader, locate, no_text, parse_read, result_text
from probes._payload.locate import markers_of
from probes._payload.paths import ParamPath
from probes._payload.placeholders import Filled


def _block(kind: str, **fields: Any) -> SimpleNamespace:
    return SimpleNamespace(type=kind, **fields)


def _result(*blocks: SimpleNamespace, structured: object = None) -> SimpleNamespace:
    return SimpleNamespace(content=list(blocks), structured_content=structured, is_error=False)


def _text(*texts: str, structured: object = None) -> SimpleNamespace:
    return _result(*(_block("text", text=t) for t in texts), structured=structured)


def test_text_reads_the_first_text_block_and_skips_other_blocks() -> None:
    reader = parse_read("text")
    assert reader.mode == "text"
    assert reader.direction is Direction.ROUND_TRIP
    result = _result(
        _block("image", data="AAAA"),
        _block("text", text=None),  # not a string: no text
        _block("text", text="first"),
        _block("text", text="second"),
    )
    assert reader.read(result) == (True, "first", "")
    assert reader.read(_result(_block("image", data="AAAA"))) == (
        False,
        None,
        "the result has no text content",
    )
    assert reader.read(SimpleNamespace(content=None, structured_content=None)) == (
        False,
        None,
        "the result has no text content",
    )


def test_regex_reads_its_group_from_the_first_block_that_matches() -> None:
    reader = parse_read("regex:Echo: (.*)")
    assert reader.mode == "regex"
    # DOTALL: the group takes line breaks
    assert reader.read(_text("nothing", "Echo: a\nb")) == (True, "a\nb", "")
    assert reader.read(_text("nothing", "else")) == (
        False,
        None,
        "no text content matches Echo: (.*)",
    )


def test_regex_needs_exactly_one_group_and_a_valid_pattern() -> None:
    with pytest.raises(UsageError) as none:
        parse_read("regex:Echo: .*")
    assert str(none.value) == (
        "read='regex:Echo: .*' must have exactly one capture group around the value, "
        "e.g. 'regex:Echo: (.*)'; it has 0."
    )
    with pytest.raises(UsageError, match=r"; it has 2\.$"):
        parse_read("regex:(a)(b)")
    with pytest.raises(UsageError, match=r"^read='regex:\(' is not a valid regular expression"):
        parse_read("regex:(")


def test_structured_reads_a_path_in_the_structured_content() -> None:
    reader = parse_read("structured:items[1].body")
    assert (reader.mode, str(reader.path)) == ("structured", "items[1].body")
    assert reader.direction is Direction.ROUND_TRIP
    content = {"items": [{"body": "a"}, {"body": "b"}]}
    assert reader.read(_text("ignored", structured=content)) == (True, "b", "")
    assert reader.read(_text("x")) == (False, None, "the result has no structured content")
    assert reader.read(_text("x", structured={"items": []})) == (
        False,
        None,
        "the structured content has no items[1].body",
    )
    # a value that is not text is read as it is
    assert parse_read("structured:n").read(_text(structured={"n": 0})) == (True, 0, "")


def test_armored_reads_the_value_the_tool_received_and_measures_the_request() -> None:
    reader = parse_read("armored:got")
    assert reader.mode == "armored"
    assert reader.direction is Direction.REQUEST
    sent = "caf\u00e9 \u201cq\u201d"
    armored = {"base64": base64.b64encode(sent.encode("utf-8")).decode("ascii"), "text": "x"}
    assert reader.read(_text(structured={"got": armored})) == (True, sent, "")
    found, value, why = reader.read(_text(structured={"got": "plain"}))
    assert (found, value) == (False, None)
    assert why.startswith("got is not an armored value (")
    assert reader.read(_text("x")) == (False, None, "the result has no structured content")


def test_json_reads_the_first_text_block_that_holds_the_path() -> None:
    reader = parse_read("json:a.b")
    assert reader.mode == "json"
    holds = json.dumps({"a": {"b": "found"}})
    assert reader.read(_text("not json", '{"a": {}}', "  \n" + holds)) == (True, "found", "")
    assert reader.read(_text('["a"]', "[")) == (
        False,
        None,
        "the JSON text content has no a.b",
    )
    # text that is JSON but no object or list is not a document
    assert reader.read(_text('"a"', "12")) == (False, None, "no text content is a JSON document")
    # too deep to parse: not a document, no traceback
    assert reader.read(_text("[" * 100_000 + "]" * 100_000)) == (
        False,
        None,
        "no text content is a JSON document",
    )


def test_json_text_is_parsed_up_to_eight_mebibytes() -> None:
    reader = parse_read("json:[0]")
    limit = 8 * 1024 * 1024
    fits = '["v", "' + "x" * (limit - 9) + '"]'
    assert len(fits) == limit
    assert reader.read(_text(fits)) == (True, "v", "")
    over = '["v", "' + "x" * (limit - 8) + '"]'
    assert reader.read(_text(over)) == (False, None, "no text content is a JSON document")


def test_json_placeholders_in_a_key_are_filled_per_payload() -> None:
    reader = parse_read('json:["f{n}.txt"].body')
    text = json.dumps({"f3.txt": {"body": "three"}, "f4.txt": {"body": "four"}})
    assert reader.read(_text(text), Filled(payload="p", n=4, run="r")) == (True, "four", "")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "structured:",
            "read='structured:' needs a path after structured: (keys with dots, list indexes "
            "from 0 in brackets), e.g. 'structured:text' or 'structured:items[0].body'.",
        ),
        (
            "json:a..b",
            "read='json:a..b' has no path it can read after json: (keys with dots, list "
            "indexes from 0 in brackets), e.g. 'json:text' or 'json:items[0].body'.",
        ),
        (
            "armored:",
            "read='armored:' needs a path after armored: (keys with dots, list indexes from 0 "
            "in brackets), e.g. 'armored:text' or 'armored:items[0].body'.",
        ),
        (
            "texts",
            "read='texts' is not understood; use 'text', 'regex:PATTERN' (one group), "
            "'json:PATH', 'structured:PATH' or 'armored:PATH'.",
        ),
        (
            5,
            "read=5 must be a string: 'text', 'regex:PATTERN' (one group), 'json:PATH', "
            "'structured:PATH' or 'armored:PATH'.",
        ),
    ],
)
def test_a_read_form_that_is_not_understood_is_one_sentence(spec: Any, message: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_read(spec)
    assert str(refused.value) == message


def test_result_text_joins_the_text_blocks_and_cuts_at_the_limit() -> None:
    assert result_text(_text("a", "b")) == "a b"
    assert result_text(_text("x" * 300)) == "x" * 300
    assert result_text(_text("x" * 301)) == "x" * 300 + "..."
    assert result_text(_text("abcdef"), 5) == "abcde..."
    assert result_text(_text("abcde"), 5) == "abcde"
    assert result_text(_result(_block("image", data="A"))) == ""


def test_no_text_says_what_the_result_holds_instead() -> None:
    assert no_text(_result()) == "no text content, only nothing"
    assert no_text(_result(structured={})) == "no text content, only nothing and structured content"
    kinds = [_block(k) for k in ("image", "audio", "resource", "resource_link", "image", "x")]
    assert no_text(_result(*kinds)) == (
        "no text content, only image, audio, resource, resource_link, image"
    )
    assert no_text(_result(_block("k" * 50))) == "no text content, only " + "k" * 40


def test_locate_reads_the_last_text_block_when_the_first_are_fixed_text() -> None:
    run = "0a1b2c3d"
    markers = markers_of(run)
    values = [Filled(payload=m, n=n, run=run) for n, m in enumerate(markers)]
    results = [_text("Saved.", json.dumps({"v": m})) for m in markers]
    assert locate(results, markers, values, hint=None) == ("json:v", "")
    # the structured content is a candidate only when every result has one
    partly = [_text("Saved.", structured={"v": m}) for m in markers]
    partly[1] = _text("Saved.")
    spec, _why = locate(partly, markers, values, hint=None)
    assert spec is None


def test_a_reader_made_with_a_mode_read_from_json_reads_the_same() -> None:
    # Reader is public: its mode may come from a document (equal, not identical, to
    # the names parse_read uses).
    text = Reader(spec="text", mode=json.loads('"text"'))
    assert text.read(_text("first", "second")) == (True, "first", "")
    armored = Reader(spec="armored:v", mode=json.loads('"armored"'), path=ParamPath.parse("v"))
    assert armored.direction is Direction.REQUEST
