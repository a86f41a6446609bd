"""``fidelity compare FILE_A FILE_B`` as a real subprocess."""

from __future__ import annotations

from pathlib import Path

from _support.cli import fidelity


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
