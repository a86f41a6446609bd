"""Writers of one card document at the same time each keep their block: the document is
read, edited and replaced under its lock (``fidelity._report.document``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support.cli import FIDELITY

import fidelity
from fidelity import Payload
from fidelity._core.errors import UsageError
from fidelity._report import document

PAYLOADS = (Payload(id="quotes/x", text="\u201cx\u201d", families=("quotes",)),)
WRITERS = 4
ROUNDS = 5


def _results(tmp_path: Path) -> list[Path]:
    paths = []
    for k in range(WRITERS):
        card = fidelity.survey(str.upper, PAYLOADS).card(name=f"block{k}")
        path = tmp_path / f"b{k}.json"
        path.write_text(card.to_json())
        paths.append(path)
    return paths


def test_four_updates_at_once_keep_every_block(tmp_path: Path) -> None:
    results = _results(tmp_path)
    doc = tmp_path / "same.md"
    for round_ in range(ROUNDS):
        doc.write_text(f"# round {round_}\n")
        writers = [
            subprocess.Popen(
                [*FIDELITY, "card", str(r), "--update", str(doc)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for r in results
        ]
        for writer in writers:
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err
        text = doc.read_bytes()
        assert text.startswith(f"# round {round_}\n".encode())
        kept = [k for k in range(WRITERS) if document.find(text, f"block{k}") is not None]
        assert kept == list(range(WRITERS)), f"round {round_}: kept only {kept}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(r.name for r in results), "same.md"]
    ), "no lock or temporary file is left behind"


def test_a_held_lock_is_waited_for_then_refused_in_one_sentence(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("keep\n")
    with document.locked(doc), pytest.raises(UsageError) as caught:
        # A second writer in this process opens its own descriptor: it must wait, and
        # give up after the bound.
        document.update(doc, lambda b: b + b"more\n", wait=0.2)
    assert "another writer" in str(caught.value)
    assert doc.read_text() == "keep\n"
    assert document.update(doc, lambda b: b + b"more\n")
    assert doc.read_text() == "keep\nmore\n"
