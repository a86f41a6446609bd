"""Runs of similar characters: the explanation with the fewest kinds wins.

A run such as ``\\r\\n\\r\\r`` -> ``\\n\\n\\n`` or ``–----–`` -> ``------`` aligns in
several equally short ways; the pairing a diff picks may need more (or odder) kinds
than the rewrite that was applied. Each case is made by the real rewrite wherever a
library or a standard function produces it; the first of each group was found by the
strategies tests.
"""

from __future__ import annotations

import io
import re
import unicodedata

import pytest
import yaml

import fidelity


def _universal_newlines(text: str) -> str:
    return io.StringIO(text, newline=None).read()


def _straighten_dashes(text: str) -> str:
    return text.translate({0x2013: "-", 0x2014: "--", 0x2026: "..."})


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _each_blank_to_space(text: str) -> str:
    return re.sub(r"[^\S\n]", " ", text)


def _remove_accents_then_ascii(text: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return plain.encode("ascii", "replace").decode("ascii")


def _decode_short_escapes(text: str) -> str:
    # A second, unwanted decode of the short escapes (``\\n``, ``\\0``), as a sloppy
    # unescaper does; other backslashes stay.
    table = {"n": "\n", "0": "\x00", "t": "\t", "\\": "\\"}
    return re.sub(r"\\([nt0\\])", lambda m: table[m.group(1)], text)


@pytest.mark.parametrize("sent", ["\r\n\r\r please", "\r\r\n\r\n x", "a\r\n\r\rb\r\n\r"])
def test_a_run_of_cr_and_crlf_read_with_universal_newlines(sent: str) -> None:
    received = _universal_newlines(sent)
    assert fidelity.compare(sent, received).kinds == {
        "newline.crlf_to_lf",
        "newline.cr_to_lf",
    }


@pytest.mark.parametrize(
    "sent", ["the user said \u2013----\u2013", "x\u2013-\u2013-\u2013y", "a \u2013--\u2013 b"]
)
def test_a_run_of_dashes_and_hyphens_straightened(sent: str) -> None:
    received = _straighten_dashes(sent)
    assert fidelity.compare(sent, received).kinds == {"punct.straighten"}


@pytest.mark.parametrize("sent", ["   ", "\t\t", " \n "])
def test_a_blank_value_collapsed_to_one_space_is_no_strip(sent: str) -> None:
    received = _collapse(sent)
    assert received == " "
    assert fidelity.compare(sent, received).kinds == {"whitespace.collapse"}


@pytest.mark.parametrize("sent", ["\u00a0\ufeff", " \ufeffa", "\u2003\ufeff\ufeffb"])
def test_a_feff_on_both_sides_after_a_strip_is_no_bom_added(sent: str) -> None:
    received = sent.strip()  # Python's strip does not take U+FEFF
    assert received.startswith("\ufeff")
    assert fidelity.compare(sent, received).kinds == {"whitespace.strip"}


@pytest.mark.parametrize(
    "sent",
    [
        "a \u2003\t\u202f \u2003\t\u202fb",
        "x\t \u00a0\t y",
        "one\u3000 \u2009 \ttwo",
    ],
)
def test_each_blank_of_a_mixed_run_to_a_space(sent: str) -> None:
    received = _each_blank_to_space(sent)
    assert len(received) == len(sent)
    assert fidelity.compare(sent, received).kinds == {"whitespace.to_space"}


@pytest.mark.parametrize("sent", ["  0320  ", " 0x1F ", "\n  no\n"])
def test_a_padded_scalar_read_by_yaml_is_coerced(sent: str) -> None:
    received = yaml.safe_load(sent)
    assert not isinstance(received, str)
    assert fidelity.compare(sent, received).kinds == {"type.coerced"}


@pytest.mark.parametrize("sent", [" \\n0\\0\\1", "a\\0\\0\\2", "\\n\\n\\x"])
def test_decoded_escapes_next_to_a_kept_backslash(sent: str) -> None:
    received = _decode_short_escapes(sent)
    assert fidelity.compare(sent, received).kinds == {"unescape.json"}


@pytest.mark.parametrize("sent", ["\\\\';", '\\\\"', "a\\\\'b", "\\\\\\'"])
def test_backslashes_doubled_before_a_quote_are_not_json(sent: str) -> None:
    # ``\\'`` -> ``\\\\'``: the diff inserts after the run, and with one character of
    # context each side the segment ``\'`` -> ``\\\'`` reads as JSON escaping (a
    # backslash doubled, the quote escaped); two on the left show the doubling alone.
    # Found by the strategies tests (the escapes family, a Markdown writer).
    received = sent.replace("\\", "\\\\")
    assert fidelity.compare(sent, received).kinds == {"escape.backslash"}


@pytest.mark.parametrize(
    "sent", ["alpha \u0142\u00f3d\u017a beta", "\u0141\u00f3d\u017a", "Za\u017c\u00f3\u0142\u0107"]
)
def test_accents_removed_then_ascii_with_question_marks(sent: str) -> None:
    received = _remove_accents_then_ascii(sent)
    assert "?" in received
    assert fidelity.compare(sent, received).kinds == {
        "encoding.question_mark",
        "unicode.ascii_fold",
    }


def test_fewest_kinds_never_hides_a_second_rewrite() -> None:
    # Two different rewrites far apart stay two findings with their own kinds.
    sent = "\u201cq\u201d" + "x" * 40 + "a\r\nb"
    received = '"q"' + "x" * 40 + "a\nb"
    c = fidelity.compare(sent, received)
    assert c.kinds == {"quote.straighten", "newline.crlf_to_lf"}
    assert c.explained
