"""``read_limited``: the one bounded file read behind every command that reads a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from fidelity._core.errors import UsageError
from fidelity._report.results import read_limited


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
