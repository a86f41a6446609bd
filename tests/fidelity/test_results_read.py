"""``read_limited``: the one bounded file read behind every command that reads a file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fidelity._core.errors import UsageError
from fidelity._report.results import read_limited, writable, write_atomic


def test_reads_a_file_within_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"abc")
    assert read_limited(path, "document", limit=3) == b"abc"


def test_a_file_over_the_limit_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"x" * (2 * 1024 * 1024))
    with pytest.raises(UsageError, match=r"^document .*doc\.md is larger than 1 MiB\.$"):
        read_limited(path, "document", limit=1024 * 1024)


def test_a_missing_file_gives_the_fallback_or_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "absent.md"
    assert read_limited(path, "--card", limit=10, missing=b"") == b""
    with pytest.raises(UsageError, match="does not exist"):
        read_limited(path, "--card", limit=10)


def test_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory"):
        read_limited(tmp_path, "result", limit=10)


def test_a_dash_is_a_file_name_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(b"file")
    assert read_limited("-", "document", limit=10) == b"file"


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"^result .*fifo is a FIFO, not a regular file"):
        read_limited(fifo, "result", limit=10)
    with pytest.raises(UsageError, match=r"^--card .*fifo is a FIFO, not a regular file"):
        write_atomic(fifo, "x", "--card")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_what_may_be_replaced(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    assert writable(doc) == doc  # a new file
    doc.write_text("x")
    assert writable(doc) == doc
    doc.chmod(0o444)
    with pytest.raises(UsageError, match="is read-only"):
        writable(doc)
    doc.chmod(0o644)
    os.link(doc, tmp_path / "other.md")
    with pytest.raises(UsageError, match="has 2 hard links"):
        writable(doc)
    with pytest.raises(UsageError, match="is a directory, not a regular file"):
        writable(tmp_path)
    with pytest.raises(UsageError, match=r"the directory .*absent does not exist"):
        writable(tmp_path / "absent" / "doc.md")


def test_a_symbolic_link_is_followed_only_within_its_directory(tmp_path: Path) -> None:
    inner = tmp_path / "docs"
    (inner / "v1").mkdir(parents=True)
    (inner / "v1" / "real.md").write_text("old")
    (inner / "down.md").symlink_to(Path("v1") / "real.md")
    write_atomic(inner / "down.md", "new")
    assert (inner / "down.md").is_symlink()
    assert (inner / "v1" / "real.md").read_text() == "new"
    (tmp_path / "outside.md").write_text("theirs")
    (inner / "up.md").symlink_to(Path("..") / "outside.md")
    with pytest.raises(
        UsageError, match=r"is a symbolic link to .*outside\.md, outside its directory"
    ):
        write_atomic(inner / "up.md", "mine")
    assert (tmp_path / "outside.md").read_text() == "theirs"
    assert sorted(p.name for p in inner.iterdir()) == ["down.md", "up.md", "v1"]
