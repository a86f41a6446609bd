"""Cases found by surveying real chains, kept so they stay classified right."""

from __future__ import annotations

import codecs
import io
import re
import subprocess
from pathlib import Path

import pytest
from _needs import need_executable

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


def test_line_breaks_stripped_after_each_line_is_stripped_are_a_strip() -> None:
    # Each line rstripped, then the value: the blanks before a line break are a line
    # strip, the final line breaks a strip (no line strip removes a line break).
    sent = "a  \nb \n\n"
    received = "\n".join(line.rstrip() for line in sent.split("\n")).rstrip()
    c = fidelity.compare(sent, received)
    assert [(t.kind, t.sent) for t in c.transformations] == [
        ("whitespace.line_strip", "  \n"),
        ("whitespace.strip", " \n\n"),
    ]


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


# -- a character split across a chunk boundary ------------------------------------------


def _decoded_per_chunk(data: bytes, size: int) -> str:
    """A stream read ``size`` bytes at a time, each chunk decoded on its own.

    The mistake of decoding every chunk with a fresh decoder (``errors="replace"``):
    a character whose bytes straddle a boundary becomes one U+FFFD for the piece
    before it and one for each byte after it.
    """
    stream = io.BufferedReader(io.BytesIO(data), buffer_size=size)
    out = []
    while chunk := stream.read(size):
        out.append(codecs.getincrementaldecoder("utf-8")("replace").decode(chunk, final=True))
    return "".join(out)


def _node_read_stream(data: bytes, size: int, tmp_path: Path) -> str:
    """Node's ``s += chunk.toString()`` over ``fs.createReadStream`` (``highWaterMark``)."""
    node = need_executable("node")
    source = tmp_path / "sent.txt"
    source.write_bytes(data)
    script = (
        "const fs = require('fs'); let s = '';"
        "fs.createReadStream(process.argv[1], {highWaterMark: Number(process.argv[2])})"
        ".on('data', (chunk) => { s += chunk.toString(); })"
        ".on('end', () => process.stdout.write(s));"
    )
    done = subprocess.run(
        [node, "-e", script, str(source), str(size)],
        capture_output=True,
        timeout=30,
        check=True,
    )
    return done.stdout.decode("utf-8")


# (text, chunk size): 'alpha' + E2 80 | AF; 'emoji ' + F0 9F | 98 80; two fullwidth
# letters cut (EF | BC A1 and EF BC | A1).
SPLITS = [
    ("alpha\u202fbeta", 7),
    ("alpha\u202fbeta", 6),
    ("emoji \U0001f600 here", 8),
    ("emoji \U0001f600 here", 9),
    ("alpha \uff21\uff22\uff23 beta", 7),
    ("\u201cquoted\u201d caf\u00e9", 5),
]


@pytest.mark.parametrize(("text", "size"), SPLITS)
def test_a_character_split_by_a_python_chunked_decoder_is_replacement(text: str, size: int) -> None:
    received = _decoded_per_chunk(text.encode("utf-8"), size)
    assert "\ufffd" in received
    comparison = fidelity.compare(text, received)
    assert comparison.kinds == {"encoding.replacement"}, comparison.render()
    assert comparison.explained


@pytest.mark.parametrize(("text", "size"), SPLITS)
def test_a_character_split_by_node_chunk_to_string_is_replacement(
    text: str, size: int, tmp_path: Path
) -> None:
    received = _node_read_stream(text.encode("utf-8"), size, tmp_path)
    assert "\ufffd" in received
    comparison = fidelity.compare(text, received)
    assert comparison.kinds == {"encoding.replacement"}, comparison.render()
    assert comparison.explained


# -- a leading byte order mark ----------------------------------------------------------


def _echoed(text: str, template: str) -> str:
    """``printf TEMPLATE TEXT`` in a real shell (an echo tool's answer around the value)."""
    done = subprocess.run(
        ["sh", "-c", 'printf "$1" "$2"', "sh", template, text],
        capture_output=True,
        timeout=10,
        check=True,
    )
    return done.stdout.decode("utf-8")


