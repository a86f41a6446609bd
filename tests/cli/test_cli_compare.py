"""``fidelity compare FILE_A FILE_B`` as a real subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity


def test_identical_files_exit_0(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_bytes("caf\u00e9\r\n".encode())
    b = tmp_path / "b.txt"
    b.write_bytes(a.read_bytes())
    done = fidelity("compare", str(a), str(b))
    assert done.returncode == 0, done.stderr
    assert "identical" in done.stdout


def test_different_files_exit_1_with_kinds(tmp_path: Path) -> None:
    a = tmp_path / "sent.txt"
    b = tmp_path / "received.txt"
    a.write_bytes("it\u2019s \u201cok\u201d\r\n\u202e".encode())
    b.write_bytes(b'it\'s "ok"\n')
    done = fidelity("compare", str(a), str(b))
    assert done.returncode == 1, done.stderr
    assert "quote.straighten" in done.stdout
    assert "newline.crlf_to_lf" in done.stdout
    assert "\u202e" not in done.stdout
    assert "\r" not in done.stdout


def test_invalid_utf8_file(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_bytes("na\u00efve".encode())
    b.write_bytes("na\u00efve".encode("latin-1"))
    done = fidelity("compare", str(a), str(b))
    assert done.returncode == 1
    assert "encoding.mojibake" in done.stdout


def test_missing_file_is_one_sentence_exit_2(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x")
    done = fidelity("compare", str(a), str(tmp_path / "nope.txt"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "does not exist (no such file)" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_directory_is_a_usage_error(tmp_path: Path) -> None:
    done = fidelity("compare", str(tmp_path), str(tmp_path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_missing_arguments_exit_2() -> None:
    done = fidelity("compare", "only-one")
    assert done.returncode == 2


def test_a_missing_path_is_shown_terminal_safe(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x")
    done = fidelity("compare", str(a), str(tmp_path / "evil\x1b[2Jname.txt"))
    assert done.returncode == 2
    assert "\x1b" not in done.stderr
    assert "[U+001B" in done.stderr


@pytest.mark.parametrize("latin_first", [True, False])
def test_bytes_that_are_not_utf8_read_the_same_on_either_side(
    tmp_path: Path, latin_first: bool
) -> None:
    # The same text written by two real text files: one in cp1252, one in UTF-8.
    legacy = tmp_path / "legacy.txt"
    legacy.write_text("caf\u00e9 cr\u00e8me", encoding="cp1252")
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("caf\u00e9 cr\u00e8me", encoding="utf-8")
    first, second = (legacy, utf8) if latin_first else (utf8, legacy)
    done = fidelity("compare", str(first), str(second))
    assert done.returncode == 1, done.stderr
    assert "[byte 0xE9]" in done.stdout
    assert "byte 0xE8 (not UTF-8)" in done.stdout
    assert "SURROGATE" not in done.stdout
    assert "U+DC" not in done.stdout
    expected = (
        "encoding.mojibake (cp1252, reversed)" if latin_first else "encoding.mojibake (cp1252)"
    )
    assert expected in done.stdout
    assert "unknown" not in done.stdout


def test_help_says_how_large_a_file_may_be() -> None:
    done = fidelity("compare", "--help")
    assert done.returncode == 0
    assert "up to 64 MiB" in " ".join(done.stdout.split())


def test_a_file_over_the_limit_is_one_sentence_exit_2(tmp_path: Path) -> None:
    from fidelity._cli.compare import MAX_BYTES

    small = tmp_path / "small.txt"
    small.write_text("x")
    large = tmp_path / "large.txt"
    with large.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: nothing is written
    done = fidelity("compare", str(small), str(large))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "is larger than 64 MiB" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
