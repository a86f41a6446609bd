"""``fidelity card RESULT.json``: print, ``--update`` and ``--check`` through the command."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from _support.cli import fidelity_inprocess as command

import fidelity
from fidelity import Payload


def card(*args: str) -> subprocess.CompletedProcess[str]:
    """``fidelity card ARGS...``."""
    return command("card", *args)


PAYLOADS = (
    Payload(id="quotes/left-double-mid", text="a \u201cb\u201d c", families=("quotes",)),
    Payload(id="newlines/crlf-mid", text="a\r\nb", families=("newlines",)),
    Payload(id="bidi/rlo-mid", text="a\u202eb", families=("bidi",)),
)


def straighten(text: str) -> str:
    return text.replace("\u201c", '"').replace("\u201d", '"')


def crlf_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def straighten_then_upper(text: str) -> str:
    return straighten(text).upper()


def result_of(
    path: Path, chain: Callable[[str], str], payloads: tuple[Payload, ...] = PAYLOADS
) -> Path:
    survey = fidelity.survey(chain, payloads=payloads, name="edit.old_string")
    path.write_text(survey.card().to_json())
    return path


def test_print_is_a_block_ready_to_paste(tmp_path: Path) -> None:
    result = card(str(result_of(tmp_path / "r.json", straighten)))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "<!-- fidelity:begin edit.old_string -->"
    assert lines[-1] == "<!-- fidelity:end edit.old_string -->"
    assert "`quote.straighten`" in result.stdout


def test_update_touches_only_its_block_then_check_matches(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    head = b"\xef\xbb\xbf# edit\r\n\r\n<!-- fidelity:begin other -->\r\nkeep me\r\n"
    head += b"<!-- fidelity:end other -->\r\n<!-- fidelity:begin edit.old_string -->\r\n"
    tail = b"<!-- fidelity:end edit.old_string -->\r\ntrailing   \r\n\xe2\x80\x9cprose\xe2\x80\x9d"
    doc.write_bytes(head + b"stale\r\n" + tail)
    result = result_of(tmp_path / "r.json", straighten)
    assert card(str(result), "--update", str(doc)).returncode == 0
    written = doc.read_bytes()
    assert written.startswith(head)
    assert written.endswith(tail)
    block = written[len(head) : -len(tail)]
    assert b"stale" not in block
    assert b"quote.straighten" in block
    assert b"\n" not in block.replace(b"\r\n", b"")  # the document's own line endings
    checked = card(str(result), "--check", str(doc))
    assert checked.returncode == 0, checked.stdout
    assert "matches" in checked.stdout
    # Updating again with the same result changes nothing at all.
    assert card(str(result), "--update", str(doc)).returncode == 0
    assert doc.read_bytes() == written


def test_update_creates_the_document(tmp_path: Path) -> None:
    doc = tmp_path / "new.md"
    assert (
        card(str(result_of(tmp_path / "r.json", straighten)), "--update", str(doc)).returncode == 0
    )
    assert doc.read_text().startswith("<!-- fidelity:begin edit.old_string -->\n")


def test_check_shows_changed_rows_and_exits_1(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    assert (
        card(str(result_of(tmp_path / "old.json", straighten)), "--update", str(doc)).returncode
        == 0
    )
    drifted = card(str(result_of(tmp_path / "new.json", crlf_to_lf)), "--check", str(doc))
    assert drifted.returncode == 1
    out = drifted.stdout
    assert "changed rows" in out
    assert "quotes (round trip): outcome transformed -> preserved" in out
    assert "quotes (round trip): kind quote.straighten disappeared" in out
    assert "newlines (round trip): kind newline.crlf_to_lf appeared" in out
    assert "bidi" not in out


#: A quotes row that stays "mixed (1 preserved, 1 transformed)" whether or not the chain
#: also upper-cases, and a newlines row that upper-casing leaves alone.
SAME_OUTCOME = (
    Payload(id="quotes/curly", text="\u201cq\u201d", families=("quotes",)),
    Payload(id="quotes/digits", text="123", families=("quotes",)),
    Payload(id="newlines/crlf", text="1\r\n2", families=("newlines",)),
)


def test_check_sees_kinds_change_within_an_unchanged_outcome(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    committed = result_of(tmp_path / "old.json", straighten, SAME_OUTCOME)
    assert card(str(committed), "--update", str(doc)).returncode == 0
    drifted = card(
        str(result_of(tmp_path / "new.json", straighten_then_upper, SAME_OUTCOME)),
        "--check",
        str(doc),
    )
    assert drifted.returncode == 1, drifted.stdout
    assert drifted.stdout.splitlines()[1:] == ["  quotes (round trip): kind unicode.case appeared"]
    assert "1 changed row:" in drifted.stdout


def test_check_sees_rows_that_appear_or_vanish(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    fewer = result_of(tmp_path / "fewer.json", straighten, PAYLOADS[:2])
    full = result_of(tmp_path / "full.json", straighten)
    assert card(str(full), "--update", str(doc)).returncode == 0
    vanished = card(str(fewer), "--check", str(doc))
    assert vanished.returncode == 1
    assert vanished.stdout.splitlines()[1:] == [
        "  bidi (round trip): no longer surveyed (was preserved (1))"
    ]
    assert card(str(fewer), "--update", str(doc)).returncode == 0
    appeared = card(str(full), "--check", str(doc))
    assert appeared.returncode == 1
    assert appeared.stdout.splitlines()[1:] == ["  bidi (round trip): new row, preserved (1)"]


def test_check_without_the_block_exits_1(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    doc.write_text("# nothing here\n")
    result = card(str(result_of(tmp_path / "r.json", straighten)), "--check", str(doc))
    assert result.returncode == 1
    assert "no such block" in result.stdout


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "does not exist"),
        (b"{not json", "not valid JSON"),
        (b'{"schema_version": 99}', "schema_version"),
    ],
)
def test_bad_results_are_usage_errors(tmp_path: Path, content: bytes | None, words: str) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_bytes(content)
    result = card(str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_broken_markers_are_usage_errors(tmp_path: Path) -> None:
    doc = tmp_path / "CARD.md"
    doc.write_text("<!-- fidelity:begin edit.old_string -->\nno end\n")
    result = card(str(result_of(tmp_path / "r.json", straighten)), "--update", str(doc))
    assert result.returncode == 2
    assert "fidelity:end edit.old_string" in result.stderr
    assert doc.read_text() == "<!-- fidelity:begin edit.old_string -->\nno end\n"