def test_a_prefix_before_a_leading_bom_is_only_the_insertion() -> None:
    sent = "\ufeffbeta"
    received = _echoed(sent, "Echo: %s")
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"unknown"}, comparison.render()
    (unknown,) = comparison.transformations
    assert (unknown.sent, unknown.received) == ("", "Echo: ")


def test_a_prefix_before_a_leading_bom_beside_unknown_edits_leaves_the_bom() -> None:
    # Unknown edits after the BOM (each "a" garbled) are unknown in both readings; the
    # one where the BOM stayed leaves less unexplained than one where it was removed.
    sent = "\ufeffalpha beta gamma delta epsilon"
    received = _echoed(sent.replace("a", "q"), "Echo: %s")
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"unknown"}, comparison.render()
    assert comparison.transformations[0].received == "Echo: "
    assert {(t.sent, t.received) for t in comparison.transformations[1:]} == {("a", "q")}


def test_a_bom_kept_after_a_removed_prefix_is_not_bom_added() -> None:
    sent = "Echo: \ufeffbeta"
    received = sent.removeprefix("Echo: ")
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"unknown"}, comparison.render()
    (unknown,) = comparison.transformations
    assert (unknown.sent, unknown.received) == ("Echo: ", "")


# -- bytes that are not UTF-8, on the sent side ------------------------------------------


def test_sent_bytes_in_a_legacy_codec_are_named_and_shown_as_bytes() -> None:
    sent = "na\u00efve \u201cquote\u201d".encode("cp1252")
    received = sent.decode("cp1252").encode("utf-8")
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"encoding.mojibake"}, comparison.render()
    assert {t.detail for t in comparison.transformations} == {"cp1252, reversed"}
    shown = comparison.render()
    assert "[byte 0x93]" in shown
    assert "SURROGATE" not in shown


def test_an_unknown_edit_of_sent_bytes_names_the_bytes() -> None:
    sent = "caf\u00e9".encode("latin-1")
    comparison = fidelity.compare(sent, b"cafe!")
    assert comparison.kinds == {"unknown"}
    assert "0xE9" in comparison.transformations[0].detail
    assert "U+DC" not in comparison.render()


# -- whitespace that shifts ---------------------------------------------------------------


def _retyped(text: str, *, tab: int, upper: set[str]) -> str:
    """The ``tab``-th tab became a space, the words in ``upper`` upper-cased, NBSP a space."""
    tabs = iter(range(text.count("\t")))
    out = re.sub("\t", lambda m: " " if next(tabs) == tab else "\t", text)
    out = re.sub(r"\w+", lambda m: m.group().upper() if m.group() in upper else m.group(), out)
    return out.replace("\u00a0", " ")


@pytest.mark.parametrize(
    ("sent", "tab", "upper"),
    [
        ("caf\u00e9 \t\tas \u00a0have", 0, {"as"}),
        ("the\tthe\t\tas\tthe", 2, {"the"}),
        ("caf\u00e9\t have\u00a0 caf\u00e9 \tof", 1, {"caf\u00e9", "of"}),
        ("have\t\thave \u00a0as\t\thave", 1, {"have"}),
    ],
)
def test_whitespace_that_shifts_is_realigned_by_the_rules(
    sent: str, tab: int, upper: set[str]
) -> None:
    # A tab that survived next to one that became a space can be paired with either.
    received = _retyped(sent, tab=tab, upper=upper)
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"unicode.case", "whitespace.to_space"}, comparison.render()
    assert comparison.explained


@pytest.mark.parametrize("sent", ["caf\u00e9 \t\tas \u00a0have  \nx", "x \t\tas \t\ny"])
def test_whitespace_that_shifts_next_to_a_line_strip_keeps_the_line_break(sent: str) -> None:
    # The realigned region ends with blanks stripped before a line break: that finding
    # needs the line break as context, and covers it on both sides.
    retyped = _retyped(sent, tab=0, upper={"as"})
    received = "\n".join(line.rstrip() for line in retyped.split("\n"))
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {
        "unicode.case",
        "whitespace.to_space",
        "whitespace.line_strip",
    }, comparison.render()
    (strip,) = [t for t in comparison.transformations if t.kind == "whitespace.line_strip"]
    assert strip.sent.endswith("\n")
    assert strip.received == "\n"


