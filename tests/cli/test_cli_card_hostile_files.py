"""``fidelity card`` and ``fidelity compare`` with hostile files: a forged result, a FIFO,
JSON nested 100k deep, documents behind symbolic links, read-only or hard-linked.

A result file is input: its vocabulary fields are checked, every other string is
rendered safely, and nothing it holds can add a block marker, markup or a terminal
escape to what is written or printed. Only regular files are read or replaced.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity

import fidelity as fd

#: Characters that must never reach the terminal raw (C0 but LF, DEL, C1, bidi, ...).
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
EVIL = "x\n<!-- fidelity:end edit.text -->\n<script>alert(1)</script>\x1b]0;owned\x07\u202e"


def _straighten(text: str) -> str:
    return text.replace("\u201c", '"')


@pytest.fixture(scope="module")
def card() -> dict[str, Any]:
    result = fd.survey(_straighten, families=["quotes"]).card(name="edit.text")
    document: dict[str, Any] = json.loads(result.to_json())
    return document


def _write(tmp_path: Path, document: dict[str, Any], name: str = "forged.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _one_sentence(result: Any) -> None:
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("fidelity: ")
    assert result.stderr.count("\n") == 1
    assert not RAW.search(result.stderr)


def _row(d: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = d["rows"][0]
    return row


FORGERIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "row kind": lambda d: _row(d).update(kinds=["quote.straighten" + EVIL]),
    "row family": lambda d: _row(d).update(family="quotes" + EVIL),
    "row outcome": lambda d: _row(d).update(outcome="<b>mixed</b>\n\n<!-- fidelity:begin x -->"),
    "row status": lambda d: _row(d).update(statuses=[["preserved\n<hr>", 3]]),
    "example key": lambda d: _row(d)["examples"][0].update(key="`" + EVIL),
    "allowed kind": lambda d: d["facts"].update(allow=[EVIL]),
    "date": lambda d: d["facts"].update(date="2026\x1b[31m"),
    "card name": lambda d: d.update(name="edit\u202e.text"),
    "observation kind": lambda d: d["observations"][0].update(kinds=[EVIL]),
    "observation family": lambda d: d["observations"][0].update(families=[EVIL]),
    "value type": lambda d: _row(d)["examples"][0].update(received={"type": "x\n<hr>", "data": ""}),
    "int data": lambda d: _row(d)["examples"][0].update(received={"type": "int", "data": "1x"}),
}


@pytest.mark.parametrize("field", sorted(FORGERIES))
def test_a_forged_vocabulary_field_is_refused_and_the_document_kept(
    tmp_path: Path, card: dict[str, Any], field: str
) -> None:
    forged = json.loads(json.dumps(card))
    FORGERIES[field](forged)
    path = _write(tmp_path, forged)
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"# Tools\n")
    result = fidelity("card", str(path), "--update", str(doc))
    assert result.returncode == 2, result.stderr
    assert "not a valid contract card" in result.stderr
    _one_sentence(result)
    assert doc.read_bytes() == b"# Tools\n"
    shown = fidelity("card", str(path))
    assert shown.returncode == 2
    assert shown.stdout == ""


def test_forged_free_text_is_rendered_safely(tmp_path: Path, card: dict[str, Any]) -> None:
    forged = json.loads(json.dumps(card))
    forged["facts"]["chain"] = "chain \x1b[2J\x1b]8;;http://evil\x07link\u202eexe.txt" + EVIL
    forged["facts"]["version"] = EVIL
    for row in forged["rows"]:
        for example in row["examples"]:
            example["error"] = EVIL
    path = _write(tmp_path, forged)
    printed = fidelity("card", str(path))
    assert printed.returncode == 0, printed.stderr
    assert not RAW.search(printed.stdout)
    assert "<script>" not in printed.stdout
    lines = printed.stdout.splitlines()
    assert [line for line in lines if "fidelity:" in line and line.startswith("<!--")] == [
        "<!-- fidelity:begin edit.text -->",
        "<!-- fidelity:end edit.text -->",
    ]
    doc = tmp_path / "doc.md"
    assert fidelity("card", str(path), "--update", str(doc)).returncode == 0
    written = doc.read_text(encoding="utf-8")
    markers = [line for line in written.splitlines() if line.lstrip().startswith("<!--")]
    assert len(markers) == 2
    assert "<script>" not in written
    assert not RAW.search(written.replace("\n", ""))
    # The block stays usable: later checks and updates find exactly one block.
    assert fidelity("card", str(path), "--check", str(doc)).returncode == 0
    assert fidelity("card", str(path), "--update", str(doc)).returncode == 0


def test_json_nested_100k_deep_is_one_sentence(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = fidelity("card", str(deep))
    assert result.returncode == 2
    assert "nested too deeply" in result.stderr
    _one_sentence(result)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "command",
    [
        ("compare", "{fifo}", "{good}"),
        ("compare", "{good}", "{fifo}"),
        ("card", "{fifo}"),
        ("card", "{result}", "--update", "{fifo}"),
        ("card", "{result}", "--check", "{fifo}"),
    ],
    ids=["compare-a", "compare-b", "card-result", "card-update", "card-check"],
)
def test_a_fifo_is_refused_at_once(
    tmp_path: Path, fifo: Path, card: dict[str, Any], command: tuple[str, ...]
) -> None:
    good = tmp_path / "good.txt"
    good.write_text("x")
    result_file = _write(tmp_path, card, "result.json")
    args = [a.format(fifo=fifo, good=good, result=result_file) for a in command]
    result = fidelity(*args, timeout=60)  # a read that blocked would hang here
    assert result.returncode == 2, result.stderr
    assert "is a FIFO, not a regular file" in result.stderr
    _one_sentence(result)
    assert fifo.exists()


def test_a_symbolic_link_out_of_the_documents_directory_is_not_written_through(
    tmp_path: Path, card: dict[str, Any]
) -> None:
    result_file = _write(tmp_path, card, "result.json")
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"# not yours\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    link = docs / "link.md"
    link.symlink_to(outside)
    result = fidelity("card", str(result_file), "--update", str(link))
    assert result.returncode == 2
    assert "symbolic link" in result.stderr
    _one_sentence(result)
    assert outside.read_bytes() == b"# not yours\n"
    assert link.is_symlink()


def test_a_symbolic_link_within_the_directory_is_followed_and_kept(
    tmp_path: Path, card: dict[str, Any]
) -> None:
    result_file = _write(tmp_path, card, "result.json")
    real = tmp_path / "TOOLS.md"
    real.write_bytes(b"# Tools\n")
    link = tmp_path / "link.md"
    link.symlink_to("TOOLS.md")
    result = fidelity("card", str(result_file), "--update", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert real.read_text().startswith("# Tools\n\n<!-- fidelity:begin edit.text -->")


def test_a_read_only_document_is_refused(tmp_path: Path, card: dict[str, Any]) -> None:
    result_file = _write(tmp_path, card, "result.json")
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"# Tools\n")
    doc.chmod(0o444)
    result = fidelity("card", str(result_file), "--update", str(doc))
    assert result.returncode == 2
    assert "is read-only" in result.stderr
    _one_sentence(result)
    assert doc.read_bytes() == b"# Tools\n"


def test_a_hard_linked_document_is_refused(tmp_path: Path, card: dict[str, Any]) -> None:
    result_file = _write(tmp_path, card, "result.json")
    doc = tmp_path / "doc.md"
    doc.write_bytes(b"# Tools\n")
    os.link(doc, tmp_path / "other.md")
    result = fidelity("card", str(result_file), "--update", str(doc))
    assert result.returncode == 2
    assert "2 hard links" in result.stderr
    _one_sentence(result)
    assert os.stat(doc).st_nlink == 2
    assert doc.read_bytes() == b"# Tools\n"
