"""Cases found by surveying real chains, kept so they stay classified right."""

from __future__ import annotations

import io

import pytest

import fidelity


def _text_mode_round_trip(text: str) -> str:
    raw = io.BytesIO(text.encode("utf-8"))
    return io.TextIOWrapper(raw, encoding="utf-8").read()  # universal newlines


@pytest.mark.parametrize("sent", ["\r\nbeta", "\r\n", "\r\n\r\nx", " \r\nx"])
def test_a_leading_crlf_read_in_text_mode_is_crlf_to_lf_not_strip(sent: str) -> None:
    received = _text_mode_round_trip(sent)
    assert fidelity.compare(sent, received).kinds == {"newline.crlf_to_lf"}


@pytest.mark.parametrize("sent", ["  x", "\t\tx", " \n x"])
def test_leading_whitespace_removed_by_strip_is_strip(sent: str) -> None:
    assert fidelity.compare(sent, sent.strip()).kinds == {"whitespace.strip"}


def test_spaces_only_strip_leaves_other_whitespace() -> None:
    sent = "  \tx"
    assert fidelity.compare(sent, sent.strip(" ")).kinds == {"whitespace.strip"}


def test_two_kinds_on_one_segment_render_as_one_block() -> None:
    sent = "say \u201chi\u201d\r\nnext"
    received = _text_mode_round_trip(sent).replace("\u201c", '"').replace("\u201d", '"')
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"quote.straighten", "newline.crlf_to_lf"}
    blocks = [line for line in comparison.render().splitlines() if line.startswith("- ")]
    assert len(blocks) == 2
    assert " + " in blocks[1]


@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_a_bom_inside_a_mojibake_is_mojibake(codec: str) -> None:
    sent = "\ufeffcaf\u00e9 au lait"
    received = sent.encode("utf-8").decode(codec)
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"encoding.mojibake"}
    assert comparison.explained


def test_a_bom_dropped_beside_other_rewrites_is_still_bom_removed() -> None:
    sent = "\ufeff\u201ca\u201d"
    received = (
        sent.encode("utf-8").decode("utf-8-sig").replace("\u201c", '"').replace("\u201d", '"')
    )
    assert fidelity.compare(sent, received).kinds == {"bom.removed", "quote.straighten"}