# -- the compiled alignment -----------------------------------------------------------------


def test_an_empty_operation_of_the_compiled_alignment_is_no_hunk() -> None:
    # The diff this project used before (fast_diff_match_patch) reported ('+', 0) and
    # ('-', 0) between these windows; an empty hunk used to be named unicode.nfc
    # (normalizing "" gives "").
    from fidelity._compare.diff import _compiled

    middle = (
        ".\n around go come could then than your do very my but take to take.\n out said take ha"
    )
    sent = "new our had does" + middle
    received = middle + "s had through mo"
    found: list[tuple[int, int, int, int]] = []
    _compiled(sent, received, (0, len(sent), 0, len(received)), found)
    assert found
    assert all(i < ie or j < je for i, ie, j, je in found)


def test_whitespace_that_shifts_is_realigned_after_many_unknown_edits() -> None:
    # Hundreds of words replaced before the shift (each unknown, each tried) leave its
    # realignment its turn, and the last of them next to it does not hide it.
    words = " ".join(f"line {n} of the words that stay as they are" for n in range(400))
    shifted = "caf\u00e9\t have\u00a0 caf\u00e9 \tof"
    sent = words + " . " + shifted
    received = (
        words.replace(" the ", " zebra ")
        + " . "
        + _retyped(shifted, tab=1, upper={"caf\u00e9", "of"})
    )
    comparison = fidelity.compare(sent, received)
    tail = [t for t in comparison.transformations if t.sent_start >= len(words)]
    assert {t.kind for t in tail} == {"unicode.case", "whitespace.to_space"}, comparison.render()
    assert {t.kind for t in comparison.transformations} - {t.kind for t in tail} == {"unknown"}


# -- a hunk is whole grapheme clusters ------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "received", "cluster"),
    [
        # The edit is after a ZWJ: the whole emoji sequence is shown, not its last part.
        ("a\U0001f469\u200d\U0001f4bbb", "a\U0001f469\u200d\U0001f52cb", 3),
        # The edit is the second of two combining marks on one letter.
        ("xe\u0301\u0302y", "xe\u0301\u0303y", 3),
    ],
)
def test_an_edit_inside_a_cluster_covers_the_whole_cluster(
    sent: str, received: str, cluster: int
) -> None:
    c = fidelity.compare(sent, received)
    (t,) = c.transformations
    assert t.kind == "unknown"
    assert (t.sent, t.received) == (sent[1 : 1 + cluster], received[1 : 1 + cluster])


# -- a line separator at the end ------------------------------------------------------------


@pytest.mark.parametrize("separator", ["\x0b", "\x0c"])
def test_a_final_line_separator_written_as_lf_is_no_strip(separator: str) -> None:
    # str.splitlines ends a line at VT and FF; each line printed gets an LF.
    sent = "abc" + separator
    buf = io.StringIO()
    for line in sent.splitlines():
        print(line, file=buf)
    c = fidelity.compare(sent, buf.getvalue())
    assert c.kinds == {"newline.separator_to_lf"}, c.render()


def test_edits_beyond_a_large_insertion_are_still_aligned() -> None:
    # 100 000 code points inserted: no anchor is within reach of where the text goes
    # on, so the region is split at runs found in both texts; the edits before and
    # after the insertion stay one-letter hunks instead of one hunk to the end.
    from fidelity._compare.diff import hunks

    sent = " ".join(f"w{n}" for n in range(60_000))
    k = len(sent) // 2
    e = len(sent) - 1000
    received = sent[:1000] + "X" + sent[1001:k] + "z" * 100_000 + sent[k:e] + "Y" + sent[e + 1 :]
    assert hunks(sent, received) == [
        (1000, 1001, 1000, 1001),
        (k, k, k, k + 100_000),
        (e, e + 1, e + 100_000, e + 100_001),
    ]
