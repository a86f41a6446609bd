"""Rewriting the marked block of a contract-card document, byte for byte."""

from __future__ import annotations

import pytest

from fidelity._core.errors import UsageError
from fidelity._report.block import find_block, newline_of, replace_block

BEGIN = b"<!-- fidelity:begin edit.old_string -->"
END = b"<!-- fidelity:end edit.old_string -->"


def _doc(newline: bytes, *, bom: bool = False, content: bytes = b"old row") -> bytes:
    nl = newline
    lines = [
        b"# Tool edit",
        b"",
        b"Some prose with \xe2\x80\x9ccurly\xe2\x80\x9d quotes and trailing spaces   ",
        b"<!-- fidelity:begin other -->",
        b"other block",
        b"<!-- fidelity:end other -->",
        BEGIN,
        content,
        END,
        b"",
        b"Footer without final newline",
    ]
    return (b"\xef\xbb\xbf" if bom else b"") + nl.join(lines)


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [False, True])
def test_only_the_named_block_changes(newline: bytes, bom: bool) -> None:
    doc = _doc(newline, bom=bom)
    out = replace_block(doc, "edit.old_string", "| a | b |\n| new | row |\n")
    assert out == _doc(newline, bom=bom, content=newline.join([b"| a | b |", b"| new | row |"]))
    block = find_block(out, "edit.old_string")
    assert block is not None
    assert block.content.replace("\r\n", "\n") == "| a | b |\n| new | row |\n"
    # The other block and every byte around are untouched.
    assert out[: doc.index(BEGIN)] == doc[: doc.index(BEGIN)]
    assert out[out.index(END) :] == doc[doc.index(END) :]


def test_replacing_twice_is_stable() -> None:
    doc = _doc(b"\r\n")
    once = replace_block(doc, "edit.old_string", "x\ny\n")
    assert replace_block(once, "edit.old_string", "x\ny\n") == once


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (b"", b"<!-- fidelity:begin n -->\nrow\n<!-- fidelity:end n -->\n"),
        (b"# T\n", b"# T\n\n<!-- fidelity:begin n -->\nrow\n<!-- fidelity:end n -->\n"),
        (b"# T", b"# T\n\n<!-- fidelity:begin n -->\nrow\n<!-- fidelity:end n -->\n"),
        (
            b"\xef\xbb\xbf# T\r\nx\r\n",
            b"\xef\xbb\xbf# T\r\nx\r\n\r\n<!-- fidelity:begin n -->\r\nrow\r\n"
            b"<!-- fidelity:end n -->\r\n",
        ),
        (b"\xef\xbb\xbf", b"\xef\xbb\xbf<!-- fidelity:begin n -->\nrow\n<!-- fidelity:end n -->\n"),
    ],
)
def test_absent_block_is_appended(doc: bytes, expected: bytes) -> None:
    assert replace_block(doc, "n", "row") == expected


def test_a_block_with_a_prefix_name_is_not_confused() -> None:
    doc = b"<!-- fidelity:begin n.x -->\nkeep\n<!-- fidelity:end n.x -->\n"
    out = replace_block(doc, "n", "row\n")
    assert out.startswith(doc)
    assert find_block(doc, "n") is None


def test_newline_detection() -> None:
    assert newline_of(b"a\r\nb\n") == b"\r\n"
    assert newline_of(b"a\nb\r\n") == b"\n"
    assert newline_of(b"") == b"\n"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (b"<!-- fidelity:begin n -->\nx\n", "no <!-- fidelity:end n --> marker"),
        (b"x\n<!-- fidelity:end n -->\n", "no <!-- fidelity:begin n --> marker"),
        (b"<!-- fidelity:end n -->\n<!-- fidelity:begin n -->\n", "comes before"),
        (
            b"<!-- fidelity:begin n -->\n<!-- fidelity:end n -->\n" * 2,
            "more than one block",
        ),
        (b"\xff\xfe<\x00!\x00", "UTF-16"),
        (b"caf\xe9\n", "not valid UTF-8"),
    ],
)
def test_malformed_documents_are_usage_errors(doc: bytes, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        replace_block(doc, "n", "row")


def test_unusable_names_are_refused() -> None:
    with pytest.raises(UsageError, match="cannot be used in a marker"):
        replace_block(b"", "a -->b", "row")
